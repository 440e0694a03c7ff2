"""The build as a Slurm job array (docs/dataset.md, "On a Slurm
cluster"): one array task per group of recordings, requeued by Slurm on a
node failure and, by the task script, up to `retries` times when the
task itself fails; a merge job that depends on the whole array
(afterany) writes manifest.json.  Slurm schedules, retries and orders;
robocache only writes the scripts and calls sbatch."""
import os
import pathlib
import shlex
import subprocess
import sys

from . import _recordings

PLAN = "plan.jsonl"
# Slurm's default MaxArraySize is 1001: indices 0..1000.
MAX_TASKS = 1000


def package_parent():
    """The folder holding the robocache package, for PYTHONPATH."""
    return str(pathlib.Path(__file__).resolve().parents[2])


def _header(name, output, options):
    lines = ["#!/bin/bash", "#SBATCH --job-name=%s" % name,
             "#SBATCH --output=%s" % output]
    lines += ["#SBATCH %s" % opt for opt in options]
    lines.append("export PYTHONPATH=%s${PYTHONPATH:+:$PYTHONPATH}"
                 % shlex.quote(package_parent()))
    return lines


def write_scripts(out, recordings, group, options=(), retries=2,
                  max_running=None, device="auto", jobs=None, python=None):
    """Writes <out>/slurm/: plan.jsonl (the recordings, in order), the
    array script array.sh (task i builds recordings i*group ...
    i*group+group-1, with `jobs` workers, default the task's CPUs or
    GPUs) and merge.sh; returns the paths of the scripts."""
    folder = os.path.join(out, "slurm")
    os.makedirs(os.path.join(folder, "logs"), exist_ok=True)
    plan = os.path.join(folder, PLAN)
    _recordings.write_plan(plan, recordings)
    tasks = -(-len(recordings) // group)
    python = shlex.quote(python or sys.executable)
    common = "--plan %s --config %s --out %s" % (
        shlex.quote(plan), shlex.quote(os.path.join(out, "config.json")),
        shlex.quote(out))
    array = _header("robocache-dataset",
                    os.path.join(folder, "logs", "task-%A_%a.out"),
                    ["--array=0-%d%s" % (tasks - 1, "%%%d" % max_running
                                         if max_running else ""),
                     "--requeue", "--open-mode=append"] + list(options))
    array += [
        "# SLURM_RESTART_COUNT: how often Slurm requeued this task.",
        "%s -m robocache.dataset --task \"$SLURM_ARRAY_TASK_ID\" --group %d "
        "--device %s%s %s" % (python, group, device,
                               " --jobs %d" % jobs if jobs else "", common),
        "status=$?",
        "if [ \"$status\" != 0 ] && [ \"${SLURM_RESTART_COUNT:-0}\" -lt %d ]"
        "; then" % retries,
        "  echo \"robocache.dataset: task failed (status $status) on try "
        "$((${SLURM_RESTART_COUNT:-0} + 1)) of %d: requeued\"" % (retries + 1),
        "  scontrol requeue \"${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}\"",
        "fi", "exit \"$status\""]
    merge = _header("robocache-dataset-merge",
                    os.path.join(folder, "logs", "merge-%j.out"),
                    list(options))
    merge.append("exec %s -m robocache.dataset --merge %s" % (python, common))
    paths = []
    for name, lines in (("array.sh", array), ("merge.sh", merge)):
        path = os.path.join(folder, name)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        os.chmod(path, 0o755)
        paths.append(path)
    return paths


def _sbatch(args, timeout):
    done = subprocess.run(["sbatch", "--parsable"] + args,
                          capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError("robocache.dataset: sbatch %s failed (status "
                           "%d): %s" % (" ".join(args), done.returncode,
                                        done.stderr.strip()))
    return done.stdout.strip().split(";")[0]


def submit(array, merge, wait=False, timeout=None):
    """Submits the array and the merge job after it (afterany: whatever
    the tasks' outcome); returns their job ids.  wait: sbatch --wait on
    the merge job, within `timeout` seconds."""
    array_id = _sbatch([array], 120)
    merge_id = _sbatch(["--dependency=afterany:%s" % array_id]
                       + (["--wait"] if wait else []) + [merge],
                       timeout if wait else 120)
    return array_id, merge_id


def group_size(count, group=None):
    """Recordings per task: `group`, or the fewest that keep the array
    within Slurm's default MaxArraySize."""
    if group is not None:
        if group < 1:
            raise ValueError("robocache.dataset: --group must be >= 1; got "
                             "%d" % group)
        return group
    return max(1, -(-count // MAX_TASKS))


def task_recordings(recordings, index, group):
    return recordings[index * group:(index + 1) * group]
