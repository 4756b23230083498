// Defines loom::decompose(lhs, rhs): a sum-product program split by a prefix of a
// variable-elimination order into kernels with materialised intermediates, the indices after the
// prefix co-eliminated in one fused kernel (Galley's logical optimizer, notes 001 §3.3-3.7). The
// candidate prefixes and their kernels are instantiated at compile time (bounded by
// LOOM_MAX_ELIMINATION_ORDERS); the cheapest under the logical cost is chosen at run time from
// statistics and cached by a coarse signature (optimize/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_DECOMPOSE_HPP
#define LOOM_EXEC_DECOMPOSE_HPP

#include <loom/exec/evaluate.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/optimize/chain_bound_estimator.hpp>
#include <loom/optimize/plan_choice.hpp>
#include <loom/optimize/statistics_cache.hpp>

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

#ifndef LOOM_MAX_ELIMINATION_ORDERS
#  define LOOM_MAX_ELIMINATION_ORDERS 8
#endif
#ifndef LOOM_MAX_DENSE_INTERMEDIATE_CELLS
#  define LOOM_MAX_DENSE_INTERMEDIATE_CELLS (std::int64_t{1} << 26)
#endif
// Bitmap intermediates are a third variant of every candidate: +70% compile time on the decompose
// tests, and on the 4-walk graphs never faster than the better of sorted and dense (docs/optimizer.md),
// so they are opt-in. Define it the same way in every translation unit of a program.
#ifndef LOOM_BITMAP_INTERMEDIATES
#  define LOOM_BITMAP_INTERMEDIATES 0
#endif
// A format per intermediate instead of one per candidate: every combination of the formats of a
// candidate's one- and two-index intermediates is a variant of it, each instantiating the
// candidate's kernels again (docs/optimizer.md measures the compile time), so it is opt-in.
// Define it the same way in every translation unit of a program.
// Hashed intermediates (Galley's hash level: sorted coordinates plus a table that locates them in
// O(1)) are a variant of every candidate too, for the same reason opt-in. Define it the same way
// in every translation unit of a program.
#ifndef LOOM_HASHED_INTERMEDIATES
#  define LOOM_HASHED_INTERMEDIATES 0
#endif
#ifndef LOOM_INTERMEDIATE_FORMAT_PER_STEP
#  define LOOM_INTERMEDIATE_FORMAT_PER_STEP 0
#endif

namespace loom {

/// The most elimination prefixes `decompose` instantiates per program (plus the fused kernel).
inline constexpr std::size_t max_elimination_orders = LOOM_MAX_ELIMINATION_ORDERS;
/// The most cells `decompose` stores densely in one intermediate (a dense one- or two-index
/// intermediate is chosen when cheaper than a sorted sparse one and not larger than this).
inline constexpr std::int64_t max_dense_intermediate_cells = LOOM_MAX_DENSE_INTERMEDIATE_CELLS;

/// How `decompose` stores a candidate's one- and two-index intermediates (Galley's output formats,
/// notes 001 §4.4): sorted (csf, a sparse vector), dense, bitmap (Galley's bytemap: dense values
/// with presence bits, written in place, read by their set bits) or hashed (sorted entries plus a
/// hash table per fiber: readers locate an index in O(1) instead of intersecting with the list).
/// Intermediates with three or more indices are sorted.
enum class intermediate_format : std::uint8_t { sorted, dense, bitmap, hashed };
/// Every intermediate format, in the order `decompose` costs them (bitmap only with
/// LOOM_BITMAP_INTERMEDIATES=1, hashed only with LOOM_HASHED_INTERMEDIATES=1).
inline constexpr std::array<intermediate_format, 4> intermediate_formats{
    intermediate_format::sorted, intermediate_format::dense, intermediate_format::bitmap,
    intermediate_format::hashed};
/// "sorted", "dense", "bitmap" or "hashed".
constexpr const char* intermediate_format_name(intermediate_format f) {
  return f == intermediate_format::dense    ? "dense"
         : f == intermediate_format::bitmap ? "bitmap"
         : f == intermediate_format::hashed ? "hashed"
                                            : "sorted";
}
/// Whether this translation unit instantiates intermediates of format `f` (sorted and dense
/// always). The macros are template arguments, so units built with other values (a test program
/// that links both) each call their own function, not one the linker picked.
template <bool Bitmap = LOOM_BITMAP_INTERMEDIATES != 0,
          bool Hashed = LOOM_HASHED_INTERMEDIATES != 0>
constexpr bool intermediate_format_compiled(intermediate_format f) {
  return f == intermediate_format::bitmap   ? Bitmap
         : f == intermediate_format::hashed ? Hashed
                                            : true;
}

namespace detail::ve {

using namespace boost::mp11;

// A candidate's format assignment, as one number: two bits per elimination step, step t's
// intermediate_format in bits 2t and 2t + 1. `uniform_code` gives every step the same format.
inline constexpr std::size_t max_coded_steps = 16;
constexpr intermediate_format format_at(std::size_t code, std::size_t step) {
  return static_cast<intermediate_format>(step < max_coded_steps ? code >> 2 * step & 3u : 0u);
}
constexpr std::size_t uniform_code(intermediate_format f) {
  std::size_t code = 0;
  for (std::size_t t = 0; t < max_coded_steps; ++t) code |= static_cast<std::size_t>(f) << 2 * t;
  return code;
}

// A sum-product: sum(s1, sum(s2, ... A * B * ...)) flattened into summed indices and factors.
template <class E> struct flatten {
  static constexpr bool ok = false;
  using summed = mp_list<>;
  using factors = mp_list<>;
};
template <class T, class... Is> struct flatten<expr::access<T, Is...>> {
  static constexpr bool ok = sizeof...(Is) > 0;
  using summed = mp_list<>;
  using factors = mp_list<expr::access<T, Is...>>;
};
template <class L, class R> struct flatten<expr::mul<L, R>> {
  static constexpr bool ok = flatten<L>::ok && flatten<R>::ok &&
                             mp_empty<typename flatten<L>::summed>::value &&
                             mp_empty<typename flatten<R>::summed>::value;
  using summed = mp_list<>;
  using factors = mp_append<typename flatten<L>::factors, typename flatten<R>::factors>;
};
template <class I, class E> struct flatten<expr::sum<I, E>> {
  static constexpr bool ok = flatten<E>::ok && !mp_contains<typename flatten<E>::summed, I>::value;
  using summed = mp_push_front<typename flatten<E>::summed, I>;
  using factors = typename flatten<E>::factors;
};

// The accesses of a flattened product, left to right, as a tuple of access values.
template <class T, class... Is> auto collect(const expr::access<T, Is...>& a) {
  return std::tuple{a};
}
template <class L, class R> auto collect(const expr::mul<L, R>& e) {
  return std::tuple_cat(collect(e.lhs), collect(e.rhs));
}
template <class I, class E> auto collect(const expr::sum<I, E>& e) { return collect(e.body); }

template <class A> struct tensor_of_access_impl;
template <class T, class... Is> struct tensor_of_access_impl<expr::access<T, Is...>> {
  using type = std::remove_const_t<T>;
};
template <class A> using tensor_of_access = typename tensor_of_access_impl<A>::type;

template <class A> struct indices_of;
template <class T, class... Is> struct indices_of<expr::access<T, Is...>> {
  using type = mp_list<Is...>;
};

// The ordered selections of K distinct elements of a list (the permutations when K is its size).
template <class L, std::size_t K> struct selections {
  template <class X> struct prepend {
    template <class P> using fn = mp_push_front<P, X>;
  };
  template <class X>
  using starting_with =
      mp_transform_q<prepend<X>, typename selections<mp_remove<L, X>, K - 1>::type>;
  using type = mp_apply<mp_append, mp_push_front<mp_transform<starting_with, L>, mp_list<>>>;
};
template <class L> struct selections<L, 0> {
  using type = mp_list<mp_list<>>;
};

// The elimination prefixes of a sum-product over the summed indices L: one index eliminated, then
// two, ... up to all (the indices after the prefix are summed in one fused kernel; the fused kernel
// of all of L is candidate 0). Full orders stay candidates: their last kernel is pointwise over
// intermediates, which may be shared. Shortest first, generated only up to Cap.
template <class L, std::size_t Cap, std::size_t K = 1, class Acc = mp_list<>>
struct elimination_prefixes {
  using type = mp_take_c<Acc, std::min(Cap, mp_size<Acc>::value)>;
};
template <class L, std::size_t Cap, std::size_t K, class Acc>
  requires(K <= mp_size<L>::value && mp_size<Acc>::value < Cap)
struct elimination_prefixes<L, Cap, K, Acc> {
  using type = typename elimination_prefixes<L, Cap, K + 1,
                                             mp_append<Acc, typename selections<L, K>::type>>::type;
};

// A factor: mp_list<id, indices>; ids below the input count are inputs, the rest intermediates.
template <class F> using factor_id = mp_first<F>;
template <class F> using factor_indices = mp_second<F>;
template <class S> struct uses {
  template <class F> using fn = mp_contains<factor_indices<F>, S>;
};

// Eliminating S: the factors using S become one intermediate over their other indices.
template <class Factors, class S, class Id> struct eliminate {
  using in = mp_copy_if_q<Factors, uses<S>>;
  static_assert(!mp_empty<in>::value, "loom::decompose: a summed index is used by no factor");
  using indices = mp_remove<
      mp_unique<mp_apply<mp_append, mp_push_front<mp_transform<factor_indices, in>, mp_list<>>>>,
      S>;
};

// The indices of factor F in the order its storage nests them (inputs: their format's level
// order; intermediates: as made).
template <class Tensors, class F, bool Input = (factor_id<F>::value < mp_size<Tensors>::value)>
struct stored_indices {
  using type = factor_indices<F>;
};
template <class Tensors, class F> struct stored_indices<Tensors, F, true> {
  using format = typename std::remove_cvref_t<mp_at<Tensors, factor_id<F>>>::format_type;
  template <class K> using at_level = mp_at_c<factor_indices<F>, format::modes[K::value]>;
  using type = mp_transform<at_level, mp_iota_c<format::order>>;
};

// A loop order over the indices of All that keeps every list of Stored where it can (Kahn's
// algorithm, ties and cycles broken by the order of All), and whether it keeps all of them.
template <std::size_t N> struct loop_order {
  std::array<std::size_t, N> positions{};
  bool concordant = true;
};
// before[a][b]: index a of All comes right before b in one of the lists of Stored.
template <class All, class... Stored> constexpr auto storage_precedence(mp_list<Stored...>) {
  constexpr std::size_t n = mp_size<All>::value;
  std::array<std::array<bool, n>, n> before{};
  (..., [&]<class... Xs>(mp_list<Xs...>) {
    constexpr std::array<std::size_t, sizeof...(Xs)> p{mp_find<All, Xs>::value...};
    for (std::size_t t = 0; t + 1 < p.size(); ++t) before[p[t]][p[t + 1]] = true;
  }(Stored{}));
  return before;
}
template <class All, class... Stored> constexpr auto concordant_order(mp_list<Stored...> stored) {
  constexpr std::size_t n = mp_size<All>::value;
  const auto before = storage_precedence<All>(stored);  // before[a][b]: a must come before b
  loop_order<n> result;
  std::array<bool, n> placed{};
  for (std::size_t t = 0; t < n; ++t) {
    std::size_t pick = n;
    for (std::size_t c = 0; c < n && pick == n; ++c) {
      if (placed[c]) continue;
      bool free = true;
      for (std::size_t q = 0; q < n; ++q) free = free && (placed[q] || !before[q][c]);
      if (free) pick = c;
    }
    if (pick == n) result.concordant = false;
    for (std::size_t c = 0; c < n && pick == n; ++c)  // a cycle: the first one left
      if (!placed[c]) pick = c;
    placed[pick] = true;
    result.positions[t] = pick;
  }
  return result;
}
// Whether one loop order keeps every list of Stored (no cycle in their precedences).
template <class All, class... Stored> constexpr bool concordant_exists(mp_list<Stored...> stored) {
  return concordant_order<All>(stored).concordant;
}

// The indices of the intermediate that eliminating S makes, in the order of a loop nest
// concordant with the step's operands, so that the step writes it in order (appended, or one
// workspace row at a time) instead of collecting and sorting its entries.
template <class Tensors, class Factors, class S> struct concordant_made {
  using e = eliminate<Factors, S, mp_size_t<0>>;
  using all = mp_unique<
      mp_apply<mp_append, mp_push_front<mp_transform<factor_indices, typename e::in>, mp_list<>>>>;
  template <class F> using stored = typename stored_indices<Tensors, F>::type;
  static constexpr auto positions =
      concordant_order<all>(mp_transform<stored, typename e::in>{}).positions;
  template <class K> using at = mp_at_c<all, positions[K::value]>;
  using type = mp_remove<mp_transform<at, mp_iota<mp_size<all>>>, S>;
};
template <class Tensors, class Factors, class S>
using concordant_made_t = typename concordant_made<Tensors, Factors, S>::type;

// A greedy elimination order (the min-fill rule of variable elimination, on the program's
// structure): each time, the summed index whose intermediate has the fewest indices (the first
// such in the written order).
template <class Factors, class Summed, class Order = mp_list<>> struct greedy_order {
  template <class S> using arity = mp_size<typename eliminate<Factors, S, mp_size_t<0>>::indices>;
  using arities = mp_transform<arity, Summed>;
  using best = mp_at<Summed, mp_find<arities, mp_min_element<arities, mp_less>>>;
  using made = mp_list<mp_size_t<0>, typename eliminate<Factors, best, mp_size_t<0>>::indices>;
  using type = typename greedy_order<mp_push_back<mp_remove_if_q<Factors, uses<best>>, made>,
                                     mp_remove<Summed, best>, mp_push_back<Order, best>>::type;
};
template <class Factors, class Order> struct greedy_order<Factors, mp_list<>, Order> {
  using type = Order;
};

// How many elimination prefixes n summed indices have: n + n(n-1) + ... + n!.
constexpr std::size_t prefix_count(std::size_t n) {
  std::size_t total = 0, term = 1;
  for (std::size_t k = 0; k < n; ++k) total += term *= n - k;
  return total;
}

// The candidates: every prefix when there are at most Cap (exact search, small programs); else the
// prefixes of the greedy order first, then the shortest others, up to Cap.
template <class Factors, class Summed, std::size_t Cap> struct candidate_prefixes {
  static constexpr std::size_t n = mp_size<Summed>::value;
  static constexpr bool exact = prefix_count(n) <= Cap;
  using greedy = typename greedy_order<Factors, Summed>::type;
  template <class K> using greedy_prefix = mp_take<greedy, mp_size_t<K::value + 1>>;
  using greedy_prefixes = mp_transform<greedy_prefix, mp_iota_c<n>>;
  using shortest = typename elimination_prefixes<Summed, Cap + n>::type;
  using merged = mp_unique<mp_append<greedy_prefixes, shortest>>;
  using type = mp_if_c<exact, shortest, mp_take_c<merged, std::min(Cap, mp_size<merged>::value)>>;
};

// Common subexpressions (notes 001 §3.7): a step whose factors are all inputs and that computes,
// up to a renaming of indices, what an earlier such step computed over the same tensors can reuse
// that intermediate: as it is, or transposed when the renaming permutes its indices. The match is
// structural (here, at compile time); that the tensors are the same objects is checked at run
// time, and the cost model decides whether reusing beats recomputing.
inline constexpr int max_step_factors = 8, max_step_indices = 16;

struct step_shape {
  int factors = 0;
  bool leaf = true;  // every factor an input
  int tensor[max_step_factors]{};
  int arity[max_step_factors]{};
  int index[max_step_factors][max_step_indices]{};
  int summed = 0;
  int made_count = 0;
  int made[max_step_indices]{};
};

struct twin_match {
  int twin = -1;                   // the earlier step, or -1
  int made[max_step_indices]{};    // the twin's intermediate indices, renamed to this step's
  int factor[max_step_factors]{};  // the twin's factor f is this step's factor factor[f]
};

// Tries every pairing of the factors (at most a few) for an index renaming t -> u.
constexpr bool match_shapes(const step_shape& t, const step_shape& u, twin_match& m) {
  if (!t.leaf || !u.leaf || t.factors != u.factors || t.made_count != u.made_count) return false;
  int perm[max_step_factors]{};
  for (int f = 0; f < u.factors; ++f) perm[f] = f;
  do {
    int to[max_step_indices], from[max_step_indices];
    for (int x = 0; x < max_step_indices; ++x) to[x] = from[x] = -1;
    bool ok = true;
    auto bind = [&](int a, int b) {
      if (to[a] == -1 && from[b] == -1) {
        to[a] = b;
        from[b] = a;
      }
      return to[a] == b;
    };
    for (int f = 0; f < t.factors && ok; ++f) {
      const int g = perm[f];
      ok = t.tensor[f] == u.tensor[g] && t.arity[f] == u.arity[g];
      for (int p = 0; p < t.arity[f] && ok; ++p) ok = bind(t.index[f][p], u.index[g][p]);
    }
    ok = ok && bind(t.summed, u.summed);
    if (ok) {
      for (int x = 0; x < t.made_count; ++x) m.made[x] = to[t.made[x]];
      for (int f = 0; f < t.factors; ++f) m.factor[f] = perm[f];
      return true;
    }
  } while (std::next_permutation(perm, perm + u.factors));
  return false;
}

template <class Universe, class Tensors, class S, class In, class Made>
constexpr step_shape shape_of() {
  step_shape s;
  s.summed = static_cast<int>(mp_find<Universe, S>::value);
  s.made_count = static_cast<int>(mp_size<Made>::value);
  mp_for_each<mp_iota<mp_size<Made>>>([&](auto x) {
    s.made[x] = static_cast<int>(mp_find<Universe, mp_at<Made, decltype(x)>>::value);
  });
  s.factors = static_cast<int>(mp_size<In>::value);
  mp_for_each<mp_iota<mp_size<In>>>([&](auto f) {
    using F = mp_at<In, decltype(f)>;
    if constexpr (factor_id<F>::value >= mp_size<Tensors>::value) {
      s.leaf = false;
    } else {
      using T = mp_at<Tensors, factor_id<F>>;
      s.tensor[f] = static_cast<int>(mp_find<mp_unique<Tensors>, T>::value);
      s.arity[f] = static_cast<int>(mp_size<factor_indices<F>>::value);
      mp_for_each<mp_iota<mp_size<factor_indices<F>>>>([&](auto p) {
        s.index[f][p] =
            static_cast<int>(mp_find<Universe, mp_at<factor_indices<F>, decltype(p)>>::value);
      });
    }
  });
  return s;
}

// A step: mp_list<summed index, factors in, made factor, twin step (mp_int, -1: none), the twin's
// factor pairing (mp_list of mp_int), the twin's modes in this step's intermediate (a list)>.
template <class Step> using step_index = mp_first<Step>;
template <class Step> using step_inputs = mp_second<Step>;
template <class Step> using step_made = mp_third<Step>;
template <class Step> using step_twin = mp_at_c<Step, 3>;
template <class Step> using step_pairing = mp_at_c<Step, 4>;
template <class Step> using step_from_twin = mp_at_c<Step, 5>;
template <class Step>
using step_relaid =
    mp_bool<!std::is_same_v<step_from_twin<Step>, mp_iota<mp_size<step_from_twin<Step>>>>>;

// `from` with its modes moved: mode p goes to mode FromTwin[p] (a transposition).
template <class To, class From, class... Ps>
void relayout(To& to, const From& from, mp_list<Ps...>) {
  constexpr std::size_t N = sizeof...(Ps);
  constexpr std::array<std::size_t, N> at{Ps::value...};
  typename To::shape_type shape{};
  for (std::size_t p = 0; p < N; ++p) shape[at[p]] = from.extent(p);
  if constexpr (To::format_type::all_dense) {  // identity modes on both sides: row-major cells
    To out(shape);
    std::array<std::int64_t, N> stride{}, extent{}, to_stride{};
    std::int64_t s = 1;
    for (std::size_t m = N; m-- > 0;) to_stride[m] = s, s *= shape[m];
    for (std::size_t p = 0; p < N; ++p) extent[p] = from.extent(p), stride[p] = to_stride[at[p]];
    loom::detail::permute_dense(from.values().data(), out.values().data(), extent, stride);
    to = std::move(out);
  } else {
    std::vector<std::array<std::int64_t, N>> crd;
    std::vector<typename To::value_type> vals;
    crd.reserve(static_cast<std::size_t>(from.nnz()));
    vals.reserve(static_cast<std::size_t>(from.nnz()));
    from.for_each_stored([&](const auto& c, const auto& v) {
      std::array<std::int64_t, N> x{};
      for (std::size_t p = 0; p < N; ++p) x[at[p]] = c[p];
      crd.push_back(x);
      vals.push_back(v);
    });
    to = from_coo<typename To::format_type>(shape, crd, vals);
  }
}

template <class Universe, class Tensors, class Steps, class S, class In, class Made>
constexpr twin_match find_twin() {
  twin_match m;
  if constexpr (mp_size<In>::value <= max_step_factors &&
                mp_size<Universe>::value <= max_step_indices) {
    constexpr step_shape u = shape_of<Universe, Tensors, S, In, Made>();
    int t = 0;
    mp_for_each<mp_transform<mp_identity, Steps>>([&](auto st) {
      using P = typename decltype(st)::type;
      if (m.twin < 0 && step_twin<P>::value < 0 &&
          match_shapes(shape_of<Universe, Tensors, step_index<P>, step_inputs<P>,
                                factor_indices<step_made<P>>>(),
                       u, m))
        m.twin = t;
      ++t;
    });
  }
  return m;
}

template <class Universe, class Tensors, class Steps, class S, class In, class Made, class Id>
struct make_step {
  static constexpr twin_match m = find_twin<Universe, Tensors, Steps, S, In, Made>();
  // mode p of the twin's intermediate is mode from_twin[p] of this one
  template <class X>
  using from_twin_at = mp_find<Made, mp_at_c<Universe, static_cast<std::size_t>(m.made[X::value])>>;
  template <class F> using pairing_at = mp_int<m.factor[F::value]>;
  using from_twin = mp_if_c<(m.twin >= 0), mp_transform<from_twin_at, mp_iota<mp_size<Made>>>,
                            mp_iota<mp_size<Made>>>;
  using type = mp_list<S, In, mp_list<Id, Made>, mp_int<m.twin>,
                       mp_transform<pairing_at, mp_iota<mp_size<In>>>, from_twin>;
};

// Concordant: made indices in a concordant loop order (sparse intermediates, written in order),
// else in order of appearance (dense ones, written in place, where that keeps a shared
// intermediate in the layout its consumers read).
template <std::size_t Code, class Universe, class Tensors, class Order, class Factors,
          std::size_t Next, class Steps = mp_list<>>
struct plan_of {
  using steps = Steps;
  using remaining = Factors;
};
template <std::size_t Code, class Universe, class Tensors, class S, class... Rest, class Factors,
          std::size_t Next, class Steps>
struct plan_of<Code, Universe, Tensors, mp_list<S, Rest...>, Factors, Next, Steps> {
  using e = eliminate<Factors, S, mp_size_t<Next>>;
  static constexpr bool concordant =
      format_at(Code, mp_size<Steps>::value) != intermediate_format::dense;
  using made =
      mp_eval_if_c<!concordant, typename e::indices, concordant_made_t, Tensors, Factors, S>;
  using step =
      typename make_step<Universe, Tensors, Steps, S, typename e::in, made, mp_size_t<Next>>::type;
  using next = plan_of<Code, Universe, Tensors, mp_list<Rest...>,
                       mp_push_back<mp_remove_if_q<Factors, uses<S>>, step_made<step>>, Next + 1,
                       mp_push_back<Steps, step>>;
  using steps = typename next::steps;
  using remaining = typename next::remaining;
};

// An intermediate: sorted (csf, a sparse vector, a scalar) or, with one or two indices, dense,
// bitmap or hashed (dense rows over hashed columns when two): Galley's intermediate-format choice,
// notes 001 §4.4. The choice is one per candidate order, so that each step's kernel is
// instantiated once per format, not once per combination of its inputs' formats
// (LOOM_INTERMEDIATE_FORMAT_PER_STEP: one per intermediate). A slot holds its own tensor or points
// at a twin's.
template <class V, class Indices, intermediate_format F> struct intermediate_slot {
  static constexpr std::size_t order = mp_size<Indices>::value;
  static constexpr bool may_be_dense = order >= 1 && order <= 2;
  static constexpr intermediate_format kind = may_be_dense ? F : intermediate_format::sorted;
  static constexpr bool dense = kind == intermediate_format::dense;
  using bitmap_format = mp_if_c<order == 1, format<bitmap>, format<loom::dense, bitmap>>;
  using hashed_format = mp_if_c<order == 1, format<hashed>, format<loom::dense, hashed>>;
  using sorted_format =
      mp_if_c<order == 0, format<>, mp_if_c<order == 1, sparse_vector, csf<order>>>;
  using type = tensor<
      V,
      mp_if_c<dense, dense_n<order>,
              mp_if_c<kind == intermediate_format::bitmap, bitmap_format,
                      mp_if_c<kind == intermediate_format::hashed, hashed_format, sorted_format>>>>;
  std::optional<type> own;
  const type* made = nullptr;
};

/// Static facts of `lhs = rhs` decomposed.
template <class Lhs, class Rhs> struct program {
  using flat = flatten<Rhs>;
  static constexpr bool ok = flat::ok;
  using summed = typename flat::summed;
  using inputs = typename flat::factors;
  static constexpr std::size_t input_count = mp_size<inputs>::value;
  template <class K> using input_factor = mp_list<K, typename indices_of<mp_at<inputs, K>>::type>;
  using initial = mp_transform<input_factor, mp_iota_c<input_count>>;
  using orders = typename candidate_prefixes<initial, summed, max_elimination_orders>::type;
  // the summed indices that candidate Order leaves to its last, fused kernel
  template <class Order>
  using fused_rest = mp_remove_if_q<summed, mp_bind_front<mp_contains, Order>>;
  using tensors = mp_transform<tensor_of_access, inputs>;
  using universe = mp_unique<
      mp_apply<mp_append, mp_push_front<mp_transform<factor_indices, initial>, mp_list<>>>>;
  // sorted and bitmap intermediates take a loop order concordant with their step; dense ones
  // are written in place in any order and keep the written order
  // Code: the steps' formats (format_at); a dense step's made indices keep the written order
  template <class Order, std::size_t Code = 0>
  using plan = plan_of<Code, universe, tensors, Order, initial, input_count>;
  using V = expr::value_type_t<Rhs>;
};

template <class I, class Tuple> std::int64_t extent_of(const Tuple& inputs) {
  std::int64_t e = -1;
  std::apply(
      [&](const auto&... a) {
        (..., [&]<class T, class... Is>(const expr::access<T, Is...>& x) {
          std::size_t m = 0;
          (..., [&] {
            if (e < 0 && std::is_same_v<Is, I>) e = x.tensor->extent(m);
            ++m;
          }());
        }(a));
      },
      inputs);
  return e;
}

template <class... Is> std::string names(mp_list<Is...>) {
  std::string s;
  (..., (s += (s.empty() ? "" : ",") + std::string(Is::name)));
  return s;
}

// sum(I1, sum(I2, ... e)) over the indices of Summed.
template <class Summed> struct wrap_sums;
template <> struct wrap_sums<mp_list<>> {
  template <class E> static E apply(const E& e) { return e; }
};
template <class I, class... Is> struct wrap_sums<mp_list<I, Is...>> {
  template <class E> static auto apply(const E& e) {
    const auto inner = wrap_sums<mp_list<Is...>>::apply(e);
    return expr::sum<I, std::remove_cvref_t<decltype(inner)>>{inner};
  }
};

template <class A> auto product(const A& a) { return a; }
template <class A, class B, class... Rest>
auto product(const A& a, const B& b, const Rest&... rest) {
  return product(expr::mul<A, B>{a, b}, rest...);
}

}  // namespace detail::ve

/// What `decompose` considered and chose: candidate 0 is the fused kernel (no intermediate),
/// candidate c > 0 the elimination prefix c - 1 (its steps, then one fused kernel for the rest).
struct decomposition_choice {
  std::vector<std::string> description;  // per candidate, its kernels
  std::vector<double> cost;              // Galley's logical cost per candidate
  // per candidate: the format of its first one- or two-index intermediate (of all of them, unless
  // LOOM_INTERMEDIATE_FORMAT_PER_STEP chose a mix); sorted when it has none
  std::vector<intermediate_format> format;
  std::vector<std::vector<intermediate_format>> step_formats;  // per candidate, per step
  std::vector<std::size_t> variant;   // per candidate, which of its instantiated format assignments
  std::vector<std::size_t> variants;  // per candidate, how many it has (costed, instantiated)
  std::vector<std::uint32_t> reuse;   // per candidate, bit t: step t reuses its twin's intermediate
  std::size_t chosen = 0;
};

namespace detail::ve {

template <class Lhs, class Rhs> struct runner {
  using P = program<Lhs, Rhs>;
  using V = typename P::V;
  using inputs_tuple = decltype(collect(std::declval<const Rhs&>()));
  static constexpr std::size_t n_in = P::input_count;

  template <class Order, std::size_t Code>
  using steps_of = typename P::template plan<Order, Code>::steps;
  // the format code gives step t (the intermediate with factor id n_in + t) its format
  template <class Made> static constexpr std::size_t step_of = factor_id<Made>::value - n_in;
  template <std::size_t Code> struct slot_fn {
    template <class Step>
    using fn = intermediate_slot<V, factor_indices<step_made<Step>>,
                                 format_at(Code, step_of<step_made<Step>>)>;
  };
  template <class Order, std::size_t Code>
  using intermediates = mp_rename<mp_transform_q<slot_fn<Code>, steps_of<Order, Code>>, std::tuple>;
  // write costs per sorted entry and per dense cell (dense pays when over a third full); a bitmap
  // clears its cells (values and bits) and writes each entry in place, no sort (SpGEMM with 12% of
  // cells set: 0.55x the time of a sorted output), but its readers walk bits: 30 per entry puts
  // the choice near Galley's cut-offs (notes 001 §4.3: bytemap above 5% full, dense above 50%):
  // bitmap above about 7% full, dense above about 60%
  static constexpr double sparse_write = 60.0, dense_write = 20.0, bitmap_cell = 2.0,
                          bitmap_write = 30.0;
  // a hashed intermediate is written like a sorted one, then its tables are built (per entry) and,
  // with two indices, its rows' offsets (per row); every read of it is a probe
  static constexpr double hashed_write = 60.0, hashed_row = 2.0, hash_probe = 2.5;
  // a dense one-index intermediate is cleared (like a bitmap's cells) and written in place
  static constexpr double dense_vector_write = 2.0;

  template <class Step>
  using dense_capable = mp_bool<
      intermediate_slot<V, factor_indices<step_made<Step>>, intermediate_format::dense>::dense>;

  // Whether factor F fixes an order on its indices for the kernel reading it: a sparse input or a
  // sparse intermediate with two or more indices (dense ones are located in any order).
  template <std::size_t Code> struct constrains {
    template <class F>
    using fn =
        mp_bool<(mp_size<factor_indices<F>>::value >= 2) &&
                (factor_id<F>::value < n_in
                     ? !std::remove_cvref_t<
                           mp_at_c<typename P::tensors,
                                   std::min(factor_id<F>::value, n_in - 1)>>::format_type::all_dense
                     : !(format_at(Code, factor_id<F>::value - n_in) ==
                             intermediate_format::dense &&
                         mp_size<factor_indices<F>>::value <= 2))>;
  };
  template <class F> using stored_of = typename stored_indices<typename P::tensors, F>::type;
  // Whether the kernel over Factors must transpose one of them (no loop order suits every sparse
  // one): the planner then copies it, which the cost counts like writing a sparse intermediate.
  template <std::size_t Code, class Factors>
  static constexpr bool needs_transpose = [] {
    using sparse = mp_copy_if_q<Factors, constrains<Code>>;
    using all = mp_unique<
        mp_apply<mp_append, mp_push_front<mp_transform<factor_indices, Factors>, mp_list<>>>>;
    return !concordant_exists<all>(mp_transform<stored_of, sparse>{});
  }();
  template <std::size_t Code, class Factors>
  static double transpose_cost(const std::vector<std::optional<chain_bound_estimator>>& est) {
    if constexpr (!needs_transpose<Code, Factors>) {
      (void)est;
      return 0.0;
    } else {
      double smallest = std::numeric_limits<double>::infinity();
      bool bitmap_factor = false;
      mp_for_each<mp_transform<factor_id, mp_copy_if_q<Factors, constrains<Code>>>>([&](auto id) {
        constexpr std::size_t f = decltype(id)::value;
        smallest = std::min(smallest, est[f]->estimate());
        bitmap_factor = bitmap_factor ||
                        (f >= n_in && format_at(Code, f - n_in) == intermediate_format::bitmap);
      });
      // a bitmap is transposed through its entries, cell by cell (zenios 4-walks: 4x the sorted plan)
      if (bitmap_factor) return std::numeric_limits<double>::infinity();
      return sparse_write * smallest;
    }
  }
  // Whether factor F is read by iteration: a sparse input whose innermost level cannot locate
  // (hashed and bitmap ones are located), or a sorted intermediate.
  template <std::size_t Code, class F>
  static constexpr bool iterated = [] {
    constexpr std::size_t id = factor_id<F>::value;
    if constexpr (id < n_in) {
      using format = typename std::remove_cvref_t<mp_at_c<typename P::tensors, id>>::format_type;
      return !format::all_dense && !format::properties[format::order - 1].random_access;
    } else {
      return intermediate_slot<V, factor_indices<F>, format_at(Code, id - n_in)>::kind ==
             intermediate_format::sorted;
    }
  }();
  template <std::size_t Code> struct iterated_q {
    template <class F> using fn = mp_bool<iterated<Code, F>>;
  };
  template <class F> using one_index = mp_bool<mp_size<factor_indices<F>>::value == 1>;

  // How often a kernel over Factors visits a fiber along x of another factor than T: once per
  // binding of the indices that precede x in the storage orders of its iterated factors, joined
  // over every factor but T. In the fused y(i) = sum(j, k, A(i,j) C(j,k) x(k)) the row of C is
  // visited once per entry of A, which may be more or fewer times than C has rows. Nullopt when T
  // has one other factor: then each of that factor's fibers is visited once (T1 = B T0: B's rows).
  template <std::size_t Code, class Factors, class T, class x>
  static std::optional<double> outer_bindings(
      const std::vector<std::optional<chain_bound_estimator>>& est) {
    using others = mp_remove<Factors, T>;
    if constexpr (mp_size<others>::value < 2) {
      (void)est;
      return std::nullopt;
    } else {
      using all = mp_unique<
          mp_apply<mp_append, mp_push_front<mp_transform<factor_indices, others>, mp_list<>>>>;
      constexpr std::size_t n = mp_size<all>::value;
      static constexpr auto outer = [] {
        auto before = storage_precedence<all>(
            mp_transform<stored_of, mp_copy_if_q<others, iterated_q<Code>>>{});
        for (std::size_t m = 0; m < n; ++m)  // transitive closure
          for (std::size_t a = 0; a < n; ++a)
            for (std::size_t b = 0; b < n; ++b)
              before[a][b] = before[a][b] || (before[a][m] && before[m][b]);
        std::array<bool, n> o{};
        for (std::size_t a = 0; a < n; ++a) o[a] = before[a][mp_find<all, x>::value];
        return o;
      }();
      std::vector<std::string> inner;
      mp_for_each<mp_iota_c<n>>([&](auto a) {
        if (!outer[a]) inner.emplace_back(mp_at_c<all, a>::name);
      });
      std::vector<chain_bound_estimator> parts;
      mp_for_each<mp_transform<factor_id, others>>([&](auto id) { parts.push_back(*est[id]); });
      return std::max(1.0, chain_bound_estimator::conjunction(parts).aggregate(inner).estimate());
    }
  }
  // F's fibers along x: how many the kernel visits (outer_bindings, else one visit each) and
  // their mean length.
  struct fiber_walk {
    double visits, length;
  };
  template <class F, class x>
  static fiber_walk walk_of(const std::vector<std::optional<chain_bound_estimator>>& est,
                            std::optional<double> bindings) {
    const chain_bound_estimator& e = *est[factor_id<F>::value];
    const double fibers = std::max(1.0, e.aggregate({std::string(x::name)}).estimate());
    return {bindings.value_or(fibers), std::max(1.0, e.estimate() / fibers)};
  }

  // The leapfrog a kernel over Factors runs against each sorted one-index factor T(x) (a sparse
  // vector input or intermediate): every visit of a fiber along x of another iterated factor
  // F(..., x) intersects it with T, galloping through the longer list, min(a, b) * (1 + log2(max /
  // min)) steps. The join counts only the matches (three hops, T = C x of 88 entries against 100K
  // rows of B: 149K products, but 9.4 ms against 1.2 ms when T is dense and located). Sorted
  // factors with more indices are not charged.
  template <std::size_t Code, class Factors>
  static double intersection_cost(const std::vector<std::optional<chain_bound_estimator>>& est) {
    double total = 0;
    // most kernels read no one-index factor: nothing to instantiate for them
    mp_for_each<mp_transform<mp_identity, mp_copy_if<Factors, one_index>>>([&](auto t) {
      using T = typename decltype(t)::type;
      if constexpr (iterated<Code, T>) {
        using x = mp_first<factor_indices<T>>;
        const double b = std::max(1.0, est[factor_id<T>::value]->estimate());
        const std::optional<double> bindings = outer_bindings<Code, Factors, T, x>(est);
        mp_for_each<mp_transform<mp_identity, Factors>>([&](auto f) {
          using F = typename decltype(f)::type;
          if constexpr (!std::is_same_v<F, T> && mp_size<factor_indices<F>>::value >= 2 &&
                        mp_contains<factor_indices<F>, x>::value && iterated<Code, F>) {
            const auto [visits, a] = walk_of<F, x>(est, bindings);
            total += visits * std::min(a, b) * (1.0 + std::log2(std::max(a, b) / std::min(a, b)));
          }
        });
      }
    });
    return total;
  }

  // The probes a kernel over Factors makes into each hashed intermediate T: another iterated factor
  // F meeting T's last index leads there and T is located at each entry of each visit of F's
  // fibers (the static table: a random-access operand is located while the other iterates).
  template <class F> using intermediate_factor = mp_bool<(factor_id<F>::value >= n_in)>;
  template <std::size_t Code, class Factors>
  static double probe_cost(const std::vector<std::optional<chain_bound_estimator>>& est) {
    double total = 0;
    mp_for_each<mp_transform<mp_identity, mp_copy_if<Factors, intermediate_factor>>>([&](auto t) {
      using T = typename decltype(t)::type;
      if constexpr (intermediate_slot<V, factor_indices<T>,
                                      format_at(Code, factor_id<T>::value - n_in)>::kind ==
                    intermediate_format::hashed) {
        using x = mp_back<factor_indices<T>>;
        double probes = 0;
        const std::optional<double> bindings = outer_bindings<Code, Factors, T, x>(est);
        mp_for_each<mp_transform<mp_identity, Factors>>([&](auto f) {
          using F = typename decltype(f)::type;
          if constexpr (!std::is_same_v<F, T> && mp_contains<factor_indices<F>, x>::value &&
                        iterated<Code, F>) {
            const auto [visits, length] = walk_of<F, x>(est, bindings);
            probes = std::max(probes, visits * length);
          }
        });
        total += hash_probe * probes;
      }
    });
    return total;
  }

  // whether the dense and bitmap variants differ from the sorted one for this order
  template <class Order>
  static constexpr bool has_format_choice =
      mp_any_of<steps_of<Order, uniform_code(intermediate_format::dense)>, dense_capable>::value;

  // The format codes instantiated for Order, uniform ones first (sorted, dense, bitmap), then,
  // with LOOM_INTERMEDIATE_FORMAT_PER_STEP, every mix over the steps whose intermediates may be
  // dense (the others stay sorted).
  // per step of Order, whether its intermediate may be dense (one or two indices)
  template <class Order>
  static constexpr auto capable_steps = [] {
    using steps = steps_of<Order, 0>;
    std::array<bool, mp_size<steps>::value + 1> capable{};
    mp_for_each<mp_iota<mp_size<steps>>>(
        [&](auto t) { capable[t] = dense_capable<mp_at_c<steps, t>>::value; });
    return capable;
  }();
  // the formats compiled in, in the order they are costed (the first of equal costs wins)
  static constexpr auto compiled_formats = [] {
    struct list {
      std::array<intermediate_format, intermediate_formats.size()> kind{};
      std::size_t size = 0;
    } out;
    for (const intermediate_format f : intermediate_formats)
      if (intermediate_format_compiled(f)) out.kind[out.size++] = f;
    return out;
  }();
  template <class Order>
  static constexpr auto format_code_array = [] {
    constexpr std::size_t kinds = compiled_formats.size;
    constexpr std::size_t n = mp_size<steps_of<Order, 0>>::value;
    constexpr auto capable = capable_steps<Order>;
    std::size_t k = 0;
    for (std::size_t t = 0; t < n; ++t) k += capable[t] ? 1 : 0;
    std::size_t combos = 1;
    for (std::size_t t = 0; t < k; ++t) combos *= kinds;
    // two to four capable steps, at most 81 mixes (4 steps of 3 formats, 3 of 4): a variant fits
    // the plan cache's 8 bits
    const bool mixed = LOOM_INTERMEDIATE_FORMAT_PER_STEP && k >= 2 && k <= 4 && combos <= 81 &&
                       n <= max_coded_steps;
    struct codes {
      std::array<std::size_t, intermediate_formats.size() + 81> code{};
      std::size_t size = 0;
    } out;
    out.code[out.size++] = 0;
    if (k == 0) return out;
    for (std::size_t f = 1; f < kinds; ++f)
      out.code[out.size++] = uniform_code(compiled_formats.kind[f]);
    for (std::size_t m = 0; mixed && m < combos; ++m) {
      std::size_t code = 0, rest = m, first = m % kinds;
      bool uniform = true;
      for (std::size_t t = 0; t < n; ++t) {
        if (!capable[t]) continue;
        const std::size_t f = rest % kinds;
        rest /= kinds;
        uniform = uniform && f == first;
        code |= static_cast<std::size_t>(compiled_formats.kind[f]) << 2 * t;
      }
      if (!uniform) out.code[out.size++] = code;
    }
    return out;
  }();

  // Whether `Step` has a twin over the very same tensors (so it shares the twin's intermediate).
  template <class Order, std::size_t Code, class Step> static bool shares(const inputs_tuple& in) {
    if constexpr (step_twin<Step>::value < 0) {
      (void)in;
      return false;
    } else {
      using Twin = mp_at_c<steps_of<Order, Code>, static_cast<std::size_t>(step_twin<Step>::value)>;
      bool same = true;
      mp_for_each<mp_iota<mp_size<step_inputs<Twin>>>>([&](auto f) {
        using F = decltype(f);
        constexpr std::size_t a = factor_id<mp_at<step_inputs<Twin>, F>>::value;
        constexpr std::size_t b =
            factor_id<mp_at<step_inputs<Step>, mp_at<step_pairing<Step>, F>>>::value;
        same = same && static_cast<const void*>(std::get<a>(in).tensor) ==
                           static_cast<const void*>(std::get<b>(in).tensor);
      });
      return same;
    }
  }

  // The logical cost of an elimination prefix: per step, the pointwise product's entries times its
  // indices, plus writing the intermediate: 20 per cell when dense (2 for a vector), 60 per entry
  // when sorted, 2 per cell and 30 per entry when bitmap, 120 per entry (2 per row) when hashed,
  // and what its readers pay (leapfrog, probes); a shared step costs only its copy, if transposed. Then the last kernel: the product
  // of the remaining factors, summed over the indices the prefix left, likewise. Dense intermediates larger than
  // max_dense_intermediate_cells make the dense and bitmap variants infinitely costly.
  // `kinds` receives each step's format (sorted where the code asks for dense or bitmap but the
  // intermediate has three or more indices).
  template <class Order, std::size_t Code>
  static double cost(const std::vector<chain_bound_estimator>& input_est, const inputs_tuple& in,
                     std::string& text, std::uint32_t& reuse,
                     std::vector<intermediate_format>& kinds) {
    std::vector<std::optional<chain_bound_estimator>> est(input_est.begin(), input_est.end());
    double total = 0;
    std::ostringstream s;
    reuse = 0;
    kinds.clear();
    std::size_t t = 0;
    mp_for_each<mp_transform<mp_identity, steps_of<Order, Code>>>([&](auto st) {
      using step = typename decltype(st)::type;
      std::vector<chain_bound_estimator> parts;
      mp_for_each<mp_transform<factor_id, step_inputs<step>>>(
          [&](auto id) { parts.push_back(*est[id]); });
      const chain_bound_estimator comp =
          parts.size() == 1 ? parts[0] : chain_bound_estimator::conjunction(parts);
      const chain_bound_estimator mat = comp.aggregate({std::string(step_index<step>::name)});
      double cells = 1;
      index_set made;
      mp_for_each<factor_indices<step_made<step>>>([&](auto i) {
        const std::int64_t e = extent_of<decltype(i)>(in);
        cells *= static_cast<double>(e);
        made.push_back({std::string(decltype(i)::name), e});
      });
      const double out = mat.estimate();
      constexpr intermediate_format kind =
          intermediate_slot<V, factor_indices<step_made<step>>,
                            format_at(Code, step_of<step_made<step>>)>::kind;
      kinds.push_back(kind);
      constexpr bool is_dense = kind == intermediate_format::dense;
      const bool fits = cells <= static_cast<double>(max_dense_intermediate_cells);
      const double rows = made.size() == 2 ? static_cast<double>(made[0].extent) : 0.0;
      const double write = kind == intermediate_format::sorted ? sparse_write * out
                           : kind == intermediate_format::hashed
                               ? (sparse_write + hashed_write) * out + hashed_row * rows
                           : !fits ? std::numeric_limits<double>::infinity()
                           : is_dense
                               ? (made.size() == 1 ? dense_vector_write : dense_write) * cells
                               : bitmap_cell * cells + bitmap_write * out;
      const double compute = comp.estimate() * static_cast<double>(comp.indices().size()) + write +
                             transpose_cost<Code, step_inputs<step>>(est) +
                             intersection_cost<Code, step_inputs<step>>(est) +
                             probe_cost<Code, step_inputs<step>>(est);
      // reusing a twin: free as it is; a transposed copy sorts its entries (sparse) or reads and
      // writes every cell out of order (dense): measured at about twice the cost of writing it
      const double copy = !step_relaid<step>::value ? 0.0 : 2.0 * write;
      const bool shared = shares<Order, Code, step>(in) && copy < compute;
      if (shared) reuse |= std::uint32_t{1} << t;
      total += shared ? copy : compute;
      ++t;
      est.resize(std::max<std::size_t>(est.size(), factor_id<step_made<step>>::value + 1));
      // a dense intermediate is read cell by cell by the kernels that use it
      est[factor_id<step_made<step>>::value] = is_dense ? chain_bound_estimator::full(made) : mat;
      s << "T" << factor_id<step_made<step>>::value - n_in << "("
        << names(factor_indices<step_made<step>>{}) << ")";
      if (shared) {
        s << " = T" << step_twin<step>::value << (step_relaid<step>::value ? " transposed" : "")
          << " (the same sum over the same tensors: computed once); ";
      } else {
        s << " = sum(" << step_index<step>::name << ", ...) ["
          << static_cast<std::int64_t>(comp.estimate()) << " products, "
          << static_cast<std::int64_t>(out) << " entries, "
          << (kind == intermediate_format::sorted ? "sparse" : intermediate_format_name(kind))
          << "]; ";
      }
    });
    // the last kernel: the remaining factors, summed over the indices the prefix left
    std::vector<chain_bound_estimator> rest;
    mp_for_each<mp_transform<factor_id, typename P::template plan<Order, Code>::remaining>>(
        [&](auto id) { rest.push_back(*est[id]); });
    const chain_bound_estimator last =
        rest.size() == 1 ? rest[0] : chain_bound_estimator::conjunction(rest);
    const double transpose =
        transpose_cost<Code, typename P::template plan<Order, Code>::remaining>(est);
    total += last.estimate() * static_cast<double>(last.indices().size()) + transpose +
             intersection_cost<Code, typename P::template plan<Order, Code>::remaining>(est) +
             probe_cost<Code, typename P::template plan<Order, Code>::remaining>(est);
    using rest_summed = typename P::template fused_rest<Order>;
    if constexpr (mp_empty<rest_summed>::value)
      s << "output = product of the rest [";
    else
      s << "output = sum(" << names(rest_summed{}) << ", product of the rest) in one kernel [";
    s << static_cast<std::int64_t>(last.estimate()) << " products"
      << (transpose > 0 ? ", one factor transposed" : "") << "]";
    text = s.str();
    return total;
  }

  // The access of factor F: an input or an intermediate.
  template <class F, class Inter>
  static auto access_of(const inputs_tuple& in, const Inter& inter) {
    constexpr std::size_t id = factor_id<F>::value;
    if constexpr (id < n_in) {
      return std::get<id>(in);
    } else {
      const auto& slot = std::get<id - n_in>(inter);
      using tensor_t = typename std::remove_cvref_t<decltype(slot)>::type;
      return [&]<class... Is>(mp_list<Is...>) {
        return expr::access<const tensor_t, Is...>{slot.made};
      }(factor_indices<F>{});
    }
  }

  template <class Order, std::size_t Code>
  static void run(const Lhs& lhs, const inputs_tuple& in, std::uint32_t reuse, bool accumulate) {
    intermediates<Order, Code> inter;
    std::size_t t = 0;
    mp_for_each<mp_transform<mp_identity, steps_of<Order, Code>>>([&](auto st) {
      using step = typename decltype(st)::type;
      auto& slot = std::get<factor_id<step_made<step>>::value - n_in>(inter);
      using tensor_t = typename std::remove_cvref_t<decltype(slot)>::type;
      const bool reused = (reuse >> t++ & 1u) != 0;
      if constexpr (step_twin<step>::value >= 0) {
        if (reused && shares<Order, Code, step>(in)) {
          const tensor_t& twin =
              *std::get<static_cast<std::size_t>(step_twin<step>::value)>(inter).made;
          if constexpr (step_relaid<step>::value) {
            relayout(slot.own.emplace(), twin, step_from_twin<step>{});
            slot.made = &*slot.own;
          } else {
            slot.made = &twin;
          }
          return;
        }
      }
      [&]<class... Fs>(mp_list<Fs...>) {
        const auto body = product(access_of<Fs>(in, inter)...);
        [&]<class... Is>(mp_list<Is...>) {
          auto& t = slot.own.emplace(typename tensor_t::shape_type{extent_of<Is>(in)...});
          slot.made = &t;
          expr::access<tensor_t, Is...> target{&t};
          target = expr::sum<step_index<step>, std::remove_cvref_t<decltype(body)>>{body};
        }(factor_indices<step_made<step>>{});
      }(step_inputs<step>{});
    });
    [&]<class... Fs>(mp_list<Fs...>) {
      Lhs target = lhs;
      const auto last = wrap_sums<typename P::template fused_rest<Order>>::apply(
          product(access_of<Fs>(in, inter)...));
      if (accumulate)
        target += last;
      else
        target = last;
    }(typename P::template plan<Order, Code>::remaining{});
  }
};

struct decompose_purpose {};  // plan_cache key: elimination orders, not loop orders

template <class Lhs, class Rhs>
decomposition_choice plan_decomposition(const Lhs& lhs, const Rhs& rhs, statistics_cache& cache) {
  using R = runner<Lhs, Rhs>;
  using P = typename R::P;
  const auto in = collect(rhs);
  std::vector<chain_bound_estimator> est;
  std::apply(
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
      const double d =
          R::template cost<O, codes.code[v]>(est, in, other_text, other_reuse, other_kinds);
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
template <class Lhs, class Rhs>
std::string variant_formats(std::size_t which, std::size_t variant) {
  using R = runner<Lhs, Rhs>;
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
template <class Lhs, class Rhs>
void run_candidate(std::size_t which, std::size_t variant,
                   const std::vector<intermediate_format>& forced, std::uint32_t reuse,
                   const Lhs& lhs, const Rhs& rhs, bool accumulate = false) {
  using P = program<Lhs, Rhs>;
  using R = runner<Lhs, Rhs>;
  for (const intermediate_format f : forced)
    if (!intermediate_format_compiled(f))
      throw error(std::string("loom::decompose_with: ") + intermediate_format_name(f) +
                  " intermediates are not compiled in (define " +
                  (f == intermediate_format::bitmap ? "LOOM_BITMAP_INTERMEDIATES"
                                                    : "LOOM_HASHED_INTERMEDIATES") +
                  "=1)");
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
        throw shape_error("loom::decompose_with: candidate " + std::to_string(which) + " has " +
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
            "loom::decompose_with: that mix of intermediate formats is not compiled in "
            "(define LOOM_INTERMEDIATE_FORMAT_PER_STEP=1)");
    }
    mp_with_index<codes.size>(
        v, [&](auto k) { R::template run<O, codes.code[k]>(lhs, in, reuse, accumulate); });
  });
}

}  // namespace detail::ve

/// The candidates `decompose(lhs, rhs)` would weigh, their costs and the choice.
template <class Lhs, class R>
decomposition_choice plan_decomposition(const Lhs& lhs, const R& rhs) {
  statistics_cache cache;
  return detail::ve::plan_decomposition(lhs, rhs, cache);
}

namespace detail::ve {

// One sum-product into lhs (or added to it), by the plan chosen from statistics (cached).
template <class Lhs, class Rhs>
std::size_t decompose_product(Lhs lhs, const Rhs& rhs, bool accumulate) {
  // cached: the candidate in bits 0-15, its format assignment in bits 16-23, the reuse mask above
  const std::size_t packed = optimize::plan_cache<Lhs, Rhs, decompose_purpose>::local().find_or(
      optimize::detail::coarse_signature(rhs), [&](statistics_cache& stats) {
        const decomposition_choice c = plan_decomposition(lhs, rhs, stats);
        return c.chosen | c.variant[c.chosen] << 16 | std::size_t{c.reuse[c.chosen]} << 24;
      });
  const std::size_t chosen = packed & 0xffffu;
  const std::size_t variant = packed >> 16 & 0xffu;
  const auto reuse = static_cast<std::uint32_t>(packed >> 24);
#ifdef LOOM_DEBUG_PLAN
  std::clog << "loom::decompose: candidate " << chosen;
  if (chosen != 0) std::clog << ", intermediates " << variant_formats<Lhs, Rhs>(chosen, variant);
  std::clog << ", reuse mask " << reuse << "\n";
#endif
  if (chosen != 0)
    run_candidate(chosen, variant, {}, reuse, lhs, rhs, accumulate);
  else if (accumulate)
    lhs += rhs;
  else
    lhs = rhs;
  return chosen;
}

// Sums over a body with + in it: products distributed over the sums, one sum-product per term
// (Galley's distribution of * over +, notes 001 §3.8). Each term keeps the summed indices.
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
  return std::apply(
      [&](const auto&... r) {
        return std::tuple{expr::mul<L, std::remove_cvref_t<decltype(r)>>{l, r}...};
      },
      rs);
}
template <class L, class R> auto terms_of(const expr::mul<L, R>& e) {
  const auto rs = terms_of(e.rhs);
  return std::apply([&](const auto&... l) { return std::tuple_cat(times_each(l, rs)...); },
                    terms_of(e.lhs));
}

template <class Rhs> auto sum_product_terms(const Rhs& rhs) {
  using S = typename summed_of<Rhs>::type;
  return std::apply([](const auto&... t) { return std::tuple{wrap_sums<S>::apply(t)...}; },
                    terms_of(summed_of<Rhs>::body(rhs)));
}

template <class Tuple> struct all_sum_products;
template <class... Ts> struct all_sum_products<std::tuple<Ts...>> {
  // every term a product of accesses that uses every summed index (no sum over an absent index)
  static constexpr bool value = (... && flatten<Ts>::ok);
};

template <class Lhs, class Rhs>
std::size_t decompose_any(Lhs lhs, const Rhs& rhs, bool accumulate) {
  if constexpr (flatten<Rhs>::ok) {
    return decompose_product(lhs, rhs, accumulate);
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
    std::apply(
        [&](const auto&... term) {
          (..., [&] {
            const std::size_t c = decompose_product(lhs, term, accumulate || t > 0);
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
template <class Lhs, class R> std::size_t decompose_into(Lhs lhs, const R& rhs) {
  using Rhs = std::remove_cvref_t<R>;
  if constexpr (detail::ve::is_unary_map<Rhs>::value) {
    return [&]<class T, class... Is>(const expr::access<T, Is...>&) {
      using tensor_t = std::remove_const_t<T>;
      tensor_t inner(lhs.tensor->shape());
      const std::size_t c = detail::ve::decompose_any(expr::access<tensor_t, Is...>{&inner},
                                                      std::get<0>(rhs.args), false);
      using inner_access = expr::access<const tensor_t, Is...>;
      lhs = expr::map<decltype(rhs.f), inner_access>{
          rhs.f, std::tuple<inner_access>{inner_access{&inner}}};
      return c;
    }(lhs);
  } else {
    return detail::ve::decompose_any(lhs, rhs, false);
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
template <class Lhs, class R> std::size_t decompose(Lhs lhs, const R& rhs) {
  std::size_t chosen = 0;
  detail::run_unaliased(
      lhs, rhs, [&](auto& target, auto&) { chosen = detail::ve::decompose_into(target, rhs); });
  return chosen;
}

/// Runs candidate `which` of `decompose` (0: fused; c: elimination prefix c - 1), for tests and
/// benchmarks that compare plans. `formats` (how one- and two-index intermediates are stored: one
/// format for all of them, or one per step of the candidate, which with more than one format needs
/// LOOM_INTERMEDIATE_FORMAT_PER_STEP=1) and `reuse` (bit t: step t reuses an earlier step's
/// intermediate where it computes the same sum over the same tensors) default to the planner's
/// choice for that candidate.
template <class Lhs, class R>
void decompose_with(std::size_t which, Lhs lhs, const R& rhs,
                    const std::vector<intermediate_format>& formats,
                    std::optional<std::uint32_t> reuse = std::nullopt) {
  using Rhs = std::remove_cvref_t<R>;
  using P = detail::ve::program<Lhs, Rhs>;
  static_assert(
      P::ok, "loom::decompose: the right-hand side must be sums over a product of tensor accesses");
  constexpr std::size_t n = boost::mp11::mp_size<typename P::orders>::value;
  if (which == 0) {
    lhs = rhs;
    return;
  }
  if (which > n)
    throw shape_error("loom::decompose_with: candidate " + std::to_string(which) +
                      " does not exist (there are " + std::to_string(n + 1) + ")");
  std::size_t variant = 0;
  if (formats.empty() || !reuse) {
    const decomposition_choice c = plan_decomposition(lhs, rhs);
    variant = c.variant[which];
    if (!reuse) reuse = c.reuse[which];
  }
  detail::run_unaliased(lhs, rhs, [&](auto& target, auto&) {
    detail::ve::run_candidate(which, variant, formats, *reuse, target, rhs);
  });
}
template <class Lhs, class R>
void decompose_with(std::size_t which, Lhs lhs, const R& rhs,
                    std::optional<intermediate_format> format = std::nullopt,
                    std::optional<std::uint32_t> reuse = std::nullopt) {
  decompose_with(
      which, lhs, rhs,
      format ? std::vector<intermediate_format>{*format} : std::vector<intermediate_format>{},
      reuse);
}

/// The candidates of `decompose(lhs, rhs)` in words, with their logical costs and the choice.
template <class Lhs, class R> std::string explain_decomposition(const Lhs& lhs, const R& rhs) {
  using Rhs = std::remove_cvref_t<R>;
  std::ostringstream s;
  if constexpr (detail::ve::is_unary_map<Rhs>::value) {
    s << "map(f, ...) applied to the result of:\n"
      << explain_decomposition(lhs, std::get<0>(rhs.args));
  } else if constexpr (!detail::ve::flatten<Rhs>::ok) {
    const auto terms = detail::ve::sum_product_terms(rhs);
    std::size_t t = 0;
    std::apply(
        [&](const auto&... term) {
          (..., (s << "term " << ++t << " of " << sizeof...(term) << " (* distributed over +):\n"
                   << explain_decomposition(lhs, term)));
        },
        terms);
  } else {
    const decomposition_choice c = plan_decomposition(lhs, rhs);
    s << "decomposition candidates (Galley's logical cost; at most " << max_elimination_orders
      << " elimination prefixes, LOOM_MAX_ELIMINATION_ORDERS):\n";
    for (std::size_t k = 0; k < c.cost.size(); ++k)
      s << "  " << (k == c.chosen ? "* " : "  ") << "#" << k << " cost "
        << static_cast<std::int64_t>(c.cost[k] + 0.5) << ": " << c.description[k] << "\n";
  }
  return s.str();
}

}  // namespace loom

#endif  // LOOM_EXEC_DECOMPOSE_HPP
