#include "analysis/result_docs.hpp"

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <utility>

#include "core/error.hpp"
#include "io/json_strict.hpp"
#include "io/output_file.hpp"
#include "io/strict_reader.hpp"

namespace sfr::analysis {

namespace {

using json = io::Json;

using Kind = io::StrictReader::Kind;

// Checks that object `v` at `ptr` has every listed member with the listed kind.
void require(const std::string& file, const json& v, const std::string& ptr, std::initializer_list<std::pair<const char*, Kind>> fields) {
  io::StrictReader(file).require(v, ptr, fields);
}

void same_trace(const std::string& file, const json& j, const std::string& trace_name) {
  if (j["trace"].get<std::string>() != trace_name)
    throw InputError(file, "/trace: results are for trace '" + j["trace"].get<std::string>() + "', not '" + trace_name + "'");
}

// Documents written before provenance existed have none; one that has it must be well formed.
void check_provenance(const std::string& file, const json& j) {
  if (!j.contains("provenance")) return;
  require(file, j["provenance"], "/provenance", {{"commit", Kind::string}, {"date", Kind::string}, {"host", Kind::string}});
  const auto sha = j["provenance"].find("trace_sha256");
  if (sha != j["provenance"].end() && !sha->is_null() && !sha->is_string())
    throw InputError(file, "/provenance/trace_sha256: expected a string or null");
}

}  // namespace

json load_timing_doc(const std::string& file, const std::string& trace_name) {
  json j = load_timing_doc(file);
  same_trace(file, j, trace_name);
  return j;
}

json load_timing_doc(const std::string& file) {
  json j = io::parse_json_strict(io::read_text_file(file), file);
  io::check_format(j, file, "sf-timing", true);
  require(file, j, "", {{"trace", Kind::string}, {"nranks", Kind::integer}, {"iters", Kind::integer}, {"results", Kind::array}});
  for (std::size_t i = 0; i < j["results"].size(); ++i) {
    const std::string p = "/results/" + std::to_string(i);
    const json& r = j["results"][i];
    require(file, r, p,
            {{"index", Kind::integer},
             {"op", Kind::string},
             {"sf", Kind::string},
             {"backend", Kind::string},
             {"unit", Kind::string},
             {"bs", Kind::integer},
             {"bytes", Kind::integer},
             {"messages", Kind::integer},
             {"min_us", Kind::number},
             {"median_us", Kind::number},
             {"max_us", Kind::number}});
    if (r.contains("samples_us")) {
      if (!r["samples_us"].is_array()) throw InputError(file, p + "/samples_us: expected an array");
      for (std::size_t k = 0; k < r["samples_us"].size(); ++k)
        if (!r["samples_us"][k].is_number() || !(r["samples_us"][k].get<double>() >= 0))
          throw InputError(file, p + "/samples_us/" + std::to_string(k) + ": expected a number >= 0");
    }
  }
  check_provenance(file, j);
  return j;
}

json load_simulation_doc(const std::string& file, const std::string& trace_name) {
  json j = load_simulation_doc(file);
  same_trace(file, j, trace_name);
  return j;
}

json load_simulation_doc(const std::string& file) {
  json j = io::parse_json_strict(io::read_text_file(file), file);
  if (j.is_object()) io::check_format(j, file, "sf-simulation", false);  // first: another kind of file is named as such
  if (!j.is_object() || !j.contains("backends") || !j.contains("machine"))
    throw InputError(file, "(top level): not a simulation result (sf-replay simulate --json)");
  require(file, j, "", {{"trace", Kind::string}, {"machine", Kind::string}, {"model", Kind::string}, {"backends", Kind::array}});
  check_provenance(file, j);
  for (std::size_t b = 0; b < j["backends"].size(); ++b) {
    const std::string pb = "/backends/" + std::to_string(b);
    require(file, j["backends"][b], pb,
            {{"backend", Kind::string}, {"total", Kind::number}, {"messages", Kind::integer}, {"ops", Kind::array}});
    const json& ops = j["backends"][b]["ops"];
    for (std::size_t i = 0; i < ops.size(); ++i)
      require(file, ops[i], pb + "/ops/" + std::to_string(i), {{"index", Kind::integer}, {"total", Kind::number}});
  }
  return j;
}

json load_model_check_doc(const std::string& file) {
  json j = io::parse_json_strict(io::read_text_file(file), file);
  io::check_format(j, file, "sf-model-check", true);
  require(file, j, "", {{"machine", Kind::string}, {"pairs", Kind::array}, {"summary", Kind::object}});
  require(file, j["summary"], "/summary", {{"median_abs_error", Kind::number}});
  check_provenance(file, j);
  for (std::size_t i = 0; i < j["pairs"].size(); ++i)
    require(file, j["pairs"][i], "/pairs/" + std::to_string(i),
            {{"trace", Kind::string},
             {"op", Kind::integer},
             {"label", Kind::string},
             {"backend", Kind::string},
             {"measured_us", Kind::number},
             {"predicted_us", Kind::number}});
  return j;
}

json load_model_check_doc(const std::string& file, const std::string& trace_name) {
  json j = load_model_check_doc(file);
  for (const auto& p : j["pairs"])
    if (p["trace"].get<std::string>() == trace_name) return j;
  throw InputError(file, "/pairs: no (op, backend) pair of trace '" + trace_name + "' (validate-model was run on other traces)");
}

json load_bench_doc(const std::string& file) {
  json j = io::parse_json_strict(io::read_text_file(file), file);
  io::check_format(j, file, "sf-bench", true);
  require(file, j, "", {{"provenance", Kind::object}});
  check_provenance(file, j);
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
