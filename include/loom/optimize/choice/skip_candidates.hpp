// Defines the skip-policy candidates of a plan (optimize/choice/): the operands each loop co-
// iterates, the policy codes, Galley's per-entry cost constants, and the variants instantiated at
// compile time (#0 the static policy, then one other policy at one loop each).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_CHOICE_SKIP_CANDIDATES_HPP
#define LOOM_OPTIMIZE_CHOICE_SKIP_CANDIDATES_HPP

#include <loom/core/config.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/plan/order.hpp>
#include <loom/plan/transposed_format.hpp>
#include <loom/stream/skip.hpp>

#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>
#include <type_traits>

namespace loom::optimize {

/// Per-entry costs of co-iterating one fiber (Galley's constants, as ratios:
/// a sequential step is the unit; a galloping seek over a gap g costs `seek * (1 + log2(1+g))`).
struct skip_cost_constants {
  double step = 1.0;  // advance one stored entry
  double seek = 1.0;  // per comparison level of a galloping search
  double hashed_locate = 2.0;
  double other_locate = 1.0;      // bitmap bit test, banded range check
  double bitmap_word = 1.0 / 64;  // a bitmap leader scans its extent a word at a time
};

/// Policy codes in candidate order (`standard` is the combinators' static table); the same codes
/// that a `skip::runtime` intersection reads from its kernel's context.
using skip_code = stream::skip::code;

LOOM_DECL const char* skip_code_name(skip_code c);

namespace detail {

inline constexpr std::size_t max_coiterated = 8;  // operands per loop the analysis keeps

/// One operand that an intersection at a loop iterates or probes (not a full level: those are
/// always located).
struct coiterated {
  std::size_t access = 0;  // ordinal in accesses_t (the lowering's numbering)
  std::size_t mode = 0;    // the tensor's mode for the loop's index
  std::size_t level = 0;   // storage level of that mode in the tensor the kernel reads
  bool locatable = false;  // hashed, bitmap, banded: O(1) probe
  bool scans = false;      // bitmap: iteration scans the extent a word at a time
  bool transposed = false;
};

template <std::size_t Depths> struct loop_table {
  std::array<std::array<coiterated, max_coiterated>, Depths> at{};
  std::array<std::size_t, Depths> count{};
};

template <class E>
inline constexpr std::size_t access_count_v = boost::mp11::mp_size<expr::accesses_t<E>>::value;

// The accesses reached from the root through products only (sum and expand are transparent):
// the factors that the kernel's mul_op intersects, by ordinal. Operands under +, map or where
// are co-iterated by other streams and are not costed here.
template <class E, std::size_t K> struct factors {
  using type = boost::mp11::mp_list<>;
};
template <class T, class... Is, std::size_t K> struct factors<expr::access<T, Is...>, K> {
  using type = boost::mp11::mp_list<boost::mp11::mp_size_t<K>>;
};
template <class L, class R, std::size_t K> struct factors<expr::mul<L, R>, K> {
  using type = boost::mp11::mp_append<typename factors<L, K>::type,
                                      typename factors<R, K + access_count_v<L>>::type>;
};
template <class I, class E, std::size_t K> struct factors<expr::sum<I, E>, K> : factors<E, K> {};
template <class I, class E, std::size_t K> struct factors<expr::expand<I, E>, K> : factors<E, K> {};

template <class Plan, class A> struct access_info;
template <class Plan, class T, class... Is> struct access_info<Plan, expr::access<T, Is...>> {
  using format = typename std::remove_const_t<T>::format_type;
  static constexpr std::size_t order = sizeof...(Is);
  static constexpr std::array<std::size_t, sizeof...(Is)> depth_of_mode{
      boost::mp11::mp_find<typename Plan::order, Is>::value...};
};

template <class Plan> struct plan_rhs;
template <class Lhs, class Rhs, int C, class F> struct plan_rhs<plan::order_plan<Lhs, Rhs, C, F>> {
  using type = Rhs;
};

/// The co-iterated operands of every loop of plan P.
template <class Plan> constexpr auto analyse() {
  using rhs = typename plan_rhs<Plan>::type;
  loop_table<Plan::index_count> t{};
  boost::mp11::mp_for_each<typename factors<rhs, 0>::type>([&](auto kc) {
    constexpr std::size_t K = decltype(kc)::value;
    using A = boost::mp11::mp_at_c<typename Plan::accesses, K>;
    using info = access_info<Plan, A>;
    using F = typename info::format;
    if constexpr (info::order > 0 && !F::all_dense) {
      constexpr bool transposed = Plan::chosen.transposed[K];
      // the copy stores modes by depth, in the levels plan/transposed_format.hpp gives it
      using read = std::conditional_t<transposed, plan::transposed_format<typename Plan::order, A>,
                                      std::type_identity<F>>;
      for (std::size_t m = 0; m < info::order; ++m) {
        std::size_t level = F::level_of_mode[m];
        if (transposed) {
          level = 0;
          for (std::size_t o = 0; o < info::order; ++o)
            if (info::depth_of_mode[o] < info::depth_of_mode[m]) ++level;
        }
        const level_properties p = read::type::properties[level];
        if (p.full) continue;
        const std::size_t d = info::depth_of_mode[m];
        if (t.count[d] == max_coiterated) continue;
        t.at[d][t.count[d]++] =
            coiterated{K, m, level, p.random_access, p.random_access && p.padded, transposed};
      }
    }
  });
  return t;
}

/// What the static table of combinators.hpp does at a loop, as a code (`standard` when it
/// mixes policies, i.e. more than two operands with a random-access one).
template <std::size_t Depths>
constexpr skip_code standard_equivalent(const loop_table<Depths>& t, std::size_t d) {
  const std::size_t n = t.count[d];
  bool any = false;
  for (std::size_t o = 0; o < n; ++o) any = any || t.at[d][o].locatable;
  if (!any) return skip_code::leapfrog;
  if (n == 2) return t.at[d][1].locatable ? skip_code::lead_first : skip_code::lead_last;
  return skip_code::standard;
}

struct skip_alternative {
  std::size_t depth = 0;
  skip_code code = skip_code::standard;
};

template <std::size_t Depths> struct alternative_list {
  std::array<skip_alternative, 4 * Depths + 1> at{};
  std::size_t count = 0;  // including #0, the static policy
};

/// #0 the static policy; then, loop by loop (outermost first) wherever two or more operands
/// are co-iterated, each other policy at that loop alone; cut at Cap.
template <class Plan, std::size_t Cap> constexpr auto alternatives() {
  constexpr auto t = analyse<Plan>();
  alternative_list<Plan::index_count> l{};
  l.count = 1;
  for (std::size_t d = 0; d < Plan::index_count; ++d) {
    if (t.count[d] < 2) continue;
    const skip_code same = standard_equivalent(t, d);
    for (skip_code c :
         {skip_code::merge, skip_code::lead_first, skip_code::lead_last, skip_code::leapfrog}) {
      if (c == same || l.count >= Cap) continue;
      l.at[l.count++] = {d, c};
    }
  }
  return l;
}

template <skip_code C> struct policy_type;
template <> struct policy_type<skip_code::leapfrog> {
  using type = stream::skip::leapfrog;
};
template <> struct policy_type<skip_code::merge> {
  using type = stream::skip::merge;
};
template <> struct policy_type<skip_code::lead_first> {
  using type = stream::skip::lead<0>;
};
template <> struct policy_type<skip_code::lead_last> {
  using type = stream::skip::lead<1>;
};

template <class Plan, std::size_t Cap> struct candidate_at {
  template <class C> struct fn {
    static constexpr auto alt = alternatives<Plan, Cap>().at[C::value];
    using type = boost::mp11::mp_push_back<
        boost::mp11::mp_rename<
            boost::mp11::mp_repeat_c<boost::mp11::mp_list<stream::skip::standard>, alt.depth>,
            stream::skip::per_loop>,
        typename policy_type<alt.code>::type>;
  };
  template <class C> using f = typename fn<C>::type;
};

template <class Plan, std::size_t Cap> struct skip_candidates_impl {
  static constexpr std::size_t count = alternatives<Plan, Cap>().count;
  using type = boost::mp11::mp_push_front<
      boost::mp11::mp_transform_q<boost::mp11::mp_quote<candidate_at<Plan, Cap>::template f>,
                                  boost::mp11::mp_drop_c<boost::mp11::mp_iota_c<count>, 1>>,
      stream::skip::per_loop<>>;
};

}  // namespace detail

/// The skip-policy variants instantiated for plan P (a `loom::plan::order_plan`): #0 the static
/// policy (`per_loop<>`), then one other policy at one loop each, at most Cap in all.
template <class Plan, std::size_t Cap>
using skip_candidates_t = typename detail::skip_candidates_impl<Plan, Cap>::type;

#if LOOM_HEADER_ONLY
LOOM_DEF const char* skip_code_name(skip_code c) {
  switch (c) {
    case skip_code::leapfrog:
      return "leapfrog";
    case skip_code::merge:
      return "merge";
    case skip_code::lead_first:
      return "lead first";
    case skip_code::lead_last:
      return "lead last";
    default:
      return "standard";
  }
}
#endif  // LOOM_HEADER_ONLY
}  // namespace loom::optimize

#endif  // LOOM_OPTIMIZE_CHOICE_SKIP_CANDIDATES_HPP
