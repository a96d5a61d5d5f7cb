// The subcommands. Each returns the process exit status or throws CliError / sciz::Error.
#pragma once
#include <string>

#include "args.hpp"

namespace sciz::cli {

int run_compress(const Options& o);
int run_decompress(const Options& o);
int run_info(const Options& o);
int run_eval(const Options& o);
int run_refactor(const Options& o);   // mdr_commands.cpp
int run_retrieve(const Options& o);
int run_info_mdr(const Options& o);   // `info` of a refactored file
bool is_mdr_file(const std::string& path);  // starts with the mdr magic

}  // namespace sciz::cli
