"""robocache.RecordingDataset and pipelines/train_example.py (torch): the
samples of a recording made by robocachemcapsink against the recording's
own messages (grids by robocache.voxelize, joints by numpy.interp, the
nearest camera frame), sharding across DataLoader workers, errors, and
the example's training loop.  Exits 77 (SKIP) without torch."""
import os
import pathlib
import shutil
import sys
import tempfile
import unittest

import numpy as np

try:
    import torch
except ImportError:
    print("SKIP: torch is not installed")
    sys.exit(77)

import robocache

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]
                       / "pipelines"))
import train_example  # noqa: E402

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available()
                     and robocache.cuda_available() else [])


def setUpModule():
    global TMP, FILE, CAMERA
    TMP = tempfile.mkdtemp()
    FILE = os.path.join(TMP, "a.mcap")
    CAMERA = train_example.make_recording(FILE)


def tearDownModule():
    shutil.rmtree(TMP)


def messages(topic):
    """[(pts, array)] of one topic, straight from the recording."""
    with robocache.Pipeline("robocachemcapsrc location=%s topics=%s"
                            % (FILE, topic), device="cpu") as p:
        return [(s.pts, np.array(s.array)) for s in p]


class Dataset(unittest.TestCase):
    def assert_samples(self, items, device):
        """`items` are the recording's sweeps, with the joints and the
        camera frame the recording holds around each."""
        clouds = messages("/velodyne_points")
        joints = messages("/joint_states")
        jt = np.array([t for t, _ in joints], np.float64)
        jv = np.stack([v[0] for _, v in joints])
        frames = messages(CAMERA) if CAMERA else []
        self.assertEqual(len(items), len(clouds), device)
        for item, (t, cloud) in zip(items, clouds):
            self.assertEqual(item["time"], t)
            self.assertEqual(item["voxels"].device.type, device)
            grid = robocache.voxelize(cloud, mode="count",
                                      **train_example.GRID)
            np.testing.assert_array_equal(
                item["voxels"].cpu().numpy(), grid.astype(np.float32))
            times = item["joint_times"].numpy()
            self.assertEqual(len(times), 21)
            self.assertEqual(times[10], t)
            expected = np.stack([np.interp(times, jt, jv[:, c])
                                 for c in range(jv.shape[1])], 1)
            np.testing.assert_allclose(item["joints"].cpu().numpy(),
                                       expected, rtol=1e-5, atol=1e-5)
            # Valid between the first and last joint state (np.interp
            # holds the ends too), on the dataset's device.
            valid = item["joints_valid"]
            self.assertEqual((valid.dtype, valid.device.type),
                             (torch.bool, device))
            np.testing.assert_array_equal(
                valid.cpu().numpy(), (times >= jt[0]) & (times <= jt[-1]))
            if CAMERA:
                best = min(frames, key=lambda f: abs(f[0] - t))
                self.assertEqual(item["image_time"], best[0])
                np.testing.assert_array_equal(
                    item["image"].cpu().numpy(), best[1])

    def test_samples_match_the_recording(self):
        for device in DEVICES:
            data = robocache.RecordingDataset(
                FILE, camera_topic=CAMERA, device=device, **train_example.GRID)
            self.assert_samples(list(data), device)

    def test_samples_kept_while_the_loop_lags(self):
        if "cuda" not in DEVICES:
            self.skipTest("needs CUDA (torch and robocache)")
        data = robocache.RecordingDataset(
            FILE, camera_topic=CAMERA, device="cuda", **train_example.GRID)
        items = []
        for item in data:
            # A training step whose GPU work lags far behind the loop:
            # the pipeline's pools get each buffer back meanwhile.
            torch.cuda._sleep(20 * 1000 * 1000)
            items.append(item)
        torch.cuda.synchronize()
        self.assert_samples(items, "cuda")

    def test_stopped_early(self):
        """A loop that stops after three samples (the next one is being
        made ahead with CUDA): the pipeline closes, and a new pass gives
        the same first samples."""
        for device in DEVICES:
            data = robocache.RecordingDataset(
                FILE, camera_topic=CAMERA, device=device, **train_example.GRID)
            it = iter(data)
            first = [next(it) for _ in range(3)]
            it.close()
            again = list(data)
            self.assertGreater(len(again), 3)
            for a, b in zip(first, again):
                self.assertEqual(a["time"], b["time"])
                for key in ("voxels", "joints", "image"):
                    if key in a:
                        self.assertTrue(torch.equal(a[key], b[key]), key)

    def test_sharded_by_file_across_workers(self):
        second = os.path.join(TMP, "b.mcap")
        shutil.copy(FILE, second)
        data = robocache.RecordingDataset([FILE, second], device="cpu",
                                          **train_example.GRID)
        loader = torch.utils.data.DataLoader(
            data, batch_size=None, num_workers=2,
            multiprocessing_context="spawn")
        files = [item["file"] for item in loader]
        n = len(files) // 2
        self.assertEqual(sorted(files), [0] * n + [1] * n)

    def test_fork_workers_after_the_parent_read(self):
        """DataLoader workers forked (Linux's default) after the parent
        read the dataset once, as a first look at the data does: they hung
        for ever, their pipelines' threads, GStreamer's and the MCAP
        reader's, never started (GLib's thread pools do not survive fork:
        the idle threads they count are not in the child)."""
        second = os.path.join(TMP, "fork.mcap")
        shutil.copy(FILE, second)
        data = robocache.RecordingDataset([FILE, second], device="cpu",
                                          **train_example.GRID)
        first = [(item["file"], item["time"]) for item in data]
        loader = torch.utils.data.DataLoader(
            data, batch_size=None, num_workers=2, timeout=120,
            multiprocessing_context="fork")
        self.assertEqual(sorted((item["file"], item["time"])
                                for item in loader), sorted(first))
        os.remove(second)

    def test_folder_of_mcap_files(self):
        """A folder of .mcap files without a metadata.yaml is a folder of
        recordings, each its own file (it was read as one recording, the
        files' messages merged); with one, a rosbag2 recording."""
        folder = os.path.join(TMP, "runs")
        os.makedirs(folder)
        for name in ("run1.mcap", "run2.mcap"):
            shutil.copy(FILE, os.path.join(folder, name))
        data = robocache.RecordingDataset(folder, device="cpu",
                                          **train_example.GRID)
        self.assertEqual([os.path.basename(f) for f in data.files],
                         ["run1.mcap", "run2.mcap"])
        items = list(data)
        n = len(messages("/velodyne_points"))
        self.assertEqual([item["file"] for item in items], [0] * n + [1] * n)
        times = [item["time"] for item in items[:n]]
        self.assertEqual(times, sorted(set(times)))
        with open(os.path.join(folder, "metadata.yaml"), "w") as f:
            f.write("rosbag2_bagfile_information:\n")
        data = robocache.RecordingDataset(folder, device="cpu",
                                          **train_example.GRID)
        self.assertEqual(data.files, [folder])
        shutil.rmtree(folder)

    def test_missing_topic_n(self):
        data = robocache.RecordingDataset(FILE, lidar_topic="/nope",
                                          device="cpu")
        with self.assertRaisesRegex(robocache.RobocacheError,
                                    "src.*/nope"):
            list(data)

    def test_wrong_topic_type_n(self):
        """A lidar topic of images: the error says which stream takes
        which type (GStreamer says only not-negotiated)."""
        data = robocache.RecordingDataset(FILE, lidar_topic=CAMERA,
                                          device="cpu")
        with self.assertRaisesRegex(robocache.RobocacheError,
                                    "not-negotiated.*lidar_topic "
                                    "PointCloud2"):
            list(data)
        # A joint topic of images: the aligner's error, its caps once, and
        # the same hint (was: no hint, the caps twice).
        data = robocache.RecordingDataset(FILE, joint_topic=CAMERA,
                                          device="cpu")
        with self.assertRaises(robocache.RobocacheError) as caught:
            list(data)
        text = str(caught.exception)
        self.assertRegex(text, "vectors stream.*joint_topic JointState")
        self.assertEqual(text.count("video/x-raw"), 1, text)

    def test_bad_arguments_n(self):
        with self.assertRaises(FileNotFoundError):
            robocache.RecordingDataset("/nonexistent.bag")
        with self.assertRaisesRegex(ValueError, "accepted"):
            robocache.RecordingDataset(__file__)
        with self.assertRaisesRegex(ValueError, "voxel_size"):
            robocache.RecordingDataset(FILE, voxel_size=-1)
        with self.assertRaisesRegex(ValueError, "joint_method.*accepted"):
            robocache.RecordingDataset(FILE, joint_method="spline")
        # Topics the recording's pipeline cannot take, said when made (a
        # camera topic that is the joints' was "listed twice in topics").
        for kw, accepted in ((dict(camera_topic="/joint_states"),
                              "no other stream"),
                             (dict(lidar_topic="velodyne_points"),
                              "starting with /"),
                             (dict(joint_topic="/a,/b"), "starting with /")):
            with self.subTest(**kw):
                with self.assertRaisesRegex(ValueError, "%s=.*accepted: .*%s"
                                            % (next(iter(kw)), accepted)):
                    robocache.RecordingDataset(FILE, device="cpu", **kw)
        # Names torch does not know are ours to refuse (was torch's
        # RuntimeError listing its own device types).
        for device in ("gpu", "meta", 3.5):
            with self.subTest(device=device):
                with self.assertRaisesRegex(ValueError, "device=.*accepted: "
                                            "cpu, cuda, cuda:N"):
                    robocache.RecordingDataset(FILE, device=device)
        # A device that cannot be used: said when made, not by torch's
        # AssertionError at the first sample.
        with self.assertRaisesRegex(robocache.RobocacheError,
                                    "device='cuda:99', but (torch has no "
                                    "usable CUDA|no CUDA device|torch sees)"):
            robocache.RecordingDataset(FILE, device="cuda:99")
        if "cuda" not in DEVICES:
            with self.assertRaisesRegex(robocache.RobocacheError,
                                        "device='cuda', but"):
                robocache.RecordingDataset(FILE, device="cuda")
        # Refused when made, not when iterated (a string patience grew
        # memory, a window past int64 ns gave every joint NaN), and not
        # silently cut (2.7 samples, 64.9 voxels).
        for name, value in (("patience", "1"), ("patience", float("inf")),
                            ("joint_max_gap", -1), ("joint_max_gap", "1"),
                            ("joint_window", (-1e12, 1e12)),
                            ("joint_window", (-float("inf"), 0.1)),
                            ("joint_window", (0.1, -0.1)),
                            ("joint_samples", 2.7), ("joint_samples", 0),
                            ("joint_samples", 10**7),
                            ("features", [0]), ("features", ""),
                            ("dims", (64, 0, 8)), ("voxel_size", -1)):
            with self.assertRaisesRegex(ValueError, name + ".*accepted|" +
                                        name + " must be"):
                robocache.RecordingDataset(FILE, **{name: value})
        # Not numbers, or voxel counts not integers: as robocache.voxelize.
        for name, value in (("dims", (64.9, 64, 8)), ("dims", 64.0),
                            ("voxel_size", "111"), ("origin", (0, True, 0))):
            with self.assertRaisesRegex(TypeError, name + " must be"):
                robocache.RecordingDataset(FILE, **{name: value})
        # A string of names is a list of names, not of letters.
        self.assertEqual(robocache.RecordingDataset(
            FILE, features="intensity, ring").features, ["intensity", "ring"])

    def test_train_example(self):
        for device in DEVICES:
            losses = train_example.train([FILE], epochs=3, device=device,
                                         camera=CAMERA, log=lambda m: None)
            self.assertEqual(len(losses), 3)
            self.assertTrue(all(np.isfinite(losses)), losses)


if __name__ == "__main__":
    unittest.main(verbosity=2)
