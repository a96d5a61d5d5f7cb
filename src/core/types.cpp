#include <sciz/error.hpp>
#include <sciz/types.hpp>

#include <cstdlib>
#include <sstream>

namespace sciz {

const char* dtype_name(DType t) { return t == DType::f32 ? "f32" : "f64"; }

DType parse_dtype(const std::string& s) {
  if (s == "f32" || s == "float32" || s == "float") return DType::f32;
  if (s == "f64" || s == "float64" || s == "double") return DType::f64;
  fail(Status::invalid_argument, "unknown data type '" + s + "' (expected f32 or f64)");
}

const char* device_name(Device d) {
  switch (d) {
    case Device::cpu: return "cpu";
    case Device::cuda: return "cuda";
    default: return "auto";
  }
}

Device parse_device(const std::string& s) {
  if (s == "cpu") return Device::cpu;
  if (s == "cuda" || s == "gpu") return Device::cuda;
  if (s == "auto") return Device::auto_select;
  fail(Status::invalid_argument, "unknown device '" + s + "' (expected cpu, cuda or auto)");
}

const char* interp_spline_name(InterpSpline s) {
  switch (s) {
    case InterpSpline::auto_select: return "auto";
    case InterpSpline::linear: return "linear";
    case InterpSpline::cubic: return "cubic";
  }
  return "unknown";
}

InterpSpline parse_interp_spline(const std::string& s) {
  for (InterpSpline v : {InterpSpline::auto_select, InterpSpline::linear, InterpSpline::cubic})
    if (s == interp_spline_name(v)) return v;
  fail(Status::invalid_argument, "unknown interp spline '" + s + "' (auto, linear, cubic)");
}

const char* interp_scheme_name(InterpScheme s) {
  switch (s) {
    case InterpScheme::auto_select: return "auto";
    case InterpScheme::dim_zyx: return "zyx";
    case InterpScheme::dim_xyz: return "xyz";
    case InterpScheme::multi_dim: return "md";
    case InterpScheme::cross: return "cross";
  }
  return "unknown";
}

InterpScheme parse_interp_scheme(const std::string& s) {
  for (InterpScheme v : {InterpScheme::auto_select, InterpScheme::dim_zyx, InterpScheme::dim_xyz, InterpScheme::multi_dim,
                         InterpScheme::cross})
    if (s == interp_scheme_name(v)) return v;
  fail(Status::invalid_argument, "unknown interp scheme '" + s + "' (auto, zyx, xyz, md, cross)");
}

uint64_t Shape::count() const {
  uint64_t n = dims.empty() ? 0 : 1;
  for (auto d : dims) n *= d;
  return n;
}

std::string Shape::str() const {
  std::ostringstream o;
  for (size_t i = 0; i < dims.size(); ++i) o << (i ? "x" : "") << dims[i];
  return o.str();
}

Shape Shape::parse(const std::string& s) {
  Shape sh;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t end = s.find_first_of("x,", pos);
    if (end == std::string::npos) end = s.size();
    std::string tok = s.substr(pos, end - pos);
    if (tok.empty() || tok.find_first_not_of("0123456789") != std::string::npos || tok.size() > 15)
      fail(Status::invalid_argument, "bad dims '" + s + "': expected e.g. 100x500x500");
    sh.dims.push_back(std::strtoull(tok.c_str(), nullptr, 10));
    pos = end + 1;
  }
  sh.validate();
  return sh;
}

void Shape::validate() const {
  SCIZ_REQUIRE(!dims.empty() && dims.size() <= 4, Status::invalid_argument,
          "dims must have 1 to 4 entries, got " + std::to_string(dims.size()));
  uint64_t n = 1;
  for (auto d : dims) {
    SCIZ_REQUIRE(d >= 1, Status::invalid_argument, "dims '" + str() + "' contain a zero: empty array");
    SCIZ_REQUIRE(d < (1ull << 48) && n <= (1ull << 48) / d, Status::invalid_argument,
            "dims '" + str() + "' hold more than 2^48 values");
    n *= d;
  }
}

}  // namespace sciz
