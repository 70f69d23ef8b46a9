# A missing map and a file that is not a map exit 2, naming the file; an
# output in a missing directory exits 2 naming the output.
printf 'IBSP\056\0\0\0' >q3.bsp
"$BSPKIT" lightmap does-not-exist.bsp -o a.png; echo "exit $?"
"$BSPKIT" lightmap q3.bsp -o a.png; echo "exit $?"
"$BSPKIT" generate goldsrc-room -o g.bsp >/dev/null || exit 1
"$BSPKIT" lightmap g.bsp -o no-such-dir/a.png; echo "exit $?"
"$BSPKIT" lightmap g.bsp -o a.png --json no-such-dir/a.json >/dev/null; echo "exit $?"
