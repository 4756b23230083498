// Defines the memory-overlap test of tensors and views: which arrays a tensor reads, and whether
// an output's storage is also read by an operand (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MEMORY_HPP
#define LOOM_FORMAT_MEMORY_HPP

#include <loom/expr/visit.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>

namespace loom::detail {

// f(first, last): the bytes of one array, when it holds any.
template <class Array, class F>
void visit_array_bytes(const Array& a, F& f) {
  if (a.size() == 0) return;
  const auto* first = reinterpret_cast<const std::byte*>(a.data());
  f(first, first + a.size() * sizeof(*a.data()));
}

/// Calls `f(first, last)` for the bytes of every array `t` reads: its values and its levels'
/// position, coordinate, bound, bit and hash arrays. Two tensors, or a tensor and a view of
/// someone's buffer, are the same data to a kernel exactly when these ranges meet.
template <class Tensor, class F>
void for_each_array(const Tensor& t, F&& f) {
  if constexpr (requires { t.values().data(); }) visit_array_bytes(t.values(), f);
  if constexpr (requires { Tensor::order; typename Tensor::level_storages; }) {
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

/// Whether `a` and `b` share memory: the same object, or arrays that overlap by a byte or more
/// (two views of one buffer, a view of a tensor's own values).
template <class A, class B>
bool shares_memory(const A& a, const B& b) {
  if (static_cast<const void*>(&a) == static_cast<const void*>(&b)) return true;
  const std::less<const std::byte*> before;
  bool overlap = false;
  for_each_array(a, [&](const std::byte* a0, const std::byte* a1) {
    for_each_array(b, [&](const std::byte* b0, const std::byte* b1) {
      overlap = overlap || (before(a0, b1) && before(b0, a1));
    });
  });
  return overlap;
}

/// Whether an operand of `rhs` reads storage that the output `out` writes.
template <class Out, class Rhs>
bool aliases_output(const Out* out, const Rhs& rhs) {
  bool aliased = false;
  expr::for_each_access(rhs, [&](const auto& a, std::size_t) {
    aliased = aliased || shares_memory(*out, *a.tensor);
  });
  return aliased;
}

/// The operands of `rhs` that read the output's storage, named as explain() names tensors (the
/// tensor's name, or T<k> for the k-th access when unnamed), comma-separated.
template <class Out, class Rhs>
std::string aliased_operands(const Out* out, const Rhs& rhs) {
  std::string names;
  expr::for_each_access(rhs, [&](const auto& a, std::size_t k) {
    if (!shares_memory(*out, *a.tensor)) return;
    std::string name;
    if constexpr (requires { a.tensor->name(); }) name = std::string(a.tensor->name());
    if (name.empty()) name = "T" + std::to_string(k);
    names += (names.empty() ? "" : ", ") + name;
  });
  return names;
}

}  // namespace loom::detail

#endif  // LOOM_FORMAT_MEMORY_HPP
