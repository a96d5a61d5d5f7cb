// Retrieval (docs/MDR.md section 5): the header and index read and checked once, then each
// request extends the prefix of segments held, ORs the new digits into each level's
// accumulators and reconstructs the field from all of them.
#include <sciz/mdr.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <utility>

#include "core/byteio.hpp"
#include "core/checksum.hpp"
#include "core/device.hpp"
#include "core/error_bound.hpp"
#include "core/exact_runs.hpp"
#include "core/omp_threads.hpp"
#include "core/trace.hpp"
#include "refactor/bitplanes/bitplanes.hpp"
#include "refactor/mdr/bound.hpp"
#include "refactor/mdr/format.hpp"
#include "refactor/mdr/hybrid.hpp"
#include "refactor/mdr/retrieve_cuda.hpp"
#include "refactor/mdr/split.hpp"
#include "refactor/multilevel/multilevel.hpp"

namespace sciz::mdr {

namespace {
inline constexpr char kStateMagic[4] = {'S', 'Z', 'M', 'S'};
inline constexpr uint16_t kStateVersion = 1;
inline constexpr size_t kStateFixed = 32;  // magic, version, flags, file checksum, prefix, bytes

// A byte allocator whose resize leaves the new bytes unwritten: the segments are read over
// them at once, and a zero fill first was one more serial pass over every byte read.
template <class T>
struct Unfilled : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = Unfilled<U>;
  };
  Unfilled() = default;
  template <class U>
  Unfilled(const Unfilled<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
};

}  // namespace

struct Retriever::Impl {
  Source src;
  Header h;
  FileInfo info;
  multilevel::Layout lay;
  BoundModel model;
  std::vector<double> prefix_bound;  // [p]: the bound with the first p segments held
  uint64_t min_prefix = 0;           // the exact values are always read
  // Digits read so far, per coefficient (the f32 or the f64 words). A level's are written when
  // its first groups are applied and undefined before (never read: its coefficients are 0), so
  // a retriever is not a serial zero fill of a field's worth of words before anything is read.
  std::unique_ptr<uint32_t[]> nb32;
  std::unique_ptr<uint64_t[]> nb64;
  std::vector<int> groups_read;
  uint64_t prefix = 0;
  std::vector<uint8_t, Unfilled<uint8_t>> held;  // the prefix's segment bytes as read
  std::vector<uint64_t> exact_idx;
  std::vector<uint64_t> exact_bits;  // bit patterns: NaN payloads come back as they were
  uint64_t pending_header = 0;       // header bytes not yet reported by a retrieve()

  struct Pending {
    const Segment* sg;
    std::span<const uint8_t> seg;
    std::string what;
  };

  void open(Source s);
  void ingest(uint64_t first, uint64_t last, std::span<const uint8_t> bytes);
  template <class W>
  void apply(const std::vector<Pending>& pending, W* nb);
  std::vector<LevelRecon> recon_levels() const;
  template <class T>
  void reconstruct(T* out) const;
  template <class T>
  void reconstruct_device(T* d_out, cudaStream_t s) const;
  uint64_t prefix_for(double bound) const;
  Retrieval advance(const ErrorBound& eb, uint64_t out_bytes);
  double resolve(const ErrorBound& eb) const;
};

void Retriever::Impl::open(Source s) {
  src = std::move(s);
  SCIZ_REQUIRE(src.read, Status::invalid_argument, "mdr: a Source without a read function");
  std::vector<uint8_t> bytes(kFixedBytes);
  SCIZ_REQUIRE(src.size >= kFixedBytes, Status::corrupt_stream,
               "mdr file: " + std::to_string(src.size) + " bytes, shorter than a header");
  src.read(0, kFixedBytes, bytes.data());
  const uint32_t size = read_header_size(bytes, src.size);
  bytes.resize(size);
  src.read(kFixedBytes, size - kFixedBytes, bytes.data() + kFixedBytes);
  h = read_header(bytes, src.size);
  pending_header = size;
  lay = layout_for(h.dims);
  model = {h.dtype, lay.grid.detail, multilevel::active_axes(lay.grid), h.max_abs};

  // The bound of every prefix; a level's error is that of the groups read so far.
  std::vector<int> t(h.levels.size(), 0);
  double sum = 0;
  for (const LevelInfo& lv : h.levels) sum += lv.err[0];
  prefix_bound.push_back(guaranteed_bound(model, sum));
  for (const Segment& sg : h.segments) {
    if (sg.level != kExactLevel) {
      ++t[sg.level];
      sum = 0;
      for (size_t l = 0; l < h.levels.size(); ++l) sum += h.levels[l].err[t[l]];
    }
    prefix_bound.push_back(guaranteed_bound(model, sum));
  }
  min_prefix = h.special ? 1 : 0;
  groups_read.assign(h.levels.size(), 0);
  const uint64_t n = lay.grid.count();
  if (h.dtype == DType::f32) nb32.reset(new uint32_t[n]);
  else nb64.reset(new uint64_t[n]);

  info.version = h.version;
  info.dtype = h.dtype;
  info.shape = Shape{h.dims};
  info.value_min = h.value_min;
  info.value_max = h.value_max;
  info.special = h.special;
  info.levels = static_cast<uint32_t>(h.levels.size());
  info.segments = static_cast<uint32_t>(h.segments.size());
  info.header_bytes = size;
  info.file_bytes = src.size;
  info.coarsest_bound = prefix_bound[min_prefix];
  info.finest_bound = prefix_bound.back();
}

uint64_t Retriever::Impl::prefix_for(double bound) const {
  for (uint64_t p = min_prefix; p < prefix_bound.size(); ++p)
    if (prefix_bound[p] <= bound) return p;
  return prefix_bound.size() - 1;
}

// Segments [first, last) whose bytes, back to back, are `bytes` (the tail of `held`; the caller
// drops them again if this throws). Every segment is checked and decoded before any digit is
// applied, so a damaged one leaves the digits held untouched.
void Retriever::Impl::ingest(uint64_t first, uint64_t last, std::span<const uint8_t> bytes) {
  std::vector<Pending> pending;
  std::vector<uint64_t> idx;
  std::vector<uint64_t> bits;
  uint64_t at = 0;
  std::optional<TracePhase> t(std::in_place, "mdr retrieve: checksums, exact values");
  for (uint64_t k = first; k < last; ++k) {
    const Segment& sg = h.segments[k];
    std::span<const uint8_t> seg = bytes.subspan(at, sg.length);
    at += sg.length;
    std::string what = "mdr segment " + std::to_string(k) + " (" + segment_name(sg) + ")";
    uint64_t expect = sg.checksum;
    if (const uint64_t c = inline_checksum_bytes(h.version)) {  // read_header checked length > c
      std::memcpy(&expect, seg.data(), 8);
      seg = seg.subspan(c);
    }
    SCIZ_REQUIRE(chunked_xxh64(seg.data(), seg.size(), kDigestBlockV4) == expect, Status::corrupt_stream,
                 what + ": checksum mismatch (damaged)");
    if (sg.level == kExactLevel) {
      const uint64_t n = lay.grid.count();
      auto keep_bits = [&](const auto& v) {
        for (const auto& x : v) {
          uint64_t b = 0;
          std::memcpy(&b, &x, sizeof(x));
          bits.push_back(b);
        }
      };
      if (h.dtype == DType::f32) {
        std::vector<float> v;
        read_runs(seg, n, what.c_str(), idx, v);
        keep_bits(v);
      } else {
        std::vector<double> v;
        read_runs(seg, n, what.c_str(), idx, v);
        keep_bits(v);
      }
      SCIZ_REQUIRE(idx.size() == h.special, Status::corrupt_stream,
                   what + ": " + std::to_string(idx.size()) + " values, the header says " + std::to_string(h.special));
      continue;
    }
    SCIZ_REQUIRE(!seg.empty() && (seg[0] != static_cast<uint8_t>(Coding::split) || h.version >= 2), Status::corrupt_stream,
                 what + ": coding " + std::to_string(seg.empty() ? 0 : seg[0]) + " in a version " +
                     std::to_string(h.version) + " file");
    pending.push_back({&sg, seg, std::move(what)});
  }
  t.reset();
  if (h.dtype == DType::f32) apply(pending, nb32.get());
  else apply(pending, nb64.get());
  if (!idx.empty()) exact_idx = std::move(idx), exact_bits = std::move(bits);
  prefix = last;
}

// Decodes the groups into coefficient-order planes and ORs each level's planes into its digits
// once, and only when every group decoded: a damaged segment changes nothing. The stage
// decoding of every group is independent and runs in parallel over the groups; a split group
// then walks its streams with the level's significance, which the groups before it in the
// level settle, so each level's walks run in file order (each one parallel inside). A failure
// reports the first failing segment in file order, as decoding them one by one would.
template <class W>
void Retriever::Impl::apply(const std::vector<Pending>& pending, W* nb) {
  const size_t levels = h.levels.size(), count = pending.size();
  struct Level {
    std::vector<size_t> items;    // indices into pending, in file order
    int planes = 0;               // planes of its groups in this batch
    bool split = false;           // any split group (then the walk needs the significance)
    std::vector<uint32_t> bits;   // `planes` planes of the level in coefficient order
  };
  std::vector<Level> lvs(levels);
  std::vector<int> first_plane(count);  // the group's first plane within its level's bits
  uint64_t seg_bytes = 0;
  for (size_t k = 0; k < count; ++k) {
    const Pending& p = pending[k];
    Level& L = lvs[p.sg->level];
    first_plane[k] = L.planes;
    L.planes += h.levels[p.sg->level].group_size(p.sg->group);
    L.split = L.split || p.seg[0] == static_cast<uint8_t>(Coding::split);
    L.items.push_back(k);
    seg_bytes += p.seg.size();
  }
  for (size_t l = 0; l < levels; ++l)
    if (!lvs[l].items.empty()) lvs[l].bits.resize(bitplanes::plane_words(h.levels[l].count) * lvs[l].planes);

  std::vector<std::exception_ptr> err(count);
  std::vector<SplitStreams> streams(count);
  std::optional<TracePhase> t(std::in_place, "mdr retrieve: stage decoding");
  const int nt = thread_count(count, seg_bytes);
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
  for (size_t k = 0; k < count; ++k) {
    const Pending& p = pending[k];
    const LevelInfo& lv = h.levels[p.sg->level];
    const int g = p.sg->group, planes = lv.group_size(g);
    try {
      if (p.seg[0] == static_cast<uint8_t>(Coding::split)) {
        streams[k] = read_split(p.seg, lv.count, planes, p.what, h.version);
      } else {
        const std::vector<uint8_t> raw = decode_group(p.seg, group_raw_bytes(lv, g), p.what, h.version);
        std::vector<uint32_t> words(raw.size() / 4);  // aligned: whole u32 words
        if (!raw.empty()) std::memcpy(words.data(), raw.data(), raw.size());
        uint32_t* out = lvs[p.sg->level].bits.data() + bitplanes::plane_words(lv.count) * first_plane[k];
        bitplanes::coefficient_order_cpu(words.data(), lv.count, planes, out);
      }
    } catch (...) {
      err[k] = std::current_exception();
    }
  }

  t.emplace("mdr retrieve: split walks");
  for (size_t l = 0; l < levels; ++l) {
    Level& L = lvs[l];
    if (!L.split) continue;
    const LevelInfo& lv = h.levels[l];
    const uint64_t pw = bitplanes::plane_words(lv.count);
    std::vector<uint32_t> sig(pw, 0);
    if (groups_read[l] > 0)
      bitplanes::significance_cpu(nb + lay.level_offset[l], lv.count, lv.group_high(groups_read[l]), sig.data());
    for (size_t k : L.items) {
      if (err[k]) break;  // the level's later groups would walk with a wrong significance
      const Pending& p = pending[k];
      const int planes = lv.group_size(p.sg->group);
      uint32_t* out = L.bits.data() + pw * first_plane[k];
      if (p.seg[0] == static_cast<uint8_t>(Coding::split)) {
        try {
          walk_split(streams[k], lv.count, planes, sig.data(), out, p.what);
        } catch (...) {
          err[k] = std::current_exception();
        }
        streams[k] = {};
      } else {
        const int ot = thread_count(pw, pw * 4 * planes);
#pragma omp parallel for num_threads(ot) schedule(static) if (ot > 1)
        for (uint64_t w = 0; w < pw; ++w)
          for (int q = 0; q < planes; ++q) sig[w] |= out[q * pw + w];
      }
    }
  }
  for (size_t k = 0; k < count; ++k)
    if (err[k]) std::rethrow_exception(err[k]);

  t.emplace("mdr retrieve: planes into digits");
  for (size_t l = 0; l < levels; ++l) {
    const Level& L = lvs[l];
    if (L.items.empty()) continue;
    const LevelInfo& lv = h.levels[l];
    bitplanes::or_planes_cpu(L.bits.data(), lv.count, lv.group_high(groups_read[l]), L.planes, nb + lay.level_offset[l],
                             groups_read[l] == 0);
    groups_read[l] += static_cast<int>(L.items.size());
  }
}

std::vector<LevelRecon> Retriever::Impl::recon_levels() const {
  std::vector<LevelRecon> v;
  for (size_t l = 0; l < h.levels.size(); ++l) {
    const LevelInfo& lv = h.levels[l];
    v.push_back({lay.level_offset[l], lv.count, lv.exponent,
                 bitplanes::unknown_digits(lv.top, lv.group_planes, groups_read[l]), groups_read[l] > 0});
  }
  return v;
}

template <class T>
void Retriever::Impl::reconstruct(T* out) const {
  using D = bitplanes::Digits<T>;
  using W = typename D::Word;
  // Each run of coefficients is reconstructed from its digits where the recomposition needs
  // it: no array of every coefficient, and one pass over the field fewer.
  struct Ctx {
    const W* nb;
    const multilevel::Layout* lay;
    std::vector<LevelRecon> levels;
  };
  Ctx ctx{nullptr, &lay, recon_levels()};
  if constexpr (sizeof(T) == 4) ctx.nb = nb32.get();
  else ctx.nb = nb64.get();
  const multilevel::CoeffSource src{[](const void* p, size_t ci, uint64_t k, uint64_t count, double* dst) {
                                      const Ctx& c = *static_cast<const Ctx*>(p);
                                      const LevelRecon& l = c.levels[c.lay->class_level[ci]];
                                      bitplanes::reconstruct_run_cpu(c.nb + c.lay->class_offset[ci] + k, count, l.unknown,
                                                                     D::count, l.exponent, D::scale, l.read, dst);
                                    },
                                    &ctx};
  TracePhase t("mdr retrieve: reconstruct, recompose, cast");
  // f64: the output is the recomposition's own array; f32: only the even points are kept in
  // double on the way (multilevel.hpp).
  multilevel::recompose_cpu(lay, src, out);
  for (size_t k = 0; k < exact_idx.size(); ++k) std::memcpy(out + exact_idx[k], &exact_bits[k], sizeof(T));
}

template <class T>
void Retriever::Impl::reconstruct_device(T* d_out, cudaStream_t s) const {
  TracePhase t("mdr retrieve: upload, reconstruct on the GPU", true, s);  // synchronizes s only when tracing
  if constexpr (sizeof(T) == 4) reconstruct_into_device<T>(lay, recon_levels(), nb32.get(), exact_idx, exact_bits, d_out, s);
  else reconstruct_into_device<T>(lay, recon_levels(), nb64.get(), exact_idx, exact_bits, d_out, s);
}

Retriever::Retriever(Source src) : impl_(std::make_unique<Impl>()) { impl_->open(std::move(src)); }

Retriever::Retriever(Source src, std::span<const uint8_t> state) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.open(std::move(src));
  ByteReader r(state.data(), state.size(), "mdr state");
  const uint8_t* magic = r.take(4, "magic");
  SCIZ_REQUIRE(std::memcmp(magic, kStateMagic, 4) == 0, Status::corrupt_stream, "mdr state: no \"SZMS\" magic");
  const uint16_t version = r.get<uint16_t>("version");
  SCIZ_REQUIRE(version == kStateVersion, Status::unsupported, "mdr state: version " + std::to_string(version));
  SCIZ_REQUIRE(r.get<uint16_t>("flags") == 0, Status::corrupt_stream, "mdr state: unknown flags");
  const uint64_t file = r.get<uint64_t>("file checksum");
  const uint64_t prefix = r.get<uint64_t>("prefix");
  const uint64_t bytes = r.get<uint64_t>("byte count");
  SCIZ_REQUIRE(state.size() >= 8, Status::corrupt_stream, "mdr state: truncated");
  uint64_t stored;
  std::memcpy(&stored, state.data() + state.size() - 8, 8);
  SCIZ_REQUIRE(xxh64(state.data(), state.size() - 8) == stored, Status::corrupt_stream, "mdr state: checksum mismatch (damaged)");
  SCIZ_REQUIRE(file == m.h.checksum, Status::invalid_argument, "mdr state: belongs to another file (header checksum differs)");
  SCIZ_REQUIRE(prefix <= m.h.segments.size(), Status::corrupt_stream,
               "mdr state: holds " + std::to_string(prefix) + " segments, the file has " + std::to_string(m.h.segments.size()));
  const uint64_t expect = prefix ? m.h.segments[prefix - 1].offset + m.h.segments[prefix - 1].length - m.h.header_size : 0;
  SCIZ_REQUIRE(bytes == expect && r.remaining() == bytes + 8, Status::corrupt_stream,
               "mdr state: " + std::to_string(bytes) + " segment bytes for " + std::to_string(prefix) + " segments (expected " +
                   std::to_string(expect) + ")");
  m.held.assign(state.begin() + r.pos(), state.begin() + r.pos() + bytes);
  m.ingest(0, prefix, m.held);
}

Retriever::~Retriever() = default;
Retriever::Retriever(Retriever&&) noexcept = default;
Retriever& Retriever::operator=(Retriever&&) noexcept = default;

const FileInfo& Retriever::info() const { return impl_->info; }

double Retriever::resolve(const ErrorBound& eb) const { return impl_->resolve(eb); }

double Retriever::Impl::resolve(const ErrorBound& eb) const {
  validate_bound(eb);
  ValueRange vr;
  vr.min = h.value_min;
  vr.max = h.value_max;
  vr.finite = std::isnan(vr.min) ? 0 : 1;
  return resolve_bound(eb, vr);
}

// Reads and decodes what eb needs beyond what is held; the caller reconstructs.
Retrieval Retriever::Impl::advance(const ErrorBound& eb, uint64_t out_bytes) {
  const uint64_t need = lay.grid.count() * dtype_size(h.dtype);
  SCIZ_REQUIRE(out_bytes == need, Status::invalid_argument,
               "mdr: output of " + std::to_string(out_bytes) + " bytes, the field needs " + std::to_string(need));
  Retrieval res;
  res.requested = resolve(eb);
  const uint64_t want = std::max(prefix, prefix_for(res.requested));
  res.bytes_read = pending_header;
  pending_header = 0;
  if (want > prefix) {
    const uint64_t from = h.segments[prefix].offset;
    const uint64_t to = h.segments[want - 1].offset + h.segments[want - 1].length;
    // Read straight behind the bytes held (the state keeps them): one copy of the segments, not two.
    const size_t before = held.size();
    try {
      {
        TracePhase t("mdr retrieve: read segments");
        held.resize(before + (to - from));
        src.read(from, to - from, held.data() + before);
      }
      ingest(prefix, want, {held.data() + before, to - from});
    } catch (...) {
      held.resize(before);
      throw;
    }
    res.bytes_read += to - from;
  }
  res.bound = prefix_bound[prefix];
  res.met = res.bound <= res.requested;
  res.segments = prefix;
  res.total_bytes_read = info.header_bytes + held.size();
  return res;
}

Retrieval Retriever::retrieve(const ErrorBound& eb, void* out, uint64_t out_bytes) {
  Impl& m = *impl_;
  const Retrieval res = m.advance(eb, out_bytes);
  if (m.h.dtype == DType::f32) m.reconstruct(static_cast<float*>(out));
  else m.reconstruct(static_cast<double*>(out));
  return res;
}

Retrieval Retriever::retrieve_to_device(const ErrorBound& eb, void* out, uint64_t out_bytes, Stream stream) {
  Impl& m = *impl_;
  dev::require_available();
  SCIZ_REQUIRE(dev::is_device_pointer(out), Status::invalid_argument,
               "mdr: the output is not device memory (a host pointer? retrieve() writes host memory)");
  const int where = dev::device_of_pointer(out), here = dev::current_device();
  SCIZ_REQUIRE(where == here, Status::invalid_argument,
               "mdr: the output is on CUDA device " + std::to_string(where) + ", the current device is " +
                   std::to_string(here) + " (make it current first)");
  const Retrieval res = m.advance(eb, out_bytes);
  if (m.h.dtype == DType::f32) m.reconstruct_device(static_cast<float*>(out), stream);
  else m.reconstruct_device(static_cast<double*>(out), stream);
  return res;
}

Retrieval Retriever::plan(const ErrorBound& eb) const {
  const Impl& m = *impl_;
  Retrieval res;
  res.requested = resolve(eb);
  res.segments = m.prefix_for(res.requested);
  res.bound = m.prefix_bound[res.segments];
  res.met = res.bound <= res.requested;
  const uint64_t p = res.segments;  // segments follow the header back to back
  res.total_bytes_read = p ? m.h.segments[p - 1].offset + m.h.segments[p - 1].length : m.info.header_bytes;
  res.bytes_read = res.total_bytes_read;
  return res;
}

double Retriever::held_bound() const { return impl_->prefix_bound[std::max(impl_->prefix, impl_->min_prefix)]; }

double Retriever::next_bound() const {
  const Impl& m = *impl_;
  const double now = held_bound();
  for (uint64_t p = std::max(m.prefix, m.min_prefix) + 1; p < m.prefix_bound.size(); ++p)
    if (m.prefix_bound[p] < now) return m.prefix_bound[p];
  return now;
}

uint64_t Retriever::held_bytes() const { return impl_->info.header_bytes + impl_->held.size(); }

std::vector<uint8_t> Retriever::state() const {
  const Impl& m = *impl_;
  std::vector<uint8_t> s(kStateFixed + m.held.size() + 8);
  uint8_t* p = s.data();
  auto put = [&](const void* v, size_t n) {
    if (n) std::memcpy(p, v, n);
    p += n;
  };
  const uint16_t version = kStateVersion, flags = 0;
  const uint64_t fields[3] = {m.h.checksum, m.prefix, m.held.size()};
  put(kStateMagic, 4);
  put(&version, 2);
  put(&flags, 2);
  put(fields, sizeof fields);
  put(m.held.data(), m.held.size());
  const uint64_t sum = xxh64(s.data(), s.size() - 8);
  put(&sum, 8);
  return s;
}

}  // namespace sciz::mdr
