// What one rank of a captured application did: the SFs that carried an operation (their graphs
// as this rank holds them), the op stream (consecutive identical ops folded into `repeat`, the
// first max_ops records kept, the rest only counted), the exact count of every (SF, op kind), the
// calls PETSc made inside other SF calls, the PETSc log events those calls stand for, and every op
// that could not be recorded, with the reason. Plain C++: no MPI, no PETSc (tests use it directly).
// Written at PetscFinalize as one JSON file per rank (sf-capture-rank v1, src/capture/README.md),
// which `sf-replay capture` merges into one sf-trace (src/capture/merge.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace sfr::capture {

struct OpRecord {
  int sf = -1;
  std::string op;      // sf-trace op kind
  std::string unit;    // sf-trace unit ("" for degree)
  int bs = 1;
  std::string mpi_op;  // "" where the op takes none
  bool root_device = false;
  bool leaf_device = false;
  std::int64_t repeat = 1;
  bool same_op(const OpRecord& o) const {
    return std::tie(sf, op, unit, bs, mpi_op, root_device, leaf_device) ==
           std::tie(o.sf, o.op, o.unit, o.bs, o.mpi_op, o.root_device, o.leaf_device);
  }
};

struct SfRecord {
  std::string petsc_type;  // PetscSFGetType: basic, neighbor, window, allgatherv, ...
  std::string pattern;     // "" or allgather / gather / alltoall (set by PetscSFSetGraphWithPattern)
  std::int64_t nroots = 0;
  bool has_ilocal = false;
  std::vector<std::int64_t> ilocal;
  std::vector<std::int64_t> remote_rank;  // world ranks
  std::vector<std::int64_t> remote_index;
  std::string derive;       // "" or multi / embed_roots / embed_leaves / inverse / compose / compose_inverse
  std::vector<int> of;      // ids of the SFs it was derived from
  bool has_selected = false;
  std::vector<std::int64_t> selected;  // embed_*: this rank's selection, as given to PETSc
  std::string first_via;    // how its first op came: "VecScatter" or "PetscSF"
  std::string built_by;     // what PETSc made it for, a JSON object ("" unknown): a DMDA's ghost update or MatMult
};

// Where a rank ran: its host (MPI_Get_processor_name) and the socket its cores lie on (-1: not
// bound within one socket, or unknown).
struct RankPlace {
  std::string host;
  int socket = -1;
};

class Recorder {
public:
  explicit Recorder(std::size_t max_ops) : max_ops_(max_ops) {}

  int add_sf(SfRecord s) {
    sfs_.push_back(std::move(s));
    return static_cast<int>(sfs_.size()) - 1;
  }
  const SfRecord& sf(int id) const { return sfs_.at(static_cast<std::size_t>(id)); }
  std::size_t nsfs() const { return sfs_.size(); }

  // No further op record fits: an op on an SF not recorded yet is only counted, under
  // kBeyondCap, and its SF's graph is never read (the trace's size stays bounded).
  bool full() const { return ops_.size() >= max_ops_; }
  static constexpr int kBeyondCap = -1;

  // One op at the top level (not inside another SF call): counted, and kept or folded.
  void op(const OpRecord& r, bool via_vecscatter);
  // The fast path of a loop: the same op as the last one, which folds into the last record.
  // False (nothing done) when it would not fold; the caller then calls op().
  bool repeat_last(bool via_vecscatter) {
    if (ops_.empty() || dropped_ != 0 || !last_count_) return false;
    ++ops_.back().repeat;
    ++last_count_->first;
    if (via_vecscatter) ++last_count_->second;
    return true;
  }
  // An op that could not be recorded (an SF on a smaller communicator, a datatype or MPI_Op the
  // trace cannot express, a degree PETSc already knew): counted under its reason.
  void not_recorded(const std::string& op, const std::string& reason) { ++skipped_[{op, reason}]; }
  // An SF call PETSc made inside another (gather's reduce on the multi-SF, the multi-SF's setup).
  void internal(const std::string& op, const std::string& within) { ++internal_[{op, within}]; }
  // A PETSc log event the calls stand for (SFBcastBegin, SFReduceBegin, SFFetchOpBegin, VecScatterBegin).
  void event(const std::string& name) { ++events_[name]; }

  const std::vector<OpRecord>& ops() const { return ops_; }
  std::int64_t dropped() const { return dropped_; }
  std::int64_t count(int sf, const std::string& op) const;

  // The rank file (sf-capture-rank v1) as JSON text.
  std::string to_json(int rank, int size, const std::string& petsc_version, const std::string& refused, const RankPlace& where = {}) const;

private:
  std::size_t max_ops_;
  std::vector<SfRecord> sfs_;
  std::vector<OpRecord> ops_;
  std::int64_t dropped_ = 0;                                      // top-level ops beyond max_ops records
  std::map<std::pair<int, std::string>, std::pair<std::int64_t, std::int64_t>> counts_;  // (sf, op) -> (all, via VecScatter)
  std::pair<std::int64_t, std::int64_t>* last_count_ = nullptr;  // counts_ entry of the last kept record
  std::map<std::pair<std::string, std::string>, std::int64_t> skipped_;
  std::map<std::pair<std::string, std::string>, std::int64_t> internal_;
  std::map<std::string, std::int64_t> events_;
};

}  // namespace sfr::capture
