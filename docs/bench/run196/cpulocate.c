/* CPU resample ns per target, one trajectory of S samples to (S - 4) / R
 * grid times, 1, 7 and 32 channels, float32:
 *   cpulocate [CUBIC [S [REPS [R]]]]     (0 65540 2000 4; best of REPS) */
#include "robocache-kernels.h"
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main (int argc, char **argv)
{
  uint32_t Ds[] = {1, 7, 32};
  uint32_t B = 1, S = argc > 2 ? atoi (argv[2]) : 4100, T = (S - 4) / (argc > 4 ? atoi (argv[4]) : 4);
  int cubic = argc > 1 && atoi (argv[1]);
  GRand *r = g_rand_new_with_seed (5);
  for (int di = 0; di < 3; di++) {
    uint32_t D = Ds[di];
    int64_t *st = g_new (int64_t, S), *tt = g_new (int64_t, T);
    float *v = g_new (float, S * D), *o = g_new (float, T * D);
    int64_t t = 0;
    for (uint32_t s = 0; s < S; s++) { t += 1000000 + g_rand_int_range (r, -300000, 300000); st[s] = t; }
    for (uint32_t k = 0; k < T; k++) tt[k] = st[0] + 12345 + (t - st[0]) * (int64_t) k / T;
    for (uint32_t i = 0; i < S * D; i++) v[i] = g_rand_double_range (r, -3, 3);
    rc_resample_params p = { 0 };
    p.batch = B; p.n_source = S; p.n_target = T; p.channels = D; p.type = RC_TYPE_FLOAT32;
    p.method = cubic ? RC_INTERP_CUBIC : RC_INTERP_LINEAR;
    double best = 1e30;
    for (int rep = 0; rep < (argc > 3 ? atoi (argv[3]) : 2000); rep++) {
      gint64 t0 = g_get_monotonic_time ();
      rc_resample_cpu (&p, st, v, tt, o);
      double us = g_get_monotonic_time () - t0;
      if (us < best) best = us;
    }
    gchar *h = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (guint8 *) o, T * D * 4);
    printf ("D %3u: best %.1f us, %.1f ns/target %.12s\n", D, best, best * 1000 / T, h);
  }
  return 0;
}
