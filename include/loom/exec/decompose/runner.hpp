// Defines the run-time side of one decomposition candidate (exec/decompose.hpp): its kernels
// run step by step into intermediates (sorted, dense, bitmap, hashed; shared where a twin step
// computed the same sum), and Galley's logical cost of each candidate and format assignment.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_DECOMPOSE_RUNNER_HPP
#define LOOM_EXEC_DECOMPOSE_RUNNER_HPP

#include <loom/core/config.hpp>
#include <loom/core/progress.hpp>
#include <loom/exec/decompose/steps.hpp>
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

template <class Lhs, class Rhs, class Flags> struct runner {
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
  // clears its cells (values and bits) and writes each entry in place, no sort (faster to write than
  // a sorted output, docs/optimizer.md), but its readers walk bits: 30 per entry puts
  // the choice near Galley's cut-offs (Galley: bytemap above 5% full, dense above 50%):
  // bitmap above about 7% full, dense above about 60%
  static constexpr double sparse_write = 60.0, dense_write = 20.0, bitmap_cell = 2.0,
                          bitmap_write = 30.0;
  // a hashed intermediate is written like a sorted one, then its tables are built (per entry) and,
  // with two indices, its rows' offsets (per row); every read of it is a probe
  static constexpr double hashed_write = 60.0, hashed_row = 2.0, hash_probe = 2.5;
  // a bitmap is located by one bit test
  static constexpr double bitmap_probe = 1.0;
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
  static double transpose_cost(const std::vector<std::optional<chain_bound_estimator>>& est,
                               std::size_t code) {
    if constexpr (!needs_transpose<Code, Factors>) {
      (void)est;
      (void)code;
      return 0.0;
    } else {
      double smallest = std::numeric_limits<double>::infinity();
      bool bitmap_factor = false;
      mp_for_each<mp_transform<factor_id, mp_copy_if_q<Factors, constrains<Code>>>>([&](auto id) {
        constexpr std::size_t f = decltype(id)::value;
        smallest = std::min(smallest, est[f]->estimate());
        bitmap_factor = bitmap_factor ||
                        (f >= n_in && format_at(code, f - n_in) == intermediate_format::bitmap);
      });
      // a bitmap is copied with its padding, and its rows walked bit by bit (zenios 4-walks: 4x the
      // sorted plan)
      if (bitmap_factor) return std::numeric_limits<double>::infinity();
      return sparse_write * smallest;
    }
  }
  // Whether factor F is read by iteration: a sparse input whose innermost level cannot locate
  // (hashed and bitmap ones are located), or an intermediate of three or more indices (csf); the
  // others are dense or adaptive, located whatever their kind.
  template <std::size_t Code, class F>
  static constexpr bool iterated = [] {
    constexpr std::size_t id = factor_id<F>::value;
    if constexpr (id < n_in) {
      using format = typename std::remove_cvref_t<mp_at_c<typename P::tensors, id>>::format_type;
      return !format::all_dense && !format::properties[format::order - 1].random_access;
    } else {
      return !intermediate_slot<V, factor_indices<F>, format_at(Code, id - n_in)>::may_be_dense;
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
  // min)) steps. The join counts only the matches, which undercounts these
  // intersections (docs/optimizer.md, "The leapfrog against a sorted vector"). Sorted
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

  // The probes a kernel over Factors makes into each adaptive intermediate T (sorted, bitmap or
  // hashed, as `code` says at run time): another iterated factor F meeting T's last index leads
  // there and T is located at each entry of each visit of F's fibers (the static table: a
  // random-access operand is located while the other iterates). A probe costs a table lookup
  // when hashed, a bit test when a bitmap; a sorted fiber gallops on from the last probe.
  template <class F> using intermediate_factor = mp_bool<(factor_id<F>::value >= n_in)>;
  template <std::size_t Code, class Factors>
  static double probe_cost(const std::vector<std::optional<chain_bound_estimator>>& est,
                           std::size_t code) {
    double total = 0;
    mp_for_each<mp_transform<mp_identity, mp_copy_if<Factors, intermediate_factor>>>([&](auto t) {
      using T = typename decltype(t)::type;
      if constexpr (intermediate_slot<V, factor_indices<T>,
                                      format_at(Code, factor_id<T>::value - n_in)>::adaptive) {
        using x = mp_back<factor_indices<T>>;
        const intermediate_format kind = format_at(code, factor_id<T>::value - n_in);
        // T's mean fiber length along x (one fiber per binding of its other index)
        const chain_bound_estimator& e = *est[factor_id<T>::value];
        double fibers = 1;
        if constexpr (mp_size<factor_indices<T>>::value == 2)
          fibers = std::max(
              1.0, e.aggregate({std::string(mp_first<factor_indices<T>>::name)}).estimate());
        const double b = std::max(1.0, e.estimate() / fibers);
        double work = 0;
        const std::optional<double> bindings = outer_bindings<Code, Factors, T, x>(est);
        mp_for_each<mp_transform<mp_identity, Factors>>([&](auto f) {
          using F = typename decltype(f)::type;
          if constexpr (!std::is_same_v<F, T> && mp_contains<factor_indices<F>, x>::value &&
                        iterated<Code, F>) {
            const auto [visits, a] = walk_of<F, x>(est, bindings);
            // a sorted fiber is located by galloping on from the last probe: a leapfrog's steps
            const double per_visit = kind == intermediate_format::hashed ? hash_probe * a
                                     : kind == intermediate_format::bitmap
                                         ? bitmap_probe * a
                                         : a * (1.0 + std::log2(std::max(1.0, b / a)));
            work = std::max(work, visits * per_visit);
          }
        });
        total += work;
      }
    });
    return total;
  }

  // whether the dense and bitmap variants differ from the sorted one for this order
  template <class Order>
  static constexpr bool has_format_choice =
      mp_any_of<steps_of<Order, uniform_code(intermediate_format::dense)>, dense_capable>::value;

  // The format codes costed for Order: the uniform ones first (sorted, dense, bitmap, hashed),
  // then every mix over the steps whose intermediates may be dense (the others stay sorted) of
  // the sorted, bitmap and hashed kinds (one kernel: the adaptive level), or with
  // opt::format_per_step of all four (a kernel per mix of dense and not).
  // per step of Order, whether its intermediate may be dense (one or two indices)
  template <class Order>
  static constexpr auto capable_steps = [] {
    using steps = steps_of<Order, 0>;
    std::array<bool, mp_size<steps>::value + 1> capable{};
    mp_for_each<mp_iota<mp_size<steps>>>(
        [&](auto t) { capable[t] = dense_capable<mp_at_c<steps, t>>::value; });
    return capable;
  }();
  // the kinds mixed per step, in the order they are costed (the first of equal costs wins):
  // every format with opt::format_per_step, else all but dense (one kernel: the adaptive level)
  static constexpr auto mixed_formats = [] {
    struct list {
      std::array<intermediate_format, intermediate_formats.size()> kind{};
      std::size_t size = 0;
    } out;
    for (const intermediate_format f : intermediate_formats)
      if (Flags::per_step || f != intermediate_format::dense) out.kind[out.size++] = f;
    return out;
  }();
  template <class Order>
  static constexpr auto format_code_array = [] {
    constexpr std::size_t kinds = mixed_formats.size;
    constexpr std::size_t n = mp_size<steps_of<Order, 0>>::value;
    constexpr auto capable = capable_steps<Order>;
    std::size_t k = 0;
    for (std::size_t t = 0; t < n; ++t) k += capable[t] ? 1 : 0;
    std::size_t combos = 1;
    for (std::size_t t = 0; t < k; ++t) combos *= kinds;
    // two to four capable steps, at most 81 mixes (4 steps of 3 formats, 3 of 4): a variant fits
    // the plan cache's 8 bits
    const bool mixed = k >= 2 && k <= 4 && combos <= 81 && n <= max_coded_steps;
    struct codes {
      std::array<std::size_t, intermediate_formats.size() + 81> code{};
      std::size_t size = 0;
    } out;
    out.code[out.size++] = 0;
    if (k == 0) return out;
    for (std::size_t f = 1; f < intermediate_formats.size(); ++f)
      out.code[out.size++] = uniform_code(intermediate_formats[f]);
    for (std::size_t m = 0; mixed && m < combos; ++m) {
      std::size_t code = 0, rest = m, first = m % kinds;
      bool uniform = true;
      for (std::size_t t = 0; t < n; ++t) {
        if (!capable[t]) continue;
        const std::size_t f = rest % kinds;
        rest /= kinds;
        uniform = uniform && f == first;
        code |= static_cast<std::size_t>(mixed_formats.kind[f]) << 2 * t;
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
  // Code: which steps are dense (their kernels differ); `code`: every step's format, the sorted,
  // bitmap and hashed ones read at run time.
  template <class Order, std::size_t Code>
  static double cost(const std::vector<chain_bound_estimator>& input_est, const inputs_tuple& in,
                     std::string& text, std::uint32_t& reuse,
                     std::vector<intermediate_format>& kinds, std::size_t code) {
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
      mp_for_each<factor_indices<step_made<step>>>([&](auto idx) {
        const std::int64_t e = extent_of<decltype(idx)>(in);
        cells *= static_cast<double>(e);
        made.push_back({std::string(decltype(idx)::name), e});
      });
      const double out = mat.estimate();
      using slot = intermediate_slot<V, factor_indices<step_made<step>>,
                                     format_at(Code, step_of<step_made<step>>)>;
      constexpr bool is_dense = slot::dense;
      const intermediate_format kind =
          slot::adaptive ? format_at(code, step_of<step_made<step>>) : slot::kind;
      kinds.push_back(kind);
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
                             transpose_cost<Code, step_inputs<step>>(est, code) +
                             intersection_cost<Code, step_inputs<step>>(est) +
                             probe_cost<Code, step_inputs<step>>(est, code);
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
        transpose_cost<Code, typename P::template plan<Order, Code>::remaining>(est, code);
    total += last.estimate() * static_cast<double>(last.indices().size()) + transpose +
             intersection_cost<Code, typename P::template plan<Order, Code>::remaining>(est) +
             probe_cost<Code, typename P::template plan<Order, Code>::remaining>(est, code);
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

  // Code: which steps are dense; `code`: the kind of every other one- and two-index intermediate.
  // Progress: the eliminations done, the last kernel counted as one.
  template <class Order, std::size_t Code>
  static void run(const Lhs& lhs, const inputs_tuple& in, std::uint32_t reuse, bool accumulate,
                  std::size_t code) {
    constexpr auto steps = static_cast<std::int64_t>(mp_size<steps_of<Order, Code>>::value);
    progress_reporter progress("eliminating", "", steps + 1, "eliminations");
    intermediates<Order, Code> inter;
    std::size_t t = 0;
    mp_for_each<mp_transform<mp_identity, steps_of<Order, Code>>>([&](auto st) {
      using step = typename decltype(st)::type;
      progress.advance_to(static_cast<std::int64_t>(t));
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
          auto& made = slot.own.emplace(typename tensor_t::shape_type{extent_of<Is>(in)...});
          made.set_name("T" + std::to_string(factor_id<step_made<step>>::value - n_in));
          using slot_t = std::remove_cvref_t<decltype(slot)>;
          if constexpr (slot_t::adaptive)  // the kind the code chose, read per fiber
            made.template level<slot_t::order - 1>().only =
                fiber_kind_of(format_at(code, factor_id<step_made<step>>::value - n_in));
          slot.made = &made;
          expr::access<tensor_t, Is...> target{&made};
          target = expr::sum<step_index<step>, std::remove_cvref_t<decltype(body)>>{body};
        }(factor_indices<step_made<step>>{});
      }(step_inputs<step>{});
    });
    progress.advance_to(steps);
    [&]<class... Fs>(mp_list<Fs...>) {
      Lhs target = lhs;
      const auto last = wrap_sums<typename P::template fused_rest<Order>>::apply(
          product(access_of<Fs>(in, inter)...));
      if (accumulate)
        target += last;
      else
        target = last;
    }(typename P::template plan<Order, Code>::remaining{});
    progress.finish();
  }
};

}  // namespace detail::ve

}  // namespace loom

#endif  // LOOM_EXEC_DECOMPOSE_RUNNER_HPP
