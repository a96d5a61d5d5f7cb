// The real fields of ../shared/data (NAME_D1xD2...xDn.f32|f64), found by name, for the
// extended tests; absent on a user's fresh clone, where those tests skip.
#pragma once
#include <sciz/sciz.hpp>

#include <algorithm>
#include <filesystem>
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

}  // namespace sciz::test
