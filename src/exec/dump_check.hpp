// Checks an sf-dump v1 against the reference semantics of its trace, with the spec's tolerance:
// where a result depends on the order in which leaves reach a root (REPLACE reduces on roots of
// degree > 1, fetch_and_op), any serial order is accepted; multi-roots of one root that come from
// the same leaf rank (gather / scatter) are compared as a multiset. Everything else must be exact.
// fetch_and_op's serial orders are decided exactly, in linear time, for any number of leaves: each
// leaf is a step from the value it fetched to that value combined with its own, and an order
// exists when those steps form an Eulerian trail from the root's input to its final value.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "trace/trace.hpp"

namespace sfr::exec {

struct DumpCheck {
  std::size_t ops_checked = 0;
  std::vector<std::string> problems;  // one line each, naming the JSON pointer in the dump
  std::vector<std::string> skipped;   // "op I: reason" for each op the dump itself says it skipped
  bool ok() const { return problems.empty(); }
};

// `dump_text` is the candidate dump; ops listed in `skip` (trace op indices) are not checked.
// Ops absent from the dump are reported unless skipped here or in the dump's own "skipped" list. Throws InputError on malformed JSON.
DumpCheck check_dump(const trace::BuiltTrace& t, const std::string& dump_text, const std::string& source,
                     const std::set<std::size_t>& skip = {});

}  // namespace sfr::exec
