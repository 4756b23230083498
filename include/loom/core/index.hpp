// Defines loom::index, the index variables (attributes) of index notation (core vocabulary).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_INDEX_HPP
#define LOOM_CORE_INDEX_HPP

#include <loom/core/fixed_string.hpp>

#include <string_view>
#include <type_traits>

namespace loom {

/// An index variable: an empty type named by a string. `constexpr loom::index<"i"> i;`
template <fixed_string Name> struct index {
  static constexpr std::string_view name = Name.view();
};

namespace detail {
template <class T> struct is_index : std::false_type {};
template <fixed_string Name> struct is_index<index<Name>> : std::true_type {};
}  // namespace detail

/// Satisfied by `loom::index<"...">` types.
template <class T>
concept index_variable = detail::is_index<std::remove_cvref_t<T>>::value;

}  // namespace loom

#endif  // LOOM_CORE_INDEX_HPP
