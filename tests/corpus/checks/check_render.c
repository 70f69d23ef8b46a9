/*
 * Rendering over every supported map of the corpus: each renders an iso view
 * (160 x 90, one sample a pixel) without error, and every family has at
 * least one map whose picture is not all background. Maps that come out
 * blank are listed (a map of tool faces only is blank by design). Maps with
 * a player spawn also render the spawn view (96 x 54); those without one
 * must say so with BSPKIT_ERR_NOT_FOUND.
 * Usage: corpus_check_render MAPS_DIR
 */
#include "bspkit/render.h"
#include "corpus_walk.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FAMILIES 16

static int failures, maps;
static int family_maps[FAMILIES], family_drawn[FAMILIES], family_spawn[FAMILIES], family_spawn_drawn[FAMILIES];
static const char *family_names[FAMILIES];

static size_t covered(const bspkit_image *img)
{
    size_t drawn = 0;
    for (size_t i = 0; i < (size_t)img->width * img->height; i++) {
        const uint8_t *p = img->rgba + i * 4;
        drawn += !(p[0] == 32 && p[1] == 32 && p[2] == 40);
    }
    return drawn;
}

static void spawn_view(const char *rel, bspkit_map *map, int fam)
{
    bspkit_render_options o = {.view = BSPKIT_RENDER_SPAWN, .width = 96, .height = 54, .supersample = 1};
    bspkit_image img;
    bspkit_error err;
    bspkit_result r = bspkit_render(map, &o, &img, NULL, &err);
    if (r == BSPKIT_ERR_NOT_FOUND)
        return;
    if (r != BSPKIT_OK) {
        printf("FAIL %s: spawn view: %s\n", rel, err.message);
        failures++;
        return;
    }
    family_spawn[fam]++;
    family_spawn_drawn[fam] += covered(&img) > 0;
    bspkit_image_free(&img);
}

static void visit(const char *root, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    bspkit_map *map;
    bspkit_error err;
    if (bspkit_open_file(path, NULL, &map, &err) != BSPKIT_OK) {
        if (err.code != BSPKIT_ERR_UNSUPPORTED) {
            printf("FAIL %s: open: %s\n", rel, err.message);
            failures++;
        }
        return;
    }
    maps++;
    int fam = (int)bspkit_map_format(map)->family;
    if (fam < 0 || fam >= FAMILIES)
        fam = 0;
    family_names[fam] = bspkit_family_name(bspkit_map_format(map)->family);
    family_maps[fam]++;
    bspkit_render_options o = {.view = BSPKIT_RENDER_ISO, .width = 160, .height = 90, .supersample = 1};
    bspkit_image img;
    if (bspkit_render(map, &o, &img, NULL, &err) != BSPKIT_OK) {
        printf("FAIL %s: render: %s\n", rel, err.message);
        failures++;
        bspkit_close(map);
        return;
    }
    if (covered(&img) > 0)
        family_drawn[fam]++;
    else
        printf("blank: %s\n", rel);
    bspkit_image_free(&img);
    spawn_view(rel, map, fam);
    bspkit_close(map);
}

int main(int argc, char **argv)
{
    const char *root = argc > 1 ? argv[1] : "../shared/maps";
    struct stat sb;
    if (stat(root, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        printf("skipped: %s not present\n", root);
        return 0;
    }
    corpus_walk(root, visit);
    for (int f = 0; f < FAMILIES; f++) {
        if (!family_maps[f])
            continue;
        printf("render: %-10s %d of %d maps drawn non-blank; spawn view: %d maps, %d non-blank\n", family_names[f],
               family_drawn[f], family_maps[f], family_spawn[f], family_spawn_drawn[f]);
        if (!family_drawn[f]) {
            printf("FAIL: no %s map renders a non-blank picture\n", family_names[f]);
            failures++;
        }
    }
    printf("render: %d maps rendered, %d failures\n", maps, failures);
    return failures ? 1 : 0;
}
