# --set on the Source room, written with -o: the light's colour replaced in
# place, a targetname appended to the player start, a key matched without
# regard to case. The output re-reads, passes 'check', and every other lump
# keeps its bytes, so the map CRC (which skips ENTITIES) is unchanged.
source "$CASES/ent-lib.bash"
"$BSPKIT" ent "$GEN/source-room.bsp" --set classname=light _light="10 20 30 400" \
    --set 'classname=info_player_*' targetname=spawn1 --set Classname=FUNC_BRUSH StartDisabled=1 \
    -o out.bsp || echo "exit $?"
"$BSPKIT" ent out.bsp
check_map out.bsp
other_lumps_same source little "$GEN/source-room.bsp" out.bsp
source_crc_same little "$GEN/source-room.bsp" out.bsp
