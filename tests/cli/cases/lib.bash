# Helpers for the command-line scenarios (sourced, not a scenario itself).
#
# The expected 'info' output of a map is rebuilt here from the file's bytes
# and from the published formats, never from bspkit's own output: the lump
# directory is read with od, record counts come from the record sizes of the
# formats (tables below), the entity count from the entity text, the texture
# count from the miptex directory or TEXDATA, and the Source CRC from gzip's
# CRC-32 of the lumps. Facts that the bytes do not say outright (family,
# format name, variant) are stated by each scenario by hand.

# ---- reading bytes --------------------------------------------------------

# rd_u32 FILE OFFSET [little|big]
rd_u32() { od -A n -v -t u4 -j "$2" -N 4 --endian="${3:-little}" "$1" | tr -d ' \n'; }
# rd_i32 FILE OFFSET [little|big]
rd_i32() { od -A n -v -t d4 -j "$2" -N 4 --endian="${3:-little}" "$1" | tr -d ' \n'; }
# rd_magic FILE OFFSET: four bytes as text
rd_magic() { dd if="$1" bs=1 skip="$2" count=4 2>/dev/null | tr -d '\0'; }
# file_size FILE
file_size() { stat -c %s "$1"; }
# raw_bytes FILE OFFSET LENGTH: copy a byte range to stdout
raw_bytes() {
    [ "$3" -gt 0 ] || return 0
    tail -c +"$(($2 + 1))" "$1" | head -c "$3"
}
# patch_bytes FILE OFFSET PRINTF_FORMAT: overwrite bytes in place
patch_bytes() { printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null; }

# ---- format tables ----------------------------------------------------------
# One entry per lump: NAME KEY RECORD_SIZE, "-" for none. KEY is the counting
# key for 'counts'; RECORD_SIZE 0 marks a lump bspkit does not count as a
# record array (entity text, byte blobs, and Source lumps whose layout varies
# between games).

# Quake BSP29 / GoldSrc BSP30 (bspfile.h of both engines). MARKSURFACES is
# counted under its own key; Source calls the same list LEAFFACES.
QUAKE_LUMPS=(
    "ENTITIES - 0"
    "PLANES planes 20"
    "TEXTURES - 0"
    "VERTEXES vertexes 12"
    "VISIBILITY - 0"
    "NODES nodes 24"
    "TEXINFO texinfo 40"
    "FACES faces 20"
    "LIGHTING - 0"
    "CLIPNODES clipnodes 8"
    "LEAFS leafs 28"
    "MARKSURFACES marksurfaces 2"
    "EDGES edges 4"
    "SURFEDGES surfedges 4"
    "MODELS models 64"
)

# Quake 3 IBSP 46/47 (qfiles.h of the Quake 3 source). Quake Live's
# ADVERTISEMENTS is the eighteenth entry when the directory has one.
QUAKE3_LUMPS=(
    "ENTITIES - 0"
    "SHADERS shaders 72"
    "PLANES planes 16"
    "NODES nodes 36"
    "LEAFS leafs 48"
    "LEAFSURFACES leafsurfaces 4"
    "LEAFBRUSHES leafbrushes 4"
    "MODELS models 40"
    "BRUSHES brushes 12"
    "BRUSHSIDES brushsides 8"
    "DRAWVERTS drawverts 44"
    "DRAWINDEXES drawindexes 4"
    "FOGS fogs 72"
    "SURFACES surfaces 104"
    "LIGHTMAPS - 0"
    "LIGHTGRID lightgrid 8"
    "VISIBILITY - 0"
    "ADVERTISEMENTS - 0"
)

# Source VBSP (public/bspfile.h of the Source SDK). The record size column
# holds "v" where it depends on the lump version; see source_record_size.
# Slots 22-25 are named as in VBSP 20; version 21 and later reuse them.
SOURCE_LUMPS=(
    "ENTITIES - 0"
    "PLANES planes 20"
    "TEXDATA texdata 32"
    "VERTEXES vertexes 12"
    "VISIBILITY - 0"
    "NODES nodes 32"
    "TEXINFO texinfo 72"
    "FACES faces 56"
    "LIGHTING - 0"
    "OCCLUSION - 0"
    "LEAFS leafs v"
    "FACEIDS - 0"
    "EDGES edges 4"
    "SURFEDGES surfedges 4"
    "MODELS models 48"
    "WORLDLIGHTS worldlights v"
    "LEAFFACES leaffaces 2"
    "LEAFBRUSHES leafbrushes 2"
    "BRUSHES brushes 12"
    "BRUSHSIDES brushsides 8"
    "AREAS areas 8"
    "AREAPORTALS areaportals 12"
    "PORTALS - 0"
    "CLUSTERS - 0"
    "PORTALVERTS - 0"
    "CLUSTERPORTALS - 0"
    "DISPINFO dispinfo 176"
    "ORIGINALFACES origfaces 56"
    "PHYSDISP - 0"
    "PHYSCOLLIDE - 0"
    "VERTNORMALS vertnormals 12"
    "VERTNORMALINDICES vertnormalindices 2"
    "DISP_LIGHTMAP_ALPHAS - 0"
    "DISP_VERTS dispverts 20"
    "DISP_LIGHTMAP_SAMPLE_POSITIONS - 0"
    "GAME_LUMP - 0"
    "LEAFWATERDATA - 0"
    "PRIMITIVES - 0"
    "PRIMVERTS primverts 12"
    "PRIMINDICES primindices 2"
    "PAKFILE - 0"
    "CLIPPORTALVERTS clipportalverts 12"
    "CUBEMAPS cubemaps 16"
    "TEXDATA_STRING_DATA - 0"
    "TEXDATA_STRING_TABLE texdata_string_table 4"
    "OVERLAYS - 0"
    "LEAFMINDISTTOWATER - 0"
    "FACE_MACRO_TEXTURE_INFO - 0"
    "DISP_TRIS disptris 2"
    "PHYSCOLLIDESURFACE - 0"
    "WATEROVERLAYS - 0"
    "LEAF_AMBIENT_INDEX_HDR leaf_ambient_index_hdr 4"
    "LEAF_AMBIENT_INDEX leaf_ambient_index 4"
    "LIGHTING_HDR - 0"
    "WORLDLIGHTS_HDR worldlights_hdr v"
    "LEAF_AMBIENT_LIGHTING_HDR leaf_ambient_lighting_hdr v"
    "LEAF_AMBIENT_LIGHTING leaf_ambient_lighting v"
    "XZIPPAKFILE - 0"
    "FACES_HDR faces_hdr 56"
    "MAP_FLAGS - 0"
    "OVERLAY_FADES - 0"
    "OVERLAY_SYSTEM_LEVELS - 0"
    "PHYSLEVEL - 0"
    "DISP_MULTIBLEND - 0"
)

# source_record_size NAME LUMP_VERSION: bytes per record of the lumps whose
# layout follows their version (0 = not counted as records).
source_record_size() {
    case "$1:$2" in
    LEAFS:0) echo 56 ;;               # dleaf_t version 0 carries an inline light cube
    LEAFS:*) echo 32 ;;
    WORLDLIGHTS*:0) echo 88 ;;        # dworldlight_t
    WORLDLIGHTS*:1) echo 100 ;;       # dworldlight_t with flags
    LEAF_AMBIENT_LIGHTING*:1) echo 28 ;;  # dleafambientlighting_t
    *) echo 0 ;;
    esac
}

# ---- the map under test -------------------------------------------------------
# A scenario sets these by hand, then calls load_map FILE:
#   MAP_FAMILY   goldsrc | quake | source
#   MAP_NAME     format name, e.g. "GoldSrc BSP30"
#   MAP_ENDIAN   little | big
#   MAP_VARIANT  array of variant notes, e.g. ("LZMA lumps")
# load_map fills MAP_VERSION, MAP_REVISION, MAP_SIZE and, per lump,
# L_NAME L_KEY L_OFF L_LEN L_VER L_COMP L_ULEN L_REC (records or "null"),
# plus MAP_ENTITIES, MAP_TEXTURES, MAP_EMBEDDED and MAP_CRC.

MAP_VARIANT=()

# lump_data FILE INDEX: the lump's bytes, LZMA lumps decompressed. Valve's
# LZMA header (id, actualSize, lzmaSize, 5 property bytes) is rewritten as
# the .lzma header xz understands (properties, 64-bit size).
lump_data() {
    local file=$1 i=$2
    if [ "${L_COMP[$i]}" = true ]; then
        local off=${L_OFF[$i]} actual packed size_hex
        actual=$(rd_u32 "$file" $((off + 4)))
        packed=$(rd_u32 "$file" $((off + 8)))
        size_hex=$(printf '%016x' "$actual")
        {
            raw_bytes "$file" $((off + 12)) 5
            # 64-bit little-endian uncompressed size
            printf "\\x${size_hex:14:2}\\x${size_hex:12:2}\\x${size_hex:10:2}\\x${size_hex:8:2}"
            printf "\\x${size_hex:6:2}\\x${size_hex:4:2}\\x${size_hex:2:2}\\x${size_hex:0:2}"
            raw_bytes "$file" $((off + 17)) "$packed"
        } | xz --format=lzma -dc
    else
        raw_bytes "$file" "${L_OFF[$i]}" "${L_LEN[$i]}"
    fi
}

load_map() {
    local file=$1 table i n off len ver words name key size
    MAP_SIZE=$(file_size "$file")
    L_NAME=() L_KEY=() L_OFF=() L_LEN=() L_VER=() L_COMP=() L_ULEN=() L_REC=()

    if [ "$MAP_FAMILY" = source ]; then
        table=("${SOURCE_LUMPS[@]}")
        MAP_VERSION=$(rd_i32 "$file" 4 "$MAP_ENDIAN")
        MAP_REVISION=$(rd_i32 "$file" $((8 + 64 * 16)) "$MAP_ENDIAN")
        # lump_t: fileofs, filelen, version, fourCC
        read -r -a words <<<"$(od -A n -v -t u4 -j 8 -N 1024 --endian="$MAP_ENDIAN" "$file" | tr '\n' ' ')"
        n=64
    elif [ "$MAP_FAMILY" = quake3 ]; then
        # "IBSP", the version, then MAP_Q3_LUMPS (17 or 18, stated by the scenario) entries.
        table=("${QUAKE3_LUMPS[@]}")
        MAP_VERSION=$(rd_i32 "$file" 4)
        MAP_REVISION=0
        n=$MAP_Q3_LUMPS
        read -r -a words <<<"$(od -A n -v -t u4 -j 8 -N $((8 * n)) "$file" | tr '\n' ' ')"
    else
        table=("${QUAKE_LUMPS[@]}")
        MAP_VERSION=$(rd_i32 "$file" 0)
        MAP_REVISION=0
        read -r -a words <<<"$(od -A n -v -t u4 -j 4 -N 120 "$file" | tr '\n' ' ')"
        n=15
    fi

    for ((i = 0; i < n; i++)); do
        read -r name key size <<<"${table[$i]}"
        if [ "$MAP_FAMILY" = source ] && [ "$MAP_VERSION" -ge 21 ] && [ $i -ge 22 ] && [ $i -le 25 ]; then
            name=$(echo PROPCOLLISION PROPHULLS PROPHULLVERTS PROPTRIS | cut -d' ' -f$((i - 21)))
        fi
        L_NAME[$i]=$name
        L_KEY[$i]=$key
        if [ "$MAP_FAMILY" = source ]; then
            off=${words[$((i * 4))]}
            len=${words[$((i * 4 + 1))]}
            ver=${words[$((i * 4 + 2))]}
            [ "$ver" -ge 2147483648 ] && ver=$((ver - 4294967296))
        else
            off=${words[$((i * 2))]}
            len=${words[$((i * 2 + 1))]}
            ver=0
        fi
        L_OFF[$i]=$off
        L_LEN[$i]=$len
        L_VER[$i]=$ver
        L_COMP[$i]=false
        L_ULEN[$i]=$len
        if [ "$MAP_FAMILY" = source ] && [ "$len" -ge 17 ] && [ "$(rd_magic "$file" "$off")" = LZMA ]; then
            L_COMP[$i]=true
            L_ULEN[$i]=$(rd_u32 "$file" $((off + 4)))
        fi
        [ "$size" = v ] && size=$(source_record_size "$name" "$ver")
        if [ "$size" -gt 0 ]; then
            L_REC[$i]=$((L_ULEN[i] / size))
        else
            L_REC[$i]=null
        fi
    done

    # Entity count: the sample maps hold no braces inside values, so every
    # '{' opens one entity.
    MAP_ENTITIES=$(lump_data "$file" 0 | tr -cd '{' | wc -c)

    MAP_EMBEDDED=0
    if [ "$MAP_FAMILY" = quake3 ]; then
        MAP_TEXTURES=${L_REC[1]}
        MAP_CRC=
    elif [ "$MAP_FAMILY" = source ]; then
        MAP_TEXTURES=${L_REC[2]}
        # CRC-32 over every lump but ENTITIES as stored; gzip's trailer
        # carries the same CRC-32 (zlib polynomial).
        MAP_CRC=$(for ((i = 1; i < n; i++)); do raw_bytes "$file" "${L_OFF[$i]}" "${L_LEN[$i]}"; done |
            gzip -c | tail -c 8 | od -A n -t x4 -N 4 --endian=little | tr -d ' \n')
    else
        # miptex directory: count, then one offset per miptex (-1 = empty);
        # a miptex is embedded when its first mip offset is not 0.
        local tex=${L_OFF[2]} count mip_ofs
        MAP_TEXTURES=0
        if [ "${L_LEN[2]}" -gt 0 ]; then
            MAP_TEXTURES=$(rd_i32 "$file" "$tex")
            for ((i = 0; i < MAP_TEXTURES; i++)); do
                mip_ofs=$(rd_i32 "$file" $((tex + 4 + 4 * i)))
                [ "$mip_ofs" -ge 0 ] || continue
                [ "$(rd_u32 "$file" $((tex + mip_ofs + 24)))" -ne 0 ] && MAP_EMBEDDED=$((MAP_EMBEDDED + 1))
            done
        fi
        MAP_CRC=
    fi
    MAP_LUMPS=$n
}

# ---- expected output ------------------------------------------------------------

# expected_info_json FILE_AS_GIVEN: the JSON 'info --json' must print.
expected_info_json() {
    local file=$1 i v first key
    echo "{"
    echo "  \"file\": \"$file\","
    echo "  \"format\": \"$MAP_FAMILY\","
    echo "  \"name\": \"$MAP_NAME\","
    echo "  \"version\": $MAP_VERSION,"
    echo "  \"endian\": \"$MAP_ENDIAN\","
    if [ ${#MAP_VARIANT[@]} -eq 0 ]; then
        echo "  \"variant\": [],"
    else
        echo "  \"variant\": ["
        for ((v = 0; v < ${#MAP_VARIANT[@]}; v++)); do
            if [ $((v + 1)) -lt ${#MAP_VARIANT[@]} ]; then
                echo "    \"${MAP_VARIANT[$v]}\","
            else
                echo "    \"${MAP_VARIANT[$v]}\""
            fi
        done
        echo "  ],"
    fi
    echo "  \"revision\": $MAP_REVISION,"
    echo "  \"size\": $MAP_SIZE,"
    echo "  \"lumps\": ["
    for ((i = 0; i < MAP_LUMPS; i++)); do
        echo "    {"
        echo "      \"index\": $i,"
        echo "      \"name\": \"${L_NAME[$i]}\","
        echo "      \"offset\": ${L_OFF[$i]},"
        echo "      \"length\": ${L_LEN[$i]},"
        echo "      \"version\": ${L_VER[$i]},"
        echo "      \"uncompressed_length\": ${L_ULEN[$i]},"
        echo "      \"compressed\": ${L_COMP[$i]},"
        echo "      \"records\": ${L_REC[$i]},"
        echo "      \"external\": null"
        if [ $((i + 1)) -lt "$MAP_LUMPS" ]; then echo "    },"; else echo "    }"; fi
    done
    echo "  ],"
    echo "  \"counts\": {"
    for ((i = 0; i < MAP_LUMPS; i++)); do
        key=${L_KEY[$i]}
        [ "$key" != - ] && [ "${L_REC[$i]}" != null ] || continue
        echo "    \"$key\": ${L_REC[$i]},"
    done
    echo "    \"textures\": $MAP_TEXTURES"
    echo "  },"
    if [ "$MAP_FAMILY" = source ]; then
        echo "  \"entities\": $MAP_ENTITIES,"
        echo "  \"crc\": \"$MAP_CRC\""
    else
        echo "  \"entities\": $MAP_ENTITIES"
    fi
    echo "}"
}

# expected_info_text FILE_AS_GIVEN: the text 'info' must print.
expected_info_text() {
    local file=$1 i width=4 key_width=8 any_comp=0 variant line
    printf '%-10s%s\n' "file:" "$file"
    printf '%-10s%s\n' "format:" "$MAP_FAMILY"
    printf '%-10s%s\n' "name:" "$MAP_NAME"
    printf '%-10s%s\n' "version:" "$MAP_VERSION"
    printf '%-10s%s\n' "endian:" "$MAP_ENDIAN"
    variant=none
    if [ ${#MAP_VARIANT[@]} -gt 0 ]; then
        variant=$(printf '%s, ' "${MAP_VARIANT[@]}")
        variant=${variant%, }
    fi
    printf '%-10s%s\n' "variant:" "$variant"
    [ "$MAP_FAMILY" = source ] && printf '%-10s%s\n' "revision:" "$MAP_REVISION"
    printf '%-10s%s bytes\n' "size:" "$MAP_SIZE"

    for ((i = 0; i < MAP_LUMPS; i++)); do
        [ "${L_LEN[$i]}" -gt 0 ] && [ ${#L_NAME[$i]} -gt $width ] && width=${#L_NAME[$i]}
        [ "${L_COMP[$i]}" = true ] && any_comp=1
    done
    printf '\nlumps (non-empty):\n'
    line=$(printf '  %5s  %-*s  %10s  %10s' index "$width" name offset length)
    [ "$MAP_FAMILY" = source ] && line+=$(printf '  %7s' version)
    [ $any_comp -eq 1 ] && line+=$(printf '  %12s' uncompressed)
    printf '%s  %10s\n' "$line" records
    for ((i = 0; i < MAP_LUMPS; i++)); do
        [ "${L_LEN[$i]}" -gt 0 ] || continue
        line=$(printf '  %5d  %-*s  %10d  %10d' "$i" "$width" "${L_NAME[$i]}" "${L_OFF[$i]}" "${L_LEN[$i]}")
        [ "$MAP_FAMILY" = source ] && line+=$(printf '  %7d' "${L_VER[$i]}")
        if [ $any_comp -eq 1 ]; then
            if [ "${L_COMP[$i]}" = true ]; then
                line+=$(printf '  %12d' "${L_ULEN[$i]}")
            else
                line+=$(printf '  %12s' -)
            fi
        fi
        if [ "${L_REC[$i]}" = null ]; then
            printf '%s  %10s\n' "$line" -
        else
            printf '%s  %10d\n' "$line" "${L_REC[$i]}"
        fi
    done

    for ((i = 0; i < MAP_LUMPS; i++)); do
        [ "${L_KEY[$i]}" != - ] && [ "${L_REC[$i]}" != null ] && [ ${#L_KEY[$i]} -gt $key_width ] &&
            key_width=${#L_KEY[$i]}
    done
    printf '\ncounts:\n'
    for ((i = 0; i < MAP_LUMPS; i++)); do
        [ "${L_KEY[$i]}" != - ] && [ "${L_REC[$i]}" != null ] || continue
        printf '  %-*s  %10d\n' "$key_width" "${L_KEY[$i]}" "${L_REC[$i]}"
    done
    printf '\n'
    printf '%-10s%s\n' "entities:" "$MAP_ENTITIES"
    if [ "$MAP_FAMILY" = source ]; then
        printf '%-10s%s\n' "textures:" "$MAP_TEXTURES"
        printf '%-10s%s\n' "crc:" "$MAP_CRC"
    elif [ "$MAP_FAMILY" = quake3 ]; then
        printf '%-10s%s\n' "textures:" "$MAP_TEXTURES"
    else
        printf '%-10s%s (%s embedded)\n' "textures:" "$MAP_TEXTURES" "$MAP_EMBEDDED"
    fi
}

# run_and_compare EXPECTED_FUNCTION FILE ARGS...: runs bspkit ARGS..., prints
# a diff against the expected output (nothing when equal) and exits with
# bspkit's status.
run_and_compare() {
    local expect_fn=$1 file=$2 actual status
    shift 2
    actual=$("$BSPKIT" "$@")
    status=$?
    diff -u --label expected --label actual <("$expect_fn" "$file") <(printf '%s\n' "$actual")
    exit $status
}

# require_corpus: skip the scenario when the shared map corpus is absent.
require_corpus() {
    if [ ! -d "$MAPS" ]; then
        echo "skipped: ../shared/maps not present"
        exit 77
    fi
}

# expect_counts KEY=N...: facts stated by hand from how the sample maps are
# built (a box room of six walls; the Source room adds a func_brush box),
# checked against what load_map read from the bytes, so a generator that
# drifts from its construction is noticed too. KEY is a counting key, or
# entities, textures, embedded, version or revision.
expect_counts() {
    local pair key want got i
    for pair in "$@"; do
        key=${pair%%=*} want=${pair#*=} got=
        case $key in
        entities) got=$MAP_ENTITIES ;;
        textures) got=$MAP_TEXTURES ;;
        embedded) got=$MAP_EMBEDDED ;;
        version) got=$MAP_VERSION ;;
        revision) got=$MAP_REVISION ;;
        *) for ((i = 0; i < MAP_LUMPS; i++)); do
               [ "${L_KEY[$i]}" = "$key" ] && got=${L_REC[$i]}
           done ;;
        esac
        [ "$got" = "$want" ] || echo "construction: $key is ${got:-missing} in the file, expected $want"
    done
}
