// What initcheck_peer.cu and initcheck_ctx.cu share: the byte pattern of
// the sources, a kernel that writes it, and the read back to the host
// that initcheck checks, announced first so that any report that follows
// is the case's.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  std::printf ("%s: %s\n", #call, cudaGetErrorString (e_)); return 1; } \
} while (0)

static inline __host__ __device__ unsigned char
pattern_byte (size_t i)
{
  return (unsigned char) (i * 7 + 1);
}

__global__ void
fill (unsigned char *out, size_t n)
{
  size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x;

  if (i < n)
    out[i] = pattern_byte (i);
}

// Prints @what, copies the @n bytes of @dst (device memory of the current
// context) to the host and checks them against the pattern.
static int
read_back (const unsigned char *dst, size_t n, const char *what)
{
  unsigned char *host = (unsigned char *) std::malloc (n);
  int wrong = -1;

  std::printf ("== %s\n", what);
  std::fflush (stdout);
  CHECK (cudaMemcpy (host, dst, n, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < n && wrong < 0; i++)
    if (host[i] != pattern_byte (i))
      wrong = (int) i;
  std::free (host);
  if (wrong >= 0) {
    std::printf ("   wrong byte %d\n", wrong);
    return 1;
  }
  std::printf ("   bytes right\n");
  return 0;
}

// Two sources of @n pattern bytes in the current context: one copied
// from the host (*from_host), one written by a kernel (*by_kernel).
static int
make_sources (size_t n, unsigned char **from_host, unsigned char **by_kernel)
{
  unsigned char *pattern = (unsigned char *) std::malloc (n);

  for (size_t i = 0; i < n; i++)
    pattern[i] = pattern_byte (i);
  CHECK (cudaMalloc (from_host, n));
  CHECK (cudaMemcpy (*from_host, pattern, n, cudaMemcpyHostToDevice));
  std::free (pattern);
  CHECK (cudaMalloc (by_kernel, n));
  fill <<< (n + 255) / 256, 256 >>> (*by_kernel, n);
  CHECK (cudaGetLastError ());
  CHECK (cudaDeviceSynchronize ());
  return 0;
}
