// mdr (progressive refactoring, docs/MDR.md) for Python: refactor an array into a file held in
// a bytes object, and a Retriever over such bytes that retrieves any bound, reading only the
// prefix it needs, progressively, with a state to resume from.
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>
#include <sciz/mdr.hpp>

#include <cstring>
#include <memory>

#include "bindings.hpp"

namespace nb = nanobind;

namespace sciz::py {
namespace {

ErrorBound bound_of(const std::string& mode, double eb) { return {mode == "abs" ? EbMode::abs : EbMode::rel, eb}; }

nb::bytes to_bytes(const std::vector<uint8_t>& v) {
  return nb::bytes(reinterpret_cast<const char*>(v.data()), v.size());
}

nb::dict retrieval_dict(const mdr::Retrieval& r) {
  nb::dict d;
  d["requested"] = r.requested;
  d["bound"] = r.bound;
  d["met"] = r.met;
  d["segments"] = r.segments;
  d["bytes_read"] = r.bytes_read;
  d["total_bytes_read"] = r.total_bytes_read;
  return d;
}

// The file's bytes are copied in: the Retriever reads them for as long as it lives.
class PyRetriever {
 public:
  PyRetriever(const uint8_t* data, uint64_t size, const uint8_t* state, uint64_t state_size)
      : file_(data, data + size) {
    nb::gil_scoped_release unlocked;
    const mdr::Source src = mdr::memory_source(file_);
    r_ = state ? std::make_unique<mdr::Retriever>(src, std::span<const uint8_t>(state, state_size))
               : std::make_unique<mdr::Retriever>(src);
  }

  nb::dict info() const {
    const mdr::FileInfo& i = r_->info();
    nb::dict d;
    d["version"] = i.version;
    d["dtype"] = i.dtype == DType::f32 ? "float32" : "float64";
    d["shape"] = i.shape.dims;
    d["value_min"] = i.value_min;
    d["value_max"] = i.value_max;
    d["special_values"] = i.special;
    d["levels"] = i.levels;
    d["segments"] = i.segments;
    d["header_bytes"] = i.header_bytes;
    d["file_bytes"] = i.file_bytes;
    d["coarsest_bound"] = i.coarsest_bound;
    d["finest_bound"] = i.finest_bound;
    return d;
  }

  double resolve(const std::string& mode, double eb) const { return r_->resolve(bound_of(mode, eb)); }

  nb::dict retrieve(const std::string& mode, double eb, uintptr_t out, uint64_t out_bytes) {
    mdr::Retrieval got;
    {
      nb::gil_scoped_release unlocked;
      got = r_->retrieve(bound_of(mode, eb), reinterpret_cast<void*>(out), out_bytes);
    }
    return retrieval_dict(got);
  }

  nb::dict plan(const std::string& mode, double eb) const { return retrieval_dict(r_->plan(bound_of(mode, eb))); }
  nb::bytes state() const { return to_bytes(r_->state()); }
  double held_bound() const { return r_->held_bound(); }
  double next_bound() const { return r_->next_bound(); }
  uint64_t held_bytes() const { return r_->held_bytes(); }

 private:
  std::vector<uint8_t> file_;
  std::unique_ptr<mdr::Retriever> r_;
};

}  // namespace

void bind_mdr(nb::module_& m) {
  m.def("mdr_refactor", [](uintptr_t ptr, int device_id, const std::string& dtype, const std::vector<uint64_t>& dims,
                           uint32_t planes_per_group, const std::string& device) {
    Shape s{dims};
    s.validate();
    const FieldView f{reinterpret_cast<const void*>(ptr), parse_dtype(dtype), s, device_id >= 0};
    mdr::RefactorOptions o;
    o.planes_per_group = planes_per_group;
    o.device = parse_device(device);
    std::vector<uint8_t> file;
    {
      nb::gil_scoped_release unlocked;
      file = mdr::refactor(f, o);
    }
    return to_bytes(file);
  });
  nb::class_<PyRetriever>(m, "MdrRetriever")
      .def("__init__",
           [](PyRetriever* self, uintptr_t data, uint64_t size, uintptr_t state, uint64_t state_size) {
             new (self) PyRetriever(reinterpret_cast<const uint8_t*>(data), size,
                                    state ? reinterpret_cast<const uint8_t*>(state) : nullptr, state_size);
           })
      .def("info", &PyRetriever::info)
      .def("resolve", &PyRetriever::resolve)
      .def("retrieve", &PyRetriever::retrieve)
      .def("plan", &PyRetriever::plan)
      .def("state", &PyRetriever::state)
      .def("held_bound", &PyRetriever::held_bound)
      .def("next_bound", &PyRetriever::next_bound)
      .def("held_bytes", &PyRetriever::held_bytes);
}

}  // namespace sciz::py
