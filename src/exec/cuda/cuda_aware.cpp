// cuda-aware: the link's blocks handed to MPI where they are (device pointers where the data is on
// the device); refused, with the reason, unless the MPI library reports CUDA support at run time.
#include "core/error.hpp"
#include "exec/cuda/device_link.hpp"
#include "exec/cuda/device_sf.hpp"
#include "exec/mpi/mpi_check.hpp"

namespace sfr::exec::cuda {

namespace {

class Aware final : public DeviceTransport {
public:
  void check(MPI_Comm, const core::RankLists&) const override {
    if (const std::string why = cuda_aware_refusal(); !why.empty()) throw InputError("--backend", "cuda-aware: " + why);
  }
  void start(const DeviceContext& c, DeviceLink& l, bool send_dev, bool recv_dev) override {
    const std::size_t nr = l.rpieces.size(), ns = l.spieces.size();
    if (send_dev) c.kernels.sync();  // the pack is done
    for (std::size_t k = 0; k < nr; ++k) {
      const auto& pc = l.rpieces[k];
      SFR_MPI(MPI_Irecv, (recv_dev ? l.drecv.data() : l.hrecv.data()) + pc.off, pc.bytes, MPI_BYTE, l.recv->peers[pc.peer], l.tag(kData), c.comm,
              &l.reqs[k]);
    }
    for (std::size_t k = 0; k < ns; ++k) {
      const auto& pc = l.spieces[k];
      SFR_MPI(MPI_Isend, (send_dev ? l.dsend.data() : l.hsend.data()) + pc.off, pc.bytes, MPI_BYTE, l.send->peers[pc.peer], l.tag(kData), c.comm,
              &l.reqs[nr + k]);
    }
  }
  void finish(const DeviceContext&, DeviceLink& l, bool) override {
    SFR_MPI(MPI_Waitall, static_cast<int>(l.npieces()), l.reqs.data(), MPI_STATUSES_IGNORE);
  }
};

}  // namespace

std::unique_ptr<DeviceTransport> make_cuda_aware() { return std::make_unique<Aware>(); }

}  // namespace sfr::exec::cuda
