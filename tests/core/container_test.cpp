// The container writes the same bytes whether it builds the stream inside the first section's
// spare capacity or copies every section into fresh memory.
#include <gtest/gtest.h>

#include <numeric>

#include "core/container.hpp"

using namespace sciz;

namespace {
Header sample_header() {
  Header h;
  h.dtype = DType::f32;
  h.shape = Shape::parse("1000x1000");
  h.eb_value = h.eb_abs = 0.5;
  h.value_min = -1, h.value_max = 1;
  h.pipeline = "lorenzo";
  h.params = std::vector<uint8_t>(12, 7);
  return h;
}

std::vector<SectionIn> sample_sections(size_t big, size_t spare) {
  std::vector<uint8_t> a;
  a.reserve(big + spare);
  a.resize(big);
  std::iota(a.begin(), a.end(), uint8_t{1});
  std::vector<SectionIn> s;  // not an initializer list: that would copy, dropping the capacity
  s.push_back({1, std::move(a)});
  s.push_back({2, std::vector<uint8_t>(1000, 3)});
  s.push_back({3, std::vector<uint8_t>(17, 9)});
  return s;
}
}  // namespace

TEST(Container, InPlaceAndCopiedStreamsAreIdentical) {
  const Header h = sample_header();
  for (size_t big : {size_t{1000}, size_t{3} << 20}) {
    const auto copied = write_stream(h, sample_sections(big, 0));
    auto in_place_sections = sample_sections(big, size_t{1} << 20);
    const uint8_t* buffer = in_place_sections[0].bytes.data();
    const auto in_place = write_stream(h, std::move(in_place_sections));
    ASSERT_EQ(copied, in_place) << "big=" << big;
    if (big >= (size_t{1} << 20)) EXPECT_EQ(in_place.data(), buffer) << "stream was not built in place";
    const ParsedStream ps = read_stream(in_place);
    ASSERT_EQ(ps.sections.size(), 3u);
    EXPECT_EQ(ps.section(1, "big").bytes.size(), big);
    EXPECT_EQ(ps.section(3, "small").bytes.size(), 17u);
  }
}
