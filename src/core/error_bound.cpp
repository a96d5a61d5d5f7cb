#include "core/error_bound.hpp"

#include <sciz/error.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace sciz {

void validate_bound(const ErrorBound& eb) {
  if (!(std::isfinite(eb.value) && eb.value > 0)) {
    std::ostringstream o;
    o << "error bound must be a finite number > 0, got " << eb.value;
    fail(Status::invalid_argument, o.str());
  }
}

double resolve_bound(const ErrorBound& eb, const ValueRange& r) {
  validate_bound(eb);
  if (eb.mode == EbMode::abs) return eb.value;
  double scale = r.span();
  if (!(scale > 0)) scale = std::max(std::fabs(r.min), std::fabs(r.max));
  if (!(scale > 0) || !std::isfinite(scale)) scale = 1.0;
  const double abs_eb = eb.value * scale;
  if (!(abs_eb > 0 && std::isfinite(abs_eb))) {
    std::ostringstream o;
    o << "relative bound " << eb.value << " x range " << scale << " gives no usable absolute bound";
    fail(Status::invalid_argument, o.str());
  }
  return abs_eb;
}

}  // namespace sciz
