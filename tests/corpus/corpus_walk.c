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

/* ---- known failures ---------------------------------------------------- */

typedef struct {
    char *entry; /* "<rel>" or "<rel>#<key>" */
    char *reason;
    int seen;
} known_entry;

static known_entry *known;
static size_t known_count, known_cap;

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (!d) {
        fprintf(stderr, "corpus: out of memory reading the known failures\n");
        exit(2);
    }
    return memcpy(d, s, n);
}

int corpus_known_load(const char *tsv)
{
    FILE *f = fopen(tsv, "r");
    if (!f)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    int entries = 0;
    unsigned long lineno = 0;
    /* getline: a long reason is never cut short or split into two entries. */
    while (getline(&line, &cap, f) != -1) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *tab = strchr(line, '\t');
        if (!tab) {
            fprintf(stderr, "%s:%lu: no tab between path and reason, line ignored\n", tsv, lineno);
            continue;
        }
        *tab = '\0';
        if (known_count == known_cap) {
            size_t grown = known_cap ? 2 * known_cap : 64;
            known_entry *k = realloc(known, grown * sizeof *k);
            if (!k) {
                fprintf(stderr, "corpus: out of memory reading %s\n", tsv);
                exit(2);
            }
            known = k;
            known_cap = grown;
        }
        known[known_count++] = (known_entry){dup_string(line), dup_string(tab + 1), 0};
        entries++;
    }
    free(line);
    fclose(f);
    return entries;
}

static known_entry *find_entry(const char *rel, const char *key)
{
    size_t n = strlen(rel);
    for (size_t i = 0; i < known_count; i++) {
        const char *e = known[i].entry;
        if (strncmp(e, rel, n) != 0)
            continue;
        if (key ? e[n] == '#' && strcmp(e + n + 1, key) == 0 : e[n] == '\0')
            return &known[i];
    }
    return NULL;
}

/* The entry corpus_known_reason answers with: the keyed one first, then the whole map. */
static known_entry *reason_entry(const char *rel, const char *key)
{
    known_entry *k = find_entry(rel, key);
    return k || !key ? k : find_entry(rel, NULL);
}

const char *corpus_known_find(const char *rel, const char *key)
{
    known_entry *k = find_entry(rel, key);
    return k ? k->reason : NULL;
}

const char *corpus_known_reason(const char *rel, const char *key)
{
    known_entry *k = reason_entry(rel, key);
    return k ? k->reason : NULL;
}

void corpus_known_seen(const char *rel, const char *key)
{
    known_entry *k = reason_entry(rel, key);
    if (k)
        k->seen = 1;
}

void corpus_known_unseen(void (*visit)(const char *entry, const char *key, const char *reason))
{
    for (size_t i = 0; i < known_count; i++)
        if (!known[i].seen) {
            const char *hash = strrchr(known[i].entry, '#');
            visit(known[i].entry, hash ? hash + 1 : NULL, known[i].reason);
        }
}
