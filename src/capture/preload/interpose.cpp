// The capture library (libsfr_capture.so), preloaded into an unchanged PETSc 3.18 application by
// `sf-replay capture`. Debian's PETSc calls its own exported PetscSF functions through the PLT, so
// defining them here catches the application's calls and PETSc's internal ones (VecScatter, DM,
// Mat, PC) alike; each definition records, then calls the real function (dlsym RTLD_NEXT).
//
// What is recorded (src/capture/README.md has the whole design):
//  - ops at the top level, i.e. not made inside another SF call: bcast, reduce, fetch_and_op,
//    gather, scatter, degree. An op PETSc implements through another (gather = reduce on the
//    multi-SF, degree = a reduce of ones) is recorded once, as the outer op; the inner calls are
//    counted in `internal` under the outer call's name, as are the calls PETSc makes to build a
//    multi-SF or an embedded, inverse or composed SF.
//  - the graph of every SF that carries a recorded op, read once (PetscSFGetGraph) at its first
//    op, with ranks translated to MPI_COMM_WORLD; how PETSc derived it, where it did so through
//    PetscSFGetMultiSF, PetscSFCreateEmbedded{Root,Leaf}SF, PetscSFCreateInverseSF, PetscSFCompose
//    or PetscSFComposeInverse; the pattern set by PetscSFSetGraphWithPattern.
//  - the PETSc log events the calls stand for, by PETSc 3.18's own rule: an SF bcast or reduce
//    made by VecScatterBegin on its own SF is logged as VecScatterBegin only (sf->vscat.logging).
// Nothing is recorded unless SFR_CAPTURE_DIR is set; the rank file is written at PetscFinalize.
#include <dlfcn.h>
#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "capture/preload/mpi_decode.hpp"
#include "capture/preload/petsc_abi.hpp"
#include "capture/preload/recorder.hpp"
#include "core/environment.hpp"

namespace {

using sfr::capture::OpRecord;
using sfr::capture::Recorder;
using sfr::capture::RankPlace;
using sfr::capture::SfRecord;

// The real function behind an interposed name, resolved once.
template <class F>
F real(F& slot, const char* name) {
  if (!slot) {
    slot = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
    if (!slot) {
      std::fprintf(stderr, "sf-replay capture: %s not found after the capture library (%s)\n", name, dlerror());
      std::abort();
    }
  }
  return slot;
}
// A PETSc function the library calls without interposing it.
template <class F>
F petsc(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

using Key = std::pair<PetscSF, std::uint64_t>;  // an SF object in one of its graphs

struct Derivation {
  std::string kind;
  std::vector<Key> of;
  bool has_selected = false;
  std::vector<std::int64_t> selected;
};

struct State {
  bool initialised = false;
  bool active = false;        // recording (SFR_CAPTURE_DIR set and the PETSc is the one we know)
  bool finalised = false;
  std::string dir, refused, version;
  std::string view_dir;       // SFR_CAPTURE_VIEW: PETSc prints each recorded SF there (view-sfN.txt)
  int depth = 0;              // nesting of interposed SF calls
  std::string within;         // the outermost interposed call's name while depth > 0
  PetscSF vecscatter = nullptr;  // the VecScatter whose VecScatterBegin is running
  bool in_vecscatter = false;
  std::int64_t inner_reduces = 0;
  std::unique_ptr<Recorder> rec;
  std::map<PetscSF, std::uint64_t> generation;
  std::map<Key, int> ids;
  std::map<Key, std::string> rejected;  // SFs that cannot be recorded, with the reason
  std::set<Key> counted_only;           // world-sized SFs first used after the records were full
  std::map<Key, Derivation> derivations;
  std::map<Key, std::string> patterns;
  // What PETSc made SFs for (SfRecord::built_by): a DMDA's global-to-local scatter, found at its
  // DMSetUp; a DMDA's description per DM, per matrix DMCreateMatrix made from one, and the
  // matrix whose MatMult is running (its scatter's first op is one).
  std::map<Key, std::string> built_by;
  std::map<DM, std::string> dmdas;
  std::map<Mat, DM> dmda_mats;
  Mat in_matmult = nullptr;
  // The last recorded op's call, for the fast path of loops (cleared by any new graph).
  struct Last {
    PetscSF sf = nullptr;
    MPI_Datatype unit = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    const char* kind = nullptr;
    bool root_device = false, leaf_device = false, via = false;
  } last;
};

State& st() {
  static State s;
  return s;
}

Key key(PetscSF sf) { return {sf, st().generation[sf]}; }
void new_graph(PetscSF sf) {
  ++st().generation[sf];
  st().last = {};
}

void initialise() {
  State& s = st();
  if (s.initialised) return;
  s.initialised = true;
  const char* dir = sfr::core::env_value(sfr::core::Env::capture_dir);
  if (!dir || !*dir) return;
  s.dir = dir;
  std::size_t max_ops = 1000;
  if (const char* m = sfr::core::env_value(sfr::core::Env::capture_max_ops)) max_ops = std::strtoull(m, nullptr, 10);
  if (const char* v = sfr::core::env_value(sfr::core::Env::capture_view)) s.view_dir = v;
  s.rec = std::make_unique<Recorder>(max_ops);
  PetscInt major = 0, minor = 0, sub = 0, release = 0;
  if (auto v = petsc<PetscErrorCode (*)(PetscInt*, PetscInt*, PetscInt*, PetscInt*)>("PetscGetVersionNumber")) v(&major, &minor, &sub, &release);
  s.version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(sub);
  std::size_t int_size = 0;
  if (auto g = petsc<PetscErrorCode (*)(PetscDataType, std::size_t*)>("PetscDataTypeGetSize")) g(sfr::capture::abi::kPetscInt, &int_size);
  if (major != sfr::capture::abi::kVersionMajor || minor != sfr::capture::abi::kVersionMinor)
    s.refused = "the application runs PETSc " + s.version + "; this capture library was built for PETSc 3.18";
  else if (int_size != sizeof(PetscInt))
    s.refused = "the application's PETSc has " + std::to_string(8 * int_size) +
                "-bit PetscInt; this capture library was built for 32-bit PetscInt";
  s.active = s.refused.empty();
}

bool active() {
  initialise();
  return st().active && !st().finalised;
}

// World ranks of the SF's communicator, or "" and the reason it cannot be recorded.
std::string world_ranks(PetscSF sf, std::vector<int>& to_world) {
  MPI_Comm comm = MPI_COMM_NULL;
  auto get_comm = petsc<PetscErrorCode (*)(PetscObject, MPI_Comm*)>("PetscObjectGetComm");
  if (!get_comm || get_comm(reinterpret_cast<PetscObject>(sf), &comm) || comm == MPI_COMM_NULL) return "its communicator is unknown";
  int n = 0, world = 0;
  MPI_Comm_size(comm, &n);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  if (n != world) return "an SF on a communicator of " + std::to_string(n) + " of the " + std::to_string(world) + " ranks";
  MPI_Group g, wg;
  MPI_Comm_group(comm, &g);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  std::vector<int> mine(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) mine[static_cast<std::size_t>(i)] = i;
  to_world.assign(static_cast<std::size_t>(n), 0);
  MPI_Group_translate_ranks(g, n, mine.data(), wg, to_world.data());
  MPI_Group_free(&g);
  MPI_Group_free(&wg);
  return "";
}

void view(PetscSF sf, int id) {
  auto open = petsc<PetscErrorCode (*)(MPI_Comm, const char*, PetscViewer*)>("PetscViewerASCIIOpen");
  auto push = petsc<PetscErrorCode (*)(PetscViewer, PetscViewerFormat)>("PetscViewerPushFormat");
  auto pop = petsc<PetscErrorCode (*)(PetscViewer)>("PetscViewerPopFormat");
  auto destroy = petsc<PetscErrorCode (*)(PetscViewer*)>("PetscViewerDestroy");
  auto sfview = petsc<PetscErrorCode (*)(PetscSF, PetscViewer)>("PetscSFView");
  auto get_comm = petsc<PetscErrorCode (*)(PetscObject, MPI_Comm*)>("PetscObjectGetComm");
  if (!open || !push || !pop || !destroy || !sfview || !get_comm) return;
  MPI_Comm comm;
  get_comm(reinterpret_cast<PetscObject>(sf), &comm);
  const std::string path = st().view_dir + "/view-sf" + std::to_string(id) + ".txt";
  PetscViewer v = nullptr;
  if (open(comm, path.c_str(), &v)) return;
  push(v, sfr::capture::abi::kViewerAsciiInfoDetail);
  sfview(sf, v);
  pop(v);
  destroy(&v);
}

// The id of the SF in its current graph, recording it (and what it was derived from) the first
// time; -1 when it cannot be recorded (the reason in `why`).
int ensure_sf(const Key& k, const char* via, std::string& why) {
  State& s = st();
  if (auto it = s.ids.find(k); it != s.ids.end()) return it->second;
  if (auto it = s.rejected.find(k); it != s.rejected.end()) {
    why = it->second;
    return -1;
  }
  PetscSF sf = k.first;
  std::vector<int> to_world;
  why = world_ranks(sf, to_world);
  PetscInt nroots = -1, nleaves = 0;
  const PetscInt* ilocal = nullptr;
  const PetscSFNode* iremote = nullptr;
  auto get_graph = petsc<PetscErrorCode (*)(PetscSF, PetscInt*, PetscInt*, const PetscInt**, const PetscSFNode**)>("PetscSFGetGraph");
  if (why.empty() && (!get_graph || get_graph(sf, &nroots, &nleaves, &ilocal, &iremote) || nroots < 0)) why = "an SF whose graph is not set";
  if (!why.empty()) {
    s.rejected[k] = why;
    return -1;
  }
  SfRecord r;
  r.first_via = via;
  r.nroots = nroots;
  r.has_ilocal = ilocal != nullptr;
  for (PetscInt j = 0; j < nleaves; ++j) {
    if (ilocal) r.ilocal.push_back(ilocal[j]);
    const PetscInt rr = iremote[j].rank;
    r.remote_rank.push_back(rr >= 0 && static_cast<std::size_t>(rr) < to_world.size() ? to_world[static_cast<std::size_t>(rr)] : rr);
    r.remote_index.push_back(iremote[j].index);
  }
  PetscSFType type = nullptr;
  if (auto get_type = petsc<PetscErrorCode (*)(PetscSF, PetscSFType*)>("PetscSFGetType"); get_type && !get_type(sf, &type) && type)
    r.petsc_type = type;
  if (auto it = s.patterns.find(k); it != s.patterns.end()) r.pattern = it->second;
  if (auto it = s.built_by.find(k); it != s.built_by.end()) r.built_by = it->second;
  else if (auto m = s.dmda_mats.find(s.in_matmult); s.in_matmult && m != s.dmda_mats.end() && s.dmdas.count(m->second))
    r.built_by = "{\"role\": \"matmult\", " + s.dmdas[m->second] + "}";
  if (auto it = s.derivations.find(k); it != s.derivations.end()) {
    // Its parents first (they get lower ids), while their graphs are still the ones it came from.
    std::vector<int> of;
    for (const Key& p : it->second.of) {
      std::string pwhy;
      const int pid = key(p.first) == p ? ensure_sf(p, via, pwhy) : -1;
      if (pid < 0) {
        of.clear();
        break;
      }
      of.push_back(pid);
    }
    if (!of.empty()) {
      r.derive = it->second.kind;
      r.of = std::move(of);
      r.has_selected = it->second.has_selected;
      r.selected = it->second.selected;
    }
  }
  const int id = s.rec->add_sf(std::move(r));
  s.ids[k] = id;
  if (!s.view_dir.empty()) view(sf, id);
  return id;
}

// Log-event bookkeeping for a bcast- or reduce-type call, by PETSc 3.18's rule.
void log_event(PetscSF sf, const char* event) {
  if (!active() || !event) return;
  State& s = st();
  if (s.in_vecscatter && sf == s.vecscatter && std::strcmp(event, "SFFetchOpBegin") != 0) return;
  s.rec->event(event);
}

struct Call {
  const char* kind;       // sf-trace op kind
  PetscSF sf;
  MPI_Datatype unit;      // MPI_DATATYPE_NULL for degree
  MPI_Op op;              // MPI_OP_NULL where the op takes none
  bool root_device = false, leaf_device = false;
  const char* event;      // PETSc log event of this very call, or nullptr
};

template <class F>
PetscErrorCode around(const Call& c, F&& call) {
  if (!active()) return call();
  State& s = st();
  log_event(c.sf, c.event);
  if (s.depth > 0) {
    s.rec->internal(c.kind, s.within);
    if (std::strcmp(c.kind, "reduce") == 0) ++s.inner_reduces;
    ++s.depth;
    const PetscErrorCode e = call();
    --s.depth;
    return e;
  }
  const std::int64_t reduces_before = s.inner_reduces;
  s.within = c.kind;
  ++s.depth;
  const PetscErrorCode e = call();
  --s.depth;
  if (e) return e;
  const bool degree = std::strcmp(c.kind, "degree") == 0;
  // A loop repeating the last op (same SF and graph, unit, op, memtypes, route) folds without
  // decoding anything again: the cost of a capture on a solver's inner loop.
  const State::Last& l = s.last;
  if (!degree && l.sf == c.sf && l.kind == c.kind && l.unit == c.unit && l.op == c.op && l.root_device == c.root_device &&
      l.leaf_device == c.leaf_device && l.via == s.in_vecscatter && s.rec->repeat_last(s.in_vecscatter))
    return e;
  if (degree && s.inner_reduces == reduces_before) {
    s.rec->not_recorded(c.kind, "PETSc already knew the degrees (no communication)");
    return e;
  }
  ++s.depth;  // whatever PETSc does while we read the SF is ours, not the application's
  OpRecord r;
  r.op = c.kind;
  std::string why;
  if (!degree) {
    const auto u = sfr::capture::decode_unit(c.unit);
    if (u.unit.empty()) why = "datatype " + u.what + " has no sf-trace unit";
    r.unit = u.unit;
    r.bs = u.bs;
    if (c.op != MPI_OP_NULL) {
      r.mpi_op = sfr::capture::decode_op(c.op);
      if (r.mpi_op.empty() && why.empty()) why = "a user-defined MPI_Op";
    }
  }
  r.root_device = c.root_device;
  r.leaf_device = c.leaf_device;
  if (why.empty()) {
    const Key k = key(c.sf);
    if (s.rec->full() && !s.ids.count(k)) {
      // Beyond the cap an SF not seen before is only counted: its graph would never be used. Its
      // communicator is checked once (a solver's loop on such an SF pays a map lookup per op).
      if (auto it = s.rejected.find(k); it != s.rejected.end()) {
        why = it->second;
      } else if (!s.counted_only.count(k)) {
        std::vector<int> to_world;
        why = world_ranks(c.sf, to_world);
        if (why.empty())
          s.counted_only.insert(k);
        else
          s.rejected[k] = why;
      }
      r.sf = Recorder::kBeyondCap;
    } else {
      r.sf = ensure_sf(k, s.in_vecscatter ? "VecScatter" : "PetscSF", why);
    }
  }
  --s.depth;
  if (why.empty()) {
    s.rec->op(r, s.in_vecscatter);
    if (r.sf != Recorder::kBeyondCap) s.last = {c.sf, c.unit, c.op, c.kind, c.root_device, c.leaf_device, s.in_vecscatter};
  } else {
    s.rec->not_recorded(c.kind, why);
    s.last = {};
  }
  return e;
}

// Around a PETSc call that builds a new SF from others: the SF calls it makes are internal.
template <class F>
PetscErrorCode building(const char* what, F&& call) {
  if (!active()) return call();
  State& s = st();
  if (s.depth == 0) s.within = what;
  ++s.depth;
  const PetscErrorCode e = call();
  --s.depth;
  return e;
}

void derived(PetscSF child, const char* kind, std::vector<PetscSF> of, PetscInt nselected = -1, const PetscInt* selected = nullptr) {
  if (!active() || !child) return;
  Derivation d;
  d.kind = kind;
  for (PetscSF p : of) d.of.push_back(key(p));
  if (nselected >= 0) {
    d.has_selected = true;
    for (PetscInt i = 0; i < nselected; ++i) d.selected.push_back(selected[i]);
  }
  st().derivations.emplace(key(child), std::move(d));
}

// The socket (physical package) every core this process may run on belongs to; -1 when they span
// several or the kernel does not say.
int bound_socket() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
  int socket = -1;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    int pkg = -1;
    const std::string f = "/sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/physical_package_id";
    if (FILE* in = std::fopen(f.c_str(), "r")) {
      if (std::fscanf(in, "%d", &pkg) != 1) pkg = -1;
      std::fclose(in);
    }
    if (pkg < 0 || (socket >= 0 && pkg != socket)) return -1;
    socket = pkg;
  }
  return socket;
}

RankPlace where_this_rank_ran() {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  int inited = 0;
  MPI_Initialized(&inited);
  if (!inited || MPI_Get_processor_name(name, &len) != MPI_SUCCESS) len = 0;
  return {std::string(name, static_cast<std::size_t>(std::max(0, len))), bound_socket()};
}

void write_rank_file() {
  State& s = st();
  initialise();
  if (s.dir.empty() || s.finalised) return;
  s.finalised = true;
  int rank = 0, size = 1, inited = 0;
  MPI_Initialized(&inited);
  if (inited) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  if (!s.rec) s.rec = std::make_unique<Recorder>(0);
  const std::string text = s.rec->to_json(rank, size, s.version, s.refused, where_this_rank_ran());
  const std::string path = s.dir + "/rank-" + std::to_string(rank) + ".json";
  const std::string tmp = path + ".part";
  if (FILE* f = std::fopen(tmp.c_str(), "w")) {
    const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if (std::fclose(f) == 0 && ok) std::rename(tmp.c_str(), path.c_str());
  }
}

// ---- where PETSc made an SF: a DMDA's ghost update, the MatMult of a matrix made from a DMDA ---
// The DMDA as JSON members (no braces): its dimension, global sizes, process grid, dof, stencil
// type and width, boundary types, from DMDAGetInfo after its set-up; and whether DMRefine or
// DMCoarsen made it (their DMDAs take the process grid and ownership of the one they came from).
std::string dmda_members(DM dm) {
  auto get_info = petsc<PetscErrorCode (*)(DM, PetscInt*, PetscInt*, PetscInt*, PetscInt*, PetscInt*, PetscInt*, PetscInt*, PetscInt*,
                                           PetscInt*, DMBoundaryType*, DMBoundaryType*, DMBoundaryType*, DMDAStencilType*)>("DMDAGetInfo");
  PetscInt dim = 0, M = 0, N = 0, P = 0, m = 0, n = 0, p = 0, dof = 0, s = 0;
  DMBoundaryType bx = 0, by = 0, bz = 0;
  DMDAStencilType stencil = 0;
  if (!get_info || get_info(dm, &dim, &M, &N, &P, &m, &n, &p, &dof, &s, &bx, &by, &bz, &stencil)) return "";
  PetscInt refine = 0, coarsen = 0;
  if (auto level = petsc<PetscErrorCode (*)(DM, PetscInt*)>("DMGetRefineLevel"); !level || level(dm, &refine)) return "";
  if (auto level = petsc<PetscErrorCode (*)(DM, PetscInt*)>("DMGetCoarsenLevel"); !level || level(dm, &coarsen)) return "";
  using sfr::capture::abi::boundary_name;
  using sfr::capture::abi::stencil_name;
  char text[512];
  std::snprintf(text, sizeof text,
                "\"dmda\": {\"dim\": %d, \"sizes\": [%d, %d, %d], \"processes\": [%d, %d, %d], \"dof\": %d, \"stencil\": \"%s\", "
                "\"stencil_width\": %d, \"boundary\": [\"%s\", \"%s\", \"%s\"], \"refine_level\": %d, \"coarsen_level\": %d}",
                dim, M, N, P, m, n, p, dof, stencil_name(stencil), s, boundary_name(bx), boundary_name(by), boundary_name(bz), refine, coarsen);
  return text;
}

bool is_dmda(DM dm) {
  DMType type = nullptr;
  auto get_type = petsc<PetscErrorCode (*)(DM, DMType*)>("DMGetType");
  return get_type && !get_type(dm, &type) && type && std::strcmp(type, "da") == 0;
}

}  // namespace

#define SFR_REAL(name) real(name##_real, #name)

// The interposed functions are the library's only exported symbols (the build hides the rest).
#pragma GCC visibility push(default)
extern "C" {

// ---- the op stream ----------------------------------------------------------------------------
static PetscErrorCode (*PetscSFBcastBegin_real)(PetscSF, MPI_Datatype, const void*, void*, MPI_Op);
PetscErrorCode PetscSFBcastBegin(PetscSF sf, MPI_Datatype unit, const void* rootdata, void* leafdata, MPI_Op op) {
  return around({"bcast", sf, unit, op, false, false, "SFBcastBegin"},
                [&] { return SFR_REAL(PetscSFBcastBegin)(sf, unit, rootdata, leafdata, op); });
}
static PetscErrorCode (*PetscSFBcastWithMemTypeBegin_real)(PetscSF, MPI_Datatype, PetscMemType, const void*, PetscMemType, void*, MPI_Op);
PetscErrorCode PetscSFBcastWithMemTypeBegin(PetscSF sf, MPI_Datatype unit, PetscMemType rm, const void* rootdata, PetscMemType lm,
                                            void* leafdata, MPI_Op op) {
  using sfr::capture::abi::is_device;
  return around({"bcast", sf, unit, op, is_device(rm), is_device(lm), "SFBcastBegin"},
                [&] { return SFR_REAL(PetscSFBcastWithMemTypeBegin)(sf, unit, rm, rootdata, lm, leafdata, op); });
}
static PetscErrorCode (*PetscSFReduceBegin_real)(PetscSF, MPI_Datatype, const void*, void*, MPI_Op);
PetscErrorCode PetscSFReduceBegin(PetscSF sf, MPI_Datatype unit, const void* leafdata, void* rootdata, MPI_Op op) {
  return around({"reduce", sf, unit, op, false, false, "SFReduceBegin"},
                [&] { return SFR_REAL(PetscSFReduceBegin)(sf, unit, leafdata, rootdata, op); });
}
static PetscErrorCode (*PetscSFReduceWithMemTypeBegin_real)(PetscSF, MPI_Datatype, PetscMemType, const void*, PetscMemType, void*, MPI_Op);
PetscErrorCode PetscSFReduceWithMemTypeBegin(PetscSF sf, MPI_Datatype unit, PetscMemType lm, const void* leafdata, PetscMemType rm,
                                             void* rootdata, MPI_Op op) {
  using sfr::capture::abi::is_device;
  return around({"reduce", sf, unit, op, is_device(rm), is_device(lm), "SFReduceBegin"},
                [&] { return SFR_REAL(PetscSFReduceWithMemTypeBegin)(sf, unit, lm, leafdata, rm, rootdata, op); });
}
static PetscErrorCode (*PetscSFFetchAndOpBegin_real)(PetscSF, MPI_Datatype, void*, const void*, void*, MPI_Op);
PetscErrorCode PetscSFFetchAndOpBegin(PetscSF sf, MPI_Datatype unit, void* rootdata, const void* leafdata, void* leafupdate, MPI_Op op) {
  return around({"fetch_and_op", sf, unit, op, false, false, "SFFetchOpBegin"},
                [&] { return SFR_REAL(PetscSFFetchAndOpBegin)(sf, unit, rootdata, leafdata, leafupdate, op); });
}
static PetscErrorCode (*PetscSFFetchAndOpWithMemTypeBegin_real)(PetscSF, MPI_Datatype, PetscMemType, void*, PetscMemType, const void*,
                                                               PetscMemType, void*, MPI_Op);
PetscErrorCode PetscSFFetchAndOpWithMemTypeBegin(PetscSF sf, MPI_Datatype unit, PetscMemType rm, void* rootdata, PetscMemType lm,
                                                 const void* leafdata, PetscMemType um, void* leafupdate, MPI_Op op) {
  using sfr::capture::abi::is_device;
  return around({"fetch_and_op", sf, unit, op, is_device(rm), is_device(lm), "SFFetchOpBegin"},
                [&] { return SFR_REAL(PetscSFFetchAndOpWithMemTypeBegin)(sf, unit, rm, rootdata, lm, leafdata, um, leafupdate, op); });
}
static PetscErrorCode (*PetscSFGatherBegin_real)(PetscSF, MPI_Datatype, const void*, void*);
PetscErrorCode PetscSFGatherBegin(PetscSF sf, MPI_Datatype unit, const void* leafdata, void* multirootdata) {
  return around({"gather", sf, unit, MPI_OP_NULL, false, false, nullptr},
                [&] { return SFR_REAL(PetscSFGatherBegin)(sf, unit, leafdata, multirootdata); });
}
static PetscErrorCode (*PetscSFScatterBegin_real)(PetscSF, MPI_Datatype, const void*, void*);
PetscErrorCode PetscSFScatterBegin(PetscSF sf, MPI_Datatype unit, const void* multirootdata, void* leafdata) {
  return around({"scatter", sf, unit, MPI_OP_NULL, false, false, nullptr},
                [&] { return SFR_REAL(PetscSFScatterBegin)(sf, unit, multirootdata, leafdata); });
}
static PetscErrorCode (*PetscSFComputeDegreeBegin_real)(PetscSF, const PetscInt**);
PetscErrorCode PetscSFComputeDegreeBegin(PetscSF sf, const PetscInt** degree) {
  return around({"degree", sf, MPI_DATATYPE_NULL, MPI_OP_NULL, false, false, nullptr},
                [&] { return SFR_REAL(PetscSFComputeDegreeBegin)(sf, degree); });
}

// ---- VecScatter: its SF calls are logged as VecScatterBegin --------------------------------------
static PetscErrorCode (*VecScatterBegin_real)(PetscSF, Vec, Vec, InsertMode, ScatterMode);
PetscErrorCode VecScatterBegin(PetscSF sf, Vec x, Vec y, InsertMode addv, ScatterMode mode) {
  if (!active()) return SFR_REAL(VecScatterBegin)(sf, x, y, addv, mode);
  State& s = st();
  s.rec->event("VecScatterBegin");
  const bool was = s.in_vecscatter;
  PetscSF prev = s.vecscatter;
  s.in_vecscatter = true;
  s.vecscatter = sf;
  const PetscErrorCode e = SFR_REAL(VecScatterBegin)(sf, x, y, addv, mode);
  s.in_vecscatter = was;
  s.vecscatter = prev;
  return e;
}

// ---- what PETSc makes SFs for: a DMDA's set-up, a matrix made from it, its MatMult ------------
static PetscErrorCode (*DMSetUp_real)(DM);
PetscErrorCode DMSetUp(DM dm) {
  const PetscErrorCode e = SFR_REAL(DMSetUp)(dm);
  if (e || !active() || !is_dmda(dm)) return e;
  const std::string members = dmda_members(dm);
  if (members.empty()) return e;
  st().dmdas[dm] = members;
  PetscSF gtol = nullptr;
  if (auto get_scatter = petsc<PetscErrorCode (*)(DM, PetscSF*, PetscSF*)>("DMDAGetScatter"); get_scatter && !get_scatter(dm, &gtol, nullptr) && gtol)
    st().built_by[key(gtol)] = "{\"role\": \"global_to_local\", " + members + "}";
  return e;
}
static PetscErrorCode (*DMCreateMatrix_real)(DM, Mat*);
PetscErrorCode DMCreateMatrix(DM dm, Mat* A) {
  const PetscErrorCode e = SFR_REAL(DMCreateMatrix)(dm, A);
  if (!e && active() && A && *A && st().dmdas.count(dm)) st().dmda_mats[*A] = dm;
  return e;
}
static PetscErrorCode (*MatMult_real)(Mat, Vec, Vec);
PetscErrorCode MatMult(Mat A, Vec x, Vec y) {
  if (!active()) return SFR_REAL(MatMult)(A, x, y);
  Mat prev = st().in_matmult;
  st().in_matmult = A;
  const PetscErrorCode e = SFR_REAL(MatMult)(A, x, y);
  st().in_matmult = prev;
  return e;
}

// ---- SFs PETSc derives from others -----------------------------------------------------------
static PetscErrorCode (*PetscSFGetMultiSF_real)(PetscSF, PetscSF*);
PetscErrorCode PetscSFGetMultiSF(PetscSF sf, PetscSF* multi) {
  const PetscErrorCode e = building("multi_sf", [&] { return SFR_REAL(PetscSFGetMultiSF)(sf, multi); });
  if (!e && multi && *multi != sf) derived(*multi, "multi", {sf});
  return e;
}
static PetscErrorCode (*PetscSFCreateEmbeddedRootSF_real)(PetscSF, PetscInt, const PetscInt*, PetscSF*);
PetscErrorCode PetscSFCreateEmbeddedRootSF(PetscSF sf, PetscInt n, const PetscInt* selected, PetscSF* esf) {
  const PetscErrorCode e = building("embed_roots", [&] { return SFR_REAL(PetscSFCreateEmbeddedRootSF)(sf, n, selected, esf); });
  if (!e && esf) derived(*esf, "embed_roots", {sf}, n, selected);
  return e;
}
static PetscErrorCode (*PetscSFCreateEmbeddedLeafSF_real)(PetscSF, PetscInt, const PetscInt*, PetscSF*);
PetscErrorCode PetscSFCreateEmbeddedLeafSF(PetscSF sf, PetscInt n, const PetscInt* selected, PetscSF* esf) {
  const PetscErrorCode e = building("embed_leaves", [&] { return SFR_REAL(PetscSFCreateEmbeddedLeafSF)(sf, n, selected, esf); });
  if (!e && esf) derived(*esf, "embed_leaves", {sf}, n, selected);
  return e;
}
static PetscErrorCode (*PetscSFCreateInverseSF_real)(PetscSF, PetscSF*);
PetscErrorCode PetscSFCreateInverseSF(PetscSF sf, PetscSF* isf) {
  const PetscErrorCode e = building("inverse", [&] { return SFR_REAL(PetscSFCreateInverseSF)(sf, isf); });
  if (!e && isf) derived(*isf, "inverse", {sf});
  return e;
}
static PetscErrorCode (*PetscSFCompose_real)(PetscSF, PetscSF, PetscSF*);
PetscErrorCode PetscSFCompose(PetscSF a, PetscSF b, PetscSF* ba) {
  const PetscErrorCode e = building("compose", [&] { return SFR_REAL(PetscSFCompose)(a, b, ba); });
  if (!e && ba) derived(*ba, "compose", {a, b});
  return e;
}
static PetscErrorCode (*PetscSFComposeInverse_real)(PetscSF, PetscSF, PetscSF*);
PetscErrorCode PetscSFComposeInverse(PetscSF a, PetscSF b, PetscSF* ba) {
  const PetscErrorCode e = building("compose_inverse", [&] { return SFR_REAL(PetscSFComposeInverse)(a, b, ba); });
  if (!e && ba) derived(*ba, "compose_inverse", {a, b});
  return e;
}

// ---- a new graph, or a freed object, makes the pointer a new SF ----------------------------------
static PetscErrorCode (*PetscSFSetGraph_real)(PetscSF, PetscInt, PetscInt, PetscInt*, PetscCopyMode, PetscSFNode*, PetscCopyMode);
PetscErrorCode PetscSFSetGraph(PetscSF sf, PetscInt nroots, PetscInt nleaves, PetscInt* ilocal, PetscCopyMode lm, PetscSFNode* iremote,
                               PetscCopyMode rm) {
  new_graph(sf);
  return SFR_REAL(PetscSFSetGraph)(sf, nroots, nleaves, ilocal, lm, iremote, rm);
}
static PetscErrorCode (*PetscSFSetGraphWithPattern_real)(PetscSF, PetscLayout, PetscSFPattern);
PetscErrorCode PetscSFSetGraphWithPattern(PetscSF sf, PetscLayout map, PetscSFPattern pattern) {
  new_graph(sf);
  const PetscErrorCode e = SFR_REAL(PetscSFSetGraphWithPattern)(sf, map, pattern);
  using namespace sfr::capture::abi;
  if (!e) {
    new_graph(sf);  // (SetGraphWithPattern may reset through the PLT: the pattern belongs to the graph it left)
    const char* name = pattern == kPatternAllgather ? "allgather" : pattern == kPatternGather ? "gather" : pattern == kPatternAlltoall ? "alltoall" : "";
    if (*name) st().patterns[key(sf)] = name;
  }
  return e;
}
static PetscErrorCode (*PetscSFReset_real)(PetscSF);
PetscErrorCode PetscSFReset(PetscSF sf) {
  new_graph(sf);
  return SFR_REAL(PetscSFReset)(sf);
}
static PetscErrorCode (*PetscSFDestroy_real)(PetscSF*);
PetscErrorCode PetscSFDestroy(PetscSF* sf) {
  if (sf && *sf) {
    PetscInt refs = 1;
    if (auto get_ref = petsc<PetscErrorCode (*)(PetscObject, PetscInt*)>("PetscObjectGetReference"))
      get_ref(reinterpret_cast<PetscObject>(*sf), &refs);
    if (refs <= 1) new_graph(*sf);  // freed: the address may come back as another SF
  }
  return SFR_REAL(PetscSFDestroy)(sf);
}

// ---- the end of the run: this rank's file ----------------------------------------------------
static PetscErrorCode (*PetscFinalize_real)();
PetscErrorCode PetscFinalize() {
  write_rank_file();
  return SFR_REAL(PetscFinalize)();
}

}  // extern "C"
#pragma GCC visibility pop
