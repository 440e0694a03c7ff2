/* CPU mean timing: uniform points over the 256^3 cube (5% beyond), and a
 * KITTI-region lidar-ish cloud; median of R runs. */
#include "robocache-kernels.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now (void) { struct timespec t; clock_gettime (CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static int cmp (const void *a, const void *b) { double x = *(double *) a, y = *(double *) b; return x < y ? -1 : x > y; }
int main (int argc, char **argv)
{
  int runs = argc > 1 ? atoi (argv[1]) : 5;
  uint64_t sizes[] = { 131072, 262144, 393216, 524288, 1048576, 2097152, 4194304 };
  int nf[] = { 1, 3, 4 };
  rc_voxel_grid g = { {-25.6, -25.6, -25.6}, {0.2, 0.2, 0.2}, {256, 256, 256}, RC_VOXEL_MEAN };
  srand (7);
  for (int fi = 0; fi < 3; fi++) {
    rc_point_layout l = { .point_step = 16, .x = {0, RC_TYPE_FLOAT32}, .y = {4, RC_TYPE_FLOAT32}, .z = {8, RC_TYPE_FLOAT32} };
    if (nf[fi] == 1) { l.n_features = 1; l.features[0] = (rc_field) {12, RC_TYPE_FLOAT32}; }
    else { l.n_features = nf[fi]; for (int f = 0; f < nf[fi]; f++) l.features[f] = (rc_field) {4 * f, RC_TYPE_FLOAT32}; }
    for (int si = 0; si < 7; si++) {
      uint64_t n = sizes[si];
      float *pts = malloc (n * 16);
      for (uint64_t i = 0; i < n * 4; i++) pts[i] = (float) ((rand () / (double) RAND_MAX) * 56.32 - 28.16);
      uint64_t outsz = rc_voxelize_output_size (&l, &g), ssz = rc_voxelize_scratch_size (&l, &g, n);
      void *out = malloc (outsz), *scr = malloc (ssz);
      double t[16]; rc_voxelize_stats st;
      for (int r = 0; r < runs; r++) { double t0 = now (); rc_voxelize_cpu (&l, &g, pts, &n, 1, out, scr, &st); t[r] = now () - t0; }
      qsort (t, runs, sizeof (double), cmp);
      unsigned long long h = 1469598103934665603ull; for (uint64_t i = 0; i < outsz; i++) h = (h ^ ((uint8_t *) out)[i]) * 1099511628211ull;
      printf ("F=%d n=%8llu  median %8.2f ms  min %8.2f  occupied %llu scratch %llu MB hash %016llx\n", nf[fi], (unsigned long long) n, t[runs / 2], t[0], (unsigned long long) st.occupied, (unsigned long long) (ssz >> 20), h);
      fflush (stdout);
      free (pts); free (out); free (scr);
    }
  }
  return 0;
}
