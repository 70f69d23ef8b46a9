# Helpers for the ent-* scenarios (sourced; not a scenario itself). Expected
# entity texts and lump contents are read from the files' bytes with the
# lib.bash helpers (od, dd, xz), never from bspkit.
source "$CASES/lib.bash"

# ent_load FAMILY ENDIAN FILE: load_map with the facts the scenario states.
ent_load() {
    MAP_FAMILY=$1
    MAP_ENDIAN=$2
    load_map "$3"
}

# ent_text FILE: the entity text up to its terminating NUL (after ent_load).
ent_text() { lump_data "$1" 0 | head -z -n 1 | tr -d '\0'; }

# dump_lumps FILE DIR: every lump but ENTITIES as DIR/INDEX, decompressed
# (after ent_load).
dump_lumps() {
    local i
    mkdir -p "$2"
    for ((i = 1; i < MAP_LUMPS; i++)); do
        lump_data "$1" "$i" >"$2/$i"
    done
}

# other_lumps_same FAMILY ENDIAN IN OUT: prints whether every lump but
# ENTITIES holds the same bytes in both maps (offsets may differ).
other_lumps_same() {
    rm -rf lumps-in lumps-out
    ent_load "$1" "$2" "$3"
    dump_lumps "$3" lumps-in
    ent_load "$1" "$2" "$4"
    dump_lumps "$4" lumps-out
    if diff -rq lumps-in lumps-out >/dev/null; then
        echo "other lumps: identical"
    else
        echo "other lumps: differ:"
        diff -rq lumps-in lumps-out
    fi
}

# source_crc_same ENDIAN IN OUT: the Source map CRC (every lump but ENTITIES)
# of both maps computed from the bytes, and the one 'bspkit info --json'
# reports for OUT.
source_crc_same() {
    local in_crc out_crc info_crc
    ent_load source "$1" "$2"
    in_crc=$MAP_CRC
    ent_load source "$1" "$3"
    out_crc=$MAP_CRC
    info_crc=$("$BSPKIT" info --json "$3" | sed -n 's/^  "crc": "\([0-9a-f]*\)"$/\1/p')
    if [ -n "$in_crc" ] && [ "$in_crc" = "$out_crc" ] && [ "$info_crc" = "$out_crc" ]; then
        echo "map crc: unchanged, and bspkit info agrees"
    else
        echo "map crc: input $in_crc, output $out_crc, bspkit info $info_crc"
    fi
}

# check_map FILE: bspkit check's exit status.
check_map() {
    "$BSPKIT" check "$1" >/dev/null 2>check.err
    echo "check: exit $?"
}
