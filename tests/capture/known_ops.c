/* A PETSc program whose star-forest ops are known: the oracle of the capture's decoding of
   units, block sizes, MPI ops and memory types (tests/capture/test_capture_petsc.cpp). On 2 ranks,
   one SF (each rank 4 roots; leaves on every root of the other rank and two of its own); every
   op below runs once, and rank 0 prints a line for it as the trace must record it:
     op <kind> <unit> <bs> <mpi_op>        (mpi_op "-" for the ops that take none)
   Units: PETSc's own (MPIU_REAL, MPIU_INT, MPIU_2INT), MPI's named types, a contiguous block and
   a duplicated type over them. Debian's PETSc has no device memory: every op is on the host. */
#include <petscsf.h>

static PetscMPIInt rank;

static void say(const char* kind, const char* unit, int bs, const char* op) {
  if (rank == 0) printf("op %s %s %d %s\n", kind, unit, bs, op);
}

#define CHECK(call)                                                                     \
  do {                                                                                  \
    PetscErrorCode ierr_ = (call);                                                      \
    if (ierr_) {                                                                        \
      fprintf(stderr, "known_ops: %s failed (%d)\n", #call, (int)ierr_);                \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                     \
    }                                                                                   \
  } while (0)

static void bcast(PetscSF sf, MPI_Datatype t, MPI_Op op, void* root, void* leaf, const char* unit, int bs, const char* name) {
  CHECK(PetscSFBcastBegin(sf, t, root, leaf, op));
  CHECK(PetscSFBcastEnd(sf, t, root, leaf, op));
  say("bcast", unit, bs, name);
}

static void reduce(PetscSF sf, MPI_Datatype t, MPI_Op op, void* leaf, void* root, const char* unit, int bs, const char* name) {
  CHECK(PetscSFReduceBegin(sf, t, leaf, root, op));
  CHECK(PetscSFReduceEnd(sf, t, leaf, root, op));
  say("reduce", unit, bs, name);
}

int main(int argc, char** argv) {
  PetscSF sf;
  PetscSFNode remote[6];
  PetscInt i, nleaves = 6;
  PetscMPIInt size;
  const PetscInt* degree;
  /* Room for every op: 8 leaves x 3 values of up to 16 bytes. */
  double rd[64], ld[64], ud[64], md[64];
  int ri[64], li[64], ui[64], mi[64];
  int64_t r64[64], l64[64];
  MPI_Datatype block3, block2, dup;

  CHECK(PetscInitialize(&argc, &argv, NULL, NULL));
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size != 2) {
    fprintf(stderr, "known_ops: needs 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (i = 0; i < 4; ++i) remote[i].rank = 1 - rank, remote[i].index = i;
  remote[4].rank = rank, remote[4].index = 0;
  remote[5].rank = rank, remote[5].index = 3;
  CHECK(PetscSFCreate(PETSC_COMM_WORLD, &sf));
  CHECK(PetscSFSetGraph(sf, 4, nleaves, NULL, PETSC_COPY_VALUES, remote, PETSC_COPY_VALUES));
  CHECK(PetscSFSetUp(sf));
  for (i = 0; i < 64; ++i) rd[i] = ld[i] = ud[i] = md[i] = 1 + i, ri[i] = li[i] = ui[i] = mi[i] = 1 + (int)i, r64[i] = l64[i] = i;

  MPI_Type_contiguous(3, MPI_DOUBLE, &block3);
  MPI_Type_commit(&block3);
  MPI_Type_contiguous(2, MPI_INT, &block2);
  MPI_Type_commit(&block2);
  MPI_Type_dup(MPIU_REAL, &dup);
  MPI_Type_commit(&dup);

  bcast(sf, MPIU_REAL, MPI_REPLACE, rd, ld, "float64", 1, "replace");
  bcast(sf, block3, MPI_REPLACE, rd, ld, "float64", 3, "replace");
  bcast(sf, MPIU_INT, MPI_SUM, ri, li, "int32", 1, "sum");
  bcast(sf, dup, MPI_MAX, rd, ld, "float64", 1, "max");
  reduce(sf, MPIU_REAL, MPI_SUM, ld, rd, "float64", 1, "sum");
  reduce(sf, MPI_INT, MPI_MAX, li, ri, "int32", 1, "max");
  reduce(sf, MPI_INT64_T, MPI_MIN, l64, r64, "int64", 1, "min");
  reduce(sf, block2, MPI_PROD, li, ri, "int32", 2, "prod");
  reduce(sf, MPIU_INT, MPI_LAND, li, ri, "int32", 1, "land");
  reduce(sf, MPIU_INT, MPI_BXOR, li, ri, "int32", 1, "bxor");
  reduce(sf, MPIU_2INT, MPI_MAXLOC, li, ri, "int32_pair", 1, "maxloc");
  reduce(sf, block3, MPI_REPLACE, ld, rd, "float64", 3, "replace");

  CHECK(PetscSFFetchAndOpBegin(sf, MPIU_INT, ri, li, ui, MPI_SUM));
  CHECK(PetscSFFetchAndOpEnd(sf, MPIU_INT, ri, li, ui, MPI_SUM));
  say("fetch_and_op", "int32", 1, "sum");

  /* The degree first: gather and scatter use the multi-SF it builds (their inner ops are PETSc's). */
  CHECK(PetscSFComputeDegreeBegin(sf, &degree));
  CHECK(PetscSFComputeDegreeEnd(sf, &degree));
  say("degree", "int64", 1, "-");
  CHECK(PetscSFGatherBegin(sf, MPIU_REAL, ld, md));
  CHECK(PetscSFGatherEnd(sf, MPIU_REAL, ld, md));
  say("gather", "float64", 1, "-");
  CHECK(PetscSFScatterBegin(sf, MPIU_INT, mi, li));
  CHECK(PetscSFScatterEnd(sf, MPIU_INT, mi, li));
  say("scatter", "int32", 1, "-");

  MPI_Type_free(&block3);
  MPI_Type_free(&block2);
  MPI_Type_free(&dup);
  CHECK(PetscSFDestroy(&sf));
  CHECK(PetscFinalize());
  (void)ud;
  return 0;
}
