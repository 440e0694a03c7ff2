"""Recordings into shards on one machine: one worker process per core
(CPU) or per GPU, each playing one recording at a time; a progress bar on
a terminal and a summary at the end (docs/dataset.md, "On one
machine")."""
import collections
import ctypes
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import time

from . import _build, _shards
from ._recordings import Recording
from ._settings import FORMAT


def _die_with_parent():
    """Linux: the kernel kills this worker when its parent dies, so that a
    killed run leaves nothing running."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)        # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _worker(conn, out, conf, conf_hash, device):
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # the parent decides
    while True:
        rec = conn.recv()
        if rec is None:
            return
        entry = _build.build_recording(
            out, Recording(*rec), conf, conf_hash, device,
            lambda n: conn.send(("progress", n)))
        conn.send(("done", entry))


class _Slot:
    """One worker process and the recording it is building."""

    def __init__(self, ctx, args, device):
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_worker, daemon=True,
                                   args=(child,) + args + (device,))
        self.process.start()
        child.close()
        self.rec = None

    def stop(self):
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.process.join(10)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


class Progress:
    """The progress line on a terminal (nothing elsewhere): recordings
    done, samples, rate and ETA from the bytes of recordings still to
    do."""

    def __init__(self, recordings, stream=None):
        self.stream = stream if stream is not None else sys.stdout
        self.enabled = self.stream.isatty()
        self.total = len(recordings)
        self.bytes_left = sum(_bytes(r) for r in recordings)
        self.done = self.samples = self.bytes_done = 0
        self.start = self.last = time.monotonic()

    def sample(self, n):
        self.samples += n

    def recording(self, rec, skipped):
        self.done += 1
        size = _bytes(rec)
        self.bytes_left -= size
        if not skipped:     # skipping is quick: the ETA counts built bytes
            self.bytes_done += size

    def draw(self, force=False):
        now = time.monotonic()
        if not self.enabled or (not force and now - self.last < 0.2):
            return
        self.last = now
        elapsed = max(now - self.start, 1e-9)
        eta = ("%ds" % (elapsed * self.bytes_left / self.bytes_done)
               if self.bytes_done else "--")
        filled = 24 * self.done // max(self.total, 1)
        self.stream.write("\r[%s%s] %d/%d recordings  %d samples  %.1f "
                          "samples/s  ETA %s \033[K" % (
                              "#" * filled, "-" * (24 - filled), self.done,
                              self.total, self.samples,
                              self.samples / elapsed, eta))
        self.stream.flush()

    def clear(self):
        if self.enabled:
            self.stream.write("\r\033[K")
            self.stream.flush()


def _bytes(rec):
    try:
        return _build._size(rec.path)
    except OSError:
        return 0


def _died(out, slot, conf_hash):
    """The entry of a recording whose worker died while building it."""
    rec = slot.rec
    code = slot.process.exitcode
    _shards.remove_key(os.path.join(out, _build.SHARDS), rec.key)
    entry = {"format": FORMAT, "recording": rec.name, "key": rec.key,
             "config_hash": conf_hash, "status": "failed", "samples": 0,
             "shards": [], "size": None,
             "error": "the worker process died (%s) while building it" % (
                 "signal %d" % -code if code and code < 0
                 else "exit status %s" % code)}
    _shards.write_json(_build.manifest_path(out, rec), entry)
    return entry


def _receive(slot, entries, progress):
    """Reads one message of a busy slot; False when its worker is gone."""
    try:
        kind, value = slot.conn.recv()
    except (EOFError, OSError):
        return False
    if kind == "progress":
        progress.sample(value)
    else:
        entries[slot.rec.key] = value
        progress.recording(slot.rec, value.get("skipped", False))
        slot.rec = None
    return True


def run(out, recordings, conf, conf_hash, devices, progress):
    """Builds `recordings` with one worker per entry of `devices` ("cpu"
    or a CUDA device index); returns their entries by key.  A worker that
    dies fails its recording and is replaced."""
    ctx = multiprocessing.get_context("spawn")
    args = (out, conf, conf_hash)
    todo = collections.deque(recordings)
    slots = [_Slot(ctx, args, d) for d in devices[:len(todo)]]
    entries = {}
    try:
        while todo or any(s.rec for s in slots):
            for i, slot in enumerate(slots):
                if slot.rec is None and todo:
                    if not slot.process.is_alive():
                        slots[i] = slot = _Slot(ctx, args, devices[i])
                    slot.rec = todo.popleft()
                    slot.conn.send(tuple(slot.rec))
            busy = [s for s in slots if s.rec]
            multiprocessing.connection.wait(
                [s.conn for s in busy] + [s.process.sentinel for s in busy],
                timeout=0.2)
            for slot in slots:
                gone = False
                while slot.rec and not gone and slot.conn.poll():
                    gone = not _receive(slot, entries, progress)
                if slot.rec and (gone or not slot.process.is_alive()):
                    slot.process.kill()
                    slot.process.join(10)
                    entries[slot.rec.key] = _died(out, slot, conf_hash)
                    progress.recording(slot.rec, False)
                    slot.rec = None     # a new worker takes the next one
            progress.draw()
    finally:
        for slot in slots:
            slot.stop()
    progress.draw(force=True)
    return entries
