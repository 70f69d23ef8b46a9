#!/usr/bin/env bash
# Export every generated sample map, and when the shared corpus is present a
# few maps of each family (displacements, the Xbox 360 map, GoldSrc, Quake,
# BSP2, VBSP 21 and 25, Titanfall 2 with and without external lumps), to .glb and to .gltf + .bin, then run the Khronos
# glTF validator over all of them: any validation error fails the test.
# Exports carry their texture PNGs (embedded in .glb, files beside .gltf)
# and, for lit maps, the lightmap atlas and TEXCOORD_1; each map is also
# exported with every face kind kept (--keep all, what bspkit view embeds,
# with the kinds in material extras.class); the script checks
# that each map's .gltf names at least one image when its .glb embeds any.
#   validate_exports.sh BSPKIT [MAPS_DIR]
set -u
BSPKIT=$1
MAPS=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
VALIDATOR="$HERE/validator"

if ! command -v node >/dev/null 2>&1 || [ ! -d "$VALIDATOR/node_modules/gltf-validator" ]; then
    echo "FAIL: the glTF validator is not installed ($VALIDATOR/node_modules); run scripts/install-deps.sh"
    exit 1
fi

OUT=$(mktemp -d "${TMPDIR:-/tmp}/bspkit-export-validate.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
"$BSPKIT" generate --all -o "$OUT/gen" >/dev/null || { echo "FAIL: bspkit generate"; exit 1; }

maps=("$OUT"/gen/*.bsp)
CORPUS=(
    "lanofdoom+counterstrikesource-maps/nightly/cstrike/maps/gg_autumn.bsp"
    "bsp_tool/maps/Team Fortress 2/test_displacement_decompile.bsp"
    "bsp_tool/maps/Xbox360/The Orange Box/shack.360.bsp"
    "pySourceSDK+ValveBSP/tests/data/testmap.bsp"
    "ata4+bspsrc/bspsrc-decompiler/src/test/resources/info/ata4/bspsrc/decompiler/modules/texture/csgo_tooltextures.bsp"
    "bsp_tool/maps/Momentum Mod/mp_lobby.bsp"
    "barnuri+cs1.6-server/maps/de_complex.bsp"
    "c0burn+Slipgate/maps/e1m2.bsp"
    "bsp_tool/maps/ReMakeQuake/mp_lobby.bsp"
    "jocarren+opentdm-docker/opentdm/maps/q2duel5.bsp"
    "atsb+daikatana-restoration-project/Maps/E1/e1m7.bsp"
    "icewind1991+vbsp/test.bsp"
    "themuffinator+quakelive/assets/quakelive/baseq3/maps/thunderstruck.bsp"
    "Syampuuh+Titanfall2/depot/r2dlc10/game/r2/maps/mp_lobby.bsp"
    "Berdox+Chroma-Null-Surf/mod/maps/mp_chroma_null_surf.bsp"
)
if [ -n "$MAPS" ] && [ -d "$MAPS" ]; then
    for m in "${CORPUS[@]}"; do
        if [ -f "$MAPS/$m" ]; then maps+=("$MAPS/$m"); else echo "note: corpus map not present: $m"; fi
    done
else
    echo "note: shared map corpus not present; sample maps only"
fi

files=()
failed=0
n=0
for m in "${maps[@]}"; do
    n=$((n + 1))
    for ext in glb gltf; do
        out="$OUT/export $n.$ext" # a blank in the name exercises the buffer URI encoding
        if "$BSPKIT" export "$m" -o "$out" >/dev/null 2>"$OUT/err"; then
            files+=("$out")
        else
            echo "FAIL $m -> .$ext: $(cat "$OUT/err")"
            failed=1
        fi
    done
    # Every face kind kept, as the page of `bspkit view` holds it (material extras.class).
    out="$OUT/export $n keep-all.glb"
    if "$BSPKIT" export "$m" -o "$out" --keep all >/dev/null 2>"$OUT/err"; then
        files+=("$out")
    else
        echo "FAIL $m -> --keep all .glb: $(cat "$OUT/err")"
        failed=1
    fi
    g="$OUT/export $n.gltf"
    if [ -f "$g" ] && command -v jq >/dev/null 2>&1; then
        imgs=$(jq '(.images // []) | length' "$g")
        tc1=$(jq '[.meshes[]?.primitives[].attributes | has("TEXCOORD_1")] | any' "$g")
        echo "map $n: $m ($imgs images, TEXCOORD_1: $tc1)"
    else
        echo "map $n: $m"
    fi
done
node "$VALIDATOR/validate.js" "${files[@]}" || failed=1
echo "validated ${#files[@]} files from $n maps"
exit $failed
