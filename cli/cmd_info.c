/* bspkit info: format, lump directory, record counts, entity and texture
 * counts and the Source map CRC of one map. */
#include "cli.h"
#include "bspkit/textures.h"
#include "bspkit/titanfall.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>


void cmd_info_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit info MAP [--json]\n"
            "\n"
            "Show what a BSP map file is and what it holds.\n"
            "\n"
            "options:\n"
            "  --json      print one JSON object instead of text\n"
            "  -h, --help  show this help\n"
            "\n"
            "Text output: file, format family (goldsrc, quake, source, quake2, quake3, titanfall),\n"
            "format name, the game when the bytes say which (a Source variant, a static-prop layout\n"
            "only one game writes, Bloodlines, Daikatana, Titanfall 2), version, byte\n"
            "order, variant notes (Blue Shift, BSP2, 2PSB, L4D2 directory,\n"
            "LZMA lumps, BSPX, wide lumps), map revision (Source), file size, the\n"
            "non-empty lumps (index, name, offset, length, version for Source and\n"
            "Titanfall, uncompressed length when any lump is compressed, record count\n"
            "or '-', and the file it was read from when that is not the map itself),\n"
            "one record count per lump kind, the entity count (Titanfall 2: the entity\n"
            "lump's and every entity partition's .ent file's, each partition listed),\n"
            "the texture count\n"
            "(Quake/GoldSrc: miptex directory entries and how many are embedded;\n"
            "Source: texdata entries; Quake 3: shaders) and the Source map CRC.\n"
            "\n"
            "JSON output keys: file, format, name, game (only when known), version, endian (\"little\"/\"big\"),\n"
            "variant (array of strings), revision, size, lumps (every lump: index, name,\n"
            "offset, length, version, uncompressed_length, compressed, records or null,\n"
            "external: the .bsp_lump file the lump was read from, or null),\n"
            "counts (record count per lower-case lump key, plus textures), entities\n"
            "(count, or null when the entity text is malformed), entity_partitions\n"
            "(Titanfall 2 only: each partition ENTITY_PARTITIONS names, with name, file:\n"
            "the <map>_<name>.ent file looked for or null, header: its first line or null,\n"
            "read, first_entity and entities: where its entities are in the entity list;\n"
            "null when the entities could not be read), crc (Source only:\n"
            "8 lower-case hex digits).\n"
            "\n"
            "exit codes:\n"
            "  0   success\n"
            "  1   the map opened but its entities, textures or CRC could not be read;\n"
            "      everything else is still printed and the error goes to stderr\n"
            "  2   the file could not be read or is not a supported map (Raven, QFusion,\n"
            "      Respawn and zip files are recognised and named), or the output\n"
            "      could not be written\n"
            "  64  usage error\n");
}

/* Variant bits and the names shown for them, in display order. */
static const struct {
    unsigned bit;
    const char *name;
} VARIANTS[] = {
    {BSPKIT_VARIANT_BLUESHIFT, "Blue Shift"},
    {BSPKIT_VARIANT_BSP2, "BSP2"},
    {BSPKIT_VARIANT_2PSB, "2PSB"},
    {BSPKIT_VARIANT_L4D2_DIRECTORY, "L4D2 directory"},
    {BSPKIT_VARIANT_COMPRESSED, "LZMA lumps"},
    {BSPKIT_VARIANT_BSPX, "BSPX"},
    {BSPKIT_VARIANT_WIDE_LUMPS, "wide lumps"},
    {BSPKIT_VARIANT_EXTERNAL_LUMPS, "external lumps"},
    {BSPKIT_VARIANT_NO_EXTERNAL, "external lumps not read (opened from memory)"},
};
#define VARIANT_COUNT (sizeof VARIANTS / sizeof VARIANTS[0])

typedef struct lump_row {
    bspkit_lump_info info;
    bool has_records;
    uint64_t records;
    const char *external; /* the file beside the map the lump was read from, or NULL */
} lump_row;

/* Everything info prints, gathered once so both renderers agree. */
typedef struct info_data {
    const char *file;
    const bspkit_format *format;
    size_t size;
    int lump_count;
    lump_row lumps[BSPKIT_MAX_LUMPS];
    bool any_compressed;
    bspkit_record_count counts[BSPKIT_MAX_LUMPS];
    size_t count_rows;

    bool entities_ok;
    size_t entities;
    bool has_partitions; /* Titanfall 2: the entity partitions, read with the entities */
    const bspkit_r2_entity_partition *partitions;
    size_t partition_count;
    bool textures_ok;
    size_t textures;
    size_t textures_embedded;
    bool has_crc;
    bool crc_ok;
    uint32_t crc;
    const char *game; /* when the bytes say which game, else NULL */
} info_data;

static bool is_source(const info_data *d)
{
    return d->format->family == BSPKIT_FAMILY_SOURCE;
}

static bool is_quake3(const info_data *d) { return d->format->family == BSPKIT_FAMILY_QUAKE3; }
/* Families with lump versions, a map revision and textures named through texdata. */
static bool has_texdata(const info_data *d)
{
    return is_source(d) || d->format->family == BSPKIT_FAMILY_TITANFALL;
}

/* Collects the data; returns the exit status so far (0 or 1), or 2 when the
 * directory itself cannot be read. */
static int gather(bspkit_map *map, info_data *d)
{
    int status = CLI_EXIT_OK;
    bspkit_error err;

    d->format = bspkit_map_format(map);
    d->game = bspkit_map_game(map);
    bspkit_map_bytes(map, &d->size);
    d->lump_count = bspkit_lump_count(map);
    if (d->lump_count < 0 || d->lump_count > BSPKIT_MAX_LUMPS) {
        fprintf(stderr, "bspkit: %s: unexpected lump count %d\n", d->file, d->lump_count);
        return CLI_EXIT_UNREADABLE;
    }

    for (int i = 0; i < d->lump_count; i++) {
        lump_row *row = &d->lumps[i];
        bspkit_result r = bspkit_get_lump_info(map, i, &row->info);
        if (r != BSPKIT_OK) {
            fprintf(stderr, "bspkit: %s: lump %d: %s\n", d->file, i, bspkit_strerror(r));
            return CLI_EXIT_UNREADABLE;
        }
        row->has_records = bspkit_lump_record_count(map, i, &row->records) == BSPKIT_OK;
        row->external = bspkit_lump_external_path(map, i);
        if (row->info.compressed)
            d->any_compressed = true;
    }
    /* One count per key (the first lump wins), so the JSON object never holds duplicates. */
    d->count_rows = bspkit_map_record_counts(map, d->counts, BSPKIT_MAX_LUMPS);

    const bspkit_entities *ents = NULL;
    cli_warn_entities(d->file, map);
    if (bspkit_get_entities(map, &ents, &err) == BSPKIT_OK) {
        d->entities_ok = true;
        d->entities = ents->count;
        if (d->format->family == BSPKIT_FAMILY_TITANFALL) {
            if (bspkit_get_r2_entity_partitions(map, &d->partitions, &d->partition_count, &err) == BSPKIT_OK) {
                d->has_partitions = true;
            } else {
                cli_report_error(d->file, &err);
                status = CLI_EXIT_INVALID;
            }
        }
    } else {
        cli_report_error(d->file, &err);
        status = CLI_EXIT_INVALID;
    }

    if (bspkit_map_texture_count(map, &d->textures, &d->textures_embedded, &err) == BSPKIT_OK) {
        d->textures_ok = true;
    } else {
        cli_report_error(d->file, &err);
        status = CLI_EXIT_INVALID;
    }

    if (is_source(d)) {
        d->has_crc = true;
        if (bspkit_map_crc(map, &d->crc, &err) == BSPKIT_OK) {
            d->crc_ok = true;
        } else {
            cli_report_error(d->file, &err);
            status = CLI_EXIT_INVALID;
        }
    }
    return status;
}

static void print_text(const info_data *d)
{
    const bspkit_format *f = d->format;
    printf("%-10s%s\n", "file:", d->file);
    printf("%-10s%s\n", "format:", bspkit_family_name(f->family));
    printf("%-10s%s\n", "name:", f->name);
    if (d->game)
        printf("%-10s%s\n", "game:", d->game);
    printf("%-10s%" PRId32 "\n", "version:", f->version);
    printf("%-10s%s\n", "endian:", f->big_endian ? "big" : "little");
    printf("%-10s", "variant:");
    bool first = true;
    for (size_t i = 0; i < VARIANT_COUNT; i++) {
        if (f->variant & VARIANTS[i].bit) {
            printf("%s%s", first ? "" : ", ", VARIANTS[i].name);
            first = false;
        }
    }
    printf("%s\n", first ? "none" : "");
    if (has_texdata(d))
        printf("%-10s%" PRId32 "\n", "revision:", f->revision);
    printf("%-10s%zu bytes\n", "size:", d->size);

    /* Name column as wide as the longest name shown. */
    int name_width = 4;
    for (int i = 0; i < d->lump_count; i++) {
        const lump_row *row = &d->lumps[i];
        int len = (int)strlen(row->info.name ? row->info.name : "?");
        if (row->info.length > 0 && len > name_width)
            name_width = len;
    }

    printf("\nlumps (non-empty):\n");
    printf("  %5s  %-*s  %10s  %10s", "index", name_width, "name", "offset", "length");
    if (has_texdata(d))
        printf("  %7s", "version");
    if (d->any_compressed)
        printf("  %12s", "uncompressed");
    printf("  %10s\n", "records");
    for (int i = 0; i < d->lump_count; i++) {
        const lump_row *row = &d->lumps[i];
        const bspkit_lump_info *li = &row->info;
        if (li->length == 0)
            continue;
        printf("  %5d  %-*s  %10" PRIu32 "  %10" PRIu32, li->index, name_width, li->name ? li->name : "?",
               li->offset, li->length);
        if (has_texdata(d))
            printf("  %7" PRId32, li->version);
        if (d->any_compressed) {
            if (li->compressed)
                printf("  %12" PRIu32, li->uncompressed_length);
            else
                printf("  %12s", "-");
        }
        if (row->has_records)
            printf("  %10" PRIu64, row->records);
        else
            printf("  %10s", "-");
        if (row->external)
            printf("  from %s", cli_base_name(row->external));
        printf("\n");
    }

    int key_width = 8; /* "textures" */
    for (size_t k = 0; k < d->count_rows; k++) {
        int len = (int)strlen(d->counts[k].key);
        if (len > key_width)
            key_width = len;
    }
    printf("\ncounts:\n");
    for (size_t k = 0; k < d->count_rows; k++)
        printf("  %-*s  %10" PRIu64 "\n", key_width, d->counts[k].key, d->counts[k].count);

    printf("\n");
    if (d->entities_ok)
        printf("%-10s%zu\n", "entities:", d->entities);
    else
        printf("%-10s%s\n", "entities:", "error");
    for (size_t i = 0; d->has_partitions && i < d->partition_count; i++) {
        const bspkit_r2_entity_partition *p = &d->partitions[i];
        printf("  partition %-8s ", p->name);
        if (p->read)
            printf("%zu %s from %s (%s)\n", p->num_entities, cli_plural(p->num_entities, "entity", "entities"),
                   cli_base_name(p->file), p->header);
        else if (p->file)
            printf("not read: no %s\n", cli_base_name(p->file));
        else
            printf("not read: the map was opened from memory\n");
    }
    if (!d->textures_ok)
        printf("%-10s%s\n", "textures:", "error");
    else if (has_texdata(d) || is_quake3(d))
        printf("%-10s%zu\n", "textures:", d->textures);
    else
        printf("%-10s%zu (%zu embedded)\n", "textures:", d->textures, d->textures_embedded);
    if (d->has_crc) {
        if (d->crc_ok)
            printf("%-10s%08" PRIx32 "\n", "crc:", d->crc);
        else
            printf("%-10s%s\n", "crc:", "error");
    }
}

/* json_object_set_new only fails on allocation failure or invalid UTF-8
 * keys; the keys here are ASCII, so an allocation failure is the one case
 * and it is checked once at the end through the NULL it leaves behind. */
static bool set(json_t *obj, const char *key, json_t *value)
{
    return value != NULL && json_object_set_new(obj, key, value) == 0;
}

/* The entity partitions: name, file, header, read, first_entity, entities; null when not read. */
static json_t *partitions_json(const info_data *d)
{
    if (!d->has_partitions)
        return json_null();
    json_t *list = json_array();
    bool ok = list != NULL;
    for (size_t i = 0; ok && i < d->partition_count; i++) {
        const bspkit_r2_entity_partition *p = &d->partitions[i];
        json_t *o = json_object();
        ok = o != NULL && set(o, "name", cli_json_string(p->name)) &&
             set(o, "file", p->file ? cli_json_string(p->file) : json_null()) &&
             set(o, "header", p->header ? cli_json_string(p->header) : json_null()) &&
             set(o, "read", json_boolean(p->read)) &&
             set(o, "first_entity", json_integer((json_int_t)p->first_entity)) &&
             set(o, "entities", json_integer((json_int_t)p->num_entities));
        if (o != NULL && json_array_append_new(list, o) != 0)
            ok = false;
    }
    if (!ok) {
        json_decref(list);
        return NULL;
    }
    return list;
}

static json_t *build_json(const info_data *d)
{
    const bspkit_format *f = d->format;
    json_t *root = json_object();
    json_t *variant = json_array();
    json_t *lumps = json_array();
    json_t *counts = json_object();
    bool ok = root && variant && lumps && counts;

    for (size_t i = 0; ok && i < VARIANT_COUNT; i++)
        if (f->variant & VARIANTS[i].bit)
            ok = json_array_append_new(variant, json_string(VARIANTS[i].name)) == 0;

    for (int i = 0; ok && i < d->lump_count; i++) {
        const lump_row *row = &d->lumps[i];
        const bspkit_lump_info *li = &row->info;
        json_t *lump = json_object();
        ok = lump != NULL && set(lump, "index", json_integer(li->index)) &&
             set(lump, "name", li->name ? cli_json_string(li->name) : json_null()) &&
             set(lump, "offset", json_integer(li->offset)) && set(lump, "length", json_integer(li->length)) &&
             set(lump, "version", json_integer(li->version)) &&
             set(lump, "uncompressed_length",
                 json_integer(li->compressed ? li->uncompressed_length : li->length)) &&
             set(lump, "compressed", json_boolean(li->compressed)) &&
             set(lump, "records", row->has_records ? json_integer((json_int_t)row->records) : json_null()) &&
             set(lump, "external", row->external ? cli_json_string(row->external) : json_null());
        if (lump != NULL && json_array_append_new(lumps, lump) != 0)
            ok = false;
    }

    for (size_t k = 0; ok && k < d->count_rows; k++)
        ok = set(counts, d->counts[k].key, json_integer((json_int_t)d->counts[k].count));
    if (ok)
        ok = set(counts, "textures", d->textures_ok ? json_integer((json_int_t)d->textures) : json_null());

    if (ok) {
        ok = set(root, "file", cli_json_string(d->file)) &&
             set(root, "format", json_string(bspkit_family_name(f->family))) &&
             set(root, "name", cli_json_string(f->name)) &&
             (!d->game || set(root, "game", json_string(d->game))) && set(root, "version", json_integer(f->version)) &&
             set(root, "endian", json_string(f->big_endian ? "big" : "little")) &&
             set(root, "variant", json_incref(variant)) && set(root, "revision", json_integer(f->revision)) &&
             set(root, "size", json_integer((json_int_t)d->size)) && set(root, "lumps", json_incref(lumps)) &&
             set(root, "counts", json_incref(counts)) &&
             set(root, "entities", d->entities_ok ? json_integer((json_int_t)d->entities) : json_null());
    }
    if (ok && d->format->family == BSPKIT_FAMILY_TITANFALL)
        ok = set(root, "entity_partitions", partitions_json(d));
    if (ok && d->has_crc) {
        char hex[9];
        snprintf(hex, sizeof hex, "%08" PRIx32, d->crc);
        ok = set(root, "crc", d->crc_ok ? json_string(hex) : json_null());
    }

    json_decref(variant);
    json_decref(lumps);
    json_decref(counts);
    if (!ok) {
        json_decref(root);
        return NULL;
    }
    return root;
}

int cmd_info(int argc, char **argv)
{
    const char *file = NULL;
    bool json = false;
    bool options_done = false;

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!options_done && strcmp(arg, "--") == 0) {
            options_done = true;
        } else if (!options_done && strcmp(arg, "--json") == 0) {
            json = true;
        } else if (!options_done && arg[0] == '-' && arg[1] != '\0') {
            cli_usage_error("info", "unknown option '%s'", arg);
            return CLI_EXIT_USAGE;
        } else if (file == NULL) {
            file = arg;
        } else {
            cli_usage_error("info", "expects one map file, got '%s' and '%s'", file, arg);
            return CLI_EXIT_USAGE;
        }
    }
    if (file == NULL) {
        cli_usage_error("info", "missing map file");
        return CLI_EXIT_USAGE;
    }

    bspkit_map *map = NULL;
    bspkit_error err;
    if (bspkit_open_file(file, NULL, &map, &err) != BSPKIT_OK) {
        cli_report_error(file, &err);
        return CLI_EXIT_UNREADABLE;
    }

    info_data data;
    memset(&data, 0, sizeof data);
    data.file = file;
    int status = gather(map, &data);
    if (status == CLI_EXIT_UNREADABLE) {
        bspkit_close(map);
        return status;
    }

    if (json) {
        json_t *root = build_json(&data);
        if (root == NULL) {
            fprintf(stderr, "bspkit: out of memory\n");
            bspkit_close(map);
            return CLI_EXIT_UNREADABLE;
        }
        if (json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
            status = CLI_EXIT_UNREADABLE;
        else
            fputc('\n', stdout);
        json_decref(root);
    } else {
        print_text(&data);
    }
    bspkit_close(map);

    if (cli_finish_output() != 0)
        return CLI_EXIT_UNREADABLE;
    return status;
}
