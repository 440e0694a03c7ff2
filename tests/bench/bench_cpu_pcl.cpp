/* CPU voxelize against PCL's VoxelGrid, on one lidar-like cloud.
 *
 *   bench-cpu-pcl [--json FILE] [--runs N] [--seed S]
 *
 * Builds one sweep of 64 rings x 2048 azimuths (131072 points, about 5%
 * of them NaN dropouts; x, y, z, intensity float32 at a 16-byte stride),
 * then times, each on that same cloud with a 0.2 m leaf: rc_voxelize_cpu in
 * RC_VOXEL_CENTROIDS (PCL's own output: a point per occupied voxel) and
 * RC_VOXEL_MEAN (the same means in dense planes), each of x, y, z and of x,
 * y, z, intensity; COUNT and OCCUPANCY modes; and
 * pcl::VoxelGrid<pcl::PointXYZI> (default: centroid of every field; and
 * setDownsampleAllData (false): x, y, z only).  PCL, count and occupancy
 * run on one thread; the mean and the centroids also use the second core
 * (see voxelize.c).  Warm-up rounds, then N rounds (default 50, at least
 * 30) that run every method once in turn, each timed with
 * std::chrono::steady_clock: median, p10 and p90 per method.
 *
 * Our grid is PCL's: origin floor (min / leaf) * leaf from the cloud's
 * finite extent (computed once, outside the timed region; PCL computes it
 * in every filter () call), dims to cover the maximum.  Output and scratch
 * are allocated once; the kernel clears its dense grid in every call.
 * Before timing, PCL's centroids are checked against ours: the same number
 * of occupied voxels, every centroid equal within 1e-4, and PCL's points in
 * the order of our centroids.  A mismatch exits 1 after the table. */
#include <pcl/filters/voxel_grid.h>
#include <pcl/pcl_config.h>
#include <pcl/point_types.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "robocache-kernels.h"

namespace {

constexpr int kRings = 64;
constexpr int kAzimuths = 2048;
constexpr size_t kPoints = size_t (kRings) * kAzimuths;
constexpr uint32_t kStep = 16;  // x, y, z, intensity: float32
constexpr float kLeaf = 0.2f;
constexpr double kNanFraction = 0.05;
constexpr float kSensorHeight = 1.73f;
constexpr int kWarmup = 5;
constexpr int kMinRuns = 30;
constexpr double kTol = 1e-4;

[[noreturn]] void
die (const std::string &msg)
{
  std::fflush (stdout);
  std::fprintf (stderr, "bench-cpu-pcl: %s\n", msg.c_str ());
  std::exit (1);
}

void
check (rc_status ret, const char *what)
{
  if (ret != RC_OK)
    die (std::string (what) + ": " + rc_status_message (ret));
}

// splitmix64: fixed seed, same cloud everywhere.
struct Rng
{
  uint64_t state;

  uint64_t
  next ()
  {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  double
  unit ()                       // [0, 1)
  {
    return (next () >> 11) * (1.0 / 9007199254740992.0);
  }

  double
  range (double lo, double hi)
  {
    return lo + (hi - lo) * unit ();
  }
};

struct Box
{
  double lo[3], hi[3];
  float intensity;
};

// Entry distance of the ray from the origin along @d into @b, or +inf.
double
ray_box (const double d[3], const Box &b)
{
  double t0 = 0.0, t1 = std::numeric_limits<double>::infinity ();
  for (int a = 0; a < 3; a++) {
    if (d[a] == 0.0) {
      if (0.0 < b.lo[a] || 0.0 > b.hi[a])
        return t1;
      continue;
    }
    double ta = b.lo[a] / d[a], tb = b.hi[a] / d[a];
    t0 = std::max (t0, std::min (ta, tb));
    t1 = std::min (t1, std::max (ta, tb));
  }
  return t0 <= t1 && t0 > 0.0 ? t0
      : std::numeric_limits<double>::infinity ();
}

void
put (std::vector<uint8_t> &cloud, size_t i, const float v[4])
{
  std::memcpy (cloud.data () + i * kStep, v, 4 * sizeof (float));
}

/* A sweep from a sensor at the origin, kSensorHeight above a flat ground,
 * in a street between two walls, with parked cars and a few sheds.
 * HDL-64-like elevations, +2 to -24.8 degrees. */
std::vector<uint8_t>
make_cloud (uint64_t seed, size_t *n_nan)
{
  Rng rng{seed};
  const double wall_lo[2] = {-45.3, -21.9}, wall_hi[2] = {44.7, 23.1};
  const double ground = -kSensorHeight;
  std::vector<Box> boxes;
  std::vector<uint8_t> cloud (kPoints * kStep);

  while (boxes.size () < 24) {
    bool shed = boxes.size () >= 18;
    double lx = shed ? rng.range (5, 9) : rng.range (3.8, 4.8);
    double ly = shed ? rng.range (4, 7) : rng.range (1.7, 2.0);
    double lz = shed ? rng.range (2.5, 3.5) : rng.range (1.4, 1.8);
    double cx = rng.range (wall_lo[0] + lx, wall_hi[0] - lx);
    double cy = rng.range (wall_lo[1] + ly, wall_hi[1] - ly);
    if (std::fabs (cx) < lx / 2 + 3 && std::fabs (cy) < ly / 2 + 3)
      continue;                 // keep the sensor's surroundings clear
    boxes.push_back ({{cx - lx / 2, cy - ly / 2, ground},
        {cx + lx / 2, cy + ly / 2, ground + lz},
        float (shed ? 0.6 : 0.9)});
  }

  *n_nan = 0;
  for (int r = 0; r < kRings; r++) {
    double elev = (2.0 - 26.8 * r / (kRings - 1)) * M_PI / 180.0;
    for (int s = 0; s < kAzimuths; s++) {
      size_t i = size_t (r) * kAzimuths + s;
      double az = (s + rng.range (-0.1, 0.1)) * 2 * M_PI / kAzimuths;
      double d[3] = {std::cos (elev) * std::cos (az),
        std::cos (elev) * std::sin (az), std::sin (elev)};
      double t = std::numeric_limits<double>::infinity ();
      float intensity = 0.5f;

      if (rng.unit () < kNanFraction) {
        const float nan = std::numeric_limits<float>::quiet_NaN ();
        const float v[4] = {nan, nan, nan, 0.0f};
        put (cloud, i, v);
        ++*n_nan;
        continue;
      }
      // The walls (and the street's ends) always catch the ray.
      for (int a = 0; a < 2; a++) {
        if (d[a] != 0.0)
          t = std::min (t, (d[a] > 0 ? wall_hi[a] : wall_lo[a]) / d[a]);
      }
      if (d[2] < 0.0 && ground / d[2] < t) {
        t = ground / d[2];
        intensity = float (rng.range (0.1, 0.3));
      }
      for (const Box &b : boxes) {
        double tb = ray_box (d, b);
        if (tb < t) {
          t = tb;
          intensity = b.intensity;
        }
      }
      t += rng.range (-0.02, 0.02) + rng.range (-0.02, 0.02);
      const float v[4] = {float (t * d[0]), float (t * d[1]),
        float (t * d[2]), intensity + float (rng.range (-0.05, 0.05))};
      put (cloud, i, v);
    }
  }
  return cloud;
}

double
percentile (const std::vector<double> &sorted, double q)
{
  double pos = q * (sorted.size () - 1);
  size_t lo = size_t (pos);
  if (lo + 1 >= sorted.size ())
    return sorted.back ();
  return sorted[lo] + (pos - lo) * (sorted[lo + 1] - sorted[lo]);
}

struct Method
{
  std::string name, detail;
  bool pcl;
  std::function<void ()> fn;
};

struct Result
{
  std::string name, detail;
  bool pcl;
  double median_ms, p10_ms, p90_ms, min_ms;
};

/* Round robin: run i of every method, then run i + 1, so that all see the
 * same background load and none keeps the caches to itself. */
std::vector<Result>
time_all (const std::vector<Method> &methods, int runs)
{
  using clock = std::chrono::steady_clock;
  std::vector<std::vector<double>> ms (methods.size (),
      std::vector<double> (runs));
  std::vector<Result> res;

  for (int i = 0; i < kWarmup; i++) {
    for (const Method &m : methods)
      m.fn ();
  }
  for (int i = 0; i < runs; i++) {
    for (size_t m = 0; m < methods.size (); m++) {
      auto t0 = clock::now ();
      methods[m].fn ();
      auto t1 = clock::now ();
      ms[m][i] = std::chrono::duration<double, std::milli> (t1 - t0).count ();
    }
  }
  for (size_t m = 0; m < methods.size (); m++) {
    std::vector<double> &v = ms[m];
    std::sort (v.begin (), v.end ());
    res.push_back ({methods[m].name, methods[m].detail, methods[m].pcl,
        percentile (v, 0.5), percentile (v, 0.1), percentile (v, 0.9),
        v[0]});
  }
  return res;
}

std::string
cpu_model ()
{
  std::ifstream f ("/proc/cpuinfo");
  std::string line;
  while (std::getline (f, line)) {
    if (line.rfind ("model name", 0) == 0) {
      size_t c = line.find (':');
      return c == std::string::npos ? line : line.substr (c + 2);
    }
  }
  return "unknown";
}

std::string
json_str (const std::string &s)
{
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      o += '\\';
    o += (unsigned char) c < 0x20 ? ' ' : c;
  }
  return o + "\"";
}

[[noreturn]] void
usage (int code)
{
  std::fprintf (code ? stderr : stdout,
      "usage: bench-cpu-pcl [--json FILE] [--runs N (>= %d)] [--seed S]\n",
      kMinRuns);
  std::exit (code);
}

}  // namespace

int
main (int argc, char **argv)
{
  const char *json = nullptr;
  int runs = 50;
  uint64_t seed = 1;

  for (int i = 1; i < argc; i++) {
    if (!std::strcmp (argv[i], "--json") && i + 1 < argc)
      json = argv[++i];
    else if (!std::strcmp (argv[i], "--runs") && i + 1 < argc)
      runs = std::atoi (argv[++i]);
    else if (!std::strcmp (argv[i], "--seed") && i + 1 < argc)
      seed = std::strtoull (argv[++i], nullptr, 10);
    else if (!std::strcmp (argv[i], "--help") || !std::strcmp (argv[i], "-h"))
      usage (0);
    else
      usage (2);
  }
  if (runs < kMinRuns)
    usage (2);

  size_t n_nan;
  const std::vector<uint8_t> cloud = make_cloud (seed, &n_nan);
  auto coord = [&] (size_t i, int a) {
    float v;
    std::memcpy (&v, cloud.data () + i * kStep + 4 * a, sizeof (v));
    return v;
  };

  // The same values for PCL (its PointXYZI is 32 bytes: copied once).
  auto pcl_in = std::make_shared<pcl::PointCloud<pcl::PointXYZI>> ();
  pcl_in->resize (kPoints);
  pcl_in->width = uint32_t (kPoints);
  pcl_in->height = 1;
  pcl_in->is_dense = false;
  for (size_t i = 0; i < kPoints; i++) {
    pcl::PointXYZI &p = (*pcl_in)[i];
    p.x = coord (i, 0);
    p.y = coord (i, 1);
    p.z = coord (i, 2);
    p.intensity = coord (i, 3);
  }

  /* The grid, as PCL bins: voxel floor (p / leaf) - floor (min / leaf),
   * in float with PCL's inverse leaf. */
  float lo[3], hi[3];
  std::fill (lo, lo + 3, std::numeric_limits<float>::max ());
  std::fill (hi, hi + 3, std::numeric_limits<float>::lowest ());
  for (size_t i = 0; i < kPoints; i++) {
    for (int a = 0; a < 3; a++) {
      float v = coord (i, a);
      if (std::isfinite (v)) {
        lo[a] = std::min (lo[a], v);
        hi[a] = std::max (hi[a], v);
      }
    }
  }
  const float inv = 1.0f / kLeaf;
  int min_b[3];
  rc_voxel_grid grid = {};
  for (int a = 0; a < 3; a++) {
    min_b[a] = int (std::floor (lo[a] * inv));
    grid.origin[a] = min_b[a] * double (kLeaf);
    grid.voxel_size[a] = kLeaf;
    grid.dims[a] = uint32_t (int (std::floor (hi[a] * inv)) - min_b[a] + 1);
  }
  const uint64_t n_voxels = rc_voxel_grid_n_voxels (&grid);
  const uint64_t sizes[1] = {kPoints};

  // Points our double-precision binning puts in another voxel than PCL's.
  size_t rebinned = 0;
  for (size_t i = 0; i < kPoints; i++) {
    for (int a = 0; a < 3; a++) {
      float v = coord (i, a);
      if (!std::isfinite (v))
        break;
      int ours = int (std::floor ((v - grid.origin[a]) / grid.voxel_size[a]));
      int theirs = int (std::floor (v * inv) - float (min_b[a]));
      if (ours != theirs) {
        rebinned++;
        break;
      }
    }
  }

  // Layouts: centroid x, y, z; and x, y, z, intensity.
  rc_point_layout xyz = {};
  xyz.point_step = kStep;
  xyz.x = {0, RC_TYPE_FLOAT32};
  xyz.y = {4, RC_TYPE_FLOAT32};
  xyz.z = {8, RC_TYPE_FLOAT32};
  xyz.n_features = 3;
  for (uint32_t f = 0; f < 3; f++)
    xyz.features[f] = {4 * f, RC_TYPE_FLOAT32};
  rc_point_layout xyzi = xyz;
  xyzi.n_features = 4;
  xyzi.features[3] = {12, RC_TYPE_FLOAT32};

  // Preallocated outputs and scratch (floats: aligned for every mode).
  rc_voxel_grid mean = grid, count = grid, occ = grid, cent = grid;
  mean.mode = RC_VOXEL_MEAN;
  cent.mode = RC_VOXEL_CENTROIDS;
  count.mode = RC_VOXEL_COUNT;
  occ.mode = RC_VOXEL_OCCUPANCY;
  std::vector<float> mean_out (rc_voxelize_output_size (&xyz, &mean) / 4);
  std::vector<float> meani_out (rc_voxelize_output_size (&xyzi, &mean) / 4);
  std::vector<uint32_t> scratch (rc_voxelize_scratch_size (&xyz, &mean, 0) / 4);
  std::vector<uint32_t> count_out (rc_voxelize_output_size (&xyz, &count) / 4);
  std::vector<uint32_t> occ_out (
      (rc_voxelize_output_size (&xyz, &occ) + 3) / 4);
  std::vector<float> cent_out (
      rc_voxelize_centroids_size (&xyz, &cent, kPoints) / 4);
  std::vector<float> centi_out (
      rc_voxelize_centroids_size (&xyzi, &cent, kPoints) / 4);
  std::vector<uint32_t> cent_scratch (
      rc_voxelize_scratch_size (&xyzi, &cent, kPoints) / 4);
  rc_voxelize_stats st_mean, st_meani, st_count, st_occ, st_cent, st_centi;

  auto run_mean = [&] {
    check (rc_voxelize_cpu (&xyz, &mean, cloud.data (), sizes, 1,
            mean_out.data (), scratch.data (), &st_mean), "mean xyz");
  };
  auto run_meani = [&] {
    check (rc_voxelize_cpu (&xyzi, &mean, cloud.data (), sizes, 1,
            meani_out.data (), scratch.data (), &st_meani), "mean xyzi");
  };
  auto run_cent = [&] {
    check (rc_voxelize_cpu (&xyz, &cent, cloud.data (), sizes, 1,
            cent_out.data (), cent_scratch.data (), &st_cent),
        "centroids xyz");
  };
  auto run_centi = [&] {
    check (rc_voxelize_cpu (&xyzi, &cent, cloud.data (), sizes, 1,
            centi_out.data (), cent_scratch.data (), &st_centi),
        "centroids xyzi");
  };
  auto run_count = [&] {
    check (rc_voxelize_cpu (&xyz, &count, cloud.data (), sizes, 1,
            count_out.data (), nullptr, &st_count), "count");
  };
  auto run_occ = [&] {
    check (rc_voxelize_cpu (&xyz, &occ, cloud.data (), sizes, 1,
            occ_out.data (), nullptr, &st_occ), "occupancy");
  };

  auto run_floor = [&] {
    std::memset (mean_out.data (), 0, mean_out.size () * sizeof (float));
  };

  pcl::VoxelGrid<pcl::PointXYZI> vg_all, vg_xyz;
  pcl::PointCloud<pcl::PointXYZI> pcl_all, pcl_xyz;
  for (auto *vg : {&vg_all, &vg_xyz}) {
    vg->setLeafSize (kLeaf, kLeaf, kLeaf);
    vg->setInputCloud (pcl_in);
  }
  vg_xyz.setDownsampleAllData (false);
  pcl_all.reserve (kPoints);
  pcl_xyz.reserve (kPoints);
  auto run_pcl_all = [&] { vg_all.filter (pcl_all); };
  auto run_pcl_xyz = [&] { vg_xyz.filter (pcl_xyz); };

  // Check once, before timing.
  run_mean ();
  run_meani ();
  run_cent ();
  run_centi ();
  run_count ();
  run_occ ();
  run_pcl_all ();
  run_pcl_xyz ();
  std::vector<std::string> errors;
  auto expect = [&] (bool ok, const std::string &what) {
    if (!ok)
      errors.push_back (what);
  };
  expect (st_mean.invalid == n_nan && st_mean.out_of_range == 0,
      "finite points outside the grid or NaN count off");
  expect (st_count.occupied == st_mean.occupied &&
      st_occ.occupied == st_mean.occupied &&
      st_meani.occupied == st_mean.occupied &&
      st_cent.occupied == st_mean.occupied &&
      st_centi.occupied == st_mean.occupied, "modes disagree on occupied");
  expect (pcl_all.size () == st_mean.occupied &&
      pcl_xyz.size () == st_mean.occupied,
      "occupied voxels: robocache " + std::to_string (st_mean.occupied) +
      ", PCL " + std::to_string (pcl_all.size ()));

  // Every PCL centroid against ours, in the voxel it falls in.
  double max_diff = 0.0;
  size_t bad = 0, checked = 0;
  for (const auto *out : {&pcl_all, &pcl_xyz}) {
    const bool all = out == &pcl_all;
    const std::vector<float> &ours = all ? meani_out : mean_out;
    for (const pcl::PointXYZI &p : *out) {
      const float v[4] = {p.x, p.y, p.z, p.intensity};
      uint64_t idx = 0;
      bool found = true;
      for (int a = 2; a >= 0 && found; a--) {
        double f = std::floor ((v[a] - grid.origin[a]) / grid.voxel_size[a]);
        found = f >= 0 && f < grid.dims[a];
        idx = idx * grid.dims[a] + uint64_t (found ? f : 0);
      }
      if (!found || count_out[idx] == 0) {
        bad++;
        continue;
      }
      for (int f = 0; f < (all ? 4 : 3); f++) {
        double d = std::fabs (double (ours[f * n_voxels + idx]) - v[f]);
        max_diff = std::max (max_diff, d);
        bad += d > kTol;
      }
      checked++;
    }
  }
  expect (bad == 0, std::to_string (bad) + " centroid values off by > 1e-4"
      " (or in no occupied voxel of ours)");

  // Our centroids are PCL's output, point for point in PCL's order.
  size_t misplaced = 0;
  for (const auto *out : {&pcl_all, &pcl_xyz}) {
    const bool all = out == &pcl_all;
    const std::vector<float> &ours = all ? centi_out : cent_out;
    const size_t n_f = all ? 4 : 3;
    for (size_t i = 0; i < out->size () && i < st_mean.occupied; i++) {
      const pcl::PointXYZI &p = (*out)[i];
      const float v[4] = {p.x, p.y, p.z, p.intensity};
      for (size_t f = 0; f < n_f; f++) {
        double d = std::fabs (double (ours[i * n_f + f]) - v[f]);
        max_diff = std::max (max_diff, d);
        misplaced += d > kTol;
      }
    }
  }
  expect (misplaced == 0, std::to_string (misplaced) + " centroid values "
      "differ from PCL's point at the same position");

  std::printf ("cpu: %s (%u threads; PCL, count and occupancy run on one, "
      "the mean and the centroids on two)\n"
      "PCL %s, VoxelGrid<PointXYZI>\n"
      "cloud: %zu points (%d rings x %d azimuths, seed %llu), %zu NaN, "
      "16-byte stride\n"
      "grid: leaf %.2f m, origin (%.2f, %.2f, %.2f), dims %u x %u x %u = "
      "%llu voxels (mean xyz: %.1f MB out + %.1f MB scratch)\n"
      "check: occupied robocache %llu, PCL %zu; %zu PCL centroids checked, "
      "max |diff| %.2e; %zu points binned differently (float vs double)\n"
      "runs: %d per method, round robin (after %d warm-up rounds), ms from "
      "std::chrono::steady_clock\n\n",
      cpu_model ().c_str (), std::thread::hardware_concurrency (),
      PCL_VERSION_PRETTY, kPoints, kRings, kAzimuths,
      (unsigned long long) seed, n_nan, kLeaf, grid.origin[0],
      grid.origin[1], grid.origin[2], grid.dims[0], grid.dims[1],
      grid.dims[2], (unsigned long long) n_voxels,
      mean_out.size () * 4 / 1e6, scratch.size () * 4 / 1e6,
      (unsigned long long) st_mean.occupied, pcl_all.size (), checked,
      max_diff, rebinned, runs, kWarmup);
  std::fflush (stdout);

  const std::vector<Method> methods = {
    {"pcl-voxelgrid", "centroid of x, y, z, intensity (default)", true,
      run_pcl_all},
    {"pcl-voxelgrid-xyz", "centroid of x, y, z (setDownsampleAllData "
      "false)", true, run_pcl_xyz},
    {"robocache-mean-xyz", "RC_VOXEL_MEAN, features x, y, z (centroid)",
      false, run_mean},
    {"robocache-mean-xyzi", "RC_VOXEL_MEAN, features x, y, z, intensity",
      false, run_meani},
    {"robocache-centroids-xyz", "RC_VOXEL_CENTROIDS, features x, y, z "
      "(PCL's output)", false, run_cent},
    {"robocache-centroids-xyzi", "RC_VOXEL_CENTROIDS, features x, y, z, "
      "intensity", false, run_centi},
    {"robocache-count", "RC_VOXEL_COUNT", false, run_count},
    {"robocache-occupancy", "RC_VOXEL_OCCUPANCY", false, run_occ},
    // Not a voxelization: the floor under any dense-grid mean, which must
    // write every voxel of its output planes once.
    {"floor-write-mean-xyz", "memset of the mean x, y, z output (every "
      "voxel written once)", false, run_floor},
  };
  const std::vector<Result> res = time_all (methods, runs);

  // PCL / robocache: against PCL's default VoxelGrid (first row).
  const double pcl_ms = res[0].median_ms;
  std::printf ("%-22s %10s %10s %10s %12s\n", "method", "median ms",
      "p10 ms", "p90 ms", "PCL/this");
  for (const Result &r : res)
    std::printf ("%-22s %10.3f %10.3f %10.3f %12.2f\n", r.name.c_str (),
        r.median_ms, r.p10_ms, r.p90_ms, pcl_ms / r.median_ms);
  const double like_xyz = res[1].median_ms / res[2].median_ms;
  const double like_xyzi = res[0].median_ms / res[3].median_ms;
  const double cent_xyz = res[1].median_ms / res[4].median_ms;
  const double cent_xyzi = res[0].median_ms / res[5].median_ms;
  std::printf ("\nlike for like: pcl-voxelgrid-xyz / robocache-mean-xyz "
      "%.2fx, pcl-voxelgrid / robocache-mean-xyzi %.2fx\n"
      "same output as PCL: pcl-voxelgrid-xyz / robocache-centroids-xyz "
      "%.2fx, pcl-voxelgrid / robocache-centroids-xyzi %.2fx\n", like_xyz,
      like_xyzi, cent_xyz, cent_xyzi);
  for (const std::string &e : errors)
    std::printf ("CHECK FAILED: %s\n", e.c_str ());

  if (json) {
    std::FILE *f = std::fopen (json, "w");
    if (!f)
      die (std::string ("cannot write ") + json);
    std::fprintf (f, "{\n  \"impl\": \"robocache-cpu-vs-pcl\",\n"
        "  \"cpu\": %s,\n  \"threads\": %u,\n  \"pcl\": %s,\n"
        "  \"points\": %zu,\n  \"nan_points\": %zu,\n  \"seed\": %llu,\n"
        "  \"leaf\": %.3f,\n  \"origin\": [%.6f, %.6f, %.6f],\n"
        "  \"dims\": [%u, %u, %u],\n  \"runs\": %d,\n  \"warmup\": %d,\n"
        "  \"check\": {\"ok\": %s, \"occupied_robocache\": %llu, "
        "\"occupied_pcl\": %zu, \"centroids_checked\": %zu, "
        "\"max_abs_diff\": %.3e, \"points_binned_differently\": %zu},\n"
        "  \"like_for_like\": {\"xyz\": %.4f, \"xyzi\": %.4f, "
        "\"centroids_xyz\": %.4f, \"centroids_xyzi\": %.4f},\n"
        "  \"results\": [\n",
        json_str (cpu_model ()).c_str (),
        std::thread::hardware_concurrency (),
        json_str (PCL_VERSION_PRETTY).c_str (), kPoints, n_nan,
        (unsigned long long) seed, kLeaf, grid.origin[0], grid.origin[1],
        grid.origin[2], grid.dims[0], grid.dims[1], grid.dims[2], runs,
        kWarmup, errors.empty () ? "true" : "false",
        (unsigned long long) st_mean.occupied, pcl_all.size (), checked,
        max_diff, rebinned, like_xyz, like_xyzi, cent_xyz, cent_xyzi);
    for (size_t i = 0; i < res.size (); i++) {
      const Result &r = res[i];
      std::fprintf (f, "    {\"name\": %s, \"detail\": %s, \"impl\": %s, "
          "\"median_ms\": %.4f, \"p10_ms\": %.4f, \"p90_ms\": %.4f, "
          "\"min_ms\": %.4f, \"pcl_ratio\": %.4f}%s\n",
          json_str (r.name).c_str (), json_str (r.detail).c_str (),
          r.pcl ? "\"pcl\"" : "\"robocache\"", r.median_ms, r.p10_ms,
          r.p90_ms, r.min_ms, pcl_ms / r.median_ms,
          i + 1 < res.size () ? "," : "");
    }
    std::fprintf (f, "  ]\n}\n");
    if (std::fclose (f) != 0)
      die (std::string ("cannot write ") + json);
    std::printf ("wrote %s\n", json);
  }
  return errors.empty () ? 0 : 1;
}
