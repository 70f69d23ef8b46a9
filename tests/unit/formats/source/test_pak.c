/* The PAKFILE module: archives made by Info-ZIP's `zip` and by a small zip
 * writer in this file are read back and compared with the original bytes;
 * written archives are checked with Info-ZIP's `unzip -t` / `unzip -p`, with
 * a header parser of this file (no extra fields, no data descriptors, no
 * zip64) and, for LZMA entries, by decoding them with liblzma's own .lzma
 * decoder. The CRC-32 used to build test archives is computed here bit by
 * bit, independent of the library's. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bspkit/bspkit.h"
#include "bspkit/pak.h"

#include <errno.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* ------------------------------------------------------------------------ */
/* Helpers: bytes, files, tools                                              */
/* ------------------------------------------------------------------------ */

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, v & 0xFFFF); put16(p + 2, v >> 16); }

/* Bitwise CRC-32 (reflected 0xEDB88320), independent of the library's tables. */
static uint32_t crc32_ref(const uint8_t *d, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= d[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
    }
    return ~c;
}

static uint8_t *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static void spit(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        fail_msg("cannot create %s: %s", path, strerror(errno));
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

static int run(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool have(const char *tool)
{
    return run("command -v %s >/dev/null 2>&1", tool) == 0;
}

/* stdout of a command, whole. */
static uint8_t *capture(size_t *size, const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    assert_non_null(buf);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, p)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    assert_int_equal(pclose(p), 0);
    *size = n;
    return buf;
}

static char g_dir[256];

static int make_dir(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "%s/bspkit-pak-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    run("rm -rf '%s'", g_dir);
    return 0;
}

static const char *path_in(const char *name)
{
    static char buf[4][512];
    static int slot;
    slot = (slot + 1) % 4;
    snprintf(buf[slot], sizeof buf[slot], "%s/%s", g_dir, name);
    return buf[slot];
}

static void require_tools(void)
{
    if (!have("zip") || !have("unzip")) {
        print_message("skipped: Info-ZIP zip/unzip not installed\n");
        skip();
    }
}

/* Deterministic test content: compressible text and incompressible noise. */
static uint8_t *text_bytes(size_t n)
{
    uint8_t *b = malloc(n ? n : 1);
    assert_non_null(b);
    static const char words[] = "\"LightmappedGeneric\" { \"$basetexture\" \"brick/brickwall001\" }\n";
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)words[i % (sizeof words - 1)];
    return b;
}

static uint8_t *noise_bytes(size_t n, uint32_t seed)
{
    uint8_t *b = malloc(n ? n : 1);
    assert_non_null(b);
    uint32_t x = seed ? seed : 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        b[i] = (uint8_t)(x >> 24);
    }
    return b;
}

/* ------------------------------------------------------------------------ */
/* An independent zip parser                                                 */
/* ------------------------------------------------------------------------ */

typedef struct zentry {
    char name[512];
    uint16_t version_needed, flags, method, dostime, dosdate;
    uint32_t crc, csize, usize, local_offset;
    uint16_t cextra, ccomment;
    uint16_t lflags, lmethod, lextra, lname;
    uint32_t lcrc, lcsize, lusize;
    const uint8_t *data; /* compressed data as the local header places it */
} zentry;

typedef struct zarchive {
    size_t count;
    zentry e[64];
    uint16_t comment_len;
    const uint8_t *comment;
    bool zip64_locator;
} zarchive;

static void zparse(const uint8_t *z, size_t n, zarchive *a)
{
    memset(a, 0, sizeof *a);
    assert_true(n >= 22);
    size_t eocd = n - 22;
    while (le32(z + eocd) != 0x06054b50u) {
        assert_true(eocd > 0);
        eocd--;
    }
    a->comment_len = le16(z + eocd + 20);
    a->comment = z + eocd + 22;
    assert_int_equal(eocd + 22 + a->comment_len, n);
    a->zip64_locator = eocd >= 20 && le32(z + eocd - 20) == 0x07064b50u;
    uint16_t count = le16(z + eocd + 10);
    assert_int_equal(count, le16(z + eocd + 8));
    assert_true(count <= 64);
    size_t pos = le32(z + eocd + 16);
    assert_int_equal(pos + le32(z + eocd + 12), eocd);
    for (uint16_t i = 0; i < count; i++) {
        zentry *e = &a->e[i];
        assert_int_equal(le32(z + pos), 0x02014b50u);
        e->version_needed = le16(z + pos + 6);
        e->flags = le16(z + pos + 8);
        e->method = le16(z + pos + 10);
        e->dostime = le16(z + pos + 12);
        e->dosdate = le16(z + pos + 14);
        e->crc = le32(z + pos + 16);
        e->csize = le32(z + pos + 20);
        e->usize = le32(z + pos + 24);
        uint16_t nlen = le16(z + pos + 28);
        e->cextra = le16(z + pos + 30);
        e->ccomment = le16(z + pos + 32);
        e->local_offset = le32(z + pos + 42);
        assert_true(nlen < sizeof e->name);
        memcpy(e->name, z + pos + 46, nlen);
        pos += 46u + nlen + e->cextra + e->ccomment;
        const uint8_t *l = z + e->local_offset;
        assert_int_equal(le32(l), 0x04034b50u);
        e->lflags = le16(l + 6);
        e->lmethod = le16(l + 8);
        e->lcrc = le32(l + 14);
        e->lcsize = le32(l + 18);
        e->lusize = le32(l + 22);
        e->lname = le16(l + 26);
        e->lextra = le16(l + 28);
        e->data = l + 30 + e->lname + e->lextra;
        assert_true((size_t)(e->data - z) + e->csize <= n);
    }
    a->count = count;
}

/* The end record's comment. */
static const uint8_t *eocd_comment(const uint8_t *z, size_t n, size_t *len)
{
    assert_true(n >= 22);
    size_t eocd = n - 22;
    while (le32(z + eocd) != 0x06054b50u) {
        assert_true(eocd > 0);
        eocd--;
    }
    *len = le16(z + eocd + 20);
    return z + eocd + 22;
}

static const zentry *zfind(const zarchive *a, const char *name)
{
    for (size_t i = 0; i < a->count; i++)
        if (strcmp(a->e[i].name, name) == 0)
            return &a->e[i];
    fail_msg("no entry '%s' in the written archive", name);
    return NULL;
}

/* What Valve's reader needs of every entry (see bspkit/pak.h). */
static void assert_engine_layout(const zarchive *a)
{
    assert_false(a->zip64_locator);
    for (size_t i = 0; i < a->count; i++) {
        const zentry *e = &a->e[i];
        assert_int_equal(e->cextra, 0);
        assert_int_equal(e->lextra, 0);
        assert_int_equal(e->flags & 0x0008, 0); /* no data descriptor */
        assert_int_equal(e->lflags, e->flags);
        assert_int_equal(e->lmethod, e->method);
        assert_int_equal(e->lcrc, e->crc);
        assert_int_equal(e->lcsize, e->csize);
        assert_int_equal(e->lusize, e->usize);
        assert_true(e->method == 0 || e->method == 14);
        if (e->method == 0)
            assert_int_equal(e->csize, e->usize);
    }
}

/* Decodes a zip LZMA entry with liblzma's .lzma ("alone") decoder: the
 * 5 property bytes and the 64-bit size make the 13-byte .lzma header. */
static uint8_t *lzma_alone_decode(const zentry *e)
{
    assert_true(e->csize >= 9);
    assert_int_equal(le16(e->data + 2), 5);
    size_t n = 13 + e->csize - 9;
    uint8_t *alone = malloc(n);
    assert_non_null(alone);
    memcpy(alone, e->data + 4, 5);
    put32(alone + 5, e->usize);
    put32(alone + 9, 0);
    memcpy(alone + 13, e->data + 9, e->csize - 9);
    lzma_stream s = LZMA_STREAM_INIT;
    assert_int_equal(lzma_alone_decoder(&s, UINT64_MAX), LZMA_OK);
    uint8_t *out = malloc(e->usize ? e->usize : 1);
    assert_non_null(out);
    s.next_in = alone;
    s.avail_in = n;
    s.next_out = out;
    s.avail_out = e->usize;
    lzma_ret r = lzma_code(&s, LZMA_FINISH);
    assert_int_equal(r, LZMA_STREAM_END);
    assert_int_equal(s.total_out, e->usize);
    lzma_end(&s);
    free(alone);

    /* Valve writes no end marker: liblzma's LZMA1 decoder told the size and
     * not to allow one rejects a stream that has it, and must consume all
     * the entry's bytes. */
    lzma_options_lzma opt;
    memset(&opt, 0, sizeof opt);
    unsigned b = e->data[4];
    opt.lc = b % 9;
    opt.lp = (b / 9) % 5;
    opt.pb = b / 45;
    opt.dict_size = le32(e->data + 5);
    opt.ext_flags = 0;
    lzma_set_ext_size(opt, (uint64_t)e->usize);
    lzma_filter f[2] = {{.id = LZMA_FILTER_LZMA1EXT, .options = &opt}, {.id = LZMA_VLI_UNKNOWN, .options = NULL}};
    uint8_t *again = malloc(e->usize ? e->usize : 1);
    assert_non_null(again);
    lzma_stream t = LZMA_STREAM_INIT;
    assert_int_equal(lzma_raw_decoder(&t, f), LZMA_OK);
    t.next_in = e->data + 9;
    t.avail_in = e->csize - 9;
    t.next_out = again;
    t.avail_out = e->usize;
    assert_int_equal(lzma_code(&t, LZMA_FINISH), LZMA_STREAM_END);
    assert_int_equal(t.total_in, e->csize - 9);
    assert_int_equal(t.total_out, e->usize);
    lzma_end(&t);
    assert_memory_equal(again, out, e->usize);
    free(again);
    return out;
}

/* ------------------------------------------------------------------------ */
/* A small zip writer for archives Info-ZIP will not make                    */
/* ------------------------------------------------------------------------ */

typedef struct zspec {
    const char *name;
    uint16_t method, flags;
    const uint8_t *data; /* bytes as stored */
    size_t data_size;
    uint32_t usize, crc;
    uint16_t local_extra, central_extra; /* zero bytes of padding */
} zspec;

/* `xzp2`: central headers count their extra bytes but do not carry them,
 * as Xbox 360 maps' pakfiles do. */
static uint8_t *zbuild(const zspec *s, size_t count, bool xzp2, const char *comment, size_t *size)
{
    size_t cap = 1024;
    for (size_t i = 0; i < count; i++)
        cap += 2 * (46 + strlen(s[i].name)) + s[i].local_extra + s[i].central_extra + s[i].data_size;
    uint8_t *z = calloc(1, cap + (comment ? strlen(comment) : 0));
    assert_non_null(z);
    size_t w = 0;
    uint32_t offsets[64];
    for (size_t i = 0; i < count; i++) {
        offsets[i] = (uint32_t)w;
        put32(z + w, 0x04034b50u);
        put16(z + w + 4, s[i].method == 14 ? 63 : 10);
        put16(z + w + 6, s[i].flags);
        put16(z + w + 8, s[i].method);
        put16(z + w + 12, 0x21);
        put32(z + w + 14, s[i].crc);
        put32(z + w + 18, (uint32_t)s[i].data_size);
        put32(z + w + 22, s[i].usize);
        put16(z + w + 26, (uint32_t)strlen(s[i].name));
        put16(z + w + 28, s[i].local_extra);
        w += 30;
        memcpy(z + w, s[i].name, strlen(s[i].name));
        w += strlen(s[i].name) + s[i].local_extra;
        if (s[i].data_size)
            memcpy(z + w, s[i].data, s[i].data_size);
        w += s[i].data_size;
    }
    size_t cd = w;
    for (size_t i = 0; i < count; i++) {
        put32(z + w, 0x02014b50u);
        put16(z + w + 4, 20);
        put16(z + w + 6, s[i].method == 14 ? 63 : 10);
        put16(z + w + 8, s[i].flags);
        put16(z + w + 10, s[i].method);
        put16(z + w + 14, 0x21);
        put32(z + w + 16, s[i].crc);
        put32(z + w + 20, (uint32_t)s[i].data_size);
        put32(z + w + 24, s[i].usize);
        put16(z + w + 28, (uint32_t)strlen(s[i].name));
        put16(z + w + 30, s[i].central_extra);
        put32(z + w + 42, offsets[i]);
        w += 46;
        memcpy(z + w, s[i].name, strlen(s[i].name));
        w += strlen(s[i].name) + (xzp2 ? 0 : s[i].central_extra);
    }
    size_t clen = comment ? strlen(comment) : 0;
    put32(z + w, 0x06054b50u);
    put16(z + w + 8, (uint32_t)count);
    put16(z + w + 10, (uint32_t)count);
    put32(z + w + 12, (uint32_t)(w - cd));
    put32(z + w + 16, (uint32_t)cd);
    put16(z + w + 20, (uint32_t)clen);
    w += 22;
    memcpy(z + w, comment ? comment : "", clen);
    *size = w + clen;
    return z;
}

static zspec stored(const char *name, const uint8_t *data, size_t size)
{
    return (zspec){name, 0, 0, data, size, (uint32_t)size, crc32_ref(data, size), 0, 0};
}

/* Zip LZMA data: version, properties size, properties, raw LZMA1. With
 * `eos` the stream ends with an end marker (LZMA_FILTER_LZMA1 always writes
 * one) and the entry must carry flag bit 1. */
static uint8_t *lzma_zip_data(const uint8_t *src, size_t n, bool eos, size_t *out_size)
{
    lzma_options_lzma opt;
    assert_false(lzma_lzma_preset(&opt, 1));
    opt.dict_size = 1u << 16;
    opt.ext_flags = 0;
    lzma_filter f[2] = {{.id = eos ? LZMA_FILTER_LZMA1 : LZMA_FILTER_LZMA1EXT, .options = &opt},
                        {.id = LZMA_VLI_UNKNOWN, .options = NULL}};
    size_t cap = n + n / 2 + 1024;
    uint8_t *out = malloc(cap);
    assert_non_null(out);
    out[0] = 9;
    out[1] = 20;
    put16(out + 2, 5);
    out[4] = (uint8_t)((opt.pb * 5 + opt.lp) * 9 + opt.lc);
    put32(out + 5, opt.dict_size);
    size_t pos = 0;
    assert_int_equal(lzma_raw_buffer_encode(f, NULL, src, n, out + 9, &pos, cap - 9), LZMA_OK);
    *out_size = 9 + pos;
    return out;
}

/* ------------------------------------------------------------------------ */
/* Convenience around the module                                             */
/* ------------------------------------------------------------------------ */

static bspkit_pak *open_bytes(const uint8_t *z, size_t n)
{
    bspkit_pak *p = NULL;
    CHECK(bspkit_pak_open(z, n, NULL, &p, ERR));
    assert_non_null(p);
    return p;
}

static void assert_entry_bytes(bspkit_pak *p, const char *name, const uint8_t *want, size_t want_size)
{
    size_t idx;
    CHECK(bspkit_pak_find(p, name, &idx, ERR));
    uint8_t *got = NULL;
    size_t got_size = 0;
    CHECK(bspkit_pak_read(p, idx, &got, &got_size, ERR));
    assert_int_equal(got_size, want_size);
    if (want_size)
        assert_memory_equal(got, want, want_size);
    free(got);
}

/* Writes `z` to a file and runs `unzip -t`: exit 0 or the test fails. */
static void unzip_test(const uint8_t *z, size_t n, const char *file)
{
    spit(path_in(file), z, n);
    int st = run("unzip -tqq '%s' >/dev/null 2>&1", path_in(file));
    if (st != 0)
        fail_msg("unzip -t %s failed with %d", file, st);
}

static void unzip_same(const char *file, const char *entry, const uint8_t *want, size_t want_size)
{
    size_t n = 0;
    uint8_t *got = capture(&n, "unzip -p '%s' '%s'", path_in(file), entry);
    assert_int_equal(n, want_size);
    if (n)
        assert_memory_equal(got, want, n);
    free(got);
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                     */
/* ------------------------------------------------------------------------ */

static void test_empty_lump_and_empty_zip(void **state)
{
    (void)state;
    bspkit_pak *p = open_bytes(NULL, 0);
    assert_int_equal(bspkit_pak_count(p), 0);
    uint8_t *z = NULL;
    size_t n = 0;
    CHECK(bspkit_pak_write(p, BSPKIT_PAK_KEEP, &z, &n, ERR));
    assert_int_equal(n, 22);
    static const uint8_t eocd[22] = {'P', 'K', 5, 6};
    assert_memory_equal(z, eocd, 22);
    bspkit_pak_close(p);

    /* An empty zip as Valve's tools write it keeps its "XZP1 0" comment. */
    uint8_t valve[54] = {'P', 'K', 5, 6};
    put16(valve + 20, 32);
    memcpy(valve + 22, "XZP1 0", 6);
    p = open_bytes(valve, sizeof valve);
    assert_int_equal(bspkit_pak_count(p), 0);
    free(z);
    CHECK(bspkit_pak_write(p, BSPKIT_PAK_STORE, &z, &n, ERR));
    assert_int_equal(n, sizeof valve);
    assert_memory_equal(z, valve, sizeof valve);
    free(z);
    bspkit_pak_close(p);
}

static void test_read_infozip(void **state)
{
    (void)state;
    require_tools();
    uint8_t *text = text_bytes(50000), *noise = noise_bytes(20000, 7);
    run("mkdir -p '%s/src/Materials/Brick'", g_dir);
    spit(path_in("src/Materials/Brick/Wall.vmt"), text, 50000);
    spit(path_in("src/noise.bin"), noise, 20000);
    spit(path_in("src/empty.txt"), "", 0);
    assert_int_equal(run("cd '%s/src' && zip -qr ../deflate.zip Materials noise.bin empty.txt", g_dir), 0);
    assert_int_equal(run("cd '%s/src' && zip -qr0 ../stored.zip Materials noise.bin empty.txt", g_dir), 0);
    assert_int_equal(run("cd '%s/src' && zip -qr0X ../plain.zip Materials noise.bin empty.txt", g_dir), 0);

    const char *kinds[3] = {"deflate.zip", "stored.zip", "plain.zip"};
    for (int k = 0; k < 3; k++) {
        size_t n;
        uint8_t *z = slurp(path_in(kinds[k]), &n);
        bspkit_pak *p = open_bytes(z, n);
        zarchive a;
        zparse(z, n, &a);
        assert_int_equal(bspkit_pak_count(p), a.count); /* directory entries included */
        assert_entry_bytes(p, "Materials/Brick/Wall.vmt", text, 50000);
        assert_entry_bytes(p, "noise.bin", noise, 20000);
        assert_entry_bytes(p, "empty.txt", NULL, 0);
        for (size_t i = 0; i < bspkit_pak_count(p); i++) {
            bspkit_pak_entry e;
            CHECK(bspkit_pak_entry_info(p, i, &e, ERR));
            const zentry *ze = zfind(&a, e.name);
            assert_int_equal(e.method, ze->method);
            assert_int_equal(e.size, ze->usize);
            assert_int_equal(e.compressed_size, ze->csize);
            assert_int_equal(e.crc32, ze->crc);
            assert_false(e.added);
            /* The engine reads data where the central header's lengths put
             * it: Info-ZIP's local time stamps are longer than the central
             * ones unless -X drops them. */
            bool readable = (ze->method == 0 || ze->method == 14) &&
                            ze->lextra + ze->lname == ze->cextra + strlen(ze->name);
            assert_int_equal(e.engine_readable, readable);
            if (k == 1 && ze->csize > 0)
                assert_false(e.engine_readable);
            if (k == 2)
                assert_true(e.engine_readable);
        }
        size_t idx;
        assert_int_equal(bspkit_pak_find(p, "MATERIALS\\brick\\wall.VMT", &idx, ERR), BSPKIT_OK);
        assert_int_equal(bspkit_pak_find(p, "./materials//brick/./wall.vmt", &idx, ERR), BSPKIT_OK);
        assert_int_equal(bspkit_pak_find(p, "materials/brick", &idx, ERR), BSPKIT_OK); /* the directory entry */
        assert_int_equal(bspkit_pak_find(p, "materials/brick/wall.vtf", &idx, ERR), BSPKIT_ERR_NOT_FOUND);
        assert_int_equal(g_err.lump, BSPKIT_S_PAKFILE);
        bspkit_pak_close(p);
        free(z);
    }
    free(text);
    free(noise);
}

static void test_add_remove_write(void **state)
{
    (void)state;
    require_tools();
    uint8_t *text = text_bytes(30000), *noise = noise_bytes(5000, 3), *more = text_bytes(777);
    run("mkdir -p '%s/in/scripts'", g_dir);
    spit(path_in("in/a.txt"), text, 30000);
    spit(path_in("in/scripts/x.nut"), noise, 5000);
    spit(path_in("in/scripts/y.nut"), more, 777);
    assert_int_equal(run("cd '%s/in' && zip -q ../in.zip a.txt scripts/x.nut scripts/y.nut", g_dir), 0);
    size_t n;
    uint8_t *z = slurp(path_in("in.zip"), &n);
    bspkit_pak *p = open_bytes(z, n);
    assert_int_equal(bspkit_pak_count(p), 3);

    CHECK(bspkit_pak_add(p, "Materials\\Custom\\Foo.VMT", more, 777, ERR));
    CHECK(bspkit_pak_add(p, "./A.TXT", noise, 100, ERR)); /* replaces a.txt in place */
    assert_int_equal(bspkit_pak_count(p), 4);
    bspkit_pak_entry e;
    CHECK(bspkit_pak_entry_info(p, 0, &e, ERR));
    assert_string_equal(e.name, "a.txt");
    assert_true(e.added);
    assert_int_equal(e.size, 100);
    CHECK(bspkit_pak_entry_info(p, 3, &e, ERR));
    assert_string_equal(e.name, "materials/custom/foo.vmt");
    assert_int_equal(e.crc32, crc32_ref(more, 777));

    size_t removed = 0;
    CHECK(bspkit_pak_remove(p, "SCRIPTS/x.*", &removed, ERR));
    assert_int_equal(removed, 1);
    CHECK(bspkit_pak_remove(p, "nothing/*", &removed, ERR));
    assert_int_equal(removed, 0);
    assert_int_equal(bspkit_pak_count(p), 3);

    uint8_t *out = NULL;
    size_t out_size = 0;
    CHECK(bspkit_pak_write(p, BSPKIT_PAK_KEEP, &out, &out_size, ERR));
    zarchive a;
    zparse(out, out_size, &a);
    assert_int_equal(a.count, 3);
    assert_engine_layout(&a);
    assert_string_equal(a.e[0].name, "a.txt");
    assert_string_equal(a.e[1].name, "scripts/y.nut");
    assert_string_equal(a.e[2].name, "materials/custom/foo.vmt");
    /* Deflated entries are stored: the engine reads no other method. */
    for (size_t i = 0; i < a.count; i++)
        assert_int_equal(a.e[i].method, 0);
    /* Added entries are dated 1980-01-01 00:00 so output is reproducible. */
    assert_int_equal(a.e[0].dosdate, 0x21);
    assert_int_equal(a.e[0].dostime, 0);
    assert_int_equal(a.e[1].crc, crc32_ref(more, 777));

    unzip_test(out, out_size, "out.zip");
    unzip_same("out.zip", "a.txt", noise, 100);
    unzip_same("out.zip", "scripts/y.nut", more, 777);
    unzip_same("out.zip", "materials/custom/foo.vmt", more, 777);

    bspkit_pak *q = open_bytes(out, out_size);
    assert_int_equal(bspkit_pak_count(q), 3);
    assert_entry_bytes(q, "a.txt", noise, 100);
    assert_entry_bytes(q, "scripts/y.nut", more, 777);
    for (size_t i = 0; i < 3; i++) {
        CHECK(bspkit_pak_entry_info(q, i, &e, ERR));
        assert_true(e.engine_readable);
    }

    /* The same input writes the same bytes. */
    uint8_t *again = NULL;
    size_t again_size = 0;
    CHECK(bspkit_pak_write(p, BSPKIT_PAK_KEEP, &again, &again_size, ERR));
    assert_int_equal(again_size, out_size);
    assert_memory_equal(again, out, out_size);

    free(again);
    bspkit_pak_close(q);
    free(out);
    bspkit_pak_close(p);
    free(z);
    free(text);
    free(noise);
    free(more);
}

static void test_repack_lzma_and_back(void **state)
{
    (void)state;
    require_tools();
    uint8_t *text = text_bytes(200000), *noise = noise_bytes(4096, 11), *small = text_bytes(5);
    zspec s[4] = {stored("maps/cfg/big.txt", text, 200000), stored("sound/noise.wav", noise, 4096),
                  stored("tiny.txt", small, 5), stored("empty", NULL, 0)};
    size_t n;
    uint8_t *z = zbuild(s, 4, false, NULL, &n);
    bspkit_pak *p = open_bytes(z, n);

    uint8_t *lz = NULL;
    size_t lz_size = 0;
    CHECK(bspkit_pak_write(p, BSPKIT_PAK_LZMA, &lz, &lz_size, ERR));
    zarchive a;
    zparse(lz, lz_size, &a);
    assert_int_equal(a.count, 4);
    assert_engine_layout(&a);
    const zentry *big = zfind(&a, "maps/cfg/big.txt");
    assert_int_equal(big->method, 14);
    assert_int_equal(big->flags & 0x0002, 0); /* no end marker, as Valve writes */
    assert_int_equal(big->version_needed, 63);
    assert_true(big->csize < 200000 / 10);
    assert_int_equal(big->crc, crc32_ref(text, 200000));
    uint8_t *dec = lzma_alone_decode(big);
    assert_memory_equal(dec, text, 200000);
    free(dec);
    /* Noise, 5 bytes and nothing do not shrink: stored. */
    assert_int_equal(zfind(&a, "sound/noise.wav")->method, 0);
    assert_int_equal(zfind(&a, "tiny.txt")->method, 0);
    assert_int_equal(zfind(&a, "empty")->method, 0);
    assert_memory_equal(zfind(&a, "sound/noise.wav")->data, noise, 4096);

    /* Python's zipfile decodes LZMA entries and checks every CRC. */
    spit(path_in("lzma.zip"), lz, lz_size);
    if (have("python3"))
        assert_int_equal(run("python3 -c 'import sys,zipfile; z=zipfile.ZipFile(sys.argv[1]); "
                             "sys.exit(1 if z.testzip() else 0)' '%s'",
                             path_in("lzma.zip")),
                         0);

    /* Our own reader, and KEEP copying the LZMA entry untouched. */
    bspkit_pak *q = open_bytes(lz, lz_size);
    assert_entry_bytes(q, "maps/cfg/big.txt", text, 200000);
    assert_entry_bytes(q, "sound/noise.wav", noise, 4096);
    assert_entry_bytes(q, "empty", NULL, 0);
    uint8_t *kept = NULL;
    size_t kept_size = 0;
    CHECK(bspkit_pak_write(q, BSPKIT_PAK_KEEP, &kept, &kept_size, ERR));
    zarchive k;
    zparse(kept, kept_size, &k);
    const zentry *kbig = zfind(&k, "maps/cfg/big.txt");
    assert_int_equal(kbig->method, 14);
    assert_int_equal(kbig->csize, big->csize);
    assert_memory_equal(kbig->data, big->data, big->csize);

    /* And back to stored: what every branch reads, and unzip can test. */
    uint8_t *st = NULL;
    size_t st_size = 0;
    CHECK(bspkit_pak_write(q, BSPKIT_PAK_STORE, &st, &st_size, ERR));
    zarchive b;
    zparse(st, st_size, &b);
    assert_engine_layout(&b);
    for (size_t i = 0; i < b.count; i++)
        assert_int_equal(b.e[i].method, 0);
    unzip_test(st, st_size, "stored.zip");
    unzip_same("stored.zip", "maps/cfg/big.txt", text, 200000);
    unzip_same("stored.zip", "tiny.txt", small, 5);

    free(st);
    free(kept);
    bspkit_pak_close(q);
    free(lz);
    bspkit_pak_close(p);
    free(z);
    free(text);
    free(noise);
    free(small);
}

static void test_lzma_entries_from_elsewhere(void **state)
{
    (void)state;
    uint8_t *text = text_bytes(70000);
    size_t a_size, b_size;
    uint8_t *with_eos = lzma_zip_data(text, 70000, true, &a_size);
    uint8_t *without = lzma_zip_data(text, 70000, false, &b_size);
    assert_true(a_size > b_size); /* the end marker costs bytes */
    uint32_t crc = crc32_ref(text, 70000);
    zspec s[2] = {{"eos.txt", 14, 0x0002, with_eos, a_size, 70000, crc, 0, 0},
                  {"plain.txt", 14, 0, without, b_size, 70000, crc, 0, 0}};
    size_t n;
    uint8_t *z = zbuild(s, 2, false, NULL, &n);
    bspkit_pak *p = open_bytes(z, n);
    assert_entry_bytes(p, "eos.txt", text, 70000);
    assert_entry_bytes(p, "plain.txt", text, 70000);
    bspkit_pak_entry e;
    CHECK(bspkit_pak_entry_info(p, 0, &e, ERR));
    assert_int_equal(e.flags, 0x0002);
    assert_int_equal(e.method, 14);
    assert_true(e.engine_readable);

    /* KEEP copies both raw, the end-marker flag included. */
    uint8_t *out = NULL;
    size_t out_size = 0;
    CHECK(bspkit_pak_write(p, BSPKIT_PAK_KEEP, &out, &out_size, ERR));
    zarchive a;
    zparse(out, out_size, &a);
    assert_int_equal(zfind(&a, "eos.txt")->flags & 0x0002, 0x0002);
    assert_int_equal(zfind(&a, "plain.txt")->flags & 0x0002, 0);
    assert_memory_equal(zfind(&a, "eos.txt")->data, with_eos, a_size);
    bspkit_pak_close(p);
    free(out);

    /* Intact LZMA data under a wrong CRC: only the CRC check can tell. */
    zspec wrong = s[1];
    wrong.crc ^= 0x00100000u;
    free(z);
    z = zbuild(&wrong, 1, false, NULL, &n);
    p = open_bytes(z, n);
    uint8_t *bad = NULL;
    size_t bad_size = 0;
    assert_int_equal(bspkit_pak_read(p, 0, &bad, &bad_size, ERR), BSPKIT_ERR_COMPRESSION);
    assert_non_null(strstr(g_err.message, "CRC"));
    assert_null(bad);
    bspkit_pak_close(p);

    /* A corrupt LZMA stream fails cleanly, and so does a write that would copy it. */
    with_eos[a_size / 2] ^= 0x55;
    with_eos[a_size / 2 + 1] ^= 0xAA;
    free(z);
    z = zbuild(s, 1, false, NULL, &n);
    p = open_bytes(z, n);
    uint8_t *got = NULL;
    size_t got_size = 0;
    assert_int_equal(bspkit_pak_read(p, 0, &got, &got_size, ERR), BSPKIT_ERR_COMPRESSION);
    assert_null(got);
    assert_non_null(strstr(g_err.message, "eos.txt"));
    assert_int_equal(bspkit_pak_write(p, BSPKIT_PAK_KEEP, &out, &out_size, ERR), BSPKIT_ERR_COMPRESSION);
    assert_null(out);
    bspkit_pak_close(p);

    /* Python writes LZMA with an end marker and flag bit 1. */
    if (have("python3")) {
        spit(path_in("text.bin"), text, 70000);
        assert_int_equal(run("python3 -c 'import sys,zipfile; z=zipfile.ZipFile(sys.argv[1],\"w\"); "
                             "z.write(sys.argv[2],\"py/text.bin\",compress_type=zipfile.ZIP_LZMA); z.close()' "
                             "'%s' '%s'",
                             path_in("py.zip"), path_in("text.bin")),
                         0);
        free(z);
        z = slurp(path_in("py.zip"), &n);
        p = open_bytes(z, n);
        assert_entry_bytes(p, "py/text.bin", text, 70000);
        bspkit_pak_close(p);
    }
    free(z);
    free(with_eos);
    free(without);
    free(text);
}

/* Rewrites the uncompressed size and CRC of entry 0 in both headers. */
static void patch_usize(uint8_t *z, size_t n, uint32_t usize, uint32_t crc)
{
    zarchive a;
    zparse(z, n, &a);
    size_t eocd = n - 22 - a.comment_len;
    size_t cd = le32(z + eocd + 16);
    put32(z + cd + 24, usize);
    put32(z + a.e[0].local_offset + 22, usize);
    put32(z + cd + 16, crc);
    put32(z + a.e[0].local_offset + 14, crc);
}

static void test_limits_and_bombs(void **state)
{
    (void)state;
    require_tools();
    uint8_t *zeros = calloc(1, 1 << 20);
    assert_non_null(zeros);
    spit(path_in("zeros.bin"), zeros, 1 << 20);
    assert_int_equal(run("cd '%s' && zip -q9 bomb.zip zeros.bin", g_dir), 0);
    size_t n;
    uint8_t *z = slurp(path_in("bomb.zip"), &n);

    /* A declared size far beyond the limit is refused before allocating. */
    patch_usize(z, n, 0xF0000000u, 0);
    bspkit_pak *p = open_bytes(z, n);
    uint8_t *got = NULL;
    size_t got_size = 0;
    assert_int_equal(bspkit_pak_read(p, 0, &got, &got_size, ERR), BSPKIT_ERR_LIMIT);
    assert_non_null(strstr(g_err.message, "zeros.bin"));
    assert_null(got);
    bspkit_pak_close(p);

    /* Data that inflates past its declared size is cut off, not followed,
     * even when its first bytes match the declared CRC. */
    patch_usize(z, n, 1000, crc32_ref(zeros, 1000));
    p = open_bytes(z, n);
    assert_int_equal(bspkit_pak_read(p, 0, &got, &got_size, ERR), BSPKIT_ERR_COMPRESSION);
    assert_non_null(strstr(g_err.message, "past its declared"));
    assert_null(got);
    bspkit_pak_close(p);

    /* A lower limit from the options. */
    free(z);
    z = slurp(path_in("bomb.zip"), &n);
    bspkit_pak_options o = {.max_entry_size = 4096};
    CHECK(bspkit_pak_open(z, n, &o, &p, ERR));
    assert_int_equal(bspkit_pak_read(p, 0, &got, &got_size, ERR), BSPKIT_ERR_LIMIT);
    assert_int_equal(bspkit_pak_add(p, "x.bin", zeros, 4097, ERR), BSPKIT_ERR_LIMIT);
    CHECK(bspkit_pak_add(p, "x.bin", zeros, 4096, ERR));
    /* The oversized entry cannot be checked, so it cannot be written either. */
    uint8_t *out = NULL;
    size_t out_size = 0;
    assert_int_equal(bspkit_pak_write(p, BSPKIT_PAK_KEEP, &out, &out_size, ERR), BSPKIT_ERR_LIMIT);
    bspkit_pak_close(p);
    free(z);
    free(zeros);
}

static void test_corrupt_archives(void **state)
{
    (void)state;
    uint8_t *text = text_bytes(3000);
    zspec s[2] = {stored("a.txt", text, 3000), stored("b.txt", text, 100)};
    size_t n;
    uint8_t *z = zbuild(s, 2, false, NULL, &n);
    bspkit_pak *p = NULL;

    /* Not a zip at all, and a zip cut short. */
    assert_int_equal(bspkit_pak_open(text, 3000, NULL, &p, ERR), BSPKIT_ERR_UNKNOWN_FORMAT);
    assert_null(p);
    assert_int_equal(g_err.lump, BSPKIT_S_PAKFILE);
    assert_int_equal(bspkit_pak_open(z, n / 2, NULL, &p, ERR), BSPKIT_ERR_UNKNOWN_FORMAT);
    assert_int_equal(bspkit_pak_open(z, 21, NULL, &p, ERR), BSPKIT_ERR_UNKNOWN_FORMAT);
    /* Central directory offset pointing past the end. */
    uint8_t *bad = malloc(n);
    assert_non_null(bad);
    memcpy(bad, z, n);
    put32(bad + n - 22 + 16, 0x7FFFFFF0u);
    assert_int_equal(bspkit_pak_open(bad, n, NULL, &p, ERR), BSPKIT_ERR_UNKNOWN_FORMAT);
    /* Every truncation fails cleanly or opens what is left. */
    for (size_t cut = 0; cut < n; cut += 7) {
        if (bspkit_pak_open(z, cut, NULL, &p, ERR) == BSPKIT_OK)
            bspkit_pak_close(p);
    }

    /* A flipped data byte: the CRC catches it, on read and on write. */
    memcpy(bad, z, n);
    bad[30 + 5 + 1000] ^= 1;
    p = open_bytes(bad, n);
    uint8_t *got = NULL;
    size_t got_size = 0;
    assert_int_equal(bspkit_pak_read(p, 0, &got, &got_size, ERR), BSPKIT_ERR_COMPRESSION);
    assert_non_null(strstr(g_err.message, "a.txt"));
    assert_null(got);
    assert_entry_bytes(p, "b.txt", text, 100);
    uint8_t *out = NULL;
    size_t out_size = 0;
    assert_int_equal(bspkit_pak_write(p, BSPKIT_PAK_STORE, &out, &out_size, ERR), BSPKIT_ERR_COMPRESSION);
    assert_int_equal(bspkit_pak_write(p, BSPKIT_PAK_KEEP, &out, &out_size, ERR), BSPKIT_ERR_COMPRESSION);
    assert_null(out);
    /* Removing the damaged entry makes the rest writable. */
    CHECK(bspkit_pak_remove(p, "a.txt", NULL, ERR));
    CHECK(bspkit_pak_write(p, BSPKIT_PAK_KEEP, &out, &out_size, ERR));
    free(out);
    bspkit_pak_close(p);

    /* Encrypted and unknown methods are reported, not guessed at. */
    zspec odd[2] = {stored("locked.txt", text, 10), stored("weird.bin", text, 10)};
    odd[0].flags = 0x0001;
    odd[1].method = 97;
    free(z);
    z = zbuild(odd, 2, false, NULL, &n);
    p = open_bytes(z, n);
    assert_int_equal(bspkit_pak_read(p, 0, &got, &got_size, ERR), BSPKIT_ERR_UNSUPPORTED);
    assert_int_equal(bspkit_pak_read(p, 1, &got, &got_size, ERR), BSPKIT_ERR_UNSUPPORTED);
    assert_non_null(strstr(g_err.message, "97"));
    bspkit_pak_entry e;
    CHECK(bspkit_pak_entry_info(p, 1, &e, ERR));
    assert_false(e.engine_readable);
    bspkit_pak_close(p);

    free(bad);
    free(z);
    free(text);
}

static void test_xzp2(void **state)
{
    (void)state;
    require_tools();
    uint8_t *a = text_bytes(3000), *b = noise_bytes(1500, 5);
    /* Each entry's data padded to a 2048 boundary through its extra field,
     * which the central directory counts but leaves out. */
    zspec s[2] = {stored("__preload_section.pre", a, 3000), stored("materials/x.vtf", b, 1500)};
    s[0].local_extra = s[0].central_extra = (uint16_t)(2048 - (30 + strlen(s[0].name)));
    size_t second = 2048 + 3000;
    s[1].local_extra = s[1].central_extra = (uint16_t)(2048 - (second + 30 + strlen(s[1].name)) % 2048);
    size_t n;
    uint8_t *z = zbuild(s, 2, true, "XZP2 2048", &n);
    bspkit_pak *p = open_bytes(z, n);
    assert_int_equal(bspkit_pak_count(p), 2);
    assert_entry_bytes(p, "__preload_section.pre", a, 3000);
    assert_entry_bytes(p, "materials/x.vtf", b, 1500);
    bspkit_pak_entry e;
    CHECK(bspkit_pak_entry_info(p, 1, &e, ERR));
    assert_true(e.engine_readable);

    uint8_t *out = NULL;
    size_t out_size = 0;
    CHECK(bspkit_pak_write(p, BSPKIT_PAK_KEEP, &out, &out_size, ERR));
    zarchive w;
    zparse(out, out_size, &w);
    assert_engine_layout(&w);
    assert_int_equal(w.comment_len, 0); /* the XZP2 marker would now be a lie */
    unzip_test(out, out_size, "x360.zip");
    unzip_same("x360.zip", "materials/x.vtf", b, 1500);
    free(out);
    bspkit_pak_close(p);
    free(z);
    free(a);
    free(b);
}

static void test_names_and_globs(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } ok[] = {
        {"a/b.txt", "a/b.txt"},
        {"a\\b\\C.txt", "a/b/C.txt"},
        {"./x//y/./z", "x/y/z"},
        {"dir/", "dir/"},
        {"dir\\sub\\", "dir/sub/"},
        {"...", "..."},
        {"a..b/c", "a..b/c"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char *out = NULL;
        CHECK(bspkit_pak_safe_path(ok[i].in, &out, ERR));
        assert_string_equal(out, ok[i].out);
        free(out);
    }
    static const char *const bad[] = {"", "/etc/passwd", "\\server\\x", "C:evil", "c:/x", "../x", "a/../../b",
                                      "a\\..\\b", "..", "./", "a/\x01b", "x/\x7f"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *out = (char *)1;
        assert_int_equal(bspkit_pak_safe_path(bad[i], &out, ERR), BSPKIT_ERR_ARGUMENT);
        assert_null(out);
    }

    static const struct {
        const char *glob, *name;
        bool match;
    } g[] = {
        {"*", "a/b/c.txt", true},
        {"materials/*", "Materials\\Brick\\x.vtf", true},
        {"*.vtf", "materials/a.vtf", true},
        {"*.vtf", "materials/a.vmt", false},
        {"a?c", "abc", true},
        {"a?c", "ac", false},
        {"[mn]aps/*", "maps/x", true},
        {"[!m]aps/*", "maps/x", false},
        {"[a-c]*", "Bravo", true},
        {"x\\*", "x*", true},
        {"x\\*", "xy", false},
        {"*a*b*c", "aXbYc", true},
        {"*a*b*c", "aXbYcZ", false},
        {"[abc", "[abc", true},
        {"", "", true},
        {"", "a", false},
        /* The library's one glob matcher: '^' negates, '\\' escapes inside sets too, and an
         * escaped backslash in the pattern is a path separator like the name's. */
        {"[^m]aps/*", "maps/x", false},
        {"[\\]a]x", "]x", true},
        {"a\\\\b", "a/b", true},
        {"a/b", "A\\B", true},
    };
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
        if (bspkit_pak_glob_match(g[i].glob, g[i].name) != g[i].match)
            fail_msg("glob '%s' vs '%s' should be %d", g[i].glob, g[i].name, g[i].match);

    bspkit_pak *p = open_bytes(NULL, 0);
    assert_int_equal(bspkit_pak_add(p, "../escape.txt", "x", 1, ERR), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(bspkit_pak_add(p, "/abs.txt", "x", 1, ERR), BSPKIT_ERR_ARGUMENT);
    assert_int_equal(bspkit_pak_add(p, "somedir/", "x", 1, ERR), BSPKIT_ERR_ARGUMENT);
    char longname[300];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    assert_int_equal(bspkit_pak_add(p, longname, "x", 1, ERR), BSPKIT_ERR_ARGUMENT);
    longname[260] = '\0'; /* 260 bytes and its NUL overflow char[MAX_PATH] */
    assert_int_equal(bspkit_pak_add(p, longname, "x", 1, ERR), BSPKIT_ERR_ARGUMENT);
    longname[259] = '\0';
    CHECK(bspkit_pak_add(p, longname, "x", 1, ERR));
    assert_int_equal(bspkit_pak_count(p), 1);
    assert_string_equal(bspkit_pak_method_name(14), "lzma");
    assert_string_equal(bspkit_pak_method_name(0), "store");
    assert_null(bspkit_pak_method_name(4242));
    bspkit_pak_close(p);
}

static void test_duplicates_and_comment(void **state)
{
    (void)state;
    zspec s[3] = {stored("dup.txt", (const uint8_t *)"first", 5), stored("other.txt", (const uint8_t *)"o", 1),
                  stored("dup.txt", (const uint8_t *)"second", 6)};
    size_t n;
    uint8_t *z = zbuild(s, 3, false, "XZP1 0", &n);
    bspkit_pak *p = open_bytes(z, n);
    assert_int_equal(bspkit_pak_count(p), 3);
    assert_entry_bytes(p, "DUP.TXT", (const uint8_t *)"first", 5); /* find: the first */
    uint8_t *out = NULL;
    size_t out_size = 0;
    CHECK(bspkit_pak_write(p, BSPKIT_PAK_KEEP, &out, &out_size, ERR));
    zarchive a;
    zparse(out, out_size, &a);
    assert_int_equal(a.count, 2);
    assert_int_equal(a.comment_len, 6);
    assert_memory_equal(a.comment, "XZP1 0", 6);
    assert_memory_equal(zfind(&a, "dup.txt")->data, "first", 5);
    free(out);
    /* add() replaces every entry of the name, the first in place. */
    CHECK(bspkit_pak_add(p, "Dup.txt", "third", 5, ERR));
    assert_int_equal(bspkit_pak_count(p), 2);
    bspkit_pak_entry e;
    CHECK(bspkit_pak_entry_info(p, 0, &e, ERR));
    assert_string_equal(e.name, "dup.txt");
    assert_entry_bytes(p, "dup.txt", (const uint8_t *)"third", 5);
    bspkit_pak_close(p);
    free(z);
}

/* Every Source map of the shared corpus: entry count (and methods, where the
 * manifest counted them all) from MANIFEST.tsv, every entry read and
 * CRC-checked, and a rewrite read back entry by entry. */
static void test_real_maps(void **state)
{
    (void)state;
    char path[8192 + 256];
    snprintf(path, sizeof path, "%s/MANIFEST.tsv", BSPKIT_SHARED_MAPS);
    FILE *f = fopen(path, "r");
    if (!f) {
        print_message("skipped: %s not present\n", path);
        skip();
    }
    char line[8192];
    int maps = 0;
    while (fgets(line, sizeof line, f)) {
        char *notes = strrchr(line, '\t');
        char *pak = notes ? strstr(notes, "pakfile=") : NULL;
        if (!pak)
            continue;
        unsigned long lump_size = 0, entries = 0;
        assert_int_equal(sscanf(pak, "pakfile=%luB zip entries=%lu", &lump_size, &entries), 2);
        unsigned long stored = 0;
        char *methods = strstr(pak, "methods={");
        assert_non_null(methods);
        bool other = false;
        for (char *m = methods + 9; *m && *m != '}';) {
            unsigned long method = 0, count = 0;
            if (sscanf(m, "%lu: %lu", &method, &count) != 2)
                break;
            if (method == 0)
                stored = count;
            else
                other = true;
            m = strchr(m, ',');
            if (!m)
                break;
            m += 1;
        }
        *strchr(line, '\t') = '\0';
        snprintf(path, sizeof path, "%s/%s", BSPKIT_SHARED_MAPS, line);

        bspkit_map *map = NULL;
        CHECK(bspkit_open_file(path, NULL, &map, ERR));
        const uint8_t *zip = NULL;
        size_t zip_size = 0;
        CHECK(bspkit_lump_bytes(map, BSPKIT_S_PAKFILE, &zip, &zip_size, ERR));
        assert_int_equal(zip_size, lump_size);
        bspkit_pak *p = open_bytes(zip, zip_size);
        if (bspkit_pak_count(p) != entries)
            fail_msg("%s: %zu entries, manifest says %lu", line, bspkit_pak_count(p), entries);
        size_t methods_seen = 0;
        for (size_t i = 0; i < bspkit_pak_count(p); i++) {
            bspkit_pak_entry e;
            CHECK(bspkit_pak_entry_info(p, i, &e, ERR));
            methods_seen += e.method == 0;
            uint8_t *data = NULL;
            size_t size = 0;
            CHECK(bspkit_pak_read(p, i, &data, &size, ERR));
            assert_int_equal(crc32_ref(data, size), e.crc32);
            free(data);
        }
        /* The manifest's method tally covers only what its tool could read. */
        if (!other && stored == entries)
            assert_int_equal(methods_seen, stored);

        uint8_t *out = NULL;
        size_t out_size = 0;
        CHECK(bspkit_pak_write(p, BSPKIT_PAK_KEEP, &out, &out_size, ERR));
        zarchive a;
        if (entries <= 64) {
            zparse(out, out_size, &a);
            assert_engine_layout(&a);
        }
        /* The comment ("XZP1 0" and NUL padding from Valve's tools) is kept,
         * an XZP2 marker is not. */
        size_t c1, c2;
        const uint8_t *k1 = eocd_comment(zip, zip_size, &c1), *k2 = eocd_comment(out, out_size, &c2);
        if (c1 >= 4 && memcmp(k1, "XZP2", 4) == 0) {
            assert_int_equal(c2, 0);
        } else {
            assert_int_equal(c2, c1);
            assert_memory_equal(k2, k1, c1);
        }
        bspkit_pak *q = open_bytes(out, out_size);
        assert_int_equal(bspkit_pak_count(q), bspkit_pak_count(p));
        for (size_t i = 0; i < bspkit_pak_count(q); i++) {
            bspkit_pak_entry e1, e2;
            CHECK(bspkit_pak_entry_info(p, i, &e1, ERR));
            CHECK(bspkit_pak_entry_info(q, i, &e2, ERR));
            assert_string_equal(e1.name, e2.name);
            assert_int_equal(e1.size, e2.size);
            assert_int_equal(e1.crc32, e2.crc32);
            assert_true(e2.engine_readable);
        }
        bspkit_pak_close(q);
        free(out);
        bspkit_pak_close(p);
        bspkit_close(map);
        maps++;
    }
    fclose(f);
    print_message("%d maps with a pakfile checked\n", maps);
    assert_true(maps > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_lump_and_empty_zip),
        cmocka_unit_test_setup_teardown(test_read_infozip, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_add_remove_write, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_repack_lzma_and_back, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_lzma_entries_from_elsewhere, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_limits_and_bombs, make_dir, remove_dir),
        cmocka_unit_test(test_corrupt_archives),
        cmocka_unit_test_setup_teardown(test_xzp2, make_dir, remove_dir),
        cmocka_unit_test(test_names_and_globs),
        cmocka_unit_test(test_duplicates_and_comment),
        cmocka_unit_test(test_real_maps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
