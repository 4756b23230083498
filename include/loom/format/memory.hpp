// Defines the memory-overlap test of tensors and views: which arrays a tensor reads, and whether
// an output's storage is also read by an operand (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MEMORY_HPP
#define LOOM_FORMAT_MEMORY_HPP

#include <loom/expr/visit.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>

namespace loom::detail {

// f(first, last): the bytes of one array, when it holds any.
template <class Array, class F> void visit_array_bytes(const Array& a, F& f) {
  if (a.size() == 0) return;
  const auto* first = reinterpret_cast<const std::byte*>(a.data());
  f(first, first + a.size() * sizeof(*a.data()));
}

/// Calls `f(first, last)` for the bytes of every array `t` reads: its values and its levels'
/// position, coordinate, bound, bit and hash arrays. Two tensors, or a tensor and a view of
/// someone's buffer, are the same data to a kernel exactly when these ranges meet.
template <class Tensor, class F> void for_each_array(const Tensor& t, F&& f) {
  if constexpr (requires { t.values().data(); }) visit_array_bytes(t.values(), f);
  if constexpr (requires {
                  Tensor::order;
                  typename Tensor::level_storages;
                }) {
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (..., [&](const auto& s) {
        if constexpr (requires { s.pos.data(); }) visit_array_bytes(s.pos, f);
        if constexpr (requires { s.crd.data(); }) visit_array_bytes(s.crd, f);
        if constexpr (requires { s.lo.data(); }) visit_array_bytes(s.lo, f);
        if constexpr (requires { s.bits.data(); }) visit_array_bytes(s.bits, f);
        if constexpr (requires { s.slot_pos.data(); }) visit_array_bytes(s.slot_pos, f);
        if constexpr (requires { s.table.data(); }) visit_array_bytes(s.table, f);
      }(t.template level<K>()));
    }(std::make_index_sequence<Tensor::order>{});
  }
}

// The byte ranges of a tensor's arrays, collected once (at most 1 + 4 per level).
template <class Tensor> struct byte_ranges {
  static constexpr std::size_t capacity = 1 + 4 * [] {
    if constexpr (requires { Tensor::order; })
      return Tensor::order;
    else
      return std::size_t{0};
  }();
  std::array<const std::byte*, 2 * capacity> bounds{};
  std::size_t count = 0;
  explicit byte_ranges(const Tensor& t) {
    for_each_array(t, [&](const std::byte* first, const std::byte* last) {
      if (count == capacity) return;
      bounds[2 * count] = first;
      bounds[2 * count + 1] = last;
      ++count;
    });
  }
};

// Two owning tensors never share an array (each holds its own vectors): only a view can alias.
template <class T>
inline constexpr bool owns_its_arrays = [] {
  if constexpr (requires { T::owning; })
    return static_cast<bool>(T::owning);
  else
    return false;
}();

/// Whether `a` and `b` share memory: the same object, or arrays that overlap by a byte or more
/// (two views of one buffer, a view of a tensor's own values).
template <class A, class B> bool shares_memory(const A& a, const B& b) {
  // Objects of unrelated types are never one object; comparing their addresses anyway lets
  // g++ -O3 assume, on the equal branch, that one is the other, and warn of reads past it.
  if constexpr (std::is_same_v<A, B> || std::is_base_of_v<A, B> || std::is_base_of_v<B, A>)
    if (static_cast<const void*>(&a) == static_cast<const void*>(&b)) return true;
  if constexpr (owns_its_arrays<A> && owns_its_arrays<B>) {
    return false;
  } else {
    const std::less<const std::byte*> before;
    const byte_ranges<A> ra(a);
    const byte_ranges<B> rb(b);
    for (std::size_t x = 0; x < ra.count; ++x)
      for (std::size_t y = 0; y < rb.count; ++y)
        if (before(ra.bounds[2 * x], rb.bounds[2 * y + 1]) &&
            before(rb.bounds[2 * y], ra.bounds[2 * x + 1]))
          return true;
    return false;
  }
}

/// Whether an operand of `rhs` reads storage that the output `out` writes.
template <class Out, class Rhs> bool aliases_output(const Out* out, const Rhs& rhs) {
  bool aliased = false;
  expr::for_each_access(rhs, [&](const auto& a, std::size_t) {
    aliased = aliased || shares_memory(*out, *a.tensor);
  });
  return aliased;
}

/// The operands of `rhs` that read the output's storage, named as explain() names tensors (the
/// tensor's name, or T<k> for the k-th access when unnamed), comma-separated.
template <class Out, class Rhs> std::string aliased_operands(const Out* out, const Rhs& rhs) {
  std::string names;
  expr::for_each_access(rhs, [&](const auto& a, std::size_t operand) {
    if (!shares_memory(*out, *a.tensor)) return;
    std::string name;
    if constexpr (requires { a.tensor->name(); }) name = std::string(a.tensor->name());
    if (name.empty()) name = "T" + std::to_string(operand);
    names += (names.empty() ? "" : ", ") + name;
  });
  return names;
}

}  // namespace loom::detail

#endif  // LOOM_FORMAT_MEMORY_HPP
