/* Voxelization on the GPU: a thread per point (four in large clouds), the
 * same per-point maths as the CPU reference (voxelize-math.h), counts by
 * atomics, statistics reduced per block before one atomic each.  Counts,
 * occupancy, the centroids and a mean divided whole add a run of a warp's
 * neighbouring points in one voxel (a lidar sweep in scan order) in one
 * atomic (find_run); occupancy of a crowded cloud looks at a voxel
 * before its atomic (warp_crowded).
 *
 * Each cloud is a clear then a binning launch (a large cloud's count grid,
 * or a mean's sums and counts, larger than the L2 cache: a pair a slab of
 * it, the mean's slab divided right after).  On Hopper and later the
 * binning launch is a programmatic dependent of the clear: its blocks start
 * while the clear's last blocks run, read and locate their points, and wait
 * for the clear (griddepcontrol.wait) only before they write.  A mean's
 * division and the centroids' writer are dependents of binning too, which
 * lets them start only as its blocks end: their launch overlaps binning's
 * tail, not its work.  Elsewhere the launches are ordered by the stream as
 * usual.
 *
 * The centroids are the mean's sums, in scratch, then put in voxel order
 * without a sort: binning also marks occupied voxels in a bit mask and
 * counts each tile's.  A record with a float to spare past its sums (x, y
 * and z, robocachevoxelize's default) holds its voxel's count there, added
 * by the sums' vector atomic, whose old count says which point is the
 * voxel's first (centroid_counted).  A block a tile sums the counts of
 * the tiles before it into its first point, ranks its voxels from the
 * mask and writes its points.  Writing them zeroes what binning touched,
 * so the scratch is left clear for the next call, which skips the clear
 * (scratch_header) but for the tile counts.  A mean of
 * a cloud small against its grid lists its occupied voxels as binning
 * finds them and divides only those, zeroing their counts as it goes: the
 * next call clears its output grid, not the counts.  A larger cloud
 * divides every voxel by its count, as reading the whole count grid then
 * costs less than listing and visiting the occupied; that division also
 * counts the occupied voxels, so that its binning's atomics need not
 * return their old values.  A large mean of one or three features sums
 * each voxel's features and count side by side, a record a voxel (one
 * vector atomic a point), a slab's records at a time in the counts' room,
 * and their division writes the slab's planes whole.  A large, sparse mean
 * of three features or more is sorted instead (voxelize-sort.cu): each point
 * keyed by its voxel, the keys radix-sorted with the points' indices, each
 * block of voxels' run of points found in the sorted keys and each voxel's
 * points summed in the cloud's order.  Counts and means of up to four
 * features of a large cloud into a grid larger than the L2 cache are
 * partitioned before all these (voxelize-partition.cu): the points put in
 * order of their tile of the grid, each tile counted (and summed) in
 * shared memory and written whole.
 *
 * This file plans the slabs and bins; the clear, the divisions and
 * the centroids' compaction are in voxelize-output.cu. */
#include "dependent-launch.cuh"
#include "launch-bounds.cuh"
#include "voxelize-cuda.cuh"
#include "warp-runs.cuh"

/* A mean lists and divides only its occupied voxels when its cloud has at
 * most one point for this many voxels.  On 256^3, H100 (run 141, against
 * c217717, which marked a bit mask up to 1/128): 16,384 points 38 us
 * against 51, 131,072 58 against 100, 262,144 96 against 135 (divided
 * whole), 196,608 76 against 122 divided whole in run 140.  Up to 1/32
 * rather than 1/64 (run 142, H200): 393,216 points 105 us against 147,
 * 524,288 128 against 154.  The list takes the room of a bit mask: a word
 * for 32 voxels. */
#ifndef MEAN_MARKED_VOXELS_PER_POINT
#define MEAN_MARKED_VOXELS_PER_POINT 32u
#endif
static_assert (MEAN_MARKED_VOXELS_PER_POINT >= 32,
    "a marked mean's list fits a word for 32 voxels");


/* What a centroids or mean call's scratch layout depends on; with
 * @records, a mean's records' (all zero where its counts may not be);
 * never 0. */
static unsigned long long
scratch_key (rc_voxel_mode mode, uint64_t n_voxels, uint32_t n_features,
    uint32_t n_clouds, bool records)
{
  unsigned long long z = n_voxels * 0x9E3779B97F4A7C15ull ^
      ((unsigned long long) n_features << 48) ^
      ((unsigned long long) records << 56) ^
      ((unsigned long long) mode << 40) ^
      ((unsigned long long) n_clouds << 16);

  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (z ^ (z >> 31)) | 1;
}

/* Adds @point's features to voxel @v's sums: the mean's in a plane a
 * feature (its output grid), or with @record side by side, @record floats
 * a voxel (rc_voxel_record_floats): the centroids' sums, or with
 * @counted a mean record's sums then its count.  Hopper adds a record four
 * or two floats at a time: one L2 operation where there were four. */
__device__ static void
add_features (const rc_point_layout * layout, const uint8_t * point,
    float *__restrict__ sums, uint64_t v, uint64_t n_voxels, uint32_t record,
    bool counted)
{
  uint32_t count_at = counted ? layout->n_features : UINT32_MAX;

  if (record == 0) {
    for (uint32_t f = 0; f < layout->n_features; f++)
      atomicAdd (sums + f * n_voxels + v, record_value (layout, point, f,
              count_at));
    return;
  }
  sums += v * record;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (record % 4 == 0) {
    for (uint32_t f = 0; f < record; f += 4)
      atomicAdd ((float4 *) (sums + f), make_float4 (record_value (layout,
                  point, f, count_at), record_value (layout, point, f + 1,
                  count_at), record_value (layout, point, f + 2, count_at),
              record_value (layout, point, f + 3, count_at)));
    return;
  }
  if (record == 2) {
    atomicAdd ((float2 *) sums, make_float2 (record_value (layout, point, 0,
                count_at), record_value (layout, point, 1, count_at)));
    return;
  }
#endif
  for (uint32_t f = 0; f < layout->n_features + counted; f++)
    atomicAdd (sums + f, record_value (layout, point, f, count_at));
}

/* What a binning kernel does besides counting: a mean divided whole
 * leaves its occupied voxels to its division to count (bin_point), and
 * one binned in records adds its counts with its sums; the marked mean
 * lists them (list_voxels); the centroids sum in records (add_features),
 * mark occupied voxels and count each tile's, counting each voxel's
 * points in words of their own or, counted centroids, in their records'
 * spare float (centroid_counted). */
enum binning_kind
{
  BIN_PLAIN,
  BIN_UNCOUNTED,
  BIN_RECORDS,
  BIN_LISTED,
  BIN_CENTROIDS,
  BIN_COUNTED_CENTROIDS
};

/* The centroids' kinds. */
#define CENTROIDS_KIND(kind) \
  ((kind) == BIN_CENTROIDS || (kind) == BIN_COUNTED_CENTROIDS)

/* Adds point @point to voxel @v of a mean (its sums as add_features; the
 * centroids are binned as a mean; counts and occupancy by bin_run); TRUE
 * when it is the voxel's first point.  The uncounted kinds, a mean divided
 * whole, return FALSE: their counts wait for no old value (reductions,
 * which the L2 cache takes as they come), and their division counts the
 * occupied voxels.  (Counts and occupancy so, counted by a pass over the
 * grid after each slab, were slower at every size, run 142 on an H200.)
 * Records, a mean's and the counted centroids', take bin_record_run. */
template < binning_kind KIND >
__device__ static bool
bin_point (const rc_point_layout * layout, const rc_voxel_grid * grid,
    const uint8_t * point, uint64_t v, uint8_t * __restrict__ out,
    uint32_t * __restrict__ counts, uint32_t * __restrict__ mask,
    uint32_t record)
{
  if (KIND == BIN_UNCOUNTED) {
    atomicAdd (counts + v, 1u);
    add_features (layout, point, (float *) out, v,
        rc_voxel_grid_n_voxels_hd (grid), 0, false);
    return false;
  }
  {
    bool first = atomicAdd (counts + v, 1u) == 0;
    /* The centroids mark their occupied voxels for ranking. */
    if (first && mask)
      atomicOr (mask + v / 32, 1u << (v % 32));
    add_features (layout, point, (float *) out, v,
        rc_voxel_grid_n_voxels_hd (grid), record, false);
    return first;
  }
}

/* A count or occupancy point of the warp's, @mine when it is in this
 * launch's voxels: a run of neighbouring lanes whose points share voxel
 * @v adds them in one atomic, from its first lane.  TRUE for the lane
 * whose atomic made the voxel occupied.  Every lane of the warp calls it.
 * A lidar sweep in scan order puts neighbouring points in one voxel: 4
 * million points ring by ring into the KITTI region's 0.2 m voxels,
 * counts 49 us against 67, occupancy 48 against 77; column by column 71
 * against 79 and 90 against 106; uniform and random clouds unchanged,
 * their runs of one costing a shuffle and a ballot (run 151, H200).
 * Grouping the warp's lanes by voxel with __match_any_sync gained as much
 * in ring order but lost up to 20 % on uniform clouds (run 150). */
__device__ static bool
bin_run (const rc_voxel_grid * grid, bool mine, uint64_t v,
    uint8_t * __restrict__ out, bool look_first)
{
  unsigned end, run;

  if (!find_run (mine, v, &end, NULL))
    return false;
  run = end - threadIdx.x % 32;
  if (grid->mode == RC_VOXEL_COUNT)
    return atomicAdd ((uint32_t *) out + v, run) == 0;
  /* Occupancy.  The grid is padded to whole words
   * (rc_voxelize_output_size), so the word holding this byte is inside
   * it.  With @look_first, a voxel that a load through L1 finds set is
   * left alone: whoever set it counted it.  A stale 0 in L1 costs only
   * the atomic; a stale 1 cannot be, as the clear's zeroes are visible
   * past the wait on it. */
  {
    unsigned shift = (unsigned) (v & 3) * 8;
    unsigned *word = (unsigned *) (out + (v & ~(uint64_t) 3));
    if (look_first && ((__ldca (word) >> shift) & 0xff))
      return false;
    unsigned old = atomicOr (word, 1u << shift);
    return ((old >> shift) & 0xff) == 0;
  }
}

/* Whether at least half of the warp's binned points found their voxel
 * occupied already or shared it with a lane before (@first: this lane
 * made it occupied): a crowded cloud, a lidar's near its sensor or a
 * sweep column by column, whose later points mostly land in voxels that
 * L1 has seen set.  Its occupancy then looks before each atomic
 * (bin_run): 4,194,304 points of a lidar sweep into the 256^3 cube 79
 * us against 96, the KITTI region column by column 58 against 89, a
 * uniform cloud unchanged (run 198, H200, call 210).  Looking always:
 * 68 and 52, but the uniform cloud 110.6 against 74.5, every look a miss
 * in L1 and one more request to the L2 cache, whose rate paces
 * occupancy; at a quarter or an eighth rather than half, the lidar no
 * faster and the uniform cloud 2 and 10 % slower (calls 208 and 209).
 * Every lane of the warp calls it. */
__device__ static bool
warp_crowded (bool mine, bool first)
{
  unsigned binned = __popc (__ballot_sync (0xffffffffu, mine));
  unsigned known = __popc (__ballot_sync (0xffffffffu, mine && !first));

  return known * 2 > binned;
}

/* Each lane's @x summed with those of the lanes after it in its run,
 * @end the lane past the run (find_run): the run's first lane ends with
 * the run's sums.  Every lane of the warp calls it. */
template < int N >
__device__ static void
run_sums (float (&x)[N], unsigned end)
{
  unsigned lane = threadIdx.x % 32;

  for (unsigned d = 1; d < 32; d *= 2) {
    float y[N];

#pragma unroll
    for (int i = 0; i < N; i++)
      y[i] = __shfl_down_sync (0xffffffffu, x[i], d);
    if (lane + d < end) {
#pragma unroll
      for (int i = 0; i < N; i++)
        x[i] += y[i];
    }
  }
}

/* A centroids or mean point of the warp's, @mine when it is binned here,
 * binned as bin_run bins counts: a run of neighbouring lanes whose points
 * share voxel @v sums their features across the warp (run_sums), and its
 * first lane adds the sums and the run's count, an atomic each.  A lidar
 * sweep in scan order puts dozens of neighbouring points in one 0.2 m
 * voxel, whose atomics, one a point, waited on each other.  The centroids
 * add a record four floats at a time; a mean divided whole (its grid in
 * the L2 cache: a lidar region's) a feature's plane at a time.  A warp
 * whose runs are each one point (a cloud in no order), GPUs before Hopper
 * and centroids of records of two floats or fewer add point by point
 * (bin_point), after one shuffle and one ballot.  Returns as bin_point. */
template < binning_kind KIND >
__device__ static bool
bin_point_run (const rc_point_layout * layout, const rc_voxel_grid * grid,
    const uint8_t * point, bool mine, uint64_t v, float *__restrict__ sums,
    uint32_t * __restrict__ counts, uint32_t * __restrict__ mask,
    uint32_t record)
{
  static_assert (KIND == BIN_CENTROIDS || KIND == BIN_UNCOUNTED,
      "records take bin_record_run; lists are added point by point");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned end;
  bool runs, head = find_run (mine, v, &end, &runs), first = false;

  if (runs && (KIND == BIN_UNCOUNTED || record % 4 == 0)) {
    uint32_t n = KIND == BIN_CENTROIDS ? record : layout->n_features;
    uint64_t n_voxels = rc_voxel_grid_n_voxels_hd (grid);

    for (uint32_t f = 0; f < n; f += KIND == BIN_CENTROIDS ? 4 : 1) {
      if (KIND == BIN_CENTROIDS) {
        float x[4] = { 0, 0, 0, 0 };

        for (int i = 0; mine && i < 4; i++)
          x[i] = record_value (layout, point, f + i, UINT32_MAX);
        run_sums (x, end);
        if (head)
          atomicAdd ((float4 *) (sums + v * record + f), make_float4 (x[0],
                  x[1], x[2], x[3]));
      } else {
        float x[1] = { mine ? record_value (layout, point, f, UINT32_MAX) :
          0.0f
        };

        run_sums (x, end);
        if (head)
          atomicAdd (sums + f * n_voxels + v, x[0]);
      }
    }
    if (!head)
      return false;
    if (KIND == BIN_UNCOUNTED) {
      atomicAdd (counts + v, end - threadIdx.x % 32);
      return false;
    }
    first = atomicAdd (counts + v, end - threadIdx.x % 32) == 0;
    if (first && mask)
      atomicOr (mask + v / 32, 1u << (v % 32));
    return first;
  }
#endif
  return mine && bin_point < KIND > (layout, grid, point, v,
      (uint8_t *) sums, counts, mask, record);
}

/* A point of the warp's, @mine when it is binned here, into record @r of
 * @records, @record floats a voxel holding its sums and, at float
 * @count_at, its count: the counted centroids' (centroid_counted) and a
 * mean's in slabs (record_slabs).  A run of neighbouring lanes in one
 * voxel (find_run) sums its values and its count across the warp, and its
 * first lane adds them, two or four floats an atomic.  A point is then one
 * L2 operation where a count's own atomic made it two: the KITTI region's
 * centroids of x, y and z, 262,144 to 4 million lidar points, 9 to 13 %
 * faster (4 million 119 us against 133, a million 48.4 against 55.8; run
 * 191, H200).  The KITTI region's means of intensity in records of one
 * slab, against planes: 4 million lidar points in no order 78.4 us
 * against 95.7, column by column 80.5 against 104.2, ring by ring 66.1
 * against 67.2, whose runs added point by point had made it 86 (run 192,
 * H200).  Where MARK (the centroids), the count's atomic returns the old
 * count, and the lane that made it nonzero marks voxel @r in @mask and
 * returns TRUE.  Both are chosen on Hopper and later only, whose vector
 * atomics these are.  Every lane of the warp calls it. */
template < bool MARK >
__device__ static bool
bin_record_run (const rc_point_layout * layout, const uint8_t * point,
    bool mine, uint64_t r, float *__restrict__ records,
    uint32_t * __restrict__ mask, uint32_t record, uint32_t count_at)
{
  bool first = false;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned end;
  bool runs, head = find_run (mine, r, &end, &runs);

  if (record == 2) {
    float x[2] = { 0, 0 };
    float2 *at = (float2 *) (records + r * 2);

    for (int i = 0; mine && i < 2; i++)
      x[i] = record_value (layout, point, i, count_at);
    /* (Warp-wide: @runs is the same in every lane.) */
    if (runs)
      run_sums (x, end);
    if (head && MARK) {
      float2 old = atomicAdd (at, make_float2 (x[0], x[1]));

      first = (count_at == 0 ? old.x : old.y) == 0.0f;
    } else if (head) {
      atomicAdd (at, make_float2 (x[0], x[1]));
    }
  }
  for (uint32_t f = 0; record != 2 && f < record; f += 4) {
    float x[4] = { 0, 0, 0, 0 };
    float4 *at = (float4 *) (records + r * record + f);
    unsigned c = count_at - f;  /* the count's float here, if below 4 */

    for (int i = 0; mine && i < 4; i++)
      x[i] = record_value (layout, point, f + i, count_at);
    if (runs)
      run_sums (x, end);
    if (!head)
      continue;
    if (MARK && c < 4) {
      float4 old = atomicAdd (at, make_float4 (x[0], x[1], x[2], x[3]));

      first = (c == 0 ? old.x : c == 1 ? old.y : c == 2 ? old.z : old.w) ==
          0.0f;
    } else {
      atomicAdd (at, make_float4 (x[0], x[1], x[2], x[3]));
    }
  }
  if (MARK && first)
    atomicOr (mask + r / 32, 1u << (r % 32));
#else
  if (!MARK && mine)
    add_features (layout, point, records, r, 0, record, true);
#endif
  return first;
}

/* A block's statistics 16 bits each in one word, for blocks of fewer
 * than 65,536 points: summed per warp, then per block, then into the
 * call's. */
#define TALLY_IN_GRID 1ull
#define TALLY_OUT_OF_RANGE (1ull << 16)
#define TALLY_INVALID (1ull << 32)
#define TALLY_FIRST (1ull << 48)

__device__ static void
add_block_tally (unsigned long long tally, device_stats * stats)
{
  __shared__ unsigned long long block_tally;

  if (threadIdx.x == 0)
    block_tally = 0;
  for (unsigned d = 16; d > 0; d /= 2)
    tally += __shfl_down_sync (0xffffffffu, tally, d);
  __syncthreads ();
  if (threadIdx.x % 32 == 0 && tally)
    atomicAdd (&block_tally, tally);
  __syncthreads ();
  add_block_counts (stats, block_tally & 0xffff,
      (block_tally >> 16) & 0xffff, (block_tally >> 32) & 0xffff,
      block_tally >> 48);
}

/* Large clouds bin this many points a thread, so that each thread has as
 * many atomics in flight: into a grid larger than the L2 cache each one
 * that returns its old value waits on DRAM.  256^3 counts of 4,194,304
 * points took 185 us so against 346 at one point a thread, a million 60
 * against 96, means 474 against 663 (run 115, an H200, alternated with
 * the kernel before).  In a stand-alone probe four a thread gained
 * nothing at 262,144 points and lost 2 us at 131,072 (run 113). */
#define POINTS_PER_THREAD 4
#define MANY_POINTS 262144

/* A count grid larger than this, binned from a cloud of more than
 * COUNT_SLAB_POINTS, is cleared and binned a slab (a range of voxels) at a
 * time: each slab, just written by its clear, is mostly still in the L2
 * cache when its atomics come, where into the whole grid each one waits on
 * DRAM.  Every slab reads the whole cloud again, which smaller slabs or
 * smaller clouds do not repay.  256^3 counts (67 MB, two slabs of 34 MB),
 * run 130 on an H100, against one slab: 4,194,304 points 206 us against
 * 233, 2,097,152 123 against 130, a million 78 against 79, 524,288 52
 * against 51; slabs of 24 or 16 MiB were slower from 524,288 to 2 million
 * points. */
#ifndef COUNT_SLAB_BYTES
#define COUNT_SLAB_BYTES (48ull << 20)
#endif
#define COUNT_SLAB_POINTS 524288
static_assert (RC_COUNT_PARTITION_POINTS == COUNT_SLAB_POINTS + 1,
    "counts take slabs only where the partition cannot run");

/* Appends the voxels that this block's @K points a thread made occupied
 * to @listed: one atomic for the block (one a warp made binning 131,072
 * points 31 us, run 140; 16 so, run 141), places in thread order. */
template < int K >
__device__ static void
list_voxels (const bool *first, const uint64_t * v, uint32_t * listed,
    unsigned long long *n_listed)
{
  __shared__ unsigned long long block_at;
  unsigned own = 0, total;
  unsigned long long at;

#pragma unroll
  for (int k = 0; k < K; k++)
    own += first[k];
  at = block_exclusive_sum (own, &total);
  if (threadIdx.x == 0)
    block_at = total ? atomicAdd (n_listed, (unsigned long long) total) : 0;
  __syncthreads ();
  at += block_at;
#pragma unroll
  for (int k = 0; k < K; k++)
    if (first[k])
      listed[at++] = (uint32_t) v[k];
}

/* @K points a thread, the block's @K * BLOCK consecutive points a warp's
 * worth at a time, so that loads stay coalesced.  @listed is the marked
 * mean's list of occupied voxels.  The parameters stay in the constant bank
 * (__grid_constant__): taking their address no longer copies them to
 * local memory per thread.  At four points a thread the launch bounds
 * keep each kind to the 48 registers that let an SM hold 5
 * blocks (unbounded, the uncounted kind took 54, and small changes
 * elsewhere moved the others between 48 and 55; the centroids' 4 blocks
 * allow 64).  The records' kind spills 12 bytes so; held to 4 blocks, with
 * 56 registers and no spill, it was slower (a mean of 4,194,304 points
 * 353 us against 340, run 144 on an H200). */
template < bool PACKED_XYZ, int K, binning_kind KIND >
__global__ static void
__launch_bounds__ (BLOCK, K == 1 ? 0 : RC_MIN_BLOCKS (BLOCK,
        CENTROIDS_KIND (KIND) ? 4 : 5))
bin_points (const __grid_constant__ rc_point_layout layout,
    const __grid_constant__ rc_voxel_grid grid,
    const uint8_t * __restrict__ points, uint64_t n_points,
    uint8_t * __restrict__ out, uint32_t * __restrict__ counts,
    uint32_t * __restrict__ tile_counts, uint32_t * __restrict__ mask,
    uint32_t * __restrict__ listed, scratch_header * header,
    device_stats * stats, uint64_t v_lo, uint64_t v_hi)
{
  uint64_t base = (uint64_t) blockIdx.x * blockDim.x * K + threadIdx.x;
  int where[K];
  uint64_t v[K];
  bool mine[K];                 /* in the grid, in this launch's voxels */
  bool first[K];                /* this point made its voxel occupied */
  /* Points outside the grid are counted by the first slab only. */
  bool count_missed = v_lo == 0;
  uint32_t record = CENTROIDS_KIND (KIND) ?
      rc_voxel_record_floats (layout.n_features) : KIND == BIN_RECORDS ?
      rc_voxel_record_floats (layout.n_features + 1) : 0;
  unsigned long long tally = 0;
  bool crowded = false;         /* occupancy: look before each atomic */

#pragma unroll
  for (int k = 0; k < K; k++) {
    uint64_t p = base + (uint64_t) k * blockDim.x;
    v[k] = 0;
    where[k] = p < n_points ? locate_point < PACKED_XYZ > (&layout, &grid,
        points, p, &v[k]) : -1;
  }
  /* Everything above only reads; the grid and the statistics are the
   * clear's until here. */
  WAIT_FOR_PREVIOUS_GRID ();
  /* The centroids' scratch is about to be written: no longer clear. */
  if (header && base == 0)
    header->clean_key = 0;
  /* All the atomics first, their results used after. */
#pragma unroll
  for (int k = 0; k < K; k++) {
    uint64_t p = base + (uint64_t) k * blockDim.x;
    mine[k] = where[k] == RC_POINT_IN_GRID && v[k] >= v_lo && v[k] < v_hi;
    /* (@mask is NULL but for the centroids.  Passed as NULL for the other
     * kinds, it took the compiler to 54 registers a thread at four
     * points, from 48: 4 blocks an SM instead of 5, and counts of
     * 4,194,304 points 192 us against 184, occupancy 90 against 83, run
     * 141 on an H100.) */
    if (KIND == BIN_PLAIN) {
      /* A thread's first point takes its atomic as before; the warp's
       * first points tell whether the next ones look first. */
      first[k] = bin_run (&grid, mine[k], v[k], out, k > 0 && crowded);
      if (k == 0 && K > 1 && grid.mode == RC_VOXEL_OCCUPANCY)
        crowded = warp_crowded (mine[0], first[0]);
      continue;
    }
    if (KIND == BIN_COUNTED_CENTROIDS) {
      first[k] = bin_record_run < true > (&layout,
          points + p * layout.point_step, mine[k], v[k], (float *) out, mask,
          record, layout.n_features);
      continue;
    }
    if (KIND == BIN_RECORDS) {
      first[k] = bin_record_run < false > (&layout,
          points + p * layout.point_step, mine[k], v[k] - v_lo, (float *) out,
          NULL, record, layout.n_features);
      continue;
    }
    if (KIND == BIN_CENTROIDS || KIND == BIN_UNCOUNTED) {
      first[k] = bin_point_run < KIND == BIN_UNCOUNTED ? BIN_UNCOUNTED :
          BIN_CENTROIDS > (&layout, &grid,
          points + p * layout.point_step, mine[k], v[k], (float *) out,
          counts, mask, record);
      continue;
    }
    first[k] = mine[k] && bin_point < KIND > (&layout, &grid,
        points + p * layout.point_step, v[k], out, counts, mask, record);
  }
  if (KIND == BIN_LISTED)
    list_voxels < K > (first, v, listed, &header->listed);

#pragma unroll
  for (int k = 0; k < K; k++) {
    /* The centroids count each tile's occupied voxels: one atomic per
     * tile a warp's new voxels fall in (consecutive points share tiles). */
    if (CENTROIDS_KIND (KIND)) {
      uint64_t tile = first[k] ? v[k] / RC_CENTROID_TILE : UINT64_MAX;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
      unsigned peers = __match_any_sync (0xffffffffu, tile);
      if (first[k] && (unsigned) __ffs (peers) - 1 == threadIdx.x % 32)
        atomicAdd (tile_counts + tile, (unsigned) __popc (peers));
#else
      if (first[k])
        atomicAdd (tile_counts + tile, 1u);
#endif
    }
    tally += mine[k] ? TALLY_IN_GRID : !count_missed ? 0 :
        where[k] == RC_POINT_OUT_OF_RANGE ? TALLY_OUT_OF_RANGE :
        where[k] == RC_POINT_INVALID ? TALLY_INVALID : 0;
    tally += first[k] ? TALLY_FIRST : 0;
  }
  if (K > 1) {
    add_block_tally (tally, stats);
  } else {
    /* A point a thread: four barrier counts cost less than the packed
     * sums here (131,072 points 31.5 us against 32.0, run 119). */
    int n_in = __syncthreads_count (mine[0]);
    int n_out = __syncthreads_count (count_missed &&
        where[0] == RC_POINT_OUT_OF_RANGE);
    int n_invalid = __syncthreads_count (count_missed &&
        where[0] == RC_POINT_INVALID);
    int n_first = __syncthreads_count (first[0]);

    add_block_counts (stats, n_in, n_out, n_invalid, n_first);
  }
}

static_assert (BLOCK * POINTS_PER_THREAD < 65536,
    "a block's statistics fit 16 bits each");


typedef decltype (&bin_points < true, 1, BIN_PLAIN >) binning_kernel;

/* The binning kernel for a cloud of @many points (several a thread) or
 * not.  Each kind is compiled apart: with the centroids' vector atomics
 * in the same kernel, the other modes ran slower (run 138, H100:
 * occupancy of 4,194,304 points 90 us against 83, counts 191 against
 * 184), and so did large means with the list's code (run 140). */
template < bool PACKED_XYZ >
static binning_kernel
binning_kernel_for (binning_kind kind, bool many)
{
  switch (kind) {
    case BIN_RECORDS:
      return many ? bin_points < PACKED_XYZ, POINTS_PER_THREAD, BIN_RECORDS > :
          bin_points < PACKED_XYZ, 1, BIN_RECORDS >;
    case BIN_UNCOUNTED:
      return many ? bin_points < PACKED_XYZ, POINTS_PER_THREAD,
          BIN_UNCOUNTED > : bin_points < PACKED_XYZ, 1, BIN_UNCOUNTED >;
    case BIN_LISTED:
      return many ? bin_points < PACKED_XYZ, POINTS_PER_THREAD, BIN_LISTED > :
          bin_points < PACKED_XYZ, 1, BIN_LISTED >;
    case BIN_CENTROIDS:
      return many ? bin_points < PACKED_XYZ, POINTS_PER_THREAD,
          BIN_CENTROIDS > : bin_points < PACKED_XYZ, 1, BIN_CENTROIDS >;
    case BIN_COUNTED_CENTROIDS:
      return many ? bin_points < PACKED_XYZ, POINTS_PER_THREAD,
          BIN_COUNTED_CENTROIDS > : bin_points < PACKED_XYZ, 1,
          BIN_COUNTED_CENTROIDS >;
    default:
      return many ? bin_points < PACKED_XYZ, POINTS_PER_THREAD, BIN_PLAIN > :
          bin_points < PACKED_XYZ, 1, BIN_PLAIN >;
  }
}

/* Bins the points of one cloud that fall in voxels [@v_lo, @v_hi) after
 * the clear launched just before it on @s, as @kind; with @early, as a
 * programmatic dependent of that clear. */
static rc_status
launch_binning (const rc_point_layout * layout, const rc_voxel_grid * grid,
    const uint8_t * points, uint64_t n_points, binning_kind kind,
    uint8_t * out, uint32_t * counts, uint32_t * tile_counts, uint32_t * mask,
    uint32_t * listed, scratch_header * header, device_stats * stats,
    uint64_t v_lo, uint64_t v_hi, bool early, cudaStream_t s)
{
  bool many = n_points > MANY_POINTS;
  binning_kernel kernel = xyz_is_packed_float (layout, points) ?
      binning_kernel_for < true > (kind, many) :
      binning_kernel_for < false > (kind, many);

  return rc_launch (early, blocks_for (many ? (n_points + POINTS_PER_THREAD -
              1) / POINTS_PER_THREAD : n_points), BLOCK, s, kernel, *layout,
      *grid, points, n_points, out, counts, tile_counts, mask, listed, header,
      stats, v_lo, v_hi);
}

/* Whether the centroids of a cloud of @n_points count each voxel in the
 * float of its record past its sums: where the record has one
 * (rc_voxel_record_floats: three features or more but a multiple of
 * four), on Hopper and later (whose vector atomics return the old
 * record), below 2^24 points (a float's exact integers).  Else in the
 * counts' own words, by a kernel of its own: the same kernel taking
 * either way was up to 3 % slower for four features (run 191). */
static bool
centroid_counted (const rc_point_layout * layout, uint64_t n_points,
    int major)
{
  return major >= 9 && rc_voxel_record_floats (layout->n_features) >
      layout->n_features && n_points < (1u << 24);
}

/* How many slabs a cloud's grid is cleared and binned in (a mean's also
 * divided): a count grid of @out_size bytes, or a mean's sums and counts,
 * four bytes each a voxel and feature. */
static uint32_t
grid_slabs (rc_voxel_mode mode, bool marked, uint64_t out_size,
    uint64_t n_voxels, uint32_t n_features, uint64_t n_points)
{
  uint64_t bytes, slab_bytes;

  if (mode == RC_VOXEL_COUNT && n_points > COUNT_SLAB_POINTS) {
    bytes = out_size;
    slab_bytes = COUNT_SLAB_BYTES;
  } else if (mode == RC_VOXEL_MEAN && !marked &&
      n_points > RC_MEAN_SLAB_POINTS) {
    bytes = n_voxels * 4 * ((uint64_t) n_features + 1);
    slab_bytes = RC_MEAN_SLAB_BYTES;
  } else {
    return 1;
  }
  return (uint32_t) ((bytes + slab_bytes - 1) / slab_bytes);
}

/* The first word (voxel) of slab @k of @slabs over @words: whole 16-byte
 * units, so that every slab's clear stores them. */
static uint64_t
slab_start (uint64_t words, uint32_t slabs, uint32_t k)
{
  return k >= slabs ? words : words / 4 * k / slabs * 4;
}

/* The most words (voxels) a slab of @slabs over @words holds. */
static uint64_t
largest_slab (uint64_t words, uint32_t slabs)
{
  uint64_t most = 0;

  for (uint32_t k = 0; k < slabs; k++)
    most = MAX (most, slab_start (words, slabs, k + 1) -
        slab_start (words, slabs, k));
  return most;
}

/* How many slabs a mean of @n_points too large to be marked is binned in
 * as records (its sums and its count side by side a voxel, one vector
 * atomic a point where there were two atomics or more); 0 where it is
 * not: a cloud too small for slabs, or of more than RC_MEAN_RECORD_POINTS,
 * a record that would be padded (rc_voxel_record_floats), or a grid whose
 * slabs' records would not fit the room of the counts and the list.  A
 * grid whose records fit one slab takes the scratch's room for them
 * (rc_voxel_mean_record_bytes).  256^3, run 144 on an H200, against slabs
 * of planes: one feature (8-byte records), 4,194,304 points 340 us
 * against 374, 1,048,576 177 against 193; four features (records of 32
 * bytes for 20, so more slabs, each reading the cloud again) 1,652 against
 * 1,319. */
static uint32_t
record_slabs (const rc_point_layout * layout, const rc_voxel_grid * grid,
    uint64_t n_points)
{
  uint64_t n_voxels = rc_voxel_grid_n_voxels (grid);
  uint32_t record = rc_voxel_record_floats (layout->n_features + 1);
  uint64_t record_bytes = record * sizeof (float);
  uint64_t room;
  uint32_t slabs;

  if (n_points <= RC_MEAN_SLAB_POINTS || n_points > RC_MEAN_RECORD_POINTS ||
      record != layout->n_features + 1)
    return 0;
  slabs = (uint32_t) ((n_voxels * record_bytes + RC_MEAN_SLAB_BYTES - 1) /
      RC_MEAN_SLAB_BYTES);
  if (slabs < 2)
    return rc_voxel_mean_record_bytes (layout, grid, n_points) ? 1 : 0;
  /* Less the records' alignment to 16 bytes (find_scratch). */
  room = (n_voxels + (n_voxels + 31) / 32) * sizeof (uint32_t) - 15;
  return largest_slab (n_voxels, slabs) * record_bytes > room ? 0 : slabs;
}

extern "C" rc_status
rc_voxelize_cuda_scratch_reset (void *scratch, void *stream)
{
  if (!scratch)
    return RC_ERROR_INVALID_ARGUMENT;
  return rc_device_memset_async (scratch, 0, sizeof (scratch_header), stream);
}

/* The header and statistics first, then the rest as
 * rc_voxelize_cuda_scratch_size counts it. */
static call_scratch
find_scratch (const rc_point_layout * layout, const rc_voxel_grid * grid,
    void *scratch, uint32_t n_clouds)
{
  uint64_t n_voxels = rc_voxel_grid_n_voxels (grid);
  uint64_t n_tiles = rc_centroid_tiles (n_voxels);
  call_scratch cs = { };
  uint8_t *next;

  cs.header = (scratch_header *) scratch;
  cs.stats = (device_stats *) ((uint8_t *) scratch + RC_VOXELIZE_CUDA_HEADER);
  next = (uint8_t *) cs.stats + rc_voxelize_cuda_stats_size (n_clouds);
  if (grid->mode == RC_VOXEL_COUNT)
    cs.partition = next;
  if (rc_voxel_mode_averages (grid->mode)) {
    cs.counts = (uint32_t *) next;
    next += n_voxels * sizeof (uint32_t);
    cs.key = scratch_key (grid->mode, n_voxels, layout->n_features, n_clouds,
        false);
  }
  if (grid->mode == RC_VOXEL_MEAN) {
    cs.listed = (uint32_t *) next;
    next += (n_voxels + 31) / 32 * sizeof (uint32_t);
    /* Over the counts and the list: vectors of up to 16 bytes. */
    cs.records = (float *) (((uintptr_t) cs.counts + 15) & ~(uintptr_t) 15);
    cs.records_key = scratch_key (grid->mode, n_voxels, layout->n_features,
        n_clouds, true);
    cs.sort_tail = next;
    /* A mean either sorts or is partitioned, in the same room. */
    cs.partition = next;
  }
  if (grid->mode == RC_VOXEL_CENTROIDS) {
    /* Records of float4s: 16-byte aligned. */
    cs.sums = (float *) (((uintptr_t) next + 15) & ~(uintptr_t) 15);
    cs.tile_counts = (uint32_t *) (cs.sums + n_voxels *
        rc_voxel_record_floats (layout->n_features));
    cs.mask = cs.tile_counts + n_tiles;
  }
  return cs;
}

/* One cloud binned (the mean and centroids of any size, counts and
 * occupancy) into @cloud_out, as its mode and size ask: cleared, binned and
 * (a mean) divided a slab at a time where the grid is larger than the L2
 * cache, else once; the centroids then put in voxel order.  Cloud @c of
 * @n_clouds: the first clear of the first also zeroes every cloud's
 * statistics. */
static rc_status
bin_cloud (const rc_point_layout * layout, const rc_voxel_grid * grid,
    const rc_voxel_grid * bin_grid, const uint8_t * cloud, uint64_t n_points,
    uint8_t * cloud_out, const call_scratch * cs, uint32_t c,
    uint32_t n_clouds, int major, bool early, cudaStream_t s)
{
  bool centroids = grid->mode == RC_VOXEL_CENTROIDS;
  uint64_t out_size = rc_voxelize_output_size (layout, grid);
  uint64_t n_voxels = rc_voxel_grid_n_voxels (grid);
  uint64_t n_tiles = rc_centroid_tiles (n_voxels);
  uint8_t *grid_out = centroids ? (uint8_t *) cs->sums : cloud_out;
  bool marked = grid->mode == RC_VOXEL_MEAN &&
      n_points <= n_voxels / MEAN_MARKED_VOXELS_PER_POINT;
  /* The centroids' tile counts and mask follow their sums: one clear. */
  uint64_t grid_words = centroids ? n_voxels *
      rc_voxel_record_floats (layout->n_features) + n_tiles +
      (n_voxels + 31) / 32 : out_size / 4;
  uint64_t scratch_words = cs->counts ? n_voxels : 0;
  uint64_t words = MAX (grid_words, scratch_words);
  /* A large mean's slabs in records where its grid allows and the GPU
   * adds a record's floats in one atomic (Hopper on; measured there
   * only), else of voxels in every feature's plane. */
  uint32_t in_records = grid->mode == RC_VOXEL_MEAN && !marked &&
      major >= 9 ? record_slabs (layout, grid, n_points) : 0;
  uint32_t slabs = in_records ? in_records : grid_slabs (grid->mode,
      marked, out_size, n_voxels, layout->n_features, n_points);
  bool planes = slabs > 1 && grid->mode == RC_VOXEL_MEAN && !in_records;
  uint32_t record = rc_voxel_record_floats (layout->n_features + 1);
  bool counted = centroids && centroid_counted (layout, n_points, major);
  binning_kind kind = counted ? BIN_COUNTED_CENTROIDS : centroids ?
      BIN_CENTROIDS : marked ? BIN_LISTED :
      in_records ? BIN_RECORDS : grid->mode == RC_VOXEL_MEAN ?
      BIN_UNCOUNTED : BIN_PLAIN;
  rc_status ret = RC_OK;

  for (uint32_t k = 0; k < slabs && ret == RC_OK; k++) {
    /* A mean's slabs are of voxels, a count grid's of words. */
    uint64_t length = planes || in_records ? n_voxels : grid_words;
    uint64_t lo = slab_start (length, slabs, k);
    uint64_t hi = slab_start (length, slabs, k + 1);
    /* Records are cleared, not the planes, which their division writes
     * whole; their division zeroes them again, so that a clear finds them
     * clear but for the first slab after another call's scratch: the
     * largest slab's records then. */
    uint32_t *clear_grid = in_records ? (uint32_t *) cs->records :
        (uint32_t *) grid_out + lo;
    uint64_t clear_words = in_records ? largest_slab (n_voxels, slabs) *
        record : hi - lo;

    /* The first clear also zeroes every cloud's statistics.  The
     * centroids' and the records' clear mostly finds its scratch clear
     * already and does nothing: few blocks, which a full clear loops
     * with. */
    words = in_records ? clear_words : slabs > 1 ? (hi - lo) *
        (planes ? layout->n_features + 1 : 1) : words;
    ret = voxelize_launch_clear (clear_grid, clear_words,
        planes ? layout->n_features : 1, n_voxels,
        cs->counts + (planes ? lo : 0), in_records ? 0 : planes ? hi - lo :
        scratch_words, cs->tile_counts, centroids ? n_tiles : 0,
        c == 0 && k == 0 ? cs->stats : NULL, n_clouds, cs->header,
        in_records ? cs->records_key : cs->key, centroids || in_records,
        words, s);
    if (ret != RC_OK || n_points == 0)
      break;
    ret = launch_binning (layout, bin_grid, cloud, n_points, kind,
        in_records ? (uint8_t *) cs->records : grid_out, cs->counts,
        cs->tile_counts, cs->mask, marked ? cs->listed : NULL,
        cs->key ? cs->header : NULL, cs->stats + c, lo,
        slabs > 1 ? hi : UINT64_MAX, early, s);
    if (ret == RC_OK && in_records)
      ret = voxelize_launch_record_division (cs->records,
          (float *) grid_out, n_voxels, layout->n_features, record, lo, hi,
          cs->stats + c, cs->header, cs->records_key, early, s);
    else if (ret == RC_OK && planes)
      ret = voxelize_launch_division (NULL, 0, (float *) grid_out,
          cs->counts, n_voxels, layout->n_features, cs->header, cs->key, lo,
          hi, cs->stats + c, early, s);
  }
  if (ret == RC_OK && grid->mode == RC_VOXEL_MEAN && !planes && !in_records)
    ret = voxelize_launch_division (marked ? cs->listed : NULL, n_points,
        (float *) grid_out, cs->counts, n_voxels, layout->n_features,
        cs->header, cs->key, 0, n_voxels, cs->stats + c, early, s);
  if (ret == RC_OK && centroids && n_points > 0)
    ret = voxelize_launch_centroids (cs->sums, cs->counts, cs->mask,
        n_voxels, layout->n_features, counted ? layout->n_features :
        UINT32_MAX, cs->tile_counts,
        (float *) cloud_out, cs->header, cs->key, early, s);
  return ret;
}

extern "C" rc_status
rc_voxelize_cuda (const rc_point_layout * layout, const rc_voxel_grid * grid,
    const void *points, const uint64_t * cloud_sizes, uint32_t n_clouds,
    void *out, void *scratch, rc_voxelize_stats * stats, void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  rc_status ret = rc_voxelize_check (layout, grid);
  const uint8_t *cloud = (const uint8_t *) points;
  uint8_t *cloud_out = (uint8_t *) out;
  bool centroids = grid->mode == RC_VOXEL_CENTROIDS;
  rc_voxel_grid bin_grid = *grid;
  call_scratch cs;
  bool apart;                   /* sorted or partitioned, not binned */
  int major = 0;

  if (ret != RC_OK)
    return ret;
  if (n_clouds == 0)
    return RC_OK;
  /* Empty clouds' centroids take no room: @out may then be NULL. */
  if ((!out && grid->mode != RC_VOXEL_CENTROIDS) || !cloud_sizes || !scratch)
    return RC_ERROR_INVALID_ARGUMENT;

  ret = rc_kernels_compute_major (&major);
  if (ret != RC_OK)
    return ret;

  cs = find_scratch (layout, grid, scratch, n_clouds);
  /* The centroids are binned as the mean, into the scratch. */
  if (centroids)
    bin_grid.mode = RC_VOXEL_MEAN;

  for (uint32_t c = 0; c < n_clouds && ret == RC_OK; c++) {
    if (cloud_sizes[c] > 0 && (!cloud || !out))
      return RC_ERROR_INVALID_ARGUMENT;
    apart = false;
    /* A GPU whose blocks cannot hold a partition's tiles sorts or bins. */
    if (rc_voxel_partitioned (layout, grid, cloud_sizes[c]))
      ret = voxelize_partition (layout, grid, cloud, cloud_sizes[c],
          cloud_out, &cs, c == 0 ? cs.stats : NULL, n_clouds, cs.stats + c,
          major >= 9, s, &apart);
    if (ret == RC_OK && !apart &&
        rc_voxel_mean_sorts (layout, grid, cloud_sizes[c]))
      ret = voxelize_sort_mean (layout, grid, cloud, cloud_sizes[c],
          (float *) cloud_out, &cs, c == 0 ? cs.stats : NULL, n_clouds,
          cs.stats + c, s, &apart);
    if (ret == RC_OK && !apart)
      ret = bin_cloud (layout, grid, &bin_grid, cloud, cloud_sizes[c],
          cloud_out, &cs, c, n_clouds, major, major >= 9, s);
    cloud += cloud_sizes[c] * layout->point_step;
    cloud_out += centroids ? rc_voxelize_centroids_size (layout, grid,
        cloud_sizes[c]) : rc_voxelize_output_size (layout, grid);
  }
  if (ret == RC_OK && stats)
    ret = rc_device_copy_async (stats, cs.stats,
        rc_voxelize_cuda_stats_size (n_clouds), RC_COPY_DEVICE_TO_HOST,
        stream);
  return ret;
}
