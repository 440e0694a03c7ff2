/* rc_to_float32_cuda against rc_to_float32_cpu on fresh random values of
 * every scalar type: sizes from none to past one grid of blocks (the
 * kernel's grid-stride loop), an odd count, float32's plain copy; and
 * rc_repeat_rows_cuda against rc_repeat_rows_cpu on random bytes, each
 * width of copy.  Exits 77 (SKIP) without a usable GPU. */
#include <gst/check/gstcheck.h>
#include <math.h>
#include <string.h>

#include "robocache-kernels.h"
#include "testutil.h"

/* Random bytes for integers; finite random floats (NaN payloads are not
 * compared) for the float types. */
static void
fill (GRand * rand, rc_scalar_type type, uint8_t * buf, uint64_t n)
{
  for (uint64_t i = 0; i < n; i++) {
    float f = (float) g_rand_double_range (rand, -1e6, 1e6);
    double d = g_rand_double_range (rand, -1e40, 1e40);
    uint32_t bits;

    switch (type) {
      case RC_TYPE_FLOAT32:
        memcpy (buf + 4 * i, &f, 4);
        break;
      case RC_TYPE_FLOAT64:
        /* Half beyond float's range, some below its smallest. */
        d = (i % 3 == 0) ? d : (i % 3 == 1) ? d * 1e-80 : f + 1e-9;
        memcpy (buf + 8 * i, &d, 8);
        break;
      case RC_TYPE_BFLOAT16:
        memcpy (&bits, &f, 4);
        bits >>= 16;
        memcpy (buf + 2 * i, &bits, 2);
        break;
      default:
        for (size_t b = 0; b < rc_scalar_type_size (type); b++)
          buf[i * rc_scalar_type_size (type) + b] =
              (uint8_t) g_rand_int_range (rand, 0, 256);
        break;
    }
  }
}

static void
check_type (GRand * rand, rc_scalar_type type, uint64_t n)
{
  size_t size = rc_scalar_type_size (type);
  uint8_t *host = g_malloc (n * size + 1);
  float *want = g_malloc (n * sizeof (float) + 4);
  float *got = g_malloc (n * sizeof (float) + 4);
  void *src = NULL, *out = NULL, *stream = NULL;

  fill (rand, type, host, n);
  fail_unless_equals_int (rc_to_float32_cpu (type, host, n, want), RC_OK);
  fail_unless_equals_int (rc_stream_create (&stream), RC_OK);
  fail_unless_equals_int (rc_device_alloc (&src, n * size + 1), RC_OK);
  fail_unless_equals_int (rc_device_alloc (&out, n * sizeof (float) + 4),
      RC_OK);
  fail_unless_equals_int (rc_device_copy_async (src, host, n * size,
          RC_COPY_HOST_TO_DEVICE, stream), RC_OK);
  fail_unless_equals_int (rc_to_float32_cuda (type, src, n, out, stream),
      RC_OK);
  fail_unless_equals_int (rc_device_copy_async (got, out, n * sizeof (float),
          RC_COPY_DEVICE_TO_HOST, stream), RC_OK);
  fail_unless_equals_int (rc_stream_synchronize (stream), RC_OK);
  for (uint64_t i = 0; i < n; i++)
    fail_unless (memcmp (&got[i], &want[i], sizeof (float)) == 0,
        "%s, %" G_GUINT64_FORMAT " values: value %" G_GUINT64_FORMAT
        ": GPU %a, CPU %a", rc_scalar_type_to_string (type), n, i, got[i],
        want[i]);
  rc_device_free (src);
  rc_device_free (out);
  rc_stream_destroy (stream);
  g_free (host);
  g_free (want);
  g_free (got);
}

GST_START_TEST (test_every_type)
{
  /* 8192 blocks of 256 threads cover 2,097,152 values: 3,000,001 loops. */
  static const uint64_t sizes[] = { 0, 1, 1000, 65537, 3000001 };
  GRand *rand = test_rand_new ();

  for (int t = 0; t < RC_TYPE_INVALID; t++)
    for (size_t k = 0; k < G_N_ELEMENTS (sizes); k++)
      check_type (rand, (rc_scalar_type) t, sizes[k]);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_bad_type_n)
{
  fail_unless_equals_int (rc_to_float32_cuda (RC_TYPE_INVALID, NULL, 4,
          NULL, NULL), RC_ERROR_INVALID_ARGUMENT);
}

GST_END_TEST;

/* @n_rows rows of @row_bytes random bytes at @offset bytes into a device
 * buffer (its alignment picks the copy's unit), with random bytes around
 * them: the GPU leaves the same bytes as the CPU, those around untouched. */
static void
check_repeat_rows (GRand * rand, uint64_t row_bytes, uint64_t n_rows,
    size_t offset)
{
  size_t size = offset + row_bytes * n_rows + 16;
  uint8_t *want = g_malloc (size), *got = g_malloc (size);
  void *dev = NULL, *stream = NULL;

  for (size_t i = 0; i < size; i++)
    want[i] = (uint8_t) g_rand_int_range (rand, 0, 256);
  fail_unless_equals_int (rc_stream_create (&stream), RC_OK);
  fail_unless_equals_int (rc_device_alloc (&dev, size), RC_OK);
  fail_unless_equals_int (rc_device_copy_async (dev, want, size,
          RC_COPY_HOST_TO_DEVICE, stream), RC_OK);
  fail_unless_equals_int (rc_repeat_rows_cuda ((uint8_t *) dev + offset,
          row_bytes, n_rows, stream), RC_OK);
  fail_unless_equals_int (rc_device_copy_async (got, dev, size,
          RC_COPY_DEVICE_TO_HOST, stream), RC_OK);
  fail_unless_equals_int (rc_stream_synchronize (stream), RC_OK);
  fail_unless_equals_int (rc_repeat_rows_cpu (want + offset, row_bytes,
          n_rows), RC_OK);
  for (size_t i = 0; i < size; i++)
    fail_unless (got[i] == want[i], "rows of %" G_GUINT64_FORMAT " bytes, %"
        G_GUINT64_FORMAT " rows at %zu: byte %zu is %u, not %u", row_bytes,
        n_rows, offset, i, got[i], want[i]);
  rc_device_free (dev);
  rc_stream_destroy (stream);
  g_free (want);
  g_free (got);
}

/* 16-, 8-, 4- and 1-byte copies (the row's size and the address), one
 * row (nothing to do), and 40 rows of 131,072 grid times: past one grid
 * of 8,192 blocks of 256 16-byte copies (the grid-stride loop). */
GST_START_TEST (test_repeat_rows)
{
  static const uint64_t widths[] = { 8192, 8192, 24, 12, 7 };
  static const size_t offsets[] = { 0, 8, 4, 1 };
  GRand *rand = test_rand_new ();

  for (size_t w = 0; w < G_N_ELEMENTS (widths); w++)
    for (size_t o = 0; o < G_N_ELEMENTS (offsets); o++)
      check_repeat_rows (rand, widths[w], w == 0 ? 1 : 64, offsets[o]);
  check_repeat_rows (rand, 131072 * 8, 40, 0);
  fail_unless_equals_int (rc_repeat_rows_cuda (NULL, 8, 2, NULL),
      RC_ERROR_INVALID_ARGUMENT);
  g_rand_free (rand);
}

GST_END_TEST;

static Suite *
kernels_convert_gpu_suite (void)
{
  Suite *s = suite_create ("kernels-convert-gpu");
  TCase *tc = tcase_create ("gpu");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 240);
  tcase_add_test (tc, test_every_type);
  tcase_add_test (tc, test_bad_type_n);
  tcase_add_test (tc, test_repeat_rows);
  return s;
}

int
main (int argc, char **argv)
{
  Suite *s;

  test_require_gpu ();
  gst_check_init (&argc, &argv);
  s = kernels_convert_gpu_suite ();
  return gst_check_run_suite (s, "kernels_convert_gpu", __FILE__);
}
