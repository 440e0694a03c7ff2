/* The memory limit every robocache element checks its allocations
 * against (gstrobocachememory.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocachememory.h"
#include "robocache-kernels.h"

#include <string.h>
#include <sys/resource.h>

GST_DEBUG_CATEGORY_STATIC (gst_robocache_memory_debug);
#define GST_CAT_DEFAULT gst_robocache_memory_debug

/* The number after @key in the "key: value" lines of @text (in kB when
 * @kib), or FALSE. */
static gboolean
text_value (const gchar * text, const gchar * key, gboolean kib,
    guint64 * value)
{
  const gchar *at = text ? strstr (text, key) : NULL;

  if (!at)
    return FALSE;
  at += strlen (key);
  while (*at == ' ' || *at == '\t' || *at == ':')
    at++;
  if (!g_ascii_isdigit (*at))
    return FALSE;
  *value = g_ascii_strtoull (at, NULL, 10) * (kib ? 1024 : 1);
  return TRUE;
}

static gchar *
read_text (const gchar * path)
{
  gchar *text;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  return text;
}

static gchar *
read_in (const gchar * dir, const gchar * name)
{
  gchar *path = g_build_filename (dir, name, NULL);
  gchar *text = read_text (path);

  g_free (path);
  return text;
}

/* What the process's own cgroup (v2) still allows: memory.max less
 * memory.current; FALSE without cgroup v2 or without a limit ("max"). */
static gboolean
cgroup_left (guint64 * left)
{
  gchar *cgroup = read_text ("/proc/self/cgroup");
  gchar *line = cgroup ? strstr (cgroup, "0::/") : NULL;
  gchar *max = NULL, *current = NULL;
  gboolean ok;

  if (line && (line == cgroup || line[-1] == '\n')) {
    gchar *dir;

    line[strcspn (line, "\n")] = '\0';
    dir = g_build_filename ("/sys/fs/cgroup", line + 3, NULL);
    max = read_in (dir, "memory.max");
    current = read_in (dir, "memory.current");
    g_free (dir);
  }
  ok = max && g_ascii_isdigit (max[0]);
  if (ok) {
    guint64 limit = g_ascii_strtoull (max, NULL, 10);
    guint64 used = current ? g_ascii_strtoull (current, NULL, 10) : 0;

    *left = limit > used ? limit - used : 0;
  }
  g_free (max);
  g_free (current);
  g_free (cgroup);
  return ok;
}

/* Limit @resource less @used (from /proc/self/status), into *@left when it
 * is lower; FALSE when unlimited. */
static gboolean
rlimit_left (int resource, const gchar * status, const gchar * used_key,
    guint64 * left)
{
  struct rlimit lim;
  guint64 used = 0;

  if (getrlimit (resource, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY)
    return FALSE;
  text_value (status, used_key, TRUE, &used);
  *left = lim.rlim_cur > used ? lim.rlim_cur - used : 0;
  return TRUE;
}

/* Keeps @value as the least, and @what as what limits it. */
static void
keep_least (guint64 value, const gchar * what, guint64 * least,
    const gchar ** least_what)
{
  if (value < *least) {
    *least = value;
    *least_what = what;
  }
}

guint64
gst_robocache_memory_host_available (const gchar ** what_limits)
{
  gchar *meminfo = read_text ("/proc/meminfo");
  gchar *status = read_text ("/proc/self/status");
  guint64 least = G_MAXUINT64, value;
  const gchar *what = "nothing";

  if (text_value (meminfo, "MemAvailable", TRUE, &value))
    keep_least (value, "MemAvailable in /proc/meminfo", &least, &what);
  if (cgroup_left (&value))
    keep_least (value, "the cgroup's memory.max", &least, &what);
  if (rlimit_left (RLIMIT_AS, status, "VmSize", &value))
    keep_least (value, "RLIMIT_AS", &least, &what);
  if (rlimit_left (RLIMIT_DATA, status, "VmData", &value))
    keep_least (value, "RLIMIT_DATA", &least, &what);
  g_free (meminfo);
  g_free (status);
  if (what_limits)
    *what_limits = what;
  return least;
}

/* The GPU's free memory (the context current), or FALSE with an error
 * posted. */
static gboolean
device_available (GstElement * element, guint64 * available)
{
  size_t free_bytes = 0, total = 0;
  rc_status ret = rc_device_memory_info (&free_bytes, &total);

  if (ret != RC_OK) {
    GST_ELEMENT_ERROR (element, RESOURCE, FAILED, ("cannot read the GPU's "
            "free memory: %s", rc_status_message (ret)), ("%s",
            rc_error_detail ()));
    return FALSE;
  }
  GST_DEBUG_OBJECT (element, "GPU memory: %" G_GSIZE_FORMAT " bytes free of %"
      G_GSIZE_FORMAT, free_bytes, total);
  *available = free_bytes;
  return TRUE;
}

static const gchar *
kind_name (GstRobocacheMemoryKind kind)
{
  return kind == GST_ROBOCACHE_MEMORY_DEVICE ? "GPU memory" :
      kind == GST_ROBOCACHE_MEMORY_PINNED ? "page-locked host memory" :
      "host memory";
}

gboolean
gst_robocache_memory_check (GstElement * element, guint64 max_memory,
    GstRobocacheMemoryKind kind, guint64 bytes, const gchar * what,
    const gchar * sized_by)
{
  const gchar *limits = "the GPU's free memory (cudaMemGetInfo)";
  guint64 available;

  if (max_memory && bytes > max_memory) {
    GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT, ("%s would take %"
            G_GUINT64_FORMAT " bytes of %s, above the %" G_GUINT64_FORMAT
            " the element is allowed: set its max-memory property to at "
            "least %" G_GUINT64_FORMAT ", or make %s smaller", what, bytes,
            kind_name (kind), max_memory, bytes, sized_by), (NULL));
    return FALSE;
  }
  if (kind == GST_ROBOCACHE_MEMORY_DEVICE) {
    if (!device_available (element, &available))
      return FALSE;
  } else {
    available = gst_robocache_memory_host_available (&limits);
  }
  GST_DEBUG_OBJECT (element, "%s: %" G_GUINT64_FORMAT " bytes of %s, %"
      G_GUINT64_FORMAT " allowed, %" G_GUINT64_FORMAT " available (%s)",
      what, bytes, kind_name (kind), max_memory, available, limits);
  if (bytes <= available)
    return TRUE;
  GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT, ("%s would take %"
          G_GUINT64_FORMAT " bytes of %s, more than the %" G_GUINT64_FORMAT
          " available (%s): make %s smaller (max-memory, %" G_GUINT64_FORMAT
          ", cannot raise what the process can have)", what, bytes,
          kind_name (kind), available, limits, sized_by, max_memory), (NULL));
  return FALSE;
}

void
gst_robocache_memory_install_property (GObjectClass * klass, guint prop_id)
{
  GST_DEBUG_CATEGORY_INIT (gst_robocache_memory_debug, "robocachememory", 0,
      "robocache memory limits");
  /* max-memory: the most bytes of each kind (host, GPU) the element may
   * allocate for what its caps and properties size; 0 leaves only the
   * memory available as the limit. */
  g_object_class_install_property (klass, prop_id,
      g_param_spec_uint64 ("max-memory", "Maximum memory",
          "Most bytes of host memory, and of GPU memory, the element may "
          "allocate for what its caps and properties size (grids, scratch, "
          "frames, chunks, pools); 0 = only what is available", 0,
          G_MAXUINT64, GST_ROBOCACHE_DEFAULT_MAX_MEMORY, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
}
