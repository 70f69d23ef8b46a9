/* Which brush model each brush belongs to, for the decompilers that write
 * brushes from the brush lumps (Source VMF, Quake 2 .map). */
#include "decompile_internal.h"

#include "core/map.h"

#include <stdlib.h>

bspkit_result bk_decompile_brush_owners(bspkit_map *map, size_t nbrushes, int32_t *owner, bspkit_error *err)
{
    const bspkit_node *nodes;
    const bspkit_leaf *leafs;
    const uint32_t *lb;
    const bspkit_model *models;
    size_t nn, nl, nlb, nm;
    bspkit_result r;
    if ((r = bspkit_get_nodes(map, &nodes, &nn, err)) != BSPKIT_OK ||
        (r = bspkit_get_leafs(map, &leafs, &nl, err)) != BSPKIT_OK ||
        (r = bspkit_get_leaf_brushes(map, &lb, &nlb, err)) != BSPKIT_OK ||
        (r = bspkit_get_models(map, &models, &nm, err)) != BSPKIT_OK)
        return r;
    for (size_t b = 0; b < nbrushes; b++)
        owner[b] = -1;
    uint32_t *stamp = calloc(nn + 1, sizeof *stamp);
    int32_t *stack = malloc((nn + 1) * sizeof *stack);
    if (!stamp || !stack) {
        free(stamp), free(stack);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "decompile: out of memory");
    }
    for (size_t m = 0; m < nm && m < UINT32_MAX - 1; m++) {
        int32_t head = models[m].headnode[0];
        size_t top = 0;
        if (head >= 0 && (size_t)head < nn) {
            stack[top++] = head;
            stamp[head] = (uint32_t)m + 1;
        }
        while (top > 0) {
            const bspkit_node *nd = &nodes[stack[--top]];
            for (int k = 0; k < 2; k++) {
                int32_t ch = nd->children[k];
                if (ch >= 0) {
                    if ((size_t)ch < nn && stamp[ch] != (uint32_t)m + 1 && top <= nn) {
                        stamp[ch] = (uint32_t)m + 1;
                        stack[top++] = ch;
                    }
                    continue;
                }
                size_t li = (size_t)(-(int64_t)ch - 1);
                if (li >= nl || !range_ok(leafs[li].first_leaf_brush, leafs[li].num_leaf_brushes, nlb))
                    continue;
                for (uint32_t q = 0; q < leafs[li].num_leaf_brushes; q++) {
                    uint32_t b = lb[leafs[li].first_leaf_brush + q];
                    if (b < nbrushes && owner[b] < 0)
                        owner[b] = (int32_t)m;
                }
            }
        }
    }
    free(stamp);
    free(stack);
    return BSPKIT_OK;
}
