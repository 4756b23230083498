// Defines the partition of a kernel's outermost loop into chunks of about equal work: by the
// positions of the largest operand whose first level the outer loop iterates (rows balanced by
// stored entries), else evenly (parallel/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_PARALLEL_PARTITION_HPP
#define LOOM_PARALLEL_PARTITION_HPP

#include <loom/core/config.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace loom::parallel {

/// Chunk c of the outer loop covers the indices [bounds[c], bounds[c+1]); no chunk is empty.
struct partition {
  std::vector<std::int64_t> bounds{};  // empty: no chunk (and no allocation for a serial run)
  std::size_t chunks() const { return bounds.empty() ? 0 : bounds.size() - 1; }
  std::int64_t lo(std::size_t c) const { return bounds[c]; }
  std::int64_t hi(std::size_t c) const { return bounds[c + 1]; }
};

namespace detail {

// The x in [lo, hi] whose f(x) is nearest to target (f non-decreasing; ties: the smaller x), so
// that a heavy row goes to a chunk of its own rather than with every row before it.
template <class F>
std::int64_t nearest(std::int64_t lo, std::int64_t hi, std::int64_t target, const F& f) {
  const std::int64_t first = lo;
  while (lo < hi) {  // first x with f(x) >= target, else hi
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (f(mid) < target)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo > first && target - f(lo - 1) <= f(lo) - target) return lo - 1;
  return lo;
}

LOOM_DECL partition finish(std::vector<std::int64_t> b, std::int64_t extent);

}  // namespace detail

/// `chunks` ranges of [0, extent) of equal length.
LOOM_DECL partition split_evenly(std::int64_t extent, std::size_t chunks);

/// Splits the outer loop by the stored entries of tensor `t`, whose level 0 that loop iterates:
/// the work of a row is its entries on level 1 plus one (a dense or compressed level 0 above a
/// compressed level 1: CSR, DCSR, CSF; a non-unique level 0: COO). Other levels: evenly.
template <class Tensor>
partition split_by_entries(const Tensor& t, std::int64_t extent, std::size_t chunks) {
  const auto& l0 = t.template level<0>();
  std::vector<std::int64_t> b(chunks + 1, 0);
  auto targets = [&](std::int64_t total, auto&& locate) {
    for (std::size_t c = 1; c < chunks; ++c)
      b[c] = locate(static_cast<std::int64_t>(static_cast<__int128>(total) * c / chunks));
  };
  // entries below position q of level 0 (level 1's pos array when it has one)
  auto below = [&](std::int64_t q) -> std::int64_t {
    if constexpr (Tensor::order >= 2) {
      const auto& l1 = t.template level<1>();
      if constexpr (requires { l1.pos[0]; }) return static_cast<std::int64_t>(l1.pos[q]);
    }
    return q;
  };
  if constexpr (requires {
                  l0.pos[0];
                  l0.crd[0];
                }) {  // compressed level 0: rows are crd[q]
    const std::int64_t first = l0.pos.empty() ? 0 : static_cast<std::int64_t>(l0.pos[0]);
    const std::int64_t last = l0.pos.empty() ? 0 : static_cast<std::int64_t>(l0.pos[1]);
    if (last <= first) return split_evenly(extent, chunks);
    auto cum = [&](std::int64_t q) { return below(q) + q; };
    const std::int64_t base = cum(first), total = cum(last) - base;
    targets(total, [&](std::int64_t w) {
      const std::int64_t q = detail::nearest(first, last, base + w, cum);
      return q < last ? static_cast<std::int64_t>(l0.crd[static_cast<std::size_t>(q)]) : extent;
    });
    return detail::finish(std::move(b), extent);
  } else if constexpr (requires { l0.extent; }) {  // dense level 0: rows are positions
    if constexpr (Tensor::order >= 2) {
      const auto& l1 = t.template level<1>();
      if constexpr (requires { l1.pos[0]; }) {
        if (static_cast<std::int64_t>(l1.pos.size()) < extent + 1)
          return split_evenly(extent, chunks);
        auto cum = [&](std::int64_t r) { return below(r) + r; };
        const std::int64_t total = cum(extent);
        targets(total, [&](std::int64_t w) { return detail::nearest(0, extent, w, cum); });
        return detail::finish(std::move(b), extent);
      }
    }
    return split_evenly(extent, chunks);
  } else {
    return split_evenly(extent, chunks);
  }
}

#if LOOM_HEADER_ONLY
namespace detail {
LOOM_DEF partition finish(std::vector<std::int64_t> b, std::int64_t extent) {
  b.front() = 0;
  b.back() = extent;
  for (std::size_t c = 1; c < b.size(); ++c) b[c] = std::clamp(b[c], b[c - 1], extent);
  b.erase(std::unique(b.begin(), b.end()), b.end());
  partition p;
  p.bounds = std::move(b);
  if (p.bounds.size() < 2) p.bounds = {0, extent};
  return p;
}
}  // namespace detail

LOOM_DEF partition split_evenly(std::int64_t extent, std::size_t chunks) {
  std::vector<std::int64_t> b(chunks + 1);
  for (std::size_t c = 0; c <= chunks; ++c)
    b[c] = static_cast<std::int64_t>(static_cast<__int128>(extent) * static_cast<__int128>(c) /
                                     static_cast<__int128>(chunks));
  return detail::finish(std::move(b), extent);
}
#endif  // LOOM_HEADER_ONLY
}  // namespace loom::parallel

#endif  // LOOM_PARALLEL_PARTITION_HPP
