#!/usr/bin/env bash
# compare-outputs.sh - prove that two builds of bspkit behave identically.
#
# usage: scripts/compare-outputs.sh OLD_REV [NEW_REV] [MAPS_DIR]
#
#   OLD_REV   any git revision (exported with 'git archive', built in WORK)
#   NEW_REV   a git revision; empty or '-' (the default) means the working
#             tree, uncommitted and untracked (not ignored) files included
#   MAPS_DIR  directory searched recursively for *.bsp maps
#             (default: ../shared/maps relative to the repository root;
#             when it does not exist the script says so and exits 0)
#
# Both trees are built with
#   cmake -DCMAKE_BUILD_TYPE=Release -DBSPKIT_TESTS=OFF -DBSPKIT_BENCH=OFF
#   cmake --build DIR -j2 --target bspkit
# and, if that fails on a warning turned into an error, once more with
# -Wno-error (CMAKE_C_FLAGS, plus a compiler launcher that appends it after
# the project's own -Werror, which would otherwise win). -Wno-error does not
# change the generated code.
#
# Then every map runs the same commands under both binaries (see
# map_commands below). Each command runs in an empty directory of its own,
# with output files named relative to it, so both sides see identical
# arguments. A command's hash is the sha256 of a manifest that lists the
# sha256 of its stdout, of its stderr with the run directory and temporary
# file suffixes replaced by placeholders, and of every file it left in its
# directory (by name). Two runs are equal when hash and exit code match.
#
# environment:
#   WORK=DIR      work directory (default: a new mktemp -d directory, removed
#                 at the end unless KEEP=1; a given WORK is never removed)
#   KEEP=1        keep the default work directory
#   NEW_SRC=DIR   build the new side from this source directory instead of
#                 NEW_REV / the working tree (e.g. a patched copy)
#   JOBS=N        maps compared in parallel (default 2)
#   BUILD_JOBS=N  make -j for the builds (default 2)
#   CMD_TIMEOUT=S time limit per command run (default 600 s; a timeout
#                 gives exit code 124)
#   PYTHON=PATH   python 3 interpreter (default /usr/bin/python3)
#
# Results: WORK/results.tsv, one line per comparison:
#   map<TAB>command<TAB>old-hash<TAB>new-hash<TAB>old-rc<TAB>new-rc
# (map relative to MAPS_DIR; tabs/newlines in names written as \t, \n), and
# WORK/differences.txt with what differed (stdout, stderr, which files).
#
# exit codes: 0 all outputs equal (or no maps), 1 at least one difference,
#             2 build or setup failure, 64 usage error
set -u -o pipefail

die() { printf 'compare-outputs: %s\n' "$*" >&2; exit 2; }
note() { printf 'compare-outputs: %s\n' "$*" >&2; }

usage() {
    sed -n '4,12p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 64
}

# --------------------------------------------------------------------------
# Per-map worker (run by xargs in a child bash; everything it needs comes
# through exported variables and functions).
# --------------------------------------------------------------------------

# hash_side SIDE: write the manifest of the run in $RD/SIDE and print its hash.
hash_side() {
    local side=$1 f
    local dir=$RD/$side/run
    {
        printf 'stdout %s\n' "$(sha256sum <"$RD/$side.out" | cut -d' ' -f1)"
        printf 'stderr %s\n' "$(DIR="$dir" perl -pe 's/\Q$ENV{DIR}\E/<RUNDIR>/g; s/\.\d+\.[0-9a-f]{8}\.tmp\b/.<PID>.<SALT>.tmp/g' \
            <"$RD/$side.err" | sha256sum | cut -d' ' -f1)"
        (cd "$dir" && find . -mindepth 1 -print0 | LC_ALL=C sort -z) |
            while IFS= read -r -d '' f; do
                if [[ -L $dir/$f ]]; then
                    printf 'link %q -> %q\n' "$f" "$(readlink "$dir/$f")"
                elif [[ -d $dir/$f ]]; then
                    printf 'dir %q\n' "$f"
                elif [[ -f $dir/$f ]]; then
                    printf 'file %q %s\n' "$f" "$(sha256sum <"$dir/$f" | cut -d' ' -f1)"
                else
                    printf 'other %q\n' "$f"
                fi
            done
    } >"$RD/$side.manifest"
    sha256sum <"$RD/$side.manifest" | cut -d' ' -f1
}

# run_side SIDE BIN ARG...: run BIN ARG... in an empty directory; sets RC_<SIDE>.
run_side() {
    local side=$1 bin=$2
    shift 2
    rm -rf "${RD:?}/$side"
    mkdir -p "$RD/$side/run" || return 1
    (cd "$RD/$side/run" && exec timeout -k 10 "$CMD_TIMEOUT" "$bin" "$@") \
        >"$RD/$side.out" 2>"$RD/$side.err" </dev/null
    printf -v "RC_$side" '%s' $?
}

# compare LABEL ARG...: one comparison; ARG... are bspkit's arguments.
RC_old='' RC_new=''
compare() {
    local label=$1 ho hn
    shift
    run_side old "$OLD_BIN" "$@"
    ho=$(hash_side old)
    run_side new "$NEW_BIN" "$@"
    hn=$(hash_side new)
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$MAP_LABEL" "$label" "$ho" "$hn" "$RC_old" "$RC_new" >>"$RES"
    if [[ $ho != "$hn" || $RC_old != "$RC_new" ]]; then
        {
            printf '%s\t%s\n' "$MAP_LABEL" "$label"
            [[ $RC_old != "$RC_new" ]] && printf '    exit code: old %s, new %s\n' "$RC_old" "$RC_new"
            diff "$RD/old.manifest" "$RD/new.manifest" | sed -n 's/^\([<>]\) /    \1 /p' |
                sed 's/^    </    old:/; s/^    >/    new:/' | head -n 40
            if ! cmp -s "$RD/old.out" "$RD/new.out"; then
                diff -a "$RD/old.out" "$RD/new.out" | head -n 6 | cut -c 1-200 | sed 's/^/    stdout diff: /'
            fi
            if ! cmp -s "$RD/old.err" "$RD/new.err"; then
                printf '    stderr old: %s\n' "$(head -c 300 "$RD/old.err" | tr '\n' ' ')"
                printf '    stderr new: %s\n' "$(head -c 300 "$RD/new.err" | tr '\n' ' ')"
            fi
        } >>"$DIFFS"
    fi
    rm -rf "$RD/old" "$RD/new"
}

# The dump targets of a map: lump indexes from both sides' 'info --json',
# game-lump ids from both sides' 'dump MAP game_lump --json', BSPX lump names
# from the file's BSPX directory. Prints the family, then the targets, each
# NUL-terminated.
ENUM_PY='
import json, struct, sys
path, infos, gls = sys.argv[1], sys.argv[2:4], sys.argv[4:6]
family, lumps, gids, bspx = "", [], [], []
def load(p):
    try:
        with open(p, "rb") as f:
            return json.loads(f.read().decode("utf-8", "replace"))
    except Exception:
        return None
def add(lst, v):
    if v not in lst:
        lst.append(v)
for p in infos:
    d = load(p)
    if not isinstance(d, dict):
        continue
    if not family and isinstance(d.get("format"), str):
        family = d["format"]
    for l in d.get("lumps") or []:
        if isinstance(l, dict) and isinstance(l.get("index"), int):
            add(lumps, l["index"])
    for gl in d.get("game_lumps") or []:
        if isinstance(gl, dict) and isinstance(gl.get("id"), str):
            add(gids, gl["id"])
    if "BSPX" in (d.get("variant") or []) and family != "source":
        try:
            with open(path, "rb") as f:
                data = f.read()
            end = 4 + 8 * 15
            for i in range(15):
                o, n = struct.unpack_from("<II", data, 4 + 8 * i)
                end = max(end, o + n)
            end = (end + 3) & ~3
            if data[end:end + 4] == b"BSPX":
                (count,) = struct.unpack_from("<I", data, end + 4)
                for i in range(min(count, 4096)):
                    at = end + 8 + 32 * i
                    if at + 32 > len(data):
                        break
                    name = data[at:at + 24].split(b"\0", 1)[0].decode("latin-1")
                    if name:
                        add(bspx, name)
        except Exception as e:
            print("BSPX directory of %s: %s" % (path, e), file=sys.stderr)
for p in gls:
    d = load(p)
    if not isinstance(d, dict):
        continue
    for t in d.get("tables") or []:
        if isinstance(t, dict) and t.get("name") == "directory":
            for r in t.get("records") or []:
                if isinstance(r, dict) and isinstance(r.get("id"), str):
                    add(gids, r["id"])
out = [family or "unknown"] + [str(i) for i in sorted(lumps)] + gids + bspx
sys.stdout.write("".join(s.replace("\0", "") + "\0" for s in out))
'

compare_map() {
    local idx=$1 map=$2 family t ext
    local -a targets
    MAP_LABEL=${map#"$MAPS_DIR"/}
    MAP_LABEL=${MAP_LABEL//$'\t'/\\t}
    MAP_LABEL=${MAP_LABEL//$'\n'/\\n}
    RD=$WORK/run/$idx
    RES=$WORK/results/$idx.tsv
    DIFFS=$WORK/results/$idx.diff
    rm -rf "$RD"
    mkdir -p "$RD" || return 1
    : >"$RES.part"
    : >"$DIFFS"
    RES=$RES.part
    [[ -n ${PROGRESS:-} ]] && printf '[%s/%s] %s\n' "$((10#$idx))" "$NMAPS" "$MAP_LABEL" >&2

    compare 'info --json MAP' info --json "$map"
    cp "$RD/old.out" "$RD/info.old.json"
    cp "$RD/new.out" "$RD/info.new.json"
    compare 'info MAP' info "$map"
    compare 'check --json MAP' check --json "$map"
    # Game-lump ids (Source): the game lump directory, from both binaries.
    : >"$RD/gl.old.json"
    : >"$RD/gl.new.json"
    if grep -q '"format" *: *"source"' "$RD/info.old.json" "$RD/info.new.json"; then
        (cd "$RD" && timeout "$CMD_TIMEOUT" "$OLD_BIN" dump "$map" game_lump --json >gl.old.json 2>/dev/null </dev/null)
        (cd "$RD" && timeout "$CMD_TIMEOUT" "$NEW_BIN" dump "$map" game_lump --json >gl.new.json 2>/dev/null </dev/null)
    fi
    targets=()
    while IFS= read -r -d '' t; do targets+=("$t"); done < <(
        "$PYTHON" -c "$ENUM_PY" "$map" "$RD/info.old.json" "$RD/info.new.json" "$RD/gl.old.json" "$RD/gl.new.json")
    if ((${#targets[@]} == 0)); then
        printf 'compare-outputs: cannot list the lumps of %s\n' "$map" >&2
        return 1
    fi
    family=${targets[0]}
    for t in "${targets[@]:1}"; do
        compare "dump MAP $t --json" dump "$map" "$t" --json
    done

    compare 'convert MAP -o OUT.bsp' convert "$map" -o out.bsp
    compare 'convert MAP --endian big -o OUT.bsp' convert "$map" --endian big -o out.bsp
    compare 'convert MAP --endian little -o OUT.bsp' convert "$map" --endian little -o out.bsp
    compare 'convert MAP --compress -o OUT.bsp' convert "$map" --compress -o out.bsp
    compare 'convert MAP --decompress -o OUT.bsp' convert "$map" --decompress -o out.bsp
    compare "ent MAP --set classname=worldspawn bspkit_test=1 -o OUT.bsp" \
        ent "$map" --set 'classname=worldspawn' 'bspkit_test=1' -o out.bsp
    compare 'export MAP -o OUT.glb' export "$map" -o out.glb
    if [[ $family == source ]]; then ext=vmf; else ext=map; fi
    compare "decompile MAP -o OUT.$ext" decompile "$map" -o "out.$ext"
    compare 'pak MAP list --json' pak "$map" list --json

    mv "$RES" "${RES%.part}"
    rm -rf "$RD"
}

if [[ ${1:-} == --worker ]]; then
    shift
    compare_map "$@"
    exit $?
fi

# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------
[[ $# -ge 1 && $# -le 3 && $1 != -h && $1 != --help ]] || usage
OLD_REV=$1
NEW_REV=${2:-}
[[ $NEW_REV == - ]] && NEW_REV=

export LC_ALL=C TZ=UTC
START=$SECONDS

SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd) || die "cannot find the script's directory"
REPO=$(git -C "$SCRIPT_DIR" rev-parse --show-toplevel 2>/dev/null) || die "not inside a git repository: $SCRIPT_DIR"
MAPS_DIR=${3:-$REPO/../shared/maps}
if [[ ! -d $MAPS_DIR ]]; then
    note "no maps directory at $MAPS_DIR; nothing to compare"
    exit 0
fi
MAPS_DIR=$(cd "$MAPS_DIR" && pwd -P) || die "cannot enter $MAPS_DIR"

PYTHON=${PYTHON:-/usr/bin/python3}
[[ -x $PYTHON ]] || PYTHON=$(command -v python3) || die "python3 is needed"
for tool in cmake git sha256sum perl timeout xargs find sort tar; do
    command -v "$tool" >/dev/null || die "$tool is needed"
done
JOBS=${JOBS:-2}
BUILD_JOBS=${BUILD_JOBS:-2}
CMD_TIMEOUT=${CMD_TIMEOUT:-600}

OLD_COMMIT=$(git -C "$REPO" rev-parse --verify --quiet "$OLD_REV^{commit}") || die "unknown revision: $OLD_REV"
if [[ -n $NEW_REV ]]; then
    NEW_COMMIT=$(git -C "$REPO" rev-parse --verify --quiet "$NEW_REV^{commit}") || die "unknown revision: $NEW_REV"
fi

if [[ -n ${WORK:-} ]]; then
    mkdir -p "$WORK" || die "cannot create WORK=$WORK"
    WORK=$(cd "$WORK" && pwd -P)
    OWN_WORK=
else
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/bspkit-compare.XXXXXX") || die "mktemp failed"
    OWN_WORK=1
fi
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
    if [[ -n $OWN_WORK && ${KEEP:-0} != 1 ]]; then
        rm -rf "$WORK"
    else
        note "work directory kept: $WORK"
    fi
}
trap cleanup EXIT
trap 'exit 2' INT TERM
note "work directory: $WORK"

# export_rev REV DEST: the tree of REV, via git archive.
export_rev() {
    rm -rf "$2" && mkdir -p "$2" || return 1
    git -C "$REPO" archive --format=tar "$1" | tar -x -C "$2"
}

# export_worktree DEST: tracked and untracked-but-not-ignored files as they
# are now (tracked files deleted in the working tree are left out).
export_worktree() {
    rm -rf "$1" && mkdir -p "$1" || return 1
    local -a st
    (cd "$REPO" && git ls-files -co --exclude-standard -z |
        tar --null --no-recursion --ignore-failed-read -cf - -T -) | tar -x -C "$1"
    st=("${PIPESTATUS[@]}")
    # tar exits 1 when a file changed while it was read (others may be
    # editing); the copy is still usable.
    ((st[0] <= 1 && st[1] == 0))
}

# build SIDE SRC: build bspkit from SRC into WORK/build-SIDE; prints the binary.
build() {
    local side=$1 src=$2
    local bdir=$WORK/build-$side log=$WORK/build-$side.log
    local -a cfg=(-S "$src" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DBSPKIT_TESTS=OFF -DBSPKIT_BENCH=OFF)
    note "building $side ($src)"
    if cmake "${cfg[@]}" >"$log" 2>&1 && cmake --build "$bdir" -j"$BUILD_JOBS" --target bspkit >>"$log" 2>&1; then
        printf '%s\n' "$bdir/bspkit"
        return 0
    fi
    if grep -q -e 'warnings being treated as errors' -e '\[-Werror' "$log"; then
        # The project's -Werror comes after CMAKE_C_FLAGS on the command
        # line, so -Wno-error there alone does not help; the launcher puts it
        # last. Neither changes the generated code.
        local launcher=$WORK/no-werror-cc.sh
        printf '#!/bin/sh\nexec "$@" -Wno-error\n' >"$launcher" && chmod +x "$launcher"
        note "$side: a warning stopped the build; building again with -Wno-error"
        if cmake "${cfg[@]}" -DCMAKE_C_FLAGS=-Wno-error -DCMAKE_C_COMPILER_LAUNCHER="$launcher" >>"$log" 2>&1 &&
            cmake --build "$bdir" -j"$BUILD_JOBS" --target bspkit >>"$log" 2>&1; then
            printf '%s\n' "$bdir/bspkit"
            return 0
        fi
    fi
    note "$side: build failed; the end of $log:"
    grep -E 'error|Error' "$log" | head -n 20 >&2
    tail -n 15 "$log" >&2
    return 1
}

export_rev "$OLD_COMMIT" "$WORK/src-old" || die "cannot export $OLD_REV"
OLD_DESC="$OLD_REV ($(git -C "$REPO" rev-parse --short "$OLD_COMMIT"))"
if [[ -n ${NEW_SRC:-} ]]; then
    [[ -f $NEW_SRC/CMakeLists.txt ]] || die "NEW_SRC=$NEW_SRC has no CMakeLists.txt"
    NEW_SRC_DIR=$(cd "$NEW_SRC" && pwd -P)
    NEW_DESC="source directory $NEW_SRC_DIR"
    [[ -n $NEW_REV ]] && note "NEW_SRC is set: ignoring NEW_REV=$NEW_REV"
elif [[ -n $NEW_REV ]]; then
    NEW_SRC_DIR=$WORK/src-new
    export_rev "$NEW_COMMIT" "$NEW_SRC_DIR" || die "cannot export $NEW_REV"
    NEW_DESC="$NEW_REV ($(git -C "$REPO" rev-parse --short "$NEW_COMMIT"))"
else
    NEW_SRC_DIR=$WORK/src-new
    export_worktree "$NEW_SRC_DIR" || die "cannot copy the working tree"
    NEW_DESC="working tree of $REPO"
fi

OLD_BIN=$(build old "$WORK/src-old") || exit 2
NEW_BIN=$(build new "$NEW_SRC_DIR") || exit 2
BUILD_TIME=$((SECONDS - START))
note "builds done in ${BUILD_TIME}s"

# Maps, sorted, NUL-separated.
MAPS=()
while IFS= read -r -d '' m; do MAPS+=("$m"); done < <(find "$MAPS_DIR" -type f -name '*.bsp' -print0 | LC_ALL=C sort -z)
NMAPS=${#MAPS[@]}
if ((NMAPS == 0)); then
    note "no *.bsp maps under $MAPS_DIR; nothing to compare"
    exit 0
fi
note "comparing $NMAPS maps from $MAPS_DIR, $JOBS at a time"

PROGRESS=
[[ -t 2 ]] && PROGRESS=1
export WORK MAPS_DIR OLD_BIN NEW_BIN CMD_TIMEOUT PYTHON PROGRESS NMAPS LC_ALL TZ
rm -rf "$WORK/results" "$WORK/run"
mkdir -p "$WORK/results" "$WORK/run" || die "cannot write to $WORK"
CMP_START=$SECONDS
for i in "${!MAPS[@]}"; do
    printf '%05d\0%s\0' "$((i + 1))" "${MAPS[$i]}"
done | xargs -0 -n 2 -P "$JOBS" bash "$SCRIPT_DIR/$(basename "$0")" --worker
XRC=$?
CMP_TIME=$((SECONDS - CMP_START))

TSV=$WORK/results.tsv
DIFF_TXT=$WORK/differences.txt
printf 'map\tcommand\told_hash\tnew_hash\told_rc\tnew_rc\n' >"$TSV"
: >"$DIFF_TXT"
missing=0
for i in "${!MAPS[@]}"; do
    n=$(printf '%05d' "$((i + 1))")
    if [[ -f $WORK/results/$n.tsv ]]; then
        cat "$WORK/results/$n.tsv" >>"$TSV"
        cat "$WORK/results/$n.diff" >>"$DIFF_TXT"
    else
        note "no results for ${MAPS[$i]}"
        missing=$((missing + 1))
    fi
done

read -r comparisons equal different < <(awk -F'\t' 'NR > 1 { n++; if ($3 == $4 && $5 == $6) e++; else d++ }
    END { printf "%d %d %d\n", n, e, d }' "$TSV")

echo "bspkit output comparison"
echo "  old: $OLD_DESC"
echo "  new: $NEW_DESC"
echo "  maps: $NMAPS ($MAPS_DIR)"
echo "  comparisons: $comparisons"
echo "  equal: $equal"
echo "  different: $different"
echo "  time: builds ${BUILD_TIME}s, comparisons ${CMP_TIME}s, total $((SECONDS - START))s"
echo "  results: $TSV$([[ -n $OWN_WORK && ${KEEP:-0} != 1 ]] && echo ' (removed at exit; KEEP=1 keeps it)')"
if ((different > 0)); then
    echo "differences (map, command):"
    awk -F'\t' 'NR > 1 && ($3 != $4 || $5 != $6) { printf "  %s\t%s\n", $1, $2 }' "$TSV"
    echo "details:"
    sed 's/^/  /' "$DIFF_TXT"
fi
if ((missing > 0 || XRC != 0)); then
    note "$missing map(s) could not be compared (xargs exit $XRC)"
    exit 2
fi
((different == 0)) || exit 1
exit 0
