// Mesh-migration SF of an N^3 periodic hexahedral mesh (the mesh-distribution experiment of the
// PetscSF paper): points move from a naive distribution to a partitioned one.
#pragma once

#include <array>
#include <string>

#include "common.hpp"

namespace sfr::gen {

enum class MeshOrder { sequential, chunks, random };
MeshOrder parse_mesh_order(const std::string& s);
const char* mesh_order_name(MeshOrder o);

struct HexmeshOptions {
  Index cells = 4;  // N: N^3 cells
  int nranks = 2;
  MeshOrder order = MeshOrder::chunks;
  std::uint64_t seed = 1;
  Placement place;
};

// Global points (N^3 each of cells and vertices, 3N^3 each of faces and edges; periodic):
// cell c=(i,j,k) -> i + N(j + Nk); face (d, c) = the face normal to axis d on the low side of c;
// edge (d, v) = the edge along axis d starting at vertex v; vertex v=(i,j,k). The "anchor" cell of
// face (d,c) is c, of edge (d,v) and vertex v the cell with v's coordinates: every cell anchors
// exactly 8 points (itself, 3 faces, 3 edges, 1 vertex).
// Roots (naive distribution): cells, each with its 8 anchored points, on ranks in the given order
// (sequential: all on rank 0; chunks: lexicographic cells split PetscSplitOwnership-style; random:
// a seeded random permutation of the cells, then split); a rank stores its cells, then their faces
// (3 per cell, axis order), edges (3 per cell), vertices, each in the rank's cell order.
// Leaves (partitioned distribution): the cells of a box of a Px x Py x Pz grid of ranks (the most
// cubic factorization of P, Px >= Py >= Pz, boxes split PetscSplitOwnership-style, rank = px +
// Px(py + Py pz)) and the closure of those cells (faces, edges, vertices, shared ones on every rank
// that needs them), ordered cells, faces, edges, vertices, each by ascending global number.
core::Graph hexmesh_graph(const HexmeshOptions& o);
// SF "migration" with ops bcast/replace of one float64 per point.
trace::Trace hexmesh_trace(const HexmeshOptions& o);

// The most cubic factorization of p into 3 factors, largest first.
std::array<int, 3> cubic_factors(int p);

}  // namespace sfr::gen
