# add stores files under their paths, lower-cased as bspzip does. The
# PAKFILE lump, cut out through the lump directory, is a zip that Info-ZIP
# tests and unpacks to the same bytes, with no extra fields or data
# descriptors; list (text and JSON) and extract agree with the files.
source "$CASES/pak-lib.bash"
mkdir -p src/Materials/Brick src/sound
seq 1 3000 > src/Materials/Brick/Wall.vmt
head -c 4096 /dev/urandom > src/sound/beep.wav
wall=src/Materials/Brick/Wall.vmt beep=src/sound/beep.wav

(cd src && "$BSPKIT" pak "$GEN/source-room.bsp" add Materials/Brick/Wall.vmt ./sound/beep.wav -o ../one.bsp) > add.out ||
    exit 1
dir=$((8 + 40 * 16))
{
    echo "added materials/brick/wall.vmt ($(file_size $wall) bytes)"
    echo "added sound/beep.wav ($(file_size $beep) bytes)"
    echo "wrote ../one.bsp: PAKFILE $(rd_u32 "$GEN/source-room.bsp" $((dir + 4))) -> $(rd_u32 one.bsp $((dir + 4))) bytes, 2 entries"
} | diff - add.out || echo "add printed something else"

pak_zip one.bsp pak.zip
unzip -tqq pak.zip > /dev/null || echo "unzip -t failed"
[ "$(zipinfo -1 pak.zip | tr '\n' ' ')" = "materials/brick/wall.vmt sound/beep.wav " ] || echo "names: $(zipinfo -1 pak.zip)"
unzip -p pak.zip materials/brick/wall.vmt | cmp - $wall || echo "wall.vmt differs in the zip"
unzip -p pak.zip sound/beep.wav | cmp - $beep || echo "beep.wav differs in the zip"
zip_check_layout pak.zip
"$BSPKIT" check -q one.bsp || echo "one.bsp does not validate"

expected_list() {
    printf '  %10s  %10s  %-7s  %-8s  %s\n' size compressed method crc32 name
    printf '  %10d  %10d  %-7s  %-8s  %s\n' "$(file_size $wall)" "$(file_size $wall)" store "$(crc_of $wall)" materials/brick/wall.vmt
    printf '  %10d  %10d  %-7s  %-8s  %s\n' "$(file_size $beep)" "$(file_size $beep)" store "$(crc_of $beep)" sound/beep.wav
    local total=$(($(file_size $wall) + $(file_size $beep)))
    echo "2 entries, $total bytes ($total stored)"
}
diff <(expected_list) <("$BSPKIT" pak one.bsp list) || echo "list differs"

if command -v jq > /dev/null; then
    {
        echo "one.bsp 2"
        echo "materials/brick/wall.vmt $(file_size $wall) $(file_size $wall) store 0 $(crc_of $wall) true"
        echo "sound/beep.wav $(file_size $beep) $(file_size $beep) store 0 $(crc_of $beep) true"
    } > want.json.txt
    "$BSPKIT" pak one.bsp list --json |
        jq -r '"\(.file) \(.count)", (.entries[] | "\(.name) \(.size) \(.compressed_size) \(.method) \(.method_id) \(.crc) \(.engine_readable)")' |
        diff want.json.txt - || echo "list --json differs"
fi

"$BSPKIT" pak one.bsp extract -o out > extract.out || echo "extract failed"
[ "$(cat extract.out)" = "extracted 2 entries to out" ] || echo "extract said: $(cat extract.out)"
cmp out/materials/brick/wall.vmt $wall || echo "extracted wall.vmt differs"
cmp out/sound/beep.wav $beep || echo "extracted beep.wav differs"
"$BSPKIT" pak one.bsp extract -o only 'SOUND/*.WAV' > /dev/null || echo "extract GLOB failed"
[ "$(cd only && find . -type f)" = "./sound/beep.wav" ] || echo "extract GLOB wrote: $(cd only && find . -type f)"
mkdir here && (cd here && "$BSPKIT" pak ../one.bsp extract '*.vmt' > /dev/null) || echo "extract to . failed"
cmp here/materials/brick/wall.vmt $wall || echo "extract to . differs"
echo ok
