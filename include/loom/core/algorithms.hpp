// Defines loom::detail::sort_range, stable_sort_range and append_range: std::sort,
// std::stable_sort and a vector's range insert called through function templates that are not
// constexpr (core vocabulary). clang instantiates a constexpr function template, which all three
// are in C++20, as soon as a template body names it with non-dependent arguments; loom's
// functions compiled once (LOOM_DEF) are templates of an unused int, so each such call cost
// every unit that includes loom its instantiation, whether the unit called the function or not.
// Through these wrappers the call is compiled where it runs.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_ALGORITHMS_HPP
#define LOOM_CORE_ALGORITHMS_HPP

#include <algorithm>

namespace loom::detail {

template <class It> void sort_range(It first, It last) { std::sort(first, last); }
template <class It, class Less> void sort_range(It first, It last, Less less) {
  std::sort(first, last, less);
}
template <class It, class Less> void stable_sort_range(It first, It last, Less less) {
  std::stable_sort(first, last, less);
}
/// Appends the elements of `from` to the vector `to`.
template <class Vector, class Range> void append_range(Vector& to, const Range& from) {
  to.insert(to.end(), from.begin(), from.end());
}

}  // namespace loom::detail

#endif  // LOOM_CORE_ALGORITHMS_HPP
