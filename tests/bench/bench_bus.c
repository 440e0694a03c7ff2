/* The bus floor of bench-pipeline: copy rates from and to page-locked and
 * pageable system memory, measured in the same run as the cases. */
#include "bench_bus.h"

#include <stdlib.h>
#include <string.h>

#include "robocache-kernels.h"

#define WARMUP 3

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Median GB/s of @reps copies of @size bytes from @src to @dst. */
static rc_status
copy_rate (void *dst, const void *src, gsize size, rc_copy_kind kind,
    void *stream, void *start, void *end, guint reps, double *rate)
{
  double *ms = g_new (double, reps);
  rc_status ret = RC_OK;

  for (guint i = 0; ret == RC_OK && i < reps + WARMUP; i++) {
    float t = 0;

    ret = rc_event_record (start, stream);
    if (ret == RC_OK)
      ret = rc_device_copy_async (dst, src, size, kind, stream);
    if (ret == RC_OK)
      ret = rc_event_record (end, stream);
    if (ret == RC_OK)
      ret = rc_event_elapsed_ms (start, end, &t);
    if (i >= WARMUP)
      ms[i - WARMUP] = t;
  }
  if (ret == RC_OK) {
    qsort (ms, reps, sizeof (double), compare_double);
    *rate = size / (ms[reps / 2] * 1e-3) / 1e9;
  }
  g_free (ms);
  return ret;
}

gboolean
bench_bus_measure (gsize size, guint reps, BusRates * rates, gchar ** why)
{
  void *device = NULL, *pinned = NULL, *stream = NULL, *start = NULL,
      *end = NULL;
  guint8 *pageable = g_malloc (size);
  rc_status ret;

  memset (rates, 0, sizeof (*rates));
  rates->size = size;
  /* Touched first: the copies are timed, not the page faults. */
  memset (pageable, 1, size);
  ret = rc_device_alloc (&device, size);
  if (ret == RC_OK)
    ret = rc_host_alloc (&pinned, size);
  if (ret == RC_OK)
    ret = rc_stream_create (&stream);
  if (ret == RC_OK)
    ret = rc_event_create (&start);
  if (ret == RC_OK)
    ret = rc_event_create (&end);
  if (ret == RC_OK)
    memset (pinned, 1, size);
  if (ret == RC_OK)
    ret = copy_rate (device, pinned, size, RC_COPY_HOST_TO_DEVICE, stream,
        start, end, reps, &rates->pinned_h2d);
  if (ret == RC_OK)
    ret = copy_rate (pinned, device, size, RC_COPY_DEVICE_TO_HOST, stream,
        start, end, reps, &rates->pinned_d2h);
  if (ret == RC_OK)
    ret = copy_rate (device, pageable, size, RC_COPY_HOST_TO_DEVICE, stream,
        start, end, reps, &rates->pageable_h2d);
  if (ret == RC_OK)
    ret = copy_rate (pageable, device, size, RC_COPY_DEVICE_TO_HOST, stream,
        start, end, reps, &rates->pageable_d2h);
  if (ret != RC_OK && why)
    *why = g_strdup_printf ("%s (%s)", rc_status_message (ret),
        rc_error_detail ());
  rc_event_destroy (start);
  rc_event_destroy (end);
  rc_stream_destroy (stream);
  rc_host_free (pinned);
  rc_device_free (device);
  g_free (pageable);
  return ret == RC_OK;
}

gboolean
bench_bus_copy_rate (void *dst, const void *src, gsize size,
    rc_copy_kind kind, void *stream, guint reps, double *rate, gchar ** why)
{
  void *start = NULL, *end = NULL;
  rc_status ret = rc_event_create (&start);

  if (ret == RC_OK)
    ret = rc_event_create (&end);
  if (ret == RC_OK)
    ret = copy_rate (dst, src, size, kind, stream, start, end, reps, rate);
  if (ret != RC_OK && why)
    *why = g_strdup_printf ("%s (%s)", rc_status_message (ret),
        rc_error_detail ());
  rc_event_destroy (start);
  rc_event_destroy (end);
  return ret == RC_OK;
}
