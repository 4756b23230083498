// Defines loom::optimize::plan_cache and cached_choice: a kernel's runtime choices remembered per
// thread by a coarse statistics signature (magnitudes of extents and stored entries), so that a
// kernel called again on inputs of similar sizes neither gathers statistics nor costs its plans;
// whether a choice was a hit is reported to the plan log (core/plan_log.hpp) (optimize/choice/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_CHOICE_PLAN_CACHE_HPP
#define LOOM_OPTIMIZE_CHOICE_PLAN_CACHE_HPP

#include <loom/core/config.hpp>
#include <loom/core/debug.hpp>
#include <loom/expr/visit.hpp>
#include <loom/optimize/choice/plan_choice.hpp>
#include <loom/optimize/statistics/statistics_cache.hpp>

#include <boost/mp11/algorithm.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

namespace loom::optimize {

namespace detail {

// floor(log2(x)) + 1, 0 for 0: plans are reused while sizes stay within a factor of two
inline std::uint8_t magnitude(std::int64_t x) {
  return static_cast<std::uint8_t>(x <= 0 ? 0 : std::bit_width(static_cast<std::uint64_t>(x)));
}

// Coarse signature: magnitudes of every operand's extents, stored entries and stored
// coordinates per level. O(operands x order), no pass over the data.
template <class Rhs> void coarse_signature(const Rhs& rhs, std::vector<std::uint8_t>& sig) {
  sig.clear();
  expr::for_each_access(rhs, [&](const auto& a, std::size_t) {
    const auto& t = *a.tensor;
    using tensor_t = std::remove_cvref_t<decltype(t)>;
    sig.push_back(magnitude(t.nnz()));
    for (std::size_t m = 0; m < tensor_t::order; ++m) sig.push_back(magnitude(t.extent(m)));
    boost::mp11::mp_for_each<boost::mp11::mp_iota_c<tensor_t::order>>([&](auto kc) {
      const auto& level = t.template level<decltype(kc)::value>();
      if constexpr (requires { level.crd.size(); })
        sig.push_back(magnitude(static_cast<std::int64_t>(level.crd.size())));
    });
  });
}
template <class Rhs> std::vector<std::uint8_t> coarse_signature(const Rhs& rhs) {
  std::vector<std::uint8_t> sig;
  coarse_signature(rhs, sig);
  return sig;
}

/// Orders signatures by length, then byte by byte. std::less<std::vector<std::uint8_t>> (a
/// memcmp) draws a false -Wstringop-overread from g++ 12 at -O3.
struct signature_less {
  bool operator()(const std::vector<std::uint8_t>& a,
                  const std::vector<std::uint8_t>& b) const noexcept {
    if (a.size() != b.size()) return a.size() < b.size();
    for (std::size_t k = 0; k < a.size(); ++k)
      if (a[k] != b[k]) return a[k] < b[k];
    return false;
  }
};

}  // namespace detail

/// The plans chosen for one kernel type, per thread, by coarse signature, with the statistics
/// gathered to choose them. `Purpose` separates choices of another kind over the same kernel
/// (`decompose`).
/// `Value` is what one choice remembers: the candidate's index, or for the plan choice its costs
/// too (entries never move, so a reference to one stays valid).
template <class Lhs, class Rhs, class Purpose = void, class Value = std::size_t> struct plan_cache {
  std::map<std::vector<std::uint8_t>, Value, detail::signature_less> chosen;
  statistics_cache stats;
  static plan_cache& local() {
    thread_local plan_cache cache;
    return cache;
  }
  /// The choice remembered for `signature`, else `choose(stats)`, remembered; `hit` says which.
  template <class Choose>
  const Value& find_or(const std::vector<std::uint8_t>& signature, Choose&& choose,
                       bool* hit = nullptr) {
    if (const auto it = chosen.find(signature); it != chosen.end()) {
      if (hit != nullptr) *hit = true;
      return it->second;
    }
    if (hit != nullptr) *hit = false;
    return chosen.emplace(signature, choose(stats)).first->second;
  }
};

/// The cache of the plan choice itself (the candidate and every candidate's cost).
template <class Lhs, class Rhs> using plan_choice_cache = plan_cache<Lhs, Rhs, void, plan_choice>;

/// The plan choice for `lhs = rhs` (the candidate and every candidate's estimated cost): cached
/// by signature, else costed from statistics; `hit` says which.
template <class Lhs, class Rhs>
const plan_choice& cached_plan_choice(const Lhs& lhs, const Rhs& rhs, bool& hit) {
  thread_local std::vector<std::uint8_t> signature;  // reused: a cache hit allocates nothing
  detail::coarse_signature(rhs, signature);
  return plan_choice_cache<Lhs, Rhs>::local().find_or(
      signature, [&](statistics_cache& stats) { return choose_plan(lhs, rhs, stats); }, &hit);
}

/// The candidate to run for `lhs = rhs`: cached by signature, else costed from statistics.
template <class Lhs, class Rhs> std::size_t cached_choice(const Lhs& lhs, const Rhs& rhs) {
  bool hit = false;
  return cached_plan_choice(lhs, rhs, hit).chosen;
}

}  // namespace loom::optimize

#endif  // LOOM_OPTIMIZE_CHOICE_PLAN_CACHE_HPP
