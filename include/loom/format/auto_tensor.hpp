// Defines loom::auto_tensor: an output whose format each assignment chooses from the estimated
// fill (Galley's output formats: dense, bitmap, hashed or sorted), readable afterwards as an
// operand in whichever format it holds (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_AUTO_TENSOR_HPP
#define LOOM_FORMAT_AUTO_TENSOR_HPP

#include <loom/core/error.hpp>
#include <loom/core/index.hpp>
#include <loom/expr/access.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/format/alternatives.hpp>
#include <loom/format/format.hpp>
#include <loom/format/format_name.hpp>
#include <loom/format/levels/bitmap.hpp>
#include <loom/format/levels/hashed.hpp>
#include <loom/format/tensor.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

namespace loom {

// Declared in loom::enums and brought into loom: its enumerators, named like the levels
// loom::hashed, loom::bitmap and loom::dense, would shadow them there (GCC 12 -Wshadow).
namespace enums {
/// The formats an auto_tensor may hold, in Galley's order of fill (Galley).
enum class auto_format { sorted, hashed, bitmap, dense };
}  // namespace enums
using enums::auto_format;

/// "sorted", "hashed", "bitmap", "dense".
inline const char* auto_format_name(auto_format f) {
  switch (f) {
    case auto_format::sorted:
      return "sorted";
    case auto_format::hashed:
      return "hashed";
    case auto_format::bitmap:
      return "bitmap";
    case auto_format::dense:
      return "dense";
  }
  return "?";
}

/// A vector (N = 1) or matrix (N = 2) whose format is chosen by each assignment into it
/// (`C(i, j) = e`): dense above 50% estimated fill, a bitmap (values in a dense array and a bit
/// per cell, Galley's bytemap) above 5%, otherwise sorted (sparse_vector, csr) when the kernel
/// writes it in order and hashed (located in O(1)) when it writes out of order. `explain` says
/// why; `reason()` keeps the last assignment's. `+=` keeps the format held. As an operand,
/// `C(i, j)` reads the format it holds now (every format's kernel is compiled).
template <class T, std::size_t N> class auto_tensor {
  static_assert(N == 1 || N == 2, "loom::auto_tensor: order 1 or 2 (a vector or a matrix)");

 public:
  using value_type = T;
  static constexpr std::size_t order = N;
  using sorted_type = tensor<T, std::conditional_t<N == 1, sparse_vector, csr>>;
  using hashed_type = tensor<T, std::conditional_t<N == 1, format<hashed>, format<dense, hashed>>>;
  using bitmap_type = tensor<T, std::conditional_t<N == 1, format<bitmap>, format<dense, bitmap>>>;
  using dense_type = tensor<T, dense_n<N>>;
  /// indexed by auto_format
  using held_types = std::tuple<sorted_type, hashed_type, bitmap_type, dense_type>;
  static constexpr std::size_t count = 4;
  /// For the expression's static traits; a kernel reads the format held.
  using format_type = typename sorted_type::format_type;
  using shape_type = std::array<std::int64_t, N>;

  /// Empty, sorted, of the given shape.
  explicit auto_tensor(const shape_type& shape) : held_(std::in_place_index<0>, shape) {}

  /// The format held now.
  auto_format held_format() const { return static_cast<auto_format>(held_.index()); }
  /// Why the last assignment chose it (empty before the first).
  const std::string& reason() const { return reason_; }
  std::int64_t nnz() const {
    return std::visit([](const auto& t) { return t.nnz(); }, held_);
  }
  std::int64_t extent(std::size_t mode) const {
    return std::visit([&](const auto& t) { return t.extent(mode); }, held_);
  }
  shape_type shape() const {
    return std::visit([](const auto& t) { return shape_type(t.shape()); }, held_);
  }
  /// The value at `coords` (zero where nothing is stored).
  template <class... Cs>
    requires(sizeof...(Cs) == N)
  T at(Cs... coords) const {
    return std::visit([&](const auto& t) { return t.at(coords...); }, held_);
  }
  /// `f(tensor)` on the tensor held, in its own type.
  template <class F> decltype(auto) visit(F&& f) const { return std::visit(f, held_); }
  const std::string& name() const { return name_; }
  void set_name(std::string n) {
    name_ = std::move(n);
    std::visit([&](auto& t) { t.set_name(name_); }, held_);
  }

  // The alternatives protocol (exec/alternatives.hpp): the format held is the one to read.
  bool available(std::size_t k) const { return held_.index() == k; }
  static std::string format_name(std::size_t k) {
    static const std::string names[] = {loom::format_name<typename sorted_type::format_type>(),
                                        loom::format_name<typename hashed_type::format_type>(),
                                        loom::format_name<typename bitmap_type::format_type>(),
                                        loom::format_name<typename dense_type::format_type>()};
    return names[k];
  }
  template <std::size_t K> const auto& get() const { return std::get<K>(held_); }

  /// The tensor of format F, made (empty, keeping the shape and name) unless held already; the
  /// driver writes into it.
  template <auto_format F> auto& hold() {
    constexpr auto k = static_cast<std::size_t>(F);
    if (held_.index() != k) {
      const shape_type s = shape();
      held_.template emplace<k>(s);
      std::get<k>(held_).set_name(name_);
    }
    return std::get<k>(held_);
  }
  void set_reason(std::string why) { reason_ = std::move(why); }

  /// `C(i, j)`: as an output, the assignment chooses the format; as an operand, the format held.
  template <index_variable... Is> auto operator()(Is...) {
    return expr::make_access<N, auto_tensor, std::remove_cvref_t<Is>...>(this);
  }
  template <index_variable... Is> auto operator()(Is...) const {
    return expr::make_access<N, const auto_tensor, std::remove_cvref_t<Is>...>(this);
  }

 private:
  std::variant<sorted_type, hashed_type, bitmap_type, dense_type> held_;
  std::string name_, reason_;
};

template <class T> inline constexpr bool is_auto_tensor_v = false;
template <class T, std::size_t N> inline constexpr bool is_auto_tensor_v<auto_tensor<T, N>> = true;
template <class T, std::size_t N>
inline constexpr bool is_auto_tensor_v<const auto_tensor<T, N>> = true;
/// An auto_tensor read as an operand: one variant per format, the one held runs.
template <class T, std::size_t N> inline constexpr bool is_alternatives_v<auto_tensor<T, N>> = true;

}  // namespace loom

#endif  // LOOM_FORMAT_AUTO_TENSOR_HPP
