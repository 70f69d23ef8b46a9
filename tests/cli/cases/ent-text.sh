# 'bspkit ent MAP' prints the entity text exactly as stored, up to its NUL;
# the expected bytes are cut from each sample map with od/dd/xz (LZMA and
# big-endian Source included).
source "$CASES/ent-lib.bash"
for spec in "source little source-room" "source little source-room-lzma" "source big source-room-be" \
    "goldsrc little goldsrc-room" "quake little quake-room"; do
    read -r family endian name <<<"$spec"
    ent_load "$family" "$endian" "$GEN/$name.bsp"
    ent_text "$GEN/$name.bsp" >"$name.expected"
    "$BSPKIT" ent "$GEN/$name.bsp" >"$name.actual" || echo "$name: exit $?"
    if cmp -s "$name.expected" "$name.actual"; then
        echo "$name.bsp: $MAP_ENTITIES entities, text matches the lump bytes"
    else
        echo "$name.bsp: text differs"
        diff "$name.expected" "$name.actual" | head -20
    fi
done
