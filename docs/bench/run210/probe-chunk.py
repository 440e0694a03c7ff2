# Writes /tmp/probe/chunk.c and chunkgpu.c: run 210, call 296's probe of
# the resample chunk path (a PROBE line a step), from the tree at 739b2a5 (gst/ as at b6092a8).
import re
root='/work/main/gst/'
a=open(root+'gstrobocacheresamplechunk.c').read()
b=open(root+'gstrobocacheresamplechunkgpu.c').read()
def rep(s, old, new):
    assert s.count(old)==1, old
    return s.replace(old,new)
helpers='''
#include <time.h>
#include <stdio.h>
static gint64 probe_ns (void) { struct timespec t; clock_gettime (CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
static gint64 probe_t0, probe_last_end;
void probe_mark (const char *what);
void probe_mark (const char *what) { gint64 t = probe_ns (); fprintf (stderr, "PROBE %s %lld\\n", what, (long long) (t - probe_t0)); probe_t0 = t; }
'''
a=rep(a,'#define GST_CAT_DEFAULT gst_robocache_resample_debug\n','#define GST_CAT_DEFAULT gst_robocache_resample_debug\n'+helpers)
a=rep(a,'''  if (!check_order (self, c) || !trim_off_grid (self, c, &flow) ||
      !chunk_times (self, c))
    return flow;
  resample_count_inputs (self, c->n_accepted);''','''  probe_mark ("finish_prev");
  if (!check_order (self, c) || !trim_off_grid (self, c, &flow) ||
      !chunk_times (self, c))
    return flow;
  probe_mark ("checks");
  resample_count_inputs (self, c->n_accepted);''')
a=rep(a,'''  flow = stage_sources (self, c);
  if (flow != GST_FLOW_OK || !locate_grid_range (self, c))
    return flow;
  flow = compute_chunk (self, c, out);
  st->k_next = c->k_b;''','''  probe_mark ("misc");
  flow = stage_sources (self, c);
  probe_mark ("stage_sources");
  if (flow != GST_FLOW_OK || !locate_grid_range (self, c))
    return flow;
  flow = compute_chunk (self, c, out);
  probe_mark ("cd_end");
  st->k_next = c->k_b;''')
a=rep(a,'''    resample_grid_times (st, c->k_a, c->n_target, TRUE, st->host_tgt.ptr);
    *out = resample_new_output (self, out_size);''','''    probe_mark ("cc_pinned");
    resample_grid_times (st, c->k_a, c->n_target, TRUE, st->host_tgt.ptr);
    probe_mark ("cc_grid_row");
    *out = resample_new_output (self, out_size);
    probe_mark ("cc_new_output");''')
a=rep(a,'''  c.batch = st->in_info.batch;
  c.discont = GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT);''','''  {
    gint64 now = probe_ns ();
    if (probe_last_end)
      fprintf (stderr, "PROBE outside %lld\\n", (long long) (now - probe_last_end));
    probe_t0 = now;
  }
  c.batch = st->in_info.batch;
  c.discont = GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT);''')
a=rep(a,'''  if (!map_chunk (self, buf, &c))
    return GST_FLOW_ERROR;
  /* This chunk''','''  probe_mark ("samples");
  if (!map_chunk (self, buf, &c))
    return GST_FLOW_ERROR;
  probe_mark ("map_read_back");
  /* This chunk''')
a=rep(a,'''    st->pending_n = (guint64) c.batch * c.n_target;
    return GST_FLOW_OK;''','''    st->pending_n = (guint64) c.batch * c.n_target;
    probe_mark ("tail");
    probe_last_end = probe_ns ();
    fprintf (stderr, "PROBE chunk_end %d\\n", c.on_device);
    return GST_FLOW_OK;''')
b=rep(b,'#define GST_CAT_DEFAULT gst_robocache_resample_debug\n','#define GST_CAT_DEFAULT gst_robocache_resample_debug\nvoid probe_mark (const char *what);\n')
b=rep(b,'''  ret = ok ? queue_times_read_back (self, c, ends, stream) : RC_OK;
  if (ok && ret == RC_OK)
    ret = rc_stream_synchronize (stream);''','''  probe_mark ("rb_ensure");
  ret = ok ? queue_times_read_back (self, c, ends, stream) : RC_OK;
  probe_mark ("rb_queue");
  if (ok && ret == RC_OK)
    ret = rc_stream_synchronize (stream);
  probe_mark ("rb_sync");''')
b=rep(b,'''  tgt = st->out_cuda ? map.data : st->device_tgt.ptr;''','''  probe_mark ("cd_ensure_map");
  tgt = st->out_cuda ? map.data : st->device_tgt.ptr;''')
b=rep(b,'''  /* Downstream may read the output at once: waited for now, or marked and
   * waited for once the next chunk's upload is queued. */''','''  probe_mark ("cd_queue");
  /* Downstream may read the output at once: waited for now, or marked and
   * waited for once the next chunk's upload is queued. */''')
b=rep(b,'''  /* Queued after the copies above, which read the previous values. */''','''  probe_mark ("st_front");
  /* Queued after the copies above, which read the previous values. */''')
open('/tmp/probe/chunk.c','w').write(a)
open('/tmp/probe/chunkgpu.c','w').write(b)
