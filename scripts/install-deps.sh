#!/usr/bin/env bash
# Install the Debian packages bspkit needs to build and test, but only the
# ones that are missing, so repeated runs are quiet and need no network.
#   scripts/install-deps.sh          build + test dependencies (clang for the second Release build;
#                                    test tools: xz, bzip2, gzip, Info-ZIP zip/unzip, jq and python3 check
#                                    outputs independently of bspkit; blender runs the add-on's tests)
#   scripts/install-deps.sh --fuzz   also clang's libFuzzer runtime
# Also installs, with `npm ci`, the Khronos glTF validator (npm package pinned in
# tests/export/validator/package-lock.json) and the viewer's packages (three.js,
# esbuild, playwright-core, pinned in viewer/package-lock.json: the build bundles
# the page `bspkit view` writes from them, its test drives Debian's chromium),
# and Debian's nodejs and npm first when `node` is missing.
set -euo pipefail

packages=(build-essential clang cmake pkg-config liblzma-dev libjansson-dev libcmocka-dev libzip-dev libpng-dev libdeflate-dev libpcre2-dev
          libbz2-dev zlib1g-dev libsqlite3-dev  # scan and fastdl: .bz2/.gz streams, the scan index
          xz-utils zip unzip jq python3 bzip2 gzip
          python3-dev python3-setuptools python3-numpy python3-pytest python3-pip  # the Python package and its tests
          python3-distributed  # the Dask scan example and its test
          python3-build  # the wheel test (python3 -m build)
          blender  # the Blender add-on's tests (tests/blender: tools/blender/bspkit_import.py inside Blender)
          libtbb12  # runtime of the prebuilt ericw-tools in ../shared/tools (a peer the tests compare with)
          chromium)  # the view test opens the page bspkit view writes in headless Chromium
command -v node >/dev/null 2>&1 || packages+=(nodejs npm)
for arg in "$@"; do
  case "$arg" in
    --fuzz) packages+=(libclang-rt-14-dev) ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "install-deps.sh: unknown option '$arg'" >&2; exit 64 ;;
  esac
done

root_dir="$(cd "$(dirname "$0")/.." && pwd)"
validator_dir="$root_dir/tests/export/validator"
viewer_dir="$root_dir/viewer"
install_validator() {
  if [ ! -d "$validator_dir/node_modules/gltf-validator" ]; then
    echo "install-deps.sh: installing the glTF validator (npm ci in $validator_dir)"
    (cd "$validator_dir" && npm ci --no-audit --no-fund --silent)
  fi
  # The viewer's packages; the lockfile changing (a version bump) installs them again.
  if [ ! -f "$viewer_dir/node_modules/.package-lock.json" ] ||
     [ "$viewer_dir/package-lock.json" -nt "$viewer_dir/node_modules/.package-lock.json" ]; then
    echo "install-deps.sh: installing the viewer's packages (npm ci in $viewer_dir)"
    (cd "$viewer_dir" && npm ci --no-audit --no-fund --silent)
  fi
}

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "install-deps.sh: not a Debian-based system; install these yourself: ${packages[*]}" >&2
  if command -v npm >/dev/null 2>&1; then install_validator; fi
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  install_validator
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "install-deps.sh: missing packages (${missing[*]}) and no root or sudo to install them" >&2
  exit 1
fi

echo "install-deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
install_validator
