// Round trip through the C++ API with every point checked, then the C API (c_api.c).
#include <sciz/sciz.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

extern "C" int c_api_round_trip(void);

int main() {
  std::vector<float> field(64 * 48);
  for (size_t i = 0; i < field.size(); ++i) field[i] = std::sin(0.05f * static_cast<float>(i)) * 100.0f;
  sciz::CompressOptions opt;
  opt.eb = {sciz::EbMode::abs, 0.01};
  opt.device = sciz::Device::cpu;
  const auto stream = sciz::compress({field.data(), sciz::DType::f32, sciz::Shape::parse("64x48")}, opt);
  std::vector<float> back(field.size());
  sciz::decompress(stream, back.data(), back.size() * sizeof(float), sciz::Device::cpu);
  for (size_t i = 0; i < field.size(); ++i) {
    if (!(std::fabs(static_cast<double>(field[i]) - back[i]) <= 0.01)) {
      std::printf("C++ API: point %zu misses the bound\n", i);
      return 1;
    }
  }
  if (c_api_round_trip() != 0) return 1;
  std::printf("C++ and C API round trips within the bound (%zu bytes, %s)\n", stream.size(),
              sciz::cuda_available() ? "CUDA" : "CPU");
  return 0;
}
