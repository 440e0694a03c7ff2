"""python3 -m robocache.dataset on this machine: three recordings (a ROS 1
bag written by rosbag, MCAP written by robocachemcapsink) and a corrupt
one into shards; the shards read back with tarfile and numpy alone and
compared with the recordings' own messages (the grid by
robocache.voxelize, the kernel of robocachevoxelize; joints by
numpy.interp; the nearest frame) and, where torch imports, with
robocache.RecordingDataset; the corrupt recording in the manifest; a
rerun that skips; a changed configuration that rebuilds; a killed run
that resumes; a killed worker; the same bytes with other parallelism and
input order; pillars and a camera size; gzip shards; bad configurations.
The first build is on the CPU; the others take the default device, so
on a GPU machine they also check the GPU's bytes against the CPU's.
Exits 77 (SKIP) where rosbag cannot write the bag."""
import hashlib
import io
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import numpy as np

import robocache
from dataset_fixtures import (CONFIG, CORRUPT, GOOD, UNPLAYABLE, cli,
                              extra_folder, files, make_recordings, messages,
                              read_manifest, read_shards, write_config)


def setUpModule():
    global TMP, REC, CONF, FIRST
    TMP = tempfile.mkdtemp()
    try:
        REC = make_recordings(os.path.join(TMP, "rec"))
    except SystemExit:           # SKIP: no rosbag
        shutil.rmtree(TMP)
        raise
    CONF = write_config(os.path.join(TMP, "config.json"))
    FIRST = os.path.join(TMP, "first")
    FIRST_RUN.extend(cli("-c", CONF, "-o", FIRST, "--jobs", 2, "--device",
                         "cpu", REC))


def tearDownModule():
    shutil.rmtree(TMP)


FIRST_RUN = []


def by_recording(samples):
    out = {}
    for key in sorted(samples):
        meta = samples[key]["json"]
        out.setdefault(meta["recording"], []).append(samples[key])
    return out


def processes():
    """(pid, state, parent, session) of every process running."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        yield int(pid), fields[0], int(fields[1]), int(fields[3])


def session_processes(sid):
    """Processes of session `sid` still running (not zombies)."""
    return [p for p, state, _, s in processes() if s == sid and state != "Z"]


def process_state(pid):
    """The state letter of process `pid`, None once it is gone."""
    return next((state for p, state, _, _ in processes() if p == pid), None)


def partial_shards(shards):
    """The shards being written (their names start with a dot)."""
    return [n for n in (os.listdir(shards) if os.path.isdir(shards) else [])
            if n.startswith(".")]


def children(pid):
    return [p for p, _, parent, _ in processes() if parent == pid]


def cmdline(pid):
    with open("/proc/%d/cmdline" % pid, "rb") as f:
        return f.read()


class Build(unittest.TestCase):
    def test_manifest_and_corrupt_recording(self):
        status, log = FIRST_RUN
        self.assertEqual(status, 1, log)      # one recording failed
        self.assertIn("3 built", log)
        m = read_manifest(FIRST)
        names = [e["recording"] for e in m["recordings"]]
        self.assertEqual(names, sorted(GOOD + (CORRUPT,)))
        self.assertEqual(m["config"]["grid"]["dims"], [64, 64, 8])
        for e in m["recordings"]:
            if e["recording"] == CORRUPT:
                self.assertEqual(e["status"], "failed")
                self.assertRegex(e["error"], r"d\.bag.*(exceeds|beyond)")
                self.assertEqual(e["shards"], [])
                continue
            self.assertEqual(e["status"], "done", e)
            self.assertEqual(e["samples"], 10)
            self.assertEqual([s["samples"] for s in e["shards"]], [4, 4, 2])
            for s in e["shards"]:
                with open(os.path.join(FIRST, "shards", s["name"]),
                          "rb") as f:
                    data = f.read()
                self.assertEqual(s["bytes"], len(data))
                self.assertEqual(s["sha256"], "sha256:" +
                                 hashlib.sha256(data).hexdigest())
        self.assertEqual(m["totals"]["samples"], 30)
        self.assertEqual(m["totals"]["failed"], 1)
        self.assertFalse([n for n in os.listdir(os.path.join(FIRST, "shards"))
                          if n.startswith(".")])

    def test_shards_match_the_recordings(self):
        samples, _ = read_shards(FIRST)
        recs = by_recording(samples)
        self.assertEqual(sorted(recs), sorted(GOOD))
        for name, items in recs.items():
            path = os.path.join(REC, name)
            clouds = messages(path, "/velodyne_points")
            joints = messages(path, "/joint_states")
            frames = messages(path, "/camera/rgb")
            jt = np.array([t for t, _ in joints], np.float64)
            jv = np.stack([v[0] for _, v in joints])
            self.assertEqual(len(items), len(clouds), name)
            for i, (item, (t, cloud)) in enumerate(zip(items, clouds)):
                self.assertEqual(item["json"]["index"], i)
                self.assertEqual(item["json"]["time"], t)
                g = CONFIG["grid"]
                grid = robocache.voxelize(np.ascontiguousarray(cloud),
                                          g["voxel_size"], g["origin"],
                                          g["dims"], mode="count")
                self.assertEqual(item["grid"].dtype, np.uint32)
                np.testing.assert_array_equal(item["grid"], grid)
                times = item["joint_times"]
                np.testing.assert_array_equal(
                    times, t + np.linspace(-1e8, 1e8, 21).astype(np.int64))
                expected = np.stack([np.interp(times, jt, jv[:, c])
                                     for c in range(jv.shape[1])], 1)
                np.testing.assert_allclose(item["joints"], expected,
                                           rtol=1e-5, atol=1e-5)
                best = min(frames, key=lambda f: abs(f[0] - t))
                self.assertEqual(item["json"]["image_time"], best[0])
                np.testing.assert_array_equal(item["image"], best[1])
            self.assertGreater(sum(int(x["grid"].sum()) for x in items), 0)

    def test_sqlite_recording(self):
        """A rosbag2 recording in SQLite storage (a .db3, ROS 2 Humble's
        default), and one compressed whole (.db3.zstd, rosbag2's
        --compression-mode file), are found in a folder and built into the
        same samples, byte for byte, as the MCAP file they were converted
        from; a compressed file beside its uncompressed twin is left
        out."""
        tool = os.environ.get("ROBOCACHE_TODB3")
        if not tool:
            self.skipTest("ROBOCACHE_TODB3 is not set (run through meson)")
        folder = os.path.join(TMP, "sqlite")
        os.makedirs(folder)
        mcap = os.path.join(folder, "c.mcap")
        shutil.copy(os.path.join(REC, "c.mcap"), mcap)
        for name in ("c.db3", "d.db3.zstd"):
            subprocess.run([tool, os.path.join(folder, name), mcap],
                           check=True, timeout=60)
        # c.db3 compressed whole, cut off: rosbag2 stopped while compressing
        # it; left out beside c.db3, as robocachemcapsrc leaves it.
        with open(os.path.join(folder, "c.db3.zstd"), "wb") as f:
            f.write(b"\x28\xb5\x2f\xfd\x04\x58")
        out = os.path.join(TMP, "sqlite-out")
        status, text = cli("-c", CONF, "-o", out, "--device", "cpu", folder)
        self.assertEqual(status, 0, text)
        recs = by_recording(read_shards(out)[0])
        self.assertEqual(sorted(recs), ["c.db3", "c.mcap", "d.db3.zstd"])
        self.assertGreater(len(recs["c.mcap"]), 0)
        for name in ("c.db3", "d.db3.zstd"):
            self.assertEqual(len(recs[name]), len(recs["c.mcap"]))
            for ours, theirs in zip(recs[name], recs["c.mcap"]):
                self.assertEqual(ours["json"]["time"], theirs["json"]["time"])
                for array in ("grid", "joints", "joint_times", "image"):
                    np.testing.assert_array_equal(ours[array], theirs[array])
                self.assertGreater(int(ours["grid"].sum()), 0)

    def test_active_bag(self):
        """The bag a killed `rosbag record` leaves (name.bag.active) is a
        recording, played by robocachebagsrc: here a whole bag so named,
        built into the same samples as the bag."""
        folder = os.path.join(TMP, "active")
        os.makedirs(folder)
        shutil.copy(os.path.join(REC, "a.bag"),
                    os.path.join(folder, "a.bag.active"))
        out = os.path.join(TMP, "active-out")
        status, text = cli("-c", CONF, "-o", out, "--device", "cpu", folder)
        self.assertEqual(status, 0, text)
        recs = by_recording(read_shards(out)[0])
        self.assertEqual(sorted(recs), ["a.bag.active"])
        theirs = by_recording(read_shards(FIRST)[0])["a.bag"]
        self.assertEqual(len(recs["a.bag.active"]), len(theirs))
        self.assertGreater(len(theirs), 0)
        for ours, first in zip(recs["a.bag.active"], theirs):
            self.assertEqual(ours["json"]["time"], first["json"]["time"])
            np.testing.assert_array_equal(ours["grid"], first["grid"])

    def test_same_as_recording_dataset(self):
        if importlib.util.find_spec("torch") is None:
            self.skipTest("torch is not installed")
        recs = by_recording(read_shards(FIRST)[0])
        g = CONFIG["grid"]
        for name in GOOD:
            data = robocache.RecordingDataset(
                os.path.join(REC, name), camera_topic="/camera/rgb",
                device="cpu", voxel_size=g["voxel_size"],
                origin=g["origin"], dims=g["dims"])
            items = list(data)
            self.assertEqual(len(items), len(recs[name]))
            for ours, theirs in zip(recs[name], items):
                np.testing.assert_array_equal(ours["grid"].astype(np.float32),
                                              theirs["voxels"].numpy())
                np.testing.assert_array_equal(ours["joints"],
                                              theirs["joints"].numpy())
                np.testing.assert_array_equal(ours["image"],
                                              theirs["image"].numpy())
                np.testing.assert_array_equal(ours["joints_valid"],
                                              theirs["joints_valid"].numpy())

    def test_rerun_skips_finished_work(self):
        out = os.path.join(TMP, "rerun")
        shutil.copytree(FIRST, out)
        before = {n: os.stat(os.path.join(out, "shards", n))
                  for n in os.listdir(os.path.join(out, "shards"))}
        status, log = cli("-c", CONF, "-o", out, REC)
        self.assertEqual(status, 1, log)
        self.assertIn("0 built, 3 already built (skipped), 1 failed", log)
        for n, st in before.items():
            now = os.stat(os.path.join(out, "shards", n))
            self.assertEqual((now.st_ino, now.st_mtime_ns),
                             (st.st_ino, st.st_mtime_ns), n)
        self.assertEqual(files(out), files(FIRST))
        # A damaged shard is found by its checksum and rebuilt.
        name = sorted(before)[0]
        with open(os.path.join(out, "shards", name), "r+b") as f:
            f.seek(1000)
            f.write(b"\xff")
        status, log = cli("-c", CONF, "-o", out, REC)
        self.assertIn("1 built, 2 already built (skipped), 1 failed", log)
        self.assertEqual(files(out), files(FIRST))

    def test_changed_config_rebuilds(self):
        out = os.path.join(TMP, "changed")
        shutil.copytree(FIRST, out)
        conf = dict(CONFIG, shards={"max_samples": 5})
        status, log = cli("-c", write_config(os.path.join(TMP, "c5.json"),
                                             conf), "-o", out, REC)
        self.assertIn("3 built, 0 already built", log)
        m = read_manifest(out)
        self.assertNotEqual(m["config_hash"], read_manifest(FIRST)
                            ["config_hash"])
        names = sorted(os.listdir(os.path.join(out, "shards")))
        self.assertEqual(names, sorted(s["name"] for e in m["recordings"]
                                       for s in e["shards"]))
        self.assertEqual(len(names), 6)          # 2 a recording, not 3
        a, _ = read_shards(FIRST)
        b, _ = read_shards(out)
        self.assertEqual(sorted(a), sorted(b))
        for key in a:
            np.testing.assert_array_equal(a[key]["grid"], b[key]["grid"])

    def test_zombie_writer_partial_removed(self):
        """A temporary file of a writer killed but not reaped (a zombie,
        as in a container whose init does not reap) is stale."""
        from robocache.dataset import _shards
        final = os.path.join(TMP, "zombie", "m.json")
        os.makedirs(os.path.dirname(final))
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        try:
            deadline = time.monotonic() + 10
            while process_state(pid) != "Z":
                self.assertLess(time.monotonic(), deadline)
                time.sleep(0.01)
            stale = _shards.temp_name(final).replace(
                "-%d" % os.getpid(), "-%d" % pid)
            mine = _shards.temp_name(final)
            for name in (stale, mine):
                open(name, "w").close()
            _shards.write_json(final, {"x": 1})
            self.assertFalse(os.path.exists(stale))
            self.assertFalse(os.path.exists(mine))      # renamed
            self.assertEqual(sorted(os.listdir(os.path.dirname(final))),
                             ["m.json"])
        finally:
            os.waitpid(pid, 0)

    def test_killed_run_resumes(self):
        many = os.path.join(TMP, "many")
        for copy in ("x", "y"):
            for name in GOOD:
                os.makedirs(os.path.join(many, copy), exist_ok=True)
                shutil.copy(os.path.join(REC, name),
                            os.path.join(many, copy, name))
        out = os.path.join(TMP, "killed")
        proc = subprocess.Popen(
            [sys.executable, "-m", "robocache.dataset", "-c", CONF, "-o",
             out, "--jobs", "1", many], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        manifests = os.path.join(out, "manifests")

        def finished():
            # A manifest being written has a hidden temporary name.
            return [n for n in (os.listdir(manifests) if os.path.isdir(
                manifests) else []) if not n.startswith(".")]
        deadline = time.monotonic() + 120
        while not finished():
            self.assertIsNone(proc.poll(), "the run ended before a kill")
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.01)
        self.assertIsNone(proc.poll(), "the run ended before the kill")
        os.kill(proc.pid, signal.SIGKILL)      # the parent alone
        proc.wait(30)
        deadline = time.monotonic() + 30
        while session_processes(proc.pid):
            self.assertLess(time.monotonic(), deadline,
                            "workers outlived the killed run")
            time.sleep(0.1)
        self.assertFalse(os.path.exists(os.path.join(out, "manifest.json")))
        done_before = len(finished())
        self.assertLess(done_before, 6)
        status, log = cli("-c", CONF, "-o", out, "--jobs", 2, many)
        self.assertEqual(status, 0, log)
        self.assertIn("already built (skipped)", log)
        self.assertIn("%d built, %d already" % (6 - done_before,
                                                done_before), log)
        clean = os.path.join(TMP, "clean")
        status, log = cli("-c", CONF, "-o", clean, many)
        self.assertEqual(status, 0, log)
        self.assertEqual(files(out), files(clean))

    def test_worker_killed_fails_its_recording_n(self):
        out = os.path.join(TMP, "worker-killed")
        shards = os.path.join(out, "shards")
        proc = subprocess.Popen(
            [sys.executable, "-m", "robocache.dataset", "-c", CONF, "-o",
             out, "--jobs", "1", REC], stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, start_new_session=True)
        deadline = time.monotonic() + 120
        while True:             # a worker stopped in the middle of a recording
            self.assertIsNone(proc.poll(), "the run ended first")
            self.assertLess(time.monotonic(), deadline)
            if not partial_shards(shards):
                time.sleep(0.005)
                continue
            workers = [p for p in children(proc.pid)
                       if b"spawn_main" in cmdline(p)]
            self.assertEqual(len(workers), 1)
            # Stopped, its partial shard still there: it is inside that
            # recording, so the kill lands there (a fast worker may have
            # finished between the look and the signal: look again).
            os.kill(workers[0], signal.SIGSTOP)
            while process_state(workers[0]) not in ("T", None):
                time.sleep(0.001)
            if partial_shards(shards):
                break
            os.kill(workers[0], signal.SIGCONT)
        os.kill(workers[0], signal.SIGKILL)
        log = proc.communicate(timeout=120)[0]
        self.assertEqual(proc.returncode, 1, log)
        status = {e["key"]: e for e in read_manifest(out)["recordings"]}
        # The recording it was stopped in.
        died = [k for k, e in status.items() if e.get("error") ==
                "the worker process died (signal 9) while building it"]
        self.assertEqual(len(died), 1, log)
        self.assertEqual(status[died[0]]["status"], "failed")
        self.assertEqual(sorted(e["status"] for e in status.values()),
                         ["done", "done", "failed", "failed"], log)
        self.assertFalse([n for n in os.listdir(shards)
                          if n.startswith(".")])

    def test_same_bytes_any_parallelism_and_order(self):
        listed = os.path.join(TMP, "list.txt")
        with open(listed, "w") as f:
            f.write("\n".join(os.path.join(REC, n) for n in
                              reversed(GOOD + (CORRUPT,))) + "\n")
        out = os.path.join(TMP, "one-job")
        status, log = cli("-c", CONF, "-o", out, "--jobs", 1, "@" + listed)
        self.assertEqual(status, 1, log)
        self.assertEqual(files(out), files(FIRST))
        a, b = read_manifest(out), read_manifest(FIRST)
        self.assertEqual(a, b)

    def test_gzip_shards(self):
        conf = dict(CONFIG, shards={"max_samples": 4, "compression": "gzip",
                                    "level": 6})
        path = write_config(os.path.join(TMP, "gz.json"), conf)
        outs = [os.path.join(TMP, "gz-%d" % jobs) for jobs in (1, 2)]
        for jobs, out in zip((1, 2), outs):
            status, log = cli("-c", path, "-o", out, "--jobs", jobs, REC)
            self.assertEqual(status, 1, log)
        self.assertEqual(files(outs[0]), files(outs[1]))
        ours, names = read_shards(outs[0])
        first, _ = read_shards(FIRST)
        self.assertEqual(len(names), 9)
        self.assertTrue(all(n.endswith(".tar.gz") for n in names), names)
        with open(os.path.join(outs[0], "shards", names[0]), "rb") as f:
            head = f.read(10)
        self.assertEqual(head[:2], b"\x1f\x8b")         # gzip
        self.assertEqual(head[4:8], b"\0\0\0\0")       # no time
        self.assertEqual(sorted(ours), sorted(first))
        for key in first:
            for field in first[key]:
                np.testing.assert_array_equal(ours[key][field],
                                              first[key][field])
        total = sum(e["shards"][i]["bytes"] for e in read_manifest(FIRST)
                    ["recordings"] for i in range(len(e["shards"])))
        self.assertLess(read_manifest(outs[0])["totals"]["bytes"], total / 4)

    def test_gpu_same_bytes(self):
        if not robocache.cuda_available():
            self.skipTest("no usable CUDA device: %s"
                          % robocache.cuda_unavailable_reason())
        out = os.path.join(TMP, "gpu")
        status, log = cli("-c", CONF, "-o", out, "--device", "cuda", REC)
        self.assertIn("on cuda", log)
        self.assertEqual(files(out), files(FIRST))

    def test_pillars_and_camera_size(self):
        g = {"kind": "pillars", "voxel_size": [0.8, 0.8, 6.4],
             "origin": [-25.6, -25.6, -3.2], "dims": [64, 64, 1],
             "max_voxels": 300, "max_points_per_voxel": 8}
        conf = dict(CONFIG, grid=g, camera={"width": 8, "height": 6})
        out = os.path.join(TMP, "pillars")
        status, log = cli("-c", write_config(os.path.join(TMP, "p.json"),
                                             conf), "-o", out, REC)
        self.assertEqual(status, 1, log)
        recs = by_recording(read_shards(out)[0])
        for name in GOOD:
            path = os.path.join(REC, name)
            src = "robocachebagsrc" if name.endswith(".bag") \
                else "robocachemcapsrc"
            with robocache.Pipeline(
                    "%s location=%s topics=/camera/rgb ! videoscale ! "
                    "video/x-raw,width=8,height=6" % (src, path),
                    device="cpu") as p:
                frames = [(s.pts, np.array(s.array)) for s in p]
            clouds = messages(path, "/velodyne_points")
            self.assertEqual(len(recs[name]), len(clouds))
            for item, (t, cloud) in zip(recs[name], clouds):
                self.assertEqual(cloud.shape[1:], (4,))   # x y z intensity
                feats, coords, counts, n = robocache.voxelize(
                    np.ascontiguousarray(cloud), g["voxel_size"],
                    g["origin"], g["dims"], mode="pillars", features=(3,),
                    max_points_per_voxel=8, max_voxels=300)
                n = int(n[0])
                self.assertGreater(n, 0)
                np.testing.assert_array_equal(item["voxels"], feats[:n])
                np.testing.assert_array_equal(item["voxel_coords"],
                                              coords[:n])
                np.testing.assert_array_equal(item["voxel_num_points"],
                                              counts[:n])
                self.assertNotIn("grid", item)
                best = min(frames, key=lambda f: abs(f[0] - t))
                self.assertEqual(item["image"].shape, (6, 8, 3))
                np.testing.assert_array_equal(item["image"], best[1])

    def test_no_camera_and_wrong_topic_type(self):
        """Without a camera a sample's image_time is -1, as the layout
        says; a lidar topic of images fails its recording saying why."""
        good = os.path.join(REC, GOOD[0])
        out = os.path.join(TMP, "nocamera")
        conf = write_config(os.path.join(TMP, "nocamera.json"), dict(
            CONFIG, topics=dict(CONFIG["topics"], camera=None)))
        status, log = cli("-c", conf, "-o", out, "--device", "cpu", good)
        self.assertEqual(status, 0, log)
        samples, _ = read_shards(out)
        self.assertTrue(samples)
        for item in samples.values():
            self.assertEqual(item["json"]["image_time"], -1)
            self.assertNotIn("image", item)
        out = os.path.join(TMP, "wrongtype")
        conf = write_config(os.path.join(TMP, "wrongtype.json"), dict(
            CONFIG, topics=dict(CONFIG["topics"], lidar="/camera/rgb",
                                camera=None)))
        status, log = cli("-c", conf, "-o", out, "--device", "cpu", good)
        self.assertEqual(status, 1, log)
        (entry,) = read_manifest(out)["recordings"]
        self.assertIn("topics.lidar PointCloud2", entry["error"])

    def test_skipped_messages_warned(self):
        """A topic whose every message the source skips (a yuv422 camera)
        is no error, but its warning is in the manifest and the summary:
        a recording that gives nothing for a reason says so."""
        rec = os.path.join(extra_folder(REC), UNPLAYABLE)
        out = os.path.join(TMP, "skipped")
        conf = write_config(os.path.join(TMP, "skipped.json"), dict(
            CONFIG, topics=dict(CONFIG["topics"], camera="/camera/yuv")))
        status, log = cli("-c", conf, "-o", out, "--device", "cpu", rec)
        self.assertEqual(status, 0, log)
        (entry,) = read_manifest(out)["recordings"]
        self.assertEqual(entry["status"], "done")
        self.assertEqual(entry["samples"], 40)
        (text,) = entry["warnings"]
        self.assertIn("/camera/yuv: skipping messages", text)
        self.assertIn("warning:    %s: %s" % (UNPLAYABLE, text), log)
        samples, _ = read_shards(out)
        self.assertEqual(len(samples), 40)
        for item in samples.values():
            self.assertEqual(item["json"]["image_time"], -1)
            self.assertEqual(item["image"].shape, (0, 0, 0))
        good = os.path.join(REC, GOOD[0])
        status, log = cli("-c", CONF, "-o", out + "-good", "--device", "cpu",
                          good)
        self.assertEqual(status, 0, log)
        self.assertEqual(read_manifest(out + "-good")["recordings"][0]
                         ["warnings"], [])

    def test_joints_valid(self):
        """joints_valid.npy marks the joint samples that stand between two
        real joint states: the bag's come every 100 ms, so with max_gap
        50 ms only those on a joint state are valid, and without it all
        but those before the first or after the last (held)."""
        for max_gap in (None, 0.05):
            out = os.path.join(TMP, "valid-%s" % max_gap)
            conf = write_config(out + ".json", dict(
                CONFIG, joints=dict(CONFIG["joints"], max_gap=max_gap)))
            status, log = cli("-c", conf, "-o", out, "--device", "cpu",
                              os.path.join(REC, GOOD[0]))
            self.assertEqual(status, 0, log)
            samples, _ = read_shards(out)
            times = np.array([t for t, _ in messages(
                os.path.join(REC, GOOD[0]), "/joint_states")])
            held = 0
            for item in samples.values():
                valid, targets = item["joints_valid"], item["joint_times"]
                self.assertEqual((valid.dtype, valid.shape),
                                 (np.bool_, targets.shape))
                on = np.isin(targets, times)
                inside = (targets > times[0]) & (targets < times[-1])
                np.testing.assert_array_equal(
                    valid, on if max_gap else on | inside)
                held += int((~(on | inside)).sum())
            self.assertGreater(held, 0)

    def test_joints_valid_rule(self):
        """The rule by hand: on a joint state, or between two at most
        max_gap apart; held ends and longer gaps are not valid."""
        from robocache._replay import _joints_valid
        times = [0, 100, 300]
        targets = [-10, 0, 50, 100, 150, 300, 310]
        np.testing.assert_array_equal(
            _joints_valid(times, targets),
            [False, True, True, True, True, True, False])
        np.testing.assert_array_equal(
            _joints_valid(times, targets, 150),
            [False, True, True, True, False, True, False])
        np.testing.assert_array_equal(
            _joints_valid(times, targets, 200),
            [False, True, True, True, True, True, False])
        np.testing.assert_array_equal(_joints_valid([], targets),
                                      [False] * len(targets))

    def test_empty_arrays_as_npy(self):
        """The pillars of a sweep with no point in the grid, M = 0: a
        valid .npy of that shape, not a failed recording."""
        from robocache.dataset import _shards
        for shape, dtype in (((0, 32, 4), np.float32), ((0, 3), np.int32),
                             ((0, 0, 0), np.uint8)):
            head, body = _shards.npy(np.zeros(shape, dtype))
            got = np.load(io.BytesIO(head + bytes(body)))
            self.assertEqual((got.shape, got.dtype), (shape, dtype))

    def test_shards_keep_to_max_bytes(self):
        """A shard ends before a sample that would take its tar, padded to
        whole records as closed, past max_bytes."""
        from robocache.dataset import _shards
        with tempfile.TemporaryDirectory() as d:
            writer = _shards.ShardWriter(d, "k", 1000, 35000)
            for i in range(5):
                writer.add("k-%06d" % i, {"a.bin": [bytes(15000)]})
            shards = writer.finish()
            for s in shards:
                size = os.path.getsize(os.path.join(d, s["name"]))
                self.assertTrue(size <= 35000 or s["samples"] == 1, s)
        self.assertEqual(sum(s["samples"] for s in shards), 5)

    def test_configuration_files(self):
        from robocache import dataset
        toml = os.path.join(TMP, "c.toml")
        with open(toml, "w") as f:
            f.write('[topics]\ncamera = "/camera/rgb"\n'
                    '[grid]\nvoxel_size = 0.8\n'
                    'origin = [-25.6, -25.6, -3.2]\ndims = [64, 64, 8]\n'
                    '[joints]\nwindow = [-0.1, 0.1]\nrate = 100\n'
                    '[shards]\nmax_samples = 4\n')
        expected = dataset.normalise_config(dataset.read_config(CONF))
        if sys.version_info >= (3, 11):
            self.assertEqual(dataset.normalise_config(
                dataset.read_config(toml)), expected)
        else:
            with self.assertRaisesRegex(dataset.ConfigError, "3.11"):
                dataset.read_config(toml)
        self.assertEqual(read_manifest(FIRST)["config"], expected)

    def test_bad_configuration_n(self):
        from robocache import dataset
        cases = [
            ({"grid": {"mode": "sum"}}, "grid.mode = 'sum'; accepted: for "
             "kind voxels: occupancy, count, mean"),
            ({"grid": {"kind": "pillars", "mode": "count"}},
             "accepted: for kind pillars: pillars, voxels"),
            ({"grid": {"dims": [0, 1, 1]}}, "grid.dims.*whole and > 0"),
            ({"grid": {"dims": [1.5, 1, 1]}}, "grid.dims"),
            ({"grid": {"voxel_size": [1, 1]}}, "grid.voxel_size"),
            ({"grid": {"features": "intensity"}}, "list of field names"),
            ({"grid": {"max_voxels": 0}}, "grid.max_voxels"),
            ({"joints": {"rate": 33}}, "joints.rate = 33.*whole number of "
             "steps"),
            ({"joints": {"rate": 100, "samples": 3}}, "one of them"),
            ({"joints": {"window": [0.1, -0.1]}}, "joints.window"),
            # A window that asked for 2e14 samples (a MemoryError of 1.4
            # PiB), one past int64 ns, and samples past the limit.
            ({"joints": {"window": [-1e12, 1e12]}},
             r"joints.window.*\+-1e\+09"),
            ({"joints": {"window": [-1e6, 1e6]}}, "joints.rate = 100.*at "
             "most 1000000 samples"),
            ({"joints": {"samples": 10**9}}, "joints.samples.*1 to 1000000"),
            ({"joints": {"method": "slerp"}}, "joints.method"),
            ({"camera": {"width": 3}}, "camera.width and camera.height"),
            ({"camera": {"width": 3, "height": 2}}, "only with "
             "topics.camera"),
            ({"topics": {"lidar": "points"}}, "topics.lidar.*starting "
             "with /"),
            # A comma would split the recording source's topics list.
            ({"topics": {"joints": "/a,/b"}}, "topics.joints.*letters"),
            # Each dim fits 32 bits, the grid does not.
            ({"grid": {"dims": [100000, 100000, 100]}},
             r"grid.dims.*2\^32"),
            ({"topics": {"lidar": "/a", "joints": "/a"}},
             "topics.joints = '/a'.*no other stream"),
            ({"topic": {}}, "section = 'topic'; accepted: camera, grid, "
             "joints, shards, topics"),
            ({"grid": {"size": 1}}, "grid key = 'size'; accepted:"),
            ({"shards": {"max_bytes": -1}}, "shards.max_bytes"),
            ({"shards": {"compression": "zstd"}}, "shards.compression = "
             "'zstd'; accepted: none, gzip"),
            ({"shards": {"compression": "gzip", "level": 10}},
             "shards.level"),
            ([1], "a table"),
        ]
        for conf, message in cases:
            with self.assertRaisesRegex(dataset.ConfigError, message):
                dataset.normalise_config(conf)
        bad = write_config(os.path.join(TMP, "bad.json"),
                           {"grid": {"mode": "sum"}})
        status, log = cli("-c", bad, "-o", os.path.join(TMP, "x"), REC)
        self.assertEqual(status, 2, log)
        self.assertIn("grid.mode", log)
        status, log = cli("-o", os.path.join(TMP, "x"), "/nonexistent.bag")
        self.assertEqual((status, "no such recording" in log), (2, True),
                         log)
        status, log = cli("-o", os.path.join(TMP, "x"), CONF)
        self.assertEqual((status, "not a recording" in log), (2, True), log)
        status, log = cli("-o", os.path.join(TMP, "x"), "--jobs", 0, REC)
        self.assertEqual((status, "jobs=0" in log), (2, True), log)


if __name__ == "__main__":
    unittest.main(verbosity=2)
