#include "trace/provenance.hpp"

#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <thread>

#include "core/error.hpp"
#include "io/output_file.hpp"

namespace sfr::trace {

using namespace sfr::io;  // the JSON layer

namespace {

struct Sha256 {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx{EVP_MD_CTX_new(), &EVP_MD_CTX_free};
  Sha256() {
    if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) throw std::runtime_error("OpenSSL: cannot initialise SHA-256");
  }
  void add(const void* p, std::size_t n) { EVP_DigestUpdate(ctx.get(), p, n); }
  std::string hex() {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx.get(), md, &n);
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (unsigned int i = 0; i < n; ++i) {
      s += digits[md[i] >> 4];
      s += digits[md[i] & 15];
    }
    return s;
  }
};

std::string utc_stamp(const char* fmt) {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, fmt, &tm);
  return buf;
}

}  // namespace

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

std::string sha256_hex(std::string_view data) {
  Sha256 h;
  h.add(data.data(), data.size());
  return h.hex();
}

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  Sha256 h;
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    h.add(buf.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw InputError(path, "read error while hashing");
  return h.hex();
}

std::string iso8601_utc_now() { return utc_stamp("%Y-%m-%dT%H:%M:%SZ"); }

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) break;
    auto v = line.substr(colon + 1);
    v.erase(0, v.find_first_not_of(" \t"));
    return v;
  }
  return "unknown";
}

Json provenance(const ProvenanceInput& in) {
  Json p = Json::object();
  p["tool"] = "sf-replay";
  p["command"] = in.command;
  p["commit"] = build_commit();
  p["date"] = iso8601_utc_now();
  p["host"] = host_name();
  p["cpu_model"] = cpu_model();
  p["cores"] = std::thread::hardware_concurrency();
  p["mpi"] = in.mpi.empty() ? Json(nullptr) : Json(in.mpi);
  p["ranks"] = in.ranks;
  p["trace"] = in.trace_name.empty() ? Json(nullptr) : Json(in.trace_name);
  p["trace_sha256"] = in.trace_file.empty() ? Json(nullptr) : Json(sha256_file(in.trace_file));
  return p;
}

std::string bench_document(Json result, const ProvenanceInput& in, const std::string& json_path, const std::string& store_dir) {
  Json doc = {{"format", "sf-bench"}, {"version", 1}, {"provenance", provenance(in)}};
  for (auto& [k, v] : result.items()) doc[k] = std::move(v);
  const std::string text = doc.dump(1) + "\n";
  if (!json_path.empty()) write_file_atomic(json_path, text);
  if (!store_dir.empty()) store_document(store_dir, "bench", in.trace_name.empty() ? in.command : in.trace_name, text);
  return text;
}

void check_store_dir(const std::string& option, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (dir.empty()) throw InputError(option, "empty folder name");
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) throw InputError(option, "'" + dir + "' exists and is not a folder");
  if (!fs::exists(dir, ec)) {
    fs::create_directories(dir, ec);
    if (ec && !fs::is_directory(dir)) throw InputError(option, "cannot create folder '" + dir + "': " + ec.message());
  }
  if (const auto why = io::cannot_create_in(dir); !why.empty()) throw InputError(option, "cannot write in folder '" + dir + "': " + why);
}

void stage_store_document(io::OutputBatch& batch, const std::string& dir, const std::string& kind, const std::string& trace_name,
                          const std::string& text) {
  check_store_dir("--store", dir);
  std::string base = trace_name.empty() ? "all" : trace_name;
  for (char& c : base)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  if (base.size() > 80) base.resize(80);
  const std::string prefix = kind + "-" + base + "-" + utc_stamp("%Y%m%dT%H%M%SZ") + "-";
  batch.create_new(dir, [prefix, rd = std::make_shared<std::random_device>()] {
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "%08x", (*rd)());
    return prefix + suffix + ".json";
  }, text);
}

std::string store_document(const std::string& dir, const std::string& kind, const std::string& trace_name, const std::string& text) {
  io::OutputBatch batch;
  stage_store_document(batch, dir, kind, trace_name, text);
  return batch.commit().at(0);
}

}  // namespace sfr::trace
