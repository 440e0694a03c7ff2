/* Voxelization on the GPU, the paths that sort a cloud's points by voxel
 * before summing them: each point keyed by its voxel, the keys sorted by
 * CUB's radix sort, then each voxel's points found together.  No atomic
 * on the grid, whose cost in a grid larger than the L2 cache grows with
 * the points (voxelize.cu bins the rest). */
#include "voxelize-cuda.cuh"

#include <cub/device/device_radix_sort.cuh>

/* A sorted mean's keys: each point's voxel (@n_voxels, which the sort puts
 * last, for a point outside the grid) and its index; its statistics but
 * the occupied voxels, which the division counts. */
template < bool PACKED_XYZ >
__global__ static void
__launch_bounds__ (BLOCK)
key_points (const __grid_constant__ rc_point_layout layout,
    const __grid_constant__ rc_voxel_grid grid,
    const uint8_t * __restrict__ points, uint64_t n_points,
    uint32_t * __restrict__ keys, uint32_t * __restrict__ index,
    device_stats * stats)
{
  uint64_t p = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t v = 0;
  int where = p < n_points ? locate_point < PACKED_XYZ > (&layout, &grid,
      points, p, &v) : -1;
  int n_in, n_out, n_invalid;

  if (p < n_points) {
    keys[p] = (uint32_t) (where == RC_POINT_IN_GRID ? v :
        rc_voxel_grid_n_voxels_hd (&grid));
    index[p] = (uint32_t) p;
  }
  n_in = __syncthreads_count (where == RC_POINT_IN_GRID);
  n_out = __syncthreads_count (where == RC_POINT_OUT_OF_RANGE);
  n_invalid = __syncthreads_count (where == RC_POINT_INVALID);
  add_block_counts (stats, n_in, n_out, n_invalid, 0);
}

/* Where a sorted mean's arrays lie: the keys and indices, each twice for
 * the sort's two buffers, in the room of the counts and the list (which
 * it does not use; 256-byte aligned for the sort's wide loads); past the
 * list, each block of voxels' first point, the sort's own scratch and the
 * records in sorted order, as rc_voxel_mean_sort_bytes counts them. */
typedef struct
{
  uint32_t *keys[2], *index[2], *starts;
  void *temp;
  size_t temp_bytes;
  float *records;
} sort_room;

static uintptr_t
align_256 (uintptr_t at)
{
  return (at + 255) & ~(uintptr_t) 255;
}

static sort_room
find_sort_room (const call_scratch * cs, uint64_t n_voxels,
    uint64_t n_points)
{
  uint64_t blocks = (n_voxels + RC_MEAN_SORT_BLOCK_VOXELS - 1) /
      RC_MEAN_SORT_BLOCK_VOXELS;
  uint32_t **arrays[4];
  uintptr_t at = (uintptr_t) cs->counts;
  sort_room room;

  arrays[0] = &room.keys[0];
  arrays[1] = &room.keys[1];
  arrays[2] = &room.index[0];
  arrays[3] = &room.index[1];
  for (int i = 0; i < 4; i++) {
    at = align_256 (at);
    *arrays[i] = (uint32_t *) at;
    at += n_points * sizeof (uint32_t);
  }
  room.starts = (uint32_t *) cs->sort_tail;
  room.temp = (void *) align_256 ((uintptr_t) (room.starts + blocks + 1));
  room.temp_bytes = rc_voxel_mean_sort_temp_bytes (n_points);
  room.records = (float *) (((uintptr_t) room.temp + room.temp_bytes + 15) &
      ~(uintptr_t) 15);
  return room;
}

/* The bits of a sorted mean's keys: up to @n_voxels, a point outside the
 * grid's. */
static int
sort_bits (uint64_t n_voxels)
{
  int bits = 1;

  while (bits < 32 && (1ull << bits) <= n_voxels)
    bits++;
  return bits;
}

/* A sorted mean (rc_voxel_mean_sorts) of one cloud into @means (with
 * @all_stats, every cloud's statistics zeroed first): each point keyed by
 * its voxel, the keys and the points' indices sorted by CUB's radix sort
 * (stable: each voxel's points stay in the cloud's order), the points'
 * records gathered in that order, then each voxel's run of records summed
 * and divided into the planes.  No grid-wide atomic and no float atomic,
 * whose cost in the L2 cache grows with its floats: on an H200, 256^3
 * means of 4,194,304 uniform points, x, y, z 476 us against 780 in
 * records of one vector atomic a point, x, y, z and intensity 506 against
 * 714 by the counting sort before (runs 165 and 167).  *@sorted is FALSE,
 * and nothing is launched, where the sort's scratch would not fit its
 * room.  The counts' room is left dirty: the header says so. */
rc_status
voxelize_sort_mean (const rc_point_layout * layout,
    const rc_voxel_grid * grid, const uint8_t * cloud, uint64_t n_points,
    float *means, const call_scratch * cs, device_stats * all_stats,
    uint32_t n_clouds, device_stats * stats, cudaStream_t s, bool *sorted)
{
  uint64_t n_voxels = rc_voxel_grid_n_voxels (grid);
  sort_room room = find_sort_room (cs, n_voxels, n_points);
  cub::DoubleBuffer < uint32_t > keys (room.keys[0], room.keys[1]);
  cub::DoubleBuffer < uint32_t > index (room.index[0], room.index[1]);
  int bits = sort_bits (n_voxels);
  size_t need = 0;
  rc_status ret;

  *sorted = false;
  ret = rc_check_cuda (cub::DeviceRadixSort::SortPairs (NULL, need, keys,
          index, (int) n_points, 0, bits, s));
  if (ret != RC_OK || need > room.temp_bytes)
    return ret;
  *sorted = true;
  ret = voxelize_launch_clear (NULL, 0, 1, 0, NULL, 0, NULL, 0, all_stats,
      n_clouds, cs->header, 0, false, 0, s);
  if (ret != RC_OK)
    return ret;
  if (xyz_is_packed_float (layout, cloud))
    key_points < true > <<< blocks_for (n_points), BLOCK, 0, s >>> (*layout,
        *grid, cloud, n_points, keys.Current (), index.Current (), stats);
  else
    key_points < false > <<< blocks_for (n_points), BLOCK, 0, s >>> (*layout,
        *grid, cloud, n_points, keys.Current (), index.Current (), stats);
  ret = rc_check_launch ();
  if (ret == RC_OK)
    ret = rc_check_cuda (cub::DeviceRadixSort::SortPairs (room.temp,
            room.temp_bytes, keys, index, (int) n_points, 0, bits, s));
  if (ret == RC_OK)
    ret = voxelize_launch_sorted_division (layout, cloud, keys.Current (),
        index.Current (), n_points, n_voxels, room.starts, room.records,
        means, stats, s);
  return ret;
}
