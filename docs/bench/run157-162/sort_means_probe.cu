/* Probe (run 157): a dense mean of large clouds by counting sort instead of
 * float atomics, against the library's rc_voxelize_cuda on the same clouds.
 *
 * Why: on an H200 the means of 4,194,304 uniform points into 256^3 take
 * 341 us (one feature), 779 (x, y, z) and 1,320 (x, y, z, intensity),
 * against 149 for the counts: the float atomics' rate in the L2 cache, a
 * feature an operation (a record's float4 atomic costs as four), paces
 * them.  A counting sort adds no float atomic at all:
 *   1. count: an atomic increment a point that returns the point's rank in
 *      its voxel (the counts' returning atomics, as the count mode);
 *   2. the exclusive sum of the counts: each voxel's first slot;
 *   3. scatter: each point's features to its voxel's slot + rank;
 *   4. divide: each voxel sums its run of slots and writes its planes.
 * Prediction at 4,194,304 points: count ~120 us (the counts' binning),
 * scan ~35, scatter ~30, divide ~40 (one feature) to ~95 (four: 268 MB of
 * planes) and the counts' clear ~15: ~240, ~280 and ~295 us.
 *
 * Packed float32 x, y, z, intensity (16 bytes a point) only, and no
 * statistics beyond the occupied voxels: a probe of the cost, not the
 * library's general code.  Output checked against the library's on every
 * size.
 *
 * Build (here): nvcc -O3 -std=c++17 -arch=sm_90 -Ikernels
 *   docs/bench/run157/sort_means_probe.cu -Lbuild/kernels
 *   -lrobocache-kernels-1.0 -o sort_means_probe
 * Run: sort_means_probe [runs] */
#include <cuda_runtime.h>
#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "robocache-kernels.h"
#include "voxelize-math.h"

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
      fprintf (stderr, "%s:%d: %s\n", __FILE__, __LINE__, \
          cudaGetErrorString (e_)); exit (1); } } while (0)
#define CHECK_RC(call) do { rc_status r_ = (call); if (r_ != RC_OK) { \
      fprintf (stderr, "%s:%d: rc_status %d\n", __FILE__, __LINE__, \
          (int) r_); exit (1); } } while (0)

static const int kBlock = 256;
static const int kPoints = 4;   /* points a thread in the count */
static const uint32_t kOut = 0xffffffffu;

/* 1: each point's voxel and rank in it (the counts' returning atomics). */
__global__ void __launch_bounds__ (kBlock)
count_rank (const float4 * __restrict__ pts, uint64_t n,
    const __grid_constant__ rc_voxel_grid grid, uint32_t * __restrict__ counts,
    uint2 * __restrict__ slot)
{
  uint64_t base = (uint64_t) blockIdx.x * kBlock * kPoints + threadIdx.x;
  uint64_t v[kPoints];
  int where[kPoints];
  uint32_t rank[kPoints];

#pragma unroll
  for (int k = 0; k < kPoints; k++) {
    uint64_t p = base + (uint64_t) k * kBlock;
    where[k] = -1;
    v[k] = 0;
    if (p < n) {
      float4 q = __ldcs (pts + p);
      where[k] = rc_voxel_locate_xyz (q.x, q.y, q.z, &grid, &v[k]);
    }
  }
#pragma unroll
  for (int k = 0; k < kPoints; k++)
    rank[k] = where[k] == RC_POINT_IN_GRID ? atomicAdd (counts + v[k], 1u) : 0;
#pragma unroll
  for (int k = 0; k < kPoints; k++) {
    uint64_t p = base + (uint64_t) k * kBlock;
    if (p < n)
      slot[p] = make_uint2 (where[k] == RC_POINT_IN_GRID ? (uint32_t) v[k] :
          kOut, rank[k]);
  }
}

/* 3: each point's features to its voxel's first slot plus its rank. */
template < int F >
__global__ void __launch_bounds__ (kBlock)
scatter (const float4 * __restrict__ pts, uint64_t n,
    const uint2 * __restrict__ slot, const uint32_t * __restrict__ first,
    float *__restrict__ sorted)
{
  uint64_t p = (uint64_t) blockIdx.x * kBlock + threadIdx.x;
  if (p >= n)
    return;
  uint2 s = slot[p];
  if (s.x == kOut)
    return;
  uint32_t d = first[s.x] + s.y;
  float4 q = __ldcs (pts + p);
  if (F == 1)
    sorted[d] = q.w;
  else
    reinterpret_cast < float4 * >(sorted)[d] = q;
}

/* 4: each voxel's run of slots summed in rank order and divided, every
 * plane written (0 where empty); the occupied voxels counted. */
template < int F >
__global__ void __launch_bounds__ (kBlock)
divide (const uint32_t * __restrict__ first, const float *__restrict__ sorted,
    uint64_t nv, float *__restrict__ out, unsigned long long *occupied)
{
  uint64_t v = (uint64_t) blockIdx.x * kBlock + threadIdx.x;
  bool busy = false;

  if (v < nv) {
    uint32_t a = first[v], b = first[v + 1];
    float sum[4] = { 0, 0, 0, 0 };
    for (uint32_t i = a; i < b; i++) {
      if (F == 1) {
        sum[0] += sorted[i];
      } else {
        float4 q = reinterpret_cast < const float4 * >(sorted)[i];
        sum[0] += q.x;
        sum[1] += q.y;
        sum[2] += q.z;
        sum[3] += q.w;
      }
    }
    busy = b > a;
#pragma unroll
    for (int f = 0; f < F; f++)
      __stcs (out + f * nv + v, busy ? sum[f] / (float) (b - a) : 0.0f);
  }
  int n_busy = __syncthreads_count (busy);
  if (threadIdx.x == 0 && n_busy)
    atomicAdd (occupied, (unsigned long long) n_busy);
}

struct Sorter
{
  uint64_t nv, max_points;
  uint32_t *counts;             /* nv + 1: the counts, then first slots */
  uint32_t *first;
  uint2 *slot;
  float *sorted;
  void *temp;
  size_t temp_bytes;
  unsigned long long *occupied;

  Sorter (uint64_t nv_, uint64_t max_points_) : nv (nv_),
      max_points (max_points_), temp (nullptr), temp_bytes (0)
  {
    CHECK (cudaMalloc (&counts, (nv + 1) * 4));
    CHECK (cudaMalloc (&first, (nv + 1) * 4));
    CHECK (cudaMalloc (&slot, max_points * 8));
    CHECK (cudaMalloc (&sorted, max_points * 16));
    CHECK (cudaMalloc (&occupied, 8));
    CHECK (cub::DeviceScan::ExclusiveSum (nullptr, temp_bytes, counts, first,
            nv + 1));
    CHECK (cudaMalloc (&temp, temp_bytes));
  }

  /* @phase: events between the steps, or NULL. */
  template < int F > void run (const float4 * pts, uint64_t n,
      const rc_voxel_grid & grid, float *out, cudaStream_t s,
      cudaEvent_t * phase)
  {
    CHECK (cudaMemsetAsync (counts, 0, (nv + 1) * 4, s));
    CHECK (cudaMemsetAsync (occupied, 0, 8, s));
    if (phase)
      CHECK (cudaEventRecord (phase[0], s));
    count_rank <<<(unsigned) ((n + kBlock * kPoints - 1) / (kBlock * kPoints)),
        kBlock, 0, s >>> (pts, n, grid, counts, slot);
    CHECK (cudaGetLastError ());
    if (phase)
      CHECK (cudaEventRecord (phase[1], s));
    CHECK (cub::DeviceScan::ExclusiveSum (temp, temp_bytes, counts, first,
            nv + 1, s));
    if (phase)
      CHECK (cudaEventRecord (phase[2], s));
    scatter < F > <<<(unsigned) ((n + kBlock - 1) / kBlock), kBlock, 0, s >>>
        (pts, n, slot, first, sorted);
    CHECK (cudaGetLastError ());
    if (phase)
      CHECK (cudaEventRecord (phase[3], s));
    divide < F > <<<(unsigned) ((nv + kBlock - 1) / kBlock), kBlock, 0, s >>>
        (first, sorted, nv, out, occupied);
    CHECK (cudaGetLastError ());
  }
};

/* Uniform points over the cube and 5 % beyond each face (as bench-kernels'
 * uniform clouds), intensity in [0, 1): a fresh cloud per seed. */
__global__ void
make_cloud (float4 * pts, uint64_t n, float lo, float span, uint64_t seed)
{
  uint64_t p = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n)
    return;
  uint64_t z = (p + 1) * 0x9E3779B97F4A7C15ull ^ seed * 0xD1B54A32D192ED03ull;
  float r[4];
  for (int i = 0; i < 4; i++) {
    z ^= z >> 31;
    z *= 0xBF58476D1CE4E5B9ull;
    z ^= z >> 29;
    z *= 0x94D049BB133111EBull;
    z ^= z >> 32;
    r[i] = (float) (z >> 40) / (float) (1 << 24);
  }
  pts[p] = make_float4 (lo + r[0] * span, lo + r[1] * span, lo + r[2] * span,
      r[3]);
}

static double
median (std::vector < double >v)
{
  std::sort (v.begin (), v.end ());
  return v.empty ()? 0 : v[v.size () / 2];
}

template < int F > static void
series (const rc_point_layout & layout, const char *name, uint64_t n,
    int runs, Sorter & sorter, float4 ** clouds, int n_clouds,
    cudaStream_t s)
{
  rc_voxel_grid grid = { {-25.6, -25.6, -25.6}, {0.2, 0.2, 0.2},
  {256, 256, 256}, RC_VOXEL_MEAN
  };
  uint64_t nv = rc_voxel_grid_n_voxels (&grid);
  uint64_t out_bytes = rc_voxelize_output_size (&layout, &grid);
  uint64_t scratch_bytes = rc_voxelize_cuda_scratch_size (&layout, &grid, 1);
  float *out_lib, *out_sort;
  void *scratch;
  cudaEvent_t ev[6];
  std::vector < double >t_lib, t_sort, ph[4];

  CHECK (cudaMalloc (&out_lib, out_bytes));
  CHECK (cudaMalloc (&out_sort, out_bytes));
  CHECK (cudaMalloc (&scratch, scratch_bytes));
  CHECK_RC (rc_voxelize_cuda_scratch_reset (scratch, s));
  for (int i = 0; i < 6; i++)
    CHECK (cudaEventCreate (&ev[i]));

  /* Correctness on each cloud, outputs poisoned first. */
  for (int c = 0; c < n_clouds; c++) {
    std::vector < float >a (nv * F), b (nv * F);
    unsigned long long occ = 0;
    rc_voxelize_stats st;
    rc_voxelize_stats *pst;
    double worst = 0;
    uint64_t bad = 0;

    CHECK_RC (rc_host_alloc ((void **) &pst, sizeof *pst));
    CHECK (cudaMemsetAsync (out_lib, 0xff, out_bytes, s));
    CHECK (cudaMemsetAsync (out_sort, 0xff, out_bytes, s));
    CHECK_RC (rc_voxelize_cuda (&layout, &grid, clouds[c], &n, 1, out_lib,
            scratch, pst, s));
    sorter.run < F > (clouds[c], n, grid, out_sort, s, nullptr);
    CHECK (cudaStreamSynchronize (s));
    st = *pst;
    rc_host_free (pst);
    CHECK (cudaMemcpy (a.data (), out_lib, nv * F * 4,
            cudaMemcpyDeviceToHost));
    CHECK (cudaMemcpy (b.data (), out_sort, nv * F * 4,
            cudaMemcpyDeviceToHost));
    CHECK (cudaMemcpy (&occ, sorter.occupied, 8, cudaMemcpyDeviceToHost));
    for (uint64_t i = 0; i < nv * F; i++) {
      double d = fabs ((double) a[i] - b[i]) / (1.0 + fabs ((double) a[i]));
      if (!(d <= 1e-5))
        bad++;
      if (d > worst || d != d)
        worst = d;
    }
    printf ("check %-22s n=%-8llu cloud %d: occupied lib %llu sort %llu, "
        "in grid %llu, worst rel diff %.2e, %llu values over 1e-5 -> %s\n",
        name, (unsigned long long) n, c, (unsigned long long) st.occupied,
        occ, (unsigned long long) st.in_grid, worst,
        (unsigned long long) bad, bad == 0 && occ == st.occupied ? "OK" :
        "FAIL");
  }

  /* Timing: one call each between events, alternated, clouds in turn;
   * the first two rounds are warm-up. */
  for (int r = 0; r < runs + 2; r++) {
    float4 *pts = clouds[r % n_clouds];
    float ms;

    CHECK (cudaEventRecord (ev[4], s));
    CHECK_RC (rc_voxelize_cuda (&layout, &grid, pts, &n, 1, out_lib, scratch,
            nullptr, s));
    CHECK (cudaEventRecord (ev[5], s));
    CHECK (cudaEventSynchronize (ev[5]));
    CHECK (cudaEventElapsedTime (&ms, ev[4], ev[5]));
    if (r >= 2)
      t_lib.push_back (ms * 1e3);

    CHECK (cudaEventRecord (ev[4], s));
    sorter.run < F > (pts, n, grid, out_sort, s, ev);
    CHECK (cudaEventRecord (ev[5], s));
    CHECK (cudaEventSynchronize (ev[5]));
    CHECK (cudaEventElapsedTime (&ms, ev[4], ev[5]));
    if (r >= 2) {
      t_sort.push_back (ms * 1e3);
      for (int i = 0; i < 3; i++) {
        CHECK (cudaEventElapsedTime (&ms, ev[i], ev[i + 1]));
        ph[i + 1].push_back (ms * 1e3);
      }
      CHECK (cudaEventElapsedTime (&ms, ev[4], ev[0]));
      ph[0].push_back (ms * 1e3);
    }
  }
  {
    /* Divide: from the scatter's end to the call's. */
    std::vector < double >div;
    for (size_t i = 0; i < t_sort.size (); i++)
      div.push_back (t_sort[i] - ph[0][i] - ph[1][i] - ph[2][i] - ph[3][i]);
    printf ("time  %-22s n=%-8llu library %8.1f us  sort %8.1f us  (%.2fx)  "
        "[clear %.1f count %.1f scan %.1f scatter %.1f divide %.1f]\n",
        name, (unsigned long long) n, median (t_lib), median (t_sort),
        median (t_lib) / median (t_sort), median (ph[0]), median (ph[1]),
        median (ph[2]), median (ph[3]), median (div));
  }
  CHECK (cudaFree (out_lib));
  CHECK (cudaFree (out_sort));
  CHECK (cudaFree (scratch));
  for (int i = 0; i < 6; i++)
    CHECK (cudaEventDestroy (ev[i]));
}

int
main (int argc, char **argv)
{
  int runs = argc > 1 ? atoi (argv[1]) : 30;
  const uint64_t sizes[] = { 524288, 1048576, 2097152, 4194304 };
  const uint64_t max_points = 4194304;
  const int n_clouds = 3;
  rc_point_layout one = { 16, {0, RC_TYPE_FLOAT32}, {4, RC_TYPE_FLOAT32},
  {8, RC_TYPE_FLOAT32}, 1, {{12, RC_TYPE_FLOAT32}}
  };
  rc_point_layout xyz = { 16, {0, RC_TYPE_FLOAT32}, {4, RC_TYPE_FLOAT32},
  {8, RC_TYPE_FLOAT32}, 3, {{0, RC_TYPE_FLOAT32}, {4, RC_TYPE_FLOAT32},
          {8, RC_TYPE_FLOAT32}}
  };
  rc_point_layout xyzi = xyz;
  float4 *clouds[n_clouds];
  cudaStream_t s;
  cudaDeviceProp prop;

  xyzi.n_features = 4;
  xyzi.features[3].offset = 12;
  xyzi.features[3].type = RC_TYPE_FLOAT32;
  CHECK (cudaGetDeviceProperties (&prop, 0));
  printf ("device: %s, L2 %d MB\n", prop.name, prop.l2CacheSize >> 20);
  CHECK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  for (int c = 0; c < n_clouds; c++) {
    CHECK (cudaMalloc (&clouds[c], max_points * 16));
    make_cloud <<<(unsigned) ((max_points + 255) / 256), 256, 0, s >>>
        (clouds[c], max_points, -25.6f * 1.05f, 51.2f * 1.05f, 1000 + c);
    CHECK (cudaGetLastError ());
  }
  CHECK (cudaStreamSynchronize (s));
  {
    Sorter sorter (256ull * 256 * 256, max_points);
    for (uint64_t n:sizes) {
      series < 1 > (one, "mean of intensity", n, runs, sorter, clouds,
          n_clouds, s);
      series < 3 > (xyz, "means of x, y, z", n, runs, sorter, clouds,
          n_clouds, s);
      series < 4 > (xyzi, "means of x, y, z, i", n, runs, sorter, clouds,
          n_clouds, s);
    }
  }
  CHECK (cudaStreamDestroy (s));
  return 0;
}
