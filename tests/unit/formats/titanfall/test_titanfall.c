/* Titanfall 2 (rBSP 37): a small map written byte by byte here from the
 * layouts bsp_tool documents (branches/respawn/titanfall.py and
 * titanfall2.py: a 16-byte header, 128 lump entries of {offset, length,
 * version, fourCC}, and the geometry records), so the expected values never
 * come from our own code: detection, decoded records, validation, lump ranges
 * and record sizes refused at open naming the lump, external .bsp_lump files
 * read in place of their lump (and refused, naming the file, when they are
 * cut short or too large), entity partitions (ENTITY_PARTITIONS and the
 * <map>_<name>.ent files beside the map, missing, damaged, from memory),
 * and the refusal to edit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "byte_out.h"
#include "check.h"
#include "bspkit/bspkit.h"
#include "bspkit/dump.h"
#include "bspkit/edit.h"
#include "bspkit/titanfall.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { HEADER = 16 + 16 * 128 };

static void u16(out *o, unsigned v) { i16(o, (int)(v & 0xFFFF)); }
static void put_at(out *o, size_t at, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        o->b[at + (size_t)k] = (uint8_t)(v >> (8 * k));
}

#define NAME "world/dev/floor\0tools/toolsnodraw\0"

/* ENTITY_PARTITIONS bytes the next build() writes (none when g_parts_len is 0). */
static const char *g_parts;
static size_t g_parts_len;

/* The contents of one lump (nothing for the others). */
static void lump_bytes(int lump, out *o)
{
    switch (lump) {
    case BSPKIT_R2_ENTITIES: text(o, "{\n\"classname\" \"worldspawn\"\n}\n", 32); break;
    case BSPKIT_R2_PLANES: /* normal, distance */
        f32(o, 0), f32(o, 0), f32(o, 1), f32(o, 16);
        break;
    case BSPKIT_R2_TEXTURE_DATA: /* reflectivity, name_index, size, view, flags */
        f32(o, 0.5f), f32(o, 0.25f), f32(o, 0.125f), i32(o, 0), i32(o, 512), i32(o, 256), i32(o, 512), i32(o, 256);
        i32(o, 0x100000);
        f32(o, 0), f32(o, 0), f32(o, 0), i32(o, 1), i32(o, 64), i32(o, 64), i32(o, 64), i32(o, 64), i32(o, 0x20400);
        break;
    case BSPKIT_R2_VERTICES: /* a triangle on z = 16 */
        f32(o, 0), f32(o, 0), f32(o, 16);
        f32(o, 64), f32(o, 0), f32(o, 16);
        f32(o, 0), f32(o, 64), f32(o, 16);
        break;
    case BSPKIT_R2_MODELS: /* mins, maxs, first_mesh, num_meshes */
        f32(o, 0), f32(o, 0), f32(o, 16), f32(o, 64), f32(o, 64), f32(o, 16), i32(o, 0), i32(o, 1);
        break;
    case BSPKIT_R2_VERTEX_NORMALS: f32(o, 0), f32(o, 0), f32(o, 1); break;
    case BSPKIT_R2_TEXTURE_DATA_STRING_DATA:
        for (size_t k = 0; k < sizeof NAME - 1; k++)
            u8(o, (unsigned char)NAME[k]);
        break;
    case BSPKIT_R2_TEXTURE_DATA_STRING_TABLE: i32(o, 0), i32(o, 16); break;
    case BSPKIT_R2_ENTITY_PARTITIONS:
        for (size_t k = 0; k < g_parts_len; k++)
            u8(o, (unsigned char)g_parts[k]);
        break;
    case BSPKIT_R2_VERTEX_LIT_FLAT: /* position, normal, albedo uv, colour, lightmap uv, lightmap step */
        for (int v = 0; v < 3; v++) {
            i32(o, v), i32(o, 0), f32(o, (float)(v == 1)), f32(o, (float)(v == 2));
            u8(o, 255), u8(o, 128), u8(o, 64), u8(o, 255);
            f32(o, 0.25f), f32(o, 0.5f), f32(o, 0), f32(o, 0);
        }
        break;
    case BSPKIT_R2_MESH_INDICES: u16(o, 0), u16(o, 2), u16(o, 1); break;
    case BSPKIT_R2_MESHES:
        /* first_mesh_index, num_triangles, first_vertex, num_vertices, vertex_type, cubemap,
         * styles[4], luxel_origin[2], luxel_offset_max[2], material_sort, flags */
        i32(o, 0), u16(o, 1), u16(o, 0), u16(o, 3), u8(o, 0), u8(o, 0xFF);
        u8(o, 0), u8(o, 255), u8(o, 255), u8(o, 255), u16(o, 0), u16(o, 0), u8(o, 0), u8(o, 0);
        u16(o, 0), i32(o, 0x100000);
        break;
    case BSPKIT_R2_MESH_BOUNDS: /* origin, radius, extents, tan_yaw */
        f32(o, 32), f32(o, 32), f32(o, 16), f32(o, 46), f32(o, 32), f32(o, 32), f32(o, 0), f32(o, 0);
        break;
    case BSPKIT_R2_MATERIAL_SORTS: /* texture_data, lightmap_header, cubemap, last_vertex, vertex_offset */
        u16(o, 0), u16(o, 0xFFFF), u16(o, 0xFFFF), u16(o, 2), i32(o, 0);
        break;
    default: break;
    }
}

static const int LUMPS[] = {
    BSPKIT_R2_ENTITIES, BSPKIT_R2_PLANES, BSPKIT_R2_TEXTURE_DATA, BSPKIT_R2_VERTICES, BSPKIT_R2_MODELS,
    BSPKIT_R2_ENTITY_PARTITIONS, BSPKIT_R2_VERTEX_NORMALS, BSPKIT_R2_TEXTURE_DATA_STRING_DATA, BSPKIT_R2_TEXTURE_DATA_STRING_TABLE,
    BSPKIT_R2_VERTEX_LIT_FLAT, BSPKIT_R2_MESH_INDICES, BSPKIT_R2_MESHES, BSPKIT_R2_MESH_BOUNDS,
    BSPKIT_R2_MATERIAL_SORTS,
};
#define NLUMPS (sizeof LUMPS / sizeof LUMPS[0])

/* The map; a lump named in `outside` gets a zero-length entry instead (its
 * bytes are then to be written beside the map). */
static void build(out *o, int outside)
{
    memset(o, 0, sizeof *o);
    memcpy(o->b, "rBSP", 4);
    o->n = 4;
    i32(o, 37), i32(o, 5), i32(o, 127);
    o->n = HEADER;
    for (size_t k = 0; k < NLUMPS; k++) {
        int lump = LUMPS[k];
        size_t at = o->n;
        if (lump != outside)
            lump_bytes(lump, o);
        put_at(o, 16 + 16 * (size_t)lump, (uint32_t)at);
        put_at(o, 16 + 16 * (size_t)lump + 4, (uint32_t)(o->n - at));
        put_at(o, 16 + 16 * (size_t)lump + 8, lump == BSPKIT_R2_PLANES || lump == BSPKIT_R2_TEXTURE_DATA ? 1 : 0);
        while (o->n % 4)
            u8(o, 0);
    }
}

static void test_detect_and_decode(void **state)
{
    (void)state;
    out o;
    build(&o, -1);
    bspkit_format f;
    CHECK(bspkit_detect(o.b, o.n, &f, ERR));
    assert_int_equal(f.family, BSPKIT_FAMILY_TITANFALL);
    assert_string_equal(bspkit_family_name(f.family), "titanfall");
    assert_int_equal(f.version, 37);
    assert_int_equal(f.revision, 5);
    assert_int_equal(f.lump_count, 128);
    assert_non_null(strstr(f.name, "Titanfall 2"));

    bspkit_map *map;
    CHECK(bspkit_open_memory(o.b, o.n, NULL, &map, ERR));
    /* From memory nothing beside the map can be read, and the format says so. */
    assert_true(bspkit_map_format(map)->variant & BSPKIT_VARIANT_NO_EXTERNAL);
    assert_false(bspkit_map_format(map)->variant & BSPKIT_VARIANT_EXTERNAL_LUMPS);
    assert_int_equal(bspkit_lump_count(map), 128);
    assert_int_equal(bspkit_lump_find(map, "MATERIAL_SORTS"), 82);
    assert_int_equal(bspkit_lump_find(map, "unused_8"), 8);
    assert_null(bspkit_lump_external_path(map, BSPKIT_R2_MESHES));

    const bspkit_plane *pl;
    size_t n;
    CHECK(bspkit_get_planes(map, &pl, &n, ERR));
    assert_int_equal(n, 1);
    assert_true(pl[0].normal.z == 1.0f && pl[0].dist == 16.0f);

    const bspkit_texdata *td;
    CHECK(bspkit_get_texdata(map, &td, &n, ERR));
    assert_int_equal(n, 2);
    assert_true(td[0].reflectivity.y == 0.25f);
    assert_int_equal(td[0].width, 512);
    assert_int_equal(td[0].view_height, 256);
    assert_int_equal(td[1].flags, 0x20400);
    assert_string_equal(bspkit_texdata_name(map, 0), "world/dev/floor");
    assert_string_equal(bspkit_texdata_name(map, 1), "tools/toolsnodraw");

    const bspkit_r2_mesh *me;
    CHECK(bspkit_get_r2_meshes(map, &me, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(me[0].num_triangles, 1);
    assert_int_equal(me[0].num_vertices, 3);
    assert_int_equal(me[0].cubemap, -1);
    assert_int_equal(me[0].styles[1], 255);
    assert_int_equal(me[0].flags, 0x100000);
    assert_int_equal(bspkit_r2_vertex_lump(me[0].flags), BSPKIT_R2_VERTEX_LIT_FLAT);

    const bspkit_r2_material_sort *ms;
    CHECK(bspkit_get_r2_material_sorts(map, &ms, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(ms[0].lightmap_header, -1);
    assert_int_equal(ms[0].last_vertex, 2);

    const bspkit_r2_vertex *v;
    CHECK(bspkit_get_r2_vertices(map, BSPKIT_R2_VERTEX_LIT_FLAT, &v, &n, ERR));
    assert_int_equal(n, 3);
    assert_int_equal(v[2].position_index, 2);
    assert_true(v[2].albedo_uv[1] == 1.0f && v[1].albedo_uv[0] == 1.0f);
    assert_int_equal(v[0].colour[1], 128);
    assert_true(v[0].lightmap_uv[1] == 0.5f);
    CHECK(bspkit_get_r2_vertices(map, BSPKIT_R2_VERTEX_UNLIT, &v, &n, ERR));
    assert_int_equal(n, 0);
    assert_int_equal(bspkit_get_r2_vertices(map, BSPKIT_R2_MESHES, &v, &n, ERR), BSPKIT_ERR_ARGUMENT);

    const uint32_t *idx;
    CHECK(bspkit_get_r2_mesh_indices(map, &idx, &n, ERR));
    assert_int_equal(n, 3);
    assert_int_equal(idx[1], 2);
    const bspkit_r2_model *mo;
    CHECK(bspkit_get_r2_models(map, &mo, &n, ERR));
    assert_int_equal(n, 1);
    assert_int_equal(mo[0].num_meshes, 1);
    assert_true(mo[0].maxs.x == 64.0f);
    const bspkit_r2_mesh_bounds *mb;
    CHECK(bspkit_get_r2_mesh_bounds(map, &mb, &n, ERR));
    assert_true(n == 1 && mb[0].radius == 46.0f);

    uint64_t count;
    CHECK(bspkit_lump_record_count(map, BSPKIT_R2_VERTEX_LIT_FLAT, &count));
    assert_int_equal(count, 3);

    /* The dump names fields as bsp_tool does. */
    bspkit_dump d;
    CHECK(bspkit_dump_lump(map, "MESHES", &d, ERR));
    assert_int_equal(d.table_count, 1);
    assert_int_equal(d.tables[0].count, 1);
    bool seen = false;
    for (size_t k = 0; k < d.tables[0].field_count; k++)
        seen = seen || strcmp(d.tables[0].fields[k].name, "material_sort") == 0;
    assert_true(seen);
    /* A lump decoded for the dump only. */
    CHECK(bspkit_dump_lump(map, "MESH_BOUNDS", &d, ERR));
    assert_int_equal(d.table_count, 1);

    bspkit_report rep;
    CHECK(bspkit_validate(map, &rep, ERR));
    if (rep.errors)
        fail_msg("%s", rep.problems[0].message);
    bspkit_report_free(&rep);

    /* Read-only. */
    bspkit_edit *e = NULL;
    assert_int_equal(bspkit_edit_new(map, &e, ERR), BSPKIT_ERR_UNSUPPORTED);
    assert_non_null(strstr(g_err.message, "read-only"));
    bspkit_close(map);
}

/* One broken index of each kind the validation checks is reported. */
static void test_validate_broken(void **state)
{
    (void)state;
    out o;
    build(&o, -1);
    size_t meshes = 0, sorts = 0, verts = 0;
    for (size_t k = 0; k < NLUMPS; k++) {
        uint32_t at = (uint32_t)o.b[16 + 16 * LUMPS[k]] | (uint32_t)o.b[17 + 16 * LUMPS[k]] << 8;
        if (LUMPS[k] == BSPKIT_R2_MESHES)
            meshes = at;
        if (LUMPS[k] == BSPKIT_R2_MATERIAL_SORTS)
            sorts = at;
        if (LUMPS[k] == BSPKIT_R2_VERTEX_LIT_FLAT)
            verts = at;
    }
    o.b[meshes + 4] = 2;     /* two triangles: six indices of three */
    o.b[sorts] = 7;          /* texture data 7 of 2 */
    o.b[verts + 36 + 4] = 9; /* vertex 1's normal 9 of 1 */
    bspkit_map *map;
    CHECK(bspkit_open_memory(o.b, o.n, NULL, &map, ERR));
    bspkit_report rep;
    CHECK(bspkit_validate(map, &rep, ERR));
    assert_int_equal(rep.errors, 3);
    bool mesh = false, sort = false, vert = false;
    for (size_t k = 0; k < rep.count; k++) {
        const bspkit_problem *p = &rep.problems[k];
        mesh = mesh || (p->lump == BSPKIT_R2_MESHES && strstr(p->message, "num_triangles"));
        sort = sort || (p->lump == BSPKIT_R2_MATERIAL_SORTS && strstr(p->message, "texture_data 7"));
        vert = vert || (p->lump == BSPKIT_R2_VERTEX_LIT_FLAT && p->record == 1 && strstr(p->message, "normal_index 9"));
    }
    assert_true(mesh && sort && vert);
    bspkit_report_free(&rep);
    bspkit_close(map);
}

/* Ranges and record sizes are checked at open, naming the lump. */
static void test_bad_directory(void **state)
{
    (void)state;
    out o;
    build(&o, -1);
    bspkit_map *map = NULL;
    /* MESHES one byte short of its 28-byte record. */
    out bad = o;
    bad.b[16 + 16 * BSPKIT_R2_MESHES + 4] = 27;
    assert_int_equal(bspkit_open_memory(bad.b, bad.n, NULL, &map, ERR), BSPKIT_ERR_LUMP_SIZE);
    assert_int_equal(g_err.lump, BSPKIT_R2_MESHES);
    assert_non_null(strstr(g_err.message, "MESHES"));
    assert_null(map);
    /* MATERIAL_SORTS running past the end of the file. */
    bad = o;
    put_at(&bad, 16 + 16 * BSPKIT_R2_MATERIAL_SORTS, (uint32_t)o.n - 4);
    assert_int_equal(bspkit_open_memory(bad.b, bad.n, NULL, &map, ERR), BSPKIT_ERR_LUMP_RANGE);
    assert_int_equal(g_err.lump, BSPKIT_R2_MATERIAL_SORTS);
    /* A header without its whole directory. */
    assert_int_equal(bspkit_open_memory(o.b, HEADER - 1, NULL, &map, ERR), BSPKIT_ERR_TRUNCATED);
}

/* ---- external lumps ----------------------------------------------------- */

static void write_file(const char *path, const void *data, size_t size)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, size, fp), size);
    assert_int_equal(fclose(fp), 0);
}

static void test_external_lumps(void **state)
{
    (void)state;
    char dir[] = "/tmp/bspkit-r2-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char bsp[256], ext[300];
    snprintf(bsp, sizeof bsp, "%s/mp_test.bsp", dir);
    snprintf(ext, sizeof ext, "%s.004f.bsp_lump", bsp);

    /* MESH_INDICES only in the file beside the map, with other indices than the map would hold. */
    out o;
    build(&o, BSPKIT_R2_MESH_INDICES);
    write_file(bsp, o.b, o.n);
    const uint8_t indices[6] = {1, 0, 2, 0, 0, 0};
    write_file(ext, indices, sizeof indices);

    bspkit_map *map;
    CHECK(bspkit_open_file(bsp, NULL, &map, ERR));
    assert_true(bspkit_map_format(map)->variant & BSPKIT_VARIANT_EXTERNAL_LUMPS);
    assert_false(bspkit_map_format(map)->variant & BSPKIT_VARIANT_NO_EXTERNAL);
    assert_string_equal(bspkit_lump_external_path(map, BSPKIT_R2_MESH_INDICES), ext);
    assert_null(bspkit_lump_external_path(map, BSPKIT_R2_MESHES));
    bspkit_lump_info li;
    CHECK(bspkit_get_lump_info(map, BSPKIT_R2_MESH_INDICES, &li));
    assert_int_equal(li.length, 6);
    const uint32_t *idx;
    size_t n;
    CHECK(bspkit_get_r2_mesh_indices(map, &idx, &n, ERR));
    assert_int_equal(n, 3);
    assert_int_equal(idx[0], 1);
    const uint8_t *bytes;
    size_t size;
    CHECK(bspkit_lump_bytes(map, BSPKIT_R2_MESH_INDICES, &bytes, &size, ERR));
    assert_int_equal(size, 6);
    assert_memory_equal(bytes, indices, 6);
    bspkit_report rep;
    CHECK(bspkit_validate(map, &rep, ERR));
    assert_int_equal(rep.errors, 0);
    bspkit_report_free(&rep);
    bspkit_close(map);

    /* The same map from memory has no MESH_INDICES, and says it did not look. */
    CHECK(bspkit_open_memory(o.b, o.n, NULL, &map, ERR));
    assert_true(bspkit_map_format(map)->variant & BSPKIT_VARIANT_NO_EXTERNAL);
    CHECK(bspkit_get_r2_mesh_indices(map, &idx, &n, ERR));
    assert_int_equal(n, 0);
    bspkit_close(map);

    /* Cut short: 5 bytes of 2-byte indices. */
    write_file(ext, indices, 5);
    map = NULL;
    assert_int_equal(bspkit_open_file(bsp, NULL, &map, ERR), BSPKIT_ERR_LUMP_SIZE);
    assert_null(map);
    assert_int_equal(g_err.lump, BSPKIT_R2_MESH_INDICES);
    assert_non_null(strstr(g_err.message, ext));
    assert_non_null(strstr(g_err.message, "MESH_INDICES"));

    /* Larger than the lump limit. */
    write_file(ext, indices, sizeof indices);
    bspkit_options opts;
    memset(&opts, 0, sizeof opts);
    opts.max_lump_size = 4;
    assert_int_equal(bspkit_open_file(bsp, &opts, &map, ERR), BSPKIT_ERR_LIMIT);
    assert_int_equal(g_err.lump, BSPKIT_R2_MESH_INDICES);
    assert_non_null(strstr(g_err.message, ext));

    /* A directory where the file should be cannot be read. */
    assert_int_equal(unlink(ext), 0);
    char sub[300];
    snprintf(sub, sizeof sub, "%s.0050.bsp_lump", bsp);
    assert_int_equal(mkdir(sub, 0700), 0);
    assert_int_equal(bspkit_open_file(bsp, NULL, &map, ERR), BSPKIT_ERR_IO);
    assert_int_equal(g_err.lump, BSPKIT_R2_MESHES);
    assert_non_null(strstr(g_err.message, sub));
    assert_int_equal(rmdir(sub), 0);

    assert_int_equal(unlink(bsp), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* ---- entity partitions -------------------------------------------------- */

#define ENV_ENT "ENTITIES01\n{\n\"classname\" \"env_fog_controller\"\n\"origin\" \"0 0 8\"\n}\n"
#define SPAWN_HEADER "ENTITIES01 num_models=0\r\n"
#define SPAWN_1 "{\n\"classname\" \"info_spawnpoint_human\"\n}\n"
#define SPAWN_2 "{\n\"classname\" \"info_spawnpoint_titan\"\n\"teamnumber\" \"2\"\n}\n"

/* The map with partitions `parts` (n bytes) written as mp_test.bsp in `dir`. */
static void write_partitioned(const char *bsp, const char *parts, size_t n, out *o)
{
    g_parts = parts;
    g_parts_len = n;
    build(o, -1);
    g_parts_len = 0;
    write_file(bsp, o->b, o->n);
}

static const char *value(const bspkit_entities *ents, size_t i, const char *key)
{
    const char *v = bspkit_entity_value(ents, i, key);
    assert_non_null(v);
    return v;
}

/* Opens `bsp` from its path and expects bspkit_get_entities to fail with `code`,
 * the message holding `a` and `b`. */
static void expect_entities_error(const char *bsp, unsigned flags, bspkit_result code, const char *a, const char *b)
{
    bspkit_options opts;
    memset(&opts, 0, sizeof opts);
    opts.flags = flags;
    bspkit_map *map;
    CHECK(bspkit_open_file(bsp, &opts, &map, ERR));
    const bspkit_entities *ents = (const bspkit_entities *)1;
    assert_int_equal(bspkit_get_entities(map, &ents, ERR), code);
    assert_null(ents);
    if (!strstr(g_err.message, a) || !strstr(g_err.message, b))
        fail_msg("\"%s\" lacks \"%s\" or \"%s\"", g_err.message, a, b);
    bspkit_close(map);
}

/* Opens `bsp` from its path: `count` entities, entity 1 of `classname`, one warning about `file`. */
static const bspkit_entities *open_with_warning(const char *bsp, bspkit_map **map, size_t count,
                                                const char *classname, const char *file)
{
    const bspkit_entities *ents;
    CHECK(bspkit_open_file(bsp, NULL, map, ERR));
    CHECK(bspkit_get_entities(*map, &ents, ERR));
    assert_int_equal(ents->count, count);
    assert_string_equal(value(ents, 1, "classname"), classname);
    assert_int_equal(ents->warning_count, 1);
    assert_string_equal(ents->warnings[0].source, file);
    return ents;
}

static void test_entity_partitions(void **state)
{
    (void)state;
    char dir[] = "/tmp/bspkit-r2e-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char bsp[256], env[300], spawn[300];
    snprintf(bsp, sizeof bsp, "%s/mp_test.bsp", dir);
    snprintf(env, sizeof env, "%s/mp_test_env.ent", dir);
    snprintf(spawn, sizeof spawn, "%s/mp_test_spawn.ent", dir);
    static const char parts[] = "01* env spawn"; /* and its NUL */
    out o;
    write_partitioned(bsp, parts, sizeof parts, &o);
    write_file(env, ENV_ENT, strlen(ENV_ENT));
    static const char spawn_text[] = SPAWN_HEADER SPAWN_1 SPAWN_2; /* with a final NUL, as retail files end */
    write_file(spawn, spawn_text, sizeof spawn_text);

    /* The entity lump's worldspawn, then env's entity, then spawn's two. */
    bspkit_map *map;
    CHECK(bspkit_open_file(bsp, NULL, &map, ERR));
    const bspkit_entities *ents;
    CHECK(bspkit_get_entities(map, &ents, ERR));
    assert_int_equal(ents->count, 4);
    assert_int_equal(ents->warning_count, 0);
    assert_string_equal(value(ents, 0, "classname"), "worldspawn");
    assert_string_equal(value(ents, 1, "classname"), "env_fog_controller");
    assert_string_equal(value(ents, 1, "origin"), "0 0 8");
    assert_string_equal(value(ents, 2, "classname"), "info_spawnpoint_human");
    assert_string_equal(value(ents, 3, "classname"), "info_spawnpoint_titan");
    assert_string_equal(value(ents, 3, "teamnumber"), "2");
    assert_null(bspkit_entity_value(ents, 2, "teamnumber"));
    /* Each entity says where it was read: the file and the brace's byte and line there. */
    assert_null(ents->entities[0].source);
    assert_string_equal(ents->entities[1].source, env);
    assert_int_equal(ents->entities[1].offset, strlen("ENTITIES01\n"));
    assert_int_equal(ents->entities[1].line, 2);
    assert_string_equal(ents->entities[3].source, spawn);
    assert_int_equal(ents->entities[2].offset, strlen(SPAWN_HEADER));
    assert_int_equal(ents->entities[3].offset, strlen(SPAWN_HEADER SPAWN_1));
    assert_int_equal(ents->entities[3].line, 5);
    const bspkit_r2_entity_partition *p;
    size_t np;
    CHECK(bspkit_get_r2_entity_partitions(map, &p, &np, ERR));
    assert_int_equal(np, 2);
    assert_string_equal(p[0].name, "env");
    assert_string_equal(p[0].file, env);
    assert_string_equal(p[0].header, "ENTITIES01");
    assert_true(p[0].read);
    assert_int_equal(p[0].first_entity, 1);
    assert_int_equal(p[0].num_entities, 1);
    assert_string_equal(p[1].name, "spawn");
    assert_string_equal(p[1].header, "ENTITIES01 num_models=0");
    assert_int_equal(p[1].first_entity, 2);
    assert_int_equal(p[1].num_entities, 2);
    bspkit_report rep;
    CHECK(bspkit_validate(map, &rep, ERR));
    assert_int_equal(rep.errors, 0);
    assert_int_equal(rep.warnings, 0);
    bspkit_report_free(&rep);
    bspkit_close(map);

    /* From memory: the lump's entity and a warning per partition. */
    CHECK(bspkit_open_memory(o.b, o.n, NULL, &map, ERR));
    CHECK(bspkit_get_entities(map, &ents, ERR));
    assert_int_equal(ents->count, 1);
    assert_int_equal(ents->warning_count, 2);
    assert_non_null(strstr(ents->warnings[0].message, "'env'"));
    assert_non_null(strstr(ents->warnings[1].message, "opened from memory"));
    CHECK(bspkit_get_r2_entity_partitions(map, &p, &np, ERR));
    assert_int_equal(np, 2);
    assert_null(p[0].file);
    assert_false(p[1].read);
    bspkit_close(map);

    /* env's file missing: a warning naming it; spawn's entities still follow. */
    assert_int_equal(unlink(env), 0);
    ents = open_with_warning(bsp, &map, 3, "info_spawnpoint_human", env);
    assert_non_null(strstr(ents->warnings[0].message, "mp_test_env.ent"));
    CHECK(bspkit_validate(map, &rep, ERR));
    assert_int_equal(rep.errors, 0);
    assert_int_equal(rep.warnings, 1);
    bspkit_report_free(&rep);
    bspkit_close(map);

    /* A damaged header: an error naming the file and the byte ("ENTITIE" then '0'). */
    write_file(env, "ENTITIE01\n{\n}\n", 14);
    expect_entities_error(bsp, 0, BSPKIT_ERR_ENTITIES, env, "byte 7");
    assert_int_equal(g_err.lump_offset, 7);
    write_file(env, "ENTITIES\n{\n}\n", 13); /* no number */
    expect_entities_error(bsp, 0, BSPKIT_ERR_ENTITIES, env, "byte 8");
    write_file(env, "ENTITIES01 x\001\n{\n}\n", 17); /* a control byte in the header line */
    expect_entities_error(bsp, 0, BSPKIT_ERR_ENTITIES, env, "byte 12");

    /* Damaged entity text: read past with a warning naming the file and line, or refused when strict. */
    static const char open_block[] = "ENTITIES01\n{\n\"classname\" \"a\"\n";
    write_file(env, open_block, strlen(open_block));
    expect_entities_error(bsp, BSPKIT_OPEN_STRICT_ENTITIES, BSPKIT_ERR_ENTITIES, env, "line 2, byte 11");
    ents = open_with_warning(bsp, &map, 4, "a", env);
    /* The block runs to the end of the file: the warning is there, after the third newline. */
    assert_int_equal(ents->warnings[0].line, 4);
    assert_int_equal(ents->warnings[0].offset, strlen(open_block));
    bspkit_close(map);

    /* A file over the lump limit is refused naming it. */
    char big[400];
    memset(big, 'x', sizeof big);
    memcpy(big, "ENTITIES01\n{\n\"k\" \"", 18);
    memcpy(big + sizeof big - 3, "\"}\n", 3);
    write_file(env, big, sizeof big);
    bspkit_options opts;
    memset(&opts, 0, sizeof opts);
    opts.max_lump_size = 300; /* every lump in the map is smaller */
    CHECK(bspkit_open_file(bsp, &opts, &map, ERR));
    assert_int_equal(bspkit_get_entities(map, &ents, ERR), BSPKIT_ERR_LIMIT);
    assert_non_null(strstr(g_err.message, env));
    bspkit_close(map);
    /* Memory: what reading every entity keeps, plus less than the file needs while it is read. */
    CHECK(bspkit_open_file(bsp, NULL, &map, ERR));
    CHECK(bspkit_get_entities(map, &ents, ERR));
    assert_int_equal(ents->count, 4);
    uint64_t kept = bspkit_map_memory_used(map);
    bspkit_close(map);
    opts.max_lump_size = 0;
    opts.max_memory = kept + 200;
    CHECK(bspkit_open_file(bsp, &opts, &map, ERR));
    assert_int_equal(bspkit_get_entities(map, &ents, ERR), BSPKIT_ERR_LIMIT);
    assert_non_null(strstr(g_err.message, env));
    bspkit_close(map);

    /* ENTITY_PARTITIONS itself damaged: refused naming the lump and the byte. */
    static const struct {
        const char *text;
        size_t len;
        const char *byte;
    } bad[] = {
        {"01* env  spawn", 15, "byte 8"},   /* an empty name */
        {"env spawn", 10, "byte 0"},        /* no marker */
        {"01* env\0x", 9, "byte 8"},        /* text after the NUL */
        {"01* e/v", 8, "byte 5"},           /* a byte no name holds */
        {"01* env ", 9, "byte 8"},          /* a trailing space */
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        write_partitioned(bsp, bad[k].text, bad[k].len, &o);
        expect_entities_error(bsp, 0, BSPKIT_ERR_ENTITIES, "ENTITY_PARTITIONS", bad[k].byte);
        assert_int_equal(g_err.lump, BSPKIT_R2_ENTITY_PARTITIONS);
    }

    assert_int_equal(unlink(env), 0);
    assert_int_equal(unlink(spawn), 0);
    assert_int_equal(unlink(bsp), 0);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detect_and_decode),
        cmocka_unit_test(test_validate_broken),
        cmocka_unit_test(test_bad_directory),
        cmocka_unit_test(test_external_lumps),
        cmocka_unit_test(test_entity_partitions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
