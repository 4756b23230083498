// Defines what the driver binds before a plan runs (exec/): each operand's tensor under the plan
// (transposed copies where the loop order disagrees with its storage), the extents of every index
// checked across operands, and whether a map needs a dense-domain variant of the kernel.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_BIND_HPP
#define LOOM_EXEC_BIND_HPP

#include <loom/core/config.hpp>
#include <loom/core/error.hpp>
#include <loom/core/work_counters.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/expr/visit.hpp>
#include <loom/format/memory.hpp>
#include <loom/format/tensor.hpp>
#include <loom/plan/checks.hpp>
#include <loom/plan/order.hpp>
#include <loom/plan/transposed_format.hpp>
#include <loom/stream/lower.hpp>
#include <loom/stream/skip.hpp>

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

template <class Plan> struct binding_transposed {
  template <class K> using fn = boost::mp11::mp_bool<binding<Plan, K::value>::transposed>;
};

/// Points each operand of plan P at the tensor its loops read: the operand itself, or its copy
/// reformatted to a concordant order (kept in `temporaries`, converted once per version). One
/// walk for the accesses' addresses, then a fold per kind of binding, no function per operand
/// (compile time).
template <class Plan, class Rhs>
void bind_operands(const Rhs& rhs, typename bindings_of<Plan>::pointers& pointers,
                   typename bindings_of<Plan>::temporaries& temporaries) {
  using boost::mp11::mp_at_c;
  constexpr std::size_t n = Plan::access_count;
  if constexpr (n > 0) {
    using nodes = expr::accesses_t<Rhs>;
    using operands = boost::mp11::mp_iota_c<n>;
    const void* at[n];
    expr::detail::collect_accesses(rhs, at);
    [&]<class... K>(mp_list<K...>) {
      (..., (std::get<K::value>(pointers) =
                 static_cast<const mp_at_c<nodes, K::value>*>(at[K::value])->tensor));
    }(boost::mp11::mp_remove_if_q<operands, binding_transposed<Plan>>{});
    [&]<class... K>(mp_list<K...>) {
      (..., (std::get<K::value>(pointers) = &transposed_copy<binding<Plan, K::value>>(
                 *static_cast<const mp_at_c<nodes, K::value>*>(at[K::value])->tensor,
                 std::get<K::value>(temporaries))));
    }(boost::mp11::mp_copy_if_q<operands, binding_transposed<Plan>>{});
  }
  (void)rhs, (void)pointers, (void)temporaries;
}

/// Whether every fiber of a compressed level holds fewer than `bound` entries: a scan of `pos`
/// by blocks (vectorised within one), stopping at the first block with a longer fiber.
template <class Pos> bool fibers_shorter_than(const Pos& pos, std::int64_t bound) {
  constexpr std::size_t block = 256;
  for (std::size_t p = 1; p < pos.size(); p += block) {
    const std::size_t end = std::min(pos.size(), p + block);
    std::int64_t longest = 0;
    for (std::size_t q = p; q < end; ++q)
      longest = std::max(longest, static_cast<std::int64_t>(pos[q] - pos[q - 1]));
    if (longest >= bound) return false;
  }
  return true;
}

/// Whether level K of `t` iterates only fibers shorter than skip::gallop_ratio: a compressed
/// level's from its `pos`, a dense one's from its extent; any other, no (a singleton below a
/// non-unique level iterates its parent's whole segment).
template <std::size_t K, class T> bool level_fibers_short(const T& t) {
  using level = boost::mp11::mp_at_c<typename T::format_type::levels, K>;
  constexpr level_layout layout = layout_of<level>;
  if constexpr (layout == level_layout::compressed)
    return fibers_shorter_than(t.template level<K>().pos, stream::skip::gallop_ratio);
  else if constexpr (layout == level_layout::dense)
    return t.template level<K>().extent < stream::skip::gallop_ratio;
  else
    return false;
}

/// The loop depth of each level of an operand bound as `Tensor`, and whether the level is full;
/// none for a dense or order-0 operand (located, never merged).
template <class Tensor, class Order, class Access> struct iterated_levels {
  static constexpr std::size_t count = 0;
  static constexpr std::array<std::size_t, 1> depth{};
  static constexpr std::array<bool, 1> full{};
};
template <class Tensor, class Order, class T, class... Is>
  requires(sizeof...(Is) > 0 && !Tensor::format_type::all_dense)
struct iterated_levels<Tensor, Order, expr::access<T, Is...>> {
  using layout = stream::access_layout<Tensor, Order, Is...>;
  static constexpr std::size_t count = layout::order;
  static constexpr auto depth = layout::depth_of_level;
  static constexpr auto full = [] {
    std::array<bool, count> f{};
    std::size_t m = 0;
    boost::mp11::mp_for_each<
        boost::mp11::mp_transform<boost::mp11::mp_identity, typename Tensor::format_type::levels>>(
        [&](auto l) { f[m++] = decltype(l)::type::properties.full; });
    return f;
  }();
};
template <class Plan, std::size_t K>
using iterated_levels_of =
    iterated_levels<std::remove_cvref_t<std::remove_pointer_t<
                        std::tuple_element_t<K, typename bindings_of<Plan>::pointers>>>,
                    typename Plan::order, boost::mp11::mp_at_c<typename Plan::accesses, K>>;

/// The loops of plan P worth knowing short: two or more operands iterate a level there that is
/// not full (their intersection merges), below a loop that iterates such a level (so it runs
/// once per stored entry, not once per row, and its pairs of fibers outnumber the fibers a scan
/// reads: the triangle query's, not an inner product's).
template <class Plan>
inline constexpr auto short_fiber_loops = []<std::size_t... Ks>(std::index_sequence<Ks...>) {
  std::array<std::size_t, stream::skip::max_loops> count{};
  auto add = [&](const auto& depth, const auto& full, std::size_t n) {
    for (std::size_t m = 0; m < n; ++m)
      if (!full[m]) ++count[depth[m]];
  };
  (add(iterated_levels_of<Plan, Ks>::depth, iterated_levels_of<Plan, Ks>::full,
       iterated_levels_of<Plan, Ks>::count),
   ...);
  (void)add;  // no operand (an empty Ks)
  std::array<bool, stream::skip::max_loops> worth{};
  bool sparse_above = false;
  const std::size_t loops = Plan::index_count;  // a variable: g++ warns `d < 0` for a scalar
  for (std::size_t d = 0; d < loops; ++d) {
    worth[d] = count[d] >= 2 && sparse_above;
    sparse_above = sparse_above || count[d] >= 1;
  }
  return worth;
}(std::make_index_sequence<Plan::access_count>{});

/// The default skip policies (`per_loop<>`, every loop `standard`) with `standard_short` at the
/// loops of `short_fiber_loops`; any other list as given (forced and run-time policies).
template <class Plan, class Skips> struct hinted_skips_impl {
  using type = Skips;
};
template <class Plan> struct hinted_skips_impl<Plan, stream::skip::per_loop<>> {
  static constexpr auto& worth = short_fiber_loops<Plan>;
  static constexpr bool any = [] {
    for (const bool w : worth)
      if (w) return true;
    return false;
  }();
  template <class D>
  using at =
      std::conditional_t<worth[D::value], stream::skip::standard_short, stream::skip::standard>;
  using type =
      std::conditional_t<any,
                         boost::mp11::mp_apply<stream::skip::per_loop,
                                               boost::mp11::mp_transform<
                                                   at, boost::mp11::mp_iota_c<Plan::index_count>>>,
                         stream::skip::per_loop<>>;
};
template <class Plan, class Skips>
using hinted_skips = typename hinted_skips_impl<Plan, Skips>::type;

/// The type of the stream tree that plan `Plan` lowers `Rhs` to (explain() reads the vector
/// path off it: stream::lanes::shape_of).
template <class Plan, class Rhs>
using root_stream_t = std::remove_cvref_t<
    decltype(std::declval<const stream::lowerer<typename Plan::order, expr::value_type_t<Rhs>,
                                                false, typename bindings_of<Plan>::pointers,
                                                hinted_skips<Plan, stream::skip::per_loop<>>>&>()
                 .template lower_root<0>(std::declval<const Rhs&>()))>;

/// Sets `short_fibers[d]` for each loop d of `short_fiber_loops` where every fiber the bound
/// operands iterate is shorter than skip::gallop_ratio: an adaptive intersection there could not
/// gallop (that needs one fiber gallop_ratio times another's length), so it merges without
/// comparing the lengths of each pair of fibers (stream/intersections.hpp). The scan of a
/// level's `pos` stops at its first long fiber; other kernels scan nothing.
template <class Plan>
void note_short_fibers(const typename bindings_of<Plan>::pointers& pointers,
                       std::array<bool, stream::skip::max_loops>& short_fibers) {
  constexpr auto& worth = short_fiber_loops<Plan>;
  constexpr bool any_worth = [] {
    for (const bool w : short_fiber_loops<Plan>)
      if (w) return true;
    return false;
  }();
  short_fibers = worth;
  // most plans have no such loop: then nothing per operand is compiled (compile time)
  if constexpr (any_worth)
    boost::mp11::mp_for_each<boost::mp11::mp_iota_c<Plan::access_count>>([&](auto kc) {
      constexpr std::size_t K = decltype(kc)::value;
      using levels = iterated_levels_of<Plan, K>;
      boost::mp11::mp_for_each<boost::mp11::mp_iota_c<levels::count>>([&](auto level) {
        constexpr std::size_t L = decltype(level)::value;
        constexpr std::size_t d = levels::depth[L];
        if constexpr (worth[d])
          if (short_fibers[d]) short_fibers[d] = level_fibers_short<L>(*std::get<K>(pointers));
      });
    });
}

LOOM_DECL std::string operand_label(const std::string& name, std::size_t ordinal,
                                    const std::string& format);

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
LOOM_DECL [[gnu::cold]] std::vector<std::string> operand_labels(
    const std::vector<operand_label_source>& sources);

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

LOOM_DECL [[noreturn, gnu::cold]] void throw_extent_clash(std::string_view index,
                                                          const std::vector<std::string>& labels,
                                                          extent_source first,
                                                          extent_source second);

LOOM_DECL [[noreturn, gnu::cold]] void throw_unknown_extent(std::string_view index);

/// Extents of every index of the assignment's universe, checked to agree across operands.
/// It depends on the expression, not on the plan, so that the candidate plans of one expression
/// share it; its messages are built out of line, only when something is wrong (this runs on
/// every call).
template <class Lhs, class Rhs> auto gather_extents(const Lhs& lhs, const Rhs& rhs) {
  using universe = plan::assignment_universe<Lhs, Rhs>;
  constexpr std::size_t n = boost::mp11::mp_size<universe>::value;
  constexpr std::size_t operands = boost::mp11::mp_size<expr::accesses_t<Rhs>>::value;
  std::array<extent_source, n> first{};
  std::optional<std::pair<std::size_t, extent_source>> bad;  // (index id, where it disagreed)
  // what a message would say of each operand, noted on the way (two stores per operand), so
  // that one walk serves both: compile time
  std::array<operand_label_source, operands + 1> sources{};
  // one loop per operand type over its modes' index ids (not a lambda per mode: compile time)
  auto visit = [&]<class T, class... Is>(const expr::access<T, Is...>& a, std::size_t ordinal) {
    using tensor_t = std::remove_const_t<T>;
    if constexpr (sizeof...(Is) > 0) {
      static constexpr std::size_t ids[] = {boost::mp11::mp_find<universe, Is>::value...};
      for (std::size_t m = 0; m < sizeof...(Is); ++m)
        note_extent(first.data(), bad, ids[m], ordinal, m, a.tensor->extent(m));
    }
    sources[ordinal == extent_source::output_ordinal ? operands : ordinal] = {
        &a.tensor->name(), &format_name<typename tensor_t::format_type>};
  };
  expr::for_each_access(rhs, visit);
  using out_t = std::remove_const_t<std::remove_pointer_t<decltype(lhs.tensor)>>;
  if constexpr (out_t::order > 0) visit(lhs, extent_source::output_ordinal);
  static constexpr auto names = index_names(universe{});
  if (bad) {
    if constexpr (out_t::order == 0) visit(lhs, extent_source::output_ordinal);  // its label
    throw_extent_clash(
        names[bad->first],
        operand_labels(std::vector<operand_label_source>(sources.begin(), sources.end())),
        first[bad->first], bad->second);
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

#if LOOM_HEADER_ONLY
LOOM_DEF std::string operand_label(const std::string& name, std::size_t ordinal,
                                   const std::string& format) {
  if (!name.empty()) return name;
  return "operand #" + std::to_string(ordinal) + " (" + format + ")";
}

LOOM_DEF std::vector<std::string> operand_labels(const std::vector<operand_label_source>& sources) {
  std::vector<std::string> labels;
  for (std::size_t k = 0; k + 1 < sources.size(); ++k)
    labels.push_back(operand_label(*sources[k].name, k, sources[k].format()));
  const operand_label_source& out = sources.back();
  labels.push_back(out.name->empty() ? "the output (" + out.format() + ")" : *out.name);
  return labels;
}

LOOM_DEF void throw_extent_clash(std::string_view index, const std::vector<std::string>& labels,
                                 extent_source first, extent_source second) {
  auto label = [&](std::size_t ordinal) -> const std::string& {
    return labels[std::min(ordinal, labels.size() - 1)];  // the output's label comes last
  };
  throw shape_error("loom: index " + std::string(index) + " has extent " +
                    std::to_string(first.extent) + " in " + label(first.ordinal) + " (mode " +
                    std::to_string(first.mode) + ") but " + std::to_string(second.extent) + " in " +
                    label(second.ordinal) + " (mode " + std::to_string(second.mode) + ")");
}

LOOM_DEF void throw_unknown_extent(std::string_view index) {
  throw shape_error("loom: the extent of index " + std::string(index) +
                    " is unknown: it is summed but used by no operand");
}
#endif  // LOOM_HEADER_ONLY

}  // namespace loom::detail

#endif  // LOOM_EXEC_BIND_HPP
