// Command-line parsing: argv -> one validated Options, or a usage error naming the culprit.
#pragma once
#include <sciz/sciz.hpp>
#include <sciz/types.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sciz::cli {

enum class Command { compress, decompress, info, eval, refactor, retrieve, help, version };

struct Options {
  Command cmd = Command::help;
  std::optional<Command> help_for;  // `sciz CMD --help`
  std::string input, output;
  std::optional<DType> dtype;
  std::optional<Shape> dims;
  std::string dtype_arg, dims_arg, rel_arg, abs_arg;  // as typed, for messages
  std::optional<double> rel, abs;
  std::string pipeline = "lorenzo";
  Device device = Device::auto_select;
  bool device_given = false;  // refactor keeps to the CPU unless told
  int32_t radius = 512;
  Lossless lossless = Lossless::auto_select;
  std::string lossless_arg;  // as typed, when given
  std::string stages;        // --stages, checked: a stage list or a named one
  DeltaChain delta_chain = DeltaChain::auto_select;
  uint32_t szx_block = 128;
  InterpSpline interp_spline = InterpSpline::auto_select;
  InterpScheme interp_scheme = InterpScheme::auto_select;
  double interp_alpha = 0;
  double interp_beta = 4;
  bool interp_lorenzo = true;
  int runs = 0;  // 0: eval_runs() picks by the field's size
  double chunk_mb = kDefaultChunkMiB;
  std::optional<std::pair<std::optional<uint64_t>, std::optional<uint64_t>>> slice;  // --slice A:B (either side may be open)
  std::string slice_arg;
  uint64_t gpu_memory = 0;
  uint64_t max_output = kDefaultMaxOutput;  // --max-output; 0: no limit
  std::vector<int> devices;  // empty: the current device; filled from --devices (all: every visible one)
  bool all_devices = false;
  bool quiet = false;
  bool json = false;
  uint32_t planes_per_group = 1;  // refactor
  std::string state;              // retrieve: --state PATH
  std::string qoi;                // retrieve --qoi vtotal|magnitude|linear: -i and -o are comma lists
  std::optional<double> tol;      // --tol REL (with --qoi)
  std::string qoi_method = "mape";
  std::vector<double> weights;    // --weights a,b,... (linear)

  ErrorBound bound() const { return rel ? ErrorBound{EbMode::rel, *rel} : ErrorBound{EbMode::abs, *abs}; }
};

const char* command_name(Command c);

// Throws CliError(kExitUsage) on any malformed or inapplicable option.
Options parse_args(const std::vector<std::string>& args);

}  // namespace sciz::cli
