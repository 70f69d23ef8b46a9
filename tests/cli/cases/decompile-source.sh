# A Source map decompiles to a VMF whose solids match the brush lump, whose
# entities are all there, and --unpack writes the pakfile's files beside it.
command -v jq >/dev/null || { echo "skipped: jq not installed"; exit 77; }
mkdir -p src/materials/test
seq 1 500 > src/materials/test/wall.vmt
(cd src && "$BSPKIT" pak "$GEN/source-room.bsp" add materials/test/wall.vmt -o ../packed.bsp) >/dev/null || exit 1
"$BSPKIT" decompile packed.bsp -o out.vmf --unpack unpacked --json > stats.json; echo "exit $?"
cmp -s unpacked/materials/test/wall.vmt src/materials/test/wall.vmt && echo "pakfile entry unpacked"
jq -r '"pakfile entries: \(.pakfile_entries_extracted)"' stats.json
# Solids in the file (blocks opened by a line "solid") equal the statistics, and
# no brush is lost: every brush the map holds is written once (the sample has
# no bevel-only or unowned brushes).
solids=$(grep -cE '^[[:space:]]*solid$' out.vmf)
brushes=$("$BSPKIT" info packed.bsp --json | jq '.counts.brushes')
[ "$solids" = "$(jq .brushes stats.json)" ] && echo "solids match the statistics"
[ "$solids" = "$brushes" ] && echo "every brush written"
# Every entity of the lump comes back as a world or entity block.
ents=$("$BSPKIT" ent packed.bsp --json | jq length)
blocks=$(grep -cE '^(world|entity)$' out.vmf)
[ "$blocks" -ge "$ents" ] && echo "every entity written"
# Without --json the summary line names both files.
"$BSPKIT" decompile packed.bsp -o out2.vmf --no-props --no-cubemaps --no-overlays | grep -c '^packed.bsp -> out2.vmf: '
cmp -s packed.bsp "$GEN/source-room.bsp" && echo "input changed?"
true
