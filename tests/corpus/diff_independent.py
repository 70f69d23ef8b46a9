#!/usr/bin/env python3
"""`bspkit diff` on the Source and GoldSrc maps of the corpus, checked
against entity lists read here from the files' bytes (the lump directory
read with struct, the entity text split into quoted tokens) rather than
through bspkit:

  - A against A: exit 0, "equal" true, no entity and no lump differences;
  - A against an edited copy B made with `bspkit ent --set/--delete/--add`
    (one key added and one changed on a named entity, one entity deleted,
    one added): exit 1, and the JSON lists exactly those edits and only the
    ENTITIES lump as changed;
  - for both that copy and the next map of the same family as B: the config
    `bspkit diff A B --stripper` writes, applied with `bspkit ent A
    --stripper`, gives a map whose entities (read here) equal B's as a
    multiset, each entity compared key by key with the values of a repeated
    key in order (the equality bspkit/diff.h states).

Usage: diff_independent.py BSPKIT MAPS_DIR   (skips, saying so, when MAPS_DIR is absent)
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

import independent
from independent import fail

FAMILIES = {"goldsrc30": "goldsrc", "vbsp17": "source", "vbsp19": "source", "vbsp20": "source",
            "vbsp21": "source", "vbsp25": "source", "vbsp42": "source"}
SAFE = re.compile(rb"^[A-Za-z0-9_.\-]+$")
SAFE_ORIGIN = re.compile(rb"^[0-9 .\-]+$")


def entity_text(path):
    """The entity lump's text up to its NUL, or None when it is not plain text here."""
    data = open(path, "rb").read()
    candidates = []
    if data[:4] == b"VBSP":
        ofs, length = struct.unpack_from("<ii", data, 8)
        candidates.append((ofs, length))
        candidates.append(struct.unpack_from("<ii", data, 12))  # Left 4 Dead 2: version first
    elif struct.unpack_from("<i", data, 0)[0] == 30:
        for lump in (0, 1):  # Blue Shift swaps the first two lumps
            candidates.append(struct.unpack_from("<ii", data, 4 + 8 * lump))
    for ofs, length in candidates:
        if ofs < 0 or length <= 0 or ofs + length > len(data):
            continue
        text = data[ofs:ofs + length].split(b"\0", 1)[0]
        if text.lstrip()[:1] == b"{":
            return text
    return None


def parse_entities(text):
    """Entities as lists of (key, value) bytes; quoted tokens only."""
    ents, cur, pending, i = [], None, None, 0
    while i < len(text):
        c = text[i:i + 1]
        if c in b" \t\r\n":
            i += 1
        elif c == b"{":
            cur, pending = [], None
            i += 1
        elif c == b"}":
            ents.append(cur)
            cur = None
            i += 1
        elif c == b'"':
            j = text.index(b'"', i + 1)
            tok = text[i + 1:j]
            i = j + 1
            if pending is None:
                pending = tok
            else:
                cur.append((pending, tok))
                pending = None
        else:
            raise ValueError(f"unquoted token at byte {i}")
    return ents


def canonical(ent):
    """Pairs stably sorted by ASCII-lower-case key: equal entities read the same."""
    return tuple(sorted(ent, key=lambda kv: kv[0].lower()))


def same_multiset(x, y):
    return sorted(map(canonical, x)) == sorted(map(canonical, y))


def run(bspkit, *args):
    return subprocess.run([bspkit, *args], capture_output=True)


def value(ent, key):
    for k, v in ent:
        if k.lower() == key:
            return v
    return None


def pick_edits(ents):
    """(T, K, D, selector of T, selector of D): an entity to edit, a key of it to change (or None), an
    entity to delete; each found by a unique targetname, else by a unique classname and origin. None
    when the map has no two such entities."""
    names, origins = {}, {}
    for i, e in enumerate(ents):
        n, cls, org = value(e, b"targetname"), value(e, b"classname"), value(e, b"origin")
        if n is not None:
            names.setdefault(n.lower(), []).append(i)
        if cls is not None and org is not None:
            origins.setdefault((cls.lower(), org), []).append(i)
    found = {}
    for n, ix in names.items():
        if len(ix) == 1 and SAFE.match(n):
            found.setdefault(ix[0], "targetname=" + value(ents[ix[0]], b"targetname").decode())
    for (cls, org), ix in origins.items():
        if len(ix) == 1 and SAFE.match(cls) and SAFE_ORIGIN.match(org) and ix[0] not in found:
            found[ix[0]] = f"classname={cls.decode()},origin={org.decode()}"
    cands = sorted(i for i in found if value(ents[i], b"classname") not in (None, b"worldspawn"))
    if len(cands) < 2:
        return None
    t, d = cands[0], cands[1]
    counts = {}
    for k, _ in ents[t]:
        counts[k.lower()] = counts.get(k.lower(), 0) + 1
    k = next((k for k, v in ents[t] if counts[k.lower()] == 1 and SAFE.match(k)
              and k.lower() not in (b"classname", b"targetname", b"hammerid", b"origin")), None)
    return t, k, d, found[t], found[d]


def check_stripper(bspkit, rel, a, b, b_ents, tmp, label):
    cfg, out = os.path.join(tmp, "diff.cfg"), os.path.join(tmp, "applied.bsp")
    r = run(bspkit, "diff", a, b, "--stripper", "-o", cfg)
    if r.returncode != 1:
        fail(rel, f"{label}: diff --stripper exit {r.returncode}: {r.stderr.decode(errors='replace')}")
        return False
    r = run(bspkit, "ent", a, "--stripper", cfg, "-o", out)
    if r.returncode != 0:
        fail(rel, f"{label}: ent --stripper exit {r.returncode}: {r.stderr.decode(errors='replace')}")
        return False
    got = parse_entities(entity_text(out))
    if not same_multiset(got, b_ents):
        fail(rel, f"{label}: the config gives {len(got)} entities, not B's {len(b_ents)}")
        return False
    return True


def check_edits(bspkit, rel, path, ents, tmp):
    picked = pick_edits(ents)
    if picked is None:
        return None
    t, k, d, tsel, dsel = picked
    add = os.path.join(tmp, "add.ent")
    with open(add, "w") as f:
        f.write('{\n"classname" "info_bspkit_diff"\n"targetname" "bspkit_diff_added"\n"origin" "1 2 3"\n}\n')
    edited = os.path.join(tmp, "edited.bsp")
    args = ["ent", path, "--set", tsel, "bspkit_diff_key=added"]
    if k is not None:
        args += ["--set", tsel, f"{k.decode()}=bspkit_changed"]
    args += ["--delete", dsel, "--add", add, "-o", edited]
    r = run(bspkit, *args)
    if r.returncode != 0:
        fail(rel, f"ent edits exit {r.returncode}: {r.stderr.decode(errors='replace')}")
        return False
    b_ents = parse_entities(entity_text(edited))
    # What the edits must have done, stated here from the edits themselves.
    want_b = [list(e) for e in ents]
    want_b[t] = want_b[t] + [(b"bspkit_diff_key", b"added")]
    if k is not None:
        want_b[t] = [(kk, b"bspkit_changed" if kk == k else vv) for kk, vv in want_b[t]]
    del want_b[d]
    want_b.append([(b"classname", b"info_bspkit_diff"), (b"targetname", b"bspkit_diff_added"), (b"origin", b"1 2 3")])
    if b_ents != want_b:
        fail(rel, "the edited map's entities are not the edits made (bspkit ent)")
        return False
    r = run(bspkit, "diff", path, edited, "--json")
    if r.returncode != 1:
        fail(rel, f"diff A B: exit {r.returncode}, expected 1")
        return False
    j = json.loads(r.stdout)
    e = j["entities"]
    tb = t - (1 if d < t else 0)
    want_keys = [("added", "bspkit_diff_key", None, "added")]
    if k is not None:
        want_keys.append(("changed", k.decode(), value(ents[t], k.lower()).decode("latin-1"), "bspkit_changed"))
    want_keys.sort(key=lambda x: x[1].lower())
    want = sorted([("removed", d, None, ()), ("changed", t, tb, tuple(want_keys)),
                   ("added", None, len(b_ents) - 1, ())], key=lambda x: (x[0] == "added", x[1] or 0))
    got = [(x["kind"], x["index_a"], x["index_b"],
            tuple((c["kind"], c["key"], c["old"], c["new"]) for c in x.get("keys", [])))
           for x in e["diffs"]]
    if got != want or (e["count_a"], e["count_b"]) != (len(ents), len(b_ents)):
        fail(rel, f"diff lists {got}, the edits were {want}")
        return False
    changed = [x["name"] for x in j["lumps"]["list"] if x["changed"]]
    if not j["lumps"]["compared"] or changed != ["ENTITIES"]:
        fail(rel, f"changed lumps {changed}, expected only ENTITIES")
        return False
    return check_stripper(bspkit, rel, path, edited, b_ents, tmp, "edited copy")


def main():
    bspkit, maps = sys.argv[1], sys.argv[2]
    rows = independent.manifest_rows(maps)
    if rows is None:
        return 0
    by_family = {}
    for f in rows:
        if len(f) > 5 and f[5] in FAMILIES:
            by_family.setdefault(FAMILIES[f[5]], []).append(f[0])
    counts = {"same": 0, "edits": 0, "cross": 0, "no_edit": 0, "not_text": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for fam, rels in sorted(by_family.items()):
            rels.sort()
            usable = []
            for rel in rels:
                path = os.path.join(maps, rel)
                text = entity_text(path)
                if text is None:
                    counts["not_text"] += 1  # LZMA-compressed entity lump: read through bspkit only
                    continue
                ents = parse_entities(text)
                r = run(bspkit, "diff", path, path, "--json")
                j = json.loads(r.stdout) if r.stdout else None
                if r.returncode != 0 or not j or not j["equal"] or j["entities"]["diffs"] or j["lumps"]["changed"]:
                    fail(rel, f"A against A: exit {r.returncode}")
                    continue
                if j["entities"]["count_a"] != len(ents):
                    fail(rel, f"{j['entities']['count_a']} entities, {len(ents)} read here")
                counts["same"] += 1
                usable.append((rel, path, ents))
                res = check_edits(bspkit, rel, path, ents, tmp)
                if res is None:
                    counts["no_edit"] += 1
                elif res:
                    counts["edits"] += 1
            for (rel, path, ents), (_, nxt, nents) in zip(usable, usable[1:]):
                if check_stripper(bspkit, rel, path, nxt, nents, tmp, f"to {os.path.basename(nxt)}"):
                    counts["cross"] += 1
    print(f"{counts['same']} maps equal to themselves, {counts['edits']} edited copies listed exactly and "
          f"rebuilt by their Stripper config, {counts['cross']} maps turned into the next one by a config; "
          f"{counts['no_edit']} without two entities to edit, {counts['not_text']} with compressed entity text; "
          f"{independent.failures} failures")
    if counts["edits"] < 10 or counts["cross"] < 20:
        fail("corpus", "fewer maps checked than the corpus holds")
    return 1 if independent.failures else 0


if __name__ == "__main__":
    sys.exit(main())
