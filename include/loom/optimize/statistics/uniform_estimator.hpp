// Defines loom::uniform_estimator, the System-R density estimate of Galley's
// "naive" statistics (optimize/statistics/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_STATISTICS_UNIFORM_ESTIMATOR_HPP
#define LOOM_OPTIMIZE_STATISTICS_UNIFORM_ESTIMATOR_HPP

#include <loom/core/config.hpp>
#include <loom/core/error.hpp>
#include <loom/optimize/statistics/index_extent.hpp>
#include <loom/optimize/statistics/statistics.hpp>

#include <cmath>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace loom {

/// Sparsity as a density: a tensor over index set I with n non-fills has density p = n / |I|,
/// non-fills are assumed independent and uniform (Galley's "naive" statistics):
/// - conjunction (product, intersection): nnz = |I_out| * prod_k p_k;
/// - disjunction (sum, union):            nnz = |I_out| * (1 - prod_k (1 - p_k));
/// - aggregate over I_a:                  nnz = |I \ I_a| * (1 - (1 - p)^{|I_a|}),
///   with |I_a| the product of the aggregated extents.
/// Densities multiply directly; products of (1 - p) are taken in log space (log1p/expm1), as
/// Galley.jl does, so huge index spaces and tiny densities do not round to 0 or 1.
class uniform_estimator {
 public:
  /// An estimate of `nnz` non-fills over `indices`.
  LOOM_DECL uniform_estimator(index_set indices, double nnz);
  /// The estimate of a stored tensor: `names[m]` names logical mode m, extents come from `s`.
  uniform_estimator(const statistics& s, const std::vector<std::string>& names)
      : uniform_estimator(detail::named_modes(s.shape, names, "loom::uniform_estimator"),
                          static_cast<double>(s.nnz)) {}

  /// A tensor with no fill entry over `indices` (used to broadcast).
  static uniform_estimator full(index_set indices) {
    const double n = detail::dense_size(indices);
    return uniform_estimator(std::move(indices), n);
  }

  /// Pointwise op whose fill annihilates it (`A * B`): the non-fills of the output are the
  /// intersection of the operands' (broadcast over the union of their indices).
  LOOM_DECL static uniform_estimator conjunction(std::span<const uniform_estimator> args);
  /// Pointwise op whose fill does not annihilate it (`A + B`): the union of the non-fills.
  LOOM_DECL static uniform_estimator disjunction(std::span<const uniform_estimator> args);
  /// Aggregate (sum, max, ...) over the named indices; names not in the index set are ignored.
  LOOM_DECL uniform_estimator aggregate(const std::vector<std::string>& names) const;

  /// Estimated number of non-fill entries.
  double estimate() const { return nnz_; }
  /// Expected number of non-fills per fixed value of the `given` indices (`nnz / |given|`).
  double estimate_given(const std::vector<std::string>& given) const {
    const double g = detail::dense_size(detail::index_filter(indices_, given, true));
    return g > 0 ? nnz_ / g : 0.0;
  }
  /// `estimate() / product of extents` (0 over an empty index space).
  double density() const {
    const double s = detail::dense_size(indices_);
    return s > 0 ? nnz_ / s : 0.0;
  }
  const index_set& indices() const { return indices_; }

 private:
  static double clamp(double n, double hi) {
    if (!(n > 0)) return 0;  // also maps NaN to 0
    return n > hi ? hi : n;
  }

  index_set indices_;
  double nnz_ = 0;
};

#if LOOM_HEADER_ONLY
LOOM_DEF uniform_estimator::uniform_estimator(index_set indices, double nnz)
    : indices_(std::move(indices)), nnz_(nnz) {
  detail::check_index_set(indices_, "loom::uniform_estimator");
  if (nnz_ < 0 || nnz_ > detail::dense_size(indices_))
    throw shape_error("loom::uniform_estimator: nnz " + std::to_string(nnz_) +
                      " is outside [0, product of extents]");
}

LOOM_DEF uniform_estimator uniform_estimator::conjunction(std::span<const uniform_estimator> args) {
  index_set out;
  double p = 1;
  for (const uniform_estimator& a : args) {
    out = detail::index_union(out, a.indices_, "loom::uniform_estimator::conjunction");
    p *= a.density();
  }
  const double size = detail::dense_size(out);
  const double n = clamp(size * p, size);
  return uniform_estimator(std::move(out), n);
}

LOOM_DEF uniform_estimator uniform_estimator::disjunction(std::span<const uniform_estimator> args) {
  index_set out;
  double log_q = 0;  // log of P(fill in every operand)
  for (const uniform_estimator& a : args) {
    out = detail::index_union(out, a.indices_, "loom::uniform_estimator::disjunction");
    log_q += std::log1p(-a.density());
  }
  const double size = detail::dense_size(out);
  const double n = clamp(size * -std::expm1(log_q), size);
  return uniform_estimator(std::move(out), n);
}

LOOM_DEF uniform_estimator
uniform_estimator::aggregate(const std::vector<std::string>& names) const {
  index_set kept = detail::index_filter(indices_, names, false);
  const double reduced = detail::dense_size(detail::index_filter(indices_, names, true));
  const double p = density();
  const double size = detail::dense_size(kept);
  const double n = clamp(size * -std::expm1(reduced * std::log1p(-p)), size);
  return uniform_estimator(std::move(kept), n);
}
#endif  // LOOM_HEADER_ONLY

}  // namespace loom

#endif  // LOOM_OPTIMIZE_STATISTICS_UNIFORM_ESTIMATOR_HPP
