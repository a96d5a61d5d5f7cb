// Pageable uploads and downloads share two pinned staging buffers per device. Calls from
// several threads on their own streams take turns on the host, but their copies run on the
// device in stream order only: a download must not fill a buffer whose previous upload's DMA
// has not read it yet. One thread moves buffers of several staging pieces up and back down and
// checks every byte, while another, on an idle stream of its own, keeps downloading a buffer of
// other bytes (as a worker sending its chunk down while another uploads the next rows).
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

#include "core/device.hpp"
#include "core/host_transfer.hpp"
#include "gpu/gpu_util.hpp"

using namespace sciz;

TEST(HostTransferGpu, StagedCopiesFromSeveralStreamsKeepEveryByte) {
  if (!sciz::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const size_t bytes = (size_t{80} << 20) + 12345;  // three 32 MiB pieces, the last partial
  std::atomic<bool> done{false};
  std::string error, other_error;
  std::thread other([&] {  // downloads only: its stream is idle whenever it takes the buffers
    cudaStream_t s;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return;
    {
      dev::Buffer<uint8_t> d(bytes, s);
      cudaMemsetAsync(d.get(), 0xA5, bytes, s);
      std::vector<uint8_t> h(bytes);
      while (!done.load() && other_error.empty()) {
        dev::download(h.data(), d.get(), bytes, s);
        for (size_t i = 0; i < bytes; i += 4093)
          if (h[i] != 0xA5) other_error = "the downloading thread read a byte it never wrote";
      }
    }
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
  });
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  {
    dev::Buffer<uint8_t> d(bytes, s);
    std::vector<uint8_t> up(bytes), down(bytes);
    for (int r = 0; r < 40 && error.empty(); ++r) {
      for (size_t i = 0; i < bytes; ++i) up[i] = static_cast<uint8_t>(r + i * 131 + (i >> 20));
      dev::upload(d.get(), up.data(), bytes, s);      // returns once read: its last DMA may still run
      dev::download(down.data(), d.get(), bytes, s);  // the other thread's downloads interleave
      if (std::memcmp(up.data(), down.data(), bytes) != 0) {
        size_t i = 0;
        while (up[i] == down[i]) ++i;
        error = "round " + std::to_string(r) + ": byte " + std::to_string(i) + " came back changed";
      }
    }
  }
  done = true;
  other.join();
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(error, "");
  EXPECT_EQ(other_error, "");
}
