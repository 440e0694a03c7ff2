/* Kernel benchmarks: times the CUDA kernels on the sizes the project quotes
 * and sets each time against a floor measured in the same run (the bytes the
 * workload must move, each input read once and each output written once,
 * over this device's copy bandwidth).
 *
 *   bench-kernels [--json FILE] [--runs N] [--seed S]
 *       [--sweep voxelize|resample|fuse|all] [--points N,..]
 *       [--modes count,occupancy,mean,centroids] [--batch B,..]
 *       [--samples S,..] [--channels D,..] [--streams N,..] [--ticks T,..]
 *       [--fuse-channels C,..]
 *
 * Every workload draws fresh random inputs (never zeros), rotates among
 * enough input sets that a run cannot be served from the L2 cache, checks
 * one GPU result against the CPU reference before timing (and another one
 * after), warms up, then times each of N runs (default 200) with a pair of
 * CUDA events and reports the median, p10 and p90.  That single call's
 * time includes the GPU's launch of it (an empty kernel's row shows how
 * much); each workload is then also timed back to back, CALLS_PER_GRAPH
 * calls on rotating sets captured into one CUDA graph and replayed N times,
 * where launches overlap the previous call's work as in a stream of
 * buffers.  The floor's copy, 1 GiB long, pays its launch only once, so the
 * back-to-back time is the one to set against it.
 *
 * Resampling reads only the source rows that bracket a target; its second
 * line counts the floor with only those rows.  Rows named "-bound" time a
 * part of a workload alone (bench_bounds.cu), to show what limits it: the
 * resampling rows with every target located beforehand, the occupancy grid
 * without its statistics.
 *
 * --sweep times each operation over a range of sizes instead (the points
 * and the grid of a voxelization, the batch, samples and channels of a
 * resampling, the streams and ticks of a fusion: sweep_voxelize,
 * sweep_resample, sweep_fuse; the size options replace their lists), each
 * beside the CPU reference on the same inputs (one thread, median of up to
 * CPU_RUNS),
 * for the cost curves of docs/performance.md (tests/bench/plot_sweep.py
 * draws them). */
#include <glib.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_bounds.h"
#include "bench_graph.h"
#include "resample-math.h"
#include "robocache-kernels.h"
#include "values.h"

/* Input sets rotate until together they span this many bytes: four times
 * the 50 MB L2 of an H100. */
#define ROTATE_BYTES (200.0 * 1024 * 1024)
#define MIN_SETS 2
#define MAX_SETS 128
#define WARMUP_RUNS 10
#define COPY_BYTES ((size_t) 1 << 30)
#define COPY_RUNS 30
/* Workloads one run records: --sweep all makes about 210. */
#define MAX_RESULTS 512
/* --sweep: the CPU reference runs at most this many times a size, and
 * stops early once it has taken CPU_BUDGET_US. */
#define CPU_RUNS 7
#define CPU_BUDGET_US 3e6
#define CALLS_PER_GRAPH 20

typedef struct
{
  char name[96];                /* the key shared with torch_baseline.py */
  char kind[16];
  char detail[160];
  double floor_bytes;           /* inputs read once + outputs written once */
  double touched_bytes;         /* the same, counting only the source rows
                                 * that some target reads (resample); 0
                                 * where every input byte is needed */
  double set_bytes;             /* one input set with its output */
  int n_sets;
  int runs;
  double median_us, p10_us, p90_us, min_us;
  double loop_us;               /* first start to last end, over runs */
  double gbps, floor_us, ratio;
  /* Per call, back to back: a replay of CALLS_PER_GRAPH calls over
   * CALLS_PER_GRAPH, median (p10, p90) of runs replays. */
  double b2b_median_us, b2b_p10_us, b2b_p90_us, b2b_ratio;
  /* --sweep: the CPU reference's median on the same inputs. */
  double cpu_median_us;
  int cpu_runs;
} Result;

/* The work of one timed run on input set @set. */
typedef bench_call RunFunc;

static int n_runs = 200;
/* --only: globs of the workloads' names to run (g_pattern_match_simple),
 * the others skipped before any work; NULL runs all. */
static char **only_names;

/* Whether --only leaves out the workload @name. */
static gboolean
left_out (const char *name)
{
  for (char **glob = only_names; glob && *glob; glob++)
    if (g_pattern_match_simple (*glob, name))
      return FALSE;
  return only_names != NULL;
}
/* --sweep: each size once, the CPU reference timed beside it, no bound or
 * clearing rows. */
static gboolean sweeping;

/* --sweep's sizes, each a list the command line may replace (--points,
 * --modes, --batch, --samples, --channels, --streams, --ticks,
 * --fuse-channels). */
#define MAX_SIZES 32
typedef struct
{
  const char *option;
  int n;
  uint64_t v[MAX_SIZES];
  gboolean given;               /* by the command line */
} SizeList;

static SizeList sweep_points = { "--points", 9, {16384, 32768, 65536, 131072,
        262144, 524288, 1048576, 2097152, 4194304}
};

/* Voxel modes by their rc_voxel_mode number, then the sparse pillars. */
#define SWEEP_PILLARS 4
static SizeList sweep_modes = { "--modes", 5, {RC_VOXEL_COUNT,
        RC_VOXEL_OCCUPANCY, RC_VOXEL_MEAN, RC_VOXEL_CENTROIDS, SWEEP_PILLARS}
};
static SizeList sweep_batch = { "--batch", 6, {1, 4, 16, 64, 256, 1024} };
static SizeList sweep_samples = { "--samples", 5, {256, 1024, 4096, 16384,
        65536}
};
static SizeList sweep_channels = { "--channels", 8, {1, 2, 4, 8, 16, 32, 64,
        128}
};
static SizeList sweep_streams = { "--streams", 5, {1, 2, 4, 8, 16} };
static SizeList sweep_ticks = { "--ticks", 3, {100, 1000, 10000} };
/* The fused streams' widths, taken in turn (the quoted workload's camera
 * feature, joints and IMU).  Widths that are not multiples of four floats
 * (a row of 529) make the kernel's narrower accesses show. */
static SizeList fuse_widths = { "--fuse-channels", 3, {512, 14, 6} };
static guint64 rng_state;
static void *stream;
static void **ev_start, **ev_end;
static double copy_gbps;
static Result copy_result, launch_result;
static Result results[MAX_RESULTS];
static int n_results;

static void G_GNUC_PRINTF (1, 2) G_GNUC_NORETURN
die (const char *format, ...)
{
  va_list args;

  fflush (stdout);
  fprintf (stderr, "bench-kernels: ");
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fprintf (stderr, "\n");
  exit (1);
}

#define CHECK(expr) check_status ((expr), #expr)

static void
check_status (rc_status ret, const char *what)
{
  if (ret != RC_OK)
    die ("%s: %s (%s)", what, rc_status_message (ret), rc_error_detail ());
}

/* ------------------------------------------------------------------ */
/* Random numbers: splitmix64, fast enough for a few hundred MB        */
/* ------------------------------------------------------------------ */

static guint64
rng_u64 (void)
{
  guint64 z = (rng_state += 0x9E3779B97F4A7C15ull);

  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double
rng_unit (void)
{
  return (rng_u64 () >> 11) * (1.0 / 9007199254740992.0);
}

static double
rng_range (double lo, double hi)
{
  return lo + (hi - lo) * rng_unit ();
}

/* ------------------------------------------------------------------ */
/* bfloat16 and value access                                           */
/* ------------------------------------------------------------------ */

/* float32 ~1e-5, float64 1e-12, bfloat16 one unit in the last place. */
static gboolean
close_enough (rc_scalar_type type, double got, double want)
{
  double diff = fabs (got - want), mag = MAX (fabs (got), fabs (want));

  if (isnan (want) || isnan (got))
    return isnan (want) && isnan (got);
  switch (type) {
    case RC_TYPE_FLOAT64:
      return diff <= 1e-12 * MAX (1, mag);
    case RC_TYPE_BFLOAT16:
      return diff <= mag / 128 + 1e-6;
    default:
      return diff <= 1e-5 * MAX (1, mag);
  }
}

/* ------------------------------------------------------------------ */
/* Timing                                                              */
/* ------------------------------------------------------------------ */

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Linear interpolation between order statistics (numpy's default). */
static double
percentile (const double *sorted, int n, double q)
{
  double pos = q * (n - 1);
  int lo = (int) floor (pos);

  if (lo >= n - 1)
    return sorted[n - 1];
  return sorted[lo] + (pos - lo) * (sorted[lo + 1] - sorted[lo]);
}

static int
sets_for (double set_bytes)
{
  int n = (int) ceil (ROTATE_BYTES / set_bytes);

  return CLAMP (n, MIN_SETS, MAX_SETS);
}

/* Warms up, then records an event pair around each of @runs runs without
 * waiting in between (the host stays ahead of the device), and fills the
 * time fields of @r. */
static void
time_runs (RunFunc func, void *ctx, int n_sets, int runs, Result * r)
{
  double *us = g_new (double, runs);
  float ms;

  for (int i = 0; i < MAX (WARMUP_RUNS, n_sets); i++)
    func (ctx, i % n_sets);
  CHECK (rc_stream_synchronize (stream));

  for (int i = 0; i < runs; i++) {
    CHECK (rc_event_record (ev_start[i], stream));
    func (ctx, i % n_sets);
    CHECK (rc_event_record (ev_end[i], stream));
  }
  CHECK (rc_stream_synchronize (stream));
  for (int i = 0; i < runs; i++) {
    CHECK (rc_event_elapsed_ms (ev_start[i], ev_end[i], &ms));
    us[i] = ms * 1e3;
  }
  CHECK (rc_event_elapsed_ms (ev_start[0], ev_end[runs - 1], &ms));
  r->loop_us = ms * 1e3 / runs;

  qsort (us, runs, sizeof (double), compare_double);
  r->runs = runs;
  r->n_sets = n_sets;
  r->median_us = percentile (us, runs, 0.5);
  r->p10_us = percentile (us, runs, 0.1);
  r->p90_us = percentile (us, runs, 0.9);
  r->min_us = us[0];
  r->gbps = r->floor_bytes / (r->median_us * 1e-6) / 1e9;
  g_free (us);
}

static void
replay_graph (void *graph, int set)
{
  (void) set;
  CHECK (bench_graph_replay (graph, stream));
}

/* Times @func back to back (see the top of the file): its calls captured
 * into a graph whose replays time_runs times, per call, into the b2b
 * fields of @r. */
static void
time_back_to_back (RunFunc func, void *ctx, int n_sets, Result * r)
{
  Result replays;
  void *graph;

  CHECK (bench_graph_capture (func, ctx, n_sets, CALLS_PER_GRAPH, stream,
          &graph));
  memset (&replays, 0, sizeof (replays));
  time_runs (replay_graph, graph, 1, n_runs, &replays);
  bench_graph_free (graph);
  r->b2b_median_us = replays.median_us / CALLS_PER_GRAPH;
  r->b2b_p10_us = replays.p10_us / CALLS_PER_GRAPH;
  r->b2b_p90_us = replays.p90_us / CALLS_PER_GRAPH;
}

/* The floor counting only the source rows read, in µs. */
static double
touched_floor_us (const Result * r)
{
  return r->touched_bytes / (copy_gbps * 1e9) * 1e6;
}

/* Times @func and adds it to the results, against the copy bandwidth. */
static void
bench (RunFunc func, void *ctx, int n_sets, Result * r)
{
  /* Before the timing, so that a run that records too much stops at once. */
  if (n_results == MAX_RESULTS)
    die ("too many workloads");
  time_runs (func, ctx, n_sets, n_runs, r);
  time_back_to_back (func, ctx, n_sets, r);
  r->floor_us = r->floor_bytes / (copy_gbps * 1e9) * 1e6;
  r->ratio = r->median_us / r->floor_us;
  r->b2b_ratio = r->b2b_median_us / r->floor_us;
  results[n_results++] = *r;
  printf ("%-44s %9.1f  (%8.1f-%8.1f) %9.2f %8.0f %9.1f %6.2f\n", r->name,
      r->median_us, r->p10_us, r->p90_us, r->floor_bytes / 1e6, r->gbps,
      r->floor_us, r->ratio);
  if (r->touched_bytes > 0) {
    double us = touched_floor_us (r);
    printf ("%-44s %9s  %19s %9.2f %8.0f %9.1f %6.2f\n",
        "  ... counting only the source rows read", "", "",
        r->touched_bytes / 1e6, r->touched_bytes / (r->median_us * 1e3), us,
        r->median_us / us);
  }
  printf ("%-44s %9.1f  (%8.1f-%8.1f) %9s %8.0f %9s %6.2f\n",
      "  ... per call, back to back", r->b2b_median_us, r->b2b_p10_us,
      r->b2b_p90_us, "", r->floor_bytes / (r->b2b_median_us * 1e3), "",
      r->b2b_ratio);
  if (r->touched_bytes > 0)
    printf ("%-44s %9s  %19s %9s %8.0f %9s %6.2f\n",
        "  ... back to back, only the rows read", "", "", "",
        r->touched_bytes / (r->b2b_median_us * 1e3), "",
        r->b2b_median_us / touched_floor_us (r));
  fflush (stdout);
}

/* The CPU reference's median over input sets, in @r (the last result,
 * already printed: a line of its own follows). */
static void
time_cpu (RunFunc func, void *ctx, int n_sets, Result * r)
{
  double us[CPU_RUNS], spent = 0;
  int runs = 0;

  func (ctx, 0);                /* warm-up: caches, page faults */
  while (runs < CPU_RUNS && (runs < 3 || spent < CPU_BUDGET_US)) {
    gint64 start = g_get_monotonic_time ();

    func (ctx, runs % n_sets);
    us[runs] = (double) (g_get_monotonic_time () - start);
    spent += us[runs++];
  }
  qsort (us, runs, sizeof (double), compare_double);
  r->cpu_median_us = percentile (us, runs, 0.5);
  r->cpu_runs = runs;
  results[n_results - 1] = *r;
  printf ("%-44s %9.1f  (CPU reference, one thread, median of %d)\n",
      "  ... on the CPU", r->cpu_median_us, runs);
  fflush (stdout);
}

/* ------------------------------------------------------------------ */
/* Copy bandwidth                                                      */
/* ------------------------------------------------------------------ */

typedef struct
{
  void *src, *dst;
} CopyBench;

static void
run_copy (void *ctx, int set)
{
  CopyBench *b = ctx;

  (void) set;
  CHECK (rc_device_copy_async (b->dst, b->src, COPY_BYTES,
          RC_COPY_DEVICE_TO_DEVICE, stream));
}

static void
bench_copy (void)
{
  CopyBench b;
  Result *r = &copy_result;

  CHECK (rc_device_alloc (&b.src, COPY_BYTES));
  CHECK (rc_device_alloc (&b.dst, COPY_BYTES));
  CHECK (rc_device_memset_async (b.src, 0xA5, COPY_BYTES, stream));
  memset (r, 0, sizeof (*r));
  g_strlcpy (r->name, "copy-d2d-1GiB", sizeof (r->name));
  g_strlcpy (r->kind, "copy", sizeof (r->kind));
  g_strlcpy (r->detail, "cudaMemcpyAsync device to device, 1 GiB",
      sizeof (r->detail));
  /* Read once and written once. */
  r->floor_bytes = r->set_bytes = 2.0 * COPY_BYTES;
  time_runs (run_copy, &b, 1, COPY_RUNS, r);
  copy_gbps = r->gbps;
  r->floor_us = r->median_us;
  r->ratio = 1;
  CHECK (rc_device_free (b.src));
  CHECK (rc_device_free (b.dst));
}

static void
run_empty (void *ctx, int set)
{
  (void) ctx;
  (void) set;
  CHECK (bench_empty_launch (stream));
}

/* What a launch alone costs: an empty kernel, once between the events and
 * back to back. */
static void
bench_launch (void)
{
  Result *r = &launch_result;

  memset (r, 0, sizeof (*r));
  g_strlcpy (r->name, "launch-empty-kernel", sizeof (r->name));
  g_strlcpy (r->kind, "launch", sizeof (r->kind));
  g_strlcpy (r->detail, "a kernel of one warp that does nothing",
      sizeof (r->detail));
  time_runs (run_empty, NULL, 1, n_runs, r);
  time_back_to_back (run_empty, NULL, 1, r);
}

/* ------------------------------------------------------------------ */
/* Resampling                                                          */
/* ------------------------------------------------------------------ */

typedef struct
{
  rc_resample_params p;
  int n_sets;
  size_t n_st, n_tt, sv_bytes, out_bytes;
  int64_t **h_st, **h_tt;
  uint8_t **h_sv;
  void **d_st, **d_tt, **d_sv, **d_out;
  void **d_pairs;               /* the gather bound's located targets */
  uint8_t *h_out;               /* --sweep: the CPU reference's output */
} ResampleBench;

static void
run_resample (void *ctx, int set)
{
  ResampleBench *b = ctx;

  CHECK (rc_resample_cuda (&b->p, b->d_st[set], b->d_sv[set], b->d_tt[set],
          b->d_out[set], stream));
}

static void
run_resample_cpu (void *ctx, int set)
{
  ResampleBench *b = ctx;

  CHECK (rc_resample_cpu (&b->p, b->h_st[set], b->h_sv[set], b->h_tt[set],
          b->h_out));
}

/* 1 kHz-ish sources with +-40% jitter (strictly increasing) and sorted
 * targets spread over the span, 2% beyond each end; values in [-10, 10). */
static void
make_resample_set (ResampleBench * b, int set)
{
  const rc_resample_params *p = &b->p;
  const double period = 1e6;

  for (uint32_t i = 0; i < p->batch; i++) {
    int64_t *s = b->h_st[set] + (size_t) i * p->n_source;
    int64_t *t = b->h_tt[set] + (size_t) i * p->n_target;
    double span, lo;

    s[0] = (int64_t) rng_range (0, 1e9);
    for (uint32_t k = 1; k < p->n_source; k++)
      s[k] = s[k - 1] + (int64_t) (period * rng_range (0.6, 1.4));
    span = (double) (s[p->n_source - 1] - s[0]);
    lo = s[0] - 0.02 * span;
    for (uint32_t k = 0; k < p->n_target; k++)
      t[k] = (int64_t) (lo + (k + rng_unit ()) * 1.04 * span / p->n_target);
  }
  for (size_t i = 0; i < b->n_st * p->channels; i++)
    set_value (b->h_sv[set], p->type, i, rng_range (-10, 10));
}

/* The rows alone: every target located beforehand (bench_bounds.cu). */
static void
run_gather_bound (void *ctx, int set)
{
  ResampleBench *b = ctx;

  CHECK (bench_gather_rows_f32 (b->d_pairs[set], (uint64_t) b->p.batch *
          b->p.n_target, b->d_sv[set], b->p.channels, b->d_out[set], stream));
}

/* Locates every target of set @set on the host with the kernels' own
 * search (resample-math.h); returns how many source rows some target
 * reads, and fills @pairs where given. */
static uint64_t
locate_targets (const ResampleBench * b, int set, bench_row_pair * pairs)
{
  const rc_resample_params *p = &b->p;
  uint8_t *read = g_malloc (p->n_source);
  uint64_t n_read = 0;

  for (uint32_t i = 0; i < p->batch; i++) {
    const int64_t *ts = b->h_st[set] + (size_t) i * p->n_source;
    const uint64_t first_row = (uint64_t) i * p->n_source;

    memset (read, 0, p->n_source);
    for (uint32_t k = 0; k < p->n_target; k++) {
      const size_t target = (size_t) i * p->n_target + k;
      const int64_t t = b->h_tt[set][target];
      rc_rs_loc loc;

      rc_rs_locate (ts, p->n_source, t, rc_rs_search (ts, p->n_source, t),
          p->method, p->edge, &loc);
      if (loc.kind == RC_RS_PICK) {
        read[loc.idx[1]] = 1;
      } else if (loc.kind == RC_RS_INTERP) {
        read[loc.idx[1]] = read[loc.idx[2]] = 1;
        if (p->method == RC_INTERP_CUBIC)
          read[loc.idx[0]] = read[loc.idx[3]] = 1;
      }
      if (pairs) {
        pairs[target].kind = loc.kind;
        pairs[target].row1 = (uint32_t) (first_row + loc.idx[1]);
        pairs[target].row2 = (uint32_t) (first_row + loc.idx[2]);
        pairs[target].w = (float) loc.w;
      }
    }
    for (uint32_t k = 0; k < p->n_source; k++)
      n_read += read[k];
  }
  g_free (read);
  return n_read;
}

/* Runs @run on set @set once (poisoned output) and compares with the CPU
 * reference. */
static void
check_resample_run (ResampleBench * b, RunFunc run, int set,
    const char *name)
{
  const rc_resample_params *p = &b->p;
  const size_t esize = rc_scalar_type_size (p->type);
  uint8_t *ref = g_malloc (b->out_bytes), *got = g_malloc (b->out_bytes);
  size_t bad = 0;

  CHECK (rc_device_memset_async (b->d_out[set], 0xff, b->out_bytes, stream));
  run (b, set);
  CHECK (rc_device_copy_async (got, b->d_out[set], b->out_bytes,
          RC_COPY_DEVICE_TO_HOST, stream));
  CHECK (rc_stream_synchronize (stream));
  CHECK (rc_resample_cpu (p, b->h_st[set], b->h_sv[set], b->h_tt[set], ref));

  for (size_t i = 0; i < b->n_tt * p->channels; i++) {
    double want = get_value (ref, p->type, i);
    double have = get_value (got, p->type, i);
    gboolean poisoned = TRUE;

    /* All bits set is the poison (a NaN no kernel writes). */
    for (size_t k = 0; k < esize; k++)
      poisoned &= got[i * esize + k] == 0xff;
    if (poisoned || !close_enough (p->type, have, want)) {
      if (bad++ < 5)
        fprintf (stderr, "%s: element %zu: GPU %.9g%s, CPU %.9g\n", name, i,
            have, poisoned ? " (unwritten)" : "", want);
    }
  }
  if (bad)
    die ("%s: %zu of %zu elements differ from the CPU reference", name, bad,
        b->n_tt * p->channels);
  g_free (ref);
  g_free (got);
}

static void
check_resample (ResampleBench * b, int set, const char *name)
{
  check_resample_run (b, run_resample, set, name);
}

static void
bench_resample (uint32_t batch, uint32_t n_source, uint32_t n_target,
    uint32_t channels, rc_scalar_type type, rc_interp_method method)
{
  static const char *methods[] = { "linear", "nearest", "previous", "cubic" };
  ResampleBench b;
  Result r;
  const char *tname = type == RC_TYPE_BFLOAT16 ? "bf16" :
      type == RC_TYPE_FLOAT64 ? "f64" : "f32";
  const size_t esize = rc_scalar_type_size (type);

  memset (&b, 0, sizeof (b));
  memset (&r, 0, sizeof (r));
  b.p.batch = batch;
  b.p.n_source = n_source;
  b.p.n_target = n_target;
  b.p.channels = channels;
  b.p.type = type;
  b.p.method = method;
  b.p.edge = RC_EDGE_HOLD;
  CHECK (rc_resample_check (&b.p));

  g_snprintf (r.name, sizeof (r.name), "resample-%s-%s-B%u-S%u-T%u-D%u",
      tname, methods[method], batch, n_source, n_target, channels);
  if (left_out (r.name))
    return;
  g_strlcpy (r.kind, "resample", sizeof (r.kind));
  g_snprintf (r.detail, sizeof (r.detail), "B=%u S=%u T=%u D=%u %s %s, "
      "edge hold", batch, n_source, n_target, channels,
      rc_scalar_type_to_string (type), methods[method]);

  b.n_st = (size_t) batch * n_source;
  b.n_tt = (size_t) batch * n_target;
  b.sv_bytes = b.n_st * channels * esize;
  b.out_bytes = b.n_tt * channels * esize;
  r.floor_bytes = r.set_bytes = b.n_st * 8.0 + b.sv_bytes + b.n_tt * 8.0 +
      b.out_bytes;
  b.n_sets = sets_for (r.set_bytes);

  b.h_st = g_new0 (int64_t *, b.n_sets);
  b.h_tt = g_new0 (int64_t *, b.n_sets);
  b.h_sv = g_new0 (uint8_t *, b.n_sets);
  b.d_st = g_new0 (void *, b.n_sets);
  b.d_tt = g_new0 (void *, b.n_sets);
  b.d_sv = g_new0 (void *, b.n_sets);
  b.d_out = g_new0 (void *, b.n_sets);
  for (int s = 0; s < b.n_sets; s++) {
    b.h_st[s] = g_new (int64_t, b.n_st);
    b.h_tt[s] = g_new (int64_t, b.n_tt);
    b.h_sv[s] = g_malloc (b.sv_bytes);
    make_resample_set (&b, s);
    CHECK (rc_device_alloc (&b.d_st[s], b.n_st * 8));
    CHECK (rc_device_alloc (&b.d_tt[s], b.n_tt * 8));
    CHECK (rc_device_alloc (&b.d_sv[s], b.sv_bytes));
    CHECK (rc_device_alloc (&b.d_out[s], b.out_bytes));
    CHECK (rc_device_copy_async (b.d_st[s], b.h_st[s], b.n_st * 8,
            RC_COPY_HOST_TO_DEVICE, stream));
    CHECK (rc_device_copy_async (b.d_tt[s], b.h_tt[s], b.n_tt * 8,
            RC_COPY_HOST_TO_DEVICE, stream));
    CHECK (rc_device_copy_async (b.d_sv[s], b.h_sv[s], b.sv_bytes,
            RC_COPY_HOST_TO_DEVICE, stream));
    /* The host buffers are reused by the next set's copies. */
    CHECK (rc_stream_synchronize (stream));
  }

  /* Rows no target reads need not move: the floor counting only the rows
   * read (the first set's; the sets differ by a fraction of a percent). */
  r.touched_bytes = r.floor_bytes - b.sv_bytes +
      (double) locate_targets (&b, 0, NULL) * channels * esize;

  check_resample (&b, 0, r.name);
  bench (run_resample, &b, b.n_sets, &r);
  check_resample (&b, (n_runs - 1) % b.n_sets, r.name);
  if (sweeping) {
    b.h_out = g_malloc (b.out_bytes);
    time_cpu (run_resample_cpu, &b, b.n_sets, &r);
    g_free (b.h_out);
  }

  if (!sweeping && type == RC_TYPE_FLOAT32 && method == RC_INTERP_LINEAR
      && channels % 4 == 0) {
    Result g;
    size_t pairs_bytes = b.n_tt * sizeof (bench_row_pair);
    bench_row_pair *pairs = g_malloc (pairs_bytes);

    b.d_pairs = g_new0 (void *, b.n_sets);
    for (int s = 0; s < b.n_sets; s++) {
      locate_targets (&b, s, pairs);
      CHECK (rc_device_alloc (&b.d_pairs[s], pairs_bytes));
      CHECK (rc_device_copy_async (b.d_pairs[s], pairs, pairs_bytes,
              RC_COPY_HOST_TO_DEVICE, stream));
      CHECK (rc_stream_synchronize (stream));
    }
    g_free (pairs);

    memset (&g, 0, sizeof (g));
    g_snprintf (g.name, sizeof (g.name), "%s-gather-bound", r.name);
    g_strlcpy (g.kind, "bound", sizeof (g.kind));
    g_snprintf (g.detail, sizeof (g.detail), "bound for %s: every target "
        "located on the host beforehand, one thread per 16 bytes loads the "
        "two rows, interpolates and stores", r.name);
    /* Against the workload's own floor: 16-byte pairs replace the times. */
    g.floor_bytes = r.touched_bytes;
    g.set_bytes = r.set_bytes;
    check_resample_run (&b, run_gather_bound, 0, g.name);
    bench (run_gather_bound, &b, b.n_sets, &g);
    check_resample_run (&b, run_gather_bound, (n_runs - 1) % b.n_sets,
        g.name);
    for (int s = 0; s < b.n_sets; s++)
      CHECK (rc_device_free (b.d_pairs[s]));
    g_free (b.d_pairs);
  }

  for (int s = 0; s < b.n_sets; s++) {
    g_free (b.h_st[s]);
    g_free (b.h_tt[s]);
    g_free (b.h_sv[s]);
    CHECK (rc_device_free (b.d_st[s]));
    CHECK (rc_device_free (b.d_tt[s]));
    CHECK (rc_device_free (b.d_sv[s]));
    CHECK (rc_device_free (b.d_out[s]));
  }
  g_free (b.h_st);
  g_free (b.h_tt);
  g_free (b.h_sv);
  g_free (b.d_st);
  g_free (b.d_tt);
  g_free (b.d_sv);
  g_free (b.d_out);
}

/* ------------------------------------------------------------------ */
/* Voxelization                                                        */
/* ------------------------------------------------------------------ */

/* x, y, z, intensity: float32, 16 bytes a point. */
static const rc_point_layout layout16 = {
  .point_step = 16,
  .x = {0, RC_TYPE_FLOAT32},.y = {4, RC_TYPE_FLOAT32},
  .z = {8, RC_TYPE_FLOAT32},
  .n_features = 1,.features = {{12, RC_TYPE_FLOAT32}},
};

/* Means of x, y and z: four-float records (voxelize.cu). */
static const rc_point_layout layout16_xyz = {
  .point_step = 16,
  .x = {0, RC_TYPE_FLOAT32},.y = {4, RC_TYPE_FLOAT32},
  .z = {8, RC_TYPE_FLOAT32},
  .n_features = 3,.features = {{0, RC_TYPE_FLOAT32}, {4, RC_TYPE_FLOAT32},
      {8, RC_TYPE_FLOAT32}},
};

/* The centroids of x, y, z and intensity: PCL's VoxelGrid on XYZI. */
static const rc_point_layout layout16_xyzi = {
  .point_step = 16,
  .x = {0, RC_TYPE_FLOAT32},.y = {4, RC_TYPE_FLOAT32},
  .z = {8, RC_TYPE_FLOAT32},
  .n_features = 4,.features = {{0, RC_TYPE_FLOAT32}, {4, RC_TYPE_FLOAT32},
      {8, RC_TYPE_FLOAT32}, {12, RC_TYPE_FLOAT32}},
};

typedef enum
{
  CLOUD_UNIFORM,                /* uniform over the grid, 5% beyond each
                                 * face */
  CLOUD_LIDAR,                  /* a 64-ring spinning lidar 1.73 m above
                                 * flat ground, like a KITTI sweep: random
                                 * rings, azimuths and ranges, in no order */
  CLOUD_LIDAR_ROWS,             /* that lidar's sweep of the ground and a
                                 * wall in scan order, ring by ring (an
                                 * organized cloud's rows, as Ouster's
                                 * driver publishes them) */
  CLOUD_LIDAR_COLUMNS           /* the same sweep column by column, every
                                 * ring of an azimuth together (Velodyne,
                                 * KITTI) */
} CloudShape;

/* How the benchmarks' details name each shape. */
static const char *const cloud_names[] = { "uniform", "lidar sweep, shuffled",
  "lidar sweep, ring by ring", "lidar sweep, column by column"
};

typedef struct
{
  const rc_point_layout *layout;
  rc_voxel_grid grid;
  uint64_t n_points;
  int n_sets;
  size_t cloud_bytes;
  uint64_t out_size;
  uint8_t **h_cloud;
  void **d_cloud, **d_out;
  void *d_scratch;
  rc_voxelize_stats *h_stats;   /* page-locked */
  uint8_t *h_out, *h_scratch;   /* --sweep: the CPU reference's */
} VoxelBench;

static void
run_voxelize_cpu (void *ctx, int set)
{
  VoxelBench *b = ctx;

  CHECK (rc_voxelize_cpu (b->layout, &b->grid, b->h_cloud[set], &b->n_points,
          1, b->h_out, b->h_scratch, NULL));
}

static void
run_voxelize (void *ctx, int set)
{
  VoxelBench *b = ctx;

  CHECK (rc_voxelize_cuda (b->layout, &b->grid, b->d_cloud[set],
          &b->n_points, 1, b->d_out[set], b->d_scratch, NULL, stream));
}

/* The point of CLOUD_LIDAR's sensor, 1.73 m above flat ground, on ring
 * @ring (64, from -24.8 to 2 degrees of elevation) at azimuth @az and range
 * @r: downward rings stop at the ground, their range noisy by @noise. */
static void
lidar_point (uint64_t ring, double az, double r, double noise, float v[3])
{
  const double height = 1.73;
  double el = (-24.8 + 26.8 * ring / 63.0) * G_PI / 180;

  if (el < 0)
    r = MIN (r, height / tan (-el) * rng_range (1 - noise, 1 + noise));
  v[0] = (float) (r * cos (el) * cos (az));
  v[1] = (float) (r * cos (el) * sin (az));
  v[2] = (float) (r * sin (el));
}

/* Point @i of @n of a scan in order (@rows: ring by ring, else column by
 * column), 64 rings of n / 64 columns: the ground for downward rings (1 %
 * noise), a smooth wall 15 to 35 m away for the others, so that
 * neighbouring points of a ring lie close together as in a real sweep. */
static void
scan_point (uint64_t n, uint64_t i, gboolean rows, float v[3])
{
  uint64_t columns = (n + 63) / 64;
  uint64_t ring = rows ? i / columns : i % 64;
  uint64_t column = rows ? i % columns : i / 64;
  double az = 2 * G_PI * (column + rng_range (0, 0.1)) / columns;

  lidar_point (ring, az, 25 + 10 * sin (3 * az + ring), 0.01, v);
}

static void
make_points (const rc_voxel_grid * g, uint64_t n_points, uint8_t * dst,
    CloudShape shape)
{
  for (uint64_t i = 0; i < n_points; i++) {
    float v[4];

    if (shape == CLOUD_UNIFORM) {
      for (int a = 0; a < 3; a++) {
        double span = g->dims[a] * g->voxel_size[a];
        v[a] = (float) (g->origin[a] + span * rng_range (-0.05, 1.05));
      }
    } else if (shape != CLOUD_LIDAR) {
      scan_point (n_points, i, shape == CLOUD_LIDAR_ROWS, v);
    } else {
      /* A random ring and azimuth, the range denser near the sensor. */
      double az = rng_range (0, 2 * G_PI);
      uint64_t ring = rng_u64 () % 64;
      double u = rng_unit ();

      lidar_point (ring, az, 2 + 78 * u * u, 0.02, v);
    }
    v[3] = (float) rng_range (0, 1);
    memcpy (dst + i * layout16.point_step, v, sizeof (v));
  }
}

static void
make_cloud (VoxelBench * b, int set, CloudShape shape)
{
  make_points (&b->grid, b->n_points, b->h_cloud[set], shape);
}

/* Occupancy without the statistics (bench_bounds.cu). */
static void
run_occupancy_bound (void *ctx, int set)
{
  VoxelBench *b = ctx;

  CHECK (bench_occupancy_without_stats (b->d_cloud[set], b->n_points,
          &b->grid, b->d_out[set], b->out_size, stream));
}

/* The run's output against the CPU reference: grids byte for byte,
 * centroids (added in another order on the GPU) to float rounding.
 * Returns the voxels occupied. */
static uint64_t
check_voxelize_run (VoxelBench * b, int set, const char *name,
    gboolean with_stats)
{
  uint8_t *ref = g_malloc (b->out_size), *got = g_malloc (b->out_size);
  void *scratch = g_malloc (rc_voxelize_scratch_size (b->layout,
          &b->grid, b->n_points) + 1);
  rc_voxelize_stats want;
  uint64_t bad = 0, compared = b->out_size;

  CHECK (rc_device_memset_async (b->d_out[set], 0xff, b->out_size, stream));
  if (with_stats)
    CHECK (rc_voxelize_cuda (b->layout, &b->grid, b->d_cloud[set],
            &b->n_points, 1, b->d_out[set], b->d_scratch, b->h_stats,
            stream));
  else
    run_occupancy_bound (b, set);
  CHECK (rc_device_copy_async (got, b->d_out[set], b->out_size,
          RC_COPY_DEVICE_TO_HOST, stream));
  CHECK (rc_stream_synchronize (stream));
  CHECK (rc_voxelize_cpu (b->layout, &b->grid, b->h_cloud[set],
          &b->n_points, 1, ref, scratch, &want));

  /* Means are float sums added in the atomics' order on the GPU: equal
   * within voxel_means_agree, not to the bit (docs/elements.md). */
  if (b->grid.mode == RC_VOXEL_CENTROIDS || b->grid.mode == RC_VOXEL_MEAN) {
    if (b->grid.mode == RC_VOXEL_CENTROIDS)
      compared = want.occupied * b->layout->n_features * sizeof (float);
    for (uint64_t i = 0; i < compared / 4; i++) {
      float x, y;
      memcpy (&x, ref + 4 * i, 4);
      memcpy (&y, got + 4 * i, 4);
      bad += !voxel_means_agree (x, y);
    }
  } else {
    for (uint64_t i = 0; i < b->out_size; i++)
      bad += ref[i] != got[i];
  }
  if (bad || (with_stats && memcmp (&want, b->h_stats, sizeof (want)) != 0))
    die ("%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " output values "
        "differ from the CPU reference; stats in/out/invalid/occupied "
        "GPU %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
        "/%" G_GUINT64_FORMAT ", CPU %" G_GUINT64_FORMAT "/%"
        G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT, name,
        bad, compared, b->h_stats->in_grid, b->h_stats->out_of_range,
        b->h_stats->invalid, b->h_stats->occupied, want.in_grid,
        want.out_of_range, want.invalid, want.occupied);
  if (want.in_grid < b->n_points / 10)
    die ("%s: only %" G_GUINT64_FORMAT " points in the grid", name,
        want.in_grid);
  g_free (ref);
  g_free (got);
  g_free (scratch);
  return want.occupied;
}

static uint64_t
check_voxelize (VoxelBench * b, int set, const char *name)
{
  return check_voxelize_run (b, set, name, TRUE);
}

/* The grid's clear alone, to split a voxelization into clearing and
 * binning. */
static void
run_clear (void *ctx, int set)
{
  VoxelBench *b = ctx;

  CHECK (rc_device_memset_async (b->d_out[set], 0, b->out_size, stream));
}

static void
bench_voxelize (const char *name, const rc_voxel_grid * grid,
    const rc_point_layout * layout, uint64_t n_points, CloudShape shape)
{
  static const char *const modes[] = { "occupancy", "count", "mean",
    "centroids"
  };
  gboolean centroids = grid->mode == RC_VOXEL_CENTROIDS;
  VoxelBench b;
  Result r;
  uint64_t occupied;

  if (left_out (name))
    return;
  memset (&b, 0, sizeof (b));
  memset (&r, 0, sizeof (r));
  b.layout = layout;
  b.grid = *grid;
  b.n_points = n_points;
  CHECK (rc_voxelize_check (b.layout, &b.grid));
  b.cloud_bytes = n_points * b.layout->point_step;
  b.out_size = centroids ? rc_voxelize_centroids_size (b.layout, &b.grid,
      n_points) : rc_voxelize_output_size (b.layout, &b.grid);

  g_strlcpy (r.name, name, sizeof (r.name));
  g_strlcpy (r.kind, "voxelize", sizeof (r.kind));
  g_snprintf (r.detail, sizeof (r.detail), "%" G_GUINT64_FORMAT " points "
      "stride %u, %u features (%s) into %ux%ux%u %s", n_points,
      b.layout->point_step, b.layout->n_features, cloud_names[shape],
      grid->dims[0],
      grid->dims[1], grid->dims[2], modes[grid->mode]);
  r.floor_bytes = r.set_bytes = (double) b.cloud_bytes + b.out_size;
  b.n_sets = sets_for (r.set_bytes);

  b.h_cloud = g_new0 (uint8_t *, b.n_sets);
  b.d_cloud = g_new0 (void *, b.n_sets);
  b.d_out = g_new0 (void *, b.n_sets);
  for (int s = 0; s < b.n_sets; s++) {
    b.h_cloud[s] = g_malloc (b.cloud_bytes);
    make_cloud (&b, s, shape);
    CHECK (rc_device_alloc (&b.d_cloud[s], b.cloud_bytes));
    CHECK (rc_device_alloc (&b.d_out[s], b.out_size));
    CHECK (rc_device_copy_async (b.d_cloud[s], b.h_cloud[s], b.cloud_bytes,
            RC_COPY_HOST_TO_DEVICE, stream));
  }
  CHECK (rc_device_alloc (&b.d_scratch,
          rc_voxelize_cuda_scratch_size (b.layout, &b.grid, 1, n_points)));
  CHECK (rc_voxelize_cuda_scratch_reset (b.d_scratch, stream));
  CHECK (rc_host_alloc ((void **) &b.h_stats, sizeof (rc_voxelize_stats)));
  CHECK (rc_stream_synchronize (stream));

  occupied = check_voxelize (&b, 0, r.name);
  /* The centroids must write only the points there are. */
  if (centroids)
    r.floor_bytes = (double) b.cloud_bytes + occupied * b.layout->n_features *
        sizeof (float);
  bench (run_voxelize, &b, b.n_sets, &r);
  check_voxelize (&b, (n_runs - 1) % b.n_sets, r.name);
  if (sweeping) {
    b.h_out = g_malloc (b.out_size);
    b.h_scratch = g_malloc (rc_voxelize_scratch_size (b.layout, &b.grid,
            n_points) + 1);
    time_cpu (run_voxelize_cpu, &b, b.n_sets, &r);
    g_free (b.h_out);
    g_free (b.h_scratch);
  }
  /* (The centroids clear their scratch, not their output.) */
  if (!sweeping && b.out_size >= (1 << 20) && !centroids) {
    Result c;
    memset (&c, 0, sizeof (c));
    g_snprintf (c.name, sizeof (c.name), "%s-clear", name);
    g_strlcpy (c.kind, "clear", sizeof (c.kind));
    g_snprintf (c.detail, sizeof (c.detail), "cudaMemsetAsync of the "
        "%" G_GUINT64_FORMAT "-byte grid alone: the clearing share of %s",
        b.out_size, name);
    c.floor_bytes = c.set_bytes = (double) b.out_size;
    bench (run_clear, &b, b.n_sets, &c);
  }
  if (!sweeping && b.out_size >= (1 << 20)
      && grid->mode == RC_VOXEL_OCCUPANCY) {
    Result c;
    memset (&c, 0, sizeof (c));
    g_snprintf (c.name, sizeof (c.name), "%s-without-stats-bound", name);
    g_strlcpy (c.kind, "bound", sizeof (c.kind));
    g_snprintf (c.detail, sizeof (c.detail), "bound for %s: the same grid "
        "with no statistics (plain byte stores, no atomics), binning "
        "started early as in robocache", name);
    c.floor_bytes = c.set_bytes = r.floor_bytes;
    check_voxelize_run (&b, 0, c.name, FALSE);
    bench (run_occupancy_bound, &b, b.n_sets, &c);
    check_voxelize_run (&b, (n_runs - 1) % b.n_sets, c.name, FALSE);
  }

  for (int s = 0; s < b.n_sets; s++) {
    g_free (b.h_cloud[s]);
    CHECK (rc_device_free (b.d_cloud[s]));
    CHECK (rc_device_free (b.d_out[s]));
  }
  CHECK (rc_device_free (b.d_scratch));
  CHECK (rc_host_free (b.h_stats));
  g_free (b.h_cloud);
  g_free (b.d_cloud);
  g_free (b.d_out);
}

/* PointPillars' KITTI car grid. */
static const rc_voxel_grid bev_kitti = { {0, -39.68, -3}, {0.16, 0.16, 4},
{432, 496, 1}, RC_VOXEL_COUNT
};

/* Sparse pillars (hard voxelization), as robocachepillars makes them:
 * PointPillars' KITTI grid, K = 32 points of 10 channels in each of at
 * most M = 40,000 pillars. */
#define PILLAR_POINTS 32
#define PILLAR_SLOTS 40000

typedef struct
{
  rc_sparse_params params;
  uint64_t n_points;
  int n_sets;
  size_t cloud_bytes;
  size_t out_bytes[4];          /* features, coords, num_points, n_voxels */
  uint8_t **h_cloud;
  void **d_cloud;
  rc_sparse_output *d_out;      /* a set each */
  rc_sparse_output h_out;       /* the CPU reference's */
  void *d_scratch, *h_scratch;
  uint64_t scratch_size;
  rc_sparse_stats *h_stats;     /* page-locked */
} PillarBench;

static void
run_pillars (void *ctx, int set)
{
  PillarBench *b = ctx;

  CHECK (rc_sparse_voxelize_cuda (&layout16, &b->params, b->d_cloud[set],
          b->n_points, &b->d_out[set], b->d_scratch, b->scratch_size, NULL,
          stream));
}

static void
run_pillars_cpu (void *ctx, int set)
{
  PillarBench *b = ctx;

  CHECK (rc_sparse_voxelize_cpu (&layout16, &b->params, b->h_cloud[set],
          b->n_points, &b->h_out, b->h_scratch, NULL));
}

/* The four outputs' buffers, on the host or the device. */
static void
pillar_outputs (PillarBench * b, rc_sparse_output * o, gboolean device)
{
  void **arrays[] = { (void **) &o->features, (void **) &o->coords,
    (void **) &o->num_points, (void **) &o->n_voxels
  };

  for (int i = 0; i < 4; i++) {
    if (device)
      CHECK (rc_device_alloc (arrays[i], b->out_bytes[i]));
    else
      *arrays[i] = g_malloc (b->out_bytes[i]);
  }
}

static void
free_pillar_outputs (rc_sparse_output * o, gboolean device)
{
  void *arrays[] = { o->features, o->coords, o->num_points, o->n_voxels };

  for (int i = 0; i < 4; i++) {
    if (device)
      CHECK (rc_device_free (arrays[i]));
    else
      g_free (arrays[i]);
  }
}

/* Set @set's outputs and statistics against the CPU reference's, byte
 * for byte (integer atomics only: the same bytes, docs/elements.md).
 * Returns the pillars used. */
static int32_t
check_pillars (PillarBench * b, int set, const char *name)
{
  const rc_sparse_output *d = &b->d_out[set];
  void *got[] = { d->features, d->coords, d->num_points, d->n_voxels };
  void *want[] = { b->h_out.features, b->h_out.coords, b->h_out.num_points,
    b->h_out.n_voxels
  };
  static const char *const what[] = { "features", "coords", "num_points",
    "n_voxels"
  };
  rc_sparse_stats cpu;

  CHECK (rc_device_memset_async (d->features, 0xff, b->out_bytes[0],
          stream));
  CHECK (rc_sparse_voxelize_cuda (&layout16, &b->params, b->d_cloud[set],
          b->n_points, d, b->d_scratch, b->scratch_size, b->h_stats,
          stream));
  CHECK (rc_stream_synchronize (stream));
  CHECK (rc_sparse_voxelize_cpu (&layout16, &b->params, b->h_cloud[set],
          b->n_points, &b->h_out, b->h_scratch, &cpu));
  for (int i = 0; i < 4; i++) {
    uint8_t *copy = g_malloc (b->out_bytes[i]);
    gboolean same;

    CHECK (rc_device_copy_async (copy, got[i], b->out_bytes[i],
            RC_COPY_DEVICE_TO_HOST, stream));
    CHECK (rc_stream_synchronize (stream));
    same = memcmp (copy, want[i], b->out_bytes[i]) == 0;
    g_free (copy);
    if (!same)
      die ("%s: the GPU's %s differ from the CPU reference's", name,
          what[i]);
  }
  if (memcmp (&cpu, b->h_stats, sizeof (cpu)) != 0)
    die ("%s: statistics differ from the CPU reference's", name);
  if (cpu.in_grid < b->n_points / 10)
    die ("%s: only %" G_GUINT64_FORMAT " points in the grid", name,
        cpu.in_grid);
  return *b->h_out.n_voxels;
}

static void
bench_pillars (const char *name, uint64_t n_points, CloudShape shape)
{
  PillarBench b;
  Result r;
  int32_t used;

  if (left_out (name))
    return;
  memset (&b, 0, sizeof (b));
  memset (&r, 0, sizeof (r));
  b.params.grid = bev_kitti;
  b.params.mode = RC_SPARSE_PILLARS_10;
  b.params.max_points = PILLAR_POINTS;
  b.params.max_voxels = PILLAR_SLOTS;
  CHECK (rc_sparse_check (&layout16, &b.params));
  b.n_points = n_points;
  b.cloud_bytes = n_points * layout16.point_step;
  b.out_bytes[0] = rc_sparse_features_size (&layout16, &b.params);
  b.out_bytes[1] = PILLAR_SLOTS * 3 * sizeof (int32_t);
  b.out_bytes[2] = PILLAR_SLOTS * sizeof (int32_t);
  b.out_bytes[3] = sizeof (int32_t);

  g_strlcpy (r.name, name, sizeof (r.name));
  g_strlcpy (r.kind, "voxelize", sizeof (r.kind));
  g_snprintf (r.detail, sizeof (r.detail), "%" G_GUINT64_FORMAT " points "
      "stride 16 (%s) into %ux%u pillars, K=%d M=%d, 10 channels "
      "(PillarVFE)", n_points, cloud_names[shape], bev_kitti.dims[0],
      bev_kitti.dims[1], PILLAR_POINTS, PILLAR_SLOTS);
  /* Every output element is written, padding included. */
  r.floor_bytes = r.set_bytes = (double) b.cloud_bytes + b.out_bytes[0] +
      b.out_bytes[1] + b.out_bytes[2] + b.out_bytes[3];
  b.n_sets = sets_for (r.set_bytes);

  b.h_cloud = g_new0 (uint8_t *, b.n_sets);
  b.d_cloud = g_new0 (void *, b.n_sets);
  b.d_out = g_new0 (rc_sparse_output, b.n_sets);
  for (int s = 0; s < b.n_sets; s++) {
    b.h_cloud[s] = g_malloc (b.cloud_bytes);
    make_points (&bev_kitti, n_points, b.h_cloud[s], shape);
    CHECK (rc_device_alloc (&b.d_cloud[s], b.cloud_bytes));
    CHECK (rc_device_copy_async (b.d_cloud[s], b.h_cloud[s], b.cloud_bytes,
            RC_COPY_HOST_TO_DEVICE, stream));
    pillar_outputs (&b, &b.d_out[s], TRUE);
  }
  pillar_outputs (&b, &b.h_out, FALSE);
  CHECK (rc_sparse_cuda_scratch_size (&layout16, &b.params, n_points,
          &b.scratch_size));
  CHECK (rc_device_alloc (&b.d_scratch, b.scratch_size));
  b.h_scratch = g_malloc (rc_sparse_scratch_size (&b.params));
  CHECK (rc_host_alloc ((void **) &b.h_stats, sizeof (rc_sparse_stats)));

  used = check_pillars (&b, 0, r.name);
  bench (run_pillars, &b, b.n_sets, &r);
  check_pillars (&b, (n_runs - 1) % b.n_sets, r.name);
  time_cpu (run_pillars_cpu, &b, b.n_sets, &r);
  printf ("  ... %d of %d pillars used\n", used, PILLAR_SLOTS);

  for (int s = 0; s < b.n_sets; s++) {
    g_free (b.h_cloud[s]);
    CHECK (rc_device_free (b.d_cloud[s]));
    free_pillar_outputs (&b.d_out[s], TRUE);
  }
  free_pillar_outputs (&b.h_out, FALSE);
  CHECK (rc_device_free (b.d_scratch));
  g_free (b.h_scratch);
  CHECK (rc_host_free (b.h_stats));
  g_free (b.h_cloud);
  g_free (b.d_cloud);
  g_free (b.d_out);
}

/* ------------------------------------------------------------------ */
/* Batched fusion                                                      */
/* ------------------------------------------------------------------ */

/* meson says whether the library has the fusion kernels yet. */
#ifndef BENCH_HAVE_FUSE
#ifdef RC_FUSE_MAX_STREAMS
#define BENCH_HAVE_FUSE 1
#else
#define BENCH_HAVE_FUSE 0
#endif
#endif

#if BENCH_HAVE_FUSE

/* The quoted workload's three streams' rates (a camera feature, joints,
 * an IMU; their widths are fuse_widths); more streams take them in turn. */
#define FUSE_KINDS 3
static const double fuse_rates[FUSE_KINDS] = { 30, 100, 333 };

/* fuse_widths as text into @buf: @first, then the widths @sep apart. */
static void
fuse_widths_text (char *buf, size_t size, const char *first, const char *sep)
{
  g_strlcpy (buf, first, size);
  for (int k = 0; k < fuse_widths.n; k++)
    g_snprintf (buf + strlen (buf), size - strlen (buf), "%s%"
        G_GUINT64_FORMAT, k ? sep : "", fuse_widths.v[k]);
}

typedef struct
{
  uint32_t episodes, n_ticks, n_streams;
  int n_sets;
  size_t out_bytes;
  rc_fuse_params *hp, *dp;      /* per set: host and device pointers */
  int64_t **h_ticks;
  void **d_ticks, **d_out;
  float *h_out;                 /* --sweep: the CPU reference's output */
} FuseBench;

static void
run_fuse (void *ctx, int set)
{
  FuseBench *b = ctx;

  CHECK (rc_fuse_cuda (&b->dp[set], b->d_ticks[set], b->d_out[set],
          stream));
}

static void
run_fuse_cpu (void *ctx, int set)
{
  FuseBench *b = ctx;

  CHECK (rc_fuse_cpu (&b->hp[set], b->h_ticks[set], b->h_out));
}

static void
check_fuse (FuseBench * b, int set, const char *name)
{
  size_t n = b->out_bytes / sizeof (float), bad = 0;
  float *ref = g_malloc (b->out_bytes), *got = g_malloc (b->out_bytes);

  CHECK (rc_device_memset_async (b->d_out[set], 0xff, b->out_bytes, stream));
  run_fuse (b, set);
  CHECK (rc_device_copy_async (got, b->d_out[set], b->out_bytes,
          RC_COPY_DEVICE_TO_HOST, stream));
  CHECK (rc_stream_synchronize (stream));
  CHECK (rc_fuse_cpu (&b->hp[set], b->h_ticks[set], ref));
  for (size_t i = 0; i < n; i++) {
    uint32_t bits;

    memcpy (&bits, &got[i], sizeof (bits));
    if (bits == 0xffffffffu || !close_enough (RC_TYPE_FLOAT32, got[i],
            ref[i])) {
      if (bad++ < 5)
        fprintf (stderr, "%s: element %zu: GPU %.9g%s, CPU %.9g\n", name, i,
            got[i], bits == 0xffffffffu ? " (unwritten)" : "", ref[i]);
    }
  }
  if (bad)
    die ("%s: %zu of %zu elements differ from the CPU reference", name, bad,
        n);
  g_free (ref);
  g_free (got);
}

/* @episodes episodes of @seconds s, ticks at @n_ticks / @seconds Hz;
 * @n_streams float32 streams (rate Hz x channels, fuse_rates and
 * fuse_widths in turn) with +-10% jitter, each starting up to one period
 * before the first tick; linear, edge hold.  Named @name, or the quoted
 * workload's name without one. */
static void
bench_fuse (const char *name, uint32_t episodes, uint32_t n_ticks,
    double seconds, uint32_t n_streams)
{
  FuseBench b;
  Result r;
  rc_fuse_params proto;
  double floor_bytes;
  char widths[64];

  memset (&b, 0, sizeof (b));
  memset (&r, 0, sizeof (r));
  memset (&proto, 0, sizeof (proto));
  b.episodes = episodes;
  b.n_ticks = n_ticks;
  b.n_streams = n_streams;
  proto.episodes = episodes;
  proto.n_ticks = n_ticks;
  proto.n_streams = n_streams;
  proto.edge = RC_EDGE_HOLD;
  floor_bytes = (double) episodes * n_ticks * 8;
  fuse_widths_text (widths, sizeof (widths), "", ", ");
  for (uint32_t k = 0; k < n_streams; k++) {
    rc_fuse_stream *st = &proto.streams[k];
    st->n_samples = (uint32_t) (fuse_rates[k % FUSE_KINDS] * seconds);
    st->channels = (uint32_t) fuse_widths.v[k % fuse_widths.n];
    st->type = RC_TYPE_FLOAT32;
    st->method = RC_INTERP_LINEAR;
    floor_bytes += (double) episodes * st->n_samples * (8 + 4 * st->channels);
  }
  b.out_bytes = (size_t) episodes * n_ticks * rc_fuse_row_channels (&proto) *
      sizeof (float);
  floor_bytes += b.out_bytes;

  if (name)
    g_strlcpy (r.name, name, sizeof (r.name));
  else
    g_snprintf (r.name, sizeof (r.name), "fuse-f32-linear-E%u-T%u-%ustreams",
        episodes, n_ticks, n_streams);
  if (left_out (r.name))
    return;
  g_strlcpy (r.kind, "fuse", sizeof (r.kind));
  g_snprintf (r.detail, sizeof (r.detail), "E=%u T=%u over %g s; %u "
      "streams of 30, 100, 333 Hz in turn, %s channels in turn (a row of "
      "%u); float32 linear, edge hold", episodes, n_ticks, seconds,
      n_streams, widths, rc_fuse_row_channels (&proto));
  r.floor_bytes = r.set_bytes = floor_bytes;
  b.n_sets = sets_for (r.set_bytes);

  b.hp = g_new0 (rc_fuse_params, b.n_sets);
  b.dp = g_new0 (rc_fuse_params, b.n_sets);
  b.h_ticks = g_new0 (int64_t *, b.n_sets);
  b.d_ticks = g_new0 (void *, b.n_sets);
  b.d_out = g_new0 (void *, b.n_sets);
  for (int s = 0; s < b.n_sets; s++) {
    size_t tick_bytes = (size_t) episodes * n_ticks * 8;
    int64_t *starts = g_new (int64_t, episodes);

    b.hp[s] = b.dp[s] = proto;
    b.h_ticks[s] = g_malloc (tick_bytes);
    for (uint32_t e = 0; e < episodes; e++) {
      starts[e] = (int64_t) rng_range (0, 1e12);
      for (uint32_t t = 0; t < n_ticks; t++)
        b.h_ticks[s][(size_t) e * n_ticks + t] = starts[e] +
            (int64_t) (t * seconds * 1e9 / n_ticks);
    }
    CHECK (rc_device_alloc (&b.d_ticks[s], tick_bytes));
    CHECK (rc_device_alloc (&b.d_out[s], b.out_bytes));
    CHECK (rc_device_copy_async (b.d_ticks[s], b.h_ticks[s], tick_bytes,
            RC_COPY_HOST_TO_DEVICE, stream));

    for (uint32_t k = 0; k < n_streams; k++) {
      rc_fuse_stream *hs = &b.hp[s].streams[k], *ds = &b.dp[s].streams[k];
      size_t n = (size_t) episodes * hs->n_samples;
      int64_t *times = g_new (int64_t, n);
      float *values = g_new (float, n * hs->channels);
      double period = 1e9 / fuse_rates[k % FUSE_KINDS];
      void *d_times, *d_values;

      for (uint32_t e = 0; e < episodes; e++) {
        double first = starts[e] - period * rng_unit ();
        for (uint32_t i = 0; i < hs->n_samples; i++)
          times[(size_t) e * hs->n_samples + i] = (int64_t) (first +
              period * (i + rng_range (-0.1, 0.1)));
      }
      for (size_t i = 0; i < n * hs->channels; i++)
        values[i] = (float) rng_range (-10, 10);
      CHECK (rc_device_alloc (&d_times, n * 8));
      CHECK (rc_device_alloc (&d_values, n * hs->channels * 4));
      CHECK (rc_device_copy_async (d_times, times, n * 8,
              RC_COPY_HOST_TO_DEVICE, stream));
      CHECK (rc_device_copy_async (d_values, values, n * hs->channels * 4,
              RC_COPY_HOST_TO_DEVICE, stream));
      hs->times = times;
      hs->values = values;
      ds->times = d_times;
      ds->values = d_values;
    }
    CHECK (rc_stream_synchronize (stream));
    g_free (starts);
  }
  CHECK (rc_fuse_check (&b.dp[0]));

  check_fuse (&b, 0, r.name);
  bench (run_fuse, &b, b.n_sets, &r);
  check_fuse (&b, (n_runs - 1) % b.n_sets, r.name);
  if (sweeping) {
    b.h_out = g_malloc (b.out_bytes);
    time_cpu (run_fuse_cpu, &b, b.n_sets, &r);
    g_free (b.h_out);
  }

  for (int s = 0; s < b.n_sets; s++) {
    for (uint32_t k = 0; k < n_streams; k++) {
      g_free ((void *) b.hp[s].streams[k].times);
      g_free ((void *) b.hp[s].streams[k].values);
      CHECK (rc_device_free ((void *) b.dp[s].streams[k].times));
      CHECK (rc_device_free ((void *) b.dp[s].streams[k].values));
    }
    g_free (b.h_ticks[s]);
    CHECK (rc_device_free (b.d_ticks[s]));
    CHECK (rc_device_free (b.d_out[s]));
  }
  g_free (b.hp);
  g_free (b.dp);
  g_free (b.h_ticks);
  g_free (b.d_ticks);
  g_free (b.d_out);
}

/* The streams at 500 ticks (--streams, 1 to 16), then the ticks with
 * three streams (--ticks, 100 to 10,000): 64 episodes of 10 s each. */
static void
sweep_fuse (void)
{
  char name[96], widths[48] = "";

  /* Widths from the command line name their series apart. */
  if (fuse_widths.given)
    fuse_widths_text (widths, sizeof (widths), "-C", ".");
  for (int i = 0; i < sweep_streams.n; i++) {
    g_snprintf (name, sizeof (name), "sweep-fuse-f32-E64-T500-S%"
        G_GUINT64_FORMAT "%s", sweep_streams.v[i], widths);
    bench_fuse (name, 64, 500, 10.0, (uint32_t) sweep_streams.v[i]);
  }
  for (int i = 0; i < sweep_ticks.n; i++) {
    g_snprintf (name, sizeof (name), "sweep-fuse-f32-E64-T%" G_GUINT64_FORMAT
        "-S3%s", sweep_ticks.v[i], widths);
    bench_fuse (name, 64, (uint32_t) sweep_ticks.v[i], 10.0, 3);
  }
}

#endif /* BENCH_HAVE_FUSE */

/* ------------------------------------------------------------------ */
/* Bird's-eye view                                                     */
/* ------------------------------------------------------------------ */

typedef struct
{
  rc_bev_params p;
  int n_sets;
  size_t grid_bytes, out_bytes;
  uint8_t **h_grid, *h_overlay;
  void **d_grid, **d_out, *d_overlay, *d_scratch;
} BevBench;

static void
run_bev (void *ctx, int set)
{
  BevBench *b = ctx;

  CHECK (rc_bev_render_cuda (&b->p, b->d_grid[set], b->d_overlay,
          b->d_out[set], (size_t) b->p.width * 4, b->d_scratch, NULL, stream));
}

/* The GPU's picture of set @set against the CPU's, byte for byte. */
static void
check_bev (BevBench * b, int set, const char *name)
{
  uint8_t *ref = g_malloc (b->out_bytes), *got = g_malloc (b->out_bytes);
  void *scratch = g_malloc (rc_bev_scratch_size (&b->p));

  CHECK (rc_device_memset_async (b->d_out[set], 0x5a, b->out_bytes, stream));
  run_bev (b, set);
  CHECK (rc_device_copy_async (got, b->d_out[set], b->out_bytes,
          RC_COPY_DEVICE_TO_HOST, stream));
  CHECK (rc_stream_synchronize (stream));
  CHECK (rc_bev_render_cpu (&b->p, b->h_grid[set], b->h_overlay, ref,
          (size_t) b->p.width * 4, scratch, NULL));
  if (memcmp (ref, got, b->out_bytes) != 0)
    die ("%s: the GPU's picture differs from the CPU's", name);
  g_free (ref);
  g_free (got);
  g_free (scratch);
}

/* A @width x @height picture of a 256 x 256 x 32 count grid, about 4 % of
 * its voxels holding 1 to 20 points (a lidar sweep's), automatic range,
 * with an overlay (robocachebev's rings, marker and bar), as the element
 * draws by default. */
static void
bench_bev (uint32_t width, uint32_t height)
{
  const rc_voxel_grid grid = { {-25.6, -25.6, -3.2}, {0.2, 0.2, 0.2},
  {256, 256, 32}, RC_VOXEL_COUNT
  };
  size_t ov_bytes = (size_t) width * height * 4;
  BevBench b;
  Result r;

  memset (&b, 0, sizeof (b));
  memset (&r, 0, sizeof (r));
  b.p.grid = grid;
  b.p.value = RC_BEV_DENSITY;
  b.p.auto_range = 1;
  b.p.width = width;
  b.p.height = height;
  b.p.background[3] = 255;
  CHECK (rc_bev_check (&b.p));
  b.grid_bytes = rc_bev_input_size (&b.p);
  b.out_bytes = ov_bytes;
  g_snprintf (r.name, sizeof (r.name), "bev-count256x256x32-%ux%u",
      width, height);
  if (left_out (r.name))
    return;
  g_strlcpy (r.kind, "bev", sizeof (r.kind));
  g_snprintf (r.detail, sizeof (r.detail), "256x256x32 uint32 counts (4%% "
      "of voxels set) to %ux%u RGBA, density, automatic range, overlay",
      width, height);
  r.floor_bytes = r.set_bytes = b.grid_bytes + ov_bytes + b.out_bytes;
  b.n_sets = sets_for (r.set_bytes);

  b.h_overlay = g_malloc (ov_bytes);
  for (size_t i = 0; i < ov_bytes; i++)
    b.h_overlay[i] = i % 4 == 3 && rng_unit () < 0.9 ? 0 :
        (uint8_t) (rng_u64 () & 0xff);
  CHECK (rc_device_alloc (&b.d_overlay, ov_bytes));
  CHECK (rc_device_alloc (&b.d_scratch, rc_bev_cuda_scratch_size (&b.p)));
  CHECK (rc_device_copy_async (b.d_overlay, b.h_overlay, ov_bytes,
          RC_COPY_HOST_TO_DEVICE, stream));
  b.h_grid = g_new0 (uint8_t *, b.n_sets);
  b.d_grid = g_new0 (void *, b.n_sets);
  b.d_out = g_new0 (void *, b.n_sets);
  for (int s = 0; s < b.n_sets; s++) {
    uint32_t *counts = g_malloc (b.grid_bytes);

    for (size_t v = 0; v < b.grid_bytes / 4; v++)
      counts[v] = rng_unit () < 0.04 ? 1 + (uint32_t) (rng_u64 () % 20) : 0;
    b.h_grid[s] = (uint8_t *) counts;
    CHECK (rc_device_alloc (&b.d_grid[s], b.grid_bytes));
    CHECK (rc_device_alloc (&b.d_out[s], b.out_bytes));
    CHECK (rc_device_copy_async (b.d_grid[s], counts, b.grid_bytes,
            RC_COPY_HOST_TO_DEVICE, stream));
  }
  CHECK (rc_stream_synchronize (stream));

  check_bev (&b, 0, r.name);
  bench (run_bev, &b, b.n_sets, &r);
  check_bev (&b, (n_runs - 1) % b.n_sets, r.name);

  for (int s = 0; s < b.n_sets; s++) {
    g_free (b.h_grid[s]);
    CHECK (rc_device_free (b.d_grid[s]));
    CHECK (rc_device_free (b.d_out[s]));
  }
  CHECK (rc_device_free (b.d_overlay));
  CHECK (rc_device_free (b.d_scratch));
  g_free (b.h_overlay);
  g_free (b.h_grid);
  g_free (b.d_grid);
  g_free (b.d_out);
}

/* ------------------------------------------------------------------ */
/* Sweeps (--sweep): cost against size, GPU and CPU                     */
/* ------------------------------------------------------------------ */

/* A 51.2 m cube in 0.2 m voxels (and bev_kitti, above). */
static const rc_voxel_grid cube_256 = { {-25.6, -25.6, -25.6},
{0.2, 0.2, 0.2}, {256, 256, 256}, RC_VOXEL_COUNT
};

/* --modes' names, by sweep_modes' numbers. */
static const char *const mode_names[] = { "occupancy", "count", "mean",
  "centroids", "pillars"
};

/* For each mode (--modes), the points (--points, 16,384 to 4,194,304):
 * occupancy, count and mean (of one feature, then three, then four) into
 * the 256^3 grid (uniform points); every mode also into the KITTI region
 * in 0.2 m voxels from lidar points in no order and lidar sweeps ring by
 * ring and column by column (the mean of intensity; the centroids of x,
 * y, z and intensity, as PCL's VoxelGrid is used); the pillars of lidar
 * points in no order and of the two sweeps (bench_pillars).  Then the
 * same 51.2 m cube in 64^3 to 512^3 voxels and PointPillars' 432 x 496
 * BEV grid at 131,072 points. */
static void
sweep_voxelize (void)
{
  const rc_voxel_grid bev = bev_kitti;
  const rc_voxel_grid kitti_leaf = { {0, -39.6, -3}, {0.2, 0.2, 0.2},
  {346, 396, 20}, RC_VOXEL_CENTROIDS
  };
  char name[96];

  for (int m = 0; m < sweep_modes.n; m++) {
    rc_voxel_mode mode = (rc_voxel_mode) sweep_modes.v[m];
    rc_voxel_grid grid = mode == RC_VOXEL_CENTROIDS ? kitti_leaf : cube_256;

    if (sweep_modes.v[m] == SWEEP_PILLARS) {
      /* Lidar points in no order, then sweeps ring by ring and column by
       * column, whose neighbouring points share pillars. */
      for (int o = 0; o < 3; o++) {
        static const char *const orders[] = { "", "rows-", "columns-" };

        for (int i = 0; i < sweep_points.n; i++) {
          g_snprintf (name, sizeof (name), "sweep-voxelize-pillars-"
              "bev432x496-%sn%" G_GUINT64_FORMAT, orders[o],
              sweep_points.v[i]);
          bench_pillars (name, sweep_points.v[i], (CloudShape) (CLOUD_LIDAR +
                  o));
        }
      }
      continue;
    }
    grid.mode = mode;
    for (int i = 0; i < sweep_points.n; i++) {
      g_snprintf (name, sizeof (name), "sweep-voxelize-%s-%s-n%"
          G_GUINT64_FORMAT, mode_names[mode], mode == RC_VOXEL_CENTROIDS ?
          "kitti0.2" : "256cube", sweep_points.v[i]);
      bench_voxelize (name, &grid, mode == RC_VOXEL_CENTROIDS ?
          &layout16_xyzi : &layout16, sweep_points.v[i],
          mode == RC_VOXEL_CENTROIDS ? CLOUD_LIDAR : CLOUD_UNIFORM);
    }
    /* The centroids of x, y and z alone, robocachevoxelize's default
     * features (a record of four floats with one to spare, where the
     * count goes: voxelize.cu), of the same lidar points. */
    for (int i = 0; mode == RC_VOXEL_CENTROIDS && i < sweep_points.n; i++) {
      g_snprintf (name, sizeof (name), "sweep-voxelize-centroids-xyz-"
          "kitti0.2-n%" G_GUINT64_FORMAT, sweep_points.v[i]);
      bench_voxelize (name, &grid, &layout16_xyz, sweep_points.v[i],
          CLOUD_LIDAR);
    }
    /* Counts and occupancy of a lidar sweep in the 256^3 cube (the sensor
     * at its centre): most points near the sensor and the ground, in few
     * of the voxels, where the uniform cloud spreads them evenly. */
    for (int i = 0; mode <= RC_VOXEL_COUNT && i < sweep_points.n; i++) {
      g_snprintf (name, sizeof (name), "sweep-voxelize-%s-256cube-lidar-n%"
          G_GUINT64_FORMAT, mode_names[mode], sweep_points.v[i]);
      bench_voxelize (name, &grid, &layout16, sweep_points.v[i], CLOUD_LIDAR);
    }
    /* Lidar sweeps into the KITTI region in 0.2 m voxels: random points
     * ("shuffled", the centroids' cloud, which the centroids time above),
     * then a sweep ring by ring and column by column, where neighbouring
     * points share voxels. */
    for (int o = mode == RC_VOXEL_CENTROIDS ? 1 : 0; o < 3; o++) {
      static const char *const orders[] = { "shuffled", "rows", "columns" };

      for (int i = 0; i < sweep_points.n; i++) {
        rc_voxel_grid lidar = kitti_leaf;

        lidar.mode = mode;
        g_snprintf (name, sizeof (name), "sweep-voxelize-%s-kitti0.2-%s-n%"
            G_GUINT64_FORMAT, mode_names[mode], orders[o], sweep_points.v[i]);
        bench_voxelize (name, &lidar, mode == RC_VOXEL_CENTROIDS ?
            &layout16_xyzi : &layout16, sweep_points.v[i],
            (CloudShape) (CLOUD_LIDAR + o));
      }
    }
    /* Means of three and four features (x, y, z, intensity). */
    for (int f = 3; mode == RC_VOXEL_MEAN && f <= 4; f++) {
      for (int i = 0; i < sweep_points.n; i++) {
        g_snprintf (name, sizeof (name), "sweep-voxelize-mean-%s-256cube-n%"
            G_GUINT64_FORMAT, f == 3 ? "xyz" : "xyzi", sweep_points.v[i]);
        bench_voxelize (name, &grid, f == 3 ? &layout16_xyz : &layout16_xyzi,
            sweep_points.v[i], CLOUD_UNIFORM);
      }
    }
  }
  for (uint32_t side = 64; side <= 512; side *= 2) {
    rc_voxel_grid grid = cube_256;

    if (side == 256)
      continue;                 /* in the points sweep */
    for (int a = 0; a < 3; a++) {
      grid.voxel_size[a] = 51.2 / side;
      grid.dims[a] = side;
    }
    g_snprintf (name, sizeof (name), "sweep-voxelize-count-%ucube-n131072",
        side);
    bench_voxelize (name, &grid, &layout16, 131072, CLOUD_UNIFORM);
  }
  bench_voxelize ("sweep-voxelize-count-bev432x496-n131072", &bev, &layout16,
      131072, CLOUD_LIDAR);
}

/* Linear float32 from B=64 S=4096 T=1024 D=32 along each axis: the batch
 * (--batch, 1 to 1,024), the samples S = T (--samples, 256 to 65,536), the
 * channels (--channels, 1 to 128); then the batch again in bfloat16, and
 * cubic. */
static void
sweep_resample (void)
{
  for (int i = 0; i < sweep_batch.n; i++)
    bench_resample (sweep_batch.v[i], 4096, 1024, 32, RC_TYPE_FLOAT32,
        RC_INTERP_LINEAR);
  for (int i = 0; i < sweep_samples.n; i++)
    bench_resample (64, sweep_samples.v[i], sweep_samples.v[i], 32,
        RC_TYPE_FLOAT32, RC_INTERP_LINEAR);
  for (int i = 0; i < sweep_channels.n; i++)
    if (sweep_channels.v[i] != 32)
      bench_resample (64, 4096, 1024, sweep_channels.v[i], RC_TYPE_FLOAT32,
          RC_INTERP_LINEAR);
  for (int i = 0; i < sweep_batch.n; i++)
    bench_resample (sweep_batch.v[i], 4096, 1024, 32, RC_TYPE_BFLOAT16,
        RC_INTERP_LINEAR);
  for (int i = 0; i < sweep_batch.n; i++)
    bench_resample (sweep_batch.v[i], 4096, 1024, 32, RC_TYPE_FLOAT32,
        RC_INTERP_CUBIC);
}

/* The workloads the project quotes (docs/performance.md). */
static void
bench_quoted (void)
{
  rc_voxel_grid cube = cube_256;
  const rc_voxel_grid bev = bev_kitti;
  /* Its region in 0.2 m voxels, downsampled as PCL's VoxelGrid would. */
  const rc_voxel_grid kitti_leaf = { {0, -39.6, -3}, {0.2, 0.2, 0.2},
  {346, 396, 20}, RC_VOXEL_CENTROIDS
  };

  bench_resample (64, 4096, 1024, 32, RC_TYPE_FLOAT32, RC_INTERP_LINEAR);
  bench_resample (8, 1024, 4096, 7, RC_TYPE_FLOAT32, RC_INTERP_LINEAR);
  bench_resample (256, 512, 512, 64, RC_TYPE_FLOAT32, RC_INTERP_LINEAR);
  bench_resample (64, 4096, 1024, 32, RC_TYPE_FLOAT32, RC_INTERP_CUBIC);
  bench_resample (64, 4096, 1024, 32, RC_TYPE_BFLOAT16, RC_INTERP_LINEAR);

  bench_voxelize ("voxelize-count-256cube-n131072", &cube, &layout16, 131072,
      CLOUD_UNIFORM);
  cube.mode = RC_VOXEL_OCCUPANCY;
  bench_voxelize ("voxelize-occupancy-256cube-n131072", &cube, &layout16,
      131072, CLOUD_UNIFORM);
  bench_voxelize ("voxelize-count-bev432x496-n120000", &bev, &layout16,
      120000, CLOUD_LIDAR);
  bench_voxelize ("voxelize-centroids-kitti0.2-n131072", &kitti_leaf,
      &layout16_xyzi, 131072, CLOUD_LIDAR);

  /* The bird's-eye view's goal: 512 x 512 from 256 x 256 x 32 counts. */
  bench_bev (512, 512);

#if BENCH_HAVE_FUSE
  bench_fuse (NULL, 64, 500, 10.0, FUSE_KINDS);
#else
  printf ("(fusion: not in this build of the kernel library, skipped)\n");
#endif
}

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

static void
json_string (FILE * f, const char *s)
{
  fputc ('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fprintf (f, "\\%c", *s);
    else if ((unsigned char) *s < 0x20)
      fprintf (f, "\\u%04x", (unsigned char) *s);
    else
      fputc (*s, f);
  }
  fputc ('"', f);
}

static void
json_result (FILE * f, const Result * r)
{
  fprintf (f, "{\"name\": ");
  json_string (f, r->name);
  fprintf (f, ", \"kind\": ");
  json_string (f, r->kind);
  fprintf (f, ", \"detail\": ");
  json_string (f, r->detail);
  fprintf (f, ", \"floor_bytes\": %.0f, \"set_bytes\": %.0f, "
      "\"n_sets\": %d, \"runs\": %d, \"median_us\": %.3f, "
      "\"p10_us\": %.3f, \"p90_us\": %.3f, \"min_us\": %.3f, "
      "\"loop_us\": %.3f, \"gbps\": %.2f, \"floor_us\": %.3f, "
      "\"ratio\": %.4f", r->floor_bytes, r->set_bytes, r->n_sets, r->runs,
      r->median_us, r->p10_us, r->p90_us, r->min_us, r->loop_us, r->gbps,
      r->floor_us, r->ratio);
  if (r->b2b_median_us > 0)
    fprintf (f, ", \"b2b_calls\": %d, \"b2b_median_us\": %.3f, "
        "\"b2b_p10_us\": %.3f, \"b2b_p90_us\": %.3f", CALLS_PER_GRAPH,
        r->b2b_median_us, r->b2b_p10_us, r->b2b_p90_us);
  if (r->b2b_median_us > 0 && r->floor_us > 0)
    fprintf (f, ", \"b2b_ratio\": %.4f", r->b2b_ratio);
  if (r->cpu_runs > 0)
    fprintf (f, ", \"cpu_median_us\": %.3f, \"cpu_runs\": %d",
        r->cpu_median_us, r->cpu_runs);
  if (r->touched_bytes > 0) {
    double us = touched_floor_us (r);
    fprintf (f, ", \"touched_floor_bytes\": %.0f, \"touched_floor_us\": "
        "%.3f, \"touched_ratio\": %.4f, \"b2b_touched_ratio\": %.4f",
        r->touched_bytes, us, r->median_us / us, r->b2b_median_us / us);
  }
  fprintf (f, "}");
}

static void
write_json (const char *path, const char *device, guint64 seed)
{
  FILE *f = fopen (path, "w");

  if (!f)
    die ("cannot write %s", path);
  fprintf (f, "{\n  \"impl\": \"robocache\",\n  \"device\": ");
  json_string (f, device);
  fprintf (f, ",\n  \"runs\": %d,\n  \"seed\": %" G_GUINT64_FORMAT ",\n"
      "  \"copy_gbps\": %.2f,\n  \"copy\": ", n_runs, seed, copy_gbps);
  json_result (f, &copy_result);
  fprintf (f, ",\n  \"launch\": ");
  json_result (f, &launch_result);
  fprintf (f, ",\n  \"workloads\": [\n");
  for (int i = 0; i < n_results; i++) {
    fprintf (f, "    ");
    json_result (f, &results[i]);
    fprintf (f, "%s\n", i + 1 < n_results ? "," : "");
  }
  fprintf (f, "  ]\n}\n");
  if (fclose (f) != 0)
    die ("cannot write %s", path);
}

static void G_GNUC_NORETURN
usage (int code)
{
  fprintf (code ? stderr : stdout,
      "usage: bench-kernels [--json FILE] [--runs N] [--seed S] "
      "[--sweep voxelize|resample|fuse|all] [--only GLOB,..]\n"
      "  --only runs the workloads whose names match a GLOB (* and ?)\n"
      "  sizes of --sweep, comma-separated: --points N,.. --modes "
      "count,occupancy,mean,centroids,pillars --batch B,.. --samples S,.. "
      "--channels D,.. --streams N,.. --ticks T,.. --fuse-channels C,..\n");
  exit (code);
}

/* @text into @list: positive integers, or mode names for --modes, between
 * @lo and @hi. */
static void
parse_sizes (SizeList * list, const char *text, uint64_t lo, uint64_t hi)
{
  gchar **items = g_strsplit (text, ",", -1);

  list->n = 0;
  for (int i = 0; items[i]; i++) {
    uint64_t v = 0;
    gboolean ok = FALSE;

    if (list == &sweep_modes) {
      for (int m = 0; m <= SWEEP_PILLARS && !ok; m++)
        if ((ok = strcmp (items[i], mode_names[m]) == 0))
          v = (uint64_t) m;
    } else {
      ok = g_ascii_string_to_unsigned (items[i], 10, lo, hi, &v, NULL);
    }
    if (!ok || list->n == MAX_SIZES)
      die ("%s: \"%s\" is not %s (at most %d, comma-separated)",
          list->option, items[i], list == &sweep_modes ? "count, occupancy, "
          "mean, centroids or pillars" : "a size in range", MAX_SIZES);
    list->v[list->n++] = v;
  }
  g_strfreev (items);
  if (list->n == 0)
    die ("%s: no sizes", list->option);
  list->given = TRUE;
}

int
main (int argc, char **argv)
{
  const char *json = NULL, *why = NULL, *sweep = NULL;
  int n_events;
  guint64 seed = (guint64) g_get_real_time ();
  char device[256];

  for (int i = 1; i < argc; i++) {
    if (strcmp (argv[i], "--json") == 0 && i + 1 < argc)
      json = argv[++i];
    else if (strcmp (argv[i], "--runs") == 0 && i + 1 < argc)
      n_runs = atoi (argv[++i]);
    else if (strcmp (argv[i], "--seed") == 0 && i + 1 < argc)
      seed = g_ascii_strtoull (argv[++i], NULL, 10);
    else if (strcmp (argv[i], "--only") == 0 && i + 1 < argc)
      only_names = g_strsplit (argv[++i], ",", -1);
    else if (strcmp (argv[i], "--sweep") == 0 && i + 1 < argc)
      sweep = argv[++i];
    else if (strcmp (argv[i], "--points") == 0 && i + 1 < argc)
      parse_sizes (&sweep_points, argv[++i], 1, UINT64_C (1) << 31);
    else if (strcmp (argv[i], "--modes") == 0 && i + 1 < argc)
      parse_sizes (&sweep_modes, argv[++i], 0, 0);
    else if (strcmp (argv[i], "--batch") == 0 && i + 1 < argc)
      parse_sizes (&sweep_batch, argv[++i], 1, 65536);
    else if (strcmp (argv[i], "--samples") == 0 && i + 1 < argc)
      parse_sizes (&sweep_samples, argv[++i], 2, UINT64_C (1) << 24);
    else if (strcmp (argv[i], "--channels") == 0 && i + 1 < argc)
      parse_sizes (&sweep_channels, argv[++i], 1, 4096);
    else if (strcmp (argv[i], "--streams") == 0 && i + 1 < argc)
      parse_sizes (&sweep_streams, argv[++i], 1, RC_FUSE_MAX_STREAMS);
    else if (strcmp (argv[i], "--ticks") == 0 && i + 1 < argc)
      parse_sizes (&sweep_ticks, argv[++i], 1, 1000000);
    else if (strcmp (argv[i], "--fuse-channels") == 0 && i + 1 < argc)
      parse_sizes (&fuse_widths, argv[++i], 1, 4096);
    else if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
      usage (0);
    else
      usage (2);
  }
  if (n_runs < 1 || (sweep && strcmp (sweep, "voxelize") != 0
          && strcmp (sweep, "resample") != 0 && strcmp (sweep, "fuse") != 0
          && strcmp (sweep, "all") != 0))
    usage (2);
  sweeping = sweep != NULL;
  rng_state = seed;

  if (rc_device_count (&why) == 0)
    die ("no usable CUDA device (%s)", why ? why : "unknown");
  CHECK (rc_device_name (device, sizeof (device)));
  CHECK (rc_stream_create (&stream));
  n_events = MAX (n_runs, COPY_RUNS);
  ev_start = g_new0 (void *, n_events);
  ev_end = g_new0 (void *, n_events);
  for (int i = 0; i < n_events; i++) {
    CHECK (rc_event_create (&ev_start[i]));
    CHECK (rc_event_create (&ev_end[i]));
  }

  bench_copy ();
  bench_launch ();
  printf ("device: %s\nseed: %" G_GUINT64_FORMAT " (--seed replays it), "
      "runs: %d\ncopy bandwidth (device to device, 1 GiB, read + write): "
      "%.0f GB/s (median of %d; p10 %.0f us, p90 %.0f us)\n", device, seed,
      n_runs, copy_gbps, copy_result.runs, copy_result.p10_us,
      copy_result.p90_us);
  printf ("launch alone (an empty kernel): %.1f us once between the events, "
      "%.1f us per call back to back (%d calls in a CUDA graph)\n\n",
      launch_result.median_us, launch_result.b2b_median_us, CALLS_PER_GRAPH);
  printf ("%-44s %9s  (%8s-%8s) %9s %8s %9s %6s\n", "workload", "median us",
      "p10", "p90", "floor MB", "GB/s", "floor us", "ratio");
  fflush (stdout);

  if (!sweeping)
    bench_quoted ();
  if (sweeping && (!strcmp (sweep, "voxelize") || !strcmp (sweep, "all")))
    sweep_voxelize ();
  if (sweeping && (!strcmp (sweep, "resample") || !strcmp (sweep, "all")))
    sweep_resample ();
#if BENCH_HAVE_FUSE
  if (sweeping && (!strcmp (sweep, "fuse") || !strcmp (sweep, "all")))
    sweep_fuse ();
#else
  if (sweeping && (!strcmp (sweep, "fuse") || !strcmp (sweep, "all")))
    printf ("(fusion: not in this build of the kernel library, skipped)\n");
#endif

  printf ("\nfloor: bytes moved (each input read once, each output written "
      "once) over the copy bandwidth; ratio = median / floor\n");
  if (json) {
    write_json (json, device, seed);
    printf ("wrote %s\n", json);
  }

  for (int i = 0; i < n_events; i++) {
    CHECK (rc_event_destroy (ev_start[i]));
    CHECK (rc_event_destroy (ev_end[i]));
  }
  g_free (ev_start);
  g_free (ev_end);
  g_strfreev (only_names);
  CHECK (rc_stream_destroy (stream));
  return 0;
}
