/* bspkit vis: what the leaf at a point can see and hear, or figures about
 * the whole visibility lump. */
#include "cli.h"
#include "bspkit/query.h"

#include <inttypes.h>
#include <string.h>

void cmd_vis_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit vis MAP --at X Y Z [--json]\n"
            "       bspkit vis MAP --stats [--json]\n"
            "\n"
            "Query the potentially visible set (PVS) and audible set (PAS).\n"
            "\n"
            "options:\n"
            "  --at X Y Z  the world leaf holding the point: its index, contents\n"
            "              (number and names), visibility cluster, and how many\n"
            "              clusters and leafs it can see (PVS) and hear (PAS)\n"
            "  --stats     clusters, average share of clusters visible per cluster,\n"
            "              fewest and most visible, the vis lump's size and the size\n"
            "              of the same rows uncompressed\n"
            "  --json      print one JSON object instead of text\n"
            "  -h, --help  show this help\n"
            "\n"
            "Source and Quake 2 maps store a PVS and a PAS (PHS) row per cluster.\n"
            "Quake 3 maps store one uncompressed PVS row per cluster (rows padded to\n"
            "8 bytes; 'compressed' is then the stored size) and no PAS, computed as for Quake.\n"
            "Quake and GoldSrc store a PVS row per visible leaf (each such leaf is its own cluster,\n"
            "cluster = leaf - 1; leaf 0 is the shared solid leaf and has none) and\n"
            "no PAS: it is computed as QuakeWorld's server does, the PVS row ORed\n"
            "with the rows of every leaf it marks visible. A leaf without a cluster\n"
            "sees nothing.\n"
            "\n"
            "JSON output keys, --at: file, format, point [x, y, z], leaf, contents,\n"
            "contents_names, cluster (null when none), clusters (rows in the map),\n"
            "visible_clusters, visible_leafs, audible_clusters, audible_leafs,\n"
            "pas_computed. --stats: file, format, clusters, row_bytes,\n"
            "average_visible_percent, min_visible, max_visible, compressed_size,\n"
            "uncompressed_size (bytes).\n"
            "\n"
            "exit codes:\n"
            "  0   success\n"
            "  1   the tree or the visibility data is broken where the query leads\n"
            "  2   the file could not be read or is not a supported map\n"
            "  64  usage error\n");
}

typedef struct at_result {
    uint32_t leaf;
    int32_t contents;
    int32_t cluster;
    uint32_t rows;
    uint32_t visible_clusters, visible_leafs, audible_clusters, audible_leafs;
} at_result;

static bspkit_result query_at(bspkit_map *map, bspkit_vec3 p, at_result *r, bspkit_error *err)
{
    const bspkit_leaf *leafs;
    size_t nleafs;
    uint32_t row_bytes;
    bspkit_result rc;
    if ((rc = bspkit_point_leaf(map, 0, p, &r->leaf, err)) != BSPKIT_OK ||
        (rc = bspkit_get_leafs(map, &leafs, &nleafs, err)) != BSPKIT_OK ||
        (rc = bspkit_leaf_cluster(map, r->leaf, &r->cluster, err)) != BSPKIT_OK ||
        (rc = bspkit_vis_dimensions(map, &r->rows, &row_bytes, err)) != BSPKIT_OK ||
        (rc = bspkit_leaf_visible_clusters(map, r->leaf, BSPKIT_VIS_PVS, &r->visible_clusters, err)) != BSPKIT_OK ||
        (rc = bspkit_leaf_visible_leafs(map, r->leaf, BSPKIT_VIS_PVS, &r->visible_leafs, err)) != BSPKIT_OK ||
        (rc = bspkit_leaf_visible_clusters(map, r->leaf, BSPKIT_VIS_PAS, &r->audible_clusters, err)) != BSPKIT_OK ||
        (rc = bspkit_leaf_visible_leafs(map, r->leaf, BSPKIT_VIS_PAS, &r->audible_leafs, err)) != BSPKIT_OK)
        return rc;
    r->contents = leafs[r->leaf].contents;
    return BSPKIT_OK;
}

static int print_at(const char *file, bspkit_family family, bspkit_vec3 p, const at_result *r, bool json)
{
    bool computed = family == BSPKIT_FAMILY_QUAKE || family == BSPKIT_FAMILY_GOLDSRC;
    if (json) {
        json_t *root = json_object();
        bool ok = cli_json_set(root, "file", cli_json_string(file)) &&
                  cli_json_set(root, "format", json_string(bspkit_family_name(family))) && cli_json_set(root, "point", cli_json_point(p)) &&
                  cli_json_set(root, "leaf", json_integer(r->leaf)) && cli_json_set(root, "contents", json_integer(r->contents)) &&
                  cli_json_set(root, "contents_names", cli_contents_names(family, r->contents)) &&
                  cli_json_set(root, "cluster", r->cluster >= 0 ? json_integer(r->cluster) : json_null()) &&
                  cli_json_set(root, "clusters", json_integer(r->rows)) &&
                  cli_json_set(root, "visible_clusters", json_integer(r->visible_clusters)) &&
                  cli_json_set(root, "visible_leafs", json_integer(r->visible_leafs)) &&
                  cli_json_set(root, "audible_clusters", json_integer(r->audible_clusters)) &&
                  cli_json_set(root, "audible_leafs", json_integer(r->audible_leafs)) &&
                  cli_json_set(root, "pas_computed", json_boolean(computed));
        if (!ok) {
            json_decref(root);
            root = NULL;
        }
        return cli_print_json(root);
    }
    printf("%-10s%s\n", "file:", file);
    printf("%-10s%g %g %g\n", "point:", (double)p.x, (double)p.y, (double)p.z);
    printf("%-10s%" PRIu32 "\n", "leaf:", r->leaf);
    cli_print_contents("contents:", family, r->contents);
    if (r->rows == 0) {
        printf("%-10s%s\n", "cluster:", "none (the map has no visibility data)");
        return CLI_EXIT_OK;
    }
    if (r->cluster < 0)
        printf("%-10s%s\n", "cluster:", "none");
    else
        printf("%-10s%" PRId32 "\n", "cluster:", r->cluster);
    printf("%-10s%" PRIu32 " of %" PRIu32 " clusters, %" PRIu32 " %s\n", "visible:", r->visible_clusters, r->rows,
           r->visible_leafs, cli_plural(r->visible_leafs, "leaf", "leafs"));
    printf("%-10s%" PRIu32 " of %" PRIu32 " clusters, %" PRIu32 " %s%s\n", "audible:", r->audible_clusters, r->rows,
           r->audible_leafs, cli_plural(r->audible_leafs, "leaf", "leafs"),
           computed ? " (PAS computed from the PVS)" : "");
    return CLI_EXIT_OK;
}

static int print_stats(const char *file, bspkit_family family, const struct bspkit_vis_stats *st, bool json)
{
    if (json) {
        json_t *root = json_object();
        bool ok = cli_json_set(root, "file", cli_json_string(file)) &&
                  cli_json_set(root, "format", json_string(bspkit_family_name(family))) &&
                  cli_json_set(root, "clusters", json_integer(st->rows)) && cli_json_set(root, "row_bytes", json_integer(st->row_bytes)) &&
                  cli_json_set(root, "average_visible_percent", json_real(st->average_visible)) &&
                  cli_json_set(root, "min_visible", json_integer(st->min_visible)) &&
                  cli_json_set(root, "max_visible", json_integer(st->max_visible)) &&
                  cli_json_set(root, "compressed_size", json_integer((json_int_t)st->compressed_size)) &&
                  cli_json_set(root, "uncompressed_size", json_integer((json_int_t)st->uncompressed_size));
        if (!ok) {
            json_decref(root);
            root = NULL;
        }
        return cli_print_json(root);
    }
    printf("%-18s%s\n", "file:", file);
    if (st->rows == 0) {
        printf("%-18s%s\n", "clusters:", "0 (the map has no visibility data)");
        return CLI_EXIT_OK;
    }
    printf("%-18s%" PRIu32 "%s\n", "clusters:", st->rows, family == BSPKIT_FAMILY_QUAKE || family == BSPKIT_FAMILY_GOLDSRC ? " (visible leafs)" : "");
    printf("%-18s%.2f%%\n", "average visible:", st->average_visible);
    printf("%-18s%" PRIu32 "\n", "min visible:", st->min_visible);
    printf("%-18s%" PRIu32 "\n", "max visible:", st->max_visible);
    printf("%-18s%" PRIu64 " bytes\n", "compressed:", st->compressed_size);
    printf("%-18s%" PRIu64 " bytes\n", "uncompressed:", st->uncompressed_size);
    return CLI_EXIT_OK;
}

int cmd_vis(int argc, char **argv)
{
    const char *file = NULL;
    char *coords[3];
    bool json = false, stats = false, at = false, options_done = false;

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!options_done && strcmp(arg, "--") == 0) {
            options_done = true;
        } else if (!options_done && strcmp(arg, "--json") == 0) {
            json = true;
        } else if (!options_done && strcmp(arg, "--stats") == 0) {
            stats = true;
        } else if (!options_done && strcmp(arg, "--at") == 0) {
            if (at || i + 3 >= argc) {
                cli_usage_error("vis", at ? "--at given twice" : "--at needs three coordinates X Y Z");
                return CLI_EXIT_USAGE;
            }
            at = true;
            for (int k = 0; k < 3; k++)
                coords[k] = argv[++i];
        } else if (!options_done && arg[0] == '-' && arg[1] != '\0') {
            cli_usage_error("vis", "unknown option '%s'", arg);
            return CLI_EXIT_USAGE;
        } else if (file == NULL) {
            file = arg;
        } else {
            cli_usage_error("vis", "expects one map file, got '%s' and '%s'", file, arg);
            return CLI_EXIT_USAGE;
        }
    }
    if (file == NULL || at == stats) {
        cli_usage_error("vis", file == NULL ? "missing map file" : "give exactly one of --at X Y Z and --stats");
        return CLI_EXIT_USAGE;
    }
    bspkit_vec3 p = {0, 0, 0};
    bspkit_map *map;
    int status = cli_query_open("vis", file, at ? coords : NULL, &p, &map);
    if (status != CLI_EXIT_OK)
        return status;
    bspkit_family family = bspkit_map_format(map)->family;
    bspkit_error err;
    if (at) {
        at_result r;
        memset(&r, 0, sizeof r);
        if (query_at(map, p, &r, &err) != BSPKIT_OK)
            status = cli_query_status(file, &err);
        else
            status = print_at(file, family, p, &r, json);
    } else {
        struct bspkit_vis_stats st;
        if (bspkit_vis_stats(map, &st, &err) != BSPKIT_OK)
            status = cli_query_status(file, &err);
        else
            status = print_stats(file, family, &st, json);
    }
    bspkit_close(map);
    if (cli_finish_output() != 0)
        return CLI_EXIT_UNREADABLE;
    return status;
}
