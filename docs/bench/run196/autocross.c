/* Where backend=auto should leave the CPU for robocacheresample's calls on
 * data in system memory: per shape, the one-thread CPU reference against
 * the GPU path the element takes for host data (gst/
 * gstrobocacheresamplecompute.c, compute_through_device: three copies in,
 * the kernel, one copy out, a wait on the stream), all in wall time,
 * alternated, medians.  The GPU path three ways: every host array
 * page-locked ("pinned"); the sources page-locked, grid times and output
 * in plain memory, as robocacheresample's host chunks are when upstream
 * took its allocator ("element"); every array plain ("pageable").  Then, for bounds on the output
 * values (batch x grid times x channels) below which the CPU is taken, the
 * worst ratio of what that rule costs to the better side, over all shapes,
 * and the same for the library's own rule (rc_resample_prefers_cpu) where
 * it has one.
 *
 *   autocross [RUNS [SEED]]   (RUNS timed calls a side and shape, default
 *                              41; SEED for the inputs, default 196)
 *
 * Build (here, against the build's kernel library):
 *   gcc -O2 -o build/autocross docs/bench/run196/autocross.c -Ikernels \
 *     -Ibuild/kernels $(pkg-config --cflags --libs glib-2.0) -lm \
 *     -Lbuild/kernels -lrobocache-kernels-1.0 */
#include "robocache-kernels.h"
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WARMUP 5
#define MAX_CASES 1024

typedef struct
{
  uint32_t batch, n_source, n_target, channels;
  rc_scalar_type type;
  rc_interp_method method;
  double cpu_us, gpu_us[3];
} Case;

/* The GPU path's host memory: which arrays are page-locked. */
enum
{ PINNED, ELEMENT, PAGEABLE, N_PATHS };
static const char *const path_names[N_PATHS] = { "pinned", "element",
  "pageable"
};

/* Host arrays of a call. */
typedef struct
{
  int64_t *src_t, *tgt;
  uint8_t *src_v, *out;
} Host;

static double
now_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (double *v, int n)
{
  qsort (v, n, sizeof *v, compare_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void
check (rc_status s, const char *what)
{
  if (s != RC_OK) {
    fprintf (stderr, "%s failed: %d\n", what, s);
    exit (1);
  }
}

static double
value_at (const uint8_t * row, rc_scalar_type type, size_t i)
{
  if (type == RC_TYPE_FLOAT64)
    return ((const double *) row)[i];
  if (type == RC_TYPE_BFLOAT16) {
    uint32_t u = (uint32_t) ((const uint16_t *) row)[i] << 16;
    float f;

    memcpy (&f, &u, 4);
    return f;
  }
  return ((const float *) row)[i];
}

/* Jittered source times (1 ms +- 0.3 ms), a regular grid over them, values
 * in [-3, 3]; then both sides timed, the GPU's output checked against the
 * CPU's first. */
static rc_resample_params
params_of (const Case * c)
{
  rc_resample_params p = { 0 };

  p.batch = c->batch;
  p.n_source = c->n_source;
  p.n_target = c->n_target;
  p.channels = c->channels;
  p.type = c->type;
  p.method = c->method;
  p.edge = RC_EDGE_HOLD;
  return p;
}

/* One call through the GPU from @h: three copies in, the kernel, one out,
 * the wait; its wall time in us. */
static double
gpu_call (const rc_resample_params * p, const Host * h, void *const *dev,
    size_t value_bytes, void *stream)
{
  size_t n_src = (size_t) p->batch * p->n_source;
  size_t n_tgt = (size_t) p->batch * p->n_target;
  double t0 = now_us ();

  check (rc_device_copy_async (dev[0], h->src_t, n_src * 8,
          RC_COPY_HOST_TO_DEVICE, stream), "copy");
  check (rc_device_copy_async (dev[1], h->src_v, n_src * p->channels *
          value_bytes, RC_COPY_HOST_TO_DEVICE, stream), "copy");
  check (rc_device_copy_async (dev[2], h->tgt, n_tgt * 8,
          RC_COPY_HOST_TO_DEVICE, stream), "copy");
  check (rc_resample_cuda (p, dev[0], dev[1], dev[2], dev[3], stream),
      "kernel");
  check (rc_device_copy_async (h->out, dev[3], n_tgt * p->channels *
          value_bytes, RC_COPY_DEVICE_TO_HOST, stream), "copy");
  check (rc_stream_synchronize (stream), "wait");
  return now_us () - t0;
}

static void *
host_alloc (size_t size, int pinned)
{
  void *ptr;

  if (!pinned)
    return g_malloc (MAX (size, 1));
  check (rc_host_alloc (&ptr, MAX (size, 1)), "host alloc");
  return ptr;
}

static void
host_free (void *ptr, int pinned)
{
  if (pinned)
    rc_host_free (ptr);
  else
    g_free (ptr);
}

/* Jittered source times (1 ms +- 0.3 ms), a regular grid over them, values
 * in [-3, 3]; then the CPU and the three GPU paths timed in turn, each
 * GPU path's output checked against the CPU's. */
static void
run_case (Case * c, int runs, GRand * rand, void *stream)
{
  rc_resample_params p = params_of (c);
  size_t es = rc_scalar_type_size (c->type);
  size_t n_src = (size_t) c->batch * c->n_source;
  size_t n_tgt = (size_t) c->batch * c->n_target;
  size_t src_bytes = n_src * c->channels * es;
  size_t out_bytes = n_tgt * c->channels * es;
  Host host[N_PATHS];
  uint8_t *want;
  void *dev[4];
  double *cpu = g_new (double, runs), *gpu[N_PATHS];

  for (int k = 0; k < N_PATHS; k++) {
    Host *h = &host[k];

    h->src_t = host_alloc (n_src * 8, k != PAGEABLE);
    h->src_v = host_alloc (src_bytes, k != PAGEABLE);
    h->tgt = host_alloc (n_tgt * 8, k == PINNED);
    h->out = host_alloc (out_bytes, k == PINNED);
    gpu[k] = g_new (double, runs);
  }
  want = g_malloc (out_bytes);
  check (rc_device_alloc (&dev[0], n_src * 8), "device alloc");
  check (rc_device_alloc (&dev[1], src_bytes), "device alloc");
  check (rc_device_alloc (&dev[2], MAX (n_tgt * 8, 1)), "device alloc");
  check (rc_device_alloc (&dev[3], MAX (out_bytes, 1)), "device alloc");

  for (uint32_t b = 0; b < c->batch; b++) {
    int64_t *ts = host[0].src_t + (size_t) b * c->n_source;
    int64_t t = g_rand_int_range (rand, 0, 1000000);

    for (uint32_t s = 0; s < c->n_source; s++) {
      t += 1000000 + g_rand_int_range (rand, -300000, 300000);
      ts[s] = t;
    }
    for (uint32_t k = 0; k < c->n_target; k++)
      host[0].tgt[(size_t) b * c->n_target + k] = ts[0] + 12345 +
          (t - ts[0]) * (int64_t) k / MAX (c->n_target, 1);
  }
  for (size_t i = 0; i < n_src * c->channels; i++) {
    double v = g_rand_double_range (rand, -3, 3);
    float f = (float) v;

    if (c->type == RC_TYPE_FLOAT64) {
      ((double *) host[0].src_v)[i] = v;
    } else if (c->type == RC_TYPE_BFLOAT16) {
      uint32_t u;

      memcpy (&u, &f, 4);
      ((uint16_t *) host[0].src_v)[i] = u >> 16;
    } else {
      ((float *) host[0].src_v)[i] = f;
    }
  }
  for (int k = 1; k < N_PATHS; k++) {
    memcpy (host[k].src_t, host[0].src_t, n_src * 8);
    memcpy (host[k].src_v, host[0].src_v, src_bytes);
    memcpy (host[k].tgt, host[0].tgt, n_tgt * 8);
  }

  for (int r = -WARMUP; r < runs; r++) {
    double t0 = now_us (), t1;

    check (rc_resample_cpu (&p, host[0].src_t, host[0].src_v, host[0].tgt,
            want), "cpu");
    t1 = now_us ();
    if (r >= 0)
      cpu[r] = t1 - t0;
    for (int k = 0; k < N_PATHS; k++) {
      double us = gpu_call (&p, &host[k], dev, es, stream);

      if (r >= 0)
        gpu[k][r] = us;
    }
  }
  for (int k = 0; k < N_PATHS; k++) {
    double worst = 0;

    for (size_t i = 0; i < n_tgt * c->channels; i++) {
      double g = value_at (host[k].out, c->type, i);
      double w = value_at (want, c->type, i);
      double tol = c->type == RC_TYPE_BFLOAT16 ?
          MAX (fabs (g), fabs (w)) / 128 + 1e-6 : c->type == RC_TYPE_FLOAT64 ?
          1e-12 * MAX (1, fabs (w)) : 1e-5 * MAX (1, fabs (w));

      worst = MAX (worst, fabs (g - w) / tol);
    }
    if (!(worst <= 1)) {
      fprintf (stderr, "GPU (%s) and CPU differ: %.3g of the tolerance\n",
          path_names[k], worst);
      exit (1);
    }
    c->gpu_us[k] = median (gpu[k], runs);
    host_free (host[k].src_t, k != PAGEABLE);
    host_free (host[k].src_v, k != PAGEABLE);
    host_free (host[k].tgt, k == PINNED);
    host_free (host[k].out, k == PINNED);
    g_free (gpu[k]);
  }
  c->cpu_us = median (cpu, runs);
  for (int k = 0; k < 4; k++)
    rc_device_free (dev[k]);
  g_free (want);
  g_free (cpu);
}

static const char *
kind_name (const Case * c)
{
  static char name[32];

  snprintf (name, sizeof name, "%s %s", rc_scalar_type_to_string (c->type),
      c->method == RC_INTERP_LINEAR ? "linear" : c->method ==
      RC_INTERP_CUBIC ? "cubic" : c->method == RC_INTERP_NEAREST ?
      "nearest" : "previous");
  return name;
}

/* Over @cases with the GPU path @path, the ratio of the side a rule picks
 * to the better side: "the CPU below @bound output values", or the
 * library's model (@library).  Its line: the worst ratio, the mean, the
 * shapes over 1.1 and the worst shape. */
static void
print_rule (const Case * cases, int n, int path, const char *label,
    uint64_t bound, int library)
{
  double worst = 0, sum = 0;
  int at = 0, over = 0;

  for (int i = 0; i < n; i++) {
    const Case *c = &cases[i];
    rc_resample_params p = params_of (c);
    int on_cpu = library ? rc_resample_prefers_cpu (&p) :
        (uint64_t) c->batch * c->n_target * c->channels < bound;
    double gpu = c->gpu_us[path];
    double ratio = (on_cpu ? c->cpu_us : gpu) / MIN (c->cpu_us, gpu);

    sum += ratio;
    over += ratio > 1.1;
    if (ratio > worst) {
      worst = ratio;
      at = i;
    }
  }
  printf ("%-9s %-20s %8.3f %8.4f %6d  B %u S %u T %u D %u (%s)\n",
      path_names[path], label, worst, sum / n, over, cases[at].batch,
      cases[at].n_source, cases[at].n_target, cases[at].channels,
      kind_name (&cases[at]));
}

static uint64_t
values_of (const Case * c)
{
  return (uint64_t) c->batch * c->n_target * c->channels;
}

int
main (int argc, char **argv)
{
  static const uint32_t channels[] = { 1, 3, 7, 16, 32, 64, 128 };
  /* Batch, source samples, grid times: the live path's history of a few
   * samples, chunks of one trajectory (four samples a grid time), and
   * small batches. */
  static const uint32_t shapes[][3] = {
    {1, 5, 1}, {1, 5, 4}, {1, 8, 16}, {1, 68, 16}, {1, 260, 64},
    {1, 1028, 256}, {1, 2052, 512}, {1, 4100, 1024}, {1, 16388, 4096},
    {4, 260, 64}, {4, 1028, 256}, {16, 68, 16}, {16, 260, 64},
    {16, 1028, 256}, {64, 260, 64}
  };
  static const struct
  {
    rc_scalar_type type;
    rc_interp_method method;
  } kinds[] = {
    {RC_TYPE_FLOAT32, RC_INTERP_LINEAR}, {RC_TYPE_FLOAT32, RC_INTERP_CUBIC},
    {RC_TYPE_FLOAT32, RC_INTERP_NEAREST}, {RC_TYPE_BFLOAT16, RC_INTERP_LINEAR},
    {RC_TYPE_BFLOAT16, RC_INTERP_CUBIC}, {RC_TYPE_FLOAT64, RC_INTERP_LINEAR},
    {RC_TYPE_FLOAT64, RC_INTERP_CUBIC},
  };
  static const uint64_t bounds[] = { 0, 1024, 2048, 4096, 8192, 16384,
    32768, 65536, 131072, 262144, G_MAXUINT64
  };
  int runs = argc > 1 ? atoi (argv[1]) : 41;
  GRand *rand = g_rand_new_with_seed (argc > 2 ? atoi (argv[2]) : 196);
  Case cases[MAX_CASES];
  int n = 0;
  void *stream;

  if (runs < 1)
    runs = 41;
  if (rc_device_count (NULL) < 1) {
    fprintf (stderr, "no CUDA device\n");
    return 77;
  }
  check (rc_stream_create (&stream), "stream");
  printf ("%-16s %5s %6s %5s %4s %9s %10s %10s %10s %10s %4s\n", "kind",
      "B", "S", "T", "D", "values", "cpu us", "pinned us", "element us",
      "pageable us", "rule");
  for (size_t k = 0; k < G_N_ELEMENTS (kinds); k++)
    for (size_t s = 0; s < G_N_ELEMENTS (shapes); s++)
      for (size_t d = 0; d < G_N_ELEMENTS (channels); d++) {
        Case *c = &cases[n++];
        rc_resample_params p;

        *c = (Case) {
        shapes[s][0], shapes[s][1], shapes[s][2], channels[d],
              kinds[k].type, kinds[k].method, 0, {0}};
        run_case (c, runs, rand, stream);
        p = params_of (c);
        printf ("%-16s %5u %6u %5u %4u %9" G_GUINT64_FORMAT
            " %10.1f %10.1f %10.1f %10.1f %4s\n", kind_name (c), c->batch,
            c->n_source, c->n_target, c->channels, values_of (c), c->cpu_us,
            c->gpu_us[PINNED], c->gpu_us[ELEMENT], c->gpu_us[PAGEABLE],
            rc_resample_prefers_cpu (&p) ? "cpu" : "gpu");
        fflush (stdout);
      }

  printf ("\n%-9s %-20s %8s %8s %6s  %s\n", "gpu path", "rule", "worst",
      "mean", ">1.1", "worst shape");
  for (int path = 0; path < N_PATHS; path++) {
    for (size_t b = 0; b < G_N_ELEMENTS (bounds); b++) {
      char label[40];

      if (bounds[b] == 0)
        snprintf (label, sizeof label, "never the CPU");
      else if (bounds[b] == G_MAXUINT64)
        snprintf (label, sizeof label, "always the CPU");
      else
        snprintf (label, sizeof label, "values < %" G_GUINT64_FORMAT,
            bounds[b]);
      print_rule (cases, n, path, label, bounds[b], 0);
    }
    print_rule (cases, n, path, "rc_resample_prefers", 0, 1);
  }
  rc_stream_destroy (stream);
  return 0;
}
