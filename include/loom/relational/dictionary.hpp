// Defines loom::relational::dictionary: strings encoded as dense, order-preserving codes
// (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_DICTIONARY_HPP
#define LOOM_RELATIONAL_DICTIONARY_HPP

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace loom::relational {

/// The distinct strings of a column, sorted, so that code order is string order: a string
/// range or equality is a code range, and a string key is a tensor coordinate.
class dictionary {
 public:
  dictionary() = default;
  /// A dictionary of `words` (sorted and deduplicated here).
  explicit dictionary(std::vector<std::string> words) : words_(std::move(words)) {
    std::sort(words_.begin(), words_.end());
    words_.erase(std::unique(words_.begin(), words_.end()), words_.end());
  }

  std::int64_t size() const { return static_cast<std::int64_t>(words_.size()); }
  const std::string& word(std::int64_t code) const { return words_[static_cast<std::size_t>(code)]; }
  const std::vector<std::string>& words() const { return words_; }

  /// The code of `s`, or nullopt when `s` does not occur.
  std::optional<std::int64_t> code(std::string_view s) const {
    const auto it = std::lower_bound(words_.begin(), words_.end(), s);
    if (it == words_.end() || *it != s) return std::nullopt;
    return static_cast<std::int64_t>(it - words_.begin());
  }
  /// The first code whose string is >= s (size() when none): string ranges as code ranges.
  std::int64_t lower_bound(std::string_view s) const {
    return static_cast<std::int64_t>(std::lower_bound(words_.begin(), words_.end(), s) -
                                     words_.begin());
  }

 private:
  std::vector<std::string> words_;
};

namespace detail {
/// Builds a dictionary while reading: strings get provisional codes in order of appearance;
/// `finish` sorts them and returns the map from provisional to final codes.
class dictionary_builder {
 public:
  std::int64_t add(std::string_view s) {
    const auto it = index_.find(s);
    if (it != index_.end()) return it->second;
    const auto code = static_cast<std::int64_t>(words_.size());
    words_.emplace_back(s);
    index_.emplace(words_.back(), code);
    return code;
  }
  /// The sorted dictionary; `remap[provisional] = final`.
  dictionary finish(std::vector<std::int64_t>& remap) {
    std::vector<std::int64_t> order(words_.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<std::int64_t>(k);
    std::sort(order.begin(), order.end(),
              [&](std::int64_t a, std::int64_t b) { return words_[a] < words_[b]; });
    remap.assign(words_.size(), 0);
    std::vector<std::string> sorted;
    sorted.reserve(words_.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
      remap[static_cast<std::size_t>(order[k])] = static_cast<std::int64_t>(k);
      sorted.push_back(std::move(words_[static_cast<std::size_t>(order[k])]));
    }
    words_.clear();
    index_.clear();
    return dictionary(std::move(sorted));
  }

 private:
  std::vector<std::string> words_;
  struct hash {
    using is_transparent = void;  // lookups by string_view allocate nothing
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::int64_t, hash, std::equal_to<>> index_;
};
}  // namespace detail

}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_DICTIONARY_HPP
