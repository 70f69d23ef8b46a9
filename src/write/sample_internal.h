/* Sample maps built in files of their own (sample.c lists every sample). */
#ifndef BSPKIT_WRITE_SAMPLE_INTERNAL_H
#define BSPKIT_WRITE_SAMPLE_INTERNAL_H

#include "bspkit/write.h"
#include "core/map.h"

/* The quake3-room sample (sample_quake3.c). */
bspkit_result bk_sample_quake3_room(bspkit_builder **out, bspkit_error *err);

#endif
