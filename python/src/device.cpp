// What nanobind's ndarray leaves to us for device arrays: reading a DLPack capsule that the
// Python side obtained with the right consumer stream, finding the device of a pointer that
// came through __cuda_array_interface__ (which names none), and ordering our stream after a
// producer's stream without blocking the host.
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "core/device_streams.hpp"
#include "device_scope.hpp"

namespace nb = nanobind;

namespace sciz::py {
namespace {

// (address, shape, strides in elements, dtype name, item size in bytes, DLPack device type,
// device id, owner). The owner keeps the capsule's tensor alive for as long as Python holds it.
nb::tuple dlpack_view(nb::ndarray<nb::ro> a) {
  std::vector<int64_t> shape, strides;
  for (size_t k = 0; k < a.ndim(); ++k) {
    shape.push_back(a.shape(k));
    strides.push_back(a.stride(k));
  }
  const nb::dlpack::dtype t = a.dtype();
  std::string dtype = "other";
  if (t.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Float) && t.lanes == 1) {
    if (t.bits == 32) dtype = "float32";
    else if (t.bits == 64) dtype = "float64";
    else dtype = "float" + std::to_string(t.bits);
  } else if (t.code == static_cast<uint8_t>(nb::dlpack::dtype_code::UInt) && t.bits == 8 && t.lanes == 1) {
    dtype = "uint8";
  }
  const uint32_t itemsize = static_cast<uint32_t>(t.bits) * t.lanes / 8;
  // The owner: a capsule holding our reference to the imported tensor, released with it.
  using Held = nb::ndarray<nb::ro>;
  nb::capsule owner(new Held(a), [](void* p) noexcept { delete static_cast<Held*>(p); });
  return nb::make_tuple(reinterpret_cast<uintptr_t>(a.data()), shape, strides, dtype, itemsize, a.device_type(),
                        a.device_id(), owner);
}

// Makes `consumer` wait for the work queued so far on `producer` (an event, no host sync).
void stream_wait(int device, uintptr_t consumer, uintptr_t producer) {
  if (consumer == producer) return;
  DeviceScope on(device);
  const dev::Event e = dev::make_event();
  try {
    dev::record(e, as_stream(producer));
    dev::wait(as_stream(consumer), e);
  } catch (...) {
    dev::destroy_event(e);
    throw;
  }
  dev::destroy_event(e);  // safe while the wait is pending: CUDA releases it once satisfied
}

}  // namespace

void bind_device(nb::module_& m) {
  m.def("dlpack_view", &dlpack_view, nb::arg("capsule"));
  m.def("pointer_device", [](uintptr_t p) { return dev::device_of_pointer(reinterpret_cast<const void*>(p)); });
  m.def("stream_wait", &stream_wait, nb::arg("device"), nb::arg("consumer"), nb::arg("producer"));
  m.def("synchronize", [](int device, uintptr_t s) {
    nb::gil_scoped_release unlocked;
    DeviceScope on(device);
    dev::sync(as_stream(s));
  });
}

}  // namespace sciz::py
