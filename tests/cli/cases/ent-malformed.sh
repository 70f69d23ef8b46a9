# Entity text opening with a stray '}': printing the raw text still works,
# and --json and edits read the rest as the engines' tokenizer does, warning
# with the line of the damage (exit 0).
source "$CASES/lib.bash"
cp "$GEN/goldsrc-room.bsp" bad.bsp && chmod u+w bad.bsp || exit 1
ents=$(rd_u32 bad.bsp 4)
patch_bytes bad.bsp "$ents" '}'
"$BSPKIT" ent bad.bsp | head -2
echo "text: exit ${PIPESTATUS[0]}"
"$BSPKIT" ent bad.bsp --json >/dev/null
echo "json: exit $?"
"$BSPKIT" ent bad.bsp --delete classname=light -o out.bsp
echo "edit: exit $?"
