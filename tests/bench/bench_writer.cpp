// Trace writer benchmark: why traces and dumps are written by the JSON layer's number fast path
// (io/json_out.hpp) instead of through an nlohmann document. For each trace file: the seconds of
// write_trace, and of nlohmann's dump() of the same document (the document built beforehand and
// not timed, so nlohmann's side is a lower bound), best of 3, side by side in one run; plus the
// memory the nlohmann document takes (about 16 bytes per number before any text is written).
// Usage: sfr_bench_writer TRACE... [--json FILE]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "io/json_strict.hpp"
#include "trace/provenance.hpp"
#include "trace/reader.hpp"
#include "trace/writer.hpp"

namespace {

template <class F>
double best_of_3(F&& f) {
  double best = 1e30;
  for (int k = 0; k < 3; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

long peak_rss_kib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  std::string json;
  bool unknown = false;  // an unknown option, or one without its value: a usage error
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc)
      json = argv[++i];
    else if (argv[i][0] != '-')
      files.push_back(argv[i]);
    else
      unknown = true;
  }
  if (unknown || files.empty()) {
    std::fprintf(stderr, "usage: sfr_bench_writer TRACE... [--json FILE]\n");
    return 2;
  }
  sfr::io::Json out = {{"benchmark", "trace-writer"}, {"results", sfr::io::Json::array()}};
  std::printf("%-28s %10s %12s %14s %8s %16s\n", "trace", "MB", "writer s", "nlohmann s", "ratio", "nlohmann doc MB");
  for (const auto& f : files) {
    const auto t = sfr::trace::read_trace_file(f);
    std::string text;
    const double ours = best_of_3([&] { text = sfr::trace::write_trace(t.trace()); });
    const long before = peak_rss_kib();
    const sfr::io::Json doc = sfr::io::parse_json_strict(text, f);  // plain arrays: what to_json would build
    const double doc_mib = static_cast<double>(peak_rss_kib() - before) / 1024.0;
    std::string dumped;
    const double theirs = best_of_3([&] { dumped = doc.dump(); });
    const double mb = static_cast<double>(text.size()) / 1e6;
    std::printf("%-28s %10.1f %12.3f %14.3f %8.2f %16.0f\n", t.trace().name.c_str(), mb, ours, theirs, theirs / ours, doc_mib);
    out["results"].push_back({{"trace", t.trace().name},
                              {"megabytes", mb},
                              {"writer_seconds", ours},
                              {"nlohmann_dump_seconds", theirs},
                              {"nlohmann_over_writer", theirs / ours},
                              {"nlohmann_document_mib", doc_mib}});
  }
  std::printf("%s", sfr::trace::bench_document(out, {"bench_writer", 1, "", "", ""}, json).c_str());
  return 0;
}
