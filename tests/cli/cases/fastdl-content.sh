# fastdl --content: the files a Source map refers to that a content
# directory holds are written as DIR/PATH.bz2 (materials of its texdata and
# sky and the textures they name, models with their companion files,
# ambient_generic sounds); what the pakfile carries, what no directory holds,
# unreferenced files and names leading out of the directory are not; the
# first directory given wins; every archive decompresses to its file.
set -e
"$BSPKIT" generate source-room -o base.bsp > /dev/null
cat > add.txt <<'ENT'
{
"classname" "prop_dynamic"
"model" "models/props/crate.mdl"
}
{
"classname" "ambient_generic"
"message" "ambient/wind.wav"
}
{
"classname" "ambient_generic"
"message" "*music/loop.mp3"
}
{
"classname" "prop_physics"
"model" "models/../../secret.mdl"
}
{
"classname" "ambient_generic"
"message" "../secret.wav"
}
ENT
"$BSPKIT" ent base.bsp --add add.txt -o ent.bsp 2> /dev/null
mkdir -p packed/materials/tools
echo '"UnlitGeneric" { "$basetexture" "tools/toolsnodraw" }' > packed/materials/tools/toolsnodraw.vmt
mkdir in
"$BSPKIT" pak ent.bsp add packed/materials/tools/toolsnodraw.vmt --as materials/tools/toolsnodraw.vmt -o in/room.bsp > /dev/null
mk() { mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" > "$1"; }
mk game/materials/dev/dev_measuregeneric01b.vmt '"LightmappedGeneric"
{
    // the base texture and a bump map; the tint is no texture
    "$basetexture" "dev/dev_measuregeneric01b"
    $bumpmap dev/bump
    "$envmaptint" "[.5 .5 .5]"
}'
mk game/materials/dev/dev_measuregeneric01b.vtf "base texture"
mk game/materials/dev/bump.vtf "bump map"
mk game/materials/tools/toolsnodraw.vmt "not this one: the pakfile has it"
mk game/materials/skybox/sky_day01_01bk.vmt "sky back"
mk game/materials/unused.vmt "nobody refers to it"
mk game/models/props/crate.mdl "the game's crate"
mk game/models/props/crate.vvd "vvd"
mk game/models/props/crate.dx90.vtx "vtx"
mk game/models/props/crate.phy "phy"
mk game/sound/ambient/wind.wav "wind"
mk game/sound/music/loop.mp3 "loop"
mk custom/models/props/crate.mdl "the custom crate"
mk secret.mdl "outside"
mk secret.wav "outside"
"$BSPKIT" fastdl in -o web --content custom --content game --quiet
find web -type f | LC_ALL=C sort
for f in $(find web -type f -name '*.bz2' ! -path 'web/maps/*'); do
    rel=${f#web/}
    rel=${rel%.bz2}
    if [ -f "custom/$rel" ]; then src="custom/$rel"; else src="game/$rel"; fi
    bzip2 -d -c "$f" | cmp - "$src"
done
bzip2 -d -c web/maps/room.bsp.bz2 | cmp - in/room.bsp
echo "all archives decompress to their files"
"$BSPKIT" fastdl in -o web --content custom --content game | tail -1 | sed 's/;.*//'
