// Differential tests: expressions with several contractions, against the dense reference:
// y(i) = sum(j, A(i,j)) + sum(j, B(i,j)) (one index summed in two scopes), a sum of three
// products summed apart (each intersection reduced in its own loop; one may be empty where the
// others are not: a sparse output stores only touched rows), C(i,j) = A + B + D + A*D + B (five
// terms: a balanced tree of unions), y(i) = sum(j, (A+B+D)(i,j) * x(j)) + sum(j, x(j) * (B+D)(i,j))
// (a contracted product distributed over the sums: five products, each reduced in its own loop),
// y(i) = sum(j, A(i,j) * sum(k, B(j,k))) (a sum nested in a product),
// C(i,j) = sum(k, A(i,k) * B(k,j)) + D(i,j), the chain M(i,l) = sum(j, k, A(i,j) * B(j,k) *
// D(k,l)), and s = sum(i, x(i)) * sum(j, y(j)) (a product of two contracted factors); formats,
// semirings and outputs in rotation, `=` and `+=`. SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include <support/compare.hpp>

namespace {

namespace lt = loom::test;
namespace mp11 = boost::mp11;
using mp11::mp_list;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"l"> l;

using semirings = mp_list<double, loom::min_plus<double>>;
using matrices = mp_list<loom::csr, loom::csc, loom::dcsr, loom::coo, loom::dense_matrix>;
using b_matrices = mp11::mp_rotate_left_c<matrices, 2>;
using c_matrices = mp11::mp_rotate_left_c<matrices, 4>;
using vectors = mp_list<loom::dense_vector, loom::sparse_vector>;
using outputs = mp_list<loom::dcsr, loom::dense_matrix, loom::csr, loom::coo>;

// (A, B, T, y)
using row_combos = lt::as_tuple<lt::with_rotating<
    lt::with_rotating<lt::with_rotating<lt::singletons<matrices>, b_matrices>, semirings>,
    vectors>>;
// (A, B, D, T, C)
using triple_combos = lt::as_tuple<lt::with_rotating<
    lt::with_rotating<
        lt::with_rotating<lt::with_rotating<lt::singletons<matrices>, b_matrices>, c_matrices>,
        semirings>,
    outputs>>;
// (x, y, T)
using vector_combos = lt::as_tuple<mp11::mp_product<mp_list, vectors, vectors, semirings>>;

using shape1 = std::array<std::int64_t, 1>;
using shape2 = std::array<std::int64_t, 2>;

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: y(i) = sum(j, A(i,j)) + sum(j, B(i,j))", Combo, two_sums) {
  using T = mp11::mp_at_c<Combo, 2>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "y(i) = sum(j, A(i,j)) + sum(j, B(i,j))", {"y", "A", "B"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape1{e[0]}, shape2{e[0], e[1]}, shape2{e[0], e[1]}};
      },
      [](auto& y, const auto& A, const auto& B) {
        return std::pair{y(i), loom::sum(j, A(i, j)) + loom::sum(j, B(i, j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(two_sums, row_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: y(i) = sum(j, A*B) + sum(j, B*D) + sum(j, D*A)", Combo,
                          sum_of_products) {
  using T = mp11::mp_at_c<Combo, 3>;
  using A_t = mp11::mp_at_c<Combo, 0>;
  using B_t = mp11::mp_at_c<Combo, 1>;
  using D_t = mp11::mp_at_c<Combo, 2>;
  using y_t = std::conditional_t<std::is_same_v<mp11::mp_at_c<Combo, 4>, loom::dcsr>,
                                 loom::sparse_vector, loom::dense_vector>;
  lt::kernel_cases<T, y_t, A_t, B_t, D_t>(
      "y(i) = sum(j, A(i,j) * B(i,j)) + sum(j, B(i,j) * D(i,j)) + sum(j, D(i,j) * A(i,j))",
      {"y", "A", "B", "D"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape1{e[0]}, shape2{e[0], e[1]}, shape2{e[0], e[1]}, shape2{e[0], e[1]}};
      },
      [](auto& y, const auto& A, const auto& B, const auto& D) {
        return std::pair{y(i), loom::sum(j, A(i, j) * B(i, j)) + loom::sum(j, B(i, j) * D(i, j)) +
                                   loom::sum(j, D(i, j) * A(i, j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(sum_of_products, triple_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: y(i) = sum(j, (A+B+D)(i,j) * x(j)) + sum(j, x * (B+D))",
                          Combo, sum_times_vector) {
  using T = mp11::mp_at_c<Combo, 3>;
  using sparse_out = std::is_same<mp11::mp_at_c<Combo, 4>, loom::dcsr>;
  using y_t = std::conditional_t<sparse_out::value, loom::sparse_vector, loom::dense_vector>;
  using x_t = std::conditional_t<sparse_out::value, loom::dense_vector, loom::sparse_vector>;
  lt::kernel_cases<T, y_t, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>,
                   mp11::mp_at_c<Combo, 2>, x_t>(
      "y(i) = sum(j, (A(i,j) + B(i,j) + D(i,j)) * x(j)) + sum(j, x(j) * (B(i,j) + D(i,j)))",
      {"y", "A", "B", "D", "x"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape1{e[0]}, shape2{e[0], e[1]}, shape2{e[0], e[1]}, shape2{e[0], e[1]},
                          shape1{e[1]}};
      },
      [](auto& y, const auto& A, const auto& B, const auto& D, const auto& x) {
        return std::pair{y(i), loom::sum(j, (A(i, j) + B(i, j) + D(i, j)) * x(j)) +
                                   loom::sum(j, x(j) * (B(i, j) + D(i, j)))};
      });
}
TEST_CASE_TEMPLATE_APPLY(sum_times_vector, triple_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = A + B + D + A*D + B", Combo, five_terms) {
  using T = mp11::mp_at_c<Combo, 3>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 4>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>,
                   mp11::mp_at_c<Combo, 2>>(
      "C(i,j) = A(i,j) + B(i,j) + D(i,j) + A(i,j) * D(i,j) + B(i,j)", {"C", "A", "B", "D"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape2{e[0], e[1]}, shape2{e[0], e[1]}, shape2{e[0], e[1]},
                          shape2{e[0], e[1]}};
      },
      [](auto& C, const auto& A, const auto& B, const auto& D) {
        return std::pair{C(i, j), A(i, j) + B(i, j) + D(i, j) + A(i, j) * D(i, j) + B(i, j)};
      });
}
TEST_CASE_TEMPLATE_APPLY(five_terms, triple_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: y(i) = sum(j, A(i,j) * sum(k, B(j,k)))", Combo,
                          nested_sum) {
  using T = mp11::mp_at_c<Combo, 2>;
  // y has e0 entries, A is e0 x e1, B is e1 x e2
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "y(i) = sum(j, A(i,j) * sum(k, B(j,k)))", {"y", "A", "B"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape1{e[0]}, shape2{e[0], e[1]}, shape2{e[1], e[2]}};
      },
      [](auto& y, const auto& A, const auto& B) {
        return std::pair{y(i), loom::sum(j, A(i, j) * loom::sum(k, B(j, k)))};
      });
}
TEST_CASE_TEMPLATE_APPLY(nested_sum, row_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = sum(k, A(i,k) * B(k,j)) + D(i,j)", Combo,
                          product_plus) {
  using T = mp11::mp_at_c<Combo, 3>;
  // C, D are e0 x e1, A is e0 x e2, B is e2 x e1
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 4>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>,
                   mp11::mp_at_c<Combo, 2>>(
      "C(i,j) = sum(k, A(i,k) * B(k,j)) + D(i,j)", {"C", "A", "B", "D"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape2{e[0], e[1]}, shape2{e[0], e[2]}, shape2{e[2], e[1]},
                          shape2{e[0], e[1]}};
      },
      [](auto& C, const auto& A, const auto& B, const auto& D) {
        return std::pair{C(i, j), loom::sum(k, A(i, k) * B(k, j)) + D(i, j)};
      });
}
TEST_CASE_TEMPLATE_APPLY(product_plus, triple_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: M(i,l) = sum(j, k, A(i,j) * B(j,k) * D(k,l))", Combo,
                          chain) {
  using T = mp11::mp_at_c<Combo, 3>;
  // M is e0 x e3, A is e0 x e1, B is e1 x e2, D is e2 x e3
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 4>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>,
                   mp11::mp_at_c<Combo, 2>>(
      "M(i,l) = sum(j, k, A(i,j) * B(j,k) * D(k,l))", {"M", "A", "B", "D"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape2{e[0], e[3]}, shape2{e[0], e[1]}, shape2{e[1], e[2]},
                          shape2{e[2], e[3]}};
      },
      [](auto& M, const auto& A, const auto& B, const auto& D) {
        return std::pair{M(i, l), loom::sum(j, k, A(i, j) * B(j, k) * D(k, l))};
      },
      lt::case_options{.all_pairs = false});  // 6 density pairs: the reference is O(n^4) here
}
TEST_CASE_TEMPLATE_APPLY(chain, triple_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: s = eval(sum(i, x(i)) * sum(j, y(j)))", Combo,
                          product_of_sums) {
  using T = mp11::mp_at_c<Combo, 2>;
  // x has e0 entries, y has e1
  lt::scalar_cases<T, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "s = eval(sum(i, x(i)) * sum(j, y(j)))", {"x", "y"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape1{e[0]}, shape1{e[1]}};
      },
      [](const auto& x, const auto& y) { return loom::sum(i, x(i)) * loom::sum(j, y(j)); });
}
TEST_CASE_TEMPLATE_APPLY(product_of_sums, vector_combos);
