// MPI datatypes and reduction operations as sf-trace names (the capture library's only MPI logic).
#pragma once

#include <mpi.h>

#include <string>

namespace sfr::capture {

struct DecodedUnit {
  std::string unit;   // sf-trace unit, "" when the trace cannot express the datatype
  int bs = 1;         // contiguous copies of the unit that make one vertex value
  std::string what;   // the datatype's description, for the reason when unit is ""
};

// Named types, and contiguous / duplicated types over them (PETSc's block sizes).
DecodedUnit decode_unit(MPI_Datatype t);
// "" for an operation the trace cannot express (a user-defined MPI_Op).
std::string decode_op(MPI_Op op);

}  // namespace sfr::capture
