"""GStreamer through ctypes (libgstreamer-1.0, GLib) and librobocache-1.0's
array, context, merge and alignment functions (the appsinks are pulled
there, in C): the few calls Pipeline makes, loaded on first use.

Importing this module initialises GStreamer once, with robocache's plugin
folder (the build's gst/, or the installed _config.PLUGINDIR) on the
plugin path.
"""
import ctypes
import ctypes.util
import os
import pathlib
import threading

from . import _config, _lib

P, c_void_p, c_char_p, c_int, c_uint = (
    ctypes.POINTER, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int,
    ctypes.c_uint)
c_uint64, c_size_t = ctypes.c_uint64, ctypes.c_size_t

CLOCK_TIME_NONE = 2**64 - 1
SECOND = 10**9


class GError(ctypes.Structure):
    _fields_ = [("domain", ctypes.c_uint32), ("code", c_int),
                ("message", c_char_p)]


class MiniObject(ctypes.Structure):
    _fields_ = [("type", c_size_t), ("refcount", c_int),
                ("lockstate", c_int), ("flags", c_uint),
                ("copy", c_void_p), ("dispose", c_void_p),
                ("free", c_void_p), ("priv_uint", c_uint),
                ("priv_pointer", c_void_p)]


class Buffer(ctypes.Structure):
    _fields_ = [("mini_object", MiniObject), ("pool", c_void_p),
                ("pts", c_uint64), ("dts", c_uint64),
                ("duration", c_uint64), ("offset", c_uint64),
                ("offset_end", c_uint64)]


class Message(ctypes.Structure):
    _fields_ = [("mini_object", MiniObject), ("type", c_int),
                ("timestamp", c_uint64), ("src", c_void_p),
                ("seqnum", ctypes.c_uint32)]


class Aligned(ctypes.Structure):
    """RobocacheAligned (robocache.h)."""
    _fields_ = [("lead", c_void_p), ("time", c_uint64),
                ("vector_times", ctypes.POINTER(ctypes.c_int64)),
                ("vector_values", ctypes.POINTER(ctypes.c_double)),
                ("n_vectors", c_uint), ("channels", c_uint),
                ("frame", c_void_p), ("frame_time", c_uint64)]


class ArrayInfo(ctypes.Structure):
    """RobocacheArrayInfo (robocache.h)."""
    _fields_ = [("ndim", ctypes.c_int), ("shape", ctypes.c_int64 * 4),
                ("dtype", _lib.DLDataType), ("device", _lib.DLDevice)]


class AlignOutput(ctypes.Structure):
    """RobocacheAlignOutput (robocache.h)."""
    _fields_ = [("device", ctypes.c_int), ("stream", c_void_p),
                ("lead", c_void_p), ("lead_count", c_size_t),
                ("targets", c_void_p), ("n_targets", c_uint),
                ("method", ctypes.c_int), ("vectors", c_void_p),
                ("frame", c_void_p), ("frame_size", c_size_t)]


ALIGN_ERROR, ALIGN_END, ALIGN_ITEM, ALIGN_WAITING = -1, 0, 1, 2
MERGE_END, MERGE_SAMPLE, MERGE_WAITING = 0, 1, 2


class GValue(ctypes.Structure):
    _fields_ = [("g_type", c_size_t), ("data", ctypes.c_uint64 * 2)]


class MapInfo(ctypes.Structure):
    _fields_ = [("memory", c_void_p), ("flags", c_int),
                ("data", c_void_p), ("size", c_size_t),
                ("maxsize", c_size_t), ("user_data", c_void_p * 4),
                ("_gst_reserved", c_void_p * 4)]


# GstMessageType, GstState, GstStateChangeReturn, GstParseFlags,
# GstIteratorResult, GstMapFlags
MESSAGE_EOS, MESSAGE_ERROR, MESSAGE_WARNING = 1 << 0, 1 << 1, 1 << 2
STATE_NULL, STATE_READY, STATE_PAUSED, STATE_PLAYING = 1, 2, 3, 4
STATE_CHANGE_FAILURE, STATE_CHANGE_ASYNC = 0, 2
PARSE_FLAG_FATAL_ERRORS, PARSE_FLAG_PLACE_IN_BIN = 1 << 0, 1 << 2
ITERATOR_DONE, ITERATOR_OK, ITERATOR_RESYNC = 0, 1, 2
MAP_READ = 1 << 0
MAP_CUDA = 1 << 17      # GST_MAP_FLAG_LAST << 1


def _open(soname, env):
    path = os.environ.get(env) or soname
    try:
        return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    except OSError as err:
        raise ImportError("robocache.Pipeline needs GStreamer: cannot load "
                          "%s (%s); install GStreamer 1.22 (Debian: "
                          "libgstreamer1.0-0, gstreamer1.0-plugins-base) or "
                          "set %s" % (path, err, env)) from None


glib = _open("libglib-2.0.so.0", "ROBOCACHE_GLIB_LIBRARY")
gobject = _open("libgobject-2.0.so.0", "ROBOCACHE_GOBJECT_LIBRARY")
gst = _open("libgstreamer-1.0.so.0", "ROBOCACHE_GST_LIBRARY")
robocache = _lib._load("librobocache-1.0.so.0", "ROBOCACHE_LIBRARY")

_PROTOTYPES = {
    glib: {
        "g_free": (None, [c_void_p]),
        "g_error_free": (None, [P(GError)]),
    },
    gobject: {
        "g_type_check_instance_is_a": (c_int, [c_void_p, c_size_t]),
        "g_value_get_object": (c_void_p, [P(GValue)]),
        "g_value_unset": (None, [P(GValue)]),
        "g_object_ref": (c_void_p, [c_void_p]),
        "g_object_unref": (None, [c_void_p]),
    },
    gst: {
        "gst_init_check": (c_int, [c_void_p, c_void_p, P(P(GError))]),
        "gst_is_initialized": (c_int, []),
        "gst_registry_get": (c_void_p, []),
        "gst_registry_find_plugin": (c_void_p, [c_void_p, c_char_p]),
        "gst_registry_scan_path": (c_int, [c_void_p, c_char_p]),
        "gst_parse_launch_full": (c_void_p, [c_char_p, c_void_p, c_int,
                                             P(P(GError))]),
        "gst_pipeline_get_type": (c_size_t, []),
        "gst_pipeline_new": (c_void_p, [c_char_p]),
        "gst_bin_add": (c_int, [c_void_p, c_void_p]),
        "gst_bin_iterate_all_by_element_factory_name": (
            c_void_p, [c_void_p, c_char_p]),
        "gst_iterator_next": (c_int, [c_void_p, P(GValue)]),
        "gst_iterator_resync": (None, [c_void_p]),
        "gst_iterator_free": (None, [c_void_p]),
        "gst_object_get_name": (c_void_p, [c_void_p]),
        "gst_object_unref": (None, [c_void_p]),
        "gst_object_ref_sink": (c_void_p, [c_void_p]),
        "gst_util_set_object_arg": (None, [c_void_p, c_char_p, c_char_p]),
        "gst_element_set_state": (c_int, [c_void_p, c_int]),
        "gst_element_get_state": (c_int, [c_void_p, c_void_p, c_void_p,
                                          c_uint64]),
        "gst_element_get_bus": (c_void_p, [c_void_p]),
        "gst_bus_pop": (c_void_p, [c_void_p]),
        "gst_bus_timed_pop_filtered": (c_void_p, [c_void_p, c_uint64,
                                                  c_int]),
        "gst_message_parse_error": (None, [c_void_p, P(P(GError)),
                                           P(c_void_p)]),
        "gst_message_parse_warning": (None, [c_void_p, P(P(GError)),
                                             P(c_void_p)]),
        "gst_mini_object_ref": (c_void_p, [c_void_p]),
        "gst_mini_object_unref": (None, [c_void_p]),
        "gst_sample_get_buffer": (c_void_p, [c_void_p]),
        "gst_sample_get_caps": (c_void_p, [c_void_p]),
        "gst_caps_to_string": (c_void_p, [c_void_p]),
        "gst_buffer_map": (c_int, [c_void_p, P(MapInfo), c_int]),
        "gst_buffer_unmap": (None, [c_void_p, P(MapInfo)]),
    },
    robocache: {
        "robocache_buffer_to_array": (c_int, [
            c_void_p, c_void_p, P(P(_lib.DLManagedTensor)), P(P(GError))]),
        "robocache_buffer_times_to_array": (c_int, [
            c_void_p, c_void_p, P(P(_lib.DLManagedTensor)), P(P(GError))]),
        "robocache_pipeline_use_cuda_device": (c_int, [
            c_void_p, c_int, P(P(GError))]),
        "robocache_pipeline_use_own_threads": (c_int, [c_void_p]),
        "robocache_merge_new": (c_void_p, [P(c_void_p), c_uint]),
        "robocache_merge_next": (c_int, [
            c_void_p, c_uint64, P(c_void_p), P(c_uint)]),
        "robocache_merge_free": (None, [c_void_p]),
        "robocache_align_new": (c_void_p, [
            c_void_p, c_void_p, c_void_p, ctypes.c_int64, ctypes.c_int64]),
        "robocache_align_next": (c_int, [
            c_void_p, c_uint64, P(Aligned), P(P(GError))]),
        "robocache_align_set_patience": (None, [c_void_p, c_uint64]),
        "robocache_align_write": (c_int, [
            c_void_p, P(Aligned), P(AlignOutput), P(P(GError))]),
        "robocache_sample_array_info": (c_int, [
            c_void_p, P(ArrayInfo), P(P(GError))]),
        "robocache_align_get_other_channels": (c_uint64, [c_void_p]),
        "robocache_align_free": (None, [c_void_p]),
    },
}
for _library, _table in _PROTOTYPES.items():
    for _name, (_res, _args) in _table.items():
        _fn = getattr(_library, _name)
        _fn.restype, _fn.argtypes = _res, _args


def take_string(address):
    """The str of a char * GLib allocated, which this frees."""
    if not address:
        return ""
    text = ctypes.string_at(address).decode("utf-8", "replace")
    glib.g_free(address)
    return text


def take_error(error):
    """The message of a GError *, which this frees."""
    if not error:
        return "unknown error"
    text = (error.contents.message or b"").decode("utf-8", "replace")
    glib.g_error_free(error)
    return text


def object_name(obj):
    return take_string(gst.gst_object_get_name(obj)) if obj else "?"


def plugin_dir():
    """robocache's plugin folder: the build's gst/ when this package runs
    from a build folder, else the configured install folder (None when
    neither is known)."""
    build = _lib.build_root()
    if build is not None:
        return str(build / "gst")
    folder = _lib.installed_dir(_config.PLUGINDIR)
    return str(folder) if folder else None


def _add_plugin_path(folder):
    """Puts `folder` first on the plugin path GStreamer will read
    (GST_PLUGIN_PATH_1_0 when set, as GStreamer prefers it, else
    GST_PLUGIN_PATH)."""
    var = ("GST_PLUGIN_PATH_1_0" if os.environ.get("GST_PLUGIN_PATH_1_0")
           else "GST_PLUGIN_PATH")
    paths = [p for p in os.environ.get(var, "").split(os.pathsep) if p]
    if not any(pathlib.Path(p).resolve() == pathlib.Path(folder).resolve()
               for p in paths):
        os.environ[var] = os.pathsep.join([folder] + paths)


_init_lock = threading.Lock()


def init():
    """Initialises GStreamer once, robocache's plugin findable."""
    with _init_lock:
        folder = plugin_dir()
        if folder and not gst.gst_is_initialized():
            _add_plugin_path(folder)
        error = P(GError)()
        if not gst.gst_init_check(None, None, ctypes.byref(error)):
            raise _lib.RobocacheError("robocache: GStreamer cannot be "
                                      "initialised: %s" % take_error(error))
        registry = gst.gst_registry_get()
        plugin = gst.gst_registry_find_plugin(registry, b"robocache")
        if plugin:
            gst.gst_object_unref(plugin)
        elif folder:
            # GStreamer was initialised before (by another library) or
            # its registry cache missed the folder: scan it now.
            gst.gst_registry_scan_path(registry, os.fsencode(folder))


init()
