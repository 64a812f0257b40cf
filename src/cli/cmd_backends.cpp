// sf-replay backends [TRAIT|no-TRAIT ...] [--names]: the backend catalogue (core::kBackends, in its
// order), the rows that have every TRAIT given and none of the no-TRAITs: one line per backend
// with what it does and needs (and `auto` last when no trait is given), or with --names their
// names on one line, comma-separated, for scripts and tests to take instead of lists of their own
// (`--backend $(sf-replay backends --names nodes)`). `run --backend list` prints the same table.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "core/backends.hpp"
#include "core/error.hpp"

namespace sfr::cli {

namespace {

// The traits a script may select on: one per boolean of a catalogue row that says what a backend
// is or which commands take it.
struct Trait {
  const char* name;
  bool core::BackendInfo::*field;
};
constexpr Trait kTraits[] = {
    {"simulated", &core::BackendInfo::simulated},         {"auto", &core::BackendInfo::auto_candidate},
    {"calibrated", &core::BackendInfo::calibrated},       {"nodes", &core::BackendInfo::nodes},
    {"node-aware", &core::BackendInfo::node_aware},       {"shared-memory", &core::BackendInfo::shared_memory},
    {"gpu", &core::BackendInfo::gpu},                     {"petsc", &core::BackendInfo::petsc},
    {"pattern-only", &core::BackendInfo::pattern_only},   {"host-buffers-only", &core::BackendInfo::host_buffers_only},
};

struct Selector {
  const Trait* trait;
  bool wanted;  // false: no-TRAIT
};

Selector parse_selector(const std::string& text) {
  const bool negated = text.rfind("no-", 0) == 0;
  const std::string name = negated ? text.substr(3) : text;
  for (const auto& t : kTraits)
    if (name == t.name) return {&t, !negated};
  std::string names;
  for (const auto& t : kTraits) names += (names.empty() ? "" : ", ") + std::string(t.name);
  throw InputError("", "unknown trait '" + text + "' (expected one of " + names + ", each optionally as no-TRAIT)");
}

bool selected(const core::BackendInfo& b, const std::vector<Selector>& sel) {
  for (const auto& s : sel)
    if (b.*(s.trait->field) != s.wanted) return false;
  return true;
}

void print_row(const core::BackendInfo& b) {
  std::string needs;
  const auto need = [&](bool on, const char* what) {
    if (on) needs += (needs.empty() ? " [needs " : ", ") + std::string(what);
  };
  need(b.nodes, "nodes");
  need(b.shared_memory, "shared memory");
  need(b.gpu, "a GPU");
  need(b.pattern_only, "a pattern SF");
  if (!needs.empty()) needs += "]";
  const char* scope = b.pattern_only ? ""
                      : b.petsc      ? "; the ops PETSc 3.18 can run (it refuses the others, each named)"
                                     : "; every op, unit, MPI op and block size (no fallback)";
  std::printf("%-14s %s%s%s%s\n", b.name, b.what, scope, needs.c_str(), b.simulated ? "" : " (not simulated)");
}

void print_auto() {
  std::string candidates;
  for (const auto& b : core::kBackends)
    if (b.auto_candidate) candidates += (candidates.empty() ? "" : ", ") + std::string(b.name) + (b.node_aware ? "*" : "");
  std::printf("%-14s %s %s (* on more than one node only)\n", core::kAuto.name, core::kAuto.what, candidates.c_str());
}

}  // namespace

void print_backend_list() {
  for (const auto& b : core::kBackends) print_row(b);
  print_auto();
}

int cmd_backends(const Args& args) {
  bool names = false;
  std::vector<std::string> traits;
  po::options_description opts("backends options");
  opts.add_options()("names", po::bool_switch(&names), "print the names only, on one line, comma-separated")(
      "trait", po::value<std::vector<std::string>>(&traits), "TRAIT or no-TRAIT (positional, repeatable)");
  po::positional_options_description pos;
  pos.add("trait", -1);
  po::variables_map vm;
  if (parse_options("backends", "[TRAIT|no-TRAIT ...] [--names]", args, opts, pos, vm)) return 0;
  std::vector<Selector> sel;
  for (const auto& t : traits) sel.push_back(parse_selector(t));
  std::vector<const core::BackendInfo*> rows;
  for (const auto& b : core::kBackends)
    if (selected(b, sel)) rows.push_back(&b);
  if (rows.empty()) throw InputError("", "no backend has every trait given");
  if (names) {
    std::string line;
    for (const auto* b : rows) line += (line.empty() ? "" : ",") + std::string(b->name);
    std::cout << line << "\n";
    return 0;
  }
  for (const auto* b : rows) print_row(*b);
  if (sel.empty()) print_auto();
  return 0;
}

}  // namespace sfr::cli
