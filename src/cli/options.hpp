// Shared option-parsing helpers over Boost.Program_options.
#pragma once

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "cli/command.hpp"

namespace sfr::cli {

namespace po = boost::program_options;

// Parses `args` into `vm`; prints usage and returns true when --help was given. Throws
// po::error on bad options (reported by run_guarded with exit status 2).
bool parse_options(const char* cmd, const char* usage, const Args& args, po::options_description& opts,
                   const po::positional_options_description& pos, po::variables_map& vm);

// A seed: an unsigned 64-bit integer in decimal digits (no sign: "-1" does not wrap around).
std::uint64_t parse_seed(const std::string& option, const std::string& text);
// The value of a --seed option: its text goes through parse_seed into *target when the options
// are notified; a required seed has no default, an optional one defaults to *target's value.
po::typed_value<std::string>* seed_value(std::uint64_t* target, bool required = false);

// The backends of a --backend value: a comma list, or "all" (core::kModelledBackends).
std::vector<std::string> backend_list(const std::string& value);

// --max-memory SIZE (parse_bytes) into *target when the options are notified; *target stays 0
// when it is not given, meaning the memory available now (core::memory_limit).
void add_max_memory_option(po::options_description& opts, std::uint64_t* target);

// Runs a subcommand body, turning exceptions into one-line messages and exit statuses.
int run_guarded(const char* cmd, int (*body)(const Args&), const Args& args);

}  // namespace sfr::cli
