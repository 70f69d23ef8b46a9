# repack --lzma compresses what shrinks the way Valve's bspzip does (zip
# method 14: LZMA SDK version, properties size 5, properties, raw LZMA1 with
# no end marker); the data decodes with xz once given a .lzma header. Noise
# stays stored. repack --store turns it back into a plain zip unzip checks.
source "$CASES/pak-lib.bash"
seq 1 20000 > big.txt
head -c 3000 /dev/urandom > noise.bin
"$BSPKIT" pak "$GEN/source-room.bsp" add big.txt noise.bin -o plain.bsp > /dev/null || exit 1
"$BSPKIT" pak plain.bsp repack --lzma -o lzma.bsp > /dev/null || exit 1
pak_zip lzma.bsp lzma.zip
zip_check_layout lzma.zip
while read -r name method flags csize usize extra lextra data; do
    case $name in
    big.txt)
        [ "$method" = 14 ] || echo "big.txt: method $method"
        ((flags & 2)) && echo "big.txt: end-marker flag set"
        [ "$csize" -lt $((usize / 4)) ] || echo "big.txt: $csize of $usize bytes"
        [ "$(rd_u16 lzma.zip $((data + 2)))" = 5 ] || echo "big.txt: properties size"
        { raw_bytes lzma.zip $((data + 4)) 5; le64 "$usize"; raw_bytes lzma.zip $((data + 9)) $((csize - 9)); } |
            xz --format=lzma -dc | cmp - big.txt || echo "big.txt: LZMA data does not decode"
        ;;
    noise.bin) [ "$method" = 0 ] || echo "noise.bin: method $method" ;;
    *) echo "unexpected entry $name" ;;
    esac
done < <(zip_walk lzma.zip)
if command -v python3 > /dev/null; then
    python3 -c 'import sys, zipfile; sys.exit(1 if zipfile.ZipFile(sys.argv[1]).testzip() else 0)' lzma.zip ||
        echo "python zipfile finds a bad entry"
fi
"$BSPKIT" pak lzma.bsp extract -o out > /dev/null || echo "extract failed"
cmp out/big.txt big.txt || echo "extracted big.txt differs"
"$BSPKIT" pak lzma.bsp repack -o kept.bsp > /dev/null || echo "repack failed"
pak_zip kept.bsp kept.zip
cmp kept.zip lzma.zip || echo "repack without options changed an LZMA archive"
"$BSPKIT" pak lzma.bsp repack --store -o stored.bsp > /dev/null || exit 1
pak_zip stored.bsp stored.zip
zip_check_layout stored.zip
unzip -tqq stored.zip > /dev/null || echo "unzip -t failed"
unzip -p stored.zip big.txt | cmp - big.txt || echo "stored big.txt differs"
unzip -p stored.zip noise.bin | cmp - noise.bin || echo "stored noise.bin differs"
zip_walk stored.zip | while read -r name method rest; do echo "$name $method"; done
"$BSPKIT" check -q stored.bsp || echo "stored.bsp does not validate"
echo ok
