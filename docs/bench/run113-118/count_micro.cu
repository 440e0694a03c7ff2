// Session 2026-11-28 (tenth): count voxelization of large clouds, variants
// of the binning.  Not the project's code: a probe for issue 23's knee.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <random>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
#define DIM 256
#define NV ((uint64_t) DIM * DIM * DIM)
__device__ __forceinline__ int locate (const float4 p, uint32_t * v) {
  int x = (int) floorf ((p.x + 25.6f) / 0.2f), y = (int) floorf ((p.y + 25.6f) / 0.2f),
      z = (int) floorf ((p.z + 25.6f) / 0.2f);
  if (x < 0 || y < 0 || z < 0 || x >= DIM || y >= DIM || z >= DIM) return 0;
  *v = ((uint32_t) z * DIM + y) * DIM + x; return 1;
}
__global__ void k_ret (const float4 * pts, uint64_t n, uint32_t * g, unsigned long long *occ) {
  uint64_t p = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x; uint32_t v; bool first = false;
  if (p < n && locate (pts[p], &v)) first = atomicAdd (g + v, 1u) == 0;
  int c = __syncthreads_count (first); if (threadIdx.x == 0 && c) atomicAdd (occ, (unsigned long long) c);
}
template <int K> __global__ void k_ret_ilp (const float4 * pts, uint64_t n, uint32_t * g, unsigned long long *occ) {
  uint64_t base = (uint64_t) blockIdx.x * blockDim.x * K + threadIdx.x; int first = 0; uint32_t v[K]; bool in[K]; unsigned o[K];
#pragma unroll
  for (int k = 0; k < K; k++) { uint64_t p = base + k * blockDim.x; in[k] = p < n && locate (pts[p], &v[k]); }
#pragma unroll
  for (int k = 0; k < K; k++) o[k] = in[k] ? atomicAdd (g + v[k], 1u) : 1u;
#pragma unroll
  for (int k = 0; k < K; k++) first += o[k] == 0;
  int c = __syncthreads_count (0) ; (void) c;
  __shared__ int s; if (threadIdx.x == 0) s = 0; __syncthreads (); if (first) atomicAdd (&s, first); __syncthreads ();
  if (threadIdx.x == 0 && s) atomicAdd (occ, (unsigned long long) s);
}
__global__ void k_red (const float4 * pts, uint64_t n, uint32_t * g) {
  uint64_t p = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x; uint32_t v;
  if (p < n && locate (pts[p], &v)) atomicAdd (g + v, 1u);
}
__global__ void k_occ (const uint4 * g, uint64_t n4, unsigned long long *occ) {
  uint64_t i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x, st = (uint64_t) gridDim.x * blockDim.x; int c = 0;
  for (; i < n4; i += st) { uint4 w = g[i]; c += (w.x != 0) + (w.y != 0) + (w.z != 0) + (w.w != 0); }
  for (int d = 16; d; d /= 2) c += __shfl_down_sync (~0u, c, d);
  if (threadIdx.x % 32 == 0 && c) atomicAdd (occ, (unsigned long long) c);
}
// slab partition: SLABS slabs along z
#define SLABS 16
__global__ void k_idx (const float4 * pts, uint64_t n, uint32_t * idx, uint32_t * hist) {
  __shared__ uint32_t h[SLABS]; if (threadIdx.x < SLABS) h[threadIdx.x] = 0; __syncthreads ();
  uint64_t p = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x; uint32_t v = 0xffffffffu;
  if (p < n && locate (pts[p], &v)) atomicAdd (&h[v / (NV / SLABS)], 1u);
  if (p < n) idx[p] = v; __syncthreads ();
  if (threadIdx.x < SLABS && h[threadIdx.x]) atomicAdd (hist + threadIdx.x, h[threadIdx.x]);
}
__global__ void k_scatter (const uint32_t * idx, uint64_t n, const uint32_t * hist, uint32_t * cursor, uint32_t * sorted) {
  __shared__ uint32_t start[SLABS];
  if (threadIdx.x == 0) { uint32_t a = 0; for (int s = 0; s < SLABS; s++) { start[s] = a; a += hist[s]; } } __syncthreads ();
  uint64_t p = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x; uint32_t v = p < n ? idx[p] : 0xffffffffu;
  unsigned slab = v == 0xffffffffu ? SLABS : v / (NV / SLABS);
  unsigned peers = __match_any_sync (~0u, slab); unsigned lane = threadIdx.x % 32; unsigned leader = __ffs (peers) - 1; uint32_t b = 0;
  if (slab < SLABS && lane == leader) b = atomicAdd (cursor + slab, __popc (peers));
  b = __shfl_sync (~0u, b, leader);
  if (slab < SLABS) sorted[start[slab] + b + __popc (peers & ((1u << lane) - 1))] = v;
}
__global__ void k_count_sorted (const uint32_t * sorted, const uint32_t * hist, uint32_t * g, unsigned long long *occ) {
  __shared__ uint32_t total; if (threadIdx.x == 0) { uint32_t a = 0; for (int s = 0; s < SLABS; s++) a += hist[s]; total = a; } __syncthreads ();
  uint64_t p = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x; bool first = false;
  if (p < total) first = atomicAdd (g + sorted[p], 1u) == 0;
  int c = __syncthreads_count (first); if (threadIdx.x == 0 && c) atomicAdd (occ, (unsigned long long) c);
}
__global__ void k_count_sorted_red (const uint32_t * sorted, const uint32_t * hist, uint32_t * g) {
  __shared__ uint32_t total; if (threadIdx.x == 0) { uint32_t a = 0; for (int s = 0; s < SLABS; s++) a += hist[s]; total = a; } __syncthreads ();
  uint64_t p = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (p < total) atomicAdd (g + sorted[p], 1u);
}
int main (int argc, char **argv) {
  std::vector<uint64_t> sizes = {131072, 262144, 524288, 1048576, 2097152, 4194304};
  uint64_t maxn = 4194304; float4 *d_pts; uint32_t *g, *idx, *sorted, *hist; unsigned long long *occ;
  CK (cudaMalloc (&d_pts, maxn * 16)); CK (cudaMalloc (&g, NV * 4)); CK (cudaMalloc (&idx, maxn * 4)); CK (cudaMalloc (&sorted, maxn * 4));
  CK (cudaMalloc (&hist, 2 * SLABS * 4)); CK (cudaMalloc (&occ, 8));
  std::mt19937 rng (7); std::uniform_real_distribution<float> u (-25.6f, 25.6f);
  std::vector<float4> h (maxn); for (auto & q : h) q = make_float4 (u (rng), u (rng), u (rng), 1.f);
  CK (cudaMemcpy (d_pts, h.data (), maxn * 16, cudaMemcpyHostToDevice));
  cudaEvent_t a, b; cudaEventCreate (&a); cudaEventCreate (&b);
  void *big1, *big2; size_t GB = 1 << 30; CK (cudaMalloc (&big1, GB)); CK (cudaMalloc (&big2, GB));
  std::vector<float> t; for (int i = 0; i < 12; i++) { cudaEventRecord (a); cudaMemcpyAsync (big2, big1, GB, cudaMemcpyDeviceToDevice); cudaEventRecord (b); cudaEventSynchronize (b); float ms; cudaEventElapsedTime (&ms, a, b); t.push_back (ms); }
  std::sort (t.begin (), t.end ()); double bw = 2.0 * GB / (t[6] * 1e-3) / 1e9; printf ("copy bandwidth %.0f GB/s\n", bw);
  cudaFree (big1); cudaFree (big2);
  uint32_t *cursor = hist + SLABS;
  for (uint64_t n : sizes) {
    unsigned nb = (unsigned) ((n + 255) / 256);
    double floor_us = (n * 16.0 + NV * 4.0) / bw / 1e3;
    printf ("n=%lu floor %.1f us\n", (unsigned long) n, floor_us);
    for (int var = 0; var < 7; var++) {
      std::vector<float> ts; unsigned long long oc = 0;
      for (int r = 0; r < 25; r++) {
        cudaEventRecord (a);
        cudaMemsetAsync (g, 0, NV * 4); cudaMemsetAsync (occ, 0, 8);
        switch (var) {
        case 0: k_ret<<<nb, 256>>> (d_pts, n, g, occ); break;
        case 1: k_red<<<nb, 256>>> (d_pts, n, g); k_occ<<<132 * 8, 256>>> ((const uint4 *) g, NV / 4, occ); break;
        case 2: k_ret_ilp<4><<<(nb + 3) / 4, 256>>> (d_pts, n, g, occ); break;
        case 3: k_red<<<nb, 256>>> (d_pts, n, g); break;
        case 4: case 5: case 6:
          cudaMemsetAsync (hist, 0, 2 * SLABS * 4);
          k_idx<<<nb, 256>>> (d_pts, n, idx, hist);
          k_scatter<<<nb, 256>>> (idx, n, hist, cursor, sorted);
          if (var == 4) k_count_sorted<<<nb, 256>>> (sorted, hist, g, occ);
          else if (var == 5) { k_count_sorted_red<<<nb, 256>>> (sorted, hist, g); k_occ<<<132 * 8, 256>>> ((const uint4 *) g, NV / 4, occ); }
          else k_count_sorted_red<<<nb, 256>>> (sorted, hist, g);
          break;
        }
        cudaEventRecord (b); CK (cudaEventSynchronize (b)); CK (cudaGetLastError ());
        float ms; cudaEventElapsedTime (&ms, a, b); if (r >= 3) ts.push_back (ms * 1e3f);
      }
      cudaMemcpy (&oc, occ, 8, cudaMemcpyDeviceToHost);
      std::sort (ts.begin (), ts.end ());
      static const char *names[] = {"returning (now)", "RED + occupied pass", "returning, 4 points a thread", "RED, no occupied", "slab-sorted, returning", "slab-sorted RED + occupied pass", "slab-sorted RED, no occupied"};
      printf ("  %-34s %8.1f us  %5.2fx floor  occupied %llu\n", names[var], ts[ts.size () / 2], ts[ts.size () / 2] / floor_us, (var == 3 || var == 6) ? 0ull : oc);
    }
  }
  return 0;
}
