"""The process's resident memory, for the tests that hold it flat."""
import os
import unittest


def rss_kib():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


# Under a sanitizer (tests/gpu-sanitize.sh, tests/cpu-sanitize.sh: they set
# ROBOCACHE_SANITIZER) the process's memory is the sanitizer's too, its
# bookkeeping and AddressSanitizer's quarantine of freed blocks: the tests
# that measure it say so and step aside.
under_sanitizer = unittest.skipIf(
    os.environ.get("ROBOCACHE_SANITIZER"),
    "memory measured under a sanitizer is its own bookkeeping's")
