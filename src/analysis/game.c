/* Which game a map is from, where its bytes say so: a variant the format
 * detection recognised, or a static-prop layout only one game writes. */
#include "bspkit/props.h"
#include "core/map.h"

#include <string.h>

/* Static-prop layouts (props.c names them) that belong to one game. */
static const struct {
    const char *layout_prefix;
    const char *game;
} PROP_GAMES[] = {
    {"v7-zeno-clash", "Zeno Clash"},
    {"v5-the-ship", "The Ship"},
    {"v6-bgt", "Bloody Good Time"},
    {"v11-blackmesa", "Black Mesa"},
    {"v9-dear-esther", "Dear Esther"},
};

static const struct {
    unsigned variant;
    const char *game;
} VARIANT_GAMES[] = {
    {BSPKIT_VARIANT_DARK_MESSIAH, "Dark Messiah of Might and Magic"},
    {BSPKIT_VARIANT_VINDICTUS, "Vindictus"},
    {BSPKIT_VARIANT_XOR_ENCRYPTED, "Tactical Intervention"},
    {BSPKIT_VARIANT_CONTAGION, "Contagion"},
    {BSPKIT_VARIANT_DOTA2_BETA, "Dota 2 (beta)"},
    {BSPKIT_VARIANT_V18_FACES, "Half-Life 2 (beta)"},
};

const char *bspkit_map_game(bspkit_map *map)
{
    if (!map)
        return NULL;
    const bspkit_format *f = &map->format;
    if (f->family == BSPKIT_FAMILY_QUAKE2)
        return f->version == 41 ? "Daikatana" : NULL;
    if (f->family == BSPKIT_FAMILY_TITANFALL)
        return "Titanfall 2";
    if (f->family != BSPKIT_FAMILY_SOURCE)
        return NULL;
    for (size_t i = 0; i < sizeof VARIANT_GAMES / sizeof VARIANT_GAMES[0]; i++)
        if (f->variant & VARIANT_GAMES[i].variant)
            return VARIANT_GAMES[i].game;
    if (f->version == 17)
        return "Vampire: The Masquerade - Bloodlines";
    const bspkit_static_props *sp;
    bspkit_error err;
    if (bspkit_get_static_props(map, &sp, &err) != BSPKIT_OK || !sp->present || !sp->layout_known)
        return NULL;
    for (size_t i = 0; i < sizeof PROP_GAMES / sizeof PROP_GAMES[0]; i++)
        if (strncmp(sp->layout, PROP_GAMES[i].layout_prefix, strlen(PROP_GAMES[i].layout_prefix)) == 0)
            return PROP_GAMES[i].game;
    return NULL;
}
