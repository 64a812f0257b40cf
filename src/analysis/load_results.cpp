#include "analysis/load_results.hpp"

#include <algorithm>
#include <filesystem>

#include "core/error.hpp"
#include "io/json_strict.hpp"
#include "io/output_file.hpp"
#include "io/strict_reader.hpp"

namespace sfr::analysis {

namespace {

using json = io::Json;

void same_trace(const std::string& file, const std::string& trace, const std::string& trace_name) {
  if (trace != trace_name) throw InputError(file, "/trace: results are for trace '" + trace + "', not '" + trace_name + "'");
}

}  // namespace

trace::TimingDoc load_timing_doc(const std::string& file, const std::string& trace_name) {
  auto d = load_timing_doc(file);
  same_trace(file, d.trace, trace_name);
  return d;
}

trace::TimingDoc load_timing_doc(const std::string& file) {
  return trace::timing_doc_from_json(io::parse_json_strict(io::read_text_file(file), file), file);
}

trace::SimulationDoc load_simulation_doc(const std::string& file, const std::string& trace_name) {
  auto d = load_simulation_doc(file);
  same_trace(file, d.trace, trace_name);
  return d;
}

trace::SimulationDoc load_simulation_doc(const std::string& file) {
  return trace::simulation_doc_from_json(io::parse_json_strict(io::read_text_file(file), file), file);
}

trace::ModelCheckDoc load_model_check_doc(const std::string& file) {
  return trace::model_check_doc_from_json(io::parse_json_strict(io::read_text_file(file), file), file);
}

trace::ModelCheckDoc load_model_check_doc(const std::string& file, const std::string& trace_name) {
  auto d = load_model_check_doc(file);
  for (const auto& p : d.pairs)
    if (p.trace == trace_name) return d;
  throw InputError(file, "/pairs: no (op, backend) pair of trace '" + trace_name + "' (validate-model was run on other traces)");
}

json load_bench_doc(const std::string& file) {
  json j = io::parse_json_strict(io::read_text_file(file), file);
  io::check_format(j, file, "sf-bench", true);
  io::StrictReader(file).require(j, "", {{"provenance", io::StrictReader::Kind::object}});
  trace::check_provenance(j["provenance"], file);
  return j;
}

std::vector<std::string> result_files(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> here;
      for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file(ec) && it->path().extension() == ".json") here.push_back(it->path().string());
      if (ec) throw InputError(p, "cannot list the folder: " + ec.message());
      std::sort(here.begin(), here.end());
      out.insert(out.end(), here.begin(), here.end());
    } else if (fs::exists(p, ec)) {
      out.push_back(p);
    } else {
      throw InputError(p, "no such file or folder");
    }
  }
  return out;
}

}  // namespace sfr::analysis
