# Texture images and the lightmap atlas: .gltf names PNG files in OUT_images
# that exist and are PNGs; TEXCOORD_1 is present; .obj names its PNGs with
# map_Kd; --bake-lightmaps points every material at the atlas; the switches
# leave images out.
check_pngs() { # every file named exists and starts with the PNG signature
    for f in "$@"; do
        [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = "211PNG" ] || echo "not a PNG: $f"
    done
}
"$BSPKIT" export "$GEN/goldsrc-room.bsp" -o "g room.gltf" --json | jq -c '[.images, .missing_textures]'
ls g_room_images
check_pngs $(jq -r '.images[].uri' "g room.gltf")
jq -r '[.meshes[].primitives[].attributes | has("TEXCOORD_1")] | all' "g room.gltf"
jq -c '[.materials[].extras.lightmap.index] | unique' "g room.gltf"
jq -r '.textures[] | select(.name == "lightmap") | .source' "g room.gltf"
"$BSPKIT" export "$GEN/goldsrc-room.bsp" -o room.obj >/dev/null
grep '^map_Kd' room.mtl
check_pngs $(grep '^map_Kd' room.mtl | cut -d' ' -f2)
"$BSPKIT" export "$GEN/goldsrc-room.bsp" -o baked.obj --bake-lightmaps >/dev/null
grep '^map_Kd' baked.mtl | sort | uniq -c | tr -s ' '
check_pngs baked_images/lightmap.png
"$BSPKIT" export "$GEN/goldsrc-room.bsp" -o bare.gltf --no-textures --no-lightmaps --json | jq -c '[.images, .missing_textures]'
jq -c '[has("images"), ([.meshes[].primitives[].attributes | has("TEXCOORD_1")] | any)]' bare.gltf
[ -e bare_images ] && echo "bare_images written"
"$BSPKIT" export "$GEN/source-room.bsp" -o src.glb --hdr --json | jq -c '[.images, .missing_textures]'
