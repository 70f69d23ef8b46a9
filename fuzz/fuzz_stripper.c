/* Fuzz target: Stripper:Source config parsing and application. The input is
 * a config applied to a fixed entity list; the result must serialise to text
 * the entity parser reads back with the same number of entities. */
#include "bspkit/entities_edit.h"
#include "exercise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char MAP[] = "{\n\"classname\" \"worldspawn\"\n\"wad\" \"a.wad\"\n}\n"
                          "{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 64\"\n}\n"
                          "{\n\"classname\" \"logic_relay\"\n\"targetname\" \"relay\"\n"
                          "\"OnTrigger\" \"door,Open,,0,-1\"\n\"OnTrigger\" \"door,Close,,5,-1\"\n}\n"
                          "{\n\"classname\" \"func_door\"\n\"targetname\" \"door\"\n\"model\" \"*1\"\n}\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1u << 16)
        return 0;
    bspkit_stripper *cfg = NULL;
    bspkit_error err;
    if (bspkit_stripper_parse((const char *)data, size, &cfg, &err) != BSPKIT_OK) {
        exercise_check_abort(NULL, "bspkit_stripper_parse", err.code, &err);
        return 0;
    }
    bspkit_entlist *list = NULL;
    if (bspkit_entlist_parse(MAP, sizeof MAP - 1, &list, &err) != BSPKIT_OK)
        exercise_fail("bspkit_entlist_parse", "the fixed entity list does not parse");
    bspkit_stripper_stats stats;
    bspkit_result r = bspkit_stripper_apply(cfg, list, &stats, &err);
    exercise_check_abort(NULL, "bspkit_stripper_apply", r, &err);
    if (r == BSPKIT_OK) {
        char *text = NULL;
        size_t len = 0;
        if (bspkit_entlist_serialize(list, &text, &len, &err) == BSPKIT_OK) {
            bspkit_entities *back = NULL;
            if (bspkit_entities_parse(text, len, &back, &err) != BSPKIT_OK)
                exercise_fail("bspkit_entlist_serialize", "output does not parse back");
            if (back->count != bspkit_entlist_count(list))
                exercise_fail("bspkit_entlist_serialize", "entity count changed through the text");
            bspkit_entities_free(back);
            free(text);
        }
    }
    bspkit_entlist_free(list);
    bspkit_stripper_free(cfg);
    return 0;
}
