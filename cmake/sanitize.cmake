# Sanitizer and fuzzing builds (CPU only: nvcc does not take these flags, and the CUDA twins
# have compute-sanitizer instead, scripts/gpu_sanitize.sh).
#
# SCIZ_SANITIZE: AddressSanitizer + UndefinedBehaviorSanitizer (every report fatal) and
#   libstdc++'s bounds assertions, on everything built here: what .ci/run runs the CPU suite
#   under.
# SCIZ_FUZZ: the libFuzzer targets in fuzz/ (clang only), with the library instrumented for
#   coverage; implies SCIZ_SANITIZE.
option(SCIZ_SANITIZE "Build with ASan, UBSan and _GLIBCXX_ASSERTIONS (CPU only)" OFF)
option(SCIZ_FUZZ "Build the libFuzzer targets in fuzz/ (clang, CPU only; implies SCIZ_SANITIZE)" OFF)

if(SCIZ_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "SCIZ_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++")
  endif()
  set(SCIZ_SANITIZE ON)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link>)
  add_link_options(-fsanitize=fuzzer-no-link)
endif()

if(SCIZ_SANITIZE)
  if(SCIZ_HAVE_CUDA)
    message(FATAL_ERROR "SCIZ_SANITIZE / SCIZ_FUZZ build the CPU twins only: add -DSCIZ_CUDA=OFF")
  endif()
  # Release optimisation keeps the suite fast enough to run whole; frame pointers keep the
  # reports' stacks readable. UBSan aborts instead of printing and going on, so CI fails.
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined>
                      $<$<COMPILE_LANGUAGE:CXX>:-fno-sanitize-recover=all>
                      $<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer>
                      $<$<COMPILE_LANGUAGE:CXX>:-D_GLIBCXX_ASSERTIONS>)
  add_link_options(-fsanitize=address,undefined)
endif()
