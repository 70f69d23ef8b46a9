/* The entity JSON codec: an entity list as a JSON array of objects (a key
 * that repeats holds an array of its values, at the place of its first
 * occurrence) and back, through jansson. */
#include "bspkit/entities_edit.h"
#include "core/map.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
    return p;
}

bool bspkit_entities_text_is_json(const char *text, size_t size)
{
    if (!text)
        return false;
    const char *end = text + size;
    const char *p = skip_ws(text, end);
    if (end - p >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
        p = skip_ws(p + 3, end);
    if (p < end && *p == '[')
        return true;
    if (p >= end || *p != '{')
        return false;
    /* Entity text has no colon after its first key. */
    p = skip_ws(p + 1, end);
    if (p >= end || *p != '"')
        return false;
    const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
    if (!q)
        return false;
    q = skip_ws(q + 1, end);
    return q < end && *q == ':';
}

/* ---- JSON -> list ---- */

/* Pairs being collected for one entity; every value is an owned copy. */
typedef struct pair_buf {
    bspkit_keyvalue *pairs;
    size_t count, cap;
} pair_buf;

static void pair_buf_free(pair_buf *pb)
{
    for (size_t i = 0; i < pb->count; i++)
        free((char *)pb->pairs[i].value);
    free(pb->pairs);
}

static bspkit_result nomem(bspkit_error *err)
{
    return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
}

/* Appends one JSON value (a string, an integer or an array of those) as pairs with key `key`. */
static bspkit_result value_pairs(size_t index, const char *key, json_t *value, pair_buf *pb, bspkit_error *err)
{
    bool array = json_is_array(value);
    size_t n = array ? json_array_size(value) : 1;
    for (size_t i = 0; i < n; i++) {
        json_t *v = array ? json_array_get(value, i) : value;
        char number[32];
        const char *text = number;
        if (json_is_string(v)) {
            text = json_string_value(v);
            if (strlen(text) != json_string_length(v))
                return bk_fail(err, BSPKIT_ERR_ENTITIES, -1, -1, -1,
                               "entity %zu, key \"%s\": value contains a NUL byte", index, key);
        } else if (json_is_integer(v)) {
            snprintf(number, sizeof number, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        } else {
            return bk_fail(err, BSPKIT_ERR_ENTITIES, -1, -1, -1,
                           "entity %zu, key \"%s\": values must be strings, integers or arrays of them", index, key);
        }
        if (pb->count == pb->cap) {
            size_t nc = pb->cap ? pb->cap * 2 : 16;
            bspkit_keyvalue *np = realloc(pb->pairs, nc * sizeof *np);
            if (!np)
                return nomem(err);
            pb->pairs = np;
            pb->cap = nc;
        }
        char *copy = strdup(text);
        if (!copy)
            return nomem(err);
        pb->pairs[pb->count++] = (bspkit_keyvalue){.key = key, .value = copy};
    }
    return BSPKIT_OK;
}

/* Appends one JSON object as an entity. */
static bspkit_result object_entity(size_t index, json_t *obj, bspkit_entlist *list, bspkit_error *err)
{
    if (!json_is_object(obj))
        return bk_fail(err, BSPKIT_ERR_ENTITIES, -1, -1, -1, "entity %zu is not a JSON object", index);
    pair_buf pb = {0};
    bspkit_result r = BSPKIT_OK;
    const char *key;
    json_t *value;
    json_object_foreach(obj, key, value)
    {
        if ((r = value_pairs(index, key, value, &pb, err)) != BSPKIT_OK)
            break;
    }
    if (r == BSPKIT_OK) {
        bspkit_error e;
        r = bspkit_entlist_add_entity(list, pb.pairs, pb.count, NULL, &e);
        if (r != BSPKIT_OK)
            bk_fail(err, r, -1, -1, -1, "entity %zu: %s", index, e.message);
    }
    pair_buf_free(&pb);
    return r;
}

bspkit_result bspkit_entlist_from_json(const char *text, size_t size, bspkit_entlist **out, bspkit_error *err)
{
    if (out)
        *out = NULL;
    if (!out || (!text && size))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_entlist_from_json: invalid argument");
    json_error_t jerr;
    json_t *root = json_loadb(text ? text : "", size, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return bk_fail(err, BSPKIT_ERR_ENTITIES, -1, -1, (int64_t)jerr.position, "line %d, column %d: %s", jerr.line,
                       jerr.column, jerr.text);
    bspkit_entlist *list = NULL;
    bspkit_result r = bspkit_entlist_new(&list, err);
    if (r != BSPKIT_OK) {
    } else if (json_is_array(root)) {
        for (size_t i = 0; i < json_array_size(root) && r == BSPKIT_OK; i++)
            r = object_entity(i, json_array_get(root, i), list, err);
    } else if (json_is_object(root)) {
        r = object_entity(0, root, list, err);
    } else {
        r = bk_fail(err, BSPKIT_ERR_ENTITIES, -1, -1, -1, "expected a JSON array of objects or one object");
    }
    json_decref(root);
    if (r != BSPKIT_OK) {
        bspkit_entlist_free(list);
        return r;
    }
    *out = list;
    return BSPKIT_OK;
}

/* ---- list -> JSON ---- */

/* A JSON string for bytes that may not be UTF-8: those above 0x7f become '?'
 * (counted in *lossy). */
static json_t *text_value(const char *text, size_t *lossy)
{
    json_t *s = json_string(text);
    if (s)
        return s;
    (*lossy)++;
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    if (!copy)
        return NULL;
    for (size_t i = 0; i <= len; i++)
        copy[i] = (unsigned char)text[i] < 0x80 ? text[i] : '?';
    s = json_string(copy);
    free(copy);
    return s;
}

/* Adds one pair to an entity object: a repeated key turns its value into an
 * array, kept at the place of the first occurrence. Steals `value`. */
static int add_pair(json_t *obj, const char *key, json_t *value)
{
    json_t *prev = json_object_get(obj, key);
    if (!prev)
        return json_object_set_new(obj, key, value);
    if (json_is_array(prev))
        return json_array_append_new(prev, value);
    json_t *arr = json_array();
    if (!arr || json_array_append(arr, prev) != 0) {
        json_decref(arr);
        json_decref(value);
        return -1;
    }
    if (json_array_append_new(arr, value) != 0) {
        json_decref(arr);
        return -1;
    }
    return json_object_set_new(obj, key, arr);
}

static json_t *list_json(const bspkit_entlist *list, size_t *lossy)
{
    json_t *root = json_array();
    if (!root)
        return NULL;
    for (size_t e = 0; e < bspkit_entlist_count(list); e++) {
        json_t *obj = json_object();
        if (json_array_append_new(root, obj) != 0)
            goto fail;
        size_t n = 0;
        const bspkit_keyvalue *pairs = bspkit_entlist_pairs(list, e, &n);
        for (size_t i = 0; i < n; i++) {
            /* Object keys must be UTF-8 too: use the replaced spelling. */
            json_t *key = text_value(pairs[i].key, lossy);
            json_t *value = text_value(pairs[i].value, lossy);
            int rc = -1;
            if (key && value) {
                rc = add_pair(obj, json_string_value(key), value);
                value = NULL;
            }
            json_decref(key);
            json_decref(value);
            if (rc != 0)
                goto fail;
        }
    }
    return root;
fail:
    json_decref(root);
    return NULL;
}

bspkit_result bspkit_entlist_to_json(const bspkit_entlist *list, char **out, size_t *size, size_t *lossy,
                                     bspkit_error *err)
{
    if (out)
        *out = NULL;
    if (size)
        *size = 0;
    if (!list || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_entlist_to_json: invalid argument");
    size_t bad = 0;
    json_t *root = list_json(list, &bad);
    char *text = root ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    if (!text)
        return nomem(err);
    *out = text;
    if (size)
        *size = strlen(text);
    if (lossy)
        *lossy = bad;
    return BSPKIT_OK;
}
