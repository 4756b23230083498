// Defines the runtime choice whether to compute a hoistable sum first (rewrite/hoist.hpp): the
// fused kernel's estimated cost against the sum's own kernel plus the rest with the sum as one
// operand, from the same statistics and loop-order cost as the plan choice (optimize/choice/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_CHOICE_HOIST_CHOICE_HPP
#define LOOM_OPTIMIZE_CHOICE_HOIST_CHOICE_HPP

#include <loom/core/config.hpp>
#include <loom/expr/traits.hpp>
#include <loom/expr/visit.hpp>
#include <loom/optimize/choice/plan_cache.hpp>
#include <loom/optimize/choice/plan_choice.hpp>
#include <loom/plan/order.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <cstddef>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace loom::optimize {

/// The two estimates and the verdict: hoisting pays only when it is strictly cheaper, so a
/// rewrite never makes a kernel worse by the model's measure.
struct hoist_choice {
  double fused = 0;    // the kernel as one loop nest (its cheapest candidate plan)
  double hoisted = 0;  // the sum's own kernel plus the rest with the sum as one operand
  bool hoist() const { return hoisted < fused; }
  LOOM_DECL std::string describe() const;
};

namespace detail {
struct hoist_purpose {};

template <class S, class Rhs> std::size_t first_access_of(const S& s, const Rhs& rhs) {
  std::size_t ordinal = 0, first = 0;
  expr::for_each_node(rhs, [&](const auto& node) {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(node)>, S>)
      if (static_cast<const void*>(&node) == static_cast<const void*>(&s)) first = ordinal;
    if constexpr (expr::is_access<std::remove_cvref_t<decltype(node)>>::value) ++ordinal;
  });
  return first;
}

LOOM_DECL std::vector<std::string> restricted(const std::vector<std::string>& order,
                                              const std::vector<std::string>& keep,
                                              bool keep_listed);
}  // namespace detail

/// Costs `lhs = rhs` fused against computing its sum `s` (a subobject of `rhs`) first into a
/// temporary (`dense_temporary`: dense, located; else sparse). The rest keeps the fused plan's
/// loop order without the sum's bound indices; the sum's kernel takes that order restricted to
/// its own indices; its entries are bounded by the full product of its free extents.
template <class Lhs, class Rhs, class S>
hoist_choice choose_hoist(const Lhs& lhs, const Rhs& rhs, const S& s, bool dense_temporary,
                          statistics_cache& cache) {
  constexpr std::size_t n = plan::plan_candidates<Lhs, Rhs>::count;
  const loop_order_query fused = describe(lhs, rhs, cache);
  hoist_choice out;
  std::vector<std::string> order;
  boost::mp11::mp_for_each<boost::mp11::mp_iota_c<n>>([&](auto c) {
    const double cost = candidate_cost<Lhs, Rhs, decltype(c)::value>(lhs, rhs, fused);
    if (decltype(c)::value == 0 || cost < out.fused) {
      out.fused = cost;
      order.clear();
      using P = plan::order_plan<Lhs, Rhs, static_cast<int>(decltype(c)::value)>;
      boost::mp11::mp_for_each<typename P::order>(
          [&](auto idx) { order.emplace_back(decltype(idx)::name); });
    }
  });
  const std::vector<std::string> free = detail::names_of(expr::free_indices_t<S>{});
  const std::vector<std::string> bound = detail::names_of(expr::summed_indices_t<S>{});
  const std::vector<std::string> own = detail::names_of(expr::all_indices_t<S>{});
  const loop_order_query first = describe_rhs(free, dense_temporary, {}, s, cache);
  const replaced_sum r{&s,
                       &node_type_tag<S>,
                       free,
                       detail::first_access_of(s, rhs),
                       boost::mp11::mp_size<expr::accesses_t<S>>::value,
                       dense_temporary};
  const loop_order_query rest = describe(lhs, rhs, cache, &r);
  out.hoisted = loop_order_cost(first, detail::restricted(order, own, true)) +
                loop_order_cost(rest, detail::restricted(order, bound, false));
  return out;
}

/// `choose_hoist`, remembered per kernel type and coarse statistics signature (like plans).
template <class Lhs, class Rhs, class S>
bool cached_hoist(const Lhs& lhs, const Rhs& rhs, const S& s, bool dense_temporary) {
  thread_local std::vector<std::uint8_t> signature;
  detail::coarse_signature(rhs, signature);
  return plan_cache<Lhs, Rhs, detail::hoist_purpose>::local().find_or(
             signature, [&](statistics_cache& stats) {
               return static_cast<std::size_t>(
                   choose_hoist(lhs, rhs, s, dense_temporary, stats).hoist());
             }) != 0;
}

#if LOOM_HEADER_ONLY
LOOM_DEF std::string hoist_choice::describe() const {
  std::ostringstream o;
  o.precision(3);
  o << "estimated cost " << (hoist() ? hoisted : fused) << " against "
    << (hoist() ? fused : hoisted) << (hoist() ? " fused" : " computed first");
  return o.str();
}

namespace detail {
LOOM_DEF std::vector<std::string> restricted(const std::vector<std::string>& order,
                                             const std::vector<std::string>& keep,
                                             bool keep_listed) {
  std::vector<std::string> out;
  for (const auto& n : order)
    if ((std::find(keep.begin(), keep.end(), n) != keep.end()) == keep_listed) out.push_back(n);
  return out;
}
}  // namespace detail
#endif  // LOOM_HEADER_ONLY

}  // namespace loom::optimize

#endif  // LOOM_OPTIMIZE_CHOICE_HOIST_CHOICE_HPP
