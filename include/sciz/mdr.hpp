// sciz `mdr`: refactor a field once into a file of separately readable segments, then
// retrieve it at any bound, reading only the segments that bound needs (docs/MDR.md).
//
//   auto file = sciz::mdr::refactor({data, sciz::DType::f32, sciz::Shape::parse("100x500x500")});
//   sciz::mdr::Retriever r(sciz::mdr::memory_source(file));      // or file_source("f.sciz")
//   auto got = r.retrieve({sciz::EbMode::rel, 1e-3}, out, bytes);  // reads the header and a prefix
//   got = r.retrieve({sciz::EbMode::rel, 1e-5}, out, bytes);        // reads only what 1e-5 adds
//
// Every finite point of a retrieval lies within got.bound of the original (got.bound is a
// proven upper bound, rounding included); NaN and Inf come back bit for bit.
#pragma once
#include <sciz/error.hpp>
#include <sciz/sciz.hpp>
#include <sciz/types.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace sciz::mdr {

struct RefactorOptions {
  // Bitplanes per segment (the paper's unit is 4): fewer give a finer choice of what to read,
  // more give fewer, larger segments. 1..32 for f32, 1..52 for f64.
  uint32_t planes_per_group = 1;
  // Algorithm 2's thresholds: a group of at most copy_below bytes is stored as it is (or
  // gap-coded, whose header is 3 bytes, when that is smaller), and a coder (Huffman, RLE or
  // gap coding) is used only where its ratio exceeds min_ratio.
  uint64_t copy_below = 256;
  double min_ratio = 1.0;
  // Where the field is decomposed and quantized: cpu, cuda (the GPU twin: the field's pass,
  // decomposition, digits, error tables and planes on the current GPU, the groups coded on the
  // host as by the CPU twin; docs/MDR.md section 8), or auto (cuda for a field marked
  // FieldView::on_device, else cpu). Both write the same file, byte for byte. The GPU twin
  // takes a field in host memory (uploaded once; pinned memory is copied fastest) or in the
  // current device's memory (marked on_device, or found to be by the pointer check); the CPU
  // twin downloads a field marked on_device first.
  Device device = Device::cpu;
  Stream stream = nullptr;  // cuda: the CUDA stream the work is ordered on (synchronized before returning)
};

// The whole refactored file in memory.
std::vector<uint8_t> refactor(const FieldView& field, const RefactorOptions& opt = {});

// Random access to a refactored file: read(offset, n, dst) fills dst with bytes
// [offset, offset + n) of the file, or throws.
struct Source {
  uint64_t size = 0;
  std::function<void(uint64_t offset, uint64_t n, void* dst)> read;
};
Source memory_source(std::span<const uint8_t> bytes);  // the bytes must outlive the Source
Source file_source(const std::string& path);           // the file stays open while the Source lives

struct FileInfo {
  uint16_t version = 0;  // of the file's format (docs/MDR.md section 4)
  DType dtype = DType::f32;
  Shape shape;
  double value_min = 0, value_max = 0;  // finite values (NaN when there are none)
  uint64_t special = 0;                 // values carried exactly (NaN, Inf, f64 beyond 2^1000)
  uint32_t levels = 0, segments = 0;
  uint64_t header_bytes = 0, file_bytes = 0;
  double coarsest_bound = 0;  // reading nothing beyond the header (and the exact values)
  double finest_bound = 0;    // reading every segment
};

struct Retrieval {
  double requested = 0;  // the absolute bound asked for
  double bound = 0;      // guaranteed: |x - x'| <= bound at every finite point
  bool met = false;      // bound <= requested (false only below finest_bound)
  uint64_t segments = 0;          // segments held after this call
  uint64_t bytes_read = 0;        // by this call (the header counts on the first)
  uint64_t total_bytes_read = 0;  // since the first retrieval (a resumed state included)
};

// Reads and checks the header and index when constructed; each retrieve() refines what it
// holds, reading only segments it lacks, and reconstructs the whole field into out.
class Retriever {
 public:
  explicit Retriever(Source src);
  // Continues from state() of an earlier Retriever on the same file (checked).
  Retriever(Source src, std::span<const uint8_t> state);
  ~Retriever();
  Retriever(Retriever&&) noexcept;
  Retriever& operator=(Retriever&&) noexcept;

  const FileInfo& info() const;
  double resolve(const ErrorBound& eb) const;  // the absolute bound a request means
  // out: exactly count x sizeof(dtype) bytes. A bound below finest_bound reads everything and
  // reports met = false.
  Retrieval retrieve(const ErrorBound& eb, void* out, uint64_t out_bytes);
  // The same, into device memory of the current GPU: the segments are read and decoded on the
  // host as by retrieve() (the retriever's state is one and the same), then the coefficients,
  // the recomposition, the cast and the special values run on the GPU, ordered on `stream`; the
  // field is retrieve()'s bit for bit. Returns once the work is queued (the host's buffers are
  // already read): out holds the field when `stream` has been synchronized.
  Retrieval retrieve_to_device(const ErrorBound& eb, void* out, uint64_t out_bytes, Stream stream = nullptr);
  // What a fresh retrieve(eb) would read and guarantee, from the index alone (nothing read,
  // nothing decoded): requested, bound, met, segments, and bytes_read = total_bytes_read.
  Retrieval plan(const ErrorBound& eb) const;
  // What has been read so far, to resume from later: the segments as read (compressed).
  std::vector<uint8_t> state() const;
  // The bound of what is held now, and the next smaller bound reading more could reach (the
  // held one when everything is read): the steps of minimal augmentation.
  double held_bound() const;
  double next_bound() const;
  uint64_t held_bytes() const;  // header and segments held: what reaching them took

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Quantities of interest over several refactored fields of one shape (docs/MDR.md section 6):
// the components are retrieved, refined together, until a proven bound on the error of the
// quantity at every point meets the tolerance.
enum class Qoi : uint8_t {
  vtotal,     // sum of the squared components (Vx^2 + Vy^2 + Vz^2)
  magnitude,  // its square root
  linear,     // sum of weights[i] x component i
};
// How the next component bounds are chosen when the estimate is above the tolerance (HP-MDR
// section 6.2): cp halves them at the worst point until that point meets the tolerance; ma
// reads one more step of every component; mape divides them by estimate / tolerance while that
// ratio exceeds c, then takes ma steps.
enum class QoiMethod : uint8_t { cp, ma, mape };
const char* qoi_name(Qoi q);
Qoi parse_qoi(const std::string& s);             // "vtotal", "magnitude", "linear"
const char* qoi_method_name(QoiMethod m);
QoiMethod parse_qoi_method(const std::string& s);  // "cp", "ma", "mape"

struct QoiOptions {
  Qoi qoi = Qoi::vtotal;
  std::vector<double> weights;  // linear: one per component
  QoiMethod method = QoiMethod::mape;
  double mape_c = 10;           // the paper's choice
  int max_iterations = 200;
};

struct QoiResult {
  double tolerance = 0;  // absolute: rel x a lower bound of the quantity's range
  double estimate = 0;   // |Q(V) - Q(V')| <= estimate at every point with finite components
  bool met = false;      // estimate <= tolerance
  int iterations = 0;
  uint64_t bytes_read = 0;     // all components, headers included
  std::vector<double> bounds;  // each component's guaranteed bound
};

// outs[i]: component i's field (its dtype, count values). rel: the tolerance relative to the
// range of Q over the original fields (a lower bound of it, derived from the retrieved fields
// and the estimate, so the tolerance is never looser than asked).
QoiResult retrieve_qoi(std::span<Retriever* const> components, double rel, const QoiOptions& opt,
                       std::span<void* const> outs);

}  // namespace sciz::mdr
