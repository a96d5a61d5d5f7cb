// sciz command-line tool. Every failure ends here as one "sciz: error: ..." line on stderr and
// a non-zero status; nothing escapes as an uncaught exception or a crash.
#include <sciz/error.hpp>

#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "args.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "help.hpp"

namespace {

int report(const std::string& msg, int code) {
  std::string line = msg;
  // Library messages may quote user input verbatim; keep the promise of exactly one line.
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  std::fprintf(stderr, "sciz: error: %s\n", line.c_str());
  return code;
}

int dispatch(const sciz::cli::Options& o) {
  using sciz::cli::Command;
  switch (o.cmd) {
    case Command::compress: return sciz::cli::run_compress(o);
    case Command::decompress: return sciz::cli::run_decompress(o);
    case Command::info: return sciz::cli::run_info(o);
    case Command::eval: return sciz::cli::run_eval(o);
    case Command::refactor: return sciz::cli::run_refactor(o);
    case Command::retrieve: return sciz::cli::run_retrieve(o);
    case Command::version: std::fputs(sciz::cli::version_text().c_str(), stdout); return 0;
    default: std::fputs(sciz::cli::help_text(o.help_for).c_str(), stdout); return 0;
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace sciz::cli;
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    return dispatch(parse_args(args));
  } catch (const CliError& e) {
    return report(e.what(), e.code());
  } catch (const sciz::Error& e) {
    return report(e.what(), e.status() == sciz::Status::invalid_argument ? kExitUsage : kExitData);
  } catch (const std::bad_alloc&) {
    return report("out of memory", kExitData);
  } catch (const std::exception& e) {
    return report(std::string("internal error: ") + e.what(), kExitData);
  } catch (...) {
    return report("internal error: unknown exception", kExitData);
  }
}
