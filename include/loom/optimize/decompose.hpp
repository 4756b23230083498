// Defines loom::decompose(lhs, rhs): a sum-product program split by a variable-elimination order
// into kernels with materialised intermediates (Galley's logical optimizer, notes 001 §3.3-3.7).
// The candidate orders and their kernels are instantiated at compile time (bounded by
// LOOM_MAX_ELIMINATION_ORDERS); the cheapest under the logical cost is chosen at run time from
// statistics and cached by a coarse signature (optimize/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_DECOMPOSE_HPP
#define LOOM_OPTIMIZE_DECOMPOSE_HPP

#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/optimize/chain_bound_estimator.hpp>
#include <loom/optimize/plan_choice.hpp>
#include <loom/optimize/statistics_cache.hpp>
#include <loom/stream/evaluate.hpp>

#include <boost/mp11/algorithm.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#ifndef LOOM_MAX_ELIMINATION_ORDERS
#  define LOOM_MAX_ELIMINATION_ORDERS 6
#endif

namespace loom {

/// The most elimination orders `decompose` instantiates per program (plus the fused kernel).
inline constexpr std::size_t max_elimination_orders = LOOM_MAX_ELIMINATION_ORDERS;

namespace detail::ve {

using namespace boost::mp11;

// A sum-product: sum(s1, sum(s2, ... A * B * ...)) flattened into summed indices and factors.
template <class E>
struct flatten {
  static constexpr bool ok = false;
  using summed = mp_list<>;
  using factors = mp_list<>;
};
template <class T, class... Is>
struct flatten<expr::access<T, Is...>> {
  static constexpr bool ok = sizeof...(Is) > 0;
  using summed = mp_list<>;
  using factors = mp_list<expr::access<T, Is...>>;
};
template <class L, class R>
struct flatten<expr::mul<L, R>> {
  static constexpr bool ok = flatten<L>::ok && flatten<R>::ok && mp_empty<typename flatten<L>::summed>::value &&
                             mp_empty<typename flatten<R>::summed>::value;
  using summed = mp_list<>;
  using factors = mp_append<typename flatten<L>::factors, typename flatten<R>::factors>;
};
template <class I, class E>
struct flatten<expr::sum<I, E>> {
  static constexpr bool ok = flatten<E>::ok && !mp_contains<typename flatten<E>::summed, I>::value;
  using summed = mp_push_front<typename flatten<E>::summed, I>;
  using factors = typename flatten<E>::factors;
};

// The accesses of a flattened product, left to right, as a tuple of access values.
template <class T, class... Is>
auto collect(const expr::access<T, Is...>& a) {
  return std::tuple{a};
}
template <class L, class R>
auto collect(const expr::mul<L, R>& e) {
  return std::tuple_cat(collect(e.lhs), collect(e.rhs));
}
template <class I, class E>
auto collect(const expr::sum<I, E>& e) {
  return collect(e.body);
}

template <class A>
struct indices_of;
template <class T, class... Is>
struct indices_of<expr::access<T, Is...>> {
  using type = mp_list<Is...>;
};

// Every permutation of a list.
template <class L>
struct permutations;
template <>
struct permutations<mp_list<>> {
  using type = mp_list<mp_list<>>;
};
template <class... Ts>
struct permutations<mp_list<Ts...>> {
  template <class P, class X>
  using prepend = mp_push_front<P, X>;
  template <class X>
  using starting_with =
      mp_transform_q<mp_bind_back<prepend, X>, typename permutations<mp_remove<mp_list<Ts...>, X>>::type>;
  using type = mp_append<starting_with<Ts>...>;
};

// A factor: mp_list<id, indices>; ids below the input count are inputs, the rest intermediates.
template <class F>
using factor_id = mp_first<F>;
template <class F>
using factor_indices = mp_second<F>;
template <class S>
struct uses {
  template <class F>
  using fn = mp_contains<factor_indices<F>, S>;
};

// Eliminating S: the factors using S become one intermediate over their other indices.
template <class Factors, class S, class Id>
struct eliminate {
  using in = mp_copy_if_q<Factors, uses<S>>;
  static_assert(!mp_empty<in>::value, "loom::decompose: a summed index is used by no factor");
  using indices = mp_remove<mp_unique<mp_apply<mp_append, mp_push_front<mp_transform<factor_indices, in>, mp_list<>>>>, S>;
  using made = mp_list<Id, indices>;
  using factors = mp_push_back<mp_remove_if_q<Factors, uses<S>>, made>;
  using step = mp_list<S, in, made>;
};

template <class Order, class Factors, std::size_t Next, class Steps = mp_list<>>
struct plan_of {
  using steps = Steps;
  using remaining = Factors;
};
template <class S, class... Rest, class Factors, std::size_t Next, class Steps>
struct plan_of<mp_list<S, Rest...>, Factors, Next, Steps> {
  using e = eliminate<Factors, S, mp_size_t<Next>>;
  using next = plan_of<mp_list<Rest...>, typename e::factors, Next + 1, mp_push_back<Steps, typename e::step>>;
  using steps = typename next::steps;
  using remaining = typename next::remaining;
};

template <class V, class Indices>
using intermediate_tensor = tensor<V, mp_if_c<mp_size<Indices>::value == 0, format<>,
                                              mp_if_c<mp_size<Indices>::value == 1, sparse_vector,
                                                      csf<mp_size<Indices>::value>>>>;

template <class Step>
using step_index = mp_first<Step>;
template <class Step>
using step_inputs = mp_second<Step>;
template <class Step>
using step_made = mp_third<Step>;

/// Static facts of `lhs = rhs` decomposed.
template <class Lhs, class Rhs>
struct program {
  using flat = flatten<Rhs>;
  static constexpr bool ok = flat::ok;
  using summed = typename flat::summed;
  using inputs = typename flat::factors;
  static constexpr std::size_t input_count = mp_size<inputs>::value;
  template <class K>
  using input_factor = mp_list<K, typename indices_of<mp_at<inputs, K>>::type>;
  using initial = mp_transform<input_factor, mp_iota_c<input_count>>;
  using orders = mp_take_c<typename permutations<summed>::type,
                           std::min(max_elimination_orders, mp_size<typename permutations<summed>::type>::value)>;
  template <class Order>
  using plan = plan_of<Order, initial, input_count>;
  using V = expr::value_type_t<Rhs>;
};

template <class I, class Tuple>
std::int64_t extent_of(const Tuple& inputs) {
  std::int64_t e = -1;
  std::apply([&](const auto&... a) {
    (..., [&]<class T, class... Is>(const expr::access<T, Is...>& x) {
      std::size_t m = 0;
      (..., [&] {
        if (e < 0 && std::is_same_v<Is, I>) e = x.tensor->extent(m);
        ++m;
      }());
    }(a));
  }, inputs);
  return e;
}

template <class... Is>
std::string names(mp_list<Is...>) {
  std::string s;
  (..., (s += (s.empty() ? "" : ",") + std::string(Is::name)));
  return s;
}

template <class A>
auto product(const A& a) {
  return a;
}
template <class A, class B, class... Rest>
auto product(const A& a, const B& b, const Rest&... rest) {
  return product(expr::mul<A, B>{a, b}, rest...);
}

}  // namespace detail::ve

/// What `decompose` considered and chose: candidate 0 is the fused kernel (no intermediate),
/// candidate c > 0 the elimination order c - 1.
struct decomposition_choice {
  std::vector<std::string> description;  // per candidate, its kernels
  std::vector<double> cost;              // Galley's logical cost per candidate
  std::size_t chosen = 0;
};

namespace detail::ve {

template <class Lhs, class Rhs>
struct runner {
  using P = program<Lhs, Rhs>;
  using V = typename P::V;
  using inputs_tuple = decltype(collect(std::declval<const Rhs&>()));
  static constexpr std::size_t n_in = P::input_count;

  template <class Step>
  using slot_of = std::optional<intermediate_tensor<V, factor_indices<step_made<Step>>>>;
  template <class Order>
  using intermediates = mp_rename<mp_transform<slot_of, typename P::template plan<Order>::steps>, std::tuple>;

  // The logical cost of an order: per step, the pointwise product's entries times its indices,
  // plus the intermediate's entries (0.5 each when dense, 60 when sparse); then the final product.
  template <class Order>
  static double cost(const std::vector<chain_bound_estimator>& input_est, const inputs_tuple& in,
                     std::string& text) {
    std::vector<std::optional<chain_bound_estimator>> est(input_est.begin(), input_est.end());
    double total = 0;
    std::ostringstream s;
    mp_for_each<mp_transform<mp_identity, typename P::template plan<Order>::steps>>([&](auto st) {
      using step = typename decltype(st)::type;
      std::vector<chain_bound_estimator> parts;
      mp_for_each<mp_transform<factor_id, step_inputs<step>>>([&](auto id) { parts.push_back(*est[id]); });
      const chain_bound_estimator comp = parts.size() == 1 ? parts[0] : chain_bound_estimator::conjunction(parts);
      const chain_bound_estimator mat = comp.aggregate({std::string(step_index<step>::name)});
      double cells = 1;
      mp_for_each<factor_indices<step_made<step>>>([&](auto i) {
        cells *= static_cast<double>(extent_of<decltype(i)>(in));
      });
      const double out = mat.estimate();
      const double c = comp.estimate() * static_cast<double>(comp.indices().size()) +
                       out * (out > 0.5 * cells ? 0.5 : 60.0);
      total += c;
      est.resize(std::max<std::size_t>(est.size(), factor_id<step_made<step>>::value + 1));
      est[factor_id<step_made<step>>::value] = mat;
      s << "T" << factor_id<step_made<step>>::value - n_in << "(" << names(factor_indices<step_made<step>>{})
        << ") = sum(" << step_index<step>::name << ", ...) [" << static_cast<std::int64_t>(comp.estimate())
        << " products, " << static_cast<std::int64_t>(out) << " entries]; ";
    });
    std::vector<chain_bound_estimator> rest;
    mp_for_each<mp_transform<factor_id, typename P::template plan<Order>::remaining>>(
        [&](auto id) { rest.push_back(*est[id]); });
    if (rest.size() > 1) {
      const chain_bound_estimator comp = chain_bound_estimator::conjunction(rest);
      total += comp.estimate() * static_cast<double>(comp.indices().size());
    }
    s << "output = product of the rest";
    text = s.str();
    return total;
  }

  template <class F, class Inter>
  static auto access_of(const inputs_tuple& in, const Inter& inter) {
    constexpr std::size_t id = factor_id<F>::value;
    if constexpr (id < n_in) {
      return std::get<id>(in);
    } else {
      const auto& t = *std::get<id - n_in>(inter);
      using tensor_t = std::remove_cvref_t<decltype(t)>;
      return [&]<class... Is>(mp_list<Is...>) { return expr::access<const tensor_t, Is...>{&t}; }(
          factor_indices<F>{});
    }
  }

  template <class Order>
  static void run(const Lhs& lhs, const inputs_tuple& in) {
    intermediates<Order> inter;
    mp_for_each<mp_transform<mp_identity, typename P::template plan<Order>::steps>>([&](auto st) {
      using step = typename decltype(st)::type;
      constexpr std::size_t slot = factor_id<step_made<step>>::value - n_in;
      using tensor_t = typename std::tuple_element_t<slot, decltype(inter)>::value_type;
      [&]<class... Fs>(mp_list<Fs...>) {
        const auto body = product(access_of<Fs>(in, inter)...);
        [&]<class... Is>(mp_list<Is...>) {
          auto& t = std::get<slot>(inter).emplace(typename tensor_t::shape_type{extent_of<Is>(in)...});
          expr::access<tensor_t, Is...> target{&t};
          target = expr::sum<step_index<step>, std::remove_cvref_t<decltype(body)>>{body};
        }(factor_indices<step_made<step>>{});
      }(step_inputs<step>{});
    });
    [&]<class... Fs>(mp_list<Fs...>) {
      Lhs target = lhs;
      target = product(access_of<Fs>(in, inter)...);
    }(typename P::template plan<Order>::remaining{});
  }
};

struct decompose_purpose {};  // plan_cache key: elimination orders, not loop orders

template <class Lhs, class Rhs>
decomposition_choice plan_decomposition(const Lhs& lhs, const Rhs& rhs, statistics_cache& cache) {
  using R = runner<Lhs, Rhs>;
  using P = typename R::P;
  const auto in = collect(rhs);
  std::vector<chain_bound_estimator> est;
  std::apply([&](const auto&... a) {
    (..., [&]<class T, class... Is>(const expr::access<T, Is...>& x) {
      std::vector<std::string> n{std::string(Is::name)...};
      if constexpr (std::remove_const_t<T>::format_type::all_dense) {
        index_set s;
        std::size_t m = 0;
        (..., s.push_back({std::string(Is::name), x.tensor->extent(m++)}));
        est.push_back(chain_bound_estimator::full(std::move(s)));
      } else {
        est.push_back(chain_bound_estimator(cache.get(*x.tensor), n));
      }
    }(a));
  }, in);
  decomposition_choice out;
  const chain_bound_estimator all = est.size() == 1 ? est[0] : chain_bound_estimator::conjunction(est);
  out.cost.push_back(all.estimate() * static_cast<double>(all.indices().size()));
  out.description.push_back("one fused kernel [" + std::to_string(static_cast<std::int64_t>(all.estimate())) +
                            " products]");
  mp_for_each<typename P::orders>([&](auto order) {
    std::string text;
    out.cost.push_back(R::template cost<decltype(order)>(est, in, text));
    out.description.push_back("eliminate " + names(decltype(order){}) + ": " + text);
    if (out.cost.back() < out.cost[out.chosen]) out.chosen = out.cost.size() - 1;
  });
  (void)lhs;
  return out;
}

}  // namespace detail::ve

/// The candidates `decompose(lhs, rhs)` would weigh, their costs and the choice.
template <class Lhs, class R>
decomposition_choice plan_decomposition(const Lhs& lhs, const R& rhs) {
  statistics_cache cache;
  return detail::ve::plan_decomposition(lhs, rhs, cache);
}

/// `lhs = rhs` for a sum-product `rhs` (sums over a product of tensor accesses), evaluated by the
/// cheapest of: one fused kernel, or a variable-elimination order that materialises one
/// intermediate per summed index. Returns the index of the candidate run (0: fused).
template <class Lhs, class R>
std::size_t decompose(Lhs lhs, const R& rhs) {
  using Rhs = std::remove_cvref_t<R>;
  using P = detail::ve::program<Lhs, Rhs>;
  static_assert(P::ok,
                "loom::decompose: the right-hand side must be sums over a product of tensor "
                "accesses, e.g. sum(j, k, A(i, j) * B(j, k) * C(k, l))");
  const std::size_t chosen =
      optimize::plan_cache<Lhs, Rhs, detail::ve::decompose_purpose>::local().find_or(
          optimize::detail::coarse_signature(rhs), [&](statistics_cache& stats) {
            return detail::ve::plan_decomposition(lhs, rhs, stats).chosen;
          });
#ifdef LOOM_DEBUG_PLAN
  std::clog << "loom::decompose: candidate " << chosen << "\n";
#endif
  if (chosen == 0) {
    lhs = rhs;
  } else {
    const auto in = detail::ve::collect(rhs);
    constexpr std::size_t n = boost::mp11::mp_size<typename P::orders>::value;
    boost::mp11::mp_with_index<n>(chosen - 1, [&](auto c) {
      detail::ve::runner<Lhs, Rhs>::template run<boost::mp11::mp_at_c<typename P::orders, c>>(lhs, in);
    });
  }
  return chosen;
}

/// Runs candidate `which` of `decompose` (0: fused; c: elimination order c - 1), for tests and
/// benchmarks that compare plans.
template <class Lhs, class R>
void decompose_with(std::size_t which, Lhs lhs, const R& rhs) {
  using Rhs = std::remove_cvref_t<R>;
  using P = detail::ve::program<Lhs, Rhs>;
  static_assert(P::ok, "loom::decompose: the right-hand side must be sums over a product of tensor accesses");
  constexpr std::size_t n = boost::mp11::mp_size<typename P::orders>::value;
  if (which == 0) {
    lhs = rhs;
    return;
  }
  if (which > n) throw shape_error("loom::decompose_with: candidate " + std::to_string(which) +
                                   " does not exist (there are " + std::to_string(n + 1) + ")");
  const auto in = detail::ve::collect(rhs);
  boost::mp11::mp_with_index<n>(which - 1, [&](auto c) {
    detail::ve::runner<Lhs, Rhs>::template run<boost::mp11::mp_at_c<typename P::orders, c>>(lhs, in);
  });
}

/// The candidates of `decompose(lhs, rhs)` in words, with their logical costs and the choice.
template <class Lhs, class R>
std::string explain_decomposition(const Lhs& lhs, const R& rhs) {
  const decomposition_choice c = plan_decomposition(lhs, rhs);
  std::ostringstream s;
  s << "decomposition candidates (Galley's logical cost; at most " << max_elimination_orders
    << " elimination orders, LOOM_MAX_ELIMINATION_ORDERS):\n";
  for (std::size_t k = 0; k < c.cost.size(); ++k)
    s << "  " << (k == c.chosen ? "* " : "  ") << "#" << k << " cost "
      << static_cast<std::int64_t>(c.cost[k] + 0.5) << ": " << c.description[k] << "\n";
  return s.str();
}

}  // namespace loom

#endif  // LOOM_OPTIMIZE_DECOMPOSE_HPP
