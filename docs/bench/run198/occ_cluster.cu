/* Probe, run 198: occupancy through a thread block cluster's distributed
 * shared memory against one L2 atomic a point.
 *
 * Each cluster holds the whole grid as a bit mask spread over its blocks'
 * shared memory (256^3: 2 MiB over 16 blocks of 128 KiB; the KITTI
 * region's 2.74 million voxels over 2, 4 or 8).  Its blocks read a share
 * of the points and set each point's bit in the block that owns it
 * (atomicOr through map_shared_rank), then write the mask as a partial;
 * a second kernel ORs the clusters' partials, counts the occupied voxels
 * and writes a byte a voxel.  The baseline is the plain kernel as
 * voxelize.cu bins occupancy (a word's atomicOr a point after a clear).
 *
 *   nvcc -O3 -arch=sm_90 -o occ_cluster occ_cluster.cu && ./occ_cluster
 */
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace cg = cooperative_groups;

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
      printf ("CUDA error %s at %s:%d\n", cudaGetErrorString (e_), \
          __FILE__, __LINE__); exit (1); } } while (0)

struct Grid
{
  float ox, oy, oz, sx, sy, sz;
  int nx, ny, nz;
};

__host__ __device__ static inline long long
voxel_of (float4 p, const Grid & g)
{
  float fx = floorf ((p.x - g.ox) / g.sx);
  float fy = floorf ((p.y - g.oy) / g.sy);
  float fz = floorf ((p.z - g.oz) / g.sz);
  if (!(fx >= 0 && fx < g.nx && fy >= 0 && fy < g.ny && fz >= 0
          && fz < g.nz))
    return -1;
  return ((long long) fz * g.ny + (long long) fy) * g.nx + (long long) fx;
}

__device__ static void
block_add (unsigned long long *total, unsigned n)
{
  __shared__ unsigned sum;
  if (threadIdx.x == 0)
    sum = 0;
  __syncthreads ();
  for (int d = 16; d; d /= 2)
    n += __shfl_down_sync (0xffffffffu, n, d);
  if (threadIdx.x % 32 == 0 && n)
    atomicAdd (&sum, n);
  __syncthreads ();
  if (threadIdx.x == 0 && sum)
    atomicAdd (total, (unsigned long long) sum);
}

/* The baseline: a word's atomicOr a point, its old value saying which
 * point made the voxel occupied.  TEST 1 and 2 first load the word (1
 * through L1, 2 from L2 only) and skip the atomic where the voxel's byte
 * is set already: a voxel set before is counted by whoever set it. */
template < int TEST >
__global__ void __launch_bounds__ (256)
occ_atomic (const float4 * __restrict__ pts, uint64_t n, Grid g,
    uint8_t * __restrict__ out, unsigned long long *occupied)
{
  uint64_t i0 = (uint64_t) blockIdx.x * blockDim.x * 4 + threadIdx.x;
  unsigned first = 0;
  float4 p[4];
#pragma unroll
  for (int k = 0; k < 4; k++)
    if (i0 + k * 256 < n)
      p[k] = pts[i0 + k * 256];
#pragma unroll
  for (int k = 0; k < 4; k++) {
    if (i0 + k * 256 >= n)
      continue;
    long long v = voxel_of (p[k], g);
    if (v < 0)
      continue;
    unsigned shift = (unsigned) (v & 3) * 8;
    unsigned *word = (unsigned *) (out + (v & ~3ll));
    if (TEST && (((TEST == 1 ? __ldca (word) : __ldcg (word)) >> shift) &
            0xff))
      continue;
    unsigned old = atomicOr ((unsigned *) (out + (v & ~3ll)), 1u << shift);
    first += ((old >> shift) & 0xff) == 0;
  }
  block_add (occupied, first);
}

/* Each cluster's mask in its blocks' shared memory: block r owns bits
 * [r << log2_bits, (r + 1) << log2_bits). */
template < int BLOCK >
__global__ void __launch_bounds__ (BLOCK)
occ_cluster (const float4 * __restrict__ pts, uint64_t n, Grid g,
    unsigned log2_bits, uint64_t total_words, uint32_t * __restrict__ partial)
{
  extern __shared__ uint4 map4[];
  uint32_t *map = (uint32_t *) map4;
  cg::cluster_group cl = cg::this_cluster ();
  const unsigned words = 1u << (log2_bits - 5);
  const uint64_t mask = (1ull << log2_bits) - 1;
  const uint64_t stride = (uint64_t) gridDim.x * BLOCK;

  for (unsigned w = threadIdx.x; w < words / 4; w += BLOCK)
    map4[w] = make_uint4 (0, 0, 0, 0);
  cl.sync ();
  for (uint64_t i = (uint64_t) blockIdx.x * BLOCK + threadIdx.x; i < n;
      i += 4 * stride) {
    float4 p[4];
#pragma unroll
    for (int k = 0; k < 4; k++)
      if (i + k * stride < n)
        p[k] = pts[i + k * stride];
#pragma unroll
    for (int k = 0; k < 4; k++) {
      if (i + k * stride >= n)
        continue;
      long long v = voxel_of (p[k], g);
      if (v < 0)
        continue;
      uint32_t *owner = cl.map_shared_rank (map, (unsigned) (v >> log2_bits));
      atomicOr (owner + ((v & mask) >> 5), 1u << (v & 31));
    }
  }
  cl.sync ();
  {
    uint64_t cluster = blockIdx.x / cl.num_blocks ();
    uint4 *dst = (uint4 *) (partial + cluster * total_words +
        (uint64_t) cl.block_rank () * words);
    for (unsigned w = threadIdx.x; w < words / 4; w += BLOCK)
      dst[w] = map4[w];
  }
}

/* ORs the clusters' partials, counts, and writes a byte a voxel. */
__global__ void __launch_bounds__ (256)
occ_merge (const uint32_t * __restrict__ partial, unsigned n_partials,
    uint64_t total_words, uint64_t n_words, uint8_t * __restrict__ out,
    unsigned long long *occupied)
{
  uint64_t w = (uint64_t) blockIdx.x * 256 + threadIdx.x;
  unsigned x = 0;
  if (w < n_words) {
    for (unsigned c = 0; c < n_partials; c++)
      x |= partial[c * total_words + w];
    uint32_t b[8];
#pragma unroll
    for (int q = 0; q < 8; q++)
      b[q] = (((x >> (4 * q)) & 0xfu) * 0x204081u) & 0x01010101u;
    uint4 *o = (uint4 *) (out + w * 32);
    o[0] = make_uint4 (b[0], b[1], b[2], b[3]);
    o[1] = make_uint4 (b[4], b[5], b[6], b[7]);
  }
  block_add (occupied, __popc (x));
}

static float
median (std::vector < float >v)
{
  std::sort (v.begin (), v.end ());
  return v[v.size () / 2];
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static float
frand ()
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (rng >> 40) / 16777216.0f;
}

enum Shape
{ UNIFORM, SORTED, CENTRED };

static void
make_points (const Grid & g, std::vector < float4 > &p, Shape shape)
{
  float ex = g.nx * g.sx, ey = g.ny * g.sy, ez = g.nz * g.sz;
  for (auto & q:p) {
    if (shape == CENTRED) {
      /* Crowded near the grid's centre as a sweep near its sensor. */
      float r = frand (), a = frand ();
      r = r * r * r;
      q = make_float4 (g.ox + ex * (0.5f + 0.5f * r * cosf (6.2832f * a)),
          g.oy + ey * (0.5f + 0.5f * r * sinf (6.2832f * a)),
          g.oz + ez * frand (), frand ());
    } else {
      q = make_float4 (g.ox + ex * (frand () * 1.02f - 0.01f),
          g.oy + ey * frand (), g.oz + ez * frand (), frand ());
    }
  }
  if (shape == SORTED)
    std::sort (p.begin (), p.end (),[&](const float4 & a, const float4 & b) {
          return voxel_of (a, g) < voxel_of (b, g);});
}

struct Case
{
  const char *name;
  Grid g;
  uint64_t n;
  Shape shape;
};

int
main ()
{
  const Grid cube = { -25.6f, -25.6f, -25.6f, 0.2f, 0.2f, 0.2f, 256, 256,
    256
  };
  const Grid kitti = { 0.f, -39.6f, -3.f, 0.2f, 0.2f, 0.2f, 346, 396, 20 };
  const Case cases[] = {
    {"256cube-n1048576", cube, 1 << 20, UNIFORM},
    {"256cube-n4194304", cube, 1 << 22, UNIFORM},
    {"256cube-sorted-n4194304", cube, 1 << 22, SORTED},
    {"256cube-centred-n1048576", cube, 1 << 20, CENTRED},
    {"256cube-centred-n4194304", cube, 1 << 22, CENTRED},
    {"kitti-n1048576", kitti, 1 << 20, UNIFORM},
    {"kitti-n4194304", kitti, 1 << 22, UNIFORM},
    {"kitti-centred-n4194304", kitti, 1 << 22, CENTRED},
    {"kitti-sorted-n4194304", kitti, 1 << 22, SORTED},
  };
  const int kSets = 3, kRuns = 30;
  cudaDeviceProp prop;
  float4 *d_pts[kSets];
  uint8_t *d_out;
  uint32_t *d_partial;
  unsigned long long *d_occ;
  cudaEvent_t e0, e1;
  int bad = 0;

  CK (cudaGetDeviceProperties (&prop, 0));
  printf ("%s, %d SMs, %zu KiB shared a block at most\n", prop.name,
      prop.multiProcessorCount, prop.sharedMemPerBlockOptin / 1024);
  for (int s = 0; s < kSets; s++)
    CK (cudaMalloc (&d_pts[s], (sizeof (float4)) << 22));
  CK (cudaMalloc (&d_out, 1 << 24));
  CK (cudaMalloc (&d_partial, 64u << 20));
  CK (cudaMalloc (&d_occ, 8));
  CK (cudaEventCreate (&e0));
  CK (cudaEventCreate (&e1));
  CK (cudaFuncSetAttribute (occ_cluster < 1024 >,
          cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  CK (cudaFuncSetAttribute (occ_cluster < 1024 >,
          cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  CK (cudaFuncSetAttribute (occ_cluster < 512 >,
          cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  CK (cudaFuncSetAttribute (occ_cluster < 512 >,
          cudaFuncAttributeNonPortableClusterSizeAllowed, 1));

  printf ("%-26s %-22s %8s %8s %10s\n", "case", "variant", "us", "x base",
      "occupied");
  for (const Case & c:cases) {
    uint64_t nv = (uint64_t) c.g.nx * c.g.ny * c.g.nz;
    uint64_t n_words = (nv + 31) / 32;
    std::vector < float4 > h (c.n);
    std::vector < std::vector < uint8_t > >want (kSets,
        std::vector < uint8_t > (nv));
    unsigned long long want_occ[kSets];
    float base_us = 0;

    for (int s = 0; s < kSets; s++) {
      make_points (c.g, h, c.shape);
      want_occ[s] = 0;
      for (auto & q:h) {
        long long v = voxel_of (q, c.g);
        if (v >= 0 && !want[s][v]) {
          want[s][v] = 1;
          want_occ[s]++;
        }
      }
      CK (cudaMemcpy (d_pts[s], h.data (), c.n * sizeof (float4),
              cudaMemcpyHostToDevice));
    }
    /* Variant -1: the baseline; else cluster size 2^k, block size. */
    struct V
    {
      int csize, block;
    } vars[] = { {0, 0}, {0, 1}, {0, 2}, {4, 1024}, {16, 1024} };
    for (const V & var:vars) {
      unsigned log2_bits = 0;
      int n_clusters = 0;
      cudaLaunchConfig_t cfg = { };
      cudaLaunchAttribute attr[1];
      size_t smem = 0;
      char vname[32];

      if (var.csize) {
        while ((1ull << log2_bits) * var.csize < nv)
          log2_bits++;
        if (log2_bits < 7)
          log2_bits = 7;
        smem = (1ull << log2_bits) / 8;
        if (smem > 200 * 1024)
          continue;
        cfg.gridDim = dim3 (var.csize);
        cfg.blockDim = dim3 (var.block);
        cfg.dynamicSmemBytes = smem;
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = var.csize;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        if (var.block == 1024)
          CK (cudaOccupancyMaxActiveClusters (&n_clusters,
                  (void *) occ_cluster < 1024 >, &cfg));
        else
          CK (cudaOccupancyMaxActiveClusters (&n_clusters,
                  (void *) occ_cluster < 512 >, &cfg));
        if (n_clusters == 0)
          continue;
        cfg.gridDim = dim3 (n_clusters * var.csize);
        snprintf (vname, sizeof vname, "cluster%dx%d (%d)", var.csize,
            var.block, n_clusters);
      } else {
        snprintf (vname, sizeof vname, var.block ? "test%d+atomic" :
            "atomic", var.block);
      }
      uint64_t total_words = var.csize ? ((uint64_t) var.csize << log2_bits)
          / 32 : 0;
      std::vector < float >t;
      for (int r = -3; r < kRuns; r++) {
        int s = (r + 3) % kSets;
        CK (cudaMemset (d_out, 0xAB, nv));
        CK (cudaEventRecord (e0));
        CK (cudaMemsetAsync (d_occ, 0, 8));
        if (var.csize == 0) {
          CK (cudaMemsetAsync (d_out, 0, (nv + 3) & ~3ull));
          if (var.block == 0)
            occ_atomic < 0 > <<< (c.n + 1023) / 1024, 256 >>> (d_pts[s],
                c.n, c.g, d_out, d_occ);
          else if (var.block == 1)
            occ_atomic < 1 > <<< (c.n + 1023) / 1024, 256 >>> (d_pts[s],
                c.n, c.g, d_out, d_occ);
          else
            occ_atomic < 2 > <<< (c.n + 1023) / 1024, 256 >>> (d_pts[s],
                c.n, c.g, d_out, d_occ);
        } else {
          if (var.block == 1024)
            CK (cudaLaunchKernelEx (&cfg, occ_cluster < 1024 >, d_pts[s],
                    c.n, c.g, log2_bits, total_words, d_partial));
          else
            CK (cudaLaunchKernelEx (&cfg, occ_cluster < 512 >, d_pts[s],
                    c.n, c.g, log2_bits, total_words, d_partial));
          occ_merge <<< (n_words + 255) / 256, 256 >>> (d_partial,
              n_clusters, total_words, n_words, d_out, d_occ);
        }
        CK (cudaGetLastError ());
        CK (cudaEventRecord (e1));
        CK (cudaEventSynchronize (e1));
        float ms;
        CK (cudaEventElapsedTime (&ms, e0, e1));
        if (r >= 0)
          t.push_back (ms * 1000);
        if (r >= kRuns - kSets) {
          std::vector < uint8_t > got (nv);
          unsigned long long occ;
          CK (cudaMemcpy (got.data (), d_out, nv, cudaMemcpyDeviceToHost));
          CK (cudaMemcpy (&occ, d_occ, 8, cudaMemcpyDeviceToHost));
          if (memcmp (got.data (), want[s].data (), nv) || occ != want_occ[s]) {
            printf ("MISMATCH %s %s set %d: occupied %llu want %llu\n",
                c.name, vname, s, occ, want_occ[s]);
            bad++;
          }
        }
      }
      float us = median (t);
      if (var.csize == 0 && var.block == 0)
        base_us = us;
      printf ("%-26s %-22s %8.1f %8.2f %10llu\n", c.name, vname, us,
          us / base_us, want_occ[0]);
    }
  }
  printf (bad ? "FAIL: %d mismatches\n" : "all outputs match the host's\n",
      bad);
  return bad != 0;
}
