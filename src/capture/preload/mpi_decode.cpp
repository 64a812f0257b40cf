#include "capture/preload/mpi_decode.hpp"

#include <utility>
#include <vector>

namespace sfr::capture {

namespace {
std::string type_name(MPI_Datatype t) {
  char name[MPI_MAX_OBJECT_NAME] = {0};
  int len = 0;
  MPI_Type_get_name(t, name, &len);
  return len > 0 ? std::string(name, static_cast<std::size_t>(len)) : std::string("an unnamed derived datatype");
}

const char* named_unit(MPI_Datatype t) {
  const std::pair<MPI_Datatype, const char*> table[] = {
      {MPI_INT, "int32"},        {MPI_INT32_T, "int32"},           {MPI_LONG, "int64"},
      {MPI_LONG_LONG, "int64"},  {MPI_INT64_T, "int64"},           {MPI_FLOAT, "float32"},
      {MPI_DOUBLE, "float64"},   {MPI_C_DOUBLE_COMPLEX, "complex128"}, {MPI_DOUBLE_COMPLEX, "complex128"},
      {MPI_CXX_DOUBLE_COMPLEX, "complex128"}, {MPI_2INT, "int32_pair"}};
  for (const auto& [h, n] : table)
    if (t == h) return n;
  return nullptr;
}
}  // namespace

DecodedUnit decode_unit(MPI_Datatype t) {
  DecodedUnit d;
  bool owned = false;  // t came from MPI_Type_get_contents and is a derived type: ours to free
  for (int depth = 0; depth < 16; ++depth) {
    int ni = 0, na = 0, nd = 0, combiner = 0;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
    if (combiner == MPI_COMBINER_NAMED) {
      if (const char* u = named_unit(t)) {
        d.unit = u;
      } else {
        d.bs = 1;
        d.what = type_name(t);
      }
      return d;
    }
    if ((combiner != MPI_COMBINER_CONTIGUOUS && combiner != MPI_COMBINER_DUP) || nd != 1) break;
    std::vector<int> ints(static_cast<std::size_t>(ni) + 1);
    std::vector<MPI_Aint> addrs(static_cast<std::size_t>(na) + 1);
    MPI_Datatype inner;
    MPI_Type_get_contents(t, ni, na, nd, ints.data(), addrs.data(), &inner);
    if (combiner == MPI_COMBINER_CONTIGUOUS) d.bs *= ints[0];
    if (owned) MPI_Type_free(&t);
    t = inner;
    int ni2 = 0, na2 = 0, nd2 = 0, c2 = 0;
    MPI_Type_get_envelope(t, &ni2, &na2, &nd2, &c2);
    owned = c2 != MPI_COMBINER_NAMED;
  }
  d.bs = 1;
  d.what = type_name(t);
  if (owned) MPI_Type_free(&t);
  return d;
}

std::string decode_op(MPI_Op op) {
  const std::pair<MPI_Op, const char*> table[] = {
      {MPI_REPLACE, "replace"}, {MPI_SUM, "sum"}, {MPI_PROD, "prod"}, {MPI_MAX, "max"},     {MPI_MIN, "min"},
      {MPI_LAND, "land"},       {MPI_LOR, "lor"}, {MPI_LXOR, "lxor"}, {MPI_BAND, "band"},   {MPI_BOR, "bor"},
      {MPI_BXOR, "bxor"},       {MPI_MAXLOC, "maxloc"}, {MPI_MINLOC, "minloc"}};
  for (const auto& [h, n] : table)
    if (op == h) return n;
  return "";
}

}  // namespace sfr::capture
