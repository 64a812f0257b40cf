// Timing shared by the MPI benchmarks.
#pragma once

#include <mpi.h>

// Mean seconds per call of `f` over `iters` calls, all ranks starting together (a barrier); the
// slowest rank's mean. Collective over MPI_COMM_WORLD.
template <class F>
double slowest_mean_seconds(int iters, F&& f) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) f();
  double dt = (MPI_Wtime() - t0) / iters, mx = 0;
  MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return mx;
}
