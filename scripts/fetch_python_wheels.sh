#!/usr/bin/env bash
# Fills .whl/ (ignored by git) with pure-Python wheels of pytest and its dependencies, and
# with zarr 3 and numcodecs (binary wheels for the device machine's CPython, SCIZ_DEVICE_PY,
# default 3.12; numpy is left out: the machine has one), for machines without a package
# index: carry .whl to the device machine and scripts/gpu_python_check.sh installs what is
# missing there from it (about 3 MB).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .whl
py=${SCIZ_PYTHON:-python3}
# --no-deps and py3-none-any: the same files serve any Python 3.9+ on any platform.
for pkg in pytest pluggy iniconfig packaging pygments exceptiongroup tomli typing_extensions; do
  "$py" -m pip download -q --no-deps --only-binary=:all: --python-version 3.9 --implementation py --abi none \
    --platform any -d .whl "$pkg"
done
dpy=${SCIZ_DEVICE_PY:-3.12}
mkdir -p .whl/zarr
"$py" -m pip download -q --only-binary=:all: --python-version "$dpy" --implementation cp \
  --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
  -d .whl/zarr zarr numcodecs
rm -f .whl/zarr/numpy-*.whl
ls -1 .whl .whl/zarr
