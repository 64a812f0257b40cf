// Internal to the CUDA executor: a link (the buffers and requests of one direction and vertex
// size, as exec/mpi/link.hpp's) and the interface of its transports (cuda-staged, cuda-aware,
// cuda-ipc: one file each, their table in device_sf.cpp). The star forest packs, runs the self
// part and unpacks on the device; a transport moves the packed blocks to the peers' receive
// blocks, keeping what it needs per link in a state of its own on the link (exec/link_states.hpp).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "core/op_spec.hpp"
#include "core/peer_lists.hpp"
#include "exec/cuda/list_kernels.hpp"
#include "exec/cuda/runtime.hpp"
#include "exec/link_states.hpp"

namespace sfr::exec::cuda {

// Tags on the SF's own communicator: the links' set-up, then per link (DeviceLink::tag) its data,
// "done" and "free" messages. A tag per link, not per pair of ranks: a "free" of one link must
// never release a sender into another link's buffer while its receiver is still reading that one.
constexpr int kSetup = 1, kLinkTags = 16;
enum LinkTag { kData = 0, kDone = 1, kFree = 2, kTagsPerLink = 3 };

// What MPI carries of a link: a peer's message, or (pipelined, a large one) a chunk of it.
struct Piece {
  std::size_t peer = 0, off = 0;  // byte offset in the link's buffer
  int bytes = 0;
};
// One side's pieces, in peer order; `pipelined`: messages over kPipelineMin bytes in chunks.
std::vector<Piece> pieces(const core::PeerLists& side, std::size_t vbytes, bool pipelined);

struct DeviceLink : LinkStates {
  core::Direction dir = core::Direction::root_to_leaf;
  std::size_t vbytes = 0;
  const core::PeerLists* send = nullptr;
  const core::PeerLists* recv = nullptr;
  DeviceMemory dsend, drecv, dself;
  PinnedMemory hsend, hrecv, hself;     // the self buffers hold two halves (fetch-and-op's way back)
  std::vector<Piece> rpieces, spieces;  // what MPI carries each way
  std::vector<MPI_Request> reqs;        // rpieces' receives, then spieces' sends
  int tag_base = kLinkTags;             // links are made in the same order on every rank (ops are collective)

  int tag(LinkTag t) const { return tag_base + t; }
  std::size_t block(const core::PeerLists& pl, std::size_t p) const { return static_cast<std::size_t>(pl.offsets[p]) * vbytes; }
  std::byte* send_at(bool dev, std::size_t p) { return (dev ? dsend.data() : hsend.data()) + block(*send, p); }
  std::byte* recv_at(bool dev, std::size_t p) { return (dev ? drecv.data() : hrecv.data()) + block(*recv, p); }
  std::size_t npieces() const { return rpieces.size() + spieces.size(); }
};

// What a transport works with: the SF's communicator and its kernels' stream.
struct DeviceContext {
  MPI_Comm comm;
  const ListKernels& kernels;
};

class DeviceTransport {
public:
  virtual ~DeviceTransport() = default;
  // At the SF's set-up, collective: throws InputError (same on every rank) where it cannot run.
  virtual void check(MPI_Comm, const core::RankLists&) const {}
  // Whether large messages travel in chunks (kPipelineChunk) rather than whole.
  virtual bool pipelined() const { return false; }
  // Once per link, after its buffers are made (collective).
  virtual void init_link(const DeviceContext&, DeviceLink&) {}
  // The packed send blocks (in device memory where send_dev) to the peers' receive blocks (in
  // device memory where recv_dev); finish waits for both ways.
  virtual void start(const DeviceContext& c, DeviceLink& l, bool send_dev, bool recv_dev) = 0;
  virtual void finish(const DeviceContext& c, DeviceLink& l, bool recv_dev) = 0;
  // After the received blocks were read.
  virtual void release(const DeviceContext&, DeviceLink&) {}
  // At the SF's end: each link closed, then (every rank together) before any buffer is freed.
  virtual void close_link(const DeviceContext&, DeviceLink&) {}
  virtual void before_free(MPI_Comm) {}
};

std::unique_ptr<DeviceTransport> make_cuda_staged();
std::unique_ptr<DeviceTransport> make_cuda_aware();
std::unique_ptr<DeviceTransport> make_cuda_ipc();

}  // namespace sfr::exec::cuda
