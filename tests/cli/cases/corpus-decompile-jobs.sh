# Two corpus maps with clip brushes decompile to the same .map byte for byte
# with one thread, two, three and the default.
source "$CASES/lib.bash"
require_corpus
command -v jq >/dev/null || { echo "skipped: jq not installed"; exit 77; }
for name in awp_jah.bsp aim_dust_usp.bsp; do
    m=$(find "$MAPS" -name "$name" 2>/dev/null | head -n 1)
    [ -n "$m" ] || { echo "$name not in the corpus"; continue; }
    "$BSPKIT" decompile "$m" -o one.map -j 1 --json > one.json || exit 1
    clip=$(jq .clip_brushes one.json)
    [ "$clip" -gt 0 ] || echo "$name: no clip brushes"
    same=yes
    for j in 2 3 default; do
        if [ "$j" = default ]; then "$BSPKIT" decompile "$m" -o "$j.map" > /dev/null || exit 1
        else "$BSPKIT" decompile "$m" -o "$j.map" -j "$j" > /dev/null || exit 1; fi
        cmp -s one.map "$j.map" || same=no
    done
    [ $same = yes ] && echo "same .map with clip brushes for 1, 2, 3 and the default"
done
