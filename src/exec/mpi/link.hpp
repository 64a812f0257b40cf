// Internal: a link holds the buffers and backend state of one exchange in flight, and the record
// of an op between its begin and end.
#pragma once

#include <mpi.h>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <span>
#include <utility>
#include <vector>

#include "core/op_spec.hpp"
#include "exec/cuda/runtime.hpp"
#include "exec/link_states.hpp"
#include "exec/mpi/star_forest.hpp"

namespace sfr::exec::mpi {

using exec::LinkState;

// A link derives the backends' own states (exec/link_states.hpp): l.make_state<T>(), l.state<T>().
struct Link : LinkStates {
  Direction dir = Direction::root_to_leaf;
  std::size_t vbytes = 0;
  int tag = 0;
  bool busy = false;
  const core::PeerLists* send = nullptr;  // my lists on the sending side (indices into my data)
  const core::PeerLists* recv = nullptr;
  std::vector<std::byte> sendbuf, recvbuf;  // concatenated per-peer blocks, peer order
  // The backend's requests.
  std::vector<MPI_Request> requests;
  MPI_Datatype vtype = MPI_DATATYPE_NULL;  // one vertex as MPI_BYTE blocks

  // Peers whose index list is contiguous: their data can go straight from / into the user's buffer.
  std::vector<char> send_contiguous, recv_contiguous;
  // Device memory (exec/sf.hpp): the blocks packed on / unpacked from the device, and the self
  // part's way across the bus (2 * self count * vbytes, device and host); made at the first call
  // with device data. For the op in flight, dev_send / dev_recv point at dsend / drecv where the
  // backend moves device blocks itself (the direct path), so send_block / recv_block are device
  // addresses; null otherwise.
  exec::cuda::DeviceMemory dsend, drecv, dself;
  std::vector<std::byte> hself;
  std::byte* dev_send = nullptr;
  std::byte* dev_recv = nullptr;

  // An MPI message of n vertices: MPI_BYTE counts when they fit in an int (fastest path in Open
  // MPI), the committed vertex type otherwise.
  std::pair<int, MPI_Datatype> message(Index n) const {
    const long long bytes = static_cast<long long>(n) * static_cast<long long>(vbytes);
    if (bytes <= 0x7fffffffLL) return {static_cast<int>(bytes), MPI_BYTE};
    return {static_cast<int>(n), vtype};
  }

  // A peer's block may live outside the link's buffers, where a backend placed it in memory it
  // moves itself (shm: the send block in my segment, the receive block in the sender's). Such a
  // peer is that backend's: no MPI message carries it (basic under shm skips it), and the driver
  // packs into and unpacks from the placed block. Placed blocks may move between ops (shm's double
  // buffers), so a backend places them again before each op's pack (Backend::before_pack).
  void place_send(std::size_t p, std::byte* at) { placed(send_at_, *send)[p] = at; }
  void place_recv(std::size_t p, std::byte* at) { placed(recv_at_, *recv)[p] = at; }
  bool send_placed(std::size_t p) const { return !send_at_.empty() && send_at_[p]; }
  bool recv_placed(std::size_t p) const { return !recv_at_.empty() && recv_at_[p]; }
  bool any_send_placed() const { return !send_at_.empty(); }
  bool any_recv_placed() const { return !recv_at_.empty(); }

  // Peer p's block in host memory: where it was placed, else in the link's buffer.
  std::byte* host_send_block(std::size_t p) {
    return send_placed(p) ? send_at_[p] : sendbuf.data() + static_cast<std::size_t>(send->offsets[p]) * vbytes;
  }
  std::byte* host_recv_block(std::size_t p) {
    return recv_placed(p) ? recv_at_[p] : recvbuf.data() + static_cast<std::size_t>(recv->offsets[p]) * vbytes;
  }
  // Peer p's block as the op in flight moves it: on the device for the direct path, else in host memory.
  std::byte* send_block(std::size_t p) {
    return dev_send ? dev_send + static_cast<std::size_t>(send->offsets[p]) * vbytes : host_send_block(p);
  }
  std::byte* recv_block(std::size_t p) {
    return dev_recv ? dev_recv + static_cast<std::size_t>(recv->offsets[p]) * vbytes : host_recv_block(p);
  }

private:
  static std::vector<std::byte*>& placed(std::vector<std::byte*>& at, const core::PeerLists& side) {
    if (at.empty()) at.assign(side.npeers(), nullptr);
    return at;
  }
  std::vector<std::byte*> send_at_, recv_at_;  // per peer; empty while none is placed

};

using core::Motion;  // how an op's data move (core/op_spec.hpp)

// An op between begin and end.
struct InFlight {
  Motion kind = Motion::bcast;
  core::Unit unit = core::Unit::float64;
  int bs = 1;
  core::MpiOp mpi_op = core::MpiOp::replace;  // how a reduce or fetch combines (core::OpSpec::op is the op kind)
  std::byte* rootdata = nullptr;
  std::byte* leafdata = nullptr;    // const for reduce / fetch (never written)
  std::byte* leafupdate = nullptr;  // fetch_and_op
  Link* link = nullptr;             // the exchange (leaf->root for reduce/fetch)
  Link* back = nullptr;             // fetch_and_op: root->leaf return of fetched values
  StarForest* sf = nullptr;         // the SF that runs it (the multi-SF for gather/scatter)
  bool applied = false;             // backend already applied the data at the destination
  // Per peer: whether the send / receive of this op goes straight from / into the user's buffer
  // (set by the driver from the backend's answer; such peers are not packed / unpacked).
  std::vector<char> send_direct, recv_direct;
  bool fetched_in_back = false;  // fetch: backend delivered fetched values in back->recvbuf
  // The send blocks hold the sending side's values by index (equal indices, equal values: a
  // transport may send such duplicates once); false for fetch_and_op's return of fetched values.
  bool by_index = true;
  // The call's buffers as the caller gave them (exec/sf.hpp) and how the driver moves device data:
  // host (no device buffer), staged or direct (packed on the device; blocks through host memory, or
  // handed to MPI in device memory), mirror (the backend reads the user's arrays: it works on the
  // host copies below, and the written ones go back at the end).
  enum class DevicePath : std::uint8_t { host, staged, direct, mirror };
  DevicePath device_path = DevicePath::host;
  bool packs_on_device() const { return device_path == DevicePath::staged || device_path == DevicePath::direct; }
  Data root, leaf, update;
  std::vector<std::byte> mroot, mleaf, mupdate;
};

}  // namespace sfr::exec::mpi
