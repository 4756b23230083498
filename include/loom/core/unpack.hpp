// Defines loom::detail::unpack, std::apply for loom's own calls (core/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_UNPACK_HPP
#define LOOM_CORE_UNPACK_HPP

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace loom::detail {

template <class F, class Tuple, std::size_t... K>
constexpr decltype(auto) unpack_at(F& f, Tuple&& t, std::index_sequence<K...>) {
  return f(std::get<K>(static_cast<Tuple&&>(t))...);
}

/// `f(get<0>(t), get<1>(t), ...)`, as `std::apply(f, t)` for a callable object. libstdc++'s
/// std::apply also works out its noexcept through `is_nothrow_invocable` and calls through
/// `std::invoke`: nine class and function templates per use (docs/build-cost.md measures them).
template <class F, class Tuple> constexpr decltype(auto) unpack(F&& f, Tuple&& t) {
  return unpack_at(f, static_cast<Tuple&&>(t),
                   std::make_index_sequence<std::tuple_size_v<std::remove_cvref_t<Tuple>>>{});
}

}  // namespace loom::detail

#endif  // LOOM_CORE_UNPACK_HPP
