# A lump file's 20-byte header is read back here with od; applying an edited
# lump file replaces that lump (and its version) and nothing else.
source "$CASES/lib.bash"
MAP_FAMILY=source MAP_ENDIAN=little
in="$GEN/source-room.bsp"
load_map "$in"
"$BSPKIT" lmp "$in" make ENTITIES -o room_l_0.lmp || exit 1
echo "header: $(rd_u32 room_l_0.lmp 0) $(rd_u32 room_l_0.lmp 4) $(rd_u32 room_l_0.lmp 8) $(( $(rd_u32 room_l_0.lmp 12) == L_LEN[0] )) $(( $(rd_u32 room_l_0.lmp 16) == MAP_REVISION ))"
tail -c +21 room_l_0.lmp | cmp - <(raw_bytes "$in" "${L_OFF[0]}" "${L_LEN[0]}") || echo "data differs"
# A new entity text, with a header written by hand (version 3).
text=$'{\n"classname" "worldspawn"\n}\n'
len=$(( ${#text} + 1 ))
le32() { printf "\\x$(printf %02x $(($1 & 255)))\\x$(printf %02x $((($1 >> 8) & 255)))\\x$(printf %02x $((($1 >> 16) & 255)))\\x$(printf %02x $((($1 >> 24) & 255)))"; }
{ le32 20; le32 0; le32 3; le32 "$len"; le32 "$MAP_REVISION"; printf '%s\0' "$text"; } > new_l_0.lmp
"$BSPKIT" lmp "$in" apply new_l_0.lmp -o out.bsp || exit 1
load_map out.bsp
echo "entities version ${L_VER[0]}"
raw_bytes out.bsp "${L_OFF[0]}" "${L_LEN[0]}" | cmp - <(printf '%s\0' "$text") || echo "ENTITIES differs"
"$BSPKIT" check -q out.bsp || echo "output does not validate"
"$BSPKIT" lmp "$in" make GAME_LUMP -o g.lmp
