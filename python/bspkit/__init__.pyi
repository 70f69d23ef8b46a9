import os
from typing import Iterable, Sequence, Dict, Iterator, List, Optional, Tuple, Union

import numpy as np

__version__: str
RECORD_ARRAYS: Dict[str, np.dtype]

OK: int
ERR_ARGUMENT: int
ERR_IO: int
ERR_NOMEM: int
ERR_LIMIT: int
ERR_EMPTY: int
ERR_TRUNCATED: int
ERR_UNKNOWN_FORMAT: int
ERR_UNSUPPORTED: int
ERR_LUMP_RANGE: int
ERR_LUMP_SIZE: int
ERR_COMPRESSION: int
ERR_ENTITIES: int
ERR_VISIBILITY: int
ERR_TEXTURES: int
ERR_GAME_LUMP: int
ERR_INDEX: int
ERR_ENGINE_LIMIT: int
ERR_NOT_FOUND: int
ERR_INCOMPLETE: int

class Error(Exception):
    code: int
    lump: Optional[int]
    offset: Optional[int]
    lump_offset: Optional[int]

class Format:
    family: str
    name: str
    version: int
    endian: str
    variant: List[str]
    variant_bits: int
    revision: int
    lump_count: int

class Problem:
    severity: str
    code: int
    code_name: str
    lump: Optional[int]
    lump_name: Optional[str]
    record: Optional[int]
    offset: Optional[int]
    message: str

class Entity:
    pairs: List[Tuple[str, str]]
    line: int
    offset: int
    def __init__(self, pairs: List[Tuple[str, str]], line: int = ..., offset: int = ...) -> None: ...
    def __getitem__(self, key: str) -> str: ...
    def get(self, key: str, default: Optional[str] = ...) -> Optional[str]: ...
    def get_all(self, key: str) -> List[str]: ...
    def __setitem__(self, key: str, value: str) -> None: ...
    def __contains__(self, key: object) -> bool: ...
    def __iter__(self) -> Iterator[Tuple[str, str]]: ...
    def __len__(self) -> int: ...
    def keys(self) -> List[str]: ...

class Map:
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    def __enter__(self) -> Map: ...
    def __exit__(self, *exc: object) -> None: ...
    @property
    def format(self) -> Format: ...
    @property
    def size(self) -> int: ...
    @property
    def lumps(self) -> List[dict]: ...
    @property
    def counts(self) -> Dict[str, Optional[int]]: ...
    @property
    def crc(self) -> Optional[str]: ...
    def edit(self) -> Edit: ...
    @property
    def game(self) -> Optional[str]: ...
    def point_contents(self, xyz: Sequence[float], hull: int = ..., model: int = ...) -> int: ...
    @property
    def entities(self) -> List[Entity]: ...
    def validate(self, lint: bool = ...) -> List[Problem]: ...
    @property
    def vis_dimensions(self) -> Tuple[int, int]: ...
    def point_leaf(self, xyz: Sequence[float], model: int = ...) -> int: ...
    def leaf_cluster(self, leaf: int) -> Optional[int]: ...
    def vis_row(self, cluster: int, kind: str = ...) -> np.ndarray: ...
    def leaf_vis_row(self, leaf: int, kind: str = ...) -> np.ndarray: ...
    def visible(self, a: Sequence[float], b: Sequence[float], kind: str = ...) -> bool: ...
    def export(self, path: Union[str, "os.PathLike[str]"], *, scale: Optional[float] = ...,
               skip: Union[str, Iterable[str]] = ..., no_textures: bool = ..., no_lightmaps: bool = ...,
               hdr: bool = ..., bake_lightmaps: bool = ..., obj_y_up: bool = ...,
               wad: Iterable[Union[str, "os.PathLike[str]"]] = ...) -> Dict[str, int]: ...
    def decompile(self, path: Union[str, "os.PathLike[str]"], *, no_props: bool = ..., no_overlays: bool = ...,
                  no_cubemaps: bool = ..., no_areaportals: bool = ..., no_occluders: bool = ...,
                  no_detail: bool = ..., no_displacements: bool = ..., no_brush_entities: bool = ...,
                  no_clip: bool = ..., no_merge: bool = ...) -> Dict[str, int]: ...
    def decompile_text(self, format: str = ..., *, no_props: bool = ..., no_overlays: bool = ...,
                       no_cubemaps: bool = ..., no_areaportals: bool = ..., no_occluders: bool = ...,
                       no_detail: bool = ..., no_displacements: bool = ..., no_brush_entities: bool = ...,
                       no_clip: bool = ..., no_merge: bool = ...) -> str: ...
    def array(self, name: str) -> np.ndarray: ...
    planes: np.ndarray
    vertexes: np.ndarray
    edges: np.ndarray
    surfedges: np.ndarray
    faces: np.ndarray
    orig_faces: np.ndarray
    hdr_faces: np.ndarray
    nodes: np.ndarray
    leafs: np.ndarray
    models: np.ndarray
    texinfo: np.ndarray
    leaf_faces: np.ndarray
    leaf_brushes: np.ndarray
    clipnodes: np.ndarray
    brushes: np.ndarray
    brushsides: np.ndarray
    texdata: np.ndarray
    texdata_string_table: np.ndarray
    areas: np.ndarray
    areaportals: np.ndarray
    cubemaps: np.ndarray

def open(source: Union[str, bytes, bytearray, memoryview, os.PathLike[str]]) -> Map: ...

def scan_one(path: Union[str, "os.PathLike[str]"]) -> dict: ...
def map_files(paths: Iterable[Union[str, "os.PathLike[str]"]]) -> List[str]: ...
def scan(paths: Iterable[Union[str, "os.PathLike[str]"]]) -> Iterator[dict]: ...

def entity_text(entities: Iterable[Entity]) -> str: ...

class Edit:
    def set_entities(self, entities: Union[str, bytes, Iterable[Entity]]) -> None: ...
    def replace_lump(self, lump: Union[int, str], data: bytes) -> None: ...
    def pak_add(self, name: str, data: Union[bytes, bytearray, memoryview]) -> None: ...
    def pak_remove(self, pattern: str) -> int: ...
    def to_bytes(self) -> bytes: ...
    def save(self, path: Union[str, "os.PathLike[str]"]) -> None: ...
