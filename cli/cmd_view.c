/* bspkit view: the map as one self-contained HTML page (WebGL viewer), and a
 * loopback-only server for it. */
#include "cli.h"

#include "bspkit/edit.h"
#include "bspkit/view.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define DEFAULT_PORT 8000
#define MAX_REQUEST 8192

void cmd_view_help(FILE *out)
{
    fprintf(out,
            "usage: bspkit view MAP -o OUT.html [options]\n"
            "       bspkit view MAP --serve [PORT] [-o OUT.html] [options]\n"
            "\n"
            "Write the map as one HTML file that opens offline from a file:// URL in a\n"
            "current browser (WebGL through three.js): the geometry, textures, lightmaps\n"
            "and entities are inside it. Faces are drawn unlit as texture x lightmap, as\n"
            "`bspkit render` draws them. Fly (drag to look, WASD) and orbit cameras;\n"
            "toggles for sky, tool, trigger and nodraw faces (hidden at first, as export\n"
            "and render leave them out) and for prop and entity markers; click a face or\n"
            "a marker to see its texture and its entity's key/values; a stats panel with\n"
            "the counts of `bspkit info --json`.\n"
            "The camera starts at the first player spawn's eye (else a view of the whole\n"
            "map); the URL fragment #camera=X,Y,Z,PITCH,YAW,FOV sets it in map units and\n"
            "degrees, FOV horizontal, as `bspkit render --camera` takes them; &ui=0 hides\n"
            "the panels.\n"
            "\n"
            "options:\n"
            "  -o FILE          output HTML (written to a temporary name, then renamed)\n"
            "  --serve [PORT]   serve the page at http://127.0.0.1:PORT/ (loopback only;\n"
            "                   default port %d, 0 picks a free one) until interrupted:\n"
            "                   GET / and /index.html answer the page, anything else 404\n"
            "  --title TEXT     page title (default: the map's file name)\n"
            "  --no-textures    no texture images\n"
            "  --no-lightmaps   no lightmaps (full brightness)\n"
            "  --hdr            Source: lightmaps from the HDR lighting\n"
            "  --wad PATH       directory or WAD file searched for the WADs named by\n"
            "                   worldspawn's \"wad\" key (may be repeated)\n"
            "  -h, --help       show this help\n"
            "\n"
            "exit codes:\n"
            "  0   written (or served until interrupted)\n"
            "  1   the map's geometry is malformed (the error names the lump and offset)\n"
            "  2   the map could not be read, the output could not be written or served,\n"
            "      or this bspkit was built without the viewer script\n"
            "  64  usage error\n",
            DEFAULT_PORT);
}

static volatile sig_atomic_t stop_serving;

static void on_signal(int sig)
{
    (void)sig;
    stop_serving = 1;
}

static int send_all(int fd, const void *data, size_t size)
{
    const char *p = data;
    while (size > 0) {
        ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR && !stop_serving)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        size -= (size_t)n;
    }
    return 0;
}

static void respond(int fd, const char *status, const char *type, const void *body, size_t size, bool head)
{
    char header[512];
    int n = snprintf(header, sizeof header,
                     "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nCache-Control: no-store\r\n"
                     "X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
                     status, type, size);
    if (send_all(fd, header, (size_t)n) == 0 && !head)
        send_all(fd, body, size);
}

/* One request: the page for GET or HEAD of / and /index.html (a query string
 * ignored), 404 for any other path, 405 for other methods, 400 for what is
 * not a request line. */
static void handle(int fd, const uint8_t *page, size_t page_size)
{
    char req[MAX_REQUEST + 1];
    size_t n = 0;
    while (n < MAX_REQUEST) {
        ssize_t k = recv(fd, req + n, MAX_REQUEST - n, 0);
        if (k <= 0)
            break;
        n += (size_t)k;
        req[n] = '\0';
        if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
            break;
    }
    req[n] = '\0';
    char method[16], target[1024];
    static const char NOT_FOUND[] = "not found\n", BAD[] = "bad request\n", METHOD[] = "method not allowed\n";
    if (sscanf(req, "%15s %1023s HTTP/", method, target) != 2) {
        respond(fd, "400 Bad Request", "text/plain", BAD, sizeof BAD - 1, false);
        return;
    }
    bool head = strcmp(method, "HEAD") == 0;
    if (!head && strcmp(method, "GET") != 0) {
        respond(fd, "405 Method Not Allowed", "text/plain", METHOD, sizeof METHOD - 1, false);
        return;
    }
    target[strcspn(target, "?#")] = '\0';
    if (strcmp(target, "/") == 0 || strcmp(target, "/index.html") == 0)
        respond(fd, "200 OK", "text/html; charset=utf-8", page, page_size, head);
    else
        respond(fd, "404 Not Found", "text/plain", NOT_FOUND, sizeof NOT_FOUND - 1, head);
}

static int serve(const uint8_t *page, size_t page_size, unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        fprintf(stderr, "bspkit: view: socket: %s\n", strerror(errno));
        return CLI_EXIT_UNREADABLE;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK); /* never 0.0.0.0 */
    socklen_t len = sizeof addr;
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 16) != 0 ||
        getsockname(fd, (struct sockaddr *)&addr, &len) != 0) {
        fprintf(stderr, "bspkit: view: cannot listen on 127.0.0.1:%u: %s\n", port, strerror(errno));
        close(fd);
        return CLI_EXIT_UNREADABLE;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: accept() returns EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    printf("serving http://127.0.0.1:%u/ (Ctrl-C stops)\n", (unsigned)ntohs(addr.sin_port));
    if (cli_finish_output() != 0) {
        close(fd);
        return CLI_EXIT_UNREADABLE;
    }
    while (!stop_serving) {
        int c = accept(fd, NULL, NULL);
        if (c < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            fprintf(stderr, "bspkit: view: accept: %s\n", strerror(errno));
            close(fd);
            return CLI_EXIT_UNREADABLE;
        }
        /* One client at a time: a silent one cannot hold the server for long. */
        struct timeval tv = {5, 0};
        setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        handle(c, page, page_size);
        close(c);
    }
    close(fd);
    return CLI_EXIT_OK;
}

int cmd_view(int argc, char **argv)
{
    const char *out = NULL, *map_path = NULL, *title = NULL;
    bspkit_view_options opts = {0};
    bool serving = false;
    unsigned port = DEFAULT_PORT;
    const char **wads = calloc((size_t)argc, sizeof *wads);
    if (!wads)
        return CLI_EXIT_UNREADABLE;
    int rc = CLI_EXIT_USAGE;
    const cli_media_opts media = {&out, wads, &opts.wad_path_count, &opts.no_textures, &opts.no_lightmaps,
                                  &opts.lightmap_hdr};
    for (int i = 1; i < argc; i++) {
        const char *v;
        int m;
        if ((m = cli_media_option("view", argc, argv, &i, &media)) != 0) {
            if (m < 0)
                goto done;
        } else if ((m = cli_option_value(argc, argv, &i, "--title", &v)) != 0) {
            if (m < 0) {
                cli_usage_error("view", "--title needs a text");
                goto done;
            }
            title = v;
        } else if (strncmp(argv[i], "--serve", 7) == 0 && (argv[i][7] == '\0' || argv[i][7] == '=')) {
            serving = true;
            /* The port is optional: --serve=N, or a number after --serve. */
            const char *p = argv[i][7] == '=' ? argv[i] + 8 : i + 1 < argc && argv[i + 1][0] >= '0' &&
                                                                  argv[i + 1][0] <= '9' ? argv[++i] : NULL;
            uint64_t n;
            if (p && cli_parse_count(p, 65535, &n) != 0) {
                cli_usage_error("view", "--serve takes a port number 0..65535, not '%s'", p);
                goto done;
            }
            if (p)
                port = (unsigned)n;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_usage_error("view", "unknown option '%s'", argv[i]);
            goto done;
        } else if (map_path) {
            cli_usage_error("view", "expected one MAP, got '%s' too", argv[i]);
            goto done;
        } else {
            map_path = argv[i];
        }
    }
    if (!map_path || (!out && !serving)) {
        cli_usage_error("view", !map_path ? "expected a MAP" : "-o OUT.html or --serve [PORT] is required");
        goto done;
    }
    opts.wad_paths = wads;
    opts.title = title ? title : cli_base_name(map_path);
    bspkit_map *map;
    if (cli_open_map(map_path, &map) != 0) {
        rc = CLI_EXIT_UNREADABLE;
        goto done;
    }
    cli_warn_entities(map_path, map);
    bspkit_error err;
    bspkit_view_stats st;
    uint8_t *page = NULL;
    size_t size = 0;
    bspkit_result r = bspkit_view_html(map, &opts, &page, &size, &st, &err);
    bspkit_close(map);
    if (r != BSPKIT_OK) {
        cli_report_error(map_path, &err);
        rc = r == BSPKIT_ERR_NOMEM || r == BSPKIT_ERR_UNSUPPORTED || r == BSPKIT_ERR_IO ? CLI_EXIT_UNREADABLE
                                                                                         : CLI_EXIT_INVALID;
        goto done;
    }
    if (out && (r = bspkit_save_file(out, page, size, &err)) != BSPKIT_OK) {
        cli_report_error(out, &err);
        rc = CLI_EXIT_UNREADABLE;
    } else {
        printf("%s -> %s: %zu bytes (glTF %zu bytes, deflated %zu; viewer script %zu), %zu %s, %zu %s\n",
               map_path, out ? out : "(served)", size, st.glb_bytes, st.glb_deflated, st.script_bytes,
               st.geometry.triangles, cli_plural(st.geometry.triangles, "triangle", "triangles"),
               st.geometry.materials, cli_plural(st.geometry.materials, "material", "materials"));
        rc = cli_finish_output() == 0 ? CLI_EXIT_OK : CLI_EXIT_UNREADABLE;
        if (rc == CLI_EXIT_OK && serving)
            rc = serve(page, size, port);
    }
    bspkit_free(page);
done:
    free(wads);
    return rc;
}
