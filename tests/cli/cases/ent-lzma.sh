# Editing the LZMA-compressed Source room: the entity lump is stored
# compressed again, the other lumps and the map CRC stay as they were.
source "$CASES/ent-lib.bash"
"$BSPKIT" ent "$GEN/source-room-lzma.bsp" --set classname=worldspawn skyname=sky_night -o out.bsp || echo "exit $?"
ent_load source little out.bsp
echo "entity lump compressed: ${L_COMP[0]}"
ent_text out.bsp | head -5
check_map out.bsp
other_lumps_same source little "$GEN/source-room-lzma.bsp" out.bsp
source_crc_same little "$GEN/source-room-lzma.bsp" out.bsp
