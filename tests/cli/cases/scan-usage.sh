# scan and fastdl: --help, and usage errors exit 64; each line gives the exit status of one attempt.
"$BSPKIT" scan --help | head -1
"$BSPKIT" fastdl --help | head -1
try() { "$BSPKIT" "$@" >/dev/null 2>>err.txt; echo "exit $?"; }
try scan
try scan "$GEN" -j 0
try scan "$GEN" -j 257
try scan "$GEN" -j x
try scan "$GEN" -j
try scan "$GEN" --jsonl
try scan "$GEN" --sqlite
try scan "$GEN" --bogus
try fastdl "$GEN"
try fastdl -o web
try fastdl "$GEN" -o
try fastdl "$GEN" -o web --bogus
try fastdl "$GEN" -o web --content
grep -c "for usage." err.txt
# A path that does not exist is a record with its error (exit 2), not a usage error.
"$BSPKIT" scan "$GEN/source-room.bsp" no-such.bsp --jsonl - | sed "s|$GEN|GEN|" | cut -c1-60
echo "exit ${PIPESTATUS[0]}"
