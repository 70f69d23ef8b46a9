# A symbolic link already inside the target directory is not followed:
# extracting "link/x.txt" where "link" points elsewhere fails (status 2)
# and writes nothing there.
source "$CASES/pak-lib.bash"
mkdir -p src/link elsewhere out && echo data > src/link/x.txt && echo data > src/y.txt
(cd src && zip -q0X ../p.zip link/x.txt y.txt) || exit 1
"$BSPKIT" lump "$GEN/source-room.bsp" replace PAKFILE p.zip -o p.bsp > /dev/null || exit 1
ln -s ../elsewhere out/link
"$BSPKIT" pak p.bsp extract -o out
status=$?
[ -z "$(ls elsewhere)" ] || echo "wrote through the link: $(ls elsewhere)"
cmp out/y.txt src/y.txt || echo "y.txt differs"
exit $status
