# The Xbox 360 map (big-endian, LZMA lumps, compressed game lump) becomes a
# valid little-endian map with plain lumps and back; record counts stay equal.
source "$CASES/lib.bash"
require_corpus
in="$MAPS/bsp_tool/maps/Xbox360/The Orange Box/shack.360.bsp"
"$BSPKIT" convert "$in" --endian little --decompress -o pc.bsp 2>warnings.txt || exit 1
[ "$(rd_magic pc.bsp 0)" = VBSP ] || echo "magic is not VBSP"
"$BSPKIT" check -q pc.bsp || echo "little-endian output does not validate"
"$BSPKIT" info pc.bsp | grep '^variant:'
"$BSPKIT" convert pc.bsp --endian big --compress -o back.bsp 2>>warnings.txt || exit 1
[ "$(rd_magic back.bsp 0)" = PSBV ] || echo "magic is not PSBV"
"$BSPKIT" check -q back.bsp || echo "big-endian output does not validate"
counts() { "$BSPKIT" info "$1" | sed -n '/^counts:/,/^$/p'; }
diff <(counts "$in") <(counts pc.bsp) || echo "counts differ after the conversion to little-endian"
diff <(counts "$in") <(counts back.bsp) || echo "counts differ after converting back"
sed 's/^/warning: /' warnings.txt
