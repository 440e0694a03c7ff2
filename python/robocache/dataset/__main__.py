"""python3 -m robocache.dataset: recordings into training shards, here
or as a Slurm job array (docs/dataset.md)."""
import argparse
import os
import sys

from . import _manifest, _recordings, _run, _settings, _slurm
from .._lib import RobocacheError

USAGE = """\
python3 -m robocache.dataset [-c CONFIG] -o OUT [options] RECORDING ...

RECORDING: ROS 1 .bag, .mcap, .db3 (or .zstd of either), rosbag2 folders,
folders of them (searched recursively) or @LIST (a text file naming them,
one a line).  CONFIG: .json or .toml (Python 3.11+); docs/dataset.md
lists the keys.  Writes
OUT/shards/*.tar (WebDataset: one .npy per array), OUT/manifest.json.
Exit status: 0 when every recording was built, 1 when one failed, 2 for
bad arguments."""


def _parser():
    ap = argparse.ArgumentParser(prog="python3 -m robocache.dataset",
                                 usage=USAGE)
    ap.add_argument("inputs", nargs="*", metavar="RECORDING")
    ap.add_argument("-c", "--config", help="JSON or TOML configuration")
    ap.add_argument("-o", "--out", required=True, help="output folder")
    ap.add_argument("-j", "--jobs", type=int,
                    help="pipelines at once (default: a core each on the "
                    "CPU, a GPU each with CUDA)")
    ap.add_argument("--device", default="auto",
                    choices=("auto", "cpu", "cuda"))
    slurm = ap.add_argument_group("Slurm")
    slurm.add_argument("--slurm", action="store_true",
                       help="submit as a Slurm job array instead of "
                       "building here")
    slurm.add_argument("--group", type=int,
                       help="recordings per array task (default 1, more "
                       "past 1000 recordings)")
    slurm.add_argument("--slurm-option", action="append", default=[],
                       metavar="OPT", help="an #SBATCH option for both "
                       "jobs, e.g. --slurm-option=--partition=gpu")
    slurm.add_argument("--retries", type=int, default=2,
                       help="requeues of a failed task (default 2)")
    slurm.add_argument("--max-running", type=int,
                       help="array tasks running at once")
    slurm.add_argument("--wait", action="store_true",
                       help="wait for the merge job, print the summary")
    # What the Slurm scripts run.
    ap.add_argument("--task", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--merge", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--plan", help=argparse.SUPPRESS)
    return ap


def _print(lines):
    print("\n".join(lines), flush=True)


def _status(manifest):
    t = manifest["totals"]
    return 0 if t["done"] == t["recordings"] else 1


def _local(args, recordings):
    manifest, run = _run.build(recordings, args.out, args.config, args.jobs,
                               args.device)
    _print(_manifest.summary(args.out, manifest, run))
    return _status(manifest)


def _submit(args, recordings):
    _run.prepare(args.out, args.config)
    group = _slurm.group_size(len(recordings), args.group)
    array, merge = _slurm.write_scripts(
        args.out, recordings, group, args.slurm_option, args.retries,
        args.max_running, args.device, args.jobs)
    array_id, merge_id = _slurm.submit(array, merge, args.wait)
    print("submitted %d recordings as Slurm job array %s (%d tasks of %d), "
          "merge job %s after it\nscripts and logs: %s\nwatch: squeue -j "
          "%s,%s" % (len(recordings), array_id, -(-len(recordings) // group),
                     group, merge_id, os.path.dirname(array), array_id,
                     merge_id), flush=True)
    if not args.wait:
        return 0
    manifest = _run._build.read_json(os.path.join(args.out,
                                                  _manifest.MANIFEST))
    if manifest is None:
        print("robocache.dataset: the merge job wrote no manifest (see "
              "%s/logs)" % os.path.dirname(array), file=sys.stderr)
        return 1
    _print(_manifest.summary(args.out, manifest))
    return _status(manifest)


def _task(args):
    recordings = _recordings.read_plan(args.plan)
    group = _slurm.group_size(len(recordings), args.group)
    mine = _slurm.task_recordings(recordings, args.task, group)
    _, run = _run.build(mine, args.out, args.config, args.jobs, args.device,
                        merge=False)
    print("task %d: %d recordings: %d built, %d already built (skipped) "
          "with %d workers on %s in %.1f s" % (
              args.task, len(mine), run["built"], run["skipped"],
              run["workers"], run["device"], run["seconds"]))
    for rec in mine:
        entry = _run._build.read_json(_run._build.manifest_path(args.out,
                                                               rec))
        print("%s: %s, %d samples%s" % (
            rec.name, entry["status"], entry["samples"],
            ": " + entry["error"] if entry["error"] else ""), flush=True)
    return 0


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        if args.merge:
            manifest = _run.merge(args.out, _recordings.read_plan(args.plan),
                                  args.config)
            _print(_manifest.summary(args.out, manifest))
            return 0
        if args.task is not None:
            return _task(args)
        if not args.inputs:
            _parser().error("no recording given")
        recordings = _recordings.find(args.inputs)
        if not recordings:
            raise ValueError("robocache.dataset: no recording (.bag, .mcap,"
                             " rosbag2 folder) in %s" % " ".join(args.inputs))
        return (_submit if args.slurm else _local)(args, recordings)
    except (_settings.ConfigError, ValueError, OSError, RobocacheError,
            RuntimeError) as err:
        print(err, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
