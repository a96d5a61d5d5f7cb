#include "args.hpp"

#include <sciz/error.hpp>
#include <sciz/sciz.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cctype>
#include <cstdlib>
#include <optional>

#include "cli_error.hpp"
#include "lossless/stages/registry.hpp"

namespace sciz::cli {

const char* command_name(Command c) {
  switch (c) {
    case Command::compress: return "compress";
    case Command::decompress: return "decompress";
    case Command::info: return "info";
    case Command::eval: return "eval";
    case Command::refactor: return "refactor";
    case Command::retrieve: return "retrieve";
    case Command::version: return "--version";
    default: return "--help";
  }
}

namespace {

struct Spec {
  const char* short_name;  // may be nullptr
  const char* long_name;
  bool takes_value;
  std::vector<Command> commands;  // where it applies
};

const std::vector<Spec>& specs() {
  using C = Command;
  const std::vector<C> data_in = {C::compress, C::eval};
  const std::vector<C> field_in = {C::compress, C::eval, C::refactor};
  const std::vector<C> bounded = {C::compress, C::eval, C::retrieve};
  static const std::vector<Spec> all = {
      {"-i", "--input", true, {C::compress, C::decompress, C::info, C::eval, C::refactor, C::retrieve}},
      {"-o", "--output", true, {C::compress, C::decompress, C::eval, C::refactor, C::retrieve}},
      {"-t", "--type", true, field_in},
      {"-d", "--dims", true, field_in},
      {"-r", "--rel", true, bounded},
      {"-a", "--abs", true, bounded},
      {"-p", "--pipeline", true, data_in},
      {nullptr, "--device", true, {C::compress, C::decompress, C::eval, C::refactor}},
      {nullptr, "--radius", true, data_in},
      {nullptr, "--lossless", true, data_in},
      {nullptr, "--stages", true, data_in},
      {nullptr, "--delta-chain", true, data_in},
      {nullptr, "--szx-block", true, data_in},
      {nullptr, "--interp-spline", true, data_in},
      {nullptr, "--interp-scheme", true, data_in},
      {nullptr, "--interp-alpha", true, data_in},
      {nullptr, "--interp-beta", true, data_in},
      {nullptr, "--interp-lorenzo", true, data_in},
      {nullptr, "--runs", true, {C::eval}},
      {nullptr, "--chunk-mb", true, data_in},
      {nullptr, "--slice", true, {C::decompress}},
      {nullptr, "--gpu-memory", true, {C::compress, C::decompress, C::eval}},
      {nullptr, "--max-output", true, {C::decompress}},
      {nullptr, "--devices", true, {C::compress, C::decompress, C::eval}},
      {"-q", "--quiet", false, {C::compress, C::decompress, C::eval, C::refactor, C::retrieve}},
      {nullptr, "--json", false, {C::info, C::eval, C::refactor, C::retrieve}},
      {nullptr, "--planes-per-group", true, {C::refactor}},
      {nullptr, "--state", true, {C::retrieve}},
      {nullptr, "--qoi", true, {C::retrieve}},
      {nullptr, "--tol", true, {C::retrieve}},
      {nullptr, "--method", true, {C::retrieve}},
      {nullptr, "--weights", true, {C::retrieve}},
  };
  return all;
}

std::optional<Command> command_of(const std::string& s) {
  for (Command c : {Command::compress, Command::decompress, Command::info, Command::eval, Command::refactor,
                    Command::retrieve})
    if (s == command_name(c)) return c;
  return std::nullopt;
}

double parse_bound(const std::string& opt, const std::string& v) {
  errno = 0;
  char* end = nullptr;
  const double x = v.empty() ? 0.0 : std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size())
    usage_error("error bound " + opt + " " + quote(v) + " is not a number");
  if (!(std::isfinite(x) && x > 0) || errno == ERANGE)
    usage_error("error bound " + opt + " " + quote(v) + " must be a finite number > 0");
  return x;
}

long long parse_int(const std::string& opt, const std::string& v, long long lo, long long hi) {
  errno = 0;
  char* end = nullptr;
  const long long x = v.empty() ? 0 : std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || end != v.c_str() + v.size() || errno == ERANGE || x < lo || x > hi)
    usage_error(opt + " " + quote(v) + " must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
  return x;
}

double parse_real(const std::string& opt, const std::string& v, double lo, double hi) {
  errno = 0;
  char* end = nullptr;
  const double x = v.empty() ? lo - 1 : std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(x) || x < lo || x > hi || errno == ERANGE)
    usage_error(opt + " " + quote(v) + " must be a number in [" + std::to_string(static_cast<int>(lo)) + ", " + std::to_string(static_cast<int>(hi)) + "]");
  return x;
}

double parse_chunk_mb(const std::string& opt, const std::string& v) {
  errno = 0;
  char* end = nullptr;
  const double x = v.empty() ? -1.0 : std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(x) || x < 0 || errno == ERANGE)
    usage_error(opt + " " + quote(v) + " must be a number of MiB >= 0 (0: the whole field in one chunk)");
  return x;
}

// 512M, 2G, 1.5G, 4096: bytes with an optional binary K/M/G/T suffix.
uint64_t parse_size(const std::string& opt, const std::string& v) {
  errno = 0;
  char* end = nullptr;
  const double x = v.empty() ? -1.0 : std::strtod(v.c_str(), &end);
  double unit = 1;
  std::string rest = end ? std::string(end) : "";
  if (rest.size() == 1 || (rest.size() == 2 && (rest[1] == 'B' || rest[1] == 'b') && rest[0] != 'B')) {
    switch (std::toupper(static_cast<unsigned char>(rest[0]))) {
      case 'K': unit = 1024.0; break;
      case 'M': unit = 1048576.0; break;
      case 'G': unit = 1073741824.0; break;
      case 'T': unit = 1099511627776.0; break;
      case 'B': unit = 1; break;
      default: unit = 0;
    }
    rest.clear();
  }
  const double bytes = x * unit;
  if (v.empty() || !rest.empty() || unit == 0 || !std::isfinite(bytes) || bytes < 1 || bytes > 1.8e19 || errno == ERANGE)
    usage_error(opt + " " + quote(v) + " must be a size such as 512M, 2G or 1.5G (binary units), or bytes");
  return static_cast<uint64_t>(bytes);
}

std::optional<uint64_t> parse_row(const std::string& opt, const std::string& whole, const std::string& v) {
  if (v.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const unsigned long long x = std::strtoull(v.c_str(), &end, 10);
  if (end != v.c_str() + v.size() || errno == ERANGE || v[0] == '-')
    usage_error(opt + " " + quote(whole) + " must be A:B with row numbers (A: first row, B: one past the last)");
  return x;
}

std::vector<int> parse_devices(const std::string& opt, const std::string& v, bool& all) {
  all = v == "all";
  std::vector<int> out;
  if (all) return out;
  size_t at = 0;
  while (at <= v.size()) {
    const size_t comma = v.find(',', at);
    const std::string one = v.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    out.push_back(static_cast<int>(parse_int(opt, one, 0, 1023)));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (out.empty()) usage_error(opt + " " + quote(v) + " must be 'all' or device numbers such as 0,1");
  return out;
}

Shape parse_dims(const std::string& v) {
  try {
    return Shape::parse(v);
  } catch (const Error& e) {
    const std::string msg = e.what();
    // Shape's own messages do not always repeat the text the user typed.
    if (msg.find(quote(v)) != std::string::npos) usage_error(msg);
    usage_error("bad dims " + quote(v) + ": " + msg);
  }
}

void apply(Options& o, const Spec& s, const std::string& name, const std::string& v) {
  const std::string ln = s.long_name;
  try {
    if (ln == "--input") o.input = v;
    else if (ln == "--output") o.output = v;
    else if (ln == "--type") o.dtype = parse_dtype(v), o.dtype_arg = v;
    else if (ln == "--dims") o.dims = parse_dims(v), o.dims_arg = v;
    else if (ln == "--rel") o.rel = parse_bound(name, v), o.rel_arg = v;
    else if (ln == "--abs") o.abs = parse_bound(name, v), o.abs_arg = v;
    else if (ln == "--pipeline") o.pipeline = v;
    else if (ln == "--device") o.device = parse_device(v), o.device_given = true;
    else if (ln == "--radius") o.radius = static_cast<int32_t>(parse_int(name, v, 1, 32768));
    else if (ln == "--lossless") o.lossless = parse_lossless(v), o.lossless_arg = v;
    else if (ln == "--stages") {
      try {
        (void)stages::parse_chain(v);  // names an unknown stage or a broken rule
      } catch (const Error& e) {
        usage_error(name + " " + quote(v) + ": " + e.what());
      }
      o.stages = v;
    }
    else if (ln == "--delta-chain") o.delta_chain = parse_delta_chain(v);
    else if (ln == "--szx-block") {
      o.szx_block = static_cast<uint32_t>(parse_int(name, v, 32, 4096));
      if (o.szx_block % 32) usage_error(name + " " + quote(v) + " must be a multiple of 32 in 32..4096");
    }
    else if (ln == "--interp-spline") o.interp_spline = parse_interp_spline(v);
    else if (ln == "--interp-scheme") o.interp_scheme = parse_interp_scheme(v);
    else if (ln == "--interp-alpha") o.interp_alpha = parse_real(name, v, 0, 16);
    else if (ln == "--interp-beta") o.interp_beta = parse_real(name, v, 1, 1024);
    else if (ln == "--interp-lorenzo") {
      if (v != "on" && v != "off") usage_error(name + " " + quote(v) + " must be on or off");
      o.interp_lorenzo = v == "on";
    }
    else if (ln == "--runs") o.runs = static_cast<int>(parse_int(name, v, 1, 100000));
    else if (ln == "--chunk-mb") o.chunk_mb = parse_chunk_mb(name, v);
    else if (ln == "--gpu-memory") o.gpu_memory = parse_size(name, v);
    else if (ln == "--max-output") o.max_output = v == "0" || v == "none" ? 0 : parse_size(name, v);
    else if (ln == "--devices") o.devices = parse_devices(name, v, o.all_devices);
    else if (ln == "--slice") {
      const auto colon = v.find(':');
      if (colon == std::string::npos) usage_error(name + " " + quote(v) + " must be A:B (rows A to B-1 of the slowest axis)");
      o.slice = std::make_pair(parse_row(name, v, v.substr(0, colon)), parse_row(name, v, v.substr(colon + 1)));
      o.slice_arg = v;
    }
    else if (ln == "--planes-per-group") o.planes_per_group = static_cast<uint32_t>(parse_int(name, v, 1, 52));
    else if (ln == "--state") {
      if (v.empty()) usage_error(name + " needs a path");
      o.state = v;
    }
    else if (ln == "--qoi") {
      if (v != "vtotal" && v != "magnitude" && v != "linear")
        usage_error(name + " " + quote(v) + " must be vtotal, magnitude or linear");
      o.qoi = v;
    }
    else if (ln == "--tol") o.tol = parse_bound(name, v);
    else if (ln == "--method") {
      if (v != "cp" && v != "ma" && v != "mape") usage_error(name + " " + quote(v) + " must be cp, ma or mape");
      o.qoi_method = v;
    }
    else if (ln == "--weights") {
      o.weights.clear();
      size_t at = 0;
      while (at <= v.size()) {
        const size_t comma = v.find(',', at);
        const std::string one = v.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        errno = 0;
        char* end = nullptr;
        const double x = one.empty() ? NAN : std::strtod(one.c_str(), &end);
        if (one.empty() || end != one.c_str() + one.size() || !std::isfinite(x))
          usage_error(name + " " + quote(v) + " must be numbers separated by commas");
        o.weights.push_back(x);
        if (comma == std::string::npos) break;
        at = comma + 1;
      }
    }
    else if (ln == "--quiet") o.quiet = true;
    else if (ln == "--json") o.json = true;
  } catch (const Error& e) {  // parse_dtype / parse_device already name the value
    usage_error(e.what());
  }
}

void check_complete(const Options& o) {
  const std::string cmd = command_name(o.cmd);
  if (o.input.empty()) usage_error(cmd + " needs an input: -i PATH");
  if (o.output.empty() && (o.cmd == Command::compress || o.cmd == Command::decompress || o.cmd == Command::refactor ||
                           o.cmd == Command::retrieve))
    usage_error(cmd + " needs an output: -o PATH");
  if (o.cmd == Command::retrieve && !o.qoi.empty()) {
    if (!o.tol) usage_error("--qoi needs a tolerance: --tol REL (relative to the quantity's range)");
    if (o.rel || o.abs) usage_error("--qoi takes --tol, not -r or -a");
    if (!o.state.empty()) usage_error("--qoi does not take --state");
    if ((o.qoi == "linear") != !o.weights.empty()) usage_error("--weights go with --qoi linear, and it needs them");
  } else if (o.tol || !o.weights.empty() || o.qoi_method != "mape") {
    usage_error("--tol, --method and --weights go with --qoi");
  } else if (o.cmd == Command::compress || o.cmd == Command::eval || o.cmd == Command::retrieve) {
    if (!o.rel && !o.abs) usage_error(cmd + " needs an error bound: -r REL or -a ABS");
    if (o.rel && o.abs) usage_error("give -r or -a, not both (got -r " + quote(o.rel_arg) + " and -a " + quote(o.abs_arg) + ")");
  }
  if (!o.state.empty() && (o.state == o.output || o.state == o.input))
    usage_error("--state " + quote(o.state) + " must be a file of its own, not the input or the output");
  if (o.cmd == Command::compress || o.cmd == Command::eval) {
    if (!o.stages.empty() && !o.lossless_arg.empty())
      usage_error("give --lossless or --stages, not both (got --lossless " + quote(o.lossless_arg) + " and --stages " +
                  quote(o.stages) + ")");
    const auto known = pipelines();
    if (std::find(known.begin(), known.end(), o.pipeline) == known.end()) {
      std::string list;
      for (const auto& p : known) list += (list.empty() ? "" : ", ") + p;
      usage_error("unknown pipeline " + quote(o.pipeline) + " (known: " + list + ")");
    }
  }
}

}  // namespace

Options parse_args(const std::vector<std::string>& args) {
  Options o;
  if (args.empty()) usage_error("no command given (try 'sciz --help')");
  const std::string& first = args[0];
  if (first == "--help" || first == "-h" || first == "help") {
    o.cmd = Command::help;
    if (first == "help" && args.size() > 1) o.help_for = command_of(args[1]);
    return o;
  }
  if (first == "--version" || first == "-V") {
    o.cmd = Command::version;
    return o;
  }
  const auto cmd = command_of(first);
  if (!cmd)
    usage_error("unknown command " + quote(first) + " (expected compress, decompress, info, eval, refactor or retrieve)");
  o.cmd = *cmd;
  // --help wins over everything else on the line, even over malformed options.
  for (size_t k = 1; k < args.size(); ++k)
    if (args[k] == "--help" || args[k] == "-h") {
      o.help_for = o.cmd;
      o.cmd = Command::help;
      return o;
    }

  for (size_t k = 1; k < args.size(); ++k) {
    std::string name = args[k], value;
    bool inline_value = false;
    if (name.rfind("--", 0) == 0) {
      const auto eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
        inline_value = true;
      }
    }
    if (name.empty() || name[0] != '-') usage_error("unexpected argument " + quote(name) + " for " + first);
    const Spec* spec = nullptr;
    for (const auto& s : specs())
      if (name == s.long_name || (s.short_name && name == s.short_name)) spec = &s;
    if (!spec) usage_error("unknown option " + quote(name) + " for " + first + " (see 'sciz " + first + " --help')");
    if (std::find(spec->commands.begin(), spec->commands.end(), o.cmd) == spec->commands.end())
      usage_error("option " + quote(name) + " does not apply to " + first);
    if (spec->takes_value && !inline_value) {
      if (k + 1 >= args.size()) usage_error("option " + quote(name) + " needs a value");
      value = args[++k];
    } else if (!spec->takes_value && inline_value) {
      usage_error("option " + quote(name) + " takes no value");
    }
    apply(o, *spec, name, value);
  }
  check_complete(o);
  return o;
}

}  // namespace sciz::cli
