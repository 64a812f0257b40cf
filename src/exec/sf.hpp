// One star-forest interface for every executor (PetscSF's shape): the host MPI backends
// (exec/mpi/star_forest.hpp) and the CUDA transports (exec/cuda/device_sf.hpp) both implement it,
// so a caller writes its op switch once. As in PetscSF, where a buffer lives (host or device
// memory) is a property of each buffer of a call, not of the star forest: every implementation
// takes either, and mixed calls (roots on one side of the bus, leaves on the other).
//
// Every op is collective: all ranks call the same sequence of begins and ends. A begin returns a
// handle that its end takes; leafupdate shares leafdata's memory type (PetscSFFetchAndOpBegin's
// leafmtype).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>

#include "core/op_spec.hpp"
#include "core/ops.hpp"
#include "core/units.hpp"

namespace sfr::exec {

// One buffer of a call and where it lives.
struct Data {
  std::byte* p = nullptr;
  core::MemType mem = core::MemType::host;
  bool on_device() const { return mem == core::MemType::device; }
};
inline Data host_data(const void* p) { return {static_cast<std::byte*>(const_cast<void*>(p)), core::MemType::host}; }

// True while an exception leaves a scope on this rank. A star forest's destructor then frees
// nothing that waits for other ranks (a window's collective free, the IPC unmapping barrier): the
// others are not freeing with this one, and the job is about to end (the CLI's run_guarded ends it
// with MPI_Abort); what it leaves is the process's, gone with it.
inline bool unwinding() { return std::uncaught_exceptions() > 0; }

class Sf {
public:
  using Handle = std::size_t;
  virtual ~Sf() = default;
  virtual Handle bcast_begin(core::Unit u, int bs, core::MpiOp op, Data root, Data leaf) = 0;
  virtual Handle reduce_begin(core::Unit u, int bs, core::MpiOp op, Data leaf, Data root) = 0;
  virtual Handle fetch_and_op_begin(core::Unit u, int bs, core::MpiOp op, Data root, Data leaf, Data leafupdate) = 0;
  // Gather (leaves -> multi-roots) and scatter (multi-roots -> leaves) through the multi-SF.
  virtual Handle gather_begin(core::Unit u, int bs, Data leaf, Data multiroot) = 0;
  virtual Handle scatter_begin(core::Unit u, int bs, Data multiroot, Data leaf) = 0;
  virtual void end(Handle h) = 0;
  // Messages this rank posted so far (its multi-SF's included); -1 where the implementation does
  // not count them.
  virtual std::int64_t messages_posted() const { return -1; }
};

}  // namespace sfr::exec
