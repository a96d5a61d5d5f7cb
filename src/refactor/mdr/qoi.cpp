// Progressive retrieval under a tolerance on a quantity of interest (HP-MDR Algorithm 3, error
// estimates of Wu et al., docs/MDR.md section 6): retrieve every component at its current
// bound, bound the quantity's error at every point from the retrieved values, and refine the
// components with CP, MA or MAPE until the largest of those bounds meets the tolerance.
#include <sciz/mdr.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/omp_threads.hpp"

namespace sciz::mdr {

const char* qoi_name(Qoi q) {
  switch (q) {
    case Qoi::vtotal: return "vtotal";
    case Qoi::magnitude: return "magnitude";
    default: return "linear";
  }
}

Qoi parse_qoi(const std::string& s) {
  if (s == "vtotal") return Qoi::vtotal;
  if (s == "magnitude") return Qoi::magnitude;
  if (s == "linear") return Qoi::linear;
  fail(Status::invalid_argument, "unknown quantity of interest '" + s + "' (vtotal, magnitude or linear)");
}

const char* qoi_method_name(QoiMethod m) {
  switch (m) {
    case QoiMethod::cp: return "cp";
    case QoiMethod::ma: return "ma";
    default: return "mape";
  }
}

QoiMethod parse_qoi_method(const std::string& s) {
  if (s == "cp") return QoiMethod::cp;
  if (s == "ma") return QoiMethod::ma;
  if (s == "mape") return QoiMethod::mape;
  fail(Status::invalid_argument, "unknown QoI method '" + s + "' (cp, ma or mape)");
}

namespace {

constexpr int kMaxComponents = 8;

// The quantity at one point, and the bound on its error when component i is within e[i]:
// Vtotal: |V_i^2 - V'_i^2| = |V_i - V'_i| |V_i + V'_i| <= e_i (2 |V'_i| + e_i); magnitude:
// | |V| - |V'| | <= |V - V'| <= sqrt(sum e_i^2) (triangle inequality); linear: sum |w_i| e_i.
double quantity(Qoi q, const double* v, int n, const std::vector<double>& w) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += q == Qoi::linear ? w[i] * v[i] : v[i] * v[i];
  return q == Qoi::magnitude ? std::sqrt(s) : s;
}
double error_bound(Qoi q, const double* v, const double* e, int n, const std::vector<double>& w) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    if (q == Qoi::vtotal) s += e[i] * (2 * std::fabs(v[i]) + e[i]);
    else if (q == Qoi::magnitude) s += e[i] * e[i];
    else s += std::fabs(w[i]) * e[i];
  }
  return q == Qoi::magnitude ? std::sqrt(s) : s;
}

struct Scan {
  double est = 0;  // largest error bound over the points
  uint64_t worst = 0;
  double qmin = INFINITY, qmax = -INFINITY, qabs = 0;
};

template <class T>
Scan scan(Qoi q, const std::vector<const T*>& v, uint64_t count, const double* e, const std::vector<double>& w) {
  const int n = static_cast<int>(v.size());
  Scan out;
  for (uint64_t p = 0; p < count; ++p) {
    double x[kMaxComponents];
    bool finite = true;
    for (int i = 0; i < n; ++i) {
      x[i] = static_cast<double>(v[i][p]);
      finite = finite && std::isfinite(x[i]);
    }
    if (!finite) continue;  // a NaN/Inf component came back exactly: so does the quantity
    const double qv = quantity(q, x, n, w), b = error_bound(q, x, e, n, w);
    if (b > out.est) out.est = b, out.worst = p;
    out.qmin = std::min(out.qmin, qv), out.qmax = std::max(out.qmax, qv), out.qabs = std::max(out.qabs, std::fabs(qv));
  }
  return out;
}

}  // namespace

QoiResult retrieve_qoi(std::span<Retriever* const> comps, double rel, const QoiOptions& opt, std::span<void* const> outs) {
  const int n = static_cast<int>(comps.size());
  SCIZ_REQUIRE(n >= 1 && n <= kMaxComponents && outs.size() == comps.size(), Status::invalid_argument,
               "qoi: " + std::to_string(n) + " components and " + std::to_string(outs.size()) + " outputs (1 to 8, one each)");
  SCIZ_REQUIRE(std::isfinite(rel) && rel > 0, Status::invalid_argument, "qoi: tolerance " + std::to_string(rel));
  SCIZ_REQUIRE(opt.qoi != Qoi::linear || opt.weights.size() == comps.size(), Status::invalid_argument,
               "qoi: a linear combination needs one weight per component (" + std::to_string(opt.weights.size()) + " for " +
                   std::to_string(n) + ")");
  const FileInfo& first = comps[0]->info();
  for (int i = 1; i < n; ++i)
    SCIZ_REQUIRE(comps[i]->info().shape.dims == first.shape.dims && comps[i]->info().dtype == first.dtype,
                 Status::invalid_argument, "qoi: component " + std::to_string(i) + " is " + comps[i]->info().shape.str() +
                                               " " + dtype_name(comps[i]->info().dtype) + ", component 0 " +
                                               first.shape.str() + " " + dtype_name(first.dtype));
  const uint64_t count = first.shape.count(), bytes = count * dtype_size(first.dtype);

  // The paper's start: the relative tolerance applied to each component's own range.
  std::vector<double> eps(n), e(n);
  for (int i = 0; i < n; ++i) eps[i] = comps[i]->resolve({EbMode::rel, rel});
  QoiResult res;
  for (res.iterations = 1; res.iterations <= opt.max_iterations; ++res.iterations) {
    for (int i = 0; i < n; ++i) {
      // A bound below the finest reads everything; its bound is what we get.
      e[i] = comps[i]->retrieve({EbMode::abs, std::max(eps[i], comps[i]->info().finest_bound)}, outs[i], bytes).bound;
    }
    Scan s;
    if (first.dtype == DType::f32) {
      std::vector<const float*> v;
      for (void* o : outs) v.push_back(static_cast<const float*>(o));
      s = scan(opt.qoi, v, count, e.data(), opt.weights);
    } else {
      std::vector<const double*> v;
      for (void* o : outs) v.push_back(static_cast<const double*>(o));
      s = scan(opt.qoi, v, count, e.data(), opt.weights);
    }
    // Margins for evaluating the estimate and the quantity in double (ours and a checker's).
    res.estimate = s.est * (1 + 0x1p-40) + 0x1p-48 * s.qabs;
    // Every point's Q is within the estimate of Q', so the true range is at least this.
    const double range = s.qmax >= s.qmin ? s.qmax - s.qmin - 2 * res.estimate : 0.0;
    res.tolerance = rel * std::max(range, 0.0);
    res.bounds = e;
    res.met = res.estimate <= res.tolerance;
    if (res.met) break;
    bool more = false;
    for (int i = 0; i < n; ++i) more = more || comps[i]->next_bound() < comps[i]->held_bound();
    if (!more) break;  // everything read, still above: not met
    const double ratio = res.tolerance > 0 ? res.estimate / res.tolerance : INFINITY;
    if (opt.method == QoiMethod::cp) {
      // Halve every bound until the worst point, re-evaluated with its current values, meets
      // the tolerance (the stale-data estimate of the CPU method).
      double x[kMaxComponents];
      for (int i = 0; i < n; ++i)
        x[i] = first.dtype == DType::f32 ? static_cast<const float*>(outs[i])[s.worst]
                                         : static_cast<const double*>(outs[i])[s.worst];
      std::vector<double> t = e;
      for (int k = 0; k < 64; ++k) {
        for (double& b : t) b *= 0.5;
        if (error_bound(opt.qoi, x, t.data(), n, opt.weights) <= res.tolerance) break;
      }
      eps = t;
    } else if (opt.method == QoiMethod::mape && ratio > opt.mape_c) {
      for (int i = 0; i < n; ++i) eps[i] = e[i] / ratio;
    } else {
      for (int i = 0; i < n; ++i) eps[i] = comps[i]->next_bound();
    }
  }
  res.iterations = std::min(res.iterations, opt.max_iterations);
  for (Retriever* r : comps) res.bytes_read += r->held_bytes();
  return res;
}

}  // namespace sciz::mdr
