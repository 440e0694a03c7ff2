/* Resampling of time series: the CUDA kernels.
 *
 * A group of G lanes (a power of two, at most a warp) handles one target:
 * the lanes search the source times together, G + 1-ary (one round trip
 * per step instead of one per halving), then stride over the output row
 * with coalesced 16-byte loads of the neighbour rows and 16-byte stores
 * where D and the pointers allow.  Without angle or quaternion groups that
 * is all; with them, a second pass overwrites the grouped channels.  The
 * per-element formulas are resample-math.h's, the same as the CPU's. */
#include "internal.h"
#include "resample-math.h"

#include <cuda_runtime.h>

#include <climits>

namespace
{

const int kBlock = 256;

/* Storage type <-> computation type. */
template < typename St > struct Traits;

template <> struct Traits <float >
{
  typedef float Real;
  static __device__ float load (float x) { return x; }
  static __device__ float store (float v) { return v; }
  static __device__ float nan () { return __int_as_float (0x7fc00000); }
};

template <> struct Traits <double >
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
template <> struct Traits <uint16_t >
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
cubic (float a, float b, float c, float d, const float *k)
{
  return rc_rs_cubic_f (a, b, c, d, k);
}

__device__ __forceinline__ double
cubic (double a, double b, double c, double d, const double *k)
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
template < typename St, int V > struct alignas (sizeof (St) * V) Pack
{
  St v[V];
};

/* The lanes of a group and their ballot. */
struct Group
{
  uint32_t size;                /* G */
  uint32_t rank;                /* this lane within the group */
  uint32_t base;                /* first lane of the group in the warp */
  uint32_t mask;                /* the group's lanes */
};

/* Position probed by rank @k in a step over [lo, lo + len), len > 0:
 * G evenly spaced cuts, or every index when len <= G. */
__device__ __forceinline__ uint32_t
probe (uint32_t lo, uint32_t len, uint32_t step, uint32_t k)
{
  return step ? lo + step * (k + 1) : lo + min (k, len - 1);
}

/* rc_rs_upper_bound (ts, 0, n, t) found by the whole group: each step, each
 * lane tests one cut and one ballot narrows the range to a (G + 1)th. */
__device__ __forceinline__ uint32_t
group_upper_bound (const int64_t * ts, uint32_t n, int64_t t, Group g)
{
  const uint32_t bits = g.size == 32 ? 0xffffffffu : (1u << g.size) - 1;
  uint32_t lo = 0, hi = n;

  while (lo < hi) {
    const uint32_t len = hi - lo, step = len / (g.size + 1);
    const bool above = ts[probe (lo, len, step, g.rank)] > t;
    const uint32_t ballot = (__ballot_sync (g.mask, above) >> g.base) & bits;

    if (ballot) {
      const uint32_t f = __ffs (ballot) - 1;
      const uint32_t first_above = probe (lo, len, step, f);
      if (f > 0)
        lo = probe (lo, len, step, f - 1) + 1;
      hi = first_above;
    } else {
      lo = probe (lo, len, step, g.size - 1) + 1;
    }
  }
  return lo;
}

template < typename St, int V, bool GROUPS >
__global__ void __launch_bounds__ (kBlock)
resample_kernel (const rc_resample_params p,
    const int64_t * __restrict__ src_times, const St * __restrict__ src_values,
    const int64_t * __restrict__ dst_times, St * __restrict__ out,
    uint32_t g_log2)
{
  typedef typename Traits < St >::Real R;
  typedef Pack < St, V > P;
  const uint32_t lane = threadIdx.x & 31;
  Group g;
  g.size = 1u << g_log2;
  g.rank = lane & (g.size - 1);
  g.base = lane & ~(g.size - 1);
  g.mask = (g.size == 32 ? 0xffffffffu : (1u << g.size) - 1) << g.base;

  const uint32_t S = p.n_source, D = p.channels, T = p.n_target;
  const uint32_t nvec = D / V;
  const uint64_t n_targets = (uint64_t) p.batch * T;
  const uint64_t stride = ((uint64_t) gridDim.x * blockDim.x) >> g_log2;

  /* Whole groups iterate together, so the group's ballots and syncs see
   * all of its lanes. */
  for (uint64_t i = ((uint64_t) blockIdx.x * blockDim.x + threadIdx.x)
      >> g_log2; i < n_targets; i += stride) {
    const uint64_t b = (i >> 32) ? i / T : (uint32_t) i / T;
    const int64_t *ts = src_times + b * S;
    const int64_t t = dst_times[i];
    const St *vals = src_values + b * S * D;
    St *o = out + i * D;
    P *ov = reinterpret_cast < P * >(o);
    rc_rs_loc loc;

    rc_rs_locate (ts, S, t, group_upper_bound (ts, S, t, g), p.method,
        p.edge, &loc);

    if (loc.kind == RC_RS_NAN) {
      P nan;
#pragma unroll
      for (int k = 0; k < V; k++)
        nan.v[k] = Traits < St >::nan ();
      for (uint32_t v = g.rank; v < nvec; v += g.size)
        ov[v] = nan;
      continue;
    }

    const St *r1 = vals + (size_t) loc.idx[1] * D;

    if (loc.kind == RC_RS_PICK) {
      const P *a = reinterpret_cast < const P * >(r1);
      for (uint32_t v = g.rank; v < nvec; v += g.size)
        ov[v] = a[v];
    } else if (p.method == RC_INTERP_CUBIC) {
      const P *a = reinterpret_cast < const P * >(vals +
          (size_t) loc.idx[0] * D);
      const P *bb = reinterpret_cast < const P * >(r1);
      const P *c = reinterpret_cast < const P * >(vals +
          (size_t) loc.idx[2] * D);
      const P *d = reinterpret_cast < const P * >(vals +
          (size_t) loc.idx[3] * D);
      const R cw[4] = { (R) loc.c[0], (R) loc.c[1], (R) loc.c[2],
        (R) loc.c[3]
      };
      for (uint32_t v = g.rank; v < nvec; v += g.size) {
        const P x0 = a[v], x1 = bb[v], x2 = c[v], x3 = d[v];
        P y;
#pragma unroll
        for (int k = 0; k < V; k++)
          y.v[k] = Traits < St >::store (cubic (Traits < St >::load (x0.v[k]),
                  Traits < St >::load (x1.v[k]),
                  Traits < St >::load (x2.v[k]),
                  Traits < St >::load (x3.v[k]), cw));
        ov[v] = y;
      }
    } else {
      const P *a = reinterpret_cast < const P * >(r1);
      const P *c = reinterpret_cast < const P * >(vals +
          (size_t) loc.idx[2] * D);
      const R w = (R) loc.w;
      for (uint32_t v = g.rank; v < nvec; v += g.size) {
        const P x1 = a[v], x2 = c[v];
        P y;
#pragma unroll
        for (int k = 0; k < V; k++)
          y.v[k] = Traits < St >::store (lerp (Traits < St >::load (x1.v[k]),
                  Traits < St >::load (x2.v[k]), w));
        ov[v] = y;
      }
    }

    if (!GROUPS)
      continue;

    /* Second pass over the grouped channels; the sync orders it after the
     * group's plain stores to the same row. */
    __syncwarp (g.mask);

    if (loc.kind == RC_RS_PICK) {
      for (uint32_t r = 0; r < p.n_angle_ranges; r++) {
        const uint32_t end = p.angle_ranges[r].first + p.angle_ranges[r].count;
        for (uint32_t ch = p.angle_ranges[r].first + g.rank; ch < end;
            ch += g.size)
          o[ch] = Traits < St >::store (wrap (Traits < St >::load (r1[ch])));
      }
      continue;
    }

    const St *r0 = vals + (size_t) loc.idx[0] * D;
    const St *r2 = vals + (size_t) loc.idx[2] * D;
    const St *r3 = vals + (size_t) loc.idx[3] * D;
    const R w = (R) loc.w;
    const R cw[4] = { (R) loc.c[0], (R) loc.c[1], (R) loc.c[2],
      (R) loc.c[3]
    };

    for (uint32_t r = 0; r < p.n_angle_ranges; r++) {
      const uint32_t end = p.angle_ranges[r].first + p.angle_ranges[r].count;
      for (uint32_t ch = p.angle_ranges[r].first + g.rank; ch < end;
          ch += g.size) {
        const R x1 = Traits < St >::load (r1[ch]);
        const R x2 = Traits < St >::load (r2[ch]);
        R y;
        if (p.method == RC_INTERP_CUBIC)
          y = angle_cubic (Traits < St >::load (r0[ch]), x1, x2,
              Traits < St >::load (r3[ch]), cw);
        else
          y = angle_lerp (x1, x2, w);
        o[ch] = Traits < St >::store (y);
      }
    }

    for (uint32_t q = g.rank; q < p.n_quaternions; q += g.size) {
      const uint32_t first = p.quaternion_first[q];
      R qa[4], qb[4], y[4];
#pragma unroll
      for (int k = 0; k < 4; k++) {
        qa[k] = Traits < St >::load (r1[first + k]);
        qb[k] = Traits < St >::load (r2[first + k]);
      }
      slerp (qa, qb, w, y);
#pragma unroll
      for (int k = 0; k < 4; k++)
        o[first + k] = Traits < St >::store (y[k]);
    }
  }
}

template < typename St, int V, bool GROUPS >
void
launch_one (const rc_resample_params * p, const int64_t * source_times,
    const void *source_values, const int64_t * target_times, void *out,
    uint32_t g_log2, unsigned blocks, cudaStream_t stream)
{
  resample_kernel < St, V, GROUPS > <<<blocks, kBlock, 0, stream>>> (*p,
      source_times, static_cast < const St * >(source_values), target_times,
      static_cast < St * >(out), g_log2);
}

template < typename St >
rc_status
launch (const rc_resample_params * p, const int64_t * source_times,
    const void *source_values, const int64_t * target_times, void *out,
    cudaStream_t stream)
{
  const int kVec = 16 / sizeof (St);
  const bool vec = p->channels % kVec == 0
      && ((uintptr_t) source_values | (uintptr_t) out) % 16 == 0;
  const uint32_t accesses = vec ? p->channels / kVec : p->channels;
  const bool groups = p->n_quaternions > 0 || p->n_angle_ranges > 0;
  uint32_t g_log2 = 0;

  /* Enough lanes for one access each across the row, up to a warp. */
  while (g_log2 < 5 && (1u << g_log2) < accesses)
    g_log2++;

  const uint64_t n_targets = (uint64_t) p->batch * p->n_target;
  const uint64_t groups_per_block = kBlock >> g_log2;
  uint64_t blocks = (n_targets + groups_per_block - 1) / groups_per_block;
  /* Past this the kernel's grid-stride loop takes the rest. */
  if (blocks > (uint64_t) INT_MAX)
    blocks = INT_MAX;

  if (vec) {
    if (groups)
      launch_one < St, 16 / sizeof (St), true > (p, source_times,
          source_values, target_times, out, g_log2, (unsigned) blocks, stream);
    else
      launch_one < St, 16 / sizeof (St), false > (p, source_times,
          source_values, target_times, out, g_log2, (unsigned) blocks, stream);
  } else {
    if (groups)
      launch_one < St, 1, true > (p, source_times, source_values,
          target_times, out, g_log2, (unsigned) blocks, stream);
    else
      launch_one < St, 1, false > (p, source_times, source_values,
          target_times, out, g_log2, (unsigned) blocks, stream);
  }
  return rc_check_launch ();
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
      return launch < float >(params, source_times, source_values,
          target_times, out, s);
    case RC_TYPE_FLOAT64:
      return launch < double >(params, source_times, source_values,
          target_times, out, s);
    case RC_TYPE_BFLOAT16:
      return launch < uint16_t > (params, source_times, source_values,
          target_times, out, s);
    default:
      return RC_ERROR_INVALID_ARGUMENT;
  }
}
