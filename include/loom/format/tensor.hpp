// Defines loom::basic_tensor, loom::tensor and loom::view: level arrays plus values (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_TENSOR_HPP
#define LOOM_FORMAT_TENSOR_HPP

#include <loom/core/config.hpp>
#include <loom/core/semiring.hpp>
#include <loom/expr/access.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/format/format.hpp>
#include <loom/format/format_name.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/integer_sequence.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <concepts>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace loom {

template <class T, storage_format Format, bool Owning> class basic_tensor;

namespace detail {
// Defined in assemble.hpp.
template <class T, class Format>
basic_tensor<T, Format, true> assemble_sorted(
    const std::array<std::int64_t, Format::order>& shape,
    const std::vector<std::array<std::int64_t, Format::order>>& crd, std::vector<T>&& vals,
    std::int64_t max_positions = std::numeric_limits<std::int64_t>::max());
template <class To, class T, class From, bool FromOwning>
basic_tensor<T, To, true> convert_entries(const basic_tensor<T, From, FromOwning>& from);
// Defined in appender.hpp: refills an output's arrays in place, keeping their capacity.
template <class T, class Format> class appender;

// A number that changes whenever its tensor may have changed: fresh (process-wide) at
// construction, on copy and on move (both sides), and on every non-const access to storage.
// Caches of data derived from a tensor (a transposed copy) key on its address and version.
class version_stamp {
 public:
  version_stamp() noexcept : v_(next()) {}
  version_stamp(const version_stamp&) noexcept : v_(next()) {}
  version_stamp(version_stamp&& other) noexcept : v_(next()) { other.bump(); }
  version_stamp& operator=(const version_stamp&) noexcept {
    bump();
    return *this;
  }
  version_stamp& operator=(version_stamp&& other) noexcept {
    bump();
    other.bump();
    return *this;
  }
  void bump() noexcept { v_ = next(); }
  std::uint64_t value() const noexcept { return v_; }

 private:
  static std::uint64_t next() noexcept {
    static std::atomic<std::uint64_t> counter{0};
    return counter.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  std::uint64_t v_;
};

// The operand a tensor's levels were last copied from (its address and version) and the
// tensor's own version right after: while both versions hold, the levels are still equal, and
// an output with an operand's pattern is written again without copying it (appender.hpp).
struct pattern_memo {
  const void* from = nullptr;
  std::uint64_t from_version = 0, own_version = 0;
  bool operator==(const pattern_memo&) const = default;
};

/// Checks the level arrays of a tensor against its shape, level by level from the root: each
/// level's `check_storage` in O(1) (array lengths against the positions of the level above) and,
/// when `Deep`, its `validate_storage` in O(nnz) (monotone `pos`, sorted in-range coordinates);
/// then the length of the values. A level without these hooks (a user level, a mapping) ends
/// the checks. Throws `shape_error` saying what is wrong (the caller names the tensor). `Deep`
/// is a template argument: the O(1) checks every tensor built from parts runs compile none of
/// the O(nnz) ones (`loom::validate`'s).
template <bool Deep, class Format, class Levels>
void check_level_storages(const std::array<std::int64_t, Format::order>& shape,
                          const Levels& levels, std::size_t values) {
  std::int64_t parents = 1;
  bool known = true;
  boost::mp11::mp_for_each<boost::mp11::mp_iota_c<Format::order>>([&](auto lv) {
    constexpr std::size_t K = decltype(lv)::value;
    using level = boost::mp11::mp_at_c<typename Format::levels, K>;
    const auto& st = std::get<K>(levels);
    const level_check in{Format::modes[K], shape[Format::modes[K]], parents};
    if constexpr (requires { level::check_storage(st, in); }) {
      if (!known) return;
      parents = level::check_storage(st, in);
      if constexpr (Deep && requires { level::validate_storage(st, in); })
        level::validate_storage(st, in);
    } else {
      known = false;
    }
  });
  if (known && Format::order > 0 && static_cast<std::int64_t>(values) != parents)
    throw shape_error("values has " + std::to_string(values) + " entries, but the levels hold " +
                      std::to_string(parents) + " positions");
}

/// `3 x 4 x 5`
template <std::size_t N> std::string extents_to_string(const std::array<std::int64_t, N>& shape) {
  std::string s;
  for (std::size_t m = 0; m < N; ++m) {
    if (m != 0) s.append(" x ");
    s.append(std::to_string(shape[m]));
  }
  return s;
}
}  // namespace detail

/// A tensor of `T` stored in `Format`; `Owning` tensors hold their arrays, views borrow them.
/// Use the aliases `loom::tensor<T, Format>` and `loom::view<T, Format>`.
template <class T, storage_format Format, bool Owning = true> class basic_tensor {
  template <class, storage_format, bool> friend class basic_tensor;
  template <class, class> friend class detail::appender;

 public:
  using value_type = T;
  using format_type = Format;
  static constexpr std::size_t order = Format::order;
  static constexpr bool owning = Owning;
  using shape_type = std::array<std::int64_t, order>;
  using coords_type = std::array<std::int64_t, order>;
  template <class Level> using storage_of = typename Level::template storage<Owning>;
  using level_storages =
      boost::mp11::mp_rename<boost::mp11::mp_transform<storage_of, typename Format::levels>,
                             std::tuple>;
  using values_array = std::conditional_t<Owning, std::vector<T>, std::span<T>>;

  /// An empty tensor of shape 0 x ... x 0 (a mode stored by a level of static extent has that
  /// extent).
  basic_tensor()
    requires Owning
      : basic_tensor(empty_shape()) {}

  /// An all-zero tensor: dense levels are allocated and zero-filled, sparse levels are empty.
  explicit basic_tensor(const shape_type& shape)
    requires Owning
      : shape_(shape) {
    check_shape();
    build_empty();
  }
  /// A view or tensor from its parts (used by assembly and the `*_view` factories). Checked in
  /// O(1) per level: extents not negative, each level's arrays as long as the positions of the
  /// level above require, as many values as positions (`shape_error` otherwise). The O(nnz)
  /// checks (sorted coordinates, monotone `pos`) are `loom::validate`'s.
  basic_tensor(const shape_type& shape, level_storages levels, values_array values)
      : shape_(shape), levels_(std::move(levels)), values_(std::move(values)) {
    check_shape();
    check_parts();
  }

  basic_tensor(const basic_tensor&) = default;
  basic_tensor& operator=(const basic_tensor&) = default;
  /// Moving leaves an owning `other` a valid empty tensor: every extent 0 (or its level's static
  /// extent), no entries, empty arrays (an empty `pos` holds no entries under any parent), so a
  /// moved-from tensor may still be read, or used in a kernel. Nothing is allocated. A moved-from
  /// view is unchanged.
  /// A format whose positions array sits below levels of static extent only (`dense_level<4>`
  /// over `compressed`) keeps those extents when emptied, so its empty state would need arrays:
  /// moving such a tensor copies it instead, leaving the source as it was.
  basic_tensor(basic_tensor&& other) noexcept(!empty_needs_arrays)
      : shape_(other.shape_),
        levels_(std::move(other.levels_)),
        values_(std::move(other.values_)),
        name_(std::move(other.name_)),
        version_(std::move(other.version_)) {
    if constexpr (Owning) other.left_after_move(*this);
  }
  basic_tensor& operator=(basic_tensor&& other) noexcept(!empty_needs_arrays) {
    if (this != &other) {
      shape_ = other.shape_;
      levels_ = std::move(other.levels_);
      values_ = std::move(other.values_);
      name_ = std::move(other.name_);
      version_ = std::move(other.version_);
      if constexpr (Owning) other.left_after_move(*this);
    }
    return *this;
  }

  /// Conversion from any other format (and from views): same entries, new storage.
  template <storage_format Other, bool OtherOwning>
    requires Owning && (Other::order == order)
  explicit basic_tensor(const basic_tensor<T, Other, OtherOwning>& other)
      : basic_tensor(detail::convert_entries<Format>(other)) {
    name_ = other.name();
  }

  const shape_type& shape() const { return shape_; }
  std::int64_t extent(std::size_t mode) const { return shape_[mode]; }
  /// Number of stored entries: the stored values, explicit zeros included; for dense formats,
  /// the product of extents. An innermost level that pads may count its entries itself (a
  /// bitmap: its set bits); otherwise the padding of an innermost padded level (a band's gaps)
  /// is not counted: its nonzero values are (an explicit zero inside a band is padding).
  std::int64_t nnz() const {
    if constexpr (order > 0) {
      using last = boost::mp11::mp_at_c<typename Format::levels, order - 1>;
      if constexpr (requires { last::stored_count(std::get<order - 1>(levels_)); }) {
        return last::stored_count(std::get<order - 1>(levels_));
      } else if constexpr (last::properties.padded && !last::properties.full) {
        return static_cast<std::int64_t>(
            std::count_if(values_.begin(), values_.end(),
                          [](const T& v) { return !(v == semiring_traits<T>::zero()); }));
      }
    }
    return static_cast<std::int64_t>(values_.size());
  }

  template <std::size_t K> const auto& level() const { return std::get<K>(levels_); }
  template <std::size_t K> auto& level() {
    version_.bump();
    return std::get<K>(levels_);
  }
  const level_storages& levels() const { return levels_; }
  std::span<const T> values() const { return {values_.data(), values_.size()}; }
  std::span<T> values()
    requires(Owning || !std::is_const_v<T>)
  {
    version_.bump();
    return {values_.data(), values_.size()};
  }
  /// Changes whenever the tensor may have changed (any non-const access to its storage, an
  /// assignment, a move); with its address, identifies unchanged contents for caches.
  std::uint64_t version() const { return version_.value(); }
  /// Extent of the mode stored at level K.
  template <std::size_t K> std::int64_t level_extent() const { return shape_[Format::modes[K]]; }

  /// A name used in error messages and `explain`; empty by default.
  const std::string& name() const { return name_; }
  basic_tensor& set_name(std::string name) {
    name_ = std::move(name);
    return *this;
  }

  /// The value at logical coordinates `c...` (zero when absent); a reference for dense formats.
  template <std::integral... Cs>
    requires(sizeof...(Cs) == order)
  decltype(auto) at(Cs... cs) {
    if constexpr (Format::all_dense) version_.bump();  // a reference: may be written
    return at_impl(coords_type{static_cast<std::int64_t>(cs)...});
  }
  template <std::integral... Cs>
    requires(sizeof...(Cs) == order)
  T at(Cs... cs) const {
    return const_cast<basic_tensor*>(this)->at_value(coords_type{static_cast<std::int64_t>(cs)...});
  }
  T at_coords(const coords_type& c) const { return const_cast<basic_tensor*>(this)->at_value(c); }

  /// Calls `f(coords, value)` for every stored entry, in storage order; coords are logical.
  template <class F> void for_each_stored(F&& f) const {
    coords_type c{};
    if constexpr (order == 0) {
      if (!values_.empty()) f(c, values_[0]);
    } else {
      walk<0>(0, 1, c, f);
    }
  }

  /// `A(i, j)`: an access expression to use in index notation.
  template <index_variable... Is> auto operator()(Is...) {
    return expr::make_access<order, basic_tensor, std::remove_cvref_t<Is>...>(this);
  }
  template <index_variable... Is> auto operator()(Is...) const {
    return expr::make_access<order, const basic_tensor, std::remove_cvref_t<Is>...>(this);
  }

  /// Drops all entries (sparse) or zero-fills (dense), keeping the shape.
  void clear()
    requires Owning
  {
    version_.bump();
    build_empty();
  }

 private:
  // the arrays against the shape, O(1) per level (the O(nnz) checks: loom::validate)
  void check_parts() const {
    try {
      detail::check_level_storages<false, Format>(shape_, levels_, values_.size());
    } catch (const shape_error& e) {
      throw shape_error(std::string(Owning ? "loom::tensor" : "loom::view") + " of shape " +
                        detail::extents_to_string(shape_) + " in " + format_name<Format>() + ": " +
                        e.what());
    }
  }
  void check_shape() const {
    for (std::size_t m = 0; m < order; ++m)
      if (shape_[m] < 0)
        throw shape_error(std::string(Owning ? "loom::tensor" : "loom::view") +
                          ": extent of mode " + std::to_string(m) + " is negative (" +
                          std::to_string(shape_[m]) + ")");
  }

  // 0 for every mode, except a mode stored by a level of static extent
  static shape_type empty_shape() {
    shape_type shape{};
    [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      (
          [&] {
            using level = boost::mp11::mp_at_c<typename Format::levels, Ks>;
            if constexpr (level::static_extent != dynamic_extent)
              shape[Format::modes[Ks]] = static_cast<std::int64_t>(level::static_extent);
          }(),
          ...);
    }(std::make_index_sequence<order>{});
    return shape;
  }
  // whether some level with a pos array has only levels of static extent above it
  template <std::size_t K>
  static constexpr bool has_pos_array = requires(
      typename boost::mp11::mp_at_c<typename Format::levels, K>::template storage<true> st) {
    st.pos;
  };
  template <std::size_t K>
  static constexpr bool static_extent_at =
      boost::mp11::mp_at_c<typename Format::levels, K>::static_extent != dynamic_extent;

 public:
  /// Whether moving copies (see the move constructor).
  static constexpr bool empty_needs_arrays = []<std::size_t... Ks>(std::index_sequence<Ks...>) {
    bool needs = false, static_above = true;
    ((needs = needs || (Ks > 0 && static_above && has_pos_array<Ks>),
      static_above = static_above && static_extent_at<Ks>),
     ...);
    return needs;
  }(std::make_index_sequence<order>{});

 private:
  void left_after_move(const basic_tensor& moved_to) {
    if constexpr (empty_needs_arrays) {
      levels_ = moved_to.levels_;
      values_ = moved_to.values_;
      name_ = moved_to.name_;
    } else {
      become_empty();
    }
  }
  // the moved-from state: the empty shape, every array empty (nothing allocated: a kernel run
  // again moves its result into its output and must not allocate), stored extents matching
  void become_empty() noexcept {
    shape_ = empty_shape();
    levels_ = level_storages{};
    values_ = values_array{};
    [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      (
          [&] {
            auto& st = std::get<Ks>(levels_);
            if constexpr (requires { st.extent = std::int64_t{}; })
              st.extent = shape_[Format::modes[Ks]];
          }(),
          ...);
    }(std::make_index_sequence<order>{});
  }

  // out of line: a kernel clears its output on its error paths, and this code inlined there
  // cost the kernel's loops registers
  LOOM_NOINLINE void build_empty() {
    if constexpr (order == 0) {
      values_.assign(1, semiring_traits<T>::zero());
    } else {
      auto empty = detail::assemble_sorted<T, Format>(shape_, {}, std::vector<T>{});
      levels_ = std::move(empty.levels_);
      values_ = std::move(empty.values_);
    }
  }

  // every level is walked through its cursor, in storage order (built-in and user levels alike)
  template <std::size_t K>
  void walk(std::int64_t begin, std::int64_t end, coords_type& c, auto& f) const {
    using level = boost::mp11::mp_at_c<typename Format::levels, K>;
    constexpr std::size_t mode = Format::modes[K];
    auto cur =
        detail::iterate_or_empty<level, search_strategy::linear>(std::get<K>(levels_), begin, end);
    for (; cur.valid(); cur.next()) {
      if constexpr (requires { cur.ready(); })
        if (!cur.ready()) continue;
      c[mode] = cur.index();
      const level_range r = cur.children();
      if constexpr (K + 1 == order)
        f(static_cast<const coords_type&>(c), values_[static_cast<std::size_t>(r.begin)]);
      else
        walk<K + 1>(r.begin, r.end, c, f);
    }
  }

  // Returns the position of `c` (storage coordinates in logical order), or -1.
  std::int64_t locate(const coords_type& c) const {
    for (std::size_t m = 0; m < order; ++m)
      if (c[m] < 0 || c[m] >= shape_[m])
        throw shape_error("loom::tensor::at: coordinate " + std::to_string(c[m]) + " of mode " +
                          std::to_string(m) + " is outside the extent " +
                          std::to_string(shape_[m]) + (name_.empty() ? "" : " of " + name_));
    if constexpr (order == 0) {
      return values_.empty() ? -1 : 0;
    } else {
      return locate_level<0>(0, 1, c);
    }
  }

  // a random-access level locates; any other is searched with its cursor
  template <std::size_t K>
  std::int64_t locate_level(std::int64_t begin, std::int64_t end, const coords_type& c) const {
    using level = boost::mp11::mp_at_c<typename Format::levels, K>;
    const std::int64_t i = c[Format::modes[K]];
    auto cur =
        detail::iterate_or_empty<level, search_strategy::binary>(std::get<K>(levels_), begin, end);
    level_range r{};
    if constexpr (level_with_locate<level>) {
      r = cur.locate(i);
    } else {
      cur.seek(i);
      if constexpr (requires { cur.ready(); })
        while (cur.valid() && !cur.ready() && cur.index() <= i) cur.next();
      if (cur.valid() && cur.index() == i) r = cur.children();
    }
    if (r.empty()) return -1;
    if constexpr (K + 1 == order)
      return r.begin;
    else
      return locate_level<K + 1>(r.begin, r.end, c);
  }

  T at_value(const coords_type& c) {
    const std::int64_t p = locate(c);
    return p < 0 ? semiring_traits<T>::zero() : values_[static_cast<std::size_t>(p)];
  }
  decltype(auto) at_impl(const coords_type& c) {
    if constexpr (Format::all_dense && (Owning || !std::is_const_v<T>)) {
      return static_cast<T&>(values_[static_cast<std::size_t>(locate(c))]);
    } else {
      return at_value(c);
    }
  }

  shape_type shape_{};
  level_storages levels_{};
  values_array values_{};
  std::string name_{};
  detail::version_stamp version_{};
  detail::pattern_memo pattern_memo_{};
};

/// An owning tensor: `loom::tensor<double, loom::csr> A({m, n});`
template <class T, storage_format Format> using tensor = basic_tensor<T, Format, true>;

/// A zero-copy view over caller buffers: see `csr_view`, `dense_vector_view`.
template <class T, storage_format Format> using view = basic_tensor<T, Format, false>;

namespace detail {
template <class X> struct is_basic_tensor : std::false_type {};
template <class T, class F, bool O>
struct is_basic_tensor<basic_tensor<T, F, O>> : std::true_type {};
}  // namespace detail

/// Satisfied by `loom::tensor` and `loom::view` types.
template <class X>
concept tensor_type = detail::is_basic_tensor<std::remove_cvref_t<X>>::value;

}  // namespace loom

// Out-of-class members (assembly, conversion) need the complete class; see assemble.hpp.
#include <loom/format/assembly/assemble.hpp>

#endif  // LOOM_FORMAT_TENSOR_HPP
