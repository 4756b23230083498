// The format lists and combinations shared by the element-wise differential TUs (literals, maps,
// maps_binary, pointwise_arith, predicates, where): every A format once, B's rotated so that it
// differs from A's, value types and outputs in rotation, and their shapes.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_DIFFERENTIAL_ELEMENTWISE_FORMATS_HPP
#define LOOM_TESTS_DIFFERENTIAL_ELEMENTWISE_FORMATS_HPP

#include <loom/loom.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <array>
#include <cstdint>
#include <tuple>

#include <support/compare.hpp>

namespace loom_test::elementwise {

using matrices =
    boost::mp11::mp_list<loom::csr, loom::csc, loom::dcsr, loom::coo, loom::dense_matrix>;
using b_matrices =
    boost::mp11::mp_rotate_left_c<matrices, 2>;  // so that B's format differs from A's
using outputs = boost::mp11::mp_list<loom::dense_matrix, loom::csr, loom::dcsr, loom::coo>;
using vector_outputs = boost::mp11::mp_list<loom::dense_vector, loom::sparse_vector>;

// (A, T, C): every A format once, value type and output in rotation
template <class Ts>
using unary_combos = loom::test::as_tuple<loom::test::with_rotating<
    loom::test::with_rotating<loom::test::singletons<matrices>, Ts>, outputs>>;
// (A, B, T, C)
template <class Ts>
using binary_combos = loom::test::as_tuple<loom::test::with_rotating<
    loom::test::with_rotating<
        loom::test::with_rotating<loom::test::singletons<matrices>, b_matrices>, Ts>,
    outputs>>;
// (A, T, y)
template <class Ts>
using row_combos = loom::test::as_tuple<loom::test::with_rotating<
    loom::test::with_rotating<loom::test::singletons<matrices>, Ts>, vector_outputs>>;

using shape1 = std::array<std::int64_t, 1>;
using shape2 = std::array<std::int64_t, 2>;

// y has e0 entries, A is e0 x e1
inline auto row_shapes(const std::array<std::int64_t, 4>& e) {
  return std::tuple{shape1{e[0]}, shape2{e[0], e[1]}};
}

}  // namespace loom_test::elementwise

#endif  // LOOM_TESTS_DIFFERENTIAL_ELEMENTWISE_FORMATS_HPP
