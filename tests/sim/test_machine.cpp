// Machine files: presets hold the study's numbers; bad files give one-line errors with the pointer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "sim/machine.hpp"

using namespace sfr;
using sim::Proto;
using sim::Tier;

namespace {
std::string error_of(const std::string& text) {
  try {
    sim::parse_machine(io::parse_json_strict(text, "m.json"), "m.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST(SimMachine, LassenHoldsTheStudyParameters) {
  const auto m = *sim::preset("lassen");
  EXPECT_EQ(m.model, sim::ModelKind::max_rate);
  // Table 2, inter-CPU
  EXPECT_DOUBLE_EQ(m.ab(false, Tier::socket, Proto::short_).alpha, 3.67e-07);
  EXPECT_DOUBLE_EQ(m.ab(false, Tier::node, Proto::short_).beta, 1.19e-09);
  EXPECT_DOUBLE_EQ(m.ab(false, Tier::network, Proto::eager).alpha, 2.44e-06);
  EXPECT_DOUBLE_EQ(m.ab(false, Tier::network, Proto::rendezvous).beta, 7.97e-11);
  EXPECT_DOUBLE_EQ(m.ab(false, Tier::node, Proto::rendezvous).alpha, 6.77e-06);
  // Table 2, inter-GPU
  EXPECT_DOUBLE_EQ(m.ab(true, Tier::node, Proto::eager).alpha, 2.02e-05);
  EXPECT_DOUBLE_EQ(m.ab(true, Tier::socket, Proto::rendezvous).beta, 1.46e-11);
  EXPECT_DOUBLE_EQ(m.ab(true, Tier::network, Proto::rendezvous).alpha, 1.10e-05);
  // Table 3 and Table 4
  EXPECT_DOUBLE_EQ(m.copy(true, 1).alpha, 1.30e-05);
  EXPECT_DOUBLE_EQ(m.copy(false, 1).beta, 1.96e-11);
  EXPECT_DOUBLE_EQ(m.copy(true, 4).beta, 5.52e-10);
  EXPECT_DOUBLE_EQ(m.copy(false, 4).alpha, 1.47e-05);
  EXPECT_DOUBLE_EQ(m.injection_beta, 4.19e-11);
  EXPECT_EQ(m.procs_per_node, 40);
}

TEST(SimMachine, JsonRoundTrip) {
  for (const char* name : {"lassen", "generic"}) {
    const auto m = *sim::preset(name);
    const auto back = sim::parse_machine(sim::machine_to_json(m), "x");
    EXPECT_EQ(sim::machine_to_json(back).dump(), sim::machine_to_json(m).dump()) << name;
  }
}

// Every cost term of kCostTerms, set for two backends in both directions where it has one (distinct
// values within its bounds), comes back from the file as it was, and each is looked up as the
// executor's cost of its own backend only: a term the reader, the writer or the lookup missed fails.
TEST(SimMachine, EveryCostTermRoundTripsAndIsLookedUp) {
  auto m = *sim::preset("generic");
  m.small_byte_until = 4096, m.wire_factor_beyond = 2048, m.scatter_beyond = 1024, m.large_message_bytes = {800, 4000};
  double v = 0.01;
  for (const core::BackendId b : {core::BackendId::basic, core::BackendId::shm}) {
    sim::MachineModel::CostTerms leaf;
    for (const auto& t : sim::kCostTerms) {
      m.backend_costs[b].*t.term = t.least + v * (std::min(t.most, 1.0) - t.least), v += 0.01;
      if (!t.leaf_key.empty()) leaf.*t.term = t.least + v * (std::min(t.most, 1.0) - t.least), v += 0.01;
    }
    m.backend_costs[b].leaf_to_root = leaf;
  }
  const auto back = sim::parse_machine(sim::machine_to_json(m), "x");
  EXPECT_EQ(back.backend_costs, m.backend_costs);
  EXPECT_EQ(back.small_byte_until, 4096);
  EXPECT_EQ(back.wire_factor_beyond, 2048);
  EXPECT_EQ(back.scatter_beyond, 1024);
  EXPECT_EQ(back.large_message_bytes, (std::array<std::int64_t, 2>{800, 4000}));
  const auto& basic = m.backend_costs.at(core::BackendId::basic);
  for (const bool up : {false, true}) {
    const auto c = back.executor_costs(core::BackendId::basic, up);
    const auto& dir = up ? *basic.leaf_to_root : basic;
    EXPECT_EQ(c.op, *dir.op);
    EXPECT_EQ(c.run, *dir.run);
    EXPECT_EQ(c.byte, *dir.byte);
    EXPECT_EQ(c.small_byte, dir.small_byte);
    EXPECT_EQ(c.scatter, dir.scatter);
    EXPECT_EQ(c.wire, *dir.wire);
    EXPECT_EQ(c.peer, *basic.peer);  // not fitted apart: the bcast's both ways
    EXPECT_EQ(c.large, *basic.large);
    EXPECT_EQ(c.small_until, 4096);
  }
  const auto none = back.executor_costs(core::BackendId::window, true);  // no record: the defaults
  EXPECT_EQ(none.op, m.op_overhead);
  EXPECT_EQ(none.run + none.peer + none.byte + none.large, 0);
  EXPECT_EQ(none.wire, 1);
  EXPECT_FALSE(none.small_byte || none.scatter);
}

// A cost term is one row: each row is found by its term, gives the executor's cost one way (a
// number or an optional), is charged per its own quantity, and the first row has a fit step (a
// row without one is fitted by an earlier row's).
TEST(SimMachine, EachCostTermIsOneRow) {
  std::array<int, static_cast<std::size_t>(sim::CostTerm::Per::none) + 1> per{};
  for (const auto& t : sim::kCostTerms) {
    EXPECT_EQ(&sim::cost_term(t.term), &t) << t.key;
    EXPECT_NE(t.cost == nullptr, t.maybe == nullptr) << t.key;
    ++per[static_cast<std::size_t>(t.per)];
  }
  for (std::size_t p = 0; p + 1 < per.size(); ++p) EXPECT_EQ(per[p], 1) << "per " << p;
  EXPECT_NE(sim::kCostTerms[0].fit, nullptr);
}

// ExecutorCosts::per_call, the rows' sum in CostTerm::Per's order, is bit for bit the closed form
// the simulator charged before the rows (the order of a floating-point sum is part of its result).
TEST(SimMachine, CostPerCallIsTheClosedFormBitForBit) {
  using Costs = sim::MachineModel::ExecutorCosts;
  auto closed = [](const Costs& c, std::int64_t runs, std::int64_t peers, std::int64_t bytes, double large, std::int64_t scattered,
                   std::int64_t lines) {
    const std::int64_t below = c.small_byte ? std::min(bytes, c.small_until) : 0;
    return std::max(0.0, c.op + c.small_byte.value_or(0) * static_cast<double>(below)) + c.run * static_cast<double>(runs) +
           c.peer * static_cast<double>(std::max<std::int64_t>(0, peers - 2)) + c.byte * static_cast<double>(bytes - below) +
           c.large * std::max(0.0, large - 2) + c.scatter.value_or(0) * static_cast<double>(scattered) + c.line * static_cast<double>(lines);
  };
  std::uint64_t state = 12345;
  auto next = [&] { return static_cast<double>((state = state * 6364136223846793005ULL + 1442695040888963407ULL) >> 11) / 9007199254740992.0; };
  for (int i = 0; i < 2000; ++i) {
    Costs c{.op = (next() - 0.3) * 3e-6, .run = next() * 1e-8, .peer = next() * 1e-6, .byte = next() * 1e-9, .large = next() * 2e-6,
            .line = next() * 3e-8, .small_until = 4096};
    if (i % 3) c.scatter = next() * 1e-8;
    if (i % 2) c.small_byte = (next() - 0.6) * 1e-9;
    const auto runs = static_cast<std::int64_t>(next() * 300), peers = static_cast<std::int64_t>(next() * 20),
               bytes = static_cast<std::int64_t>(next() * 20000), scattered = static_cast<std::int64_t>(next() * 2000),
               lines = static_cast<std::int64_t>(next() * 500);
    const double large = next() * 10;
    EXPECT_EQ(c.per_call(runs, peers, bytes, large, scattered, lines), closed(c, runs, peers, bytes, large, scattered, lines)) << i;
  }
}

TEST(SimMachine, PartialFileStartsFromItsBase) {
  const auto m = sim::parse_machine(
      io::parse_json_strict(
          R"({"base": "lassen", "model": "postal", "host": {"eager": {"network": [1e-6, 2e-10]}}, "thresholds": {"eager_max": 4096}})",
          "m"),
      "m");
  EXPECT_EQ(m.model, sim::ModelKind::postal);
  EXPECT_DOUBLE_EQ(m.ab(false, Tier::network, Proto::eager).alpha, 1e-6);
  EXPECT_DOUBLE_EQ(m.ab(false, Tier::network, Proto::short_).alpha, 1.89e-06);  // from lassen
  EXPECT_EQ(m.eager_max, 4096);
  const auto k = sim::parse_machine(io::parse_json_strict(R"({"kernels": {"launch": 4e-6, "bandwidth": 2e12}})", "m"), "m");
  EXPECT_DOUBLE_EQ(k.kernels.at(1e6), 4e-6 + 2e6 / 2e12);  // a block read and written
  EXPECT_EQ(sim::preset("lassen")->kernels.at(1e6), 0);       // the study has no kernel terms
}

// A tier's own overheads: the keys it names, the model's (read first) for the rest and for the
// tiers it does not name; written back as read.
TEST(SimMachine, LogGPPerTier) {
  const auto m = sim::parse_machine(
      io::parse_json_strict(
          R"({"loggp": {"o_send": 1e-7, "o_recv": 2e-7, "gap": 4e-7, "tiers": {"network": {"o_send": 3e-6, "gap": 5e-6}}}})", "m"),
      "m");
  EXPECT_EQ(m.loggp(Tier::network), (sim::MachineModel::LogGP{3e-6, 2e-7, 5e-6}));
  EXPECT_EQ(m.loggp(Tier::node), (sim::MachineModel::LogGP{1e-7, 2e-7, 4e-7}));
  EXPECT_FALSE(m.loggp_tier[static_cast<std::size_t>(Tier::socket)].has_value());
  const auto back = sim::parse_machine(sim::machine_to_json(m), "back");
  EXPECT_EQ(back.loggp_tier, m.loggp_tier);
  EXPECT_FALSE(sim::machine_to_json(*sim::preset("generic"))["loggp"].contains("tiers"));
}

TEST(SimMachine, BadFilesGivePointedErrors) {
  struct Case {
    const char* text;
    const char* expect;
  };
  const Case cases[] = {
      {R"({"host": {"eager": {"network": [1]}}})", "m.json: /host/eager/network: expected [alpha seconds, beta seconds per byte]"},
      {R"({"host": {"eager": {"network": [-1, 0]}}})", "m.json: /host/eager/network/0: expected a finite number >= 0"},
      {R"({"host": {"eagre": {}}})", "m.json: /host/eagre: unknown key"},
      {R"({"hots": {}})", "m.json: /hots: unknown key"},
      {R"({"model": "fast"})", "m.json: /model: expected one of: postal, max-rate, loggp, study-postal, study-max-rate"},
      {R"({"thresholds": {"eager_waits_for_receive": 1}})", "m.json: /thresholds/eager_waits_for_receive: expected true or false"},
      {R"({"self_overlap": "yes"})", "m.json: /self_overlap: expected true or false"},
      {R"({"thresholds": {"short_max": 100, "eager_max": 10}})", "m.json: /thresholds/eager_max: must be >= short_max"},
      {R"({"thresholds": {"short_max": 1.5}})", "m.json: /thresholds/short_max: expected an integer"},
      {R"({"copy": {"h2d": {"2": [0, 0]}}})", "m.json: /copy/h2d/2: unknown key"},
      {R"({"topology": {"ranks_per_node": 0}})", "m.json: /topology/ranks_per_node: expected an integer from 1 to 16777216"},
      {R"({"topology": {"ranks_per_node": 4294967296}})", "m.json: /topology/ranks_per_node: expected an integer from 1 to 16777216"},
      {R"({"base": "summit"})", "m.json: /base: expected a preset name"},
      {R"([1, 2])", "m.json: (top level): expected an object"},
      {R"({"loggp": {"o_send": "fast"}})", "m.json: /loggp/o_send: expected a number"},
      {R"({"loggp": {"tiers": {"wire": {"o_send": 1e-6}}}})", "m.json: /loggp/tiers/wire: unknown key"},
      {R"({"loggp": {"tiers": {"network": {"o_send": -1e-6}}}})", "m.json: /loggp/tiers/network/o_send: expected a finite number >= 0"},
      {R"({"loggp": {"tiers": {"network": {"gaps": 1e-6}}}})", "m.json: /loggp/tiers/network/gaps: unknown key"},
      {R"({"loggp": {"tiers": {"node": {}}}})", "m.json: /loggp/tiers/node: names none of o_send, o_recv, gap: it would do nothing"},
      {R"({"loggp": {"tiers": []}})", "m.json: /loggp/tiers: expected an object"},
      {R"({"loggp": {"tiers": {}}})", "m.json: /loggp/tiers: names no tier: it would do nothing"},
      {R"({"kernels": {"launch": -1e-6}})", "m.json: /kernels/launch: expected a finite number >= 0"},
      {R"({"kernels": {"bandwith": 1e12}})", "m.json: /kernels/bandwith: unknown key"},
      {R"({"block_cost_by_backend": {"window": -1e-9}})", "m.json: /block_cost_by_backend/window: expected a finite number >= 0"},
      {R"({"block_cost_by_backend": {"window": 2e-6}})", "m.json: /block_cost_by_backend/window: expected seconds per run of roots, at most"},
      {R"({"block_cost_by_backend": {"collective": 1e-9}})", "m.json: /block_cost_by_backend/collective: unknown key"},
      {R"({"peer_cost_by_backend": {"basic": 2e-4}})", "m.json: /peer_cost_by_backend/basic: expected seconds per peer, at most"},
      {R"({"peer_cost_by_backend": {"cuda-ipc": 1e-9}})", "m.json: /peer_cost_by_backend/cuda-ipc: unknown key"},
      {R"({"byte_cost_by_backend": {"shm": 2e-8}})", "m.json: /byte_cost_by_backend/shm: expected seconds per byte, at most"},
      {R"({"large_message_cost_by_backend": {"3step": "x"}, "large_message_bytes": [800, 4000]})",
       "m.json: /large_message_cost_by_backend/3step: expected a number"},
      {R"({"large_message_cost_by_backend": {"basic": 1e-6}})", "m.json: /large_message_cost_by_backend: needs large_message_bytes"},
      {R"({"large_message_bytes": [4000]})", "m.json: /large_message_bytes: expected [from, to]"},
      {R"({"large_message_bytes": [4000, 800]})", "m.json: /large_message_bytes: expected from < to"},
      {R"({"large_message_bytes": [800.5, 4000]})", "m.json: /large_message_bytes/0: expected an integer"},
      {R"({"large_message_bytes": [800, 4000]})", "m.json: /large_message_bytes: no backend has a large message cost: it would do nothing"},
      {R"({"leaf_to_root_by_backend": {"window": {"op": 1e-7, "runs": 1e-9}}})", "m.json: /leaf_to_root_by_backend/window/runs: unknown key"},
      {R"({"leaf_to_root_by_backend": {"window": {"run": 2e-6}}})", "m.json: /leaf_to_root_by_backend/window/run: expected seconds per run"},
      {R"({"leaf_to_root_by_backend": {"window": {"op": -1}}})", "m.json: /leaf_to_root_by_backend/window/op: expected a finite number >= 0"},
      {R"({"leaf_to_root_by_backend": {"shm": {"byte": 1e-7}}})", "m.json: /leaf_to_root_by_backend/shm/byte: expected seconds per byte"},
      {R"({"small_byte_cost_by_backend": {"shm": 1e-10}})", "m.json: /small_byte_cost_by_backend: needs small_byte_until"},
      {R"({"small_byte_cost_by_backend": {"shm": 2e-8}, "small_byte_until": 4096})", "m.json: /small_byte_cost_by_backend/shm: expected seconds per byte, from -1e-8 to 1e-8"},
      {R"({"small_byte_cost_by_backend": {"shm": -2e-8}, "small_byte_until": 4096})", "m.json: /small_byte_cost_by_backend/shm: expected seconds per byte, from -1e-8 to 1e-8"},
      {R"({"small_byte_cost_by_backend": {"shm": "x"}, "small_byte_until": 4096})", "m.json: /small_byte_cost_by_backend/shm: expected a number"},
      {R"({"leaf_to_root_by_backend": {"shm": {"small_byte": -1e-7}}, "small_byte_until": 4096})", "m.json: /leaf_to_root_by_backend/shm/small_byte: expected seconds per byte, from -1e-8"},
      {R"({"small_byte_cost_by_backend": {"shm": 1e-10}, "small_byte_until": 0})", "m.json: /small_byte_until: expected an integer from 1"},
      {R"({"small_byte_until": 4096})", "m.json: /small_byte_until: no backend has a small_byte cost: it would do nothing"},
      {R"({"wire_factor_by_backend": {"window": 0.5}})", "m.json: /wire_factor_by_backend: needs wire_factor_beyond"},
      {R"({"wire_factor_by_backend": {"window": 0.01}, "wire_factor_beyond": 2048})", "m.json: /wire_factor_by_backend/window: expected a factor from 0.05 to 1"},
      {R"({"wire_factor_by_backend": {"window": 1.5}, "wire_factor_beyond": 2048})", "m.json: /wire_factor_by_backend/window: expected a factor from 0.05 to 1"},
      {R"({"wire_factor_by_backend": {"cuda-ipc": 0.5}, "wire_factor_beyond": 2048})", "m.json: /wire_factor_by_backend/cuda-ipc: unknown key"},
      {R"({"wire_factor_by_backend": {"window": 0.5}, "wire_factor_beyond": -1})", "m.json: /wire_factor_beyond: expected an integer from 0"},
      {R"({"wire_factor_beyond": 2048})", "m.json: /wire_factor_beyond: no backend has a wire factor: it would do nothing"},
      {R"({"leaf_to_root_by_backend": {"shm": {"small_byte": 1e-10}}})", "m.json: /leaf_to_root_by_backend/shm/small_byte: needs small_byte_until"},
      {R"({"leaf_to_root_by_backend": {"shm": {"small_byte": 1e-7}}, "small_byte_until": 4096})", "m.json: /leaf_to_root_by_backend/shm/small_byte: expected seconds per byte"},
      {R"({"scatter_cost_by_backend": {"basic": 1e-9}})", "m.json: /scatter_cost_by_backend: needs scatter_beyond"},
      {R"({"scatter_cost_by_backend": {"basic": 2e-6}, "scatter_beyond": 2048})", "m.json: /scatter_cost_by_backend/basic: expected seconds per value, at most 1e-6"},
      {R"({"scatter_cost_by_backend": {"basic": -1e-9}, "scatter_beyond": 2048})", "m.json: /scatter_cost_by_backend/basic: expected a finite number >= 0"},
      {R"({"scatter_cost_by_backend": {"cuda-ipc": 1e-9}, "scatter_beyond": 2048})", "m.json: /scatter_cost_by_backend/cuda-ipc: unknown key"},
      {R"({"scatter_cost_by_backend": {"basic": 1e-9}, "scatter_beyond": -1})", "m.json: /scatter_beyond: expected an integer from 0"},
      {R"({"scatter_beyond": 2048})", "m.json: /scatter_beyond: no backend has a scatter cost: it would do nothing"},
      {R"({"core_sharing": {"cores": 2}})", "m.json: /core_sharing: expected {\"cores\": N, \"fitted_ranks_per_core\": K}: both"},
      {R"({"core_sharing": {"cores": 0, "fitted_ranks_per_core": 2}})", "m.json: /core_sharing/cores: expected an integer from 1"},
      {R"({"core_sharing": {"cores": 2, "fitted_ranks_per_core": 0.5}})", "m.json: /core_sharing/fitted_ranks_per_core: expected ranks per core from 1 to 1024"},
      {R"({"core_sharing": {"cores": 2, "fitted_ranks_per_core": 2, "ranks": 4}})", "m.json: /core_sharing/ranks: unknown key"},
      {R"({"core_sharing": {"cores": 2, "fitted_ranks_per_core": 2, "mate_factor": 1.5}})", "m.json: /core_sharing/mate_factor: expected a factor from 0 to 1, got 1.5"},
      {R"({"leaf_to_root_by_backend": {"shm": {"scatter": 1e-9}}})", "m.json: /leaf_to_root_by_backend/shm/scatter: needs scatter_beyond"},
      {R"({"leaf_to_root_by_backend": {"shm": {"scatter": 2e-6}}, "scatter_beyond": 2048})", "m.json: /leaf_to_root_by_backend/shm/scatter: expected seconds per value, at most 1e-6"},
  };
  for (const auto& c : cases) {
    const std::string e = error_of(c.text);
    EXPECT_EQ(e.rfind(c.expect, 0), 0u) << c.text << " gave: " << e;
    EXPECT_EQ(e.find('\n'), std::string::npos);
  }
}

TEST(SimMachine, LoadByNameOrPath) {
  EXPECT_EQ(sim::load_machine("generic").name, "generic");
  try {
    sim::load_machine("summit");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown preset 'summit'"), std::string::npos);
  }
  const auto dir = std::filesystem::temp_directory_path() / "sfr_sim_machine_test";
  std::filesystem::create_directories(dir);
  const auto bad = (dir / "bad.json").string();
  std::ofstream(bad) << "{\"model\": \"postal\",\n \"host\": }";
  try {
    sim::load_machine(bad);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(bad + ":2:", 0), 0u) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(SimMachine, InlineUniformMachine) {
  const auto m = sim::load_machine("uniform:latency=2e-6,bandwidth=5e9");
  EXPECT_EQ(m.model, sim::ModelKind::postal);
  for (bool dev : {false, true})
    for (auto t : {Tier::socket, Tier::node, Tier::network})
      for (auto p : {Proto::short_, Proto::eager, Proto::rendezvous}) {
        EXPECT_DOUBLE_EQ(m.ab(dev, t, p).alpha, 2e-6);
        EXPECT_DOUBLE_EQ(m.ab(dev, t, p).beta, 1.0 / 5e9);
      }
  EXPECT_EQ(m.injection_beta, 0);
  EXPECT_EQ(m.pack.alpha + m.pack.beta + m.collective_overhead + m.o_send + m.o_recv + m.gap, 0);
  EXPECT_EQ(m.h2d[0].alpha + m.d2h[1].beta, 0);
  EXPECT_TRUE(m.eager_waits_for_receive);
  EXPECT_EQ(m.handshake_legs, 0);
  EXPECT_DOUBLE_EQ(sim::load_machine("uniform:bandwidth=1e10,latency=0").ab(false, Tier::node, Proto::eager).beta, 1e-10);
  for (const char* bad : {"uniform:", "uniform:latency=1e-6", "uniform:latency=1e-6,bandwidth=0", "uniform:latency=-1,bandwidth=1",
                          "uniform:latency=1e-6,bandwidth=1e10,latency=2", "uniform:latency=x,bandwidth=1", "uniform:lat=1,bandwidth=1",
                          "uniform:latency=1e-6,bandwidth=inf"}) {
    try {
      sim::load_machine(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      const std::string w = e.what();
      EXPECT_EQ(w.rfind("--machine: ", 0), 0u) << w;
      EXPECT_EQ(w.find('\n'), std::string::npos);
    }
  }
}

TEST(SimMachine, ModelNames) {
  for (auto k : {sim::ModelKind::postal, sim::ModelKind::max_rate, sim::ModelKind::loggp, sim::ModelKind::study_postal,
                 sim::ModelKind::study_max_rate})
    EXPECT_EQ(sim::parse_model(sim::model_name(k), "--model"), k);
  EXPECT_THROW(sim::parse_model("fluid", "--model"), InputError);
  // A machine file names the study's serial forms too, and round-trips.
  const auto m = sim::parse_machine(io::Json::parse(R"({"model": "study-max-rate"})"), "m.json");
  EXPECT_EQ(m.model, sim::ModelKind::study_max_rate);
  EXPECT_EQ(sim::parse_machine(sim::machine_to_json(m), "x").model, sim::ModelKind::study_max_rate);
}
