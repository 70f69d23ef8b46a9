# Every sample map: the groups add up to the file size (stat), the header is
# the family's header and directory (GoldSrc/Quake 4 + 15 * 8, Source
# 8 + 64 * 16 + 4, Quake 2 8 + 19 * 8, Quake 3 8 + 17 * 8), and the Source
# room's empty pakfile gets its entries from `bspkit pak add`.
for kind in goldsrc-room quake-room quake2-room quake3-room source-room source-room-lzma; do
    "$BSPKIT" size "$GEN/$kind.bsp" --json >"$kind.json" || echo "$kind: exit $?"
    python3 - "$kind" "$(stat -c %s "$GEN/$kind.bsp")" <<'PY'
import json, sys
kind, size = sys.argv[1], int(sys.argv[2])
j = json.load(open(kind + ".json"))
header = {"goldsrc-room": 124, "quake-room": 124, "quake2-room": 160, "quake3-room": 144}.get(kind, 1036)
ok = sum(j["groups"].values()) == size == j["size"] and j["header_bytes"] == header
print(kind, "adds up" if ok else f"does not add up: {j['groups']} header {j['header_bytes']} size {size}",
      f"pakfile of {j['pakfile']['entries']} entries" if j["pakfile"] else "no pakfile")
PY
done
mkdir -p materials/maps/room
printf 'VTF' >materials/maps/room/c0_0_0.vtf
printf '"LightmappedGeneric" {}' >materials/room.vmt
"$BSPKIT" pak "$GEN/source-room.bsp" add materials/maps/room/c0_0_0.vtf materials/room.vmt -o pak.bsp >/dev/null ||
    echo "pak add exit $?"
"$BSPKIT" size pak.bsp --json | python3 -c '
import json, sys
j = json.load(sys.stdin)
p = j["pakfile"]
print("pakfile entries", p["entries"], "stored", p["data_bytes"], "cubemaps", p["cubemaps"]["count"], p["cubemaps"]["bytes"])
print("by extension", sorted((e["name"], e["count"], e["bytes"]) for e in p["by_extension"]))
print("savings", [(s["what"], s["entries"]) for s in j["savings"]])'
