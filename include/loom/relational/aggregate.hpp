// Defines the aggregates of a keyed relation: the value each row contributes and how rows with
// equal keys combine (count, exists, sum, min, max) (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_AGGREGATE_HPP
#define LOOM_RELATIONAL_AGGREGATE_HPP

#include <loom/core/semiring.hpp>
#include <loom/format/assembly/assemble.hpp>
#include <loom/relational/table.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

namespace loom::relational {

// An aggregate has `value_type` (a semiring), `policy` (how equal keys combine in from_coo) and
// `bind(table)`, which returns the per-row value function `(std::size_t row) -> value_type`.

/// Each row counts 1; equal keys add up (bag semantics, K = N).
template <class T = std::int64_t> struct count {
  using value_type = T;
  static constexpr duplicates policy = duplicates::sum;
  auto bind(const table&) const {
    return [](std::size_t) { return semiring_traits<T>::one(); };
  }
};

/// Each key is present once with the value one (set semantics).
template <class T = std::int64_t> struct exists {
  using value_type = T;
  static constexpr duplicates policy = duplicates::last;
  auto bind(const table&) const {
    return [](std::size_t) { return semiring_traits<T>::one(); };
  }
};

namespace detail {
/// A column's values read as T (codes and days as numbers), row by row.
template <class T> struct column_values {
  std::span<const std::int64_t> ints;  // an integer column (a fixed decimal's scaled values), or
  std::span<const double> reals;       // a decimal one
  bool integer = false;
  double unit = 1;  // 10^scale of a fixed decimal
  T operator()(std::size_t r) const {
    if (!integer) return T(reals[r]);
    return unit == 1 ? T(static_cast<double>(ints[r])) : T(static_cast<double>(ints[r]) / unit);
  }
};

// A column read as T, or a user function of the row (called directly, no type erasure).
// `summed` (sum_of) refuses string and date columns: codes and day numbers do not add up (their
// minimum and maximum are meaningful: codes keep the strings' order).
template <class T, class Source>
auto row_values(const table& t, const Source& source, bool summed = false) {
  if constexpr (std::is_convertible_v<const Source&, std::string_view>) {
    const column& c = t[std::string_view(source)];
    if (summed && (c.type() == column_type::string || c.type() == column_type::date))
      throw column_error(
          "loom::relational::sum_of: column " + c.name() + " of " +
          (t.name().empty() ? "(unnamed)" : t.name()) + " is " + std::string(to_string(c.type())) +
          "; " + (c.type() == column_type::string ? "its dictionary codes" : "day numbers") +
          " do not add up (sum a numeric column, or take min_of / max_of)");
    if (c.is_integer())
      return column_values<T>{c.ints(), {}, true, static_cast<double>(power_of_ten(c.scale()))};
    return column_values<T>{{}, c.reals(), false};
  } else {
    return [source](std::size_t r) { return static_cast<T>(source(r)); };
  }
}
}  // namespace detail

/// An aggregate: `bind(table)` gives the per-row value function; equal keys combine by `Policy`.
template <class V, duplicates Policy, class Bind> struct aggregate {
  using value_type = V;
  static constexpr duplicates policy = Policy;
  Bind binder;
  auto bind(const table& t) const { return binder(t); }
};

namespace detail {
template <class V, duplicates P, class Bind> aggregate<V, P, Bind> make_aggregate(Bind b) {
  return {std::move(b)};
}
}  // namespace detail

/// The sum of a column (by name) or of `f(row)` over rows with equal keys (K = T, +, ×).
/// **Example**: `sum_of<double>([&](std::size_t r) { return price[r] * (1 - disc[r]); })`
template <class T, class Source> auto sum_of(Source source) {
  return detail::make_aggregate<T, duplicates::sum>(
      [source](const table& t) { return detail::row_values<T>(t, source, true); });
}

/// The minimum of a column or of `f(row)`: values in the (min, +) semiring, whose + is min.
template <class T, class Source> auto min_of(Source source) {
  return detail::make_aggregate<min_plus<T>, duplicates::sum>([source](const table& t) {
    return [f = detail::row_values<T>(t, source)](std::size_t r) { return min_plus<T>(f(r)); };
  });
}

/// The maximum of a column or of `f(row)`: values in the (max, +) semiring, whose + is max.
template <class T, class Source> auto max_of(Source source) {
  return detail::make_aggregate<max_plus<T>, duplicates::sum>([source](const table& t) {
    return [f = detail::row_values<T>(t, source)](std::size_t r) { return max_plus<T>(f(r)); };
  });
}

}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_AGGREGATE_HPP
