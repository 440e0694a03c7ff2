/* Hashes and times of rc_fuse_cpu over streams of both types, the three
 * methods, both edges and special values: run against two libraries. */
#include "robocache-kernels.h"
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int
main (int argc, char **argv)
{
  uint32_t E = argc > 1 ? atoi (argv[1]) : 64, T = 1000;
  uint32_t dims[] = { 1, 3, 7, 8, 17, 32, 64, 3, 7, 12, 5, 9, 16, 2, 33, 4 };
  rc_interp_method methods[] = { RC_INTERP_LINEAR, RC_INTERP_NEAREST, RC_INTERP_PREVIOUS };
  GRand *r = g_rand_new_with_seed (5);
  GChecksum *all = g_checksum_new (G_CHECKSUM_SHA256);
  double total_ms = 0;

  for (int ns = 1; ns <= 16; ns *= 4)
    for (int ei = 0; ei < 2; ei++) {
      rc_fuse_params p = { 0 };
      int64_t *ticks = g_new (int64_t, (size_t) E * T);
      uint32_t rc = 0;
      float *out;
      double best = 1e30;

      p.episodes = E; p.n_ticks = T; p.n_streams = ns;
      p.edge = ei ? RC_EDGE_INVALID : RC_EDGE_HOLD;
      for (int s = 0; s < ns; s++) {
        rc_fuse_stream *st = &p.streams[s];
        uint32_t n = 50 + g_rand_int_range (r, 0, 2000), D = dims[s];
        int bf = g_rand_boolean (r);
        int64_t *times = g_new (int64_t, (size_t) E * n);
        guint8 *v = g_malloc ((size_t) E * n * D * (bf ? 2 : 4));

        st->n_samples = n; st->channels = D; st->method = methods[s % 3];
        st->type = bf ? RC_TYPE_BFLOAT16 : RC_TYPE_FLOAT32;
        for (uint32_t e = 0; e < E; e++) {
          int64_t t = g_rand_int_range (r, 0, 100000);
          for (uint32_t k = 0; k < n; k++) {
            t += g_rand_int_range (r, 0, 10) == 0 ? 0 : g_rand_int_range (r, 1, 20000000 / n * 2);
            times[(size_t) e * n + k] = t;
          }
        }
        for (size_t i = 0; i < (size_t) E * n * D; i++) {
          float x = (float) g_rand_double_range (r, -4, 4);
          int sp = g_rand_int_range (r, 0, 60);
          if (sp == 0) x = NAN; else if (sp == 1) x = INFINITY; else if (sp == 2) x = 1e-40f; else if (sp == 3) x = -0.0f;
          if (bf) { guint32 u; memcpy (&u, &x, 4); ((guint16 *) v)[i] = u >> 16; }
          else ((float *) v)[i] = x;
        }
        st->times = times; st->values = v;
        rc += D;
      }
      for (uint32_t e = 0; e < E; e++)
        for (uint32_t t = 0; t < T; t++)
          ticks[(size_t) e * T + t] = -5000000 + (int64_t) t * 22000;
      out = g_new (float, (size_t) E * T * rc);
      for (int rep = 0; rep < 5; rep++) {
        gint64 t0 = g_get_monotonic_time ();
        if (rc_fuse_cpu (&p, ticks, out) != RC_OK) { printf ("error\n"); return 1; }
        best = MIN (best, (g_get_monotonic_time () - t0) / 1000.0);
      }
      total_ms += best;
      printf ("streams %2d edge %d: %8.2f ms\n", ns, ei, best);
      g_checksum_update (all, (guint8 *) out, (size_t) E * T * rc * 4);
      for (int s = 0; s < ns; s++) { g_free ((gpointer) p.streams[s].times); g_free ((gpointer) p.streams[s].values); }
      g_free (ticks); g_free (out);
    }
  printf ("total %.2f ms  %s\n", total_ms, g_checksum_get_string (all));
  return 0;
}
