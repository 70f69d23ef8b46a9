# Helpers for the pak scenarios (sourced, not a scenario itself). The zip
# archives bspkit writes are read here with od/dd and Info-ZIP's tools, never
# with bspkit itself.
source "$CASES/lib.bash"

# rd_u16 FILE OFFSET: little-endian
rd_u16() { od -A n -v -t u2 -j "$2" -N 2 --endian=little "$1" | tr -d ' \n'; }

# pak_zip MAP OUT: the PAKFILE lump (index 40) of a little-endian Source map
# with the standard lump_t {offset, length, version, fourCC}.
pak_zip() {
    local dir=$((8 + 40 * 16))
    raw_bytes "$1" "$(rd_u32 "$1" "$dir")" "$(rd_u32 "$1" $((dir + 4)))" > "$2"
}

# crc_of FILE: CRC-32 in 8 lower-case hex digits (gzip's trailer holds it).
crc_of() { gzip -c "$1" | tail -c 8 | od -A n -t x4 -N 4 --endian=little | tr -d ' \n'; }

# le64 N: eight little-endian bytes
le64() {
    local h
    h=$(printf '%016x' "$1")
    printf "\\x${h:14:2}\\x${h:12:2}\\x${h:10:2}\\x${h:8:2}\\x${h:6:2}\\x${h:4:2}\\x${h:2:2}\\x${h:0:2}"
}

# zip_walk ZIP: one line per central directory entry:
#   NAME METHOD FLAGS COMPRESSED SIZE CENTRAL_EXTRA LOCAL_EXTRA DATA_OFFSET
# The end record must end the file (no comment), as in bspkit's output.
zip_walk() {
    local z=$1 size eocd n cd i flags method csize usize nlen extra comment lo lname lextra name
    size=$(file_size "$z")
    eocd=$((size - 22))
    [ "$(rd_u32 "$z" "$eocd")" = 101010256 ] || { echo "BAD no end record at the end"; return; }
    n=$(rd_u16 "$z" $((eocd + 10)))
    cd=$(rd_u32 "$z" $((eocd + 16)))
    for ((i = 0; i < n; i++)); do
        [ "$(rd_u32 "$z" "$cd")" = 33639248 ] || { echo "BAD central header $i"; return; }
        flags=$(rd_u16 "$z" $((cd + 8)))
        method=$(rd_u16 "$z" $((cd + 10)))
        csize=$(rd_u32 "$z" $((cd + 20)))
        usize=$(rd_u32 "$z" $((cd + 24)))
        nlen=$(rd_u16 "$z" $((cd + 28)))
        extra=$(rd_u16 "$z" $((cd + 30)))
        comment=$(rd_u16 "$z" $((cd + 32)))
        lo=$(rd_u32 "$z" $((cd + 42)))
        name=$(raw_bytes "$z" $((cd + 46)) "$nlen")
        [ "$(rd_u32 "$z" "$lo")" = 67324752 ] || { echo "BAD local header of $name"; return; }
        lname=$(rd_u16 "$z" $((lo + 26)))
        lextra=$(rd_u16 "$z" $((lo + 28)))
        echo "$name $method $flags $csize $usize $extra $lextra $((lo + 30 + lname + lextra))"
        cd=$((cd + 46 + nlen + extra + comment))
    done
}

# zip_check_layout ZIP: prints what Valve's pack-file reader could not take:
# extra fields (it locates data from the central header's lengths alone),
# data descriptors, methods other than store (0) and LZMA (14).
zip_check_layout() {
    local name method flags csize usize extra lextra data
    while read -r name method flags csize usize extra lextra data; do
        [ "$name" = BAD ] && { echo "unreadable zip: $method $flags"; continue; }
        [ "$extra" = 0 ] && [ "$lextra" = 0 ] || echo "$name: extra fields $extra/$lextra"
        ((flags & 8)) && echo "$name: data descriptor"
        case $method in 0 | 14) ;; *) echo "$name: method $method" ;; esac
        [ "$method" = 0 ] && [ "$csize" != "$usize" ] && echo "$name: stored with two sizes"
    done < <(zip_walk "$1")
}
