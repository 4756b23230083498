// Differential tests: broadcasts and sums over indices a term does not use, and maps inside
// contractions, against the dense reference; matrix and vector formats and outputs in rotation,
// `=` and `+=`: C(i,j) = A(i,j) * expand(j, x(i)), C(i,j) = expand(j, x(i)),
// y(i) = sum(j, A(i,j) + x(i)) (x(i) counts once per j), y(i) = sum(j, map(v + 1, A(i,j)) * x(j))
// (f(0) != 0 inside a contraction), and a map in (min,+).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <tuple>
#include <utility>

#include <support/compare.hpp>

namespace {

namespace lt = loom::test;
namespace mp11 = boost::mp11;
using mp11::mp_list;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

using mp = loom::min_plus<double>;
using semirings = mp_list<double, mp>;
using matrices = mp_list<loom::csr, loom::csc, loom::dcsr, loom::coo, loom::dense_matrix>;
using vectors = mp_list<loom::dense_vector, loom::sparse_vector>;
using outputs = mp_list<loom::dense_matrix, loom::csr, loom::dcsr, loom::coo>;
using vector_outputs = mp_list<loom::dense_vector, loom::sparse_vector>;

// (A, x, T, out)
template <class Ts, class Outs>
using matrix_vector_combos = lt::as_tuple<lt::with_rotating<
    lt::with_rotating<lt::with_rotating<lt::singletons<matrices>, vectors>, Ts>, Outs>>;
using row_scale_combos = matrix_vector_combos<semirings, outputs>;
using row_sum_combos = matrix_vector_combos<semirings, vector_outputs>;
using map_combos = matrix_vector_combos<mp_list<double>, vector_outputs>;
// (A, C)
using map_min_plus_combos = lt::as_tuple<lt::with_rotating<lt::singletons<matrices>, outputs>>;
// (x, T, C)
using vector_combos =
    lt::as_tuple<lt::with_rotating<mp11::mp_product<mp_list, vectors, semirings>, outputs>>;

using shape1 = std::array<std::int64_t, 1>;
using shape2 = std::array<std::int64_t, 2>;

struct plus_one {
  double operator()(double v) const { return v + 1; }
};
struct double_weight {  // (min,+): f(+inf) = +inf, known only at run time
  mp operator()(mp v) const { return mp(v.value * 2); }
};

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = A(i,j) * expand(j, x(i))", Combo, row_scale) {
  using T = mp11::mp_at_c<Combo, 2>;
  // C, A are e0 x e1; x has e0 entries
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "C(i,j) = A(i,j) * expand(j, x(i))", {"C", "A", "x"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape2{e[0], e[1]}, shape2{e[0], e[1]}, shape1{e[0]}};
      },
      [](auto& C, const auto& A, const auto& x) {
        return std::pair{C(i, j), A(i, j) * loom::expand(j, x(i))};
      });
}
TEST_CASE_TEMPLATE_APPLY(row_scale, row_scale_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = expand(j, x(i))", Combo, expand) {
  using T = mp11::mp_at_c<Combo, 1>;
  // C is e0 x e1; x has e0 entries
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 0>>(
      "C(i,j) = expand(j, x(i))", {"C", "x"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape2{e[0], e[1]}, shape1{e[0]}};
      },
      [](auto& C, const auto& x) {
        return std::pair{C(i, j), loom::expand(j, x(i))};
      });
}
TEST_CASE_TEMPLATE_APPLY(expand, vector_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: y(i) = sum(j, A(i,j) + x(i))", Combo, sum_unused_index) {
  using T = mp11::mp_at_c<Combo, 2>;
  // y, x have e0 entries; A is e0 x e1
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "y(i) = sum(j, A(i,j) + x(i))", {"y", "A", "x"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape1{e[0]}, shape2{e[0], e[1]}, shape1{e[0]}};
      },
      [](auto& y, const auto& A, const auto& x) {
        return std::pair{y(i), loom::sum(j, A(i, j) + x(i))};
      });
}
TEST_CASE_TEMPLATE_APPLY(sum_unused_index, row_sum_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: y(i) = sum(j, map(v + 1, A(i,j)) * x(j))", Combo,
                          map_in_contraction) {
  using T = mp11::mp_at_c<Combo, 2>;
  // y has e0 entries; A is e0 x e1; x has e1 entries
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "y(i) = sum(j, map([](double v) { return v + 1; }, A(i,j)) * x(j))", {"y", "A", "x"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape1{e[0]}, shape2{e[0], e[1]}, shape1{e[1]}};
      },
      [](auto& y, const auto& A, const auto& x) {
        return std::pair{y(i), loom::sum(j, loom::map(plus_one{}, A(i, j)) * x(j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(map_in_contraction, map_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: (min,+) C(i,j) = map(2v, A(i,j))", Combo, map_min_plus) {
  // C, A are e0 x e1
  lt::kernel_cases<mp, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 0>>(
      "C(i,j) = map([](min_plus<double> v) { return v.value * 2; }, A(i,j))", {"C", "A"},
      lt::same_matrix_shapes, [](auto& C, const auto& A) {
        return std::pair{C(i, j), loom::map(double_weight{}, A(i, j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(map_min_plus, map_min_plus_combos);
