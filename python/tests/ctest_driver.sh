#!/bin/sh
# The CTest test python_package: installs the package from a copy of python/
# in the build tree (linking the static library CMake built) and runs pytest.
#   ctest_driver.sh PYTHON SOURCE_ROOT WORK_DIR STATIC_LIBRARY CLI WERROR(0|1) [LINK_FLAGS]
# Exits 77 (skipped) when no interpreter with the needed Debian packages was found.
# In the sanitized build LINK_FLAGS are the sanitizer flags the extension is linked with and
# BSPKIT_ASAN_PRELOAD names the ASan runtime, preloaded into the interpreter for pytest only
# (not into pip and the compiler it runs).
set -eu
py=$1 root=$2 work=$3 lib=$4 cli=$5 werror=$6 link_flags=${7:-}
case "$py" in
  ""|*NOTFOUND*)
    echo "skipped: no python3 with numpy, pytest, setuptools, pip and Python.h" \
         "(Debian: python3-dev python3-setuptools python3-numpy python3-pytest python3-pip)"
    exit 77 ;;
esac
rm -rf "$work/pkg" "$work/site"
mkdir -p "$work/pkg"
cp -R "$root/python/setup.py" "$root/python/src" "$root/python/bspkit" "$work/pkg/"
BSPKIT_SOURCE_DIR=$root BSPKIT_STATIC_LIBRARY=$lib BSPKIT_WERROR=$werror BSPKIT_LINK_FLAGS=$link_flags \
  "$py" -m pip install -q --disable-pip-version-check --no-cache-dir --no-index --no-build-isolation \
  --target "$work/site" "$work/pkg"
cd "$work"
if [ -n "${BSPKIT_ASAN_PRELOAD:-}" ]; then
  export LD_PRELOAD=$BSPKIT_ASAN_PRELOAD
fi
PYTHONPATH=$work/site BSPKIT_CLI=$cli exec "$py" -m pytest -q -p no:cacheprovider "$root/python/tests"
