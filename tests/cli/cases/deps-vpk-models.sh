# Materials inside a game's VPK archives are read and followed: one whose
# bytes are in the numbered data archive pak01_000.vpk, one split between
# preload bytes and data stored in the directory file itself, one whose data
# lies past the end of its archive (listed, not followed). A model's
# companion files are listed with their own status: .vvd and .dx90.vtx
# always, .phy and .dx80.vtx because they exist. fastdl --content writes only
# the loose files of the same list, never what is inside a VPK archive.
set -e
cat >add.txt <<'ENT'
{
"classname" "prop_dynamic"
"model" "models/props/crate.mdl"
}
{
"classname" "prop_physics"
"model" "models/props/barrel.mdl"
}
ENT
mkdir in
"$BSPKIT" ent "$GEN/source-room.bsp" --add add.txt -o in/room.bsp 2>/dev/null
mkdir -p game/materials/loose game/models/props
printf 'LightmappedGeneric\n{\n\t$basetexture "loose/wall"\n}\n' >game/materials/loose/base.vmt
for f in wall.vtf; do printf 'VTF' >game/materials/loose/$f; done
for f in crate.mdl crate.vvd crate.phy crate.dx80.vtx; do printf 'x' >game/models/props/$f; done
python3 - <<'PY'
import struct
nodraw = b'"UnlitGeneric"\n{\n\t"$basetexture" "vpktex/nodraw"\n\t"$bumpmap" "vpktex/nodraw_normal"\n}\n'
dev = b'"LightmappedGeneric"\n{\n\t"include" "materials/loose/base.vmt"\n}\n'
def entry(name, preload, archive, offset, length):
    return name + b"\0" + struct.pack("<IHHIIH", 0, len(preload), archive, offset, length, 0xffff) + preload
tree = (b"vmt\0"
        + b"materials/tools\0" + entry(b"toolsnodraw", b"", 0, 5, len(nodraw)) + b"\0"
        + b"materials/dev\0" + entry(b"dev_measuregeneric01b", dev[:10], 0x7fff, 0, len(dev) - 10) + b"\0"
        + b"materials/skybox\0" + entry(b"sky_day01_01up", b"", 0, 4096, 16) + b"\0"
        + b"\0"
        + b"vtf\0materials/vpktex\0" + entry(b"nodraw", b"", 1, 0, 3) + b"\0\0"
        + b"\0")
open("game/pak01_dir.vpk", "wb").write(struct.pack("<III", 0x55aa1234, 1, len(tree)) + tree + dev[10:])
open("game/pak01_000.vpk", "wb").write(b"JUNK!" + nodraw)
PY
set +e
"$BSPKIT" deps in/room.bsp --game game --json >all.json
echo "exit $?"
python3 - all.json <<'PY' | sort
import json, sys
j = json.load(open(sys.argv[1]))
for d in j["deps"]:
    print(d["where"], d["kind"], d["path"], "<-", d["referrer"], "@", d["location"])
print("counts", j["count"], j["in_map"], j["in_game"], j["missing"])
PY
"$BSPKIT" fastdl in -o web --content game --quiet
echo "fastdl exit $?"
find web -type f | LC_ALL=C sort
