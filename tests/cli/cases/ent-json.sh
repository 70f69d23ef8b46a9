# --json: one object per entity, keys in file order, repeated keys as arrays.
# The JSON is read with python3 (or jq) and listed as "entity<TAB>key<TAB>value"
# lines; the same listing is cut from the lump text with awk.
source "$CASES/ent-lib.bash"
if command -v python3 >/dev/null 2>&1; then
    listing() {
        python3 -c '
import json, sys
data = json.load(open(sys.argv[1]))
assert isinstance(data, list), "not an array"
for i, ent in enumerate(data):
    assert isinstance(ent, dict), "entity %d is not an object" % i
    for key, value in ent.items():
        values = value if isinstance(value, list) else [value]
        assert all(isinstance(v, str) for v in values), "non-string value"
        for v in values:
            print("%d\t%s\t%s" % (i, key, v))
' "$1"
    }
    last_entity() { python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))[-1]))' "$1"; }
elif command -v jq >/dev/null 2>&1; then
    listing() {
        jq -r 'to_entries[] | .key as $i | .value | to_entries[] | .key as $k
               | (if (.value | type) == "array" then .value[] else .value end) | "\($i)\t\($k)\t\(.)"' "$1"
    }
    last_entity() { jq -c '.[-1]' "$1" | sed 's/":/": /g; s/","/", "/g; s/\],"/], "/g'; }
else
    echo "skipped: neither python3 nor jq is present"
    exit 77
fi

# The sample map: every pair, in order.
ent_load source little "$GEN/source-room.bsp"
ent_text "$GEN/source-room.bsp" | awk '/^\{$/ { n++; next }
    /^"/ { s = $0; k = s; sub(/^"/, "", k); sub(/" ".*$/, "", k)
           v = s; sub(/^"[^"]*" "/, "", v); sub(/"$/, "", v); printf "%d\t%s\t%s\n", n - 1, k, v }' >expected.txt
"$BSPKIT" ent --json "$GEN/source-room.bsp" >ents.json || echo "exit $?"
listing ents.json >actual.txt || echo "listing failed"
if [ -s expected.txt ] && cmp -s expected.txt actual.txt; then
    echo "listing matches the lump text ($(wc -l <expected.txt) pairs)"
else
    echo "listing differs"
    diff expected.txt actual.txt
fi

# Repeated keys, interleaved with others, become one array at the place of
# the first occurrence; the order of their values is kept.
printf '{\n"classname" "logic_relay"\n"OnTrigger" "a,Trigger,,0,-1"\n"targetname" "r"\n"OnTrigger" "b,Trigger,,1,-1"\n}\n' >relay.txt
"$BSPKIT" ent "$GEN/source-room.bsp" --add relay.txt --dry-run --json >added.json 2>/dev/null || echo "exit $?"
last_entity added.json
