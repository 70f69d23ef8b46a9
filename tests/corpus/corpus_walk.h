/* Walking the shared map corpus: every .bsp / .d3dbsp file below a root, in
 * sorted order so runs are reproducible. */
#ifndef BSPKIT_CORPUS_WALK_H
#define BSPKIT_CORPUS_WALK_H

/* Calls `visit(root, rel)` for every map file; `rel` is relative to `root`. */
void corpus_walk(const char *root, void (*visit)(const char *root, const char *rel));

/* Known failures (known_failures.tsv): lines "<rel>\t<reason>" for a whole map
 * or "<rel>#<key>\t<reason>" for one check or count of it; '#' starts a
 * comment line. The list grows as needed. Returns the number of entries
 * read, -1 when the file cannot be read. */
int corpus_known_load(const char *tsv);

/* Reason for exactly "<rel>#<key>" ("<rel>" when key is NULL), else NULL. */
const char *corpus_known_find(const char *rel, const char *key);

/* Reason for "<rel>#<key>", or for a bare "<rel>" entry, else NULL. */
const char *corpus_known_reason(const char *rel, const char *key);

/* Marks the entry corpus_known_reason(rel, key) returns as accounted for. */
void corpus_known_seen(const char *rel, const char *key);

/* Calls `visit` in file order for every entry not marked seen; `key` is the
 * part after the last '#', NULL for a bare map entry. */
void corpus_known_unseen(void (*visit)(const char *entry, const char *key, const char *reason));

#endif
