// Defines the static side of loom::decompose (exec/decompose.hpp): the steps of each candidate
// elimination prefix (elimination.hpp) with their intermediates' indices and storage, shared
// subexpressions, and what the planner reports (`decomposition_choice`).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_DECOMPOSE_STEPS_HPP
#define LOOM_EXEC_DECOMPOSE_STEPS_HPP

#include <loom/core/config.hpp>
#include <loom/core/unpack.hpp>
#include <loom/exec/decompose/elimination.hpp>
#include <loom/exec/evaluate.hpp>
#include <loom/exec/options.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
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

using namespace boost::mp11;

// Common subexpressions (Galley): a step whose factors are all inputs and that computes,
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

// An intermediate: with one or two indices, dense (written in place) or else an adaptive level
// whose fibers take the kind the code asks for (sorted, bitmap or hashed: Galley's
// intermediate-format choice), set at run time, so that those three kinds share
// one kernel per step (dense rows over the adaptive level when two indices); with none, a
// scalar; with three or more, sorted (csf). A slot holds its own tensor or points at a twin's.
// The adaptive level's kind for an intermediate of format f (not dense).
constexpr fiber_kind fiber_kind_of(intermediate_format f) {
  return f == intermediate_format::bitmap   ? fiber_kind::bitmap
         : f == intermediate_format::hashed ? fiber_kind::hashed
                                            : fiber_kind::sorted;
}

template <class V, class Indices, intermediate_format F> struct intermediate_slot {
  static constexpr std::size_t order = mp_size<Indices>::value;
  static constexpr bool may_be_dense = order >= 1 && order <= 2;
  static constexpr intermediate_format kind = may_be_dense ? F : intermediate_format::sorted;
  static constexpr bool dense = kind == intermediate_format::dense;
  static constexpr bool adaptive = may_be_dense && !dense;
  using adaptive_format =
      mp_if_c<order == 1, format<loom::adaptive>, format<loom::dense, loom::adaptive>>;
  using type = tensor<
      V, mp_if_c<dense, dense_n<order>,
                 mp_if_c<adaptive, adaptive_format, mp_if_c<order == 0, format<>, csf<order>>>>>;
  std::optional<type> own;
  const type* made = nullptr;
};

/// Static facts of `lhs = rhs` decomposed.
template <class Lhs, class Rhs> struct program {
  using flat = flatten<Rhs>;
  static constexpr bool ok = flat::of_accesses;
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
  loom::detail::unpack(
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
  // opt::format_per_step chose a mix); sorted when it has none
  std::vector<intermediate_format> format;
  std::vector<std::vector<intermediate_format>> step_formats;  // per candidate, per step
  std::vector<std::size_t> variant;   // per candidate, which of its instantiated format assignments
  std::vector<std::size_t> variants;  // per candidate, how many it has (costed, instantiated)
  std::vector<std::uint32_t> reuse;   // per candidate, bit t: step t reuses its twin's intermediate
  std::size_t chosen = 0;
};

}  // namespace loom

#endif  // LOOM_EXEC_DECOMPOSE_STEPS_HPP
