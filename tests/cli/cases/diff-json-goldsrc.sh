# --json on the GoldSrc room after two edits: the objects the diff lists are
# compared with the ones the edits must give, written out here by hand.
"$BSPKIT" ent "$GEN/goldsrc-room.bsp" --set classname=worldspawn wad=halflife.wad \
    --set classname=light "_light=10 20 30 40" -o b.bsp 2>/dev/null || echo "ent exit $?"
"$BSPKIT" diff "$GEN/goldsrc-room.bsp" b.bsp --json >diff.json
echo "exit $?"
python3 - <<'PY'
import json
j = json.load(open("diff.json"))
want = [
    {"kind": "changed", "index_a": 0, "index_b": 0, "match": "classname", "classname": "worldspawn", "id": None,
     "keys": [{"kind": "added", "key": "wad", "old": None, "new": "halflife.wad", "output": False}]},
    {"kind": "changed", "index_a": 2, "index_b": 2, "match": "origin", "classname": "light", "id": "0 0 96",
     "keys": [{"kind": "changed", "key": "_light", "old": "255 255 255 200", "new": "10 20 30 40", "output": False}]},
]
got = [{k: v for k, v in d.items() if k not in ("pairs", "reordered")} for d in j["entities"]["diffs"]]
print("diffs as edited" if got == want else f"diffs differ: {got}")
e = j["entities"]
print("counts", e["count_a"], e["count_b"], e["removed"], e["changed"], e["added"], "equal", j["equal"])
print("changed lumps", [l["name"] for l in j["lumps"]["list"] if l["changed"]], "of", len(j["lumps"]["list"]))
PY
