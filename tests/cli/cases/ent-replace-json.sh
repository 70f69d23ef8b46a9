# --replace with the JSON --json printed: unchanged entities keep the file
# byte for byte; a value edited in the JSON (with sed) comes back as text.
source "$CASES/ent-lib.bash"
"$BSPKIT" ent --json "$GEN/goldsrc-room.bsp" >ents.json || echo "exit $?"
"$BSPKIT" ent "$GEN/goldsrc-room.bsp" --replace ents.json -o same.bsp || echo "exit $?"
cmp -s same.bsp "$GEN/goldsrc-room.bsp" && echo "unchanged: identical file"
sed 's/"_light": "255 255 255 200"/"_light": "0 255 0 50"/' ents.json >edited.json
"$BSPKIT" ent "$GEN/goldsrc-room.bsp" --replace edited.json -o out.bsp || echo "exit $?"
ent_load goldsrc little out.bsp
ent_text out.bsp | tail -5
check_map out.bsp
