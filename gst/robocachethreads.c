/* robocache_pipeline_use_own_threads: a pipeline's streaming threads made
 * by a task pool of robocache's, not GLib's shared thread pool.
 *
 * fork() copies a process with only the thread that called it.  GLib's
 * thread pools keep, in memory the child inherits, the idle threads the
 * parent had waiting for work: in the child those threads do not exist,
 * yet a pool hands them its work and starts none.  A process that forks
 * after it ran a pipeline (PyTorch's DataLoader workers, whose start
 * method is fork on Linux, after a first look at the data in the parent)
 * then never starts the streaming threads of its pipelines: they hang. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "robocache.h"

typedef struct
{
  GstTaskPoolFunction func;
  gpointer data;
} Job;

#define ROBOCACHE_TYPE_THREAD_POOL (robocache_thread_pool_get_type ())
G_DECLARE_FINAL_TYPE (RobocacheThreadPool, robocache_thread_pool,
    ROBOCACHE, THREAD_POOL, GstTaskPool);

/* No state: each job is a thread of its own, made when it is pushed. */
struct _RobocacheThreadPool
{
  GstTaskPool parent;
};

G_DEFINE_TYPE (RobocacheThreadPool, robocache_thread_pool, GST_TYPE_TASK_POOL);

static gpointer
run_job (gpointer data)
{
  Job job = *(Job *) data;

  g_free (data);
  job.func (job.data);
  return NULL;
}

/* Nothing to make or free: the base class would make a GThreadPool. */
static void
robocache_thread_pool_prepare (GstTaskPool * pool, GError ** error)
{
}

static void
robocache_thread_pool_cleanup (GstTaskPool * pool)
{
}

static gpointer
robocache_thread_pool_push (GstTaskPool * pool, GstTaskPoolFunction func,
    gpointer data, GError ** error)
{
  Job *job = g_new (Job, 1);
  GThread *thread;

  job->func = func;
  job->data = data;
  thread = g_thread_try_new ("robocache-task", run_job, job, error);
  if (!thread)
    g_free (job);
  return thread;
}

static void
robocache_thread_pool_join (GstTaskPool * pool, gpointer id)
{
  g_thread_join (id);
}

static void
robocache_thread_pool_class_init (RobocacheThreadPoolClass * klass)
{
  GstTaskPoolClass *pool_class = GST_TASK_POOL_CLASS (klass);

  pool_class->prepare = robocache_thread_pool_prepare;
  pool_class->cleanup = robocache_thread_pool_cleanup;
  pool_class->push = robocache_thread_pool_push;
  pool_class->join = robocache_thread_pool_join;
}

static void
robocache_thread_pool_init (RobocacheThreadPool * pool)
{
}

/* One for the process: it holds no threads, so it survives fork(). */
static GstTaskPool *
own_pool (void)
{
  static GstTaskPool *pool;

  if (g_once_init_enter (&pool)) {
    GstTaskPool *made = g_object_new (ROBOCACHE_TYPE_THREAD_POOL, NULL);

    gst_object_ref_sink (made);
    g_once_init_leave (&pool, made);
  }
  return pool;
}

/* Every task the pipeline makes (one a streaming thread) runs on the
 * pool: a task's pool is set when it is made, before it starts. */
static GstBusSyncReply
set_task_pool (GstBus * bus, GstMessage * message, gpointer user_data)
{
  GstStreamStatusType type;
  const GValue *value;

  if (GST_MESSAGE_TYPE (message) != GST_MESSAGE_STREAM_STATUS)
    return GST_BUS_PASS;
  gst_message_parse_stream_status (message, &type, NULL);
  value = gst_message_get_stream_status_object (message);
  if (type == GST_STREAM_STATUS_TYPE_CREATE && value &&
      G_VALUE_HOLDS (value, GST_TYPE_TASK))
    gst_task_set_pool (g_value_get_object (value), own_pool ());
  return GST_BUS_PASS;
}

gboolean
robocache_pipeline_use_own_threads (GstElement * pipeline)
{
  GstBus *bus;

  g_return_val_if_fail (GST_IS_PIPELINE (pipeline), FALSE);

  bus = gst_pipeline_get_bus (GST_PIPELINE (pipeline));
  gst_bus_set_sync_handler (bus, set_task_pool, NULL, NULL);
  gst_object_unref (bus);
  return TRUE;
}
