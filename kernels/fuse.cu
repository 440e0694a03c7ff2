/* Batched fusion of recorded streams: the CUDA kernel.
 *
 * Reference size, the one tuned for: 64 episodes of 10 s with ticks at
 * 50 Hz (T = 500) and three streams, vision features at 30 Hz x 512
 * channels, proprioception at 100 Hz x 14 and force at 333 Hz x 6, all
 * float32.  That writes 64 * 500 * 532 * 4 = 68 MB and reads about 48 MB:
 * memory bound, so the work is organised around the output.
 *
 * One launch.  A block takes a tile of K consecutive ticks of one episode,
 * whose output rows are one contiguous span, in three steps, a barrier
 * apart:
 * - locate each (tick, stream) of the tile (search and weight:
 *   resample-math.h, as on the CPU) into shared memory, so that this
 *   scalar work is done once per row segment, not once per channel, and
 *   widen the stream's span of input rows the tile blends by it;
 * - copy those spans into shared memory with cp.async, all at once: many
 *   bytes in flight without holding registers, each row read once per
 *   tile (neighbouring ticks share rows) and the few round trips of the
 *   tile overlapped;
 * - stream by stream, sweep the tile's output segments: consecutive
 *   threads take consecutive channels (4 or 2 at a time where the layout
 *   allows; where it allows only one, a whole 16-byte unit of the output
 *   each), blending from shared memory (or from global memory for a
 *   span too long to stage) and writing coalesced, streaming stores.
 * Six blocks per SM let one block's copying cover another's searching (a
 * block that also located its next tile meanwhile measured slower).  On an
 * H100 the reference takes about 51 us: 2.3 TB/s counting every input byte,
 * where a device-to-device copy reaches 2.75. */
#include "internal.h"
#include "launch-bounds.cuh"
#include "resample-math.h"

#include <cuda_runtime.h>

#include <climits>

namespace
{

const int kBlock = 256;
/* Located (tick, stream) pairs one tile may hold: 6 KB of shared memory. */
const uint32_t kMaxLocs = 512;
/* Input rows staged per tile: with the table 35 KB of shared memory a
 * block, so that six blocks fit an SM (as do their registers, with the
 * launch bounds below).  The reference tile stages about 26 KB.  More
 * blocks, or larger tiles, measured slower. */
const uint32_t kStageBytes = 28 * 1024;
const int kBlocksPerSm = 6;
/* A stream is staged only if its span is at most this many times the rows
 * its ticks blend (two a tick): a fast stream under slow ticks is better
 * read row by row. */
const uint32_t kSpanFactor = 4;
/* Marks a stream whose span is read from global memory. */
const uint32_t kNotStaged = 0xffffffffu;
/* Output floats a tile aims at: enough to amortise its searches, small
 * enough that the reference size makes a few waves of blocks (15 ticks;
 * 23 or 11 measured slower). */
const uint32_t kTileFloats = 8192;
/* Ticks a tile takes at least, past kTileFloats and the stage: wide rows
 * (16 streams of the reference's kinds, 3,172 floats) made tiles of two
 * ticks, whose searches and barriers cost more than their rows (H100, 16
 * streams: 474 us, 57 % of the stalls at barriers; 351 us with four ticks
 * or eight).  On an H200 four still left 8 streams, whose staged rows
 * stopped their tiles at four, with half the stalls at barriers: six,
 * the streams that do not fit read from global memory, took 8 streams
 * from 167 to 143 us and 16 from 286 to 255 (run 148).  Since the stage
 * is planned without a barrier of its own, eight: 8 streams 120.8 ->
 * 116.0 us, 4 streams 75.6 -> 72.8, a row of 529 floats at 8 streams
 * 160 -> 152 but at 16 326 -> 330; ten lost at 16 streams (run 197,
 * call 199). */
const uint32_t kMinTileTicks = 8;
/* Below this many tiles, tiles shrink (down to one tick) to fill the GPU. */
const uint64_t kMinTiles = 2048;
/* Marks a NaN segment (edge INVALID); a pick has i1 == i2. */
const uint32_t kNanRow = 0xffffffffu;

/* Where one tick falls in one stream. */
struct Loc
{
  uint32_t i1, i2;              /* rows to blend; equal: copy i1 */
  float w;                      /* fraction from i1 to i2 */
};

/* A stream's input rows [lo, lo + rows) held at @offset bytes into the
 * stage buffer. */
struct Stage
{
  uint32_t lo, rows, offset;
};

struct Args
{
  rc_fuse_params p;
  uint32_t offset[RC_FUSE_MAX_STREAMS];  /* first output column */
  uint32_t vec[RC_FUSE_MAX_STREAMS];     /* channels per access: 1, 2, 4 */
  /* 4 channels an access into rows whose 16-byte alignment varies (rows
   * of 2 mod 4 floats, odd rows): each store checks its own (vector_width;
   * stores of 2 always do). */
  uint32_t split[RC_FUSE_MAX_STREAMS];
  /* Bytes one staging copy moves: 16, 8 or 4; 0, never staged.  Wider
   * than an access where only the output row holds the access back. */
  uint32_t stage_unit[RC_FUSE_MAX_STREAMS];
  /* The thread that takes a stream's first item (unit) in a tile: the
   * warp after those the streams before it fill in a full tile. */
  uint32_t first[RC_FUSE_MAX_STREAMS];
  uint32_t row;                 /* output channels */
  uint32_t tile;                /* ticks per tile (K) */
  uint32_t tiles;               /* tiles per episode */
};

template < typename St > struct Load;

template <> struct Load <float >
{
  static __device__ float get (float x) { return x; }
};

/* bfloat16, as its bits. */
template <> struct Load <uint16_t >
{
  static __device__ float get (uint16_t x) { return rc_rs_bf16_to_float (x); }
};

/* V values moved as one access. */
template < typename St, int V > struct alignas (sizeof (St) * V) Pack
{
  St v[V];
};

/* Output rows are not read again here: streaming stores keep them from
 * pushing the input rows, which neighbouring ticks re-read, out of L2. */
__device__ __forceinline__ void
store (float *dst, const float (&y)[1])
{
  __stcs (dst, y[0]);
}

__device__ __forceinline__ void
store (float *dst, const float (&y)[2])
{
  __stcs (reinterpret_cast < float2 * >(dst), make_float2 (y[0], y[1]));
}

__device__ __forceinline__ void
store (float *dst, const float (&y)[4])
{
  __stcs (reinterpret_cast < float4 * >(dst), make_float4 (y[0], y[1], y[2],
          y[3]));
}

/* store of 4 where @dst may be only 4-byte aligned (Args::split): as
 * two stores of two where it is 8-byte aligned, else as one, two and
 * one. */
__device__ __forceinline__ void
store_split (float *dst, const float (&y)[4])
{
  const uintptr_t misaligned = (uintptr_t) dst & 15;

  if (misaligned == 0) {
    store (dst, y);
  } else if (misaligned == 8) {
    __stcs (reinterpret_cast < float2 * >(dst), make_float2 (y[0], y[1]));
    __stcs (reinterpret_cast < float2 * >(dst + 2), make_float2 (y[2], y[3]));
  } else {
    __stcs (dst, y[0]);
    __stcs (reinterpret_cast < float2 * >(dst + 1), make_float2 (y[1], y[2]));
    __stcs (dst + 3, y[3]);
  }
}

/* store of 2 where @dst may be only 4-byte aligned (Args::split): as
 * two stores of one where it is not 8-byte aligned. */
__device__ __forceinline__ void
store_split (float *dst, const float (&y)[2])
{
  if (((uintptr_t) dst & 7) == 0) {
    store (dst, y);
  } else {
    __stcs (dst, y[0]);
    __stcs (dst + 1, y[1]);
  }
}

template < int V >
__device__ __forceinline__ void
store_split (float *dst, const float (&y)[V])
{
  store (dst, y);
}

/* Asynchronous copy of one B-byte unit into shared memory (sm_80 and
 * later; before them a plain load and store, which the barrier after the
 * staging orders just the same). */
template < int B >
__device__ __forceinline__ void
copy_async (void *dst, const void *src)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const uint32_t d = (uint32_t) __cvta_generic_to_shared (dst);

  /* 16 bytes may bypass L1; 8 and 4 may not.  Smaller units are never
   * staged. */
  if (B == 16)
    asm volatile ("cp.async.cg.shared.global [%0], [%1], 16;\n"::"r" (d),
        "l" (src):"memory");
  else if (B == 8 || B == 4)
    asm volatile ("cp.async.ca.shared.global [%0], [%1], %2;\n"::"r" (d),
        "l" (src), "n" (B):"memory");
#else
  if (B == 16)
    *(uint4 *) dst = *(const uint4 *) src;
  else if (B == 8)
    *(uint2 *) dst = *(const uint2 *) src;
  else if (B == 4)
    *(uint32_t *) dst = *(const uint32_t *) src;
#endif
}

/* Waits for this thread's copy_async copies. */
__device__ __forceinline__ void
copy_async_wait (void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile ("cp.async.commit_group;\n" "cp.async.wait_all;\n":::"memory");
#endif
}

__host__ __device__ __forceinline__ uint64_t
row_bytes (const rc_fuse_stream & st)
{
  return (uint64_t) st.channels * (st.type == RC_TYPE_BFLOAT16 ? 2 : 4);
}

template < typename St, int V >
__device__ __forceinline__ const Pack < St, V > *
episode_rows (const Args & a, uint32_t s, uint32_t e)
{
  const rc_fuse_stream & st = a.p.streams[s];

  return reinterpret_cast < const Pack < St, V > *>(static_cast <
      const St * >(st.values) + (uint64_t) e * st.n_samples * st.channels);
}

/* Starts the copy of stream @s's staged rows (contiguous in global memory
 * too), @B bytes at a time. */
template < int B >
__device__ __forceinline__ void
stage_rows (const Args & a, uint32_t s, const Stage & sg, uint32_t e,
    uint8_t * buf)
{
  const rc_fuse_stream & st = a.p.streams[s];
  const uint32_t units = (uint32_t) (row_bytes (st) / B);
  const uint8_t *src = static_cast < const uint8_t * >(st.values) +
      ((uint64_t) e * st.n_samples + sg.lo) * row_bytes (st);
  const uint32_t n = sg.rows * units;

  for (uint32_t i = threadIdx.x; i < n; i += kBlock)
    copy_async < B > (buf + sg.offset + (size_t) i * B,
        src + (size_t) i * B);
}

__device__ __forceinline__ void
stage_stream (const Args & a, uint32_t s, const Stage & sg, uint32_t e,
    uint8_t * buf)
{
  if (sg.offset == kNotStaged)
    return;
  if (a.stage_unit[s] == 16)
    stage_rows < 16 > (a, s, sg, e, buf);
  else if (a.stage_unit[s] == 8)
    stage_rows < 8 > (a, s, sg, e, buf);
  else
    stage_rows < 4 > (a, s, sg, e, buf);
}

/* The first of stream @s's items this thread takes (Args::first). */
__device__ __forceinline__ uint32_t
first_item (const Args & a, uint32_t s)
{
  return (threadIdx.x + kBlock - a.first[s]) % kBlock;
}

/* Writes stream @s's segments of the tile's @nk rows starting at @o, from
 * @rows (input row r at rows[(r - lo) * units]); @Split: Args::split. */
template < typename St, int V, bool Split >
__device__ __forceinline__ void
sweep (const Args & a, uint32_t s, const Loc * locs, uint32_t nk,
    const Pack < St, V > *rows, uint32_t lo, float *o)
{
  typedef Pack < St, V > P;
  const uint32_t units = a.p.streams[s].channels / V;
  const uint32_t total = nk * units;

  o += a.offset[s];
  for (uint32_t i = first_item (a, s); i < total; i += kBlock) {
    const uint32_t k = i / units, u = i - k * units;
    const Loc l = locs[k];
    float y[V];

    if (l.i1 == kNanRow) {
#pragma unroll
      for (int j = 0; j < V; j++)
        y[j] = __int_as_float (0x7fc00000);
    } else {
      const P x1 = rows[(uint64_t) (l.i1 - lo) * units + u];

      if (l.i2 == l.i1) {
#pragma unroll
        for (int j = 0; j < V; j++)
          y[j] = Load < St >::get (x1.v[j]);
      } else {
        const P x2 = rows[(uint64_t) (l.i2 - lo) * units + u];
#pragma unroll
        for (int j = 0; j < V; j++)
          y[j] = rc_rs_lerp_f (Load < St >::get (x1.v[j]),
              Load < St >::get (x2.v[j]), l.w);
      }
    }
    /* Two channels check their alignment whatever the row: their own
     * instantiations for odd rows cost the reference 1 % at 10,000 ticks
     * (run 197, call 203). */
    if (Split || V == 2)
      store_split (o + (uint64_t) k * a.row + u * V, y);
    else
      store (o + (uint64_t) k * a.row + u * V, y);
  }
}

/* sweep for a stream whose segments allow one float an access (an odd
 * width in an odd row, an unaligned buffer): each thread writes a 16-byte
 * unit of the output, partly where a segment begins or ends inside it,
 * and reads its floats one at a time (@rows: input row r at rows[(r - lo) *
 * channels]).  A row of 529 floats (512, 7 and 10 channels), 8 streams:
 * 172 us against 187 a float at a time, 10,000 ticks 671 against 798;
 * streams of two floats an access lost up to a third so (run 154, H200). */
template < typename St >
__device__ __forceinline__ void
sweep_unaligned (const Args & a, uint32_t s, const Loc * locs, uint32_t nk,
    const St * rows, uint32_t lo, float *o)
{
  const uint32_t c = a.p.streams[s].channels;
  const uint32_t span = (c + 3) / 4 + 1;        /* units a segment touches */
  const uint32_t total = nk * span;

  o += a.offset[s];
  for (uint32_t i = first_item (a, s); i < total; i += kBlock) {
    const uint32_t k = i / span, j = i - k * span;
    float *seg = o + (uint64_t) k * a.row;
    /* The unit's first channel: negative where the segment starts
     * inside it. */
    const int32_t ch0 = (int32_t) (4 * j) - (int32_t) (((uintptr_t) seg /
            sizeof (float)) & 3);
    const Loc l = locs[k];
    const bool nan = l.i1 == kNanRow;
    const St *x1 = rows + (uint64_t) ((nan ? lo : l.i1) - lo) * c + ch0;
    const St *x2 = rows + (uint64_t) ((nan ? lo : l.i2) - lo) * c + ch0;
    float y[4];

    if (ch0 >= (int32_t) c)
      continue;
#pragma unroll
    for (int t = 0; t < 4; t++) {
      if (nan)
        y[t] = __int_as_float (0x7fc00000);
      else if (ch0 + t < 0 || ch0 + t >= (int32_t) c)
        y[t] = 0;
      else if (l.i2 == l.i1)
        y[t] = Load < St >::get (x1[t]);
      else
        y[t] = rc_rs_lerp_f (Load < St >::get (x1[t]),
            Load < St >::get (x2[t]), l.w);
    }
    if (ch0 >= 0 && ch0 + 4 <= (int32_t) c) {
      store (seg + ch0, y);
    } else {
#pragma unroll
      for (int t = 0; t < 4; t++)
        if (ch0 + t >= 0 && ch0 + t < (int32_t) c)
          __stcs (seg + ch0 + t, y[t]);
    }
  }
}

/* Sweeps stream @s, with its type, access width and Args::split as
 * template arguments. */
template < typename St, int V, bool Split = false >
__device__ __forceinline__ void
sweep_stream (const Args & a, uint32_t s, const Loc * locs, uint32_t nk,
    const Stage & sg, const uint8_t * buf, uint32_t e, float *o)
{
  if (sg.offset != kNotStaged) {
    /* Separate instantiations, so that these loads are shared-memory
     * loads and the others global ones. */
    if (V == 1)
      sweep_unaligned < St > (a, s, locs, nk,
          reinterpret_cast < const St * >(buf + sg.offset), sg.lo, o);
    else
      sweep < St, V, Split > (a, s, locs, nk, reinterpret_cast <
          const Pack < St, V > *>(buf + sg.offset), sg.lo, o);
  } else if (V == 1) {
    sweep_unaligned < St > (a, s, locs, nk, reinterpret_cast < const St * >
        (episode_rows < St, V > (a, s, e)), 0, o);
  } else {
    sweep < St, V, Split > (a, s, locs, nk, episode_rows < St, V > (a, s,
            e), 0, o);
  }
}

__device__ __forceinline__ void
sweep_dispatch (const Args & a, uint32_t s, const Loc * locs, uint32_t nk,
    const Stage & sg, const uint8_t * buf, uint32_t e, float *o)
{
  const bool bf16 = a.p.streams[s].type == RC_TYPE_BFLOAT16;

  switch (a.vec[s]) {
    case 4:
      if (a.split[s] && bf16)
        sweep_stream < uint16_t, 4, true > (a, s, locs, nk, sg, buf, e, o);
      else if (a.split[s])
        sweep_stream < float, 4, true > (a, s, locs, nk, sg, buf, e, o);
      else if (bf16)
        sweep_stream < uint16_t, 4 > (a, s, locs, nk, sg, buf, e, o);
      else
        sweep_stream < float, 4 > (a, s, locs, nk, sg, buf, e, o);
      break;
    case 2:
      if (bf16)
        sweep_stream < uint16_t, 2 > (a, s, locs, nk, sg, buf, e, o);
      else
        sweep_stream < float, 2 > (a, s, locs, nk, sg, buf, e, o);
      break;
    default:
      if (bf16)
        sweep_stream < uint16_t, 1 > (a, s, locs, nk, sg, buf, e, o);
      else
        sweep_stream < float, 1 > (a, s, locs, nk, sg, buf, e, o);
      break;
  }
}

/* Where stream @s's input rows for the tile lie in the stage buffer, or
 * kNotStaged: its span of rows [lo, hi] (@span: the tile's lows and
 * highs, kNanRow and 0 where no tick blends a row) taken in stream order
 * while it fits and is not much longer than what the tile's @nk ticks
 * blend (ticks out of order, a fast stream under slow ticks: then global
 * memory).  @used: the stage's bytes taken by the streams before @s.
 * Every thread plans for itself as it stages, from the same spans, so
 * that no barrier waits on one planner: where one warp planned after a
 * barrier of its own, 8 streams of the sweep took 131.8 us, now 120.8,
 * 16 streams 252.0 against 229.5, odd rows 4 to 7 % less (run 197,
 * call 198). */
__device__ __forceinline__ Stage
plan_stream (const Args & a, const uint32_t * span, uint32_t s, uint32_t nk,
    uint32_t * used)
{
  const uint32_t lo = span[2 * s], hi = span[2 * s + 1];
  Stage sg;

  sg.lo = lo;
  sg.rows = hi - lo + 1;
  sg.offset = kNotStaged;
  /* The size checks first keep the product from wrapping. */
  if (lo <= hi && a.stage_unit[s] != 0 && sg.rows <= kSpanFactor * 2 * nk
      && a.p.streams[s].channels <= kStageBytes) {
    const uint64_t bytes = sg.rows * row_bytes (a.p.streams[s]);

    if (bytes <= kStageBytes - *used) {
      sg.offset = *used;
      *used += (uint32_t) (bytes + 15) / 16 * 16;
    }
  }
  return sg;
}

/* __grid_constant__: the streams are indexed at run time, straight from
 * the parameter space, without a local copy of the 0.6 KB struct. */
__global__ void __launch_bounds__ (kBlock,
    RC_MIN_BLOCKS (kBlock, kBlocksPerSm))
fuse_kernel (const __grid_constant__ Args a,
    const int64_t * __restrict__ ticks, float *__restrict__ out)
{
  __shared__ Loc locs[kMaxLocs];
  /* Each stream's lowest and highest row the tile blends, taken by the
   * locating threads' atomics; two sets, one cleared while the other is
   * read. */
  __shared__ uint32_t spans[2][2 * RC_FUSE_MAX_STREAMS];
  __shared__ Stage stages[RC_FUSE_MAX_STREAMS];
  __shared__ __align__ (16) uint8_t buf[kStageBytes];
  const rc_fuse_params & p = a.p;
  const uint64_t n_tiles = (uint64_t) p.episodes * a.tiles;
  uint32_t turn = 0;

  for (uint32_t i = threadIdx.x; i < 4 * RC_FUSE_MAX_STREAMS; i += kBlock)
    spans[i / (2 * RC_FUSE_MAX_STREAMS)][i % (2 * RC_FUSE_MAX_STREAMS)] =
        i & 1 ? 0 : kNanRow;
  __syncthreads ();

  for (uint64_t tile = blockIdx.x; tile < n_tiles; tile += gridDim.x) {
    /* 64-bit division is a slow subroutine: only when needed. */
    const uint32_t e = (tile >> 32) ? (uint32_t) (tile / a.tiles) :
        (uint32_t) tile / a.tiles;
    const uint32_t t0 = (uint32_t) (tile - (uint64_t) e * a.tiles) * a.tile;
    const uint32_t nk = min (a.tile, p.n_ticks - t0);
    const uint64_t first_row = (uint64_t) e * p.n_ticks + t0;
    float *o = out + first_row * a.row;
    uint32_t *span = spans[turn];
    uint32_t used;

    /* Locate, stream-major: a warp's lanes search the same stream's times
     * for neighbouring ticks, so their probes share cache lines. */
    for (uint32_t i = threadIdx.x; i < nk * p.n_streams; i += kBlock) {
      const uint32_t s = i / nk, k = i - s * nk;
      const rc_fuse_stream & st = p.streams[s];
      const uint32_t n = st.n_samples;
      const int64_t *ts = st.times + (uint64_t) e * n;
      const int64_t t = ticks[first_row + k];
      rc_rs_loc loc;
      Loc l;

      rc_rs_locate (ts, n, t, rc_rs_search (ts, n, t), st.method, p.edge,
          &loc);
      l.i1 = l.i2 = loc.idx[1];
      l.w = 0;
      if (loc.kind == RC_RS_NAN) {
        l.i1 = l.i2 = kNanRow;
      } else if (loc.kind == RC_RS_INTERP) {
        /* Rounded to float, as rc_resample does. */
        l.i2 = loc.idx[2];
        l.w = (float) loc.w;
      }
      locs[s * a.tile + k] = l;
      if (l.i1 != kNanRow) {
        atomicMin (&span[2 * s], min (l.i1, l.i2));
        atomicMax (&span[2 * s + 1], max (l.i1, l.i2));
      }
    }
    __syncthreads ();
    /* The other set was last read before the previous tile's end. */
    if (threadIdx.x < 2 * p.n_streams)
      spans[turn ^ 1][threadIdx.x] = threadIdx.x & 1 ? 0 : kNanRow;

    /* The sweep reads the plan after the barrier below. */
    used = 0;
    for (uint32_t s = 0; s < p.n_streams; s++) {
      const Stage sg = plan_stream (a, span, s, nk, &used);

      stage_stream (a, s, sg, e, buf);
      if (threadIdx.x == 0)
        stages[s] = sg;
    }
    copy_async_wait ();
    __syncthreads ();

    /* No barrier between the streams: each starts where the ones before
     * it left the block's warps (Args::first), so that the last, partial
     * rounds of items fall on different warps. */
    for (uint32_t s = 0; s < p.n_streams; s++)
      sweep_dispatch (a, s, locs + s * a.tile, nk, stages[s], buf, e, o);
    /* The next tile overwrites the table and the stage buffer. */
    __syncthreads ();
    turn ^= 1;
  }
}

/* Bytes a tile of @k ticks would stage if each stream's samples were spread
 * evenly under the ticks: the rows between its first and last tick, plus
 * the two outer neighbours, for the streams that would be staged. */
uint64_t
stage_estimate (const Args * a, uint32_t k)
{
  const rc_fuse_params *p = &a->p;
  uint64_t total = 0;

  for (uint32_t s = 0; s < p->n_streams; s++) {
    const rc_fuse_stream *st = &p->streams[s];
    const uint64_t rows = ((uint64_t) (k - 1) * st->n_samples +
        p->n_ticks - 1) / p->n_ticks + 2;

    if (a->stage_unit[s] != 0 && rows <= (uint64_t) kSpanFactor * 2 * k)
      total += rows * row_bytes (*st);
  }
  return total;
}

/* The widest access (4, 2 or 1 channels) that keeps every load and store of
 * stream @s aligned; or 4 or 2 with *@split set where that many channels
 * load aligned but their stores are not aligned in every row, stores of 4
 * then going as two (a row of 2 mod 4 floats, as two streams of the
 * reference's kinds make, or eight) or as one, two and one (an odd row),
 * stores of 2 as two of one (an odd row).  Two channels an access, rows of 2
 * mod 4 floats took 1.55 and 1.71 times their floor at 2 and 8 streams,
 * where 4 and 16 took 1.47 and 1.52; split, 2 streams 40.5 -> 39.2 us, 8
 * streams 139.5 -> 130.9 (run 196, call 196).  A float an access, a row of
 * 529 floats (512, 7 and 10 channels) took 1.73 to 1.99 times its floor from
 * 2 streams; its 512 channels split, 8 streams 151.6 -> 124.4 us, 16 streams
 * 326.5 -> 255.4, 10,000 ticks 662.5 -> 526.5 (1.45 to 1.60 times; run 197,
 * call 200); its 10 channels split too, 8 streams 124.8 -> 119.1, 16 streams
 * 255.7 -> 242.7, 10,000 ticks 526.7 -> 513.6 (call 204). */
uint32_t
vector_width (const rc_fuse_stream * st, uint32_t offset, uint32_t row,
    const float *out, uint32_t * split)
{
  const size_t esize = st->type == RC_TYPE_BFLOAT16 ? 2 : 4;
  const uintptr_t values = (uintptr_t) st->values;

  *split = 0;
  for (uint32_t v = 4; v > 1; v /= 2) {
    if (st->channels % v == 0 && offset % v == 0 && row % v == 0
        && (uintptr_t) out % (4 * v) == 0 && values % (esize * v) == 0)
      return v;
    if (st->channels % v == 0 && (uintptr_t) out % 4 == 0
        && values % (esize * v) == 0) {
      *split = 1;
      return v;
    }
  }
  return 1;
}

/* The widest copy (16, 8 or 4 bytes) that keeps the staging of @st
 * aligned; 0 where a row is not whole 4-byte units (a bfloat16 stream of
 * an odd width), which is then read from global memory.  Its rows are
 * contiguous, so only the row's size and the buffer matter, not the
 * output: a 512-channel stream in a row of 529 floats is written a float
 * at a time but staged 16 bytes at a time. */
uint32_t
stage_unit (const rc_fuse_stream * st)
{
  for (uint32_t b = 16; b >= 4; b /= 2) {
    if (row_bytes (*st) % b == 0 && (uintptr_t) st->values % b == 0)
      return b;
  }
  return 0;
}

}                               /* namespace */

extern "C" rc_status
rc_fuse_cuda (const rc_fuse_params * params, const int64_t * tick_times,
    float *out, void *stream)
{
  rc_status ret = rc_fuse_check (params);
  uint64_t tiles, blocks;
  uint32_t offset = 0, k;
  Args a;

  if (ret != RC_OK)
    return ret;
  if (params->episodes == 0 || params->n_ticks == 0)
    return RC_OK;
  if (!tick_times || !out)
    return RC_ERROR_INVALID_ARGUMENT;

  a.p = *params;
  a.row = rc_fuse_row_channels (params);
  for (uint32_t s = 0; s < params->n_streams; s++) {
    a.offset[s] = offset;
    a.vec[s] = vector_width (&params->streams[s], offset, a.row, out,
        &a.split[s]);
    a.stage_unit[s] = stage_unit (&params->streams[s]);
    offset += params->streams[s].channels;
  }

  /* Ticks per tile: about kTileFloats outputs (at least kMinTileTicks),
   * within the shared table and the episode, then fewer while that leaves
   * the GPU short of blocks. */
  k = kTileFloats / a.row;
  k = k < kMinTileTicks ? kMinTileTicks : k;
  k = k > kMaxLocs / params->n_streams ? kMaxLocs / params->n_streams : k;
  k = k > params->n_ticks ? params->n_ticks : k;
  /* Shorter tiles where the staged rows would not fit, down to
   * kMinTileTicks: shorter ones cost more than staging saves. */
  while (k > kMinTileTicks && stage_estimate (&a, k) > kStageBytes)
    k--;
  if ((uint64_t) params->episodes * ((params->n_ticks + k - 1) / k) <
      kMinTiles) {
    /* Tiles an episode for kMinTiles in all, at most one a tick: at
     * once, where halving could overshoot (100 ticks of 3 streams: from
     * 8 ticks to 2, 33.8 us against 28.2 with 3; run 197). */
    const uint64_t per_episode = (kMinTiles + params->episodes - 1) /
        params->episodes;

    k = per_episode >= params->n_ticks ? 1 :
        (uint32_t) (params->n_ticks / per_episode);
  }
  a.tile = k;
  a.tiles = (params->n_ticks + k - 1) / k;
  for (uint32_t s = 0, items = 0; s < params->n_streams; s++) {
    const uint32_t c = params->streams[s].channels;

    a.first[s] = (items + 31) / 32 * 32 % kBlock;
    /* sweep's units, or sweep_unaligned's (a float an access). */
    items += k * (a.vec[s] > 1 ? c / a.vec[s] : (c + 3) / 4 + 1);
  }

  tiles = (uint64_t) params->episodes * a.tiles;
  /* Past this the kernel's grid-stride loop takes the rest. */
  blocks = tiles < (uint64_t) INT_MAX ? tiles : (uint64_t) INT_MAX;
  fuse_kernel <<<(unsigned) blocks, kBlock, 0, (cudaStream_t) stream>>> (a,
      tick_times, out);
  return rc_check_launch ();
}
