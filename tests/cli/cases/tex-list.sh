# Sample maps: GoldSrc embeds two paletted textures; the Source room names
# two materials its (empty) pakfile does not hold.
"$BSPKIT" tex "$GEN/goldsrc-room.bsp" list
"$BSPKIT" tex "$GEN/source-room.bsp" list --json | grep -E '"(count|embedded|missing|source)"'
