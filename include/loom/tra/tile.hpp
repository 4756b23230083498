// Defines loom::tra::tile<T, R>: a dense row-major array of rank R, the value of a tensor
// relation, and its loom views (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_TILE_HPP
#define LOOM_TRA_TILE_HPP

#include <loom/core/error.hpp>
#include <loom/core/semiring.hpp>
#include <loom/format/format.hpp>
#include <loom/format/levels/dense.hpp>
#include <loom/format/tensor.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace loom::tra {

template <std::size_t R> using shape_t = std::array<std::int64_t, R>;

template <std::size_t R> constexpr std::int64_t volume(const shape_t<R>& s) {
  std::int64_t v = 1;
  for (auto e : s) v *= e;
  return v;
}

template <std::size_t R> std::string to_string(const shape_t<R>& s) {
  std::string out = "(";
  for (std::size_t d = 0; d < R; ++d) {  // piece by piece: GCC 12 -Wrestrict at -O3
    if (d) out += ',';
    out += std::to_string(s[d]);
  }
  return out + ")";
}

/// A dense tile of rank R (the paper's array of type T^(r,b)), row-major: dimension 0 is the
/// outermost (rows of a matrix tile), dimension R-1 is contiguous.
template <class T, std::size_t R> class tile {
 public:
  using value_type = T;
  static constexpr std::size_t rank = R;
  using shape_type = shape_t<R>;

  tile() = default;
  /// An all-zero tile.
  explicit tile(const shape_type& shape) : shape_(shape), data_(zeros(shape)) {}
  tile(const shape_type& shape, std::vector<T> data) : shape_(shape), data_(std::move(data)) {
    if (static_cast<std::int64_t>(data_.size()) != checked_volume(shape))
      throw shape_error("loom::tra::tile: " + std::to_string(data_.size()) +
                        " values for a tile of shape " + to_string(shape));
  }

  const shape_type& shape() const { return shape_; }
  std::int64_t extent(std::size_t d) const { return shape_[d]; }
  std::int64_t size() const { return static_cast<std::int64_t>(data_.size()); }
  std::span<const T> data() const { return data_; }
  std::span<T> data() { return data_; }

  template <std::integral... Is>
    requires(sizeof...(Is) == R)
  T& operator()(Is... is) {
    return data_[offset({static_cast<std::int64_t>(is)...})];
  }
  template <std::integral... Is>
    requires(sizeof...(Is) == R)
  const T& operator()(Is... is) const {
    return data_[offset({static_cast<std::int64_t>(is)...})];
  }

  /// A loom view over this tile's buffer (format dense_n<R>, zero copies).
  auto view() { return make_view<T>(data_.data()); }
  auto view() const { return make_view<const T>(data_.data()); }
  /// A view whose dense levels carry the static extents B... (checked against the shape here):
  /// loom then rejects, at compile time, index notation whose extents disagree.
  template <std::size_t... B>
    requires(sizeof...(B) == R)
  auto static_view() {
    return make_static_view<T, B...>(data_.data());
  }
  template <std::size_t... B>
    requires(sizeof...(B) == R)
  auto static_view() const {
    return make_static_view<const T, B...>(data_.data());
  }

  friend bool operator==(const tile& a, const tile& b) {
    return a.shape_ == b.shape_ && a.data_ == b.data_;
  }

 private:
  /// The number of values of a tile of shape `s`; throws shape_error for a negative extent or
  /// a product past 64 bits (it would wrap, and the tile be made over too short a buffer).
  static std::int64_t checked_volume(const shape_type& s) {
    for (std::size_t d = 0; d < R; ++d)
      if (s[d] < 0)
        throw shape_error("loom::tra::tile: extent " + std::to_string(s[d]) + " of dimension " +
                          std::to_string(d) + " is negative");
    std::int64_t v = 1;
    for (std::size_t d = 0; d < R; ++d) {
      if (s[d] == 0) return 0;
      if (v > std::numeric_limits<std::int64_t>::max() / s[d]) v = -1;  // a later 0 still wins
      if (v > 0) v *= s[d];
    }
    if (v < 0)
      throw shape_error("loom::tra::tile: the volume of a tile of shape " + to_string(s) +
                        " overflows 64 bits");
    return v;
  }
  /// The values of an all-zero tile; running out of memory is a loom::error naming the shape.
  static std::vector<T> zeros(const shape_type& s) {
    const std::int64_t n = checked_volume(s);
    try {
      return std::vector<T>(static_cast<std::size_t>(n), semiring_traits<T>::zero());
    } catch (const std::bad_alloc&) {
    } catch (const std::length_error&) {
    }
    throw error("loom::tra::tile: out of memory for a tile of shape " + to_string(s) + " (" +
                std::to_string(n) + " values)");
  }
  std::size_t offset(const shape_type& c) const {
    std::int64_t o = 0;
    for (std::size_t d = 0; d < R; ++d) o = o * shape_[d] + c[d];
    return static_cast<std::size_t>(o);
  }
  template <class U> auto make_view(U* p) const {
    using fmt = dense_n<R>;
    typename loom::view<U, fmt>::level_storages levels{};
    [&]<std::size_t... D>(std::index_sequence<D...>) {
      ((std::get<D>(levels).extent = shape_[D]), ...);
    }(std::make_index_sequence<R>{});
    return loom::view<U, fmt>(shape_, levels, std::span<U>(p, data_.size()));
  }

  template <class U, std::size_t... B> auto make_static_view(U* p) const {
    using fmt = format<dense_level<B>...>;
    if (shape_ != shape_type{static_cast<std::int64_t>(B)...})
      throw shape_error("loom::tra::tile::static_view: the tile has shape " + to_string(shape_) +
                        ", not " + to_string(shape_type{static_cast<std::int64_t>(B)...}));
    typename loom::view<U, fmt>::level_storages levels{};
    [&]<std::size_t... D>(std::index_sequence<D...>) {
      ((std::get<D>(levels).extent = shape_[D]), ...);
    }(std::make_index_sequence<R>{});
    return loom::view<U, fmt>(shape_, levels, std::span<U>(p, data_.size()));
  }

  shape_type shape_{};
  std::vector<T> data_{};
};

/// A tile whose shape is part of its type (B...): products and sums of mismatched shapes do not
/// compile. Converts to and from `tile<T, R>` (the run-time shaped tile relations hold).
template <class T, std::size_t... B> class static_tile {
 public:
  static constexpr std::size_t rank = sizeof...(B);
  static constexpr shape_t<rank> shape{static_cast<std::int64_t>(B)...};
  static_tile() : t_(shape) {}
  /// From a run-time shaped tile of the same shape (throws shape_error otherwise).
  explicit static_tile(tile<T, rank> t) : t_(std::move(t)) {
    if (t_.shape() != shape)
      throw shape_error("loom::tra::static_tile: a tile of shape " + to_string(t_.shape()) +
                        " is not " + to_string(shape));
  }
  const tile<T, rank>& dynamic() const { return t_; }
  tile<T, rank>& dynamic() { return t_; }
  template <std::integral... Is> T& operator()(Is... is) { return t_(is...); }
  template <std::integral... Is> const T& operator()(Is... is) const { return t_(is...); }
  auto view() { return t_.template static_view<B...>(); }
  auto view() const { return t_.template static_view<B...>(); }
  friend bool operator==(const static_tile& a, const static_tile& b) { return a.t_ == b.t_; }

 private:
  tile<T, rank> t_;
};

}  // namespace loom::tra

#endif  // LOOM_TRA_TILE_HPP
