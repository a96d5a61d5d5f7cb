#include "output.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace sciz::cli {

std::string fmt_g(double v, int digits) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string Table::str() const {
  size_t w = 0;
  for (const auto& [label, value] : rows_) w = std::max(w, label.size());
  std::string out;
  for (const auto& [label, value] : rows_) out += label + std::string(w + 2 - label.size(), ' ') + value + "\n";
  return out;
}

std::string Json::string(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': o += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          o += buf;
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  return o + "\"";
}

std::string Json::number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  // Shortest text that reads back to the same double: scripts see exactly what we measured.
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string Json::array(const std::vector<std::string>& rendered) {
  std::string o = "[";
  for (size_t k = 0; k < rendered.size(); ++k) o += (k ? ", " : "") + rendered[k];
  return o + "]";
}

Json& Json::add(const std::string& key, const std::string& v) { return add_raw(key, string(v)); }
Json& Json::add(const std::string& key, double v) { return add_raw(key, number(v)); }
Json& Json::add(const std::string& key, uint64_t v) { return add_raw(key, std::to_string(v)); }
Json& Json::add(const std::string& key, bool v) { return add_raw(key, v ? "true" : "false"); }
Json& Json::add_null(const std::string& key) { return add_raw(key, "null"); }
Json& Json::add_raw(const std::string& key, const std::string& json) {
  fields_.emplace_back(key, json);
  return *this;
}

std::string Json::str(int indent, int depth) const {
  if (fields_.empty()) return "{}";
  if (indent == 0) {  // compact, one line: for small objects inside arrays
    std::string o = "{";
    for (size_t k = 0; k < fields_.size(); ++k) o += (k ? ", " : "") + string(fields_[k].first) + ": " + fields_[k].second;
    return o + "}";
  }
  const std::string pad(static_cast<size_t>(indent) * (depth + 1), ' ');
  const std::string close(static_cast<size_t>(indent) * depth, ' ');
  std::string o = "{\n";
  for (size_t k = 0; k < fields_.size(); ++k)
    o += pad + string(fields_[k].first) + ": " + fields_[k].second + (k + 1 < fields_.size() ? ",\n" : "\n");
  return o + close + "}";
}

}  // namespace sciz::cli
