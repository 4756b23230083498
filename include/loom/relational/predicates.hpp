// Defines key predicates as 0/1 tensors to multiply into a query: ranges, equality, sets of
// codes, SQL LIKE over a string column; and value filters (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_PREDICATES_HPP
#define LOOM_RELATIONAL_PREDICATES_HPP

#include <loom/core/config.hpp>
#include <loom/core/error.hpp>
#include <loom/core/semiring.hpp>
#include <loom/format/assembly/assemble.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/relational/column.hpp>
#include <loom/relational/error.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loom::relational {

// A predicate on a key is a sparse vector of ones over the keys that satisfy it. Multiplying it
// into a query is a selection (σ_p(M) = p · M); as a compressed level it is intersected with the
// relation's level by the leapfrog merge, whose seeks jump over keys outside the predicate.

namespace detail {
template <class T>
tensor<T, sparse_vector> ones_at(std::int64_t extent, std::vector<std::int64_t> keys) {
  if (extent < 0) throw shape_error("loom::relational: a predicate's extent is negative");
  using level = compressed;
  typename tensor<T, sparse_vector>::level_storages levels{};
  auto& st = std::get<0>(levels);
  if (extent > 0)
    loom::detail::check_fits<level::crd_type>(extent - 1, "largest key of a predicate");
  st.pos = {0, static_cast<level::pos_type>(keys.size())};
  st.crd.reserve(keys.size());
  for (std::int64_t k : keys) st.crd.push_back(static_cast<level::crd_type>(k));
  std::vector<T> vals(keys.size(), semiring_traits<T>::one());
  return tensor<T, sparse_vector>({extent}, std::move(levels), std::move(vals));
}
}  // namespace detail

/// `[lo <= key < hi]` over keys `0 .. extent-1` (clipped to the extent).
/// **Example**: `range<double>(date("1994-01-01"), date("1995-01-01"), days)`
template <class T = std::int64_t>
tensor<T, sparse_vector> range(std::int64_t lo, std::int64_t hi, std::int64_t extent) {
  lo = std::max<std::int64_t>(lo, 0);
  hi = std::min(hi, extent);
  std::vector<std::int64_t> keys;
  for (std::int64_t k = lo; k < hi; ++k) keys.push_back(k);
  return detail::ones_at<T>(extent, std::move(keys));
}

/// `[key == value]` over keys `0 .. extent-1` (empty when value is outside).
template <class T = std::int64_t>
tensor<T, sparse_vector> equal(std::int64_t value, std::int64_t extent) {
  return range<T>(value, value + 1, extent);
}

/// `[f(key)]` for every key `0 .. extent-1`.
template <class T = std::int64_t, class F>
tensor<T, sparse_vector> predicate(std::int64_t extent, F f) {
  std::vector<std::int64_t> keys;
  for (std::int64_t k = 0; k < extent; ++k)
    if (f(k)) keys.push_back(k);
  return detail::ones_at<T>(extent, std::move(keys));
}

namespace detail {
LOOM_DECL const dictionary& dictionary_of(const column& c, std::string_view who);
}  // namespace detail

/// `[f(string)]` over the dictionary codes of string column `c`.
template <class T = std::int64_t, class F>
tensor<T, sparse_vector> string_predicate(const column& c, F f) {
  const dictionary& d = detail::dictionary_of(c, "string_predicate");
  return predicate<T>(d.size(),
                      [&](std::int64_t code) { return f(std::string_view(d.word(code))); });
}

/// `[string == s]` over the codes of string column `c` (no entry when s does not occur).
template <class T = std::int64_t>
tensor<T, sparse_vector> string_equal(const column& c, std::string_view s) {
  const dictionary& d = detail::dictionary_of(c, "string_equal");
  const auto code = d.code(s);
  return code ? equal<T>(*code, d.size()) : detail::ones_at<T>(d.size(), {});
}

/// SQL LIKE: `%` matches any run of characters, `_` any one character; case-sensitive.
constexpr bool like_match(std::string_view s, std::string_view pattern) {
  // iterative wildcard matching with backtracking to the last `%`: O(|s| * |pattern|) worst case
  std::size_t si = 0, pi = 0, star = std::string_view::npos, mark = 0;
  while (si < s.size()) {
    if (pi < pattern.size() && pattern[pi] == '%') {  // before the literal test: '%' is a wildcard
      star = pi++;
      mark = si;
    } else if (pi < pattern.size() && (pattern[pi] == '_' || pattern[pi] == s[si])) {
      ++si;
      ++pi;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      si = ++mark;
    } else {
      return false;
    }
  }
  while (pi < pattern.size() && pattern[pi] == '%') ++pi;
  return pi == pattern.size();
}

/// `[string LIKE pattern]` over the codes of string column `c`: Q9's `p_name like '%green%'`.
template <class T = std::int64_t>
tensor<T, sparse_vector> like(const column& c, std::string_view pattern) {
  return string_predicate<T>(c, [pattern](std::string_view s) { return like_match(s, pattern); });
}

/// A value filter: the entries of `a` whose value satisfies `keep`, same format and shape.
/// (Inside an expression, `loom::where(A(i, j) > t, A(i, j))` filters without materialising.)
template <class T, storage_format Format, bool Owning, class F>
tensor<T, Format> filter_values(const basic_tensor<T, Format, Owning>& a, F keep) {
  constexpr std::size_t N = Format::order;
  std::vector<std::array<std::int64_t, N>> coords;
  std::vector<T> values;
  a.for_each_stored([&](const auto& c, const T& v) {
    if (keep(v)) {
      coords.push_back(c);
      values.push_back(v);
    }
  });
  return from_coo<Format>(a.shape(), coords, values, duplicates::error);
}

#if LOOM_HEADER_ONLY
namespace detail {
LOOM_DEF const dictionary& dictionary_of(const column& c, std::string_view who) {
  if (c.type() != column_type::string || !c.dict())
    throw column_error("loom::relational::" + std::string(who) + ": column " + c.name() +
                       " is not a string column");
  return *c.dict();
}
}  // namespace detail
#endif  // LOOM_HEADER_ONLY
}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_PREDICATES_HPP
