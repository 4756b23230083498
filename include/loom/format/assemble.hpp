// Defines assembly: loom::from_coo, empty tensors, and conversion between formats (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_ASSEMBLE_HPP
#define LOOM_FORMAT_ASSEMBLE_HPP

#include <loom/core/error.hpp>
#include <loom/format/tensor.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <vector>

namespace loom {

/// What `from_coo` does with repeated coordinates.
enum class duplicates {
  sum,   ///< add the values in the value type's semiring
  last,  ///< keep the value that comes last in the input
  error  ///< throw loom::duplicate_error naming the coordinate
};

namespace detail {

/// "(3,1,4)". Appends to one string: `"," + std::to_string(x)` (operator+(const char*, string&&),
/// an insert at position 0) draws a false -Wrestrict from g++ 12 at -O2 and -O3.
template <std::size_t N>
std::string coords_to_string(const std::array<std::int64_t, N>& c) {
  std::string s(1, '(');
  for (std::size_t m = 0; m < N; ++m) {
    if (m != 0) s.push_back(',');
    s.append(std::to_string(c[m]));
  }
  s.push_back(')');
  return s;
}

/// Builds every level from entries sorted and unique in storage order (coords in storage order).
template <class T, class Format>
basic_tensor<T, Format, true> assemble_sorted(const std::array<std::int64_t, Format::order>& shape,
                                  const std::vector<std::array<std::int64_t, Format::order>>& crd,
                                  std::vector<T>&& vals) {
  constexpr std::size_t N = Format::order;
  using tensor_t = tensor<T, Format>;
  typename tensor_t::level_storages levels{};
  const std::size_t nnz = crd.size();
  std::vector<std::int64_t> parent(nnz, 0), current(nnz, 0), coord(nnz, 0);
  std::int64_t parent_count = 1;
  // each level builds itself from (parent position, coordinate) per entry: its assemble hook
  auto build = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
    using level = boost::mp11::mp_at_c<typename Format::levels, K>;
    const std::int64_t extent = shape[Format::modes[K]];
    if constexpr (level::static_extent != dynamic_extent) {
      if (extent != static_cast<std::int64_t>(level::static_extent))
        throw shape_error("loom: mode " + std::to_string(Format::modes[K]) + " has extent " +
                          std::to_string(extent) + " but its dense level is fixed at " +
                          std::to_string(level::static_extent));
    }
    for (std::size_t e = 0; e < nnz; ++e) coord[e] = crd[e][K];
    const level_build in{Format::modes[K], extent, parent_count, parent, coord};
    parent_count = level::assemble(std::get<K>(levels), in, std::span<std::int64_t>(current));
    std::swap(parent, current);
  };
  [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
    (build(std::integral_constant<std::size_t, Ks>{}), ...);
  }(std::make_index_sequence<N>{});
  bool identity = nnz == static_cast<std::size_t>(parent_count);
  for (std::size_t e = 0; identity && e < nnz; ++e)
    identity = parent[e] == static_cast<std::int64_t>(e);
  std::vector<T> values;
  if (identity) {
    values = std::move(vals);  // one position per entry, in entry order
  } else {
    values.assign(static_cast<std::size_t>(parent_count), semiring_traits<T>::zero());
    for (std::size_t e = 0; e < nnz; ++e) values[static_cast<std::size_t>(parent[e])] = vals[e];
  }
  return tensor_t(shape, std::move(levels), std::move(values));
}

/// Sorts entries (coords already permuted to storage order) and merges duplicates by `policy`.
template <class T, std::size_t N>
void sort_and_merge(std::vector<std::array<std::int64_t, N>>& crd, std::vector<T>& vals,
                    duplicates policy, const std::array<std::size_t, N>& modes,
                    bool already_sorted) {
  const std::size_t nnz = crd.size();
  if (!already_sorted) {
    std::vector<std::size_t> perm(nnz);
    std::iota(perm.begin(), perm.end(), std::size_t{0});
    std::stable_sort(perm.begin(), perm.end(),
                     [&](std::size_t a, std::size_t b) { return crd[a] < crd[b]; });
    std::vector<std::array<std::int64_t, N>> c2(nnz);
    std::vector<T> v2(nnz);
    for (std::size_t e = 0; e < nnz; ++e) {
      c2[e] = crd[perm[e]];
      v2[e] = vals[perm[e]];
    }
    crd.swap(c2);
    vals.swap(v2);
  }
  std::size_t out = 0;
  for (std::size_t e = 0; e < nnz; ++e) {
    if (out > 0 && crd[out - 1] == crd[e]) {
      if (policy == duplicates::error) {
        std::array<std::int64_t, N> logical{};
        for (std::size_t k = 0; k < N; ++k) logical[modes[k]] = crd[e][k];
        throw duplicate_error("loom::from_coo: duplicate coordinate " +
                              coords_to_string(logical) +
                              " (use loom::duplicates::sum or ::last to accept duplicates)");
      }
      vals[out - 1] = policy == duplicates::sum ? semiring_traits<T>::add(vals[out - 1], vals[e])
                                                : vals[e];
    } else {
      crd[out] = crd[e];
      vals[out] = vals[e];
      ++out;
    }
  }
  crd.resize(out);
  vals.resize(out);
}

}  // namespace detail

/// Builds a tensor in `Format` from coordinates in any order; `coords[e]` are logical
/// coordinates of `values[e]`. Throws `shape_error` for coordinates outside `shape`,
/// `duplicate_error` under `duplicates::error`, `overflow_error` when a width is too small.
template <storage_format Format, class T>
tensor<T, Format> from_coo(const std::array<std::int64_t, Format::order>& shape,
                           const std::vector<std::array<std::int64_t, Format::order>>& coords,
                           const std::vector<T>& values, duplicates policy = duplicates::error) {
  constexpr std::size_t N = Format::order;
  if (coords.size() != values.size())
    throw shape_error("loom::from_coo: " + std::to_string(coords.size()) + " coordinates but " +
                      std::to_string(values.size()) + " values");
  std::vector<std::array<std::int64_t, N>> crd(coords.size());
  bool sorted = true;
  for (std::size_t e = 0; e < coords.size(); ++e) {
    for (std::size_t m = 0; m < N; ++m) {
      if (coords[e][m] < 0 || coords[e][m] >= shape[m])
        throw shape_error("loom::from_coo: entry " + std::to_string(e) + " has coordinate " +
                          detail::coords_to_string(coords[e]) + " outside the shape " +
                          detail::coords_to_string(shape) + " (mode " + std::to_string(m) + ")");
    }
    for (std::size_t k = 0; k < N; ++k) crd[e][k] = coords[e][Format::modes[k]];
    if (e > 0 && !(crd[e - 1] < crd[e])) sorted = false;
  }
  std::vector<T> vals(values);
  detail::sort_and_merge(crd, vals, policy, Format::modes, sorted);
  return detail::assemble_sorted<T, Format>(shape, crd, std::move(vals));
}

namespace detail {
/// Copies a dense array of `extent` (row-major) to `to`, cell c going to sum(c[k] * stride[k]).
template <class T, std::size_t N>
void permute_dense(const T* from, T* to, const std::array<std::int64_t, N>& extent,
                   const std::array<std::int64_t, N>& stride) {
  if constexpr (N == 2) {  // blocked, so that both sides stay in cache
    constexpr std::int64_t block = 32;
    for (std::int64_t r0 = 0; r0 < extent[0]; r0 += block)
      for (std::int64_t c0 = 0; c0 < extent[1]; c0 += block)
        for (std::int64_t r = r0; r < std::min(r0 + block, extent[0]); ++r)
          for (std::int64_t c = c0; c < std::min(c0 + block, extent[1]); ++c)
            to[r * stride[0] + c * stride[1]] = from[r * extent[1] + c];
  } else {
    std::int64_t total = 1;
    for (std::int64_t e : extent) total *= e;
    std::array<std::int64_t, N> c{};
    std::int64_t at = 0;
    for (std::int64_t x = 0; x < total; ++x) {
      to[at] = from[x];
      for (std::size_t k = N; k-- > 0;) {  // odometer
        at += stride[k];
        if (++c[k] < extent[k]) break;
        at -= c[k] * stride[k];
        c[k] = 0;
      }
    }
  }
}

template <class To, class T, class From, bool FromOwning>
basic_tensor<T, To, true> convert_entries(const basic_tensor<T, From, FromOwning>& other) {
  constexpr std::size_t N = To::order;
  if constexpr (N > 0 && From::all_dense && To::all_dense) {
    // dense to dense (a transposition): every cell moves to its place, nothing to sort
    basic_tensor<T, To, true> out(other.shape());
    std::array<std::int64_t, N> to_stride{}, extent{}, stride{};
    std::int64_t s = 1;
    for (std::size_t k = N; k-- > 0;) {
      to_stride[To::modes[k]] = s;
      s *= other.extent(To::modes[k]);
    }
    for (std::size_t k = 0; k < N; ++k) {  // per level of `other`
      extent[k] = other.extent(From::modes[k]);
      stride[k] = to_stride[From::modes[k]];
    }
    permute_dense(other.values().data(), out.values().data(), extent, stride);
    return out;
  }
  std::vector<std::array<std::int64_t, N>> crd;
  std::vector<T> vals;
  crd.reserve(static_cast<std::size_t>(other.nnz()));
  vals.reserve(static_cast<std::size_t>(other.nnz()));
  // padding zeros of a dense or banded innermost level are not entries; other stored zeros are
  constexpr bool drop_zeros = From::properties[N - 1].full || From::properties[N - 1].padded;
  bool sorted = true;
  other.for_each_stored([&](const auto& c, const T& v) {
    if (drop_zeros && v == semiring_traits<T>::zero()) return;
    std::array<std::int64_t, N> s{};
    for (std::size_t k = 0; k < N; ++k) s[k] = c[To::modes[k]];
    if (!crd.empty() && !(crd.back() < s)) sorted = false;
    crd.push_back(s);
    vals.push_back(v);
  });
  sort_and_merge(crd, vals, duplicates::sum, To::modes, sorted);
  return assemble_sorted<T, To>(other.shape(), crd, std::move(vals));
}
}  // namespace detail

/// The same entries in another format: `auto B = loom::convert<loom::csc>(A);`
template <storage_format To, class T, storage_format From, bool Owning>
tensor<T, To> convert(const basic_tensor<T, From, Owning>& from) {
  return tensor<T, To>(from);
}

}  // namespace loom

#endif  // LOOM_FORMAT_ASSEMBLE_HPP
