// Defines run_plan (exec/): one instantiated plan run into its output: operands bound
// (exec/bind.hpp), the streams lowered (stream/), the outer loop split over threads when it pays
// (parallel/), and the loops run into the output (exec/write_output.hpp).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_RUN_PLAN_HPP
#define LOOM_EXEC_RUN_PLAN_HPP

#include <loom/core/config.hpp>
#include <loom/core/plan_log.hpp>
#include <loom/exec/bind.hpp>
#include <loom/exec/write_output.hpp>
#include <loom/expr/traits.hpp>
#include <loom/optimize/choice/workspace_choice.hpp>
#include <loom/parallel/run.hpp>
#include <loom/stream/lower.hpp>
#include <loom/stream/run.hpp>
#include <loom/stream/skip.hpp>

#include <cstddef>
#include <type_traits>

namespace loom::detail {

/// Runs one instantiated plan into `out`, its intersections co-iterating as `Skips` says
/// (`skip::runtime` ones reading `skips`); `Accumulate`: `+=` into a dense or bitmap output;
/// `workspace`: the one decided for a sparse output written out of order.
template <class Plan, bool DenseMaps, class Skips, bool Accumulate, class Out, class Lhs, class Rhs>
LOOM_KERNEL_ALIGN void run_plan(Out& out, const Lhs& lhs, const Rhs& rhs, const auto& extent_by_id,
                                const stream::skip::codes& skips,
                                const optimize::workspace_choice& workspace) {
  using order = typename Plan::order;
  using V = expr::value_type_t<Rhs>;
  using T = typename Out::value_type;
  using B = bindings_of<Plan>;
  constexpr std::size_t depth_count = Plan::index_count;

  static_assert(stream::skip::max_loops >= plan::detail::max_indices,
                "loom internal error: fewer skip codes than loops; please report");
  static_assert(!Accumulate || Out::format_type::all_dense || Out::format_type::dense_over_bitmap,
                "loom internal error: += reached the kernel of a sparse output (assign_checked "
                "runs it as = then a merge); please report");
  constexpr bool accumulate = Accumulate;
  stream::kernel_context ctx;
  ctx.skip = skips;
  ctx.sequential_sums = loom::deterministic();
  for (std::size_t d = 0; d < depth_count; ++d)
    ctx.extents[d] = extent_by_id[Plan::chosen.order[d]];

  typename B::pointers pointers{};
  typename B::temporaries temporaries{};
  bind_operands<Plan>(rhs, pointers, temporaries);
  if constexpr (!std::is_same_v<hinted_skips<Plan, Skips>, Skips>)
    note_short_fibers<Plan>(pointers, ctx.short_fibers);

  stream::lowerer<order, V, DenseMaps, typename B::pointers, hinted_skips<Plan, Skips>> lower{
      &ctx, &pointers};
  const auto root = lower.template lower_root<0>(rhs);

  // Parallel execution (parallel/): the outer loop is split into chunks when the options and
  // the data allow it; otherwise (always with one thread) the serial loops run unchanged. The
  // split loops get a copy of the stream tree: `root`'s address must not escape, or the
  // compiler keeps its fields (strides, offsets) in memory in the serial loops too.
  using root_type = std::remove_cvref_t<decltype(root)>;
  using out_format = typename Out::format_type;
  constexpr bool splittable =
      parallel::splittable_root<root_type> && !out_format::dense_over_bitmap &&
      (out_format::all_dense || (!stream::is_contracted<root_type>() && Plan::output_prefix >= 1));
  parallel::outer_split split;
  if constexpr (splittable)
    split = parallel::decide_split<order, typename Plan::accesses, typename B::pointers, T>(
        pointers, ctx.extents[0], stream::is_contracted<root_type>(),
        out_format::all_dense ? out.values().size() : 0);
  if (current_report != nullptr) current_report->threads = split.active ? split.threads : 1;

  if constexpr (out_format::all_dense) {
    constexpr bool rows_outer = [] {
      if constexpr (Out::order == 0)
        return false;
      else
        return output_depths<order, Lhs, Out::order>[out_format::modes[0]] == 0;
    }();
    write_dense<splittable, rows_outer>(out, root, split, accumulate,
                                        located_strides<Plan, Lhs>(out).data());
  } else if constexpr (out_format::dense_over_bitmap && Out::owning) {
    write_bitmap(out, root, accumulate, located_strides<Plan, Lhs>(out).data());
  } else {
    write_sparse<Plan, splittable>(out, lhs, rhs, root, split, workspace);
  }
}

}  // namespace loom::detail

#endif  // LOOM_EXEC_RUN_PLAN_HPP
