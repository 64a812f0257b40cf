// PETSc's own PetscSF as an executor: the petsc* backends, the user's baseline beside sf-replay's
// own. The graph each SF runs is handed to PetscSFSetGraph of the type the backend names
// (core::BackendInfo::petsc_type), and every op goes through PETSc's begin / end calls.
//
// Built only where PETSc is found, as a module (libsfr_petsc.so) that the MPI executor loads the
// first time a petsc* backend is asked for (exec::mpi::set_petsc_module): libpetsc brings about a
// hundred shared libraries, which no other command should pay for at start. libpetsc is
// initialised at the first such SF and finalised as MPI_Finalize begins.
#pragma once

#include <memory>
#include <string>

#include <mpi.h>

#include "core/graph.hpp"
#include "core/op_spec.hpp"
#include "exec/mpi/runner.hpp"
#include "exec/sf.hpp"

namespace sfr::exec::petsc {

// A PetscSF of `type` ("basic", "neighbor", "window") on `comm` holding this rank's part of `g`.
std::unique_ptr<Sf> make_sf(MPI_Comm comm, const core::Graph& g, const std::string& type);

// Why PETSc 3.18 (Debian's: real double scalars, 32-bit PetscInt, no CUDA) cannot run this op on
// an SF of `type`; empty when it can.
std::string refuses(const core::OpSpec& op, const std::string& type);

}  // namespace sfr::exec::petsc

// The module's one entry point (dlsym): the two functions above.
extern "C" const sfr::exec::mpi::PetscExecutor* sfr_petsc_executor_v1();
