// Defines evaluation: `out(i...) = e`, `out(i...) += e` and loom::eval(e). Checks the kernel,
// picks the plan, binds (transposed) operands, lowers to streams and runs them (stream/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_EVALUATE_HPP
#define LOOM_EXEC_EVALUATE_HPP

#include <loom/core/error.hpp>
#include <loom/core/work_counters.hpp>
#include <loom/exec/options.hpp>
#include <loom/expr/operators.hpp>
#include <loom/expr/order.hpp>
#include <loom/expr/traits.hpp>
#include <loom/expr/visit.hpp>
#include <loom/format/appender.hpp>
#include <loom/format/assemble.hpp>
#include <loom/format/format_name.hpp>
#include <loom/format/memory.hpp>
#include <loom/format/tensor.hpp>
#include <loom/optimize/hoist_choice.hpp>
#include <loom/optimize/leader_choice.hpp>
#include <loom/optimize/plan_choice.hpp>
#include <loom/optimize/workspace_choice.hpp>
#include <loom/parallel/run.hpp>
#include <loom/plan/checks.hpp>
#include <loom/plan/order.hpp>
#include <loom/plan/pattern.hpp>
#include <loom/plan/transposed_format.hpp>
#include <loom/rewrite/for_evaluation.hpp>
#include <loom/rewrite/hoist.hpp>
#include <loom/stream/lower.hpp>
#include <loom/stream/run.hpp>
#include <loom/stream/skip.hpp>
#include <loom/stream/workspace.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

namespace loom::detail {

using boost::mp11::mp_list;

// The format an operand is reformatted to when the loop order is not concordant with it: its
// modes re-ordered by the depth of their index, in the same levels, or in general sorted levels
// when its levels cannot hold the re-ordered entries (a storage mapping's, plan/transposed_format.hpp).
template <class Order, class A> using transposed_format = plan::transposed_format<Order, A>;

}  // namespace loom::detail

namespace loom::expr::detail {
template <class A> struct access_traits_tensor;
template <class T, class... Is> struct access_traits_tensor<access<T, Is...>> {
  using type = T;
};
}  // namespace loom::expr::detail

namespace loom::detail {

// Per access ordinal K: the tensor type the kernel reads (transposed copy or original).
template <class Plan, std::size_t K> struct binding {
  using access_type = boost::mp11::mp_at_c<typename Plan::accesses, K>;
  using original =
      std::remove_const_t<typename expr::detail::access_traits_tensor<access_type>::type>;
  static constexpr bool transposed = Plan::chosen.transposed[K];
  using tensor_type = std::conditional_t<
      transposed,
      tensor<std::remove_const_t<typename original::value_type>,
             typename transposed_format<typename Plan::order, access_type>::type>,
      original>;
  using storage = std::conditional_t<transposed, std::optional<tensor_type>, std::monostate>;
};

/// Operand `t` reformatted for binding `Bind` (a transposed copy): converted once and reused by
/// the next calls while `t` is the same tensor at the same version (an owning tensor's version
/// changes on every non-const access to its storage); a view, whose caller may change its
/// buffers unseen, is converted on every call into `scratch`. One cached copy per binding of a
/// plan and per thread, kept until another operand or version replaces it.
template <class Bind, class Source>
const typename Bind::tensor_type& transposed_copy(
    const Source& t, std::optional<typename Bind::tensor_type>& scratch) {
  if constexpr (Source::owning) {
    struct entry {
      const void* source = nullptr;
      std::uint64_t version = 0;
      std::unique_ptr<typename Bind::tensor_type> copy;
    };
    thread_local entry cached;
    if (cached.copy && cached.source == &t && cached.version == t.version()) return *cached.copy;
    LOOM_COUNT_WORK_N(writes, t.nnz());  // a copy's entries
    cached.copy.reset();                 // the old copy's memory first
    cached.copy = std::make_unique<typename Bind::tensor_type>(t);
    cached.source = &t;
    cached.version = t.version();
    return *cached.copy;
  } else if constexpr (std::is_const_v<typename Source::value_type>) {  // a read-only view
    LOOM_COUNT_WORK_N(writes, t.nnz());
    using F = typename Bind::tensor_type::format_type;
    std::vector<std::array<std::int64_t, F::order>> crd;
    std::vector<std::remove_const_t<typename Source::value_type>> vals;
    t.for_each_stored([&](const auto& c, const auto& v) {
      crd.push_back(c);
      vals.push_back(v);
    });
    return scratch.emplace(from_coo<F>(t.shape(), crd, vals, duplicates::sum));
  } else {
    LOOM_COUNT_WORK_N(writes, t.nnz());
    return scratch.emplace(t);
  }
}

template <class Plan, class Seq = std::make_index_sequence<Plan::access_count>> struct bindings_of;
template <class Plan, std::size_t... Ks> struct bindings_of<Plan, std::index_sequence<Ks...>> {
  using pointers = std::tuple<const typename binding<Plan, Ks>::tensor_type*...>;
  using temporaries = std::tuple<typename binding<Plan, Ks>::storage...>;
};

inline std::string operand_label(const std::string& name, std::size_t ordinal,
                                 const std::string& format) {
  if (!name.empty()) return name;
  return "operand #" + std::to_string(ordinal) + " (" + format + ")";
}

template <class... Is>
constexpr std::array<std::string_view, sizeof...(Is)> index_names(mp_list<Is...>) {
  return {Is::name...};
}

/// Where an index's extent was first seen, or where it disagreed: an operand's ordinal (the
/// output is `output_ordinal`) and its mode.
struct extent_source {
  static constexpr std::size_t output_ordinal = static_cast<std::size_t>(-1);
  std::size_t ordinal = 0, mode = 0;
  std::int64_t extent = -1;
};

/// What an error message says of an operand: its name and its format's (built only then).
struct operand_label_source {
  const std::string* name = nullptr;
  std::string (*format)() = nullptr;
};

/// The labels of the operands, by ordinal, then the output's (the last source).
[[gnu::cold]] inline std::vector<std::string> operand_labels(
    const std::vector<operand_label_source>& sources) {
  std::vector<std::string> labels;
  for (std::size_t k = 0; k + 1 < sources.size(); ++k)
    labels.push_back(operand_label(*sources[k].name, k, sources[k].format()));
  const operand_label_source& out = sources.back();
  labels.push_back(out.name->empty() ? "the output (" + out.format() + ")" : *out.name);
  return labels;
}

/// Notes operand `ordinal`'s extent `e` on mode `m` for index `id`: the first seen, or the
/// first disagreement. Not a template: one definition for every kernel.
inline void note_extent(extent_source* first,
                        std::optional<std::pair<std::size_t, extent_source>>& bad, std::size_t id,
                        std::size_t ordinal, std::size_t m, std::int64_t e) {
  if (first[id].extent < 0)
    first[id] = {ordinal, m, e};
  else if (first[id].extent != e && !bad)
    bad.emplace(id, extent_source{ordinal, m, e});
}

[[noreturn, gnu::cold]] inline void throw_extent_clash(std::string_view index,
                                                       const std::vector<std::string>& labels,
                                                       extent_source first, extent_source second) {
  auto label = [&](std::size_t ordinal) -> const std::string& {
    return labels[std::min(ordinal, labels.size() - 1)];  // the output's label comes last
  };
  throw shape_error("loom: index " + std::string(index) + " has extent " +
                    std::to_string(first.extent) + " in " + label(first.ordinal) + " (mode " +
                    std::to_string(first.mode) + ") but " + std::to_string(second.extent) + " in " +
                    label(second.ordinal) + " (mode " + std::to_string(second.mode) + ")");
}

[[noreturn, gnu::cold]] inline void throw_unknown_extent(std::string_view index) {
  throw shape_error("loom: the extent of index " + std::string(index) +
                    " is unknown: it is summed but used by no operand");
}

/// Extents of every index of the assignment's universe, checked to agree across operands.
/// It depends on the expression, not on the plan, so that the candidate plans of one expression
/// share it; its messages are built out of line, only when something is wrong (this runs on
/// every call).
template <class Lhs, class Rhs> auto gather_extents(const Lhs& lhs, const Rhs& rhs) {
  using universe = plan::assignment_universe<Lhs, Rhs>;
  constexpr std::size_t n = boost::mp11::mp_size<universe>::value;
  std::array<extent_source, n> first{};
  std::optional<std::pair<std::size_t, extent_source>> bad;  // (index id, where it disagreed)
  // one loop per operand type over its modes' index ids (not a lambda per mode: compile time)
  auto visit = [&]<class T, class... Is>(const expr::access<T, Is...>& a, std::size_t ordinal) {
    if constexpr (sizeof...(Is) > 0) {
      static constexpr std::size_t ids[] = {boost::mp11::mp_find<universe, Is>::value...};
      for (std::size_t m = 0; m < sizeof...(Is); ++m)
        note_extent(first.data(), bad, ids[m], ordinal, m, a.tensor->extent(m));
    }
    (void)a, (void)ordinal;  // a scalar operand has no mode
  };
  expr::for_each_access(rhs, [&](const auto& a, std::size_t k) { visit(a, k); });
  using out_t = std::remove_const_t<std::remove_pointer_t<decltype(lhs.tensor)>>;
  if constexpr (out_t::order > 0) visit(lhs, extent_source::output_ordinal);
  static constexpr auto names = index_names(universe{});
  if (bad) {
    std::vector<operand_label_source> sources;
    auto source = [&](const auto& a) {
      using tensor_t = std::remove_const_t<std::remove_pointer_t<decltype(a.tensor)>>;
      sources.push_back({&a.tensor->name(), &format_name<typename tensor_t::format_type>});
    };
    expr::for_each_access(rhs, [&](const auto& a, std::size_t) { source(a); });
    source(lhs);
    throw_extent_clash(names[bad->first], operand_labels(sources), first[bad->first], bad->second);
  }
  std::array<std::int64_t, n> extent{};  // no allocation per call
  for (std::size_t id = 0; id < n; ++id) {
    if (first[id].extent < 0) throw_unknown_extent(names[id]);
    extent[id] = first[id].extent;
  }
  return extent;
}

/// Whether some map's f(0, ...) is non-zero, so that maps must cover their whole domain.
template <class Rhs> bool maps_need_dense_domain(const Rhs& rhs) {
  bool dense = false;
  expr::for_each_node(rhs, [&](const auto& node) {
    using N = std::remove_cvref_t<decltype(node)>;
    if constexpr (requires {
                    node.f;
                    node.args;
                  }) {
      using F = decltype(node.f);
      if constexpr (!fn::is_zero_preserving_v<F>) {
        using V = expr::value_type_t<N>;
        const V zero = semiring_traits<V>::zero();
        constexpr std::size_t arity = std::tuple_size_v<decltype(node.args)>;
        auto value_or_zero = [&](const auto& arg) -> std::optional<V> {
          using A = std::remove_cvref_t<decltype(arg)>;
          if constexpr (!boost::mp11::mp_empty<expr::free_indices_t<A>>::value)
            return zero;
          else if constexpr (requires { arg.value; })
            return static_cast<V>(arg.value);
          else
            return std::nullopt;  // a computed scalar: assume the worst
        };
        if constexpr (arity == 1) {
          dense = dense || !(static_cast<V>(node.f(zero)) == zero);
        } else {
          auto a = value_or_zero(std::get<0>(node.args));
          auto b = value_or_zero(std::get<1>(node.args));
          dense = dense || !a || !b || !(static_cast<V>(node.f(*a, *b)) == zero);
        }
      }
    }
  });
  return dense;
}

// node types of an expression, as a list
template <class E> struct node_list {
  using type = mp_list<E>;
};
template <class L, class R> struct node_list<expr::add<L, R>> {
  using type = boost::mp11::mp_append<mp_list<expr::add<L, R>>, typename node_list<L>::type,
                                      typename node_list<R>::type>;
};
template <class L, class R> struct node_list<expr::mul<L, R>> {
  using type = boost::mp11::mp_append<mp_list<expr::mul<L, R>>, typename node_list<L>::type,
                                      typename node_list<R>::type>;
};
template <class L, class R> struct node_list<expr::where<L, R>> {
  using type = boost::mp11::mp_append<mp_list<expr::where<L, R>>, typename node_list<L>::type,
                                      typename node_list<R>::type>;
};
template <class I, class E> struct node_list<expr::sum<I, E>> {
  using type = boost::mp11::mp_push_front<typename node_list<E>::type, expr::sum<I, E>>;
};
template <class I, class E> struct node_list<expr::expand<I, E>> {
  using type = boost::mp11::mp_push_front<typename node_list<E>::type, expr::expand<I, E>>;
};
template <class F, class... Es> struct node_list<expr::map<F, Es...>> {
  using type =
      boost::mp11::mp_append<mp_list<expr::map<F, Es...>>, typename node_list<Es>::type...>;
};
template <class N> struct is_runtime_map : std::false_type {};
template <class F, class... Es>
struct is_runtime_map<expr::map<F, Es...>> : std::bool_constant<!fn::is_zero_preserving_v<F>> {};

/// Whether the kernel needs a second, dense-domain variant (a map with unknown f(0)).
template <class Rhs>
inline constexpr bool needs_map_variants =
    boost::mp11::mp_any_of<typename node_list<Rhs>::type, is_runtime_map>::value;

/// An upper bound on the entries of E's support over the output's indices `Out`, -1 where none
/// is known: a sparse access whose indices cover the output's holds at most its stored
/// entries, a product (or a masked expression) at most its least factor's, a sum of terms at
/// most their total, a reduction at most its body's.
template <class Out, class E> std::int64_t support_bound(const E& e) {
  using boost::mp11::mp_all_of_q;
  using boost::mp11::mp_bind_front;
  using boost::mp11::mp_contains;
  using boost::mp11::mp_similar;
  const auto least = [](std::int64_t a, std::int64_t b) {
    return a < 0 ? b : b < 0 ? a : std::min(a, b);
  };
  if constexpr (expr::is_access<E>::value) {
    using tensor_t = std::remove_const_t<std::remove_pointer_t<decltype(e.tensor)>>;
    if constexpr (!tensor_t::format_type::all_dense &&
                  mp_all_of_q<Out, mp_bind_front<mp_contains, expr::free_indices_t<E>>>::value)
      return e.tensor->nnz();
    else
      return -1;
  } else if constexpr (mp_similar<E, expr::add<void, void>>::value) {
    const std::int64_t a = support_bound<Out>(e.lhs), b = support_bound<Out>(e.rhs);
    return a < 0 || b < 0 ? -1 : a + b;
  } else if constexpr (mp_similar<E, expr::mul<void, void>>::value) {
    return least(support_bound<Out>(e.lhs), support_bound<Out>(e.rhs));
  } else if constexpr (mp_similar<E, expr::where<void, void>>::value) {
    return least(support_bound<Out>(e.pred), support_bound<Out>(e.body));
  } else if constexpr (mp_similar<E, expr::sum<void, void>>::value) {
    return support_bound<Out>(e.body);
  } else {
    return -1;
  }
}

/// The entries to reserve for a sparse output: the workspace's estimate of its writes (the
/// flops of a SpGEMM: an upper bound) where one was made, else the bound of the expression's
/// support (support_bound), else the operands' stored entries (dense ones left out).
template <class Lhs, class Rhs>
std::int64_t output_entries_bound(const Rhs& rhs, const optimize::workspace_choice& workspace) {
  if (workspace.estimate.writes > 0)
    return static_cast<std::int64_t>(std::min(workspace.estimate.writes, 0x1p62));
  if (const std::int64_t b = support_bound<expr::free_indices_t<Lhs>>(rhs); b >= 0) return b;
  std::int64_t sparse = 0, all = 0;  // dense operands (a scaling, SDDMM's factors) add no entries
  expr::for_each_access(rhs, [&](const auto& a, std::size_t) {
    using tensor_t = std::remove_const_t<std::remove_pointer_t<decltype(a.tensor)>>;
    all += a.tensor->nnz();
    if constexpr (!tensor_t::format_type::all_dense) sparse += a.tensor->nnz();
  });
  return sparse > 0 ? sparse : all;
}

/// `out += fresh` for a sparse output: both tensors' entries, sorted (two sorted runs: a merge)
/// and summed where they meet. Depends on the output's type only, not on the kernel.
template <class Out> void merge_into(Out& out, const Out& fresh) {
  using T = typename Out::value_type;
  using out_format = typename Out::format_type;
  constexpr std::size_t N = Out::order;
  stream::entry_list<T, N> entries;
  auto push = [&](const auto& c, const T& v) {
    std::array<std::int64_t, N> s{};
    for (std::size_t k = 0; k < N; ++k) s[k] = c[out_format::modes[k]];
    entries.push(s, v);
  };
  fresh.for_each_stored(push);
  out.for_each_stored(push);
  detail::sort_and_merge(entries.crd, entries.vals, duplicates::sum, out_format::modes, false);
  std::string name = out.name();
  out = detail::assemble_sorted<T, out_format>(out.shape(), entries.crd, std::move(entries.vals));
  out.set_name(std::move(name));
}

/// Runs one instantiated plan into `out`, its intersections co-iterating as `Skips` says.
template <class Plan, bool DenseMaps, class Skips = stream::skip::per_loop<>, class Out, class Lhs,
          class Rhs>
void run_plan(Out& out, const Lhs& lhs, const Rhs& rhs, bool accumulate, const auto& extent_by_id,
              const stream::skip::codes& skips) {
  using order = typename Plan::order;
  using universe = typename Plan::universe;
  using V = expr::value_type_t<Rhs>;
  using T = typename Out::value_type;
  using B = bindings_of<Plan>;
  constexpr std::size_t depth_count = Plan::index_count;

  static_assert(stream::skip::max_loops >= plan::detail::max_indices,
                "loom internal error: fewer skip codes than loops; please report");
  if constexpr (!Out::format_type::all_dense && !Out::format_type::dense_over_bitmap &&
                Out::owning) {
    if (accumulate) {
      // `+=` into a sparse output: this kernel's `=` into a fresh tensor (a call of this same
      // function: no second loop nest to compile, and the loop of `=` keeps its registers),
      // then merged with the stored entries. The output is untouched until the merge.
      Out fresh(out.shape());
      run_plan<Plan, DenseMaps, Skips>(fresh, lhs, rhs, false, extent_by_id, skips);
      merge_into(out, fresh);
      return;
    }
  }
  stream::kernel_context ctx;
  ctx.skip = skips;
  ctx.sequential_sums = loom::deterministic();
  for (std::size_t d = 0; d < depth_count; ++d)
    ctx.extents[d] = extent_by_id[Plan::chosen.order[d]];

  typename B::pointers pointers{};
  typename B::temporaries temporaries{};
  // the operands by ordinal, then bound by their static ordinal (a lambda per access, not one
  // per pair of access and ordinal: compile time)
  std::array<const void*, Plan::access_count> operands{};
  expr::for_each_access(rhs, [&](const auto& a, std::size_t k) { operands[k] = a.tensor; });
  boost::mp11::mp_for_each<boost::mp11::mp_iota_c<Plan::access_count>>([&](auto K) {
    using bind = binding<Plan, K>;
    const auto* tensor = static_cast<const typename bind::original*>(operands[K]);
    if constexpr (bind::transposed)  // reformat to a concordant order, once per version
      std::get<K>(pointers) = &transposed_copy<bind>(*tensor, std::get<K>(temporaries));
    else
      std::get<K>(pointers) = tensor;
  });

  stream::lowerer<order, V, DenseMaps, typename B::pointers, Skips> lower{&ctx, &pointers};
  const auto root = lower.template lower_root<0>(rhs);
  (void)lhs;

  using out_format = typename Out::format_type;
  constexpr std::size_t N = Out::order;
  // depth of each output mode
  static constexpr auto out_depth = [] {
    std::array<std::size_t, N> d{};
    using out_indices = expr::free_indices_t<Lhs>;
    boost::mp11::mp_for_each<boost::mp11::mp_iota_c<N>>([&](auto m) {
      using I = boost::mp11::mp_at_c<out_indices, m>;
      d[m] = boost::mp11::mp_find<order, I>::value;
    });
    return d;
  }();
  (void)universe{};

  // Parallel execution (parallel/): the outer loop is split into chunks when the options and
  // the data allow it; otherwise (always with one thread) the serial loops below run unchanged.
  // The split loops get a copy of the stream tree: `root`'s address must not escape, or the
  // compiler keeps its fields (strides, offsets) in memory in the serial loops too.
  using root_type = std::remove_cvref_t<decltype(root)>;
  constexpr bool splittable =
      parallel::splittable_root<root_type> && !out_format::dense_over_bitmap &&
      (out_format::all_dense || (!stream::is_contracted<root_type>() && Plan::output_prefix >= 1));
  parallel::outer_split split;
  if constexpr (splittable)
    split = parallel::decide_split<order, typename Plan::accesses, typename B::pointers, T>(
        pointers, ctx.extents[0], stream::is_contracted<root_type>(),
        out_format::all_dense ? out.values().size() : 0);

  // an output written in place: the row-major stride of each loop depth that indexes it
  auto located_strides = [&] {
    std::array<std::int64_t, Plan::index_count + 1> strides{};
    for (std::size_t m = 0; m < N; ++m) {
      std::int64_t stride = 1;
      const std::size_t level = out_format::level_of_mode[m];
      for (std::size_t k = level + 1; k < N; ++k) stride *= out.extent(out_format::modes[k]);
      strides[out_depth[m]] = stride;
    }
    return strides;
  };
  (void)located_strides;

  if constexpr (out_format::all_dense) {
    if (!accumulate) {
      if (split.active)
        parallel::fill(out.values().data(), out.values().size(), semiring_traits<T>::zero(),
                       split.threads);
      else
        std::fill(out.values().begin(), out.values().end(), semiring_traits<T>::zero());
    }
    const auto strides = located_strides();
    if constexpr (splittable) {
      if (split.active) {
        parallel::run_dense(out.values().data(), out.values().size(), strides.data(),
                            static_cast<root_type>(root), split);
        return;
      }
    }
    stream::run_dense(out.values().data(), strides.data(), root, 0);
  } else if constexpr (out_format::dense_over_bitmap && Out::owning) {
    // Galley's bytemap: values located and accumulated like a dense output, a presence bit set
    // per cell written; no entries collected or sorted, any loop order. Serial: two rows may
    // share a word of bits. Every construction (by shape, conversion, assembly) sizes the values
    // and bits to the cells.
    auto& bits = out.template level<N - 1>().bits;
    if (!accumulate) {
      std::fill(out.values().begin(), out.values().end(), semiring_traits<T>::zero());
      std::fill(bits.begin(), bits.end(), std::uint64_t{0});
    }
    const auto strides = located_strides();
    stream::run_located(stream::bitmap_cell<T>{out.values().data(), bits.data()}, strides.data(),
                        root, 0);
  } else {
    static_assert(Out::owning,
                  "loom internal error: a sparse output that owns no arrays; please report");
    // out of order: the workspace kind is chosen from estimates (optimize/workspace_choice.hpp)
    optimize::workspace_choice workspace;
    if constexpr (!Plan::output_in_order)
      workspace = optimize::cached_workspace_choice<Plan>(lhs, rhs);
    static constexpr std::array<std::size_t, N> depth_of_level = [] {
      std::array<std::size_t, N> d{};
      for (std::size_t k = 0; k < N; ++k) d[k] = out_depth[out_format::modes[k]];
      return d;
    }();
    // the depth of the workspace's only key level (a matrix row's columns), else none
    static constexpr std::size_t key_depth =
        Plan::output_prefix + 1 == N ? depth_of_level[N - 1] : stream::no_key_depth;
    // the depth whose every index ends a row (flushes the workspace), else none
    static constexpr std::size_t row_depth =
        Plan::output_prefix > 0 ? depth_of_level[Plan::output_prefix - 1] : stream::no_key_depth;
    auto configure = [&](auto& sink) {
      if constexpr (requires { sink.prefix; }) {
        sink.depth_of_level = depth_of_level;
        sink.prefix = Plan::output_prefix;
        sink.kind = workspace.kind;
        sink.expected_row_entries = workspace.row_entries();
        for (std::size_t k = 0; k < N; ++k) sink.level_extent[k] = out.extent(out_format::modes[k]);
        sink.init();
      }
    };
    auto drive = [&](auto& sink) {
      configure(sink);
      stream::run_sparse(sink, root);
      sink.finish();
    };
    auto make_sink = [&](auto& target) {  // a thread's sink, configured by that thread
      using target_t = std::remove_cvref_t<decltype(target)>;
      using sink_t =
          std::conditional_t<Plan::output_in_order,
                             stream::append_sink<T, N, target_t, depth_of_level>,
                             stream::workspace_sink<T, N, target_t, key_depth, row_depth>>;
      std::unique_ptr<sink_t> sink(new sink_t{target});
      configure(*sink);
      return sink;
    };
    (void)make_sink;
    auto run_into = [&](auto& entries) {
      if constexpr (splittable) {
        if (split.active) {
          parallel::run_sparse<T, N>(entries, static_cast<root_type>(root), split, make_sink);
          return;
        }
      }
      if constexpr (Plan::output_in_order) {
        stream::append_sink<T, N, std::remove_cvref_t<decltype(entries)>, depth_of_level> sink{
            entries};
        drive(sink);
      } else {
        stream::workspace_sink<T, N, std::remove_cvref_t<decltype(entries)>, key_depth, row_depth>
            sink{entries};
        drive(sink);
      }
    };
    std::string name = out.name();
    // entries arrive sorted and unique: build the levels directly (`+=` came as `=`, above)
    if constexpr (splittable && parallel::rows_format<out_format>) {
      if (split.active) {  // CSR-like: every chunk writes its part of the arrays
        try {              // the output's arrays are refilled, capacity kept
          out = parallel::run_sparse_rows<T, out_format>(out.shape(), static_cast<root_type>(root),
                                                         split, make_sink, &out);
        } catch (...) {
          out.clear();  // its arrays may have gone: leave a valid empty tensor
          out.set_name(std::move(name));
          throw;
        }
        out.set_name(std::move(name));
        return;
      }
    }
    // the output's pattern is an operand's (SDDMM, a scaling): copy it, compute values only
    if constexpr (Plan::output_in_order && plan::pattern_of<Lhs, Rhs>::shares &&
                  detail::appender<T, out_format>::by_rows) {
      const Out* pattern = nullptr;
      expr::for_each_access(rhs, [&](const auto& a, std::size_t k) {
        if constexpr (std::is_same_v<std::remove_cvref_t<decltype(*a.tensor)>, Out>)
          if (k == plan::pattern_of<Lhs, Rhs>::ordinal) pattern = a.tensor;
      });
      try {
        if (pattern != nullptr &&
            detail::appender<T, out_format>::fill_values_on_pattern(
                out, *pattern, [&](auto& values) {
                  stream::values_sink<T, std::remove_cvref_t<decltype(values)>> sink{values};
                  stream::run_sparse(sink, root);
                  values = sink.values;
                })) {
          out.set_name(std::move(name));
          return;
        }
      } catch (...) {
        out.clear();  // the pattern without all its values: leave a valid empty tensor
        out.set_name(std::move(name));
        throw;
      }
    }
    // the output's own arrays are refilled: a kernel run again allocates nothing
    try {
      detail::appender<T, out_format> entries(out.shape(), &out);
      entries.reserve(static_cast<std::size_t>(std::min<std::int64_t>(
          output_entries_bound<Lhs>(rhs, workspace), std::int64_t{1} << 26)));
      run_into(entries);
      out = std::move(entries).finish();
    } catch (...) {
      out.clear();  // its arrays went to the appender: leave a valid empty tensor
      out.set_name(std::move(name));
      throw;
    }
    out.set_name(std::move(name));
  }
}

/// Runs plan P with the skip policies `Skips`; `skip::runtime` intersections read `skips`.
template <class P, class Skips = stream::skip::per_loop<>, class Out, class Lhs, class Rhs>
void execute_plan(Out& out, const Lhs& lhs, const Rhs& rhs, bool accumulate,
                  const stream::skip::codes& skips = stream::skip::default_codes) {
  const auto extents = gather_extents(lhs, rhs);  // by P::universe, which depends on lhs, rhs only
  if constexpr (needs_map_variants<Rhs>) {
    if (maps_need_dense_domain(rhs))
      return run_plan<P, true, Skips>(out, lhs, rhs, accumulate, extents, skips);
  }
  run_plan<P, false, Skips>(out, lhs, rhs, accumulate, extents, skips);
}

/// Runs plan P with the skip policy of each loop as the options say (optimize/leader_choice.hpp):
/// the static table; chosen from statistics among `skip_candidates<N>` instantiated variants of
/// the kernel; one kernel whose intersections read their policy (`runtime_skips`); or fixed.
/// The options' forced fields override the statistics.
template <class P, class Options, class Out, class Lhs, class Rhs>
void execute_plan_choosing_skip(Out& out, const Lhs& lhs, const Rhs& rhs, bool accumulate,
                                const Options& opts) {
  using skips = typename Options::skips;
  if constexpr (!std::is_void_v<typename fixed_skips_of<skips>::type>) {
    execute_plan<P, typename fixed_skips_of<skips>::type>(out, lhs, rhs, accumulate);
    return;
  } else if constexpr (Options::skip_cap > 1) {
    using candidates = optimize::skip_candidates_t<P, Options::skip_cap>;
    constexpr std::size_t n = boost::mp11::mp_size<candidates>::value;
    if constexpr (n > 1) {
      const std::size_t chosen = opts.skip_candidate
                                     ? std::min(*opts.skip_candidate, n - 1)
                                     : optimize::cached_skip_choice<P, Options::skip_cap>(lhs, rhs);
      boost::mp11::mp_with_index<n>(chosen, [&](auto c) {
        execute_plan<P, boost::mp11::mp_at_c<candidates, decltype(c)::value>>(out, lhs, rhs,
                                                                              accumulate);
      });
      return;
    }
  } else if constexpr (std::is_same_v<skips, opt::runtime_skips>) {
    if constexpr (optimize::has_runtime_skip_loop<P>) {
      execute_plan<P, stream::skip::every_loop<stream::skip::runtime>>(
          out, lhs, rhs, accumulate,
          opts.skip_codes ? *opts.skip_codes : optimize::cached_runtime_skips<P>(lhs, rhs));
      return;
    }
  }
  (void)opts;
  execute_plan<P>(out, lhs, rhs, accumulate);
}

template <class Options, class Out, class Lhs, class Rhs>
void execute(Out& out, const Lhs& lhs, const Rhs& rhs, bool accumulate, const Options& opts) {
  constexpr std::size_t n = plan::plan_candidates<Lhs, Rhs>::count;
  if constexpr (n > 1) {  // the best plan depends on the data: the runtime optimizer picks
    const std::size_t chosen = optimize::cached_choice(lhs, rhs);
    boost::mp11::mp_with_index<n>(chosen, [&](auto c) {
      execute_plan_choosing_skip<plan::order_plan<Lhs, Rhs, static_cast<int>(decltype(c)::value)>>(
          out, lhs, rhs, accumulate, opts);
    });
  } else {
    execute_plan_choosing_skip<plan::order_plan<Lhs, Rhs>>(out, lhs, rhs, accumulate, opts);
  }
}

// The extent of index I in the accesses of e.
template <class I, class E> std::int64_t extent_in(const E& e) {
  std::int64_t x = -1;
  expr::for_each_access(e, [&]<class T, class... Is>(const expr::access<T, Is...>& a, std::size_t) {
    std::size_t m = 0;
    (..., [&] {
      if (x < 0 && std::is_same_v<Is, I>) x = a.tensor->extent(m);
      ++m;
    }());
  });
  return x;
}

// A hoisted sum's storage: a dense vector (the size of one operand mode), a dense matrix unless
// the sum is statically sparse (then DCSR).
template <class V, class S, std::size_t N>
using hoisted_tensor =
    tensor<V, std::conditional_t<N == 0, format<>,
                                 std::conditional_t<N == 1, dense_vector,
                                                    std::conditional_t<rewrite::hoisted_dense_v<S>,
                                                                       dense_matrix, dcsr>>>>;

template <class Options, class OT, class... Os, class R>
void assign_checked(expr::access<OT, Os...>& lhs, const R& rhs_operand, bool accumulate,
                    const Options& opts);

/// Runs `lhs = rhs`, first computing once a sum that the fused loop nest would recompute for
/// each value of indices it does not depend on (rewrite/hoist.hpp), e.g. the inner sum of
/// sum(i, A(i,j) * sum(k, A(i,k) * x(k))), when the cost model says that is cheaper
/// (optimize/hoist_choice.hpp; a filter the sum would lose, as in TPC-H Q5, keeps it fused).
/// Fixed skip policies name the loops of one plan, so they hoist nothing.
template <class Options, class Out, class Lhs, class Rhs>
void execute_hoisted(Out& out, const Lhs& lhs, const Rhs& rhs, bool accumulate,
                     const Options& opts) {
  constexpr bool fixed = !std::is_void_v<typename fixed_skips_of<typename Options::skips>::type>;
  if constexpr (rewrite::has_hoistable_v<Rhs> && !fixed) {
    bool hoisted = false;
    rewrite::hoist_first(rhs, [&](const auto& s, auto rebuild) {
      using S = std::remove_cvref_t<decltype(s)>;
      [&]<class... Is>(mp_list<Is...>) {
        using T = hoisted_tensor<expr::value_type_t<S>, S, sizeof...(Is)>;
        if (!optimize::cached_hoist(lhs, rhs, s, rewrite::hoisted_dense_v<S>)) return;
        hoisted = true;
        T t(typename T::shape_type{extent_in<Is>(s)...});
        if constexpr (T::format_type::all_dense)
          LOOM_COUNT_WORK_N(writes, t.values().size());  // zeroed
        expr::access<T, Is...> target{&t};
        assign_checked(target, s, false, opts);  // its own kernel (rewritten and hoisted in turn)
        if constexpr (sizeof...(Is) ==
                      0)  // a scalar: a literal (order-0 operands are not streamed)
          execute_hoisted(out, lhs, rebuild(expr::literal<expr::value_type_t<S>>{t.values()[0]}),
                          accumulate, opts);
        else
          execute_hoisted(out, lhs, rebuild(expr::access<const T, Is...>{&t}), accumulate, opts);
      }(expr::free_indices_t<S>{});
    });
    if (!hoisted) execute(out, lhs, rhs, accumulate, opts);
  } else {
    execute(out, lhs, rhs, accumulate, opts);
  }
}

/// Runs `run(target, out)` for `lhs = rhs`: straight into the output, or, when an operand reads
/// the output's storage (the same tensor, two views of one buffer, a view of the output's own
/// arrays; format/memory.hpp), into a copy that then replaces the output (moved into an owning
/// tensor, copied back into a view's buffer), so no operand sees a half-written result.
template <class OT, class... Os, class Rhs, class Run>
void run_unaliased(expr::access<OT, Os...>& lhs, const Rhs& rhs, Run&& run) {
  using out_t = std::remove_const_t<OT>;
  if (!aliases_output(lhs.tensor, rhs)) {
    run(lhs, *lhs.tensor);
    return;
  }
  tensor<typename out_t::value_type, typename out_t::format_type> result(*lhs.tensor);
  expr::access<decltype(result), Os...> target{&result};
  run(target, result);
  if constexpr (out_t::owning)
    *lhs.tensor = std::move(result);
  else
    std::copy(result.values().begin(), result.values().end(), lhs.tensor->values().begin());
}

}  // namespace loom::detail

namespace loom::detail {

/// `lhs = rhs` (or `+=`) under `opts`: checks the kernel (compile time), applies the
/// always-profitable rewrites (rewrite/), then runs it as fused loop nests (the plan and the skip
/// policies chosen as the options allow), into a copy when an operand reads the output.
template <class Options, class OT, class... Os, class R>
void assign_checked(expr::access<OT, Os...>& lhs, const R& rhs_operand, bool accumulate,
                    const Options& opts) {
  static_assert(expr::operand<R>,
                "loom::assign: the right-hand side must be an expression or a scalar");
  const auto written = expr::as_expr(rhs_operand);
  using Written = std::remove_cvref_t<decltype(written)>;
  using Lhs = expr::access<OT, Os...>;
  using out_t = std::remove_const_t<OT>;
  static_assert(out_t::owning || out_t::format_type::all_dense,
                "loom::assign: a sparse output must be an owning loom::tensor; a view over "
                "caller buffers cannot grow");
  if constexpr (!plan::assignment_is_valid<Lhs, Written>) {
    plan::report_assignment_errors<Lhs, Written>();
  } else {
    const auto rhs = rewrite::for_kernel(written).expr;
    run_unaliased(lhs, rhs, [&](auto& target, auto& out) {
      execute_hoisted(out, target, rhs, accumulate, opts);
    });
  }
}

/// `lhs = loom::order<...>(e)` under `opts`: e checked and rewritten as above, then run as one
/// loop nest in the order given (operands transposed where they disagree; no candidates, no
/// hoisting).
template <class Options, class OT, class... Os, class Order, class E>
void assign_checked(expr::access<OT, Os...>& lhs, const expr::ordered<Order, E>& fixed,
                    bool accumulate, const Options& opts) {
  using Lhs = expr::access<OT, Os...>;
  using out_t = std::remove_const_t<OT>;
  static_assert(out_t::owning || out_t::format_type::all_dense,
                "loom::assign: a sparse output must be an owning loom::tensor; a view over "
                "caller buffers cannot grow");
  if constexpr (!plan::assignment_is_valid<Lhs, E>) {
    plan::report_assignment_errors<Lhs, E>();
  } else {
    const auto rhs = rewrite::for_kernel(fixed.expr).expr;
    using Rhs = std::remove_cvref_t<decltype(rhs)>;
    run_unaliased(lhs, rhs, [&](auto& target, auto& out) {
      using T = std::remove_cvref_t<decltype(target)>;
      execute_plan_choosing_skip<plan::order_plan<T, Rhs, -1, Order>>(out, target, rhs, accumulate,
                                                                      opts);
    });
  }
}

}  // namespace loom::detail

namespace loom::expr {

/// `out(i...) = rhs` and `out(i...) += rhs`, with the default options. Found by
/// argument-dependent lookup from `access::operator=`.
template <class OT, class... Os, class R, class Tag>
void evaluate_assignment(access<OT, Os...>& lhs, const R& rhs, Tag) {
  loom::detail::assign_checked(lhs, rhs, std::is_same_v<Tag, accumulate_tag>, default_options{});
}

}  // namespace loom::expr

namespace loom {

/// `lhs = rhs` under `opts`, e.g.
/// `loom::assign(y(i), sum(j, A(i, j) * x(j)), loom::options<loom::opt::runtime_skips>{})`;
/// `y(i) = e` is `loom::assign(y(i), e)`. With `opt::eliminate`, see loom::decompose.
template <class OT, class... Os, class R, options_type O = default_options>
  requires(!std::remove_cvref_t<O>::eliminate)
void assign(expr::access<OT, Os...> lhs, const R& rhs, const O& opts = {}) {
  detail::assign_checked(lhs, rhs, false, opts);
}

/// `lhs += rhs` under `opts`.
template <class OT, class... Os, class R, options_type O = default_options>
  requires(!std::remove_cvref_t<O>::eliminate)
void accumulate(expr::access<OT, Os...> lhs, const R& rhs, const O& opts = {}) {
  detail::assign_checked(lhs, rhs, true, opts);
}

/// The value of an expression without free indices under `opts`:
/// `double s = loom::eval(sum(i, x(i)));`
template <expr::operand E, options_type O = default_options>
auto eval(const E& e, const O& opts = {}) {
  const auto written = expr::as_expr(e);
  using Written = std::remove_cvref_t<decltype(written)>;
  using V = expr::value_type_t<Written>;
  V value = semiring_traits<V>::zero();  // the kernel writes through a view: no allocation
  view<V, format<>> result({}, {}, std::span<V>(&value, 1));
  expr::access<view<V, format<>>> target{&result};
  if constexpr (!plan::assignment_is_valid<decltype(target), Written>)
    plan::report_assignment_errors<decltype(target), Written>();
  else
    loom::detail::execute_hoisted(result, target, rewrite::for_kernel(written).expr, false, opts);
  return value;
}

}  // namespace loom

#endif  // LOOM_EXEC_EVALUATE_HPP
