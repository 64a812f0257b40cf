// cuda-staged: pack on the GPU, device -> pinned host per piece (each send posted as soon as its
// copy is done), host MPI, host -> device per piece as each lands, unpack.
#include "core/error.hpp"
#include "exec/cuda/device_link.hpp"
#include "exec/mpi/mpi_check.hpp"

namespace sfr::exec::cuda {

namespace {

// Per send piece, its device -> host copy's event.
struct StagedState : LinkState {
  std::vector<std::unique_ptr<Event>> copied;
};

class Staged final : public DeviceTransport {
public:
  bool pipelined() const override { return true; }
  void init_link(const DeviceContext&, DeviceLink& l) override {
    auto& st = l.make_state<StagedState>();
    for (std::size_t k = 0; k < l.spieces.size(); ++k) st.copied.push_back(std::make_unique<Event>());
  }
  // Every piece of a pair travels under one tag: MPI keeps one pair's chunks in order.
  void start(const DeviceContext& c, DeviceLink& l, bool send_dev, bool) override {
    auto& st = l.state<StagedState>();
    const std::size_t nr = l.rpieces.size(), ns = l.spieces.size();
    // Each piece goes down to pinned memory on its own event, so its send leaves as soon as its
    // copy is done, while the later copies still run.
    if (send_dev)
      for (std::size_t k = 0; k < ns; ++k) {
        const auto& pc = l.spieces[k];
        copy_async(l.hsend.data() + pc.off, l.dsend.data() + pc.off, static_cast<std::size_t>(pc.bytes), c.kernels.stream());
        st.copied[k]->record(c.kernels.stream());
      }
    for (std::size_t k = 0; k < nr; ++k) {
      const auto& pc = l.rpieces[k];
      SFR_MPI(MPI_Irecv, l.hrecv.data() + pc.off, pc.bytes, MPI_BYTE, l.recv->peers[pc.peer], l.tag(kData), c.comm, &l.reqs[k]);
    }
    for (std::size_t k = 0; k < ns; ++k) {
      const auto& pc = l.spieces[k];
      if (send_dev) st.copied[k]->sync();
      SFR_MPI(MPI_Isend, l.hsend.data() + pc.off, pc.bytes, MPI_BYTE, l.send->peers[pc.peer], l.tag(kData), c.comm, &l.reqs[nr + k]);
    }
  }
  void finish(const DeviceContext& c, DeviceLink& l, bool recv_dev) override {
    const std::size_t nr = l.rpieces.size();
    // Each piece goes up to the device as it lands, while the others arrive.
    if (recv_dev)
      for (;;) {
        int k = MPI_UNDEFINED;
        SFR_MPI(MPI_Waitany, static_cast<int>(nr), l.reqs.data(), &k, MPI_STATUS_IGNORE);
        if (k == MPI_UNDEFINED) break;
        const Piece& pc = l.rpieces[static_cast<std::size_t>(k)];
        copy_async(l.drecv.data() + pc.off, l.hrecv.data() + pc.off, static_cast<std::size_t>(pc.bytes), c.kernels.stream());
      }
    SFR_MPI(MPI_Waitall, static_cast<int>(l.npieces()), l.reqs.data(), MPI_STATUSES_IGNORE);
  }
};

}  // namespace

std::unique_ptr<DeviceTransport> make_cuda_staged() { return std::make_unique<Staged>(); }

}  // namespace sfr::exec::cuda
