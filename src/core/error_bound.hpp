// Turn the user's bound (absolute, or relative to the finite value range) into the one
// absolute bound the stream records and every point honours.
#pragma once
#include <sciz/types.hpp>

#include "core/value_range.hpp"

namespace sciz {

void validate_bound(const ErrorBound& eb);  // finite and > 0, else invalid_argument
// Relative bounds of a constant (or all-non-finite) field have no range to scale: they fall
// back to rel x max|value|, or to rel itself when that is zero too. Documented in FORMAT.md.
double resolve_bound(const ErrorBound& eb, const ValueRange& r);

}  // namespace sciz
