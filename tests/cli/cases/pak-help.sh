# --help on the command and after every subcommand prints the usage, which
# documents each subcommand, on stdout with status 0; a bad call is a usage
# error (64) that points to --help.
for args in "" "map.bsp list" "map.bsp extract" "map.bsp add" "map.bsp remove" "map.bsp repack"; do
    out=$("$BSPKIT" pak $args --help) || { echo "pak $args --help failed"; continue; }
    [ "${out#usage: bspkit pak MAP list}" != "$out" ] || echo "pak $args --help: no usage line"
    for sub in list extract add remove repack; do
        grep -q "^$sub  " <<<"$out" || echo "pak $args --help: $sub not described"
    done
done
"$BSPKIT" pak "$GEN/source-room.bsp" 2> err.txt
echo "no subcommand: exit $?: $(tail -1 err.txt)"
"$BSPKIT" pak "$GEN/source-room.bsp" list --lzma 2> err.txt
echo "stray option: exit $?: $(head -1 err.txt)"
echo ok
