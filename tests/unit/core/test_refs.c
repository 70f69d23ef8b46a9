/* The cross-reference table (core/refs.h): each kind's references sit
 * together, so bk_refs_of returns all of them; every reference points at a
 * known target, reads its member with the declared width and sign, and
 * lies inside its native record. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bspkit/bspkit.h"
#include "bspkit/quake3.h"
#include "core/refs.h"

static size_t native_size(int kind)
{
    switch (kind) {
    case BK_REC_EDGES: return sizeof(bspkit_edge);
    case BK_REC_SURFEDGES: return sizeof(int32_t);
    case BK_REC_FACES:
    case BK_REC_ORIG_FACES:
    case BK_REC_HDR_FACES: return sizeof(bspkit_face);
    case BK_REC_NODES: return sizeof(bspkit_node);
    case BK_REC_LEAFS: return sizeof(bspkit_leaf);
    case BK_REC_MODELS: return sizeof(bspkit_model);
    case BK_REC_TEXINFO: return sizeof(bspkit_texinfo);
    case BK_REC_LEAF_FACES:
    case BK_REC_LEAF_BRUSHES: return sizeof(uint32_t);
    case BK_REC_CLIPNODES: return sizeof(bspkit_clipnode);
    case BK_REC_BRUSHES: return sizeof(bspkit_brush);
    case BK_REC_BRUSHSIDES: return sizeof(bspkit_brushside);
    case BK_REC_AREAS: return sizeof(bspkit_area);
    case BK_REC_AREAPORTALS: return sizeof(bspkit_areaportal);
    case BK_REC_SURFACES: return sizeof(bspkit_surface);
    case BK_REC_FOGS: return sizeof(bspkit_fog);
    case BK_REC_R2_MODELS: return sizeof(bspkit_r2_model);
    case BK_REC_R2_MESHES: return sizeof(bspkit_r2_mesh);
    case BK_REC_R2_MATERIAL_SORTS: return sizeof(bspkit_r2_material_sort);
    case BK_REC_R2_VERTEX_UNLIT:
    case BK_REC_R2_VERTEX_LIT_FLAT:
    case BK_REC_R2_VERTEX_LIT_BUMP:
    case BK_REC_R2_VERTEX_UNLIT_TS: return sizeof(bspkit_r2_vertex);
    default: return 0;
    }
}

static void test_grouped_and_in_bounds(void **state)
{
    (void)state;
    size_t n = 0, seen = 0;
    const bk_ref *all = bk_refs_all(&n);
    assert_true(n > 20);
    for (int kind = 0; kind < BK_REC_COUNT; kind++) {
        size_t k = 0;
        const bk_ref *refs = bk_refs_of(kind, &k);
        size_t listed = 0;
        for (size_t i = 0; i < n; i++)
            listed += all[i].from == kind;
        assert_int_equal(k, listed);
        seen += k;
        for (size_t i = 0; i < k; i++) {
            const bk_ref *r = &refs[i];
            assert_int_equal(r->from, kind);
            assert_true(r->target >= 0 && r->target < BK_REF_TARGET_COUNT);
            assert_true(r->width == 4);
            assert_non_null(r->name);
            size_t size = native_size(kind);
            assert_true(size > 0);
            assert_true(r->offset + (size_t)r->width * r->elements <= size);
            if (r->kind == BK_REF_SPAN) {
                assert_non_null(r->count_name);
                assert_true(r->count_offset + r->width <= size);
            }
        }
    }
    assert_int_equal(seen, n);
}

static void test_values(void **state)
{
    (void)state;
    size_t k = 0;
    const bk_ref *refs = bk_refs_of(BK_REC_EDGES, &k);
    assert_int_equal(k, 1);
    bspkit_edge e = {{7, 0xFFFFFFFFu}};
    assert_int_equal(refs[0].elements, 2);
    assert_false(refs[0].is_signed);
    assert_int_equal(bk_ref_value(&refs[0], &e, 0), 7);
    assert_true(bk_ref_value(&refs[0], &e, 1) == 0xFFFFFFFFll);

    refs = bk_refs_of(BK_REC_SURFEDGES, &k);
    assert_int_equal(k, 1);
    int32_t se = -5;
    assert_true(refs[0].is_signed);
    assert_int_equal(bk_ref_value(&refs[0], &se, 0), -5);
    assert_true(refs[0].flags & BK_REF_SIGN_IS_DIRECTION);

    /* A face: plane, then first_edge/num_edges into SURFEDGES. */
    refs = bk_refs_of(BK_REC_FACES, &k);
    assert_true(k >= 2);
    bspkit_face f = {0};
    f.plane = 3;
    f.first_edge = -2;
    f.num_edges = 9;
    assert_int_equal(refs[0].target, BK_REC_PLANES);
    assert_int_equal(bk_ref_value(&refs[0], &f, 0), 3);
    assert_int_equal(refs[1].kind, BK_REF_SPAN);
    assert_int_equal(refs[1].target, BK_REC_SURFEDGES);
    assert_int_equal(bk_ref_value(&refs[1], &f, 0), -2);
    assert_int_equal(bk_ref_count(&refs[1], &f), 9);

    /* Kinds without index fields have no references. */
    assert_null(bk_refs_of(BK_REC_PLANES, &k));
    assert_int_equal(k, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grouped_and_in_bounds),
        cmocka_unit_test(test_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
