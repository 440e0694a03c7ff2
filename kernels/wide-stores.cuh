/* Arrays of 4-byte words written 16 bytes a store.  A grid or row that
 * follows another in one allocation may start 4, 8 or 12 bytes past a
 * 16-byte boundary: its words before the first boundary, and after the
 * last whole 16 bytes, are stored one at a time. */
#ifndef ROBOCACHE_KERNELS_WIDE_STORES_CUH
#define ROBOCACHE_KERNELS_WIDE_STORES_CUH

#include <cuda_runtime.h>
#include <stdint.h>

/* Stores word @i of @n words at @out, for @i from @first in steps of
 * @stride (this thread's share), as @word (i) gives it: each word's index
 * asked for once.  With STREAMING, evict-first stores (__stcs), for an
 * output nothing in the launch reads again.  Index: uint32_t where @n
 * allows, for fewer instructions (a tile's 2^15 words), or uint64_t. */
template < bool STREAMING, typename Index, typename Word >
__device__ static void
store_words (uint32_t * out, Index n, Index first, Index stride, Word word)
{
  Index head = (Index) ((16 - ((uintptr_t) out & 15)) / 4 % 4);
  Index n4, i;
  uint4 *wide;

  head = head < n ? head : n;
  n4 = (n - head) / 4;
  wide = (uint4 *) (out + head);
  for (i = first; i < n4; i += stride) {
    Index w = head + 4 * i;
    uint4 v = make_uint4 (word (w), word (w + 1), word (w + 2), word (w + 3));

    if (STREAMING)
      __stcs (wide + i, v);
    else
      wide[i] = v;
  }
  for (i = first; i < n - n4 * 4; i += stride) {
    Index w = i < head ? i : n4 * 4 + i;

    out[w] = word (w);
  }
}

#endif
