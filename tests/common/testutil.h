/* Shared by the tests: seeded random data and visible GPU skips. */
#ifndef ROBOCACHE_TESTUTIL_H
#define ROBOCACHE_TESTUTIL_H

#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robocache-kernels.h"

/* RUNNING_ON_VALGRIND: true under `meson test --setup valgrind`, for the
 * tests whose timing or memory readings valgrind changes. */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

/* meson reports a test that exits with this code as SKIP. */
#define TEST_EXIT_SKIP 77

/* A fresh seed per run (printed, and settable with ROBOCACHE_TEST_SEED so a
 * failure can be replayed). */
static inline GRand *
test_rand_new (void)
{
  const gchar *env = g_getenv ("ROBOCACHE_TEST_SEED");
  guint32 seed = env ? (guint32) g_ascii_strtoull (env, NULL, 10) :
      (guint32) g_get_real_time ();
  g_print ("random seed: %u (ROBOCACHE_TEST_SEED=%u replays it)\n", seed,
      seed);
  return g_rand_new_with_seed (seed);
}

/* @n times in float64 seconds that int64 nanoseconds hold, of the kinds
 * a conversion can get wrong: Unix times (past 2^53 ns, where a double's
 * step is over a nanosecond), times near the +-9.2e9 s limit, and
 * fractions on half a nanosecond, a tie, either side of zero. */
static inline void
test_random_seconds (GRand * rand, double *seconds, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    const double sign = g_rand_boolean (rand) ? 1 : -1;

    switch (i % 4) {
      case 0:
        seconds[i] = g_rand_double_range (rand, 1.5e9, 2.2e9);
        break;
      case 1:
        seconds[i] = sign * g_rand_double_range (rand, 9.0e9, 9.2e9);
        break;
      case 2:
        /* k / 1024 s is a tie: 1e9 / 1024 ns is 976562.5. */
        seconds[i] = sign * g_rand_int_range (rand, 0, 1 << 20) / 1024.0;
        break;
      default:
        seconds[i] = sign * g_rand_double_range (rand, 0, 1e4);
        break;
    }
  }
}

/* Exits with TEST_EXIT_SKIP, saying why, when no CUDA device can be used. */
static inline void
test_require_gpu (void)
{
  const char *why = NULL;
  if (rc_device_count (&why) > 0) {
    /* CUDA cannot be used in a child forked after it was initialised:
     * run the check cases in this process. */
    g_setenv ("CK_FORK", "no", TRUE);
    /* Which kernel library ran (a test may run with another's). */
    g_print ("kernels built for cuda-architectures '%s'\n",
        rc_cuda_architectures ());
    return;
  }
  g_print ("SKIP: no usable CUDA device (%s)\n", why ? why : "unknown");
  exit (TEST_EXIT_SKIP);
}

/* The value of @field (VmRSS, VmData, ...) of /proc/self/status in KiB,
 * or -1 where there is none. */
static inline glong
test_proc_status_kib (const gchar * field)
{
  gchar *status = NULL, *at;
  glong kib = -1;

  if (g_file_get_contents ("/proc/self/status", &status, NULL, NULL)
      && (at = strstr (status, field)) && at[strlen (field)] == ':')
    kib = strtol (at + strlen (field) + 1, NULL, 10);
  g_free (status);
  return kib;
}

/* Removes @path and everything below it (a test's temporary folder). */
static inline void
test_remove_tree (const gchar * path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const gchar *name;

  while (dir && (name = g_dir_read_name (dir))) {
    gchar *p = g_build_filename (path, name, NULL);

    if (g_file_test (p, G_FILE_TEST_IS_DIR))
      test_remove_tree (p);
    else
      g_unlink (p);
    g_free (p);
  }
  if (dir)
    g_dir_close (dir);
  g_rmdir (path);
}

#endif
