// Defines assembly: loom::from_coo, empty tensors, and conversion between formats (format/assembly/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_ASSEMBLY_ASSEMBLE_HPP
#define LOOM_FORMAT_ASSEMBLY_ASSEMBLE_HPP

#include <loom/core/algorithms.hpp>
#include <loom/core/config.hpp>
#include <loom/core/error.hpp>
#include <loom/format/format_name.hpp>
#include <loom/format/tensor.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <new>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
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
template <std::size_t N> std::string coords_to_string(const std::array<std::int64_t, N>& c) {
  std::string s(1, '(');
  for (std::size_t m = 0; m < N; ++m) {
    if (m != 0) s.push_back(',');
    s.append(std::to_string(c[m]));
  }
  s.push_back(')');
  return s;
}

inline constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();

/// a * b, or INT64_MAX when it overflows (a, b >= 0).
constexpr std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > int64_max / b ? int64_max : a * b;
}
/// a + b, or INT64_MAX when it overflows (a, b >= 0).
constexpr std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  return a > int64_max - b ? int64_max : a + b;
}

/// `3 x 4 x 5`
template <std::size_t N> std::string shape_to_string(const std::array<std::int64_t, N>& shape) {
  return extents_to_string(shape);
}

/// An upper bound (saturating) of the positions and values `Format` allocates for `shape`
/// holding `nnz` entries: `pos` arrays, dense and bitmap levels and values; coordinates are not
/// counted, nor the padding of a banded level (it depends on the entries: the level checks it).
template <class Format>
std::int64_t format_storage_bound(const std::array<std::int64_t, Format::order>& shape,
                                  std::int64_t nnz) {
  std::int64_t total = 0;
  std::int64_t count = 1;  // positions of the level above
  boost::mp11::mp_for_each<boost::mp11::mp_iota_c<Format::order>>([&](auto lv) {
    using level = boost::mp11::mp_at_c<typename Format::levels, decltype(lv)::value>;
    const std::int64_t extent = shape[Format::modes[decltype(lv)::value]];
    if constexpr (level::properties.full || is_bitmap_level<level>) {
      count = saturating_mul(count, extent);  // a position per coordinate of every parent
    } else if constexpr (!level::properties.segmented) {
      total = saturating_add(total, saturating_add(count, 1));  // pos
      count = std::min(saturating_mul(count, extent), nnz);
    }
  });
  return saturating_add(total, count);  // values
}

/// Throws `loom::error` for an allocation that failed while building a tensor: names the
/// shape, the format and about how many positions and values it asked for.
template <class T, class Format>
[[noreturn]] void out_of_memory(const std::array<std::int64_t, Format::order>& shape,
                                std::int64_t nnz, const char* who) {
  const std::int64_t asked = format_storage_bound<Format>(shape, nnz);
  throw error(std::string(who) + ": out of memory building a " + extents_to_string(shape) +
              " tensor in " + format_name<Format>() + " with " + std::to_string(nnz) +
              " entries (about " +
              (asked == int64_max ? std::string("2^63") : std::to_string(asked)) +
              " positions and values of " + std::to_string(sizeof(T)) + " bytes asked for)");
}

// assemble_sorted without the translation of allocation failures
template <class T, class Format>
basic_tensor<T, Format, true> assemble_sorted_unguarded(
    const std::array<std::int64_t, Format::order>& shape,
    const std::vector<std::array<std::int64_t, Format::order>>& crd, std::vector<T>&& vals,
    std::int64_t max_positions) {
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
    const level_build in{Format::modes[K], extent, parent_count, parent, coord, max_positions};
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

/// Builds every level from entries sorted and unique in storage order (coords in storage order).
/// A level that pads may create at most `max_positions` positions (readers: their limit).
/// Allocation failure is a `loom::error` naming the shape, the format and the size.
template <class T, class Format>
basic_tensor<T, Format, true> assemble_sorted(
    const std::array<std::int64_t, Format::order>& shape,
    const std::vector<std::array<std::int64_t, Format::order>>& crd, std::vector<T>&& vals,
    std::int64_t max_positions) {
  try {
    return assemble_sorted_unguarded<T, Format>(shape, crd, std::move(vals), max_positions);
  } catch (const std::bad_alloc&) {
    out_of_memory<T, Format>(shape, static_cast<std::int64_t>(crd.size()), "loom::tensor");
  } catch (const std::length_error&) {
    out_of_memory<T, Format>(shape, static_cast<std::int64_t>(crd.size()), "loom::tensor");
  }
}

/// The stable order of entries (coords in storage order, non-negative) by their coordinates:
/// none to find when they are sorted, a merge when they are two sorted runs (an output and the
/// entries `+=` adds to it), else an order by one 64-bit key per entry (the coordinates in mixed
/// radix) where the coordinates' ranges multiply to under 2^64: a radix sort from 4096 entries,
/// a sort below; else a comparison sort of the coordinate arrays.
template <std::size_t N>
std::vector<std::size_t> stable_order(const std::vector<std::array<std::int64_t, N>>& crd) {
  const std::size_t nnz = crd.size();
  std::vector<std::size_t> perm(nnz);
  std::size_t descents = 0, run = 0;
  for (std::size_t e = 1; e < nnz; ++e)
    if (crd[e] < crd[e - 1]) ++descents, run = e;
  if (descents == 0) {
    std::iota(perm.begin(), perm.end(), std::size_t{0});
    return perm;
  }
  if (descents == 1) {
    auto first = perm.begin();
    std::size_t a = 0, b = run;
    while (a < run && b < nnz) *first++ = crd[b] < crd[a] ? b++ : a++;
    while (a < run) *first++ = a++;
    while (b < nnz) *first++ = b++;
    return perm;
  }
  std::array<std::uint64_t, N> range{};
  for (const auto& c : crd)
    for (std::size_t k = 0; k < N; ++k)
      range[k] = std::max(range[k], static_cast<std::uint64_t>(c[k]) + 1);
  bool fits = true;
  std::uint64_t cells = 1;
  for (std::size_t k = 0; k < N && fits; ++k) {
    if (range[k] > 1 && cells > std::numeric_limits<std::uint64_t>::max() / range[k])
      fits = false;
    else
      cells *= std::max<std::uint64_t>(range[k], 1);
  }
  if (fits) {
    std::vector<std::pair<std::uint64_t, std::size_t>> keyed(nnz);  // (key, entry)
    for (std::size_t e = 0; e < nnz; ++e) {
      std::uint64_t x = 0;
      for (std::size_t k = 0; k < N; ++k) x = x * range[k] + static_cast<std::uint64_t>(crd[e][k]);
      keyed[e] = {x, e};
    }
    constexpr std::size_t radix_from = 4096;  // below, the count arrays cost more than a sort
    if (nnz < radix_from) {
      loom::detail::sort_range(keyed.begin(), keyed.end());  // the entry breaks ties: stable
    } else {
      // least significant digit first, 11 bits a pass over the bits the keys use: stable, and
      // linear in the entries (10M entries of a 1M x 1M matrix: 4 passes, not log n)
      constexpr int digit = 11;
      constexpr std::uint64_t mask = (std::uint64_t{1} << digit) - 1;
      const int bits = std::bit_width(cells - 1);
      std::vector<std::pair<std::uint64_t, std::size_t>> next(nnz);
      std::vector<std::size_t> count(std::size_t{1} << digit);
      for (int shift = 0; shift < bits; shift += digit) {
        std::fill(count.begin(), count.end(), std::size_t{0});
        for (const auto& x : keyed) ++count[(x.first >> shift) & mask];
        std::size_t at = 0;
        for (std::size_t& c : count) at += std::exchange(c, at);
        for (const auto& x : keyed) next[count[(x.first >> shift) & mask]++] = x;
        keyed.swap(next);
      }
    }
    for (std::size_t e = 0; e < nnz; ++e) perm[e] = keyed[e].second;
    return perm;
  }
  std::iota(perm.begin(), perm.end(), std::size_t{0});
  std::stable_sort(perm.begin(), perm.end(),
                   [&](std::size_t a, std::size_t b) { return crd[a] < crd[b]; });
  return perm;
}

/// Sorts entries (coords already permuted to storage order) and merges duplicates by `policy`.
template <class T, std::size_t N>
void sort_and_merge(std::vector<std::array<std::int64_t, N>>& crd, std::vector<T>& vals,
                    duplicates policy, const std::array<std::size_t, N>& modes,
                    bool already_sorted) {
  const std::size_t nnz = crd.size();
  if (!already_sorted) {
    const std::vector<std::size_t> perm = stable_order(crd);
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
        throw duplicate_error("loom::from_coo: duplicate coordinate " + coords_to_string(logical) +
                              " (use loom::duplicates::sum or ::last to accept duplicates)");
      }
      vals[out - 1] =
          policy == duplicates::sum ? semiring_traits<T>::add(vals[out - 1], vals[e]) : vals[e];
    } else {
      crd[out] = crd[e];
      vals[out] = vals[e];
      ++out;
    }
  }
  crd.resize(out);
  vals.resize(out);
}

// The sorts of 2-d entries (double values for sort_and_merge): under separate compilation,
// compiled once in loom::runtime (docs/build-cost.md).
using entries_2d = std::vector<std::array<std::int64_t, 2>>;
#if !LOOM_HEADER_ONLY
extern template std::vector<std::size_t> stable_order<2>(const entries_2d&);
extern template void sort_and_merge<double, 2>(entries_2d&, std::vector<double>&, duplicates,
                                               const std::array<std::size_t, 2>&, bool);
#elif defined(LOOM_BUILDING_RUNTIME)
template std::vector<std::size_t> stable_order<2>(const entries_2d&);
template void sort_and_merge<double, 2>(entries_2d&, std::vector<double>&, duplicates,
                                        const std::array<std::size_t, 2>&, bool);
#endif
}  // namespace detail

namespace detail {
/// Entries in storage order, sorted and merged: what `assemble_sorted` takes.
template <class T, std::size_t N> struct sorted_entries {
  std::vector<std::array<std::int64_t, N>> coords;
  std::vector<T> values;
};

/// from_coo's checks, sort and merge without the assembly (the readers count what is left).
template <storage_format Format, class T>
sorted_entries<T, Format::order> sort_coo(
    const std::array<std::int64_t, Format::order>& shape,
    const std::vector<std::array<std::int64_t, Format::order>>& coords,
    const std::vector<T>& values, duplicates policy) {
  constexpr std::size_t N = Format::order;
  if (coords.size() != values.size())
    throw shape_error("loom::from_coo: " + std::to_string(coords.size()) + " coordinates but " +
                      std::to_string(values.size()) + " values");
  sorted_entries<T, N> out{std::vector<std::array<std::int64_t, N>>(coords.size()), values};
  bool sorted = true;
  for (std::size_t e = 0; e < coords.size(); ++e) {
    for (std::size_t m = 0; m < N; ++m) {
      if (coords[e][m] < 0 || coords[e][m] >= shape[m])
        throw shape_error("loom::from_coo: entry " + std::to_string(e) + " has coordinate " +
                          coords_to_string(coords[e]) + " outside the shape " +
                          coords_to_string(shape) + " (mode " + std::to_string(m) + ")");
    }
    for (std::size_t k = 0; k < N; ++k) out.coords[e][k] = coords[e][Format::modes[k]];
    if (e > 0 && !(out.coords[e - 1] < out.coords[e])) sorted = false;
  }
  sort_and_merge(out.coords, out.values, policy, Format::modes, sorted);
  return out;
}
}  // namespace detail

/// Builds a tensor in `Format` from coordinates in any order; `coords[e]` are logical
/// coordinates of `values[e]`. Throws `shape_error` for coordinates outside `shape`,
/// `duplicate_error` under `duplicates::error`, `overflow_error` when a width is too small, and
/// `loom::error` when memory runs out (naming the shape, the format and the size).
template <storage_format Format, class T>
tensor<T, Format> from_coo(const std::array<std::int64_t, Format::order>& shape,
                           const std::vector<std::array<std::int64_t, Format::order>>& coords,
                           const std::vector<T>& values, duplicates policy = duplicates::error) {
  auto sorted = detail::sort_coo<Format>(shape, coords, values, policy);
  return detail::assemble_sorted<T, Format>(shape, sorted.coords, std::move(sorted.values),
                                            detail::int64_max);
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

#endif  // LOOM_FORMAT_ASSEMBLY_ASSEMBLE_HPP
