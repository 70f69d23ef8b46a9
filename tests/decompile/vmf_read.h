/* A small VMF (KeyValues text) reader for the tests: nested named blocks
 * holding "key" "value" pairs, read into a tree. Written independently of
 * the decompiler so its output can be checked against what Hammer reads. */
#ifndef BSPKIT_TESTS_VMF_READ_H
#define BSPKIT_TESTS_VMF_READ_H

#include <stddef.h>

typedef struct vmf_pair {
    char *key, *value;
} vmf_pair;

typedef struct vmf_node {
    char *name;               /* block name ("world", "solid", ...); "" for the root */
    vmf_pair *pairs;
    size_t pair_count;
    struct vmf_node *children;
    size_t child_count;
} vmf_node;

/* Parse `text` (`size` bytes) into *root. Returns 0, or -1 with a message in err
 * (err_size bytes) naming the line. Free with vmf_free(). */
int vmf_parse(const char *text, size_t size, vmf_node *root, char *err, size_t err_size);
void vmf_free(vmf_node *root);

/* First value of `key` in node n, or NULL. */
const char *vmf_value(const vmf_node *n, const char *key);
/* Number of direct children named `name`. */
size_t vmf_count(const vmf_node *n, const char *name);
/* The i-th direct child named `name`, or NULL. */
const vmf_node *vmf_child(const vmf_node *n, const char *name, size_t i);

/* The plane of a side's "plane" "(x y z) (x y z) (x y z)" as Hammer and vbsp compute it:
 * normal = unit (p0 - p1) x (p2 - p1), dist = p0 . normal. Returns 0, or -1 when the value
 * is missing, malformed or the points are collinear. */
int vmf_side_plane(const vmf_node *side, double normal[3], double *dist);

#endif
