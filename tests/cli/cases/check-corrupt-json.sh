# A copy of goldsrc-room.bsp whose first face points at plane 65535.
source "$CASES/lib.bash"
cp "$GEN/goldsrc-room.bsp" corrupt.bsp && chmod u+w corrupt.bsp || exit 1
dirent=$((4 + 7 * 8))    # FACES directory entry: offset, length
faces=$(rd_u32 corrupt.bsp "$dirent" little)
[ "$(rd_u32 corrupt.bsp $((dirent + 4)) little)" -gt 0 ] || { echo "no faces in goldsrc-room.bsp"; exit 1; }
# Every face record starts with its 16-bit plane index; 0xffff reads the same in either byte order.
patch_bytes corrupt.bsp "$faces" '\377\377'
"$BSPKIT" check --json corrupt.bsp | sed "s/\"offset\": $faces,/\"offset\": FACE0,/"
exit "${PIPESTATUS[0]}"
