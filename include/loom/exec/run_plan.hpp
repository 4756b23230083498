// Defines run_plan (exec/): one instantiated plan run into its output: operands bound
// (exec/bind.hpp), the streams lowered (stream/), the outer loop split over threads when it pays
// (parallel/), and the loops run into the output (exec/write_output.hpp).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_RUN_PLAN_HPP
#define LOOM_EXEC_RUN_PLAN_HPP

#include <loom/core/error.hpp>
#include <loom/core/work_counters.hpp>
#include <loom/exec/bind.hpp>
#include <loom/exec/options.hpp>
#include <loom/exec/write_output.hpp>
#include <loom/expr/operators.hpp>
#include <loom/expr/order.hpp>
#include <loom/expr/traits.hpp>
#include <loom/expr/visit.hpp>
#include <loom/format/appender.hpp>
#include <loom/format/assemble.hpp>
#include <loom/format/format_name.hpp>
#include <loom/format/memory.hpp>
#include <loom/format/tensor.hpp>
#include <loom/optimize/choice/hoist_choice.hpp>
#include <loom/optimize/choice/leader_choice.hpp>
#include <loom/optimize/choice/plan_choice.hpp>
#include <loom/optimize/choice/workspace_choice.hpp>
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
#include <loom/stream/workspace_storage.hpp>

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

/// Runs one instantiated plan into `out`, its intersections co-iterating as `Skips` says.
template <class Plan, bool DenseMaps, class Skips = stream::skip::per_loop<>, class Out, class Lhs,
          class Rhs>
void run_plan(Out& out, const Lhs& lhs, const Rhs& rhs, bool accumulate, const auto& extent_by_id,
              const stream::skip::codes& skips) {
  using order = typename Plan::order;
  using V = expr::value_type_t<Rhs>;
  using T = typename Out::value_type;
  using B = bindings_of<Plan>;
  constexpr std::size_t depth_count = Plan::index_count;

  static_assert(stream::skip::max_loops >= plan::detail::max_indices,
                "loom internal error: fewer skip codes than loops; please report");
  if constexpr (!Out::format_type::all_dense && !Out::format_type::dense_over_bitmap)
    if (accumulate)  // assign_checked runs `+=` into a sparse output as `=` then a merge
      throw error("loom internal error: += reached the kernel of a sparse output; please report");
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
    write_sparse<Plan, splittable>(out, lhs, rhs, root, split);
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

}  // namespace loom::detail

#endif  // LOOM_EXEC_RUN_PLAN_HPP
