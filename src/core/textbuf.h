/* Growing text buffer for the export writers, with a minimal JSON writer on
 * top: jansson builds one heap node per value, which for the many accessors
 * and views of a large map cost more than the geometry itself. */
#ifndef BSPKIT_CORE_TEXTBUF_H
#define BSPKIT_CORE_TEXTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bk_tbuf {
    char *data;     /* NUL-terminated while not failed */
    size_t size, cap;
    bool failed;    /* an allocation failed; later writes are ignored */
    bool comma;     /* JSON: a value was written at this level, the next needs ',' */
} bk_tbuf;

void tb_put(bk_tbuf *t, const char *s, size_t n);
void tb_puts(bk_tbuf *t, const char *s);
/* Room for `n` more bytes at the end, to be written in place and kept with
 * tb_commit(t, k), k <= n; NULL when out of memory (t->failed is then set). */
char *tb_room(bk_tbuf *t, size_t n);
void tb_commit(bk_tbuf *t, size_t k);
void tb_printf(bk_tbuf *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void tb_free(bk_tbuf *t);

/* JSON: containers, keys and scalars; commas are inserted as needed. */
void jw_obj(bk_tbuf *t);
void jw_arr(bk_tbuf *t);
void jw_end_obj(bk_tbuf *t);
void jw_end_arr(bk_tbuf *t);
void jw_key(bk_tbuf *t, const char *key);
/* A key written as given, quotes and colon included: for the constant keys
 * of JW_KEY, which need no escaping and whose length is known. */
void jw_key_raw(bk_tbuf *t, const char *quoted_key, size_t n);
#define JW_KEY(t, literal) jw_key_raw((t), "\"" literal "\":", sizeof("\"" literal "\":") - 1)
/* A string of any bytes: text that is not valid UTF-8 has its bytes above
 * 0x7F written as '?', since map names need not be UTF-8. */
void jw_str(bk_tbuf *t, const char *s);
void jw_int(bk_tbuf *t, int64_t v);
/* A number that reads back as a real (always has '.' or an exponent);
 * non-finite values are written as 0.0, which JSON cannot express otherwise. */
void jw_real(bk_tbuf *t, double v);
/* jw_real's text into out (BK_JSON_REAL_CAP bytes), without a separator;
 * returns its length. */
#define BK_JSON_REAL_CAP 40
size_t jw_format_real(char *out, double v);
void jw_reals(bk_tbuf *t, const double *v, int n);
/* Already-formatted JSON text as one value (a comma is added before it if needed). */
void jw_raw_value(bk_tbuf *t, const char *s, size_t n);

#endif
