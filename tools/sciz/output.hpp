// Report rendering: aligned "label  value" tables for people, one JSON object for scripts.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sciz::cli {

std::string fmt_g(double v, int digits = 6);  // printf %g, with inf/-inf/nan spelled out

class Table {
 public:
  void row(const std::string& label, const std::string& value) { rows_.emplace_back(label, value); }
  std::string str() const;

 private:
  std::vector<std::pair<std::string, std::string>> rows_;
};

// Values are rendered as they are added; str(0) is compact (one line). Non-finite doubles become null: JSON has no inf/NaN,
// and a strict parser must accept every report (psnr_db of an exact reconstruction is null).
class Json {
 public:
  Json& add(const std::string& key, const std::string& v);
  Json& add(const std::string& key, const char* v) { return add(key, std::string(v)); }
  Json& add(const std::string& key, double v);
  Json& add(const std::string& key, uint64_t v);
  Json& add(const std::string& key, int v) { return add(key, static_cast<uint64_t>(v)); }
  Json& add(const std::string& key, bool v);
  Json& add_null(const std::string& key);
  Json& add_raw(const std::string& key, const std::string& json);  // already rendered
  std::string str(int indent = 2, int depth = 0) const;

  static std::string string(const std::string& s);
  static std::string number(double v);
  static std::string array(const std::vector<std::string>& rendered);

 private:
  std::vector<std::pair<std::string, std::string>> fields_;
};

}  // namespace sciz::cli
