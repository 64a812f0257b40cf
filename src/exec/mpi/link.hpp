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
#include "exec/mpi/star_forest.hpp"

namespace sfr::exec::mpi {

// What one backend keeps per link beyond the buffers and requests (basic's bound addresses,
// window's window, the vector collectives' counts, shm's segments, a strategy's routes): a type of
// its own, made by the backend on the link and read only by it through Link::state (PetscSF keeps
// such state behind the backend too). It lives on the link: no backend keeps a map keyed by links.
struct LinkState {
  virtual ~LinkState() = default;
};

struct Link {
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

  // The backends' own states (LinkState), one per type: a backend that wraps another (shm around
  // basic, the node-aware strategies around shm) keeps its own beside the wrapped one's.
  template <class T>
  T& make_state() {
    if (find_state<T>()) throw std::logic_error("Link: a second backend state of one type");
    states_.emplace_back(type_tag<T>(), std::make_unique<T>());
    return static_cast<T&>(*states_.back().second);
  }
  // Null where the backend made none (yet).
  template <class T>
  T* find_state() {
    for (auto& [tag, s] : states_)
      if (tag == type_tag<T>()) return static_cast<T*>(s.get());
    return nullptr;
  }
  template <class T>
  T& state() {
    T* s = find_state<T>();
    if (!s) throw std::logic_error("Link: no such backend state");
    return *s;
  }
  template <class T>
  void drop_state() {
    std::erase_if(states_, [](const auto& e) { return e.first == type_tag<T>(); });
  }

  // Peers whose index list is contiguous: their data can go straight from / into the user's buffer.
  std::vector<char> send_contiguous, recv_contiguous;
  // Per peer: moved through shared memory by the shm transport (point-to-point skips them), and
  // where that peer's block lives (the send block in my segment, the receive block in the
  // sender's segment); empty when no peer is shared.
  std::vector<char> send_shared, recv_shared;
  std::vector<std::byte*> send_at, recv_at;
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

  std::byte* send_block(std::size_t p) {
    if (dev_send) return dev_send + static_cast<std::size_t>(send->offsets[p]) * vbytes;
    return !send_at.empty() && send_at[p] ? send_at[p] : sendbuf.data() + static_cast<std::size_t>(send->offsets[p]) * vbytes;
  }
  std::byte* recv_block(std::size_t p) {
    if (dev_recv) return dev_recv + static_cast<std::size_t>(recv->offsets[p]) * vbytes;
    return !recv_at.empty() && recv_at[p] ? recv_at[p] : recvbuf.data() + static_cast<std::size_t>(recv->offsets[p]) * vbytes;
  }
  bool send_is_shared(std::size_t p) const { return !send_shared.empty() && send_shared[p]; }
  bool recv_is_shared(std::size_t p) const { return !recv_shared.empty() && recv_shared[p]; }

private:
  // One address per state type (no RTTI on the hot path: a pointer compare over one to three).
  template <class T>
  static const void* type_tag() {
    static const char tag = 0;
    return &tag;
  }
  std::vector<std::pair<const void*, std::unique_ptr<LinkState>>> states_;
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
