// Defines loom::decompose(lhs, rhs): a sum-product program split by a prefix of a
// variable-elimination order into kernels with materialised intermediates, the indices after the
// prefix co-eliminated in one fused kernel (Galley's logical optimizer). The
// candidate prefixes and their kernels are instantiated at compile time (bounded by
// loom::limits::elimination_orders); the cheapest under the logical cost is chosen at run time from
// statistics and cached by a coarse signature (optimize/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_DECOMPOSE_HPP
#define LOOM_EXEC_DECOMPOSE_HPP

#include <loom/core/config.hpp>
#include <loom/core/debug.hpp>
#include <loom/core/unpack.hpp>
#include <loom/exec/decompose/runner.hpp>
#include <loom/exec/decompose/steps.hpp>
#include <loom/exec/evaluate.hpp>
#include <loom/exec/options.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/optimize/choice/plan_cache.hpp>
#include <loom/optimize/choice/plan_choice.hpp>
#include <loom/optimize/statistics/chain_bound_estimator.hpp>
#include <loom/optimize/statistics/statistics_cache.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace loom {

namespace detail::ve {

// plan_cache key: elimination orders (not loop orders) under one set of intermediate options
template <class Flags> struct decompose_purpose {};

template <class Flags, class Lhs, class Rhs>
decomposition_choice plan_decomposition(const Lhs& lhs, const Rhs& rhs, statistics_cache& cache) {
  using R = runner<Lhs, Rhs, Flags>;
  using P = typename R::P;
  const auto in = collect(rhs);
  std::vector<chain_bound_estimator> est;
  loom::detail::unpack(
      [&](const auto&... a) {
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
      },
      in);
  decomposition_choice out;
  const chain_bound_estimator all =
      est.size() == 1 ? est[0] : chain_bound_estimator::conjunction(est);
  // the fused kernel also runs the leapfrog of every sparse vector it intersects with fibers
  const double fused_intersections = R::template intersection_cost<0, typename P::initial>(
      std::vector<std::optional<chain_bound_estimator>>(est.begin(), est.end()));
  out.cost.push_back(all.estimate() * static_cast<double>(all.indices().size()) +
                     fused_intersections);
  out.format.push_back(intermediate_format::sorted);
  out.step_formats.emplace_back();
  out.variant.push_back(0);
  out.variants.push_back(1);
  out.reuse.push_back(0);
  out.description.push_back(
      "one fused kernel [" + std::to_string(static_cast<std::int64_t>(all.estimate())) +
      " products" +
      (fused_intersections > 0
           ? ", " + std::to_string(static_cast<std::int64_t>(fused_intersections)) +
                 " leapfrog steps against sparse vectors"
           : std::string()) +
      "]");
  mp_for_each<typename P::orders>([&](auto order) {
    using O = decltype(order);
    std::string text;
    std::uint32_t reuse = 0;
    std::vector<intermediate_format> kinds;
    double c = std::numeric_limits<double>::quiet_NaN();
    std::size_t variant = 0;
    constexpr auto codes = R::template format_code_array<O>;
    mp_for_each<mp_iota_c<codes.size>>([&](auto v) {  // the first of equal costs wins
      std::string other_text;
      std::uint32_t other_reuse = 0;
      std::vector<intermediate_format> other_kinds;
      const double d = R::template cost<O, dense_part(codes.code[v])>(
          est, in, other_text, other_reuse, other_kinds, codes.code[v]);
      if (v == 0 || d < c)
        c = d, variant = v, text = std::move(other_text), reuse = other_reuse,
        kinds = std::move(other_kinds);
    });
    intermediate_format first = intermediate_format::sorted;
    constexpr auto capable = R::template capable_steps<O>;
    for (std::size_t t = 0; t < kinds.size(); ++t)
      if (capable[t]) {
        first = kinds[t];
        break;
      }
    out.cost.push_back(c);
    out.format.push_back(first);
    out.step_formats.push_back(std::move(kinds));
    out.variant.push_back(variant);
    out.variants.push_back(codes.size);
    out.reuse.push_back(reuse);
    using rest_summed = typename P::template fused_rest<O>;
    out.description.push_back(
        "eliminate " + names(O{}) +
        (mp_empty<rest_summed>::value ? "" : ", then " + names(rest_summed{}) + " fused") + ": " +
        text);
    if (out.cost.back() < out.cost[out.chosen]) out.chosen = out.cost.size() - 1;
  });
  (void)lhs;
  return out;
}

// The formats of candidate `which` (> 0) in its assignment `variant`, one per step ("sorted,dense").
template <class Flags, class Lhs, class Rhs>
std::string variant_formats(std::size_t which, std::size_t variant) {
  using R = runner<Lhs, Rhs, Flags>;
  std::string s;
  mp_with_index<mp_size<typename program<Lhs, Rhs>::orders>::value>(which - 1, [&](auto c) {
    using O = mp_at_c<typename program<Lhs, Rhs>::orders, c>;
    constexpr auto codes = R::template format_code_array<O>;
    constexpr auto capable = R::template capable_steps<O>;
    for (std::size_t t = 0; t < mp_size<typename R::template steps_of<O, 0>>::value; ++t)
      s += std::string(t ? "," : "") +
           intermediate_format_name(
               capable[t] ? format_at(codes.code[variant < codes.size ? variant : 0], t)
                          : intermediate_format::sorted);
  });
  return s;
}

// Runs candidate `which` (> 0) in its format assignment `variant` (decomposition_choice::variant),
// or as `forced` says when not empty: one format for every one- and two-index intermediate, or
// one per step (steps with other intermediates are sorted whatever they ask); reusing twins as
// `reuse` says.
template <class Flags, class Lhs, class Rhs>
void run_candidate(std::size_t which, std::size_t variant,
                   const std::vector<intermediate_format>& forced, std::uint32_t reuse,
                   const Lhs& lhs, const Rhs& rhs, bool accumulate = false) {
  using P = program<Lhs, Rhs>;
  using R = runner<Lhs, Rhs, Flags>;
  const auto in = collect(rhs);
  constexpr std::size_t n = mp_size<typename P::orders>::value;
  mp_with_index<n>(which - 1, [&](auto c) {
    using O = mp_at_c<typename P::orders, c>;
    constexpr auto codes = R::template format_code_array<O>;
    constexpr auto capable = R::template capable_steps<O>;
    constexpr std::size_t steps = mp_size<typename R::template steps_of<O, 0>>::value;
    std::size_t v = variant < codes.size ? variant : 0;
    if (!forced.empty()) {
      if (forced.size() != 1 && forced.size() != steps)
        throw shape_error("loom::decompose: candidate " + std::to_string(which) + " has " +
                          std::to_string(steps) + " steps, but " + std::to_string(forced.size()) +
                          " intermediate formats were given");
      // one format stands for every step; steps whose intermediates cannot be dense are sorted
      auto matches = [&](std::size_t code) {
        for (std::size_t t = 0; t < steps; ++t)
          if (capable[t] && format_at(code, t) != forced[forced.size() == 1 ? 0 : t]) return false;
        return true;
      };
      v = codes.size;
      for (std::size_t k = 0; k < codes.size && v == codes.size; ++k)
        if (matches(codes.code[k])) v = k;
      if (v == codes.size)
        throw error(
            "loom::decompose: that mix of intermediate formats is not compiled in "
            "(add loom::opt::format_per_step to the options)");
    }
    mp_with_index<codes.size>(v, [&](auto kc) {
      R::template run<O, dense_part(codes.code[kc])>(lhs, in, reuse, accumulate, codes.code[kc]);
    });
  });
}

}  // namespace detail::ve

/// The candidates `decompose(lhs, rhs, opts)` would weigh, their costs and the choice.
template <class Lhs, class R, options_type O = options<opt::eliminate>>
decomposition_choice plan_decomposition(const Lhs& lhs, const R& rhs, const O& = {}) {
  statistics_cache cache;
  return detail::ve::plan_decomposition<detail::ve::flags_of<O>>(lhs, rhs, cache);
}

namespace detail::ve {

// One sum-product into lhs (or added to it): the candidate the options force, else the plan
// chosen from statistics (cached).
template <class Options, class Lhs, class Rhs>
std::size_t decompose_product(Lhs lhs, const Rhs& rhs, bool accumulate, const Options& opts) {
  using flags = flags_of<Options>;
  using P = program<Lhs, Rhs>;
  constexpr std::size_t n = mp_size<typename P::orders>::value;
  if (opts.candidate) {
    const std::size_t which = *opts.candidate;
    if (which > n)
      throw shape_error("loom::decompose: candidate " + std::to_string(which) +
                        " does not exist (there are " + std::to_string(n + 1) + ")");
    if (which != 0) {
      std::size_t variant = 0;
      std::uint32_t reuse = opts.reuse.value_or(0);
      if (opts.intermediates.empty() || !opts.reuse) {
        statistics_cache stats;
        const decomposition_choice c = plan_decomposition<flags>(lhs, rhs, stats);
        variant = c.variant[which];
        if (!opts.reuse) reuse = c.reuse[which];
      }
      run_candidate<flags>(which, variant, opts.intermediates, reuse, lhs, rhs, accumulate);
      return which;
    }
  } else {
    // cached: the candidate in bits 0-15, its format assignment in bits 16-23, the reuse mask above
    const std::size_t packed =
        optimize::plan_cache<Lhs, Rhs, decompose_purpose<flags>>::local().find_or(
            optimize::detail::coarse_signature(rhs), [&](statistics_cache& stats) {
              const decomposition_choice c = plan_decomposition<flags>(lhs, rhs, stats);
              return c.chosen | c.variant[c.chosen] << 16 | std::size_t{c.reuse[c.chosen]} << 24;
            });
    const std::size_t chosen = packed & 0xffffu;
    const std::size_t variant = packed >> 16 & 0xffu;
    const auto reuse = static_cast<std::uint32_t>(packed >> 24);
    if (loom::debug_plan()) {
      const std::string formats =
          chosen != 0 ? ", intermediates " + variant_formats<flags, Lhs, Rhs>(chosen, variant) : "";
      loom::detail::debug_line({"loom::decompose: candidate ", std::to_string(chosen), formats,
                                ", reuse mask ", std::to_string(reuse)});
    }
    if (chosen != 0) {
      run_candidate<flags>(chosen, variant, {}, reuse, lhs, rhs, accumulate);
      return chosen;
    }
  }
  if (accumulate)  // the fused kernel
    loom::detail::assign_checked(lhs, rhs, std::true_type{}, opts);
  else
    loom::detail::assign_checked(lhs, rhs, std::false_type{}, opts);
  return 0;
}

// Sums over a body with + in it: products distributed over the sums, one sum-product per term
// (Galley's distribution of * over +). Each term keeps the summed indices.
template <class E> struct summed_of {
  using type = mp_list<>;
  static const E& body(const E& e) { return e; }
};
template <class I, class E> struct summed_of<expr::sum<I, E>> {
  using type = mp_push_front<typename summed_of<E>::type, I>;
  static const auto& body(const expr::sum<I, E>& e) { return summed_of<E>::body(e.body); }
};

template <class T, class... Is> auto terms_of(const expr::access<T, Is...>& a) {
  return std::tuple{a};
}
template <class L, class R> auto terms_of(const expr::add<L, R>& e) {
  return std::tuple_cat(terms_of(e.lhs), terms_of(e.rhs));
}
template <class L, class Rs> auto times_each(const L& l, const Rs& rs) {
  return loom::detail::unpack(
      [&](const auto&... r) {
        return std::tuple{expr::mul<L, std::remove_cvref_t<decltype(r)>>{l, r}...};
      },
      rs);
}
template <class L, class R> auto terms_of(const expr::mul<L, R>& e) {
  const auto rs = terms_of(e.rhs);
  return loom::detail::unpack(
      [&](const auto&... l) { return std::tuple_cat(times_each(l, rs)...); }, terms_of(e.lhs));
}

template <class Rhs> auto sum_product_terms(const Rhs& rhs) {
  using S = typename summed_of<Rhs>::type;
  return loom::detail::unpack(
      [](const auto&... t) { return std::tuple{wrap_sums<S>::apply(t)...}; },
      terms_of(summed_of<Rhs>::body(rhs)));
}

template <class Tuple> struct all_sum_products;
template <class... Ts> struct all_sum_products<std::tuple<Ts...>> {
  // every term a product of accesses that uses every summed index (no sum over an absent index)
  static constexpr bool value = (... && flatten<Ts>::of_accesses);
};

template <class Options, class Lhs, class Rhs>
std::size_t decompose_any(Lhs lhs, const Rhs& rhs, bool accumulate, const Options& opts) {
  if constexpr (flatten<Rhs>::of_accesses) {
    return decompose_product(lhs, rhs, accumulate, opts);
  } else {
    using terms_t = decltype(sum_product_terms(rhs));
    static_assert(
        all_sum_products<terms_t>::value,
        "loom::decompose: the right-hand side must be sums over products of tensor accesses, "
        "possibly with + between them (e.g. sum(p, sum(j, S(i, p) * (P(p, j) + Q(p, j)) * w(j)))), "
        "with every summed index used by every term; or map(f, such an expression)");
    const auto terms = sum_product_terms(rhs);
    std::size_t first = 0;
    std::size_t t = 0;
    loom::detail::unpack(
        [&](const auto&... term) {
          (..., [&] {
            const std::size_t c = decompose_product(lhs, term, accumulate || t > 0, opts);
            if (t++ == 0) first = c;
          }());
        },
        terms);
    return first;
  }
}

template <class Rhs> struct is_unary_map : std::false_type {};
template <class F, class E> struct is_unary_map<expr::map<F, E>> : std::true_type {};

}  // namespace detail::ve

namespace detail::ve {
// decompose() once the output is known not to be read by an operand.
template <class Options, class Lhs, class R>
std::size_t decompose_into(Lhs lhs, const R& rhs, bool accumulate, const Options& opts) {
  using Rhs = std::remove_cvref_t<R>;
  if constexpr (detail::ve::is_unary_map<Rhs>::value) {
    return [&]<class T, class... Is>(const expr::access<T, Is...>&) {
      using tensor_t = std::remove_const_t<T>;
      tensor_t inner(lhs.tensor->shape());
      const std::size_t c = detail::ve::decompose_any(expr::access<tensor_t, Is...>{&inner},
                                                      std::get<0>(rhs.args), false, opts);
      using inner_access = expr::access<const tensor_t, Is...>;
      lhs = expr::map<decltype(rhs.f), inner_access>{
          rhs.f, std::tuple<inner_access>{inner_access{&inner}}};
      return c;
    }(lhs);
  } else {
    return detail::ve::decompose_any(lhs, rhs, accumulate, opts);
  }
}
}  // namespace detail::ve

/// `lhs = rhs` for a sum-product `rhs` (sums over a product of tensor accesses), evaluated by the
/// cheapest of: one fused kernel, or a prefix of a variable-elimination order that materialises
/// one intermediate per index it eliminates (dense or sparse, by estimated fill; shared between
/// steps that compute the same sum over the same tensors), then sums the other indices out in one
/// fused kernel. Sums over products with `+` in them are distributed
/// into one sum-product per term, and `map(f, e)` decomposes `e` then applies `f`. An operand that
/// reads the output's storage sees its old values (the result is computed into a copy). Returns
/// the candidate run for the (first) sum-product (0: fused).
/// `opts` (a `loom::options` with `opt::eliminate`) may add intermediate formats and force a
/// candidate (0: fused; c: elimination prefix c - 1), its intermediates' formats (one for all
/// one- and two-index intermediates, or one per step) and its reuse mask (bit t: step t reuses an
/// earlier step's intermediate that computes the same sum over the same tensors), for tests and
/// benchmarks that compare plans; `loom::assign(lhs, rhs, opts)` calls this.
template <class Lhs, class R, options_type O = options<opt::eliminate>>
std::size_t decompose(Lhs lhs, const R& rhs, const O& opts = {}) {
  using Rhs = std::remove_cvref_t<R>;
  if constexpr (!detail::ve::is_unary_map<Rhs>::value && detail::ve::flatten<Rhs>::of_accesses)
    static_assert(detail::ve::program<Lhs, Rhs>::ok,
                  "loom::decompose: the right-hand side must be sums over a product of tensor "
                  "accesses");
  if (opts.candidate && !detail::ve::flatten<Rhs>::of_accesses)
    throw error("loom::decompose: a candidate can be forced only for one sum over a product");
  std::size_t chosen = 0;
  detail::run_unaliased(lhs, rhs, [&](auto& target, bool) {
    chosen = detail::ve::decompose_into(target, rhs, false, opts);
  });
  return chosen;
}

/// `lhs = rhs` with `opt::eliminate` in the options: loom::decompose.
template <class OT, class... Os, class R, options_type O>
  requires(std::remove_cvref_t<O>::eliminate)
void assign(expr::access<OT, Os...> lhs, const R& rhs, const O& opts) {
  decompose(lhs, rhs, opts);
}

/// The candidates of `decompose(lhs, rhs, opts)` in words, with their logical costs and the
/// choice: `loom::explain(lhs, rhs, loom::options<loom::opt::eliminate>{})`.
template <class Lhs, class R, options_type O>
  requires(std::remove_cvref_t<O>::eliminate)
std::string explain(const Lhs& lhs, const R& rhs, const O& opts) {
  using Rhs = std::remove_cvref_t<R>;
  std::ostringstream s;
  if constexpr (detail::ve::is_unary_map<Rhs>::value) {
    s << "map(f, ...) applied to the result of:\n" << explain(lhs, std::get<0>(rhs.args), opts);
  } else if constexpr (!detail::ve::flatten<Rhs>::of_accesses) {
    const auto terms = detail::ve::sum_product_terms(rhs);
    std::size_t t = 0;
    loom::detail::unpack(
        [&](const auto&... term) {
          (..., (s << "term " << ++t << " of " << sizeof...(term) << " (* distributed over +):\n"
                   << explain(lhs, term, opts)));
        },
        terms);
  } else {
    const decomposition_choice c = plan_decomposition(lhs, rhs, opts);
    s << "decomposition candidates (Galley's logical cost; at most " << max_elimination_orders
      << " elimination prefixes, loom::limits::elimination_orders):\n";
    for (std::size_t k = 0; k < c.cost.size(); ++k)
      s << "  " << (k == c.chosen ? "* " : "  ") << "#" << k << " cost "
        << static_cast<std::int64_t>(c.cost[k] + 0.5) << ": " << c.description[k] << "\n";
  }
  return s.str();
}

}  // namespace loom

#endif  // LOOM_EXEC_DECOMPOSE_HPP
