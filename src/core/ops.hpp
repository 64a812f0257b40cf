// MPI reduction operations as element functors, usable on host and (later) device.
// legal<Op, T> mirrors what MPI allows: no bitwise or logical ops on floating point or complex, no
// max/min on complex, maxloc/minloc only on value-index pairs, pairs only with replace/maxloc/minloc.
#pragma once

#include <complex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/units.hpp"

#if defined(__CUDACC__)
#define SFR_HD __host__ __device__
#else
#define SFR_HD
#endif

namespace sfr::core {

enum class MpiOp { replace, sum, prod, max, min, land, lor, lxor, band, bor, bxor, maxloc, minloc };

inline constexpr MpiOp kAllOps[] = {MpiOp::replace, MpiOp::sum,  MpiOp::prod, MpiOp::max,  MpiOp::min,    MpiOp::land,  MpiOp::lor,
                                    MpiOp::lxor,    MpiOp::band, MpiOp::bor,  MpiOp::bxor, MpiOp::maxloc, MpiOp::minloc};

bool parse_mpi_op(std::string_view s, MpiOp& out);
const char* mpi_op_name(MpiOp op);
// Whether MPI defines `op` on `unit`.
bool op_legal(Unit unit, MpiOp op);

template <class T>
inline constexpr bool is_complex_v = false;
template <class T>
inline constexpr bool is_complex_v<std::complex<T>> = true;
template <class T>
inline constexpr bool is_pair_v = std::is_same_v<T, Int32Pair>;
template <class T>
inline constexpr bool is_integer_v = std::is_integral_v<T>;
template <class T>
inline constexpr bool is_arith_v = std::is_arithmetic_v<T> || is_complex_v<T>;

// Integer sum/product wrap around (two's complement) instead of overflowing, as MPI
// implementations do in practice: products of many leaves overflow quickly.
template <class T>
SFR_HD T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
  else
    return a + b;
}
template <class T>
SFR_HD T wrapping_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) * static_cast<std::make_unsigned_t<T>>(b));
  else
    return a * b;
}

// Each functor: static legal<T>, and apply(dst, src) doing dst = dst OP src.
struct OpReplace {
  template <class T>
  static constexpr bool legal = true;
  template <class T>
  SFR_HD static void apply(T& d, const T& s) {
    d = s;
  }
};
struct OpSum {
  template <class T>
  static constexpr bool legal = is_arith_v<T>;
  template <class T>
  SFR_HD static void apply(T& d, const T& s) {
    d = wrapping_add(d, s);
  }
};
struct OpProd {
  template <class T>
  static constexpr bool legal = is_arith_v<T>;
  template <class T>
  SFR_HD static void apply(T& d, const T& s) {
    d = wrapping_mul(d, s);
  }
};
struct OpMax {
  template <class T>
  static constexpr bool legal = std::is_arithmetic_v<T>;
  template <class T>
  SFR_HD static void apply(T& d, const T& s) {
    d = s > d ? s : d;
  }
};
struct OpMin {
  template <class T>
  static constexpr bool legal = std::is_arithmetic_v<T>;
  template <class T>
  SFR_HD static void apply(T& d, const T& s) {
    d = s < d ? s : d;
  }
};
struct OpLand {
  template <class T>
  static constexpr bool legal = is_integer_v<T>;
  template <class T>
  SFR_HD static void apply(T& d, const T& s) {
    d = static_cast<T>((d != 0) && (s != 0));
  }
};
struct OpLor {
  template <class T>
  static constexpr bool legal = is_integer_v<T>;
  template <class T>
  SFR_HD static void apply(T& d, const T& s) {
    d = static_cast<T>((d != 0) || (s != 0));
  }
};
struct OpLxor {
  template <class T>
  static constexpr bool legal = is_integer_v<T>;
  template <class T>
  SFR_HD static void apply(T& d, const T& s) {
    d = static_cast<T>((d != 0) != (s != 0));
  }
};
struct OpBand {
  template <class T>
  static constexpr bool legal = is_integer_v<T>;
  template <class T>
  SFR_HD static void apply(T& d, const T& s) {
    d = d & s;
  }
};
struct OpBor {
  template <class T>
  static constexpr bool legal = is_integer_v<T>;
  template <class T>
  SFR_HD static void apply(T& d, const T& s) {
    d = d | s;
  }
};
struct OpBxor {
  template <class T>
  static constexpr bool legal = is_integer_v<T>;
  template <class T>
  SFR_HD static void apply(T& d, const T& s) {
    d = d ^ s;
  }
};
// MPI_MAXLOC/MINLOC: the larger (smaller) value wins; on equal values the smaller index.
struct OpMaxloc {
  template <class T>
  static constexpr bool legal = is_pair_v<T>;
  template <class T>
  SFR_HD static void apply(T& d, const T& s) {
    if (s.value > d.value || (s.value == d.value && s.index < d.index)) d = s;
  }
};
struct OpMinloc {
  template <class T>
  static constexpr bool legal = is_pair_v<T>;
  template <class T>
  SFR_HD static void apply(T& d, const T& s) {
    if (s.value < d.value || (s.value == d.value && s.index < d.index)) d = s;
  }
};

// Calls f.template operator()<OpFunctor>().
template <class F>
decltype(auto) visit_op(MpiOp op, F&& f) {
  switch (op) {
    case MpiOp::replace: return f.template operator()<OpReplace>();
    case MpiOp::sum: return f.template operator()<OpSum>();
    case MpiOp::prod: return f.template operator()<OpProd>();
    case MpiOp::max: return f.template operator()<OpMax>();
    case MpiOp::min: return f.template operator()<OpMin>();
    case MpiOp::land: return f.template operator()<OpLand>();
    case MpiOp::lor: return f.template operator()<OpLor>();
    case MpiOp::lxor: return f.template operator()<OpLxor>();
    case MpiOp::band: return f.template operator()<OpBand>();
    case MpiOp::bor: return f.template operator()<OpBor>();
    case MpiOp::bxor: return f.template operator()<OpBxor>();
    case MpiOp::maxloc: return f.template operator()<OpMaxloc>();
    case MpiOp::minloc: break;
  }
  return f.template operator()<OpMinloc>();
}

// Calls f.template operator()<T, O>() with the unit's C++ type (complex128 as `Complex`) and the
// op's functor; throws std::invalid_argument when MPI does not define the op on the unit.
template <class Complex = std::complex<double>, class F>
void visit_unit_op(Unit unit, MpiOp op, F&& f) {
  visit_unit<Complex>(unit, [&]<class T>() {
    visit_op(op, [&]<class O>() {
      if constexpr (O::template legal<T>)
        f.template operator()<T, O>();
      else
        throw std::invalid_argument(std::string("mpi_op ") + mpi_op_name(op) + " is not defined on " + unit_name(unit));
    });
  });
}

}  // namespace sfr::core
