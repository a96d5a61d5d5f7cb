#!/usr/bin/env bash
# Fills .whl/ (ignored by git) with pure-Python wheels of pytest and its dependencies, for
# machines without a package index: carry .whl to the device machine and
# scripts/gpu_python_check.sh installs pytest from it when it is missing there.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .whl
py=${SCIZ_PYTHON:-python3}
# --no-deps and py3-none-any: the same files serve any Python 3.9+ on any platform.
for pkg in pytest pluggy iniconfig packaging pygments exceptiongroup tomli typing_extensions; do
  "$py" -m pip download -q --no-deps --only-binary=:all: --python-version 3.9 --implementation py --abi none \
    --platform any -d .whl "$pkg"
done
ls -1 .whl
