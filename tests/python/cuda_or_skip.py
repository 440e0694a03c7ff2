"""The GPU tests' entry check: torch with a CUDA device robocache can use,
or exit 77 (meson's SKIP) saying what is missing."""
import sys


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
