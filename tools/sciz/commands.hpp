// The four subcommands. Each returns the process exit status or throws CliError / sciz::Error.
#pragma once
#include "args.hpp"

namespace sciz::cli {

int run_compress(const Options& o);
int run_decompress(const Options& o);
int run_info(const Options& o);
int run_eval(const Options& o);

}  // namespace sciz::cli
