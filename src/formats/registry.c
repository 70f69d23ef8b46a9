/* The map families bspkit reads, in the order detection asks them. Adding a
 * family is its own folder under src/formats/ and one line here. */
#include "core/family.h"

extern const bk_family_ops bk_source_family; /* formats/source: VBSP, PSBV */
extern const bk_family_ops bk_quake_family;  /* formats/quake: BSP29, BSP2, 2PSB, BSP30 */
extern const bk_family_ops bk_quake2_family; /* formats/quake2: IBSP 38, Daikatana IBSP 41 */
extern const bk_family_ops bk_quake3_family; /* formats/quake3: IBSP 46, 47 */
extern const bk_family_ops bk_titanfall_family; /* formats/titanfall: rBSP 37 (Titanfall 2) */

const bk_family_ops *const bk_families[] = {
    &bk_source_family,
    &bk_quake_family,
    &bk_quake2_family,
    &bk_quake3_family,
    &bk_titanfall_family,
};
const size_t bk_family_count = sizeof bk_families / sizeof bk_families[0];

const bk_family_ops *bk_family_of(bspkit_family family)
{
    for (size_t i = 0; i < bk_family_count; i++)
        if (bk_families[i]->reads(family))
            return bk_families[i];
    return NULL;
}
