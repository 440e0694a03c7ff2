/* The bus's measured copy rates between system and GPU memory: the floor
 * of every case of bench-pipeline that crosses it. */
#ifndef BENCH_BUS_H
#define BENCH_BUS_H

#include <glib.h>

#include "robocache-kernels.h"

typedef struct
{
  gsize size;
  /* GB/s (1e9 bytes per second), medians. */
  double pinned_h2d, pinned_d2h, pageable_h2d, pageable_d2h;
} BusRates;

/* Copies of @size bytes each way from page-locked and from pageable
 * memory, timed with CUDA events, @reps times after three warm-ups; FALSE
 * with the reason in @why when CUDA cannot. */
gboolean bench_bus_measure (gsize size, guint reps, BusRates * rates,
    gchar ** why);

/* GB/s (median) of @reps copies of @size bytes from @src to @dst on
 * @stream of the current context, timed with CUDA events after three
 * warm-ups: one copy rate of the bus, or between two devices' memory
 * (RC_COPY_BETWEEN_DEVICES). */
gboolean bench_bus_copy_rate (void *dst, const void *src, gsize size,
    rc_copy_kind kind, void *stream, guint reps, double *rate, gchar ** why);

#endif
