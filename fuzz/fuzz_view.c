/* Fuzz target: the viewer page of any bytes that open as a map. Every result
 * is a known code (BSPKIT_ERR_UNSUPPORTED when the library has no viewer
 * script); a page is one HTML document whose JSON block holds no '<' (so no
 * map text can close its <script> element) and whose GLB block is base64. */
#include "bspkit/view.h"
#include "exercise.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The text between `open` and the next "</script>" in the page; NULL when absent. */
static const char *block(const char *page, const char *open, size_t *len)
{
    const char *p = strstr(page, open);
    if (!p)
        return NULL;
    p += strlen(open);
    const char *end = strstr(p, "</script>");
    if (!end)
        return NULL;
    *len = (size_t)(end - p);
    return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    exercise ex = {.check = exercise_check_abort};
    bspkit_map *map = exercise_open(&ex, data, size, &exercise_fuzz_limits);
    if (map == NULL)
        return 0;
    bspkit_view_options o = {.title = "<fuzz>"};
    uint8_t *page;
    size_t page_size;
    bspkit_view_stats st;
    bspkit_error err;
    bspkit_result r = bspkit_view_html(map, &o, &page, &page_size, &st, &err);
    exercise_check_abort(NULL, "bspkit_view_html", r, &err);
    if (r == BSPKIT_OK) {
        const char *text = (const char *)page;
        size_t n;
        if (page_size != st.html_bytes || strlen(text) != page_size || strncmp(text, "<!DOCTYPE html>", 15) != 0)
            exercise_fail("bspkit_view_html", "not one HTML document of the stated size");
        const char *meta = block(text, "id=\"bspkit-meta\">", &n);
        if (!meta || memchr(meta, '<', n))
            exercise_fail("bspkit_view_html", "the JSON block is missing or holds '<'");
        const char *glb = block(text, "id=\"bspkit-glb\">", &n);
        if (!glb || n % 4 != 0 || strspn(glb, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") != n)
            exercise_fail("bspkit_view_html", "the GLB block is not base64");
        if (strstr(text, "<fuzz>"))
            exercise_fail("bspkit_view_html", "the title is not escaped");
        bspkit_free(page);
    } else if (page != NULL || page_size != 0) {
        exercise_fail("bspkit_view_html", "a failure left a page");
    }
    bspkit_close(map);
    return 0;
}
