# replace puts a file's bytes into one lump; every other lump keeps its
# bytes, and the map still validates. A size that is not a whole number of
# records is refused.
source "$CASES/lib.bash"
MAP_FAMILY=goldsrc
in="$GEN/goldsrc-room.bsp"
printf '{\n"classname" "worldspawn"\n"wad" "\\\\half-life\\\\valve\\\\halflife.wad"\n}\n' > ents.txt
"$BSPKIT" lump "$in" replace ENTITIES ents.txt -o out.bsp || exit 1
load_map "$in"
for ((i = 1; i < 15; i++)); do raw_bytes "$in" "${L_OFF[$i]}" "${L_LEN[$i]}" > "in.$i"; done
load_map out.bsp
raw_bytes out.bsp "${L_OFF[0]}" "${L_LEN[0]}" | cmp - ents.txt || echo "ENTITIES is not the file"
for ((i = 1; i < 15; i++)); do
    raw_bytes out.bsp "${L_OFF[$i]}" "${L_LEN[$i]}" | cmp -s - "in.$i" || echo "lump $i changed"
done
"$BSPKIT" check -q out.bsp || echo "output does not validate"
head -c 21 /dev/zero > bad.bin
"$BSPKIT" lump "$in" replace PLANES bad.bin -o bad.bsp
status=$?
[ -e bad.bsp ] && echo "bad.bsp was written"
exit $status
