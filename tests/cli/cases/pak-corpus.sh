# Real maps: every Source map of the corpus lists as many pakfile entries as
# MANIFEST.tsv counts (Xbox 360 XZP2 archives included), and one Counter-
# Strike: Source map extracts to exactly what Info-ZIP unpacks from its lump.
source "$CASES/pak-lib.bash"
require_corpus
if ! command -v jq > /dev/null; then
    echo "skipped: jq not installed"
    exit 77
fi
maps=0
while IFS=$'\t' read -r path repo inrepo commit bytes format notes; do
    [[ $notes == *pakfile=* ]] || continue
    want=$(sed -n 's/.*pakfile=[0-9]*B zip entries=\([0-9]*\).*/\1/p' <<<"$notes")
    got=$("$BSPKIT" pak "$MAPS/$path" list --json | jq .count)
    [ "$got" = "$want" ] || echo "$path: $got entries, manifest says $want"
    maps=$((maps + 1))
done < <(tail -n +2 "$MAPS/MANIFEST.tsv")
[ $maps -gt 30 ] && echo "pakfile entry counts agree"

map="$MAPS/lanofdoom+counterstrikesource-maps/cs_crackhouse/maps/cs_crackhouse.bsp"
pak_zip "$map" crack.zip
unzip -tqq crack.zip > /dev/null || echo "Info-ZIP finds the lump damaged"
"$BSPKIT" pak "$map" extract -o out > /dev/null || echo "extract failed"
n=0
while read -r name; do
    unzip -p crack.zip "$name" | cmp - "out/$name" || echo "$name differs"
    n=$((n + 1))
done < <(zipinfo -1 crack.zip)
echo "cs_crackhouse: $n entries equal"
