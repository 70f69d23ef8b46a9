/* bspkit dump: one lump as decoded records (text or JSON), or as hex when
 * bspkit has no decoder for it. The record layout comes from the library's
 * field tables, so this file knows no struct. */
#include "bspkit/dump.h"
#include "cli.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void cmd_dump_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit dump MAP LUMP [--json] [--first N] [--count M]\n"
            "\n"
            "Print lump LUMP as decoded records, one per line (or as JSON), with the\n"
            "field names of the format documents (planenum, lightofs, Origin, ...).\n"
            "Lumps bspkit does not decode are printed as hex with their size; the\n"
            "entity lump is printed as text.\n"
            "\n"
            "LUMP is a lump index, a lump name or key as 'bspkit info' prints them\n"
            "(FACES, faces, 7), a Source game-lump id (sprp, dprp, dplt, dplh) or, for\n"
            "Quake/GoldSrc maps with a BSPX block, a BSPX lump name (RGBLIGHTING, ...).\n"
            "\n"
            "options:\n"
            "  --json       one JSON object: {lump, index, version, size, note, tables:\n"
            "               [{name, count, first, records: [...]}]} or {..., raw: HEX}\n"
            "  --first N    start at record N of each table (bytes for hex output)\n"
            "  --count M    print at most M records of each table (bytes for hex)\n"
            "  -h, --help   show this help\n"
            "\n"
            "exit codes:\n"
            "  0   success\n"
            "  2   MAP could not be read, or the lump could not be decoded\n"
            "  64  usage error (including a LUMP the map does not have)\n");
}

/* Shortest decimal text that reads back as the same float. */
static void format_float(float f, char *buf, size_t cap)
{
    if (!isfinite(f)) {
        snprintf(buf, cap, "%s", isnan(f) ? "nan" : f > 0 ? "inf" : "-inf");
        return;
    }
    for (int prec = 6; prec <= 9; prec++) {
        snprintf(buf, cap, "%.*g", prec, (double)f);
        if (strtof(buf, NULL) == f)
            return;
    }
}

static void fourcc_text(uint32_t v, char out[5])
{
    for (int i = 0; i < 4; i++) {
        unsigned char c = (unsigned char)(v >> (24 - 8 * i));
        out[i] = c >= 32 && c < 127 ? (char)c : '?';
    }
    out[4] = '\0';
}

/* ---- one value, as text ---- */

static void text_value(FILE *o, const bspkit_field *f, const uint8_t *p)
{
    char buf[48];
    switch (f->type) {
    case BSPKIT_FIELD_I8: fprintf(o, "%d", *(const int8_t *)p); break;
    case BSPKIT_FIELD_U8: fprintf(o, "%u", *p); break;
    case BSPKIT_FIELD_I16: fprintf(o, "%d", *(const int16_t *)p); break;
    case BSPKIT_FIELD_U16: fprintf(o, "%u", *(const uint16_t *)p); break;
    case BSPKIT_FIELD_I32: fprintf(o, "%" PRId32, *(const int32_t *)p); break;
    case BSPKIT_FIELD_U32: fprintf(o, "%" PRIu32, *(const uint32_t *)p); break;
    case BSPKIT_FIELD_I64: fprintf(o, "%" PRId64, *(const int64_t *)p); break;
    case BSPKIT_FIELD_U64: fprintf(o, "%" PRIu64, *(const uint64_t *)p); break;
    case BSPKIT_FIELD_F32: format_float(*(const float *)p, buf, sizeof buf); fputs(buf, o); break;
    case BSPKIT_FIELD_BOOL: fputs(*(const bool *)p ? "true" : "false", o); break;
    case BSPKIT_FIELD_FOURCC: fourcc_text(*(const uint32_t *)p, buf); fprintf(o, "%s", buf); break;
    case BSPKIT_FIELD_VEC3: {
        const bspkit_vec3 *v = (const void *)p;
        char y[48], z[48];
        format_float(v->x, buf, sizeof buf);
        format_float(v->y, y, sizeof y);
        format_float(v->z, z, sizeof z);
        fprintf(o, "(%s %s %s)", buf, y, z);
        break;
    }
    case BSPKIT_FIELD_RGBEXP: {
        const bspkit_rgbexp *c = (const void *)p;
        fprintf(o, "(%u %u %u %d)", c->r, c->g, c->b, c->exponent);
        break;
    }
    case BSPKIT_FIELD_CHARS:
    case BSPKIT_FIELD_STRING: break; /* handled per field */
    }
}

static size_t type_size(bspkit_field_type t)
{
    switch (t) {
    case BSPKIT_FIELD_I8: case BSPKIT_FIELD_U8: case BSPKIT_FIELD_CHARS: return 1;
    case BSPKIT_FIELD_I16: case BSPKIT_FIELD_U16: return 2;
    case BSPKIT_FIELD_I32: case BSPKIT_FIELD_U32: case BSPKIT_FIELD_F32: case BSPKIT_FIELD_FOURCC: return 4;
    case BSPKIT_FIELD_I64: case BSPKIT_FIELD_U64: return 8;
    case BSPKIT_FIELD_BOOL: return sizeof(bool);
    case BSPKIT_FIELD_STRING: return sizeof(const char *);
    case BSPKIT_FIELD_VEC3: return sizeof(bspkit_vec3);
    case BSPKIT_FIELD_RGBEXP: return sizeof(bspkit_rgbexp);
    }
    return 1;
}

/* Fixed-size char arrays may fill their whole capacity without a NUL. */
static size_t chars_length(const char *s, size_t cap)
{
    const char *nul = memchr(s, '\0', cap);
    return nul ? (size_t)(nul - s) : cap;
}

static void text_field(FILE *o, const bspkit_field *f, const uint8_t *rec)
{
    const uint8_t *p = rec + f->offset;
    fprintf(o, " %s=", f->name);
    if (f->type == BSPKIT_FIELD_CHARS) {
        fprintf(o, "\"%.*s\"", (int)chars_length((const char *)p, f->count), (const char *)p);
        return;
    }
    if (f->type == BSPKIT_FIELD_STRING) {
        const char *s = *(const char *const *)p;
        fprintf(o, s ? "\"%s\"" : "null", s);
        return;
    }
    if (f->count > 1)
        fputc('[', o);
    for (uint32_t i = 0; i < f->count; i++) {
        if (i)
            fputc(' ', o);
        text_value(o, f, p + i * type_size(f->type));
    }
    if (f->count > 1)
        fputc(']', o);
}

/* ---- one value, as JSON ---- */

static json_t *json_float(float f)
{
    if (!isfinite(f))
        return json_null(); /* JSON has no NaN or infinity */
    char buf[48];
    format_float(f, buf, sizeof buf);
    return json_real(strtod(buf, NULL));
}

static json_t *json_value(const bspkit_field *f, const uint8_t *p)
{
    char buf[8];
    switch (f->type) {
    case BSPKIT_FIELD_I8: return json_integer(*(const int8_t *)p);
    case BSPKIT_FIELD_U8: return json_integer(*p);
    case BSPKIT_FIELD_I16: return json_integer(*(const int16_t *)p);
    case BSPKIT_FIELD_U16: return json_integer(*(const uint16_t *)p);
    case BSPKIT_FIELD_I32: return json_integer(*(const int32_t *)p);
    case BSPKIT_FIELD_U32: return json_integer(*(const uint32_t *)p);
    case BSPKIT_FIELD_I64: return json_integer(*(const int64_t *)p);
    case BSPKIT_FIELD_U64: return json_integer((json_int_t)*(const uint64_t *)p);
    case BSPKIT_FIELD_F32: return json_float(*(const float *)p);
    case BSPKIT_FIELD_BOOL: return json_boolean(*(const bool *)p);
    case BSPKIT_FIELD_FOURCC: fourcc_text(*(const uint32_t *)p, buf); return json_string(buf);
    case BSPKIT_FIELD_VEC3: {
        const bspkit_vec3 *v = (const void *)p;
        return json_pack("[ooo]", json_float(v->x), json_float(v->y), json_float(v->z));
    }
    case BSPKIT_FIELD_RGBEXP: {
        const bspkit_rgbexp *c = (const void *)p;
        return json_pack("{s:i,s:i,s:i,s:i}", "r", c->r, "g", c->g, "b", c->b, "exponent", c->exponent);
    }
    case BSPKIT_FIELD_CHARS:
    case BSPKIT_FIELD_STRING: break;
    }
    return json_null();
}

static json_t *json_field(const bspkit_field *f, const uint8_t *rec)
{
    const uint8_t *p = rec + f->offset;
    if (f->type == BSPKIT_FIELD_CHARS) {
        size_t n = chars_length((const char *)p, f->count);
        char tmp[1024];
        if (n >= sizeof tmp)
            n = sizeof tmp - 1;
        memcpy(tmp, p, n);
        tmp[n] = '\0';
        return cli_json_string(tmp);
    }
    if (f->type == BSPKIT_FIELD_STRING) {
        const char *s = *(const char *const *)p;
        return s ? cli_json_string(s) : json_null();
    }
    if (f->count == 1)
        return json_value(f, p);
    json_t *a = json_array();
    for (uint32_t i = 0; a && i < f->count; i++)
        if (json_array_append_new(a, json_value(f, p + i * type_size(f->type))) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *json_record(const bspkit_table *t, const uint8_t *rec)
{
    json_t *o = json_object();
    for (size_t k = 0; o && k < t->field_count; k++) {
        json_t *v = json_field(&t->fields[k], rec);
        if (!v || json_object_set_new(o, t->fields[k].name, v) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

/* ---- whole lump ---- */

typedef struct range { uint64_t first, count; } range;

static void clamp(range r, size_t total, size_t *begin, size_t *end)
{
    *begin = r.first < total ? (size_t)r.first : total;
    *end = r.count < total - *begin ? *begin + (size_t)r.count : total;
}

static void print_hex(FILE *o, const uint8_t *data, size_t begin, size_t end)
{
    for (size_t row = begin; row < end; row += 16) {
        fprintf(o, "%08zx ", row);
        for (size_t i = row; i < row + 16; i++) {
            if (i < end)
                fprintf(o, " %02x", data[i]);
            else
                fputs("   ", o);
        }
        fputs("  |", o);
        for (size_t i = row; i < row + 16 && i < end; i++)
            fputc(data[i] >= 32 && data[i] < 127 ? data[i] : '.', o);
        fputs("|\n", o);
    }
}

static void print_text(const bspkit_dump *d, range r)
{
    printf("%s (", d->lump);
    if (d->lump_index >= 0)
        printf("lump %d, ", d->lump_index);
    printf("version %" PRId32 ", %zu %s)\n", d->version, d->raw_size, cli_plural(d->raw_size, "byte", "bytes"));
    if (d->note[0])
        printf("note: %s\n", d->note);
    size_t begin, end;
    if (d->text) {
        size_t n = d->raw_size;
        const void *nul = memchr(d->raw, '\0', n);
        if (nul)
            n = (size_t)((const uint8_t *)nul - d->raw);
        fwrite(d->raw, 1, n, stdout);
        if (n && d->raw[n - 1] != '\n')
            putchar('\n');
        return;
    }
    if (d->table_count == 0) {
        clamp(r, d->raw_size, &begin, &end);
        print_hex(stdout, d->raw, begin, end);
        return;
    }
    for (size_t t = 0; t < d->table_count; t++) {
        const bspkit_table *tab = &d->tables[t];
        printf("%s: %zu %s\n", tab->name, tab->count, cli_plural(tab->count, "record", "records"));
        clamp(r, tab->count, &begin, &end);
        for (size_t i = begin; i < end; i++) {
            printf("[%zu]", i);
            for (size_t k = 0; k < tab->field_count; k++)
                text_field(stdout, &tab->fields[k], bspkit_table_record(tab, i));
            putchar('\n');
        }
    }
}

static char *hex_string(const uint8_t *data, size_t begin, size_t end)
{
    char *s = malloc(2 * (end - begin) + 1);
    if (!s)
        return NULL;
    static const char DIGITS[] = "0123456789abcdef";
    for (size_t i = begin; i < end; i++) {
        s[2 * (i - begin)] = DIGITS[data[i] >> 4];
        s[2 * (i - begin) + 1] = DIGITS[data[i] & 15];
    }
    s[2 * (end - begin)] = '\0';
    return s;
}

/* Records are written one at a time so a large lump never sits in memory as a JSON tree. */
static int print_json(const bspkit_dump *d, range r)
{
    const size_t flags = JSON_COMPACT | JSON_REAL_PRECISION(9);
    json_t *head = json_object();
    if (!head)
        return -1;
    json_object_set_new(head, "lump", json_string(d->lump));
    json_object_set_new(head, "index", d->lump_index >= 0 ? json_integer(d->lump_index) : json_null());
    json_object_set_new(head, "version", json_integer(d->version));
    json_object_set_new(head, "size", json_integer((json_int_t)d->raw_size));
    json_object_set_new(head, "note", d->note[0] ? json_string(d->note) : json_null());
    size_t begin, end;
    if (d->text || d->table_count == 0) {
        if (d->text) {
            size_t n = d->raw_size;
            const void *nul = memchr(d->raw, '\0', n);
            if (nul)
                n = (size_t)((const uint8_t *)nul - d->raw);
            char *copy = malloc(n + 1);
            if (copy) {
                memcpy(copy, d->raw, n);
                copy[n] = '\0';
            }
            json_object_set_new(head, "text", copy ? cli_json_string(copy) : json_null());
            free(copy);
        } else {
            clamp(r, d->raw_size, &begin, &end);
            char *hex = hex_string(d->raw, begin, end);
            json_object_set_new(head, "first", json_integer((json_int_t)begin));
            json_object_set_new(head, "raw", hex ? json_string(hex) : json_null());
            free(hex);
        }
        int rc = json_dumpf(head, stdout, flags);
        putchar('\n');
        json_decref(head);
        return rc;
    }
    /* Print the head without its closing brace, then the tables. */
    char *text = json_dumps(head, flags);
    json_decref(head);
    if (!text)
        return -1;
    text[strlen(text) - 1] = '\0';
    printf("%s,\"tables\":[", text);
    free(text);
    for (size_t t = 0; t < d->table_count; t++) {
        const bspkit_table *tab = &d->tables[t];
        clamp(r, tab->count, &begin, &end);
        printf("%s{\"name\":\"%s\",\"count\":%zu,\"first\":%zu,\"records\":[", t ? "," : "", tab->name, tab->count,
               begin);
        for (size_t i = begin; i < end; i++) {
            json_t *rec = json_record(tab, bspkit_table_record(tab, i));
            if (!rec)
                return -1;
            if (i > begin)
                putchar(',');
            int rc = json_dumpf(rec, stdout, flags);
            json_decref(rec);
            if (rc != 0)
                return -1;
        }
        printf("]}");
    }
    printf("]}\n");
    return 0;
}

int cmd_dump(int argc, char **argv)
{
    const char *args[2] = {0};
    int nargs = 0;
    bool json = false;
    range r = {0, UINT64_MAX};
    for (int i = 1; i < argc; i++) {
        const char *v;
        int m;
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if ((m = cli_option_value(argc, argv, &i, "--first", &v)) != 0) {
            if (m < 0 || cli_parse_count(v, UINT64_MAX, &r.first) != 0) {
                cli_usage_error("dump", "--first needs a record number");
                return CLI_EXIT_USAGE;
            }
        } else if ((m = cli_option_value(argc, argv, &i, "--count", &v)) != 0) {
            if (m < 0 || cli_parse_count(v, UINT64_MAX, &r.count) != 0) {
                cli_usage_error("dump", "--count needs a number of records");
                return CLI_EXIT_USAGE;
            }
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_usage_error("dump", "unknown option '%s'", argv[i]);
            return CLI_EXIT_USAGE;
        } else if (nargs < 2) {
            args[nargs++] = argv[i];
        } else {
            cli_usage_error("dump", "too many arguments: '%s'", argv[i]);
            return CLI_EXIT_USAGE;
        }
    }
    if (nargs < 2) {
        cli_usage_error("dump", nargs == 0 ? "missing MAP and LUMP" : "missing LUMP");
        return CLI_EXIT_USAGE;
    }
    bspkit_map *map;
    if (cli_open_map(args[0], &map) != 0)
        return CLI_EXIT_UNREADABLE;
    bspkit_dump d;
    bspkit_error err;
    bspkit_result res = bspkit_dump_lump(map, args[1], &d, &err);
    if (res == BSPKIT_ERR_NOT_FOUND) {
        cli_usage_error("dump", "%s: %s", args[0], err.message);
        bspkit_close(map);
        return CLI_EXIT_USAGE;
    }
    if (res != BSPKIT_OK) {
        cli_report_error(args[0], &err);
        bspkit_close(map);
        return CLI_EXIT_UNREADABLE;
    }
    int rc = 0;
    if (json)
        rc = print_json(&d, r);
    else
        print_text(&d, r);
    bspkit_close(map);
    if (rc != 0) {
        fprintf(stderr, "bspkit dump: out of memory writing JSON\n");
        return CLI_EXIT_UNREADABLE;
    }
    return cli_finish_output() == 0 ? CLI_EXIT_OK : CLI_EXIT_UNREADABLE;
}
