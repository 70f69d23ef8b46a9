# A PAKFILE that is not a zip, and an entry whose bytes no longer match its
# CRC-32 (one byte flipped in the map file), are reported as damage (status
# 1) naming what is wrong; nothing damaged is extracted or written.
source "$CASES/pak-lib.bash"
printf 'this is not a zip archive at all, just text\n' > junk.zip
"$BSPKIT" lump "$GEN/source-room.bsp" replace PAKFILE junk.zip -o junk.bsp > /dev/null || exit 1
"$BSPKIT" pak junk.bsp list > /dev/null
echo "junk list: exit $?"

for i in $(seq 1 200); do printf '0123456789'; done > data.txt
"$BSPKIT" pak "$GEN/source-room.bsp" add data.txt -o good.bsp > /dev/null || exit 1
pak_zip good.bsp good.zip
read -r name method flags csize usize extra lextra data < <(zip_walk good.zip)
[ "$name" = data.txt ] || echo "first entry is $name"
cp good.bsp bad.bsp
patch_bytes bad.bsp $(($(rd_u32 bad.bsp $((8 + 40 * 16))) + data + 1000)) 'X'
"$BSPKIT" pak bad.bsp list > /dev/null
echo "bad list: exit $?"
"$BSPKIT" pak bad.bsp extract -o out
echo "bad extract: exit $?"
[ -e out/data.txt ] && echo "damaged data.txt was extracted"
"$BSPKIT" pak bad.bsp repack -o re.bsp
echo "bad repack: exit $?"
[ -e re.bsp ] && echo "re.bsp was written"
"$BSPKIT" pak bad.bsp remove 'data.*' -o fixed.bsp > /dev/null
echo "remove the damaged entry: exit $?"
