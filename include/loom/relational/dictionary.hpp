// Defines loom::relational::dictionary: strings encoded as dense, order-preserving codes
// (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_DICTIONARY_HPP
#define LOOM_RELATIONAL_DICTIONARY_HPP

#include <loom/core/config.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loom::relational {

namespace detail {
class dictionary_builder;
}

/// The distinct strings of a column, sorted, so that code order is string order: a string
/// range or equality is a code range, and a string key is a tensor coordinate.
class dictionary {
 public:
  dictionary() = default;
  /// A dictionary of `words` (sorted and deduplicated here).
  LOOM_DECL explicit dictionary(std::vector<std::string> words);

  std::int64_t size() const { return static_cast<std::int64_t>(words_.size()); }
  const std::string& word(std::int64_t code) const {
    return words_[static_cast<std::size_t>(code)];
  }
  const std::vector<std::string>& words() const { return words_; }

  /// The code of `s`, or nullopt when `s` does not occur.
  LOOM_DECL std::optional<std::int64_t> code(std::string_view s) const;
  /// The first code whose string is >= s (size() when none): string ranges as code ranges.
  LOOM_DECL std::int64_t lower_bound(std::string_view s) const;

 private:
  friend class detail::dictionary_builder;
  struct sorted_unique {};
  dictionary(std::vector<std::string> words, sorted_unique) : words_(std::move(words)) {}

  std::vector<std::string> words_;
};

namespace detail {
/// Builds a dictionary while reading: strings get provisional codes in order of appearance;
/// `finish` sorts them and returns the map from provisional to final codes. Lookups go through
/// an open-addressing table of (hash, code), so a repeated string costs one hash and, almost
/// always, one comparison.
class dictionary_builder {
 public:
  std::int64_t add(std::string_view s) {
    if (2 * (words_.size() + 1) > slots_.size()) grow();
    const std::uint64_t h = std::hash<std::string_view>{}(s);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = static_cast<std::size_t>(h) & mask;; i = (i + 1) & mask) {
      slot& sl = slots_[i];
      if (sl.code < 0) {
        sl = {h, static_cast<std::int64_t>(words_.size())};
        words_.emplace_back(s);
        return sl.code;
      }
      if (sl.hash == h && words_[static_cast<std::size_t>(sl.code)] == s) return sl.code;
    }
  }
  /// The sorted dictionary; `remap[provisional] = final`.
  LOOM_DECL dictionary finish(std::vector<std::int64_t>& remap);

 private:
  struct slot {
    std::uint64_t hash = 0;
    std::int64_t code = -1;  // -1: empty
  };
  LOOM_DECL void grow();

  std::vector<std::string> words_;
  std::vector<slot> slots_;  // a power of two, at most half full
};
}  // namespace detail

#if LOOM_HEADER_ONLY
LOOM_DEF dictionary::dictionary(std::vector<std::string> words) : words_(std::move(words)) {
  std::sort(words_.begin(), words_.end());
  words_.erase(std::unique(words_.begin(), words_.end()), words_.end());
}

LOOM_DEF std::optional<std::int64_t> dictionary::code(std::string_view s) const {
  const auto it = std::lower_bound(words_.begin(), words_.end(), s);
  if (it == words_.end() || *it != s) return std::nullopt;
  return static_cast<std::int64_t>(it - words_.begin());
}

LOOM_DEF std::int64_t dictionary::lower_bound(std::string_view s) const {
  return static_cast<std::int64_t>(std::lower_bound(words_.begin(), words_.end(), s) -
                                   words_.begin());
}

namespace detail {
LOOM_DEF dictionary dictionary_builder::finish(std::vector<std::int64_t>& remap) {
  // sorted by the first 16 bytes as two big-endian integers (byte order, as std::string
  // compares), the whole strings only where those agree
  struct keyed {
    std::uint64_t hi, lo;
    std::int64_t code;
  };
  auto prefix = [](const std::string& w, std::size_t from) {
    std::uint64_t x = 0;
    for (std::size_t k = from; k < from + 8; ++k)
      x = x << 8 | (k < w.size() ? static_cast<unsigned char>(w[k]) : 0u);
    return x;
  };
  std::vector<keyed> order(words_.size());
  for (std::size_t k = 0; k < order.size(); ++k)
    order[k] = {prefix(words_[k], 0), prefix(words_[k], 8), static_cast<std::int64_t>(k)};
  std::sort(order.begin(), order.end(), [&](const keyed& a, const keyed& b) {
    if (a.hi != b.hi) return a.hi < b.hi;
    if (a.lo != b.lo) return a.lo < b.lo;
    return words_[static_cast<std::size_t>(a.code)] < words_[static_cast<std::size_t>(b.code)];
  });
  remap.assign(words_.size(), 0);
  std::vector<std::string> sorted;
  sorted.reserve(words_.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    remap[static_cast<std::size_t>(order[k].code)] = static_cast<std::int64_t>(k);
    sorted.push_back(std::move(words_[static_cast<std::size_t>(order[k].code)]));
  }
  words_.clear();
  slots_.clear();
  return dictionary(std::move(sorted), dictionary::sorted_unique{});  // sorted, distinct
}

LOOM_DEF void dictionary_builder::grow() {
  std::vector<slot> old = std::move(slots_);
  slots_.assign(std::max<std::size_t>(64, 2 * old.size()), slot{});
  const std::size_t mask = slots_.size() - 1;
  for (const slot& sl : old)
    if (sl.code >= 0) {
      std::size_t i = static_cast<std::size_t>(sl.hash) & mask;
      while (slots_[i].code >= 0) i = (i + 1) & mask;
      slots_[i] = sl;
    }
}
}  // namespace detail
#endif  // LOOM_HEADER_ONLY

}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_DICTIONARY_HPP
