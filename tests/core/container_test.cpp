// The container writes the same bytes whether it builds the stream inside a large section's
// spare capacity (wherever that section sits) or copies every section into fresh memory.
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

// Three sections; the one at `at` holds `big` bytes with `spare` more capacity.
std::vector<SectionIn> sample_sections(size_t big, size_t spare, size_t at = 0) {
  std::vector<uint8_t> a;
  a.reserve(big + spare);
  a.resize(big);
  std::iota(a.begin(), a.end(), uint8_t{1});
  std::vector<std::vector<uint8_t>> small{std::vector<uint8_t>(1000, 3), std::vector<uint8_t>(17, 9)};
  std::vector<SectionIn> s;  // not an initializer list: that would copy, dropping the capacity
  for (uint32_t i = 0, k = 0; i < 3; ++i) s.push_back({i + 1, i == at ? std::move(a) : std::move(small[k++])});
  return s;
}
}  // namespace

TEST(Container, InPlaceAndCopiedStreamsAreIdentical) {
  const Header h = sample_header();
  for (size_t at : {0, 1, 2}) {
    for (size_t big : {size_t{1000}, size_t{3} << 20}) {
      const auto copied = write_stream(h, sample_sections(big, 0, at));
      auto in_place_sections = sample_sections(big, size_t{1} << 20, at);
      const uint8_t* buffer = in_place_sections[at].bytes.data();
      const auto in_place = write_stream(h, std::move(in_place_sections));
      ASSERT_EQ(copied, in_place) << "big=" << big << " at=" << at;
      if (big >= (size_t{1} << 20)) EXPECT_EQ(in_place.data(), buffer) << "stream was not built in place, at=" << at;
      const ParsedStream ps = read_stream(in_place);
      ASSERT_EQ(ps.sections.size(), 3u);
      const SectionView& b = ps.section(static_cast<uint32_t>(at + 1), "big");
      ASSERT_EQ(b.bytes.size(), big);
      for (size_t i = 0; i < big; i += 4093) ASSERT_EQ(b.bytes[i], static_cast<uint8_t>(1 + i)) << "at=" << at;
      EXPECT_EQ(ps.section(at == 2 ? 2 : 3, "small").bytes.size(), 17u);
    }
  }
}
