# A copy of source-room-be.bsp whose first face points at plane 65535.
source "$CASES/lib.bash"
cp "$GEN/source-room-be.bsp" corrupt.bsp && chmod u+w corrupt.bsp || exit 1
dirent=$((8 + 7 * 16))    # FACES directory entry: offset, length
faces=$(rd_u32 corrupt.bsp "$dirent" big)
[ "$(rd_u32 corrupt.bsp $((dirent + 4)) big)" -gt 0 ] || { echo "no faces in source-room-be.bsp"; exit 1; }
# Every face record starts with its 16-bit plane index; 0xffff reads the same in either byte order.
patch_bytes corrupt.bsp "$faces" '\377\377'
# The face's file offset varies with the map; name it FACE0 for the pattern.
"$BSPKIT" check corrupt.bsp | sed "s/ @$faces: / @FACE0: /"
exit "${PIPESTATUS[0]}"
