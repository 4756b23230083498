// Defines loom::degree_constraint, one DC(X, Y, d) bound of the chain-bound estimator
// (optimize/statistics/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_STATISTICS_DEGREE_CONSTRAINT_HPP
#define LOOM_OPTIMIZE_STATISTICS_DEGREE_CONSTRAINT_HPP

#include <string>
#include <vector>

namespace loom {

/// `DC(X, Y, d)`: for any fixed value of the indices `given` (X), at most `degree` (d) distinct
/// values of the indices `bound` (Y) occur among the non-fill entries (Galley).
/// For a matrix `A[i,j]`: `{{"i"}, {"j"}, max row degree}`, `{{}, {"i", "j"}, nnz}`.
struct degree_constraint {
  std::vector<std::string> given;
  std::vector<std::string> bound;
  double degree = 0;
  friend bool operator==(const degree_constraint&, const degree_constraint&) = default;
};

}  // namespace loom

#endif  // LOOM_OPTIMIZE_STATISTICS_DEGREE_CONSTRAINT_HPP
