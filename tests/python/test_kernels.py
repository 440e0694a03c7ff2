"""robocache's kernels from Python on NumPy arrays (the CPU path): results
against the NumPy references, argument checks, and memory that stays flat
over many calls.  Fresh random inputs every run (the seed is printed)."""
import math
import os
import sys
import unittest
from fractions import Fraction

import numpy as np

import references as ref
import robocache
from memory import rss_kib, under_sanitizer

SEED = int(os.environ.get("ROBOCACHE_TEST_SEED", np.random.SeedSequence()
                          .entropy % 2**32))
print("seed", SEED, file=sys.stderr)


def rng_for(test):
    return np.random.default_rng([SEED, abs(hash(test.id())) % 2**31])


def expect_errors(test, cases):
    """Each (error, words, call): call() raises error, its text holding
    words (the argument it names, or what is accepted)."""
    for error, words, call in cases:
        with test.subTest(words=words):
            with test.assertRaises(error) as caught:
                call()
            test.assertIn(words, str(caught.exception))


def unaligned(array):
    """The values of `array`, C-contiguous, starting one byte past an
    aligned address (numpy.frombuffer at an odd offset)."""
    raw = np.zeros(array.nbytes + array.itemsize, np.uint8)
    out = np.frombuffer(raw, array.dtype, array.size, 1).reshape(array.shape)
    out[...] = array
    return out


def resample_reference(st, x, tt, method, edge="hold"):
    return np.stack([ref.resample_row(st[b], x[b], tt[b], method, edge)
                     for b in range(x.shape[0])])


class Resample(unittest.TestCase):
    def setUp(self):
        self.rng = rng_for(self)

    def batch(self, B=4, S=300, T=200, D=6, dtype=np.float32):
        st = ref.random_times(self.rng, B, S, start_ns=10**18)
        tt = ref.targets_around(self.rng, st, T)
        x = self.rng.standard_normal((B, S, D)).astype(dtype)
        return st, x, tt

    def test_methods_against_numpy(self):
        for method in ("linear", "nearest", "previous", "cubic"):
            for dtype in (np.float32, np.float64):
                with self.subTest(method=method, dtype=dtype):
                    st, x, tt = self.batch(dtype=dtype)
                    out = robocache.resample(x, st, tt, method)
                    self.assertIsInstance(out, np.ndarray)
                    self.assertEqual(out.dtype, dtype)
                    self.assertEqual(out.shape, (4, 200, 6))
                    tol = 2e-5 if dtype == np.float32 else 1e-9
                    np.testing.assert_allclose(
                        out, resample_reference(st, x, tt, method),
                        rtol=tol, atol=tol)

    def test_linear_is_numpy_interp_in_seconds(self):
        B, S, T = 3, 500, 333
        st = np.sort(self.rng.uniform(0, 20, (B, S)), axis=1)
        tt = self.rng.uniform(-2, 22, (B, T))
        x = self.rng.standard_normal((B, S, 2)).astype(np.float32)
        out = robocache.resample(x, st, tt)
        # Seconds are taken to the nearest nanosecond (llround): between
        # two samples a microsecond apart, as uniform times may be, that
        # alone moves a weight by 1e-3; interpolate at the same times.
        st_ns, tt_ns = np.round(st * 1e9), np.round(tt * 1e9)
        for b in range(B):
            for d in range(2):
                np.testing.assert_allclose(
                    out[b, :, d], np.interp(tt_ns[b], st_ns[b], x[b, :, d]),
                    rtol=1e-5, atol=1e-5)

    def test_equal_times_later_sample_wins(self):
        st, x, tt = self.batch(S=400, dtype=np.float64)
        st = ref.with_repeats(self.rng, st)
        # Every trajectory repeats some time.
        self.assertTrue((np.diff(st, axis=1) == 0).any(axis=1).all())
        for method in ("linear", "nearest", "previous", "cubic"):
            with self.subTest(method=method):
                np.testing.assert_allclose(
                    robocache.resample(x, st, tt, method),
                    ref.resample_last_wins(st, x, tt, method),
                    rtol=1e-9, atol=1e-9)

    def test_one_trajectory(self):
        st, x, tt = self.batch(B=1)
        out = robocache.resample(x[0], st[0], tt[0], "cubic")
        self.assertEqual(out.shape, (200, 6))
        np.testing.assert_allclose(out, resample_reference(
            st, x, tt, "cubic")[0], rtol=2e-5, atol=2e-5)

    def test_edge_nan(self):
        st, x, tt = self.batch()
        out = robocache.resample(x, st, tt, edge="nan")
        np.testing.assert_allclose(out, resample_reference(
            st, x, tt, "linear", "nan"), rtol=2e-5, atol=2e-5)
        self.assertTrue(np.isnan(out).any())

    def test_quaternions_and_angles(self):
        B, S, T = 2, 200, 150
        st = ref.random_times(self.rng, B, S)
        tt = ref.targets_around(self.rng, st, T)
        tt = np.clip(tt, st[:, :1], st[:, -1:])
        q = self.rng.standard_normal((B, S, 4))
        q /= np.linalg.norm(q, axis=2, keepdims=True)
        angle = self.rng.uniform(-math.pi, math.pi, (B, S, 1))
        other = self.rng.standard_normal((B, S, 1))
        x = np.concatenate([other, q, angle], axis=2).astype(np.float32)
        out = robocache.resample(x, st, tt, quaternions=[1], angles=[5])
        for b in range(B):
            np.testing.assert_allclose(
                out[b, :, 0], np.interp(tt[b], st[b], x[b, :, 0]),
                rtol=2e-5, atol=2e-5)
            want = ref.slerp_rows(st[b], x[b, :, 1:5], tt[b])
            got = out[b, :, 1:5]
            # q and -q are one rotation.
            sign = np.sign(np.sum(want * got, axis=1, keepdims=True))
            np.testing.assert_allclose(got * sign, want, atol=5e-5)
            diff = ref.wrap(out[b, :, 5] - ref.angle_rows(
                st[b], x[b, :, 5], tt[b]))
            np.testing.assert_allclose(diff, 0, atol=5e-5)
            self.assertTrue(np.all(out[b, :, 5] >= -math.pi))
            self.assertTrue(np.all(out[b, :, 5] < math.pi))

    def test_bad_arguments(self):
        st, x, tt = self.batch()
        cases = [
            (TypeError, "source_data", lambda: robocache.resample(
                x.astype(np.int32), st, tt)),
            (TypeError, "target_times", lambda: robocache.resample(
                x, st, tt.astype(np.float64))),
            (TypeError, "source_times", lambda: robocache.resample(
                x, st.astype(np.int32), tt.astype(np.int32))),
            (TypeError, "source_data", lambda: robocache.resample(
                x.tolist(), st, tt)),
            (ValueError, "source_times", lambda: robocache.resample(
                x, st[:, :-1], tt)),
            (ValueError, "target_times", lambda: robocache.resample(
                x, st, tt[:2])),
            (ValueError, "(B, S, D)", lambda: robocache.resample(
                x[None], st, tt)),
            (ValueError, "C-contiguous", lambda: robocache.resample(
                x[:, ::2], st[:, ::2], tt)),
            (ValueError, "method", lambda: robocache.resample(
                x, st, tt, "spline")),
            (ValueError, "edge", lambda: robocache.resample(
                x, st, tt, edge="zero")),
            (ValueError, "quaternions", lambda: robocache.resample(
                x, st, tt, quaternions=[3])),
            (ValueError, "quaternions", lambda: robocache.resample(
                x, st, tt, quaternions=[0], angles=[2])),
            (ValueError, "angles", lambda: robocache.resample(
                x, st, tt, angles=[6])),
            (ValueError, "at least one sample", lambda: robocache.resample(
                x[:, :0], st[:, :0], tt)),
            (ValueError, "decrease", lambda: robocache.resample(
                x, st[:, ::-1].copy(), tt)),
            # A step back of more than 2^63 ns, which a difference of
            # int64 times wraps into a step forward.
            (ValueError, "goes back at index 1", lambda: robocache.resample(
                x[:1, :2], np.array([[5, -2**63 + 4]]), tt[:1])),
            # A method or a channel list of the wrong type, also after the
            # same call with the right one was checked (and cached).
            (ValueError, "method=['linear']", lambda: robocache.resample(
                x, st, tt, ["linear"])),
            (TypeError, "angles must be a sequence of channel indices",
             lambda: (robocache.resample(x, st, tt, angles=(1,)),
                      robocache.resample(x, st, tt, angles=(1.0,)))),
            (ValueError, "not finite", lambda: robocache.resample(
                x, np.full(st.shape, np.nan), tt.astype(np.float64))),
            # The other byte order: numpy's dtype name leaves it out.
            (TypeError, "source_data must be", lambda: robocache.resample(
                x.astype(">f4"), st, tt)),
            (TypeError, "source_times must be", lambda: robocache.resample(
                x, st.astype(">i8"), tt.astype(">i8"))),
            (TypeError, "target_times must", lambda: robocache.resample(
                x, st, tt.astype(">i8"))),
            # A bool is not a channel (True was channel 1).
            (TypeError, "angles must be a sequence of channel indices",
             lambda: robocache.resample(x, st, tt, angles=[True])),
            # Data at an odd byte offset: the kernels load whole elements.
            (ValueError, "source_data is not aligned",
             lambda: robocache.resample(unaligned(x), st, tt)),
            (ValueError, "target_times is not aligned",
             lambda: robocache.resample(x, st, unaligned(tt))),
        ]
        expect_errors(self, cases)

    def test_seconds_to_the_nearest_nanosecond(self):
        """float64 seconds become the nanosecond nearest the value given,
        not the one nearest its rounded product with 1e9, which for Unix
        times is up to 512 ns off: two samples 238 ns apart stayed apart
        (the product made them equal, and the later sample replaced the
        earlier)."""
        s1 = 1654059575.0000017
        s2 = np.nextafter(s1, 2e9)
        got = robocache.resample(np.array([[[0.0], [1.0]]]),
                                 np.array([[s1, s2]]), np.array([[s1, s2]]),
                                 "previous")
        np.testing.assert_array_equal(got.ravel(), [0.0, 1.0])
        # Fresh Unix times, and ties (k / 1024 s is k * 976562.5 ns),
        # against exact rounding (half away from zero) by Fraction: the
        # same outputs as from those int64 nanoseconds.
        B, S = 2, 400
        base = self.rng.uniform(1.5e9, 2.2e9, (B, 1))
        st = np.sort(base + self.rng.uniform(0, 1e-3, (B, S)), axis=1)
        st[:, ::7] = np.floor(st[:, ::7] * 1024) / 1024
        st = np.sort(st, axis=1)
        tt = np.sort(base + self.rng.uniform(-1e-4, 1.1e-3, (B, 300)),
                     axis=1)
        x = self.rng.standard_normal((B, S, 3))

        def exact_ns(seconds):
            out = []
            for v in seconds.ravel():
                f = Fraction(float(v)) * 10**9
                n = math.floor(abs(f) + Fraction(1, 2))
                out.append(n if f >= 0 else -n)
            return np.array(out, np.int64).reshape(seconds.shape)

        for method in ("linear", "previous"):
            with self.subTest(method=method):
                np.testing.assert_array_equal(
                    robocache.resample(x, st, tt, method),
                    robocache.resample(x, exact_ns(st), exact_ns(tt),
                                       method))

    def test_results_are_writable(self):
        """NumPy out is an ordinary array: writable, and its memory kept
        while it (or a view of it) lives."""
        st, x, tt = self.batch()
        out = robocache.resample(x, st, tt)
        self.assertTrue(out.flags.writeable)
        want = out.copy()
        row = out[1]
        del out
        row += 1
        np.testing.assert_array_equal(row, want[1] + 1)

    def test_error_detail_is_the_failures_own(self):
        """A failure's text carries no detail left by an earlier one."""
        st, x, tt = self.batch()
        with self.assertRaises(ValueError):
            robocache.resample(x, np.full(st.shape, np.nan),
                               tt.astype(np.float64))
        self.assertNotEqual(robocache._lib.kernels.rc_error_detail(), b"")
        robocache.resample(x, st, tt)
        self.assertEqual(robocache._lib.kernels.rc_error_detail(), b"")

    def test_times_across_half_the_int64_range(self):
        """Sorted times more than 2^63 ns apart are sorted (their
        difference wraps in int64)."""
        x = np.array([[[0.0], [1.0]]], np.float32)
        out = robocache.resample(x, np.array([[-2**62, 2**62]]),
                                 np.array([[-2**62, 0, 2**62]]))
        np.testing.assert_array_equal(out.reshape(-1), [0.0, 0.5, 1.0])

    def test_empty_targets(self):
        st, x, tt = self.batch()
        self.assertEqual(robocache.resample(x, st, tt[:, :0]).shape,
                         (4, 0, 6))


class Voxelize(unittest.TestCase):
    def setUp(self):
        self.rng = rng_for(self)
        n = 20000
        pts = self.rng.uniform(-12, 12, (n, 4)).astype(np.float32)
        pts[self.rng.random(n) < 0.01, 1] = np.nan
        pts[self.rng.random(n) < 0.01, 2] = np.inf
        self.points = pts
        self.grid = dict(voxel_size=(0.5, 0.4, 0.8), origin=(-10, -8, -6),
                         dims=(40, 36, 14))

    def test_modes_against_numpy(self):
        for mode in ("count", "occupancy", "mean"):
            with self.subTest(mode=mode):
                features = (3, 0) if mode == "mean" else None
                out = robocache.voxelize(self.points, mode=mode,
                                         features=features, **self.grid)
                want = ref.voxelize(self.points, mode=mode,
                                    features=features or (0, 1, 2),
                                    **self.grid)
                self.assertEqual(out.shape, want.shape)
                if mode == "mean":
                    self.assertEqual(out.dtype, np.float32)
                    np.testing.assert_allclose(out, want, rtol=1e-5,
                                               atol=1e-5)
                else:
                    self.assertEqual(out.dtype, want.dtype)
                    np.testing.assert_array_equal(out, want)
        self.assertGreater(int(out.any(axis=0).sum()), 100)

    def test_scalar_voxel_size(self):
        want = ref.voxelize(self.points, (0.5,) * 3, (-10, -8, -6),
                            (40, 40, 20), "count")
        # A Python number, NumPy scalars and a 0-d array alike.
        for size in (0.5, np.float32(0.5), np.float64(0.5), np.array(0.5)):
            with self.subTest(size=type(size).__name__):
                out = robocache.voxelize(self.points, size, (-10, -8, -6),
                                         np.array([40, 40, 20]))
                np.testing.assert_array_equal(out, want)
        self.assertTrue(out.flags.writeable)
        out[out > 1] = 1
        self.assertEqual(int(out.max()), 1)

    def test_centroids(self):
        out = robocache.centroids(self.points, features=(0, 1, 2, 3),
                                  **self.grid)
        want = ref.voxelize(self.points, mode="centroids",
                            features=(0, 1, 2, 3), **self.grid)
        self.assertEqual(out.shape, want.shape)
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)

    def test_bad_arguments(self):
        p = self.points
        g = self.grid
        big = self.rng.uniform(-3, 3, (500, 4)).astype(np.float32)
        cases = [
            (TypeError, "points", lambda: robocache.voxelize(
                p.astype(np.float64), **g)),
            (ValueError, "first 3 columns", lambda: robocache.voxelize(
                p[:, :2].copy(), **g)),
            (ValueError, "(N, F)", lambda: robocache.voxelize(p[0], **g)),
            (ValueError, "voxel_size", lambda: robocache.voxelize(
                p, 0, g["origin"], g["dims"])),
            (ValueError, "voxel_size", lambda: robocache.voxelize(
                p, (1, 1), g["origin"], g["dims"])),
            (ValueError, "origin", lambda: robocache.voxelize(
                p, 1, (0, np.nan, 0), g["dims"])),
            (TypeError, "dims", lambda: robocache.voxelize(
                p, 1, (0, 0, 0), (1.5, 2, 2))),
            # Voxel counts are integers, as NumPy's shapes: a whole float
            # is refused too, saying so (it read "a number or three").
            (TypeError, "dims must be an integer or three (x, y, z); got "
             "(8.0, 8, 8)", lambda: robocache.voxelize(
                 p, 1, (0, 0, 0), (8.0, 8, 8))),
            (TypeError, "dims must be an integer", lambda: robocache.centroids(
                p, 1, (0, 0, 0), np.float64(8))),
            (ValueError, "dims", lambda: robocache.voxelize(
                p, 1, (0, 0, 0), (0, 2, 2))),
            (ValueError, "2^32", lambda: robocache.voxelize(
                p, 1, (0, 0, 0), (4096, 4096, 4096))),
            # One dim past 32 bits must not wrap to a small grid.
            (ValueError, "2^32", lambda: robocache.voxelize(
                p, 1, (0, 0, 0), (2**32 + 2, 1, 1))),
            (ValueError, "2^32", lambda: robocache.centroids(
                p, 1, (0, 0, 0), (2**32 + 1, 1, 1))),
            (TypeError, "points must be", lambda: robocache.voxelize(
                p.astype(">f4"), **g)),
            (TypeError, "max_voxels", lambda: robocache.voxelize(
                p, mode="pillars", max_voxels=10.0, **g)),
            (TypeError, "max_voxels", lambda: robocache.voxelize(
                p, mode="pillars", max_voxels=True, **g)),
            (ValueError, "mode", lambda: robocache.voxelize(
                p, mode="max", **g)),
            # The refusal lists every mode, the sparse ones too.
            (ValueError, "mean, pillars, voxels", lambda: robocache.voxelize(
                p, mode="max", **g)),
            (ValueError, "features", lambda: robocache.voxelize(
                p, mode="mean", features=(4,), **g)),
            (ValueError, "features", lambda: robocache.voxelize(
                p, mode="mean", features=(), **g)),
            # Strings, bytes and bools are not sizes ("111" was (1, 1, 1)),
            # nor among sizes, nor NumPy's bools.
            (TypeError, "voxel_size must be a number or three",
             lambda: robocache.voxelize(p, "111", (0, 0, 0), (4, 4, 4))),
            (TypeError, "voxel_size must be a number or three",
             lambda: robocache.voxelize(p, ("0.5",) * 3, 0, 4)),
            (TypeError, "origin must be a number or three",
             lambda: robocache.voxelize(p, 1, (b"0",) * 3, 4)),
            (TypeError, "dims must be an integer or three",
             lambda: robocache.voxelize(p, 1, 0, (4, True, 4))),
            (TypeError, "voxel_size must be a number or three",
             lambda: robocache.voxelize(p, np.bool_(True), 0, 4)),
            (TypeError, "dims must be an integer or three",
             lambda: robocache.voxelize(p, 1, 0, np.array([True] * 3))),
            (TypeError, "origin must be a number or three",
             lambda: robocache.centroids(p, 1, np.bool_(False), 4)),
            (ValueError, "points is not aligned",
             lambda: robocache.voxelize(unaligned(p), **g)),
            (TypeError, "dims must be an integer or three",
             lambda: robocache.voxelize(p, 1, (0, 0, 0), b"\x04\x04\x04")),
            (TypeError, "dims must be an integer or three",
             lambda: robocache.voxelize(p, 1, (0, 0, 0), True)),
            # A mask robocache would not read: refused, not ignored.
            (TypeError, "masked array", lambda: robocache.voxelize(
                np.ma.masked_less(p, 0), **g)),
            (TypeError, "paper_features must be True or False",
             lambda: robocache.voxelize(p, mode="pillars",
                                        paper_features="no", **g)),
            # 1 == True, but not a flag.
            (TypeError, "paper_features must be True or False",
             lambda: robocache.voxelize(p, mode="pillars",
                                        paper_features=1, **g)),
            (ValueError, "paper_features is for mode \"pillars\"",
             lambda: robocache.voxelize(p, mode="voxels",
                                        paper_features=True, **g)),
            # A cloud as (F, N): 4 points of 500 columns it would be.
            (ValueError, "wants .T.copy()", lambda: robocache.voxelize(
                np.ascontiguousarray(big.T), **g)),
            (ValueError, "wants .T.copy()", lambda: robocache.voxelize(
                np.ascontiguousarray(big.T), mode="pillars", **g)),
            (ValueError, "wants .T.copy()", lambda: robocache.centroids(
                np.ascontiguousarray(big.T), **g)),
        ]
        expect_errors(self, cases)

    def test_no_points(self):
        out = robocache.voxelize(self.points[:0], **self.grid)
        self.assertEqual(int(out.sum()), 0)
        self.assertEqual(robocache.centroids(self.points[:0],
                                             **self.grid).shape, (0, 3))


class Fuse(unittest.TestCase):
    def setUp(self):
        self.rng = rng_for(self)

    def test_against_numpy(self):
        E, T = 3, 120
        joints_t = ref.random_times(self.rng, E, 900)
        imu_t = ref.random_times(self.rng, E, 400) + 3_000_000
        joints = self.rng.standard_normal((E, 900, 7)).astype(np.float32)
        imu = self.rng.standard_normal((E, 400, 3)).astype(np.float32)
        ticks = ref.targets_around(self.rng, joints_t, T)
        out = robocache.fuse([(joints_t, joints),
                              (imu_t, imu, "previous")], ticks)
        self.assertEqual(out.shape, (E, T, 10))
        self.assertEqual(out.dtype, np.float32)
        for e in range(E):
            np.testing.assert_allclose(out[e, :, :7], ref.resample_row(
                joints_t[e], joints[e], ticks[e], "linear"), rtol=2e-5,
                atol=2e-5)
            np.testing.assert_allclose(out[e, :, 7:], ref.resample_row(
                imu_t[e], imu[e], ticks[e], "previous"), rtol=0, atol=0)

    def test_equal_times_later_sample_wins(self):
        E, T = 2, 150
        joints_t = ref.with_repeats(self.rng, ref.random_times(self.rng, E,
                                                               500))
        joints = self.rng.standard_normal((E, 500, 4)).astype(np.float32)
        ticks = ref.targets_around(self.rng, joints_t, T)
        for method in ("linear", "nearest", "previous"):
            with self.subTest(method=method):
                np.testing.assert_allclose(
                    robocache.fuse([(joints_t, joints, method)], ticks),
                    ref.resample_last_wins(joints_t, joints, ticks, method),
                    rtol=2e-5, atol=2e-5)

    def test_bad_arguments(self):
        t = ref.random_times(self.rng, 2, 50)
        v = self.rng.standard_normal((2, 50, 3)).astype(np.float32)
        cases = [
            (ValueError, "streams", lambda: robocache.fuse([], t)),
            (TypeError, "streams[0]", lambda: robocache.fuse([v], t)),
            (ValueError, "streams[0] method", lambda: robocache.fuse(
                [(t, v, "cubic")], t)),
            (TypeError, "streams[0] values", lambda: robocache.fuse(
                [(t, v.astype(np.float64))], t)),
            (ValueError, "streams[0]", lambda: robocache.fuse(
                [(t[:1], v)], t)),
            (TypeError, "streams[0] times", lambda: robocache.fuse(
                [(t.astype(np.float64), v)], t)),
            (ValueError, "decrease", lambda: robocache.fuse(
                [(t[:, ::-1].copy(), v)], t)),
            (TypeError, "streams[0] values", lambda: robocache.fuse(
                [(t, v.astype(">f4"))], t)),
            (TypeError, "streams must be a sequence", lambda: robocache.fuse(
                5, t)),
            (ValueError, "streams[0] values is not aligned",
             lambda: robocache.fuse([(t, unaligned(v))], t)),
        ]
        expect_errors(self, cases)


try:
    import torch
except ImportError:
    torch = None


@unittest.skipIf(torch is None, "torch is not installed")
class TorchOnCpu(unittest.TestCase):
    """torch CPU tensors in, torch tensors out over robocache's memory."""

    def setUp(self):
        self.rng = rng_for(self)

    def test_kinds_and_dtypes(self):
        st = ref.random_times(self.rng, 3, 100)
        tt = ref.targets_around(self.rng, st, 40)
        x = self.rng.standard_normal((3, 100, 5)).astype(np.float32)
        out = robocache.resample(torch.from_numpy(x), torch.from_numpy(st),
                                 torch.from_numpy(tt))
        self.assertIsInstance(out, torch.Tensor)
        np.testing.assert_allclose(out.numpy(), robocache.resample(
            x, st, tt), rtol=0, atol=0)
        half = robocache.resample(torch.from_numpy(x).to(torch.bfloat16),
                                  torch.from_numpy(st), torch.from_numpy(tt))
        self.assertEqual(half.dtype, torch.bfloat16)
        np.testing.assert_allclose(half.float().numpy(), out.numpy(),
                                   rtol=2e-2, atol=2e-2)
        pts = self.rng.uniform(-3, 3, (2000, 3)).astype(np.float32)
        grid = robocache.voxelize(torch.from_numpy(pts), 0.5, (-3, -3, -3),
                                  (12, 12, 12))
        self.assertEqual(grid.dtype, torch.int32)
        np.testing.assert_array_equal(grid.numpy(), ref.voxelize(
            pts, (0.5,) * 3, (-3, -3, -3), (12, 12, 12), "count"))

    def test_negative_bit_view_read_negated(self):
        """z.conj().imag is a view of -z.imag's memory with the negative
        bit set: read as torch reads it, negated."""
        st = ref.random_times(self.rng, 2, 90)
        tt = ref.targets_around(self.rng, st, 30)
        x = self.rng.standard_normal((2, 90, 4)).astype(np.float32)
        z = torch.complex(torch.zeros(x.shape), torch.from_numpy(-x))
        self.assertTrue(z.conj().imag.is_neg())
        out = robocache.resample(z.conj().imag, torch.from_numpy(st),
                                 torch.from_numpy(tt))
        np.testing.assert_array_equal(out.numpy(),
                                      robocache.resample(x, st, tt))

    def test_sparse_tensor_refused(self):
        """A sparse tensor has no memory of its values to read: refused
        naming the argument (was torch's own RuntimeError)."""
        pts = torch.from_numpy(
            self.rng.uniform(-3, 3, (50, 3)).astype(np.float32))
        with self.assertRaisesRegex(TypeError, "points is a sparse_coo "
                                    "tensor; accepted: a dense"):
            robocache.voxelize(pts.to_sparse(), 0.5, (-3, -3, -3),
                               (12, 12, 12))


class Memory(unittest.TestCase):
    @under_sanitizer
    def test_flat_over_ten_thousand_calls(self):
        rng = rng_for(self)
        st = ref.random_times(rng, 2, 64)
        tt = ref.targets_around(rng, st, 32)
        x = rng.standard_normal((2, 64, 3)).astype(np.float32)
        pts = rng.uniform(-2, 2, (256, 4)).astype(np.float32)

        def calls(n):
            for _ in range(n):
                robocache.resample(x, st, tt)
                robocache.voxelize(pts, 0.5, (-2, -2, -2), (8, 8, 8))
                robocache.centroids(pts, 0.5, (-2, -2, -2), (8, 8, 8))
        calls(1000)
        before = rss_kib()
        calls(10000)
        grown = rss_kib() - before
        print("RSS grew %d KiB over 10,000 calls of each" % grown,
              file=sys.stderr)
        self.assertLess(grown, 2048)

    @under_sanitizer
    def test_unconsumed_capsule_freed(self):
        """DLPack: a result's capsule taken and never consumed frees its
        array when it dies (its destructor; 1 MiB a call leaked before)."""
        pts = rng_for(self).uniform(-10, 10, (1000, 4)).astype(np.float32)

        class Producer:     # a DLPack producer robocache does not know
            def __dlpack__(self, stream=None):
                return pts.__dlpack__()

            def __dlpack_device__(self):
                return pts.__dlpack_device__()

        def calls(n):
            for _ in range(n):
                result = robocache.voxelize(Producer(), 0.5, (-16,) * 3,
                                            (64,) * 3)
                capsule = result.__dlpack__()
                del result, capsule
        calls(20)
        before = rss_kib()
        calls(200)
        grown = rss_kib() - before
        print("RSS grew %d KiB over 200 unconsumed capsules of 1 MiB"
              % grown, file=sys.stderr)
        self.assertLess(grown, 16384)
        # Consumed, the array is the consumer's: the same counts.
        np.testing.assert_array_equal(
            np.from_dlpack(robocache.voxelize(Producer(), 0.5, (-16,) * 3,
                                              (64,) * 3)),
            robocache.voxelize(pts, 0.5, (-16,) * 3, (64,) * 3))

    def test_exported_repr(self):
        """A result handed to a DLPack producer robocache does not know
        says what it holds, and once taken that it was (was: the default
        object repr)."""
        pts = rng_for(self).uniform(-10, 10, (100, 4)).astype(np.float32)

        class Producer:
            def __dlpack__(self, stream=None):
                return pts.__dlpack__()

            def __dlpack_device__(self):
                return pts.__dlpack_device__()

        result = robocache.voxelize(Producer(), 0.5, (-16,) * 3, (8, 4, 2))
        # The grid is (z, y, x), as the element's.
        self.assertEqual(repr(result), "<robocache.Exported uint32 (2, 4, "
                         "8) on cpu: take it with a library's from_dlpack>")
        counts = np.from_dlpack(result)
        self.assertEqual(counts.shape, (2, 4, 8))
        self.assertIn("handed over", repr(result))


if __name__ == "__main__":
    unittest.main(verbosity=2)
