/* libzip, loaded when a map's pakfile or a zip archive is first read rather
 * than when the program starts: libzip brings OpenSSL's libcrypto with it,
 * and loading both cost every bspkit process about 0.85 ms, most of its
 * start-up, though few commands read zips. Include this header instead of
 * <zip.h>: each zip_* function used by bspkit is then a pointer of the same
 * type (__typeof__ of libzip's own declaration), resolved by bk_zip_require().
 *
 * Every entry point that reaches libzip calls bk_zip_require() first and
 * fails with its error when libzip cannot be loaded; calls made after that
 * go through the resolved pointers. The environment variable BSPKIT_LIBZIP
 * names a particular libzip to load (a path, or a name for the dynamic
 * loader's search) instead of the installed one. */
#ifndef BSPKIT_CORE_ZIPDL_H
#define BSPKIT_CORE_ZIPDL_H

#include "bspkit/bspkit.h"

#include <zip.h>

/* The libzip functions bspkit calls. */
#define BK_ZIP_FUNCTIONS(X) \
    X(zip_close) \
    X(zip_compression_method_supported) \
    X(zip_discard) \
    X(zip_error_clear) \
    X(zip_error_code_zip) \
    X(zip_error_fini) \
    X(zip_error_init) \
    X(zip_error_init_with_code) \
    X(zip_error_set) \
    X(zip_error_strerror) \
    X(zip_error_to_data) \
    X(zip_fclose) \
    X(zip_file_add) \
    X(zip_file_set_dostime) \
    X(zip_file_strerror) \
    X(zip_fopen_index) \
    X(zip_fread) \
    X(zip_get_archive_comment) \
    X(zip_get_error) \
    X(zip_get_name) \
    X(zip_get_num_entries) \
    X(zip_open) \
    X(zip_open_from_source) \
    X(zip_set_file_compression) \
    X(zip_source_buffer_create) \
    X(zip_source_close) \
    X(zip_source_error) \
    X(zip_source_free) \
    X(zip_source_function_create) \
    X(zip_source_keep) \
    X(zip_source_make_command_bitmap) \
    X(zip_source_open) \
    X(zip_source_read) \
    X(zip_source_stat) \
    X(zip_source_zip) \
    X(zip_stat_index) \
    X(zip_stat_init) \
    X(zip_strerror)

typedef struct bk_zip_api {
#define BK_ZIP_MEMBER(name) __typeof__(name) *name;
    BK_ZIP_FUNCTIONS(BK_ZIP_MEMBER)
#undef BK_ZIP_MEMBER
} bk_zip_api;

/* Loads libzip once (thread-safe). BSPKIT_OK, or BSPKIT_ERR_UNSUPPORTED
 * naming the library when it cannot be loaded. */
bspkit_result bk_zip_require(bspkit_error *err);

/* The resolved functions; valid after bk_zip_require() succeeded. */
extern bk_zip_api bk_zip;

#ifndef BK_ZIPDL_NO_REDIRECT
#define zip_close (bk_zip.zip_close)
#define zip_compression_method_supported (bk_zip.zip_compression_method_supported)
#define zip_discard (bk_zip.zip_discard)
#define zip_error_clear (bk_zip.zip_error_clear)
#define zip_error_code_zip (bk_zip.zip_error_code_zip)
#define zip_error_fini (bk_zip.zip_error_fini)
#define zip_error_init (bk_zip.zip_error_init)
#define zip_error_init_with_code (bk_zip.zip_error_init_with_code)
#define zip_error_set (bk_zip.zip_error_set)
#define zip_error_strerror (bk_zip.zip_error_strerror)
#define zip_error_to_data (bk_zip.zip_error_to_data)
#define zip_fclose (bk_zip.zip_fclose)
#define zip_file_add (bk_zip.zip_file_add)
#define zip_file_set_dostime (bk_zip.zip_file_set_dostime)
#define zip_file_strerror (bk_zip.zip_file_strerror)
#define zip_fopen_index (bk_zip.zip_fopen_index)
#define zip_fread (bk_zip.zip_fread)
#define zip_get_archive_comment (bk_zip.zip_get_archive_comment)
#define zip_get_error (bk_zip.zip_get_error)
#define zip_get_name (bk_zip.zip_get_name)
#define zip_get_num_entries (bk_zip.zip_get_num_entries)
#define zip_open (bk_zip.zip_open)
#define zip_open_from_source (bk_zip.zip_open_from_source)
#define zip_set_file_compression (bk_zip.zip_set_file_compression)
#define zip_source_buffer_create (bk_zip.zip_source_buffer_create)
#define zip_source_close (bk_zip.zip_source_close)
#define zip_source_error (bk_zip.zip_source_error)
#define zip_source_free (bk_zip.zip_source_free)
#define zip_source_function_create (bk_zip.zip_source_function_create)
#define zip_source_keep (bk_zip.zip_source_keep)
#define zip_source_make_command_bitmap (bk_zip.zip_source_make_command_bitmap)
#define zip_source_open (bk_zip.zip_source_open)
#define zip_source_read (bk_zip.zip_source_read)
#define zip_source_stat (bk_zip.zip_source_stat)
#define zip_source_zip (bk_zip.zip_source_zip)
#define zip_stat_index (bk_zip.zip_stat_index)
#define zip_stat_init (bk_zip.zip_stat_init)
#define zip_strerror (bk_zip.zip_strerror)
#endif

#endif
