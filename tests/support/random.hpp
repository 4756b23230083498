// Deterministic random tensors for the differential tests (test support).
//
// Every generator takes an explicit seed and uses std::mt19937_64 with its own bounded draws
// (not std::uniform_int_distribution, whose output differs between standard libraries), so a
// failing case is reproduced from (shape, density, seed) alone. Values are small integers
// converted to the value type: double sums of them are exact, so results compare exactly.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_SUPPORT_RANDOM_HPP
#define LOOM_TESTS_SUPPORT_RANDOM_HPP

#include <loom/core/semiring.hpp>
#include <loom/format/assembly/assemble.hpp>
#include <loom/format/tensor.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom::test {

/// How many entries a random tensor stores.
enum class density {
  empty,   ///< no entry
  one,     ///< exactly one entry
  sparse,  ///< 1% of the points (at least one)
  medium,  ///< 30% of the points
  full,    ///< every point
  zeros,   ///< 30% of the points, a third of them explicit zeros of the semiring
};

inline constexpr std::array<density, 6> all_densities{
    density::empty, density::one, density::sparse, density::medium, density::full, density::zeros};

constexpr std::string_view density_name(density d) {
  switch (d) {
    case density::empty:
      return "empty";
    case density::one:
      return "one entry";
    case density::sparse:
      return "1%";
    case density::medium:
      return "30%";
    case density::full:
      return "full";
    case density::zeros:
      return "30% with explicit zeros";
  }
  return "?";
}

/// The seeds every differential case runs with.
inline constexpr std::array<std::uint64_t, 3> seeds{1, 2, 3};

/// Derives an independent seed for operand `salt` of a case (splitmix64 finaliser).
constexpr std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t salt) {
  std::uint64_t z =
      seed * 0x9E3779B97F4A7C15ull + salt * 0xBF58476D1CE4E5B9ull + 0x94D049BB133111EBull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// A uniform integer in [lo, hi] (hi >= lo); the modulo bias is irrelevant here.
inline std::int64_t draw(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
  return lo + static_cast<std::int64_t>(rng() % span);
}

/// The small integers random values are drawn from, per semiring: arithmetic types get negative
/// values too (so that sums cancel to computed zeros); (min, +) and (max, +) get [0, 9], where 0
/// is the semiring's one; (max, x) gets [1, 9]; boolean gets true.
template <class T> struct value_range {
  static constexpr std::int64_t lo = 1, hi = 9;
};
template <class T>
  requires std::is_arithmetic_v<T>
struct value_range<T> {
  static constexpr std::int64_t lo = -4, hi = 9;
};
template <class T> struct value_range<min_plus<T>> {
  static constexpr std::int64_t lo = 0, hi = 9;
};
template <class T> struct value_range<max_plus<T>> {
  static constexpr std::int64_t lo = 0, hi = 9;
};
template <> struct value_range<boolean> {
  static constexpr std::int64_t lo = 1, hi = 1;
};

/// The small integer `k` as a value of T.
template <class T> constexpr T make_value(std::int64_t k) {
  if constexpr (std::is_arithmetic_v<T>)
    return static_cast<T>(k);
  else if constexpr (std::is_same_v<T, boolean>)
    return boolean(k > 0);
  else
    return T(static_cast<decltype(T{}.value)>(k));
}

/// A random non-zero value of T (never the semiring's zero).
template <class T> T random_value(std::mt19937_64& rng) {
  while (true) {
    const T v = make_value<T>(draw(rng, value_range<T>::lo, value_range<T>::hi));
    if (!(v == semiring_traits<T>::zero())) return v;
  }
}

/// Entries as logical coordinates and values (unique coordinates, in random order).
template <class T, std::size_t N> struct coo_data {
  std::array<std::int64_t, N> shape{};
  std::vector<std::array<std::int64_t, N>> coords;
  std::vector<T> values;
};

/// Number of entries a density asks for in a space of `points` points.
constexpr std::int64_t entry_count(density d, std::int64_t points) {
  if (points == 0) return 0;
  switch (d) {
    case density::empty:
      return 0;
    case density::one:
      return 1;
    case density::sparse:
      return std::max<std::int64_t>(1, (points + 50) / 100);
    case density::medium:
    case density::zeros:
      return std::max<std::int64_t>(1, (points * 3 + 5) / 10);
    case density::full:
      return points;
  }
  return 0;
}

/// Random unique coordinates of `shape` with values of T, as `density` asks.
template <class T, std::size_t N>
coo_data<T, N> random_coo(const std::array<std::int64_t, N>& shape, density d, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  coo_data<T, N> out;
  out.shape = shape;
  std::int64_t points = 1;
  for (std::int64_t e : shape) points *= e;
  const std::int64_t count = entry_count(d, points);
  // a partial Fisher-Yates shuffle of the linear offsets picks `count` distinct points
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(points));
  for (std::int64_t p = 0; p < points; ++p) offsets[static_cast<std::size_t>(p)] = p;
  for (std::int64_t k = 0; k < count; ++k) {
    const std::int64_t r = draw(rng, k, points - 1);
    std::swap(offsets[static_cast<std::size_t>(k)], offsets[static_cast<std::size_t>(r)]);
  }
  out.coords.reserve(static_cast<std::size_t>(count));
  out.values.reserve(static_cast<std::size_t>(count));
  for (std::int64_t k = 0; k < count; ++k) {
    std::int64_t off = offsets[static_cast<std::size_t>(k)];
    std::array<std::int64_t, N> c{};
    for (std::size_t m = N; m-- > 0;) {
      c[m] = off % shape[m];
      off /= shape[m];
    }
    out.coords.push_back(c);
    const bool explicit_zero = d == density::zeros && draw(rng, 0, 2) == 0;
    out.values.push_back(explicit_zero ? semiring_traits<T>::zero() : random_value<T>(rng));
  }
  return out;
}

/// The entries built into `Format` with `from_coo`.
template <class Format, class T, std::size_t N>
  requires(Format::order == N)
tensor<T, Format> build(const coo_data<T, N>& data) {
  return from_coo<Format>(data.shape, data.coords, data.values, duplicates::sum);
}

/// A random tensor of `shape` in `Format`: `random_tensor<double, csr>({5, 7}, density::medium,
/// 42)`.
template <class T, class Format>
tensor<T, Format> random_tensor(const std::array<std::int64_t, Format::order>& shape, density d,
                                std::uint64_t seed) {
  return build<Format>(random_coo<T>(shape, d, seed));
}

/// Shapes for small non-square cases, chosen by seed so each seed sees other extents (5..13).
inline std::array<std::int64_t, 4> extents_for_seed(std::uint64_t seed) {
  static constexpr std::array<std::array<std::int64_t, 4>, 4> table{
      {{7, 5, 9, 6}, {11, 13, 6, 8}, {5, 9, 13, 7}, {13, 6, 8, 11}}};
  return table[static_cast<std::size_t>(seed % table.size())];
}

}  // namespace loom::test

#endif  // LOOM_TESTS_SUPPORT_RANDOM_HPP
