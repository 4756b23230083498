// Defines loom::tra::tile<T, R>: a dense row-major array of rank R, the value of a tensor
// relation, and its loom views (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_TILE_HPP
#define LOOM_TRA_TILE_HPP

#include <loom/core/error.hpp>
#include <loom/core/semiring.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace loom::tra {

template <std::size_t R>
using shape_t = std::array<std::int64_t, R>;

template <std::size_t R>
constexpr std::int64_t volume(const shape_t<R>& s) {
  std::int64_t v = 1;
  for (auto e : s) v *= e;
  return v;
}

template <std::size_t R>
std::string to_string(const shape_t<R>& s) {
  std::string out = "(";
  for (std::size_t d = 0; d < R; ++d) out += (d ? "," : "") + std::to_string(s[d]);
  return out + ")";
}

/// A dense tile of rank R (the paper's array of type T^(r,b)), row-major: dimension 0 is the
/// outermost (rows of a matrix tile), dimension R-1 is contiguous.
template <class T, std::size_t R>
class tile {
 public:
  using value_type = T;
  static constexpr std::size_t rank = R;
  using shape_type = shape_t<R>;

  tile() = default;
  /// An all-zero tile.
  explicit tile(const shape_type& shape)
      : shape_(shape), data_(static_cast<std::size_t>(checked_volume(shape)),
                             semiring_traits<T>::zero()) {}
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

  friend bool operator==(const tile& a, const tile& b) {
    return a.shape_ == b.shape_ && a.data_ == b.data_;
  }

 private:
  static std::int64_t checked_volume(const shape_type& s) {
    for (std::size_t d = 0; d < R; ++d)
      if (s[d] < 0)
        throw shape_error("loom::tra::tile: extent " + std::to_string(s[d]) + " of dimension " +
                          std::to_string(d) + " is negative");
    return volume(s);
  }
  std::size_t offset(const shape_type& c) const {
    std::int64_t o = 0;
    for (std::size_t d = 0; d < R; ++d) o = o * shape_[d] + c[d];
    return static_cast<std::size_t>(o);
  }
  template <class U>
  auto make_view(U* p) const {
    using fmt = dense_n<R>;
    typename loom::view<U, fmt>::level_storages levels{};
    [&]<std::size_t... D>(std::index_sequence<D...>) {
      ((std::get<D>(levels).extent = shape_[D]), ...);
    }(std::make_index_sequence<R>{});
    return loom::view<U, fmt>(shape_, levels, std::span<U>(p, data_.size()));
  }

  shape_type shape_{};
  std::vector<T> data_{};
};

}  // namespace loom::tra

#endif  // LOOM_TRA_TILE_HPP
