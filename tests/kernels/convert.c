/* rc_to_float32_cpu: each scalar type against values written out by hand,
 * rounding to nearest (ties to even) included, and a type that is not
 * one; rc_repeat_rows_cpu and rc_copy_rows_cpu against rows written out
 * by hand, and the row copies refused; rc_seconds_to_ns_cpu against exact
 * integer arithmetic on fresh random times, and the times it refuses. */
#include <gst/check/gstcheck.h>
#include <math.h>
#include <string.h>

#include "robocache-kernels.h"
#include "testutil.h"

#define N 4

/* @n values of @type at @src must become @want, bit for bit. */
static void
check (rc_scalar_type type, const void *src, const float *want)
{
  float got[N];

  memset (got, 0xab, sizeof (got));
  fail_unless_equals_int (rc_to_float32_cpu (type, src, N, got), RC_OK);
  for (int i = 0; i < N; i++)
    fail_unless (memcmp (&got[i], &want[i], sizeof (float)) == 0,
        "%s value %d: got %a, want %a", rc_scalar_type_to_string (type), i,
        got[i], want[i]);
}

GST_START_TEST (test_integers)
{
  static const int8_t i8[N] = { -128, -1, 0, 127 };
  static const float i8_want[N] = { -128.0f, -1.0f, 0.0f, 127.0f };
  static const uint8_t u8[N] = { 0, 1, 200, 255 };
  static const float u8_want[N] = { 0.0f, 1.0f, 200.0f, 255.0f };
  static const int16_t i16[N] = { -32768, -7, 300, 32767 };
  static const float i16_want[N] = { -32768.0f, -7.0f, 300.0f, 32767.0f };
  static const uint16_t u16[N] = { 0, 65535, 1234, 9 };
  static const float u16_want[N] = { 0.0f, 65535.0f, 1234.0f, 9.0f };
  /* Above 2^24 floats are 2 apart: 2^24 + 1 and 2^24 + 3 are ties, each
   * rounded to the even neighbour. */
  static const int32_t i32[N] = { INT32_MIN, -1, 16777217, INT32_MAX };
  static const float i32_want[N] =
      { -2147483648.0f, -1.0f, 16777216.0f, 2147483648.0f };
  static const uint32_t u32[N] = { 0, 16777217, 16777219, UINT32_MAX };
  static const float u32_want[N] =
      { 0.0f, 16777216.0f, 16777220.0f, 4294967296.0f };

  check (RC_TYPE_INT8, i8, i8_want);
  check (RC_TYPE_UINT8, u8, u8_want);
  check (RC_TYPE_INT16, i16, i16_want);
  check (RC_TYPE_UINT16, u16, u16_want);
  check (RC_TYPE_INT32, i32, i32_want);
  check (RC_TYPE_UINT32, u32, u32_want);
}

GST_END_TEST;

GST_START_TEST (test_floats)
{
  static const float f32[N] = { 1.5f, -0.0f, INFINITY, -3.25e-41f };
  /* 1 + 2^-24 is halfway between 1 and the next float: to even, 1. */
  static const double f64[N] = { 0.1, 1e39, -1e-50, 1.0 + 0x1p-24 };
  static const float f64_want[N] = { 0.1f, INFINITY, -0.0f, 1.0f };
  /* 1, -2, infinity and the smallest subnormal, 2^-133. */
  static const uint16_t bf16[N] = { 0x3f80, 0xc000, 0x7f80, 0x0001 };
  static const float bf16_want[N] = { 1.0f, -2.0f, INFINITY, 0x1p-133f };

  check (RC_TYPE_FLOAT32, f32, f32);
  check (RC_TYPE_FLOAT64, f64, f64_want);
  check (RC_TYPE_BFLOAT16, bf16, bf16_want);
}

GST_END_TEST;

GST_START_TEST (test_bad_type_n)
{
  const float src[N] = { 1, 2, 3, 4 };
  float out[N];

  fail_unless_equals_int (rc_to_float32_cpu (RC_TYPE_INVALID, src, N, out),
      RC_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (rc_to_float32_cpu ((rc_scalar_type) 99, src, N,
          out), RC_ERROR_INVALID_ARGUMENT);
  /* Nothing to convert is not an error. */
  fail_unless_equals_int (rc_to_float32_cpu (RC_TYPE_UINT8, src, 0, out),
      RC_OK);
}

GST_END_TEST;

/* The first row repeated over the others, the bytes after them kept;
 * one row or none is left as it is. */
GST_START_TEST (test_repeat_rows)
{
  uint8_t buf[3 * 5 + 2];

  for (size_t i = 0; i < sizeof (buf); i++)
    buf[i] = (uint8_t) (7 * i + 3);
  fail_unless_equals_int (rc_repeat_rows_cpu (buf, 5, 1), RC_OK);
  fail_unless_equals_int (rc_repeat_rows_cpu (buf, 5, 0), RC_OK);
  for (size_t i = 0; i < sizeof (buf); i++)
    fail_unless_equals_int (buf[i], (uint8_t) (7 * i + 3));
  fail_unless_equals_int (rc_repeat_rows_cpu (buf, 5, 3), RC_OK);
  for (size_t i = 0; i < 15; i++)
    fail_unless (buf[i] == (uint8_t) (7 * (i % 5) + 3), "byte %zu is %u", i,
        buf[i]);
  fail_unless_equals_int (buf[15], (uint8_t) (7 * 15 + 3));
  fail_unless_equals_int (buf[16], (uint8_t) (7 * 16 + 3));
  fail_unless_equals_int (rc_repeat_rows_cpu (NULL, 5, 2),
      RC_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (rc_repeat_rows_cpu (buf, G_MAXSIZE / 2, 3),
      RC_ERROR_INVALID_ARGUMENT);
}

GST_END_TEST;

/* Two copies in one call: rows 3 bytes wide from a pitch of 4 to one of
 * 5, and one row repeated at a pitch of 0; copies of no rows or width
 * touch nothing, even with NULL pointers. */
GST_START_TEST (test_copy_rows)
{
  const uint8_t src[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
  uint8_t dst[16], rep[6];
  const uint8_t want[16] = { 1, 2, 3, 0, 0, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0, 0 };
  const uint8_t want_rep[6] = { 7, 8, 7, 8, 7, 8 };
  rc_row_copy copies[4] = {
    {dst, src, 5, 4, 3, 2},
    {rep, src + 6, 2, 0, 2, 3},
    {NULL, NULL, 0, 0, 0, 9},
    {NULL, NULL, 0, 0, 9, 0},
  };

  memset (dst, 0, sizeof (dst));
  fail_unless_equals_int (rc_copy_rows_cpu (copies, 4), RC_OK);
  fail_unless (memcmp (dst, want, sizeof (want)) == 0);
  fail_unless (memcmp (rep, want_rep, sizeof (want_rep)) == 0);
  fail_unless_equals_int (rc_copy_rows_cpu (NULL, 0), RC_OK);
}

GST_END_TEST;

/* Each way a row copy is refused, before any byte is written. */
GST_START_TEST (test_copy_rows_refused)
{
  uint8_t src[8] = { 0 }, dst[8];
  const rc_row_copy good = { dst, src, 4, 4, 4, 2 };
  rc_row_copy bad[6];
  rc_row_copy many[RC_ROW_COPIES_MAX + 1];

  for (int i = 0; i < 6; i++)
    bad[i] = good;
  bad[0].dst = NULL;
  bad[1].src = NULL;
  bad[2].dst_pitch = 3;
  bad[3].src_pitch = 2;
  bad[4].dst = (void *) (UINTPTR_MAX - 6);
  bad[5].src = (const void *) (UINTPTR_MAX - 6);
  for (int i = 0; i < 6; i++) {
    rc_row_copy both[2] = { good, bad[i] };

    memset (dst, 0xab, sizeof (dst));
    fail_unless_equals_int (rc_copy_rows_cpu (both, 2),
        RC_ERROR_INVALID_ARGUMENT);
    fail_unless_equals_int (dst[0], 0xab);
  }
  for (int i = 0; i <= RC_ROW_COPIES_MAX; i++)
    many[i] = good;
  fail_unless_equals_int (rc_copy_rows_cpu (many, RC_ROW_COPIES_MAX + 1),
      RC_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (rc_copy_rows_cpu (NULL, 1),
      RC_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (rc_copy_rows_cpu (many, RC_ROW_COPIES_MAX), RC_OK);
}

GST_END_TEST;

#ifdef __SIZEOF_INT128__
/* @s seconds to the nearest nanosecond, ties away from zero, computed
 * exactly: @s is m * 2^e with an integer m of 53 bits at most. */
static int64_t
exact_ns (double s)
{
  int e;
  const int64_t m = (int64_t) ldexp (frexp (s, &e), 53);
  const __int128 v = (__int128) m * 1000000000;
  __int128 q, twice_rest, d;

  e -= 53;
  if (e >= 0)
    return (int64_t) (v << e);
  if (-e > 120)
    return 0;
  d = (__int128) 1 << -e;
  q = v / d;
  twice_rest = 2 * (v % d);
  if (twice_rest >= d)
    q++;
  else if (twice_rest <= -d)
    q--;
  return (int64_t) q;
}
#endif

GST_START_TEST (test_seconds_to_ns)
{
  /* The first two a double's product with 1e9 rounds 120 and 238 ns off
   * (rosbag2's time of 2022-06-01, and its next double); then ties. */
  static const double fixed[] = { 1654059575.0000017, 1654059575.0000019,
    1.0 / 1024, -1.0 / 1024, 5e-10, -5e-10, 0, 9223372036.0
  };
  static const int64_t fixed_ns[] = { 1654059575000001669,
    1654059575000001907, 976563, -976563, 1, -1, 0, 9223372036000000000
  };
  static const double refused[] = { NAN, INFINITY, -INFINITY, 9.3e9,
    -9.3e9, 9223372036.854775808
  };
  const size_t n = 100000;
  GRand *rand = test_rand_new ();
  double *seconds = g_new (double, n);
  int64_t *ns = g_new (int64_t, n);
  int64_t one;

  fail_unless_equals_int (rc_seconds_to_ns_cpu (fixed, ns,
          G_N_ELEMENTS (fixed)), RC_OK);
  for (size_t i = 0; i < G_N_ELEMENTS (fixed); i++)
    fail_unless (ns[i] == fixed_ns[i], "%.17g s: %" G_GINT64_FORMAT
        " ns, want %" G_GINT64_FORMAT, fixed[i], ns[i], fixed_ns[i]);
  test_random_seconds (rand, seconds, n);
  fail_unless_equals_int (rc_seconds_to_ns_cpu (seconds, ns, n), RC_OK);
#ifdef __SIZEOF_INT128__
  for (size_t i = 0; i < n; i++)
    fail_unless (ns[i] == exact_ns (seconds[i]), "%.17g s: %"
        G_GINT64_FORMAT " ns, want %" G_GINT64_FORMAT, seconds[i], ns[i],
        exact_ns (seconds[i]));
#endif
  for (size_t i = 0; i < G_N_ELEMENTS (refused); i++)
    fail_unless_equals_int (rc_seconds_to_ns_cpu (&refused[i], &one, 1),
        RC_ERROR_INVALID_ARGUMENT);
  g_free (seconds);
  g_free (ns);
  g_rand_free (rand);
}

GST_END_TEST;

static Suite *
kernels_convert_suite (void)
{
  Suite *s = suite_create ("kernels-convert");
  TCase *tc = tcase_create ("cpu");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_integers);
  tcase_add_test (tc, test_floats);
  tcase_add_test (tc, test_bad_type_n);
  tcase_add_test (tc, test_repeat_rows);
  tcase_add_test (tc, test_copy_rows);
  tcase_add_test (tc, test_copy_rows_refused);
  tcase_add_test (tc, test_seconds_to_ns);
  return s;
}

GST_CHECK_MAIN (kernels_convert);
