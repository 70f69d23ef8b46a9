# extract never writes outside its directory: entries named "../x" or "/x"
# (made here by renaming Info-ZIP entries in place) are refused with a
# message naming them, the others are extracted, and the status is 1.
source "$CASES/pak-lib.bash"
mkdir -p src/xx src/ok && cd src || exit 1
echo bad > xx/escape.txt
echo bad > xabs.txt
echo good > ok/fine.txt
zip -q0X ../evil.zip xx/escape.txt xabs.txt ok/fine.txt || exit 1
cd .. || exit 1
# rename NAME NEW: overwrite every occurrence (local and central header).
rename() {
    local off
    for off in $(grep -obUa -- "$1" evil.zip | cut -d: -f1); do
        printf '%s' "$2" | dd of=evil.zip bs=1 seek="$off" conv=notrunc 2> /dev/null
    done
}
rename xx/escape.txt ../escape.txt
rename xabs.txt /abs.txt
[ "$(zipinfo -1 evil.zip | tr '\n' ' ')" = "../escape.txt /abs.txt ok/fine.txt " ] || echo "zip names: $(zipinfo -1 evil.zip)"
"$BSPKIT" lump "$GEN/source-room.bsp" replace PAKFILE evil.zip -o evil.bsp > /dev/null || exit 1
mkdir -p work/out && cd work || exit 1
"$BSPKIT" pak ../evil.bsp extract -o out
status=$?
[ -e escape.txt ] || [ -e ../escape.txt ] && echo "escape.txt was written outside"
[ -e /abs.txt ] && echo "/abs.txt exists"
find out -type f | sort
cmp out/ok/fine.txt ../src/ok/fine.txt || echo "fine.txt differs"
exit $status
