"""Read, check and decode Quake, GoldSrc and Source BSP map files.

    import bspkit
    with bspkit.open("map.bsp") as m:
        print(m.format.name, m.counts["faces"], m.crc)
        normals = m.planes["normal"]          # NumPy view of the decoded planes, no copy
        for ent in m.entities:
            print(ent["classname"])

Record arrays are read-only NumPy structured arrays over the arrays the C
library decoded; each keeps its map's memory alive, so an array stays valid
after Map.close().
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterable, Sequence, Iterator, List, Optional, Tuple, Union

import numpy as np

from . import _bspkit
from ._bspkit import (Error, ArgumentError, FileError, OutOfMemoryError, LimitError, FormatError,
                      UnsupportedError, NotFoundError)

__all__ = ["open", "Map", "Format", "Entity", "Problem", "Error", "ArgumentError", "FileError",
           "OutOfMemoryError", "LimitError", "FormatError", "UnsupportedError", "NotFoundError",
           "RECORD_ARRAYS", "view_available", "__version__"]
__version__ = _bspkit.LIBRARY_VERSION

# Error codes (bspkit_result); an Error's `code` is one of these.
OK, ERR_ARGUMENT, ERR_IO, ERR_NOMEM, ERR_LIMIT, ERR_EMPTY, ERR_TRUNCATED, ERR_UNKNOWN_FORMAT, \
    ERR_UNSUPPORTED, ERR_LUMP_RANGE, ERR_LUMP_SIZE, ERR_COMPRESSION, ERR_ENTITIES, ERR_VISIBILITY, \
    ERR_TEXTURES, ERR_GAME_LUMP, ERR_INDEX, ERR_ENGINE_LIMIT, ERR_NOT_FOUND, ERR_INCOMPLETE = range(20)

for _cls in (Error, ArgumentError, FileError, OutOfMemoryError, LimitError, FormatError, UnsupportedError,
             NotFoundError):
    _cls.__module__ = "bspkit"
del _cls
Error.code = 0
Error.lump = None
Error.offset = None
Error.lump_offset = None

# Variant bits and the names `bspkit info` shows for them, in its order.
_VARIANT_NAMES = [
    (1 << 0, "Blue Shift"), (1 << 1, "BSP2"), (1 << 2, "2PSB"), (1 << 3, "L4D2 directory"),
    (1 << 4, "LZMA lumps"), (1 << 5, "BSPX"), (1 << 6, "wide lumps"), (1 << 7, "external lumps"),
    (1 << 8, "external lumps not read (opened from memory)"),
]


def _dtype(desc) -> np.dtype:
    """A NumPy dtype from the extension's descriptor: (itemsize, scalar type) or
    (itemsize, [(name, offset, type, shape), ...]) with nested descriptors as types."""
    itemsize, fields = desc
    if isinstance(fields, str):
        return np.dtype("=" + fields)
    names, formats, offsets = [], [], []
    for name, offset, ftype, shape in fields:
        base = _dtype(ftype) if isinstance(ftype, tuple) else np.dtype(ftype if ftype[0] in "S?" else "=" + ftype)
        names.append(name)
        formats.append((base, shape) if shape else base)
        offsets.append(offset)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": itemsize})


#: dtype of every record array, keyed by its Map attribute name.
RECORD_ARRAYS = {name: _dtype(desc) for name, desc in _bspkit.record_types().items()}


@dataclass(frozen=True)
class Format:
    """What a map file is, as `bspkit info` reports it."""
    family: str          #: "quake", "goldsrc", "source", "quake2", "quake3", "titanfall"
    name: str            #: e.g. "GoldSrc BSP30"
    version: int
    endian: str          #: "little" or "big"
    variant: List[str]   #: variant names as `bspkit info` lists them
    variant_bits: int    #: all BSPKIT_VARIANT_* bits
    revision: int        #: Source map revision, else 0
    lump_count: int


@dataclass(frozen=True)
class Problem:
    """One finding of Map.validate()."""
    severity: str                #: "error" or "warning"
    code: int                    #: bspkit result code
    code_name: str               #: short description of the code (as `bspkit check --json` prints)
    lump: Optional[int]          #: lump index, or None
    lump_name: Optional[str]
    record: Optional[int]        #: record index inside the lump, or None
    offset: Optional[int]        #: absolute file offset, or None
    message: str


class Entity:
    """One entity: its key/value pairs in file order, duplicates kept."""

    __slots__ = ("pairs", "line", "offset")

    def __init__(self, pairs: List[Tuple[str, str]], line: int = 0, offset: int = 0):
        self.pairs = pairs
        self.line = line        #: 1-based line of the opening brace
        self.offset = offset    #: byte offset of the opening brace in the entity text

    def __getitem__(self, key: str) -> str:
        """The first value for `key`; KeyError when absent."""
        for k, v in self.pairs:
            if k == key:
                return v
        raise KeyError(key)

    def get(self, key: str, default: Optional[str] = None) -> Optional[str]:
        """The first value for `key`, or `default`."""
        for k, v in self.pairs:
            if k == key:
                return v
        return default

    def get_all(self, key: str) -> List[str]:
        """Every value for `key`, in file order."""
        return [v for k, v in self.pairs if k == key]

    def __contains__(self, key: object) -> bool:
        return any(k == key for k, _ in self.pairs)

    def __setitem__(self, key: str, value: str) -> None:
        """Sets the first `key` to `value` (appends the pair when absent); later duplicates stay."""
        for i, (k, _v) in enumerate(self.pairs):
            if k == key:
                self.pairs[i] = (key, value)
                return
        self.pairs.append((key, value))

    def __iter__(self) -> Iterator[Tuple[str, str]]:
        """(key, value) pairs in file order."""
        return iter(self.pairs)

    def __len__(self) -> int:
        return len(self.pairs)

    def keys(self) -> List[str]:
        return [k for k, _ in self.pairs]

    def __repr__(self) -> str:
        return f"Entity({self.pairs!r})"


class Map:
    """An open map. Use bspkit.open(); close with close() or a `with` block."""

    def __init__(self, handle):
        self._m = handle

    # -- lifetime
    def close(self) -> None:
        """Close the map. Arrays taken from it stay valid; the memory goes with the last of them."""
        self._m.close()

    @property
    def closed(self) -> bool:
        return self._m.closed

    def __enter__(self) -> "Map":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- what the file is
    @property
    def format(self) -> Format:
        family, name, version, big, bits, revision, lumps = self._m.format()
        return Format(family, name, version, "big" if big else "little",
                      [n for bit, n in _VARIANT_NAMES if bits & bit], bits, revision, lumps)

    @property
    def size(self) -> int:
        """File size in bytes."""
        return self._m.size()

    @property
    def lumps(self) -> List[dict]:
        """Every lump directory entry, as in `bspkit info --json`: index, name, offset, length,
        version, uncompressed_length, compressed, records (or None), external (or None)."""
        return self._m.lumps()

    @property
    def counts(self) -> dict:
        """Record count per lower-case lump key plus "textures", as in `bspkit info --json`."""
        return self._m.counts()

    @property
    def crc(self) -> Optional[str]:
        """Source map CRC as 8 lower-case hex digits; None for other families."""
        return self._m.crc()

    @property
    def game(self) -> Optional[str]:
        """The game the map's bytes name (a Source variant, a static-prop layout only one game
        writes, Bloodlines, Daikatana, Titanfall 2), as `bspkit info`'s game line; else None."""
        return self._m.game()

    def point_contents(self, xyz: Sequence[float], hull: int = 0, model: int = 0) -> int:
        """Contents at a point (`bspkit contents`): the family's contents value (Quake/GoldSrc a
        negative CONTENTS_* number, Source/Quake 2/Quake 3 a bit set). `hull` selects a
        Quake/GoldSrc clip hull; `model` a brush model (coordinates as it stores them)."""
        x, y, z = (float(v) for v in xyz)
        return self._m.point_contents(x, y, z, hull, model)

    # -- visibility
    @property
    def vis_dimensions(self) -> Tuple[int, int]:
        """(rows, row_bytes) of the visibility data: rows are clusters (Source, Quake 2, Quake 3)
        or visible leafs (Quake, GoldSrc, where leaf i + 1 is cluster i); (0, 0) without vis data."""
        return self._m.vis_dimensions()

    def point_leaf(self, xyz: Sequence[float], model: int = 0) -> int:
        """Leaf holding a point in the hull-0 tree of `model` (0 = world), as `bspkit vis --at`."""
        x, y, z = (float(v) for v in xyz)
        return self._m.point_leaf(x, y, z, model)

    def leaf_cluster(self, leaf: int) -> Optional[int]:
        """Visibility cluster of a leaf, or None (solid leaf 0, brush-model leafs, no vis data)."""
        return self._m.leaf_cluster(leaf)

    def _row(self, data: bytes) -> np.ndarray:
        rows, _row_bytes = self._m.vis_dimensions()
        bits = np.unpackbits(np.frombuffer(data, dtype=np.uint8), bitorder="little")
        return bits[:rows].astype(bool)

    def vis_row(self, cluster: int, kind: str = "pvs") -> np.ndarray:
        """Row `cluster` of the PVS (`kind="pvs"`) or PAS (`"pas"`) as a NumPy bool array of
        `vis_dimensions[0]` entries: element c is True when cluster c is visible (audible).
        Quake, GoldSrc and Quake 3 store no PAS; it is computed as QuakeWorld's server does. A cluster
        out of range raises bspkit.Error."""
        rows, _row_bytes = self._m.vis_dimensions()
        if not 0 <= cluster < rows:
            raise Error(f"visibility cluster {cluster} out of range (the map has {rows})")
        family = self._m.format()[0]
        if family in ("quake", "goldsrc"):
            return self._row(self._m.vis_row(cluster + 1, kind, True))
        if kind == "pas" and family == "quake3":
            # Quake 3 stores no PAS: the row is computed per leaf, from any leaf of the cluster.
            leafs = np.flatnonzero(self.leafs["cluster"] == cluster)
            if len(leafs) == 0:
                return np.zeros(rows, dtype=bool)
            return self._row(self._m.vis_row(int(leafs[0]), kind, True))
        return self._row(self._m.vis_row(cluster, kind, False))

    def leaf_vis_row(self, leaf: int, kind: str = "pvs") -> np.ndarray:
        """The PVS or PAS row of leaf `leaf` (see `vis_row`); all False for a leaf without a cluster."""
        return self._row(self._m.vis_row(leaf, kind, True))

    def visible(self, a: Sequence[float], b: Sequence[float], kind: str = "pvs") -> bool:
        """Whether point `b` is in the potentially visible (`"pvs"`) or audible (`"pas"`) set of
        point `a`: the cluster of b's leaf is set in the row of a's leaf. A map without vis data
        sees everything (True); a point in a leaf without a cluster (inside a wall, outside the
        map) sees nothing and is seen by nothing (False)."""
        rows, _row_bytes = self._m.vis_dimensions()
        if rows == 0:
            return True
        leaf_a, leaf_b = self.point_leaf(a), self.point_leaf(b)
        cluster_b = self._m.leaf_cluster(leaf_b)
        if cluster_b is None or self._m.leaf_cluster(leaf_a) is None:
            return False
        return bool(self.leaf_vis_row(leaf_a, kind)[cluster_b])

    # -- export and decompile
    def export(self, path: Union[str, "os.PathLike[str]"], *, scale: Optional[float] = None,
               skip: Union[str, Iterable[str]] = (), keep: Union[str, Iterable[str]] = (),
               no_textures: bool = False, no_lightmaps: bool = False, hdr: bool = False,
               bake_lightmaps: bool = False, obj_y_up: bool = False,
               wad: Iterable[Union[str, "os.PathLike[str]"]] = ()) -> dict:
        """Export the geometry as `bspkit export` does: the format from the extension of `path`
        (.glb, .gltf, .obj); options named as the CLI's (`keep="tool,sky"` or a list of tool, sky,
        trigger, nodraw, all, none: the face kinds, all left out by default, to include again;
        `skip` the same names, left out even when `keep` names them; `wad` the WAD search paths).
        Returns the figures `bspkit export --json` prints (nodes, faces, triangles, vertices, ...)."""
        if scale is not None and not scale > 0:
            raise ValueError("scale must be a positive number")
        wads = tuple(os.fsencode(w) for w in ([wad] if isinstance(wad, (str, os.PathLike)) else wad))
        return self._m.export(path, 0, float(scale or 0.0), _skip_bits(skip, "skip"), _skip_bits(keep, "keep"),
                              no_textures, no_lightmaps, hdr, bake_lightmaps, obj_y_up, wads)

    def decompile(self, path: Union[str, "os.PathLike[str]"], format: Optional[str] = None,
                  **options: bool) -> dict:
        """Decompile to `path` as `bspkit decompile` does: a Hammer .vmf (Source) or a .map
        (`format` "vmf" or "map", as `--format`; by default the extension of `path` picks it; a
        format the map cannot be written as raises bspkit.Error).
        Options as the CLI's flags: no_props, no_overlays, no_cubemaps, no_areaportals,
        no_occluders, no_detail, no_displacements, no_brush_entities, no_clip, no_merge.
        Returns the figures `bspkit decompile --json` prints (brushes, sides, entities, ...)."""
        if format is None:  # the extension picks, as the CLI without --format
            ext = os.path.splitext(os.fsdecode(os.fspath(path)))[1].lower()
            format = {".vmf": "vmf", ".map": "map"}.get(ext, "auto")
        fmt, skip, no_merge = _decompile_options(format, options)
        stats, _text = self._m.decompile(path, fmt, skip, no_merge)
        return stats

    def decompile_text(self, format: str = "auto", **options: bool) -> str:
        """The decompiled source as text (see `decompile`); `format` "vmf", "map" or "auto"
        (VMF for Source maps, .map for the others)."""
        fmt, skip, no_merge = _decompile_options(format, options)
        _stats, text = self._m.decompile(None, fmt, skip, no_merge)
        return text.decode("utf-8", "surrogateescape")

    # -- contents
    @property
    def entities(self) -> List[Entity]:
        """The map's entities in file order (a new list each time)."""
        return [Entity(pairs, line, offset) for line, offset, pairs in self._m.entities()]

    def validate(self, lint: bool = False) -> List[Problem]:
        """Check every cross-reference and engine limit (`bspkit check`); at most the first
        1000 problems. `lint` adds the compiler-lint warnings (`bspkit check --lint`)."""
        problems, _errors, _warnings = self._m.validate(lint)
        return [Problem(sev, code, _bspkit.strerror(code), lump, lump_name, record, offset, message)
                for sev, code, lump, lump_name, record, offset, message in problems]

    def edit(self) -> Edit:
        """Start an edit; the map stays open (and alive) while the edit exists."""
        return Edit(self._m.edit(), self._m)

    def render(self, path: Optional[Union[str, "os.PathLike[str]"]] = None, *, view: str = "spawn",
               size: Tuple[int, int] = (1280, 720), camera: Optional[Sequence[float]] = None,
               supersample: int = 0, show_hidden: bool = False, no_textures: bool = False,
               no_lightmaps: bool = False):
        """A picture of the map (`bspkit render`): textures x lightmaps, sky/tool/trigger
        faces hidden unless `show_hidden`. `view` is spawn, top or iso; `camera`
        (x, y, z, pitch, yaw, fov) gives a camera view instead. With `path`, a PNG is
        written there (temporary file + rename) and the render statistics are returned;
        without, the pixels come back as a (height, width, 4) uint8 RGBA array."""
        views = {"spawn": 0, "top": 1, "iso": 2, "camera": 3}
        if camera is not None:
            view = "camera"
        if view not in views:
            raise ValueError(f"view must be one of {sorted(views)}, not {view!r}")
        cam = tuple(float(v) for v in camera) if camera is not None else (0.0,) * 6
        if len(cam) != 6:
            raise ValueError("camera is (x, y, z, pitch, yaw, fov)")
        pixels, width, height, stats = self._m.render(None if path is None else os.fspath(path), views[view],
                                                      int(size[0]), int(size[1]), int(supersample), cam,
                                                      bool(show_hidden), bool(no_textures), bool(no_lightmaps))
        if path is not None:
            return stats
        return np.frombuffer(pixels, dtype=np.uint8).reshape(height, width, 4)

    def view(self, path: Optional[Union[str, "os.PathLike[str]"]] = None, *, title: Optional[str] = None,
             no_textures: bool = False, no_lightmaps: bool = False):
        """The map as one self-contained HTML page (`bspkit view`): a WebGL viewer with
        the geometry, textures, lightmaps and entities inside. With `path` the page is
        written there (temporary file + rename) and its statistics are returned; without,
        the page comes back as bytes. Raises UnsupportedError when the library was built
        without the viewer script (see `view_available()`)."""
        html, stats = self._m.view(None if path is None else os.fspath(path), title, bool(no_textures),
                                   bool(no_lightmaps))
        return stats if path is not None else html

    @property
    def static_prop_models(self) -> List[str]:
        """The static props' model names; a prop's `prop_type` indexes this list."""
        return self._m.static_prop_models()

    def array(self, name: str) -> np.ndarray:
        """The decoded records of `name` (a key of RECORD_ARRAYS) as a read-only NumPy array
        viewing the library's memory (no copy)."""
        dtype = RECORD_ARRAYS[name]
        buf = self._m.array(name)
        return np.frombuffer(buf, dtype=dtype, count=buf.count)

    def __repr__(self) -> str:
        if self.closed:
            return "<bspkit.Map closed>"
        return f"<bspkit.Map {self.format.name}>"


_EXPORT_SKIP = {"tool": 0x1, "sky": 0x2, "trigger": 0x4, "nodraw": 0x8, "all": 0xF, "none": 0}
_DECOMPILE_SKIP = {"no_props": 0x1, "no_overlays": 0x2, "no_cubemaps": 0x4, "no_areaportals": 0x8,
                   "no_occluders": 0x10, "no_detail": 0x20, "no_displacements": 0x40,
                   "no_brush_entities": 0x80, "no_clip": 0x100}


def _skip_bits(kinds: Union[str, Iterable[str]], option: str) -> int:
    names = [n for n in kinds.split(",") if n] if isinstance(kinds, str) else list(kinds)
    bits = 0
    for n in names:
        if n not in _EXPORT_SKIP:
            raise ValueError(f"unknown {option} kind {n!r} (tool, sky, trigger, nodraw, all, none)")
        bits |= _EXPORT_SKIP[n]
    return bits


def _decompile_options(format: str, options: dict) -> Tuple[int, int, bool]:
    """(bspkit_decompile_format, BSPKIT_DECOMPILE_NO_* bits, no_merge) of a format name and options."""
    formats = {"auto": 0, "vmf": 1, "map": 2}
    if format not in formats:
        raise ValueError(f"decompile format must be 'vmf', 'map' or 'auto', not {format!r}")
    skip = 0
    no_merge = False
    for name, value in options.items():
        if name == "no_merge":
            no_merge = bool(value)
        elif name in _DECOMPILE_SKIP:
            skip |= _DECOMPILE_SKIP[name] if value else 0
        else:
            raise TypeError(f"decompile() got an unknown option {name!r}")
    return formats[format], skip, no_merge


def entity_text(entities: Iterable[Entity]) -> str:
    """Entity text as the compilers write it: one block per entity, `"key" "value"` lines.
    A key or value holding a double quote or a newline has no form in entity text: ValueError."""
    out = []
    for ent in entities:
        out.append("{\n")
        for k, v in ent.pairs:
            if any(c in k + v for c in '"\n\r'):
                raise ValueError(f"entity key/value {k!r}: {v!r} cannot be written in entity text")
            out.append(f'"{k}" "{v}"\n')
        out.append("}\n")
    return "".join(out)


class Edit:
    """Changes to an open map, written as a new file (the map itself is never modified).
    Start one with `Map.edit()`."""

    def __init__(self, handle, map_handle):
        self._e = handle
        self._m = map_handle

    def set_entities(self, entities: Union[str, bytes, Iterable[Entity]]) -> None:
        """Replace the entity lump: text (str or bytes) or entities (e.g. `Map.entities`, edited)."""
        if not isinstance(entities, (str, bytes)):
            entities = entity_text(entities)
        self._e.set_entities_text(entities.encode("utf-8", "surrogateescape") if isinstance(entities, str)
                                  else entities)

    def replace_lump(self, lump: Union[int, str], data: bytes) -> None:
        """Replace a lump's stored bytes; `lump` is its index or name ("PLANES", "planes")."""
        if isinstance(lump, str):
            index = self._m.lump_find(lump)
            if index < 0:
                raise KeyError(f"no lump named {lump!r} in this map")
            lump = index
        self._e.set_lump(lump, data)

    def pak_add(self, name: str, data: Union[bytes, bytearray, memoryview]) -> None:
        """Add `data` to the PAKFILE (Source-family maps) as `name`, replacing entries of that
        name, as `bspkit pak add` does: the name is cleaned and lower-cased; stored and LZMA
        entries are kept as they are, the others stored. ValueError for a map without PAKFILE."""
        self._e.pak_add(name, data)

    def pak_remove(self, pattern: str) -> int:
        """Remove every PAKFILE entry whose name matches the glob `pattern` (as `bspkit pak
        remove`); returns how many were removed (0 is not an error)."""
        return self._e.pak_remove(pattern)

    def to_bytes(self) -> bytes:
        """The edited map's bytes."""
        return self._e.write()

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Write the edited map to `path` (through a temporary file and a rename, as the CLI)."""
        self._e.save(path)


def _array_property(name: str) -> property:
    return property(lambda self: self.array(name),
                    doc=f"Decoded {name} as a read-only NumPy array (dtype RECORD_ARRAYS['{name}']).")


for _name in RECORD_ARRAYS:
    setattr(Map, _name, _array_property(_name))
del _name


def open(source: Union[str, bytes, bytearray, memoryview, "os.PathLike[str]"], *, max_file_size: int = 0,
         max_lump_size: int = 0, max_memory: int = 0) -> Map:
    """Open a map from a path (str or os.PathLike) or from its bytes (bytes, bytearray,
    memoryview; copied). Raises bspkit.Error when the file is not a readable map.

    The limits are the library's (0 = its default): the largest input, the largest
    decompressed lump, and the bytes the map may allocate for decoded data; going over
    one raises bspkit.LimitError."""
    limits = (int(max_file_size), int(max_lump_size), int(max_memory))
    if min(limits) < 0:
        raise ValueError("limits are byte counts, 0 or more")
    if isinstance(source, (str, os.PathLike)):
        return Map(_bspkit.open_file(source, limits))
    return Map(_bspkit.open_memory(source, limits))


#: Endings of the files a directory walk reads (a path named on its own is read whatever its name).
SCAN_SUFFIXES = (".bsp", ".bsp.bz2", ".bsp.gz", ".zip", ".pk3", ".gma", ".vpk")


def _numbered_vpk(name: str) -> bool:
    """NAME_NNN.vpk: a numbered VPK archive, read through its NAME_dir.vpk."""
    return (len(name) >= 8 and name.lower().endswith(".vpk") and name[-8] == "_"
            and name[-7:-4].isdigit() and name[-7:-4].isascii())


def _scan_records(paths: Sequence[Union[str, "os.PathLike[str]"]], threads: int) -> List[dict]:
    import json
    return [json.loads(line) for line in _bspkit.scan([os.fspath(p) for p in paths], threads)]


def view_available() -> bool:
    """Whether the library was built with the viewer script `Map.view` needs."""
    return _bspkit.view_available()


def scan_file(path: Union[str, "os.PathLike[str]"]) -> List[dict]:
    """The records of one file (a map, a compressed map, or every map inside a .zip, .pk3, .gma or
    .vpk) computed on this thread by the same C code as `scan`: the unit a distributed worker
    computes. Never raises for a bad file: an unreadable map is a record with its `error`."""
    return _scan_records([path], 1)


def scan_files(paths: Sequence[Union[str, "os.PathLike[str]"]]) -> List[dict]:
    """`scan_file` over several files in one call (records in path order): the batch a
    distributed worker computes when one task per file would cost more than the scan itself."""
    return _scan_records(list(paths), 1)


def scan_one(path: Union[str, "os.PathLike[str]"]) -> dict:
    """The record of one map file (the first record of `scan_file`)."""
    return scan_file(path)[0]


def map_files(paths: Iterable[Union[str, "os.PathLike[str]"]]) -> List[str]:
    """The files `scan` reads under `paths`: files named are taken as given; directories are
    walked (links to files followed, links to directories not) for the names in SCAN_SUFFIXES,
    numbered VPK archives (NAME_NNN.vpk) left to their directory file. Sorted byte-wise, the
    order of `scan`'s records."""
    found = []
    for p in paths:
        p = os.fspath(p)
        if not os.path.isdir(p):
            found.append(p)
            continue
        for base, _dirs, files in os.walk(p):
            for n in files:
                full = os.path.join(base, n)
                low = n.lower()
                if (low.endswith(SCAN_SUFFIXES) and not _numbered_vpk(n) and os.path.isfile(full)):
                    found.append(full)
    return sorted(found, key=os.fsencode)


def scan(paths: Iterable[Union[str, "os.PathLike[str]"]], threads: int = 0) -> Iterator[dict]:
    """One summary record per map under `paths` (files and directories: .bsp, FastDL .bsp.bz2 and
    .bsp.gz, the maps inside .zip/.pk3, Garry's Mod .gma and Source .vpk files, all read in
    memory), as `bspkit scan --jsonl` writes them, in path then member order, computed by the C
    library on `threads` threads (0: one per processor). Each record: path, member (name inside
    an archive, else None), format, name, version, game, size (the map's bytes, decompressed),
    counts, entities, crc, errors and warnings (`bspkit check`'s totals), error (why the map could
    not be read or summarised, else None), lumps, classes, textures, pakfile, sprp and ms (wall
    time, the one field that differs between runs). Never raises for a bad file."""
    return iter(_scan_records(list(paths), threads))
