// Defines loom::statistics_cache: statistics per tensor, redone when storage changes
// (optimize/statistics/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_STATISTICS_STATISTICS_CACHE_HPP
#define LOOM_OPTIMIZE_STATISTICS_STATISTICS_CACHE_HPP

#include <loom/core/unpack.hpp>
#include <loom/format/tensor.hpp>
#include <loom/optimize/statistics/gather_statistics.hpp>
#include <loom/optimize/statistics/statistics.hpp>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace loom {

/// Remembers `loom::statistics` per tensor so repeated optimizer calls do not rescan it.
///
/// An entry is keyed by the tensor's address and checked against a *signature*: nnz, shape, and
/// the data pointer and size of the values array and of every level array (`pos`, `crd`,
/// `extent`). `get` recomputes when the signature differs. The signature catches every mutation
/// that reallocates or resizes storage, and assembling a new tensor at the same address; it does
/// NOT catch an in-place rewrite that keeps every array's address and size (for example writing
/// different coordinates into `crd` through `level<K>()`). Call `invalidate` after such edits.
/// Value-only edits need nothing: statistics are structural.
///
/// Not thread-safe; a returned reference stays valid until the next `get`, `invalidate` or
/// `clear` for that tensor.
class statistics_cache {
 public:
  /// Statistics of `t`, gathered now if not cached or if `t`'s signature changed.
  template <class T, storage_format Format, bool Owning>
  const statistics& get(const basic_tensor<T, Format, Owning>& t) {
    std::vector<std::uintptr_t> sig = signature(t);
    auto [it, inserted] = entries_.try_emplace(static_cast<const void*>(&t));
    if (!inserted && it->second.signature == sig) {
      ++hits_;
      return it->second.stats;
    }
    ++misses_;
    it->second.stats = gather_statistics(t);
    it->second.signature = std::move(sig);
    return it->second.stats;
  }

  /// Forgets `t` (its next `get` recomputes).
  template <class T, storage_format Format, bool Owning>
  void invalidate(const basic_tensor<T, Format, Owning>& t) {
    entries_.erase(static_cast<const void*>(&t));
  }
  /// Forgets every tensor.
  void clear() { entries_.clear(); }
  /// Number of cached tensors.
  std::size_t size() const { return entries_.size(); }
  /// `get` calls answered from the cache.
  std::int64_t hits() const { return hits_; }
  /// `get` calls that gathered statistics.
  std::int64_t misses() const { return misses_; }

 private:
  struct entry {
    std::vector<std::uintptr_t> signature;
    statistics stats;
  };

  template <class Array> static void add_array(std::vector<std::uintptr_t>& sig, const Array& a) {
    sig.push_back(reinterpret_cast<std::uintptr_t>(a.data()));
    sig.push_back(static_cast<std::uintptr_t>(a.size()));
  }

  template <class T, storage_format Format, bool Owning>
  static std::vector<std::uintptr_t> signature(const basic_tensor<T, Format, Owning>& t) {
    std::vector<std::uintptr_t> sig;
    append_signature(sig, t);
    return sig;
  }

  std::unordered_map<const void*, entry> entries_;
  std::int64_t hits_ = 0;
  std::int64_t misses_ = 0;

 public:
  /// Appends `t`'s signature (nnz, shape, the address and size of every array) to `sig`: what
  /// `get` compares, for caches of other results derived from a tensor's structure.
  template <class T, storage_format Format, bool Owning>
  static void append_signature(std::vector<std::uintptr_t>& sig,
                               const basic_tensor<T, Format, Owning>& t) {
    sig.push_back(static_cast<std::uintptr_t>(t.nnz()));
    for (std::int64_t e : t.shape()) sig.push_back(static_cast<std::uintptr_t>(e));
    add_array(sig, t.values());
    loom::detail::unpack(
        [&](const auto&... level) {
          (
              [&](const auto& l) {
                if constexpr (requires { l.pos; }) add_array(sig, l.pos);
                if constexpr (requires { l.crd; }) add_array(sig, l.crd);
                if constexpr (requires { l.extent; })
                  sig.push_back(static_cast<std::uintptr_t>(l.extent));
              }(level),
              ...);
        },
        t.levels());
  }
};

}  // namespace loom

#endif  // LOOM_OPTIMIZE_STATISTICS_STATISTICS_CACHE_HPP
