/* Benchmark program for the capture's per-op cost: one PetscSF (a ring, one leaf per rank), N
   bcasts of one double (-n N, default 100000), timed by the program itself; prints
   "sf-loop: N ops, T s, U us/op". Run plain and under sf-replay capture by bench_capture.sh. */
#include <petscsf.h>

int main(int argc, char **argv)
{
  PetscSF     sf;
  PetscSFNode remote;
  PetscMPIInt rank, size;
  PetscInt    n = 100000, i;
  double      root = 1.0, leaf = 0.0, t0, t1;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  remote.rank  = (rank + 1) % size;
  remote.index = 0;
  PetscCall(PetscSFCreate(PETSC_COMM_WORLD, &sf));
  PetscCall(PetscSFSetGraph(sf, 1, 1, NULL, PETSC_COPY_VALUES, &remote, PETSC_COPY_VALUES));
  PetscCall(PetscSFSetUp(sf));
  PetscCall(PetscSFBcastBegin(sf, MPI_DOUBLE, &root, &leaf, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, MPI_DOUBLE, &root, &leaf, MPI_REPLACE));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  t0 = MPI_Wtime();
  for (i = 0; i < n; i++) {
    PetscCall(PetscSFBcastBegin(sf, MPI_DOUBLE, &root, &leaf, MPI_REPLACE));
    PetscCall(PetscSFBcastEnd(sf, MPI_DOUBLE, &root, &leaf, MPI_REPLACE));
  }
  t1 = MPI_Wtime();
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "sf-loop: %" PetscInt_FMT " ops, %.6f s, %.4f us/op\n", n, t1 - t0, 1e6 * (t1 - t0) / (double)n));
  PetscCall(PetscSFDestroy(&sf));
  PetscCall(PetscFinalize());
  return 0;
}
