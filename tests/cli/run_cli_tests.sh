#!/usr/bin/env bash
# Scenario tests for the bspkit command-line tool.
#
# usage: run_cli_tests.sh BSPKIT SOURCE_DIR [CASE...]
#
# Every cases/NAME.sh is one scenario: a bash script run in a fresh scratch
# directory. Next to it, optional files state what must come out:
#   NAME.sh.exit          expected exit status (default 0)
#   NAME.sh.stdout.exact  stdout, byte for byte (trailing newlines ignored)
#   NAME.sh.stdout.glob   stdout as a bash pattern ('*' also matches newlines;
#                         escape literal '[' '*' '?' with a backslash)
#   NAME.sh.stderr.exact, NAME.sh.stderr.glob   the same for stderr
# A script that cannot run here prints "skipped: REASON" and exits 77.
#
# The scripts see these variables:
#   BSPKIT  the binary under test
#   GEN     directory holding the maps written by 'bspkit generate --all'
#   MAPS    the shared map corpus (may not exist)
#   CASES   the cases directory (cases/lib.bash has shared helpers)
# With CASE arguments only those scenarios run (names without .sh).
set -u

if [ $# -lt 2 ]; then
    echo "usage: $0 BSPKIT SOURCE_DIR [CASE...]" >&2
    exit 2
fi

BSPKIT=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SOURCE_DIR=$(cd "$2" && pwd)
shift 2
CASES="$SOURCE_DIR/tests/cli/cases"
MAPS=$(cd "$SOURCE_DIR/.." && pwd)/shared/maps
export BSPKIT CASES MAPS

if [ ! -x "$BSPKIT" ]; then
    echo "bspkit binary not found: $BSPKIT" >&2
    exit 2
fi

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/bspkit-cli-tests.XXXXXX")
trap 'chmod -R u+w "$SCRATCH" 2>/dev/null; rm -rf "$SCRATCH"' EXIT

# The sample maps are written once and shared read-only by all scenarios.
GEN="$SCRATCH/gen"
mkdir -p "$GEN"
export GEN
if ! "$BSPKIT" generate --all -o "$GEN" >"$SCRATCH/generate.out" 2>"$SCRATCH/generate.err"; then
    echo "note: 'bspkit generate --all' failed; scenarios using the sample maps will fail:"
    sed 's/^/  | /' "$SCRATCH/generate.err"
fi
chmod -R a-w "$GEN" 2>/dev/null

if [ $# -gt 0 ]; then
    names=("$@")
else
    names=()
    for f in "$CASES"/*.sh; do
        names+=("$(basename "$f" .sh)")
    done
fi

# Compares one captured stream with NAME.sh.STREAM.exact or .glob.
# Prints a diff or the pattern on mismatch.
compare_stream() {
    local case_file=$1 stream=$2 actual_file=$3
    local actual expected
    actual=$(cat "$actual_file")
    if [ -f "$case_file.$stream.exact" ]; then
        expected=$(cat "$case_file.$stream.exact")
        if [ "$actual" != "$expected" ]; then
            echo "  $stream differs from $stream.exact:"
            diff -u --label expected --label actual <(printf '%s\n' "$expected") <(printf '%s\n' "$actual") | sed 's/^/    /'
            return 1
        fi
    elif [ -f "$case_file.$stream.glob" ]; then
        expected=$(cat "$case_file.$stream.glob")
        # shellcheck disable=SC2053  # the right side is a pattern on purpose
        if [[ $actual != $expected ]]; then
            echo "  $stream does not match $stream.glob:"
            printf '%s\n' "$expected" | sed 's/^/    pattern| /'
            printf '%s\n' "$actual" | sed 's/^/    actual | /'
            return 1
        fi
    fi
    return 0
}

passed=0
failed=0
skipped=0
failed_names=()
for name in "${names[@]}"; do
    case_file="$CASES/$name.sh"
    if [ ! -f "$case_file" ]; then
        echo "FAIL $name: no such case"
        failed=$((failed + 1))
        failed_names+=("$name")
        continue
    fi
    dir="$SCRATCH/case-$name"
    mkdir -p "$dir"
    (cd "$dir" && exec bash "$case_file") >"$dir/.stdout" 2>"$dir/.stderr" </dev/null
    status=$?

    if [ $status -eq 77 ] && grep -q '^skipped:' "$dir/.stdout"; then
        echo "SKIP $name: $(grep -m1 '^skipped:' "$dir/.stdout" | sed 's/^skipped: *//')"
        skipped=$((skipped + 1))
        continue
    fi

    ok=1
    expected_status=0
    if [ -f "$case_file.exit" ]; then
        expected_status=$(tr -d ' \n' <"$case_file.exit")
    fi
    report=""
    if [ "$status" != "$expected_status" ]; then
        report+="  exit status $status, expected $expected_status"$'\n'
        ok=0
    fi
    if ! out=$(compare_stream "$case_file" stdout "$dir/.stdout"); then
        report+="$out"$'\n'
        ok=0
    fi
    if ! out=$(compare_stream "$case_file" stderr "$dir/.stderr"); then
        report+="$out"$'\n'
        ok=0
    fi

    if [ $ok -eq 1 ]; then
        echo "PASS $name"
        passed=$((passed + 1))
    else
        echo "FAIL $name"
        printf '%s' "$report"
        if [ ! -f "$case_file.stderr.exact" ] && [ ! -f "$case_file.stderr.glob" ] && [ -s "$dir/.stderr" ]; then
            echo "  stderr:"
            sed 's/^/    /' "$dir/.stderr" | head -40
        fi
        failed=$((failed + 1))
        failed_names+=("$name")
    fi
done

echo
echo "cli tests: $passed passed, $failed failed, $skipped skipped"
if [ $failed -gt 0 ]; then
    echo "failed: ${failed_names[*]}"
    exit 1
fi
if [ $passed -eq 0 ] && [ $skipped -gt 0 ]; then
    exit 77
fi
exit 0
