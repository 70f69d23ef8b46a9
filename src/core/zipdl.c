/* Loading libzip on first use (see zipdl.h). */
#define BK_ZIPDL_NO_REDIRECT
#include "core/zipdl.h"
#include "core/map.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bk_zip_api bk_zip;

/* The library's names, newest first: the installed libzip's major
 * version, then its development link. */
static const char *const LIBZIP_NAMES[] = {"libzip.so.5", "libzip.so.4", "libzip.so"};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256]; /* empty when loaded */

static void load(void)
{
    void *h = NULL;
    const char *chosen = getenv("BSPKIT_LIBZIP"); /* a particular libzip, by path or name */
    if (chosen && *chosen)
        h = dlopen(chosen, RTLD_NOW | RTLD_LOCAL);
    for (size_t i = 0; !h && !(chosen && *chosen) && i < sizeof LIBZIP_NAMES / sizeof LIBZIP_NAMES[0]; i++)
        h = dlopen(LIBZIP_NAMES[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        snprintf(failure, sizeof failure, "libzip could not be loaded (%s)", why ? why : "not found");
        return;
    }
    bk_zip_api api;
    void *sym;
#define BK_ZIP_RESOLVE(name)                                                                           \
    if (!(sym = dlsym(h, #name))) {                                                                    \
        snprintf(failure, sizeof failure, "libzip has no %s", #name);                                  \
        dlclose(h);                                                                                    \
        return;                                                                                        \
    }                                                                                                  \
    memcpy(&api.name, &sym, sizeof sym); /* object to function pointer, as POSIX dlsym intends */
    BK_ZIP_FUNCTIONS(BK_ZIP_RESOLVE)
#undef BK_ZIP_RESOLVE
    bk_zip = api;
    /* The handle stays open for the life of the process. */
}

bspkit_result bk_zip_require(bspkit_error *err)
{
    pthread_once(&once, load);
    if (failure[0])
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1, "%s", failure);
    return BSPKIT_OK;
}
