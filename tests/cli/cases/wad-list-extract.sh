# A WAD3 written here: a 2x2 miptex "{Grate" (colour 255 transparent) with
# its 256-colour palette, and a 1x1 qpic with a 1-colour palette; list
# shows both, extract writes both as PNG.
{
    printf 'WAD3\002\0\0\0\x4c\x03\0\0'                          # 2 entries, directory at 844
    printf '{Grate\0\0\0\0\0\0\0\0\0\0'                          # miptex at 12 (817 bytes)
    printf '\002\0\0\0\002\0\0\0(\0\0\0,\0\0\0-\0\0\0.\0\0\0'     # 2x2, mips at 40, 44, 45, 46
    printf '\000\001\002\377\000\000\000'                        # mip 0, then mips 1-3
    printf '\000\001'; head -c 765 /dev/zero; printf '\x10\x20\x30' # 256 colours; 255 = 10 20 30
    printf '\001\0\0\0\001\0\0\0\007\001\000\001\002\003\000'    # qpic at 829 (14 bytes + 1 pad)
    printf '\x0c\0\0\0\x31\x03\0\0\x31\x03\0\0\x43\0\0\0{Grate\0\0\0\0\0\0\0\0\0\0'
    printf '\x3d\x03\0\0\x0e\0\0\0\x0e\0\0\0\x42\0\0\0pic\0\0\0\0\0\0\0\0\0\0\0\0\0'
} > t.wad
"$BSPKIT" wad t.wad list
"$BSPKIT" wad t.wad extract -o out || exit 1
LC_ALL=C ls out
