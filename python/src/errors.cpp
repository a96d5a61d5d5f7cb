// sciz::Error -> the Python class for its status (python/sciz/_errors.py defines them, with the
// Python bases each kind needs: ValueError for bad input, RuntimeError for failures).
#include <sciz/error.hpp>

#include <array>
#include <exception>

#include "bindings.hpp"

namespace nb = nanobind;

namespace sciz::py {
namespace {

constexpr size_t kStatuses = 9;  // Status::ok .. Status::buffer_too_small
// Held for the life of the process: a translator may run while the interpreter tears
// modules down, and Python objects must not be released after it has gone.
std::array<PyObject*, kStatuses>* classes = nullptr;

void raise(const Error& e) {
  const auto s = static_cast<size_t>(e.status());
  PyObject* cls = classes && s < kStatuses ? (*classes)[s] : nullptr;
  if (!cls) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    return;
  }
  nb::object exc = nb::borrow(cls)(e.what());
  if (e.status() == Status::buffer_too_small) exc.attr("needed_bytes") = e.needed_bytes();
  PyErr_SetObject(cls, exc.ptr());
}

}  // namespace

void bind_errors(nb::module_& m) {
  m.def("_set_error_classes", [](nb::list by_status) {
    if (by_status.size() != kStatuses) throw nb::value_error("one class per sciz status expected");
    auto* table = new std::array<PyObject*, kStatuses>{};
    for (size_t i = 0; i < kStatuses; ++i) (*table)[i] = nb::object(by_status[i]).release().ptr();
    classes = table;  // the old table, if any, is leaked with its references on purpose
  });
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      raise(e);
    }
  });
}

}  // namespace sciz::py
