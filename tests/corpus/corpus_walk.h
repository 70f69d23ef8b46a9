/* Walking the shared map corpus: every .bsp / .d3dbsp file below a root, in
 * sorted order so runs are reproducible. */
#ifndef BSPKIT_CORPUS_WALK_H
#define BSPKIT_CORPUS_WALK_H

/* Calls `visit(root, rel)` for every map file; `rel` is relative to `root`. */
void corpus_walk(const char *root, void (*visit)(const char *root, const char *rel));

#endif
