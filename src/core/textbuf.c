/* Text buffer and JSON writer for the export writers. */
#include "core/textbuf.h"
#include "core/fmt_num.h"
#include "core/grow.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool reserve_slow(bk_tbuf *t, size_t more)
{
    if (t->failed)
        return false;
    /* room for `more` bytes and the terminating NUL */
    if (more > SIZE_MAX - 1 - t->size || !bk_grow((void **)&t->data, &t->cap, t->size + more + 1, 1)) {
        t->failed = true;
        return false;
    }
    return true;
}

/* Room for `more` bytes and the NUL: most calls find it already there. */
static inline bool reserve(bk_tbuf *t, size_t more)
{
    return (!t->failed && more < t->cap - t->size) || reserve_slow(t, more);
}

void tb_put(bk_tbuf *t, const char *s, size_t n)
{
    /* Nothing to add (s may then be NULL, e.g. an empty name after a failed allocation). */
    if (n == 0)
        return;
    if (!reserve(t, n))
        return;
    memcpy(t->data + t->size, s, n);
    t->size += n;
    t->data[t->size] = '\0';
}

void tb_puts(bk_tbuf *t, const char *s) { tb_put(t, s, strlen(s)); }

char *tb_room(bk_tbuf *t, size_t n) { return reserve(t, n) ? t->data + t->size : NULL; }

void tb_commit(bk_tbuf *t, size_t k)
{
    t->size += k;
    t->data[t->size] = '\0';
}

void tb_printf(bk_tbuf *t, const char *fmt, ...)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!reserve(t, 64))
            return;
        va_list ap;
        va_start(ap, fmt);
        size_t room = t->cap - t->size;
        int n = vsnprintf(t->data + t->size, room, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = true;
            return;
        }
        if ((size_t)n < room) {
            t->size += (size_t)n;
            return;
        }
        if (!reserve(t, (size_t)n + 1))
            return;
    }
}

void tb_free(bk_tbuf *t)
{
    free(t->data);
    memset(t, 0, sizeof *t);
}

static void sep(bk_tbuf *t)
{
    if (t->comma)
        tb_put(t, ",", 1);
    t->comma = true;
}

void jw_obj(bk_tbuf *t)
{
    sep(t);
    tb_put(t, "{", 1);
    t->comma = false;
}

void jw_arr(bk_tbuf *t)
{
    sep(t);
    tb_put(t, "[", 1);
    t->comma = false;
}

void jw_end_obj(bk_tbuf *t)
{
    tb_put(t, "}", 1);
    t->comma = true;
}

void jw_end_arr(bk_tbuf *t)
{
    tb_put(t, "]", 1);
    t->comma = true;
}

/* Length of the valid UTF-8 sequence at s, 0 when invalid. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    unsigned cp = c & (0x3Fu >> (n - 1));
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

static bool valid_utf8(const unsigned char *s)
{
    while (*s) {
        size_t n = utf8_len(s);
        if (!n)
            return false;
        s += n;
    }
    return true;
}

/* Bytes a JSON string holds as they are: printable ASCII but '"' and '\\'. */
#define PLAIN_ROW_CTRL 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
#define PLAIN_ROW_ALL 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
static const uint8_t JSON_PLAIN[256] = {
    PLAIN_ROW_CTRL, PLAIN_ROW_CTRL,
    1, 1, 0 /* '"' */, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x20 */
    PLAIN_ROW_ALL, PLAIN_ROW_ALL,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0 /* '\\' */, 1, 1, 1, /* 0x50 */
    PLAIN_ROW_ALL, PLAIN_ROW_ALL,
    /* 0x80 to 0xFF (and NUL above) end the plain run */
};

/* The string s in quotes, then `after` (a ':' for a key; '\0' for none). */
static void put_string(bk_tbuf *t, const char *s, char after)
{
    /* Most strings (keys, names) are printable ASCII without quotes or
     * backslashes: written at once, as the general path would. */
    size_t n = 0;
    while (JSON_PLAIN[(unsigned char)s[n]])
        n++;
    if (s[n] == '\0') {
        char *w = tb_room(t, n + 3);
        if (w) {
            w[0] = '"';
            memcpy(w + 1, s, n);
            w[n + 1] = '"';
            w[n + 2] = after;
            tb_commit(t, n + 2 + (after != '\0'));
        }
        return;
    }
    static const char HEX[] = "0123456789abcdef";
    bool ascii_only = !valid_utf8((const unsigned char *)s);
    tb_put(t, "\"", 1);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        /* Copy the longest run that needs no escaping in one go. */
        const unsigned char *run = p;
        while (*p >= 0x20 && *p != '"' && *p != '\\' && !(ascii_only && *p >= 0x80))
            p++;
        if (p > run)
            tb_put(t, (const char *)run, (size_t)(p - run));
        if (!*p)
            break;
        char esc[6] = {'\\', 'u', '0', '0', HEX[*p >> 4], HEX[*p & 15]};
        if (*p >= 0x80)
            tb_put(t, "?", 1);
        else if (*p == '"' || *p == '\\')
            tb_put(t, (const char[]){'\\', (char)*p}, 2);
        else
            tb_put(t, esc, 6);
        p++;
    }
    tb_put(t, "\"", 1);
    if (after)
        tb_put(t, &after, 1);
}

void jw_key(bk_tbuf *t, const char *key)
{
    sep(t);
    put_string(t, key, ':');
    t->comma = false;
}

void jw_key_raw(bk_tbuf *t, const char *quoted_key, size_t n)
{
    sep(t);
    tb_put(t, quoted_key, n);
    t->comma = false;
}

void jw_str(bk_tbuf *t, const char *s)
{
    sep(t);
    put_string(t, s, '\0');
}

void jw_int(bk_tbuf *t, int64_t v)
{
    sep(t);
    char buf[BK_FMT_NUM_CAP];
    tb_put(t, buf, bk_fmt_int(buf, (long long)v));
}

size_t jw_format_real(char *out, double v)
{
    if (!isfinite(v))
        v = 0;
    size_t n = bk_fmt_g(out, v, 9);
    /* Without '.' or an exponent, ".0" keeps it a real when read back. */
    if (!memchr(out, '.', n) && !memchr(out, 'e', n) && !memchr(out, 'E', n)) {
        out[n++] = '.';
        out[n++] = '0';
    }
    return n;
}

void jw_real(bk_tbuf *t, double v)
{
    sep(t);
    char buf[BK_JSON_REAL_CAP];
    tb_put(t, buf, jw_format_real(buf, v));
}

void jw_reals(bk_tbuf *t, const double *v, int n)
{
    jw_arr(t);
    for (int i = 0; i < n; i++)
        jw_real(t, v[i]);
    jw_end_arr(t);
}

void jw_raw_value(bk_tbuf *t, const char *s, size_t n)
{
    sep(t);
    tb_put(t, s, n);
}
