// The kernel tests/exec/options.cpp and tests/support/options_other_tu.cpp both instantiate, each
// under other options: the same tensor types and index names, so that only the options tell the
// two translation units' templates apart (a macro would have given them one name and two bodies).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_SUPPORT_OPTIONS_OTHER_TU_HPP
#define LOOM_TESTS_SUPPORT_OPTIONS_OTHER_TU_HPP

#include <loom/loom.hpp>

#include <string>

namespace loom_test::options_odr {

inline constexpr loom::index<"odr_i"> i;
inline constexpr loom::index<"odr_j"> j;
using matrix = loom::tensor<double, loom::csr>;
using vector = loom::tensor<double, loom::sparse_vector>;
using result = loom::tensor<double, loom::dense_vector>;

/// Defined in tests/support/options_other_tu.cpp: `y(i) = sum(j, A(i, j) * x(j))` under
/// `opt::skip_candidates<4>` with candidate `forced`, and its explain().
void assign_in_other_tu(result& y, const matrix& A, const vector& x, std::size_t forced);
std::string explain_in_other_tu(result& y, const matrix& A, const vector& x);

}  // namespace loom_test::options_odr

#endif  // LOOM_TESTS_SUPPORT_OPTIONS_OTHER_TU_HPP
