// Shared driver of the parallel tests: runs one kernel serially and with 1, 2, 3, 4 and 7
// threads (deterministic mode off and on, every chunk size down to one outer index per chunk),
// and checks each result bit for bit against the serial one and against the dense reference.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_PARALLEL_SUPPORT_HPP
#define LOOM_TESTS_PARALLEL_SUPPORT_HPP

#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <support/compare.hpp>
#include <support/sanitized.hpp>

namespace loom::test::par {

// Under AddressSanitizer (the clang build) three thread counts, the gcc build all five: the
// sanitizers look for the same errors at 3 threads as at 2 and 4 (an uneven split), and the
// parallel tests were 45 s of that build's ctest.
#if LOOM_TEST_SANITIZED
inline constexpr std::array<int, 3> thread_counts{1, 3, 7};
#else
inline constexpr std::array<int, 5> thread_counts{1, 2, 3, 4, 7};
#endif

/// Densities of the parallel cases (the differential suite covers the rest).
inline constexpr std::array<density, 5> densities{density::empty, density::one, density::sparse,
                                                  density::medium, density::full};

/// Extents (rows first): fewer rows than threads, and enough rows for many chunks.
inline constexpr std::array<std::array<std::int64_t, 4>, 4> extents{
    {{1, 5, 4, 3}, {3, 7, 5, 4}, {41, 37, 13, 6}, {0, 6, 5, 4}}};

/// Counts of the checks, printed by tests/parallel/api.cpp's summary case.
struct counters {
  std::int64_t runs = 0, kernels = 0, split = 0;
};
inline counters& count() {
  static counters c;
  return c;
}

/// Whether two values are the same bits (or equal, for non-floating types).
template <class T> bool same_bits(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, double>)
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
  else if constexpr (requires { a.value; })
    return same_bits(a.value, b.value);
  else
    return a == b;
}

/// Whether two tensors store the same entries in the same order with the same bits.
template <class Tensor> bool identical(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape() || a.nnz() != b.nnz()) return false;
  std::vector<std::pair<typename Tensor::coords_type, typename Tensor::value_type>> ea, eb;
  a.for_each_stored([&](const auto& c, const auto& v) { ea.emplace_back(c, v); });
  b.for_each_stored([&](const auto& c, const auto& v) { eb.emplace_back(c, v); });
  if (ea.size() != eb.size()) return false;
  for (std::size_t k = 0; k < ea.size(); ++k)
    if (ea[k].first != eb[k].first || !same_bits(ea[k].second, eb[k].second)) return false;
  return true;
}

inline parallel_options options(int threads, bool deterministic, std::int64_t chunk_work) {
  return {
      .threads = threads, .deterministic = deterministic, .min_work = 0, .chunk_work = chunk_work};
}

/// `make(out, inputs...)` returns {out access, expression}; the output starts as `prior`.
/// Checks `=` and `+=` serially against the reference, then every thread count, mode and chunk
/// size against the serial result, bit for bit.
template <class Out, class Make, class... In>
void check_kernel(const case_context& ctx, const Out& prior, const Make& make, const In&... in) {
  ++count().kernels;
  for (const bool acc : {false, true}) {
    Out serial = prior;
    {
      auto [lhs, rhs] = make(serial, in...);
      const auto expected = acc ? reference_eval_accumulate(lhs, rhs) : reference_eval(lhs, rhs);
      parallel_scope scope(options(1, false, -1));
      run_guarded(ctx, [&, &lhs = lhs, &rhs = rhs] {
        if (acc)
          lhs += rhs;
        else
          lhs = rhs;
      });
      check_tensor(serial, expected, ctx);
    }
    for (const int t : thread_counts)
      for (const bool det : {false, true})
        for (const std::int64_t chunk : {std::int64_t{1}, std::int64_t{64}}) {
          Out out = prior;
          auto [lhs, rhs] = make(out, in...);
          parallel_scope scope(options(t, det, chunk));
          const std::int64_t before = parallel::split_loop_count();
          run_guarded(ctx, [&, &lhs = lhs, &rhs = rhs] {
            if (acc)
              lhs += rhs;
            else
              lhs = rhs;
          });
          ++count().runs;
          count().split += parallel::split_loop_count() - before;
          INFO(ctx.describe(), "\n  threads: ", t, ", deterministic: ", det,
               ", chunk work: ", chunk, acc ? ", +=" : ", =");
          CHECK(identical(out, serial));
        }
  }
}

/// The same for a scalar `loom::eval(e)`, `make(inputs...)` returning the expression.
template <class Make, class... In>
void check_scalar_kernel(const case_context& ctx, const Make& make, const In&... in) {
  ++count().kernels;
  const auto e = make(in...);
  const auto expected = reference_eval(e);
  auto serial = expected;
  {
    parallel_scope scope(options(1, false, -1));
    run_guarded(ctx, [&] { serial = eval(e); });
    check_scalar(serial, expected, ctx);
  }
  for (const int t : thread_counts)
    for (const bool det : {false, true})
      for (const std::int64_t chunk : {std::int64_t{1}, std::int64_t{64}}) {
        auto got = expected;
        parallel_scope scope(options(t, det, chunk));
        const std::int64_t before = parallel::split_loop_count();
        run_guarded(ctx, [&] { got = eval(e); });
        ++count().runs;
        count().split += parallel::split_loop_count() - before;
        INFO(ctx.describe(), "\n  threads: ", t, ", deterministic: ", det, ", chunk work: ", chunk);
        CHECK(same_bits(got, serial));  // small integer values: sums are exact in any order
      }
}

/// Calls `body(ctx, extents, density_a, density_b, seed)` for every case of a kernel; returns
/// how many kernel calls split their outer loop.
template <class F>
std::int64_t for_each_case(std::string_view text, std::string formats, F&& body) {
  const std::int64_t before = count().split;
  for (std::size_t e = 0; e < extents.size(); ++e)
    for (std::size_t d = 0; d < densities.size(); ++d)
      for (const std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{2}}) {
        const density da = densities[d], db = densities[(d + seed + e) % densities.size()];
        case_context ctx;
        ctx.expression = std::string(text);
        ctx.formats = formats;
        ctx.densities = concat(density_name(da), ", ", density_name(db));
        ctx.seed = seed;
        ctx.extents = show_coords(extents[e]);
        body(ctx, extents[e], da, db, seed);
      }
  return count().split - before;
}

}  // namespace loom::test::par

#endif  // LOOM_TESTS_PARALLEL_SUPPORT_HPP
