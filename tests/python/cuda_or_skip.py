"""The GPU tests' entry check: torch with a CUDA device robocache can use,
or exit 77 (meson's SKIP) saying what is missing."""
import os
import sys
import unittest


def cuda_torch():
    """torch, when torch and robocache both have a CUDA device."""
    try:
        import torch
    except ImportError:
        print("SKIP: torch is not installed")
        sys.exit(77)
    import robocache
    if not torch.cuda.is_available() or not robocache.cuda_available():
        print("SKIP: no usable CUDA device (torch: %s, robocache: %s)" % (
            torch.cuda.is_available(), robocache.cuda_unavailable_reason()
            or "ok"))
        sys.exit(77)
    return torch


# Under compute-sanitizer (tests/gpu-sanitize.sh) the process's memory is
# the sanitizer's too: the tests that measure it say so and step aside.
under_sanitizer = unittest.skipIf(
    os.environ.get("ROBOCACHE_SANITIZER"),
    "memory measured under compute-sanitizer is its own bookkeeping's")
