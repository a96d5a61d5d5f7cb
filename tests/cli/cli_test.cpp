// Drives the built `sciz` binary the way a user does: files in a scratch directory, exit
// status, stdout and stderr. Everything runs with --device cpu (CI has no GPU).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/crafted_streams.hpp"
#include "support/test_data.hpp"

namespace fs = std::filesystem;
using namespace sciz;

namespace {

struct Result {
  int rc = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

template <class T>
void write_raw(const fs::path& p, const std::vector<T>& v) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
}

// A minimal .npy writer, independent of the CLI's reader: header dict padded with spaces so
// the data starts on a 64-byte boundary, as numpy does.
void write_npy(const fs::path& p, const std::string& descr, const std::vector<uint64_t>& shape, const void* data,
               size_t bytes, int major = 1, bool fortran = false) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': (";
  for (size_t k = 0; k < shape.size(); ++k) dict += (k ? ", " : "") + std::to_string(shape[k]);
  dict += shape.size() == 1 ? ",), }" : "), }";
  const size_t fixed = major == 1 ? 10 : 12;
  size_t total = fixed + dict.size() + 1;
  total = (total + 63) / 64 * 64;
  dict += std::string(total - fixed - dict.size() - 1, ' ') + "\n";
  std::string head = "\x93NUMPY";
  head += static_cast<char>(major);
  head += '\0';
  const uint32_t len = static_cast<uint32_t>(dict.size());
  head += static_cast<char>(len & 0xff);
  head += static_cast<char>((len >> 8) & 0xff);
  if (major != 1) {
    head += static_cast<char>((len >> 16) & 0xff);
    head += static_cast<char>((len >> 24) & 0xff);
  }
  std::ofstream f(p, std::ios::binary);
  f << head << dict;
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
}

template <class T>
std::vector<T> read_values(const fs::path& p) {
  const std::string s = slurp(p);
  std::vector<T> v(s.size() / sizeof(T));
  std::memcpy(v.data(), s.data(), v.size() * sizeof(T));
  return v;
}

// Just enough JSON to check that eval/info output is well formed: returns the top-level
// object's members as raw text (strings unquoted), or throws on malformed input.
class JsonCheck {
 public:
  explicit JsonCheck(std::string t) : t_(std::move(t)) {}
  std::map<std::string, std::string> object() {
    std::map<std::string, std::string> m;
    ws();
    expect('{');
    ws();
    if (peek() == '}') return ++p_, m;
    for (;;) {
      ws();
      const std::string k = str();
      ws();
      expect(':');
      ws();
      const size_t start = p_;
      const bool is_str = peek() == '"';
      value();
      m[k] = is_str ? t_.substr(start + 1, p_ - start - 2) : t_.substr(start, p_ - start);
      ws();
      if (peek() == ',') {
        ++p_;
        continue;
      }
      expect('}');
      break;
    }
    ws();
    if (p_ != t_.size()) throw std::runtime_error("trailing text");
    return m;
  }

 private:
  char peek() const { return p_ < t_.size() ? t_[p_] : '\0'; }
  void ws() {
    while (p_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[p_]))) ++p_;
  }
  void expect(char c) {
    if (peek() != c) throw std::runtime_error(std::string("expected ") + c + " at " + std::to_string(p_));
    ++p_;
  }
  std::string str() {
    expect('"');
    std::string s;
    while (peek() != '"') {
      if (p_ >= t_.size()) throw std::runtime_error("unterminated string");
      if (t_[p_] == '\\') ++p_;
      s += t_[p_++];
    }
    ++p_;
    return s;
  }
  void value() {
    ws();
    const char c = peek();
    if (c == '"') {
      str();
    } else if (c == '{' || c == '[') {
      const char close = c == '{' ? '}' : ']';
      ++p_;
      ws();
      if (peek() == close) return void(++p_);
      for (;;) {
        if (c == '{') {
          ws();
          str();
          ws();
          expect(':');
        }
        value();
        ws();
        if (peek() == ',') {
          ++p_;
          continue;
        }
        expect(close);
        break;
      }
    } else if (t_.compare(p_, 4, "true") == 0 || t_.compare(p_, 4, "null") == 0) {
      p_ += 4;
    } else if (t_.compare(p_, 5, "false") == 0) {
      p_ += 5;
    } else {
      const size_t start = p_;
      while (p_ < t_.size() && std::strchr("+-0123456789.eE", t_[p_])) ++p_;
      if (p_ == start) throw std::runtime_error("bad value at " + std::to_string(p_));
      std::stod(t_.substr(start, p_ - start));
    }
  }
  std::string t_;
  size_t p_ = 0;
};

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = fs::temp_directory_path() / ("sciz_cli_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  Result run(const std::string& args) const {
    const std::string cmd = "cd '" + dir_.string() + "' && '" + SCIZ_CLI_PATH + "' " + args + " > stdout.txt 2> stderr.txt";
    const int status = std::system(cmd.c_str());
    Result r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    r.out = slurp(dir_ / "stdout.txt");
    r.err = slurp(dir_ / "stderr.txt");
    fs::remove(dir_ / "stdout.txt");
    fs::remove(dir_ / "stderr.txt");
    return r;
  }

  // A rejected command: non-zero status, exactly one stderr line that starts with the
  // prefix and names `needle`, nothing on stdout.
  void expect_error(const std::string& args, const std::string& needle, int code = -1) const {
    SCOPED_TRACE("sciz " + args);
    const Result r = run(args);
    EXPECT_NE(r.rc, 0);
    EXPECT_LT(r.rc, 128) << "killed by a signal";
    if (code >= 0) EXPECT_EQ(r.rc, code) << r.err;
    EXPECT_EQ(r.err.rfind("sciz: error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << "message does not name '" << needle << "': " << r.err;
    EXPECT_EQ(r.out, "");
  }

  fs::path path(const std::string& name) const { return dir_ / name; }

  // A compressed f32 stream of a small smooth field, for the stream-side tests.
  void make_stream(const std::string& name) const {
    write_raw(path("s.raw"), test::smooth_field<float>(Shape{{16, 24}}, 5));
    ASSERT_EQ(run("compress -i s.raw -t f32 -d 16x24 -a 0.01 -o " + name + " --device cpu -q").rc, 0);
  }

  fs::path dir_;
};

TEST_F(Cli, RawRoundtripWithinBoundAndExactSize) {
  const Shape s{{20, 33, 47}};
  auto x = test::smooth_field<float>(s, 1);
  x[17] = std::numeric_limits<float>::quiet_NaN();
  x[1000] = -std::numeric_limits<float>::infinity();
  write_raw(path("in.raw"), x);
  Result r = run("compress -i in.raw -o in.sciz -t f32 -d 20x33x47 -a 0.01 --device cpu");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("ratio"), std::string::npos) << "summary line expected: " << r.err;
  EXPECT_FALSE(fs::exists(path("in.sciz.tmp")));
  r = run("decompress -i in.sciz -o out.raw --device cpu");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(fs::file_size(path("out.raw")), fs::file_size(path("in.raw")));
  EXPECT_EQ(test::check_bound(x, read_values<float>(path("out.raw")), 0.01), "");
  EXPECT_LT(fs::file_size(path("in.sciz")), fs::file_size(path("in.raw")));
}

TEST_F(Cli, QuietCompressPrintsNothing) {
  write_raw(path("in.raw"), test::smooth_field<double>(Shape{{100}}, 2));
  const Result r = run("compress -i in.raw -o in.sciz -t f64 -d 100 -r 1e-3 --device cpu -q");
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, "");
}

TEST_F(Cli, NpyRoundtripRelativeBound) {
  const Shape s{{3, 4, 10, 12}};  // 4-D
  const auto x = test::smooth_field<double>(s, 9);
  write_npy(path("in.npy"), "<f8", s.dims, x.data(), x.size() * 8);
  ASSERT_EQ(run("compress -i in.npy -o in.sciz -r 1e-4 --device cpu -q").rc, 0);
  ASSERT_EQ(run("decompress -i in.sciz -o out.raw --device cpu").rc, 0);
  EXPECT_EQ(fs::file_size(path("out.raw")), x.size() * 8);  // raw: no npy header, no padding
  const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
  EXPECT_EQ(test::check_bound(x, read_values<double>(path("out.raw")), 1e-4 * (*hi - *lo)), "");
}

TEST_F(Cli, NpyVersion2HeaderAndMatchingTypeAndDims) {
  const Shape s{{1001}};  // odd length: output must not be padded to a word or chunk
  const auto x = test::smooth_field<float>(s, 4);
  write_npy(path("in.npy"), "<f4", s.dims, x.data(), x.size() * 4, 2);
  const Result r = run("compress -i in.npy -t f32 -d 1001 -o in.sciz -a 0.05 --device cpu -q");
  ASSERT_EQ(r.rc, 0) << r.err;
  ASSERT_EQ(run("decompress -i in.sciz -o out.raw --device cpu").rc, 0);
  EXPECT_EQ(fs::file_size(path("out.raw")), 1001u * 4);
  EXPECT_EQ(test::check_bound(x, read_values<float>(path("out.raw")), 0.05), "");
}

TEST_F(Cli, InfoShowsHeaderPipelineAndSections) {
  make_stream("s.sciz");
  Result r = run("info -i s.sciz");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("lorenzo"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("16x24"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("f32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("offset"), std::string::npos) << r.out;
  r = run("info -i s.sciz --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  std::map<std::string, std::string> m;
  ASSERT_NO_THROW(m = JsonCheck(r.out).object()) << r.out;
  EXPECT_EQ(m["pipeline"], "lorenzo");
  EXPECT_EQ(m["dtype"], "f32");
  EXPECT_EQ(std::stoull(m["stream_bytes"]), fs::file_size(path("s.sciz")));
  EXPECT_NE(m["sections"].find("checksum"), std::string::npos);
}

TEST_F(Cli, EvalJsonParsesAndBoundHolds) {
  const Shape s{{30, 40}};
  write_raw(path("in.raw"), test::smooth_field<float>(s, 3));
  const Result r = run("eval -i in.raw -t f32 -d 30x40 -r 1e-3 --device cpu --json --runs 3 -o kept.sciz");
  ASSERT_EQ(r.rc, 0) << r.err;
  std::map<std::string, std::string> m;
  ASSERT_NO_THROW(m = JsonCheck(r.out).object()) << r.out;
  EXPECT_EQ(m["bound_held"], "true");
  EXPECT_EQ(m["pipeline"], "lorenzo");
  EXPECT_EQ(m["device"], "cpu");
  EXPECT_EQ(m["dtype"], "f32");
  EXPECT_EQ(std::stoull(m["original_bytes"]), 30u * 40 * 4);
  EXPECT_EQ(std::stoull(m["compressed_bytes"]), fs::file_size(path("kept.sciz")));
  EXPECT_LE(std::stod(m["max_abs_err"]), std::stod(m["eb_abs"]));
  EXPECT_LE(std::stod(m["max_err_over_eb"]), 1.0);
  EXPECT_DOUBLE_EQ(std::stod(m["eb_rel"]), 1e-3);
  EXPECT_GT(std::stod(m["ratio"]), 1.0);
  EXPECT_GT(std::stod(m["ssim"]), 0.9);
  for (const char* k : {"bit_rate", "psnr_db", "nrmse", "compress_gbps", "decompress_gbps", "compress_first_gbps",
                        "decompress_first_gbps"})
    EXPECT_TRUE(m.count(k)) << k;
  EXPECT_EQ(m["runs"], "3");
}

// A small field is timed five times unless --runs says otherwise: one call would time the
// process's one-time costs. The table names the first call beside the median.
TEST_F(Cli, EvalTimesASmallFieldSeveralTimes) {
  write_raw(path("in.raw"), test::smooth_field<float>(Shape{{30, 40}}, 3));
  Result r = run("eval -i in.raw -t f32 -d 30x40 -r 1e-3 --device cpu --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  std::map<std::string, std::string> m = JsonCheck(r.out).object();
  EXPECT_EQ(m["runs"], "5");
  r = run("eval -i in.raw -t f32 -d 30x40 -r 1e-3 --device cpu --json --runs 1");
  ASSERT_EQ(r.rc, 0) << r.err;
  m = JsonCheck(r.out).object();
  EXPECT_EQ(m["runs"], "1");
  EXPECT_EQ(m["compress_gbps"], m["compress_first_gbps"]);  // one run: the median is the first call
  r = run("eval -i in.raw -t f32 -d 30x40 -r 1e-3 --device cpu -q");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("(median of 5 calls; the first "), std::string::npos) << r.out;
}

TEST_F(Cli, DeltaChainOptionReachesTheStream) {
  write_raw(path("in.raw"), test::smooth_field<float>(Shape{{30, 40}}, 3));
  for (const char* c : {"auto", "linear", "serpentine"}) {
    SCOPED_TRACE(c);
    Result r = run(std::string("compress -i in.raw -o d.sciz -t f32 -d 30x40 -r 1e-3 -p delta --device cpu -q "
                               "--delta-chain ") + c);
    ASSERT_EQ(r.rc, 0) << r.err;
    r = run("info -i d.sciz");
    ASSERT_EQ(r.rc, 0) << r.err;
    const bool serp = std::string(c) != "linear";  // auto: rows of 40 are short
    EXPECT_NE(r.out.find(serp ? "serpentine over rows of 40" : "linear per warp layer"), std::string::npos) << r.out;
    r = run("decompress -i d.sciz -o d.raw --device cpu -q");
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(fs::file_size(path("d.raw")), 30u * 40 * 4);
  }
}

TEST_F(Cli, StagesOptionReachesTheStream) {
  const Shape s{{30, 40}};
  const auto x = test::smooth_field<float>(s, 3);
  write_raw(path("in.raw"), x);
  for (const char* list : {"interp-cr", "interp-tp", "zrle+huffman,rze1", "bit2,rre2"}) {
    SCOPED_TRACE(list);
    Result r = run(std::string("compress -i in.raw -o s.sciz -t f32 -d 30x40 -r 1e-3 --device cpu -q --stages ") + list);
    ASSERT_EQ(r.rc, 0) << r.err;
    r = run("info -i s.sciz");
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("format version     5"), std::string::npos) << r.out;
    const std::string named = std::string(list) == "interp-cr"   ? "huffman,rre4,tcms8,rze1"
                              : std::string(list) == "interp-tp" ? "tcms1,bit1,rre1"
                                                                 : list;
    EXPECT_NE(r.out.find("stages           " + named + " (2-byte codes)"), std::string::npos) << r.out;
    r = run("info -i s.sciz --json");
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find(named), std::string::npos) << r.out;
    r = run("decompress -i s.sciz -o s.raw --device cpu -q");
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
    EXPECT_EQ(test::check_bound(x, read_values<float>(path("s.raw")), 1e-3 * (*hi - *lo)), "");
  }
  // --lossless NAME is the one-stage list NAME: the same stream.
  ASSERT_EQ(run("compress -i in.raw -o a.sciz -t f32 -d 30x40 -r 1e-3 --device cpu -q --lossless rle").rc, 0);
  ASSERT_EQ(run("compress -i in.raw -o b.sciz -t f32 -d 30x40 -r 1e-3 --device cpu -q --stages rle").rc, 0);
  EXPECT_EQ(slurp(path("a.sciz")), slurp(path("b.sciz")));
  const std::string base = "compress -i in.raw -o y.sciz -t f32 -d 30x40 -r 1e-3 --device cpu ";
  expect_error(base + "--stages huffman,rre3", "'rre3'", 2);
  expect_error(base + "--stages rre4,huffman", "only the first", 2);
  expect_error(base + "--stages ''", "--stages", 2);
  expect_error(base + "--stages rze1,rze1,rze1,rze1,rze1,rze1,rze1,rze1,rze1", "at most 8", 2);
  expect_error(base + "--stages huffman --lossless rle", "not both", 2);
  expect_error(base + "--stages interp-tp -p delta", "stage list", 2);
  expect_error("info -i s.sciz --stages huffman", "'--stages'", 2);
  EXPECT_FALSE(fs::exists(path("y.sciz")));
}

TEST_F(Cli, SzxBlockOptionReachesTheStream) {
  write_raw(path("in.raw"), test::smooth_field<float>(Shape{{30, 40}}, 3));
  Result r = run("compress -i in.raw -o z.sciz -t f32 -d 30x40 -r 1e-3 -p szx --device cpu -q --szx-block 256");
  ASSERT_EQ(r.rc, 0) << r.err;
  r = run("info -i z.sciz");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("256"), std::string::npos) << r.out;
  r = run("decompress -i z.sciz -o z.raw --device cpu -q");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(fs::file_size(path("z.raw")), 30u * 40 * 4);
  const std::string base = "compress -i in.raw -o y.sciz -t f32 -d 30x40 -r 1e-3 -p szx --szx-block ";
  expect_error(base + "100", "multiple of 32", 2);
  expect_error(base + "8192", "32..4096", 2);
}

TEST_F(Cli, EvalTable) {
  write_raw(path("in.raw"), test::smooth_field<double>(Shape{{8, 9, 10}}, 3));
  const Result r = run("eval -i in.raw -t f64 -d 8x9x10 -a 1e-2 --device cpu");
  ASSERT_EQ(r.rc, 0) << r.err;
  for (const char* row : {"bound held", "yes", "ratio", "PSNR", "SSIM", "GB/s", "bits/value", "max error / eb"})
    EXPECT_NE(r.out.find(row), std::string::npos) << row << " missing in\n" << r.out;
}

TEST_F(Cli, HelpAndVersion) {
  Result r = run("--help");
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("slowest to fastest"), std::string::npos);
  r = run("eval --help");
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("--runs"), std::string::npos);
  r = run("--version");
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out.rfind("sciz ", 0), 0u);
}

TEST_F(Cli, UsageErrors) {
  write_raw(path("a.raw"), test::smooth_field<float>(Shape{{20, 30}}, 1));
  const std::string base = "compress -i a.raw -o a.sciz -t f32 --device cpu ";
  expect_error("", "no command", 2);
  expect_error("squash -i a.raw", "'squash'", 2);
  expect_error(base + "-d 20x30 -a -1", "'-1'", 2);
  expect_error(base + "-d 20x30 -a 0", "'0'", 2);
  expect_error(base + "-d 20x30 -r abc", "'abc'", 2);
  expect_error(base + "-d 20x30 -r 1e-3x", "'1e-3x'", 2);
  expect_error(base + "-d 20x30 -a", "'-a'", 2);
  expect_error(base + "-d 20x30", "-r REL or -a ABS", 2);
  expect_error(base + "-d 20x30 -r 1e-3 -a 0.5", "'0.5'", 2);
  expect_error("compress -i a.raw -o a.sciz -t f16 -d 20x30 -a 1", "'f16'", 2);
  expect_error(base + "-d 20x30 -a 1 --device tpu", "'tpu'", 2);
  expect_error(base + "-d 20x30 -a 1 -p nosuch", "'nosuch'", 2);
  expect_error(base + "-d 20x0 -a 1", "'20x0'", 2);
  expect_error(base + "-d 20x -a 1", "'20x'", 2);
  expect_error(base + "-d 1x2x3x4x5 -a 1", "'1x2x3x4x5'", 2);
  expect_error(base + "-d 20xabc -a 1", "'20xabc'", 2);
  expect_error(base + "-d 20x30 -a 1 --radius 99999", "'99999'", 2);
  expect_error(base + "-d 20x30 -a 1 -p delta --delta-chain zigzag", "'zigzag'", 2);
  expect_error(base + "-d 20x30 -a 1 --frobnicate", "'--frobnicate'", 2);
  expect_error("compress -i a.raw -o a.sciz -d 20x30 -a 1 --device cpu", "-t", 2);
  expect_error("compress -o a.sciz -t f32 -d 20x30 -a 1", "-i", 2);
  expect_error("eval -i a.raw -t f32 -d 20x30 -a 1 --runs 0", "'0'", 2);
  expect_error("info -i a.sciz --runs 2", "'--runs'", 2);
  EXPECT_FALSE(fs::exists(path("a.sciz")));
  EXPECT_FALSE(fs::exists(path("a.sciz.tmp")));
}

TEST_F(Cli, DataErrors) {
  write_raw(path("a.raw"), test::smooth_field<float>(Shape{{20, 30}}, 1));
  expect_error("compress -i missing.raw -o a.sciz -t f32 -d 20x30 -a 1 --device cpu", "'missing.raw'", 1);
  // Size mismatch names both numbers: what the file holds and what the dims need.
  expect_error("compress -i a.raw -o a.sciz -t f32 -d 20x31 -a 1 --device cpu", "2400", 1);
  expect_error("compress -i a.raw -o a.sciz -t f32 -d 20x31 -a 1 --device cpu", "2480", 1);
  expect_error("compress -i a.raw -o a.sciz -t f64 -d 20x30 -a 1 --device cpu", "4800", 1);
  expect_error("compress -i a.raw -o no_such_dir/a.sciz -t f32 -d 20x30 -a 1 --device cpu", "'no_such_dir/a.sciz'", 1);
  fs::create_directories(path("adir"));
  expect_error("compress -i a.raw -o adir -t f32 -d 20x30 -a 1 --device cpu", "'adir'", 1);
  expect_error("compress -i adir -o a.sciz -t f32 -d 20x30 -a 1 --device cpu", "'adir'", 1);
  expect_error("decompress -i a.raw -o out.raw --device cpu", "magic", 1);
  expect_error("info -i missing.sciz", "'missing.sciz'", 1);
  if (!cuda_available()) expect_error("compress -i a.raw -o a.sciz -t f32 -d 20x30 -a 1 --device cuda", "'cuda'", 1);
  EXPECT_FALSE(fs::exists(path("a.sciz")));
  EXPECT_FALSE(fs::exists(path("out.raw")));
}

TEST_F(Cli, NpyErrors) {
  const std::vector<float> x(12, 1.5f);
  write_npy(path("be.npy"), ">f4", {3, 4}, x.data(), 48);
  write_npy(path("fo.npy"), "<f4", {3, 4}, x.data(), 48, 1, true);
  write_npy(path("i4.npy"), "<i4", {3, 4}, x.data(), 48);
  write_npy(path("short.npy"), "<f4", {3, 5}, x.data(), 48);
  write_npy(path("five.npy"), "<f4", {1, 1, 3, 2, 2}, x.data(), 48);
  write_npy(path("ok.npy"), "<f4", {3, 4}, x.data(), 48);
  const std::string opt = " -o o.sciz -a 0.1 --device cpu";
  expect_error("compress -i be.npy" + opt, "'>f4'", 1);
  expect_error("compress -i fo.npy" + opt, "Fortran", 1);
  expect_error("compress -i i4.npy" + opt, "'<i4'", 1);
  expect_error("compress -i short.npy" + opt, "60", 1);
  expect_error("compress -i five.npy" + opt, "(1, 1, 3, 2, 2)", 1);
  expect_error("compress -i ok.npy -t f64" + opt, "f64", 2);
  expect_error("compress -i ok.npy -d 4x3" + opt, "4x3", 2);
  std::string trunc = slurp(path("ok.npy")).substr(0, 20);
  std::ofstream(path("trunc.npy"), std::ios::binary) << trunc;
  expect_error("compress -i trunc.npy" + opt, "'trunc.npy'", 1);
  EXPECT_EQ(run("compress -i ok.npy -t f32 -d 3x4" + opt).rc, 0);
}

TEST_F(Cli, DamagedStreams) {
  make_stream("s.sciz");
  const std::string good = slurp(path("s.sciz"));
  std::string bad = good;
  bad[bad.size() / 2] = static_cast<char>(bad[bad.size() / 2] ^ 0x5a);
  std::ofstream(path("bad.sciz"), std::ios::binary) << bad;
  std::ofstream(path("trunc.sciz"), std::ios::binary) << good.substr(0, good.size() - 7);
  std::string ver = good;
  ver[4] = 9;  // format version, little-endian u16 after the magic
  std::ofstream(path("ver.sciz"), std::ios::binary) << ver;
  std::ofstream(path("empty.sciz"), std::ios::binary);
  expect_error("decompress -i bad.sciz -o out.raw --device cpu", "'bad.sciz'", 1);
  expect_error("decompress -i trunc.sciz -o out.raw --device cpu", "'trunc.sciz'", 1);
  expect_error("decompress -i ver.sciz -o out.raw --device cpu", "version 9", 1);
  expect_error("decompress -i empty.sciz -o out.raw --device cpu", "'empty.sciz'", 1);
  expect_error("info -i bad.sciz", "checksum", 1);
  expect_error("info -i ver.sciz", "version 9", 1);
  expect_error("eval -i s.sciz -t f32 -d 7 -a 1 --device cpu", "'s.sciz'", 1);
  EXPECT_FALSE(fs::exists(path("out.raw")));
  EXPECT_FALSE(fs::exists(path("out.raw.tmp")));
}

// A 300-byte stream declaring a 1 PiB field: refused from its header by the default
// --max-output, before the output file exists; an explicit limit refuses a real stream above it.
TEST_F(Cli, MaxOutputRefusesBeforeWriting) {
  const auto bomb = test::declared_huge_stream(Shape{{uint64_t(1) << 44, 8}});
  std::ofstream(path("bomb.sciz"), std::ios::binary).write(reinterpret_cast<const char*>(bomb.data()), bomb.size());
  expect_error("decompress -i bomb.sciz -o out.raw --device cpu", "--max-output", 1);
  expect_error("decompress -i bomb.sciz -o out.raw --slice 0:1 --device cpu", std::to_string(uint64_t(1) << 50), 1);
  EXPECT_FALSE(fs::exists(path("out.raw")));
  EXPECT_FALSE(fs::exists(path("out.raw.tmp")));
  make_stream("s.sciz");  // 16 x 24 f32: 1536 bytes
  expect_error("decompress -i s.sciz -o out.raw --max-output 1K --device cpu", "1536", 1);
  EXPECT_FALSE(fs::exists(path("out.raw")));
  EXPECT_EQ(run("decompress -i s.sciz -o out.raw --max-output 1536 --device cpu -q").rc, 0);
  EXPECT_EQ(fs::file_size(path("out.raw")), 1536u);
  EXPECT_EQ(run("decompress -i s.sciz -o out0.raw --max-output 0 --device cpu -q").rc, 0);
  EXPECT_EQ(run("decompress -i s.sciz -o out1.raw --max-output none --device cpu -q").rc, 0);
  expect_error("decompress -i s.sciz -o out2.raw --max-output lots --device cpu", "'lots'", 2);
  expect_error("info -i s.sciz --max-output 1G", "'--max-output'", 2);
}

TEST_F(Cli, FailedRunKeepsPreviousOutput) {
  make_stream("s.sciz");
  std::ofstream(path("out.raw")) << "previous";
  std::ofstream(path("bad.sciz"), std::ios::binary) << "SCIZ garbage";
  expect_error("decompress -i bad.sciz -o out.raw --device cpu", "'bad.sciz'", 1);
  EXPECT_EQ(slurp(path("out.raw")), "previous");
}

}  // namespace
