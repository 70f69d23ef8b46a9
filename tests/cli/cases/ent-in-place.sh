# --in-place writes over the map itself.
source "$CASES/ent-lib.bash"
cp "$GEN/goldsrc-room.bsp" work.bsp && chmod u+w work.bsp || exit 1
"$BSPKIT" ent work.bsp --in-place --set classname=worldspawn message="edited in place" || echo "exit $?"
ent_load goldsrc little work.bsp
ent_text work.bsp | head -5
check_map work.bsp
other_lumps_same goldsrc little "$GEN/goldsrc-room.bsp" work.bsp
