"""python3 -m robocache.dataset --slurm against a real Slurm: the test
starts munged, slurmctld and slurmd (Debian's munge and slurm-wlm, which
tests/run.sh installs through pipelines/setup.sh) as root on this machine
with a one-node configuration of its own (own key, socket, ports, state
and log folders in a temporary folder; nothing of the machine's own
Slurm or munge is read or touched), submits the job array of three
recordings and a corrupt one in groups of two, waits for the merge job
within a bounded time, and checks the manifest and that the shards are
the bytes a local build writes.  The daemons run in the foreground as
children of this test, are stopped in a finally block, and get SIGTERM
from the kernel if the test dies first.

Exits 77 (SKIP) with the reason where the daemons cannot run: not root,
the packages not installed, or a daemon that does not come up."""
import ctypes
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from dataset_fixtures import (CORRUPT, GOOD, cli, files, make_recordings,
                              read_manifest, skip, write_config)

PROGRAMS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol",
            "scancel", "sinfo")
DAEMON_WAIT = 30      # seconds for a daemon to come up
JOBS_WAIT = 300       # seconds for the array and the merge job


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_test():
    ctypes.CDLL(None).prctl(1, signal.SIGTERM)       # PR_SET_PDEATHSIG


class Cluster:
    """munged, slurmctld and slurmd of this test, in folder `tmp`."""

    def __init__(self, tmp):
        self.tmp, self.daemons = tmp, []
        self.conf = os.path.join(tmp, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)

    def start(self, name, args):
        log = open(os.path.join(self.tmp, name + ".out"), "w")
        self.daemons.append((name, subprocess.Popen(
            args, stdout=log, stderr=subprocess.STDOUT, env=self.env,
            start_new_session=True, preexec_fn=_die_with_test)))

    def log(self, name):
        path = os.path.join(self.tmp, name + ".out")
        with open(path) as f:
            return f.read()[-1500:]

    def wait(self, what, check):
        deadline = time.monotonic() + DAEMON_WAIT
        while not check():
            for name, proc in self.daemons:
                if proc.poll() is not None:
                    skip("%s exited (status %s) while waiting for %s: %s"
                         % (name, proc.returncode, what, self.log(name)))
            if time.monotonic() > deadline:
                skip("%s did not come up in %d s" % (what, DAEMON_WAIT))
            time.sleep(0.2)

    def munge(self):
        d = os.path.join(self.tmp, "munge")
        os.makedirs(d, mode=0o755)
        key = os.path.join(d, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        self.socket = os.path.join(d, "munge.socket")
        self.start("munged", [
            "munged", "--foreground", "--force", "--socket=" + self.socket,
            "--key-file=" + key, "--pid-file=" + os.path.join(d, "pid"),
            "--log-file=" + os.path.join(d, "munged.log"),
            "--seed-file=" + os.path.join(d, "seed")])
        self.wait("munged's socket", lambda: os.path.exists(self.socket))

    def slurm(self):
        host = socket.gethostname().split(".")[0]
        t = self.tmp
        for d in ("state", "spool"):
            os.makedirs(os.path.join(t, d))
        with open(self.conf, "w") as f:
            f.write(SLURM_CONF.format(
                host=host, tmp=t, socket=self.socket, cpus=os.cpu_count(),
                ctld_port=free_port(), d_port=free_port()))
        self.start("slurmctld", ["slurmctld", "-D", "-i", "-f", self.conf])
        self.start("slurmd", ["slurmd", "-D", "-f", self.conf])
        self.wait("an idle slurmd node", lambda: "idle" in self.run(
            ["sinfo", "-h", "-o", "%T"], check=False))

    def run(self, args, check=True):
        done = subprocess.run(args, capture_output=True, text=True,
                              env=self.env, timeout=60)
        if check and done.returncode != 0:
            raise AssertionError("%s: %s" % (" ".join(args), done.stderr))
        return done.stdout

    def stop(self, jobs):
        if jobs:
            self.run(["scancel"] + jobs, check=False)
            deadline = time.monotonic() + 20
            while self.run(["squeue", "-h"], check=False).strip() and \
                    time.monotonic() < deadline:
                time.sleep(0.5)
        for name, proc in reversed(self.daemons):
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(15)


SLURM_CONF = """\
ClusterName=robocachetest
SlurmctldHost={host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={socket}
StateSaveLocation={tmp}/state
SlurmdSpoolDir={tmp}/spool
SlurmctldPidFile={tmp}/slurmctld.pid
SlurmdPidFile={tmp}/slurmd.pid
SlurmctldLogFile={tmp}/slurmctld.log
SlurmdLogFile={tmp}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
JobRequeue=1
MinJobAge=600
KillWait=5
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""


def wait_for_jobs(cluster, ids, out):
    deadline = time.monotonic() + JOBS_WAIT
    while True:
        left = cluster.run(["squeue", "-h", "-j", ",".join(ids)],
                           check=False).strip()
        if not left and os.path.exists(os.path.join(out, "manifest.json")):
            return
        if time.monotonic() > deadline:
            raise AssertionError("the jobs did not finish in %d s: %s\n%s"
                                 % (JOBS_WAIT, left,
                                    cluster.log("slurmctld")))
        time.sleep(1)


def check(cluster, tmp, rec, conf):
    out = os.path.join(tmp, "slurm-out")
    status, log = cli("-c", conf, "-o", out, "--slurm", "--group", 2,
                      "--slurm-option=--cpus-per-task=1", rec, timeout=120)
    assert status == 0, log
    print(log)
    ids = list(re.search(r"job array (\d+) .* merge job (\d+) ", log).groups())
    jobs.extend(ids)
    merge = cluster.run(["scontrol", "show", "job", ids[1]])
    assert "afterany:%s" % ids[0] in merge, merge
    with open(os.path.join(out, "slurm", "array.sh")) as f:
        script = f.read()
    assert "#SBATCH --array=0-1\n" in script and "--requeue" in script, \
        script
    wait_for_jobs(cluster, ids, out)
    m = read_manifest(out)
    status = {e["recording"]: e["status"] for e in m["recordings"]}
    assert status == dict({n: "done" for n in GOOD}, **{CORRUPT: "failed"}),\
        status
    assert m["totals"]["samples"] == 30, m["totals"]
    logs = sorted(os.listdir(os.path.join(out, "slurm", "logs")))
    assert len([n for n in logs if n.startswith("task-")]) == 2, logs
    assert len([n for n in logs if n.startswith("merge-")]) == 1, logs
    local = os.path.join(tmp, "local-out")
    status, log = cli("-c", conf, "-o", local, rec)
    assert status == 1, log
    ours = {k: v for k, v in files(out).items() if not k.startswith("slurm")}
    assert ours == files(local), "the Slurm build differs from a local one"
    print("ok: 2 array tasks and the merge job; manifest and shards as a "
          "local build's")
    # Submitted again, waiting for the merge job: the tasks skip.
    status, log = cli("-c", conf, "-o", out, "--slurm", "--group", 2,
                      "--wait", rec, timeout=JOBS_WAIT)
    print(log)
    assert status == 1 and "3 done, 1 failed, 0 missing" in log, log
    array = re.search(r"job array (\d+) ", log).group(1)
    jobs.append(array)
    skipped = 0
    for i in (0, 1):
        with open(os.path.join(out, "slurm", "logs", "task-%s_%d.out"
                               % (array, i))) as f:
            task = f.read()
        skipped += int(re.search(r"(\d+) already built", task).group(1))
    assert skipped == 3, skipped
    assert {k: v for k, v in files(out).items()
            if not k.startswith("slurm")} == ours, "the rerun changed files"
    print("ok: resubmitted with --wait, the tasks skipped the 3 built "
          "recordings")


jobs = []


def main():
    if os.geteuid() != 0:
        skip("not root: munged, slurmctld and slurmd run as root here")
    missing = [p for p in PROGRAMS if shutil.which(p) is None]
    if missing:
        skip("%s not installed (Debian: slurm-wlm munge; tests/run.sh "
             "installs them)" % ", ".join(missing))
    signal.signal(signal.SIGTERM, lambda *a: sys.exit("terminated"))
    tmp = tempfile.mkdtemp()
    os.chmod(tmp, 0o755)
    cluster = Cluster(tmp)
    try:
        rec = make_recordings(os.path.join(tmp, "rec"))
        conf = write_config(os.path.join(tmp, "config.json"))
        cluster.munge()
        cluster.slurm()
        os.environ["SLURM_CONF"] = cluster.conf
        check(cluster, tmp, rec, conf)
    finally:
        cluster.stop(jobs)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
