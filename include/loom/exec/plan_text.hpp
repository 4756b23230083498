// Defines the text of one plan for loom::explain: the kernel in index notation, the loop order,
// the strategy at each loop level, transpositions, the output and the skip policies (exec/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_PLAN_TEXT_HPP
#define LOOM_EXEC_PLAN_TEXT_HPP

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
#include <loom/format/appender.hpp>
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
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace loom::plan {

namespace detail {

template <class T> std::string tensor_label(const T& t, std::size_t ordinal) {
  return t.name().empty() ? "T" + std::to_string(ordinal) : t.name();
}

// "aliasing: the output's storage is also read by x ...", when it is (format/memory.hpp).
template <class Lhs, class Rhs> std::string aliasing_line(const Lhs& lhs, const Rhs& rhs) {
  const std::string names = loom::detail::aliased_operands(lhs.tensor, rhs);
  if (names.empty()) return "";
  return "aliasing: the output's storage is also read by " + names +
         ": the result is computed into a copy, which then replaces the output\n";
}

template <class... Is> std::string index_list() {
  std::string s;
  ((s += (s.empty() ? "" : ",") + std::string(Is::name)), ...);
  return s;
}

/// Index notation of an expression, with tensor names (or T0, T1, ... by access ordinal).
template <class E> std::string to_string(const E& e, std::size_t& ordinal) {
  if constexpr (requires { e.tensor; }) {
    return [&]<class T, class... Is>(const expr::access<T, Is...>& a) {
      return tensor_label(*a.tensor, ordinal++) + "(" + index_list<Is...>() + ")";
    }(e);
  } else if constexpr (requires { e.value; }) {
    std::ostringstream s;
    if constexpr (requires { s << e.value; })
      s << e.value;
    else if constexpr (requires { s << e.value.value; })
      s << e.value.value;
    else
      s << "literal";
    return s.str();
  } else if constexpr (requires {
                         e.lhs;
                         e.rhs;
                       }) {
    constexpr bool is_add = requires { []<class L, class R>(const expr::add<L, R>&) {}(e); };
    std::string l = to_string(e.lhs, ordinal);
    std::string r = to_string(e.rhs, ordinal);
    return is_add ? "(" + l + " + " + r + ")" : l + " * " + r;
  } else if constexpr (requires {
                         e.pred;
                         e.body;
                       }) {
    std::string p = to_string(e.pred, ordinal);
    return "where(" + p + ", " + to_string(e.body, ordinal) + ")";
  } else if constexpr (requires { e.args; }) {
    using F = decltype(e.f);
    std::string name = "f";
    if constexpr (requires { F::symbol; }) name = std::string(F::symbol);
    std::vector<std::string> args;
    loom::detail::unpack([&](const auto&... a) { (args.push_back(to_string(a, ordinal)), ...); },
                         e.args);
    const bool word = name != "f" && name != "scale" && !name.empty() && name[0] >= 'a' &&
                      name[0] <= 'z';  // exp, log, max: a call
    if (word) return name + "(" + args[0] + (args.size() == 2 ? ", " + args[1] : "") + ")";
    if (args.size() == 2 && name != "f") return "(" + args[0] + " " + name + " " + args[1] + ")";
    if (name == "-") return "-" + args[0];
    if constexpr (requires { e.f.divisor; }) {
      std::ostringstream d;
      d << e.f.divisor;
      return args[0] + " / " + d.str();
    }
    std::string s = "map(" + name;
    for (auto& a : args) s += ", " + a;
    return s + ")";
  } else if constexpr (requires {
                         []<class Op, class I, class B>(const expr::aggregate<Op, I, B>&) {}(e);
                       }) {
    return [&]<class Op, class I, class B>(const expr::aggregate<Op, I, B>& n) {
      return std::string(Op::name) + "(" + std::string(I::name) + ", " +
             to_string(n.body, ordinal) + ")";
    }(e);
  } else {
    return [&]<template <class, class> class Node, class I, class B>(const Node<I, B>& n) {
      const bool is_sum = std::is_same_v<Node<I, B>, expr::sum<I, B>>;
      return std::string(is_sum ? "sum(" : "expand(") + std::string(I::name) + ", " +
             to_string(n.body, ordinal) + ")";
    }(e);
  }
}

}  // namespace detail

namespace detail {
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
    using root = loom::detail::root_stream_t<P, Rhs>;
    constexpr auto shape = [] {
      if constexpr (out_t::format_type::all_dense && out_t::order > 0) {
        // the output's last stored mode is the innermost loop: its rows are contiguous there
        constexpr auto depth = loom::detail::output_depths<order, Lhs, out_t::order>;
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
    locate.insert(locate.end(), probe.begin(), probe.end());
    locate_at.insert(locate_at.end(), probe_at.begin(), probe_at.end());
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
  else if constexpr (P::output_in_order && pattern_of<Lhs, Rhs>::shares &&
                     loom::detail::rows_of_columns<out_format>)
    s << "written on the pattern of " << ops[pattern_of<Lhs, Rhs>::ordinal].label
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
    // counting sort on the row (stream/workspace.hpp)
    constexpr bool by_rows = [] {
      if constexpr (P::output_prefix == 0 && loom::detail::rows_of_columns<out_format>) {
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
    if (loom::detail::forced_workspace) {
      s << workspace_kind_name(*loom::detail::forced_workspace)
        << " workspace, forced by loom::scoped_workspace";
    } else {
      loom::statistics_cache stats;
      s << optimize::describe_workspace_choice(
          optimize::choose_workspace(optimize::estimate_workspace<P>(lhs, rhs, stats)));
    }
  }
  s << "\n";
  return s.str();
}
}  // namespace detail

namespace detail {
// The skip policy per loop of plan P, as the evaluator chooses it under the options
// (optimize/choice/skip_choice.hpp): among the instantiated candidates (`opt::skip_candidates<N>`),
// as the runtime policy's codes (`opt::runtime_skips`) or fixed (`opt::fixed_skips`); empty for
// the static table.
template <class P, class Options, class Lhs, class Rhs>
std::string skip_section(const Lhs& lhs, const Rhs& rhs, const Options& opts) {
  using skips = typename Options::skips;
  if constexpr (!std::is_void_v<typename loom::detail::fixed_skips_of<skips>::type>) {
    return "skip policies fixed by the options (by loop): " +
           loom::detail::skip_list_name<typename loom::detail::fixed_skips_of<skips>::type>::get() +
           "\n";
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
}  // namespace detail
}  // namespace loom::plan

#endif  // LOOM_EXEC_PLAN_TEXT_HPP
