/* CPU resample timing and output hash: B trajectories of S jittered
 * samples to T regular targets, D channels, each type and method. */
#include "robocache-kernels.h"
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main (int argc, char **argv)
{
  uint32_t B = argc > 1 ? atoi (argv[1]) : 64, S = 4096, T = 1024, D = 32;
  rc_scalar_type types[] = { RC_TYPE_FLOAT32, RC_TYPE_BFLOAT16, RC_TYPE_FLOAT64 };
  const char *tn[] = { "f32", "bf16", "f64" };
  rc_interp_method methods[] = { RC_INTERP_LINEAR, RC_INTERP_CUBIC };
  const char *mn[] = { "linear", "cubic" };
  GRand *r = g_rand_new_with_seed (7);
  int64_t *st = g_new (int64_t, (size_t) B * S), *tt = g_new (int64_t, (size_t) B * T);
  double *vd = g_new (double, (size_t) B * S * D);

  for (uint32_t b = 0; b < B; b++) {
    int64_t t = g_rand_int_range (r, 0, 1000000);
    for (uint32_t s = 0; s < S; s++) {
      t += 1000000 + g_rand_int_range (r, -300000, 300000);
      st[(size_t) b * S + s] = t;
    }
    for (uint32_t k = 0; k < T; k++)
      tt[(size_t) b * T + k] = st[(size_t) b * S] + (int64_t) k * 3900000 + 12345;
  }
  for (size_t i = 0; i < (size_t) B * S * D; i++)
    vd[i] = g_rand_double_range (r, -3, 3);
  for (int ti = 0; ti < 3; ti++)
    for (int mi = 0; mi < 2; mi++) {
      rc_resample_params p = { 0 };
      size_t es = ti == 2 ? 8 : ti == 1 ? 2 : 4, n = (size_t) B * S * D;
      guint8 *v = g_malloc (n * es), *o = g_malloc ((size_t) B * T * D * es);
      double best = 1e30;
      p.batch = B; p.n_source = S; p.n_target = T; p.channels = D;
      p.type = types[ti]; p.method = methods[mi]; p.edge = RC_EDGE_HOLD;
      if (getenv ("GROUPS")) {
        p.n_angle_ranges = 1; p.angle_ranges[0].first = 3; p.angle_ranges[0].count = 2;
        p.n_quaternions = 1; p.quaternion_first[0] = 8;
      }
      for (size_t i = 0; i < n; i++) {
        if (ti == 2) ((double *) v)[i] = vd[i];
        else if (ti == 0) ((float *) v)[i] = (float) vd[i];
        else { float f = (float) vd[i]; guint32 u; memcpy (&u, &f, 4); ((guint16 *) v)[i] = u >> 16; }
      }
      for (int rep = 0; rep < 5; rep++) {
        gint64 t0 = g_get_monotonic_time ();
        if (rc_resample_cpu (&p, st, v, tt, o) != RC_OK) return 1;
        best = MIN (best, (g_get_monotonic_time () - t0) / 1000.0);
      }
      gchar *h = g_compute_checksum_for_data (G_CHECKSUM_SHA256, o, (size_t) B * T * D * es);
      printf ("%-5s %-7s B %u: %8.2f ms  %.2f ns/value  %.16s\n", tn[ti], mn[mi], B, best,
          best * 1e6 / ((double) B * T * D), h);
      g_free (h); g_free (v); g_free (o);
    }
  return 0;
}
