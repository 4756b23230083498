// Differential tests of the three workspaces of a sparse output written out of order (dense,
// hashed, sorted; format/assembly/workspace.hpp), each forced with loom::scoped_workspace and as the
// optimizer chooses it, against the dense reference: a transpose (one workspace for the whole
// output, two levels in its key), SpGEMM (a row per i), y(j) = sum(i, A(i,j) * x(i)) (a
// vector), and an outer product into csf whose rows hold two levels. `=` and `+=`. The hashed
// table starts at 16 slots when forced, so rows past 8 entries take the growth path; the larger
// transposes and outer products put 512 entries or more in a row, which are radix sorted.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include <support/compare.hpp>

namespace {

namespace lt = loom::test;
namespace mp11 = boost::mp11;
using mp11::mp_list;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

using mp = loom::min_plus<double>;
using shape1 = std::array<std::int64_t, 1>;
using shape2 = std::array<std::int64_t, 2>;
using shape3 = std::array<std::int64_t, 3>;

// Runs `cases` as the optimizer chooses and then with each kind forced.
template <class Cases> void for_each_workspace(Cases&& cases) {
  std::optional<loom::workspace_kind> forced;
  for (int round = 0; round <= 3; ++round) {
    if (round > 0) forced = loom::workspace_kinds[static_cast<std::size_t>(round - 1)];
    const std::string name = forced ? std::string(loom::workspace_kind_name(*forced)) : "chosen";
    INFO("workspace: ", name);
    std::optional<loom::scoped_workspace> guard;
    if (forced) guard.emplace(*forced);
    cases();
  }
}

// (T, C, A): C(i,j) = A(j,i), A concordant with (j,i) only through a workspace on C
using transpose_combos =
    std::tuple<mp_list<double, loom::csr, loom::csr>, mp_list<mp, loom::dcsr, loom::csr>,
               mp_list<double, loom::csf<2>, loom::dcsr>, mp_list<double, loom::csc, loom::csc>>;
// (T, C, A, B)
using spgemm_combos = std::tuple<mp_list<double, loom::csr, loom::csr, loom::csr>,
                                 mp_list<mp, loom::dcsr, loom::dcsr, loom::csr>>;
// (T, C, A, B): C(j,i) = sum(k, A(i,k) * B(k,j)) in the order i, k, j; C's rows arrive in any
// order and repeat over k (csr outputs: one workspace, filled by a counting sort on the row)
using spgemm_transposed_combos = std::tuple<mp_list<double, loom::csr, loom::csr, loom::csr>,
                                            mp_list<mp, loom::csr, loom::csr, loom::csr>>;
// (T, y, A, x)
using spmtv_combos = std::tuple<mp_list<double, loom::sparse_vector, loom::csr, loom::dense_vector>,
                                mp_list<mp, loom::sparse_vector, loom::dcsr, loom::sparse_vector>>;
// (T, X, A, B): X(i,j,k) = A(i,k) * B(k,j) in the order i, k, j
using outer_combos = std::tuple<mp_list<double, loom::csf<3>, loom::csr, loom::csr>,
                                mp_list<mp, loom::csf<3>, loom::dcsr, loom::csr>>;

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential workspaces: transpose C(i,j) = A(j,i)", Combo,
                          workspace_transpose) {
  using T = mp11::mp_at_c<Combo, 0>;
  const auto cases = [](lt::case_options opt) {
    lt::kernel_cases<T, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>>(
        "C(i,j) = A(j,i)", {"C", "A"},
        [](const std::array<std::int64_t, 4>& e) {
          return std::tuple{shape2{e[0], e[1]}, shape2{e[1], e[0]}};
        },
        [](auto& C, const auto& A) {
          return std::pair{C(i, j), A(j, i)};
        },
        opt);
  };
  for_each_workspace([&] {
    cases({});
    // up to 3000 entries in the one row, keys of two radix digits
    cases({.all_pairs = false, .extents = {{60, 50, 1, 1}}});
  });
}
TEST_CASE_TEMPLATE_APPLY(workspace_transpose, transpose_combos);

TEST_CASE_TEMPLATE_DEFINE("differential workspaces: SpGEMM C(i,j) = sum(k, A(i,k) * B(k,j))", Combo,
                          workspace_spgemm) {
  using T = mp11::mp_at_c<Combo, 0>;
  for_each_workspace([] {
    lt::kernel_cases<T, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 3>>(
        "C(i,j) = sum(k, A(i,k) * B(k,j))", {"C", "A", "B"},
        [](const std::array<std::int64_t, 4>& e) {
          return std::tuple{shape2{e[0], e[2]}, shape2{e[0], e[1]}, shape2{e[1], e[2]}};
        },
        [](auto& C, const auto& A, const auto& B) {
          return std::pair{C(i, j), loom::sum(k, A(i, k) * B(k, j))};
        });
  });
}
TEST_CASE_TEMPLATE_APPLY(workspace_spgemm, spgemm_combos);

TEST_CASE_TEMPLATE_DEFINE(
    "differential workspaces: SpGEMM transposed C(j,i) = sum(k, A(i,k) * B(k,j))", Combo,
    workspace_spgemm_transposed) {
  using T = mp11::mp_at_c<Combo, 0>;
  for_each_workspace([] {
    lt::kernel_cases<T, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 3>>(
        "C(j,i) = sum(k, A(i,k) * B(k,j))", {"C", "A", "B"},
        [](const std::array<std::int64_t, 4>& e) {
          return std::tuple{shape2{e[2], e[0]}, shape2{e[0], e[1]}, shape2{e[1], e[2]}};
        },
        [](auto& C, const auto& A, const auto& B) {
          return std::pair{C(j, i), loom::sum(k, A(i, k) * B(k, j))};
        });
  });
}
TEST_CASE_TEMPLATE_APPLY(workspace_spgemm_transposed, spgemm_transposed_combos);

TEST_CASE_TEMPLATE_DEFINE("differential workspaces: y(j) = sum(i, A(i,j) * x(i))", Combo,
                          workspace_spmtv) {
  using T = mp11::mp_at_c<Combo, 0>;
  for_each_workspace([] {
    lt::kernel_cases<T, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 3>>(
        "y(j) = sum(i, A(i,j) * x(i))", {"y", "A", "x"},
        [](const std::array<std::int64_t, 4>& e) {
          return std::tuple{shape1{e[1]}, shape2{e[0], e[1]}, shape1{e[0]}};
        },
        [](auto& y, const auto& A, const auto& x) {
          return std::pair{y(j), loom::sum(i, A(i, j) * x(i))};
        });
  });
}
TEST_CASE_TEMPLATE_APPLY(workspace_spmtv, spmtv_combos);

TEST_CASE_TEMPLATE_DEFINE("differential workspaces: X(i,j,k) = A(i,k) * B(k,j)", Combo,
                          workspace_outer) {
  using T = mp11::mp_at_c<Combo, 0>;
  const auto cases = [](lt::case_options opt) {
    lt::kernel_cases<T, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 3>>(
        "X(i,j,k) = A(i,k) * B(k,j)", {"X", "A", "B"},
        [](const std::array<std::int64_t, 4>& e) {
          return std::tuple{shape3{e[0], e[2], e[1]}, shape2{e[0], e[1]}, shape2{e[1], e[2]}};
        },
        [](auto& X, const auto& A, const auto& B) {
          return std::pair{X(i, j, k), A(i, k) * B(k, j)};
        },
        opt);
  };
  for_each_workspace([&] {
    cases({});
    // rows of up to 60 x 40 entries: two-level keys of two radix digits
    cases({.all_pairs = false, .extents = {{6, 40, 60, 1}}});
  });
}
TEST_CASE_TEMPLATE_APPLY(workspace_outer, outer_combos);
