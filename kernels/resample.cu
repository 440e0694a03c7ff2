/* Resampling of time series: the CUDA kernels.
 *
 * A warp takes 32 targets.  First each lane locates one of them (search,
 * neighbours, weights: resample-math.h, as on the CPU), so that this
 * scalar work is paid once per target.  Then groups of G lanes (a power of
 * two, enough to cover a row) take one target each, fetch its location by
 * shuffle, and stride over the row with coalesced loads of the neighbour
 * rows and coalesced stores, 16 bytes wide where D and the pointers allow,
 * several targets' loads in flight at once.  Without angle or quaternion
 * groups that is all; with them, a second pass overwrites the grouped
 * channels.  No allocation, no host synchronisation. */
#include "internal.h"
#include "resample-math.h"

#include <cuda_runtime.h>

#include <climits>

namespace
{

const int kBlock = 256;

/* Storage type <-> computation type. */
template <typename St> struct Traits;

template <> struct Traits<float>
{
  typedef float Real;
  static __device__ float load (float x) { return x; }
  static __device__ float store (float v) { return v; }
  static __device__ float nan () { return __int_as_float (0x7fc00000); }
};

template <> struct Traits<double>
{
  typedef double Real;
  static __device__ double load (double x) { return x; }
  static __device__ double store (double v) { return v; }
  static __device__ double nan ()
  {
    return __longlong_as_double (0x7ff8000000000000ll);
  }
};

/* bfloat16, as its bits. */
template <> struct Traits<uint16_t>
{
  typedef float Real;
  static __device__ float load (uint16_t x) { return rc_rs_bf16_to_float (x); }
  static __device__ uint16_t store (float v)
  {
    return rc_rs_float_to_bf16 (v);
  }
  static __device__ uint16_t nan () { return RC_RS_BF16_NAN; }
};

/* Overloads onto the shared C helpers. */
__device__ __forceinline__ float
lerp (float a, float b, float w)
{
  return rc_rs_lerp_f (a, b, w);
}

__device__ __forceinline__ double
lerp (double a, double b, double w)
{
  return rc_rs_lerp_d (a, b, w);
}

__device__ __forceinline__ float
hermite (float a, float b, float c, float d, const float *k)
{
  return rc_rs_cubic_f (a, b, c, d, k);
}

__device__ __forceinline__ double
hermite (double a, double b, double c, double d, const double *k)
{
  return rc_rs_cubic_d (a, b, c, d, k);
}

__device__ __forceinline__ float
wrap (float a)
{
  return rc_rs_wrap_f (a);
}

__device__ __forceinline__ double
wrap (double a)
{
  return rc_rs_wrap_d (a);
}

__device__ __forceinline__ float
angle_lerp (float a, float b, float w)
{
  return rc_rs_angle_lerp_f (a, b, w);
}

__device__ __forceinline__ double
angle_lerp (double a, double b, double w)
{
  return rc_rs_angle_lerp_d (a, b, w);
}

__device__ __forceinline__ float
angle_cubic (float a, float b, float c, float d, const float *k)
{
  return rc_rs_angle_cubic_f (a, b, c, d, k);
}

__device__ __forceinline__ double
angle_cubic (double a, double b, double c, double d, const double *k)
{
  return rc_rs_angle_cubic_d (a, b, c, d, k);
}

__device__ __forceinline__ void
slerp (const float *a, const float *b, float w, float *out)
{
  rc_rs_quat_slerp_f (a, b, w, out);
}

__device__ __forceinline__ void
slerp (const double *a, const double *b, double w, double *out)
{
  rc_rs_quat_slerp_d (a, b, w, out);
}

/* V values moved as one access (16 bytes when vectorised). */
template <typename St, int V> struct alignas (sizeof (St) * V) Pack
{
  St v[V];
};

const uint32_t kFull = 0xffffffffu;
/* Marks a lane with no target (past the end). */
const uint32_t kSkip = 3;

/* A target's location, as the row pass needs it. */
template <typename R> struct Loc
{
  uint32_t kind, b, i0, i1, i2, i3;
  R w, c[4];
};

/* The location found by lane @from, for the lanes working on its row. */
template <typename R, bool CUBIC>
__device__ __forceinline__ Loc<R>
fetch (const Loc<R> &mine, uint32_t from)
{
  Loc<R> l;
  l.kind = __shfl_sync (kFull, mine.kind, from);
  l.b = __shfl_sync (kFull, mine.b, from);
  l.i1 = __shfl_sync (kFull, mine.i1, from);
  l.i2 = __shfl_sync (kFull, mine.i2, from);
  l.w = __shfl_sync (kFull, mine.w, from);
  l.i0 = l.i1;
  l.i3 = l.i2;
  l.c[0] = l.c[1] = l.c[2] = l.c[3] = 0;
  if (CUBIC) {
    l.i0 = __shfl_sync (kFull, mine.i0, from);
    l.i3 = __shfl_sync (kFull, mine.i3, from);
#pragma unroll
    for (int e = 0; e < 4; e++)
      l.c[e] = __shfl_sync (kFull, mine.c[e], from);
  }
  return l;
}

/* The angle and quaternion channels of one row, after its plain pass. */
template <typename St, bool CUBIC>
__device__ __forceinline__ void
fix_groups (const rc_resample_params & p,
    const Loc<typename Traits<St>::Real> &l, const St * r0, const St * r1,
    const St * r2, const St * r3, St * o, uint32_t rank, uint32_t G)
{
  typedef Traits<St> X;
  typedef typename X::Real R;

  if (l.kind == RC_RS_PICK) {
    for (uint32_t r = 0; r < p.n_angle_ranges; r++) {
      const uint32_t end = p.angle_ranges[r].first + p.angle_ranges[r].count;
      for (uint32_t ch = p.angle_ranges[r].first + rank; ch < end; ch += G)
        o[ch] = X::store (wrap (X::load (r1[ch])));
    }
    return;
  }
  if (l.kind != RC_RS_INTERP)
    return;

  for (uint32_t r = 0; r < p.n_angle_ranges; r++) {
    const uint32_t end = p.angle_ranges[r].first + p.angle_ranges[r].count;
    for (uint32_t ch = p.angle_ranges[r].first + rank; ch < end; ch += G) {
      const R y1 = X::load (r1[ch]);
      const R y2 = X::load (r2[ch]);
      if (CUBIC)
        o[ch] = X::store (angle_cubic (X::load (r0[ch]), y1, y2,
                X::load (r3[ch]), l.c));
      else
        o[ch] = X::store (angle_lerp (y1, y2, l.w));
    }
  }
  for (uint32_t q = rank; q < p.n_quaternions; q += G) {
    const uint32_t qf = p.quaternion_first[q];
    R qa[4], qb[4], y[4];
#pragma unroll
    for (int e = 0; e < 4; e++) {
      qa[e] = X::load (r1[qf + e]);
      qb[e] = X::load (r2[qf + e]);
    }
    slerp (qa, qb, l.w, y);
#pragma unroll
    for (int e = 0; e < 4; e++)
      o[qf + e] = X::store (y[e]);
  }
}

/* Locates target @target (search, neighbours, weights: resample-math.h,
 * as on the CPU) into @mine. */
template <typename R>
__device__ __forceinline__ void
locate_target (const rc_resample_params & p,
    const int64_t * __restrict__ src_times,
    const int64_t * __restrict__ dst_times, uint64_t target, uint32_t S,
    uint32_t T, Loc<R> &mine)
{
  const int64_t t = dst_times[target];
  const int64_t *ts;
  rc_rs_loc loc;

  mine.b = (target >> 32) ? (uint32_t) (target / T) : (uint32_t) target / T;
  ts = src_times + (uint64_t) mine.b * S;
  rc_rs_locate (ts, S, t, rc_rs_search (ts, S, t), p.method, p.edge, &loc);
  mine.kind = loc.kind;
  mine.i0 = loc.idx[0];
  mine.i1 = loc.idx[1];
  mine.i2 = loc.idx[2];
  mine.i3 = loc.idx[3];
  mine.w = (R) loc.w;
#pragma unroll
  for (int e = 0; e < 4; e++)
    mine.c[e] = (R) loc.c[e];
}

template <typename St, int V, bool GROUPS, bool CUBIC, bool WIDE>
__global__ void __launch_bounds__ (kBlock)
resample_kernel (const rc_resample_params p,
    const int64_t * __restrict__ src_times, const St * __restrict__ src_values,
    const int64_t * __restrict__ dst_times, St * __restrict__ out,
    uint32_t g_log2)
{
  typedef Traits<St> X;
  typedef typename X::Real R;
  typedef Pack<St, V> P;
  /* Targets whose rows a lane group loads together, so that enough bytes
   * are in flight with one warp per 32 targets: four (linear) or two
   * (cubic, twice the rows) where WIDE, else half that; one with groups,
   * whose second pass would otherwise need a dynamically indexed array. */
  const int U = GROUPS ? 1 : (WIDE ? 4 : 2) / (CUBIC ? 2 : 1);
  const uint32_t lane = threadIdx.x & 31;
  const uint32_t G = 1u << g_log2;      /* lanes per target in the row pass */
  const uint32_t rank = lane & (G - 1);
  const uint32_t per_pass = 32 >> g_log2;
  const uint32_t S = p.n_source, D = p.channels, T = p.n_target;
  const uint32_t nvec = D / V;
  const uint64_t n_targets = (uint64_t) p.batch * T;
  const uint64_t warp = ((uint64_t) blockIdx.x * blockDim.x + threadIdx.x)
      >> 5;
  const uint64_t n_warps = ((uint64_t) gridDim.x * blockDim.x) >> 5;
  const P *rows = reinterpret_cast<const P *>(src_values);
  P nan;

#pragma unroll
  for (int e = 0; e < V; e++)
    nan.v[e] = X::nan ();

  /* Each warp takes 32 consecutive targets at a time; the loop bound is
   * the same for all its lanes, so the shuffles below see the whole warp. */
  for (uint64_t base = warp * 32; base < n_targets; base += n_warps * 32) {
    /* Locate: one target per lane, so that the search and the weights are
     * paid once per target rather than once per lane of its row. */
    const uint64_t target = base + lane;
    Loc<R> mine = { kSkip, 0, 0, 0, 0, 0, 0, {0, 0, 0, 0} };

    if (target < n_targets)
      locate_target<R> (p, src_times, dst_times, target, S, T, mine);

    /* Rows: 32 / G targets per pass, G lanes on each, U passes at a time.
     * Lanes past the warp's 32 targets or past the end hold kSkip and
     * store nothing; the rows they load (sample 0 of trajectory 0) exist. */
    for (uint32_t first = 0; first < 32; first += U * per_pass) {
      Loc<R> l[U];
      uint64_t row[U];

#pragma unroll
      for (int u = 0; u < U; u++) {
        const uint32_t from = first + u * per_pass + (lane >> g_log2);
        l[u] = fetch<R, CUBIC> (mine, from & 31);
        if (from >= 32)
          l[u].kind = kSkip;
        row[u] = (uint64_t) l[u].b * S;
      }

      for (uint32_t v = rank; v < nvec; v += G) {
        P x0[U], x1[U], x2[U], x3[U];

#pragma unroll
        for (int u = 0; u < U; u++) {
          x1[u] = rows[(row[u] + l[u].i1) * nvec + v];
          x2[u] = rows[(row[u] + l[u].i2) * nvec + v];
          if (CUBIC) {
            x0[u] = rows[(row[u] + l[u].i0) * nvec + v];
            x3[u] = rows[(row[u] + l[u].i3) * nvec + v];
          }
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
          const uint32_t from = first + u * per_pass + (lane >> g_log2);
          P y = x1[u];

          if (l[u].kind == kSkip)
            continue;
          if (l[u].kind == RC_RS_NAN) {
            y = nan;
          } else if (l[u].kind == RC_RS_INTERP) {
#pragma unroll
            for (int e = 0; e < V; e++) {
              if (CUBIC)
                y.v[e] = X::store (hermite (X::load (x0[u].v[e]),
                        X::load (x1[u].v[e]), X::load (x2[u].v[e]),
                        X::load (x3[u].v[e]), l[u].c));
              else
                y.v[e] = X::store (lerp (X::load (x1[u].v[e]),
                        X::load (x2[u].v[e]), l[u].w));
            }
          }
          reinterpret_cast<P *>(out)[(base + from) * nvec + v] = y;
        }
      }

      if (GROUPS) {
        /* Orders the plain stores before the overwrites of the grouped
         * channels, which other lanes of the group may make. */
        __syncwarp ();
        const St *vals = src_values + row[0] * D;
        fix_groups<St, CUBIC> (p, l[0], vals + (size_t) l[0].i0 * D,
            vals + (size_t) l[0].i1 * D, vals + (size_t) l[0].i2 * D,
            vals + (size_t) l[0].i3 * D,
            out + (base + first + (lane >> g_log2)) * D, rank, G);
      }
    }
  }
}

template <typename St, int V, bool GROUPS, bool CUBIC, bool WIDE = false>
void
launch_one (const rc_resample_params * p, const int64_t * source_times,
    const void *source_values, const int64_t * target_times, void *out,
    uint32_t g_log2, unsigned blocks, cudaStream_t stream)
{
  resample_kernel<St, V, GROUPS, CUBIC, WIDE> <<<blocks, kBlock, 0,
      stream>>> (*p, source_times, static_cast<const St *>(source_values),
      target_times, static_cast<St *>(out), g_log2);
}

/* Whether the wide kernel can hold a warp for each 32 of @n_targets on
 * the GPU at once.  Four linear targets' rows in flight a lane group (two
 * cubic targets') take it to about 100 registers, half the warps an SM of
 * the narrow kernel's; where they do not fit in one wave, each wave is a
 * locate and then a row pass, and twice the warps resident beat more
 * bytes in flight a warp (run 199, an H200: linear S = T = 4,096 29.4 ->
 * 25.2 us, a batch of 1,024 123 -> 108, call 219; cubic 198 -> 156, call
 * 221; within one wave the narrow kernel was 0.8 to 1.2 us slower, call
 * 218).  Asked on every call: occupancy belongs to the device in use. */
template <typename St, int V, bool CUBIC>
rc_status
wide_fits (uint64_t n_targets, bool *fits)
{
  int dev = 0, sms = 0, blocks = 0;
  rc_status ret = rc_check_cuda (cudaGetDevice (&dev));

  if (ret == RC_OK)
    ret = rc_check_cuda (cudaDeviceGetAttribute (&sms,
            cudaDevAttrMultiProcessorCount, dev));
  if (ret == RC_OK)
    ret = rc_check_cuda (cudaOccupancyMaxActiveBlocksPerMultiprocessor
        (&blocks, resample_kernel<St, V, false, CUBIC, true>, kBlock, 0));
  *fits = n_targets <= (uint64_t) blocks * sms * kBlock;
  return ret;
}

/* Without groups: the wide kernel where its warps fit at once, else the
 * narrow one. */
template <typename St, int V, bool CUBIC>
rc_status
launch_plain (const rc_resample_params * p, const int64_t * source_times,
    const void *source_values, const int64_t * target_times, void *out,
    uint32_t g_log2, unsigned blocks, cudaStream_t stream)
{
  bool wide = false;
  rc_status ret = wide_fits<St, V, CUBIC> ((uint64_t) p->batch *
      p->n_target, &wide);

  if (ret != RC_OK)
    return ret;
  if (wide)
    launch_one<St, V, false, CUBIC, true> (p, source_times, source_values,
        target_times, out, g_log2, blocks, stream);
  else
    launch_one<St, V, false, CUBIC> (p, source_times, source_values,
        target_times, out, g_log2, blocks, stream);
  return rc_check_launch ();
}

template <typename St, int V>
rc_status
launch_vec (const rc_resample_params * p, const int64_t * source_times,
    const void *source_values, const int64_t * target_times, void *out,
    uint32_t g_log2, unsigned blocks, cudaStream_t stream)
{
  const bool groups = p->n_quaternions > 0 || p->n_angle_ranges > 0;
  const bool cubic = p->method == RC_INTERP_CUBIC;

  if (!groups)
    return cubic ? launch_plain<St, V, true> (p, source_times, source_values,
        target_times, out, g_log2, blocks, stream) :
        launch_plain<St, V, false> (p, source_times, source_values,
        target_times, out, g_log2, blocks, stream);
  if (cubic)
    launch_one<St, V, true, true> (p, source_times, source_values,
        target_times, out, g_log2, blocks, stream);
  else
    launch_one<St, V, true, false> (p, source_times, source_values,
        target_times, out, g_log2, blocks, stream);
  return rc_check_launch ();
}

template <typename St>
rc_status
launch (const rc_resample_params * p, const int64_t * source_times,
    const void *source_values, const int64_t * target_times, void *out,
    cudaStream_t stream)
{
  const int kVec = 16 / sizeof (St);
  const bool vec = p->channels % kVec == 0
      && ((uintptr_t) source_values | (uintptr_t) out) % 16 == 0;
  const uint32_t accesses = vec ? p->channels / kVec : p->channels;
  uint32_t g_log2 = 0;

  /* Enough lanes for one access each across the row, up to a warp. */
  while (g_log2 < 5 && (1u << g_log2) < accesses)
    g_log2++;

  /* A warp per 32 targets; past INT_MAX blocks the kernel's grid-stride
   * loop takes the rest. */
  const uint64_t n_targets = (uint64_t) p->batch * p->n_target;
  uint64_t blocks = (n_targets + kBlock - 1) / kBlock;
  if (blocks > (uint64_t) INT_MAX)
    blocks = INT_MAX;

  if (vec)
    return launch_vec<St, 16 / sizeof (St)> (p, source_times, source_values,
        target_times, out, g_log2, (unsigned) blocks, stream);
  return launch_vec<St, 1> (p, source_times, source_values, target_times,
      out, g_log2, (unsigned) blocks, stream);
}

/* One trajectory a grid row (y, striding past 65,535), its times across
 * the row's blocks (x): a time below the one before it sets the
 * trajectory's flag (only 1s are stored: the caller clears them, and no
 * block waits on another's verdict), and the threads that read a
 * trajectory's first time and its last ones from @tail_from copy them
 * into @ends.  Both may be page-locked host memory: what a chunk's host
 * reads comes back in this launch, where a clear, this kernel and a copy
 * took three calls. */
__global__ void
times_disordered_kernel (const int64_t * times, uint32_t batch, uint64_t n,
    uint8_t * disordered, uint64_t tail_from, int64_t * ends)
{
  const uint64_t stride = (uint64_t) gridDim.x * blockDim.x;

  for (uint32_t b = blockIdx.y; b < batch; b += gridDim.y) {
    const int64_t *t = times + (uint64_t) b * n;
    bool bad = false;

    for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;
        i < n; i += stride) {
      const int64_t now = t[i];

      bad |= i > 0 && now < t[i - 1];
      if (ends && (i == 0 || i >= tail_from))
        ends[(uint64_t) b * n + i] = now;
    }
    if (__syncthreads_or (bad) && threadIdx.x == 0)
      disordered[b] = 1;
  }
}

}                               /* namespace */

extern "C" rc_status
rc_resample_cuda (const rc_resample_params * params,
    const int64_t * source_times, const void *source_values,
    const int64_t * target_times, void *out, void *stream)
{
  rc_status ret = rc_resample_check (params);
  cudaStream_t s = (cudaStream_t) stream;

  if (ret != RC_OK)
    return ret;
  if (params->batch == 0 || params->n_target == 0)
    return RC_OK;
  if (!source_times || !source_values || !target_times || !out)
    return RC_ERROR_INVALID_ARGUMENT;

  switch (params->type) {
    case RC_TYPE_FLOAT32:
      return launch<float> (params, source_times, source_values,
          target_times, out, s);
    case RC_TYPE_FLOAT64:
      return launch<double> (params, source_times, source_values,
          target_times, out, s);
    case RC_TYPE_BFLOAT16:
      return launch<uint16_t> (params, source_times, source_values,
          target_times, out, s);
    default:
      return RC_ERROR_INVALID_ARGUMENT;
  }
}

extern "C" rc_status
rc_times_disordered_cuda (const int64_t * times, uint32_t batch, uint64_t n,
    uint8_t * disordered, uint64_t tail, int64_t * ends, void *stream)
{
  const unsigned threads = 256;
  /* About four times a thread, at most 1,024 blocks a trajectory (the
   * threads stride over longer ones). */
  const uint64_t per_row = (n + 4 * threads - 1) / (4 * threads);
  const unsigned blocks_x = (unsigned) (per_row < 1024 ? per_row : 1024);
  const unsigned rows = batch < 65535 ? batch : 65535;

  if (batch == 0)
    return RC_OK;
  if (!times || !disordered)
    return RC_ERROR_INVALID_ARGUMENT;
  if (n == 0)
    return RC_OK;
  times_disordered_kernel <<< dim3 (blocks_x, rows), threads, 0,
      (cudaStream_t) stream >>> (times, batch, n, disordered,
      tail < n ? n - tail : 0, ends);
  return rc_check_launch ();
}
