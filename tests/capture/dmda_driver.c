/* A DMDA in the shapes PETSc's examples leave out, for scale's comparison with direct captures
   (tests/capture/test_scale_petsc.cpp): stencil width above 1, periodic boundaries with a matrix,
   star stencils with several dof. It does what the examples do with a DMDA: a ghost update
   (DMGlobalToLocal) and a MatMult of the matrix DMCreateMatrix makes from it.
   Options: -dim 2|3, -dof D, -width S, -box (else star), -periodic (every dimension), and
   PETSc's -da_grid_x/y/z. */
#include <petscdmda.h>

int main(int argc, char **argv)
{
  DM             da;
  Vec            g, l, y;
  Mat            A;
  PetscInt       dim = 2, dof = 1, width = 1;
  PetscBool      box = PETSC_FALSE, periodic = PETSC_FALSE;
  DMBoundaryType b;
  DMDAStencilType st;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dof", &dof, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-width", &width, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-box", &box, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-periodic", &periodic, NULL));
  b  = periodic ? DM_BOUNDARY_PERIODIC : DM_BOUNDARY_NONE;
  st = box ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR;
  if (dim == 2) PetscCall(DMDACreate2d(PETSC_COMM_WORLD, b, b, st, 8, 8, PETSC_DECIDE, PETSC_DECIDE, dof, width, NULL, NULL, &da));
  else PetscCall(DMDACreate3d(PETSC_COMM_WORLD, b, b, b, st, 6, 6, 6, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, dof, width, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateGlobalVector(da, &g));
  PetscCall(DMCreateLocalVector(da, &l));
  PetscCall(VecDuplicate(g, &y));
  PetscCall(VecSet(g, 1.0));
  PetscCall(DMGlobalToLocalBegin(da, g, INSERT_VALUES, l));
  PetscCall(DMGlobalToLocalEnd(da, g, INSERT_VALUES, l));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(MatMult(A, g, y));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&l));
  PetscCall(VecDestroy(&g));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}
