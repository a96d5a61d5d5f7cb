// Moving a field to the side its codec runs on. The pipelines hold no kernels: these copies, and
// the choice of twin, are all they add around a codec. Shared so that every pipeline stages the
// same way (one copy, one sync, the same trace phases).
#pragma once
#include <cstdint>
#include <vector>

#include "core/device.hpp"
#include "core/trace.hpp"
#include "pipelines/pipeline.hpp"

namespace sciz::staging {

// The job's n input values on the host: the input itself, or a copy from the device in staged.
template <class T>
const T* input_on_host(const CompressJob& job, uint64_t n, std::vector<T>& staged) {
  const T* x = static_cast<const T*>(job.data);
  if (!job.on_device) return x;
  staged.resize(n);
  dev::copy_to_host(staged.data(), x, n * sizeof(T), job.opt.stream);
  dev::sync(job.opt.stream);
  return staged.data();
}

// The job's n input values on the device: the input itself, or a copy in staged.
template <class T>
const T* input_on_device(const CompressJob& job, uint64_t n, dev::Buffer<T>& staged) {
  const T* x = static_cast<const T*>(job.data);
  if (job.on_device) return x;
  staged = dev::Buffer<T>(n, job.opt.stream);
  dev::copy_to_device(staged.get(), x, n * sizeof(T), job.opt.stream);
  return staged.get();
}

// Writes the job's n output values with the twin of job.device: on_host(T*) on the CPU,
// on_device(T*) on the GPU (queued on job.cuda_stream), copying across only when the output
// lies on the other side. The decoder runs in trace phase host_phase / device_phase.
template <class T, class OnHost, class OnDevice>
void decode_to_output(const DecompressJob& job, uint64_t n, const char* host_phase, OnHost&& on_host,
                      const char* device_phase, OnDevice&& on_device) {
  cudaStream_t s = job.cuda_stream;
  if (job.device == Device::cpu) {
    TracePhase t(host_phase);
    if (job.out_on_device) {
      std::vector<T> host(n);
      on_host(host.data());
      dev::copy_to_device(job.out, host.data(), n * sizeof(T), s);
      dev::sync(s);
    } else {
      on_host(static_cast<T*>(job.out));
    }
    return;
  }
  if (job.out_on_device) {
    TracePhase t(device_phase, true, s);
    on_device(static_cast<T*>(job.out));
    dev::sync(s);
    return;
  }
  dev::Buffer<T> out(n, s);
  {
    TracePhase t(device_phase, true, s);
    on_device(out.get());
  }
  TracePhase t("download field", true, s);
  dev::copy_to_host(job.out, out.get(), n * sizeof(T), s);
  dev::sync(s);
}

}  // namespace sciz::staging
