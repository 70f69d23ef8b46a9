#!/usr/bin/env python3
"""Which room of the source tree may use which.

Rooms, lowest first (the README's "Source layout" shows the same table):

  core            bytes, errors, allocation, open/mmap, detection and
                  directory through the family registry, LZMA, CRC, entity
                  text, record schemas, dump-table machinery, atomic save
  formats/<fam>   one family each (quake, quake2, quake3, source, titanfall): layouts, decoders, tables
  formats         the registry listing the families
  analysis        validation, limits, lightmap geometry, visibility, queries,
                  displacement meshes, dump lookup
  entities        entity list editing, selectors, Stripper configs
  media           images, WAD, miptex, VTF, texture resolution, lightmap atlas
  write           builder, encoders, edits and saved-map layout
  export          glTF and OBJ
  render          software rasterizer over the export's meshes
  view            the self-contained HTML viewer page (export's GLB, the
                  render's spawn eye, the embedded viewer script)
  decompile       VMF and Valve 220 .map
  ops             for server operators and map archives: scanning
                  directories and containers, FastDL trees, map comparison
                  (diff) and Stripper configs from it, where a map's bytes go
                  (size), the files a map needs (deps)
  cli             the tool: public headers (include/bspkit) only

A room may use itself, the public headers and the rooms listed for it below;
a family never uses another family. Two checks:
  - every #include "room/..." in src/ and cli/ (always);
  - every symbol an object file takes from another room's object file
    (when the objects are given), so calls cannot go around the includes.
The core's one outward link is the registry (core/family.h declares it,
formats/registry.c defines it): that is how families plug in.

    check_layers.py REPO_ROOT [OBJECT_FILES, comma-separated]
"""
import glob
import os
import re
import subprocess
import sys

ALLOWED = {
    'core': set(),
    'formats/quake': {'core'},
    'formats/quake2': {'core'},
    'formats/quake3': {'core'},
    'formats/source': {'core'},
    'formats/titanfall': {'core'},
    'formats': {'core', 'formats/quake', 'formats/quake2', 'formats/quake3', 'formats/source', 'formats/titanfall'},
    'analysis': {'core', 'formats', 'formats/quake', 'formats/quake2', 'formats/quake3', 'formats/source', 'formats/titanfall'},
    'entities': {'core'},
    'media': {'core', 'formats', 'formats/quake', 'formats/quake2', 'formats/quake3', 'formats/source', 'formats/titanfall', 'analysis'},
    'write': {'core', 'formats', 'formats/quake', 'formats/quake2', 'formats/quake3', 'formats/source', 'formats/titanfall', 'entities'},
    'export': {'core', 'formats', 'formats/quake', 'formats/quake2', 'formats/quake3', 'formats/source', 'formats/titanfall', 'analysis', 'entities', 'media'},
    'render': {'core', 'formats', 'formats/quake', 'formats/quake2', 'formats/quake3', 'formats/source', 'formats/titanfall', 'analysis', 'entities', 'media', 'export'},
    'view': {'core', 'formats', 'analysis', 'entities', 'media', 'export', 'render'},
    'decompile': {'core', 'formats', 'formats/quake', 'formats/quake2', 'formats/quake3', 'formats/source', 'formats/titanfall', 'analysis', 'entities'},
    'ops': {'core', 'formats', 'formats/quake', 'formats/quake2', 'formats/quake3', 'formats/source', 'formats/titanfall', 'analysis', 'entities', 'media', 'write'},
    'cli': set(),
}
# Symbols the core may take from above it: the family registry.
REGISTRY = {'bk_families', 'bk_family_count', 'bk_family_of'}


def room_of(path):
    """Room of a path relative to the repository ('src/formats/quake/x.c' -> 'formats/quake')."""
    parts = path.split('/')
    if parts[0] == 'cli':
        return 'cli'
    if parts[0] != 'src' or len(parts) < 3:
        return None
    if parts[1] == 'formats' and len(parts) > 3:
        return 'formats/' + parts[2]
    return parts[1]


def room_of_include(inc):
    parts = inc.split('/')
    if parts[0] == 'bspkit':
        return 'public'
    if len(parts) < 2:
        return None  # a header beside the file
    if parts[0] == 'formats' and len(parts) > 2:
        return 'formats/' + parts[1]
    return parts[0]


def check_includes(root):
    problems = []
    files = glob.glob(os.path.join(root, 'src', '**', '*.[ch]'), recursive=True)
    files += glob.glob(os.path.join(root, 'cli', '*.[ch]'))
    for path in sorted(files):
        rel = os.path.relpath(path, root)
        room = room_of(rel)
        if room is None:
            problems.append(f'{rel}: not in any room')
            continue
        if room not in ALLOWED:
            problems.append(f'{rel}: room {room} has no rule')
            continue
        with open(path) as f:
            for n, line in enumerate(f, 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                inc = m.group(1)
                if '..' in inc.split('/'):
                    problems.append(f'{rel}:{n}: includes "{inc}" by a relative path')
                    continue
                target = room_of_include(inc)
                if target in (None, 'public', room):
                    continue
                if target not in ALLOWED[room]:
                    problems.append(f'{rel}:{n}: room {room} may not include "{inc}" (room {target})')
    return len(files), problems


def check_links(objects):
    defined, undefined = {}, {}
    for obj in objects:
        rel = obj.split('/src/', 1)[-1]
        room = room_of('src/' + rel)
        out = subprocess.run(['nm', obj], check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in 'TDRBC':
                defined[f[2]] = room
            elif len(f) == 2 and f[0] == 'U':
                undefined.setdefault((rel, room), []).append(f[1])
    problems = []
    for (rel, room), syms in sorted(undefined.items()):
        for sym in syms:
            target = defined.get(sym)
            if target is None or target == room:
                continue
            if room == 'core' and sym in REGISTRY:
                continue
            if target not in ALLOWED.get(room, set()):
                problems.append(f'{rel}: room {room} uses {sym} from room {target}')
    return problems


def main():
    root = sys.argv[1]
    files, problems = check_includes(root)
    objects = [o for o in sys.argv[2].split(',') if o] if len(sys.argv) > 2 else []
    if objects:
        problems += check_links(objects)
    for p in problems:
        print('FAIL', p)
    print(f'{files} source files, {len(objects)} object files checked, {len(problems)} problems')
    return 1 if problems or files == 0 else 0


if __name__ == '__main__':
    sys.exit(main())
