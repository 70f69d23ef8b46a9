# Every sample map to GLB, glTF (+ .bin) and OBJ (+ .mtl); the triangle count
# printed with --json matches the OBJ's face lines and the GLB starts with
# its magic and states its own length.
for m in goldsrc-room quake-room source-room source-room-be source-room-lzma; do
    tris=$("$BSPKIT" export "$GEN/$m.bsp" -o "$m.glb" --json | jq .triangles) || { echo "$m: glb failed"; continue; }
    "$BSPKIT" export "$GEN/$m.bsp" -o "$m.gltf" >/dev/null || echo "$m: gltf failed"
    "$BSPKIT" export "$GEN/$m.bsp" -o "$m.obj" >/dev/null || echo "$m: obj failed"
    magic=$(head -c 4 "$m.glb")
    len=$(od -An -tu4 -j8 -N4 "$m.glb" | tr -d ' ')
    size=$(stat -c %s "$m.glb")
    faces=$(grep -c '^f ' "$m.obj")
    uri=$(jq -r '.buffers[0].uri' "$m.gltf")
    [ -f "$m.bin" ] && [ -f "$m.mtl" ] && [ "$len" = "$size" ] || echo "$m: missing .bin/.mtl or bad GLB length"
    echo "$m $magic $tris $faces $uri $(jq -r '.asset.version' "$m.gltf")"
done
