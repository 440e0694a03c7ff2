/* rc_to_float32_cuda against rc_to_float32_cpu on fresh random values of
 * every scalar type: sizes from none to past one grid of blocks (the
 * kernel's grid-stride loop), an odd count, float32's plain copy; and
 * rc_repeat_rows_cuda against rc_repeat_rows_cpu and rc_copy_rows_cuda
 * against rc_copy_rows_cpu on random bytes, each width of copy;
 * rc_seconds_to_ns_cuda against rc_seconds_to_ns_cpu on fresh random times,
 * and its clamping of the times the CPU refuses.  Exits 77 (SKIP) without
 * a usable GPU. */
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

/* The offset of the first byte where @a and @b differ, @size if none:
 * compared at once, where a check a value would be a call into check
 * each, for millions of them. */
static size_t
first_difference (const void *a, const void *b, size_t size)
{
  const uint8_t *x = a, *y = b;
  size_t i = 0;

  if (memcmp (a, b, size) == 0)
    return size;
  while (x[i] == y[i])
    i++;
  return i;
}

static void
check_type (GRand * rand, rc_scalar_type type, uint64_t n)
{
  size_t size = rc_scalar_type_size (type);
  uint64_t i;
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
  i = first_difference (got, want, n * sizeof (float)) / sizeof (float);
  if (i < n)
    fail ("%s, %" G_GUINT64_FORMAT " values: value %" G_GUINT64_FORMAT
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

/* The same random bytes on the device and the host, for a copy done on
 * each. */
typedef struct
{
  size_t size;
  uint8_t *dev, *want, *got;
  void *stream;
} Mirror;

static void
mirror_init (Mirror * m, GRand * rand, size_t size)
{
  m->size = size;
  m->want = g_malloc (size);
  m->got = g_malloc (size);
  for (size_t i = 0; i < size; i += 4) {
    guint32 r = g_rand_int (rand);

    memcpy (m->want + i, &r, MIN (4, size - i));
  }
  fail_unless_equals_int (rc_stream_create (&m->stream), RC_OK);
  fail_unless_equals_int (rc_device_alloc ((void **) &m->dev, size), RC_OK);
  fail_unless_equals_int (rc_device_copy_async (m->dev, m->want, size,
          RC_COPY_HOST_TO_DEVICE, m->stream), RC_OK);
}

/* @copy, made on the device's bytes, on the host's. */
static rc_row_copy
mirror_on_host (const Mirror * m, const rc_row_copy * copy)
{
  rc_row_copy c = *copy;

  c.dst = m->want + ((uint8_t *) copy->dst - m->dev);
  c.src = m->want + ((const uint8_t *) copy->src - m->dev);
  return c;
}

/* Once the host's copy is done: the device's bytes are the host's, every
 * one; @what names the case. */
static void
mirror_check_and_clear (Mirror * m, const gchar * what)
{
  size_t i;

  fail_unless_equals_int (rc_device_copy_async (m->got, m->dev, m->size,
          RC_COPY_DEVICE_TO_HOST, m->stream), RC_OK);
  fail_unless_equals_int (rc_stream_synchronize (m->stream), RC_OK);
  i = first_difference (m->got, m->want, m->size);
  if (i < m->size)
    fail ("%s: byte %zu is %u, not %u", what, i, m->got[i], m->want[i]);
  rc_device_free (m->dev);
  rc_stream_destroy (m->stream);
  g_free (m->want);
  g_free (m->got);
}

/* @n_rows rows of @row_bytes random bytes at @offset bytes into a device
 * buffer (its alignment picks the copy's unit), with random bytes around
 * them: the GPU leaves the same bytes as the CPU, those around untouched. */
static void
check_repeat_rows (GRand * rand, uint64_t row_bytes, uint64_t n_rows,
    size_t offset)
{
  gchar *what = g_strdup_printf ("rows of %" G_GUINT64_FORMAT " bytes, %"
      G_GUINT64_FORMAT " rows at %zu", row_bytes, n_rows, offset);
  Mirror m;

  mirror_init (&m, rand, offset + row_bytes * n_rows + 16);
  fail_unless_equals_int (rc_repeat_rows_cuda (m.dev + offset, row_bytes,
          n_rows, m.stream), RC_OK);
  fail_unless_equals_int (rc_repeat_rows_cpu (m.want + offset, row_bytes,
          n_rows), RC_OK);
  mirror_check_and_clear (&m, what);
  g_free (what);
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

/* @copies (@n) done on @m's bytes on the device and on the host, then
 * compared. */
static void
check_copies (Mirror * m, const rc_row_copy * copies, uint32_t n,
    const gchar * what)
{
  rc_row_copy host[RC_ROW_COPIES_MAX];

  for (uint32_t k = 0; k < n; k++)
    host[k] = mirror_on_host (m, &copies[k]);
  fail_unless_equals_int (rc_copy_rows_cuda (copies, n, m->stream), RC_OK);
  fail_unless_equals_int (rc_copy_rows_cpu (host, n), RC_OK);
  mirror_check_and_clear (m, what);
}

/* A row copy of @rows rows of @width bytes (@repeat: from one row) into
 * @dst from @src, each region @room bytes: random spare bytes a row (a
 * pitch of any alignment) and random offsets. */
static rc_row_copy
random_copy (GRand * rand, uint8_t * dst, uint8_t * src, size_t room,
    uint64_t width, uint64_t rows, gboolean repeat)
{
  rc_row_copy c;

  c.dst_pitch = width + g_rand_int_range (rand, 0, 3) * 4 +
      g_rand_int_range (rand, 0, 2);
  c.src_pitch = repeat ? 0 : width + g_rand_int_range (rand, 0, 9);
  c.width = width;
  c.rows = rows;
  c.dst = dst + g_rand_int_range (rand, 0, 17);
  c.src = src + g_rand_int_range (rand, 0, 3) * 8;
  fail_unless (c.dst_pitch * (rows - 1) + width + 16 <= room
      && c.src_pitch * (rows - 1) + width + 16 <= room);
  return c;
}

/* @n copies of random shapes (@shape: width, rows, repeated), each
 * writing to its own part of the first half of a buffer of random bytes
 * and reading from its own part of the second: the GPU leaves every byte
 * as the CPU does, the ones no copy writes untouched. */
static void
check_random_copies (GRand * rand, const uint64_t (*shape)[3], uint32_t n)
{
  const size_t size = 32 << 20, room = size / 2 / n;
  gchar *what = g_strdup_printf ("%u copies, the first %" G_GUINT64_FORMAT
      " x %" G_GUINT64_FORMAT, n, shape[0][0], shape[0][1]);
  rc_row_copy copies[RC_ROW_COPIES_MAX];
  Mirror m;

  mirror_init (&m, rand, size);
  for (uint32_t k = 0; k < n; k++)
    copies[k] = random_copy (rand, m.dev + k * room,
        m.dev + size / 2 + k * room, room, shape[k][0], shape[k][1],
        shape[k][2]);
  check_copies (&m, copies, n, what);
  g_free (what);
}

/* A chunk's staging: times (8 bytes a sample) and values (28 and 128
 * bytes) behind the kept ones, 64 trajectories; each unit (16 down to 1
 * byte, from the random pitches and offsets); a copy past one grid of
 * blocks; repeated rows; each pair in one launch and alone. */
GST_START_TEST (test_copy_rows)
{
  static const uint64_t shapes[][2][3] = {
    {{3 * 8, 64, 0}, {4096 * 8, 64, 0}},
    {{3 * 28, 64, 0}, {4096 * 28, 64, 0}},
    {{2 * 128, 60, 0}, {1000 * 128, 60, 0}},
    {{7, 33, 0}, {6, 100, 1}},
    {{16, 1, 0}, {1024 * 8, 63, 1}},
    {{1 << 20, 5, 0}, {1, 1, 0}},
  };
  GRand *rand = test_rand_new ();

  for (int round = 0; round < 2; round++)
    for (size_t i = 0; i < G_N_ELEMENTS (shapes); i++) {
      check_random_copies (rand, shapes[i], 2);
      check_random_copies (rand, shapes[i], 1);
    }
  g_rand_free (rand);
}

GST_END_TEST;

/* Eight copies in one launch, each to its own rows of one buffer from
 * its own (units of 16, 8, 4, 2 and 1 byte, blocks from 1 to many): every
 * row lands where the CPU puts it; and copies refused. */
GST_START_TEST (test_copy_rows_eight)
{
  static const size_t offsets[] = { 0, 8, 4, 2, 1, 0, 8, 4 };
  const size_t row = 64 * 1024, size = 64 * row;
  rc_row_copy copies[RC_ROW_COPIES_MAX];
  GRand *rand = test_rand_new ();
  Mirror m;

  mirror_init (&m, rand, size);
  for (uint32_t k = 0; k < RC_ROW_COPIES_MAX; k++) {
    /* Copy k: the first half's rows 4k..4k+3 from the second half's. */
    copies[k].dst = m.dev + 4 * k * row + offsets[k];
    copies[k].src = m.dev + size / 2 + 4 * k * row + offsets[k];
    copies[k].dst_pitch = copies[k].src_pitch = row;
    copies[k].width = k == 7 ? 16 : k == 4 ? row - 19 : row - 16;
    copies[k].rows = k == 6 ? 1 : 4;
  }
  check_copies (&m, copies, RC_ROW_COPIES_MAX, "eight copies");
  fail_unless_equals_int (rc_copy_rows_cuda (NULL, 1, NULL),
      RC_ERROR_INVALID_ARGUMENT);
  copies[3].dst_pitch = 1;
  fail_unless_equals_int (rc_copy_rows_cuda (copies, 4, NULL),
      RC_ERROR_INVALID_ARGUMENT);
  g_rand_free (rand);
}

GST_END_TEST;

static rc_row_copy
row_copy (void *dst, const void *src, uint64_t dst_pitch, uint64_t src_pitch,
    uint64_t width, uint64_t rows)
{
  rc_row_copy c = { dst, src, dst_pitch, src_pitch, width, rows };

  return c;
}

/* @p, a pointer into @dev or @pinned (@size bytes each), into the host's
 * copies of them, @want_dev and @want_pinned. */
static uint8_t *
on_host (const void *p, const uint8_t * dev, const uint8_t * pinned,
    size_t size, uint8_t * want_dev, uint8_t * want_pinned)
{
  const uint8_t *b = p;

  if (b >= dev && b < dev + size)
    return want_dev + (b - dev);
  fail_unless (b >= pinned && b < pinned + size);
  return want_pinned + (b - pinned);
}

/* Page-locked host memory on either side of row copies in one launch, as
 * a chunk's ends and order flags are read back: each trajectory's first
 * time and last 256 into the host's rows, a flag a trajectory, and a
 * middle piece from the host to the device; random bytes, the CPU's
 * result on both sides. */
GST_START_TEST (test_copy_rows_host)
{
  const size_t row = 4096 * 8, size = 64 * row;
  uint8_t *want_dev = g_malloc (size), *want_pinned = g_malloc (size);
  uint8_t *got = g_malloc (size), *dev = NULL, *pinned = NULL;
  rc_row_copy copies[4], host[4];
  void *stream = NULL;
  GRand *rand = test_rand_new ();
  size_t i;

  for (i = 0; i < size; i++) {
    want_dev[i] = (uint8_t) g_rand_int (rand);
    want_pinned[i] = (uint8_t) g_rand_int (rand);
  }
  fail_unless_equals_int (rc_stream_create (&stream), RC_OK);
  fail_unless_equals_int (rc_device_alloc ((void **) &dev, size), RC_OK);
  fail_unless_equals_int (rc_host_alloc ((void **) &pinned, size), RC_OK);
  memcpy (pinned, want_pinned, size);
  fail_unless_equals_int (rc_device_copy_async (dev, want_dev, size,
          RC_COPY_HOST_TO_DEVICE, stream), RC_OK);
  copies[0] = row_copy (pinned, dev, row, row, 8, 64);
  copies[1] = row_copy (pinned + row - 256 * 8, dev + row - 256 * 8, row,
      row, 256 * 8, 64);
  copies[2] = row_copy (pinned + 8 * 8, dev + 8 * 8, 1, row, 1, 64);
  copies[3] = row_copy (dev + 100 * 8, pinned + 100 * 8, row, row, 1000 * 8,
      64);
  for (i = 0; i < G_N_ELEMENTS (copies); i++) {
    host[i] = copies[i];
    host[i].dst = on_host (copies[i].dst, dev, pinned, size, want_dev,
        want_pinned);
    host[i].src = on_host (copies[i].src, dev, pinned, size, want_dev,
        want_pinned);
  }
  fail_unless_equals_int (rc_copy_rows_cuda (copies, 4, stream), RC_OK);
  fail_unless_equals_int (rc_device_copy_async (got, dev, size,
          RC_COPY_DEVICE_TO_HOST, stream), RC_OK);
  fail_unless_equals_int (rc_stream_synchronize (stream), RC_OK);
  fail_unless_equals_int (rc_copy_rows_cpu (host, 4), RC_OK);
  i = first_difference (pinned, want_pinned, size);
  if (i < size)
    fail ("page-locked byte %zu is %u, not %u", i, pinned[i], want_pinned[i]);
  i = first_difference (got, want_dev, size);
  if (i < size)
    fail ("device byte %zu is %u, not %u", i, got[i], want_dev[i]);
  rc_device_free (dev);
  rc_host_free (pinned);
  rc_stream_destroy (stream);
  g_rand_free (rand);
  g_free (want_dev);
  g_free (want_pinned);
  g_free (got);
}

GST_END_TEST;

GST_START_TEST (test_seconds_to_ns)
{
  /* What the CPU refuses the GPU clamps (robocache-kernels.h). */
  static const double refused[] = { NAN, INFINITY, -INFINITY, 9.3e9,
    -9.3e9
  };
  static const int64_t clamped[] = { 0, INT64_MAX, INT64_MIN, INT64_MAX,
    INT64_MIN
  };
  const size_t n = 100003, m = G_N_ELEMENTS (refused);
  GRand *rand = test_rand_new ();
  double *seconds = g_new (double, n + m);
  int64_t *want = g_new (int64_t, n), *got = g_new (int64_t, n + m);
  void *dev_seconds = NULL, *dev_ns = NULL, *stream = NULL;

  test_random_seconds (rand, seconds, n);
  memcpy (seconds + n, refused, sizeof (refused));
  fail_unless_equals_int (rc_seconds_to_ns_cpu (seconds, want, n), RC_OK);
  fail_unless_equals_int (rc_stream_create (&stream), RC_OK);
  fail_unless_equals_int (rc_device_alloc (&dev_seconds, (n + m) * 8), RC_OK);
  fail_unless_equals_int (rc_device_alloc (&dev_ns, (n + m) * 8), RC_OK);
  fail_unless_equals_int (rc_device_copy_async (dev_seconds, seconds,
          (n + m) * 8, RC_COPY_HOST_TO_DEVICE, stream), RC_OK);
  fail_unless_equals_int (rc_seconds_to_ns_cuda (dev_seconds, dev_ns, n + m,
          stream), RC_OK);
  fail_unless_equals_int (rc_device_copy_async (got, dev_ns, (n + m) * 8,
          RC_COPY_DEVICE_TO_HOST, stream), RC_OK);
  fail_unless_equals_int (rc_stream_synchronize (stream), RC_OK);
  for (size_t i = 0; i < n; i++)
    fail_unless (got[i] == want[i], "%.17g s: GPU %" G_GINT64_FORMAT
        " ns, CPU %" G_GINT64_FORMAT, seconds[i], got[i], want[i]);
  for (size_t i = 0; i < m; i++)
    fail_unless (got[n + i] == clamped[i], "%g s: GPU %" G_GINT64_FORMAT
        " ns, want %" G_GINT64_FORMAT, refused[i], got[n + i], clamped[i]);
  rc_device_free (dev_seconds);
  rc_device_free (dev_ns);
  rc_stream_destroy (stream);
  g_free (seconds);
  g_free (want);
  g_free (got);
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
  tcase_add_test (tc, test_copy_rows);
  tcase_add_test (tc, test_copy_rows_eight);
  tcase_add_test (tc, test_copy_rows_host);
  tcase_add_test (tc, test_seconds_to_ns);
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
