// The CLI a chunk at a time: compress and decompress stream through files chunk by chunk and
// write exactly what the library writes; --slice writes only the rows asked for, reading only
// their chunks; info shows the chunk layout; the new options refuse bad values by name; streams
// of older format versions still decompress through the same path.
#include <gtest/gtest.h>
#include <sciz/sciz.hpp>
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

std::vector<uint8_t> bytes_of(const fs::path& p) {
  const std::string s = slurp(p);
  return {s.begin(), s.end()};
}

class CliChunks : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = fs::temp_directory_path() / ("sciz_clichunks_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
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
  fs::path path(const std::string& n) const { return dir_ / n; }
  template <class T>
  void write(const std::string& n, const std::vector<T>& v) const {
    std::ofstream f(path(n), std::ios::binary);
    f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
  }
  fs::path dir_;
};

}  // namespace

TEST_F(CliChunks, StreamingCompressWritesTheLibrarysBytes) {
  const Shape s = Shape::parse("37x40x30");
  auto x = test::smooth_field<float>(s, 3);
  x[11] = std::numeric_limits<float>::quiet_NaN();
  write("f.raw", x);
  for (const char* p : {"lorenzo", "delta", "szx"}) {
    for (const char* bound : {"-r 1e-3", "-a 0.01"}) {
      SCOPED_TRACE(std::string(p) + " " + bound);
      const Result c = run(std::string("compress -i f.raw -o f.sciz -t f32 -d 37x40x30 ") + bound + " -p " + p +
                           " --device cpu --chunk-mb 0.02 -q");
      ASSERT_EQ(c.rc, 0) << c.err;
      CompressOptions o;
      o.eb = bound[1] == 'r' ? ErrorBound{EbMode::rel, 1e-3} : ErrorBound{EbMode::abs, 0.01};
      o.pipeline = p;
      o.device = Device::cpu;
      o.chunk_mb = 0.02;
      const auto lib = compress({x.data(), DType::f32, s}, o);
      const auto file = bytes_of(path("f.sciz"));
      EXPECT_GT(inspect(lib).chunks.size(), 5u);
      ASSERT_TRUE(file == lib) << "the CLI's stream differs from the library's";
      const Result d = run("decompress -i f.sciz -o f.out --device cpu -q");
      ASSERT_EQ(d.rc, 0) << d.err;
      std::vector<float> y(x.size());
      decompress(lib, y.data(), y.size() * 4, Device::cpu);
      const auto out = bytes_of(path("f.out"));
      ASSERT_EQ(out.size(), x.size() * 4);
      EXPECT_EQ(std::memcmp(out.data(), y.data(), out.size()), 0);
    }
  }
}

TEST_F(CliChunks, SliceWritesOnlyItsRowsAndReadsOnlyItsChunks) {
  const Shape s = Shape::parse("50x20x30");
  write("f.raw", test::smooth_field<double>(s, 8));
  ASSERT_EQ(run("compress -i f.raw -o f.sciz -t f64 -d 50x20x30 -r 1e-4 --device cpu --chunk-mb 0.03 -q").rc, 0);
  ASSERT_EQ(run("decompress -i f.sciz -o full.out --device cpu -q").rc, 0);
  const std::string full = slurp(path("full.out"));
  const uint64_t row = 20 * 30 * 8;
  const StreamInfo info = inspect(bytes_of(path("f.sciz")));
  ASSERT_GT(info.chunks.size(), 4u);
  const uint64_t per = info.rows_per_chunk;
  const std::pair<std::string, std::pair<uint64_t, uint64_t>> cases[] = {
      {"0:1", {0, 1}}, {"49:50", {49, 50}}, {"3:47", {3, 47}}, {":7", {0, 7}}, {"45:", {45, 50}},
      {std::to_string(per - 1) + ":" + std::to_string(per + 1), {per - 1, per + 1}}};
  for (const auto& [arg, r] : cases) {
    const Result d = run("decompress -i f.sciz -o part.out --device cpu -q --slice " + arg);
    ASSERT_EQ(d.rc, 0) << arg << ": " << d.err;
    EXPECT_EQ(slurp(path("part.out")), full.substr(r.first * row, (r.second - r.first) * row)) << arg;
  }
  // Damage the last chunk: the first rows still come out, the whole field does not.
  auto st = bytes_of(path("f.sciz"));
  const ChunkInfo last = info.chunks.back();
  st[last.offset + last.length / 2] ^= 0x5a;
  write("bad.sciz", st);
  EXPECT_EQ(run("decompress -i bad.sciz -o part.out --device cpu -q --slice 0:" + std::to_string(per)).rc, 0);
  EXPECT_EQ(slurp(path("part.out")), full.substr(0, per * row));
  const Result bad = run("decompress -i bad.sciz -o whole.out --device cpu -q");
  EXPECT_EQ(bad.rc, 1);
  EXPECT_NE(bad.err.find("chunk " + std::to_string(info.chunks.size() - 1)), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(path("whole.out"))) << "a refused stream left an output";
  for (const char* badslice : {"5:5", "7:3", "0:51", "a:b", "12", "-1:4"}) {
    const Result r = run(std::string("decompress -i f.sciz -o x.out --slice ") + badslice);
    EXPECT_EQ(r.rc, 2) << badslice << ": " << r.err;
    EXPECT_NE(r.err.find("--slice"), std::string::npos) << r.err;
  }
}

TEST_F(CliChunks, InfoShowsTheChunks) {
  write("f.raw", test::smooth_field<float>(Shape::parse("40x64x64"), 2));
  ASSERT_EQ(run("compress -i f.raw -o f.sciz -t f32 -d 40x64x64 -r 1e-3 --device cpu --chunk-mb 0.25 -q").rc, 0);
  const Result t = run("info -i f.sciz");
  ASSERT_EQ(t.rc, 0) << t.err;
  EXPECT_NE(t.out.find("chunks"), std::string::npos);
  EXPECT_NE(t.out.find("chunk 0"), std::string::npos);
  EXPECT_NE(t.out.find("rows 0:"), std::string::npos);
  const Result j = run("info -i f.sciz --json");
  ASSERT_EQ(j.rc, 0) << j.err;
  EXPECT_NE(j.out.find("\"rows_per_chunk\": 16"), std::string::npos) << j.out;
  EXPECT_NE(j.out.find("\"chunks\": [{\"row0\": 0"), std::string::npos) << j.out;
}

TEST_F(CliChunks, NewOptionsRefuseBadValuesByName) {
  write("f.raw", test::smooth_field<float>(Shape::parse("8x8"), 1));
  const std::pair<const char*, const char*> bad[] = {{"--chunk-mb -1", "--chunk-mb"}, {"--chunk-mb x", "--chunk-mb"},
                                                     {"--gpu-memory 12Q", "--gpu-memory"},
                                                     {"--gpu-memory 0", "--gpu-memory"},
                                                     {"--devices 0,,1", "--devices"}, {"--devices x", "--devices"}};
  for (const auto& [opt, name] : bad) {
    const Result r = run(std::string("compress -i f.raw -o f.sciz -t f32 -d 8x8 -r 1e-3 ") + opt);
    EXPECT_EQ(r.rc, 2) << opt << ": " << r.err;
    EXPECT_NE(r.err.find(name), std::string::npos) << r.err;
  }
  // Accepted forms reach the library (no GPU needed for --device cpu).
  EXPECT_EQ(run("compress -i f.raw -o f.sciz -t f32 -d 8x8 -r 1e-3 --device cpu --gpu-memory 1.5G --chunk-mb 0 -q").rc, 0);
  EXPECT_EQ(run("decompress -i f.sciz -o f.out --slice 2: --device cpu -q").rc, 0);
  EXPECT_EQ(fs::file_size(path("f.out")), 6u * 8 * 4);
}

TEST_F(CliChunks, OlderStreamsDecompressThroughTheStreamingPath) {
  const fs::path golden = fs::path(SCIZ_FIXTURES_DIR).parent_path() / "golden";
  int seen = 0;
  for (const auto& e : fs::directory_iterator(golden)) {
    const std::string n = e.path().filename().string();
    if (e.path().extension() != ".sciz") continue;
    SCOPED_TRACE(n);
    const auto st = bytes_of(e.path());
    const StreamInfo info = inspect(st);
    std::vector<uint8_t> want(info.original_bytes());
    decompress(st, want.data(), want.size(), Device::cpu);
    fs::copy_file(e.path(), path("g.sciz"), fs::copy_options::overwrite_existing);
    const Result d = run("decompress -i g.sciz -o g.out --device cpu -q");
    ASSERT_EQ(d.rc, 0) << d.err;
    const auto got = bytes_of(path("g.out"));
    EXPECT_TRUE(got == want);
    ++seen;
  }
  EXPECT_GT(seen, 20);
}
