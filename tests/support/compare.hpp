// Compares loom's results with the dense reference and reports mismatches (test support,
// DESIGN.md §9).
//
// A result tensor of any format equals the reference when every point does, absent entries
// counting as the semiring's zero (so a stored zero equals an absent entry). Values compare
// exactly unless the case sets a relative tolerance (needed only where rounding differs, e.g.
// after a division). A mismatch fails the current doctest case and prints the expression, the
// formats, the semiring, the density, the seed, the coordinates, the expected and the actual value.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_SUPPORT_COMPARE_HPP
#define LOOM_TESTS_SUPPORT_COMPARE_HPP

#include <support/random.hpp>
#include <support/reference.hpp>

#include <loom/core/semiring.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace loom::test {

// Names ------------------------------------------------------------------------------------------

namespace detail {
template <class Format, class... Levels, std::size_t... Ks>
std::string spell_format(boost::mp11::mp_list<Levels...>, std::index_sequence<Ks...>) {
  std::string s = "format<";
  std::size_t k = 0;
  ((s += (k++ ? "," : "") + std::string(Levels::name)), ...);
  s += ">";
  bool identity = ((Format::modes[Ks] == Ks) && ...);
  if (!identity) {
    s += "::ordered<";
    k = 0;
    ((s += (k++ ? "," : "") + std::to_string(Format::modes[Ks])), ...);
    s += ">";
  }
  return s;
}
}  // namespace detail

/// A readable name of a format: the alias when there is one (`csr`, `csf<3>`), else its levels.
template <class Format>
std::string format_name() {
  if constexpr (std::is_same_v<Format, dense_vector>) return "dense_vector";
  else if constexpr (std::is_same_v<Format, sparse_vector>) return "sparse_vector";
  else if constexpr (std::is_same_v<Format, dense_matrix>) return "dense_matrix";
  else if constexpr (std::is_same_v<Format, csr>) return "csr";
  else if constexpr (std::is_same_v<Format, csc>) return "csc";
  else if constexpr (std::is_same_v<Format, dcsr>) return "dcsr";
  else if constexpr (std::is_same_v<Format, dcsc>) return "dcsc";
  else if constexpr (std::is_same_v<Format, coo>) return "coo";
  else if constexpr (Format::order >= 3 && std::is_same_v<Format, csf<Format::order>>)
    return "csf<" + std::to_string(Format::order) + ">";
  else if constexpr (Format::order >= 3 && std::is_same_v<Format, coo_n<Format::order>>)
    return "coo_n<" + std::to_string(Format::order) + ">";
  else if constexpr (Format::order >= 3 && std::is_same_v<Format, dense_n<Format::order>>)
    return "dense_n<" + std::to_string(Format::order) + ">";
  else
    return detail::spell_format<Format>(typename Format::levels{},
                                        std::make_index_sequence<Format::order>{});
}

/// A readable name of a value type / semiring.
template <class T>
std::string semiring_name() {
  if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, boolean>) return "boolean";
  else if constexpr (std::is_same_v<T, min_plus<double>>) return "min_plus<double>";
  else if constexpr (std::is_same_v<T, min_plus<std::int64_t>>) return "min_plus<int64>";
  else if constexpr (std::is_same_v<T, max_plus<double>>) return "max_plus<double>";
  else if constexpr (std::is_same_v<T, max_times<double>>) return "max_times<double>";
  else return std::string(semiring_traits<T>::name);
}

/// A value as text (infinities as inf, doubles with round-trip precision).
template <class T>
std::string show(const T& v) {
  if constexpr (std::is_same_v<T, boolean>) {
    return v.value ? "true" : "false";
  } else if constexpr (std::is_arithmetic_v<T>) {
    std::ostringstream os;
    os << std::setprecision(17) << v;
    return os.str();
  } else if constexpr (requires { v.value; }) {
    return show(v.value);
  } else {
    return "<value>";
  }
}

template <std::size_t N>
std::string show_coords(const std::array<std::int64_t, N>& c) {
  std::string s = "(";
  for (std::size_t m = 0; m < N; ++m) s += (m ? "," : "") + std::to_string(c[m]);
  return s + ")";
}

// Equality ---------------------------------------------------------------------------------------

/// Exact equality, or |a - b| <= tol * max(1, |a|, |b|) for floating carriers when tol > 0.
template <class T>
bool values_equal(const T& a, const T& b, double tol) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a == b) return true;
    if (std::isnan(a) && std::isnan(b)) return true;
    if (tol <= 0 || !std::isfinite(a) || !std::isfinite(b)) return false;
    const double scale = std::max({1.0, std::abs(static_cast<double>(a)),
                                   std::abs(static_cast<double>(b))});
    return std::abs(static_cast<double>(a) - static_cast<double>(b)) <= tol * scale;
  } else if constexpr (std::is_arithmetic_v<T>) {
    return a == b;
  } else if constexpr (requires { a.value; }) {
    return values_equal(a.value, b.value, tol);
  } else {
    return a == b;
  }
}

// Cases, counters, reports -----------------------------------------------------------------------

/// What a differential case is; printed with every failure so that it can be reproduced.
struct case_context {
  std::string expression;         ///< e.g. "y(i) = sum(j, A(i,j) * x(j))"
  std::string formats;            ///< e.g. "A=csr x=dense_vector y=sparse_vector"
  std::string semiring;           ///< value type, e.g. "min_plus<double>"
  std::string densities;          ///< e.g. "A=30% x=full"
  std::uint64_t seed = 0;         ///< the case seed (operands use mix_seed(seed, k))
  double tolerance = 0;           ///< relative tolerance; 0 = exact
  std::function<std::string()> explain{};  ///< the plan, printed on failure when set

  std::string describe() const {
    std::string s = "expression: " + expression + "\n  formats:    " + formats +
                    "\n  semiring:   " + semiring + "\n  densities:  " + densities +
                    "\n  seed:       " + std::to_string(seed);
    if (explain) {
      try {
        s += "\n  plan:\n" + explain();
      } catch (const std::exception& e) {
        s += "\n  plan: loom::explain threw: " + std::string(e.what());
      }
    }
    return s;
  }
};

/// Counters over the whole test run (printed once at the end by tests/differential/summary.cpp).
struct harness_stats {
  std::int64_t cases = 0;          ///< comparisons of a whole result against the reference
  std::int64_t failed_cases = 0;   ///< of which failed
  std::int64_t points = 0;         ///< points compared
};
inline harness_stats& stats() {
  static harness_stats s;
  return s;
}

/// Largest number of differing points listed per failing case.
inline constexpr int max_reported_points = 6;

namespace detail {
inline void report_failure(const case_context& ctx, const std::string& what) {
  const std::string where = ctx.describe();
  INFO(where);
  FAIL_CHECK(what);
}
}  // namespace detail

/// Compares `actual` (any format) with the reference point by point. Returns true on a match;
/// otherwise fails the doctest case with a description of the first mismatches.
template <class T, class Format, bool Owning, std::size_t N>
bool check_tensor(const basic_tensor<T, Format, Owning>& actual, const dense_result<T, N>& expected,
                  const case_context& ctx) {
  static_assert(Format::order == N, "loom::test::check_tensor: orders differ");
  ++stats().cases;
  auto fail = [&](const std::string& what) {
    ++stats().failed_cases;
    detail::report_failure(ctx, what);
    return false;
  };
  if (actual.shape() != expected.shape)
    return fail("the result has shape " + show_coords(actual.shape()) + ", expected " +
                show_coords(expected.shape));
  dense_result<T, N> got;
  got.shape = expected.shape;
  got.values.assign(expected.values.size(), semiring_traits<T>::zero());
  std::vector<bool> seen(expected.values.size(), false);
  std::string structure_error;
  actual.for_each_stored([&](const std::array<std::int64_t, N>& c, const T& v) {
    for (std::size_t m = 0; m < N; ++m)
      if (c[m] < 0 || c[m] >= expected.shape[m]) {
        if (structure_error.empty())
          structure_error = "a stored coordinate " + show_coords(c) + " is outside the shape";
        return;
      }
    const std::size_t off = got.offset(c);
    if (seen[off] && structure_error.empty())
      structure_error = "coordinate " + show_coords(c) + " is stored twice (values " +
                        show(got.values[off]) + " and " + show(v) + ")";
    seen[off] = true;
    got.values[off] = v;
  });
  if (!structure_error.empty()) return fail(structure_error);
  std::int64_t differing = 0;
  std::string lines;
  for_each_point(expected.shape, [&](const std::array<std::int64_t, N>& c) {
    ++stats().points;
    const T& e = expected.at(c);
    const T& a = got.at(c);
    if (values_equal(a, e, ctx.tolerance)) return;
    if (differing++ < max_reported_points)
      lines += "\n    at " + show_coords(c) + ": expected " + show(e) + ", actual " + show(a) +
               (seen[got.offset(c)] ? "" : " (absent)");
  });
  if (differing == 0) return true;
  return fail(std::to_string(differing) + " of " + std::to_string(expected.values.size()) +
              " points differ (output " + std::to_string(actual.nnz()) + " stored):" + lines);
}

/// Compares a scalar result.
template <class T>
bool check_scalar(const T& actual, const T& expected, const case_context& ctx) {
  ++stats().cases;
  ++stats().points;
  if (values_equal(actual, expected, ctx.tolerance)) return true;
  ++stats().failed_cases;
  detail::report_failure(ctx, "expected " + show(expected) + ", actual " + show(actual));
  return false;
}

/// Runs `f` (the loom evaluation under test); an exception fails the case, naming it.
template <class F>
bool run_guarded(const case_context& ctx, F&& f) {
  try {
    f();
    return true;
  } catch (const std::exception& e) {
    ++stats().cases;
    ++stats().failed_cases;
    detail::report_failure(ctx, std::string("loom threw: ") + e.what());
    return false;
  }
}

}  // namespace loom::test

#endif  // LOOM_TESTS_SUPPORT_COMPARE_HPP
