// MPI datatypes and reduction operations for the trace's units and mpi_ops.
#pragma once

#include <mpi.h>

#include "core/ops.hpp"
#include "core/units.hpp"

namespace sfr::exec::mpi {

inline MPI_Datatype mpi_type(core::Unit u) {
  switch (u) {
    case core::Unit::int32: return MPI_INT32_T;
    case core::Unit::int64: return MPI_INT64_T;
    case core::Unit::float32: return MPI_FLOAT;
    case core::Unit::float64: return MPI_DOUBLE;
    case core::Unit::complex128: return MPI_C_DOUBLE_COMPLEX;
    case core::Unit::int32_pair: return MPI_2INT;
  }
  return MPI_DATATYPE_NULL;
}

inline MPI_Op mpi_op(core::MpiOp op) {
  switch (op) {
    case core::MpiOp::replace: return MPI_REPLACE;
    case core::MpiOp::sum: return MPI_SUM;
    case core::MpiOp::prod: return MPI_PROD;
    case core::MpiOp::max: return MPI_MAX;
    case core::MpiOp::min: return MPI_MIN;
    case core::MpiOp::land: return MPI_LAND;
    case core::MpiOp::lor: return MPI_LOR;
    case core::MpiOp::lxor: return MPI_LXOR;
    case core::MpiOp::band: return MPI_BAND;
    case core::MpiOp::bor: return MPI_BOR;
    case core::MpiOp::bxor: return MPI_BXOR;
    case core::MpiOp::maxloc: return MPI_MAXLOC;
    case core::MpiOp::minloc: return MPI_MINLOC;
  }
  return MPI_OP_NULL;
}

// A committed datatype owned for a scope.
class TypeGuard {
public:
  TypeGuard() = default;
  explicit TypeGuard(MPI_Datatype t) : t_(t) { MPI_Type_commit(&t_); }
  ~TypeGuard() {
    if (t_ != MPI_DATATYPE_NULL) MPI_Type_free(&t_);
  }
  TypeGuard(const TypeGuard&) = delete;
  TypeGuard& operator=(const TypeGuard&) = delete;
  MPI_Datatype get() const { return t_; }

private:
  MPI_Datatype t_ = MPI_DATATYPE_NULL;
};

// One vertex: bs consecutive units.
inline MPI_Datatype vertex_type(core::Unit u, int bs) {
  MPI_Datatype t;
  MPI_Type_contiguous(bs, mpi_type(u), &t);
  return t;
}

}  // namespace sfr::exec::mpi
