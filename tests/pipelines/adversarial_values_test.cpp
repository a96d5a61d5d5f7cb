// Every pipeline in the registry x f32/f64 x 1-4 dims x the adversarial patterns x bounds from
// 1e-30 to 1e30 (support/adversarial_fields.hpp), in one chunk and in chunks of 1 KiB: every
// point within the resolved bound in double and in T arithmetic, every non-finite value back
// bit for bit, and where the bound leaves no other value (f32 under 1e-46) every value exact,
// the sign of zero included. A pipeline that joins the registry joins the matrix.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "support/adversarial_fields.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

struct Tally {
  uint64_t cases = 0, points = 0;
  std::map<std::string, std::pair<uint64_t, uint64_t>> coded;  // pipeline: chunks it coded, of all
  std::vector<std::string> violations;
  void add(const std::string& where, const std::string& what) {
    violations.push_back(where + ": " + what);
  }
};

template <class T>
std::string exact(const std::vector<T>& x, const std::vector<T>& y) {
  for (size_t i = 0; i < x.size(); ++i)
    if (test::bits_of(x[i]) != test::bits_of(y[i]))
      return "point " + std::to_string(i) + " not exact under a bound below every spacing (bits " +
             std::to_string(test::bits_of(x[i])) + " -> " + std::to_string(test::bits_of(y[i])) + ")";
  return "";
}

template <class T>
void run_case(const std::string& pipeline, const std::string& pattern, const Shape& shape, const ErrorBound& eb,
              double chunk_mb, Tally& t) {
  const DType dt = sizeof(T) == 4 ? DType::f32 : DType::f64;
  const auto x = test::adversarial_field<T>(pattern, shape.count(), static_cast<uint32_t>(shape.count()));
  const std::string where = pipeline + " " + dtype_name(dt) + " " + shape.str() + " " + pattern + " " +
                            (eb.mode == EbMode::abs ? "abs " : "rel ") + std::to_string(eb.value) +
                            (chunk_mb > 0 ? " chunked" : "");
  CompressOptions o;
  o.pipeline = pipeline;
  o.device = Device::cpu;
  o.eb = eb;
  o.chunk_mb = chunk_mb;
  ++t.cases;
  t.points += x.size();
  std::vector<uint8_t> s;
  try {
    s = compress({x.data(), dt, shape}, o);
  } catch (const Error& e) {
    return t.add(where, std::string("compress refused: ") + e.what());
  }
  std::vector<T> y(x.size());
  double eb_abs = 0;
  try {
    const StreamInfo info = inspect(s);
    eb_abs = info.eb_abs;
    for (const auto& c : info.chunks) {
      t.coded[pipeline].first += c.pipeline == pipeline;
      ++t.coded[pipeline].second;
    }
    decompress(s, y.data(), y.size() * sizeof(T), Device::cpu);
  } catch (const Error& e) {
    return t.add(where, std::string("its own stream refused: ") + e.what());
  }
  if (eb.mode == EbMode::abs && eb_abs != eb.value) t.add(where, "resolved bound " + std::to_string(eb_abs));
  if (const std::string b = test::check_bound(x, y, eb_abs); !b.empty()) t.add(where, b);
  if (eb_abs < static_cast<double>(std::numeric_limits<T>::denorm_min()) / 2)
    if (const std::string b = exact(x, y); !b.empty()) t.add(where, b);
}

template <class T>
void matrix(Tally& t) {
  auto bounds = test::adversarial_bounds();
  if (sizeof(T) == 4) bounds.push_back({EbMode::abs, 1e-46});  // below half f32's smallest spacing
  int k = 0;
  for (const std::string& p : pipelines())
    for (const auto& pat : test::adversarial_patterns())
      for (const Shape& shape : test::adversarial_shapes(pat.single))
        for (const ErrorBound& eb : bounds)
          run_case<T>(p, pat.name, shape, eb, (k++ % 2) ? 0.001 : 0, t);
}

void report(const char* type, const Tally& t) {
  std::printf("adversarial values, %s: %llu round trips, %llu points, %zu violations\n", type,
              static_cast<unsigned long long>(t.cases), static_cast<unsigned long long>(t.points), t.violations.size());
  // Chunks a pipeline would expand are stored raw, which passes trivially: the matrix is only
  // worth something if each pipeline codes a good share of them itself.
  for (const auto& [p, c] : t.coded) {
    std::printf("  %s coded %llu of %llu chunks\n", p.c_str(), static_cast<unsigned long long>(c.first),
                static_cast<unsigned long long>(c.second));
    EXPECT_GE(c.first * 4, c.second) << p << " coded under a quarter of the chunks itself";
  }
  for (size_t i = 0; i < t.violations.size() && i < 25; ++i) ADD_FAILURE() << t.violations[i];
  EXPECT_TRUE(t.violations.empty()) << t.violations.size() << " violations";
}

}  // namespace

TEST(AdversarialValues, EveryPipelineF32) {
  Tally t;
  matrix<float>(t);
  report("f32", t);
}

TEST(AdversarialValues, EveryPipelineF64) {
  Tally t;
  matrix<double>(t);
  report("f64", t);
}
