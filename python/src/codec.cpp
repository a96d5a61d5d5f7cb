// compress / decompress / header / inspect on raw pointers. Python hands over addresses it
// took from live arrays and keeps those arrays alive for the call; sizes come from the arrays.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>
#include <sciz/chunked.hpp>
#include <sciz/sciz.hpp>

#include <chrono>
#include <cstring>

#include "bindings.hpp"
#include "core/container.hpp"
#include "device_scope.hpp"

namespace nb = nanobind;

namespace sciz::py {
namespace {

// Where a field or stream is: an address, and the device holding it (-1: host memory).
struct Place {
  uintptr_t ptr;
  int device;
  bool on_device() const { return device >= 0; }
  const void* get() const { return reinterpret_cast<const void*>(ptr); }
  void* get_mut() const { return reinterpret_cast<void*>(ptr); }
};

Shape shape_of(const std::vector<uint64_t>& dims) {
  Shape s{dims};
  s.validate();
  return s;
}

// The options dict has been checked and typed by python/sciz/_options.py.
CompressOptions options_of(const std::string& mode, double eb, const std::string& pipeline, const std::string& device,
                           const nb::dict& o, uintptr_t stream) {
  CompressOptions c;
  c.eb = {mode == "abs" ? EbMode::abs : EbMode::rel, eb};
  c.pipeline = pipeline;
  c.device = parse_device(device);
  c.stream = as_stream(stream);
  for (auto [k, v] : o) {
    const std::string key = nb::cast<std::string>(k);
    if (key == "radius") c.radius = nb::cast<int32_t>(v);
    else if (key == "lossless") c.lossless = parse_lossless(nb::cast<std::string>(v));
    else if (key == "stages") c.stages = nb::cast<std::string>(v);
    else if (key == "delta_chain") c.delta_chain = parse_delta_chain(nb::cast<std::string>(v));
    else if (key == "szx_block") c.szx_block = nb::cast<uint32_t>(v);
    else if (key == "chunk_mb") c.chunk_mb = nb::cast<double>(v);
    else if (key == "gpu_memory") c.gpu_memory = nb::cast<uint64_t>(v);
    else if (key == "devices") c.devices = nb::cast<std::vector<int>>(v);
    else fail(Status::invalid_argument, "unknown option '" + key + "'");
  }
  return c;
}

FieldView field_of(const Place& p, const std::string& dtype, const std::vector<uint64_t>& dims) {
  return {p.get(), parse_dtype(dtype), shape_of(dims), p.on_device()};
}

// compress() into a bytes object sized for the worst case, shrunk to the stream's size after:
// the stream is written once, straight into the object Python gets.
nb::bytes compress_to_bytes(Place field, const std::string& dtype, const std::vector<uint64_t>& dims,
                            const std::string& mode, double eb, const std::string& pipeline, const std::string& device,
                            const nb::dict& options, uintptr_t stream) {
  const FieldView f = field_of(field, dtype, dims);
  const CompressOptions opt = options_of(mode, eb, pipeline, device, options, stream);
  const uint64_t cap = max_compressed_size(f.dtype, f.shape, opt.pipeline, opt.chunk_mb);
  PyObject* raw = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(cap));
  if (!raw) throw nb::python_error();
  nb::object out = nb::steal(raw);
  uint64_t size = 0;
  {
    nb::gil_scoped_release unlocked;
    DeviceScope on(field.device);
    size = compress_into(f, PyBytes_AS_STRING(raw), cap, false, opt);
  }
  if (_PyBytes_Resize(&raw, static_cast<Py_ssize_t>(size)) != 0) {
    out.release();  // _PyBytes_Resize freed it
    throw nb::python_error();
  }
  out.release();
  return nb::steal<nb::bytes>(raw);
}

uint64_t compress_to(Place field, const std::string& dtype, const std::vector<uint64_t>& dims, const std::string& mode,
                     double eb, const std::string& pipeline, const std::string& device, const nb::dict& options,
                     uintptr_t stream, Place out, uint64_t capacity) {
  const FieldView f = field_of(field, dtype, dims);
  const CompressOptions opt = options_of(mode, eb, pipeline, device, options, stream);
  nb::gil_scoped_release unlocked;
  DeviceScope on(out.on_device() ? out.device : field.device);
  return compress_into(f, out.get_mut(), capacity, out.on_device(), opt);
}

// The dtype and shape a stream decodes to, reading only its header.
std::pair<std::string, std::vector<uint64_t>> header(Place s, uint64_t size, uintptr_t stream) {
  auto describe = [](std::span<const uint8_t> head, uint64_t n) {
    const ChunkedDecompressor d(head, n);
    return std::make_pair(std::string(d.dtype() == DType::f32 ? "float32" : "float64"), d.shape().dims);
  };
  if (!s.on_device()) return describe({static_cast<const uint8_t*>(s.get()), size}, size);
  nb::gil_scoped_release unlocked;
  DeviceScope on(s.device);
  uint8_t first[12] = {};
  const uint64_t n0 = std::min<uint64_t>(size, sizeof first);
  dev::copy_to_host(first, s.get(), n0, as_stream(stream));
  dev::sync(as_stream(stream));
  const uint64_t need = ChunkedDecompressor::head_bytes({first, n0}, size);
  std::vector<uint8_t> head(need);
  dev::copy_to_host(head.data(), s.get(), need, as_stream(stream));
  dev::sync(as_stream(stream));
  return describe(head, size);
}

void decompress_to(Place s, uint64_t size, Place out, uint64_t out_bytes, const std::string& device,
                   uintptr_t stream, uint64_t max_output) {
  DecompressOptions d;
  d.max_output = max_output;
  d.device = parse_device(device);
  d.out_on_device = out.on_device();
  d.stream = as_stream(stream);
  nb::gil_scoped_release unlocked;
  DeviceScope on(out.on_device() ? out.device : s.device);
  decompress(StreamView(s.get(), size, s.on_device()), out.get_mut(), out_bytes, d);
}

nb::dict inspect_stream(Place s, uint64_t size) {
  StreamInfo i;
  {
    nb::gil_scoped_release unlocked;
    DeviceScope on(s.device);
    i = inspect(StreamView(s.get(), size, s.on_device()));
  }
  nb::dict d;
  d["format_version"] = i.version;
  d["dtype"] = i.dtype == DType::f32 ? "float32" : "float64";
  d["shape"] = nb::tuple(nb::cast(i.shape.dims));
  d["eb_mode"] = i.eb_mode == EbMode::abs ? "abs" : "rel";
  d["eb"] = i.eb_value;
  d["eb_abs"] = i.eb_abs;
  d["value_min"] = i.value_min;
  d["value_max"] = i.value_max;
  d["nonfinite"] = i.nonfinite;
  d["pipeline"] = i.pipeline;
  nb::dict params;
  for (const auto& [k, v] : i.params) params[k.c_str()] = v;
  d["params"] = params;
  nb::list sections;
  for (const auto& s2 : i.sections) {
    nb::dict x;
    x["id"] = s2.id;
    x["offset"] = s2.offset;
    x["length"] = s2.length;
    x["checksum"] = s2.checksum;
    sections.append(x);
  }
  d["sections"] = sections;
  d["stream_bytes"] = i.stream_bytes;
  d["original_bytes"] = i.original_bytes();
  d["ratio"] = i.stream_bytes ? static_cast<double>(i.original_bytes()) / static_cast<double>(i.stream_bytes) : 0.0;
  d["rows_per_chunk"] = i.rows_per_chunk;
  nb::list chunks;
  for (const auto& c : i.chunks) {
    nb::dict x;
    x["rows"] = nb::make_tuple(c.row0, c.row0 + c.rows);
    x["offset"] = c.offset;
    x["length"] = c.length;
    x["pipeline"] = c.pipeline;
    chunks.append(x);
  }
  d["chunks"] = chunks;
  return d;
}

// Seconds per call of the C++ API itself, for the overhead benchmark (bench/python_overhead.py):
// compress() into a vector for a host destination (out == 0), compress_into() device memory
// otherwise, synchronising the stream after each call.
std::vector<double> time_compress(Place field, const std::string& dtype, const std::vector<uint64_t>& dims,
                                  const std::string& mode, double eb, const std::string& pipeline,
                                  const std::string& device, const nb::dict& options, uintptr_t stream, Place out,
                                  uint64_t capacity, int runs) {
  const FieldView f = field_of(field, dtype, dims);
  const CompressOptions opt = options_of(mode, eb, pipeline, device, options, stream);
  std::vector<double> t;
  nb::gil_scoped_release unlocked;
  DeviceScope on(out.on_device() ? out.device : field.device);
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    if (out.ptr == 0) {
      (void)compress(f, opt);
    } else {
      (void)compress_into(f, out.get_mut(), capacity, out.on_device(), opt);
      if (out.on_device()) dev::sync(opt.stream);
    }
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return t;
}

}  // namespace

void bind_codec(nb::module_& m) {
  m.attr("__version__") = SCIZ_VERSION;
  m.attr("format_version") = kFormatVersion;
  m.attr("default_chunk_mb") = kDefaultChunkMiB;
  m.attr("default_max_output") = kDefaultMaxOutput;
#if defined(SCIZ_HAVE_CUDA)
  m.attr("cuda_built") = true;
#else
  m.attr("cuda_built") = false;
#endif
  m.def("cuda_available", [] { return cuda_available(); });
  m.def("cuda_device_count", [] { return cuda_device_count(); });
  m.def("release_cached_memory", [] {
    nb::gil_scoped_release unlocked;  // waits for queued GPU work
    release_cached_memory();
  });
  m.def("pipelines", [] { return pipelines(); });
  m.def("max_compressed_size", [](const std::string& dtype, const std::vector<uint64_t>& dims,
                                  const std::string& pipeline, double chunk_mb) {
    return max_compressed_size(parse_dtype(dtype), shape_of(dims), pipeline, chunk_mb);
  });
  m.def("compress",
        [](uintptr_t ptr, int device_id, const std::string& dtype, const std::vector<uint64_t>& dims,
           const std::string& mode, double eb, const std::string& pipeline, const std::string& device,
           const nb::dict& options, uintptr_t stream) {
          return compress_to_bytes({ptr, device_id}, dtype, dims, mode, eb, pipeline, device, options, stream);
        });
  m.def("compress_into",
        [](uintptr_t ptr, int device_id, const std::string& dtype, const std::vector<uint64_t>& dims,
           const std::string& mode, double eb, const std::string& pipeline, const std::string& device,
           const nb::dict& options, uintptr_t stream, uintptr_t out, int out_device, uint64_t capacity) {
          return compress_to({ptr, device_id}, dtype, dims, mode, eb, pipeline, device, options, stream,
                             {out, out_device}, capacity);
        });
  m.def("header", [](uintptr_t ptr, int device_id, uint64_t size, uintptr_t stream) {
    return header({ptr, device_id}, size, stream);
  });
  m.def("decompress",
        [](uintptr_t ptr, int device_id, uint64_t size, uintptr_t out, int out_device, uint64_t out_bytes,
           const std::string& device, uintptr_t stream, uint64_t max_output) {
          decompress_to({ptr, device_id}, size, {out, out_device}, out_bytes, device, stream, max_output);
        });
  m.def("_time_compress",
        [](uintptr_t ptr, int device_id, const std::string& dtype, const std::vector<uint64_t>& dims,
           const std::string& mode, double eb, const std::string& pipeline, const std::string& device,
           const nb::dict& options, uintptr_t stream, uintptr_t out, int out_device, uint64_t capacity, int runs) {
          return time_compress({ptr, device_id}, dtype, dims, mode, eb, pipeline, device, options, stream,
                               {out, out_device}, capacity, runs);
        });
  m.def("inspect", [](uintptr_t ptr, int device_id, uint64_t size) { return inspect_stream({ptr, device_id}, size); });
}

}  // namespace sciz::py
