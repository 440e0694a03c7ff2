/* The bus's measured copy rates between system and GPU memory: the floor
 * of every case of bench-pipeline that crosses it. */
#ifndef BENCH_BUS_H
#define BENCH_BUS_H

#include <glib.h>

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

#endif
