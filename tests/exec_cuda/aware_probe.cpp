// Whether the MPI library takes device pointers, asked of the MPI itself (not of sf-replay's
// cuda-aware transport, which the tests then hold to the answer): on 2 ranks, rank 0 sends 1,024
// doubles from device memory, rank 1 receives them into device memory, and checks them on the
// host. Exit 0: they arrived (the MPI is CUDA-aware); 3: they did not; a crash (an MPI that reads a
// device pointer as host memory) is not 0 either. 2: no device here, or not 2 ranks.
#include <mpi.h>

#include <cstdio>
#include <vector>

#include "exec/cuda/runtime.hpp"

namespace cuda = sfr::exec::cuda;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2 || !cuda::no_gpu_reason().empty()) {
    if (rank == 0) std::fprintf(stderr, "aware_probe: needs 2 ranks and a device\n");
    MPI_Finalize();
    return 2;
  }
  cuda::select_device(rank);
  constexpr int n = 1024;
  std::vector<double> host(n);
  for (int i = 0; i < n; ++i) host[static_cast<std::size_t>(i)] = rank == 0 ? 1.5 * i : -1;
  cuda::DeviceMemory dev(n * sizeof(double));
  cuda::copy(dev.data(), host.data(), n * sizeof(double));
  int ok = 1;
  if (rank == 0) {
    MPI_Send(dev.data(), n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(dev.data(), n, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    cuda::copy(host.data(), dev.data(), n * sizeof(double));
    for (int i = 0; i < n; ++i) ok = ok && host[static_cast<std::size_t>(i)] == 1.5 * i;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 1, MPI_COMM_WORLD);
  if (rank == 0) std::printf("%s\n", ok ? "aware" : "not aware");
  MPI_Finalize();
  return ok ? 0 : 3;
}
