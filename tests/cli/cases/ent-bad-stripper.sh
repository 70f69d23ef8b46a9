# A malformed config is reported with its file and line; nothing is written.
printf '; comment\nmodify:\n{\n\tmatch:\n\t{\n\t\t"classname" "light"\n\t}\n\tinsert:\n\t\t"a" "b"\n}\n' >bad.cfg
"$BSPKIT" ent "$GEN/source-room.bsp" --stripper bad.cfg -o out.bsp
status=$?
[ -e out.bsp ] && echo "out.bsp was written"
exit $status
