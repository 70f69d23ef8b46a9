/* The empty viewer script of a library built without it (no `npm ci` in
 * viewer/, or the Python package's build): bspkit_view_html() then answers
 * BSPKIT_ERR_UNSUPPORTED. CMake defines BSPKIT_VIEW_APP_EMBEDDED when it
 * compiles the bundled script (embed_viewer's output) instead. */
#include "view/app.h"

#ifndef BSPKIT_VIEW_APP_EMBEDDED
const char bk_view_app[] = "";
const size_t bk_view_app_size = 0;
#else
/* ISO C wants something in every translation unit. */
typedef int bk_view_app_stub_unused;
#endif
