"""Build the bspkit extension from the library's own sources in ../src.

The C library is compiled into the extension module, so installing needs only
the C libraries bspkit links with (the same as CMakeLists.txt):

    python3 -m pip install --no-index --no-build-isolation ./python

Environment:
  BSPKIT_SOURCE_DIR      the checkout's root when this directory was copied
                         elsewhere (default: ..)
  BSPKIT_STATIC_LIBRARY  link this already-built libbspkit.a instead of
                         compiling ../src (the CMake test does this)
  BSPKIT_BUILD_JOBS      parallel C compiles (default 2)
  BSPKIT_WERROR          1: treat warnings as errors
  BSPKIT_LINK_FLAGS      extra linker flags, e.g. the sanitizer flags a sanitized
                         BSPKIT_STATIC_LIBRARY needs (the CMake test passes them)
"""
import os
from concurrent.futures import ThreadPoolExecutor
from glob import glob
import re

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
# The checkout's root (include/ and src/); a copy of this directory elsewhere names it.
ROOT = os.environ.get("BSPKIT_SOURCE_DIR") or os.path.dirname(HERE)


def rel(path):
    return os.path.relpath(path, HERE)


def library_globs():
    """The library's source globs, read from CMakeLists.txt's file(GLOB BSPKIT_SOURCES ...) so the
    two builds cannot drift apart (a room missing here would leave symbols undefined)."""
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        text = f.read()
    match = re.search(r"file\(GLOB BSPKIT_SOURCES[^)]*\)", text)
    if not match:
        raise SystemExit("setup.py: no file(GLOB BSPKIT_SOURCES ...) in CMakeLists.txt")
    return [word.rstrip(")") for word in match.group(0).split() if word.rstrip(")").endswith(".c")]


# The same source globs, include dirs, definitions and libraries as CMakeLists.txt.
LIBRARY_GLOBS = library_globs()
LIBRARIES = ["lzma", "deflate", "pcre2-8", "jansson", "z", "sqlite3", "bz2", "pthread", "dl", "m"]
WARNINGS = ["-Wall", "-Wextra", "-Wshadow", "-Wstrict-prototypes", "-Wvla"]

static_library = os.environ.get("BSPKIT_STATIC_LIBRARY")
sources = [rel(os.path.join(HERE, "src", "_bspkitmodule.c"))]
extra_objects = []
if static_library:
    extra_objects.append(static_library)
else:
    for pattern in LIBRARY_GLOBS:
        sources += sorted(rel(p) for p in glob(os.path.join(ROOT, pattern)))

compile_args = ["-std=c11", "-fvisibility=hidden"] + WARNINGS
if os.environ.get("BSPKIT_WERROR") == "1":
    compile_args.append("-Werror")


class ParallelBuildExt(build_ext):
    """Compiles the extension's C files BSPKIT_BUILD_JOBS at a time."""

    def build_extensions(self):
        jobs = max(1, int(os.environ.get("BSPKIT_BUILD_JOBS", "2")))
        compiler = self.compiler
        serial_compile = compiler.compile

        def compile_parallel(sources, output_dir=None, macros=None, include_dirs=None, debug=0,
                             extra_preargs=None, extra_postargs=None, depends=None):
            # Objects of ../src land under build/temp.*/../src; the temp dir must exist first.
            os.makedirs(output_dir or ".", exist_ok=True)

            def one(src):
                return serial_compile([src], output_dir, macros, include_dirs, debug, extra_preargs,
                                      extra_postargs, depends)[0]
            with ThreadPoolExecutor(jobs) as pool:
                return list(pool.map(one, sources))

        compiler.compile = compile_parallel
        super().build_extensions()


setup(
    name="bspkit",
    version="0.1.0",
    description="Read, check and decode Quake, GoldSrc and Source BSP map files",
    packages=["bspkit"],
    package_data={"bspkit": ["py.typed", "*.pyi"]},
    ext_modules=[Extension(
        "bspkit._bspkit",
        sources=sources,
        include_dirs=[rel(os.path.join(ROOT, "include")), rel(os.path.join(ROOT, "src"))],
        define_macros=[("_POSIX_C_SOURCE", "200809L"), ("_DEFAULT_SOURCE", None)],
        libraries=LIBRARIES,
        extra_objects=extra_objects,
        extra_compile_args=compile_args,
        extra_link_args=os.environ.get("BSPKIT_LINK_FLAGS", "").split(),
    )],
    cmdclass={"build_ext": ParallelBuildExt},
    python_requires=">=3.9",
)
