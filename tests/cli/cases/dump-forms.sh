# Text and JSON forms: entity text, hex for undecoded lumps, --first/--count windows.
"$BSPKIT" dump "$GEN/source-room.bsp" ENTITIES | head -2
"$BSPKIT" dump "$GEN/source-room.bsp" entities --json | jq -r '.text' | grep -c classname
"$BSPKIT" dump "$GEN/source-room.bsp" planes --first 1 --count 2 | grep -c '^\[[12]\]'
"$BSPKIT" dump "$GEN/source-room.bsp" planes --json --first 1 --count 2 | jq -c '[.tables[0].first, (.tables[0].records|length), .tables[0].count > 2]'
"$BSPKIT" dump "$GEN/goldsrc-room.bsp" lighting --json --count 6 | jq -c '[.lump, .index, (.raw|length), .size > 6]'
"$BSPKIT" dump "$GEN/goldsrc-room.bsp" visibility | head -1
"$BSPKIT" dump "$GEN/source-room.bsp" texdata_string_data --json | jq -r '.tables[0].records[0].name'
