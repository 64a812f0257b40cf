// The part of PETSc 3.18's binary interface the capture library uses, declared here so that the
// library builds without PETSc's headers (PETSc is test-only in this project): opaque object
// pointers, the 32-bit PetscInt of Debian's real build, and the few enum values it passes.
// The library refuses any other PETSc at run time (capture.cpp: version 3.18, sizeof(PetscInt) 4);
// tests/capture/test_petsc_abi.cpp compiles these declarations against PETSc's own headers.
#pragma once

#include <mpi.h>

#include <cstddef>

extern "C" {
typedef int PetscErrorCode;
typedef int PetscInt;
typedef struct _p_PetscSF* PetscSF;
typedef struct _p_PetscObject* PetscObject;
typedef struct _p_PetscViewer* PetscViewer;
typedef struct _p_PetscLayout* PetscLayout;
typedef struct _p_Vec* Vec;
typedef struct _p_DM* DM;
typedef struct _p_Mat* Mat;
typedef const char* DMType;
typedef int DMBoundaryType;   // enum: DM_BOUNDARY_NONE, GHOSTED, MIRROR, PERIODIC, TWIST
typedef int DMDAStencilType;  // enum: DMDA_STENCIL_STAR, DMDA_STENCIL_BOX
typedef const char* PetscSFType;
typedef struct {
  PetscInt rank;
  PetscInt index;
} PetscSFNode;
typedef int PetscMemType;  // enum: PETSC_MEMTYPE_HOST = 0, device kinds have bit 0 set
typedef int PetscCopyMode;
typedef int PetscSFPattern;
typedef int InsertMode;
typedef int ScatterMode;
typedef int PetscViewerFormat;
typedef int PetscDataType;
}

namespace sfr::capture::abi {
inline constexpr int kVersionMajor = 3;
inline constexpr int kVersionMinor = 18;
inline constexpr PetscViewerFormat kViewerAsciiInfoDetail = 5;  // PETSC_VIEWER_ASCII_INFO_DETAIL
inline constexpr PetscDataType kPetscInt = 16;                 // PETSC_INT
inline constexpr int kPatternAllgather = 1, kPatternGather = 2, kPatternAlltoall = 3;  // PetscSFPattern
inline bool is_device(PetscMemType m) { return (m & 1) != 0; }  // PETSC_MEMTYPE_DEVICE and its kinds
inline const char* boundary_name(DMBoundaryType b) {
  static const char* names[] = {"none", "ghosted", "mirror", "periodic", "twist"};
  return b >= 0 && b < 5 ? names[b] : "unknown";
}
inline const char* stencil_name(DMDAStencilType s) { return s == 0 ? "star" : s == 1 ? "box" : "unknown"; }
}  // namespace sfr::capture::abi
