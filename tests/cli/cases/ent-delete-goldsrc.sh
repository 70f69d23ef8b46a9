# --delete on the GoldSrc room: the light goes, the rest of the map stays.
source "$CASES/ent-lib.bash"
"$BSPKIT" ent "$GEN/goldsrc-room.bsp" --delete 'classname=LIGHT' -o out.bsp || echo "exit $?"
"$BSPKIT" ent out.bsp
check_map out.bsp
other_lumps_same goldsrc little "$GEN/goldsrc-room.bsp" out.bsp
