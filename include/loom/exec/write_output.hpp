// Defines how a plan's loops write their output (exec/): in place into a dense output (split
// over threads when it pays), located into a bitmap output, or appended to a sparse one (in
// order, through a workspace, by rows in parallel, or values only on an operand's pattern),
// with the bound its entries are reserved from and the merge of `+=`.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_WRITE_OUTPUT_HPP
#define LOOM_EXEC_WRITE_OUTPUT_HPP

#include <loom/core/clock.hpp>
#include <loom/core/plan_log.hpp>
#include <loom/core/semiring.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/expr/visit.hpp>
#include <loom/format/assembly/appender.hpp>
#include <loom/format/assembly/assemble.hpp>
#include <loom/format/assembly/workspace.hpp>
#include <loom/format/tensor.hpp>
#include <loom/optimize/choice/workspace_choice.hpp>
#include <loom/parallel/run.hpp>
#include <loom/plan/pattern.hpp>
#include <loom/stream/run.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/bind.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace loom::detail {

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

/// The loop depth of each output mode under the loop order `Order`.
template <class Order, class Lhs, std::size_t N>
inline constexpr std::array<std::size_t, N> output_depths = [] {
  std::array<std::size_t, N> d{};
  using out_indices = expr::free_indices_t<Lhs>;
  boost::mp11::mp_for_each<boost::mp11::mp_iota_c<N>>([&](auto m) {
    using I = boost::mp11::mp_at_c<out_indices, m>;
    d[m] = boost::mp11::mp_find<Order, I>::value;
  });
  return d;
}();

/// An output written in place: the row-major stride of each loop depth that indexes it.
template <class Plan, class Lhs, class Out>
std::array<std::int64_t, Plan::index_count + 1> located_strides(const Out& out) {
  using out_format = typename Out::format_type;
  constexpr std::size_t N = Out::order;
  constexpr auto out_depth = output_depths<typename Plan::order, Lhs, N>;
  std::array<std::int64_t, Plan::index_count + 1> strides{};
  for (std::size_t m = 0; m < N; ++m) {
    std::int64_t stride = 1;
    const std::size_t level = out_format::level_of_mode[m];
    for (std::size_t k = level + 1; k < N; ++k) stride *= out.extent(out_format::modes[k]);
    strides[out_depth[m]] = stride;
  }
  return strides;
}

/// The serial loops of a sparse output, out of line: the loop nest and its sink are the whole
/// function, so the register allocator keeps the cursors, bounds and the sink's write position
/// in registers rather than the caller's state. The sink is a local here: passed by reference,
/// it was read and written through memory at every append. The dense outputs' loops measured
/// slower out of line and stay inline (docs/optimizer.md, "Outputs keep their storage").
template <class Sink, class Entries, class Configure, class Root>
[[gnu::noinline]] void run_sparse_loops(Entries& entries, const Configure& configure, Root root) {
  Sink sink{entries};
  configure(sink);
  stream::run_sparse(sink, root);
  sink.finish();
}

/// The loops of a scalar written by `=` (an inner product, a count), out of line like a sparse
/// output's, with the stream tree a local: inlined into the driver, g++ spilled the loops' cursors
/// (docs/optimizer.md, "Outputs keep their storage").
template <class T, class Root> [[gnu::noinline]] void store_scalar_loops(T* value, Root root) {
  stream::run_located(stream::store_cell<T>{value}, nullptr, root, 0);
}

/// The loops `root` write a dense output in place, split over threads as `split` says: zeroed
/// first unless `accumulate` (row by row when RowsOuter: the outer loop iterates the output's
/// first stored mode), or, for `=` by loops that reach each cell once, stored.
template <bool Splittable, bool RowsOuter, class Out, class Root>
LOOM_FORCE_INLINE void write_dense(Out& out, const Root& root, const parallel::outer_split& split,
                                   bool accumulate, const std::int64_t* strides) {
  using T = typename Out::value_type;
  using root_type = Root;
  if constexpr (stream::writes_each_cell_once<Root, Out::order>()) {
    if (!accumulate && !split.active) {  // every cell stored once: no zeroing pass
      if constexpr (Out::order == 0)
        store_scalar_loops(out.values().data(), root);
      else
        stream::run_located(stream::store_cell<T>{out.values().data()}, strides, root, 0);
      return;
    }
  }
  if constexpr (RowsOuter && stream::is_stream_v<Root> && !stream::is_contracted<Root>()) {
    // `=` with the output's first stored mode as the outer loop: each row zeroed just before
    // its loop (in cache, as a hand-written loop does), not the whole output in a pass first
    if (!accumulate && !split.active) {
      stream::run_located_by_rows(stream::dense_cell<T>{out.values().data()}, strides, root,
                                  static_cast<std::int64_t>(out.values().size()));
      return;
    }
  }
  if (!accumulate) {
    if (split.active)
      parallel::fill(out.values().data(), out.values().size(), semiring_traits<T>::zero(),
                     split.threads);
    else
      std::fill(out.values().begin(), out.values().end(), semiring_traits<T>::zero());
  }
  if constexpr (Splittable) {
    if (split.active) {
      parallel::run_dense(out.values().data(), out.values().size(), strides,
                          static_cast<root_type>(root), split);
      return;
    }
  }
  stream::run_dense(out.values().data(), strides, root, 0);
}

/// The loops `root` write a bitmap output (Galley's bytemap) in place.
template <class Out, class Root>
LOOM_FORCE_INLINE void write_bitmap(Out& out, const Root& root, bool accumulate,
                                    const std::int64_t* strides) {
  using T = typename Out::value_type;
  constexpr std::size_t N = Out::order;
  // Galley's bytemap: values located and accumulated like a dense output, a presence bit set
  // per cell written; no entries collected or sorted, any loop order. Serial: two rows may
  // share a word of bits. Every construction (by shape, conversion, assembly) sizes the values
  // and bits to the cells.
  auto& bits = out.template level<N - 1>().bits;
  if (!accumulate) {
    std::fill(out.values().begin(), out.values().end(), semiring_traits<T>::zero());
    std::fill(bits.begin(), bits.end(), std::uint64_t{0});
  }
  stream::run_located(stream::bitmap_cell<T>{out.values().data(), bits.data()}, strides, root, 0);
}

/// The entries a sparse output was estimated to get, as explain_analyze reports them: the
/// workspace's estimate of distinct entries, or the bound reserved (`bound`) for one in order.
template <class Plan>
std::int64_t estimated_entries(std::int64_t bound, const optimize::workspace_choice& workspace) {
  if constexpr (Plan::output_in_order)
    return bound;
  else
    return static_cast<std::int64_t>(std::min(workspace.estimate.entries + 0.5, 0x1p62));
}

/// The loops `root` write a sparse output: its entries appended in order or through the workspace
/// decided (`workspace`), by rows in parallel as `split` says, or only its values where its pattern
/// is an operand's; its own arrays refilled, so a kernel run again allocates nothing.
template <class Plan, bool Splittable, class Out, class Lhs, class Rhs, class Root>
LOOM_FORCE_INLINE void write_sparse(Out& out, const Lhs& lhs, const Rhs& rhs, const Root& root,
                                    const parallel::outer_split& split,
                                    const optimize::workspace_choice& workspace) {
  using T = typename Out::value_type;
  using out_format = typename Out::format_type;
  using root_type = Root;
  constexpr std::size_t N = Out::order;
  constexpr bool splittable = Splittable;
  static constexpr auto out_depth = output_depths<typename Plan::order, Lhs, N>;
  static_assert(Out::owning,
                "loom internal error: a sparse output that owns no arrays; please report");
  (void)lhs;  // its type is the plan's
  static constexpr std::array<std::size_t, N> depth_of_level = [] {
    std::array<std::size_t, N> d{};
    for (std::size_t m = 0; m < N; ++m) d[m] = out_depth[out_format::modes[m]];
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
  auto make_sink = [&](auto& target) {  // a thread's sink, configured by that thread
    using target_t = std::remove_cvref_t<decltype(target)>;
    using sink_t = std::conditional_t<Plan::output_in_order,
                                      stream::append_sink<T, N, target_t, depth_of_level>,
                                      stream::workspace_sink<T, N, target_t, key_depth, row_depth>>;
    std::unique_ptr<sink_t> sink(new sink_t{target});
    configure(*sink);
    return sink;
  };
  (void)make_sink;
  auto run_into = [&](auto& entries) {
    // a csr-like output's split runs by rows (below): no third instantiation of the kernel
    if constexpr (splittable && !parallel::rows_format<out_format>) {
      if (split.active) {
        parallel::run_sparse<T, N>(entries, static_cast<root_type>(root), split, make_sink);
        return;
      }
    }
    using entries_t = std::remove_cvref_t<decltype(entries)>;
    if constexpr (Plan::output_in_order)
      run_sparse_loops<stream::append_sink<T, N, entries_t, depth_of_level>>(entries, configure,
                                                                             root);
    else
      run_sparse_loops<stream::workspace_sink<T, N, entries_t, key_depth, row_depth>>(
          entries, configure, root);
  };
  std::string name = out.name();
  // entries arrive sorted and unique: build the levels directly (`+=` came as `=`, above)
  if constexpr (splittable && parallel::rows_format<out_format>) {
    if (split.active) {  // CSR-like: every chunk writes its part of the arrays
      if (kernel_report* const report = current_report)
        report->estimated_entries =
            estimated_entries<Plan>(output_entries_bound<Lhs>(rhs, workspace), workspace);
      try {  // the output's arrays are refilled, capacity kept
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
    expr::for_each_access(rhs, [&](const auto& a, std::size_t operand) {
      if constexpr (std::is_same_v<std::remove_cvref_t<decltype(*a.tensor)>, Out>)
        if (operand == plan::pattern_of<Lhs, Rhs>::ordinal) pattern = a.tensor;
    });
    try {
      if (pattern != nullptr &&
          detail::appender<T, out_format>::fill_values_on_pattern(out, *pattern, [&](auto& values) {
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
    const std::int64_t bound = output_entries_bound<Lhs>(rhs, workspace);
    entries.reserve(static_cast<std::size_t>(std::min<std::int64_t>(bound, std::int64_t{1} << 26)));
    run_into(entries);
    if (kernel_report* const report = current_report) {  // explain_analyze, the plan log
      report->estimated_entries = estimated_entries<Plan>(bound, workspace);
      const std::int64_t t0 = monotonic_ns();
      out = std::move(entries).finish();
      report->assembly_seconds = seconds_since(t0);
    } else {
      out = std::move(entries).finish();
    }
  } catch (...) {
    out.clear();  // its arrays went to the appender: leave a valid empty tensor
    out.set_name(std::move(name));
    throw;
  }
  out.set_name(std::move(name));
}

}  // namespace loom::detail

#endif  // LOOM_EXEC_WRITE_OUTPUT_HPP
