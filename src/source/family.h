/* What the Source family offers the rest of its folder beyond its
 * bk_family_ops (core/family.h). */
#ifndef BSPKIT_SOURCE_FAMILY_H
#define BSPKIT_SOURCE_FAMILY_H

#include <stdint.h>

/* Directory name of Source lump `index` in a file of header `version`
 * (v21+ reuses slots 22-25 and 49), or "lump" when out of range. */
const char *bk_source_lump_name(int32_t version, int index);

#endif
