/* Shared by the unit tests: CHECK(call) fails the current test with the
 * library's error message when a call does not return BSPKIT_OK; ERR is the
 * error struct those calls fill. Include after <cmocka.h>. */
#ifndef BSPKIT_TESTS_CHECK_H
#define BSPKIT_TESTS_CHECK_H

#include "bspkit/bspkit.h"

static bspkit_error g_err;
#define ERR (&g_err)
#define CHECK(expr)                                                                                \
    do {                                                                                           \
        bspkit_result r_ = (expr);                                                                 \
        if (r_ != BSPKIT_OK)                                                                       \
            fail_msg("%s -> %d: %s", #expr, (int)r_, g_err.message);                               \
    } while (0)

#endif
