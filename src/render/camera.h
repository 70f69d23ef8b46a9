/* Views: where the eye is and how map points become sample coordinates. */
#ifndef BSPKIT_RENDER_CAMERA_H
#define BSPKIT_RENDER_CAMERA_H

#include "bspkit/render.h"

#define BK_RENDER_NEAR 1.0

typedef struct bk_rcam {
    bool ortho;
    double eye[3];               /* perspective */
    double right[3], up[3], fwd[3];
    double width, height;        /* sample grid */
    double focal;                /* perspective: samples per unit at distance 1 */
    double scale;                /* orthographic: samples per map unit */
    double centre_r, centre_u;   /* orthographic: right/up coordinates at the grid's centre */
} bk_rcam;

/* Basis of a Source-style pitch/yaw (degrees): forward, right and up. */
void bk_rcam_basis(double pitch, double yaw, double fwd[3], double right[3], double up[3]);

/* Perspective camera at `c` (fov 0 = 90) on a width x height grid. */
void bk_rcam_perspective(bk_rcam *cam, const bspkit_render_camera *c, double width, double height);

/* Orthographic camera looking along pitch/yaw, the eight corners of
 * [mn, mx] fitted into the grid with one scale, centred. */
void bk_rcam_ortho(bk_rcam *cam, double pitch, double yaw, const double mn[3], const double mx[3], double width,
                   double height);

/* A map point in view space: v[0] right, v[1] up, v[2] depth (along fwd; from the eye for perspective). */
void bk_rcam_view(const bk_rcam *cam, const double p[3], double v[3]);

/* Eye height over a spawn entity's origin for the family (see render.h). */
double bk_render_eye_height(bspkit_family family);

/* The eye of the first player spawn; false when the entities have none. */
bool bk_render_spawn(const bspkit_entities *ents, bspkit_family family, bspkit_render_camera *out);

#endif
