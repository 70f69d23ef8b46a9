# Only Source maps have a pakfile: Quake and GoldSrc maps are refused with
# exit status 2 by every subcommand, and nothing is written.
echo x > a.txt
for m in goldsrc-room quake-room; do
    "$BSPKIT" pak "$GEN/$m.bsp" list
    echo "$m list: exit $?"
    "$BSPKIT" pak "$GEN/$m.bsp" add a.txt -o out.bsp
    echo "$m add: exit $?"
done
[ -e out.bsp ] && echo "out.bsp was written"
"$BSPKIT" pak missing.bsp list 2> /dev/null
echo "missing list: exit $?"
