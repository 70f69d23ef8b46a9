/* Opening maps, memory accounting, errors and the lazy lump caches. */
#include "core/family.h"
#include "core/map.h"
#include "core/ascii.h"
#include "core/lzma.h"
#include "core/parallel.h"
#include "bspkit/quake3.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

static const char *const RESULT_TEXT[BSPKIT_RESULT_COUNT] = {
    [BSPKIT_OK] = "ok",
    [BSPKIT_ERR_ARGUMENT] = "invalid argument",
    [BSPKIT_ERR_IO] = "input/output error",
    [BSPKIT_ERR_NOMEM] = "out of memory",
    [BSPKIT_ERR_LIMIT] = "configured limit exceeded",
    [BSPKIT_ERR_EMPTY] = "empty file",
    [BSPKIT_ERR_TRUNCATED] = "truncated file",
    [BSPKIT_ERR_UNKNOWN_FORMAT] = "unknown format",
    [BSPKIT_ERR_UNSUPPORTED] = "unsupported format",
    [BSPKIT_ERR_LUMP_RANGE] = "lump out of range",
    [BSPKIT_ERR_LUMP_SIZE] = "lump size not a multiple of its record size",
    [BSPKIT_ERR_COMPRESSION] = "invalid compressed lump",
    [BSPKIT_ERR_ENTITIES] = "malformed entities",
    [BSPKIT_ERR_VISIBILITY] = "malformed visibility data",
    [BSPKIT_ERR_TEXTURES] = "malformed texture lump",
    [BSPKIT_ERR_GAME_LUMP] = "malformed game lump directory",
    [BSPKIT_ERR_INDEX] = "index out of range",
    [BSPKIT_ERR_ENGINE_LIMIT] = "engine limit exceeded",
    [BSPKIT_ERR_NOT_FOUND] = "not found",
    [BSPKIT_ERR_INCOMPLETE] = "unfinished compile",
};

void bspkit_free(void *p)
{
    free(p);
}

const char *bspkit_strerror(bspkit_result code)
{
    if ((unsigned)code >= BSPKIT_RESULT_COUNT)
        return "unknown result code";
    return RESULT_TEXT[code];
}

void bk_error_clear(bspkit_error *err)
{
    if (!err)
        return;
    err->code = BSPKIT_OK;
    err->lump = -1;
    err->offset = -1;
    err->lump_offset = -1;
    err->message[0] = '\0';
}

bspkit_result bk_fail(bspkit_error *err, bspkit_result code, int lump, int64_t offset, int64_t lump_offset,
                      const char *fmt, ...)
{
    if (err) {
        err->code = code;
        err->lump = lump;
        err->offset = offset;
        err->lump_offset = lump_offset;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

void bk_error_copy(bspkit_error *dst, const bspkit_error *src)
{
    if (dst && src)
        *dst = *src;
}

/* ------------------------------------------------------------------------ */
/* Memory accounting                                                         */
/* ------------------------------------------------------------------------ */

/* Charges `size` against max_memory before any allocation happens. */
static bool charge(bspkit_map *map, size_t size, int lump, bspkit_error *err)
{
    if (size > map->opts.max_memory || map->memory_used > map->opts.max_memory - size) {
        bk_fail(err, BSPKIT_ERR_LIMIT, lump, -1, -1,
                "%s: decoding needs %zu more bytes, over the memory limit of %llu bytes",
                bk_lump_name(map, lump), size, (unsigned long long)map->opts.max_memory);
        return false;
    }
    return true;
}

static void *alloc_from(const bspkit_allocator *a, size_t size, bool zero)
{
    if (!a->alloc)
        /* calloc: large blocks come as fresh pages the kernel already zeroed. */
        return zero ? calloc(1, size) : malloc(size);
    void *p = a->alloc(a->user, size ? size : 1);
    if (p && zero)
        memset(p, 0, size);
    return p;
}

void *bk_raw_alloc(const bspkit_map *map, size_t size, bool zero)
{
    return alloc_from(&map->opts.allocator, size, zero);
}

void bk_raw_free(const bspkit_map *map, void *ptr)
{
    if (!ptr)
        return;
    const bspkit_allocator *a = &map->opts.allocator;
    if (a->free)
        a->free(a->user, ptr);
    else
        free(ptr);
}

void *bk_alloc(bspkit_map *map, size_t size, int lump, bspkit_error *err)
{
    if (size == 0)
        size = 1; /* a valid pointer for empty arrays */
    if (!charge(map, size, lump, err))
        return NULL;
    void *p = bk_raw_alloc(map, size, false);
    if (!p) {
        bk_fail(err, BSPKIT_ERR_NOMEM, lump, -1, -1, "%s: out of memory allocating %zu bytes",
                bk_lump_name(map, lump), size);
        return NULL;
    }
    map->memory_used += size;
    return p;
}

static void *alloc_array(bspkit_map *map, size_t count, size_t elem, int lump, bool zero, bspkit_error *err)
{
    if (elem && count > SIZE_MAX / elem) {
        bk_fail(err, BSPKIT_ERR_LIMIT, lump, -1, -1, "%s: %zu records overflow the address space",
                bk_lump_name(map, lump), count);
        return NULL;
    }
    size_t bytes = count * elem;
    if (bytes == 0)
        bytes = 1;
    if (!charge(map, bytes, lump, err))
        return NULL;
    void *p = bk_raw_alloc(map, bytes, zero);
    if (!p) {
        bk_fail(err, BSPKIT_ERR_NOMEM, lump, -1, -1, "%s: out of memory allocating %zu bytes",
                bk_lump_name(map, lump), bytes);
        return NULL;
    }
    map->memory_used += bytes;
    return p;
}

void *bk_calloc_array(bspkit_map *map, size_t count, size_t elem, int lump, bspkit_error *err)
{
    return alloc_array(map, count, elem, lump, true, err);
}

/* Maps whose decoded arrays add up to at most this many bytes take them
 * all from one block: on a small map an allocation and its free cost more
 * than decoding the array. */
#define ARENA_MAX ((size_t)64 * 1024)

/* Under AddressSanitizer the block is poisoned but for the arrays handed
 * out, with 16 poisoned bytes after each: a decoder writing past its array
 * is caught as it would be in a block of its own. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BK_ARENA_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(BK_ARENA_ASAN)
#define BK_ARENA_ASAN 1
#endif
#ifdef BK_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define ARENA_GUARD ((size_t)16)
#else
#define ASAN_POISON_MEMORY_REGION(addr, size) ((void)(addr), (void)(size))
#define ASAN_UNPOISON_MEMORY_REGION(addr, size) ((void)(addr), (void)(size))
#define ARENA_GUARD ((size_t)0)
#endif

static size_t arena_slot(size_t bytes) { return ((bytes + 15) & ~(size_t)15) + ARENA_GUARD; }

/* The bytes every decoded array the directory describes would take, or
 * SIZE_MAX past ARENA_MAX. */
static size_t decoded_total(const bspkit_map *map)
{
    size_t total = 0;
    for (int i = 0; i < map->lump_count; i++) {
        const bk_lump *l = &map->lumps[i];
        if (!l->layout.decode || l->layout.decoded < 0 || !l->layout.record_size)
            continue;
        size_t n = l->uncompressed_length / l->layout.record_size;
        if (n > ARENA_MAX || l->layout.native_size > ARENA_MAX)
            return SIZE_MAX;
        total += arena_slot(n * l->layout.native_size);
        if (total > ARENA_MAX)
            return SIZE_MAX;
    }
    return total;
}

/* `bytes` from the map's shared block, which the first call makes; NULL
 * when the map's arrays are too large to share one, or it is full (a lump
 * decoded to more than the directory said) or cannot be had. */
static void *arena_take(bspkit_map *map, size_t bytes)
{
    if (!map->arena_sized) {
        map->arena_sized = true;
        size_t total = decoded_total(map);
        if (total != SIZE_MAX && total > 0 && (map->arena = bk_raw_alloc(map, total, false)) != NULL) {
            map->arena_size = total;
            ASAN_POISON_MEMORY_REGION(map->arena, total);
        }
    }
    size_t slot = arena_slot(bytes ? bytes : 1);
    if (!map->arena || slot > map->arena_size - map->arena_used)
        return NULL;
    void *p = map->arena + map->arena_used;
    map->arena_used += slot;
    ASAN_UNPOISON_MEMORY_REGION(p, bytes);
    return p;
}

/* Decoded arrays: every record is written whole by its decoder, so the
 * memory is not cleared first (that would write it twice). Small ones come
 * from the arena (*shared: close frees them with it), charged the same. */
static void *records_alloc(bspkit_map *map, size_t count, size_t elem, int lump, bool *shared, bspkit_error *err)
{
    *shared = false;
    if (elem && count <= ARENA_MAX / elem) {
        size_t bytes = count * elem;
        if (bytes == 0)
            bytes = 1;
        if (!charge(map, bytes, lump, err))
            return NULL;
        void *p = arena_take(map, bytes);
        if (p) {
            map->memory_used += bytes;
            *shared = true;
            return p;
        }
    }
    return alloc_array(map, count, elem, lump, false, err);
}

static void *keep_alloc(bspkit_map *map, size_t count, size_t elem, int lump, bool zero, bspkit_error *err)
{
    /* The block header keeps the payload aligned for any native struct. */
    size_t head = (sizeof(bk_kept) + 15) & ~(size_t)15;
    if (elem && count > (SIZE_MAX - head) / elem) {
        bk_fail(err, BSPKIT_ERR_LIMIT, lump, -1, -1, "%s: %zu records overflow the address space",
                bk_lump_name(map, lump), count);
        return NULL;
    }
    size_t bytes = head + count * elem;
    if (!charge(map, bytes, lump, err))
        return NULL;
    bk_kept *k = bk_raw_alloc(map, bytes, zero);
    if (!k) {
        bk_fail(err, BSPKIT_ERR_NOMEM, lump, -1, -1, "%s: out of memory allocating %zu bytes",
                bk_lump_name(map, lump), bytes);
        return NULL;
    }
    map->memory_used += bytes;
    k->size = bytes;
    k->next = map->kept;
    map->kept = k;
    return (uint8_t *)k + head;
}

void *bk_keep_alloc(bspkit_map *map, size_t count, size_t elem, int lump, bspkit_error *err)
{
    return keep_alloc(map, count, elem, lump, true, err);
}

void *bk_keep_alloc_records(bspkit_map *map, size_t count, size_t elem, int lump, bspkit_error *err)
{
    return keep_alloc(map, count, elem, lump, false, err);
}

const bspkit_error *bk_keep_error(bspkit_map *map, const bspkit_error *e)
{
    static const bspkit_error no_memory = {.code = BSPKIT_ERR_NOMEM, .lump = -1, .offset = -1, .lump_offset = -1,
                                           .message = "out of memory (while keeping an error)"};
    /* Not charged against max_memory: recording why a slot failed must not
     * fail because the slot ran into the limit. */
    size_t head = (sizeof(bk_kept) + 15u) & ~(size_t)15u;
    bk_kept *k = bk_raw_alloc(map, head + sizeof *e, false);
    if (!k)
        return &no_memory;
    k->size = 0;
    k->next = map->kept;
    map->kept = k;
    bspkit_error *copy = (bspkit_error *)((uint8_t *)k + head);
    *copy = *e;
    return copy;
}

bspkit_result bk_extra_get(bspkit_map *map, bk_extra slot, bk_extra_build build, const void **value,
                           bspkit_error *err)
{
    bk_extra_cache *c = &map->extras[slot];
    if (!c->done) {
        bspkit_error e;
        bk_error_clear(&e);
        c->done = true;
        c->value = NULL;
        c->result = build(map, &c->value, &e);
        if (c->result != BSPKIT_OK)
            c->error = bk_keep_error(map, &e);
    }
    *value = c->result == BSPKIT_OK ? c->value : NULL;
    if (c->result != BSPKIT_OK)
        bk_error_copy(err, c->error);
    return c->result;
}

void bk_free(bspkit_map *map, void *ptr, size_t size)
{
    if (!ptr)
        return;
    if (size == 0)
        size = 1;
    map->memory_used -= size < map->memory_used ? size : map->memory_used;
    bk_raw_free(map, ptr);
}

/* ------------------------------------------------------------------------ */
/* Opening                                                                   */
/* ------------------------------------------------------------------------ */

static void resolve_options(bspkit_options *dst, const bspkit_options *src)
{
    memset(dst, 0, sizeof *dst);
    if (src)
        *dst = *src;
    if (!dst->max_file_size)
        dst->max_file_size = BK_DEFAULT_MAX_FILE;
    if (!dst->max_lump_size)
        dst->max_lump_size = BK_DEFAULT_MAX_LUMP;
    /* max_memory 0 is resolved once the size is known (finish_open). */
}

/* A file XORed with the repeating key at BK_XOR_KEY_OFFSET: the map reads a
 * decrypted copy from here on (a mapping stays until close). */
static bspkit_result xor_decode(bspkit_map *map, bspkit_error *err)
{
    uint8_t key[BK_XOR_KEY_SIZE];
    if (map->size < BK_XOR_KEY_OFFSET + BK_XOR_KEY_SIZE)
        return bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)map->size, -1,
                       "truncated: %zu bytes cannot hold the key of an XOR-encrypted map", map->size);
    memcpy(key, map->data + BK_XOR_KEY_OFFSET, sizeof key);
    uint8_t *plain = map->owned ? map->owned : bk_raw_alloc(map, map->size, false);
    if (!plain)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory decrypting %zu bytes", map->size);
    for (size_t i = 0; i < map->size; i++)
        plain[i] = map->data[i] ^ key[i % BK_XOR_KEY_SIZE];
    map->owned = plain;
    map->data = plain;
    return BSPKIT_OK;
}

/* Shared tail of both open paths: detection and the lump directory. */
static bspkit_result finish_open(bspkit_map *map, bspkit_map **out, bspkit_error *err)
{
    if (!map->opts.max_memory) {
        uint64_t size = map->size;
        map->opts.max_memory = BK_DEFAULT_MEMORY_BASE + size * BK_DEFAULT_MEMORY_PER_FILE_BYTE;
    }
    bspkit_result r = bspkit_detect(map->data, map->size, &map->format, err);
    if (r == BSPKIT_OK && (map->format.variant & BSPKIT_VARIANT_XOR_ENCRYPTED))
        r = xor_decode(map, err);
    if (r == BSPKIT_OK)
        r = bk_read_directory(map, err);
    if (r != BSPKIT_OK) {
        bspkit_close(map);
        return r;
    }
    *out = map;
    return BSPKIT_OK;
}

/* NULL with `err` filled when the options are inconsistent or memory is short. */
static bspkit_map *new_map(const bspkit_options *opts, bspkit_error *err)
{
    bspkit_options resolved;
    resolve_options(&resolved, opts);
    if (!resolved.allocator.alloc != !resolved.allocator.free) {
        bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "options: the allocator needs both alloc and free, or neither");
        return NULL;
    }
    bspkit_map *map = alloc_from(&resolved.allocator, sizeof *map, true);
    if (!map) {
        bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
        return NULL;
    }
    map->opts = resolved;
    return map;
}

bspkit_result bspkit_open_memory(const void *data, size_t size, const bspkit_options *opts, bspkit_map **out,
                                 bspkit_error *err)
{
    bk_error_clear(err);
    if (!out || (!data && size))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_open_memory: NULL argument");
    *out = NULL;
    bspkit_map *map = new_map(opts, err);
    if (!map)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    if (size > map->opts.max_file_size) {
        uint64_t limit = map->opts.max_file_size;
        bspkit_close(map);
        return bk_fail(err, BSPKIT_ERR_LIMIT, -1, -1, -1, "input of %zu bytes exceeds the limit of %llu bytes",
                       size, (unsigned long long)limit);
    }
    if (map->opts.flags & BSPKIT_OPEN_COPY) {
        map->owned = bk_raw_alloc(map, size ? size : 1, false);
        if (!map->owned) {
            bspkit_close(map);
            return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory copying %zu bytes", size);
        }
        if (size)
            memcpy(map->owned, data, size);
        map->data = map->owned;
    } else {
        map->data = data;
    }
    map->size = size;
    return finish_open(map, out, err);
}

bspkit_result bspkit_open_file(const char *path, const bspkit_options *opts, bspkit_map **out, bspkit_error *err)
{
    bk_error_clear(err);
    if (!path || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_open_file: NULL argument");
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "cannot stat: %s", strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "not a regular file");
    }
    bspkit_map *map = new_map(opts, err);
    if (!map) {
        close(fd);
        return err ? err->code : BSPKIT_ERR_NOMEM;
    }
    size_t path_size = strlen(path) + 1;
    map->path = bk_raw_alloc(map, path_size, false);
    if (!map->path) {
        close(fd);
        bspkit_close(map);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    }
    memcpy(map->path, path, path_size);
    uint64_t fsize = (uint64_t)st.st_size;
    if (fsize > map->opts.max_file_size || fsize > SIZE_MAX) {
        uint64_t limit = map->opts.max_file_size;
        close(fd);
        bspkit_close(map);
        return bk_fail(err, BSPKIT_ERR_LIMIT, -1, -1, -1, "file of %llu bytes exceeds the limit of %llu bytes",
                       (unsigned long long)fsize, (unsigned long long)limit);
    }
    map->size = (size_t)fsize;
    if (fsize == 0) {
        map->data = (const uint8_t *)"";
    } else if (!(map->opts.flags & BSPKIT_OPEN_NO_MMAP)) {
        void *p = mmap(NULL, map->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            map->mapping = p;
            map->mapping_size = map->size;
            map->data = p;
        }
    }
    if (!map->data) { /* read fallback: NO_MMAP, or mmap refused (e.g. special filesystems) */
        map->owned = bk_raw_alloc(map, map->size, false);
        if (!map->owned) {
            close(fd);
            bspkit_close(map);
            return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory reading %llu bytes",
                           (unsigned long long)fsize);
        }
        size_t got = 0;
        while (got < map->size) {
            ssize_t n = read(fd, map->owned + got, map->size - got);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                int e = errno;
                close(fd);
                bspkit_close(map);
                return bk_fail(err, BSPKIT_ERR_IO, -1, (int64_t)got, -1, "read failed at byte %zu: %s", got,
                               n == 0 ? "unexpected end of file" : strerror(e));
            }
            got += (size_t)n;
        }
        map->data = map->owned;
    }
    close(fd);
    return finish_open(map, out, err);
}

void bspkit_close(bspkit_map *map)
{
    if (!map)
        return;
    for (int i = 0; i < map->lump_count; i++) {
        bk_raw_free(map, map->bytes[i].owned);
        bk_raw_free(map, map->lumps[i].external);
    }
    bk_raw_free(map, map->lumps); /* and bytes, in the same block */
    bk_raw_free(map, map->path);
    for (int i = 0; i < BK_REC_COUNT; i++)
        bk_raw_free(map, map->arrays[i].owned);
    if (map->arena) {
        ASAN_UNPOISON_MEMORY_REGION(map->arena, map->arena_size);
        bk_raw_free(map, map->arena);
    }
    bk_raw_free(map, map->miptex.owned);
    if (map->game_lump_bytes) {
        for (size_t i = 0; i < map->game_lumps.count; i++)
            bk_raw_free(map, map->game_lump_bytes[i].owned);
        bk_raw_free(map, map->game_lump_bytes);
    }
    bk_raw_free(map, map->game_lumps.owned);
    for (bk_kept *k = map->kept, *next; k; k = next) {
        next = k->next;
        bk_raw_free(map, k);
    }
    bspkit_entities_free(map->entities);
    if (!map->string_data_borrowed)
        bk_raw_free(map, map->string_data);
    if (map->mapping)
        munmap(map->mapping, map->mapping_size);
    bk_raw_free(map, map->owned);
    /* The allocator lives in the block being freed. */
    bspkit_allocator a = map->opts.allocator;
    if (a.free)
        a.free(a.user, map);
    else
        free(map);
}

const bspkit_format *bspkit_map_format(const bspkit_map *map) { return map ? &map->format : NULL; }

const uint8_t *bspkit_map_bytes(const bspkit_map *map, size_t *size)
{
    if (!map)
        return NULL;
    if (size)
        *size = map->size;
    return map->data;
}

uint64_t bspkit_map_memory_used(const bspkit_map *map) { return map ? map->memory_used : 0; }

/* ------------------------------------------------------------------------ */
/* Lumps                                                                     */
/* ------------------------------------------------------------------------ */

int bspkit_lump_count(const bspkit_map *map) { return map ? map->lump_count : 0; }

bspkit_result bspkit_get_lump_info(const bspkit_map *map, int index, bspkit_lump_info *out)
{
    if (!map || !out || index < 0 || index >= map->lump_count)
        return BSPKIT_ERR_ARGUMENT;
    const bk_lump *l = &map->lumps[index];
    out->index = index;
    out->name = bk_lump_name(map, index);
    out->key = bk_lump_key(map, index);
    out->offset = l->offset;
    out->length = l->length;
    out->version = l->version;
    out->fourcc = l->fourcc;
    out->compressed = l->compressed;
    out->uncompressed_length = l->uncompressed_length;
    out->record_size = l->layout.record_size;
    return BSPKIT_OK;
}

int bspkit_lump_find(const bspkit_map *map, const char *name)
{
    if (!map || !name)
        return -1;
    for (int i = 0; i < map->lump_count; i++) {
        const char *n = bk_lump_name(map, i), *k = bk_lump_key(map, i);
        if ((n && bk_ascii_casecmp(n, name) == 0) || (k && bk_ascii_casecmp(k, name) == 0))
            return i;
    }
    return -1;
}

int64_t bk_file_offset(const bspkit_map *map, int index, uint64_t ofs)
{
    if (index < 0 || index >= map->lump_count || map->lumps[index].compressed || map->lumps[index].external)
        return -1;
    return (int64_t)(map->lumps[index].offset + ofs);
}

bspkit_result bspkit_lump_record_count(const bspkit_map *map, int index, uint64_t *count)
{
    if (!map || !count || index < 0 || index >= map->lump_count)
        return BSPKIT_ERR_ARGUMENT;
    const bk_lump *l = &map->lumps[index];
    if (!l->layout.record_size)
        return BSPKIT_ERR_NOT_FOUND;
    *count = l->uncompressed_length / l->layout.record_size;
    return BSPKIT_OK;
}

size_t bspkit_map_record_counts(const bspkit_map *map, bspkit_record_count *out, size_t cap)
{
    size_t n = 0;
    for (int i = 0; map && i < map->lump_count; i++) {
        const bk_lump *l = &map->lumps[i];
        const char *key = bk_lump_key(map, i);
        if (!l->layout.record_size || !key || strcmp(key, "textures") == 0)
            continue;
        bool seen = false;
        for (int k = 0; k < i && !seen; k++) /* the first lump with the key wins */
            seen = map->lumps[k].layout.record_size && bk_lump_key(map, k) && strcmp(bk_lump_key(map, k), key) == 0;
        if (seen)
            continue;
        if (n < cap)
            out[n] = (bspkit_record_count){key, l->uncompressed_length / l->layout.record_size};
        n++;
    }
    return n;
}

/* A bytes cache holding a decompressed copy it owns. */
static void cache_decompressed(bk_bytes_cache *c, uint8_t *buf, size_t size)
{
    c->done = true;
    c->result = BSPKIT_OK;
    c->error = NULL;
    c->owned = buf;
    c->data = buf;
    c->size = size;
}

void bk_fill_bytes_cache(bspkit_map *map, bk_bytes_cache *c, int lump, const char *what, uint32_t offset,
                         uint32_t length, bool compressed, uint32_t uncompressed_length)
{
    c->done = true;
    c->result = BSPKIT_OK;
    c->error = NULL;
    if (!compressed) {
        /* Ranges were checked when the directory was read. */
        c->data = length ? map->data + offset : (const uint8_t *)"";
        c->size = length;
        return;
    }
    if (!what)
        what = bk_lump_name(map, lump);
    /* The limit is checked before anything is allocated. */
    bspkit_error e;
    bk_error_clear(&e);
    if (uncompressed_length > map->opts.max_lump_size) {
        c->result = bk_fail(&e, BSPKIT_ERR_LIMIT, lump, offset, -1,
                            "%s: decompressed size %u exceeds the lump limit of %llu bytes", what,
                            uncompressed_length, (unsigned long long)map->opts.max_lump_size);
        c->error = bk_keep_error(map, &e);
        return;
    }
    uint8_t *buf = bk_alloc(map, uncompressed_length, lump, &e);
    if (!buf) {
        c->result = e.code;
        c->error = bk_keep_error(map, &e);
        return;
    }
    c->result = bk_lzma_decompress(map->data + offset, length, buf, uncompressed_length, lump, &e);
    if (c->result != BSPKIT_OK) {
        e.offset = offset;
        c->error = bk_keep_error(map, &e);
        bk_free(map, buf, uncompressed_length);
        return;
    }
    cache_decompressed(c, buf, uncompressed_length);
}

/* One lump of bk_decompress_lumps: its buffer was allocated (and charged)
 * before the threads started; each writes only its own entry. */
typedef struct lzma_job {
    int lump;
    uint32_t packed; /* compressed bytes */
    uint8_t *buf;
    bspkit_result result;
} lzma_job;

typedef struct lzma_jobs {
    const bspkit_map *map;
    lzma_job *jobs;
} lzma_jobs;

static void decompress_job(void *ctx, size_t i)
{
    const lzma_jobs *all = ctx;
    lzma_job *j = &all->jobs[i];
    const bk_lump *l = &all->map->lumps[j->lump];
    bspkit_error e; /* only the code is kept: bk_lump_bytes reads a failed lump again and reports it */
    j->result = bk_lzma_decompress(all->map->data + l->offset, l->length, j->buf, l->uncompressed_length, j->lump, &e);
}

/* Below this many compressed bytes in all, starting threads costs more than it saves. */
#define PARALLEL_LZMA_MIN_BYTES (32u << 10)

void bk_decompress_lumps(bspkit_map *map)
{
    lzma_job jobs[BK_MAX_LUMPS];
    size_t n = 0;
    uint64_t packed = 0;
    for (int i = 0; i < map->lump_count && i < BK_MAX_LUMPS; i++) {
        const bk_lump *l = &map->lumps[i];
        if (!l->compressed || l->external || map->bytes[i].done || l->uncompressed_length > map->opts.max_lump_size)
            continue;
        /* Largest first (a few dozen lumps, so by insertion): the longest
         * job starts at once, the short ones fill in around it. */
        size_t at = n++;
        for (; at > 0 && jobs[at - 1].packed < l->length; at--)
            jobs[at] = jobs[at - 1];
        jobs[at] = (lzma_job){.lump = i, .packed = l->length};
        packed += l->length;
    }
    if (n < 2 || packed < PARALLEL_LZMA_MIN_BYTES)
        return; /* read one by one as asked */
    /* Only with room to spare: near the memory limit, the lumps are read
     * one by one, so the one named over the limit is the one it always was. */
    uint64_t unpacked = 0;
    for (size_t k = 0; k < n; k++)
        unpacked += map->lumps[jobs[k].lump].uncompressed_length;
    if (map->memory_used > map->opts.max_memory || unpacked > (map->opts.max_memory - map->memory_used) / 2)
        return;
    size_t ready = 0;
    for (size_t k = 0; k < n; k++) {
        bspkit_error e;
        jobs[k].buf = bk_alloc(map, map->lumps[jobs[k].lump].uncompressed_length, jobs[k].lump, &e);
        if (!jobs[k].buf)
            break; /* out of memory: the rest are read one by one, and report it */
        ready = k + 1;
    }
    lzma_jobs all = {map, jobs};
    bk_parallel_for(ready, 0, decompress_job, &all);
    for (size_t k = 0; k < ready; k++) {
        const bk_lump *l = &map->lumps[jobs[k].lump];
        if (jobs[k].result != BSPKIT_OK) {
            bk_free(map, jobs[k].buf, l->uncompressed_length);
            continue;
        }
        cache_decompressed(&map->bytes[jobs[k].lump], jobs[k].buf, l->uncompressed_length);
    }
}

bspkit_result bk_cached_bytes(const bk_bytes_cache *c, const uint8_t **data, size_t *size, bspkit_error *err)
{
    if (c->result != BSPKIT_OK) {
        bk_error_copy(err, c->error);
        return c->result;
    }
    *data = c->data;
    *size = c->size;
    return BSPKIT_OK;
}

bspkit_result bk_lump_bytes(bspkit_map *map, int index, const uint8_t **data, size_t *size, bspkit_error *err)
{
    if (index < 0 || index >= map->lump_count) {
        /* A role the family has no lump for (bk_map_lump_for gives -1): nothing stored. */
        *data = (const uint8_t *)"";
        *size = 0;
        return BSPKIT_OK;
    }
    bk_bytes_cache *c = &map->bytes[index];
    if (!c->done) {
        const bk_lump *l = &map->lumps[index];
        bk_fill_bytes_cache(map, c, index, NULL, l->offset, l->length, l->compressed,
                            l->uncompressed_length);
    }
    return bk_cached_bytes(c, data, size, err);
}

bspkit_result bspkit_lump_bytes(bspkit_map *map, int index, const uint8_t **data, size_t *size, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !data || !size || index < 0 || index >= map->lump_count)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, index, -1, -1, "bspkit_lump_bytes: invalid argument");
    return bk_lump_bytes(map, index, data, size, err);
}

/* How schema `sc`'s little-endian records fit the native struct on this
 * host (BK_FIT_SAME, BK_FIT_WIDE), or 0 when the map is big-endian, the
 * host is, or the schema says nothing. */
static int host_fit(const bspkit_map *map, const bk_schema *sc)
{
    return BK_HOST_LE && !map->format.big_endian && sc->fit ? sc->fit() : 0;
}

/* Whether records of schema `sc` at `bytes` can be read where they are:
 * laid out as the native struct byte for byte, at an address aligned for it. */
static bool in_place(const bspkit_map *map, const bk_schema *sc, const uint8_t *bytes)
{
    return host_fit(map, sc) == BK_FIT_SAME && (uintptr_t)bytes % sc->native_align == 0;
}

/* Whether schema `sc`'s records are 16-bit indices held as 32-bit ones:
 * its decoder then widens the whole lump at once (bk_widen_u16_le). */
static bool widened(const bspkit_map *map, const bk_schema *sc)
{
    return host_fit(map, sc) == BK_FIT_WIDE;
}

bool bk_array_index_max(const bspkit_map *map, bk_rec dec, uint32_t *max)
{
    const bk_array_cache *c = &map->arrays[dec];
    if (!c->done || c->result != BSPKIT_OK || !c->index_max_known)
        return false;
    *max = c->index_max;
    return true;
}

bspkit_result bk_get_array(bspkit_map *map, bk_rec dec, int lump, const void **items, size_t *count,
                           bspkit_error *err)
{
    bk_array_cache *c = &map->arrays[dec];
    if (!c->done) {
        bspkit_error e;
        bk_error_clear(&e);
        c->done = true;
        c->result = BSPKIT_OK;
        const bk_lump *l = lump >= 0 && lump < map->lump_count ? &map->lumps[lump] : NULL;
        if (!l || !l->layout.decode || l->layout.decoded != (int)dec) {
            c->count = 0; /* the family has no such lump */
        } else {
            const uint8_t *bytes;
            size_t size;
            c->result = bk_lump_bytes(map, lump, &bytes, &size, &e);
            if (c->result == BSPKIT_OK && size % l->layout.record_size) {
                /* Only reachable for compressed lumps whose real size disagrees with the directory. */
                c->result = bk_fail(&e, BSPKIT_ERR_LUMP_SIZE, lump, l->offset, -1,
                                    "%s: %zu bytes is not a multiple of the %u-byte record",
                                    bk_lump_name(map, lump), size, l->layout.record_size);
            }
            if (c->result == BSPKIT_OK) {
                size_t n = size / l->layout.record_size;
                const bk_schema *sc = l->layout.schema;
                if (sc && l->layout.decode == sc->decode && in_place(map, sc, bytes)) {
                    /* The lump's bytes stay with the map (mapped, borrowed
                     * or cached) and are the native records already. */
                    c->items = bytes;
                    c->count = n;
                } else {
                    bool shared;
                    void *out = records_alloc(map, n, l->layout.native_size, lump, &shared, &e);
                    if (!out) {
                        c->result = e.code;
                    } else {
                        if (sc && l->layout.decode == sc->decode && widened(map, sc)) {
                            /* What the schema's decoder does, keeping the largest index. */
                            c->index_max = bk_widen_u16_le(bytes, n * l->layout.record_size / 2, out);
                            c->index_max_known = true;
                        } else {
                            l->layout.decode(bytes, n, map->format.big_endian, out);
                        }
                        c->items = out;
                        c->owned = shared ? NULL : out;
                        c->count = n;
                    }
                }
            }
        }
        if (c->result != BSPKIT_OK)
            c->error = bk_keep_error(map, &e);
    }
    if (c->result != BSPKIT_OK) {
        bk_error_copy(err, c->error);
        return c->result;
    }
    *items = c->items;
    *count = c->count;
    return BSPKIT_OK;
}

/* Public accessors: each reads one decoded slot, from the lump the family's
 * layouts assign to it (none: an empty array). */
#define ACCESSOR(fn, type, dec)                                                                        \
    bspkit_result fn(bspkit_map *map, const type **out, size_t *count, bspkit_error *err)              \
    {                                                                                                  \
        bk_error_clear(err);                                                                           \
        if (!map || !out || !count)                                                                    \
            return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, #fn ": NULL argument");               \
        const void *items = NULL;                                                                      \
        bspkit_result r = bk_get_array(map, dec, map->dec_lump[dec], &items, count, err);              \
        *out = r == BSPKIT_OK ? items : NULL;                                                          \
        if (r != BSPKIT_OK)                                                                            \
            *count = 0;                                                                                \
        return r;                                                                                      \
    }

ACCESSOR(bspkit_get_planes, bspkit_plane, BK_REC_PLANES)
ACCESSOR(bspkit_get_vertexes, bspkit_vec3, BK_REC_VERTEXES)
ACCESSOR(bspkit_get_edges, bspkit_edge, BK_REC_EDGES)
ACCESSOR(bspkit_get_surfedges, int32_t, BK_REC_SURFEDGES)
ACCESSOR(bspkit_get_faces, bspkit_face, BK_REC_FACES)
ACCESSOR(bspkit_get_orig_faces, bspkit_face, BK_REC_ORIG_FACES)
ACCESSOR(bspkit_get_hdr_faces, bspkit_face, BK_REC_HDR_FACES)
ACCESSOR(bspkit_get_nodes, bspkit_node, BK_REC_NODES)
ACCESSOR(bspkit_get_leafs, bspkit_leaf, BK_REC_LEAFS)
ACCESSOR(bspkit_get_models, bspkit_model, BK_REC_MODELS)
ACCESSOR(bspkit_get_texinfo, bspkit_texinfo, BK_REC_TEXINFO)
ACCESSOR(bspkit_get_leaf_faces, uint32_t, BK_REC_LEAF_FACES)
ACCESSOR(bspkit_get_leaf_brushes, uint32_t, BK_REC_LEAF_BRUSHES)
ACCESSOR(bspkit_get_clipnodes, bspkit_clipnode, BK_REC_CLIPNODES)
ACCESSOR(bspkit_get_brushes, bspkit_brush, BK_REC_BRUSHES)
ACCESSOR(bspkit_get_brushsides, bspkit_brushside, BK_REC_BRUSHSIDES)
ACCESSOR(bspkit_get_texdata, bspkit_texdata, BK_REC_TEXDATA)
ACCESSOR(bspkit_get_texdata_string_table, int32_t, BK_REC_STRING_TABLE)
ACCESSOR(bspkit_get_areas, bspkit_area, BK_REC_AREAS)
ACCESSOR(bspkit_get_areaportals, bspkit_areaportal, BK_REC_AREAPORTALS)
ACCESSOR(bspkit_get_cubemaps, bspkit_cubemap, BK_REC_CUBEMAPS)
ACCESSOR(bspkit_get_shaders, bspkit_shader, BK_REC_SHADERS)
ACCESSOR(bspkit_get_drawverts, bspkit_drawvert, BK_REC_DRAWVERTS)
ACCESSOR(bspkit_get_drawindexes, int32_t, BK_REC_DRAWINDEXES)
ACCESSOR(bspkit_get_surfaces, bspkit_surface, BK_REC_SURFACES)
ACCESSOR(bspkit_get_fogs, bspkit_fog, BK_REC_FOGS)
ACCESSOR(bspkit_get_lightgrid, bspkit_lightgrid_cell, BK_REC_LIGHTGRID)

bspkit_result bspkit_get_lighting(bspkit_map *map, bool hdr, const uint8_t **data, size_t *size, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !data || !size)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_get_lighting: NULL argument");
    int lump = map->family_ops->lump_for(map, hdr ? BK_ROLE_LIGHTING_HDR : BK_ROLE_LIGHTING);
    if (lump < 0) {
        *data = (const uint8_t *)"";
        *size = 0;
        return BSPKIT_OK;
    }
    return bk_lump_bytes(map, lump, data, size, err);
}

bspkit_result bspkit_get_pakfile(bspkit_map *map, const uint8_t **data, size_t *size, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !data || !size)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_get_pakfile: NULL argument");
    int lump = map->family_ops->lump_for(map, BK_ROLE_PAKFILE);
    if (lump < 0) {
        *data = (const uint8_t *)"";
        *size = 0;
        return BSPKIT_OK;
    }
    return bk_lump_bytes(map, lump, data, size, err);
}

bspkit_result bspkit_get_entities(bspkit_map *map, const bspkit_entities **out, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_get_entities: NULL argument");
    *out = NULL;
    if (!map->entities_done) {
        map->entities_done = true;
        bk_error_clear(&map->entities_error);
        const uint8_t *bytes;
        size_t size;
        map->entities_result = bk_lump_bytes(map, 0, &bytes, &size, &map->entities_error);
        if (map->entities_result == BSPKIT_OK) {
            /* Read as the engines read it unless the caller asked for strictness;
             * validation reports what was read past. */
            unsigned flags = (map->opts.flags & BSPKIT_OPEN_STRICT_ENTITIES) ? 0 : BSPKIT_ENTITIES_LENIENT;
            map->entities_result = bspkit_entities_parse_ex((const char *)bytes, size, flags, &map->entities,
                                                            &map->entities_error);
            if (map->entities_result != BSPKIT_OK) {
                bspkit_error *e = &map->entities_error;
                e->lump = 0;
                if (e->lump_offset >= 0)
                    e->offset = bk_file_offset(map, 0, (uint64_t)e->lump_offset);
            } else if (map->family_ops->more_entities) {
                map->entities_result = map->family_ops->more_entities(map, map->entities, flags,
                                                                      &map->entities_error);
                if (map->entities_result != BSPKIT_OK) {
                    bspkit_entities_free(map->entities);
                    map->entities = NULL;
                }
            }
        }
    }
    if (map->entities_result != BSPKIT_OK) {
        bk_error_copy(err, &map->entities_error);
        return map->entities_result;
    }
    *out = map->entities;
    return BSPKIT_OK;
}

/* Former name, kept for programs built against earlier releases. */
bspkit_result bspkit_lump_info_get(const bspkit_map *map, int index, bspkit_lump_info *out)
{
    return bspkit_get_lump_info(map, index, out);
}
