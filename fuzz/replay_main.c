/* Runs a fuzz target over files and directories without libFuzzer, so any
 * compiler can replay a corpus (and the test suite can replay the seeds).
 * Directories are walked recursively in sorted order. Each input is copied
 * into a buffer of exactly its size so overreads reach a sanitizer. */
#include "file_walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(void *ctx, const char *path)
{
    unsigned long *count = ctx;
    size_t size = 0;
    uint8_t *data = walk_read_file(path, &size);
    if (data == NULL) {
        fprintf(stderr, "replay: %s: cannot read\n", path);
        return -1;
    }
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    (*count)++;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 64;
    }
    unsigned long count = 0;
    int rc = 0;
    for (int i = 1; i < argc; i++)
        if (walk_path("replay", argv[i], NULL, run_file, &count) != 0)
            rc = 1;
    printf("%s: replayed %lu inputs\n", argv[0], count);
    /* An empty corpus would make a passing run meaningless. */
    return rc != 0 || count == 0 ? 1 : 0;
}
