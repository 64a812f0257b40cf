// Trace reader benchmark: for each trace file, reads it in a child process (so that the peak is
// the reader's own) and prints file size, seconds, peak resident memory and the graph's leaves;
// --json writes the same as a JSON result (--store DIR also files it there). Target (issue 16): peak ≤ 600 MB for a ~280 MB trace.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "trace/provenance.hpp"
#include "trace/reader.hpp"

namespace {

struct Result {
  std::string file;
  double mb = 0, seconds = 0, peak_mb = 0, leaves = 0;
};

Result measure(const std::string& path) {
  Result r{path, static_cast<double>(std::filesystem::file_size(path)) / 1e6};
  int fd[2];
  if (pipe(fd) != 0) return r;
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    double leaves = 0;
    const auto t = sfr::trace::read_trace_file(path);
    for (const auto& sf : t.trace().sfs) leaves += static_cast<double>(t.graph(sf.name).total_leaves());
    if (write(fd[1], &leaves, sizeof leaves) != sizeof leaves) _exit(1);
    _exit(0);
  }
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.peak_mb = static_cast<double>(ru.ru_maxrss) * 1024 / 1e6;
  if (read(fd[0], &r.leaves, sizeof r.leaves) != sizeof r.leaves) r.leaves = -1;
  close(fd[0]);
  close(fd[1]);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::string json, store;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json" && i + 1 < argc)
      json = argv[++i];
    else if (a == "--store" && i + 1 < argc)
      store = argv[++i];
    else
      files.push_back(a);
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: sfr_bench_reader TRACE... [--json OUT] [--store DIR]\n");
    return 2;
  }
  std::printf("%-40s %10s %9s %10s %12s %10s\n", "trace", "file MB", "seconds", "peak MB", "leaves", "peak/file");
  std::string out = "{\"benchmark\": \"trace reader\", \"results\": [";
  for (const auto& f : files) {
    const Result r = measure(f);
    std::printf("%-40s %10.1f %9.2f %10.1f %12.0f %10.2f\n", std::filesystem::path(f).filename().c_str(), r.mb, r.seconds, r.peak_mb,
                r.leaves, r.peak_mb / r.mb);
    char buf[512];
    std::snprintf(buf, sizeof buf, "%s{\"file\": \"%s\", \"file_mb\": %.1f, \"seconds\": %.3f, \"peak_mb\": %.1f, \"leaves\": %.0f}",
                  &f == &files.front() ? "" : ", ", f.c_str(), r.mb, r.seconds, r.peak_mb, r.leaves);
    out += buf;
  }
  out += "]}\n";
  sfr::trace::bench_document(sfr::io::Json::parse(out), {"bench_reader", 1, "", "", ""}, json, store);
  return 0;
}
