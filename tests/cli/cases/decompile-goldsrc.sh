# GoldSrc and Quake maps decompile to Valve 220 .map files: worldspawn keeps
# its keys (the wad list too) and says mapversion 220, every texture the map
# holds is named by some side, and every side line has three points, two
# texture axes in brackets, a rotation and two scales.
command -v jq >/dev/null || { echo "skipped: jq not installed"; exit 77; }
"$BSPKIT" ent "$GEN/goldsrc-room.bsp" --set classname=worldspawn 'wad=\half-life\valve\halflife.wad;decals.wad' \
    -o gw.bsp 2>/dev/null || exit 1
for m in gw.bsp "$GEN/quake-room.bsp"; do
    out=$(basename "$m" .bsp).map
    "$BSPKIT" decompile "$m" -o "$out" --json > stats.json; echo "exit $?"
    grep -c '^"mapversion" "220"$' "$out"
    for t in $("$BSPKIT" tex "$m" list --json | jq -r '.textures[].name'); do
        grep -qE "\) $t \[" "$out" || echo "texture $t missing"
    done
    # Side lines: ( x y z ) ( x y z ) ( x y z ) NAME [ ux uy uz s ] [ vx vy vz s ] rot sx sy
    num='-?[0-9.]+(e-?[0-9]+)?'
    pt="\( $num $num $num \)"
    sides=$(grep -c '^(' "$out")
    good=$(grep -cE "^$pt $pt $pt [^ ]+ \[ $num $num $num $num \] \[ $num $num $num $num \] $num $num $num$" "$out")
    [ "$sides" -gt 0 ] && [ "$sides" = "$good" ] && echo "$sides side lines well formed" | sed 's/^[0-9]* //'
    [ "$sides" = "$(jq .sides stats.json)" ] && echo "side count matches the statistics"
done
grep -c '^"wad" "\\half-life\\valve\\halflife.wad;decals.wad"$' gw.map
