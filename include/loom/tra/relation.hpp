// Defines loom::tra::relation<T, K, R>: a tensor relation, the set of (key, tile) pairs of the
// TRA paper (the TRA paper), with its key bounds, tile shape and integrity checks (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_RELATION_HPP
#define LOOM_TRA_RELATION_HPP

#include <loom/core/error.hpp>
#include <loom/tra/tile.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace loom::tra {

template <std::size_t K> using key_array = std::array<std::int64_t, K>;

/// A tensor relation R^(k, r, b): keys of arity K below `bounds()` (0 <= key_d < bound_d), each
/// with one tile of rank R and the relation's common shape (notes §2.1: no ragged tiles).
/// Tuples are kept ordered by key; uniqueness (one tile per key) is enforced on insert.
template <class T, std::size_t K, std::size_t R> class relation {
 public:
  using value_type = T;
  static constexpr std::size_t key_arity = K;
  static constexpr std::size_t rank = R;
  using key_type = key_array<K>;
  using tile_type = tile<T, R>;
  using map_type = std::map<key_type, tile_type>;
  /// The relation of the same tiles under K2 keys (what a pre-aggregation adds a key to).
  template <std::size_t K2> using with_key_arity = relation<T, K2, R>;

  relation() = default;
  /// Throws shape_error for a negative key bound or tile extent.
  relation(const key_type& bounds, const shape_t<R>& tile_shape)
      : bounds_(bounds), tile_shape_(tile_shape) {
    for (std::size_t d = 0; d < K; ++d)
      if (bounds_[d] < 0)
        throw shape_error("loom::tra::relation: key bounds " + to_string(bounds_) + ": bound " +
                          std::to_string(d) + " is negative");
    for (std::size_t d = 0; d < R; ++d)
      if (tile_shape_[d] < 0)
        throw shape_error("loom::tra::relation: tile shape " + to_string(tile_shape_) +
                          ": extent " + std::to_string(d) + " is negative");
  }

  const key_type& bounds() const { return bounds_; }
  const shape_t<R>& tile_shape() const { return tile_shape_; }
  std::int64_t size() const { return static_cast<std::int64_t>(tuples_.size()); }
  bool empty() const { return tuples_.empty(); }
  auto begin() const { return tuples_.begin(); }
  auto end() const { return tuples_.end(); }
  const map_type& tuples() const { return tuples_; }

  /// Adds (key, tile); throws on a key out of bounds, a tile of another shape, or a second tile
  /// for the same key (the uniqueness constraint).
  void insert(const key_type& key, tile_type t) {
    check_key(key, "insert");
    if (t.shape() != tile_shape_)
      throw shape_error("loom::tra::relation::insert: tile of shape " + to_string(t.shape()) +
                        " in a relation of tile shape " + to_string(tile_shape_));
    if (!tuples_.emplace(key, std::move(t)).second)
      throw duplicate_error("loom::tra::relation::insert: key " + to_string(key) +
                            " is already present (uniqueness)");
  }
  /// The tile of `key`, or nullptr.
  const tile_type* find(const key_type& key) const {
    auto it = tuples_.find(key);
    return it == tuples_.end() ? nullptr : &it->second;
  }
  tile_type* find(const key_type& key) {
    auto it = tuples_.find(key);
    return it == tuples_.end() ? nullptr : &it->second;
  }
  const tile_type& at(const key_type& key) const {
    if (auto* t = find(key)) return *t;
    throw shape_error("loom::tra::relation::at: no tile with key " + to_string(key));
  }
  /// Folds `t` into the tile of `key` with `op(existing, t)` (in place when op has
  /// `accumulate(existing, t)`), or inserts it when the key is new.
  template <class Op> void merge(const key_type& key, const tile_type& t, Op&& op) {
    check_key(key, "merge");
    auto it = tuples_.find(key);
    if (it == tuples_.end()) {
      tuples_.emplace(key, t);
    } else if constexpr (requires { op.accumulate(it->second, t); }) {
      op.accumulate(it->second, t);
    } else {
      it->second = op(it->second, t);
    }
  }
  /// The tile of `key`, inserted as all-zero when absent.
  tile_type& get_or_zero(const key_type& key) {
    check_key(key, "get_or_zero");
    return tuples_.try_emplace(key, tile_shape_).first->second;
  }

  /// Number of keys of the full box, prod bounds (the paper's Card under full-box keys).
  std::int64_t box_size() const { return volume(bounds_); }
  /// Every key of the box is present (stronger than continuity; notes §2.3).
  bool is_full_box() const { return size() == box_size(); }
  /// For every present key, every key' <= key is present ("no holes", notes §2.3).
  bool is_continuous() const {
    for (const auto& [key, t] : tuples_) {
      (void)t;
      key_type lo{};
      bool ok = true;
      for_each_key_below(key, lo, 0, ok);
      if (!ok) return false;
    }
    return true;
  }

  friend bool operator==(const relation& a, const relation& b) {
    return a.bounds_ == b.bounds_ && a.tile_shape_ == b.tile_shape_ && a.tuples_ == b.tuples_;
  }

 private:
  void check_key(const key_type& key, const char* who) const {
    for (std::size_t d = 0; d < K; ++d)
      if (key[d] < 0 || key[d] >= bounds_[d])
        throw shape_error(std::string("loom::tra::relation::") + who + ": key " + to_string(key) +
                          " is outside the bounds " + to_string(bounds_));
  }
  void for_each_key_below(const key_type& top, key_type& c, std::size_t d, bool& ok) const {
    if (!ok) return;
    if (d == K) {
      if (!tuples_.count(c)) ok = false;
      return;
    }
    for (c[d] = 0; c[d] <= top[d] && ok; ++c[d]) for_each_key_below(top, c, d + 1, ok);
  }

  key_type bounds_{};
  shape_t<R> tile_shape_{};
  map_type tuples_{};
};

}  // namespace loom::tra

#endif  // LOOM_TRA_RELATION_HPP
