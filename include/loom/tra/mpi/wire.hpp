// Defines the wire form of a sparse tile (tra/mpi/): its key, its level arrays (positions,
// coordinates, ...) and values as raw bytes, never expanded to dense; packed_bytes gives the exact
// size. Formats whose levels are not plain arrays go as coordinates and values. Needs no MPI.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_MPI_WIRE_HPP
#define LOOM_TRA_MPI_WIRE_HPP

#include <loom/core/error.hpp>
#include <loom/format/assembly/assemble.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/tra/sparse_tiles.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom::tra::mpi {

namespace detail {
// Levels whose storage is arrays named pos, crd, lo, bits, slot_pos, table plus an `extent`: sent
// as those arrays. Any other level (adaptive, a storage mapping) sends its tile as coordinates
// and values, reassembled on arrival.
template <class Level> struct sends_level_arrays : std::false_type {};
template <std::size_t E> struct sends_level_arrays<dense_level<E>> : std::true_type {};
template <uniqueness U, class P, class C>
struct sends_level_arrays<compressed_level<U, P, C>> : std::true_type {};
template <uniqueness U, class C>
struct sends_level_arrays<singleton_level<U, C>> : std::true_type {};
template <class P, class C> struct sends_level_arrays<banded_level<P, C>> : std::true_type {};
template <class C> struct sends_level_arrays<bitmap_level<C>> : std::true_type {};
template <class P, class C> struct sends_level_arrays<hashed_level<P, C>> : std::true_type {};
template <class Format>
inline constexpr bool sends_arrays =
    boost::mp11::mp_all_of<typename Format::levels, sends_level_arrays>::value;

// Visits every array of a level storage, in a fixed order.
template <class Storage, class F> void for_each_level_array(Storage& s, F&& f) {
  if constexpr (requires { s.pos; }) f(s.pos);
  if constexpr (requires { s.crd; }) f(s.crd);
  if constexpr (requires { s.lo; }) f(s.lo);
  if constexpr (requires { s.bits; }) f(s.bits);
  if constexpr (requires { s.slot_pos; }) f(s.slot_pos);
  if constexpr (requires { s.table; }) f(s.table);
}

inline void put_bytes(std::vector<char>& buf, const void* p, std::size_t n) {
  const std::size_t at = buf.size();
  buf.resize(at + n);
  if (n) std::memcpy(buf.data() + at, p, n);
}
template <class X> void put(std::vector<char>& buf, const X& x) { put_bytes(buf, &x, sizeof(X)); }
template <class Array> void put_array(std::vector<char>& buf, const Array& a) {
  put(buf, static_cast<std::int64_t>(a.size()));
  put_bytes(buf, a.data(), a.size() * sizeof(*a.data()));
}

template <class X> struct is_std_array : std::false_type {};
template <class E, std::size_t N> struct is_std_array<std::array<E, N>> : std::true_type {};

// Reverses the bytes of a number, or of each number of a std::array: a field written on a
// machine of the other byte order. Values that are not numbers cannot be reversed.
template <class X> void swap_bytes(X& x) {
  if constexpr (std::is_arithmetic_v<X>) {
    char b[sizeof(X)];
    std::memcpy(b, &x, sizeof(X));
    std::reverse(b, b + sizeof(X));
    std::memcpy(&x, b, sizeof(X));
  } else if constexpr (is_std_array<X>::value) {
    for (auto& e : x) swap_bytes(e);
  } else {
    throw error(
        "loom::tra::mpi: a value that is not a number cannot be read in the other byte "
        "order");
  }
}

// Reads what put wrote, reversing each number's bytes when `swap` (the bytes come from a machine
// of the other byte order); a short buffer is a rank disagreeing on the matrix's type or format.
struct byte_reader {
  std::span<const char> buf;
  std::size_t at = 0;
  int from = 0;
  bool swap = false;
  void get_bytes(void* p, std::size_t n) {
    if (n > buf.size() - at)
      throw error("loom::tra::mpi: a tile from rank " + std::to_string(from) +
                  " ends early (ranks disagree on the matrix's value type or format)");
    if (n) std::memcpy(p, buf.data() + at, n);
    at += n;
  }
  template <class X> X get() {
    X x{};
    get_bytes(&x, sizeof(X));
    if (swap) swap_bytes(x);
    return x;
  }
  template <class X> void get_array(std::vector<X>& a) {
    const auto n = get<std::int64_t>();
    if (n < 0 || static_cast<std::size_t>(n) > (buf.size() - at) / sizeof(X))
      throw error("loom::tra::mpi: a tile from rank " + std::to_string(from) +
                  " declares more entries than it holds");
    a.resize(static_cast<std::size_t>(n));
    get_bytes(a.data(), a.size() * sizeof(X));
    if (swap)
      for (auto& e : a) swap_bytes(e);
  }
  bool done() const { return at == buf.size(); }
};
}  // namespace detail

/// Bytes of tile `t` with its key on the wire: two int64 keys, then each level array (an int64
/// length and its elements), each level's extent, and the values; for a level kept as
/// coordinates instead, an int64 count, two int32 coordinates and a value per entry.
template <class T, storage_format Format> std::size_t packed_bytes(const tensor<T, Format>& t) {
  static_assert(std::is_trivially_copyable_v<T>,
                "loom::tra::mpi: tiles must hold trivially copyable values to be sent");
  std::size_t n = 2 * sizeof(std::int64_t);
  if constexpr (detail::sends_arrays<Format>) {
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (..., [&](const auto& s) {
        if constexpr (requires { s.extent; }) n += sizeof(std::int64_t);
        detail::for_each_level_array(
            s, [&](const auto& a) { n += sizeof(std::int64_t) + a.size() * sizeof(*a.data()); });
      }(t.template level<K>()));
    }(std::make_index_sequence<Format::order>{});
    return n + sizeof(std::int64_t) + t.values().size() * sizeof(T);
  } else {
    return n + sizeof(std::int64_t) +
           static_cast<std::size_t>(t.nnz()) * (2 * sizeof(std::int32_t) + sizeof(T));
  }
}

/// The byte widths of the integer arrays of a tile in `Format` on the wire, in the order they are
/// sent (positions, coordinates, ... of each level); for a tile sent as coordinates, the two
/// int32 coordinates. Keys, lengths and extents are always int64.
template <class T, storage_format Format> std::vector<std::int64_t> wire_widths() {
  std::vector<std::int64_t> w;
  if constexpr (detail::sends_arrays<Format>) {
    typename tensor<T, Format>::level_storages levels;
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (..., detail::for_each_level_array(std::get<K>(levels), [&](const auto& a) {
         w.push_back(static_cast<std::int64_t>(sizeof(*a.data())));
       }));
    }(std::make_index_sequence<Format::order>{});
  } else {
    w = {sizeof(std::int32_t), sizeof(std::int32_t)};
  }
  return w;
}

namespace detail {
// A tile and its key (K int64s: two for a block matrix, more under a join's keys).
template <class T, storage_format Format, std::size_t Keys>
void pack_tile(std::vector<char>& buf, const std::array<std::int64_t, Keys>& key,
               const tensor<T, Format>& t) {
  put(buf, key);
  if constexpr (sends_arrays<Format>) {
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (..., [&](const auto& s) {
        if constexpr (requires { s.extent; }) put(buf, static_cast<std::int64_t>(s.extent));
        for_each_level_array(s, [&](const auto& a) { put_array(buf, a); });
      }(t.template level<K>()));
    }(std::make_index_sequence<Format::order>{});
    put_array(buf, t.values());
  } else {
    put(buf, t.nnz());
    t.for_each_stored([&](const auto& c, const T& v) {
      put(buf, static_cast<std::int32_t>(c[0]));
      put(buf, static_cast<std::int32_t>(c[1]));
      put(buf, v);
    });
  }
}

// One tile back from its wire form, checked like any tensor built from parts.
template <class T, storage_format Format, std::size_t Keys = 2>
std::pair<std::array<std::int64_t, Keys>, tensor<T, Format>> unpack_tile(
    byte_reader& in, const std::array<std::int64_t, 2>& tile_shape) {
  const auto key = in.get<std::array<std::int64_t, Keys>>();
  if constexpr (sends_arrays<Format>) {
    typename tensor<T, Format>::level_storages levels;
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (..., [&](auto& s) {
        if constexpr (requires { s.extent; }) s.extent = in.get<std::int64_t>();
        for_each_level_array(s, [&](auto& a) { in.get_array(a); });
      }(std::get<K>(levels)));
    }(std::make_index_sequence<Format::order>{});
    std::vector<T> values;
    in.get_array(values);
    return {key, tensor<T, Format>(tile_shape, std::move(levels), std::move(values))};
  } else {
    const auto n = in.get<std::int64_t>();
    std::vector<std::array<std::int64_t, 2>> coords(
        static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
    std::vector<T> values(coords.size());
    for (std::size_t e = 0; e < coords.size(); ++e) {
      coords[e] = {in.get<std::int32_t>(), in.get<std::int32_t>()};
      values[e] = in.get<T>();
    }
    return {key, from_coo<Format>(tile_shape, coords, values)};
  }
}

// Every tile in `buf` (parts from each rank at `offsets`) into `out`; a key already there is
// skipped (a tile sent by two ranks is the same tile).
// `swap`: the bytes come from a machine of the other byte order.
template <class T, storage_format Format>
void unpack_tiles(sparse_relation<T, Format>& out, const std::vector<char>& buf,
                  const std::vector<std::size_t>& offsets, bool swap = false) {
  for (std::size_t r = 0; r + 1 < offsets.size(); ++r) {
    byte_reader in{std::span<const char>(buf.data() + offsets[r], offsets[r + 1] - offsets[r]), 0,
                   static_cast<int>(r), swap};
    while (!in.done()) {
      auto [key, t] = unpack_tile<T, Format>(in, out.tile_shape());
      if (!out.find(key)) out.insert(key, std::move(t));
    }
  }
}
}  // namespace detail

}  // namespace loom::tra::mpi

#endif  // LOOM_TRA_MPI_WIRE_HPP
