#!/usr/bin/env bash
# Runs a Python test script with an interpreter that has what it needs:
# python3 on PATH first, then the system's /usr/bin/python3 (Debian's
# python3-numpy; a pyenv or virtualenv python3 often lacks it).
#   run.sh [--need MODULE]... SCRIPT [ARGS...]
# Exit 77 (meson's SKIP) with the reason when no interpreter has them.
set -euo pipefail
need=(numpy)
while [ "${1:-}" = --need ]; do
  need+=("$2")
  shift 2
done
imports=$(IFS=,; echo "${need[*]}")
for python in python3 /usr/bin/python3; do
  if command -v "$python" >/dev/null &&
      "$python" -c "import $imports" 2>/dev/null; then
    exec "$python" "$@"
  fi
done
echo "SKIP: no python3 here imports $imports"
exit 77
