// `sciz refactor` and `sciz retrieve` as a user runs them: the retrieved field within the bound
// the command reports, the library's bytes exactly, progressive retrieval through --state equal
// to a fresh one, and every misuse refused in one line that names it.
#include <gtest/gtest.h>
#include <sciz/mdr.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/test_data.hpp"

namespace fs = std::filesystem;
using namespace sciz;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// The number after `key": ` in a one-object JSON report.
double json_number(const std::string& json, const std::string& key) {
  const size_t at = json.find("\"" + key + "\":");
  if (at == std::string::npos) return NAN;
  return std::stod(json.substr(at + key.size() + 3));
}

class CliMdr : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = fs::temp_directory_path() / ("sciz_climdr_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  struct Result {
    int rc;
    std::string out, err;
  };
  Result run(const std::string& args) const {
    const std::string cmd = "cd '" + dir_.string() + "' && '" + SCIZ_CLI_PATH + "' " + args + " > o.txt 2> e.txt";
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128, slurp(dir_ / "o.txt"), slurp(dir_ / "e.txt")};
  }
  void expect_error(const std::string& args, const std::string& needle, int code) const {
    SCOPED_TRACE("sciz " + args);
    const Result r = run(args);
    EXPECT_EQ(r.rc, code) << r.err;
    EXPECT_EQ(r.err.rfind("sciz: error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << "message does not name '" << needle << "': " << r.err;
  }
  fs::path path(const std::string& n) const { return dir_ / n; }
  template <class T>
  void write(const std::string& n, const std::vector<T>& v) const {
    std::ofstream f(path(n), std::ios::binary);
    f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
  }
  template <class T>
  std::vector<T> read(const std::string& n) const {
    const std::string s = slurp(path(n));
    std::vector<T> v(s.size() / sizeof(T));
    std::memcpy(v.data(), s.data(), v.size() * sizeof(T));
    return v;
  }
  fs::path dir_;
};

}  // namespace

TEST_F(CliMdr, RefactorThenRetrieveWithinTheReportedBound) {
  const Shape s{{12, 40, 33}};
  auto x = test::smooth_field<float>(s, 4);
  x[50] = std::numeric_limits<float>::quiet_NaN();
  x[51] = std::numeric_limits<float>::infinity();
  write("in.raw", x);
  Result r = run("refactor -i in.raw -t f32 -d 12x40x33 -o f.sciz");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("segments"), std::string::npos) << r.err;
  // The file is the library's, byte for byte.
  const auto lib = mdr::refactor({x.data(), DType::f32, s});
  const std::string file = slurp(path("f.sciz"));
  ASSERT_EQ(file.size(), lib.size());
  EXPECT_EQ(std::memcmp(file.data(), lib.data(), lib.size()), 0);
  std::vector<std::pair<std::string, uint64_t>> cost;  // what a fresh retrieval reads at each bound
  for (const char* rel : {"0.1", "0.001", "1e-06"}) {
    r = run(std::string("retrieve -i f.sciz -o out.raw --json -r ") + rel);
    ASSERT_EQ(r.rc, 0) << r.err;
    const double bound = json_number(r.out, "bound"), requested = json_number(r.out, "requested_abs");
    ASSERT_LE(bound, requested) << r.out;
    EXPECT_EQ(test::check_bound(x, read<float>("out.raw"), bound), "") << rel;
    EXPECT_LE(json_number(r.out, "total_bytes_read"), json_number(r.out, "file_bytes"));
    cost.emplace_back(rel, static_cast<uint64_t>(json_number(r.out, "total_bytes_read")));
  }
  r = run("retrieve -i f.sciz -o out.raw -a 0.5");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("guaranteed bound"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bytes read"), std::string::npos) << r.out;
  r = run("info -i f.sciz");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("mdr refactored file"), std::string::npos) << r.out;
  // info's cost ladder: each rung reads what a fresh retrieval at that bound reads.
  for (const auto& [rel, bytes] : cost) {
    const std::string rung = "retrieve -r " + rel;
    const size_t at = r.out.find(rung);
    ASSERT_NE(at, std::string::npos) << rung << "\n" << r.out;
    std::istringstream line(r.out.substr(at + rung.size()));
    uint64_t shown = 0;
    line >> shown;
    EXPECT_EQ(shown, bytes) << rung << "\n" << r.out;
  }
}

// --device: cpu writes the default's file; cuda writes the same file on a GPU, and without one
// is refused in one line naming the device (exit 1), leaving no output behind.
TEST_F(CliMdr, RefactorDeviceChoosesWhereNotWhat) {
  const Shape s{{9, 31, 17}};
  auto x = test::smooth_field<float>(s, 11);
  x[3] = std::numeric_limits<float>::quiet_NaN();
  x[400] = -0.0f;
  write("in.raw", x);
  ASSERT_EQ(run("refactor -i in.raw -t f32 -d 9x31x17 -o a.sciz -q").rc, 0);
  Result r = run("refactor -i in.raw -t f32 -d 9x31x17 -o b.sciz --device cpu --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("\"device\": \"cpu\""), std::string::npos) << r.out;
  EXPECT_EQ(slurp(path("a.sciz")), slurp(path("b.sciz")));
  expect_error("refactor -i in.raw -t f32 -d 9x31x17 -o c.sciz --device tpu", "tpu", 2);
  if (sciz::cuda_available()) {
    r = run("refactor -i in.raw -t f32 -d 9x31x17 -o c.sciz --device cuda -q");
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(slurp(path("a.sciz")), slurp(path("c.sciz")));
  } else {
    expect_error("refactor -i in.raw -t f32 -d 9x31x17 -o c.sciz --device cuda", "cuda", 1);
    EXPECT_FALSE(fs::exists(path("c.sciz")));
  }
}

TEST_F(CliMdr, StateRefinesToTheFreshResult) {
  const Shape s{{30, 70}};
  write("in.raw", test::smooth_field<double>(s, 7));
  ASSERT_EQ(run("refactor -i in.raw -t f64 -d 30x70 -o f.sciz -q").rc, 0);
  Result a = run("retrieve -i f.sciz -o a.raw -r 1e-2 --state st --json");
  ASSERT_EQ(a.rc, 0) << a.err;
  ASSERT_TRUE(fs::exists(path("st")));
  const double first = json_number(a.out, "total_bytes_read");
  Result b = run("retrieve -i f.sciz -o b.raw -r 1e-5 --state st --json");
  ASSERT_EQ(b.rc, 0) << b.err;
  Result c = run("retrieve -i f.sciz -o c.raw -r 1e-5 --json");
  ASSERT_EQ(c.rc, 0) << c.err;
  EXPECT_EQ(slurp(path("b.raw")), slurp(path("c.raw")));
  EXPECT_EQ(json_number(b.out, "total_bytes_read"), json_number(c.out, "total_bytes_read"));
  // A fresh retrieval reads everything it holds; the refinement read the header again and
  // only the segments the state lacked.
  EXPECT_EQ(json_number(c.out, "bytes_read"), json_number(c.out, "total_bytes_read"));
  EXPECT_LT(json_number(b.out, "bytes_read"), json_number(c.out, "bytes_read"));
  EXPECT_GT(first, 0.0);
  EXPECT_NE(b.out.find("\"resumed\": true"), std::string::npos) << b.out;
}

TEST_F(CliMdr, MisuseIsRefusedByName) {
  write("in.raw", test::smooth_field<float>(Shape{{500}}, 1));
  ASSERT_EQ(run("refactor -i in.raw -t f32 -d 500 -o f.sciz -q").rc, 0);
  expect_error("retrieve -i f.sciz -o out.raw", "needs an error bound", 2);
  expect_error("retrieve -i f.sciz -o out.raw -r 1e-3 -a 1", "not both", 2);
  expect_error("retrieve -i f.sciz -o out.raw -a 1e-30", "below the finest", 1);
  expect_error("retrieve -i missing.sciz -o out.raw -r 1e-2", "missing.sciz", 1);
  expect_error("retrieve -i in.raw -o out.raw -r 1e-2", "SZMD", 1);
  expect_error("refactor -i in.raw -t f32 -d 500 -o g.sciz -r 1e-3", "does not apply to refactor", 2);
  expect_error("refactor -i in.raw -t f32 -d 500 -o g.sciz --planes-per-group 0", "--planes-per-group", 2);
  expect_error("refactor -i in.raw -t f32 -d 500 -o g.sciz --planes-per-group 40", "planes per group 40", 2);
  expect_error("refactor -i in.raw -t f32 -d 499 -o g.sciz", "in.raw", 1);
  expect_error("decompress -i f.sciz -o x.raw", "sciz retrieve", 1);
  expect_error("retrieve -i f.sciz -o out.raw -r 1e-2 --state f.sciz", "--state", 2);
  // A state of another file, and a damaged one.
  write("other.raw", test::smooth_field<float>(Shape{{500}}, 2));
  ASSERT_EQ(run("refactor -i other.raw -t f32 -d 500 -o g.sciz -q").rc, 0);
  ASSERT_EQ(run("retrieve -i g.sciz -o out.raw -r 1e-2 --state st -q").rc, 0);
  expect_error("retrieve -i f.sciz -o out.raw -r 1e-3 --state st", "another file", 2);
  std::string st = slurp(path("st"));
  st[st.size() / 2] ^= 1;
  std::ofstream(path("st"), std::ios::binary) << st;
  expect_error("retrieve -i g.sciz -o out.raw -r 1e-3 --state st", "mdr state", 1);
  // A damaged segment the bound needs: named, and no output left behind.
  std::string f = slurp(path("f.sciz"));
  const uint64_t header = mdr::Retriever(mdr::file_source(path("f.sciz").string())).info().header_bytes;
  f[header + 1] ^= 1;  // the first segment: every retrieval reads it
  std::ofstream(path("f.sciz"), std::ios::binary) << f;
  fs::remove(path("out.raw"));
  expect_error("retrieve -i f.sciz -o out.raw -r 1e-6", "checksum mismatch", 1);
  EXPECT_FALSE(fs::exists(path("out.raw")));
}

TEST_F(CliMdr, QoiRetrievalMeetsItsTolerance) {
  const Shape s{{6, 30, 20}};
  std::vector<std::vector<float>> v = {test::smooth_field<float>(s, 1), test::smooth_field<float>(s, 2),
                                       test::smooth_field<float>(s, 3)};
  for (int i = 0; i < 3; ++i) {
    write("c" + std::to_string(i) + ".raw", v[i]);
    ASSERT_EQ(run("refactor -q -i c" + std::to_string(i) + ".raw -t f32 -d 6x30x20 -o c" + std::to_string(i) + ".sciz").rc, 0);
  }
  double qmin = INFINITY, qmax = -INFINITY;
  for (size_t p = 0; p < s.count(); ++p) {
    double q = 0;
    for (const auto& c : v) q += double(c[p]) * c[p];
    qmin = std::min(qmin, q), qmax = std::max(qmax, q);
  }
  const Result r = run("retrieve --qoi vtotal -i c0.sciz,c1.sciz,c2.sciz -o o0,o1,o2 --tol 1e-3 --method ma --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  const double est = json_number(r.out, "estimate"), tol = json_number(r.out, "tolerance_abs");
  EXPECT_LE(est, tol);
  EXPECT_LE(tol, 1e-3 * (qmax - qmin));
  const auto a = read<float>("o0"), b = read<float>("o1"), c = read<float>("o2");
  double worst = 0;
  for (size_t p = 0; p < s.count(); ++p) {
    const double q = double(v[0][p]) * v[0][p] + double(v[1][p]) * v[1][p] + double(v[2][p]) * v[2][p];
    const double q2 = double(a[p]) * a[p] + double(b[p]) * b[p] + double(c[p]) * c[p];
    worst = std::max(worst, std::fabs(q - q2));
  }
  EXPECT_LE(worst, est);
  expect_error("retrieve --qoi vtotal -i c0.sciz,c1.sciz -o o0 --tol 1e-3", "one output per component", 2);
  expect_error("retrieve --qoi vtotal -i c0.sciz,c1.sciz -o o0,o1", "--tol", 2);
  expect_error("retrieve --qoi speed -i c0.sciz -o o0 --tol 1e-3", "speed", 2);
  expect_error("retrieve -i c0.sciz -o o0 -r 1e-3 --tol 1e-3", "go with --qoi", 2);
  expect_error("retrieve --qoi linear -i c0.sciz,c1.sciz -o o0,o1 --tol 1e-3 --weights 1", "1 weights for 2", 2);
}
