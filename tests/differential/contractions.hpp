// The operands of tests/differential/contractions*.cpp: formats, semirings and outputs in
// rotation for expressions with several contractions (one header, two units: together they took
// 58 s under g++ -O0).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_DIFFERENTIAL_CONTRACTIONS_HPP
#define LOOM_TESTS_DIFFERENTIAL_CONTRACTIONS_HPP

#include <loom/loom.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <array>
#include <cstdint>

#include <support/compare.hpp>

namespace loom_test_contractions {

namespace lt = loom::test;
namespace mp11 = boost::mp11;
using mp11::mp_list;

[[maybe_unused]] constexpr loom::index<"i"> i;
[[maybe_unused]] constexpr loom::index<"j"> j;
[[maybe_unused]] constexpr loom::index<"k"> k;
[[maybe_unused]] constexpr loom::index<"l"> l;

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

}  // namespace loom_test_contractions

#endif  // LOOM_TESTS_DIFFERENTIAL_CONTRACTIONS_HPP
