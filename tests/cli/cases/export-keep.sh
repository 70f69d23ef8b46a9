# Sky and tool faces are left out by default and come back with --keep.
# The source room's texinfo 0 (4 wall faces) gets SURF_SKY and texinfo 1
# (4 wall faces) SURF_HINT, a tool surface; the 4 faces of texinfo 2 stay.
# Each line: the triangles read from the GLB's JSON chunk (index accessor
# counts / 3), then the OBJ's face lines, for one choice of options.
"$BSPKIT" lump "$GEN/source-room.bsp" extract TEXINFO -o ti.bin || exit 1
printf '\004\000\000\000' | dd of=ti.bin bs=1 seek=64 conv=notrunc status=none    # texinfo 0 flags: SURF_SKY
printf '\000\001\000\000' | dd of=ti.bin bs=1 seek=136 conv=notrunc status=none   # texinfo 1 flags: SURF_HINT
"$BSPKIT" lump "$GEN/source-room.bsp" replace TEXINFO ti.bin -o sky-tool.bsp >/dev/null || exit 1
glb_triangles() {
    local len
    len=$(od -An -tu4 -j12 -N4 "$1" | tr -d ' ')
    dd if="$1" bs=1 skip=20 count="$len" status=none |
        jq '[.meshes[].primitives[].indices as $i | .accessors[$i].count] | add / 3'
}
for opts in "" "--keep sky,tool" "--keep sky" "--keep tool" "--keep all --skip tool" "--keep none"; do
    # shellcheck disable=SC2086
    "$BSPKIT" export sky-tool.bsp -o out.glb $opts >/dev/null || echo "glb export failed: $opts"
    # shellcheck disable=SC2086
    "$BSPKIT" export sky-tool.bsp -o out.obj --no-textures $opts >/dev/null || echo "obj export failed: $opts"
    echo "[$opts] $(glb_triangles out.glb) $(grep -c '^f ' out.obj)"
done
"$BSPKIT" export sky-tool.bsp -o bad.glb --keep skies 2>/dev/null
echo "exit $?"
"$BSPKIT" export sky-tool.bsp -o bad.glb --keep 2>/dev/null
echo "exit $?"
