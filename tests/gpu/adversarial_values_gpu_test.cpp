// The adversarial-values matrix (support/adversarial_fields.hpp) on the GPU: every pipeline's
// CUDA twin writes the CPU twin's stream byte for byte, from host and from device memory, and
// decodes it to the CPU's bits; the CPU suite checks those bits against the bound.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>

#include "gpu/gpu_util.hpp"
#include "support/adversarial_fields.hpp"

using namespace sciz;

namespace {

template <class T>
void matrix() {
  const DType dt = sizeof(T) == 4 ? DType::f32 : DType::f64;
  uint64_t cases = 0;
  std::vector<std::string> bad;
  auto bounds = test::adversarial_bounds();
  if (sizeof(T) == 4) bounds.push_back({EbMode::abs, 1e-46});  // every value exact, as on the CPU
  int k = 0;
  for (const std::string& p : pipelines())
    for (const auto& pat : test::adversarial_patterns())
      for (const Shape& shape : test::adversarial_shapes(pat.single))
        for (const ErrorBound& eb : bounds) {
          const auto x = test::adversarial_field<T>(pat.name, shape.count(), static_cast<uint32_t>(shape.count()));
          const std::string where = p + " " + pat.name + " " + shape.str() + " eb " + std::to_string(eb.value);
          CompressOptions o;
          o.pipeline = p;
          o.eb = eb;
          o.chunk_mb = (k++ % 2) ? 0.001 : 0;
          o.device = Device::cpu;
          ++cases;
          try {
            const auto cpu = compress({x.data(), dt, shape}, o);
            o.device = Device::cuda;
            if (compress({x.data(), dt, shape}, o) != cpu) bad.push_back(where + ": GPU stream (host field) differs");
            const auto d_x = test::upload(x);
            if (compress({d_x.get(), dt, shape, true}, o) != cpu) bad.push_back(where + ": GPU stream (device field) differs");
            std::vector<T> a(x.size()), b(x.size());
            decompress(cpu, a.data(), a.size() * sizeof(T), Device::cpu);
            decompress(cpu, b.data(), b.size() * sizeof(T), Device::cuda);
            if (!test::same_bits(a, b)) bad.push_back(where + ": GPU decode differs");
          } catch (const Error& e) {
            bad.push_back(where + ": " + e.what());
          }
        }
  std::printf("adversarial values on the GPU, %s: %llu cases, %zu differences\n", dtype_name(dt),
              static_cast<unsigned long long>(cases), bad.size());
  for (size_t i = 0; i < bad.size() && i < 25; ++i) ADD_FAILURE() << bad[i];
}

}  // namespace

TEST(AdversarialValuesGpu, SameStreamsAndBitsAsCpuF32) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  matrix<float>();
}

TEST(AdversarialValuesGpu, SameStreamsAndBitsAsCpuF64) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  matrix<double>();
}
