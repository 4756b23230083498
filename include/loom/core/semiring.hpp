// Defines loom::semiring_traits and the shipped semirings (core vocabulary).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_SEMIRING_HPP
#define LOOM_CORE_SEMIRING_HPP

#include <concepts>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

namespace loom {

/// The semiring a value type carries: `zero()`, `one()`, `add`, `mul`, `scale(x, n)` (x added n
/// times). Plain arithmetic types are (+, ×). A user semiring is a specialisation.
/// **Laws**: zero is the identity of add and annihilates mul; one is the identity of mul.
template <class T>
struct semiring_traits;  // a type without a specialisation is not a semiring: specialise me

template <class T>
  requires std::is_arithmetic_v<T> && (!std::same_as<T, bool>)
struct semiring_traits<T> {
  static constexpr std::string_view name = "arithmetic";
  static constexpr bool idempotent = false;
  static constexpr T zero() { return T(0); }
  static constexpr T one() { return T(1); }
  static constexpr T add(T a, T b) { return a + b; }
  static constexpr T mul(T a, T b) { return a * b; }
  static constexpr T scale(T a, std::int64_t n) { return a * static_cast<T>(n); }
};

namespace detail {
template <class T> constexpr T infinity_of() {
  if constexpr (std::numeric_limits<T>::has_infinity)
    return std::numeric_limits<T>::infinity();
  else
    return std::numeric_limits<T>::max();
}
}  // namespace detail

// The wrappers below hold one value; `==` compares it, `+` and `*` are the semiring's.
#define LOOM_DEFINE_SEMIRING_WRAPPER(Name)                                                       \
  template <class T> struct Name {                                                               \
    T value{semiring_traits<Name<T>>::zero().value};                                             \
    constexpr Name() = default;                                                                  \
    constexpr Name(T v) : value(v) {} /* NOLINT: implicit from the carrier */                    \
    friend constexpr bool operator==(Name a, Name b) { return a.value == b.value; }              \
    friend constexpr Name operator+(Name a, Name b) { return semiring_traits<Name>::add(a, b); } \
    friend constexpr Name operator*(Name a, Name b) { return semiring_traits<Name>::mul(a, b); } \
  };

template <class T> struct min_plus;
template <class T> struct max_plus;
template <class T> struct max_times;

/// A view's const elements keep their semiring (arithmetic types already match above).
template <class T>
  requires(!std::is_arithmetic_v<T>)
struct semiring_traits<const T> : semiring_traits<T> {};

/// (min, +): zero = +inf, one = 0. Shortest paths.
template <class T> struct semiring_traits<min_plus<T>> {
  static constexpr std::string_view name = "min_plus";
  static constexpr bool idempotent = true;
  static constexpr min_plus<T> zero() { return min_plus<T>(detail::infinity_of<T>()); }
  static constexpr min_plus<T> one() { return min_plus<T>(T(0)); }
  static constexpr min_plus<T> add(min_plus<T> a, min_plus<T> b) {
    return a.value < b.value ? a : b;
  }
  static constexpr min_plus<T> mul(min_plus<T> a, min_plus<T> b) {
    if (a.value == detail::infinity_of<T>() || b.value == detail::infinity_of<T>()) return zero();
    return min_plus<T>(a.value + b.value);
  }
  static constexpr min_plus<T> scale(min_plus<T> a, std::int64_t n) { return n > 0 ? a : zero(); }
};

/// (max, +): zero = -inf, one = 0. Longest paths, Viterbi in log space.
template <class T> struct semiring_traits<max_plus<T>> {
  static constexpr std::string_view name = "max_plus";
  static constexpr bool idempotent = true;
  static constexpr T neg_inf() { return -detail::infinity_of<T>(); }
  static constexpr max_plus<T> zero() { return max_plus<T>(neg_inf()); }
  static constexpr max_plus<T> one() { return max_plus<T>(T(0)); }
  static constexpr max_plus<T> add(max_plus<T> a, max_plus<T> b) {
    return a.value < b.value ? b : a;
  }
  static constexpr max_plus<T> mul(max_plus<T> a, max_plus<T> b) {
    if (a.value == neg_inf() || b.value == neg_inf()) return zero();
    return max_plus<T>(a.value + b.value);
  }
  static constexpr max_plus<T> scale(max_plus<T> a, std::int64_t n) { return n > 0 ? a : zero(); }
};

/// (max, ×) over non-negative values: zero = 0, one = 1. Most reliable path.
template <class T> struct semiring_traits<max_times<T>> {
  static constexpr std::string_view name = "max_times";
  static constexpr bool idempotent = true;
  static constexpr max_times<T> zero() { return max_times<T>(T(0)); }
  static constexpr max_times<T> one() { return max_times<T>(T(1)); }
  static constexpr max_times<T> add(max_times<T> a, max_times<T> b) {
    return a.value < b.value ? b : a;
  }
  static constexpr max_times<T> mul(max_times<T> a, max_times<T> b) {
    return max_times<T>(a.value * b.value);
  }
  static constexpr max_times<T> scale(max_times<T> a, std::int64_t n) { return n > 0 ? a : zero(); }
};

LOOM_DEFINE_SEMIRING_WRAPPER(min_plus)
LOOM_DEFINE_SEMIRING_WRAPPER(max_plus)
LOOM_DEFINE_SEMIRING_WRAPPER(max_times)
#undef LOOM_DEFINE_SEMIRING_WRAPPER

/// (∨, ∧) over truth values: reachability, pattern matrices.
struct boolean {
  bool value = false;
  constexpr boolean() = default;
  constexpr boolean(bool v) : value(v) {}  // NOLINT: implicit from bool
  friend constexpr bool operator==(boolean a, boolean b) { return a.value == b.value; }
  friend constexpr boolean operator+(boolean a, boolean b) { return a.value || b.value; }
  friend constexpr boolean operator*(boolean a, boolean b) { return a.value && b.value; }
};

template <> struct semiring_traits<boolean> {
  static constexpr std::string_view name = "boolean";
  static constexpr bool idempotent = true;
  static constexpr boolean zero() { return false; }
  static constexpr boolean one() { return true; }
  static constexpr boolean add(boolean a, boolean b) { return a.value || b.value; }
  static constexpr boolean mul(boolean a, boolean b) { return a.value && b.value; }
  static constexpr boolean scale(boolean a, std::int64_t n) { return n > 0 && a.value; }
};

/// Satisfied by value types with a `semiring_traits` specialisation.
template <class T>
concept semiring = requires(T a, T b) {
  { semiring_traits<T>::zero() } -> std::convertible_to<T>;
  { semiring_traits<T>::one() } -> std::convertible_to<T>;
  { semiring_traits<T>::add(a, b) } -> std::convertible_to<T>;
  { semiring_traits<T>::mul(a, b) } -> std::convertible_to<T>;
};

/// True for the plain (+, ×) arithmetic semirings, where `-` and `/` make sense.
template <class T>
inline constexpr bool is_arithmetic_semiring_v = std::is_arithmetic_v<T> && !std::same_as<T, bool>;

/// `x` added to itself `n` times in T's semiring.
template <semiring T> constexpr T semiring_scale(T x, std::int64_t n) {
  if constexpr (requires { semiring_traits<T>::scale(x, n); }) {
    return semiring_traits<T>::scale(x, n);
  } else {
    T acc = semiring_traits<T>::zero();
    T power = x;  // doubling: O(log n) additions
    while (n > 0) {
      if (n & 1) acc = semiring_traits<T>::add(acc, power);
      power = semiring_traits<T>::add(power, power);
      n >>= 1;
    }
    return acc;
  }
}

}  // namespace loom

#endif  // LOOM_CORE_SEMIRING_HPP
