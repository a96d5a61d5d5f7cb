#include "bindings.hpp"

NB_MODULE(_core, m) {
  m.doc() = "sciz's compiled core; use the functions of the sciz package instead";
  sciz::py::bind_errors(m);
  sciz::py::bind_codec(m);
  sciz::py::bind_device(m);
  sciz::py::bind_metrics(m);
  sciz::py::bind_mdr(m);
}
