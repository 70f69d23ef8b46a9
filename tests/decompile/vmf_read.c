/* VMF reader for the tests (see vmf_read.h). Tokens are quoted strings
 * (no escapes, may span lines), bare words, '{' and '}'; "//" starts a
 * comment to the end of the line. */
#include "vmf_read.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lexer {
    const char *p, *end;
    int line;
} lexer;

enum { TOK_END, TOK_STRING, TOK_OPEN, TOK_CLOSE, TOK_ERROR };

static int next(lexer *lx, char **text)
{
    *text = NULL;
    for (;;) {
        while (lx->p < lx->end && isspace((unsigned char)*lx->p)) {
            lx->line += *lx->p == '\n';
            lx->p++;
        }
        if (lx->p + 1 < lx->end && lx->p[0] == '/' && lx->p[1] == '/') {
            while (lx->p < lx->end && *lx->p != '\n')
                lx->p++;
            continue;
        }
        break;
    }
    if (lx->p >= lx->end)
        return TOK_END;
    char ch = *lx->p;
    if (ch == '{' || ch == '}') {
        lx->p++;
        return ch == '{' ? TOK_OPEN : TOK_CLOSE;
    }
    const char *start;
    size_t len;
    if (ch == '"') {
        start = ++lx->p;
        while (lx->p < lx->end && *lx->p != '"') {
            lx->line += *lx->p == '\n';
            lx->p++;
        }
        if (lx->p >= lx->end)
            return TOK_ERROR;
        len = (size_t)(lx->p - start);
        lx->p++;
    } else {
        start = lx->p;
        while (lx->p < lx->end && !isspace((unsigned char)*lx->p) && *lx->p != '{' && *lx->p != '}' && *lx->p != '"')
            lx->p++;
        len = (size_t)(lx->p - start);
    }
    *text = malloc(len + 1);
    if (!*text)
        return TOK_ERROR;
    memcpy(*text, start, len);
    (*text)[len] = '\0';
    return TOK_STRING;
}

static int grow(void **items, size_t count, size_t elem)
{
    /* capacity 4, then doubling: grow when count reaches 0 or a power of two from 4 on */
    if (count != 0 && (count < 4 || (count & (count - 1)) != 0))
        return 0;
    size_t cap = count ? count * 2 : 4;
    void *n = realloc(*items, cap * elem);
    if (!n)
        return -1;
    *items = n;
    return 0;
}

static int fail(char *err, size_t size, int line, const char *what)
{
    snprintf(err, size, "line %d: %s", line, what);
    return -1;
}

/* Reads the body of a block (after '{') until its '}' (or the end when top level). */
static int parse_body(lexer *lx, vmf_node *node, int top, char *err, size_t es, int depth)
{
    if (depth > 64)
        return fail(err, es, lx->line, "blocks nested too deeply");
    for (;;) {
        char *a;
        int t = next(lx, &a);
        if (t == TOK_END)
            return top ? 0 : fail(err, es, lx->line, "unterminated block");
        if (t == TOK_CLOSE)
            return top ? fail(err, es, lx->line, "stray '}'") : 0;
        if (t != TOK_STRING)
            return fail(err, es, lx->line, t == TOK_OPEN ? "'{' without a name" : "bad token");
        char *b;
        t = next(lx, &b);
        if (t == TOK_STRING) {
            if (grow((void **)&node->pairs, node->pair_count, sizeof *node->pairs) != 0) {
                free(a), free(b);
                return fail(err, es, lx->line, "out of memory");
            }
            node->pairs[node->pair_count++] = (vmf_pair){a, b};
            continue;
        }
        if (t != TOK_OPEN) {
            free(a);
            return fail(err, es, lx->line, "key without value");
        }
        if (grow((void **)&node->children, node->child_count, sizeof *node->children) != 0) {
            free(a);
            return fail(err, es, lx->line, "out of memory");
        }
        vmf_node *child = &node->children[node->child_count++];
        memset(child, 0, sizeof *child);
        child->name = a;
        if (parse_body(lx, child, 0, err, es, depth + 1) != 0)
            return -1;
    }
}

int vmf_parse(const char *text, size_t size, vmf_node *root, char *err, size_t err_size)
{
    memset(root, 0, sizeof *root);
    root->name = calloc(1, 1);
    lexer lx = {text, text + size, 1};
    if (!root->name)
        return fail(err, err_size, 0, "out of memory");
    if (parse_body(&lx, root, 1, err, err_size, 0) != 0) {
        vmf_free(root);
        return -1;
    }
    return 0;
}

void vmf_free(vmf_node *n)
{
    for (size_t i = 0; i < n->pair_count; i++)
        free(n->pairs[i].key), free(n->pairs[i].value);
    for (size_t i = 0; i < n->child_count; i++)
        vmf_free(&n->children[i]);
    free(n->pairs);
    free(n->children);
    free(n->name);
    memset(n, 0, sizeof *n);
}

const char *vmf_value(const vmf_node *n, const char *key)
{
    for (size_t i = 0; i < n->pair_count; i++)
        if (strcmp(n->pairs[i].key, key) == 0)
            return n->pairs[i].value;
    return NULL;
}

size_t vmf_count(const vmf_node *n, const char *name)
{
    size_t k = 0;
    for (size_t i = 0; i < n->child_count; i++)
        k += strcmp(n->children[i].name, name) == 0;
    return k;
}

const vmf_node *vmf_child(const vmf_node *n, const char *name, size_t i)
{
    for (size_t j = 0; j < n->child_count; j++)
        if (strcmp(n->children[j].name, name) == 0 && i-- == 0)
            return &n->children[j];
    return NULL;
}

int vmf_side_plane(const vmf_node *side, double normal[3], double *dist)
{
    const char *s = vmf_value(side, "plane");
    double p[3][3];
    if (!s || sscanf(s, "(%lf %lf %lf) (%lf %lf %lf) (%lf %lf %lf)", &p[0][0], &p[0][1], &p[0][2], &p[1][0], &p[1][1],
                     &p[1][2], &p[2][0], &p[2][1], &p[2][2]) != 9)
        return -1;
    double a[3], b[3];
    for (int k = 0; k < 3; k++)
        a[k] = p[0][k] - p[1][k], b[k] = p[2][k] - p[1][k];
    double n[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(len > 0))
        return -1;
    for (int k = 0; k < 3; k++)
        normal[k] = n[k] / len;
    *dist = p[0][0] * normal[0] + p[0][1] * normal[1] + p[0][2] * normal[2];
    return 0;
}
