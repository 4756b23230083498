// Defines the text of one plan for loom::explain: the kernel in index notation, the loop order,
// the strategy at each loop level, transpositions, the output and the skip policies (exec/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_PLAN_TEXT_HPP
#define LOOM_EXEC_PLAN_TEXT_HPP

#include <loom/core/algorithms.hpp>
#include <loom/core/config.hpp>
#include <loom/core/static_text.hpp>
#include <loom/core/unpack.hpp>
#include <loom/exec/bind.hpp>
#include <loom/exec/options.hpp>
#include <loom/exec/write_output.hpp>
#include <loom/expr/functions.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/operators.hpp>
#include <loom/expr/order.hpp>
#include <loom/expr/traits.hpp>
#include <loom/expr/visit.hpp>
#include <loom/format/assembly/appender.hpp>
#include <loom/format/format_name.hpp>
#include <loom/format/memory.hpp>
#include <loom/optimize/choice/hoist_choice.hpp>
#include <loom/optimize/choice/plan_choice.hpp>
#include <loom/optimize/choice/skip_choice.hpp>
#include <loom/optimize/choice/workspace_choice.hpp>
#include <loom/plan/order.hpp>
#include <loom/plan/pattern.hpp>
#include <loom/plan/transposed_format.hpp>
#include <loom/rewrite/for_evaluation.hpp>
#include <loom/rewrite/hoist.hpp>
#include <loom/stream/skip.hpp>

#include <boost/mp11/algorithm.hpp>

#include <cstdint>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace loom::detail {

template <class T> std::string tensor_label(const T& t, std::size_t ordinal) {
  return t.name().empty() ? "T" + std::to_string(ordinal) : t.name();
}

// "aliasing: the output's storage is also read by x ...", when it is (format/memory.hpp).
template <class Lhs, class Rhs> std::string aliasing_line(const Lhs& lhs, const Rhs& rhs) {
  const std::string names = aliased_operands(lhs.tensor, rhs);
  if (names.empty()) return "";
  return "aliasing: the output's storage is also read by " + names +
         ": the result is computed into a copy, which then replaces the output\n";
}

template <class... Is> std::string index_list() {
  std::string s;
  ((s += (s.empty() ? "" : ",") + std::string(Is::name)), ...);
  return s;
}

// An expression's text is a constant with holes (expression_pattern<E>): a label hole where an
// access names its tensor, a value hole where a literal or a divisor is known only at run time.
// A kernel then costs one constant and two small walks, not a string function per node type.

inline constexpr char label_hole = '\x01';
inline constexpr char value_hole = '\x02';

template <class E> constexpr void write_expression(text_sink& s);

template <class T, class... Is>
constexpr void write_node(text_sink& s, const expr::access<T, Is...>*) {
  s.put(std::string_view(&label_hole, 1));
  s.put("(");
  bool first = true;
  ((s.put(first ? "" : ","), s.put(Is::name), first = false), ...);
  s.put(")");
}
template <class T> constexpr void write_node(text_sink& s, const expr::literal<T>*) {
  s.put(std::string_view(&value_hole, 1));
}
template <class L, class R> constexpr void write_node(text_sink& s, const expr::add<L, R>*) {
  s.put("(");
  write_expression<L>(s);
  s.put(" + ");
  write_expression<R>(s);
  s.put(")");
}
template <class L, class R> constexpr void write_node(text_sink& s, const expr::mul<L, R>*) {
  write_expression<L>(s);
  s.put(" * ");
  write_expression<R>(s);
}
template <class P, class B> constexpr void write_node(text_sink& s, const expr::where<P, B>*) {
  s.put("where(");
  write_expression<P>(s);
  s.put(", ");
  write_expression<B>(s);
  s.put(")");
}
template <class Op, class I, class B>
constexpr void write_node(text_sink& s, const expr::aggregate<Op, I, B>*) {
  s.put(Op::name);
  s.put("(");
  s.put(I::name);
  s.put(", ");
  write_expression<B>(s);
  s.put(")");
}
template <class I, class B> constexpr void write_node(text_sink& s, const expr::sum<I, B>*) {
  s.put("sum(");
  s.put(I::name);
  s.put(", ");
  write_expression<B>(s);
  s.put(")");
}
template <class I, class B> constexpr void write_node(text_sink& s, const expr::expand<I, B>*) {
  s.put("expand(");
  s.put(I::name);
  s.put(", ");
  write_expression<B>(s);
  s.put(")");
}
template <class F> constexpr std::string_view map_name() {
  if constexpr (requires { F::symbol; })
    return F::symbol;
  else
    return "f";
}
// How a map of F over N arguments is written.
enum class map_form { call, infix, negation, divisor, generic };
template <class F, std::size_t N> constexpr map_form map_form_of() {
  constexpr std::string_view name = map_name<F>();
  if (name != "f" && name != "scale" && !name.empty() && name[0] >= 'a' && name[0] <= 'z')
    return map_form::call;                            // exp(x), max(x, y)
  if (N == 2 && name != "f") return map_form::infix;  // (x < y)
  if (N == 1 && name == "-") return map_form::negation;
  if constexpr (requires(const F& f) { f.divisor; })
    if (N == 1) return map_form::divisor;  // x / 4: the divisor is a run-time value
  return map_form::generic;                // map(f, x, y)
}

template <class F, class... Es>
constexpr void write_node(text_sink& s, const expr::map<F, Es...>*) {
  using args = boost::mp11::mp_list<Es...>;
  constexpr std::string_view name = map_name<F>();
  constexpr map_form form = map_form_of<F, sizeof...(Es)>();
  bool first = true;
  if constexpr (form == map_form::call) {
    s.put(name);
    s.put("(");
    ((s.put(first ? "" : ", "), write_expression<Es>(s), first = false), ...);
    s.put(")");
  } else if constexpr (form == map_form::infix) {
    s.put("(");
    write_expression<boost::mp11::mp_at_c<args, 0>>(s);
    s.put(" ");
    s.put(name);
    s.put(" ");
    write_expression<boost::mp11::mp_at_c<args, 1>>(s);
    s.put(")");
  } else if constexpr (form == map_form::negation) {
    s.put("-");
    write_expression<Es...>(s);
  } else if constexpr (form == map_form::divisor) {
    write_expression<Es...>(s);
    s.put(" / ");
    s.put(std::string_view(&value_hole, 1));
  } else {
    s.put("map(");
    s.put(name);
    ((s.put(", "), write_expression<Es>(s)), ...);
    s.put(")");
  }
  (void)first;
}
template <class E> constexpr void write_expression(text_sink& s) {
  write_node(s, static_cast<const E*>(nullptr));
}

template <class E> struct expression_writer {
  static constexpr void write(text_sink& s) { write_expression<E>(s); }
};
/// E's text with a label hole per access and a value hole per run-time value.
template <class E>
inline constexpr std::string_view expression_pattern = static_text<expression_writer<E>>::view;

/// The text of a literal's value: "2", "0.5".
template <class T> std::string literal_text(const T& value) {
  std::ostringstream s;
  if constexpr (requires { s << value; })
    s << value;
  else if constexpr (requires { s << value.value; })
    s << value.value;
  else
    s << "literal";
  return s.str();
}

/// The values E's value holes stand for, in order, appended to `out`.
template <class E> void collect_values(const E& e, std::vector<std::string>& out) {
  if constexpr (expression_pattern<E>.find(value_hole) == std::string_view::npos) {
    (void)e, (void)out;
  } else if constexpr (requires { e.value; }) {
    out.push_back(literal_text(e.value));
  } else if constexpr (requires {
                         e.lhs;
                         e.rhs;
                       }) {
    collect_values(e.lhs, out);
    collect_values(e.rhs, out);
  } else if constexpr (requires {
                         e.pred;
                         e.body;
                       }) {
    collect_values(e.pred, out);
    collect_values(e.body, out);
  } else if constexpr (requires { e.body; }) {
    collect_values(e.body, out);
  } else if constexpr (requires { e.args; }) {
    unpack([&](const auto&... a) { (collect_values(a, out), ...); }, e.args);
    if constexpr (map_form_of<decltype(e.f), std::tuple_size_v<decltype(e.args)>>() ==
                  map_form::divisor)
      out.push_back(literal_text(e.f.divisor));
  }
}

/// Fills a pattern's holes: label holes from `labels`, the k-th shown as `unnamed` when empty
/// (or, if `unnamed` is empty, as "T<first + k>"); value holes from `values`.
LOOM_DECL std::string fill_pattern(std::string_view pattern,
                                   std::span<const std::string_view> labels,
                                   std::size_t first_ordinal, std::span<const std::string> values,
                                   std::string_view unnamed = {});

template <class A> std::string_view access_label(const void* access) {
  return static_cast<const A*>(access)->tensor->name();
}
/// The names of E's tensors in for_each_access order ("" when unnamed), into `out`.
template <class E> void collect_labels(const E& e, std::vector<std::string_view>& out) {
  using list = expr::accesses_t<E>;
  constexpr std::size_t n = boost::mp11::mp_size<list>::value;
  if constexpr (n != 0) {
    const void* at[n];
    expr::detail::collect_accesses(e, at);
    [&]<class... A>(boost::mp11::mp_list<A...>) {
      using label_fn = std::string_view (*)(const void*);
      static constexpr label_fn labels[] = {&access_label<A>...};
      for (std::size_t slot = 0; slot < n; ++slot) out.push_back(labels[slot](at[slot]));
    }(list{});
  }
}

/// `lhs = rhs` in index notation, named as explain() names them: an unnamed output "out", an
/// unnamed operand "T<its ordinal>".
template <class Lhs, class Rhs>
std::string assignment_text(const Lhs& lhs, const Rhs& rhs, bool accumulate = false) {
  const std::string_view output = lhs.tensor->name();
  std::vector<std::string_view> labels;
  std::vector<std::string> values;
  collect_labels(rhs, labels);
  collect_values(rhs, values);
  return fill_pattern(expression_pattern<Lhs>, {&output, 1}, 0, {}, "out") +
         (accumulate ? " += " : " = ") + fill_pattern(expression_pattern<Rhs>, labels, 0, values);
}

/// Index notation of an expression, with tensor names (or T0, T1, ... by access ordinal).
template <class E> std::string to_string(const E& e, std::size_t& ordinal) {
  std::vector<std::string_view> labels;
  std::vector<std::string> values;
  collect_labels(e, labels);
  collect_values(e, values);
  std::string text = fill_pattern(expression_pattern<E>, labels, ordinal, values);
  ordinal += labels.size();
  return text;
}

template <class P, class Lhs, class Rhs>
std::string explain_plan(const Lhs& lhs, const Rhs& rhs, const std::string& preamble) {
  using order = typename P::order;
  using out_t = std::remove_const_t<std::remove_pointer_t<decltype(lhs.tensor)>>;
  std::ostringstream s;
  std::size_t ordinal = 0;
  const std::string out_name = lhs.tensor->name().empty() ? "out" : lhs.tensor->name();
  std::string kernel = detail::to_string(rhs, ordinal);
  s << "kernel: " << out_name << "(" <<
      [&]<class T, class... Is>(const expr::access<T, Is...>&) {
        return detail::index_list<Is...>();
      }(lhs)
    << ") = " << kernel << "\n"
    << preamble;

  // operands
  struct operand_info {
    std::string label, format;
    std::string copy_format;  // a transposed copy in general levels (a storage mapping's)
    bool dense = false, transposed = false, view = false;
    std::vector<std::size_t> level_depth;  // depth iterated by each stored level
    std::vector<std::string> level_kind;
    std::vector<char> level_probe;         // random access, not full (hashed, bitmap, banded, user)
    std::vector<char> level_full;          // random access and full: located like a dense level
    std::vector<char> level_role;          // 'i' iterated, 'm' co-iterated, 'l' located (per level)
    std::vector<std::string> level_peers;  // the other operands at that level's loop
    std::int64_t nnz = 0;
    // a storage mapping's account of how its loops were fused (format/mapping/)
    std::string (*mapping_explain)(const std::string&, const std::vector<char>&,
                                   const std::vector<std::string>&,
                                   const std::vector<std::string>&) = nullptr;
  };
  std::vector<operand_info> ops;
  expr::for_each_access(rhs, [&](const auto& a, std::size_t operand) {
    using A = std::remove_cvref_t<decltype(a)>;
    using tensor_t = std::remove_const_t<std::remove_pointer_t<decltype(a.tensor)>>;
    using F = typename tensor_t::format_type;
    operand_info info;
    info.label = detail::tensor_label(*a.tensor, operand);
    info.format = format_name<F>();
    info.dense = F::all_dense;
    info.transposed = P::chosen.transposed[operand];
    info.view = !std::remove_const_t<std::remove_pointer_t<decltype(a.tensor)>>::owning;
    info.nnz = a.tensor->nnz();
    [&]<class T, class... Is>(const expr::access<T, Is...>*) {
      constexpr std::array<std::size_t, sizeof...(Is)> depth_by_mode{
          boost::mp11::mp_find<order, Is>::value...};
      std::array<std::size_t, sizeof...(Is)> modes{};
      for (std::size_t k2 = 0; k2 < modes.size(); ++k2) modes[k2] = F::modes[k2];
      if (F::all_dense || info.transposed)
        std::sort(modes.begin(), modes.end(), [&](std::size_t x, std::size_t y) {
          return depth_by_mode[x] < depth_by_mode[y];
        });
      std::size_t level = 0;
      auto add_levels = [&](auto levels) {
        boost::mp11::mp_for_each<
            boost::mp11::mp_transform<boost::mp11::mp_identity, decltype(levels)>>([&](auto l) {
          using L = typename decltype(l)::type;
          info.level_depth.push_back(depth_by_mode[modes[level]]);
          info.level_kind.push_back(F::all_dense ? "dense (locate)" : std::string(L::name));
          info.level_probe.push_back(!F::all_dense && L::properties.random_access &&
                                     !L::properties.full);
          info.level_full.push_back(L::properties.random_access && L::properties.full);
          if constexpr (requires { &L::definition::explain; })
            info.mapping_explain = &L::definition::explain;
          ++level;
        });
      };
      using copy = transposed_format<order, A>;
      if constexpr (copy::general) {
        if (info.transposed) {  // the kernel reads the copy's levels
          info.copy_format = format_name<typename copy::type>();
          add_levels(typename copy::levels{});
        } else {
          add_levels(typename F::levels{});
        }
      } else {
        add_levels(typename F::levels{});
      }
      info.level_role.assign(info.level_depth.size(), 'i');
      info.level_peers.assign(info.level_depth.size(), "");
    }(static_cast<const A*>(nullptr));
    ops.push_back(std::move(info));
  });

  s << "operands:";
  if (ops.empty()) s << " none";
  for (const auto& o : ops) s << " " << o.label << " [" << o.format << ", " << o.nnz << " stored]";
  s << "\n";

  std::vector<std::string> names;
  boost::mp11::mp_for_each<order>(
      [&](auto idx) { names.push_back(std::string(decltype(idx)::name)); });
  using out_indices = expr::free_indices_t<Lhs>;
  s << "attribute order: ";
  for (std::size_t d = 0; d < names.size(); ++d) s << (d ? ", " : "") << names[d];
  s << "  (concordant with every sparse operand"
    << (P::any_transposed ? " after transposition" : "") << ")\n";

  // the innermost loop's vector path (stream/lanes.hpp), from the type of the stream tree
  std::string vector_note;
  {
    using out_value = typename out_t::value_type;
    using root = root_stream_t<P, Rhs>;
    constexpr auto shape = [] {
      if constexpr (out_t::format_type::all_dense && out_t::order > 0) {
        // the output's last stored mode is the innermost loop: its rows are contiguous there
        constexpr auto depth = output_depths<order, Lhs, out_t::order>;
        constexpr std::size_t last = out_t::format_type::modes[out_t::order - 1];
        if constexpr (depth[last] + 1 == boost::mp11::mp_size<order>::value)
          return stream::lanes::shape_of<root, out_value>();
        else
          return stream::lanes::shape_of<root, void>();
      } else {
        return stream::lanes::shape_of<root, void>();
      }
    }();
    constexpr int w = stream::lanes::width<out_value>;
    constexpr int short_w = stream::lanes::short_width<out_value>;
    if constexpr (shape == stream::lanes::shape::dot)
      vector_note = "; vectorised, " + std::to_string(w) + " lanes" +
                    (short_w < w ? " (" + std::to_string(short_w) + " on rows under 64 values)"
                                 : std::string()) +
                    ": the sum kept in 4 registers of partial sums (8 fixed partial sums under "
                    "loom::set_deterministic)";
    else if constexpr (shape == stream::lanes::shape::write)
      vector_note = "; vectorised, " + std::to_string(w) + " lanes: the output row written " +
                    std::to_string(w) + " cells at a time";
  }
  for (std::size_t d = 0; d < names.size(); ++d) {
    bool is_free = false;
    boost::mp11::mp_for_each<out_indices>(
        [&](auto idx) { is_free = is_free || names[d] == decltype(idx)::name; });
    std::vector<std::string> iterate, locate, probe;
    using slot = std::pair<std::size_t, std::size_t>;  // (operand, level)
    std::vector<slot> iterate_at, locate_at, probe_at;
    for (std::size_t q = 0; q < ops.size(); ++q) {
      const auto& o = ops[q];
      for (std::size_t l = 0; l < o.level_depth.size(); ++l) {
        if (o.level_depth[l] != d) continue;
        const bool random = o.level_kind[l].rfind("dense", 0) == 0 || o.level_full[l];
        (random             ? locate
         : o.level_probe[l] ? probe
                            : iterate)
            .push_back(o.label + " (" + o.level_kind[l] + ")");
        (random ? locate_at : o.level_probe[l] ? probe_at : iterate_at).push_back({q, l});
      }
    }
    // a product probes a random-access level while another operand is iterated (make_mul);
    // with nothing else to iterate, the first one is iterated
    if (iterate.empty() && !probe.empty()) {
      iterate.push_back(probe.front());
      probe.erase(probe.begin());
      iterate_at.push_back(probe_at.front());
      probe_at.erase(probe_at.begin());
    }
    if (iterate.empty() && !locate.empty() && !locate_at.empty()) {
      const auto [q, l] = locate_at.front();  // a full mapped level with no one to iterate
      if (ops[q].level_full[l] && ops[q].level_kind[l].rfind("dense", 0) != 0) {
        iterate.push_back(locate.front());
        locate.erase(locate.begin());
        iterate_at.push_back(locate_at.front());
        locate_at.erase(locate_at.begin());
      }
    }
    loom::detail::append_range(locate, probe);
    loom::detail::append_range(locate_at, probe_at);
    for (const auto& [q, l] : iterate_at) {
      ops[q].level_role[l] = iterate_at.size() > 1 ? 'm' : 'i';
      for (const auto& [r, m] : iterate_at)
        if (r != q)
          ops[q].level_peers[l] += (ops[q].level_peers[l].empty() ? "" : ", ") + ops[r].label;
    }
    for (const auto& [q, l] : locate_at) {
      ops[q].level_role[l] = 'l';
      for (const auto& [r, m] : iterate_at)
        ops[q].level_peers[l] += (ops[q].level_peers[l].empty() ? "" : ", ") + ops[r].label;
      if (ops[q].level_peers[l].empty()) ops[q].level_peers[l] = "the loop over its extent";
    }
    s << "  loop " << names[d] << (is_free ? " [free]" : " [summed]") << ": ";
    if (iterate.empty() && locate.empty()) {
      s << "no operand uses it: dense counted loop over its extent";
    } else if (iterate.empty()) {
      s << "dense counted loop; locate";
      for (auto& x : locate) s << " " << x;
    } else {
      s << (iterate.size() == 1 ? "iterate "
                                : "co-iterate (intersection by merge where multiplied, galloping "
                                  "seek on fibers " +
                                      std::to_string(stream::skip::gallop_ratio) +
                                      "x longer than the other, unless a skip policy is chosen "
                                      "below; lexicographic union where added) ");
      for (std::size_t q = 0; q < iterate.size(); ++q) s << (q ? ", " : "") << iterate[q];
      if (!locate.empty()) {
        s << "; locate";
        for (auto& x : locate) s << " " << x;
      }
    }
    if (!is_free) {
      bool free_below = false;
      for (std::size_t e = d + 1; e < names.size(); ++e)
        boost::mp11::mp_for_each<out_indices>(
            [&](auto idx) { free_below = free_below || names[e] == decltype(idx)::name; });
      s << (free_below ? "; sum into the output" : "; accumulate in a register");
    }
    if (d + 1 == names.size()) s << vector_note;
    s << "\n";
  }
  for (const auto& o : ops) {
    if (!o.mapping_explain || o.transposed) continue;
    std::vector<std::string> loop_names;  // the program's index at each level
    for (std::size_t depth : o.level_depth) loop_names.push_back(names[depth]);
    s << o.mapping_explain(o.label, o.level_role, o.level_peers, loop_names);
  }
  for (const auto& o : ops) {
    if (!o.transposed) continue;
    s << "transpose: " << o.label << " is copied from " << o.format;
    if (o.copy_format.empty())
      s << " into a concordant mode order before the loops";
    else  // a storage mapping holds one mode order: its copy is materialised in general levels
      s << " into " << o.copy_format << " before the loops: the mapping is materialised in the "
        << "loop order (its own levels cannot hold the entries in another mode order)";
    s << (o.view ? "; a view is copied on every call\n"
                 : "; the copy is kept for the next calls while " + o.label + " is unchanged\n");
  }
  using out_format = typename out_t::format_type;
  s << "output: " << out_name << " [" << format_name<out_format>() << "] ";
  if constexpr (out_format::all_dense)
    s << "written in place (locate and accumulate)";
  else if constexpr (out_format::dense_over_bitmap && out_t::owning)
    s << "written in place (locate and accumulate, presence bit set per cell)";
  else if constexpr (P::output_in_order && plan::pattern_of<Lhs, Rhs>::shares &&
                     rows_of_columns<out_format>)
    s << "written on the pattern of " << ops[plan::pattern_of<Lhs, Rhs>::ordinal].label
      << " (its positions and coordinates copied, values computed in its order)";
  else if constexpr (P::output_in_order)
    s << "assembled by in-order append";
  else {
    std::vector<std::string> out_names;  // the output's indices in storage order
    boost::mp11::mp_for_each<expr::free_indices_t<Lhs>>(
        [&](auto idx) { out_names.emplace_back(decltype(idx)::name); });
    s << "assembled through a workspace, ";
    if constexpr (P::output_prefix == 0) {
      s << "one for the whole output";
    } else {
      s << "one row per (";
      for (std::size_t k = 0; k < P::output_prefix; ++k)
        s << (k ? "," : "") << out_names[out_format::modes[k]];
      s << ")";
    }
    // csr-like, its columns in the outermost loop: a hashed or sorted workspace fills it by a
    // counting sort on the row (format/assembly/workspace.hpp)
    constexpr bool by_rows = [] {
      if constexpr (P::output_prefix == 0 && rows_of_columns<out_format>) {
        using column = boost::mp11::mp_at_c<expr::free_indices_t<Lhs>, out_format::modes[1]>;
        return boost::mp11::mp_find<typename P::order, column>::value == 0;
      } else {
        return false;
      }
    }();
    if constexpr (by_rows)
      s << ", placed by row when it ends (a counting sort, unless dense)\n  ";
    else
      s << ", appended in order when it ends\n  ";
    if (forced_workspace) {
      s << workspace_kind_name(*forced_workspace) << " workspace, forced by loom::scoped_workspace";
    } else {
      loom::statistics_cache stats;
      s << optimize::describe_workspace_choice(
          optimize::choose_workspace(optimize::estimate_workspace<P>(lhs, rhs, stats)));
    }
  }
  s << "\n";
  return s.str();
}

// The skip policy per loop of plan P, as the evaluator chooses it under the options
// (optimize/choice/skip_choice.hpp): among the instantiated candidates (`opt::skip_candidates<N>`),
// as the runtime policy's codes (`opt::runtime_skips`) or fixed (`opt::fixed_skips`); empty for
// the static table.
template <class P, class Options, class Lhs, class Rhs>
std::string skip_section(const Lhs& lhs, const Rhs& rhs, const Options& opts) {
  using skips = typename Options::skips;
  if constexpr (!std::is_void_v<typename fixed_skips_of<skips>::type>) {
    return "skip policies fixed by the options (by loop): " +
           skip_list_name<typename fixed_skips_of<skips>::type>::get() + "\n";
  } else if constexpr (Options::skip_cap > 1) {
    constexpr std::size_t cap = Options::skip_cap;
    if constexpr (boost::mp11::mp_size<optimize::skip_candidates_t<P, cap>>::value > 1) {
      loom::statistics_cache stats;
      auto c = optimize::choose_skip<P, cap>(lhs, rhs, stats);
      std::string forced;
      if (opts.skip_candidate) {
        c.chosen = std::min(*opts.skip_candidate, c.cost.size() - 1);
        forced = "skip candidate #" + std::to_string(c.chosen) + " forced by the options\n";
      }
      return optimize::describe_skip_choice(c, cap) + forced;
    }
  } else if constexpr (std::is_same_v<skips, opt::runtime_skips>) {
    if constexpr (optimize::has_runtime_skip_loop<P>) {
      loom::statistics_cache stats;
      return optimize::describe_runtime_skips(optimize::choose_skip<P, 1>(lhs, rhs, stats)) +
             (opts.skip_codes ? "codes forced by the options\n" : "");
    }
  }
  (void)lhs, (void)rhs, (void)opts;
  return {};
}
}  // namespace loom::detail

#if LOOM_HEADER_ONLY
namespace loom::detail {
LOOM_DEF std::string fill_pattern(std::string_view pattern,
                                  std::span<const std::string_view> labels,
                                  std::size_t first_ordinal, std::span<const std::string> values,
                                  std::string_view unnamed) {
  std::string text;
  text.reserve(pattern.size() + 8 * labels.size());
  std::size_t label = 0, value = 0;
  for (const char ch : pattern) {
    if (ch == label_hole && label < labels.size()) {
      if (!labels[label].empty())
        text += labels[label];
      else if (!unnamed.empty())
        text += unnamed;
      else
        text += "T" + std::to_string(first_ordinal + label);
      ++label;
    } else if (ch == value_hole && value < values.size()) {
      text += values[value++];
    } else {
      text += ch;
    }
  }
  return text;
}
}  // namespace loom::detail
#endif  // LOOM_HEADER_ONLY

#endif  // LOOM_EXEC_PLAN_TEXT_HPP
