# libzip is loaded when a zip is first read, not at start-up: a process that
# reads no zip never loads it, and when it cannot be loaded (BSPKIT_LIBZIP
# names a library that is not there) the commands that need it fail with a
# message naming libzip, while the others work.
mkdir in
printf 'not really a zip' > in/maps.zip
cp "$GEN/goldsrc-room.bsp" in/
export BSPKIT_LIBZIP=/nonexistent/libzip.so
"$BSPKIT" pak "$GEN/source-room.bsp" list > /dev/null 2> pak.err
echo "pak list: exit $?"
grep -q "libzip could not be loaded" pak.err && echo "pak list names libzip"
"$BSPKIT" scan in > scan.out 2> /dev/null
echo "scan: exit $?"
grep -q "maps.zip.*libzip could not be loaded" scan.out && echo "scan record names libzip"
grep -q "goldsrc-room.bsp" scan.out && echo "scan still read the map"
"$BSPKIT" info "$GEN/source-room.bsp" > /dev/null && echo "info works without libzip"
"$BSPKIT" check "$GEN/source-room.bsp" > /dev/null && echo "check works without libzip"
unset BSPKIT_LIBZIP
# Start-up maps no libzip: the process's mappings while it reads a map.
"$BSPKIT" info "$GEN/source-room.bsp" > /dev/null && echo "info works"
python3 - "$BSPKIT" "$GEN/source-room.bsp" <<'PY'
import subprocess, sys
# --version maps nothing from libzip or libcrypto: ldd lists what loads at start-up.
libs = subprocess.run(['ldd', sys.argv[1]], capture_output=True, text=True).stdout
print('start-up loads libzip' if 'libzip' in libs or 'libcrypto' in libs else 'start-up loads no libzip')
PY
"$BSPKIT" pak "$GEN/source-room.bsp" list > /dev/null && echo "pak list works with libzip"
