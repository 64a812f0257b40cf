// sf-replay generate KIND [options] -o TRACE: traces from matrices, meshes and synthetic patterns.
#include <cstring>
#include <functional>
#include <iostream>
#include <map>

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"

#ifdef HAVE_SFREPLAY_GENERATORS
#include <algorithm>
#include <filesystem>
#include <sstream>
#include "core/budget.hpp"
#include "core/progress.hpp"
#include "generators/estimate.hpp"
#include "generators/hexmesh.hpp"
#include "generators/random_sf.hpp"
#include "generators/scatter.hpp"
#include "generators/scenario.hpp"
#include "generators/spmv.hpp"
#include "generators/stencil.hpp"
#include "generators/suite.hpp"
#include "generators/synthetic.hpp"
#include "io/output_file.hpp"
#include "trace/provenance.hpp"
#include "trace/reader.hpp"
#include "trace/writer.hpp"
#endif

namespace sfr::cli {

#ifndef HAVE_SFREPLAY_GENERATORS
int cmd_generate(const Args&) { throw InputError("generate", "not available in this build (needs SuiteSparse, METIS and Boost.Graph)"); }
#else

namespace {

struct Common {
  std::string out;
  std::uint64_t max_memory = 0;
  gen::Placement place;
  void add(po::options_description& opts) {
    add_max_memory_option(opts, &max_memory);
    opts.add_options()("output,o", po::value(&out)->required(), "trace file to write (atomically)")(
        "ranks-per-node", po::value(&place.ranks_per_node)->default_value(place.ranks_per_node), "machine placement: ranks per node")(
        "ranks-per-socket", po::value(&place.ranks_per_socket)->default_value(0), "ranks per socket (0: = ranks per node)");
  }
  // Before any work: the output path can be written and the estimated size fits the memory limit.
  void check(const core::SizeEstimate& e) const {
    io::check_output_path("--output", out);
    core::check_budget(e, core::memory_limit(max_memory));
  }
  // A generator never writes a trace that does not validate: what it made is read back by the
  // trace reader (the one `validate` runs) before the file is written; a refusal is its one line.
  int write(const trace::Trace& t) const {
    const std::string text = trace::write_trace(t);
    trace::parse_trace(text, out, {max_memory});
    io::write_file_atomic(out, text);
    std::cerr << "wrote " << out << " (" << t.name << ", " << t.nranks << " ranks)\n";
    return 0;
  }
};

using Pos = po::positional_options_description;

// --seed given where nothing is random (options that would do nothing are errors).
void seed_unused(const po::variables_map& vm, bool used, const std::string& why) {
  if (!used && vm.count("seed") && !vm["seed"].defaulted()) throw InputError("--seed", "does nothing " + why);
}

int gen_spmv(const Args& args) {
  po::options_description opts("generate spmv options");
  Common c;
  gen::SpmvOptions o;
  std::string part = "rows";
  opts.add_options()("matrix", po::value(&o.matrix_path)->required(), "Matrix Market or Rutherford-Boeing file")(
      "ranks", po::value(&o.nranks)->required(), "number of ranks P")(
      "partition", po::value(&part)->default_value(part), "rows | nnz | metis | rcm")("seed", seed_value(&o.seed), "METIS seed");
  c.add(opts);
  po::variables_map vm;
  if (parse_options("generate spmv", "--matrix FILE --ranks P [--partition rows|nnz|metis|rcm] -o TRACE", args, opts, Pos(), vm)) return 0;
  o.partition = gen::parse_partition(part);
  seed_unused(vm, o.partition == gen::PartitionKind::metis, "with --partition " + part + " (only metis is seeded)");
  o.place = c.place;
  c.check(gen::estimate(o));
  return c.write(gen::spmv_trace(o));
}

int gen_stencil(const Args& args) {
  po::options_description opts("generate stencil options");
  Common c;
  gen::StencilOptions o;
  std::string size, procs, kind = "star", periodic = "none";
  opts.add_options()("dims", po::value(&o.dims)->required(), "1 | 2 | 3")("size", po::value(&size)->required(), "grid NxMxK")(
      "procs", po::value(&procs)->required(), "ranks per dimension PxQxR")("dof", po::value(&o.dof)->default_value(1), "values per point")(
      "stencil", po::value(&kind)->default_value(kind), "star | box")("width", po::value(&o.width)->default_value(1), "stencil width")(
      "periodic", po::value(&periodic)->default_value(periodic), "none | all | list of x,y,z");
  c.add(opts);
  po::variables_map vm;
  if (parse_options("generate stencil",
                    "--dims D --size NxMxK --procs PxQxR [--dof D] [--stencil star|box] [--width S] [--periodic x,y,z] -o TRACE", args,
                    opts, Pos(), vm))
    return 0;
  if (o.dims < 1 || o.dims > 3) throw InputError("--dims", "must be 1, 2 or 3");
  o.size = gen::parse_extent("--size", size, o.dims);
  const auto p = gen::parse_extent("--procs", procs, o.dims);
  for (std::size_t d = 0; d < 3; ++d) {
    if (p[d] > 1 << 20) throw InputError("--procs", "too many ranks");
    o.procs[d] = static_cast<int>(p[d]);
  }
  if (kind != "star" && kind != "box") throw InputError("--stencil", "expected star or box, got '" + kind + "'");
  o.stencil = kind == "star" ? gen::StencilKind::star : gen::StencilKind::box;
  o.periodic = gen::parse_periodic(periodic, o.dims);
  o.place = c.place;
  c.check(gen::estimate(o));
  return c.write(gen::stencil_trace(o));
}

int gen_hexmesh(const Args& args) {
  po::options_description opts("generate hexmesh options");
  Common c;
  gen::HexmeshOptions o;
  std::string order = "chunks";
  opts.add_options()("cells", po::value(&o.cells)->required(), "N: the mesh has N^3 cells")(
      "ranks", po::value(&o.nranks)->required(), "number of ranks")("order", po::value(&order)->default_value(order),
                                                                    "sequential | chunks | random")("seed", seed_value(&o.seed),
                                                                                                    "seed of the random order");
  c.add(opts);
  po::variables_map vm;
  if (parse_options("generate hexmesh", "--cells N --ranks P [--order sequential|chunks|random] -o TRACE", args, opts, Pos(), vm)) return 0;
  o.order = gen::parse_mesh_order(order);
  seed_unused(vm, o.order == gen::MeshOrder::random, "with --order " + order + " (only the random order is seeded)");
  o.place = c.place;
  c.check(gen::estimate(o));
  return c.write(gen::hexmesh_trace(o));
}

int gen_synthetic(const Args& args) {
  po::options_description opts("generate synthetic options");
  Common c;
  gen::SyntheticOptions o;
  std::string pattern, direction = "block-to-part";
  opts.add_options()("pattern", po::value(&pattern)->required(), "diagonal | quasi-diagonal | random")(
      "fraction", po::value(&o.fraction)->default_value(o.fraction), "quasi-diagonal: fraction of each part from other ranks")(
      "per-rank", po::value(&o.per_rank)->default_value(o.per_rank), "elements per rank")(
      "ranks", po::value(&o.nranks)->required(), "number of ranks")("direction", po::value(&direction)->default_value(direction),
                                                                    "block-to-part | part-to-block")("seed", seed_value(&o.seed),
                                                                                                     "random seed");
  c.add(opts);
  po::variables_map vm;
  if (parse_options("generate synthetic", "--pattern P --ranks P [--fraction F] [--per-rank N] [--direction D] -o TRACE", args, opts, Pos(),
                    vm))
    return 0;
  o.pattern = gen::parse_synthetic_pattern(pattern);
  seed_unused(vm, o.pattern != gen::SyntheticPattern::diagonal, "with --pattern diagonal (it has no randomness)");
  o.direction = gen::parse_direction(direction);
  o.place = c.place;
  c.check(gen::estimate(o));
  return c.write(gen::synthetic_trace(o));
}

int gen_scatter(const Args& args) {
  po::options_description opts("generate scatter options");
  Common c;
  gen::ScatterOptions o;
  std::string pattern;
  opts.add_options()("pattern", po::value(&pattern)->required(), "par-to-par | seq-to-par | par-to-seq | ring-send")(
      "ranks", po::value(&o.nranks)->required(), "number of ranks")("per-rank", po::value(&o.per_rank)->default_value(o.per_rank),
                                                                    "vector entries per rank");
  c.add(opts);
  po::variables_map vm;
  if (parse_options("generate scatter", "--pattern P --ranks P [--per-rank N] -o TRACE", args, opts, Pos(), vm)) return 0;
  o.pattern = gen::parse_scatter_pattern(pattern);
  o.place = c.place;
  c.check(gen::estimate(o));
  return c.write(gen::scatter_trace(o));
}

int gen_scenario(const Args& args) {
  po::options_description opts("generate scenario options");
  Common c;
  c.place.ranks_per_node = 4;
  gen::ScenarioOptions o;
  opts.add_options()("msgs", po::value(&o.msgs)->required(), "inter-node messages of the sending node (32, 256)")(
      "nodes", po::value(&o.nodes)->required(), "destination nodes (4, 16)")("size", po::value(&o.size)->required(), "bytes per message")(
      "duplicates", po::value(&o.duplicates)->default_value(0.0), "duplicate fraction (0.25)");
  c.add(opts);
  po::variables_map vm;
  if (parse_options("generate scenario", "--msgs M --nodes N --size BYTES [--duplicates F] [--ranks-per-node R] -o TRACE", args, opts,
                    Pos(), vm))
    return 0;
  o.place = c.place;
  c.check(gen::estimate(o));
  return c.write(gen::scenario_trace(o));
}

int gen_random(const Args& args) {
  po::options_description opts("generate random options");
  Common c;
  gen::RandomOptions o;
  opts.add_options()("ranks", po::value(&o.nranks)->required(), "number of ranks")("seed", seed_value(&o.seed, true), "random seed")(
      "max-roots", po::value(&o.max_roots)->default_value(o.max_roots), "roots per rank: uniform in [0, N]")(
      "max-leaves", po::value(&o.max_leaves)->default_value(o.max_leaves), "leaves per rank: uniform in [0, N]")(
      "max-degree", po::value(&o.max_degree)->default_value(o.max_degree), "cap on root degrees (0: none)")(
      "holes", po::value(&o.holes)->default_value(o.holes), "extra leaf-space positions per leaf (holes)")(
      "self", po::value(&o.self)->default_value(o.self), "probability of a self edge (0: none)");
  c.add(opts);
  po::variables_map vm;
  if (parse_options("generate random",
                    "--ranks P --seed S [--max-roots N] [--max-leaves N] [--max-degree D] [--holes F] [--self F] -o TRACE", args, opts,
                    Pos(), vm))
    return 0;
  o.place = c.place;
  c.check(gen::estimate(o));
  return c.write(gen::random_trace(o));
}

int gen_suite(const Args& args);

const std::map<std::string, std::pair<const char*, int (*)(const Args&)>>& kinds() {
  static const std::map<std::string, std::pair<const char*, int (*)(const Args&)>> k = {
      {"spmv", {"ghost exchange of a distributed CSR SpMV (Matrix Market / Rutherford-Boeing)", gen_spmv}},
      {"stencil", {"structured-grid ghost update (DMDA global-to-local), 1-3D", gen_stencil}},
      {"hexmesh", {"migration SF of an N^3 periodic hex mesh", gen_hexmesh}},
      {"synthetic", {"ParaDiGM block-to-part / part-to-block patterns", gen_synthetic}},
      {"scatter", {"VecScatter patterns (par-to-par, seq-to-par, par-to-seq, ring-send)", gen_scatter}},
      {"scenario", {"node-aware irregular point-to-point scenarios (Fig. 4.3)", gen_scenario}},
      {"random", {"random SFs for property tests", gen_random}},
      {"suite", {"a reproducible suite of every pattern above (<= 8 ranks) and a manifest, from one seed", gen_suite}},
  };
  return k;
}

// A shell word: quoted when it holds anything but [A-Za-z0-9_./:=,+-].
std::string shell_word(const std::string& w) {
  if (!w.empty() &&
      std::all_of(w.begin(), w.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_./:=,+-", c); }))
    return w;
  std::string q = "'";
  for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

int gen_suite(const Args& args) {
  namespace fs = std::filesystem;
  po::options_description opts("generate suite options");
  std::uint64_t seed = 0;
  std::string out, matrices;
  opts.add_options()("seed", seed_value(&seed, true), "the suite's seed: the same seed gives byte-identical files")(
      "output,o", po::value(&out)->required(), "folder to write the traces and manifest.json into (created; an earlier suite is replaced)")(
      "matrices", po::value(&matrices), "folder of Matrix Market files: adds the SpMV ghost exchange of each (up to 8 MB)");
  po::variables_map vm;
  if (parse_options("generate suite", "--seed S -o DIR [--matrices DIR]", args, opts, Pos(), vm)) return 0;
  std::error_code ec;
  std::vector<std::string> mats;
  if (vm.count("matrices")) {
    if (!fs::is_directory(matrices, ec)) throw InputError("--matrices", "'" + matrices + "' is not a folder");
    for (const auto& e : fs::directory_iterator(matrices, ec))
      if (e.path().extension() == ".mtx") mats.push_back(e.path().string());
    if (mats.empty()) throw InputError("--matrices", "no *.mtx file in '" + matrices + "'");
    std::sort(mats.begin(), mats.end());
  }
  if (fs::exists(out, ec)) {
    if (!fs::is_directory(out, ec)) throw InputError("--output", "'" + out + "' exists and is not a folder");
    if (!fs::is_empty(out, ec) && !fs::exists(fs::path(out) / "manifest.json"))
      throw InputError("--output", "'" + out + "' is not empty and holds no suite (manifest.json); choose another folder");
  } else {
    fs::create_directories(out, ec);
    if (ec) throw InputError("--output", "cannot create '" + out + "': " + ec.message());
  }
  const auto plan = gen::plan_suite(seed, mats);
  io::Json list = io::Json::array();
  core::Progress progress("generate suite", plan.size());
  for (const auto& e : plan) {
    progress.step(e.file);
    Args a = e.args;
    const std::string path = (fs::path(out) / e.file).string();
    a.insert(a.end(), {"-o", path});
    {
      // The generators say "wrote FILE" on stderr; the suite says it once for all.
      std::ostringstream quiet;
      auto* old = std::cerr.rdbuf(quiet.rdbuf());
      try {
        kinds().at(e.kind).second(a);
      } catch (...) {
        std::cerr.rdbuf(old);
        throw;
      }
      std::cerr.rdbuf(old);
    }
    std::string cmd = "sf-replay generate " + e.kind;
    for (const auto& w : e.args) cmd += " " + shell_word(w);
    cmd += " -o " + shell_word(e.file);
    list.push_back({{"file", e.file}, {"kind", e.kind}, {"ranks", e.ranks}, {"command", cmd}, {"sha256", trace::sha256_file(path)}});
  }
  progress.done();
  const io::Json manifest = {{"format", "sf-suite"},
                             {"version", 1},
                             {"seed", seed},
                             {"matrices", matrices.empty() ? io::Json(nullptr) : io::Json(matrices)},
                             {"note", "each command, run in this folder, regenerates its trace"},
                             {"traces", list}};
  io::write_file_atomic((fs::path(out) / "manifest.json").string(), manifest.dump(1) + "\n");
  std::cerr << "wrote " << plan.size() << " traces and manifest.json to " << out << " (seed " << seed << ")\n";
  return 0;
}

}  // namespace

int cmd_generate(const Args& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::ostream& o = args.empty() ? std::cerr : std::cout;
    o << "usage: sf-replay generate KIND [options] -o TRACE   (sf-replay generate KIND --help)\n\nkinds:\n";
    for (const auto& [name, k] : kinds()) o << "  " << name << std::string(11 - name.size(), ' ') << k.first << "\n";
    return args.empty() ? 2 : 0;
  }
  const auto it = kinds().find(args[0]);
  if (it == kinds().end()) throw InputError("generate", "unknown kind '" + args[0] + "' (see sf-replay generate --help)");
  return it->second.second(Args(args.begin() + 1, args.end()));
}

#endif

}  // namespace sfr::cli
