#include "corpus_walk.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int is_map_name(const char *name)
{
    size_t n = strlen(name);
    return (n > 4 && strcmp(name + n - 4, ".bsp") == 0) || (n > 7 && strcmp(name + n - 7, ".d3dbsp") == 0);
}

static void walk(const char *root, const char *rel, void (*visit)(const char *, const char *))
{
    char dirpath[2048];
    snprintf(dirpath, sizeof dirpath, "%s%s%s", root, rel[0] ? "/" : "", rel);
    struct dirent **names;
    int n = scandir(dirpath, &names, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        if (name[0] != '.') {
            char child[1024], full[3100];
            snprintf(child, sizeof child, "%s%s%s", rel, rel[0] ? "/" : "", name);
            snprintf(full, sizeof full, "%s/%s", root, child);
            struct stat st;
            if (stat(full, &st) == 0 && S_ISDIR(st.st_mode))
                walk(root, child, visit);
            else if (is_map_name(name))
                visit(root, child);
        }
        free(names[i]);
    }
    if (n > 0)
        free(names);
}

void corpus_walk(const char *root, void (*visit)(const char *root, const char *rel)) { walk(root, "", visit); }
