"""robocache.Pipeline on the CPU: grids against robocache.voxelize on the
same sweeps, arrays over the buffers' own memory (no copy), lifetimes and
pools, errors naming the element, EOS, a bag's topics as arrays, and
memory flat over 10,000 buffers."""
import ctypes
import gc
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import warnings

import numpy as np

import robocache
from memory import rss_kib, under_sanitizer
from robocache import RobocacheError

GRID = 'voxel-size="<0.5>" origin="<-16,-16,-3>" dims="<64,64,12>"'


def collect(pipeline):
    """{stream: [sample, ...]} of a whole pipeline."""
    out = {}
    with pipeline as p:
        for s in p:
            out.setdefault(s.stream, []).append(s)
    return out


def reference_aligned(messages, before, after, frames_stream):
    """[(time, span times, span values, frame time)] per lidar sweep of
    `messages` ((stream, pts, array) in PTS order): a sweep waits for
    joint states up to time + after and a frame at or after time (or the
    end); its span runs from the last joint state at or before time +
    before to the first at or after time + after; its frame is the nearest
    (the first of equals)."""
    joints, frames, sweeps, out = [], [], [], []

    def ready():
        t = sweeps[0]
        if not joints or joints[-1][0] < t + after:
            return False
        return frames_stream is None or bool(frames and frames[-1] >= t)

    def give():
        t = sweeps.pop(0)
        times = np.array([j[0] for j in joints], np.int64)
        first = max(int(np.searchsorted(times, t + before, "right")) - 1, 0)
        last = int(np.searchsorted(times, t + after, "left")) + 1
        span = joints[first:last]
        frame = min(frames, key=lambda f: abs(f - t)) if frames else None
        out.append((t, np.array([j[0] for j in span], np.int64) if span
                    else None, np.array([j[1] for j in span], np.float64)
                    if span else None, frame))
        while len(joints) > 1 and joints[1][0] <= t + before:
            joints.pop(0)
        while len(frames) > 1 and frames[1] <= t:
            frames.pop(0)

    for stream, pts, array in messages:
        if stream == "joints":
            joints.append((pts, array[0]))
        elif stream == "lidar":
            sweeps.append(pts)
        elif stream == frames_stream:
            frames.append(pts)
        while sweeps and ready():
            give()
    while sweeps:
        give()
    return out


class Pipelines(unittest.TestCase):
    def test_voxelize_matches_kernel(self):
        streams = collect(robocache.Pipeline(
            "robocachelidarsrc num-buffers=6 points-per-sweep=4000 seed=3 "
            "! tee name=t t. ! queue ! appsink name=points "
            "t. ! queue ! robocachevoxelize mode=count backend=cpu %s "
            "! appsink name=grid" % GRID, device="cpu"))
        self.assertEqual(len(streams["points"]), 6)
        self.assertEqual(len(streams["grid"]), 6)
        for pts, grid in zip(streams["points"], streams["grid"]):
            self.assertEqual(pts.pts, grid.pts)
            self.assertEqual(pts.array.shape, (4000, 4))
            self.assertEqual(pts.array.dtype, np.float32)
            self.assertEqual(grid.array.shape, (12, 64, 64))
            self.assertEqual(grid.array.dtype, np.uint32)
            self.assertIn("mode=(string)count", grid.caps)
            expected = robocache.voxelize(
                np.ascontiguousarray(pts.array), 0.5, (-16, -16, -3),
                (64, 64, 12), mode="count")
            np.testing.assert_array_equal(grid.array, expected)
            self.assertGreater(int(grid.array.sum()), 100)

    def test_pts_order_across_sinks(self):
        streams = []
        with robocache.Pipeline(
                "robocachelidarsrc num-buffers=5 points-per-sweep=16 "
                "! appsink name=lidar robocachejointsrc num-buffers=40 "
                "rate=100/1 ! appsink name=joints", device="cpu") as p:
            self.assertEqual(p.streams, ["joints", "lidar"])
            times = []
            for s in p:
                times.append(s.pts)
                streams.append(s.stream)
                if s.stream == "joints":
                    self.assertEqual(s.array.ndim, 2)
                    self.assertEqual(s.array.shape[0], 1)
        self.assertEqual(times, sorted(times))
        self.assertEqual(streams.count("lidar"), 5)
        self.assertEqual(streams.count("joints"), 40)

    def test_aligned_matches_reference(self):
        """Pipeline._aligned (robocache_align_next, in C) against the
        alignment written here over plain iteration, on jittered joint
        states with drop-outs (float64 and float32), sweeps and frames,
        for a window around the sweep and one ahead of it."""
        desc = ("robocachelidarsrc num-buffers=14 points-per-sweep=64 "
                "seed=%d ! appsink name=lidar sync=false "
                "robocachejointsrc num-buffers=150 rate=100/1 seed=%d "
                "jitter=0.4 dropout=0.3 format=%s ! appsink name=joints "
                "sync=false videotestsrc num-buffers=45 ! video/x-raw,"
                "format=GRAY8,width=8,height=4,framerate=30/1 ! appsink "
                "name=camera sync=false")
        seed = int.from_bytes(os.urandom(2), "little")
        cases = [("float64", -100_000_000, 100_000_000, "camera"),
                 ("float32", -50_000_000, 20_000_000, "camera"),
                 ("float64", 0, 250_000_000, None)]
        for fmt, before, after, frames in cases:
            args = (seed, seed + 1, fmt)
            with robocache.Pipeline(desc % args, device="cpu") as p:
                want = reference_aligned(
                    [(s.stream, s.pts, np.array(s.array)) for s in p],
                    before, after, frames)
            with robocache.Pipeline(desc % args, device="cpu") as p:
                got = [(t, lead.pts, span, None if f is None else f[0])
                       for t, lead, span, f in p._aligned(
                           "lidar", "joints", frames, before, after)]
            what = "seed %d, %s, window (%d, %d)" % (seed, fmt, before,
                                                     after)
            self.assertEqual(len(got), 14, what)
            self.assertEqual(len(got), len(want), what)
            spans = 0
            for (t, pts, span, frame), w in zip(got, want):
                self.assertEqual((t, pts, frame), (w[0], w[0], w[3]), what)
                self.assertEqual(span is None, w[1] is None, what)
                if span is not None:
                    spans += 1
                    np.testing.assert_array_equal(span[0], w[1], what)
                    np.testing.assert_array_equal(span[1], w[2], what)
                    self.assertEqual(span[1].dtype, np.float64)
            self.assertGreater(spans, 10, what)

    def test_aligned_patience(self):
        """A camera with a frame every 3 s: the sweep at 1.8 s is nearest
        the frame at 3 s, which comes 1.2 s after it.  Waiting for ever
        it gets that frame (as the reference does); with a patience of
        1 s it comes once the streams pass 2.9 s, with the frame at 0."""
        desc = ("robocachelidarsrc num-buffers=50 points-per-sweep=16 ! "
                "appsink name=lidar sync=false robocachejointsrc "
                "num-buffers=500 rate=100/1 ! appsink name=joints sync=false "
                "videotestsrc num-buffers=2 ! video/x-raw,format=GRAY8,"
                "width=4,height=2,framerate=1/3 ! appsink name=camera "
                "sync=false")
        window = (-100_000_000, 100_000_000)
        with robocache.Pipeline(desc, device="cpu") as p:
            want = reference_aligned(
                [(s.stream, s.pts, np.array(s.array)) for s in p],
                *window, "camera")
        frames = {}
        for patience in (None, 10**9):
            with robocache.Pipeline(desc, device="cpu") as p:
                frames[patience] = {
                    t: f[0] for t, _, _, f in p._aligned(
                        "lidar", "joints", "camera", *window, patience)}
        sweep = 1_800_000_000
        self.assertEqual([frames[None][w[0]] for w in want],
                         [w[3] for w in want])
        self.assertEqual(frames[None][sweep], 3_000_000_000)
        self.assertEqual(frames[10**9][sweep], 0)
        with robocache.Pipeline(desc, device="cpu") as p:
            with self.assertRaisesRegex(ValueError, "patience=-1"):
                list(p._aligned("lidar", "joints", "camera", *window, -1))

    def test_aligned_bad_vectors_n(self):
        """Points on the vectors stream: an error naming their caps and
        what is accepted, not garbage."""
        with robocache.Pipeline(
                "robocachelidarsrc num-buffers=3 points-per-sweep=16 ! "
                "appsink name=lead sync=false robocachelidarsrc num-buffers=3 "
                "points-per-sweep=16 ! appsink name=points sync=false",
                device="cpu") as p:
            with self.assertRaisesRegex(
                    RobocacheError, "other/x-robocache-points.*accepted: "
                    "other/x-robocache-vectors"):
                list(p._aligned("lead", "points", None, 0, 0))
        with robocache.Pipeline("robocachelidarsrc num-buffers=1 ! appsink "
                                "name=lead sync=false", device="cpu") as p:
            with self.assertRaisesRegex(ValueError, "no stream 'joints'"):
                list(p._aligned("lead", "joints", None, 0, 0))
            with self.assertRaisesRegex(ValueError, "ends before"):
                list(p._aligned("lead", None, None, 1, 0))

    def test_zero_copy(self):
        # tee hands the same buffer to both branches: both arrays must
        # start at the memory the C side mapped, the same address.
        n = 0
        with robocache.Pipeline(
                "robocachelidarsrc num-buffers=4 points-per-sweep=100 "
                "! tee name=t t. ! queue ! appsink name=a "
                "t. ! queue ! appsink name=b", device="cpu") as p:
            by_pts = {}
            for s in p:
                address = s.array.__array_interface__["data"][0]
                self.assertEqual(address, s.data_ptr)
                self.assertFalse(s.array.flags.writeable)
                by_pts.setdefault(s.pts, []).append(address)
                n += 1
        self.assertEqual(n, 8)
        for addresses in by_pts.values():
            self.assertEqual(len(set(addresses)), 1, addresses)

    def test_array_outlives_pipeline(self):
        p = robocache.Pipeline("robocachelidarsrc num-buffers=2 "
                               "points-per-sweep=50 seed=9", device="cpu")
        samples = list(p)
        copies = [s.array.copy() for s in samples]
        p.close()
        del p
        gc.collect()
        for s, c in zip(samples, copies):
            np.testing.assert_array_equal(s.array, c)

    def test_buffers_go_back_to_the_pool(self):
        desc = ("videotestsrc num-buffers=40 ! "
                "video/x-raw,format=RGB,width=64,height=8")
        try:
            kept = list(robocache.Pipeline(desc, device="cpu"))
        except RobocacheError as err:
            self.skipTest("videotestsrc: %s" % err)
        self.assertEqual(len({s.data_ptr for s in kept}), 40)
        del kept
        dropped = set()
        for s in robocache.Pipeline(desc, device="cpu"):
            dropped.add(s.data_ptr)
            del s
        # Each array released its buffer to videotestsrc's pool, which
        # handed the same memory out again.
        self.assertLess(len(dropped), 10)

    def test_padded_video_rows(self):
        # RGB 66 wide: rows of 198 bytes padded to 200.
        desc = ("videotestsrc num-buffers=2 pattern=solid-color "
                "foreground-color=0xff102030 ! "
                "video/x-raw,format=RGB,width=66,height=5")
        try:
            samples = list(robocache.Pipeline(desc, device="cpu"))
        except RobocacheError as err:
            self.skipTest("videotestsrc: %s" % err)
        for s in samples:
            a = s.array
            self.assertEqual(a.shape, (5, 66, 3))
            self.assertEqual(a.strides, (200, 3, 1))
            np.testing.assert_array_equal(a[..., 0], 0x10)
            np.testing.assert_array_equal(a[..., 1], 0x20)
            np.testing.assert_array_equal(a[..., 2], 0x30)

    def test_eos_ends(self):
        p = robocache.Pipeline("robocachelidarsrc num-buffers=3 "
                               "points-per-sweep=8", device="cpu")
        self.assertEqual(len([s.pts for s in p]), 3)
        with self.assertRaises(StopIteration):
            next(p)
        p.close()
        p.close()

    def test_appsink_in_a_quoted_value(self):
        """Only an appsink element counts, not the word in a value: the
        appsink is appended here."""
        with robocache.Pipeline("robocachelidarsrc num-buffers=2 "
                                "points-per-sweep=8 ! identity "
                                'name="not an appsink"', device="cpu") as p:
            self.assertEqual(p.streams, ["out"])
            self.assertEqual(len(list(p)), 2)

    def test_closed_pipeline_raises_n(self):
        with robocache.Pipeline("robocachelidarsrc num-buffers=2 "
                                "points-per-sweep=8", device="cpu") as p:
            pass
        with self.assertRaisesRegex(RobocacheError, "closed"):
            list(p)

    def test_close_from_another_thread(self):
        """A pull waiting in one thread ends when another thread closes
        the pipeline: StopIteration there, nothing freed under it."""
        for _ in range(3):
            p = robocache.Pipeline("appsrc ! appsink", device="cpu")
            got = []
            pulling = threading.Thread(
                target=lambda: got.append(len(list(p))))
            pulling.start()
            time.sleep(0.3)
            p.close()
            pulling.join(10)
            self.assertFalse(pulling.is_alive())
            self.assertEqual(got, [0])

    def test_threads_share_one_iteration(self):
        """Threads iterating one pipeline take turns: every buffer comes
        out once."""
        n = 400
        p = robocache.Pipeline(
            "robocachelidarsrc num-buffers=%d points-per-sweep=8 ! "
            'robocachevoxelize dims="<8,8,8>" ! appsink name=a sync=false '
            "robocachejointsrc num-buffers=%d ! appsink name=b sync=false"
            % (n, n), device="cpu")
        counts = []
        threads = [threading.Thread(
            target=lambda: counts.append(sum(1 for _ in p)))
            for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        p.close()
        self.assertEqual(sum(counts), 2 * n)

    def test_run_refuses_appsinks_n(self):
        """Nothing would pull them: the pipeline would wait for ever."""
        with self.assertRaisesRegex(RobocacheError, "appsink"):
            robocache.run("robocachelidarsrc num-buffers=1 ! appsink",
                          device="cpu", timeout=30)
        with self.assertRaisesRegex(ValueError, "timeout"):
            robocache.run("fakesrc num-buffers=1 ! fakesink", timeout=0)

    def test_like_torch_needs_torch(self):
        try:
            import torch
            self.assertTrue(torch.__version__)
        except ImportError:
            with self.assertRaisesRegex(ImportError, "torch"):
                robocache.Pipeline("robocachelidarsrc", like="torch")
            with self.assertRaisesRegex(ImportError, "torch"):
                robocache.RecordingDataset("run.bag")
        with self.assertRaisesRegex(ValueError, "numpy"):
            robocache.Pipeline("robocachelidarsrc", like="cupy")

    def test_run_records(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.mcap")
            robocache.run(
                "robocachemcapsink name=m location=%s "
                "sink_0::topic=/points robocachelidarsrc num-buffers=3 "
                "points-per-sweep=32 ! m.sink_0" % path, device="cpu",
                timeout=60)
            samples = list(robocache.Pipeline(
                "robocachemcapsrc location=%s" % path, device="cpu"))
        self.assertEqual(len(samples), 3)
        self.assertEqual(samples[0].array.shape, (32, 4))


class Recordings(unittest.TestCase):
    """The branches RecordingDataset and the dataset builder play a
    recording through (robocache._replay._description): bounded, and
    never stalled by a stream that starts late or stops."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.dir.name, "late.mcap")
        # The lidar starts 1.5 s after the joints and the camera; the
        # camera stops after 1 s.  Sweeps are small, grids large (8 MB).
        robocache.run(
            "robocachemcapsink name=m location=%s sink_0::topic=/points "
            "sink_0::offset=1500000000 sink_1::topic=/joints "
            "sink_2::topic=/camera robocachelidarsrc num-buffers=60 "
            "points-per-sweep=1024 ! m.sink_0 robocachejointsrc "
            "num-buffers=750 rate=100/1 ! m.sink_1 videotestsrc "
            "num-buffers=30 ! video/x-raw,format=RGB,width=160,height=120,"
            "framerate=30/1 ! m.sink_2" % cls.path, device="cpu",
            timeout=120)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def description(self):
        from robocache._replay import _description, _voxelize_element
        return _description(
            self.path, ["/points", "/joints", "/camera"], _voxelize_element(
                "cpu", "count", [0.2] * 3, [-25.6, -25.6, -3.2],
                [256, 256, 32], None), "")

    def test_late_lead_and_stopped_stream(self):
        got = []
        with robocache.Pipeline(self.description(), device="cpu") as p:
            for lead_time, _, _, frame in p._aligned(
                    "lidar", "joints", "camera", -10**8, 10**8):
                got.append((lead_time, frame[0] if frame else None))
        self.assertEqual(len(got), 60)
        self.assertEqual(got[0][0], 1500 * 10**6)
        # The last frame, at 0.967 s, is the nearest for every sweep.
        self.assertEqual({f for _, f in got}, {29 * 10**9 // 30})

    @under_sanitizer
    def test_playing_stays_bounded(self):
        """A loop that stops taking: the pipeline does not read on to the
        end, holding every grid (60 of 8 MB here, 480 MB), but stops about
        a second ahead (the appsink's 8 grids, those the aligner holds)."""
        gc.collect()
        before = rss_kib()
        with robocache.Pipeline(self.description(), device="cpu") as p:
            # Patience 0.1 s: a sweep waits that long for a frame after
            # it, and the camera stopped.
            items = p._aligned("lidar", "joints", "camera", -10**8, 10**8,
                               patience=10**8)
            next(items)
            time.sleep(1.5)
            grown = rss_kib() - before
            held = sum(1 for _ in items) + 1
        print("VmRSS grew %d kB with the loop stopped" % grown,
              file=sys.stderr)
        self.assertEqual(held, 60)
        self.assertLess(grown, 200 * 1024)


class Fork(unittest.TestCase):
    def test_pipeline_in_a_child_forked_after_one_ran(self):
        """A process forked after it ran pipelines (a DataLoader worker)
        runs its own: its streaming threads, and the step from PAUSED to
        PLAYING, no longer wait for GLib's pooled threads, which the
        child does not have (it hung until killed)."""
        desc = ("robocachelidarsrc num-buffers=3 points-per-sweep=100 ! "
                "queue ! robocachevoxelize backend=cpu ! appsink name=out")
        for _ in range(2):
            self.assertEqual(len(list(robocache.Pipeline(desc,
                                                         device="cpu"))), 3)
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            code = 1
            try:
                import signal
                signal.alarm(60)
                n = [len(list(robocache.Pipeline(desc, device="cpu")))
                     for _ in range(2)]
                os.write(write, repr(n).encode())
                code = 0
            finally:
                os._exit(code)
        os.close(write)
        with os.fdopen(read) as f:
            got = f.read()
        _, status = os.waitpid(pid, 0)
        self.assertTrue(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0,
                        "the child: status %d" % status)
        self.assertEqual(got, "[3, 3]")


class Errors(unittest.TestCase):
    def test_error_drops_the_sample_pulled_with_it(self):
        """Where the pipeline's error is read just after a sample was
        pulled, that sample is let go (it leaked, a sweep's memory each
        time: the leaks tracer found one GstSample per failed run): the
        library's pull wrapped to hold a reference of its own to each
        sample, the bus read failing once a sample is out; the sample
        must be left with that reference alone.  In time order and
        aligned."""
        from robocache import _gst
        refcount = ctypes.c_int.from_address     # GstMiniObject.refcount
        for align in (False, True):
            with self.subTest(align=align):
                p = robocache.Pipeline(
                    "robocachejointsrc num-buffers=50 ! appsink name=a "
                    "robocachejointsrc num-buffers=50 ! appsink name=b",
                    device="cpu")
                held = []
                name = ("robocache_align_next" if align else
                        "robocache_merge_next")
                real = getattr(_gst.robocache, name)

                def pull(*args):
                    status = real(*args)
                    if align and status == _gst.ALIGN_ITEM:
                        out = ctypes.cast(args[2], ctypes.POINTER(
                            _gst.Aligned)).contents
                        held.append(out.lead)
                    elif not align and status == _gst.MERGE_SAMPLE:
                        held.append(args[2]._obj.value)
                    if held:
                        _gst.gst.gst_mini_object_ref(held[-1])
                    return status

                def fail(wait_ns=0):
                    if held:
                        raise RobocacheError("the pipeline failed")

                setattr(_gst.robocache, name, pull)
                p._read_bus = fail
                try:
                    with self.assertRaises(RobocacheError):
                        if align:
                            next(p._aligned("a", "b", None, -10**7, 10**7))
                        else:
                            next(p)
                finally:
                    setattr(_gst.robocache, name, real)
                    p.close()
                self.assertEqual(len(held), 1)
                self.assertEqual(refcount(held[0] + 8).value, 1)
                _gst.gst.gst_mini_object_unref(held[0])

    def test_bus_error_names_element_n(self):
        p = robocache.Pipeline("robocachebagsrc name=mybag "
                               "location=/nonexistent/run.bag", device="cpu")
        with self.assertRaises(RobocacheError) as cm:
            next(p)
        self.assertIn("mybag", str(cm.exception))
        self.assertIn("run.bag", str(cm.exception))
        with self.assertRaises(RobocacheError):
            next(p)
        p.close()

    def test_bad_description_n(self):
        with self.assertRaisesRegex(RobocacheError, "nosuchelement"):
            robocache.Pipeline("nosuchelement ! fakesink")
        with self.assertRaisesRegex(RobocacheError, "appended"):
            robocache.Pipeline("robocachelidarsrc ! fakesink")
        # The hint only where the appended appsink is what fails: a
        # description that fails as given is reported as given.
        for desc, words in (
                ("robocachelidarsrc ! ! robocachevoxelize", "syntax error"),
                ("robocachelidarsrc ! robocachevoxelize nosuchprop=3",
                 "nosuchprop"),
                ("robocachelidarsrc ! robocachevoxelize mode=bogus",
                 "bogus")):
            with self.subTest(desc=desc):
                with self.assertRaises(RobocacheError) as caught:
                    robocache.Pipeline(desc, device="cpu")
                self.assertIn(words, str(caught.exception))
                self.assertNotIn("appended", str(caught.exception))
        # Caps last that the source cannot give: GStreamer's link error
        # (was: 'no element "other"', from the caps parsed alone).
        with self.assertRaisesRegex(
                RobocacheError, "could not link robocachejointsrc.*can't "
                "handle caps other/x-robocache-vectors") as caught:
            robocache.Pipeline("robocachejointsrc ! other/x-robocache-"
                               "vectors,format=float64", device="cpu")
        self.assertNotIn("appended", str(caught.exception))
        with self.assertRaises(TypeError):
            robocache.Pipeline("")
        # Not cut at the NUL (which gave "no appsink in ..." of the rest).
        with self.assertRaisesRegex(ValueError, "NUL character at 17"):
            robocache.Pipeline("robocachelidarsrc\0 ! appsink name=out")
        with self.assertRaisesRegex(RobocacheError, "device=0"):
            if robocache.cuda_available():
                raise RobocacheError("device=0 (skipped: CUDA here)")
            robocache.Pipeline("robocachelidarsrc", device=0)

    def test_unshapeable_caps_n(self):
        desc = "videotestsrc num-buffers=1 ! video/x-raw,format=I420"
        try:
            p = robocache.Pipeline(desc, device="cpu")
        except RobocacheError as err:
            self.skipTest("videotestsrc: %s" % err)
        with p, self.assertRaisesRegex(RobocacheError, "I420.*accepted"):
            next(p)


class Bags(unittest.TestCase):
    """The bag of tests/bag/make_bags.py (rosbag writes it) as arrays."""

    @classmethod
    def setUpClass(cls):
        script = os.environ.get("ROBOCACHE_MAKE_BAGS")
        if not script:
            raise unittest.SkipTest("ROBOCACHE_MAKE_BAGS is not set")
        cls.dir = tempfile.TemporaryDirectory()
        done = subprocess.run(["/usr/bin/python3", script, cls.dir.name],
                              capture_output=True, text=True)
        if done.returncode != 0:
            cls.dir.cleanup()
            raise unittest.SkipTest("make_bags.py (rosbag) failed: %s"
                                    % done.stderr.strip()[-300:])

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_loader_branches_unplayable_camera(self):
        """A camera none of whose messages plays (yuv422): the loaders'
        bounded branches still run to the end, every sweep without a
        frame."""
        from robocache._replay import _description, _voxelize_element
        bag = os.path.join(self.dir.name, "unplayable-camera.bag")
        got = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with robocache.Pipeline(_description(
                    bag, ["/velodyne_points", "/joint_states", "/camera/yuv"],
                    _voxelize_element("cpu", "count", [0.5] * 3,
                                      [-8, -8, -2], [32, 32, 8], None), ""),
                    device="cpu") as p:
                for lead_time, _, _, frame in p._aligned(
                        "lidar", "joints", "camera", -10**8, 10**8):
                    got.append((lead_time, frame))
        self.assertEqual([t for t, _ in got], [i * 10**8 for i in range(40)])
        self.assertEqual({f for _, f in got}, {None})
        # The source's warning, once, as a RuntimeWarning naming why.
        (w,) = [w for w in caught if issubclass(w.category, RuntimeWarning)]
        self.assertIn("robocache.Pipeline: warning from element src: "
                      "/camera/yuv: skipping messages: image encoding "
                      '"yuv422" is not supported', str(w.message))

    def test_compressed_images_as_bytes(self):
        """CompressedImage topics (image/jpeg, image/png) come out as their
        encoded bytes, a 1-D uint8 array a decoder takes (torchvision's
        decode_image); without a decoder in the pipeline."""
        bag = os.path.join(self.dir.name, "compressed-images.bag")
        streams = collect(robocache.Pipeline(
            "robocachebagsrc name=b location=%s topics=/camera/jpeg,"
            "/camera/png b.src_0 ! queue ! appsink name=jpeg "
            "b.src_1 ! queue ! appsink name=png" % bag, device="cpu"))
        magic = {"jpeg": b"\xff\xd8\xff", "png": b"\x89PNG\r\n\x1a\n"}
        for name in ("jpeg", "png"):
            self.assertEqual(len(streams[name]), 10, name)
            for sample in streams[name]:
                data = sample.array
                self.assertEqual((data.ndim, data.dtype), (1, np.uint8))
                self.assertEqual(bytes(data[:len(magic[name])]), magic[name])
                self.assertEqual(bytes(data), bytes(streams[name][0].array))

    def test_topics_as_arrays(self):
        bag = os.path.join(self.dir.name, "all-lz4.bag")
        streams = collect(robocache.Pipeline(
            "robocachebagsrc name=b location=%s topics=/velodyne_points,"
            "/joint_states,/camera/rgb,/camera/depth "
            "b.src_0 ! queue ! appsink name=cloud "
            "b.src_1 ! queue ! appsink name=joints "
            "b.src_2 ! queue ! appsink name=rgb "
            "b.src_3 ! queue ! appsink name=depth" % bag, device="cpu"))
        for name in ("cloud", "joints", "rgb", "depth"):
            self.assertEqual(len(streams[name]), 10, name)
        for i in range(10):
            cloud = streams["cloud"][i].array
            self.assertEqual(cloud.shape, (5, 4))
            np.testing.assert_array_equal(cloud[:, 0], i)
            np.testing.assert_array_equal(cloud[:, 1], np.arange(5))
            np.testing.assert_array_equal(cloud[:, 3], 10 * i + np.arange(5))
            joints = streams["joints"][i].array
            self.assertEqual(joints.dtype, np.float64)
            np.testing.assert_allclose(joints[0, :3], i + np.arange(3) / 10)
            rgb = streams["rgb"][i].array
            self.assertEqual(rgb.shape, (2, 4, 3))
            np.testing.assert_array_equal(
                rgb.reshape(-1), (i + np.arange(24)) % 256)
            depth = streams["depth"][i].array
            self.assertEqual((depth.shape, depth.dtype), ((2, 4, 1),
                                                          np.uint16))
            np.testing.assert_array_equal(depth.reshape(-1),
                                          100 * i + np.arange(8))
            self.assertEqual(streams["cloud"][i].pts, i * 100000000)


class Memory(unittest.TestCase):
    @under_sanitizer
    def test_rss_flat_over_10000_buffers(self):
        n_warm, n = 2000, 10000
        with robocache.Pipeline(
                "robocachelidarsrc num-buffers=%d points-per-sweep=64 ! "
                "robocachevoxelize mode=count backend=cpu "
                'voxel-size="<1.0>" origin="<-8,-8,-2>" dims="<16,16,4>"'
                % (n_warm + n), device="cpu") as p:
            it = iter(p)
            for _ in range(n_warm):
                next(it)
            gc.collect()
            before = rss_kib()
            count = 0
            for s in it:
                count += int(s.array[0, 0, 0] >= 0)
            gc.collect()
            after = rss_kib()
        self.assertEqual(count, n)
        print("VmRSS %d kB -> %d kB over %d buffers" % (before, after, n),
              file=sys.stderr)
        self.assertLess(after - before, 4096)

    @under_sanitizer
    def test_rss_flat_over_pipelines(self):
        """A closed pipeline lets go of its elements, pools and buffers
        (each of these holds an 8 MiB count grid)."""
        def play(n):
            for _ in range(n):
                with robocache.Pipeline(
                        "robocachelidarsrc num-buffers=2 points-per-sweep=64 "
                        "! robocachevoxelize backend=cpu", device="cpu") as p:
                    for _ in p:
                        pass
            gc.collect()

        play(20)
        before = rss_kib()
        play(100)
        after = rss_kib()
        print("VmRSS %d kB -> %d kB over 100 pipelines" % (before, after),
              file=sys.stderr)
        self.assertLess(after - before, 16384)


if __name__ == "__main__":
    unittest.main(verbosity=2)
