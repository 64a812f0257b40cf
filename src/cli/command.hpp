// One function per subcommand; main only dispatches. Each returns the process exit status
// (0 success, 2 bad input, 1 other failure) and receives argv without the subcommand name.
#pragma once

#include <string>
#include <vector>

namespace sfr::cli {

using Args = std::vector<std::string>;

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const Args& args);
};

int cmd_validate(const Args& args);
int cmd_inspect(const Args& args);
int cmd_run(const Args& args);
int cmd_report(const Args& args);
int cmd_generate(const Args& args);
int cmd_simulate(const Args& args);
int cmd_compare(const Args& args);
int cmd_check(const Args& args);
int cmd_calibrate(const Args& args);
int cmd_validate_model(const Args& args);
int cmd_regress(const Args& args);
int cmd_dashboard(const Args& args);
int cmd_capture(const Args& args);
int cmd_scale(const Args& args);
int cmd_backends(const Args& args);

// The backend catalogue, one line per backend and `auto` last (`backends`, `run --backend list`;
// src/exec/mpi/README.md's table says the same).
void print_backend_list();

const std::vector<Command>& commands();

}  // namespace sfr::cli
