// Loading the result documents a report combines with a trace: sf-timing v1 (`sf-replay run
// --timing`) and simulator results (`sf-replay simulate --json`). Each is checked field by field
// so that a wrong or foreign file gives a one-line InputError naming the file and JSON pointer:
// the checks are the documents' own conversions (trace/result_docs.hpp), so what is read here is
// the struct the writers serialised.
#pragma once

#include <string>
#include <vector>

#include "io/json_strict.hpp"
#include "trace/result_docs.hpp"

namespace sfr::analysis {

// Both return the file's document, parsed and checked; `trace_name` must be the trace the results
// belong to.
trace::TimingDoc load_timing_doc(const std::string& file, const std::string& trace_name);
// Any trace's timing document (regress, dashboard).
trace::TimingDoc load_timing_doc(const std::string& file);
// The JSON files named: a file as given, a folder's *.json files at any depth (sorted by path);
// InputError for a path that does not exist.
std::vector<std::string> result_files(const std::vector<std::string>& paths);
trace::SimulationDoc load_simulation_doc(const std::string& file, const std::string& trace_name);
// Any trace's documents (dashboard): simulation results, validate-model comparisons
// (sf-model-check) and benchmark results (sf-bench: format and provenance only).
trace::SimulationDoc load_simulation_doc(const std::string& file);
trace::ModelCheckDoc load_model_check_doc(const std::string& file);
// The same, for a report of trace `trace_name`: InputError when no pair is of that trace.
trace::ModelCheckDoc load_model_check_doc(const std::string& file, const std::string& trace_name);
io::Json load_bench_doc(const std::string& file);

}  // namespace sfr::analysis
