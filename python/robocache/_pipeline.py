"""GStreamer pipelines whose output buffers come out as arrays over their
own memory: robocache.Pipeline and robocache.Sample (docs/python.md,
"Pipelines into arrays")."""
import ctypes
import os
import re
import sys
import threading
import warnings

from . import _arrays, _lib
from ._lib import RobocacheError

_POLL_NS = 100 * 10**6   # how long a pull waits before the bus is read

# Set in a process forked from the one that imported robocache (PyTorch's
# DataLoader workers on Linux): there GStreamer's own thread pool, which
# carries a pipeline from PAUSED on to PLAYING once it has prerolled, has
# in its copied state idle threads that are not in the child, and never
# runs; start() goes to PAUSED, waits for it, and then to PLAYING.  (The
# streaming threads are robocache's: robocache_pipeline_use_own_threads.)
_forked = False


def _mark_forked():
    global _forked
    _forked = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_mark_forked)


def _gst():
    from . import _gst
    return _gst


class Sample:
    """One output buffer of a Pipeline.

    array     the buffer's data, no copy: a numpy array (read-only) for
              system memory, or a torch tensor with like="torch"; a torch
              CUDA tensor for CUDA memory (the _arrays.Exported DLPack
              object where torch does not import).  The buffer stays
              mapped and referenced while the array lives.
    pts       presentation time in nanoseconds (None when unset)
    duration  nanoseconds (None when unset)
    stream    the name of the appsink it came out of
    caps      the buffer's caps, as a string
    times     for vectors of layout chunk, the chunk's int64 timestamps
              (ns), in array's kind; else None
    data_ptr  the address the array starts at (host or device), as mapped
    """

    __slots__ = ("array", "pts", "duration", "stream", "caps", "times",
                 "data_ptr")

    def __repr__(self):
        shape = getattr(self.array, "shape", None)
        return "<robocache.Sample %s pts=%s shape=%s %s>" % (
            self.stream, self.pts, tuple(shape) if shape is not None else "?",
            self.caps.split(",", 1)[0])


class _Sink:
    __slots__ = ("element", "name", "caps")

    def __init__(self, element, name):
        self.element, self.name = element, name
        self.caps = (None, "")  # the caps last seen (a reference), as text


def _torch():
    try:
        import torch
        import torch.utils.dlpack  # noqa: F401
    except ImportError:
        return None
    return torch


class _Bin:
    """A parsed pipeline, its bus and its CUDA context: what Pipeline and
    run() share."""

    def __init__(self, description, device=None):
        # One pull at a time (the merge and the bus are not shared), and
        # close() waits for the pull in flight in another thread.
        self._pulling = threading.Lock()
        self._close_lock = threading.Lock()
        self._closing = False
        self._pipeline = None
        self._bus = None
        self._sinks = []
        self._merge = None      # robocache_merge over the appsinks
        self._started = False
        self._done = False
        self._failed = None
        if not isinstance(description, str) or not description.strip():
            raise TypeError("robocache.Pipeline: description must be a "
                            "gst-launch string; got %r" % (description,))
        if "\0" in description:
            # C would read the description only up to it.
            raise ValueError("robocache.Pipeline: description holds a NUL "
                             "character at %d; got %r"
                             % (description.index("\0"), description))
        self._g = _gst()
        self.description = description
        self._pipeline = self._build(description)
        # Streaming threads that a forked process (a DataLoader worker)
        # can start: GLib's shared pool, copied by fork(), cannot.
        self._g.robocache.robocache_pipeline_use_own_threads(self._pipeline)
        self._bus = self._g.gst.gst_element_get_bus(self._pipeline)
        self.device = self._use_device(device)

    def _build(self, description):
        return self._parse(description)

    def _parse(self, description, hint=""):
        gst = self._g
        error = ctypes.POINTER(gst.GError)()
        element = gst.gst.gst_parse_launch_full(
            description.encode(), None,
            gst.PARSE_FLAG_FATAL_ERRORS | gst.PARSE_FLAG_PLACE_IN_BIN,
            ctypes.byref(error))
        if not element or error:
            message = gst.take_error(error) if error else "no pipeline"
            if element:
                gst.gst.gst_object_unref(element)
            raise RobocacheError("robocache.Pipeline: cannot build %r: %s%s"
                                 % (description, message, hint))
        gst.gst.gst_object_ref_sink(element)
        if not gst.gobject.g_type_check_instance_is_a(
                element, gst.gst.gst_pipeline_get_type()):
            # One bin (PLACE_IN_BIN): a pipeline gives it a bus and clock.
            pipeline = gst.gst.gst_pipeline_new(None)
            gst.gst.gst_object_ref_sink(pipeline)
            # The element is ours (sunk above), so the bin takes a
            # reference of its own: without this unref the bin and
            # everything in it outlived close().
            gst.gst.gst_bin_add(pipeline, element)
            gst.gst.gst_object_unref(element)
            element = pipeline
        return element

    def _appsinks(self, element):
        gst = self._g
        found = {}
        it = gst.gst.gst_bin_iterate_all_by_element_factory_name(
            element, b"appsink")
        value = gst.GValue()
        try:
            while True:
                res = gst.gst.gst_iterator_next(it, ctypes.byref(value))
                if res == gst.ITERATOR_OK:
                    obj = gst.gobject.g_value_get_object(ctypes.byref(value))
                    found[obj] = gst.object_name(obj)
                    gst.gobject.g_value_unset(ctypes.byref(value))
                elif res == gst.ITERATOR_RESYNC:
                    found.clear()
                    gst.gst.gst_iterator_resync(it)
                else:
                    break
        finally:
            gst.gst.gst_iterator_free(it)
        # The pipeline holds the sinks while it lives.
        return [_Sink(obj, name) for obj, name in found.items()]

    def _use_device(self, device):
        if device == "cpu" or device == -1:
            return None
        if device is None:
            if not _lib.cuda_available():
                return None
            device = self._current_device()
        if not isinstance(device, int) or isinstance(device, bool):
            self.close()
            raise TypeError("robocache.Pipeline: device=%r; accepted: None, "
                            "a CUDA device index or \"cpu\"" % (device,))
        gst = self._g
        error = ctypes.POINTER(gst.GError)()
        if not gst.robocache.robocache_pipeline_use_cuda_device(
                self._pipeline, device, ctypes.byref(error)):
            message = gst.take_error(error)
            self.close()
            raise RobocacheError("robocache.Pipeline: device=%d: %s"
                                 % (device, message))
        return device

    @staticmethod
    def _current_device():
        torch = sys.modules.get("torch")
        if torch is not None and torch.cuda.is_initialized():
            return torch.cuda.current_device()
        current = ctypes.c_int(-1)
        if _lib.kernels.rc_device_current(ctypes.byref(current)) != _lib.OK:
            return 0
        return max(current.value, 0)

    @property
    def handle(self):
        """The GstPipeline * (an int), for ctypes users; valid until
        close()."""
        return self._pipeline

    def start(self):
        """Sets the pipeline PLAYING (the first pull does it too)."""
        if self._pipeline is None:
            raise RobocacheError("robocache.Pipeline: closed")
        if self._started:
            return
        self._started = True
        gst = self._g
        ret = gst.STATE_CHANGE_ASYNC
        if _forked:
            ret = gst.gst.gst_element_set_state(self._pipeline,
                                                gst.STATE_PAUSED)
            while ret == gst.STATE_CHANGE_ASYNC and not self._closing:
                self._read_bus()
                ret = gst.gst.gst_element_get_state(self._pipeline, None,
                                                    None, _POLL_NS)
        if ret != gst.STATE_CHANGE_FAILURE:
            ret = gst.gst.gst_element_set_state(self._pipeline,
                                                gst.STATE_PLAYING)
        if ret == gst.STATE_CHANGE_FAILURE:
            self._read_bus()
            raise RobocacheError("robocache.Pipeline: %r cannot start "
                                 "(no error was posted)" % self.description)

    def _read_bus(self, wait_ns=0):
        """Drains the bus (so it never grows); raises on an ERROR and
        warns on a WARNING."""
        gst = self._g
        while self._bus:
            msg = gst.gst.gst_bus_timed_pop_filtered(self._bus, wait_ns, -1)
            wait_ns = 0
            if not msg:
                return
            try:
                kind = gst.Message.from_address(msg).type
                if kind == gst.MESSAGE_ERROR:
                    self._failed = self._error(msg)
                    raise self._failed
                if kind == gst.MESSAGE_WARNING:
                    self._warn(msg)
            finally:
                gst.gst.gst_mini_object_unref(msg)

    def _parse_message(self, msg, parse):
        """(element name, message, debug text) of an ERROR or WARNING."""
        gst = self._g
        error = ctypes.POINTER(gst.GError)()
        debug = ctypes.c_void_p()
        parse(msg, ctypes.byref(error), ctypes.byref(debug))
        return (gst.object_name(gst.Message.from_address(msg).src),
                gst.take_error(error), gst.take_string(debug.value))

    def _error(self, msg):
        source, text, detail = self._parse_message(
            msg, self._g.gst.gst_message_parse_error)
        return RobocacheError("robocache.Pipeline: error from element %s: %s"
                              "%s" % (source, text,
                                      "\n(%s)" % detail if detail else ""))

    def _warn(self, msg):
        """A WARNING (messages skipped, a stream that cannot be played) as
        a RuntimeWarning: without it a recording whose every sweep is
        skipped would give no sample and no word why.  Python shows each
        text once."""
        source, text, _ = self._parse_message(
            msg, self._g.gst.gst_message_parse_warning)
        warnings.warn("robocache.Pipeline: warning from element %s: %s"
                      % (source, text), RuntimeWarning, stacklevel=2)

    def close(self):
        """Sets the pipeline to NULL and lets it go; arrays already handed
        out stay valid (their buffers are freed when they die).  A pull in
        flight in another thread ends its iteration (StopIteration there);
        a later pull raises RobocacheError."""
        close_lock = getattr(self, "_close_lock", None)
        if close_lock is None:
            return
        with close_lock:
            gst = getattr(self, "_g", None)
            if gst is None or self._pipeline is None:
                return
            self._closing = True
            # Flushing wakes a pull waiting on the appsinks.
            gst.gst.gst_element_set_state(self._pipeline, gst.STATE_NULL)
            with self._pulling:
                self._release(gst)

    def _release(self, gst):
        pipeline, self._pipeline = self._pipeline, None
        self._done = True
        merge, self._merge = self._merge, None
        if merge:
            gst.robocache.robocache_merge_free(merge)
        for sink in self._sinks:
            if sink.caps[0]:
                gst.gst.gst_mini_object_unref(sink.caps[0])
                sink.caps = (None, "")
        self._sinks = []
        if self._bus:
            gst.gst.gst_object_unref(self._bus)
            self._bus = None
        gst.gst.gst_object_unref(pipeline)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:   # interpreter shutdown: modules half gone
            pass


class Pipeline(_Bin):
    """A GStreamer pipeline from a gst-launch description, iterated for
    its output buffers as robocache.Sample objects.

        with robocache.Pipeline("robocachelidarsrc num-buffers=10 ! "
                                "robocachevoxelize") as p:
            for sample in p:
                grid = sample.array          # (z, y, x) uint32, no copy

    description  gst-launch syntax.  Without an appsink in it,
                 " ! appsink name=out" is appended (sync=false,
                 max-buffers=4: as fast as the loop pulls).  Every appsink
                 is pulled; stream names are the sinks' names.
    device       the CUDA device whose primary context (PyTorch's) the
                 pipeline shares: None = the current device (torch's when
                 torch is in use) where CUDA is usable, else none; an int;
                 or "cpu" for no shared context.
    like         the kind of array for system memory: "numpy" (default) or
                 "torch".  CUDA memory always gives torch tensors where
                 torch imports.

    Samples come in PTS order across the sinks (ties: sink name order); a
    buffer without a PTS comes as soon as it is pulled.  Iteration ends
    at EOS; an ERROR on the bus raises RobocacheError naming the element.
    close(), the context manager and garbage collection set the pipeline
    to NULL.
    """

    def __init__(self, description, device=None, like="numpy"):
        if like not in ("numpy", "torch"):
            raise ValueError("robocache.Pipeline: like=%r; accepted: "
                             "\"numpy\", \"torch\"" % (like,))
        self._like = like
        self._torch = _torch() if like == "torch" else None
        if like == "torch" and self._torch is None:
            raise ImportError("robocache.Pipeline: like=\"torch\" needs "
                              "torch, which does not import here")
        super().__init__(description, device)

    def _build(self, description):
        gst = self._g
        # An appsink element, not the word inside a quoted value.
        unquoted = re.sub(r'"(\\.|[^"\\])*"|\'[^\']*\'', '""', description)
        appended = not re.search(r"(^|[\s!(])appsink\b", unquoted)
        # Caps last ("... ! video/x-raw,format=RGB") filter what the
        # appended appsink takes: a description that is not whole alone.
        ends_in_caps = re.search(r"!\s*[\w-]+/[^!]*$", unquoted)
        hint = ""
        if appended:
            self.description = description.rstrip() + " ! appsink name=out"
            if not ends_in_caps:
                hint = (" (the description has no appsink, so \" ! appsink "
                        "name=out\" was appended: end it with an element "
                        "that has a src pad, or add appsinks)")
        try:
            element = self._parse(self.description, hint)
        except RobocacheError:
            if not hint:
                raise
            # The hint is for a description that fails only with the
            # appsink: one that fails as given (a syntax error, an
            # unknown element or property) says so without it.
            gst.gst.gst_object_unref(self._parse(description))
            raise
        sinks = self._appsinks(element)
        if not sinks:
            gst.gst.gst_object_unref(element)
            raise RobocacheError("robocache.Pipeline: no appsink in %r"
                                 % self.description)
        for sink in sinks if appended else ():
            gst.gst.gst_util_set_object_arg(sink.element, b"sync", b"false")
            gst.gst.gst_util_set_object_arg(sink.element, b"max-buffers",
                                            b"4")
        self._sinks = sorted(sinks, key=lambda s: s.name)
        for sink in self._sinks:
            # No extra reference to the last buffer: it goes back to its
            # pool when its array dies.
            gst.gst.gst_util_set_object_arg(sink.element,
                                            b"enable-last-sample", b"false")
        return element

    @property
    def streams(self):
        """The appsink names, in the order ties are broken."""
        return [s.name for s in self._sinks]

    def __iter__(self):
        return self

    def __next__(self):
        sink, sample = self._next_head()
        try:
            return self._sample(sink, sample)
        finally:
            self._g.gst.gst_mini_object_unref(sample)

    def _aligned(self, lead, vectors, frames, before, after,
                 patience=10**9):
        """Yields, per buffer of stream `lead`, (time, Sample, span,
        frame): span the vectors of stream `vectors` from the last at or
        before time + `before` to the first at or after time + `after`
        (ns), as (times int64 (n,), values float64 (n, channels)) copies,
        or None when there is none; frame the (time, Sample) of stream
        `frames` nearest time, or None.  `vectors` or `frames` may be
        None; the rest as _Aligner."""
        import numpy
        gst = self._g
        aligner = _Aligner(self, lead, vectors, frames, before, after,
                           patience)
        out = aligner.out
        try:
            while aligner.next():
                try:
                    sample = self._sample(aligner.sinks[0], out.lead)
                    frame = (None if not out.frame else
                             (out.frame_time,
                              self._sample(aligner.sinks[2], out.frame)))
                finally:
                    gst.gst.gst_mini_object_unref(out.lead)
                    if out.frame:
                        gst.gst.gst_mini_object_unref(out.frame)
                span = None
                if out.n_vectors:
                    n, c = out.n_vectors, out.channels
                    span = (numpy.ctypeslib.as_array(out.vector_times,
                                                     (n,)).copy(),
                            numpy.ctypeslib.as_array(out.vector_values,
                                                     (n, c)).copy())
                yield out.time, sample, span, frame
        finally:
            aligner.close()

    def _begin(self):
        """Raises the pipeline's error if it failed; starts it if not
        started."""
        if self._failed is not None:
            raise self._failed
        if not self._started:
            self.start()

    def _next_head(self):
        """The sink and GstSample (a reference the caller drops) that come
        next in time order (robocache_merge_next); StopIteration at the
        end."""
        with self._pulling:
            return self._pull_head()

    def _pull_head(self):
        if self._pipeline is None:
            raise RobocacheError("robocache.Pipeline: closed")
        if self._done and self._failed is None:
            raise StopIteration
        self._begin()
        gst = self._g
        if self._merge is None:
            sinks = (ctypes.c_void_p * len(self._sinks))(
                *(s.element for s in self._sinks))
            self._merge = gst.robocache.robocache_merge_new(sinks,
                                                            len(sinks))
        sample, index = ctypes.c_void_p(), ctypes.c_uint()
        while True:
            status = gst.robocache.robocache_merge_next(
                self._merge, _POLL_NS, ctypes.byref(sample),
                ctypes.byref(index))
            if self._closing:
                # close() in another thread waits for this pull.
                if status == gst.MERGE_SAMPLE:
                    gst.gst.gst_mini_object_unref(sample.value)
                raise StopIteration
            try:
                self._read_bus()
            except BaseException:
                # The pipeline's error: the sample pulled with it is not
                # handed out, so it is dropped here.
                if status == gst.MERGE_SAMPLE:
                    gst.gst.gst_mini_object_unref(sample.value)
                raise
            if status == gst.MERGE_SAMPLE:
                return self._sinks[index.value], sample.value
            if status == gst.MERGE_END:
                self._done = True
                raise StopIteration

    def _caps_string(self, sink, caps):
        """`caps` as text, made once per caps of each sink."""
        gst = self._g
        if caps != sink.caps[0]:
            if sink.caps[0]:
                gst.gst.gst_mini_object_unref(sink.caps[0])
            text = gst.take_string(gst.gst.gst_caps_to_string(caps))
            sink.caps = (gst.gst.gst_mini_object_ref(caps) if caps else None,
                         text)
        return sink.caps[1]

    def _sample_header(self, sink, buf, caps_string):
        """A Sample of `buf` with its stream, caps, pts and duration set."""
        gst = self._g
        header = gst.Buffer.from_address(buf)
        out = Sample()
        out.stream, out.caps = sink.name, caps_string
        out.pts = None if header.pts == gst.CLOCK_TIME_NONE else header.pts
        out.duration = (None if header.duration == gst.CLOCK_TIME_NONE
                        else header.duration)
        return out

    def _sample(self, sink, sample):
        gst = self._g
        buf = gst.gst.gst_sample_get_buffer(sample)
        caps = gst.gst.gst_sample_get_caps(sample)
        out = self._sample_header(sink, buf, self._caps_string(sink, caps))
        exported = self._export(gst.robocache.robocache_buffer_to_array,
                                buf, caps, sink)
        out.data_ptr = _arrays.data_pointer(exported)
        out.array = self._hand_over(exported, out.caps)
        out.times = None
        if (out.caps.startswith("other/x-robocache-vectors")
                and "layout=(string)chunk" in out.caps):
            out.times = self._hand_over(self._export(
                gst.robocache.robocache_buffer_times_to_array, buf, caps,
                sink), out.caps)
        return out

    def _export(self, function, buf, caps, sink):
        gst = self._g
        managed = ctypes.POINTER(_lib.DLManagedTensor)()
        error = ctypes.POINTER(gst.GError)()
        if not function(buf, caps, ctypes.byref(managed),
                        ctypes.byref(error)):
            raise RobocacheError("robocache.Pipeline: the buffer of stream "
                                 "%s cannot be an array: %s"
                                 % (sink.name, gst.take_error(error)))
        # Made by robocache, ready when pushed: nothing to order after.
        return _arrays.Exported(managed, stream=0)

    def _hand_over(self, exported, caps):
        kind = exported.__dlpack_device__()[0]
        if kind == _arrays.CUDA and self._torch is None:
            self._torch = _torch()
            if self._torch is None:
                return exported
        if kind == _arrays.CUDA or self._like == "torch":
            dtype = exported._managed.contents.dl_tensor.dtype
            if (dtype.code == 1 and dtype.bits in (16, 32)
                    and not hasattr(self._torch, "uint%d" % dtype.bits)):
                # torch before 2.3 has no uint16/uint32: the same bits as
                # int16/int32 (counts and depth images stay below 2^31).
                dtype.code = 0
            return _arrays.hand_over(exported, "torch")
        import numpy
        dtype = exported._managed.contents.dl_tensor.dtype
        if (dtype.code, dtype.bits) == (4, 16):
            raise TypeError("robocache.Pipeline: %s holds bfloat16, which "
                            "numpy cannot; use like=\"torch\"" % caps)
        array = numpy.from_dlpack(exported)
        array.flags.writeable = False
        return array


class _Aligner:
    """The buffers of stream `lead` of a Pipeline, each with its context,
    aligned in C (robocache_align_next: one call per lead buffer, however
    many vectors come between two): the vectors of stream `vectors` around
    the lead's time (from time + `before` to time + `after`, ns) and the
    frame of stream `frames` nearest it.  A lead waits until the streams
    pass time + `after` + `patience` (ns; None: for ever) for its vectors
    and frame, then comes with what came.  Other streams are not pulled.
    One thread at a time."""

    def __init__(self, pipeline, lead, vectors, frames, before, after,
                 patience):
        gst = pipeline._g
        by_name = {s.name: s for s in pipeline._sinks}
        for name in (lead, vectors, frames):
            if name is not None and name not in by_name:
                raise ValueError("robocache.Pipeline: no stream %r; the "
                                 "streams: %s" % (name, pipeline.streams))
        if before > after:
            raise ValueError("robocache.Pipeline: the window (%d, %d) ns "
                             "ends before it starts" % (before, after))
        if patience is not None and patience < 0:
            raise ValueError("robocache.Pipeline: patience=%r; accepted: "
                             "ns >= 0, or None" % (patience,))
        self.sinks = [by_name.get(name) for name in (lead, vectors, frames)]
        self._pipeline, self._g, self._what = pipeline, gst, vectors
        pipeline._begin()
        self._handle = gst.robocache.robocache_align_new(
            *(s.element if s else None for s in self.sinks), before, after)
        if not self._handle:
            raise ValueError("robocache.Pipeline: cannot align %s on %s"
                             % ((vectors, frames), lead))
        gst.robocache.robocache_align_set_patience(
            self._handle, gst.CLOCK_TIME_NONE if patience is None
            else patience)
        self.out = gst.Aligned()
        self._out_ref = ctypes.byref(self.out)

    def next(self):
        """True with `out` (RobocacheAligned) holding the next lead, whose
        lead and frame references the caller drops; False at the end."""
        with self._pipeline._pulling:
            return self._pull()

    def _pull(self):
        gst, pipeline = self._g, self._pipeline
        if pipeline._pipeline is None:
            raise RobocacheError("robocache.Pipeline: closed")
        while True:
            error = ctypes.POINTER(gst.GError)()
            status = gst.robocache.robocache_align_next(
                self._handle, _POLL_NS, self._out_ref, ctypes.byref(error))
            if pipeline._closing:
                self._drop(status, error)
                return False
            if status == gst.ALIGN_ERROR:
                pipeline._read_bus()
                raise RobocacheError("robocache.Pipeline: streams %s: %s"
                                     % (self._what, gst.take_error(error)))
            try:
                pipeline._read_bus()
            except BaseException:
                self._drop(status, error)
                raise
            if status == gst.ALIGN_END:
                pipeline._done = True
                return False
            if status == gst.ALIGN_ITEM:
                return True

    def _drop(self, status, error):
        """Lets go of what robocache_align_next returned with `status`, not
        handed out (the pipeline closing, or its error raised)."""
        gst = self._g
        if status == gst.ALIGN_ITEM:
            gst.gst.gst_mini_object_unref(self.out.lead)
            if self.out.frame:
                gst.gst.gst_mini_object_unref(self.out.frame)
        elif status == gst.ALIGN_ERROR:
            gst.take_error(error)

    def info(self, sample):
        """RobocacheArrayInfo of a GstSample * of out."""
        gst = self._g
        info, error = gst.ArrayInfo(), ctypes.POINTER(gst.GError)()
        if not gst.robocache.robocache_sample_array_info(
                sample, ctypes.byref(info), ctypes.byref(error)):
            raise RobocacheError("robocache.Pipeline: %s"
                                 % gst.take_error(error))
        return info

    def write(self, output):
        """robocache_align_write of out to `output` (AlignOutput)."""
        gst = self._g
        error = ctypes.POINTER(gst.GError)()
        if not gst.robocache.robocache_align_write(
                self._handle, self._out_ref, ctypes.byref(output),
                ctypes.byref(error)):
            raise RobocacheError("robocache.Pipeline: %s"
                                 % gst.take_error(error))

    def close(self):
        if self._handle:
            lib = self._g.robocache
            skipped = lib.robocache_align_get_other_channels(self._handle)
            lib.robocache_align_free(self._handle)
            self._handle = None
            if skipped:
                warnings.warn(
                    "robocache: %d vectors of stream %r skipped: they name "
                    "other channels (joints) than its first" %
                    (skipped, self._what), RuntimeWarning, stacklevel=2)


def run(description, device=None, timeout=None):
    """Plays a pipeline to EOS for its side effects (recording to a file
    with robocachemcapsink, say): no appsink is added or pulled.  device as
    for Pipeline.  Raises RobocacheError on an ERROR (naming the element)
    or after `timeout` seconds."""
    import time
    if timeout is not None and (isinstance(timeout, bool) or
                                not isinstance(timeout, (int, float))
                                or not timeout > 0):
        raise ValueError("robocache.run: timeout=%r; accepted: None or "
                         "seconds > 0" % (timeout,))
    with _Bin(description, device) as p:
        gst = p._g
        if p._appsinks(p._pipeline):
            # Nothing would pull them: the pipeline would stop at the
            # first full appsink and never reach EOS.
            raise RobocacheError("robocache.run: %r has an appsink, which "
                                 "run() does not pull; pull it with "
                                 "robocache.Pipeline" % description)
        p.start()
        end = None if timeout is None else time.monotonic() + timeout
        while end is None or time.monotonic() < end:
            msg = gst.gst.gst_bus_timed_pop_filtered(
                p._bus, _POLL_NS, gst.MESSAGE_EOS | gst.MESSAGE_ERROR |
                gst.MESSAGE_WARNING)
            if not msg:
                continue
            try:
                kind = gst.Message.from_address(msg).type
                if kind == gst.MESSAGE_ERROR:
                    raise p._error(msg)
                if kind == gst.MESSAGE_WARNING:
                    p._warn(msg)
                    continue
                return
            finally:
                gst.gst.gst_mini_object_unref(msg)
        raise RobocacheError("robocache.run: %r did not reach EOS within "
                             "%s s" % (description, timeout))
