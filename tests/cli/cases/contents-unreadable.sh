# A missing file and a file that is not a map both exit 2, naming the file.
printf 'IBSP\056\0\0\0' >q3.bsp
"$BSPKIT" contents does-not-exist.bsp 0 0 0
echo "exit $?"
"$BSPKIT" contents q3.bsp 0 0 0 --json
