// Error types shared by every layer.
//
// InputError is a problem with what the user gave us (a trace, a matrix, an option): the CLI prints
// its one-line message and exits with status 2. Anything else derived from std::exception is a bug
// or an environment failure (exit status 1).
#pragma once

#include <stdexcept>
#include <string>

namespace sfr {

class InputError : public std::runtime_error {
public:
  // `where` names the place (a JSON pointer, "file:line", an option); may be empty.
  InputError(std::string where, const std::string& what)
      : std::runtime_error(one_line(where.empty() ? what : where + ": " + what)), where_(std::move(where)) {}
  const std::string& where() const noexcept { return where_; }

  // Messages are guaranteed to be a single line.
  static std::string one_line(std::string s) {
    for (char& c : s)
      if (c == '\n' || c == '\r') c = ' ';
    return s;
  }

private:
  std::string where_;
};

// Raised by graph algorithms on a graph they cannot handle (e.g. the inverse of a root with two
// leaves). The trace reader turns it into an InputError naming the SF.
class GraphError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// An MPI call that returned an error (exec/mpi/mpi_check.hpp): an environment failure, not a bug
// of ours; the CLI prints it as "MPI error" with the call's name, and exits with status 1.
class MpiError : public std::runtime_error {
public:
  explicit MpiError(const std::string& what) : std::runtime_error(InputError::one_line(what)) {}
};

}  // namespace sfr
