// Loading the result documents a report combines with a trace: sf-timing v1 (`sf-replay run
// --timing`) and simulator results (`sf-replay simulate --json`). Each is checked field by field
// so that a wrong or foreign file gives a one-line InputError naming the file and JSON pointer.
#pragma once

#include <string>

namespace sfr::analysis {

// Both return the file's text, checked; `trace_name` must be the trace the results belong to.
std::string load_timing_doc(const std::string& file, const std::string& trace_name);
std::string load_simulation_doc(const std::string& file, const std::string& trace_name);

}  // namespace sfr::analysis
