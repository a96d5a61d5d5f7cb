// Extended test: every real field in ../shared/data at rel 1e-2, 1e-3, 1e-4 on the CPU, every
// point checked. Prints the ratio table quoted in closing notes. Skips when the folder is absent.
#include <gtest/gtest.h>

#include <cstdio>

#include "support/shared_fields.hpp"

using namespace sciz;

namespace {
template <class T>
void check_field(const test::RealField& f, const std::vector<T>& x) {
  for (double rel : {1e-2, 1e-3, 1e-4}) {
    CompressOptions o;
    o.eb = {EbMode::rel, rel};
    o.device = Device::cpu;
    auto st = compress({x.data(), f.dtype, f.shape}, o);
    const double eb = inspect(st).eb_abs;
    std::vector<T> y(x.size());
    decompress(st, y.data(), y.size() * sizeof(T), Device::cpu);
    double maxerr = 0;
    for (size_t i = 0; i < x.size(); ++i)
      if (std::isfinite(x[i])) maxerr = std::max(maxerr, std::fabs(static_cast<double>(x[i]) - static_cast<double>(y[i])));
    std::printf("| %-52s | %-6g | %9.2f | %6.4f |\n", f.name.c_str(), rel,
                static_cast<double>(x.size() * sizeof(T)) / st.size(), maxerr / eb);
    EXPECT_EQ(test::check_bound(x, y, eb), "") << f.name << " rel " << rel;
  }
}
}  // namespace

TEST(SharedData, EveryFieldEveryBoundCpu) {
  const auto dir = test::shared_data_dir();
  if (!dir) GTEST_SKIP() << "../shared/data absent (fresh clone): extended test skipped";
  std::printf("| %-52s | %-6s | %9s | %6s |\n", "field", "rel eb", "ratio", "err/eb");
  test::for_each_real_field(*dir, [](const test::RealField& f, const auto& x) { check_field(f, x); });
}
