# A material chain inside the pakfile of the Source room: the texdata
# material is a patch that includes a second packed material, whose
# $basetexture is packed too; the nodraw material and five sky faces are
# loose files of a game directory, the sixth sky face is only in a VPK
# directory archive written here; a packed soundscape names two sounds of the
# game directory, a packed particle manifest a packed .pcf file. Everything
# resolves (exit 0); without the
# packed texture, that texture is reported missing (exit 1).
mkdir -p pak/materials/dev pak/materials/custom game/materials/tools game/materials/skybox
cat >pak/materials/dev/dev_measuregeneric01b.vmt <<'VMT'
"patch"
{
	"include" "materials/custom/base.vmt"
	"insert" { "$bumpmap" "custom/wall_normal" }
}
VMT
cat >pak/materials/custom/base.vmt <<'VMT'
LightmappedGeneric
{
	// the nearest cubemap is no file
	$basetexture "custom\wall"
	"$envmap" "env_cubemap"
}
VMT
mkdir -p pak/scripts pak/maps pak/particles game/sound/ambient
cat >pak/scripts/soundscapes_room.txt <<'TXT'
"room.Ambient"
{
	"dsp" "1"
	"playlooping" { "volume" "0.5" "wave" "ambient/wind1.wav" }
	"playrandom" { "rndwave" { "wave" "*ambient/crow.wav" } }
}
TXT
printf 'particles_manifest\n{\n\t"file" "!particles/room_fx.pcf"\n}\n' >pak/maps/room_particles.txt
printf 'PCF' >pak/particles/room_fx.pcf
printf 'RIFF' >game/sound/ambient/wind1.wav
printf 'RIFF' >game/sound/ambient/crow.wav
printf 'VTF' >pak/materials/custom/wall.vtf
printf 'VTF' >pak/materials/custom/wall_normal.vtf
printf '"UnlitGeneric" { "$basetexture" "tools/toolsnodraw" }' >game/materials/tools/toolsnodraw.vmt
printf 'VTF' >game/materials/tools/toolsnodraw.vtf
for f in bk dn ft lf rt; do printf '"Sky" { }' >"game/materials/skybox/sky_day01_01$f.vmt"; done
python3 - <<'PY'
import struct
# VPK 1 directory: extension, path, file name, then CRC, preload count, archive, offset, length, terminator.
tree = b"vmt\0materials/skybox\0sky_day01_01up\0" + struct.pack("<IHHIIH", 0, 0, 0x7fff, 0, 0, 0xffff) + b"\0\0\0"
open("game/pak01_dir.vpk", "wb").write(struct.pack("<III", 0x55aa1234, 1, len(tree)) + tree)
PY
(cd pak && "$BSPKIT" pak "$GEN/source-room.bsp" add materials/dev/dev_measuregeneric01b.vmt \
    materials/custom/base.vmt materials/custom/wall.vtf materials/custom/wall_normal.vtf \
    scripts/soundscapes_room.txt maps/room_particles.txt particles/room_fx.pcf -o ../packed.bsp >/dev/null) ||
    echo "pak add exit $?"
check() {
    python3 - "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for d in j["deps"]:
    print(d["where"], d["kind"], d["path"], "<-", d["referrer"])
print("counts", j["count"], j["in_map"], j["in_game"], j["missing"])
PY
}
"$BSPKIT" deps packed.bsp --game game --json >all.json
echo "exit $?"
check all.json | sort
"$BSPKIT" pak packed.bsp remove materials/custom/wall.vtf -o nowall.bsp >/dev/null || echo "pak remove exit $?"
"$BSPKIT" deps nowall.bsp --game game --missing
echo "exit $?"
