/* Hashes of rc_resample_cpu's outputs over many shapes, types, methods,
 * edges and special values: run against two libraries and compare. */
#include "robocache-kernels.h"
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int
main (void)
{
  rc_scalar_type types[] = { RC_TYPE_FLOAT32, RC_TYPE_BFLOAT16, RC_TYPE_FLOAT64 };
  rc_interp_method methods[] = { RC_INTERP_LINEAR, RC_INTERP_CUBIC, RC_INTERP_NEAREST, RC_INTERP_PREVIOUS };
  rc_edge_policy edges[] = { RC_EDGE_HOLD, RC_EDGE_INVALID };
  uint32_t dims[] = { 1, 3, 4, 7, 8, 9, 15, 16, 17, 33, 128 };
  GRand *r = g_rand_new_with_seed (11);
  GChecksum *all = g_checksum_new (G_CHECKSUM_SHA256);

  for (guint di = 0; di < G_N_ELEMENTS (dims); di++)
    for (int ti = 0; ti < 3; ti++)
      for (int mi = 0; mi < 4; mi++)
        for (int ei = 0; ei < 2; ei++)
          for (int gr = 0; gr < 2; gr++) {
            uint32_t B = 3, S = 50, T = 70, D = dims[di];
            size_t es = ti == 2 ? 8 : ti == 1 ? 2 : 4;
            rc_resample_params p = { 0 };
            int64_t *st = g_new (int64_t, B * S), *tt = g_new (int64_t, B * T);
            guint8 *v = g_malloc ((size_t) B * S * D * es);
            guint8 *o = g_malloc ((size_t) B * T * D * es);

            p.batch = B; p.n_source = S; p.n_target = T; p.channels = D;
            p.type = types[ti]; p.method = methods[mi]; p.edge = edges[ei];
            if (gr && D >= 8) {
              p.n_angle_ranges = 1; p.angle_ranges[0].first = 1; p.angle_ranges[0].count = 2;
              p.n_quaternions = 1; p.quaternion_first[0] = 4;
            }
            for (uint32_t b = 0; b < B; b++) {
              int64_t t = g_rand_int_range (r, 0, 1000);
              for (uint32_t s = 0; s < S; s++) {
                /* repeated times now and then */
                t += g_rand_int_range (r, 0, 8) == 0 ? 0 : g_rand_int_range (r, 1, 2000);
                st[b * S + s] = t;
              }
              for (uint32_t k = 0; k < T; k++)
                tt[b * T + k] = g_rand_int_range (r, -5000, (int) t + 5000);
            }
            for (size_t i = 0; i < (size_t) B * S * D; i++) {
              double x = g_rand_double_range (r, -4, 4);
              int sp = g_rand_int_range (r, 0, 50);
              if (sp == 0) x = NAN; else if (sp == 1) x = INFINITY;
              else if (sp == 2) x = -INFINITY; else if (sp == 3) x = 1e-40;
              else if (sp == 4) x = -0.0; else if (sp == 5) x = 3e38;
              if (ti == 2) ((double *) v)[i] = x;
              else if (ti == 0) ((float *) v)[i] = (float) x;
              else { float f = (float) x; guint32 u; memcpy (&u, &f, 4); ((guint16 *) v)[i] = u >> 16; }
            }
            if (rc_resample_cpu (&p, st, v, tt, o) != RC_OK) {
              printf ("error D %u type %d method %d\n", D, ti, mi);
              return 1;
            }
            g_checksum_update (all, o, (size_t) B * T * D * es);
            g_free (st); g_free (tt); g_free (v); g_free (o);
          }
  printf ("%s\n", g_checksum_get_string (all));
  return 0;
}
