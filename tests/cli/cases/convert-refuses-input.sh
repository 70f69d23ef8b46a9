# Writing over the input needs --in-place; -o naming the input (even by
source "$CASES/lib.bash"
# another path) is refused and the file is left alone.
cp "$GEN/goldsrc-room.bsp" map.bsp && chmod u+w map.bsp
mkdir sub
"$BSPKIT" convert map.bsp -o ./sub/../map.bsp --blueshift
status=$?
cmp map.bsp "$GEN/goldsrc-room.bsp" || echo "input modified"
"$BSPKIT" convert map.bsp --in-place --blueshift || echo "--in-place failed"
[ "$(rd_u32 map.bsp 4)" = "$(rd_u32 "$GEN/goldsrc-room.bsp" 12)" ] || echo "--in-place did not write the Blue Shift order"
exit $status
