// The real fields of ../shared/data (NAME_D1xD2...xDn.f32|f64), found by name, for the
// extended tests; absent on a user's fresh clone, where those tests skip.
#pragma once
#include <sciz/sciz.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/test_data.hpp"

namespace sciz::test {

struct RealField {
  std::filesystem::path path;
  std::string name;
  DType dtype;
  Shape shape;
};

inline std::vector<RealField> real_fields(const std::filesystem::path& dir) {
  std::vector<RealField> out;
  for (const auto& ent : std::filesystem::directory_iterator(dir)) {
    const std::string fn = ent.path().filename().string();
    const auto dot = fn.rfind('.');
    if (dot == std::string::npos) continue;
    const std::string ext = fn.substr(dot + 1);
    if (ext != "f32" && ext != "f64") continue;
    const auto us = fn.rfind('_', dot);
    if (us == std::string::npos) continue;
    RealField f{ent.path(), fn.substr(0, dot), ext == "f32" ? DType::f32 : DType::f64,
                Shape::parse(fn.substr(us + 1, dot - us - 1))};
    out.push_back(f);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

// Calls visit(field, values) for every real field in dir, values a std::vector<float> or
// std::vector<double> holding the file (whose size was checked against the name's dims).
template <class Visit>
void for_each_real_field(const std::filesystem::path& dir, Visit&& visit) {
  for (const auto& f : real_fields(dir)) {
    const auto raw = read_file(f.path);
    if (raw.size() != f.shape.count() * dtype_size(f.dtype))
      throw std::runtime_error(f.path.string() + ": size does not match the dims in its name");
    auto typed = [&](auto zero) {
      std::vector<decltype(zero)> x(f.shape.count());
      std::memcpy(x.data(), raw.data(), raw.size());
      visit(f, x);
    };
    if (f.dtype == DType::f32)
      typed(0.0f);
    else
      typed(0.0);
  }
}

}  // namespace sciz::test
