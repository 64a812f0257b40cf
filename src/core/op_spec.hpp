// The op vocabulary: which SF operations exist, one op of a trace (OpSpec), and one traits table
// that says, per op, everything the executors, the reference, the simulator, inspect, the dump
// writer and the CLI need to know about it (data-flow rounds, the arrays it reads and writes,
// what one vertex carries on the wire, which units and mpi_ops it takes).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/graph.hpp"
#include "core/ops.hpp"
#include "core/units.hpp"

namespace sfr::core {

enum class OpKind : std::uint8_t { bcast, reduce, fetch_and_op, gather, scatter, degree };
enum class MemType : std::uint8_t { host, device };

// Direction of one message round of an op.
enum class Direction : std::uint8_t {
  root_to_leaf,  // roots' owners send, leaves' owners receive (bcast, scatter, fetch's return)
  leaf_to_root,  // leaves' owners send, roots' owners receive (reduce, gather, degree, fetch)
};

// How an executor moves and applies an op's data: as a bcast (root to leaf, applied at leaves),
// as a reduce (leaf to root, applied at roots) or as a fetch-and-op (leaf to root, then back).
enum class Motion : std::uint8_t { bcast, reduce, fetch_and_op };

struct OpTraits {
  OpKind kind;
  const char* name;
  Motion motion;
  bool on_multi;         // runs on the multi-SF of the named SF (gather, scatter)
  bool takes_mpi_op;     // the trace names an mpi_op (bcast, reduce, fetch_and_op)
  MpiOp default_mpi_op;  // stored when the trace names none
  MpiOp fixed_mpi_op;    // applied by an op that takes none (replace; sum of degree's counts)
  bool has_unit;         // false: degree, whose data are int64 counts whatever the trace says
  std::uint8_t nrounds;
  std::array<Direction, 2> rounds;  // message rounds, in order
  std::uint8_t nwrites;
  std::array<const char*, 2> writes;  // the arrays the op writes, in sf-dump order
  std::uint8_t nreads;
  std::array<const char*, 2> reads;  // the arrays whose prior values the result depends on: inputs,
                                     // and arrays updated in place (leafdata keeps its holes)

  std::span<const Direction> directions() const { return {rounds.data(), nrounds}; }
  std::span<const char* const> written() const { return {writes.data(), nwrites}; }
  std::span<const char* const> read() const { return {reads.data(), nreads}; }
  bool reads_array(std::string_view a) const { return contains(read(), a); }
  bool writes_array(std::string_view a) const { return contains(written(), a); }

private:
  static bool contains(std::span<const char* const> names, std::string_view a) {
    for (const char* n : names)
      if (a == n) return true;
    return false;
  }
};

// The traits of every op, in OpKind order.
const std::array<OpTraits, 6>& op_traits_table();
const OpTraits& op_traits(OpKind k);

bool parse_op_kind(std::string_view s, OpKind& out);
const char* op_kind_name(OpKind k);
std::string op_kind_list();  // "bcast, reduce, ... or degree"
bool op_takes_mpi_op(OpKind k);
MpiOp default_mpi_op(OpKind k);

bool parse_memtype(std::string_view s, MemType& out);
const char* memtype_name(MemType m);

// One op of a trace: what runs on which SF, with which data.
struct OpSpec {
  OpKind op = OpKind::bcast;
  std::string sf;
  Unit unit = Unit::float64;
  int bs = 1;
  MpiOp mpi_op = MpiOp::replace;  // meaningful when op_takes_mpi_op(op)
  MemType root_mem = MemType::host;
  MemType leaf_mem = MemType::host;
  Index repeat = 1;
  double overlap_us = 0;
  bool operator==(const OpSpec&) const = default;
};

// Whether an op has data in device memory (its roots, its leaves, or both).
inline bool op_uses_device(const OpSpec& o) { return o.root_mem == MemType::device || o.leaf_mem == MemType::device; }

// What one vertex of an op carries on the wire: the op's unit and block size, except degree,
// which reduces one int64 count per leaf.
Unit op_wire_unit(const OpSpec& op);
int op_wire_bs(const OpSpec& op);
std::int64_t op_vertex_bytes(const OpSpec& op);
// The mpi_op the trace gives the op (absent for ops that take none: gather, scatter, degree).
std::optional<MpiOp> op_named_mpi_op(const OpSpec& op);
// The mpi_op applied at the destination: the named one, else the op's own (sum for degree's
// counts, replace for gather and scatter).
MpiOp op_applied_mpi_op(const OpSpec& op);

}  // namespace sfr::core
