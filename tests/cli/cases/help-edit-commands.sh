# Every editing command answers --help with its usage on stdout.
for c in lump lmp convert; do
    out=$("$BSPKIT" $c --help) || { echo "$c --help failed"; continue; }
    [ "${out#usage: bspkit $c }" != "$out" ] && echo "$c ok"
done
