#!/bin/sh
# Every Quake corpus map converted to BSP2 and to 2PSB by `bspkit convert
# --format` must be byte-identical to what ericw-tools' `bsputil --convert`
# writes, and so must the conversion of that back to the map's own format. Skips, saying so, when
# the maps or a runnable bsputil (it needs Debian's libtbb12) are absent.
# Usage: quake_convert_vs_ericw.sh BSPKIT MAPS_DIR BSPUTIL
bspkit=$1 maps=$2 bsputil=$3
[ -d "$maps" ] || { echo "skipped: $maps not present"; exit 0; }
# 127: missing, or its shared libraries are.
[ -x "$bsputil" ] && { "$bsputil" >/dev/null 2>&1; [ $? -ne 127 ]; } ||
    { echo "skipped: $bsputil does not run here"; exit 0; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
same=0 failed=0
for f in $(cd "$maps" && find . -name '*.bsp' | sort); do
    "$bspkit" info --json "$maps/$f" 2>/dev/null | grep -q '"format": "quake"' || continue
    for fmt in bsp2 2psb; do
        theirs=$fmt
        [ $fmt = 2psb ] && theirs=bsp2rmq
        cp "$maps/$f" "$work/in.bsp" && rm -f "$work/in-$theirs"
        "$bsputil" --convert $theirs "$work/in.bsp" >/dev/null 2>&1 || { echo "FAIL $f: bsputil --convert $theirs"; failed=$((failed + 1)); continue; }
        if ! "$bspkit" convert "$work/in.bsp" --format $fmt -o "$work/ours.bsp"; then
            echo "FAIL $f: bspkit convert --format $fmt"; failed=$((failed + 1)); continue
        fi
        if ! cmp -s "$work/in-$theirs" "$work/ours.bsp"; then
            echo "FAIL $f: --format $fmt differs from bsputil --convert $theirs"; failed=$((failed + 1)); continue
        fi
        back=bsp29
        head -c 4 "$maps/$f" | grep -q 'BSP2' && back=bsp2
        head -c 4 "$maps/$f" | grep -q '2PSB' && back=2psb
        theirs_back=$back
        [ $back = 2psb ] && theirs_back=bsp2rmq
        cp "$work/in-$theirs" "$work/mid.bsp" && rm -f "$work/mid-$theirs_back"
        "$bsputil" --convert $theirs_back "$work/mid.bsp" >/dev/null 2>&1 &&
            "$bspkit" convert "$work/ours.bsp" --format $back -o "$work/back.bsp" &&
            cmp -s "$work/back.bsp" "$work/mid-$theirs_back" ||
            { echo "FAIL $f: $fmt back to $back differs from bsputil's"; failed=$((failed + 1)); continue; }
        same=$((same + 1))
    done
done
echo "$same conversions identical to bsputil's and back, $failed failures"
[ $failed -eq 0 ] && [ $same -gt 0 ]
