/* Probe (run 163): dense means (and counts) of large clouds by a radix
 * sort of the points by voxel (CUB's DeviceRadixSort, a stable LSD sort of
 * 8-bit digits), against the library's rc_voxelize_cuda on the same clouds.
 *
 * Why: the library's counting sort (3058254) ranks each point in its voxel
 * with an atomic into the 64 MiB count grid, scans the counts, then moves
 * each point's features to a random slot: three random passes over DRAM,
 * 161 + 50 + 295 us of the 711 that four features of 4,194,304 points
 * take on an H200 (run 157).  A radix sort touches no grid: each pass
 * sorts in shared memory and writes runs.  Then each block of 256 voxels
 * finds its points (a pass over the sorted keys gives each block its first
 * point), counts them per voxel with shared-memory atomics, and each
 * thread sums its voxel's run in input order (the sort is stable): one
 * ordering, so one result, run to run.
 *   1. keys: each point's voxel (a point outside the grid: n_voxels, sorted
 *      last) and its index;
 *   2. CUB SortPairs over the bits of n_voxels (25 for 256^3: four passes);
 *   3. starts: each block of 256 voxels' first sorted point;
 *   4. divide: counts per voxel in shared memory, their exclusive sum, each
 *      voxel's features gathered from the cloud by index, summed, divided,
 *      every plane written (0 where empty); the occupied counted.
 * Prediction at 4,194,304 points: keys ~25 us, sort ~80, starts ~8,
 * divide ~60 (counts, one feature) to ~110 (four): ~175 to ~225 us, against
 * 149 (counts), 341, 779 and 711 (run 160).
 *
 * Packed float32 x, y, z, intensity (16 bytes a point) only, statistics
 * but the occupied voxels left out: a probe of the cost, not the library's
 * general code.  Output checked against the library's on every size.
 *
 * Build (here): nvcc -O3 -std=c++17 -arch=sm_90 -Ikernels
 *   docs/bench/run163-169/radix_means_probe.cu -Lbuild/kernels
 *   -lrobocache-kernels-1.0 -o build/probe/radix_means_probe
 * Run: radix_means_probe [runs] */
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

static const int kBlock = 256;  /* threads, and voxels a divide block */

/* 1: each point's voxel and index. */
__global__ void __launch_bounds__ (kBlock)
make_keys (const float4 * __restrict__ pts, uint32_t n,
    const __grid_constant__ rc_voxel_grid grid, uint32_t * __restrict__ keys,
    uint32_t * __restrict__ index)
{
  uint32_t p = blockIdx.x * kBlock + threadIdx.x;
  uint64_t v = 0;

  if (p >= n)
    return;
  float4 q = __ldcs (pts + p);
  bool in = rc_voxel_locate_xyz (q.x, q.y, q.z, &grid, &v) ==
      RC_POINT_IN_GRID;
  keys[p] = in ? (uint32_t) v : (uint32_t) rc_voxel_grid_n_voxels_hd (&grid);
  index[p] = p;
}

/* 3: starts[b] = the first sorted point of voxel block b, for b up to
 * n_blocks (its end). */
__global__ void __launch_bounds__ (kBlock)
block_starts (const uint32_t * __restrict__ keys, uint32_t n, uint32_t nv,
    uint32_t n_blocks, uint32_t * __restrict__ starts)
{
  uint32_t i = blockIdx.x * kBlock + threadIdx.x;

  if (i > n)
    return;
  int64_t prev = i == 0 ? -1 : keys[i - 1] >= nv ? (int64_t) n_blocks :
      (int64_t) (keys[i - 1] / kBlock);
  int64_t cur = i == n || keys[i] >= nv ? (int64_t) n_blocks :
      (int64_t) (keys[i] / kBlock);
  for (int64_t b = prev + 1; b <= cur; b++)
    starts[b] = i;
}

/* 4: a block of kBlock voxels: its points counted per voxel, each voxel's
 * run summed in input order and divided (F = 0: the counts written). */
template < int F >
__global__ void __launch_bounds__ (kBlock)
divide (const uint32_t * __restrict__ starts,
    const uint32_t * __restrict__ keys, const uint32_t * __restrict__ index,
    const float4 * __restrict__ pts, uint64_t nv, float *__restrict__ out,
    unsigned long long *occupied)
{
  __shared__ uint32_t count[kBlock];
  typedef cub::BlockScan < uint32_t, kBlock > Scan;
  __shared__ typename Scan::TempStorage scan;
  uint32_t b = blockIdx.x;
  uint32_t lo = starts[b], hi = starts[b + 1];
  uint64_t v = (uint64_t) b * kBlock + threadIdx.x;
  uint32_t mine, at, n = 0;
  float sum[4] = { 0, 0, 0, 0 };

  count[threadIdx.x] = 0;
  __syncthreads ();
  for (uint32_t i = lo + threadIdx.x; i < hi; i += kBlock)
    atomicAdd (&count[keys[i] - b * kBlock], 1u);
  __syncthreads ();
  mine = count[threadIdx.x];
  Scan (scan).ExclusiveSum (mine, at);
  for (uint32_t i = lo + at; i < lo + at + mine; i++) {
    uint32_t p = index[i];
    n++;
    if (F > 0) {
      float4 q = __ldg (pts + p);
      if (F == 1) {
        sum[0] += q.w;
      } else {
        sum[0] += q.x;
        sum[1] += q.y;
        sum[2] += q.z;
        sum[3] += q.w;
      }
    }
  }
  if (v < nv) {
    if (F == 0)
      __stcs ((uint32_t *) out + v, n);
#pragma unroll
    for (int f = 0; f < F; f++)
      __stcs (out + f * nv + v, n ? sum[f] / (float) n : 0.0f);
  }
  int n_busy = __syncthreads_count (n != 0 && v < nv);
  if (threadIdx.x == 0 && n_busy)
    atomicAdd (occupied, (unsigned long long) n_busy);
}

struct Sorter
{
  uint64_t nv, max_points;
  uint32_t n_blocks, bits;
  uint32_t *keys[2], *index[2], *starts;
  void *temp;
  size_t temp_bytes;
  unsigned long long *occupied;

  Sorter (uint64_t nv_, uint64_t max_points_) : nv (nv_),
      max_points (max_points_), temp (nullptr), temp_bytes (0)
  {
    n_blocks = (uint32_t) ((nv + kBlock - 1) / kBlock);
    /* Room for the sentinel nv, a point outside the grid: 25 bits for
     * 256^3. */
    bits = 0;
    while ((1ull << bits) <= nv)
      bits++;
    for (int i = 0; i < 2; i++) {
      CHECK (cudaMalloc (&keys[i], max_points * 4));
      CHECK (cudaMalloc (&index[i], max_points * 4));
    }
    CHECK (cudaMalloc (&starts, (n_blocks + 1) * 4));
    CHECK (cudaMalloc (&occupied, 8));
    for (uint64_t n = 1 << 16; n <= max_points; n *= 2) {
      cub::DoubleBuffer < uint32_t > k (keys[0], keys[1]), x (index[0],
          index[1]);
      size_t bytes = 0;
      CHECK (cub::DeviceRadixSort::SortPairs (nullptr, bytes, k, x, (int) n,
              0, bits));
      printf ("cub temp: %llu points %zu bytes (%.3f a point)\n",
          (unsigned long long) n, bytes, (double) bytes / n);
      temp_bytes = std::max (temp_bytes, bytes);
    }
    CHECK (cudaMalloc (&temp, temp_bytes));
  }

  /* @phase: events between the steps, or NULL. */
  template < int F > void run (const float4 * pts, uint64_t n,
      const rc_voxel_grid & grid, float *out, cudaStream_t s,
      cudaEvent_t * phase)
  {
    cub::DoubleBuffer < uint32_t > k (keys[0], keys[1]), x (index[0],
        index[1]);
    size_t bytes = temp_bytes;

    CHECK (cudaMemsetAsync (occupied, 0, 8, s));
    if (phase)
      CHECK (cudaEventRecord (phase[0], s));
    make_keys <<<(unsigned) ((n + kBlock - 1) / kBlock), kBlock, 0, s >>>
        (pts, (uint32_t) n, grid, keys[0], index[0]);
    CHECK (cudaGetLastError ());
    if (phase)
      CHECK (cudaEventRecord (phase[1], s));
    CHECK (cub::DeviceRadixSort::SortPairs (temp, bytes, k, x, (int) n, 0,
            bits, s));
    if (phase)
      CHECK (cudaEventRecord (phase[2], s));
    block_starts <<<(unsigned) ((n + kBlock) / kBlock), kBlock, 0, s >>>
        (k.Current (), (uint32_t) n, (uint32_t) nv, n_blocks, starts);
    CHECK (cudaGetLastError ());
    if (phase)
      CHECK (cudaEventRecord (phase[3], s));
    divide < F > <<<n_blocks, kBlock, 0, s >>> (starts, k.Current (),
        x.Current (), pts, nv, out, occupied);
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

/* F = 0: counts. */
template < int F > static void
series (const rc_point_layout & layout, const char *name, uint64_t n,
    int runs, Sorter & sorter, float4 ** clouds, int n_clouds,
    cudaStream_t s)
{
  rc_voxel_grid grid = { {-25.6, -25.6, -25.6}, {0.2, 0.2, 0.2},
  {256, 256, 256}, F == 0 ? RC_VOXEL_COUNT : RC_VOXEL_MEAN
  };
  uint64_t nv = rc_voxel_grid_n_voxels (&grid);
  uint64_t planes = F == 0 ? 1 : F;
  uint64_t out_bytes = rc_voxelize_output_size (&layout, &grid);
  uint64_t scratch_bytes = rc_voxelize_cuda_scratch_size (&layout, &grid, 1,
      n);
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

  /* Correctness on each cloud, outputs poisoned first; the radix sort
   * twice, which must agree to the bit (one order of summation). */
  for (int c = 0; c < n_clouds; c++) {
    std::vector < float >a (nv * planes), b (nv * planes), b2 (nv * planes);
    unsigned long long occ = 0;
    rc_voxelize_stats st;
    rc_voxelize_stats *pst;
    double worst = 0;
    uint64_t bad = 0, unequal = 0;

    CHECK_RC (rc_host_alloc ((void **) &pst, sizeof *pst));
    CHECK (cudaMemsetAsync (out_lib, 0xff, out_bytes, s));
    CHECK (cudaMemsetAsync (out_sort, 0xff, out_bytes, s));
    CHECK_RC (rc_voxelize_cuda (&layout, &grid, clouds[c], &n, 1, out_lib,
            scratch, pst, s));
    sorter.run < F > (clouds[c], n, grid, out_sort, s, nullptr);
    CHECK (cudaStreamSynchronize (s));
    st = *pst;
    rc_host_free (pst);
    CHECK (cudaMemcpy (a.data (), out_lib, nv * planes * 4,
            cudaMemcpyDeviceToHost));
    CHECK (cudaMemcpy (b.data (), out_sort, nv * planes * 4,
            cudaMemcpyDeviceToHost));
    CHECK (cudaMemcpy (&occ, sorter.occupied, 8, cudaMemcpyDeviceToHost));
    CHECK (cudaMemsetAsync (out_sort, 0xff, out_bytes, s));
    sorter.run < F > (clouds[c], n, grid, out_sort, s, nullptr);
    CHECK (cudaStreamSynchronize (s));
    CHECK (cudaMemcpy (b2.data (), out_sort, nv * planes * 4,
            cudaMemcpyDeviceToHost));
    for (uint64_t i = 0; i < nv * planes; i++) {
      double x = F == 0 ? (double) ((uint32_t *) a.data ())[i] : a[i];
      double y = F == 0 ? (double) ((uint32_t *) b.data ())[i] : b[i];
      double d = fabs (x - y) / (1.0 + fabs (x));
      if (!(d <= 1e-5))
        bad++;
      if (d > worst || d != d)
        worst = d;
      if (((uint32_t *) b.data ())[i] != ((uint32_t *) b2.data ())[i])
        unequal++;
    }
    printf ("check %-22s n=%-8llu cloud %d: occupied lib %llu sort %llu, "
        "in grid %llu, worst rel diff %.2e, %llu values over 1e-5, %llu "
        "differ between two sorts -> %s\n",
        name, (unsigned long long) n, c, (unsigned long long) st.occupied,
        occ, (unsigned long long) st.in_grid, worst,
        (unsigned long long) bad, (unsigned long long) unequal, bad == 0 &&
        unequal == 0 && occ == st.occupied ? "OK" : "FAIL");
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
    /* Divide: from the starts' end to the call's. */
    std::vector < double >div;
    for (size_t i = 0; i < t_sort.size (); i++)
      div.push_back (t_sort[i] - ph[0][i] - ph[1][i] - ph[2][i] - ph[3][i]);
    printf ("time  %-22s n=%-8llu library %8.1f us  radix %8.1f us  (%.2fx)  "
        "[set-up %.1f keys %.1f sort %.1f starts %.1f divide %.1f]\n",
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
  const uint64_t sizes[] = { 262144, 524288, 1048576, 2097152, 4194304 };
  const uint64_t max_points = 4194304;
  const int n_clouds = 3;
  rc_point_layout none = { 16, {0, RC_TYPE_FLOAT32}, {4, RC_TYPE_FLOAT32},
  {8, RC_TYPE_FLOAT32}, 0, {}
  };
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
    /* What the sentinel's 25th bit costs: the sort alone over 24 and 25
     * bits, keys of the last cloud's points. */
    for (uint64_t n:sizes)
      for (uint32_t bits = 24; bits <= 25; bits++) {
        std::vector < double >t;
        cudaEvent_t e0, e1;
        rc_voxel_grid g = { {-25.6, -25.6, -25.6}, {0.2, 0.2, 0.2},
        {256, 256, 256}, RC_VOXEL_COUNT
        };
        CHECK (cudaEventCreate (&e0));
        CHECK (cudaEventCreate (&e1));
        for (int r = 0; r < runs + 2; r++) {
          cub::DoubleBuffer < uint32_t > k (sorter.keys[0], sorter.keys[1]),
              x (sorter.index[0], sorter.index[1]);
          size_t bytes = sorter.temp_bytes;
          float ms;
          make_keys <<<(unsigned) ((n + kBlock - 1) / kBlock), kBlock, 0,
              s >>> (clouds[r % n_clouds], (uint32_t) n, g, sorter.keys[0],
              sorter.index[0]);
          CHECK (cudaEventRecord (e0, s));
          CHECK (cub::DeviceRadixSort::SortPairs (sorter.temp, bytes, k, x,
                  (int) n, 0, bits, s));
          CHECK (cudaEventRecord (e1, s));
          CHECK (cudaEventSynchronize (e1));
          CHECK (cudaEventElapsedTime (&ms, e0, e1));
          if (r >= 2)
            t.push_back (ms * 1e3);
        }
        printf ("sort  n=%-8llu %u bits: %.1f us\n", (unsigned long long) n,
            bits, median (t));
        CHECK (cudaEventDestroy (e0));
        CHECK (cudaEventDestroy (e1));
      }
    for (uint64_t n:sizes) {
      series < 0 > (none, "counts", n, runs, sorter, clouds, n_clouds, s);
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
