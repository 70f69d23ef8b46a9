# scan --sqlite: a second run takes every record from the index (the same
# bytes, first 'ms' included); after a map is replaced, another touched and a
# third removed, only the first two are read again, the removed one leaves
# the index, and the records equal those of a scan without an index.
set -e
lib="$CASES/scan_lib.py"
mkdir m
cp "$GEN"/*.bsp m/
python3 "$lib" gma m/addon.gma maps/a.bsp=m/source-room.bsp maps/b.bsp=m/goldsrc-room.bsp
"$BSPKIT" scan m --sqlite ix.db --jsonl a.jsonl
"$BSPKIT" scan m -j 3 --sqlite ix.db --jsonl b.jsonl
cmp a.jsonl b.jsonl && echo "second run: same records"
cp m/quake-room.bsp m/source-room.bsp
touch -d '2001-02-03 04:05:06' m/goldsrc-room.bsp
rm m/quake2-room.bsp
"$BSPKIT" scan m --sqlite ix.db --jsonl c.jsonl
"$BSPKIT" scan m --jsonl fresh.jsonl
python3 "$lib" strip c.jsonl > c.txt
python3 "$lib" strip fresh.jsonl > fresh.txt
cmp c.txt fresh.txt && echo "index records equal a fresh scan"
python3 - <<'PY'
import json, sqlite3
db = sqlite3.connect('ix.db')
rows = db.execute('SELECT path, member, format, record FROM maps ORDER BY path, member').fetchall()
for path, member, fmt, rec in rows:
    assert json.loads(rec)['format'] == fmt
    print(path, member or '-', fmt)
PY
