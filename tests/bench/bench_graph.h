/* Back-to-back timing for bench-kernels: a workload's calls captured into
 * one CUDA graph and replayed, so that the launch cost of a single call is
 * paid once per replay rather than once per call.  Not part of robocache. */
#ifndef ROBOCACHE_BENCH_GRAPH_H
#define ROBOCACHE_BENCH_GRAPH_H

#include "robocache-kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The work of one call on input set @set, enqueued on the bench's stream. */
typedef void (*bench_call) (void *ctx, int set);

/* Captures @n_calls calls of @call on @stream, call k on set k % @n_sets,
 * into a graph ready to replay (*@graph). */
rc_status bench_graph_capture (bench_call call, void *ctx, int n_sets,
    int n_calls, void *stream, void **graph);
rc_status bench_graph_replay (void *graph, void *stream);
void bench_graph_free (void *graph);

/* A kernel that does nothing: what a launch alone costs. */
rc_status bench_empty_launch (void *stream);

#ifdef __cplusplus
}
#endif
#endif
