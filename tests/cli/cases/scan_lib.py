#!/usr/bin/env python3
"""Shared code of the scan and fastdl scenarios (not a scenario itself).

The containers are written here from the published layouts, not with
bspkit: Garry's Mod .gma (gmad's AddonReader/AddonWriter) and Source .vpk
version 2 (Valve's developer wiki: header, extension/path/name tree, 18-byte
entries with preload bytes, data in the directory file (archive 0x7fff) or
in NAME_NNN.vpk). bzip2, gzip and zip files come from Debian's tools.

    scan_lib.py gma OUT.gma NAME=FILE...          files stored under NAME
    scan_lib.py vpk OUT_dir.vpk NAME=FILE[@A]...  @A: in archive A (NAME_00A.vpk) with
                                                  64 preload bytes, else in the directory file
    scan_lib.py same PLAIN.jsonl OTHER.jsonl     each record of OTHER (in order) equals the one
                                                  of PLAIN with the same file name, apart from
                                                  path, member and ms
    scan_lib.py strip FILE.jsonl                 the records without ms, one per line
"""
import json
import os
import struct
import sys
import zlib


def write_gma(out, files):
    body = b'GMAD' + bytes([3]) + struct.pack('<QQ', 76561197960287930, 1700000000)
    body += b'\0'                              # required content: empty list
    body += b'scan test\0' + b'{"description":"maps"}\0' + b'bspkit\0' + struct.pack('<i', 1)
    data = b''
    for i, (name, blob) in enumerate(files, 1):
        body += struct.pack('<I', i) + name.encode() + b'\0' + struct.pack('<qI', len(blob), zlib.crc32(blob))
        data += blob
    body += struct.pack('<I', 0) + data
    body += struct.pack('<I', zlib.crc32(body))
    with open(out, 'wb') as f:
        f.write(body)


def write_vpk(out, files):
    """files: (name, blob, archive or None)."""
    assert out.endswith('_dir.vpk')
    by_ext = {}
    for name, blob, arc in files:
        d, base = os.path.split(name)
        stem, ext = os.path.splitext(base)
        by_ext.setdefault(ext[1:] or ' ', {}).setdefault(d or ' ', []).append((stem, blob, arc))
    tree = b''
    embedded = b''
    archives = {}
    for ext, dirs in by_ext.items():
        tree += ext.encode() + b'\0'
        for d, names in dirs.items():
            tree += d.encode() + b'\0'
            for stem, blob, arc in names:
                tree += stem.encode() + b'\0'
                crc = zlib.crc32(blob)
                if arc is None:
                    entry = struct.pack('<IHHIIH', crc, 0, 0x7fff, len(embedded), len(blob), 0xffff)
                    embedded += blob
                    tree += entry
                else:
                    pre, rest = blob[:64], blob[64:]
                    cur = archives.setdefault(arc, b'')
                    entry = struct.pack('<IHHIIH', crc, len(pre), arc, len(cur), len(rest), 0xffff)
                    archives[arc] = cur + rest
                    tree += entry + pre
            tree += b'\0'
        tree += b'\0'
    tree += b'\0'
    header = struct.pack('<IIIIIII', 0x55aa1234, 2, len(tree), len(embedded), 0, 0, 0)
    with open(out, 'wb') as f:
        f.write(header + tree + embedded)
    prefix = out[:-len('_dir.vpk')]
    for arc, blob in archives.items():
        with open('%s_%03d.vpk' % (prefix, arc), 'wb') as f:
            f.write(blob)


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def same(plain_path, other_path):
    plain = {os.path.basename(r['path']): r for r in load(plain_path)}
    other = load(other_path)
    if not other:
        print('no records in', other_path)
        return 1
    bad = 0
    for r in other:
        key = os.path.basename(r['member'] or r['path'])
        for suffix in ('.bz2', '.gz'):
            if key.endswith(suffix):
                key = key[:-len(suffix)]
        ref = dict(plain[key])
        got = dict(r)
        for k in ('path', 'member', 'ms'):
            ref.pop(k)
            got.pop(k)
        if ref != got:
            bad += 1
            print('differs:', r['path'], r['member'])
            for k in ref:
                if ref[k] != got.get(k):
                    print('  %s: %r != %r' % (k, got.get(k), ref[k]))
    return 1 if bad else 0


def main():
    cmd = sys.argv[1]
    if cmd == 'gma':
        files = []
        for arg in sys.argv[3:]:
            name, path = arg.split('=', 1)
            files.append((name, open(path, 'rb').read()))
        write_gma(sys.argv[2], files)
    elif cmd == 'vpk':
        files = []
        for arg in sys.argv[3:]:
            name, path = arg.split('=', 1)
            arc = None
            if '@' in path:
                path, a = path.rsplit('@', 1)
                arc = int(a)
            files.append((name, open(path, 'rb').read(), arc))
        write_vpk(sys.argv[2], files)
    elif cmd == 'same':
        return same(sys.argv[2], sys.argv[3])
    elif cmd == 'strip':
        for r in load(sys.argv[2]):
            r.pop('ms')
            print(json.dumps(r, sort_keys=True))
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
