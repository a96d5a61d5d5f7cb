#!/usr/bin/env bash
# Installs what the build needs when it is missing (Debian/Ubuntu, as root): a C++20 compiler,
# CMake >= 3.25, Ninja and GoogleTest. nvcc is optional: without it the CPU twins build alone.
set -euo pipefail
missing=()
command -v g++ >/dev/null || missing+=(g++)
command -v cmake >/dev/null || missing+=(cmake)
command -v ninja >/dev/null || missing+=(ninja-build)
if ! ls /usr/lib/*/cmake/GTest/GTestConfig.cmake /usr/lib/cmake/GTest/GTestConfig.cmake >/dev/null 2>&1 \
   && [ ! -f /usr/src/googletest/CMakeLists.txt ]; then
  missing+=(libgtest-dev)
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "bootstrap: installing ${missing[*]}" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "bootstrap: please install: ${missing[*]}" >&2
    exit 1
  fi
fi
