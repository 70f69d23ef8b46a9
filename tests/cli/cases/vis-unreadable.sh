# A missing file and a file that is not a map both exit 2, naming the file.
echo "not a map" >text.bsp
"$BSPKIT" vis does-not-exist.bsp --stats
echo "exit $?"
"$BSPKIT" vis text.bsp --at 0 0 0
