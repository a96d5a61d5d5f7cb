#include "npy.hpp"

#include <sciz/error.hpp>

#include <cctype>
#include <cstring>
#include <memory>
#include <vector>

#include "cli_error.hpp"

namespace sciz::cli {

namespace {

constexpr uint8_t kMagic[kNpyMagicLen] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr uint64_t kMaxHeaderLen = 1u << 20;  // numpy itself refuses headers far smaller

// The header is a Python dict literal. A small literal parser (strings, ints, booleans, None,
// tuples, lists, dicts) reads it; keys are then looked up rather than matched by position, so
// any key order or spacing numpy has used or will use is fine.
struct Value {
  enum Kind { str, integer, boolean, none, seq, dict } kind = none;
  std::string s;
  uint64_t i = 0;
  bool b = false;
  std::vector<Value> items;
  // Keys and values of a dict side by side: a pair<string, Value> inside Value would need
  // Value complete (libc++ and clang's libstdc++ checks refuse it; only vector<Value> may not).
  std::vector<std::string> keys;
  std::vector<Value> values;
};

class LiteralParser {
 public:
  LiteralParser(const std::string& text, const std::string& what) : t_(text), what_(what) {}

  Value parse_top() {
    Value v = value(0);
    skip_ws();
    if (pos_ != t_.size()) bad("unexpected text after the header dict");
    return v;
  }

 private:
  [[noreturn]] void bad(const std::string& why) const {
    data_error(quote(what_) + ": malformed npy header (" + why + " at byte " + std::to_string(pos_) + ")");
  }
  void skip_ws() {
    while (pos_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip_ws();
    if (pos_ < t_.size() && t_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool word(const char* w) {
    const size_t n = std::strlen(w);
    if (t_.compare(pos_, n, w) == 0) {
      pos_ += n;
      return true;
    }
    return false;
  }

  Value value(int depth) {
    if (depth > 16) bad("nesting too deep");
    skip_ws();
    if (pos_ >= t_.size()) bad("unexpected end");
    Value v;
    const char c = t_[pos_];
    if (c == '\'' || c == '"') {
      v.kind = Value::str;
      ++pos_;
      while (pos_ < t_.size() && t_[pos_] != c) {
        if (t_[pos_] == '\\') ++pos_;
        if (pos_ < t_.size()) v.s += t_[pos_++];
      }
      if (pos_ >= t_.size()) bad("unterminated string");
      ++pos_;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      v.kind = Value::integer;
      while (pos_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[pos_]))) {
        if (v.i > (UINT64_MAX - 9) / 10) bad("integer too large");
        v.i = v.i * 10 + static_cast<uint64_t>(t_[pos_++] - '0');
      }
      if (pos_ < t_.size() && t_[pos_] == 'L') ++pos_;  // Python 2 longs in old files
    } else if (word("True")) {
      v.kind = Value::boolean, v.b = true;
    } else if (word("False")) {
      v.kind = Value::boolean, v.b = false;
    } else if (word("None")) {
      v.kind = Value::none;
    } else if (c == '(' || c == '[') {
      v.kind = Value::seq;
      const char close = c == '(' ? ')' : ']';
      ++pos_;
      while (!eat(close)) {
        v.items.push_back(value(depth + 1));
        if (!eat(',')) {
          if (!eat(close)) bad("expected ',' or closing bracket");
          break;
        }
      }
    } else if (c == '{') {
      v.kind = Value::dict;
      ++pos_;
      while (!eat('}')) {
        Value k = value(depth + 1);
        if (k.kind != Value::str) bad("dict key is not a string");
        if (!eat(':')) bad("expected ':'");
        v.keys.push_back(k.s);
        v.values.push_back(value(depth + 1));
        if (!eat(',')) {
          if (!eat('}')) bad("expected ',' or '}'");
          break;
        }
      }
    } else {
      bad(std::string("unexpected character '") + c + "'");
    }
    return v;
  }

  const std::string& t_;
  const std::string& what_;
  size_t pos_ = 0;
};

const Value* key(const Value& d, const char* k) {
  for (size_t i = 0; i < d.keys.size(); ++i)
    if (d.keys[i] == k) return &d.values[i];
  return nullptr;
}

uint32_t le32(const uint8_t* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24); }

}  // namespace

bool has_npy_magic(const uint8_t* p, size_t n) { return n >= kNpyMagicLen && std::memcmp(p, kMagic, kNpyMagicLen) == 0; }

uint64_t npy_preamble_size(const uint8_t* p, size_t n, const std::string& what) {
  if (n < 10) data_error(quote(what) + ": truncated npy file (" + std::to_string(n) + " bytes, no complete header)");
  const int major = p[6], minor = p[7];
  uint64_t len;
  uint64_t fixed;
  if (major == 1) {
    len = p[8] | (p[9] << 8);
    fixed = 10;
  } else if (major == 2 || major == 3) {
    if (n < 12) data_error(quote(what) + ": truncated npy file (" + std::to_string(n) + " bytes, no complete header)");
    len = le32(p + 8);
    fixed = 12;
  } else {
    data_error(quote(what) + ": unsupported npy format version " + std::to_string(major) + "." + std::to_string(minor) +
               " (sciz reads 1.0, 2.0 and 3.0)");
  }
  if (len > kMaxHeaderLen) data_error(quote(what) + ": npy header length " + std::to_string(len) + " is implausible");
  return fixed + len;
}

NpyHeader parse_npy_preamble(const uint8_t* p, size_t n, const std::string& what) {
  const uint64_t total = npy_preamble_size(p, n, what);
  if (n < total) data_error(quote(what) + ": truncated npy header (need " + std::to_string(total) + " bytes, file has " + std::to_string(n) + ")");
  const uint64_t fixed = p[6] == 1 ? 10 : 12;
  // Version 3 allows UTF-8 in the header; the keys and values we need are ASCII either way.
  const std::string text(reinterpret_cast<const char*>(p + fixed), total - fixed);
  const Value d = LiteralParser(text, what).parse_top();
  if (d.kind != Value::dict) data_error(quote(what) + ": malformed npy header (not a dict)");

  const Value* descr = key(d, "descr");
  const Value* fortran = key(d, "fortran_order");
  const Value* shape = key(d, "shape");
  if (!descr || !fortran || !shape) data_error(quote(what) + ": npy header lacks 'descr', 'fortran_order' or 'shape'");
  if (descr->kind != Value::str) data_error(quote(what) + ": npy dtype is a structured/record type; sciz reads <f4 and <f8 only");
  NpyHeader h;
  const std::string& ds = descr->s;
  if (ds == "<f4" || ds == "=f4") {
    h.dtype = DType::f32;
  } else if (ds == "<f8" || ds == "=f8") {
    h.dtype = DType::f64;
  } else if (ds == ">f4" || ds == ">f8") {
    data_error(quote(what) + ": npy dtype " + quote(ds) + " is big-endian; convert with a.astype('<" + ds.substr(1) + "')");
  } else {
    data_error(quote(what) + ": npy dtype " + quote(ds) + " is not supported (sciz reads <f4 and <f8)");
  }
  if (fortran->kind != Value::boolean) data_error(quote(what) + ": npy 'fortran_order' is not True/False");
  if (fortran->b)
    data_error(quote(what) + ": npy array is in Fortran order; save it in C order (np.ascontiguousarray)");
  if (shape->kind != Value::seq) data_error(quote(what) + ": npy 'shape' is not a tuple");
  std::string shape_text = "(";
  for (size_t k = 0; k < shape->items.size(); ++k) {
    if (shape->items[k].kind != Value::integer) data_error(quote(what) + ": npy 'shape' holds a non-integer");
    shape_text += (k ? ", " : "") + std::to_string(shape->items[k].i);
    h.shape.dims.push_back(shape->items[k].i);
  }
  shape_text += shape->items.size() == 1 ? ",)" : ")";
  try {
    h.shape.validate();
  } catch (const Error& e) {
    data_error(quote(what) + ": npy shape " + shape_text + " is not usable: " + e.what());
  }
  h.data_offset = total;
  return h;
}

}  // namespace sciz::cli
