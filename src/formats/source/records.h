/* Source VBSP record layouts, each declared once in records.c as a schema
 * (core/schema.h), and the choice of layout for a lump. Field names follow
 * Valve's bspfile.h. */
#ifndef BSPKIT_FORMATS_SOURCE_RECORDS_H
#define BSPKIT_FORMATS_SOURCE_RECORDS_H

#include "core/schema.h"

/* The schema of `lump` in a Source file of header `version` and `variant`
 * (BSPKIT_VARIANT_* bits) whose directory gives the lump `lump_version`;
 * NULL for lumps that are not one array of fixed records decoded by the
 * core reader. The layout follows the BSP version, the lump's own version
 * (LEAFS; Strata's 32-bit lumps in v25) and, for brush sides, the Left 4
 * Dead 2 directory variant. */
const bk_schema *bk_source_schema(int32_t version, uint32_t variant, int lump, int32_t lump_version);

#endif
