# Usage errors exit 64 and write nothing.
"$BSPKIT" generate quake-room -o q.bsp >/dev/null || exit 1
"$BSPKIT" lightmap q.bsp; echo "exit $?"
"$BSPKIT" lightmap -o a.png; echo "exit $?"
"$BSPKIT" lightmap q.bsp -o a.png --style 4; echo "exit $?"
"$BSPKIT" lightmap q.bsp -o a.png --max-width 0; echo "exit $?"
"$BSPKIT" lightmap q.bsp -o a.png --padding x; echo "exit $?"
"$BSPKIT" lightmap q.bsp -o a.png --frobnicate; echo "exit $?"
"$BSPKIT" lightmap q.bsp q.bsp -o a.png; echo "exit $?"
"$BSPKIT" lightmap q.bsp -o; echo "exit $?"
if [ -e a.png ]; then echo "a.png written"; fi
