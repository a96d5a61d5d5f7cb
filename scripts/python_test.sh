#!/usr/bin/env bash
# The Python suites (python/tests), as scripts/test.sh runs them after ctest:
#   1. a virtual environment in .venv from python/requirements-test.txt (reinstalled only when
#      that file changes);
#   2. h5dump (Debian's hdf5-tools) for the plugin's test against the system libhdf5, when
#      running as root with apt (the test is skipped, and says so, without it);
#   3. the package built as a wheel with pip from this tree and installed from it (CPU twins
#      only unless SCIZ_PYTHON_CUDA=ON: CI has no GPU to run them; builds are incremental in
#      build-python/);
#   4. pytest, listing what it skipped and why.
# SCIZ_PYTHON_TESTS: 0 skips everything; 1 fails where auto (the default) skips for a missing
# python3 >= 3.9 or venv module.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${SCIZ_PYTHON_TESTS:-auto}
if [ "$mode" = 0 ]; then echo "python tests: skipped (SCIZ_PYTHON_TESTS=0)"; exit 0; fi
skip() {
  if [ "$mode" = 1 ]; then echo "python tests: $1" >&2; exit 1; fi
  echo "python tests: SKIPPED: $1"
  exit 0
}
as_root_apt() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; }

py=${SCIZ_PYTHON:-python3}
command -v "$py" >/dev/null || skip "no $py on the PATH"
"$py" -c 'import sys; sys.exit(sys.version_info < (3, 9))' || skip "$py is older than 3.9"
t0=$(date +%s)

venv=.venv
if [ ! -x $venv/bin/python ]; then
  if ! "$py" -m venv $venv >/dev/null 2>&1; then
    rm -rf $venv
    if as_root_apt; then
      echo "python tests: installing python3-venv" >&2
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    fi
    "$py" -m venv $venv >/dev/null 2>&1 || skip "$py cannot create a virtual environment (python3-venv)"
  fi
fi
stamp=$venv/.sciz-requirements
want=$(sha256sum python/requirements-test.txt | cut -d' ' -f1)
if [ "$(cat $stamp 2>/dev/null)" != "$want" ]; then
  echo "python tests: installing python/requirements-test.txt into $venv" >&2
  $venv/bin/python -m pip install -q --disable-pip-version-check -r python/requirements-test.txt
  echo "$want" > $stamp
fi

if ! command -v h5dump >/dev/null && as_root_apt; then
  echo "python tests: installing hdf5-tools (h5dump)" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hdf5-tools >/dev/null) ||
    echo "python tests: could not install hdf5-tools; the h5dump test will be skipped" >&2
fi

# The wheel as `pip wheel .` makes it (build dependencies from the venv rather than downloaded
# again), then installed from the wheel, as a user's `pip install` would.
rm -rf build-python/dist
SCIZ_CUDA=${SCIZ_PYTHON_CUDA:-OFF} CMAKE_BUILD_PARALLEL_LEVEL=${SCIZ_JOBS:-2} \
  $venv/bin/python -m pip wheel -q --disable-pip-version-check --no-build-isolation --no-deps \
  -Cbuild-dir=build-python/cmake -w build-python/dist .
$venv/bin/python -m pip install -q --disable-pip-version-check --no-deps --force-reinstall build-python/dist/sciz-*.whl
echo "python tests: package built and installed in $(($(date +%s) - t0)) s" >&2

$venv/bin/python -m pytest python/tests -q -rs -p no:cacheprovider
echo "python tests: done in $(($(date +%s) - t0)) s" >&2
