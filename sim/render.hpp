// The simulator's results as the user reads them (sim/simulate.hpp runs the replay): the table
// per op and backend, the ranking with why the winner wins, the sf-simulation document and the
// Chrome / Perfetto timeline.
#pragma once

#include <cstdint>
#include <string>

#include "io/json_strict.hpp"
#include "sim/simulate.hpp"
#include "trace/result_docs.hpp"

namespace sfr::sim {

// The largest terms of a breakdown ("latency 62%, bandwidth 30%").
std::string dominant_terms(const Breakdown& b, double total);
// Why `win` beats `other`: the terms that differ most, with message counts.
std::string why_faster(const std::string& win_name, const Breakdown& win, double win_time, std::uint64_t win_msgs,
                       const std::string& other_name, const Breakdown& other, double other_time, std::uint64_t other_msgs);

std::string render_table(const SimResult& r);
std::string render_ranking(const SimResult& r);
// The sf-simulation document of a result (trace/result_docs.hpp) and its text;
// `provenance`: the document's provenance object (trace/provenance.hpp).
trace::SimulationDoc simulation_doc(const SimResult& r, const io::Json& provenance);
std::string render_json(const SimResult& r, const io::Json& provenance);
// Chrome trace / Perfetto JSON: one process per backend, one track per endpoint; messages are
// async slices carrying the op index, peer and bytes.
std::string render_timeline(const Timeline& tl);

}  // namespace sfr::sim
