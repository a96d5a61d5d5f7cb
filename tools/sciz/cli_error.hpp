// What the CLI reports to the user: one line, and an exit status scripts can branch on.
#pragma once
#include <stdexcept>
#include <string>

namespace sciz::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitData = 1;   // unreadable/mismatched input, corrupt stream, I/O failure
inline constexpr int kExitUsage = 2;  // the command line itself is wrong
inline constexpr int kExitBound = 3;  // eval measured an error above the bound it promised

class CliError : public std::runtime_error {
 public:
  CliError(int code, const std::string& msg) : std::runtime_error(msg), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

[[noreturn]] inline void usage_error(const std::string& msg) { throw CliError(kExitUsage, msg); }
[[noreturn]] inline void data_error(const std::string& msg) { throw CliError(kExitData, msg); }

// 'value' in single quotes, the way every message names what it refuses.
inline std::string quote(const std::string& s) { return "'" + s + "'"; }

}  // namespace sciz::cli
