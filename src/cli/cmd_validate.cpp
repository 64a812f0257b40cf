// sf-replay validate: checks every trace given and reports each (one line per file); exit status 2
// when any is invalid. Pattern SFs are checked without being built. A suite (its folder or its
// manifest.json) stands for every trace it lists, each also checked against the manifest's SHA-256.
#include <filesystem>
#include <iostream>
#include <set>

#include "cli/options.hpp"
#include "core/error.hpp"
#include "io/strict_reader.hpp"
#include "trace/provenance.hpp"
#include "trace/reader.hpp"

namespace sfr::cli {

namespace {

namespace fs = std::filesystem;

struct Item {
  std::string path;
  std::string sha256;  // from a suite's manifest; empty for a trace given by itself
  std::string where;   // the manifest entry that lists it
};

// A suite folder (holding manifest.json) or a manifest itself: the traces it lists.
bool is_suite(const std::string& arg, std::string& manifest) {
  std::error_code ec;
  if (fs::is_directory(arg, ec)) {
    manifest = (fs::path(arg) / "manifest.json").string();
    if (!fs::exists(manifest, ec)) throw InputError(arg, "is a directory, not a file (nor a suite's folder: no manifest.json in it)");
    return true;
  }
  // A file named manifest.json whose format is sf-suite; anything else is read as a trace (whose
  // reader names a suite manifest of another name as such).
  if (fs::path(arg).filename() != "manifest.json") return false;
  try {
    const auto j = io::parse_json_file(arg);
    if (j.is_object() && j.contains("format") && j["format"] == "sf-suite") {
      manifest = arg;
      return true;
    }
  } catch (const InputError&) {  // read as a trace, which says what is wrong
  }
  return false;
}

std::vector<Item> suite_traces(const std::string& manifest) {
  const io::StrictReader r(manifest);
  const auto j = io::parse_json_file(manifest);
  io::check_format(j, manifest, "sf-suite", true);
  r.require(j, "", {{"traces", io::StrictReader::Kind::array}});
  std::vector<Item> items;
  const fs::path dir = fs::path(manifest).parent_path();
  for (std::size_t k = 0; k < j["traces"].size(); ++k) {
    const std::string p = io::pointer_join("/traces", k);
    const auto& e = j["traces"][k];
    r.require(e, p, {{"file", io::StrictReader::Kind::string}, {"sha256", io::StrictReader::Kind::string}});
    const auto file = e["file"].get<std::string>();
    if (file.empty() || fs::path(file).is_absolute() || file.find("..") != std::string::npos)
      r.fail(p + "/file", "expected a file name inside the suite's folder, got " + io::json_quote(file));
    items.push_back({(dir / file).string(), e["sha256"].get<std::string>(), manifest + ": " + p});
  }
  return items;
}

}  // namespace

int cmd_validate(const Args& args) {
  po::options_description opts("validate options");
  std::vector<std::string> files;
  bool quiet = false;
  std::uint64_t max_memory = 0;
  opts.add_options()("trace", po::value(&files)->required()->multitoken(), "trace file(s), suite folder(s) or suite manifest(s) to check")(
      "quiet,q", po::bool_switch(&quiet), "print nothing on success");
  add_max_memory_option(opts, &max_memory);
  po::positional_options_description pos;
  pos.add("trace", -1);
  po::variables_map vm;
  const char* usage = "TRACE|SUITE [TRACE|SUITE...] [--quiet] [--max-memory SIZE]";
  if (parse_options("validate", usage, args, opts, pos, vm)) return 0;
  // Suites expand to their traces; a trace named twice (by itself and by its suite) is checked once.
  std::vector<Item> items;
  std::set<std::string> seen;
  int bad = 0, bad_suites = 0;
  auto add = [&](Item it) {
    std::error_code ec;
    const auto canon = fs::weakly_canonical(it.path, ec).string();
    if (seen.insert(ec ? it.path : canon).second) items.push_back(std::move(it));
  };
  for (const auto& f : files) {
    std::string manifest;
    try {
      if (!is_suite(f, manifest)) {
        add({f, "", ""});
        continue;
      }
      for (auto& it : suite_traces(manifest)) add(std::move(it));
    } catch (const InputError& e) {
      std::cerr << "sf-replay validate: error: " << e.what() << "\n";
      ++bad, ++bad_suites;
    }
  }
  for (const auto& it : items) {
    try {
      const auto t = trace::read_trace_file(it.path, {max_memory});
      if (!it.sha256.empty() && trace::sha256_file(it.path) != it.sha256)
        throw InputError(it.where, it.path + " is not the file the suite was generated with (its SHA-256 differs)");
      if (!quiet)
        std::cout << it.path << ": valid sf-trace v1 (" << t.trace().nranks << " ranks, " << t.trace().sfs.size() << " SFs, "
                  << t.trace().ops.size() << " ops)\n";
    } catch (const InputError& e) {
      std::cerr << "sf-replay validate: error: " << e.what() << "\n";
      ++bad;
    }
  }
  const std::size_t checked = items.size() + static_cast<std::size_t>(bad_suites);
  if (bad > 0 && checked > 1) std::cerr << "sf-replay validate: " << bad << " of " << checked << " traces are invalid\n";
  return bad > 0 ? 2 : 0;
}

}  // namespace sfr::cli
