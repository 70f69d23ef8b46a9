/* KeyValues entity-lump parser.
 *
 * Grammar, as the Quake, GoldSrc and Source tokenizers accept it:
 *   text  := { blank | comment } ( block { blank | comment } )* [ junk ]
 *   block := '{' ( token token )* '}'
 *   token := '"' any byte but '"' '"'  |  run of bytes other than blank, '"', '{', '}'
 * Blanks are bytes 0x01-0x20; comments are "//" to the end of the line and are
 * only recognised where a token could start. Quoted strings have no escapes,
 * so GoldSrc wad paths keep their backslashes. The text ends at the first NUL.
 *
 * Damaged text fails, or with BSPKIT_ENTITIES_LENIENT is read as the engines
 * read it, each damaged place becoming a warning: a block left open ends at
 * the next '{' or at the end, a key left without a value before '}' is
 * dropped, a quoted string without its closing quote runs to the end, and
 * text outside any block is skipped up to the next '{'.
 *
 * Text of the plain shape nearly every lump has (quoted pairs in blocks,
 * blanks between) is read in one pass over 64-byte pieces (parse_plain);
 * any other text, and any text where SSE2 is missing, by the token reader.
 * Both give the same list.
 *
 * The token reader copies strings into a single arena while it scans them
 * (parse_plain copies the whole text there, each string staying in place).
 * A copy costs its bytes plus one NUL; a quoted string pays for the NUL with its
 * quotes, an unquoted one with the byte that ends it (blank, brace or the
 * opening quote of the next string, whose own quotes leave one to spare). So
 * before each token the arena has used at most one byte more than the text
 * consumed, and size + 2 bytes always suffice.
 */
#include "core/entities.h"
#include "core/cpu.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if BK_CPU_AVX2
#include <immintrin.h>
#endif

typedef struct ent_storage {
    char *arena;
    size_t used, cap;
    bspkit_entity_warning *warnings;
    size_t warning_cap;
    /* Arenas and names taken over from appended lists, freed with this one. */
    void **blocks;
    size_t block_count, block_cap;
} ent_storage;

typedef enum tok_kind { TOK_END, TOK_OPEN, TOK_CLOSE, TOK_STRING } tok_kind;

typedef struct token {
    tok_kind kind;
    size_t pos;     /* offset of the token's first byte (the quote for quoted strings) */
    uint64_t line;  /* line of that byte */
    const char *s;  /* NUL-terminated copy in the arena */
    size_t len;
} token;

/* Bytes a pair array holds past its pairs, for parse_plain's quote offsets. */
#define PLAIN_SLACK 64

typedef struct parser {
    const uint8_t *base, *p, *end;
    uint64_t line;
    bspkit_entities *out;
    ent_storage *store;
    size_t ent_cap, pair_cap;
    bool lenient;
    bspkit_error *err;
    /* Where the text sits in its file: added to every offset reported. */
    const char *source; /* the file, or NULL for the entity lump */
    uint64_t base_offset;
} parser;

static bspkit_result fail(bspkit_error *err, bspkit_result code, const char *source, int64_t pos, uint64_t line,
                          const char *what)
{
    if (err) {
        err->code = code;
        err->lump = -1;
        err->offset = -1;
        err->lump_offset = pos;
        const char *who = source ? source : "entities";
        if (pos >= 0)
            snprintf(err->message, sizeof err->message, "%s: line %llu, byte %lld: %s", who,
                     (unsigned long long)line, (long long)pos, what);
        else
            snprintf(err->message, sizeof err->message, "%s: %s", who, what);
    }
    return code;
}

static bspkit_result fail_at(parser *ps, size_t pos, uint64_t line, const char *what)
{
    return fail(ps->err, BSPKIT_ERR_ENTITIES, ps->source, (int64_t)(ps->base_offset + pos), line, what);
}

static bspkit_result fail_nomem(parser *ps)
{
    return fail(ps->err, BSPKIT_ERR_NOMEM, ps->source, -1, 0, "out of memory");
}

/* Skips blanks and // comments, counting lines. */
static void *grow(void *ptr, size_t *cap, size_t need, size_t elem);

/* Lenient parsing: records what was read past. A warning that cannot be
 * stored (out of memory) is dropped; the text is still read. */
static void warn(parser *ps, size_t pos, uint64_t line, const char *what)
{
    bk_entities_warn(ps->out, ps->source, line, ps->base_offset + pos, what);
}

/* A line number as entities and warnings hold it (32 bits, saturating). */
static inline uint32_t line32(uint64_t line)
{
    return line > UINT32_MAX ? UINT32_MAX : (uint32_t)line;
}

/* The bytes of entity text the readers read: up to its first NUL. */
static size_t text_length(const uint8_t *text, size_t size)
{
    const uint8_t *nul = size ? memchr(text, '\0', size) : NULL;
    return nul ? (size_t)(nul - text) : size;
}

bool bk_entities_warn(bspkit_entities *out, const char *source, uint64_t line, uint64_t offset, const char *what)
{
    ent_storage *st = out->storage_;
    bspkit_entity_warning *w = grow(st->warnings, &st->warning_cap, out->warning_count, sizeof *w);
    if (!w)
        return false;
    st->warnings = w;
    out->warnings = w;
    bspkit_entity_warning *x = &w[out->warning_count++];
    x->line = line32(line);
    x->offset = offset;
    x->source = source;
    snprintf(x->message, sizeof x->message, "%s", what);
    return true;
}

static inline __attribute__((always_inline)) void skip_blank(parser *ps)
{
    const uint8_t *p = ps->p, *end = ps->end;
    uint64_t line = ps->line;
    while (p < end) {
        uint8_t c = *p;
        if (c == '\n') {
            line++;
            p++;
        } else if (c <= ' ') {
            p++;
        } else if (c == '/' && end - p >= 2 && p[1] == '/') {
            /* The newline itself is left for the next round to count. */
            const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
            p = nl ? nl : end;
        } else {
            break;
        }
    }
    ps->p = p;
    ps->line = line;
}

static inline __attribute__((always_inline)) bspkit_result next_token(parser *ps, token *t)
{
    skip_blank(ps);
    t->pos = (size_t)(ps->p - ps->base);
    t->line = ps->line;
    t->s = NULL;
    t->len = 0;
    const uint8_t *p = ps->p, *end = ps->end;
    if (p >= end) {
        t->kind = TOK_END;
        return BSPKIT_OK;
    }
    if (*p == '{' || *p == '}') {
        t->kind = *p == '{' ? TOK_OPEN : TOK_CLOSE;
        ps->p = p + 1;
        return BSPKIT_OK;
    }
    t->kind = TOK_STRING;
    /* A string is at most the rest of the text; this is what makes the
     * unchecked copy loops below safe. */
    ent_storage *st = ps->store;
    if ((size_t)(end - p) >= st->cap - st->used)
        return fail_at(ps, t->pos, t->line, "string storage exhausted");
    char *d0 = st->arena + st->used, *d = d0;
    if (*p == '"') {
        /* One loop finds the closing quote, counts lines and copies: entity
         * strings are short, so this beats separate memchr/memcpy calls. */
        uint64_t lines = 0;
        p++;
#if defined(__SSE2__)
        /* Sixteen bytes at a time up to the first quote or newline: stored
         * whole, then the pointers move only past the plain bytes. Never
         * more is written than the rest of the text (checked above). */
        const __m128i quote = _mm_set1_epi8('"'), newline = _mm_set1_epi8('\n');
        while (end - p >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)p);
            _mm_storeu_si128((__m128i *)d, v);
            unsigned stop = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, newline)));
            if (stop == 0) {
                p += 16;
                d += 16;
                continue;
            }
            unsigned k = (unsigned)__builtin_ctz(stop);
            p += k;
            d += k;
            if (*p == '"')
                break;
            lines++; /* a newline inside the string */
            *d++ = (char)*p++;
        }
#endif
        for (; p < end && *p != '"'; p++) {
            lines += *p == '\n';
            *d++ = (char)*p;
        }
        if (p >= end) {
            if (!ps->lenient)
                return fail_at(ps, t->pos, t->line, "unterminated quoted string");
            warn(ps, t->pos, t->line, "quoted string without its closing quote: read to the end of the text");
        } else {
            p++;
        }
        ps->line += lines;
    } else {
        /* Unquoted: runs to a blank, a quote or a brace. Bytes >= 0x80 belong to it. */
        while (p < end && *p > ' ' && *p != '"' && *p != '{' && *p != '}')
            *d++ = (char)*p++;
    }
    size_t len = (size_t)(d - d0);
    if (len > UINT32_MAX)
        return fail_at(ps, t->pos, t->line, "string longer than 4 GiB");
    *d = '\0';
    st->used += len + 1;
    t->s = d0;
    t->len = len;
    ps->p = p;
    return BSPKIT_OK;
}

/* Doubles *cap until it exceeds `need`, guarding the byte-size multiply. */
static void *grow(void *ptr, size_t *cap, size_t need, size_t elem)
{
    if (need < *cap)
        return ptr;
    size_t n = *cap ? *cap : 64;
    while (n <= need) {
        if (n > SIZE_MAX / 2)
            return NULL;
        n *= 2;
    }
    if (n > SIZE_MAX / elem)
        return NULL;
    void *p = realloc(ptr, n * elem);
    if (p)
        *cap = n;
    return p;
}

static inline __attribute__((always_inline)) bspkit_result push_pair(parser *ps, const token *key, const token *value)
{
    bspkit_entities *out = ps->out;
    bspkit_keyvalue *pairs = grow(out->pairs, &ps->pair_cap, out->pair_count, sizeof *pairs);
    if (!pairs)
        return fail_nomem(ps);
    out->pairs = pairs;
    bspkit_keyvalue *kv = &pairs[out->pair_count++];
    kv->key = key->s;
    kv->value = value->s;
    kv->key_length = (uint32_t)key->len;
    kv->value_length = (uint32_t)value->len;
    return BSPKIT_OK;
}

/* Whether the fast pair path may run; the tests turn it off to compare. */
static atomic_bool fast_pairs_refused;

void bk_entities_allow_fast_pairs(bool allow)
{
    atomic_store_explicit(&fast_pairs_refused, !allow, memory_order_relaxed);
}

#if defined(__SSE2__)
/* The common line `"key" "value"` read at once. Returns 1 when the pair at
 * ps->p (after its blanks) was stored, 0 when the general path must read
 * it (nothing consumed but blanks), or the error of push_pair.
 *
 * It applies only where the general path would find the same two quoted
 * tokens on one line: the key's quote and the value's closing quote within
 * 32 bytes (nine lines in ten of real lumps), no newline up to there, and
 * nothing but blanks between them (so no comment). The tokens, their copies
 * in the arena and the pair are then exactly those two next_token calls
 * would give. 64 bytes of text and of arena must remain, so that the
 * fixed-size loads and stores stay inside. */
static inline __attribute__((always_inline)) int fast_pair(parser *ps, bspkit_result *r)
{
    skip_blank(ps);
    const uint8_t *p = ps->p;
    ent_storage *st = ps->store;
    size_t room = st->cap - st->used;
    if (ps->end - p < 64 || *p != '"' || room < 66 || room <= (size_t)(ps->end - p))
        return 0;
    const __m128i quote = _mm_set1_epi8('"'), newline = _mm_set1_epi8('\n'), space = _mm_set1_epi8(' ');
    const __m128i lo = _mm_loadu_si128((const __m128i *)(const void *)p),
                  hi = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
    uint32_t q = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(lo, quote)) |
                 (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(hi, quote)) << 16;
    uint32_t nl = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(lo, newline)) |
                  (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(hi, newline)) << 16;
    /* bytes 0x01-0x20 (the text holds no NUL): max(v, ' ') == ' ' */
    uint32_t blank = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(lo, space), space)) |
                     (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(hi, space), space)) << 16;
    q &= q - 1; /* the key's opening quote */
    unsigned q1 = q ? (unsigned)__builtin_ctz(q) : 0; /* closes the key */
    q &= q - 1;
    unsigned q2 = q ? (unsigned)__builtin_ctz(q) : 0; /* opens the value */
    q &= q - 1;
    if (!q)
        return 0;
    unsigned q3 = (unsigned)__builtin_ctz(q);                                    /* closes the value */
    uint64_t through_q3 = (UINT64_C(2) << q3) - 1;                                /* bits 0..q3 */
    uint64_t between = ((UINT64_C(1) << q2) - 1) & ~((UINT64_C(2) << q1) - 1); /* q1 < bits < q2 */
    if ((nl & through_q3) || (blank & between) != between)
        return 0;
    size_t klen = q1 - 1, vlen = q3 - q2 - 1;
    char *key = st->arena + st->used, *value = key + klen + 1;
    _mm_storeu_si128((__m128i *)(void *)key, _mm_loadu_si128((const __m128i *)(const void *)(p + 1)));
    _mm_storeu_si128((__m128i *)(void *)(key + 16), _mm_loadu_si128((const __m128i *)(const void *)(p + 17)));
    key[klen] = '\0';
    _mm_storeu_si128((__m128i *)(void *)value, _mm_loadu_si128((const __m128i *)(const void *)(p + q2 + 1)));
    _mm_storeu_si128((__m128i *)(void *)(value + 16), _mm_loadu_si128((const __m128i *)(const void *)(p + q2 + 17)));
    value[vlen] = '\0';
    st->used += klen + vlen + 2;
    token kt = {.kind = TOK_STRING, .pos = (size_t)(p - ps->base), .line = ps->line, .s = key, .len = klen};
    token vt = {.kind = TOK_STRING, .pos = kt.pos + q2, .line = ps->line, .s = value, .len = vlen};
    ps->p = p + q3 + 1;
    if ((*r = push_pair(ps, &kt, &vt)) != BSPKIT_OK)
        return -1;
    return 1;
}
#endif

#if defined(__SSE2__)
/* One piece of 64 bytes: bit i of each mask for byte i. */
typedef struct piece_masks {
    uint64_t quote, brace, blank, newline;
} piece_masks;

/* The masks of the 64 bytes at src, stored to dst as well unless it is
 * NULL. Brace bits also mark 'y' and DEL (byte | 6 == 0x7F), told apart
 * where a brace is read; blank bytes are 0x01-0x20 (the text holds no NUL). */
static inline __attribute__((always_inline)) piece_masks scan_piece_sse2(const uint8_t *src, char *dst)
{
    const __m128i quote = _mm_set1_epi8('"'), space = _mm_set1_epi8(' '), newline = _mm_set1_epi8('\n'),
                  brace = _mm_set1_epi8(0x7F), brace_bits = _mm_set1_epi8(0x06);
    __m128i qv[4], bv[4], blank[4], nl[4];
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(src + 16 * k));
        if (dst)
            _mm_storeu_si128((__m128i *)(void *)(dst + 16 * k), v);
        qv[k] = _mm_cmpeq_epi8(v, quote);
        bv[k] = _mm_cmpeq_epi8(_mm_or_si128(v, brace_bits), brace);
        blank[k] = _mm_cmpeq_epi8(_mm_max_epu8(v, space), space);
        nl[k] = _mm_cmpeq_epi8(v, newline);
    }
    return (piece_masks){bk_mask64(qv[0], qv[1], qv[2], qv[3]), bk_mask64(bv[0], bv[1], bv[2], bv[3]),
                         bk_mask64(blank[0], blank[1], blank[2], blank[3]),
                         bk_mask64(nl[0], nl[1], nl[2], nl[3])};
}

#if BK_CPU_AVX2
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) piece_masks
scan_piece_avx2(const uint8_t *src, char *dst)
{
    const __m256i quote = _mm256_set1_epi8('"'), space = _mm256_set1_epi8(' '),
                  newline = _mm256_set1_epi8('\n'), brace = _mm256_set1_epi8(0x7F),
                  brace_bits = _mm256_set1_epi8(0x06);
    uint64_t q = 0, b = 0, blank = 0, nl = 0;
#pragma GCC unroll 2
    for (int k = 0; k < 2; k++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(src + 32 * k));
        if (dst)
            _mm256_storeu_si256((__m256i *)(void *)(dst + 32 * k), v);
        q |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, quote)) << (32 * k);
        b |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_or_si256(v, brace_bits), brace))
             << (32 * k);
        blank |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_max_epu8(v, space), space))
                 << (32 * k);
        nl |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, newline)) << (32 * k);
    }
    return (piece_masks){q, b, blank, nl};
}
#endif

/* Bit i = XOR of bits 0..i: from an opening quote up to, not including,
 * its closing quote. */
static inline uint64_t prefix_xor(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/* What bk_entities_scan_models keeps while plain_body reads: where the
 * next `"model"` is, the entity whose first model key was seen last, and
 * the models the caller's test refused. */
typedef struct model_scan {
    bk_model_fits_fn fits;
    void *arg;
    size_t next;         /* offset of the next `"model"` in the text; SIZE_MAX when none */
    size_t seen_entity;  /* SIZE_MAX: none yet */
    size_t entities;     /* blocks closed */
    bk_model_ref *bad;
    size_t bad_count, bad_cap;
} model_scan;

/* The offset of the next `"model"` in t[from .. len), or SIZE_MAX: a quote
 * followed by 'm' found sixteen bytes at a time, then the rest compared. */
static size_t next_model_key(const uint8_t *t, size_t len, size_t from)
{
    static const char key[] = "\"model\"";
    size_t i = from;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), m = _mm_set1_epi8('m');
    for (; i + 17 <= len; i += 16) {
        const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(t + i)),
                      b = _mm_loadu_si128((const __m128i *)(const void *)(t + i + 1));
        for (unsigned hits = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, quote), _mm_cmpeq_epi8(b, m)));
             hits; hits &= hits - 1) {
            size_t k = i + (size_t)__builtin_ctz(hits);
            if (k + 7 <= len && memcmp(t + k, key, 7) == 0)
                return k;
        }
    }
#endif
    for (; i + 7 <= len; i++)
        if (t[i] == '"' && memcmp(t + i, key, 7) == 0)
            return i;
    return SIZE_MAX;
}

/* A `"model"` at offset `pos`, quote number `qi` of the text, seen while
 * the block opened at `block_pos` on line `block_line` is open: when it is
 * the block's first model key, its value (the next two quotes) goes to the
 * caller's test. False when the text cannot have the plain shape, or on
 * running out of memory. */
static bool model_key_at(model_scan *ms, const parser *ps, size_t pos, size_t qi, size_t block_pos,
                         uint64_t block_line)
{
    const uint8_t *base = ps->base, *end = ps->end;
    if (qi % 4 != 0 || ms->seen_entity == ms->entities)
        return true; /* a value, or not the block's first model key */
    ms->seen_entity = ms->entities;
    const uint8_t *open = memchr(base + pos + 7, '"', (size_t)(end - (base + pos + 7)));
    const uint8_t *close = open ? memchr(open + 1, '"', (size_t)(end - (open + 1))) : NULL;
    if (!close)
        return false;
    const char *value = (const char *)open + 1;
    size_t length = (size_t)(close - open) - 1;
    if (ms->fits(value, length, ms->arg))
        return true;
    if (ms->bad_count == ms->bad_cap) {
        size_t cap = ms->bad_cap ? 2 * ms->bad_cap : 8;
        bk_model_ref *grown = realloc(ms->bad, cap * sizeof *grown);
        if (!grown)
            return false;
        ms->bad = grown;
        ms->bad_cap = cap;
    }
    ms->bad[ms->bad_count++] =
        (bk_model_ref){ms->entities, line32(block_line), ps->base_offset + block_pos, value, length};
    return true;
}

/* The whole text read at once when it has the plain shape nearly every
 * entity lump has: outside quoted strings nothing but blanks and braces,
 * blocks `{ ("key" "value")* }` one after another, no comment, no unquoted
 * token, nothing after the last block. One pass over pieces of 64 bytes
 * copies the text into the arena, finds the bytes inside strings (a prefix
 * XOR of the quote bits), notes each block and the offset of every quote;
 * the pairs are then four quotes each. Strings stay where they are in the
 * copy, their closing quotes turned into NULs: the same bytes and lengths
 * the token reader gives. True when the list is complete; false when the
 * text has another shape (the token reader then starts over and reports
 * whatever is wrong). `quotes` and `opens` are count_marks' counts, which
 * the arrays were sized for (the pairs with PLAIN_SLACK more). With `ms`
 * (the model scan, bk_entities_scan_models) the same pass keeps nothing:
 * no copy, no offsets, no list, only the blocks counted and their model
 * keys handed to model_key_at; the shape it accepts is the same. Always
 * inlined into one SSE2 and one AVX2 build of it for each. */
static inline __attribute__((always_inline)) bool plain_body(parser *ps, size_t quotes, size_t opens,
                                                             piece_masks (*scan)(const uint8_t *, char *),
                                                             uint64_t (*strings_of)(uint64_t), model_scan *ms)
{
    bspkit_entities *out = ps->out;
    ent_storage *st = ps->store;
    const uint8_t *base = ps->base;
    const size_t len = (size_t)(ps->end - base);
    if (len > UINT32_MAX)
        return false;
    if (!ms && (quotes % 4 != 0 || quotes / 4 > ps->pair_cap || opens > ps->ent_cap || st->cap < len + 1))
        return false;
    /* The quotes' offsets, and room for the last piece's sixteen. Past a
     * few hundred they go at the end of the pair array (6 bytes a quote,
     * PLAIN_SLACK more), which they fill as they are read: pair i, written
     * over bytes 24i .. 24i + 24, reads its four offsets first, and the
     * next pair's start at byte 2 x quotes + 16(i + 1), past those. */
    uint32_t small[512 + 16];
    uint32_t *at = ms || quotes <= 512 ? small
                                       : (uint32_t *)(void *)((char *)out->pairs + quotes / 4 * 24 - 4 * quotes);
    _Static_assert(sizeof(bspkit_keyvalue) == 24 && 16 * sizeof(uint32_t) <= PLAIN_SLACK,
                   "a pair takes 24 bytes, four offsets 16");
    char *copy = ms ? NULL : st->arena; /* the model scan keeps nothing of the text */
    size_t n = 0;           /* quotes so far */
    uint64_t in_string = 0; /* all ones while a string runs on into the next piece */
    bool open = false;      /* inside a block */
    size_t block_pos = 0, block_quote = 0;
    /* The line at the start of each piece; a block's line adds the
     * newlines before its brace in the piece. */
    uint64_t lines = ps->line, block_line = 0;
    bool ok = true;
    for (size_t piece = 0; piece < len; piece += 64) {
        const uint8_t *src = base + piece;
        uint8_t tail[64];
        const size_t have = len - piece;
        if (have < 64) { /* the last piece, padded with blanks */
            memset(tail, ' ', sizeof tail);
            memcpy(tail, src, have);
            if (!ms)
                memcpy(copy + piece, src, have);
            src = tail;
        }
        piece_masks m = scan(src, !ms && have >= 64 ? copy + piece : NULL);
        uint64_t q = m.quote;
        uint64_t inside = strings_of(q) ^ in_string; /* opening quotes and string bytes */
        in_string = (uint64_t)((int64_t)inside >> 63);
        uint64_t outside = ~inside & ~q;
        if (outside & ~m.blank & ~m.brace) {
            ok = false; /* a comment, an unquoted token or other text between strings */
            break;
        }
        for (uint64_t b = m.brace & outside;; b &= b - 1) {
            unsigned k = b ? (unsigned)__builtin_ctzll(b) : 64;
            /* The model scan's keys before this brace, in text order: the
             * block they are in is the open one. */
            for (; ms && ms->next < piece + k; ms->next = next_model_key(base, len, ms->next + 1)) {
                size_t at_k = ms->next - piece;
                size_t key_qi = n + (size_t)__builtin_popcountll(q & ((UINT64_C(1) << at_k) - 1));
                if (open && !model_key_at(ms, ps, ms->next, key_qi, block_pos, block_line)) {
                    ok = false;
                    break;
                }
            }
            if (!ok || !b)
                break;
            uint64_t below = (UINT64_C(1) << k) - 1;
            size_t qi = n + (size_t)__builtin_popcountll(q & below);
            size_t pos = piece + k;
            if (src[k] == '{' && !open && qi == block_quote) {
                block_line = lines + (uint64_t)__builtin_popcountll(m.newline & below);
                block_pos = pos;
                block_quote = qi;
                open = true;
            } else if (src[k] == '}' && open && (qi - block_quote) % 4 == 0 && (ms || out->count < ps->ent_cap)) {
                if (ms) {
                    ms->entities++;
                } else {
                    bspkit_entity *e = &out->entities[out->count++];
                    e->first_pair = block_quote / 4;
                    e->num_pairs = (qi - block_quote) / 4;
                    e->line = line32(block_line);
                    e->offset = ps->base_offset + block_pos;
                    e->source = ps->source;
                }
                block_quote = qi;
                open = false;
            } else {
                ok = false; /* a stray or nested brace, a key without a value, 'y' or DEL */
                break;
            }
        }
        if (!ok)
            break;
        lines += (uint64_t)__builtin_popcountll(m.newline);
        /* Sixteen offsets written whatever the count (a loop ending at a
         * different count in every piece is a mispredicted branch each
         * time); the ones past it are overwritten or never read. */
        size_t count = (size_t)__builtin_popcountll(q);
        uint32_t *o = at + n;
        n += count;
        if (ms)
            continue;
#pragma GCC unroll 16
        for (int j = 0; j < 16; j++) {
            o[j] = (uint32_t)(piece + (size_t)(q ? __builtin_ctzll(q) : 0));
            q &= q - 1;
        }
        for (o += 16; q; q &= q - 1)
            *o++ = (uint32_t)(piece + (size_t)__builtin_ctzll(q));
    }
    /* Every block closed and no quote after the last: a string left open
     * would be an odd quote after it. */
    ok = ok && !open && (ms ? block_quote == n : n == quotes && block_quote == quotes);
    if (ms)
        return ok;
    if (ok) {
        copy[len] = '\0';
        bspkit_keyvalue *kv = out->pairs;
        for (size_t i = 0; i < n; i += 4, kv++) {
            /* Read as bytes: the stores below may overlap them. */
            uint32_t q[4];
            memcpy(q, at + i, sizeof q);
            uint32_t k0 = q[0], k1 = q[1], v0 = q[2], v1 = q[3];
            copy[k1] = '\0';
            copy[v1] = '\0';
            kv->key = copy + k0 + 1;
            kv->value = copy + v0 + 1;
            kv->key_length = k1 - k0 - 1;
            kv->value_length = v1 - v0 - 1;
        }
        out->pair_count = n / 4;
        st->used = len + 1;
    } else {
        out->count = 0;
    }
    return ok;
}

static bool parse_plain_sse2(parser *ps, size_t quotes, size_t opens)
{
    return plain_body(ps, quotes, opens, scan_piece_sse2, prefix_xor, NULL);
}

#if BK_CPU_AVX2
/* The prefix XOR as one carry-less multiply by all ones. */
__attribute__((target("pclmul"))) static inline __attribute__((always_inline)) uint64_t prefix_xor_clmul(uint64_t x)
{
    return (uint64_t)_mm_cvtsi128_si64(
        _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)x), _mm_set1_epi8(-1), 0));
}

/* The same code with VEX encodings, TZCNT, BLSR, POPCNT and PCLMULQDQ. */
__attribute__((target("avx2,bmi,popcnt,pclmul"))) static bool parse_plain_avx2(parser *ps, size_t quotes,
                                                                              size_t opens)
{
    return plain_body(ps, quotes, opens, scan_piece_avx2, prefix_xor_clmul, NULL);
}
#endif

static bool parse_plain(parser *ps, size_t quotes, size_t opens)
{
#if BK_CPU_AVX2
    if (bk_cpu_has_avx2())
        return parse_plain_avx2(ps, quotes, opens);
#endif
    return parse_plain_sse2(ps, quotes, opens);
}

/* plain_body's model scan, in each build: builds of their own (not
 * parse_plain's with `ms` passed on), so that each folds its `ms` tests. */
static bool scan_models_sse2(parser *ps, model_scan *ms)
{
    return plain_body(ps, 0, 0, scan_piece_sse2, prefix_xor, ms);
}

#if BK_CPU_AVX2
__attribute__((target("avx2,bmi,popcnt,pclmul"))) static bool scan_models_avx2(parser *ps, model_scan *ms)
{
    return plain_body(ps, 0, 0, scan_piece_avx2, prefix_xor_clmul, ms);
}
#endif
#endif

bool bk_entities_scan_models(const char *text, size_t size, bk_model_fits_fn fits, void *arg, size_t *count,
                             bk_model_ref **bad, size_t *bad_count)
{
    *count = 0;
    *bad = NULL;
    *bad_count = 0;
#if defined(__SSE2__)
    if (!text || atomic_load_explicit(&fast_pairs_refused, memory_order_relaxed))
        return false;
    const uint8_t *base = (const uint8_t *)text;
    size_t len = text_length(base, size);
    parser ps = {.base = base, .p = base, .end = base + len, .line = 1};
    model_scan ms = {.fits = fits, .arg = arg, .next = next_model_key(base, len, 0), .seen_entity = SIZE_MAX};
    bool ok;
#if BK_CPU_AVX2
    if (bk_cpu_has_avx2())
        ok = scan_models_avx2(&ps, &ms);
    else
#endif
        ok = scan_models_sse2(&ps, &ms);
    if (!ok) {
        free(ms.bad);
        return false;
    }
    *count = ms.entities;
    *bad = ms.bad;
    *bad_count = ms.bad_count;
    return true;
#else
    (void)text, (void)size, (void)fits, (void)arg;
    return false;
#endif
}

/* Lenient: a block cut short by `t` (a '{', or the end) ends before it; a
 * '{' is left to open the next block. */
static void end_block_early(parser *ps, const token *t)
{
    if (t->kind == TOK_OPEN)
        ps->p = ps->base + t->pos; /* the next block starts here */
}

/* Parses one block; ps->p is just past its opening brace at `pos`/`line`. */
static bspkit_result parse_block(parser *ps, size_t pos, uint64_t line)
{
    bspkit_entities *out = ps->out;
    size_t first = out->pair_count;
    bspkit_result r;
    const bool fast = !atomic_load_explicit(&fast_pairs_refused, memory_order_relaxed);
    for (;;) {
        token key, value;
#if defined(__SSE2__)
        if (fast) {
            int got = fast_pair(ps, &r);
            if (got > 0)
                continue;
            if (got < 0)
                return r;
        }
#else
        (void)fast;
#endif
        if ((r = next_token(ps, &key)) != BSPKIT_OK)
            return r;
        if (key.kind == TOK_CLOSE)
            break;
        if (key.kind == TOK_END || key.kind == TOK_OPEN) {
            if (!ps->lenient)
                return key.kind == TOK_END ? fail_at(ps, pos, line, "unterminated block")
                                           : fail_at(ps, key.pos, key.line, "'{' inside a block");
            warn(ps, key.pos, key.line,
                 key.kind == TOK_END ? "block without its closing '}': ends at the end of the text"
                                     : "'{' inside a block: the block ends before it");
            end_block_early(ps, &key);
            break;
        }
        if ((r = next_token(ps, &value)) != BSPKIT_OK)
            return r;
        if (value.kind != TOK_STRING) {
            if (!ps->lenient)
                return value.kind == TOK_OPEN ? fail_at(ps, value.pos, value.line, "'{' inside a block")
                                              : fail_at(ps, key.pos, key.line, "key without a value");
            warn(ps, key.pos, key.line, "key without a value: dropped");
            end_block_early(ps, &value);
            break;
        }
        if ((r = push_pair(ps, &key, &value)) != BSPKIT_OK)
            return r;
    }
    bspkit_entity *ents = grow(out->entities, &ps->ent_cap, out->count, sizeof *ents);
    if (!ents)
        return fail_nomem(ps);
    out->entities = ents;
    bspkit_entity *e = &ents[out->count++];
    e->first_pair = first;
    e->num_pairs = out->pair_count - first;
    e->line = line32(line);
    e->offset = ps->base_offset + pos;
    e->source = ps->source;
    return BSPKIT_OK;
}

static bspkit_result parse_text(parser *ps)
{
    bspkit_entities *out = ps->out;
    for (;;) {
        skip_blank(ps);
        if (ps->p >= ps->end)
            return BSPKIT_OK;
        size_t pos = (size_t)(ps->p - ps->base);
        if (*ps->p == '{') {
            uint64_t line = ps->line;
            ps->p++;
            bspkit_result r = parse_block(ps, pos, line);
            if (r != BSPKIT_OK)
                return r;
            continue;
        }
        if (out->count == 0) {
            if (!ps->lenient)
                return fail_at(ps, pos, ps->line, *ps->p == '}' ? "stray '}'" : "text before the first '{'");
            /* Skip to the next '{', counting the lines passed. */
            warn(ps, pos, ps->line, *ps->p == '}' ? "stray '}': skipped" : "text before the first '{': skipped");
            const uint8_t *open = memchr(ps->p, '{', (size_t)(ps->end - ps->p));
            const uint8_t *stop = open ? open : ps->end;
            for (const uint8_t *q = ps->p; q < stop; q++)
                ps->line += *q == '\n';
            ps->p = stop;
            continue;
        }
        /* Junk after the last block: nothing past here is parsed, not even a
         * later '{', since leftover bytes often hold fragments of old blocks. */
        out->trailing_offset = ps->base_offset + pos;
        uint64_t n = 0;
        for (const uint8_t *p = ps->p; p < ps->end; p++)
            n += *p > ' ';
        out->trailing_bytes = n;
        return BSPKIT_OK;
    }
}

void bspkit_entities_free(bspkit_entities *ents)
{
    if (!ents)
        return;
    ent_storage *st = ents->storage_; /* in the same block as ents */
    if (st) {
        free(st->arena);
        free(st->warnings);
        for (size_t i = 0; i < st->block_count; i++)
            free(st->blocks[i]);
        free(st->blocks);
    }
    free(ents->entities);
    free(ents->pairs);
    free(ents);
}

/* Gives back the slack of an array of `cap` elements holding `count` when
 * it is worth a call (an eighth and a page); keeps the old block if realloc
 * fails. */
static void *shrink(void *ptr, size_t count, size_t cap, size_t elem)
{
    size_t slack = cap - count;
    if (!ptr || count == 0 || slack < cap / 8 || slack * elem < 4096)
        return ptr;
    void *p = realloc(ptr, count * elem);
    return p ? p : ptr;
}

bspkit_result bspkit_entities_parse(const char *text, size_t size, bspkit_entities **out, bspkit_error *err)
{
    return bspkit_entities_parse_ex(text, size, 0, out, err);
}

bspkit_result bspkit_entities_parse_ex(const char *text, size_t size, unsigned flags, bspkit_entities **out,
                                       bspkit_error *err)
{
    return bk_entities_parse_at(text, size, flags, NULL, 0, 1, out, err);
}

/* Keeps `block` (malloc'd) until the list is freed; frees it and fails when it cannot. */
static bool keep_block(ent_storage *st, void *block)
{
    void **b = grow(st->blocks, &st->block_cap, st->block_count, sizeof *b);
    if (!b) {
        free(block);
        return false;
    }
    st->blocks = b;
    b[st->block_count++] = block;
    return true;
}

const char *bk_entities_keep_string(bspkit_entities *ents, const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = malloc(n);
    if (!copy || !keep_block(ents->storage_, copy))
        return NULL;
    memcpy(copy, s, n);
    return copy;
}

/* The '"' and '{' bytes of p[0..n), sixteen at a time where SSE2 is there. */
static void count_marks(const uint8_t *p, size_t n, size_t *quotes, size_t *opens)
{
    size_t q = 0, o = 0, i = 0;
#if defined(__SSE2__)
    /* Per-byte counters (a match is -1, subtracted), summed before any can
     * pass 255. */
    const __m128i quote = _mm_set1_epi8('"'), open = _mm_set1_epi8('{'), zero = _mm_setzero_si128();
    while (i + 16 <= n) {
        __m128i qacc = zero, oacc = zero;
        for (int k = 0; k < 255 && i + 16 <= n; k++, i += 16) {
            const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
            qacc = _mm_sub_epi8(qacc, _mm_cmpeq_epi8(v, quote));
            oacc = _mm_sub_epi8(oacc, _mm_cmpeq_epi8(v, open));
        }
        __m128i qs = _mm_sad_epu8(qacc, zero), os = _mm_sad_epu8(oacc, zero);
        q += (size_t)_mm_cvtsi128_si32(qs) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(qs, 8));
        o += (size_t)_mm_cvtsi128_si32(os) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(os, 8));
    }
#endif
    for (; i < n; i++) {
        q += p[i] == '"';
        o += p[i] == '{';
    }
    *quotes = q;
    *opens = o;
}

bspkit_result bk_entities_parse_at(const char *text, size_t size, unsigned flags, const char *source,
                                   uint64_t base_offset, uint64_t first_line, bspkit_entities **out,
                                   bspkit_error *err)
{
    if (out)
        *out = NULL;
    if (!out || (!text && size))
        return fail(err, BSPKIT_ERR_ARGUMENT, source, -1, 0, "invalid argument");

    const uint8_t *base = (const uint8_t *)text;
    size_t len = text_length(base, size);

    /* The list and its private storage in one block. */
    struct list_block {
        bspkit_entities ents;
        ent_storage st;
    } *block = calloc(1, sizeof *block);
    bspkit_entities *ents = block ? &block->ents : NULL;
    ent_storage *st = block ? &block->st : NULL;
    if (ents)
        ents->storage_ = st;
    if (!ents || len > SIZE_MAX - 2 || !(st->arena = malloc(len + 2)) ||
        (source && !(source = bk_entities_keep_string(ents, source)))) {
        bspkit_entities_free(ents);
        return fail(err, BSPKIT_ERR_NOMEM, NULL, -1, 0, "out of memory");
    }
    st->cap = len + 2;

    parser ps = {
        .base = base, .p = base, .end = base + len, .line = first_line, .out = ents, .store = st,
        .lenient = (flags & BSPKIT_ENTITIES_LENIENT) != 0, .err = err, .source = source,
        .base_offset = base_offset,
    };
    /* Every quoted pair has four quotes and every block one '{': both
     * arrays are sized once for those and not copied as they grow (only
     * unquoted tokens can still grow the pairs, and only lenient reading,
     * which may end a block early, the entities). */
    size_t quotes, opens;
    count_marks(base, len, &quotes, &opens);
    if (quotes >= 4) {
        ents->pairs = malloc(quotes / 4 * sizeof *ents->pairs + PLAIN_SLACK);
        ps.pair_cap = quotes / 4;
    }
    if (opens > 0) {
        ents->entities = malloc(opens * sizeof *ents->entities);
        ps.ent_cap = opens;
    }
    if ((quotes >= 4 && !ents->pairs) || (opens > 0 && !ents->entities)) {
        bspkit_entities_free(ents);
        return fail(err, BSPKIT_ERR_NOMEM, NULL, -1, 0, "out of memory");
    }
    bspkit_result r = BSPKIT_OK;
#if defined(__SSE2__)
    if (atomic_load_explicit(&fast_pairs_refused, memory_order_relaxed) || !parse_plain(&ps, quotes, opens))
#endif
        r = parse_text(&ps);
    if (r != BSPKIT_OK) {
        bspkit_entities_free(ents);
        return r;
    }
    ents->entities = shrink(ents->entities, ents->count, ps.ent_cap, sizeof *ents->entities);
    ents->pairs = shrink(ents->pairs, ents->pair_count, ps.pair_cap, sizeof *ents->pairs);
    *out = ents;
    return BSPKIT_OK;
}

/* Grows *items (count used, *cap allocated) to hold `more` more elements. */
static bool reserve(void **items, size_t *cap, size_t count, size_t more, size_t elem)
{
    if (more > SIZE_MAX - count)
        return false;
    if (count + more <= *cap)
        return true;
    size_t c = *cap;
    void *p = grow(*items, &c, count + more - 1, elem);
    if (!p)
        return false;
    *items = p;
    *cap = c;
    return true;
}

bspkit_result bk_entities_append(bspkit_entities *dst, bspkit_entities *src, bspkit_error *err)
{
    ent_storage *ds = dst->storage_, *ss = src->storage_;
    /* dst's arrays hold at least their counts; taken as exactly that, they
     * are at worst reallocated once more than needed. */
    size_t ent_cap = dst->count, pair_cap = dst->pair_count;
    void *ents = dst->entities, *pairs = dst->pairs;
    bool ok = reserve(&ents, &ent_cap, dst->count, src->count, sizeof *dst->entities);
    dst->entities = ents;
    ok = ok && reserve(&pairs, &pair_cap, dst->pair_count, src->pair_count, sizeof *dst->pairs);
    dst->pairs = pairs;
    void *warnings = ds->warnings, *blocks = ds->blocks;
    ok = ok && reserve(&warnings, &ds->warning_cap, dst->warning_count, src->warning_count, sizeof *ds->warnings);
    ds->warnings = warnings;
    ok = ok && reserve(&blocks, &ds->block_cap, ds->block_count, ss->block_count + 1, sizeof *ds->blocks);
    ds->blocks = blocks;
    if (!ok) {
        bspkit_entities_free(src);
        return fail(err, BSPKIT_ERR_NOMEM, NULL, -1, 0, "out of memory");
    }
    dst->warnings = ds->warnings;
    for (size_t i = 0; i < src->count; i++) {
        bspkit_entity e = src->entities[i];
        e.first_pair += dst->pair_count;
        dst->entities[dst->count + i] = e;
    }
    dst->count += src->count;
    if (src->pair_count)
        memcpy(dst->pairs + dst->pair_count, src->pairs, src->pair_count * sizeof *src->pairs);
    dst->pair_count += src->pair_count;
    if (src->warning_count)
        memcpy(ds->warnings + dst->warning_count, src->warnings, src->warning_count * sizeof *src->warnings);
    dst->warning_count += src->warning_count;
    /* The strings stay where they are: their blocks move to dst. */
    ds->blocks[ds->block_count++] = ss->arena;
    ss->arena = NULL;
    memcpy(ds->blocks + ds->block_count, ss->blocks, ss->block_count * sizeof *ss->blocks);
    ds->block_count += ss->block_count;
    ss->block_count = 0;
    bspkit_entities_free(src);
    return BSPKIT_OK;
}

const char *bspkit_entity_value(const bspkit_entities *ents, size_t index, const char *key)
{
    if (!ents || !key || index >= ents->count)
        return NULL;
    const bspkit_entity *e = &ents->entities[index];
    if (e->num_pairs == 0) /* pairs may be NULL when no entity has any */
        return NULL;
    const bspkit_keyvalue *kv = ents->pairs + e->first_pair;
    /* The first bytes tell most keys apart before a call. */
    for (size_t i = 0; i < e->num_pairs; i++)
        if (kv[i].key[0] == key[0] && strcmp(kv[i].key, key) == 0)
            return kv[i].value;
    return NULL;
}
