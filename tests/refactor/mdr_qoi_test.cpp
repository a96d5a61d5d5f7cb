// Retrieval under a QoI tolerance: for Vtotal, the magnitude and linear combinations, with CP,
// MA and MAPE, the actual error of the quantity at every point stays within the estimate, the
// estimate within the tolerance, and the tolerance within rel x the true range of the quantity.
#include <gtest/gtest.h>

#include <cmath>

#include "refactor/mdr_support.hpp"
#include "support/test_data.hpp"

using namespace sciz;

namespace {

template <class T>
double quantity(mdr::Qoi q, const std::vector<std::vector<T>>& v, size_t p, const std::vector<double>& w) {
  double s = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const double x = static_cast<double>(v[i][p]);
    s += q == mdr::Qoi::linear ? w[i] * x : x * x;
  }
  return q == mdr::Qoi::magnitude ? std::sqrt(s) : s;
}

template <class T>
void check_qoi(const std::vector<std::vector<T>>& comps, const Shape& shape, mdr::Qoi q, const std::vector<double>& w,
               const std::string& what) {
  std::vector<std::vector<uint8_t>> files;
  for (const auto& c : comps) files.push_back(test::refactor_vec(c, shape.dims));
  double qmin = INFINITY, qmax = -INFINITY;
  for (size_t p = 0; p < shape.count(); ++p) {
    const double v = quantity(q, comps, p, w);
    if (std::isfinite(v)) qmin = std::min(qmin, v), qmax = std::max(qmax, v);
  }
  for (mdr::QoiMethod m : {mdr::QoiMethod::cp, mdr::QoiMethod::ma, mdr::QoiMethod::mape}) {
    uint64_t prev_bytes = 0;
    for (double rel : {1e-1, 1e-2, 1e-3, 1e-4, 1e-5}) {
      std::vector<mdr::Retriever> rs;
      for (const auto& f : files) rs.emplace_back(mdr::memory_source(f));
      std::vector<mdr::Retriever*> rp;
      for (auto& r : rs) rp.push_back(&r);
      std::vector<std::vector<T>> out(comps.size(), std::vector<T>(shape.count()));
      std::vector<void*> op;
      for (auto& o : out) op.push_back(o.data());
      mdr::QoiOptions opt;
      opt.qoi = q, opt.weights = w, opt.method = m;
      const mdr::QoiResult got = mdr::retrieve_qoi(rp, rel, opt, op);
      const std::string at = what + " " + mdr::qoi_method_name(m) + " rel " + std::to_string(rel);
      ASSERT_TRUE(got.met) << at << ": estimate " << got.estimate << " tolerance " << got.tolerance;
      ASSERT_LE(got.tolerance, rel * (qmax - qmin)) << at;
      double actual = 0;
      for (size_t p = 0; p < shape.count(); ++p) {
        const double a = quantity(q, comps, p, w), b = quantity(q, out, p, w);
        if (std::isfinite(a)) actual = std::max(actual, std::fabs(a - b));
      }
      ASSERT_LE(actual, got.estimate) << at;
      ASSERT_LE(got.estimate, got.tolerance) << at;
      EXPECT_GE(got.bytes_read, prev_bytes) << at << ": a tighter tolerance read less";
      prev_bytes = got.bytes_read;
    }
  }
}

}  // namespace

TEST(MdrQoi, VtotalOfThreeComponents) {
  const Shape s{{9, 21, 26}};
  std::vector<std::vector<float>> v = {test::smooth_field<float>(s, 1), test::smooth_field<float>(s, 2),
                                       test::smooth_field<float>(s, 3)};
  for (auto& x : v[2]) x *= 0.01f;  // a weak vertical component, as in the WRF winds
  v[0][17] = std::numeric_limits<float>::quiet_NaN();  // a masked point: skipped, back exactly
  check_qoi(v, s, mdr::Qoi::vtotal, {}, "vtotal");
}

TEST(MdrQoi, MagnitudeAndLinearOfTwoComponents) {
  const Shape s{{40, 57}};
  std::vector<std::vector<double>> v = {test::smooth_field<double>(s, 4), test::random_field<double>(s.count(), 5, 3.0)};
  check_qoi(v, s, mdr::Qoi::magnitude, {}, "magnitude");
  check_qoi(v, s, mdr::Qoi::linear, {2.0, -0.5}, "linear");
}

TEST(MdrQoi, RefusesMismatchedComponents) {
  const auto a = test::refactor_vec(test::smooth_field<float>(Shape{{10, 10}}, 1), {10, 10});
  const auto b = test::refactor_vec(test::smooth_field<float>(Shape{{100}}, 1), {100});
  mdr::Retriever ra(mdr::memory_source(a)), rb(mdr::memory_source(b));
  std::vector<float> x(100), y(100);
  std::vector<mdr::Retriever*> rp = {&ra, &rb};
  std::vector<void*> op = {x.data(), y.data()};
  EXPECT_THROW(mdr::retrieve_qoi(rp, 1e-2, {}, op), Error);
  mdr::QoiOptions lin;
  lin.qoi = mdr::Qoi::linear;
  std::vector<mdr::Retriever*> one = {&ra};
  std::vector<void*> o1 = {x.data()};
  EXPECT_THROW(mdr::retrieve_qoi(one, 1e-2, lin, o1), Error);  // no weights
  EXPECT_THROW(mdr::parse_qoi("speed"), Error);
}
