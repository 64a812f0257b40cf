// The CUDA executor's star forest: PetscSF's ops on data in device memory (or mixed: roots on one
// side of the PCIe bus, leaves on the other), over one of three transports:
//   cuda-staged  pack on the GPU, device -> pinned host per peer (each peer's send posted as soon as
//                its copy is done), host MPI, host -> device per peer as each message lands, unpack;
//   cuda-aware   device pointers handed to MPI (refused, with the reason, unless the MPI library
//                reports CUDA support at run time);
//   cuda-ipc     ranks of one node write straight into each other's receive buffers through CUDA
//                IPC handles (no host round trip); MPI carries only zero-byte "done" and "free"
//                notes. Refused when a peer is on another node.
// A side in host memory is packed / unpacked by the host launcher (same kernel bodies); the
// transport moves it from / to where the other side wants it. One op in flight per star forest
// (begin, then end); `end` synchronises the SF's stream, so host code and other streams see the
// finished data. Every call is collective over the communicator, as in PetscSF. It implements the
// executors' one star-forest interface (exec/sf.hpp), as the host backends do.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "core/graph.hpp"
#include "core/backends.hpp"
#include "core/kernels.hpp"
#include "core/op_spec.hpp"
#include "core/ops.hpp"
#include "core/peer_lists.hpp"
#include "core/units.hpp"
#include "exec/cuda/list_kernels.hpp"
#include "exec/cuda/runtime.hpp"
#include "exec/sf.hpp"

namespace sfr::exec::cuda {

struct DeviceLink;
struct DeviceContext;
class DeviceTransport;

// cuda-staged's pipeline: a message of more than kPipelineMin bytes goes down, across and up in
// chunks of kPipelineChunk bytes, each with an event of its own: chunk c is sent while chunk c+1
// is still copied down, and copied up as soon as it lands while the others still travel (one
// copy engine each way, one network: three stages that overlap).
inline constexpr std::size_t kPipelineMin = std::size_t{512} << 10, kPipelineChunk = std::size_t{256} << 10;
// Why MPI cannot be handed device pointers in this process ("" when the library reports CUDA
// support at run time).
std::string cuda_aware_refusal();
// Makes GPU (rank on its node) % count this rank's device, so that the ranks of a node spread
// over its GPUs. Collective over `comm`.
void select_node_device(MPI_Comm comm);

class DeviceStarForest final : public Sf {
public:
  // Collective. `transport` is one of core::kBackends' gpu rows (cuda_staged, cuda_aware,
  // cuda_ipc). Throws InputError (same on every rank) when the transport cannot run here.
  DeviceStarForest(MPI_Comm comm, const core::Graph& g, core::BackendId transport);
  ~DeviceStarForest();
  DeviceStarForest(const DeviceStarForest&) = delete;
  DeviceStarForest& operator=(const DeviceStarForest&) = delete;

  Handle bcast_begin(core::Unit u, int bs, core::MpiOp op, Data root, Data leaf) override;
  Handle reduce_begin(core::Unit u, int bs, core::MpiOp op, Data leaf, Data root) override;
  // leaf and leafupdate share a memtype.
  Handle fetch_and_op_begin(core::Unit u, int bs, core::MpiOp op, Data root, Data leaf, Data leafupdate) override;
  Handle gather_begin(core::Unit u, int bs, Data leaf, Data multiroot) override;
  Handle scatter_begin(core::Unit u, int bs, Data multiroot, Data leaf) override;
  // Ends the op in flight (the handle is always 0: one op at a time).
  void end(Handle h = 0) override;

  const core::RankLists& lists() const { return lists_; }

private:
  struct Op;
  DeviceLink& link(core::Direction d, std::size_t vbytes);
  DeviceContext context() const;
  DeviceStarForest& multi();
  void begin(Op op);
  void start(DeviceLink& l, bool send_dev, bool recv_dev);
  std::byte* finish(DeviceLink& l, bool recv_dev);  // the received blocks, where recv_dev says
  void release(DeviceLink& l);                      // after the received blocks were read (ipc: "free" notes)

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  const core::Graph& graph_;
  core::RankLists lists_;
  core::BackendId backend_;
  std::unique_ptr<DeviceTransport> transport_;  // the backend's (device_link.hpp; its row in device_sf.cpp)
  std::unique_ptr<ListKernels> kernels_;        // the rank lists on the device, and the SF's stream
  std::vector<std::unique_ptr<DeviceLink>> links_;
  std::unique_ptr<Op> inflight_;
  std::unique_ptr<core::Graph> multi_graph_;
  std::unique_ptr<DeviceStarForest> multi_;
};

}  // namespace sfr::exec::cuda
