// Text of `sciz --help`, `sciz CMD --help` and `sciz --version`.
#pragma once
#include <optional>
#include <string>

#include "args.hpp"

namespace sciz::cli {

std::string help_text(std::optional<Command> cmd);
std::string version_text();

}  // namespace sciz::cli
