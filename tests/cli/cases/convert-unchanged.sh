# With no option, convert writes every sample map back byte for byte.
for f in "$GEN"/*.bsp; do
    "$BSPKIT" convert "$f" -o out.bsp || exit 1
    cmp "$f" out.bsp || exit 1
done
echo "identical: $(ls "$GEN"/*.bsp | wc -l)"
