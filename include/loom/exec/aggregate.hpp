// Defines how the driver computes `max(j, e)` and `min(j, e)` (expr::aggregate): e first, as a
// kernel of its own, then its entries reduced over j into a dense tensor over e's other indices,
// which the expression then reads (exec/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_AGGREGATE_HPP
#define LOOM_EXEC_AGGREGATE_HPP

#include <loom/core/work_counters.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/expr/transform.hpp>
#include <loom/expr/visit.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/rewrite/hoist.hpp>

#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

namespace loom::detail::aggr {

template <class N> struct is_aggregate : std::false_type {};
template <class Op, class I, class E>
struct is_aggregate<expr::aggregate<Op, I, E>> : std::true_type {};

template <class E> struct contains : std::false_type {};
template <class Op, class I, class E>
struct contains<expr::aggregate<Op, I, E>> : std::true_type {};
template <class L, class R>
struct contains<expr::add<L, R>> : std::bool_constant<contains<L>::value || contains<R>::value> {};
template <class L, class R>
struct contains<expr::mul<L, R>> : std::bool_constant<contains<L>::value || contains<R>::value> {};
template <class P, class E>
struct contains<expr::where<P, E>> : std::bool_constant<contains<P>::value || contains<E>::value> {
};
template <class I, class E> struct contains<expr::sum<I, E>> : contains<E> {};
template <class I, class E> struct contains<expr::expand<I, E>> : contains<E> {};
template <class F, class... Es>
struct contains<expr::map<F, Es...>> : std::bool_constant<(contains<Es>::value || ...)> {};

/// Whether E has a max or min aggregate.
template <class E> inline constexpr bool has_aggregates_v = contains<std::remove_cvref_t<E>>::value;

/// The tensor that holds e before the reduction: dense for one index, a dense matrix (dcsr when e
/// is statically sparse) for two, csf beyond.
template <class V, class E, std::size_t N>
using body_tensor = tensor<
    V,
    std::conditional_t<
        N == 1, dense_vector,
        std::conditional_t<
            N == 2, std::conditional_t<rewrite::hoisted_dense_v<E>, dense_matrix, dcsr>, csf<N>>>>;

/// The temporaries an expression's aggregates were computed into (kept for its kernel).
using kept = std::vector<std::shared_ptr<void>>;

/// `e` with every outermost aggregate computed (its body by `assign(target, body)`, then reduced)
/// and read from a dense tensor over its free indices (a literal when it has none).
template <class E, class Assign> auto materialize(const E& e, kept& keep, Assign&& assign) {
  return expr::replace_matching<is_aggregate>(
      e, [&]<class Op, class I, class B>(const expr::aggregate<Op, I, B>& a) {
        using V = expr::value_type_t<B>;
        using body_indices = expr::free_indices_t<B>;
        using rest = expr::free_indices_t<expr::aggregate<Op, I, B>>;
        constexpr std::size_t n = boost::mp11::mp_size<body_indices>::value;
        constexpr std::size_t r = boost::mp11::mp_size<rest>::value;
        constexpr std::size_t at = boost::mp11::mp_find<body_indices, I>::value;
        using T = body_tensor<V, B, n>;
        using R = tensor<V, std::conditional_t<r == 0, format<>, dense_n<r>>>;
        // the body
        const auto body = [&]<class... Is>(boost::mp11::mp_list<Is...>) {
          auto t = std::make_shared<T>(typename T::shape_type{expr::extent_read<Is>(a.body)...});
          expr::access<T, Is...> target{t.get()};
          assign(target, a.body);
          return t;
        }(body_indices{});
        // the reduction: Op over the stored entries, and zero where a fiber has fewer than the extent
        std::array<std::int64_t, r> shape{};
        {
          std::size_t k = 0;
          for (std::size_t m = 0; m < n; ++m)
            if (m != at) shape[k++] = body->extent(m);
        }
        auto out = std::make_shared<R>(shape);
        const auto vals = out->values();  // a span over the dense array
        std::vector<std::int64_t> stored(vals.size(), 0);
        body->for_each_stored([&](const auto& c, const V& v) {
          std::int64_t cell = 0;
          for (std::size_t m = 0; m < n; ++m)
            if (m != at) cell = cell * body->extent(m) + c[m];
          const auto p = static_cast<std::size_t>(cell);
          vals[p] = stored[p]++ == 0 ? v : Op::pick(vals[p], v);
        });
        const std::int64_t along = body->extent(at);
        for (std::size_t p = 0; p < vals.size(); ++p)
          if (stored[p] < along) vals[p] = stored[p] == 0 ? V(0) : Op::pick(vals[p], V(0));
        LOOM_COUNT_WORK_N(writes, static_cast<std::int64_t>(vals.size()));
        keep.push_back(body);
        keep.push_back(out);
        if constexpr (r == 0) {
          return expr::literal<V>{vals[0]};
        } else {
          return [&]<class... Is>(boost::mp11::mp_list<Is...>) {
            return expr::access<const R, Is...>{out.get()};
          }(rest{});
        }
      });
}

}  // namespace loom::detail::aggr

#endif  // LOOM_EXEC_AGGREGATE_HPP
