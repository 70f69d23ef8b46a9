/* Views: the spawn eye from the entities, and the perspective and
 * orthographic projections. */
#include "render/camera.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEG (3.14159265358979323846 / 180.0)
#define DEFAULT_FOV 90.0

void bk_rcam_basis(double pitch, double yaw, double fwd[3], double right[3], double up[3])
{
    double cp = cos(pitch * DEG), sp = sin(pitch * DEG), cy = cos(yaw * DEG), sy = sin(yaw * DEG);
    fwd[0] = cp * cy;
    fwd[1] = cp * sy;
    fwd[2] = -sp;
    right[0] = sy;
    right[1] = -cy;
    right[2] = 0;
    up[0] = sp * cy;
    up[1] = sp * sy;
    up[2] = cp;
}

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

void bk_rcam_perspective(bk_rcam *cam, const bspkit_render_camera *c, double width, double height)
{
    memset(cam, 0, sizeof *cam);
    memcpy(cam->eye, c->origin, sizeof cam->eye);
    bk_rcam_basis(c->pitch, c->yaw, cam->fwd, cam->right, cam->up);
    double fov = c->fov > 0 ? c->fov : DEFAULT_FOV;
    cam->width = width;
    cam->height = height;
    cam->focal = width / 2 / tan(fov * DEG / 2);
}

void bk_rcam_ortho(bk_rcam *cam, double pitch, double yaw, const double mn[3], const double mx[3], double width,
                   double height)
{
    memset(cam, 0, sizeof *cam);
    cam->ortho = true;
    bk_rcam_basis(pitch, yaw, cam->fwd, cam->right, cam->up);
    double r0 = HUGE_VAL, r1 = -HUGE_VAL, u0 = HUGE_VAL, u1 = -HUGE_VAL;
    for (int i = 0; i < 8; i++) {
        double p[3] = {i & 1 ? mx[0] : mn[0], i & 2 ? mx[1] : mn[1], i & 4 ? mx[2] : mn[2]};
        double r = dot(p, cam->right), u = dot(p, cam->up);
        r0 = fmin(r0, r);
        r1 = fmax(r1, r);
        u0 = fmin(u0, u);
        u1 = fmax(u1, u);
    }
    /* A flat extent (a plane seen edge-on, or empty bounds) still gets a finite scale. */
    double sr = r1 - r0 > 0 ? width / (r1 - r0) : HUGE_VAL;
    double su = u1 - u0 > 0 ? height / (u1 - u0) : HUGE_VAL;
    cam->scale = fmin(sr, su);
    if (!isfinite(cam->scale) || cam->scale <= 0)
        cam->scale = 1;
    cam->centre_r = (r0 + r1) / 2;
    cam->centre_u = (u0 + u1) / 2;
    cam->width = width;
    cam->height = height;
}

void bk_rcam_view(const bk_rcam *cam, const double p[3], double v[3])
{
    double d[3] = {p[0], p[1], p[2]};
    if (!cam->ortho)
        for (int i = 0; i < 3; i++)
            d[i] -= cam->eye[i];
    v[0] = dot(d, cam->right);
    v[1] = dot(d, cam->up);
    v[2] = dot(d, cam->fwd);
}

double bk_render_eye_height(bspkit_family family)
{
    switch (family) {
    case BSPKIT_FAMILY_SOURCE:
    case BSPKIT_FAMILY_TITANFALL:
        return 64; /* VEC_VIEW over the feet */
    case BSPKIT_FAMILY_GOLDSRC:
        return 28; /* VEC_VIEW over the hull's centre */
    case BSPKIT_FAMILY_QUAKE3:
        return 26; /* DEFAULT_VIEWHEIGHT */
    default:
        return 22; /* Quake and Quake 2 view height over the origin */
    }
}

static const char *const SPAWNS[] = {"info_player_start",    "info_player_deathmatch", "info_player_terrorist",
                                     "info_player_counterterrorist", "info_player_teamspawn", "info_player_combine",
                                     "info_player_rebel",    "info_player_coop"};

static bool is_spawn(const char *cls)
{
    for (size_t i = 0; cls && i < sizeof SPAWNS / sizeof SPAWNS[0]; i++)
        if (strcmp(cls, SPAWNS[i]) == 0)
            return true;
    return false;
}

/* Up to `n` finite numbers separated by blanks; how many were read. */
static int parse_numbers(const char *s, double *out, int n)
{
    int k = 0;
    while (s && k < n) {
        char *end;
        double d = strtod(s, &end);
        if (end == s || !isfinite(d))
            break;
        out[k++] = d;
        s = end;
    }
    return k;
}

bool bk_render_spawn(const bspkit_entities *ents, bspkit_family family, bspkit_render_camera *out)
{
    for (size_t i = 0; ents && i < ents->count; i++) {
        if (!is_spawn(bspkit_entity_value(ents, i, "classname")))
            continue;
        double o[3] = {0, 0, 0};
        if (parse_numbers(bspkit_entity_value(ents, i, "origin"), o, 3) != 3)
            continue;
        memset(out, 0, sizeof *out);
        memcpy(out->origin, o, sizeof o);
        out->origin[2] += bk_render_eye_height(family);
        double a[3] = {0, 0, 0};
        if (parse_numbers(bspkit_entity_value(ents, i, "angles"), a, 3) >= 2) {
            out->pitch = a[0];
            out->yaw = a[1];
        } else if (parse_numbers(bspkit_entity_value(ents, i, "angle"), a, 1) == 1) {
            out->yaw = a[0];
        }
        out->fov = DEFAULT_FOV;
        return true;
    }
    return false;
}
