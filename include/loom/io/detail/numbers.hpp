// Defines the readers' number text: integer tokens, value parsing and printing per value type (io/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_IO_DETAIL_NUMBERS_HPP
#define LOOM_IO_DETAIL_NUMBERS_HPP

#include <loom/core/config.hpp>
#include <loom/core/semiring.hpp>

#include <charconv>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace loom::detail {

/// `'text'` for messages: at most 40 bytes, control and non-ASCII bytes as `\xNN`.
LOOM_DECL std::string excerpt(std::string_view s);

/// Whether `s` is an optional sign followed by one or more decimal digits.
inline bool is_integer_literal(std::string_view s) {
  std::size_t k = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  if (k == s.size()) return false;
  for (; k < s.size(); ++k)
    if (s[k] < '0' || s[k] > '9') return false;
  return true;
}

/// Outcome of parsing one token.
enum class parse_status { ok, not_a_number, out_of_range };

/// Parses a decimal integer literal (optional `+` or `-`) into any integer type.
template <std::integral Int> parse_status parse_integer(std::string_view s, Int& out) {
  if (!is_integer_literal(s)) return parse_status::not_a_number;
  if (s[0] == '+') s.remove_prefix(1);
  if constexpr (std::is_unsigned_v<Int>) {
    if (s[0] == '-') {  // only a negative zero fits an unsigned type
      if (s.find_first_not_of('0', 1) != std::string_view::npos) return parse_status::out_of_range;
      out = 0;
      return parse_status::ok;
    }
  }
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec == std::errc::result_out_of_range) return parse_status::out_of_range;
  if (ec != std::errc{} || ptr != s.data() + s.size()) return parse_status::not_a_number;
  return parse_status::ok;
}

/// Parses a decimal floating literal, `nan` or `inf`; an underflow rounds to zero or a
/// subnormal, an overflow is out of range.
template <std::floating_point F> parse_status parse_floating(std::string_view s, F& out) {
  if (s.size() > 1 && s[0] == '+' && s[1] != '+' && s[1] != '-') s.remove_prefix(1);
  if (s.empty()) return parse_status::not_a_number;
#if defined(__cpp_lib_to_chars)
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ptr != s.data() + s.size() || ec == std::errc::invalid_argument)
    return parse_status::not_a_number;
  if (ec == std::errc::result_out_of_range) {
    // from_chars reports underflow and overflow alike; strtod tells them apart
    const std::string copy(s);
    const long double v = std::strtold(copy.c_str(), nullptr);
    if (std::isinf(v) || std::fabs(v) > static_cast<long double>(std::numeric_limits<F>::max()))
      return parse_status::out_of_range;
    out = static_cast<F>(v);
  }
  return parse_status::ok;
#else
  // without floating-point from_chars (libc++ before 17): strtold, in the C locale's notation
  const std::string copy(s);
  char* end = nullptr;
  const long double v = std::strtold(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || copy.find_first_of("xX") != std::string::npos)
    return parse_status::not_a_number;
  const bool spelled_inf = copy.find_first_of("iI") != std::string::npos;
  if (!std::isnan(v) && !spelled_inf &&
      std::fabs(v) > static_cast<long double>(std::numeric_limits<F>::max()))
    return parse_status::out_of_range;
  out = static_cast<F>(v);
  return parse_status::ok;
#endif
}

/// Appends the shortest text that reads back as exactly `v`.
template <class Number> void append_number(std::string& out, Number v) {
  char buf[64];
  if constexpr (std::floating_point<Number>) {
#if defined(__cpp_lib_to_chars)
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
#else
    const int n = std::snprintf(buf, sizeof buf, "%.*Lg", std::numeric_limits<Number>::max_digits10,
                                static_cast<long double>(v));
    out.append(buf, static_cast<std::size_t>(n));
#endif
  } else {
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
  }
}

/// `int8`, `uint64`, `float`, `double`: the name of an arithmetic type in messages.
template <class A> std::string arithmetic_type_name() {
  if constexpr (std::same_as<A, float>)
    return "float";
  else if constexpr (std::same_as<A, double>)
    return "double";
  else if constexpr (std::same_as<A, long double>)
    return "long double";
  else
    return (std::is_signed_v<A> ? "int" : "uint") + std::to_string(sizeof(A) * 8);
}

/// How the readers parse, negate (skew-symmetric mirror) and print values of type `T`.
/// Specialised for plain arithmetic types, `loom::boolean`, and wrappers around an arithmetic
/// `value` member (`min_plus<T>`, ...). A type without a specialisation cannot be read.
template <class T>
struct value_text;  // no text form for this value type: specialise loom::detail::value_text

template <class T>
  requires std::is_arithmetic_v<T> && (!std::same_as<T, bool>)
struct value_text<T> {
  using carrier = T;
  static constexpr bool integral = std::is_integral_v<T>;
  static std::string type_name() { return arithmetic_type_name<T>(); }
  /// Empty when `token` is a valid value, else what is wrong with it.
  static std::string parse(std::string_view token, T& out) {
    parse_status st;
    if constexpr (std::is_integral_v<T>)
      st = parse_integer(token, out);
    else
      st = parse_floating(token, out);
    if (st == parse_status::ok) return {};
    if (st == parse_status::out_of_range)
      return "value " + excerpt(token) + " does not fit the value type " + type_name();
    if constexpr (std::is_integral_v<T>) {
      double ignored;
      if (parse_floating(token, ignored) == parse_status::ok)
        return "value " + excerpt(token) + " is not an integer, but the value type is " +
               type_name();
    }
    return "value " + excerpt(token) + " is not a number";
  }
  /// Whether `-v` exists in T; stores it in `out`.
  static bool negate(const T& v, T& out) {
    if constexpr (std::is_floating_point_v<T>) {
      out = -v;
      return true;
    } else if constexpr (std::is_unsigned_v<T>) {
      out = 0;
      return v == 0;
    } else {
      if (v == std::numeric_limits<T>::min()) return false;
      out = static_cast<T>(-v);
      return true;
    }
  }
  static void append(std::string& out, const T& v) { append_number(out, v); }
};

template <> struct value_text<boolean> {
  using carrier = bool;
  static constexpr bool integral = true;
  static std::string type_name() { return "boolean"; }
  LOOM_DECL static std::string parse(std::string_view token, boolean& out);
  static bool negate(const boolean& v, boolean& out) {
    out = v;
    return !v.value;  // false is its own negation; true has none
  }
  static void append(std::string& out, const boolean& v) { out += v.value ? '1' : '0'; }
};

/// Wrappers such as `min_plus<double>`: the text of the carried `value`.
template <class T>
  requires(!std::is_arithmetic_v<T>) && requires(T t) {
    t.value;
    requires std::is_arithmetic_v<decltype(t.value)>;
    requires !std::same_as<decltype(t.value), bool>;
    T(t.value);
  }
struct value_text<T> {
  using carrier = decltype(T::value);
  using inner = value_text<carrier>;
  static constexpr bool integral = inner::integral;
  static std::string type_name() {
    if constexpr (requires { semiring_traits<T>::name; })
      return std::string(semiring_traits<T>::name) + "<" + inner::type_name() + ">";
    else
      return inner::type_name();
  }
  static std::string parse(std::string_view token, T& out) {
    carrier v{};
    std::string why = inner::parse(token, v);
    if (why.empty()) out = T(v);
    return why;
  }
  static bool negate(const T& v, T& out) {
    carrier n{};
    if (!inner::negate(v.value, n)) return false;
    out = T(n);
    return true;
  }
  static void append(std::string& out, const T& v) { inner::append(out, v.value); }
};

/// Satisfied by value types the readers and writers can handle.
template <class T>
concept text_value = requires(std::string_view s, T& v, std::string& out) {
  { value_text<T>::parse(s, v) } -> std::same_as<std::string>;
  value_text<T>::append(out, v);
};

#if LOOM_HEADER_ONLY
LOOM_DEF std::string excerpt(std::string_view s) {
  constexpr std::size_t max_shown = 40;
  std::string out = "'";
  for (std::size_t k = 0; k < s.size() && k < max_shown; ++k) {
    const auto c = static_cast<unsigned char>(s[k]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      constexpr char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (s.size() > max_shown) out += "...";
  return out + "'";
}

LOOM_DEF std::string value_text<boolean>::parse(std::string_view token, boolean& out) {
  double v = 0;
  if (parse_floating(token, v) != parse_status::ok)
    return "value " + excerpt(token) + " is not a number";
  if (v != 0 && v != 1) return "value " + excerpt(token) + " is not a boolean (0 or 1)";
  out = boolean(v == 1);
  return {};
}
#endif  // LOOM_HEADER_ONLY
}  // namespace loom::detail

#endif  // LOOM_IO_DETAIL_NUMBERS_HPP
