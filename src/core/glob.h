/* Shell-style glob patterns, one matcher for the library: entity selectors
 * (KEY=GLOB) and pakfile entry names. */
#ifndef BSPKIT_CORE_GLOB_H
#define BSPKIT_CORE_GLOB_H

#include <stdbool.h>

enum {
    BK_GLOB_FOLD_CASE = 1, /* ASCII letters match either case */
    BK_GLOB_PATH = 2,      /* '\\' in the text and in literal pattern bytes counts as '/' (Source paths) */
};

/*
 * Whole-text match: '*' any run of bytes ('/' included), '?' one byte,
 * "[abc]" / "[a-z]" / "[!abc]" / "[^abc]" a set (a ']' right after the
 * opening bracket or its negation is a member; a '[' without a closing ']'
 * is literal), '\\' makes the next byte literal, in and outside sets.
 */
bool bk_glob_match(const char *pattern, const char *text, unsigned flags);

#endif
