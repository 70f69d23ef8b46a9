/* The viewer script the page runs: viewer/src/main.js bundled by esbuild,
 * raw-deflate compressed and base64-encoded when the library is built
 * (cmake/embed_viewer.c writes the definition). Empty when the library was
 * built without it. */
#ifndef BSPKIT_VIEW_APP_H
#define BSPKIT_VIEW_APP_H

#include <stddef.h>

extern const char bk_view_app[];
extern const size_t bk_view_app_size; /* bytes of bk_view_app, without the NUL */

#endif
