// loom single header: everything <loom/loom.hpp> includes, in one file. Do not edit:
// generated from include/ by tools/amalgamate.py.
// SPDX-License-Identifier: BSL-1.0
// loom version 0.1.0
// Needs Boost.Hana and Boost.MP11 (Boost >= 1.74) on the include path, and C++20.
#define LOOM_SINGLE_INCLUDE 1
// ---- begin <loom/loom.hpp>
// The whole of loom: index notation over sparse and dense tensors, compiled to fused loops.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_LOOM_HPP
#define LOOM_LOOM_HPP

// ---- begin <loom/version.hpp>
// Defines loom's version macros (core vocabulary).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_VERSION_HPP
#define LOOM_VERSION_HPP

#define LOOM_VERSION_MAJOR 0
#define LOOM_VERSION_MINOR 1
#define LOOM_VERSION_PATCH 0
#define LOOM_VERSION (LOOM_VERSION_MAJOR * 10000 + LOOM_VERSION_MINOR * 100 + LOOM_VERSION_PATCH)

#endif  // LOOM_VERSION_HPP
// ---- end <loom/version.hpp>

// ---- begin <loom/core.hpp>
// Umbrella header of core/: index names, semirings, errors, configuration.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_HPP
#define LOOM_CORE_HPP

// ---- begin <loom/core/config.hpp>
// Defines loom's configuration macros (core vocabulary).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_CONFIG_HPP
#define LOOM_CORE_CONFIG_HPP

#if defined(__GNUC__) || defined(__clang__)
#  define LOOM_FORCE_INLINE inline __attribute__((always_inline))
#else
#  define LOOM_FORCE_INLINE inline
#endif

#include <cstddef>

namespace loom {
/// Extent value meaning "known only at run time".
inline constexpr std::size_t dynamic_extent = static_cast<std::size_t>(-1);
}  // namespace loom

#endif  // LOOM_CORE_CONFIG_HPP
// ---- end <loom/core/config.hpp>
// ---- begin <loom/core/error.hpp>
// Defines loom::error and its subclasses, the runtime errors of the API (core vocabulary).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_ERROR_HPP
#define LOOM_CORE_ERROR_HPP

#include <stdexcept>
#include <string>

namespace loom {

/// Base of every runtime error loom throws; `what()` names the file and line, or the tensor,
/// mode and extents involved.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A file could not be opened or read.
class io_error : public error {
 public:
  using error::error;
};

/// A file's content is malformed; the message has the form `file:line: what`.
class parse_error : public error {
 public:
  using error::error;
};

/// Operand extents disagree, a coordinate is out of range, or a shape is invalid.
class shape_error : public error {
 public:
  using error::error;
};

/// A position or coordinate does not fit the level's integer width.
class overflow_error : public error {
 public:
  using error::error;
};

/// Duplicate coordinates under `loom::duplicates::error`.
class duplicate_error : public error {
 public:
  using error::error;
};

}  // namespace loom

#endif  // LOOM_CORE_ERROR_HPP
// ---- end <loom/core/error.hpp>
// ---- begin <loom/core/fixed_string.hpp>
// Defines loom::fixed_string, a string usable as a template argument (core vocabulary).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_FIXED_STRING_HPP
#define LOOM_CORE_FIXED_STRING_HPP

#include <cstddef>
#include <string_view>

namespace loom {

/// A string literal usable as a non-type template argument: `loom::index<"i">`.
template <std::size_t N>
struct fixed_string {
  char chars[N]{};
  constexpr fixed_string(const char (&text)[N]) {  // NOLINT: implicit by design
    for (std::size_t k = 0; k < N; ++k) chars[k] = text[k];
  }
  constexpr std::string_view view() const { return {chars, N - 1}; }
};

}  // namespace loom

#endif  // LOOM_CORE_FIXED_STRING_HPP
// ---- end <loom/core/fixed_string.hpp>
// ---- begin <loom/core/index.hpp>
// Defines loom::index, the index variables (attributes) of index notation (core vocabulary).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_INDEX_HPP
#define LOOM_CORE_INDEX_HPP


#include <string_view>
#include <type_traits>

namespace loom {

/// An index variable: an empty type named by a string. `constexpr loom::index<"i"> i;`
template <fixed_string Name>
struct index {
  static constexpr std::string_view name = Name.view();
};

namespace detail {
template <class T>
struct is_index : std::false_type {};
template <fixed_string Name>
struct is_index<index<Name>> : std::true_type {};
}  // namespace detail

/// Satisfied by `loom::index<"...">` types.
template <class T>
concept index_variable = detail::is_index<std::remove_cvref_t<T>>::value;

}  // namespace loom

#endif  // LOOM_CORE_INDEX_HPP
// ---- end <loom/core/index.hpp>
// ---- begin <loom/core/semiring.hpp>
// Defines loom::semiring_traits and the shipped semirings (core vocabulary).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_SEMIRING_HPP
#define LOOM_CORE_SEMIRING_HPP

#include <concepts>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

namespace loom {

/// The semiring a value type carries: `zero()`, `one()`, `add`, `mul`, `scale(x, n)` (x added n
/// times). Plain arithmetic types are (+, ×). A user semiring is a specialisation.
/// **Laws**: zero is the identity of add and annihilates mul; one is the identity of mul.
template <class T>
struct semiring_traits;  // a type without a specialisation is not a semiring: specialise me

template <class T>
  requires std::is_arithmetic_v<T> && (!std::same_as<T, bool>)
struct semiring_traits<T> {
  static constexpr std::string_view name = "arithmetic";
  static constexpr bool idempotent = false;
  static constexpr T zero() { return T(0); }
  static constexpr T one() { return T(1); }
  static constexpr T add(T a, T b) { return a + b; }
  static constexpr T mul(T a, T b) { return a * b; }
  static constexpr T scale(T a, std::int64_t n) { return a * static_cast<T>(n); }
};

namespace detail {
template <class T>
constexpr T infinity_of() {
  if constexpr (std::numeric_limits<T>::has_infinity) return std::numeric_limits<T>::infinity();
  else return std::numeric_limits<T>::max();
}
}  // namespace detail

// The wrappers below hold one value; `==` compares it, `+` and `*` are the semiring's.
#define LOOM_DEFINE_SEMIRING_WRAPPER(Name)                                                      \
  template <class T>                                                                            \
  struct Name {                                                                                 \
    T value{semiring_traits<Name<T>>::zero().value};                                            \
    constexpr Name() = default;                                                                 \
    constexpr Name(T v) : value(v) {} /* NOLINT: implicit from the carrier */                   \
    friend constexpr bool operator==(Name a, Name b) { return a.value == b.value; }             \
    friend constexpr Name operator+(Name a, Name b) { return semiring_traits<Name>::add(a, b); } \
    friend constexpr Name operator*(Name a, Name b) { return semiring_traits<Name>::mul(a, b); } \
  };

template <class T>
struct min_plus;
template <class T>
struct max_plus;
template <class T>
struct max_times;

/// A view's const elements keep their semiring (arithmetic types already match above).
template <class T>
  requires(!std::is_arithmetic_v<T>)
struct semiring_traits<const T> : semiring_traits<T> {};

/// (min, +): zero = +inf, one = 0. Shortest paths.
template <class T>
struct semiring_traits<min_plus<T>> {
  static constexpr std::string_view name = "min_plus";
  static constexpr bool idempotent = true;
  static constexpr min_plus<T> zero() { return min_plus<T>(detail::infinity_of<T>()); }
  static constexpr min_plus<T> one() { return min_plus<T>(T(0)); }
  static constexpr min_plus<T> add(min_plus<T> a, min_plus<T> b) {
    return a.value < b.value ? a : b;
  }
  static constexpr min_plus<T> mul(min_plus<T> a, min_plus<T> b) {
    if (a.value == detail::infinity_of<T>() || b.value == detail::infinity_of<T>()) return zero();
    return min_plus<T>(a.value + b.value);
  }
  static constexpr min_plus<T> scale(min_plus<T> a, std::int64_t n) { return n > 0 ? a : zero(); }
};

/// (max, +): zero = -inf, one = 0. Longest paths, Viterbi in log space.
template <class T>
struct semiring_traits<max_plus<T>> {
  static constexpr std::string_view name = "max_plus";
  static constexpr bool idempotent = true;
  static constexpr T neg_inf() { return -detail::infinity_of<T>(); }
  static constexpr max_plus<T> zero() { return max_plus<T>(neg_inf()); }
  static constexpr max_plus<T> one() { return max_plus<T>(T(0)); }
  static constexpr max_plus<T> add(max_plus<T> a, max_plus<T> b) {
    return a.value < b.value ? b : a;
  }
  static constexpr max_plus<T> mul(max_plus<T> a, max_plus<T> b) {
    if (a.value == neg_inf() || b.value == neg_inf()) return zero();
    return max_plus<T>(a.value + b.value);
  }
  static constexpr max_plus<T> scale(max_plus<T> a, std::int64_t n) { return n > 0 ? a : zero(); }
};

/// (max, ×) over non-negative values: zero = 0, one = 1. Most reliable path.
template <class T>
struct semiring_traits<max_times<T>> {
  static constexpr std::string_view name = "max_times";
  static constexpr bool idempotent = true;
  static constexpr max_times<T> zero() { return max_times<T>(T(0)); }
  static constexpr max_times<T> one() { return max_times<T>(T(1)); }
  static constexpr max_times<T> add(max_times<T> a, max_times<T> b) {
    return a.value < b.value ? b : a;
  }
  static constexpr max_times<T> mul(max_times<T> a, max_times<T> b) {
    return max_times<T>(a.value * b.value);
  }
  static constexpr max_times<T> scale(max_times<T> a, std::int64_t n) {
    return n > 0 ? a : zero();
  }
};

LOOM_DEFINE_SEMIRING_WRAPPER(min_plus)
LOOM_DEFINE_SEMIRING_WRAPPER(max_plus)
LOOM_DEFINE_SEMIRING_WRAPPER(max_times)
#undef LOOM_DEFINE_SEMIRING_WRAPPER

/// (∨, ∧) over truth values: reachability, pattern matrices.
struct boolean {
  bool value = false;
  constexpr boolean() = default;
  constexpr boolean(bool v) : value(v) {}  // NOLINT: implicit from bool
  friend constexpr bool operator==(boolean a, boolean b) { return a.value == b.value; }
  friend constexpr boolean operator+(boolean a, boolean b) { return a.value || b.value; }
  friend constexpr boolean operator*(boolean a, boolean b) { return a.value && b.value; }
};

template <>
struct semiring_traits<boolean> {
  static constexpr std::string_view name = "boolean";
  static constexpr bool idempotent = true;
  static constexpr boolean zero() { return false; }
  static constexpr boolean one() { return true; }
  static constexpr boolean add(boolean a, boolean b) { return a.value || b.value; }
  static constexpr boolean mul(boolean a, boolean b) { return a.value && b.value; }
  static constexpr boolean scale(boolean a, std::int64_t n) { return n > 0 && a.value; }
};

/// Satisfied by value types with a `semiring_traits` specialisation.
template <class T>
concept semiring = requires(T a, T b) {
  { semiring_traits<T>::zero() } -> std::convertible_to<T>;
  { semiring_traits<T>::one() } -> std::convertible_to<T>;
  { semiring_traits<T>::add(a, b) } -> std::convertible_to<T>;
  { semiring_traits<T>::mul(a, b) } -> std::convertible_to<T>;
};

/// True for the plain (+, ×) arithmetic semirings, where `-` and `/` make sense.
template <class T>
inline constexpr bool is_arithmetic_semiring_v = std::is_arithmetic_v<T> && !std::same_as<T, bool>;

/// `x` added to itself `n` times in T's semiring.
template <semiring T>
constexpr T semiring_scale(T x, std::int64_t n) {
  if constexpr (requires { semiring_traits<T>::scale(x, n); }) {
    return semiring_traits<T>::scale(x, n);
  } else {
    T acc = semiring_traits<T>::zero();
    T power = x;  // doubling: O(log n) additions
    while (n > 0) {
      if (n & 1) acc = semiring_traits<T>::add(acc, power);
      power = semiring_traits<T>::add(power, power);
      n >>= 1;
    }
    return acc;
  }
}

}  // namespace loom

#endif  // LOOM_CORE_SEMIRING_HPP
// ---- end <loom/core/semiring.hpp>
// ---- begin <loom/core/work_counters.hpp>
// Defines loom's deterministic work counters: with LOOM_WORK_COUNTERS defined (tests only; the
// whole program must agree), every kernel counts, over all its threads, the steps and seeks of
// the stored levels it walks, the coordinates it locates, and the entries it writes. Off, the
// hooks are empty and cost nothing. Complexity tests assert on these instead of timings (core/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_WORK_COUNTERS_HPP
#define LOOM_CORE_WORK_COUNTERS_HPP

#include <cstdint>
#ifdef LOOM_WORK_COUNTERS
#  include <atomic>
#endif

namespace loom {

/// The work of the kernels run (on every thread) since the last `reset_work_counters()`.
struct work_counts {
  std::uint64_t steps = 0;   // next() on a stored level or a dense range: one loop iteration
  std::uint64_t seeks = 0;   // seek / seek_past: a jump (a search in a sorted level)
  std::uint64_t probes = 0;  // locate / contains: a random access into a level
  std::uint64_t writes = 0;  // entries written to an output (appended, or accumulated in place)
  std::uint64_t total() const { return steps + seeks + probes + writes; }
};

#ifdef LOOM_WORK_COUNTERS
namespace detail {
struct work_tally {  // every thread's work (relaxed atomics: counted, not ordered)
  std::atomic<std::uint64_t> steps{0}, seeks{0}, probes{0}, writes{0};
};
inline work_tally work;
}  // namespace detail
/// Whether this build counts work (LOOM_WORK_COUNTERS).
inline constexpr bool counts_work = true;
inline work_counts work_counters() {
  return {detail::work.steps.load(), detail::work.seeks.load(), detail::work.probes.load(),
          detail::work.writes.load()};
}
inline void reset_work_counters() {
  detail::work.steps = 0;
  detail::work.seeks = 0;
  detail::work.probes = 0;
  detail::work.writes = 0;
}
#  define LOOM_COUNT_WORK(field) (::loom::detail::work.field.fetch_add(1, std::memory_order_relaxed))
#  define LOOM_COUNT_WORK_N(field, n) \
    (::loom::detail::work.field.fetch_add(static_cast<std::uint64_t>(n), std::memory_order_relaxed))
#else
inline constexpr bool counts_work = false;
inline work_counts work_counters() { return {}; }
inline void reset_work_counters() {}
#  define LOOM_COUNT_WORK(field) ((void)0)
#  define LOOM_COUNT_WORK_N(field, n) ((void)0)
#endif

}  // namespace loom

#endif  // LOOM_CORE_WORK_COUNTERS_HPP
// ---- end <loom/core/work_counters.hpp>

#endif  // LOOM_CORE_HPP
// ---- end <loom/core.hpp>
// ---- begin <loom/expr.hpp>
// Umbrella header of expr/: expression nodes, operators and compile-time traits.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXPR_HPP
#define LOOM_EXPR_HPP

// ---- begin <loom/expr/access.hpp>
// Defines loom::expr::access, a tensor indexed by index variables: A(i, j) (expr/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXPR_ACCESS_HPP
#define LOOM_EXPR_ACCESS_HPP


#include <type_traits>

namespace loom::expr {

/// Tags telling the evaluator whether `=` or `+=` was written.
struct assign_tag {};
struct accumulate_tag {};

// access<Tensor, Is...>: the tensor read (or written) at indices Is...; A(i, j).
// Assigning an expression to an access evaluates it: `y(i) = sum(j, A(i, j) * x(j))`. The
// evaluator (`evaluate_assignment`, found by argument-dependent lookup) lives in stream/.
template <class Tensor, class... Is>
struct access {
  Tensor* tensor;

  constexpr access(Tensor* t) : tensor(t) {}  // NOLINT: built by Tensor::operator()
  constexpr access(const access&) = default;
  template <class Rhs>
  access& operator=(const Rhs& rhs) {
    static_assert(!std::is_const_v<Tensor>, "loom: cannot assign to an access of a const tensor");
    evaluate_assignment(*this, rhs, assign_tag{});
    return *this;
  }
  access& operator=(const access& rhs) {  // y(i) = x(i) evaluates, it does not rebind
    static_assert(!std::is_const_v<Tensor>, "loom: cannot assign to an access of a const tensor");
    evaluate_assignment(*this, rhs, assign_tag{});
    return *this;
  }
  template <class Rhs>
  access& operator+=(const Rhs& rhs) {
    static_assert(!std::is_const_v<Tensor>, "loom: cannot assign to an access of a const tensor");
    evaluate_assignment(*this, rhs, accumulate_tag{});
    return *this;
  }
};

}  // namespace loom::expr

#endif  // LOOM_EXPR_ACCESS_HPP
// ---- end <loom/expr/access.hpp>
// ---- begin <loom/expr/functions.hpp>
// Defines the pointwise function objects behind -, / and comparisons (expr/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXPR_FUNCTIONS_HPP
#define LOOM_EXPR_FUNCTIONS_HPP


#include <cstdint>
#include <string_view>
#include <type_traits>

namespace loom::fn {

// Each function object says whether f(0) == 0 is known statically (`zero_preserving`) and
// whether it commutes with sums (`linear`): linear ones may be pushed through a reduction.

/// -x
struct negate {
  static constexpr bool zero_preserving = true;
  static constexpr bool linear = true;
  static constexpr std::string_view symbol = "-";
  template <class T>
  constexpr T operator()(T x) const { return -x; }
};

/// x / divisor (linear only for floating point: integer division truncates, so
/// Σ(a / d) differs from (Σ a) / d)
template <class D>
struct divide_by {
  static constexpr bool zero_preserving = true;
  static constexpr bool linear = std::is_floating_point_v<D>;
  static constexpr std::string_view symbol = "/";
  D divisor;
  template <class T>
  constexpr T operator()(T x) const { return x / divisor; }
};

/// x scaled by an integer count in the semiring (x + x + ... n times).
struct scale_by {
  static constexpr bool zero_preserving = true;
  static constexpr bool linear = true;
  static constexpr std::string_view symbol = "scale";
  std::int64_t count;
  template <class T>
  constexpr T operator()(T x) const { return semiring_scale(x, count); }
};

#define LOOM_DEFINE_COMPARISON(Name, Op)                                           \
  struct Name {                                                                    \
    static constexpr bool zero_preserving = false;                                 \
    static constexpr bool linear = false;                                          \
    static constexpr std::string_view symbol = #Op;                                \
    template <class T>                                                             \
    constexpr T operator()(T a, T b) const {                                       \
      return (a Op b) ? semiring_traits<T>::one() : semiring_traits<T>::zero();   \
    }                                                                              \
  };
LOOM_DEFINE_COMPARISON(less, <)
LOOM_DEFINE_COMPARISON(greater, >)
LOOM_DEFINE_COMPARISON(less_equal, <=)
LOOM_DEFINE_COMPARISON(greater_equal, >=)
LOOM_DEFINE_COMPARISON(equal_to, ==)
LOOM_DEFINE_COMPARISON(not_equal_to, !=)
#undef LOOM_DEFINE_COMPARISON

/// Static knowledge about a user callable: none, unless it declares the members above.
template <class F>
inline constexpr bool is_zero_preserving_v = [] {
  if constexpr (requires { F::zero_preserving; }) return F::zero_preserving;
  else return false;
}();
template <class F>
inline constexpr bool is_linear_v = [] {
  if constexpr (requires { F::linear; }) return F::linear;
  else return false;
}();

}  // namespace loom::fn

#endif  // LOOM_EXPR_FUNCTIONS_HPP
// ---- end <loom/expr/functions.hpp>
// ---- begin <loom/expr/nodes.hpp>
// Defines the expression nodes of index notation: access, literal, add, mul, sum, map, where,
// expand (expr/). Nodes only hold operands; their meaning lives in stream/ and plan/.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXPR_NODES_HPP
#define LOOM_EXPR_NODES_HPP


#include <tuple>

namespace loom::expr {

// literal<T>: a scalar constant, broadcast over every index.
template <class T>
struct literal {
  T value;
};

// add<L, R>: pointwise sum (the semiring's +); union of supports.
template <class L, class R>
struct add {
  L lhs;
  R rhs;
};

// mul<L, R>: pointwise product (the semiring's ×); intersection of supports.
template <class L, class R>
struct mul {
  L lhs;
  R rhs;
};

// sum<I, E>: reduction of E over index I with the semiring's +.
template <class I, class E>
struct sum {
  E body;
};

// map<F, Es...>: f applied pointwise; where f(0, ...) may differ from 0 the result is dense.
template <class F, class... Es>
struct map {
  F f;
  std::tuple<Es...> args;
};

// where<P, E>: E where P is non-zero, zero elsewhere.
template <class P, class E>
struct where {
  P pred;
  E body;
};

// expand<I, E>: E broadcast along index I (E does not use I).
template <class I, class E>
struct expand {
  E body;
};

}  // namespace loom::expr

#endif  // LOOM_EXPR_NODES_HPP
// ---- end <loom/expr/nodes.hpp>
// ---- begin <loom/expr/operators.hpp>
// Defines the index-notation operators and functions that build expressions: + - * / unary -,
// comparisons, loom::sum, loom::map, loom::where, loom::expand (expr/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXPR_OPERATORS_HPP
#define LOOM_EXPR_OPERATORS_HPP

// ---- begin <loom/expr/traits.hpp>
// Defines compile-time traits of expressions: free and summed indices, accesses, value type,
// static sparsity class, static extents (expr/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXPR_TRAITS_HPP
#define LOOM_EXPR_TRAITS_HPP


#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>
#include <boost/mp11/set.hpp>

#include <cstddef>
#include <type_traits>

namespace loom::expr {

using boost::mp11::mp_list;

// is_node<E>
template <class E>
struct is_node : std::false_type {};
template <class T, class... Is>
struct is_node<access<T, Is...>> : std::true_type {};
template <class T>
struct is_node<literal<T>> : std::true_type {};
template <class L, class R>
struct is_node<add<L, R>> : std::true_type {};
template <class L, class R>
struct is_node<mul<L, R>> : std::true_type {};
template <class I, class E>
struct is_node<sum<I, E>> : std::true_type {};
template <class F, class... Es>
struct is_node<map<F, Es...>> : std::true_type {};
template <class P, class E>
struct is_node<where<P, E>> : std::true_type {};
template <class I, class E>
struct is_node<expand<I, E>> : std::true_type {};

}  // namespace loom::expr

namespace loom {

/// Satisfied by the expression node types of index notation.
template <class E>
concept expression = expr::is_node<std::remove_cvref_t<E>>::value;

}  // namespace loom

namespace loom::expr {

namespace detail {
template <class... Ls>
using set_union = boost::mp11::mp_unique<boost::mp11::mp_append<mp_list<>, Ls...>>;

template <class E>
struct free_indices;
template <class T, class... Is>
struct free_indices<access<T, Is...>> {
  using type = boost::mp11::mp_unique<mp_list<Is...>>;
};
template <class T>
struct free_indices<literal<T>> {
  using type = mp_list<>;
};
template <class L, class R>
struct free_indices<add<L, R>> {
  using type = set_union<typename free_indices<L>::type, typename free_indices<R>::type>;
};
template <class L, class R>
struct free_indices<mul<L, R>> {
  using type = set_union<typename free_indices<L>::type, typename free_indices<R>::type>;
};
template <class P, class E>
struct free_indices<where<P, E>> {
  using type = set_union<typename free_indices<P>::type, typename free_indices<E>::type>;
};
template <class F, class... Es>
struct free_indices<map<F, Es...>> {
  using type = set_union<typename free_indices<Es>::type...>;
};
template <class I, class E>
struct free_indices<sum<I, E>> {
  using type = boost::mp11::mp_remove<typename free_indices<E>::type, I>;
};
template <class I, class E>
struct free_indices<expand<I, E>> {
  using type = set_union<typename free_indices<E>::type, mp_list<I>>;
};

// Every index bound by a sum inside E (with repetitions: a repeated entry is a reuse).
template <class E>
struct summed_indices {
  using type = mp_list<>;
};
template <class L, class R>
struct summed_indices<add<L, R>> {
  using type = boost::mp11::mp_append<typename summed_indices<L>::type,
                                      typename summed_indices<R>::type>;
};
template <class L, class R>
struct summed_indices<mul<L, R>> {
  using type = boost::mp11::mp_append<typename summed_indices<L>::type,
                                      typename summed_indices<R>::type>;
};
template <class P, class E>
struct summed_indices<where<P, E>> {
  using type = boost::mp11::mp_append<typename summed_indices<P>::type,
                                      typename summed_indices<E>::type>;
};
template <class F, class... Es>
struct summed_indices<map<F, Es...>> {
  using type = boost::mp11::mp_append<mp_list<>, typename summed_indices<Es>::type...>;
};
template <class I, class E>
struct summed_indices<sum<I, E>> {
  using type = boost::mp11::mp_push_front<typename summed_indices<E>::type, I>;
};
template <class I, class E>
struct summed_indices<expand<I, E>> {
  using type = typename summed_indices<E>::type;
};

// Every access node in E, depth first, left to right.
template <class E>
struct accesses {
  using type = mp_list<>;
};
template <class T, class... Is>
struct accesses<access<T, Is...>> {
  using type = mp_list<access<T, Is...>>;
};
template <class L, class R>
struct accesses<add<L, R>> {
  using type = boost::mp11::mp_append<typename accesses<L>::type, typename accesses<R>::type>;
};
template <class L, class R>
struct accesses<mul<L, R>> {
  using type = boost::mp11::mp_append<typename accesses<L>::type, typename accesses<R>::type>;
};
template <class P, class E>
struct accesses<where<P, E>> {
  using type = boost::mp11::mp_append<typename accesses<P>::type, typename accesses<E>::type>;
};
template <class F, class... Es>
struct accesses<map<F, Es...>> {
  using type = boost::mp11::mp_append<mp_list<>, typename accesses<Es>::type...>;
};
template <class I, class E>
struct accesses<sum<I, E>> {
  using type = typename accesses<E>::type;
};
template <class I, class E>
struct accesses<expand<I, E>> {
  using type = typename accesses<E>::type;
};
}  // namespace detail

/// The indices free in E (an MP11 list, in order of first appearance).
template <class E>
using free_indices_t = typename detail::free_indices<std::remove_cvref_t<E>>::type;
/// The indices bound by `sum` inside E, one entry per binding.
template <class E>
using summed_indices_t = typename detail::summed_indices<std::remove_cvref_t<E>>::type;
/// The access nodes of E, depth first.
template <class E>
using accesses_t = typename detail::accesses<std::remove_cvref_t<E>>::type;
/// Every index of E, free or bound, each once.
template <class E>
using all_indices_t =
    boost::mp11::mp_unique<boost::mp11::mp_append<free_indices_t<E>, summed_indices_t<E>>>;

// value_type_t<E>
namespace detail {
template <class E>
struct value_type;
template <class T, class... Is>
struct value_type<access<T, Is...>> {
  using type = typename std::remove_const_t<T>::value_type;
};
template <class T>
struct value_type<literal<T>> {
  using type = T;
};
template <class A, class B>
struct combine_value {
  using type = typename std::conditional_t<std::is_arithmetic_v<A> && std::is_arithmetic_v<B>,
                                  std::common_type<A, B>, std::type_identity<A>>::type;
};
template <class A, class B>
struct binary_value {
  using type = typename combine_value<typename value_type<A>::type,
                                      typename value_type<B>::type>::type;
};
template <class T, class B>  // a literal adopts the other side's type
struct binary_value<literal<T>, B> {
  using type = typename value_type<B>::type;
};
template <class A, class T>
struct binary_value<A, literal<T>> {
  using type = typename value_type<A>::type;
};
template <class T, class U>
struct binary_value<literal<T>, literal<U>> {
  using type = typename combine_value<T, U>::type;
};
template <class L, class R>
struct value_type<add<L, R>> : binary_value<L, R> {};
template <class L, class R>
struct value_type<mul<L, R>> : binary_value<L, R> {};
template <class P, class E>
struct value_type<where<P, E>> : value_type<E> {};
template <class I, class E>
struct value_type<sum<I, E>> : value_type<E> {};
template <class I, class E>
struct value_type<expand<I, E>> : value_type<E> {};
template <class F, class E>
struct value_type<map<F, E>> : value_type<E> {};
template <class F, class A, class B>
struct value_type<map<F, A, B>> : binary_value<A, B> {};
}  // namespace detail

/// The value type (semiring) of E.
template <class E>
using value_type_t = typename detail::value_type<std::remove_cvref_t<E>>::type;

/// Static sparsity class of a subexpression.
enum class sparsity { dense, sparse };

namespace detail {
template <class E>
struct sparsity_of;
template <class T, class... Is>
struct sparsity_of<access<T, Is...>> {
  static constexpr sparsity value =
      std::remove_const_t<T>::format_type::all_dense ? sparsity::dense : sparsity::sparse;
};
template <class T>
struct sparsity_of<literal<T>> {
  static constexpr sparsity value = sparsity::dense;
};
template <class L, class R>
struct sparsity_of<add<L, R>> {
  static constexpr sparsity value =
      (sparsity_of<L>::value == sparsity::dense || sparsity_of<R>::value == sparsity::dense)
          ? sparsity::dense
          : sparsity::sparse;
};
template <class L, class R>
struct sparsity_of<mul<L, R>> {
  static constexpr sparsity value =
      (sparsity_of<L>::value == sparsity::sparse || sparsity_of<R>::value == sparsity::sparse)
          ? sparsity::sparse
          : sparsity::dense;
};
template <class P, class E>
struct sparsity_of<where<P, E>> : sparsity_of<mul<P, E>> {};
template <class I, class E>
struct sparsity_of<sum<I, E>> : sparsity_of<E> {};
template <class I, class E>
struct sparsity_of<expand<I, E>> : sparsity_of<E> {};
template <class F, class... Es>
struct sparsity_of<map<F, Es...>> {
  static constexpr sparsity value =
      (fn::is_zero_preserving_v<F> &&
       ((sparsity_of<Es>::value == sparsity::sparse) && ...))
          ? sparsity::sparse
          : sparsity::dense;
};
}  // namespace detail

/// The static sparsity class of E: dense (may be non-zero everywhere) or sparse.
template <class E>
inline constexpr sparsity sparsity_v = detail::sparsity_of<std::remove_cvref_t<E>>::value;

/// True when E is zero wherever all its accessed tensors are zero (E(0) = 0): products,
/// sums and zero-preserving maps of accesses, without additive literals.
template <class E>
inline constexpr bool annihilates_v = sparsity_v<E> == sparsity::sparse;

// Static extents: mp_list of mp_list<Index, mp_size_t<N>> for dense levels with a fixed extent.
namespace detail {
template <class Tensor, class IndexList, class Levels>
struct access_static_extents;
template <class Tensor, class... Is, std::size_t... Ks>
struct access_static_extents<Tensor, mp_list<Is...>, std::index_sequence<Ks...>> {
  using format = typename std::remove_const_t<Tensor>::format_type;
  template <std::size_t K>
  using level = boost::mp11::mp_at_c<typename format::levels, K>;
  template <std::size_t K>
  using entry = std::conditional_t<
      level<K>::static_extent == dynamic_extent, mp_list<>,
      mp_list<mp_list<boost::mp11::mp_at_c<mp_list<Is...>, format::modes[K]>,
                      boost::mp11::mp_size_t<level<K>::static_extent>>>>;
  using type = boost::mp11::mp_append<mp_list<>, entry<Ks>...>;
};
template <class A>
struct static_extents_of_access;
template <class T, class... Is>
struct static_extents_of_access<access<T, Is...>> {
  using type = typename access_static_extents<T, mp_list<Is...>,
                                              std::make_index_sequence<sizeof...(Is)>>::type;
};
template <class List>
struct static_extents_of_list;
template <class... As>
struct static_extents_of_list<mp_list<As...>> {
  using type = boost::mp11::mp_append<mp_list<>, typename static_extents_of_access<As>::type...>;
};
}  // namespace detail

/// (index, extent) pairs contributed by fixed-extent dense levels in E.
template <class E>
using static_extents_t = typename detail::static_extents_of_list<accesses_t<E>>::type;

}  // namespace loom::expr

#endif  // LOOM_EXPR_TRAITS_HPP
// ---- end <loom/expr/traits.hpp>

#include <tuple>
#include <type_traits>
#include <utility>

namespace loom::expr {

/// A scalar usable as an operand: any semiring value that is not an expression.
template <class T>
concept scalar_operand = !expression<T> && semiring<std::remove_cvref_t<T>>;
template <class T>
concept operand = expression<T> || scalar_operand<T>;

/// Wraps scalars into `literal`; leaves expressions alone.
template <operand T>
constexpr auto as_expr(const T& x) {
  if constexpr (expression<T>) return x;
  else return literal<std::remove_cvref_t<T>>{x};
}
template <class T>
using as_expr_t = decltype(as_expr(std::declval<const T&>()));

template <operand L, operand R>
  requires(expression<L> || expression<R>)
constexpr auto operator+(const L& l, const R& r) {
  return add<as_expr_t<L>, as_expr_t<R>>{as_expr(l), as_expr(r)};
}
template <operand L, operand R>
  requires(expression<L> || expression<R>)
constexpr auto operator*(const L& l, const R& r) {
  return mul<as_expr_t<L>, as_expr_t<R>>{as_expr(l), as_expr(r)};
}
template <expression E>
constexpr auto operator-(const E& e) {
  static_assert(is_arithmetic_semiring_v<value_type_t<E>>,
                "loom: unary - needs an arithmetic value type (a semiring has no negation)");
  return map<fn::negate, E>{fn::negate{}, std::tuple<E>{e}};
}
template <operand L, operand R>
  requires(expression<L> || expression<R>)
constexpr auto operator-(const L& l, const R& r) {
  return as_expr(l) + (-as_expr(r));
}
template <expression E, scalar_operand S>
constexpr auto operator/(const E& e, const S& s) {
  static_assert(is_arithmetic_semiring_v<value_type_t<E>>,
                "loom: / needs an arithmetic value type; only division by a scalar is supported");
  using V = value_type_t<E>;
  return map<fn::divide_by<V>, E>{fn::divide_by<V>{static_cast<V>(s)}, std::tuple<E>{e}};
}

#define LOOM_DEFINE_COMPARISON_OPERATOR(Op, Fn)                                    \
  template <operand L, operand R>                                                  \
    requires(expression<L> || expression<R>)                                       \
  constexpr auto operator Op(const L& l, const R& r) {                             \
    return map<fn::Fn, as_expr_t<L>, as_expr_t<R>>{fn::Fn{}, {as_expr(l), as_expr(r)}}; \
  }
LOOM_DEFINE_COMPARISON_OPERATOR(<, less)
LOOM_DEFINE_COMPARISON_OPERATOR(>, greater)
LOOM_DEFINE_COMPARISON_OPERATOR(<=, less_equal)
LOOM_DEFINE_COMPARISON_OPERATOR(>=, greater_equal)
LOOM_DEFINE_COMPARISON_OPERATOR(==, equal_to)
LOOM_DEFINE_COMPARISON_OPERATOR(!=, not_equal_to)
#undef LOOM_DEFINE_COMPARISON_OPERATOR

}  // namespace loom::expr

namespace loom {

namespace detail {
template <std::size_t K, class Tuple>
constexpr auto nest_sums(const Tuple& args) {
  constexpr std::size_t n = std::tuple_size_v<Tuple>;
  if constexpr (K + 1 == n) {
    return expr::as_expr(std::get<K>(args));
  } else {
    using index_t = std::remove_cvref_t<std::tuple_element_t<K, Tuple>>;
    static_assert(index_variable<index_t>,
                  "loom::sum: every argument but the last must be an index variable, as in "
                  "sum(i, j, e)");
    auto inner = nest_sums<K + 1>(args);
    return expr::sum<index_t, decltype(inner)>{inner};
  }
}
}  // namespace detail

/// `sum(j, e)` reduces e over j; `sum(i, j, e)` over several indices.
template <class... Args>
  requires(sizeof...(Args) >= 2)
constexpr auto sum(const Args&... args) {
  using last_t = std::remove_cvref_t<std::tuple_element_t<sizeof...(Args) - 1, std::tuple<Args...>>>;
  static_assert(expr::operand<last_t>, "loom::sum: the last argument must be an expression");
  return detail::nest_sums<0>(std::tuple<const Args&...>(args...));
}

/// `map(f, e...)`: f applied pointwise to one or two expressions. When f(0, ...) != 0 the
/// result is computed over the whole domain (checked at run time unless f declares
/// `static constexpr bool zero_preserving`).
template <class F, class... Es>
  requires(sizeof...(Es) >= 1) && (expr::operand<Es> && ...)
constexpr auto map(F f, const Es&... es) {
  static_assert(sizeof...(Es) <= 2, "loom::map: more than two operands is not supported yet");
  return expr::map<F, expr::as_expr_t<Es>...>{f, {expr::as_expr(es)...}};
}

/// `where(p, e)`: e where p is non-zero, zero elsewhere.
template <expr::operand P, expr::operand E>
constexpr auto where(const P& p, const E& e) {
  return expr::where<expr::as_expr_t<P>, expr::as_expr_t<E>>{expr::as_expr(p), expr::as_expr(e)};
}

/// `expand(i, e)`: e broadcast along index i.
template <index_variable I, expr::operand E>
constexpr auto expand(I, const E& e) {
  return expr::expand<I, expr::as_expr_t<E>>{expr::as_expr(e)};
}

}  // namespace loom

#endif  // LOOM_EXPR_OPERATORS_HPP
// ---- end <loom/expr/operators.hpp>
// ---- begin <loom/expr/order.hpp>
// Defines loom::order: the loop order of one assignment fixed by the user, as Etch allows
// (`C(i, j) = loom::order<i, k, j>(e)`); the evaluator plans that order only (expr/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXPR_ORDER_HPP
#define LOOM_EXPR_ORDER_HPP


#include <boost/mp11/list.hpp>

#include <type_traits>

namespace loom {

namespace expr {
/// `expr` to be evaluated as one loop nest in `Order` (an MP11 list of index types, outermost
/// first). Only the right-hand side of an assignment (or of `loom::explain`).
template <class Order, class E>
struct ordered {
  E expr;
};
}  // namespace expr

/// The function object behind `loom::order<...>`.
template <class... Is>
struct order_option {
  template <expr::operand E>
  auto operator()(const E& e) const {
    const auto x = expr::as_expr(e);
    return expr::ordered<boost::mp11::mp_list<Is...>, std::remove_cvref_t<decltype(x)>>{x};
  }
};

/// Fixes the loop order of one assignment, outermost first, listing every index once:
/// `C(i, j) = loom::order<i, k, j>(loom::sum(k, A(i, k) * B(k, j)));` (Gustavson's order, whatever
/// the formats). An operand stored in another order is transposed (once, while it is unchanged)
/// and `explain` says so; no candidate is costed and no sum is hoisted.
template <auto... Is>
  requires(index_variable<decltype(Is)> && ...)
inline constexpr order_option<std::remove_cvref_t<decltype(Is)>...> order{};

}  // namespace loom

#endif  // LOOM_EXPR_ORDER_HPP
// ---- end <loom/expr/order.hpp>

#endif  // LOOM_EXPR_HPP
// ---- end <loom/expr.hpp>
// ---- begin <loom/format.hpp>
// Umbrella header of format/: levels, formats, tensors, views and assembly.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_HPP
#define LOOM_FORMAT_HPP

// ---- begin <loom/format/appender.hpp>
// Defines loom::detail::appender: builds a tensor's levels online from entries that arrive
// sorted and unique in storage order (the sink of in-order sparse outputs) (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_APPENDER_HPP
#define LOOM_FORMAT_APPENDER_HPP

// ---- begin <loom/format/tensor.hpp>
// Defines loom::basic_tensor, loom::tensor and loom::view: level arrays plus values (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_TENSOR_HPP
#define LOOM_FORMAT_TENSOR_HPP

// ---- begin <loom/format/format.hpp>
// Defines loom::format, a list of levels plus a mode order, and the standard aliases (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_FORMAT_HPP
#define LOOM_FORMAT_FORMAT_HPP

// ---- begin <loom/format/levels/banded.hpp>
// Defines loom::banded_level and loom::banded: one contiguous coordinate range [lo, hi) per
// parent, for band and diagonal matrices; locate is a range test (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_BANDED_HPP
#define LOOM_FORMAT_LEVELS_BANDED_HPP

// ---- begin <loom/format/levels/level_base.hpp>
// Defines the level vocabulary shared by every level: properties, arrays, width checks, the
// assembly input and the cursor protocol (format/). The level concept itself: level.hpp.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_LEVEL_BASE_HPP
#define LOOM_FORMAT_LEVELS_LEVEL_BASE_HPP


#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace loom {

/// Whether a coordinate may repeat among the children of one parent.
enum class uniqueness { unique, non_unique };

/// What a level guarantees; streams and the planner branch on these (TACO's level properties).
struct level_properties {
  bool ordered = true;        // coordinates ascend within a parent
  bool unique = true;         // no coordinate repeats within a parent
  bool full = false;          // every coordinate of the extent is present
  bool random_access = false; // locate(parent, i) in O(1)
  bool segmented = false;     // a parent is a range of positions, not one position
  bool padded = false;        // some positions hold no entry (their values are zero padding)
};

/// How a cursor moves to a target coordinate (a per-level choice of the planner).
enum class skip_policy {
  linear,     ///< one position at a time
  galloping,  ///< doubling steps, then binary search (good for skewed intersections)
  binary      ///< binary search over the rest of the segment
};

/// Child positions [begin, end) of one coordinate; empty when the coordinate is absent.
/// Below a unique level end = begin + 1; a non-unique level hands a run to its singleton child.
struct level_range {
  std::int64_t begin = 0, end = 0;
  constexpr bool empty() const { return begin >= end; }
};

/// What assembly hands one level: entries sorted and unique in storage order. The level fills
/// `position[e]` (its position of entry e) and returns how many positions it has; entries with
/// the same parent and coordinate share a position at a unique level.
struct level_build {
  std::size_t mode = 0;                   // logical mode stored (for messages)
  std::int64_t extent = 0;                // extent of that mode
  std::int64_t parents = 1;               // positions of the level above (1 at the root)
  std::span<const std::int64_t> parent;   // parent position of each entry, ascending
  std::span<const std::int64_t> coord;    // this level's coordinate of each entry
};

/// A level's array: a `std::vector` in an owning tensor, a `std::span` in a view.
template <class T, bool Owning>
using level_array = std::conditional_t<Owning, std::vector<T>, std::span<const T>>;

namespace detail {

/// Whether `value` fits `Int` (and is not negative).
template <class Int>
constexpr bool fits_in(std::int64_t value) {
  return value >= 0 && static_cast<std::uint64_t>(value) <=
                           static_cast<std::uint64_t>(std::numeric_limits<Int>::max());
}

/// Throws `overflow_error` when `value` does not fit `Int`; `what` names the quantity.
template <class Int>
void check_fits(std::int64_t value, std::string_view what) {
  if (value < 0 || static_cast<std::uint64_t>(value) >
                       static_cast<std::uint64_t>(std::numeric_limits<Int>::max())) {
    throw overflow_error("loom: " + std::string(what) + " = " + std::to_string(value) +
                         " does not fit the level's " + std::to_string(sizeof(Int) * 8) +
                         "-bit integer type; choose a wider position/coordinate type");
  }
}

/// The largest index; cursors guard `seek_past(top_coordinate)` against overflow.
inline constexpr std::int64_t top_coordinate = std::numeric_limits<std::int64_t>::max();

/// First q in [q, end) with crd[q] >= i (or end), searched by policy P; crd ascending.
template <skip_policy P, class Crd>
constexpr std::int64_t search_first(const Crd* crd, std::int64_t q, std::int64_t end,
                                    std::int64_t i) {
  if (q >= end || crd[q] >= i) return q;
  if constexpr (P == skip_policy::linear) {
    while (q < end && crd[q] < i) ++q;
    return q;
  } else {
    std::int64_t lo = q + 1, hi = end;  // crd[q] < i; answer in [lo, hi]
    if constexpr (P == skip_policy::galloping) {
      std::int64_t step = 1;
      while (lo + step - 1 < end && crd[lo + step - 1] < i) {
        lo += step;
        step *= 2;
      }
      hi = std::min(end, lo + step - 1);
    }
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (crd[mid] < i) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

}  // namespace detail
}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_LEVEL_BASE_HPP
// ---- end <loom/format/levels/level_base.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

namespace loom {

/// Every coordinate of [lo, hi), coordinate i at position base + i - lo.
struct banded_cursor {
  std::int64_t base = 0, lo = 0, i = 0, hi = 0;

  LOOM_FORCE_INLINE bool valid() const { return i < hi; }
  LOOM_FORCE_INLINE std::int64_t index() const { return i; }
  LOOM_FORCE_INLINE level_range children() const { return {base + i - lo, base + i - lo + 1}; }
  LOOM_FORCE_INLINE level_range locate(std::int64_t j) const {
    if (j < lo || j >= hi) return {};
    return {base + j - lo, base + j - lo + 1};
  }
  LOOM_FORCE_INLINE void seek(std::int64_t j) { i = std::max(i, j); }
  LOOM_FORCE_INLINE void seek_past(std::int64_t j) { i = j >= hi ? hi : std::max(i, j + 1); }
  LOOM_FORCE_INLINE void next() { ++i; }
};

/// Parent p stores the coordinates [lo[p], lo[p] + pos[p+1] - pos[p]) at positions
/// [pos[p], pos[p+1]): the band from its first to its last entry, gaps inside it padded with
/// zeros. No coordinate array: a band matrix costs its values plus two integers per row.
template <class Pos = std::int64_t, class Crd = std::int32_t>
struct banded_level {
  static_assert(std::is_integral_v<Pos> && std::is_integral_v<Crd>,
                "loom::banded_level: position and coordinate types must be integers");
  static constexpr level_properties properties{.random_access = true, .padded = true};
  static constexpr std::size_t static_extent = dynamic_extent;
  static constexpr std::string_view name = "banded";
  using pos_type = Pos;
  using crd_type = Crd;

  template <bool Owning>
  struct storage {
    // pos_bounds(p_{k-1}) -> [pos[p], pos[p+1]); pos_access(q) -> lo[p] + q - pos[p]
    level_array<Pos, Owning> pos;
    level_array<Crd, Owning> lo;
  };

  template <skip_policy, bool Owning>
  static banded_cursor iterate(const storage<Owning>& st, std::int64_t begin, std::int64_t) {
    const auto base = static_cast<std::int64_t>(st.pos[begin]);
    const auto lo = static_cast<std::int64_t>(st.lo[begin]);
    return {base, lo, lo, lo + static_cast<std::int64_t>(st.pos[begin + 1]) - base};
  }

  static std::int64_t assemble(storage<true>& st, const level_build& in,
                               std::span<std::int64_t> position) {
    if (in.extent > 0)
      detail::check_fits<Crd>(in.extent - 1,
                              "largest coordinate of mode " + std::to_string(in.mode));
    const std::size_t nnz = in.coord.size();
    const auto parents = static_cast<std::size_t>(in.parents);
    st.lo.assign(parents, Crd(0));
    std::vector<std::int64_t> width(parents, 0);
    // entries of one parent are contiguous and ascending: the band is [first, last + 1)
    for (std::size_t e = 0; e < nnz; ++e) {
      const auto p = static_cast<std::size_t>(in.parent[e]);
      if (e == 0 || in.parent[e] != in.parent[e - 1]) st.lo[p] = static_cast<Crd>(in.coord[e]);
      width[p] = in.coord[e] - st.lo[p] + 1;
    }
    st.pos.assign(parents + 1, Pos(0));
    std::int64_t total = 0;
    for (std::size_t p = 0; p < parents; ++p) {
      total += width[p];
      detail::check_fits<Pos>(total, "number of positions");
      st.pos[p + 1] = static_cast<Pos>(total);
    }
    for (std::size_t e = 0; e < nnz; ++e) {
      const auto p = static_cast<std::size_t>(in.parent[e]);
      position[e] = static_cast<std::int64_t>(st.pos[p]) + in.coord[e] - st.lo[p];
    }
    return total;
  }
};

/// The banded level with int64 positions and int32 coordinates.
using banded = banded_level<>;

}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_BANDED_HPP
// ---- end <loom/format/levels/banded.hpp>
// ---- begin <loom/format/levels/bitmap.hpp>
// Defines loom::bitmap_level and loom::bitmap: a dense presence bitset with dense values;
// iteration visits the set bits, locate is one bit test (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_BITMAP_HPP
#define LOOM_FORMAT_LEVELS_BITMAP_HPP


#include <bit>
#include <cstdint>
#include <string>

namespace loom {

/// The set bits of [base, base + n) of a bitset, each at most once, ascending.
struct bitmap_cursor {
  const std::uint64_t* bits = nullptr;
  std::int64_t base = 0, i = 0, n = 0;  // invariant: i == n or bit base + i is set

  LOOM_FORCE_INLINE bool valid() const { return i < n; }
  LOOM_FORCE_INLINE std::int64_t index() const { return i; }
  LOOM_FORCE_INLINE level_range children() const { return {base + i, base + i + 1}; }
  LOOM_FORCE_INLINE bool test(std::int64_t j) const {
    const std::int64_t b = base + j;
    return (bits[b >> 6] >> (b & 63)) & 1u;
  }
  LOOM_FORCE_INLINE level_range locate(std::int64_t j) const {
    if (test(j)) return {base + j, base + j + 1};
    return {};
  }
  LOOM_FORCE_INLINE void seek(std::int64_t j) {
    if (j > i) i = first_set(j);
  }
  LOOM_FORCE_INLINE void seek_past(std::int64_t j) {
    if (j >= n) i = n;
    else if (j >= i) i = first_set(j + 1);
  }
  LOOM_FORCE_INLINE void next() { i = first_set(i + 1); }
  // first set bit at an offset >= j (j <= n), or n: a word at a time
  LOOM_FORCE_INLINE std::int64_t first_set(std::int64_t j) const {
    if (j >= n) return n;
    std::int64_t b = base + j;
    const std::int64_t last = base + n;
    std::uint64_t word = bits[b >> 6] & (~std::uint64_t{0} << (b & 63));
    std::int64_t w = b >> 6;
    while (word == 0) {
      if ((w + 1) * 64 >= last) return n;
      word = bits[++w];
    }
    const std::int64_t found = w * 64 + std::countr_zero(word) - base;
    return found < n ? found : n;
  }
};

/// Coordinate i of parent p is present when bit `p * extent + i` is set; values sit at that
/// position as in a dense level (absent ones are zero padding), so locate is one bit test and
/// iteration skips 64 absent coordinates per word.
template <class Crd = std::int32_t>
struct bitmap_level {
  static constexpr level_properties properties{.random_access = true, .padded = true};
  static constexpr std::size_t static_extent = dynamic_extent;
  static constexpr std::string_view name = "bitmap";
  using crd_type = Crd;

  template <bool Owning>
  struct storage {
    // locate(p_{k-1}, i) -> p * extent + i when bits[p * extent + i]
    std::int64_t extent = 0;
    level_array<std::uint64_t, Owning> bits;
  };

  template <skip_policy, bool Owning>
  static bitmap_cursor iterate(const storage<Owning>& st, std::int64_t begin, std::int64_t) {
    bitmap_cursor c{st.bits.data(), begin * st.extent, 0, st.extent};
    if (c.n > 0 && !c.test(0)) c.i = c.first_set(1);
    return c;
  }

  static std::int64_t assemble(storage<true>& st, const level_build& in,
                               std::span<std::int64_t> position) {
    st.extent = in.extent;
    if (in.extent != 0 && in.parents > INT64_MAX / in.extent)
      throw overflow_error("loom: the bitmap level of mode " + std::to_string(in.mode) +
                           " would hold more than 2^63 positions");
    const std::int64_t count = in.parents * in.extent;
    st.bits.assign(static_cast<std::size_t>((count + 63) / 64), 0);
    for (std::size_t e = 0; e < in.coord.size(); ++e) {
      const std::int64_t b = in.parent[e] * in.extent + in.coord[e];
      st.bits[static_cast<std::size_t>(b >> 6)] |= std::uint64_t{1} << (b & 63);
      position[e] = b;
    }
    return count;
  }

  /// Stored entries (set bits): `nnz()` of a tensor whose innermost level is a bitmap.
  template <bool Owning>
  static std::int64_t stored_count(const storage<Owning>& st) {
    std::int64_t c = 0;
    for (std::uint64_t w : st.bits) c += std::popcount(w);
    return c;
  }
};

/// The bitmap level.
using bitmap = bitmap_level<>;

}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_BITMAP_HPP
// ---- end <loom/format/levels/bitmap.hpp>
// ---- begin <loom/format/levels/compressed.hpp>
// Defines loom::compressed_level and loom::compressed: a pos/crd segment level (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_COMPRESSED_HPP
#define LOOM_FORMAT_LEVELS_COMPRESSED_HPP

// ---- begin <loom/format/levels/coordinate_cursor.hpp>
// Defines loom::coordinate_cursor: the cursor over an ascending coordinate segment, shared by
// the compressed, singleton and hashed levels (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_COORDINATE_CURSOR_HPP
#define LOOM_FORMAT_LEVELS_COORDINATE_CURSOR_HPP


#include <cstdint>

namespace loom {

/// Positions [p, end) of `crd`, ascending. A non-unique segment emits each run of equal
/// coordinates once, its children spanning the run, so the stream stays strictly monotone.
template <class Crd, bool Unique, skip_policy P>
struct coordinate_cursor {
  const Crd* crd = nullptr;
  std::int64_t p = 0, end = 0;

  LOOM_FORCE_INLINE bool valid() const { return p < end; }
  LOOM_FORCE_INLINE std::int64_t index() const { return crd[p]; }
  LOOM_FORCE_INLINE std::int64_t run_end() const {
    if constexpr (Unique) {
      return p + 1;
    } else {
      std::int64_t q = p + 1;
      while (q < end && crd[q] == crd[p]) ++q;
      return q;
    }
  }
  LOOM_FORCE_INLINE level_range children() const { return {p, run_end()}; }
  LOOM_FORCE_INLINE void next() { p = run_end(); }
  LOOM_FORCE_INLINE void seek(std::int64_t i) { p = detail::search_first<P>(crd, p, end, i); }
  LOOM_FORCE_INLINE void seek_past(std::int64_t i) {
    if (i == detail::top_coordinate) p = end;
    else p = detail::search_first<P>(crd, p, end, i + 1);
  }
};

}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_COORDINATE_CURSOR_HPP
// ---- end <loom/format/levels/coordinate_cursor.hpp>

#include <string>

namespace loom {

/// Stored coordinates of parent p are `crd[pos[p] .. pos[p+1])`, ascending.
/// Non-unique: a coordinate may repeat (COO's first level); its stream groups each run into one
/// segment so that it stays strictly monotone.
template <uniqueness U = uniqueness::unique, class Pos = std::int64_t, class Crd = std::int32_t>
struct compressed_level {
  static_assert(std::is_integral_v<Pos> && std::is_integral_v<Crd>,
                "loom::compressed_level: position and coordinate types must be integers");
  static constexpr level_properties properties{.unique = U == uniqueness::unique};
  static constexpr std::size_t static_extent = dynamic_extent;
  static constexpr std::string_view name =
      U == uniqueness::unique ? "compressed" : "compressed(non-unique)";
  using pos_type = Pos;
  using crd_type = Crd;

  template <bool Owning>
  struct storage {
    // pos_bounds(p_{k-1}) -> [pos[p_{k-1}], pos[p_{k-1}+1])
    // pos_access(p_k)     -> crd[p_k]
    level_array<Pos, Owning> pos;
    level_array<Crd, Owning> crd;
  };

  // iterate(p_{k-1}) -> crd[pos[p] .. pos[p+1]) ascending
  template <skip_policy P, bool Owning>
  static coordinate_cursor<Crd, U == uniqueness::unique, P> iterate(const storage<Owning>& st,
                                                                     std::int64_t begin,
                                                                     std::int64_t) {
    return {st.crd.data(), static_cast<std::int64_t>(st.pos[begin]),
            static_cast<std::int64_t>(st.pos[begin + 1])};
  }

  // assemble: one position per distinct (parent, coordinate); per entry when non-unique
  static std::int64_t assemble(storage<true>& st, const level_build& in,
                               std::span<std::int64_t> position) {
    if (in.extent > 0)
      detail::check_fits<Crd>(in.extent - 1,
                              "largest coordinate of mode " + std::to_string(in.mode));
    const std::size_t nnz = in.coord.size();
    st.crd.reserve(nnz);
    st.pos.assign(static_cast<std::size_t>(in.parents) + 1, Pos(0));
    for (std::size_t e = 0; e < nnz; ++e) {
      const bool fresh = U == uniqueness::non_unique || e == 0 ||
                         in.parent[e] != in.parent[e - 1] || in.coord[e] != in.coord[e - 1];
      if (fresh) {
        st.crd.push_back(static_cast<Crd>(in.coord[e]));
        ++st.pos[static_cast<std::size_t>(in.parent[e]) + 1];
      }
      position[e] = static_cast<std::int64_t>(st.crd.size()) - 1;
    }
    detail::check_fits<Pos>(static_cast<std::int64_t>(st.crd.size()), "number of positions");
    for (std::size_t p = 1; p < st.pos.size(); ++p) st.pos[p] += st.pos[p - 1];
    return static_cast<std::int64_t>(st.crd.size());
  }
};

/// The unique compressed level with int64 positions and int32 coordinates.
using compressed = compressed_level<>;
/// The non-unique compressed level (first level of COO).
using compressed_nonunique = compressed_level<uniqueness::non_unique>;

}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_COMPRESSED_HPP
// ---- end <loom/format/levels/compressed.hpp>
// ---- begin <loom/format/levels/dense.hpp>
// Defines loom::dense_level and loom::dense: a level storing every coordinate (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_DENSE_HPP
#define LOOM_FORMAT_LEVELS_DENSE_HPP


#include <algorithm>
#include <cstdint>
#include <string>

namespace loom {

/// Every coordinate i in [0, n) of the parent at position p, at position `p * n + i`.
struct dense_cursor {
  std::int64_t base = 0, i = 0, n = 0;

  LOOM_FORCE_INLINE bool valid() const { return i < n; }
  LOOM_FORCE_INLINE std::int64_t index() const { return i; }
  LOOM_FORCE_INLINE level_range children() const { return {base + i, base + i + 1}; }
  LOOM_FORCE_INLINE level_range locate(std::int64_t j) const { return {base + j, base + j + 1}; }
  LOOM_FORCE_INLINE void seek(std::int64_t j) { i = std::max(i, j); }
  LOOM_FORCE_INLINE void seek_past(std::int64_t j) {
    i = j >= n ? n : std::max(i, j + 1);  // j may be the top index
  }
  LOOM_FORCE_INLINE void next() { ++i; }
};

/// Every coordinate in [0, extent) is present; positions are `parent * extent + i`.
/// `Extent` is static when given (it takes part in compile-time extent checks).
/// A format made only of full levels is addressed by strides, in any loop order.
template <std::size_t Extent = dynamic_extent>
struct dense_level {
  static constexpr level_properties properties{
      .full = true, .random_access = true, .padded = true};
  static constexpr std::size_t static_extent = Extent;
  static constexpr std::string_view name = "dense";

  template <bool Owning>
  struct storage {
    // locate(p_{k-1}, i) -> p_{k-1} * extent + i
    std::int64_t extent = 0;
  };

  template <skip_policy, bool Owning>
  static dense_cursor iterate(const storage<Owning>& st, std::int64_t begin, std::int64_t) {
    return {begin * st.extent, 0, st.extent};
  }

  static std::int64_t assemble(storage<true>& st, const level_build& in,
                               std::span<std::int64_t> position) {
    st.extent = in.extent;
    if (in.extent != 0 && in.parents > INT64_MAX / in.extent)
      throw overflow_error("loom: the dense level of mode " + std::to_string(in.mode) +
                           " would hold more than 2^63 positions");
    for (std::size_t e = 0; e < in.coord.size(); ++e)
      position[e] = in.parent[e] * in.extent + in.coord[e];
    return in.parents * in.extent;
  }
};

/// The dense level with a run-time extent.
using dense = dense_level<>;

}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_DENSE_HPP
// ---- end <loom/format/levels/dense.hpp>
// ---- begin <loom/format/levels/hashed.hpp>
// Defines loom::hashed_level and loom::hashed: a per-parent hash table over the coordinates,
// locate in O(1), iteration in coordinate order (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_HASHED_HPP
#define LOOM_FORMAT_LEVELS_HASHED_HPP


#include <cstdint>
#include <string>

namespace loom {

/// The hashed cursor: iterates like a coordinate segment, locates through the table.
template <class Pos, class Crd, skip_policy P>
struct hashed_cursor : coordinate_cursor<Crd, true, P> {
  const Pos* table = nullptr;    // slots of this parent: position + 1, or 0 when empty
  std::uint64_t mask = 0;        // capacity - 1; capacity 0 means no entries

  static LOOM_FORCE_INLINE std::uint64_t hash(std::int64_t i) {
    std::uint64_t h = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
  }
  // locate(i) -> {q, q+1} with crd[q] == i, probing linearly (load <= 1/2, so it terminates)
  LOOM_FORCE_INLINE level_range locate(std::int64_t i) const {
    if (table == nullptr) return {};
    for (std::uint64_t s = hash(i) & mask;; s = (s + 1) & mask) {
      const std::int64_t v = static_cast<std::int64_t>(table[s]);
      if (v == 0) return {};
      if (this->crd[v - 1] == i) return {v - 1, v};
    }
  }
};

/// Coordinates of parent p are looked up in a hash table (open addressing, capacity a power
/// of two at least twice the count) in O(1); positions [pos[p], pos[p+1]) keep the same
/// coordinates in ascending order, the sorted order that iteration needs. Assembly receives
/// entries sorted, so that order costs no sort; the table answers `locate`, so the planner
/// iterates the other operand and probes this one.
template <class Pos = std::int64_t, class Crd = std::int32_t>
struct hashed_level {
  static_assert(std::is_integral_v<Pos> && std::is_integral_v<Crd>,
                "loom::hashed_level: position and coordinate types must be integers");
  static constexpr level_properties properties{.random_access = true};
  static constexpr std::size_t static_extent = dynamic_extent;
  static constexpr std::string_view name = "hashed";
  using pos_type = Pos;
  using crd_type = Crd;

  template <bool Owning>
  struct storage {
    // pos_bounds(p_{k-1}) -> [pos[p], pos[p+1]); crd ascending within
    // locate(p_{k-1}, i)  -> table[slot_pos[p] ..  slot_pos[p+1]) probed from hash(i)
    level_array<Pos, Owning> pos;
    level_array<Crd, Owning> crd;
    level_array<Pos, Owning> slot_pos;
    level_array<Pos, Owning> table;
  };

  template <skip_policy P, bool Owning>
  static hashed_cursor<Pos, Crd, P> iterate(const storage<Owning>& st, std::int64_t begin,
                                            std::int64_t) {
    hashed_cursor<Pos, Crd, P> c;
    c.crd = st.crd.data();
    c.p = static_cast<std::int64_t>(st.pos[begin]);
    c.end = static_cast<std::int64_t>(st.pos[begin + 1]);
    const auto s0 = static_cast<std::int64_t>(st.slot_pos[begin]);
    const auto s1 = static_cast<std::int64_t>(st.slot_pos[begin + 1]);
    if (s1 > s0) {
      c.table = st.table.data() + s0;
      c.mask = static_cast<std::uint64_t>(s1 - s0 - 1);
    }
    return c;
  }

  static std::int64_t assemble(storage<true>& st, const level_build& in,
                               std::span<std::int64_t> position) {
    if (in.extent > 0)
      detail::check_fits<Crd>(in.extent - 1,
                              "largest coordinate of mode " + std::to_string(in.mode));
    const std::size_t nnz = in.coord.size();
    const auto parents = static_cast<std::size_t>(in.parents);
    st.crd.reserve(nnz);
    st.pos.assign(parents + 1, Pos(0));
    for (std::size_t e = 0; e < nnz; ++e) {
      if (e == 0 || in.parent[e] != in.parent[e - 1] || in.coord[e] != in.coord[e - 1]) {
        st.crd.push_back(static_cast<Crd>(in.coord[e]));
        ++st.pos[static_cast<std::size_t>(in.parent[e]) + 1];
      }
      position[e] = static_cast<std::int64_t>(st.crd.size()) - 1;
    }
    for (std::size_t p = 1; p <= parents; ++p) st.pos[p] += st.pos[p - 1];
    // tables: capacity the next power of two >= 2 * count (0 for an empty parent)
    st.slot_pos.assign(parents + 1, Pos(0));
    std::int64_t slots = 0;
    for (std::size_t p = 0; p < parents; ++p) {
      const std::int64_t count = static_cast<std::int64_t>(st.pos[p + 1] - st.pos[p]);
      std::int64_t cap = count == 0 ? 0 : 2;
      while (cap < 2 * count) cap *= 2;
      slots += cap;
      detail::check_fits<Pos>(slots, "number of hash slots");
      st.slot_pos[p + 1] = static_cast<Pos>(slots);
    }
    detail::check_fits<Pos>(static_cast<std::int64_t>(st.crd.size()) + 1, "number of positions");
    st.table.assign(static_cast<std::size_t>(slots), Pos(0));
    for (std::size_t p = 0; p < parents; ++p) {
      const auto base = static_cast<std::size_t>(st.slot_pos[p]);
      const auto mask = static_cast<std::uint64_t>(st.slot_pos[p + 1] - st.slot_pos[p]) - 1;
      const auto end = static_cast<std::int64_t>(st.pos[p + 1]);
      for (auto q = static_cast<std::int64_t>(st.pos[p]); q < end; ++q) {
        std::uint64_t s = hashed_cursor<Pos, Crd, skip_policy::linear>::hash(st.crd[q]) & mask;
        while (st.table[base + s] != 0) s = (s + 1) & mask;
        st.table[base + s] = static_cast<Pos>(q + 1);
      }
    }
    return static_cast<std::int64_t>(st.crd.size());
  }
};

/// The hashed level with int64 positions and int32 coordinates.
using hashed = hashed_level<>;

}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_HASHED_HPP
// ---- end <loom/format/levels/hashed.hpp>
// ---- begin <loom/format/levels/level.hpp>
// Defines the public level concept, loom::level_type, and its capability concepts (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_LEVEL_HPP
#define LOOM_FORMAT_LEVELS_LEVEL_HPP


#include <concepts>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

namespace loom {

/// A cursor walks the coordinates of one parent: `valid()`, `index()` (ascending, each at most
/// once), `children()` (the child positions of the current coordinate), `seek(i)` (to the first
/// coordinate >= i, never backwards), `seek_past(i)` (> i) and `next()`. A default-constructed
/// cursor is empty. Optional: `ready()` (false on a state that emits nothing; default true).
template <class C>
concept level_cursor = std::default_initializable<C> && std::copyable<C> &&
                       requires(C c, const C cc, std::int64_t i) {
                         { cc.valid() } -> std::same_as<bool>;
                         { cc.index() } -> std::convertible_to<std::int64_t>;
                         { cc.children() } -> std::same_as<level_range>;
                         c.seek(i);
                         c.seek_past(i);
                         c.next();
                       };

/// A storage level (DESIGN §5, docs/levels.md). Minimal complete definition:
/// - `properties` (a `level_properties`), `name`, `static_extent` (usually `dynamic_extent`);
/// - `storage<Owning>`: its arrays, `level_array<T, Owning>` (vectors, or spans in a view);
/// - `assemble(storage<true>&, const level_build&, std::span<std::int64_t> position)`: builds the
///   level from sorted unique entries and returns its number of positions;
/// - `iterate<P, Owning>(const storage<Owning>&, begin, end)`: a `level_cursor` over the
///   coordinates of the parent position `begin` (or of the run [begin, end) when segmented).
/// With `properties.random_access`, the cursor also has `locate(i) -> level_range` (empty when
/// absent) in O(1), and the planner may locate the level instead of iterating it. Optional:
/// `permutable = false` when the level cannot hold a copy with re-ordered modes (below).
template <class L>
concept level_type = requires(typename L::template storage<true>& st,
                              const typename L::template storage<true>& cst,
                              const level_build& in, std::span<std::int64_t> position) {
  { L::properties } -> std::convertible_to<level_properties>;
  { L::name } -> std::convertible_to<std::string_view>;
  { L::static_extent } -> std::convertible_to<std::size_t>;
  typename L::template storage<false>;
  { L::assemble(st, in, position) } -> std::same_as<std::int64_t>;
  { L::template iterate<skip_policy::linear>(cst, std::int64_t{}, std::int64_t{}) }
      -> level_cursor;
  { L::template iterate<skip_policy::galloping>(cst, std::int64_t{}, std::int64_t{}) }
      -> level_cursor;
};

/// Whether a level can store the entries of any tensor in whichever mode it is given, so that a
/// copy with the modes re-ordered (an operand transposed for the loop order) may keep it. True
/// unless the level declares `static constexpr bool permutable = false;`, as the loops of a
/// storage mapping do: a guarded range holds one region of one mode order (a triangle) and an
/// offset formula is written for one mode order (format/mapping/mapped_level.hpp).
template <class L>
inline constexpr bool level_is_permutable_v = [] {
  if constexpr (requires { L::permutable; }) return static_cast<bool>(L::permutable);
  else return true;
}();

/// A level whose cursor can locate a coordinate in O(1).
template <class L>
concept level_with_locate =
    level_type<L> && L::properties.random_access &&
    requires(const typename L::template storage<true>& st, std::int64_t i) {
      { L::template iterate<skip_policy::linear>(st, i, i).locate(i) } -> std::same_as<level_range>;
    };

}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_LEVEL_HPP
// ---- end <loom/format/levels/level.hpp>
// ---- begin <loom/format/levels/singleton.hpp>
// Defines loom::singleton_level and loom::singleton: one coordinate per parent position (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_SINGLETON_HPP
#define LOOM_FORMAT_LEVELS_SINGLETON_HPP


#include <string>

namespace loom {

/// Position p holds exactly one coordinate `crd[p]`; it follows a non-unique level, whose
/// segment [begin, end) it iterates (COO). Non-unique when more singleton levels follow.
template <uniqueness U = uniqueness::unique, class Crd = std::int32_t>
struct singleton_level {
  static_assert(std::is_integral_v<Crd>, "loom::singleton_level: coordinates must be integers");
  static constexpr level_properties properties{.unique = U == uniqueness::unique,
                                               .segmented = true};
  static constexpr std::size_t static_extent = dynamic_extent;
  static constexpr std::string_view name =
      U == uniqueness::unique ? "singleton" : "singleton(non-unique)";
  using crd_type = Crd;

  template <bool Owning>
  struct storage {
    // pos_access(p_k) -> crd[p_k], with p_k = p_{k-1}
    level_array<Crd, Owning> crd;
  };

  // iterate([begin, end)) -> crd[begin .. end), the run handed out by the non-unique parent
  template <skip_policy P, bool Owning>
  static coordinate_cursor<Crd, U == uniqueness::unique, P> iterate(const storage<Owning>& st,
                                                                     std::int64_t begin,
                                                                     std::int64_t end) {
    return {st.crd.data(), begin, end};
  }

  // assemble: the parent's position, one coordinate per entry
  static std::int64_t assemble(storage<true>& st, const level_build& in,
                               std::span<std::int64_t> position) {
    if (in.extent > 0)
      detail::check_fits<Crd>(in.extent - 1,
                              "largest coordinate of mode " + std::to_string(in.mode));
    st.crd.reserve(in.coord.size());
    for (std::size_t e = 0; e < in.coord.size(); ++e) {
      st.crd.push_back(static_cast<Crd>(in.coord[e]));
      position[e] = in.parent[e];
    }
    return static_cast<std::int64_t>(st.crd.size());
  }
};

using singleton = singleton_level<>;
using singleton_nonunique = singleton_level<uniqueness::non_unique>;

}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_SINGLETON_HPP
// ---- end <loom/format/levels/singleton.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <array>
#include <cstddef>
#include <utility>

namespace loom {

namespace detail {
template <class... Levels>
constexpr bool levels_are_well_formed() {
  constexpr std::array<level_properties, sizeof...(Levels)> props{Levels::properties...};
  for (std::size_t k = 0; k < props.size(); ++k) {
    // a segmented (singleton) level iterates a range handed out by a non-unique parent
    if (props[k].segmented && (k == 0 || props[k - 1].unique)) return false;
    // below a non-unique level, only singleton levels may follow
    if (k > 0 && !props[k - 1].unique && !props[k].segmented) return false;
  }
  return true;
}
// level kinds, for code that depends on a level's layout (in-place outputs, statistics)
template <class Level>
inline constexpr bool is_dense_level = false;
template <std::size_t E>
inline constexpr bool is_dense_level<dense_level<E>> = true;
template <class Level>
inline constexpr bool is_unique_compressed_level = false;
template <class Pos, class Crd>
inline constexpr bool is_unique_compressed_level<compressed_level<uniqueness::unique, Pos, Crd>> = true;
template <class Level>
inline constexpr bool is_bitmap_level = false;
template <class Crd>
inline constexpr bool is_bitmap_level<bitmap_level<Crd>> = true;
// dense levels over one innermost bitmap: every cell has its value slot and its presence bit
// at the same row-major position
template <class... Levels>
constexpr bool dense_over_bitmap() {
  constexpr std::size_t n = sizeof...(Levels);
  if constexpr (n == 0) {
    return false;
  } else {
    constexpr std::array<bool, n> full{Levels::properties.full...};
    constexpr std::array<bool, n> bitmap{is_bitmap_level<Levels>...};
    for (std::size_t k = 0; k + 1 < n; ++k)
      if (!full[k]) return false;
    return bitmap[n - 1];
  }
}
}  // namespace detail

/// A storage format: `Levels` from the outermost to the innermost, level k storing mode
/// `Modes[k]`. Use `format<L...>` (identity order) and `format<L...>::ordered<M...>`.
template <class LevelList, std::size_t... Modes>
struct format_spec;

template <class... Levels, std::size_t... Modes>
struct format_spec<boost::mp11::mp_list<Levels...>, Modes...> {
  static_assert(sizeof...(Levels) == sizeof...(Modes),
                "loom::format: give one mode per level in ordered<...>");
  static_assert((level_type<Levels> && ...),
                "loom::format: every level must model loom::level_type (properties, name, "
                "static_extent, storage<Owning>, assemble, iterate); see docs/levels.md");
  static constexpr std::size_t order = sizeof...(Levels);
  using levels = boost::mp11::mp_list<Levels...>;
  /// modes[k] is the logical mode stored at level k.
  static constexpr std::array<std::size_t, order> modes{Modes...};
  /// levels_of_mode[m] is the level that stores logical mode m.
  static constexpr std::array<std::size_t, order> level_of_mode = [] {
    std::array<std::size_t, order> inverse{};
    for (std::size_t k = 0; k < order; ++k) inverse[modes[k]] = k;
    return inverse;
  }();
  static_assert(
      [] {
        std::array<bool, order> seen{};
        for (std::size_t m : modes) {
          if (m >= order || seen[m]) return false;
          seen[m] = true;
        }
        return true;
      }(),
      "loom::format::ordered: the mode order must be a permutation of 0..N-1");
  static_assert(detail::levels_are_well_formed<Levels...>(),
                "loom::format: a singleton level must follow a non-unique level, and only "
                "singleton levels may follow a non-unique level");
  static constexpr std::array<level_properties, order> properties{Levels::properties...};
  static constexpr bool all_dense = (Levels::properties.full && ...);
  /// Dense levels over an innermost bitmap (`format<bitmap>`, `format<dense, bitmap>`): an
  /// output in it is written in place, like a dense one, setting the presence bit of each cell.
  static constexpr bool dense_over_bitmap = detail::dense_over_bitmap<Levels...>();
  /// Outputs in this format are located and accumulated in place (no entries collected).
  static constexpr bool written_in_place = all_dense || dense_over_bitmap;

  template <std::size_t... NewModes>
  using ordered = format_spec<levels, NewModes...>;
};

namespace detail {
template <class List, class Seq>
struct identity_format;
template <class... Levels, std::size_t... Is>
struct identity_format<boost::mp11::mp_list<Levels...>, std::index_sequence<Is...>> {
  using type = format_spec<boost::mp11::mp_list<Levels...>, Is...>;
};
template <std::size_t N, class... Levels>
struct repeat_levels {
  using type = boost::mp11::mp_repeat_c<boost::mp11::mp_list<Levels...>, N>;
};
}  // namespace detail

/// `format<Levels...>`: levels in logical mode order; `format<...>::ordered<M...>` permutes.
template <class... Levels>
using format = typename detail::identity_format<boost::mp11::mp_list<Levels...>,
                                                std::index_sequence_for<Levels...>>::type;

/// Satisfied by `format<...>` and `format<...>::ordered<...>`.
template <class F>
concept storage_format = requires {
  F::order;
  F::modes;
  typename F::levels;
};

using dense_vector = format<dense>;
using sparse_vector = format<compressed>;
using dense_matrix = format<dense, dense>;
using csr = format<dense, compressed>;
using csc = format<dense, compressed>::ordered<1, 0>;
using dcsr = format<compressed, compressed>;
using dcsc = format<compressed, compressed>::ordered<1, 0>;
using coo = format<compressed_nonunique, singleton>;

namespace detail {
template <std::size_t N>
struct coo_levels {
  using type = boost::mp11::mp_append<
      boost::mp11::mp_list<compressed_nonunique>,
      boost::mp11::mp_repeat_c<boost::mp11::mp_list<singleton_nonunique>, N - 2>,
      boost::mp11::mp_list<singleton>>;
};
template <class List>
struct format_from_list;
template <class... Levels>
struct format_from_list<boost::mp11::mp_list<Levels...>> {
  using type = format<Levels...>;
};
}  // namespace detail

/// Compressed sparse fiber: N compressed levels.
template <std::size_t N>
using csf = typename detail::format_from_list<
    boost::mp11::mp_repeat_c<boost::mp11::mp_list<compressed>, N>>::type;

/// N-dimensional coordinate format (N >= 2).
template <std::size_t N>
  requires(N >= 2)
using coo_n = typename detail::format_from_list<typename detail::coo_levels<N>::type>::type;

/// An N-dimensional all-dense format.
template <std::size_t N>
using dense_n = typename detail::format_from_list<
    boost::mp11::mp_repeat_c<boost::mp11::mp_list<dense>, N>>::type;

}  // namespace loom

#endif  // LOOM_FORMAT_FORMAT_HPP
// ---- end <loom/format/format.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace loom {

template <class T, storage_format Format, bool Owning>
class basic_tensor;

namespace detail {
// Defined in assemble.hpp.
template <class T, class Format>
basic_tensor<T, Format, true> assemble_sorted(
    const std::array<std::int64_t, Format::order>& shape,
    const std::vector<std::array<std::int64_t, Format::order>>& crd, std::vector<T>&& vals);
template <class To, class T, class From, bool FromOwning>
basic_tensor<T, To, true> convert_entries(const basic_tensor<T, From, FromOwning>& from);
// Defined in appender.hpp: refills an output's arrays in place, keeping their capacity.
template <class T, class Format>
class appender;

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
}  // namespace detail

/// A tensor of `T` stored in `Format`; `Owning` tensors hold their arrays, views borrow them.
/// Use the aliases `loom::tensor<T, Format>` and `loom::view<T, Format>`.
template <class T, storage_format Format, bool Owning = true>
class basic_tensor {
  template <class, storage_format, bool>
  friend class basic_tensor;
  template <class, class>
  friend class detail::appender;

 public:
  using value_type = T;
  using format_type = Format;
  static constexpr std::size_t order = Format::order;
  static constexpr bool owning = Owning;
  using shape_type = std::array<std::int64_t, order>;
  using coords_type = std::array<std::int64_t, order>;
  template <class Level>
  using storage_of = typename Level::template storage<Owning>;
  using level_storages = boost::mp11::mp_rename<
      boost::mp11::mp_transform<storage_of, typename Format::levels>, std::tuple>;
  using values_array = std::conditional_t<Owning, std::vector<T>, std::span<T>>;

  /// An empty tensor of shape 0 x ... x 0.
  basic_tensor() requires Owning : basic_tensor(shape_type{}) {}

  /// An all-zero tensor: dense levels are allocated and zero-filled, sparse levels are empty.
  explicit basic_tensor(const shape_type& shape) requires Owning : shape_(shape) {
    check_shape();
    build_empty();
  }
  /// A view or tensor from its parts (used by assembly and the `*_view` factories).
  basic_tensor(const shape_type& shape, level_storages levels, values_array values)
      : shape_(shape), levels_(std::move(levels)), values_(std::move(values)) {
    check_shape();
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
  /// Number of stored values (explicit zeros included; for dense formats, the product of
  /// extents; an innermost level that pads, such as a bitmap, may count its entries itself).
  std::int64_t nnz() const {
    if constexpr (order > 0) {
      using last = boost::mp11::mp_at_c<typename Format::levels, order - 1>;
      if constexpr (requires { last::stored_count(std::get<order - 1>(levels_)); })
        return last::stored_count(std::get<order - 1>(levels_));
    }
    return static_cast<std::int64_t>(values_.size());
  }

  template <std::size_t K>
  const auto& level() const { return std::get<K>(levels_); }
  template <std::size_t K>
  auto& level() {
    version_.bump();
    return std::get<K>(levels_);
  }
  const level_storages& levels() const { return levels_; }
  std::span<const T> values() const { return {values_.data(), values_.size()}; }
  std::span<T> values() requires(Owning || !std::is_const_v<T>) {
    version_.bump();
    return {values_.data(), values_.size()};
  }
  /// Changes whenever the tensor may have changed (any non-const access to its storage, an
  /// assignment, a move); with its address, identifies unchanged contents for caches.
  std::uint64_t version() const { return version_.value(); }
  /// Extent of the mode stored at level K.
  template <std::size_t K>
  std::int64_t level_extent() const { return shape_[Format::modes[K]]; }

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
  template <class F>
  void for_each_stored(F&& f) const {
    coords_type c{};
    if constexpr (order == 0) {
      if (!values_.empty()) f(c, values_[0]);
    } else {
      walk<0>(0, 1, c, f);
    }
  }

  /// `A(i, j)`: an access expression to use in index notation.
  template <index_variable... Is>
    requires(sizeof...(Is) == order)
  auto operator()(Is...) {
    return expr::access<basic_tensor, std::remove_cvref_t<Is>...>{this};
  }
  template <index_variable... Is>
    requires(sizeof...(Is) == order)
  auto operator()(Is...) const {
    return expr::access<const basic_tensor, std::remove_cvref_t<Is>...>{this};
  }

  /// Drops all entries (sparse) or zero-fills (dense), keeping the shape.
  void clear() requires Owning {
    version_.bump();
    build_empty();
  }

 private:
  void check_shape() const {
    for (std::size_t m = 0; m < order; ++m)
      if (shape_[m] < 0)
        throw shape_error("loom::tensor: extent of mode " + std::to_string(m) + " is negative (" +
                          std::to_string(shape_[m]) + ")");
  }

  void build_empty() {
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
    auto cur = level::template iterate<skip_policy::linear>(std::get<K>(levels_), begin, end);
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
    auto cur = level::template iterate<skip_policy::binary>(std::get<K>(levels_), begin, end);
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
    if constexpr (K + 1 == order) return r.begin;
    else return locate_level<K + 1>(r.begin, r.end, c);
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
};

/// An owning tensor: `loom::tensor<double, loom::csr> A({m, n});`
template <class T, storage_format Format>
using tensor = basic_tensor<T, Format, true>;

/// A zero-copy view over caller buffers: see `csr_view`, `dense_vector_view`.
template <class T, storage_format Format>
using view = basic_tensor<T, Format, false>;

namespace detail {
template <class X>
struct is_basic_tensor : std::false_type {};
template <class T, class F, bool O>
struct is_basic_tensor<basic_tensor<T, F, O>> : std::true_type {};
}  // namespace detail

/// Satisfied by `loom::tensor` and `loom::view` types.
template <class X>
concept tensor_type = detail::is_basic_tensor<std::remove_cvref_t<X>>::value;

}  // namespace loom

// Out-of-class members (assembly, conversion) need the complete class; see assemble.hpp.
// ---- begin <loom/format/assemble.hpp>
// Defines assembly: loom::from_coo, empty tensors, and conversion between formats (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_ASSEMBLE_HPP
#define LOOM_FORMAT_ASSEMBLE_HPP


#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <vector>

namespace loom {

/// What `from_coo` does with repeated coordinates.
enum class duplicates {
  sum,   ///< add the values in the value type's semiring
  last,  ///< keep the value that comes last in the input
  error  ///< throw loom::duplicate_error naming the coordinate
};

namespace detail {

template <std::size_t N>
std::string coords_to_string(const std::array<std::int64_t, N>& c) {
  std::string s = "(";
  for (std::size_t m = 0; m < N; ++m) s += (m ? "," : "") + std::to_string(c[m]);
  return s + ")";
}

/// Builds every level from entries sorted and unique in storage order (coords in storage order).
template <class T, class Format>
basic_tensor<T, Format, true> assemble_sorted(const std::array<std::int64_t, Format::order>& shape,
                                  const std::vector<std::array<std::int64_t, Format::order>>& crd,
                                  std::vector<T>&& vals) {
  constexpr std::size_t N = Format::order;
  using tensor_t = tensor<T, Format>;
  typename tensor_t::level_storages levels{};
  const std::size_t nnz = crd.size();
  std::vector<std::int64_t> parent(nnz, 0), current(nnz, 0), coord(nnz, 0);
  std::int64_t parent_count = 1;
  // each level builds itself from (parent position, coordinate) per entry: its assemble hook
  auto build = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
    using level = boost::mp11::mp_at_c<typename Format::levels, K>;
    const std::int64_t extent = shape[Format::modes[K]];
    if constexpr (level::static_extent != dynamic_extent) {
      if (extent != static_cast<std::int64_t>(level::static_extent))
        throw shape_error("loom: mode " + std::to_string(Format::modes[K]) + " has extent " +
                          std::to_string(extent) + " but its dense level is fixed at " +
                          std::to_string(level::static_extent));
    }
    for (std::size_t e = 0; e < nnz; ++e) coord[e] = crd[e][K];
    const level_build in{Format::modes[K], extent, parent_count, parent, coord};
    parent_count = level::assemble(std::get<K>(levels), in, std::span<std::int64_t>(current));
    std::swap(parent, current);
  };
  [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
    (build(std::integral_constant<std::size_t, Ks>{}), ...);
  }(std::make_index_sequence<N>{});
  bool identity = nnz == static_cast<std::size_t>(parent_count);
  for (std::size_t e = 0; identity && e < nnz; ++e)
    identity = parent[e] == static_cast<std::int64_t>(e);
  std::vector<T> values;
  if (identity) {
    values = std::move(vals);  // one position per entry, in entry order
  } else {
    values.assign(static_cast<std::size_t>(parent_count), semiring_traits<T>::zero());
    for (std::size_t e = 0; e < nnz; ++e) values[static_cast<std::size_t>(parent[e])] = vals[e];
  }
  return tensor_t(shape, std::move(levels), std::move(values));
}

/// Sorts entries (coords already permuted to storage order) and merges duplicates by `policy`.
template <class T, std::size_t N>
void sort_and_merge(std::vector<std::array<std::int64_t, N>>& crd, std::vector<T>& vals,
                    duplicates policy, const std::array<std::size_t, N>& modes,
                    bool already_sorted) {
  const std::size_t nnz = crd.size();
  if (!already_sorted) {
    std::vector<std::size_t> perm(nnz);
    std::iota(perm.begin(), perm.end(), std::size_t{0});
    std::stable_sort(perm.begin(), perm.end(),
                     [&](std::size_t a, std::size_t b) { return crd[a] < crd[b]; });
    std::vector<std::array<std::int64_t, N>> c2(nnz);
    std::vector<T> v2(nnz);
    for (std::size_t e = 0; e < nnz; ++e) {
      c2[e] = crd[perm[e]];
      v2[e] = vals[perm[e]];
    }
    crd.swap(c2);
    vals.swap(v2);
  }
  std::size_t out = 0;
  for (std::size_t e = 0; e < nnz; ++e) {
    if (out > 0 && crd[out - 1] == crd[e]) {
      if (policy == duplicates::error) {
        std::array<std::int64_t, N> logical{};
        for (std::size_t k = 0; k < N; ++k) logical[modes[k]] = crd[e][k];
        throw duplicate_error("loom::from_coo: duplicate coordinate " +
                              coords_to_string(logical) +
                              " (use loom::duplicates::sum or ::last to accept duplicates)");
      }
      vals[out - 1] = policy == duplicates::sum ? semiring_traits<T>::add(vals[out - 1], vals[e])
                                                : vals[e];
    } else {
      crd[out] = crd[e];
      vals[out] = vals[e];
      ++out;
    }
  }
  crd.resize(out);
  vals.resize(out);
}

}  // namespace detail

/// Builds a tensor in `Format` from coordinates in any order; `coords[e]` are logical
/// coordinates of `values[e]`. Throws `shape_error` for coordinates outside `shape`,
/// `duplicate_error` under `duplicates::error`, `overflow_error` when a width is too small.
template <storage_format Format, class T>
tensor<T, Format> from_coo(const std::array<std::int64_t, Format::order>& shape,
                           const std::vector<std::array<std::int64_t, Format::order>>& coords,
                           const std::vector<T>& values, duplicates policy = duplicates::error) {
  constexpr std::size_t N = Format::order;
  if (coords.size() != values.size())
    throw shape_error("loom::from_coo: " + std::to_string(coords.size()) + " coordinates but " +
                      std::to_string(values.size()) + " values");
  std::vector<std::array<std::int64_t, N>> crd(coords.size());
  bool sorted = true;
  for (std::size_t e = 0; e < coords.size(); ++e) {
    for (std::size_t m = 0; m < N; ++m) {
      if (coords[e][m] < 0 || coords[e][m] >= shape[m])
        throw shape_error("loom::from_coo: entry " + std::to_string(e) + " has coordinate " +
                          detail::coords_to_string(coords[e]) + " outside the shape " +
                          detail::coords_to_string(shape) + " (mode " + std::to_string(m) + ")");
    }
    for (std::size_t k = 0; k < N; ++k) crd[e][k] = coords[e][Format::modes[k]];
    if (e > 0 && !(crd[e - 1] < crd[e])) sorted = false;
  }
  std::vector<T> vals(values);
  detail::sort_and_merge(crd, vals, policy, Format::modes, sorted);
  return detail::assemble_sorted<T, Format>(shape, crd, std::move(vals));
}

namespace detail {
/// Copies a dense array of `extent` (row-major) to `to`, cell c going to sum(c[k] * stride[k]).
template <class T, std::size_t N>
void permute_dense(const T* from, T* to, const std::array<std::int64_t, N>& extent,
                   const std::array<std::int64_t, N>& stride) {
  if constexpr (N == 2) {  // blocked, so that both sides stay in cache
    constexpr std::int64_t block = 32;
    for (std::int64_t r0 = 0; r0 < extent[0]; r0 += block)
      for (std::int64_t c0 = 0; c0 < extent[1]; c0 += block)
        for (std::int64_t r = r0; r < std::min(r0 + block, extent[0]); ++r)
          for (std::int64_t c = c0; c < std::min(c0 + block, extent[1]); ++c)
            to[r * stride[0] + c * stride[1]] = from[r * extent[1] + c];
  } else {
    std::int64_t total = 1;
    for (std::int64_t e : extent) total *= e;
    std::array<std::int64_t, N> c{};
    std::int64_t at = 0;
    for (std::int64_t x = 0; x < total; ++x) {
      to[at] = from[x];
      for (std::size_t k = N; k-- > 0;) {  // odometer
        at += stride[k];
        if (++c[k] < extent[k]) break;
        at -= c[k] * stride[k];
        c[k] = 0;
      }
    }
  }
}

template <class To, class T, class From, bool FromOwning>
basic_tensor<T, To, true> convert_entries(const basic_tensor<T, From, FromOwning>& other) {
  constexpr std::size_t N = To::order;
  if constexpr (N > 0 && From::all_dense && To::all_dense) {
    // dense to dense (a transposition): every cell moves to its place, nothing to sort
    basic_tensor<T, To, true> out(other.shape());
    std::array<std::int64_t, N> to_stride{}, extent{}, stride{};
    std::int64_t s = 1;
    for (std::size_t k = N; k-- > 0;) {
      to_stride[To::modes[k]] = s;
      s *= other.extent(To::modes[k]);
    }
    for (std::size_t k = 0; k < N; ++k) {  // per level of `other`
      extent[k] = other.extent(From::modes[k]);
      stride[k] = to_stride[From::modes[k]];
    }
    permute_dense(other.values().data(), out.values().data(), extent, stride);
    return out;
  }
  std::vector<std::array<std::int64_t, N>> crd;
  std::vector<T> vals;
  crd.reserve(static_cast<std::size_t>(other.nnz()));
  vals.reserve(static_cast<std::size_t>(other.nnz()));
  // padding zeros of a dense or banded innermost level are not entries; other stored zeros are
  constexpr bool drop_zeros = From::properties[N - 1].full || From::properties[N - 1].padded;
  bool sorted = true;
  other.for_each_stored([&](const auto& c, const T& v) {
    if (drop_zeros && v == semiring_traits<T>::zero()) return;
    std::array<std::int64_t, N> s{};
    for (std::size_t k = 0; k < N; ++k) s[k] = c[To::modes[k]];
    if (!crd.empty() && !(crd.back() < s)) sorted = false;
    crd.push_back(s);
    vals.push_back(v);
  });
  sort_and_merge(crd, vals, duplicates::sum, To::modes, sorted);
  return assemble_sorted<T, To>(other.shape(), crd, std::move(vals));
}
}  // namespace detail

/// The same entries in another format: `auto B = loom::convert<loom::csc>(A);`
template <storage_format To, class T, storage_format From, bool Owning>
tensor<T, To> convert(const basic_tensor<T, From, Owning>& from) {
  return tensor<T, To>(from);
}

}  // namespace loom

#endif  // LOOM_FORMAT_ASSEMBLE_HPP
// ---- end <loom/format/assemble.hpp>

#endif  // LOOM_FORMAT_TENSOR_HPP
// ---- end <loom/format/tensor.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace loom::detail {

// Levels the appender builds online; a format with any other level (hashed, bitmap, banded, a
// user level) buffers its entries and assembles them through the levels' hooks at the end.
template <class L>
inline constexpr bool appends_online = false;
template <std::size_t E>
inline constexpr bool appends_online<dense_level<E>> = true;
template <uniqueness U, class P, class C>
inline constexpr bool appends_online<compressed_level<U, P, C>> = true;
template <uniqueness U, class C>
inline constexpr bool appends_online<singleton_level<U, C>> = true;
template <class Levels>
inline constexpr bool all_append_online = false;
template <class... Ls>
inline constexpr bool all_append_online<boost::mp11::mp_list<Ls...>> = (appends_online<Ls> && ...);

/// Whether a format is one dense level over one compressed unique level (csr, csc), which the
/// appender can fill by a counting sort on the row (`appender::fill_by_rows`).
template <class Format>
inline constexpr bool rows_of_columns = [] {
  if constexpr (Format::order == 2 && all_append_online<typename Format::levels>) {
    using outer = boost::mp11::mp_at_c<typename Format::levels, 0>;
    using inner = boost::mp11::mp_at_c<typename Format::levels, 1>;
    return outer::properties.full && !inner::properties.full && !inner::properties.segmented &&
           inner::properties.unique;
  } else {
    return false;
  }
}();

/// The position and coordinate types of a csr-like format's compressed level.
template <class Format, bool = rows_of_columns<Format>>
struct row_arrays {
  using pos_type = std::int64_t;
  using crd_type = std::int64_t;
};
template <class Format>
struct row_arrays<Format, true> {
  using pos_type = typename boost::mp11::mp_at_c<typename Format::levels, 1>::pos_type;
  using crd_type = typename boost::mp11::mp_at_c<typename Format::levels, 1>::crd_type;
};

/// The end of a vector that a hot loop appends to: `push` is a compare and a store, inlined
/// (std::vector::push_back stayed out of line in the kernels' loops: 19% of A∘B's samples). The
/// vector's size runs ahead of the entries by at most one chunk, value-initialised just before
/// it is written (the pages are touched once either way); `close` trims it. Capacity is kept,
/// so a kernel that writes the same output again allocates nothing.
template <class X>
struct append_array {
  std::vector<X>* v = nullptr;
  X* cur = nullptr;
  X* lim = nullptr;

  /// Appends after the vector's current elements.
  void attach(std::vector<X>& vec) {
    v = &vec;
    cur = vec.data() + vec.size();
    lim = cur;
  }
  LOOM_FORCE_INLINE void push(const X& x) {
    if (cur == lim) [[unlikely]] {
      const auto [c, l] = grow(v, cur);
      cur = c;
      lim = l;
    }
    *cur++ = x;
  }
  std::size_t size() const { return static_cast<std::size_t>(cur - v->data()); }
  /// The vector holds exactly the pushed elements.
  void close() { v->resize(size()); }

 private:
  // out of line, and given values rather than `this`, so that a writer held in a kernel's
  // local sink stays in registers
  [[gnu::noinline]] static std::pair<X*, X*> grow(std::vector<X>* v, X* cur) {
    constexpr std::size_t chunk = 4096;
    const auto n = static_cast<std::size_t>(cur - v->data());  // == v->size(): the chunk is full
    if (n == v->capacity()) v->reserve(std::max<std::size_t>(2 * n, chunk));
    v->resize(std::min(v->capacity(), n + chunk));
    return {v->data() + n, v->data() + v->size()};
  }
};

/// Appends entries in storage order (coordinates per level, ascending, no repeats) straight
/// into level arrays, as TACO's assembly does: no intermediate coordinate list. Given the
/// output it replaces, it refills that output's arrays (cleared, capacity kept).
template <class T, class Format>
class appender {
 public:
  static constexpr std::size_t N = Format::order;
  using tensor_type = basic_tensor<T, Format, true>;

  static constexpr bool online = all_append_online<typename Format::levels>;
  /// csr-like (one dense level over one compressed unique level): an entry is a count in its
  /// row's `pos` slot and a store in `crd` and the values, like the hand-written loop.
  static constexpr bool by_rows = loom::detail::rows_of_columns<Format>;

  explicit appender(const std::array<std::int64_t, N>& shape, tensor_type* recycled = nullptr)
      : shape_(shape) {
    if constexpr (online) {
      if (recycled != nullptr) {  // take the old arrays, keep their capacity
        levels_ = std::move(recycled->levels_);
        values_ = std::move(recycled->values_);
        recycled->version_.bump();
        [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
          (clear_level(std::get<Ks>(levels_)), ...);
        }(std::make_index_sequence<N>{});
        values_.clear();
      }
      [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
        ((level_extent_[Ks] = shape_[Format::modes[Ks]]), ...);
        (init_level<Ks>(), ...);
      }(std::make_index_sequence<N>{});
      if constexpr (by_rows) attach_rows();
    }
  }

  /// Reserves room for about `entries` entries (an estimate; capacity already held is kept).
  void reserve(std::size_t entries) {
    if constexpr (!online) {
      buffer_.crd.reserve(entries);
      buffer_.vals.reserve(entries);
      return;
    } else [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      (
          [&] {
            if constexpr (!level<Ks>::properties.full) std::get<Ks>(levels_).crd.reserve(entries);
          }(),
          ...);
    }(std::make_index_sequence<N>{});
    if constexpr (online && !Format::properties[N - 1].full) values_.reserve(entries);
    if constexpr (by_rows) attach_rows();
  }

  /// Appends one entry; `c[k]` is the coordinate of level k.
  LOOM_FORCE_INLINE void push(const std::array<std::int64_t, N>& c, const T& v) {
    if constexpr (!online) {
      buffer_.crd.push_back(c);
      buffer_.vals.push_back(v);
    } else if constexpr (by_rows) {
      ++row_counts_[c[0] + 1];
      crd_out_.push(static_cast<typename level<1>::crd_type>(c[1]));
      values_out_.push(v);
    } else {
      push_online(c, v);
    }
  }

  /// The appends of a csr-like output as a value (`by_rows`): the row counts and the ends of
  /// `crd` and the values. An in-order kernel's sink holds it from its first entry to its last
  /// (`take_writer`, `return_writer`), so that the ends live in registers, not in the appender.
  struct row_writer {
    typename row_arrays<Format>::pos_type* counts;
    append_array<typename row_arrays<Format>::crd_type> crd;
    append_array<T> values;
    LOOM_FORCE_INLINE void push(std::int64_t row, std::int64_t column, const T& v) {
      ++counts[row + 1];
      crd.push(static_cast<typename row_arrays<Format>::crd_type>(column));
      values.push(v);
    }
  };
  row_writer take_writer()
    requires by_rows
  {
    return {row_counts_, crd_out_, values_out_};
  }
  void return_writer(const row_writer& w)
    requires by_rows
  {
    crd_out_ = w.crd;
    values_out_ = w.values;
  }

  /// `out` takes `pattern`'s levels (copied into its own arrays, capacity kept) and its values
  /// are refilled by `run(values)`, which pushes one value per entry of `pattern`, in order, to
  /// the `append_array<T>` it is given. False, with `out` to be rebuilt by the caller, when the
  /// count differs (a reduction that emitted nothing).
  template <class Run>
  static bool fill_values_on_pattern(tensor_type& out, const tensor_type& pattern, Run&& run) {
    out.version_.bump();
    out.levels_ = pattern.levels_;
    append_array<T> values;
    out.values_.clear();
    values.attach(out.values_);
    run(values);
    values.close();
    return out.values_.size() == pattern.values_.size();
  }

  /// Whether `fill_by_rows` can fill the format.
  static constexpr bool rows_of_columns = loom::detail::rows_of_columns<Format>;

  /// Fills an appender that holds nothing yet with `n` entries: entry e is at `row(e)`,
  /// `column(e)` with value `value(e)`. Rows come in any order; within a row, columns ascend
  /// and repeat only next to each other (repeats are added). A counting sort on the row writes
  /// straight into the level arrays, as a hand-written CSR transpose does: no sort and no
  /// per-entry bookkeeping (a transpose's flush spent 5 ns per entry in `push`).
  template <class Row, class Column, class Value>
  void fill_by_rows(std::size_t n, Row row, Column column, Value value, bool may_repeat)
    requires rows_of_columns
  {
    auto& st = std::get<1>(levels_);
    const auto rows = static_cast<std::size_t>(level_extent_[0]);
    st.pos.assign(rows + 1, 0);
    for (std::size_t e = 0; e < n; ++e) ++st.pos[static_cast<std::size_t>(row(e)) + 1];
    typename level<1>::pos_type start = 0;  // pos[r + 1]: where row r starts, then its end
    for (std::size_t r = 1; r <= rows; ++r) start += std::exchange(st.pos[r], start);
    st.crd.resize(n);
    values_.resize(n);
    for (std::size_t e = 0; e < n; ++e) {
      const auto q = static_cast<std::size_t>(st.pos[static_cast<std::size_t>(row(e)) + 1]++);
      st.crd[q] = static_cast<typename level<1>::crd_type>(column(e));
      values_[q] = value(e);
    }
    // back to counts per row (finish_level sums them), merging repeats on the way
    std::size_t kept = n;
    if (!may_repeat) {
      for (std::size_t r = rows; r >= 1; --r) st.pos[r] -= st.pos[r - 1];
    } else {
      kept = 0;
      for (std::size_t r = 1, begin = 0; r <= rows; ++r) {
        const auto end = static_cast<std::size_t>(st.pos[r]);
        const std::size_t first = kept;
        for (std::size_t q = begin; q < end; ++q) {
          if (kept > first && st.crd[kept - 1] == st.crd[q]) {
            values_[kept - 1] = semiring_traits<T>::add(values_[kept - 1], values_[q]);
          } else {
            st.crd[kept] = st.crd[q];
            values_[kept++] = values_[q];
          }
        }
        st.pos[r] = static_cast<typename level<1>::pos_type>(kept - first);
        begin = end;
      }
      st.crd.resize(kept);
      values_.resize(kept);
    }
    count_ = static_cast<std::int64_t>(kept);
    attach_rows();
  }

  /// The finished tensor (dense levels padded, `pos` arrays completed).
  tensor_type finish() && {
    if constexpr (!online) {
      return assemble_sorted<T, Format>(shape_, buffer_.crd, std::move(buffer_.vals));
    } else {
      return std::move(*this).finish_online();
    }
  }

 private:
  LOOM_FORCE_INLINE void push_online(const std::array<std::int64_t, N>& c, const T& v) {
    std::size_t first = 0;  // first level whose coordinate differs from the previous entry
    if (count_ > 0)
      while (first < N && c[first] == last_[first]) ++first;
    push_levels<0>(c, first);
    last_ = c;
    ++count_;
    const std::int64_t p = position_[N - 1];
    if constexpr (Format::properties[N - 1].full) {
      if (static_cast<std::int64_t>(values_.size()) <= p)
        values_.resize(static_cast<std::size_t>(p) + 1, semiring_traits<T>::zero());
      values_[static_cast<std::size_t>(p)] = v;
    } else {
      values_.push_back(v);
    }
  }

  tensor_type finish_online() && {
    if constexpr (by_rows) {
      crd_out_.close();
      values_out_.close();
    }
    std::int64_t parents = 1;
    [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      (finish_level<Ks>(parents), ...);
    }(std::make_index_sequence<N>{});
    if (Format::properties[N - 1].full)
      values_.resize(static_cast<std::size_t>(parents), semiring_traits<T>::zero());
    return tensor_type(shape_, std::move(levels_), std::move(values_));
  }

  template <std::size_t K>
  using level = boost::mp11::mp_at_c<typename Format::levels, K>;

  template <class Storage>
  static void clear_level(Storage& st) {
    if constexpr (requires { st.pos.clear(); }) st.pos.clear();
    if constexpr (requires { st.crd.clear(); }) st.crd.clear();
  }
  // the row counts sized once (rows + 1), the appends aimed at the arrays' ends
  void attach_rows() requires by_rows {
    auto& st = std::get<1>(levels_);
    const auto slots = static_cast<std::size_t>(level_extent_[0]) + 1;
    if (st.pos.size() != slots) st.pos.assign(slots, 0);
    row_counts_ = st.pos.data();
    crd_out_.attach(st.crd);
    values_out_.attach(values_);
  }

  template <std::size_t K>
  void init_level() {
    if constexpr (level<K>::properties.full) {
      std::get<K>(levels_).extent = level_extent_[K];
    } else if (level_extent_[K] > 0 && !fits_in<typename level<K>::crd_type>(level_extent_[K] - 1)) {
      check_fits<typename level<K>::crd_type>(level_extent_[K] - 1,
                                              "largest coordinate of mode " +
                                                  std::to_string(Format::modes[K]));
    }
  }

  template <std::size_t K>
  LOOM_FORCE_INLINE void push_levels(const std::array<std::int64_t, N>& c, std::size_t first) {
    if constexpr (K < N) {
      const std::int64_t parent = K == 0 ? 0 : position_[K - 1];
      auto& st = std::get<K>(levels_);
      if constexpr (level<K>::properties.full) {
        position_[K] = parent * level_extent_[K] + c[K];
      } else if constexpr (level<K>::properties.segmented) {
        st.crd.push_back(static_cast<typename level<K>::crd_type>(c[K]));
        position_[K] = static_cast<std::int64_t>(st.crd.size()) - 1;
      } else {
        // a new position when this level or one above changed (non-unique: always)
        if (K >= first || !level<K>::properties.unique || count_ == 0) {
          st.crd.push_back(static_cast<typename level<K>::crd_type>(c[K]));
          const auto slot = static_cast<std::size_t>(parent) + 1;
          if (st.pos.size() <= slot) st.pos.resize(slot + 1, 0);
          ++st.pos[slot];
        }
        position_[K] = static_cast<std::int64_t>(st.crd.size()) - 1;
      }
      push_levels<K + 1>(c, first);
    }
  }

  template <std::size_t K>
  void finish_level(std::int64_t& parents) {
    auto& st = std::get<K>(levels_);
    if constexpr (level<K>::properties.full) {
      parents *= level_extent_[K];
    } else if constexpr (level<K>::properties.segmented) {
      parents = static_cast<std::int64_t>(st.crd.size());
    } else {
      check_fits<typename level<K>::pos_type>(static_cast<std::int64_t>(st.crd.size()),
                                              "number of positions");
      st.pos.resize(static_cast<std::size_t>(parents) + 1, 0);
      for (std::size_t p = 1; p < st.pos.size(); ++p) st.pos[p] += st.pos[p - 1];
      parents = static_cast<std::int64_t>(st.crd.size());
    }
  }

  std::array<std::int64_t, N> shape_{};
  std::array<std::int64_t, N> level_extent_{};
  typename tensor_type::level_storages levels_{};
  std::vector<T> values_;
  std::array<std::int64_t, N> last_{};
  std::array<std::int64_t, N> position_{};
  std::int64_t count_ = 0;
  // by_rows: the rows' counts (pos + 1) and the ends of crd and the values
  struct no_cursor {};
  typename row_arrays<Format>::pos_type* row_counts_ = nullptr;
  [[no_unique_address]] std::conditional_t<by_rows, append_array<typename row_arrays<Format>::crd_type>,
                                           no_cursor> crd_out_{};
  [[no_unique_address]] std::conditional_t<by_rows, append_array<T>, no_cursor> values_out_{};
  struct entries {
    std::vector<std::array<std::int64_t, N>> crd;
    std::vector<T> vals;
  } buffer_;  // used when !online
};

}  // namespace loom::detail

#endif  // LOOM_FORMAT_APPENDER_HPP
// ---- end <loom/format/appender.hpp>
// ---- begin <loom/format/view.hpp>
// Defines the zero-copy view factories: csr_view, csc_view, dense_vector_view, dense_matrix_view
// (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_VIEW_HPP
#define LOOM_FORMAT_VIEW_HPP


#include <cstdint>
#include <span>
#include <string>

namespace loom {

namespace detail {
template <class Pos, class Crd, class T>
void check_compressed_view(std::int64_t outer, std::int64_t inner, std::span<const Pos> pos,
                           std::span<const Crd> crd, std::span<T> vals, const char* who) {
  auto fail = [&](const std::string& what) {
    throw shape_error(std::string("loom::") + who + ": " + what);
  };
  if (static_cast<std::int64_t>(pos.size()) != outer + 1)
    fail("pos has " + std::to_string(pos.size()) + " entries, expected " +
         std::to_string(outer + 1));
  if (pos[0] != 0) fail("pos[0] must be 0");
  for (std::int64_t p = 0; p < outer; ++p)
    if (pos[p + 1] < pos[p]) fail("pos is not non-decreasing at " + std::to_string(p));
  if (static_cast<std::int64_t>(crd.size()) != static_cast<std::int64_t>(pos[outer]) ||
      crd.size() != vals.size())
    fail("crd (" + std::to_string(crd.size()) + ") and values (" + std::to_string(vals.size()) +
         ") must both have pos[last] = " + std::to_string(pos[outer]) + " entries");
  for (std::int64_t p = 0; p < outer; ++p)
    for (std::int64_t q = pos[p]; q < pos[p + 1]; ++q) {
      if (crd[q] < 0 || crd[q] >= inner)
        fail("coordinate " + std::to_string(crd[q]) + " at position " + std::to_string(q) +
             " is outside the extent " + std::to_string(inner));
      if (q > pos[p] && crd[q] <= crd[q - 1])
        fail("coordinates of segment " + std::to_string(p) + " are not strictly ascending");
    }
}
}  // namespace detail

/// A CSR view over caller arrays (validated once, never copied).
template <class T, class Pos = std::int64_t, class Crd = std::int32_t>
auto csr_view(std::int64_t rows, std::int64_t cols, std::type_identity_t<std::span<const Pos>> pos,
              std::type_identity_t<std::span<const Crd>> crd, std::type_identity_t<std::span<T>> vals) {
  using fmt = format<dense, compressed_level<uniqueness::unique, Pos, Crd>>;
  detail::check_compressed_view(rows, cols, pos, crd, vals, "csr_view");
  typename view<T, fmt>::level_storages levels{};
  std::get<0>(levels).extent = rows;
  std::get<1>(levels).pos = pos;
  std::get<1>(levels).crd = crd;
  return view<T, fmt>({rows, cols}, levels, vals);
}

/// A CSC view over caller arrays.
template <class T, class Pos = std::int64_t, class Crd = std::int32_t>
auto csc_view(std::int64_t rows, std::int64_t cols, std::type_identity_t<std::span<const Pos>> pos,
              std::type_identity_t<std::span<const Crd>> crd, std::type_identity_t<std::span<T>> vals) {
  using fmt =
      typename format<dense, compressed_level<uniqueness::unique, Pos, Crd>>::template ordered<1, 0>;
  detail::check_compressed_view(cols, rows, pos, crd, vals, "csc_view");
  typename view<T, fmt>::level_storages levels{};
  std::get<0>(levels).extent = cols;
  std::get<1>(levels).pos = pos;
  std::get<1>(levels).crd = crd;
  return view<T, fmt>({rows, cols}, levels, vals);
}

/// A dense vector view (writable when T is not const).
template <class T>
auto dense_vector_view(std::type_identity_t<std::span<T>> vals) {
  typename view<T, dense_vector>::level_storages levels{};
  std::get<0>(levels).extent = static_cast<std::int64_t>(vals.size());
  return view<T, dense_vector>({static_cast<std::int64_t>(vals.size())}, levels, vals);
}

/// A row-major dense matrix view.
template <class T>
auto dense_matrix_view(std::int64_t rows, std::int64_t cols, std::type_identity_t<std::span<T>> vals) {
  if (rows * cols != static_cast<std::int64_t>(vals.size()))
    throw shape_error("loom::dense_matrix_view: " + std::to_string(vals.size()) +
                      " values for a " + std::to_string(rows) + "x" + std::to_string(cols) +
                      " matrix");
  typename view<T, dense_matrix>::level_storages levels{};
  std::get<0>(levels).extent = rows;
  std::get<1>(levels).extent = cols;
  return view<T, dense_matrix>({rows, cols}, levels, vals);
}

}  // namespace loom

#endif  // LOOM_FORMAT_VIEW_HPP
// ---- end <loom/format/view.hpp>

#endif  // LOOM_FORMAT_HPP
// ---- end <loom/format.hpp>
// ---- begin <loom/format/mapping.hpp>
// Umbrella header of format/mapping/: storage mappings (STOREL), the shipped library of
// mappings and the factories over physical arrays.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MAPPING_HPP
#define LOOM_FORMAT_MAPPING_HPP

// ---- begin <loom/format/mapping/definition.hpp>
// Defines loom::mapping::define<"name">(loops..., values(e)): a storage mapping, the logical
// tensor as an index-notation expression over physical arrays (STOREL's TSM), and format_of,
// the loom format it compiles to (format/mapping/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MAPPING_DEFINITION_HPP
#define LOOM_FORMAT_MAPPING_DEFINITION_HPP

// ---- begin <loom/format/mapping/index_expr.hpp>
// Defines the index arithmetic of storage mappings: index values, loop positions, constants,
// array reads, + - * / min max interleave, and guards (format/mapping/). Nodes are empty types;
// `eval` computes them inside one generated level, `show` prints them for explain.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MAPPING_INDEX_EXPR_HPP
#define LOOM_FORMAT_MAPPING_INDEX_EXPR_HPP


#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>

namespace loom::mapping {

using boost::mp11::mp_list;

/// Base of every index-arithmetic node (operators below apply to its descendants only).
struct node_base {};
template <class T>
concept node = std::derived_from<std::remove_cvref_t<T>, node_base>;

/// The value of index variable I (a `loom::index`).
template <class I>
struct var_node : node_base {};
/// The position bound by I's loop: the stored position of a segment, the index of a range.
template <class I>
struct pos_node : node_base {};
/// An integer constant.
template <std::int64_t N>
struct lit : node_base {};
/// The extent of the mode the enclosing loop stores.
struct extent_node : node_base {};
/// Element E of physical array Arr.
template <class Arr, class E>
struct load : node_base {};
/// a Op b, Op one of + - * / m (min) M (max) z (interleave bits: a even, b odd).
template <char Op, class A, class B>
struct bin : node_base {};

/// A guard `a Op b` (Op one of < l(<=) > g(>=)); a loop folds it into its bounds.
template <char Op, class A, class B>
struct guard {};

/// A physical array of `T` named `Name`: `arr(e)` reads one element, `arr.slice(lo, hi)` is the
/// segment [lo, hi) of a loop over stored coordinates.
template <fixed_string Name, class T = std::int64_t>
struct array {
  using value_type = T;
  static constexpr std::string_view name = Name.view();
  template <node E>
  constexpr load<array, std::remove_cvref_t<E>> operator()(E) const {
    return {};
  }
  template <node Lo, node Hi>
  constexpr auto slice(Lo, Hi) const;
};

/// The segment [Lo, Hi) of array Arr: a loop over it binds each stored coordinate.
template <class Arr, class Lo, class Hi>
struct slice_of {
  using array_type = Arr;
  using lo = Lo;
  using hi = Hi;
};

/// `var(i)`: index i inside a mapping; `pos(i)`: its loop's position; `extent`: the mode's extent.
template <index_variable I>
constexpr var_node<std::remove_cvref_t<I>> var(I) {
  return {};
}
template <index_variable I>
constexpr pos_node<std::remove_cvref_t<I>> pos(I) {
  return {};
}
inline constexpr extent_node extent{};
template <std::int64_t N>
inline constexpr lit<N> c{};

template <node A, node B>
constexpr bin<'+', std::remove_cvref_t<A>, std::remove_cvref_t<B>> operator+(A, B) {
  return {};
}
template <node A, node B>
constexpr bin<'-', std::remove_cvref_t<A>, std::remove_cvref_t<B>> operator-(A, B) {
  return {};
}
template <node A, node B>
constexpr bin<'*', std::remove_cvref_t<A>, std::remove_cvref_t<B>> operator*(A, B) {
  return {};
}
template <node A, node B>
constexpr bin<'/', std::remove_cvref_t<A>, std::remove_cvref_t<B>> operator/(A, B) {
  return {};
}

template <node A, node B>
constexpr guard<'<', std::remove_cvref_t<A>, std::remove_cvref_t<B>> operator<(A, B) {
  return {};
}
template <node A, node B>
constexpr guard<'l', std::remove_cvref_t<A>, std::remove_cvref_t<B>> operator<=(A, B) {
  return {};
}
template <node A, node B>
constexpr guard<'>', std::remove_cvref_t<A>, std::remove_cvref_t<B>> operator>(A, B) {
  return {};
}
template <node A, node B>
constexpr guard<'g', std::remove_cvref_t<A>, std::remove_cvref_t<B>> operator>=(A, B) {
  return {};
}
template <node A, node B>
constexpr bin<'m', std::remove_cvref_t<A>, std::remove_cvref_t<B>> min(A, B) {
  return {};
}
template <node A, node B>
constexpr bin<'M', std::remove_cvref_t<A>, std::remove_cvref_t<B>> max(A, B) {
  return {};
}
/// Z-order (Morton) code: a's bits at the even positions, b's at the odd ones.
template <node A, node B>
constexpr bin<'z', std::remove_cvref_t<A>, std::remove_cvref_t<B>> interleave(A, B) {
  return {};
}

namespace literals {
namespace parse_detail {
template <char... Cs>
constexpr std::int64_t parse() {
  std::int64_t v = 0;
  ((v = v * 10 + (Cs - '0')), ...);
  return v;
}
}  // namespace parse_detail
/// `2_c`: the constant 2 in index arithmetic.
template <char... Cs>
constexpr lit<parse_detail::parse<Cs...>()> operator""_c() {
  return {};
}
}  // namespace literals

namespace detail {

/// Spreads the low 32 bits of x over the even bit positions.
constexpr std::uint64_t spread_bits(std::uint64_t x) {
  x &= 0xFFFFFFFFull;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFull;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFull;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0Full;
  x = (x | (x << 2)) & 0x3333333333333333ull;
  x = (x | (x << 1)) & 0x5555555555555555ull;
  return x;
}

/// The runtime values a level's expressions read: the parent's position, the loop's index, its
/// stored position (segments) and its mode's extent.
struct eval_env {
  std::int64_t up = 0, i = 0, q = 0, n = 0;
};

/// Where names resolve inside loop K: its own index `Self`; `Up`, the index of the loop above
/// (void at the root), whose value is the parent position when `UpIsIndex`.
template <class Self, class Up, bool SelfIsRange, bool UpIsIndex>
struct scope {
  using self = Self;
  using up = Up;
  static constexpr bool self_is_range = SelfIsRange, up_is_index = UpIsIndex;
};

template <class E>
struct arrays_of {
  using type = mp_list<>;
};
template <class Arr, class E>
struct arrays_of<load<Arr, E>> {
  using type = boost::mp11::mp_push_front<typename arrays_of<E>::type, Arr>;
};
template <char Op, class A, class B>
struct arrays_of<bin<Op, A, B>> {
  using type = boost::mp11::mp_append<typename arrays_of<A>::type, typename arrays_of<B>::type>;
};
template <char Op, class A, class B>
struct arrays_of<guard<Op, A, B>> : arrays_of<bin<Op, A, B>> {};

template <class Scope, class I>
inline constexpr bool known_index_v =
    std::is_same_v<I, typename Scope::self> ||
    (std::is_same_v<I, typename Scope::up> && Scope::up_is_index);

template <class Scope, class E>
struct resolvable : std::true_type {};
template <class Scope, class I>
struct resolvable<Scope, var_node<I>> : std::bool_constant<known_index_v<Scope, I>> {};
template <class Scope, class I>
struct resolvable<Scope, pos_node<I>>
    : std::bool_constant<std::is_same_v<I, typename Scope::self> ||
                         std::is_same_v<I, typename Scope::up>> {};
template <class Scope, class Arr, class E>
struct resolvable<Scope, load<Arr, E>> : resolvable<Scope, E> {};
template <class Scope, char Op, class A, class B>
struct resolvable<Scope, bin<Op, A, B>>
    : std::bool_constant<resolvable<Scope, A>::value && resolvable<Scope, B>::value> {};

/// Computes E inside the loop described by Scope; arrays come from `st.arrays` (listed in
/// `Arrays`).
template <class Scope, class Arrays, class E>
struct eval;
template <class Scope, class Arrays, class I>
struct eval<Scope, Arrays, var_node<I>> {
  template <class St>
  static LOOM_FORCE_INLINE std::int64_t run(const St&, const eval_env& env) {
    if constexpr (std::is_same_v<I, typename Scope::self>) return env.i;
    else return env.up;  // the loop above is a range at the root: its position is its index
  }
};
template <class Scope, class Arrays, class I>
struct eval<Scope, Arrays, pos_node<I>> {
  template <class St>
  static LOOM_FORCE_INLINE std::int64_t run(const St&, const eval_env& env) {
    if constexpr (std::is_same_v<I, typename Scope::self>)
      return Scope::self_is_range ? env.i : env.q;
    else return env.up;
  }
};
template <class Scope, class Arrays, std::int64_t N>
struct eval<Scope, Arrays, lit<N>> {
  template <class St>
  static LOOM_FORCE_INLINE std::int64_t run(const St&, const eval_env&) {
    return N;
  }
};
template <class Scope, class Arrays>
struct eval<Scope, Arrays, extent_node> {
  template <class St>
  static LOOM_FORCE_INLINE std::int64_t run(const St&, const eval_env& env) {
    return env.n;
  }
};
template <class Scope, class Arrays, class Arr, class E>
struct eval<Scope, Arrays, load<Arr, E>> {
  template <class St>
  static LOOM_FORCE_INLINE std::int64_t run(const St& st, const eval_env& env) {
    const auto& a = std::get<boost::mp11::mp_find<Arrays, Arr>::value>(st.arrays);
    return static_cast<std::int64_t>(a[static_cast<std::size_t>(eval<Scope, Arrays, E>::run(st, env))]);
  }
};
template <class Scope, class Arrays, char Op, class A, class B>
struct eval<Scope, Arrays, bin<Op, A, B>> {
  template <class St>
  static LOOM_FORCE_INLINE std::int64_t run(const St& st, const eval_env& env) {
    const std::int64_t a = eval<Scope, Arrays, A>::run(st, env);
    const std::int64_t b = eval<Scope, Arrays, B>::run(st, env);
    if constexpr (Op == '+') return a + b;
    else if constexpr (Op == '-') return a - b;
    else if constexpr (Op == '*') return a * b;
    else if constexpr (Op == '/') return a / b;
    else if constexpr (Op == 'm') return std::min(a, b);
    else if constexpr (Op == 'M') return std::max(a, b);
    else
      return static_cast<std::int64_t>(spread_bits(static_cast<std::uint64_t>(a)) |
                                       (spread_bits(static_cast<std::uint64_t>(b)) << 1));
  }
};

/// Index notation of an expression, for explain (`i*(i+1)/2 + j`, `crd(pos(i_pos))`).
template <class E>
struct show;
template <class I>
struct show<var_node<I>> {
  static std::string text() { return std::string(I::name); }
};
template <class I>
struct show<pos_node<I>> {
  static std::string text() { return std::string(I::name) + "_pos"; }
};
template <std::int64_t N>
struct show<lit<N>> {
  static std::string text() { return std::to_string(N); }
};
template <>
struct show<extent_node> {
  static std::string text() { return "N"; }
};
template <class Arr, class E>
struct show<load<Arr, E>> {
  static std::string text() { return std::string(Arr::name) + "(" + show<E>::text() + ")"; }
};
template <char Op, class A, class B>
struct show<bin<Op, A, B>> {
  template <class X>
  static std::string operand() {
    if constexpr (requires { []<char O, class P, class Q>(bin<O, P, Q>) {}(X{}); })
      return "(" + show<X>::text() + ")";
    else return show<X>::text();
  }
  static std::string text() {
    if constexpr (Op == 'm') return "min(" + show<A>::text() + ", " + show<B>::text() + ")";
    else if constexpr (Op == 'M') return "max(" + show<A>::text() + ", " + show<B>::text() + ")";
    else if constexpr (Op == 'z')
      return "interleave(" + show<A>::text() + ", " + show<B>::text() + ")";
    else if constexpr (Op == '+' || Op == '-')
      return show<A>::text() + " " + Op + " " + show<B>::text();
    else return operand<A>() + Op + operand<B>();
  }
};
template <char Op, class A, class B>
struct show<guard<Op, A, B>> {
  static std::string text() {
    const char* op = Op == '<' ? " < " : Op == 'l' ? " <= " : Op == '>' ? " > " : " >= ";
    return show<A>::text() + op + show<B>::text();
  }
};

}  // namespace detail

template <fixed_string Name, class T>
template <node Lo, node Hi>
constexpr auto array<Name, T>::slice(Lo, Hi) const {
  return slice_of<array, std::remove_cvref_t<Lo>, std::remove_cvref_t<Hi>>{};
}

}  // namespace loom::mapping

#endif  // LOOM_FORMAT_MAPPING_INDEX_EXPR_HPP
// ---- end <loom/format/mapping/index_expr.hpp>
// ---- begin <loom/format/mapping/loops.hpp>
// Defines the loops of a storage mapping: `range(i, lo, hi, guards...)` over integers,
// `each(j, crd.slice(lo, hi)[, unique])` over a sorted index segment, `hashed(i, H)` over the
// keys of a hash map, and `values(e)`, the value array's offset (format/mapping/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MAPPING_LOOPS_HPP
#define LOOM_FORMAT_MAPPING_LOOPS_HPP

// ---- begin <loom/format/mapping/hash_map.hpp>
// Defines the hash-map physical kind of storage mappings: loom::mapping::hash_map<"name"> (keys
// to positions, open addressing), hash_table (its contents, built from key/position pairs) and
// the sorted-order cache that lets an unordered map be iterated in key order on demand
// (format/mapping/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MAPPING_HASH_MAP_HPP
#define LOOM_FORMAT_MAPPING_HASH_MAP_HPP


#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <numeric>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loom::mapping {

namespace detail {
/// The key of an empty slot.
inline constexpr std::int64_t empty_key = -1;
/// Where key i starts probing (multiplicative hashing; the table's mask takes the low bits).
LOOM_FORCE_INLINE constexpr std::uint64_t hash_key(std::int64_t i) {
  const std::uint64_t h = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}
/// The smallest power of two >= 2 * count (0 for no entries): load factor at most 1/2.
constexpr std::int64_t table_capacity(std::int64_t count) {
  if (count == 0) return 0;
  std::int64_t cap = 2;
  while (cap < 2 * count) cap *= 2;
  return cap;
}
}  // namespace detail

/// The contents of a hash map (or of a trie's hash maps, one table after another): open
/// addressing with linear probing, each table's capacity a power of two, key -1 marking an
/// empty slot. `vals[s]` is the position the key in slot s maps to.
template <class Key = std::int64_t, class Val = std::int64_t>
struct hash_table;

/// A borrowed hash_table (what `bind` keeps, so a view reads the caller's table).
template <class Key, class Val>
struct hash_table_view {
  std::span<const Key> keys;
  std::span<const Val> vals;
};

template <class Key, class Val>
struct hash_table {
  std::vector<Key> keys;
  std::vector<Val> vals;

  hash_table_view<Key, Val> view() const { return {keys, vals}; }

  /// Appends one table holding `entries` (key, position; keys distinct, in any order) and
  /// returns its first slot; the table ends at `keys.size()` after the call.
  std::int64_t append(const std::vector<std::pair<std::int64_t, std::int64_t>>& entries) {
    const auto lo = static_cast<std::int64_t>(keys.size());
    const std::int64_t cap = detail::table_capacity(static_cast<std::int64_t>(entries.size()));
    keys.resize(static_cast<std::size_t>(lo + cap), static_cast<Key>(detail::empty_key));
    vals.resize(static_cast<std::size_t>(lo + cap), Val(0));
    const auto mask = static_cast<std::uint64_t>(cap - 1);
    for (const auto& [k, v] : entries) {
      std::uint64_t s = detail::hash_key(k) & mask;
      while (keys[static_cast<std::size_t>(lo) + s] != static_cast<Key>(detail::empty_key)) {
        if (keys[static_cast<std::size_t>(lo) + s] == static_cast<Key>(k))
          throw duplicate_error("loom::mapping::hash_table: key " + std::to_string(k) +
                                " appears twice in one table");
        s = (s + 1) & mask;
      }
      keys[static_cast<std::size_t>(lo) + s] = static_cast<Key>(k);
      vals[static_cast<std::size_t>(lo) + s] = static_cast<Val>(v);
    }
    return lo;
  }
  /// One table from (key, position) pairs.
  static hash_table from(const std::vector<std::pair<std::int64_t, std::int64_t>>& entries) {
    hash_table t;
    t.append(entries);
    return t;
  }
};

namespace detail {
/// The keys of every table of one hash map in ascending order, computed the first time a
/// kernel iterates the map (never when it is only located). `tables` are recorded when the
/// tensor is validated; the sorted run of table [lo, hi) sits at [lo, end[lo]).
struct sorted_cache {
  std::once_flag once;
  std::vector<std::pair<std::int64_t, std::int64_t>> tables;
  std::vector<std::int64_t> keys, vals, end;
};

template <class Key, class Val, bool Owning>
struct hash_storage {
  level_array<Key, Owning> keys;
  level_array<Val, Owning> vals;
  std::shared_ptr<sorted_cache> sorted = std::make_shared<sorted_cache>();

  std::size_t size() const { return keys.size(); }

  /// The sorted keys and positions of every recorded table (built once, thread-safe).
  const sorted_cache& sorted_order() const {
    std::call_once(sorted->once, [&] {
      auto& c = *sorted;
      const std::size_t n = keys.size();
      c.keys.assign(n, 0);
      c.vals.assign(n, 0);
      c.end.assign(n + 1, 0);
      std::vector<std::pair<std::int64_t, std::int64_t>> run;
      for (const auto& [lo, hi] : c.tables) {
        run.clear();
        for (std::int64_t s = lo; s < hi; ++s)
          if (static_cast<std::int64_t>(keys[static_cast<std::size_t>(s)]) != empty_key)
            run.emplace_back(static_cast<std::int64_t>(keys[static_cast<std::size_t>(s)]),
                             static_cast<std::int64_t>(vals[static_cast<std::size_t>(s)]));
        std::sort(run.begin(), run.end());
        for (std::size_t e = 0; e < run.size(); ++e) {
          c.keys[static_cast<std::size_t>(lo) + e] = run[e].first;
          c.vals[static_cast<std::size_t>(lo) + e] = run[e].second;
        }
        c.end[static_cast<std::size_t>(lo)] = lo + static_cast<std::int64_t>(run.size());
      }
    });
    return *sorted;
  }
};
}  // namespace detail

/// A physical hash map named `Name` from keys to positions (STOREL's `CREATE HASHMAP`): a loop
/// `hashed(i, H)` binds each key i and its position `pos(i)`; `H.table(lo, hi)` is the table in
/// slots [lo, hi) (one per parent: a trie of hash maps). Bound with `bind(H, hash_table{...})`.
template <fixed_string Name, class Key = std::int64_t, class Val = std::int64_t>
struct hash_map {
  static_assert(std::is_integral_v<Key> && std::is_signed_v<Key> && std::is_integral_v<Val>,
                "loom::mapping::hash_map: keys must be signed integers (-1 marks an empty slot) "
                "and positions integers");
  using key_type = Key;
  using mapped_type = Val;
  using value_type = Key;  // for messages
  static constexpr std::string_view name = Name.view();
  static constexpr bool is_hash_map = true;
  template <bool Owning>
  using storage = detail::hash_storage<Key, Val, Owning>;

  template <node Lo, node Hi>
  constexpr auto table(Lo, Hi) const;
};

/// Slots [Lo, Hi) of hash map H: one parent's table. `whole_table` spans the map.
struct whole_table : node_base {};
template <class H, class Lo, class Hi>
struct table_of {
  using map_type = H;
  using lo = Lo;
  using hi = Hi;
};

template <fixed_string Name, class Key, class Val>
template <node Lo, node Hi>
constexpr auto hash_map<Name, Key, Val>::table(Lo, Hi) const {
  return table_of<hash_map, std::remove_cvref_t<Lo>, std::remove_cvref_t<Hi>>{};
}

}  // namespace loom::mapping

#endif  // LOOM_FORMAT_MAPPING_HASH_MAP_HPP
// ---- end <loom/format/mapping/hash_map.hpp>

#include <boost/mp11/list.hpp>

#include <string>
#include <type_traits>

namespace loom::mapping {

/// `@unique`: no coordinate repeats within one segment (STOREL's annotation, a type property:
/// it lets the program's loop be the segment's loop, rule F3).
struct unique_t {};
inline constexpr unique_t unique{};

/// sum(<I, _> in Lo : Hi) with the guards Gs (`j <= i`), which are folded into the bounds.
template <class I, class Lo, class Hi, class... Gs>
struct range_loop {
  using index = I;
  using lo = Lo;
  using hi = Hi;
  using guards = boost::mp11::mp_list<Gs...>;
  static constexpr bool is_range = true, is_hash = false, unique = true, ordered = true;
};

/// sum(<I_pos, I> in Arr(Lo : Hi)) { [@unique] I -> ... }: the stored coordinates, ascending.
/// Unique: one iteration per stored position. Not unique (COO rows): a coordinate may repeat
/// in a run of positions, which the loop emits once, handing the whole run to the loop below.
template <class I, class Slice, bool Unique = true>
struct each_loop {
  using index = I;
  using array_type = typename Slice::array_type;
  using lo = typename Slice::lo;
  using hi = typename Slice::hi;
  using guards = boost::mp11::mp_list<>;
  static constexpr bool is_range = false, is_hash = false, unique = Unique, ordered = true;
};

/// sum(<I, I_pos> in H) { @unique I -> ... }: the keys of a hash map, each once, in no order
/// (`ordered` is false: iterating them in key order sorts them, once, on demand), located in
/// O(1); I_pos is the position the key maps to.
template <class I, class Table>
struct hash_loop {
  using index = I;
  using array_type = typename Table::map_type;
  using lo = typename Table::lo;
  using hi = typename Table::hi;
  using guards = boost::mp11::mp_list<>;
  static constexpr bool is_range = false, is_hash = true, unique = true, ordered = false;
};

/// The value of an entry: `vals(E)`, E the offset into the tensor's value array.
template <class E>
struct values_at {
  using offset = E;
};

/// `range(i, 0_c, extent, var(j) <= var(i))`: i ranges over [lo, hi) where every guard holds.
template <index_variable I, node Lo, node Hi, class... Gs>
constexpr range_loop<std::remove_cvref_t<I>, std::remove_cvref_t<Lo>, std::remove_cvref_t<Hi>, Gs...>
range(I, Lo, Hi, Gs...) {
  return {};
}

/// `each(j, crd.slice(pos(i), pos(i) + 1_c), unique)`: j is each stored coordinate of the
/// sorted segment. Without `unique` the coordinates may repeat (COO's row array): F3 does not
/// apply, so the loop emits each coordinate once and the loop below walks the whole run of
/// positions holding it (their entries are accumulated into one row).
template <index_variable I, class Slice, class... Annotations>
constexpr each_loop<std::remove_cvref_t<I>, Slice, (std::is_same_v<Annotations, unique_t> || ...)>
each(I, Slice, Annotations...) {
  static_assert(((std::is_same_v<Annotations, unique_t>) && ...),
                "loom::mapping::each: the only annotation of a segment is `unique`");
  return {};
}

/// `hashed(i, H)`: i is each key of hash map H (a whole map, at the root); `hashed(j,
/// H.table(slot(pos(i)), slot(pos(i) + 1_c)))`: each key of the parent's table (a trie).
template <index_variable I, fixed_string Name, class Key, class Val>
constexpr hash_loop<std::remove_cvref_t<I>, table_of<hash_map<Name, Key, Val>, lit<0>, whole_table>>
hashed(I, hash_map<Name, Key, Val>) {
  return {};
}
template <index_variable I, class H, class Lo, class Hi>
constexpr hash_loop<std::remove_cvref_t<I>, table_of<H, Lo, Hi>> hashed(I, table_of<H, Lo, Hi>) {
  return {};
}

/// `values(var(i) * (var(i) + 1_c) / 2_c + var(j))`: where the entry's value is stored.
template <node E>
constexpr values_at<std::remove_cvref_t<E>> values(E) {
  return {};
}

}  // namespace loom::mapping

#endif  // LOOM_FORMAT_MAPPING_LOOPS_HPP
// ---- end <loom/format/mapping/loops.hpp>
// ---- begin <loom/format/mapping/mapped_level.hpp>
// Defines loom::mapping::mapped_level<Def, K>: loop K of a storage mapping compiled into a loom
// level, so that programs over a mapped tensor run through the ordinary planner and streams,
// their loops fused with the mapping's (format/mapping/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MAPPING_MAPPED_LEVEL_HPP
#define LOOM_FORMAT_MAPPING_MAPPED_LEVEL_HPP


#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace loom::mapping {

namespace detail {

// Folds a guard on the loop's own index into a lower (kind 'L') or upper ('H') bound.
template <class Self, class G>
struct fold_guard {
  static_assert(sizeof(G) == 0,
                "loom::mapping::range: a guard must compare the loop's own index with an "
                "expression of outer indices, e.g. var(j) <= var(i)");
};
template <class Self, char Op, class X>
  requires(!std::is_same_v<X, var_node<Self>>)
struct fold_guard<Self, guard<Op, var_node<Self>, X>> {
  static constexpr char kind = (Op == '<' || Op == 'l') ? 'H' : 'L';
  using bound = std::conditional_t<Op == 'l' || Op == '>', bin<'+', X, lit<1>>, X>;
};
template <class Self, char Op, class X>
  requires(!std::is_same_v<X, var_node<Self>>)
struct fold_guard<Self, guard<Op, X, var_node<Self>>> {
  // x < j is j > x, x <= j is j >= x, ...
  static constexpr char kind = (Op == '<' || Op == 'l') ? 'L' : 'H';
  using bound = std::conditional_t<Op == '<' || Op == 'g', bin<'+', X, lit<1>>, X>;
};

template <class Self, class Acc, class Guards, char Kind>
struct fold_bounds {
  using type = Acc;
};
template <class Self, class Acc, class G, class... Gs, char Kind>
struct fold_bounds<Self, Acc, mp_list<G, Gs...>, Kind> {
  using f = fold_guard<Self, G>;
  using next = std::conditional_t<f::kind != Kind, Acc,
                                  bin<Kind == 'L' ? 'M' : 'm', Acc, typename f::bound>>;
  using type = typename fold_bounds<Self, next, mp_list<Gs...>, Kind>::type;
};

template <class E>
using arrays_t = typename arrays_of<E>::type;

// X of a canonical segment bound Pos(X) : Pos(X + 1); void otherwise.
template <class Lo, class Hi>
struct canonical_segment {
  using pos_array = void;
};
template <class P, class X>
struct canonical_segment<load<P, X>, load<P, bin<'+', X, lit<1>>>> {
  using pos_array = P;
  using parent = X;
};
template <class P>
struct canonical_segment<load<P, lit<0>>, load<P, lit<1>>> {  // the root: pos(0) : pos(1)
  using pos_array = P;
  using parent = lit<0>;
};

struct no_loop {
  using index = void;
};
template <class Loops, std::size_t K>
struct loop_above {
  using type = boost::mp11::mp_at_c<Loops, K - 1>;
  using index = typename type::index;
};
template <class Loops>
struct loop_above<Loops, 0> : no_loop {};

template <class Loop>
struct array_of_loop {
  using type = void;
};
template <class I, class Slice, bool U>
struct array_of_loop<each_loop<I, Slice, U>> {
  using type = typename Slice::array_type;
};
template <class I, class Table>
struct array_of_loop<hash_loop<I, Table>> {
  using type = typename Table::map_type;
};

// X of a canonical singleton segment crd(pos(x) : pos(x) + 1) (COO's column below its rows)
template <class Lo, class Hi>
struct singleton_segment : std::false_type {};
template <class X>
struct singleton_segment<pos_node<X>, bin<'+', pos_node<X>, lit<1>>> : std::true_type {};

template <class Arr>
concept hash_map_kind = requires { Arr::is_hash_map; };

template <class Loops, std::size_t K>
inline constexpr bool above_is_non_unique = [] {
  if constexpr (K == 0) return false;
  else return !boost::mp11::mp_at_c<Loops, K - 1>::unique;
}();

/// The parents a level is walked under when a tensor is validated: positions 0..count-1, or
/// explicit runs of positions below a non-unique loop.
struct parent_runs {
  std::int64_t count = 1;
  std::vector<level_range> runs;
  std::int64_t size() const { return runs.empty() ? count : static_cast<std::int64_t>(runs.size()); }
  level_range at(std::int64_t k) const {
    return runs.empty() ? level_range{k, k + 1} : runs[static_cast<std::size_t>(k)];
  }
};

}  // namespace detail

/// Loop K of mapping Def as a level. Its position (what the next loop, or the value array,
/// receives) is the loop's index for a range at the root, `up * N + i` for a deeper range, the
/// stored position for a segment, the mapped position for a hash map, and the `values(...)`
/// offset at the innermost loop.
template <class Def, std::size_t K>
struct mapped_level {
  // Part 1: the loop's static facts, properties and storage ---------------------------------------
  using definition = Def;
  static constexpr std::size_t loop_number = K;
  using loops = typename Def::loops;
  using loop = boost::mp11::mp_at_c<loops, K>;
  using self = typename loop::index;
  static constexpr bool is_range = loop::is_range;
  static constexpr bool is_hash = loop::is_hash;
  static constexpr bool is_last = K + 1 == boost::mp11::mp_size<loops>::value;
  // a non-unique loop above hands this loop a run of positions [begin, end)
  static constexpr bool under_runs = detail::above_is_non_unique<loops, K>;
  using up = typename detail::loop_above<loops, K>::index;
  // the loop above is a root range: its position is its index, so `var(i)` is readable here
  static constexpr bool up_is_index = K == 1 && boost::mp11::mp_front<loops>::is_range;
  using scope = detail::scope<self, up, is_range, up_is_index>;

  static_assert(loop::unique || !is_last,
                "loom::mapping::each: the innermost loop must be `unique` (an entry whose full "
                "coordinate repeats would need its values summed); merge duplicate entries "
                "before building the tensor");
  static_assert(!under_runs || (!is_range && !is_hash),
                "loom::mapping: the loop below a non-unique segment must be a segment over the "
                "run of positions it receives, e.g. each(j, crd.slice(pos(i), pos(i) + 1_c))");

  using position_expr = typename boost::mp11::mp_cond<
      boost::mp11::mp_bool<is_last>, boost::mp11::mp_identity<typename Def::value_type::offset>,
      boost::mp11::mp_bool<!is_range>, boost::mp11::mp_identity<pos_node<self>>,
      boost::mp11::mp_bool<K == 0>, boost::mp11::mp_identity<var_node<self>>,
      boost::mp11::mp_true,
      boost::mp11::mp_identity<bin<'+', bin<'*', pos_node<up>, extent_node>, var_node<self>>>>::type;
  /// bounds after folding the guards (G: guard into bound)
  using lo_expr = typename detail::fold_bounds<self, typename loop::lo, typename loop::guards, 'L'>::type;
  using hi_expr = typename detail::fold_bounds<self, typename loop::hi, typename loop::guards, 'H'>::type;
  static constexpr bool whole_map = std::is_same_v<hi_expr, whole_table>;
  using loop_array = typename detail::array_of_loop<loop>::type;

  using array_list = boost::mp11::mp_unique<boost::mp11::mp_append<
      detail::arrays_t<lo_expr>, detail::arrays_t<hi_expr>, detail::arrays_t<position_expr>,
      boost::mp11::mp_if_c<is_range, mp_list<>, mp_list<loop_array>>>>;

  static_assert(detail::resolvable<scope, lo_expr>::value && detail::resolvable<scope, hi_expr>::value &&
                    detail::resolvable<scope, position_expr>::value,
                "loom::mapping: a loop may use its own index and position, the position of the "
                "loop directly above, and the index of that loop when it is a range at the root");

  static constexpr bool plain_range = is_range && std::is_same_v<typename loop::lo, lit<0>> &&
                                      std::is_same_v<typename loop::hi, extent_node> &&
                                      boost::mp11::mp_empty<typename loop::guards>::value;
  // a plain range holds every coordinate; all-plain mappings stay "sparse" for the planner,
  // since loom walks all-full formats by row-major strides, which a mapping need not follow
  static constexpr bool full = plain_range && !Def::all_plain;

  static constexpr level_properties properties{.ordered = loop::ordered,
                                               .unique = loop::unique,
                                               .full = full,
                                               .random_access = is_range || is_hash,
                                               .segmented = under_runs,
                                               .padded = is_range};
  static constexpr std::size_t static_extent = dynamic_extent;
  static constexpr std::string_view name = Def::name;
  // a mapping stores one mode order: its guards and offsets cannot hold the entries permuted, so
  // a program that reads it against that order reads a copy in general levels
  // (plan/transposed_format.hpp)
  static constexpr bool permutable = false;

  template <bool Owning>
  struct array_storage {
    template <class Arr>
    struct pick {
      using type = level_array<typename Arr::value_type, Owning>;
    };
    template <detail::hash_map_kind Arr>
    struct pick<Arr> {
      using type = typename Arr::template storage<Owning>;
    };
    template <class Arr>
    using fn = typename pick<Arr>::type;
  };

  template <bool Owning>
  struct storage {
    std::int64_t extent = 0;  // of the mode this loop stores
    boost::mp11::mp_rename<boost::mp11::mp_transform_q<array_storage<Owning>, array_list>, std::tuple>
        arrays;
  };

  template <class E, class St>
  static LOOM_FORCE_INLINE std::int64_t eval(const St& st, const detail::eval_env& env) {
    return detail::eval<scope, array_list, E>::template run(st, env);
  }
  template <class St>
  static LOOM_FORCE_INLINE const auto& own_array(const St& st) {
    return std::get<boost::mp11::mp_find<array_list, loop_array>::value>(st.arrays);
  }

  // Part 2: the cursors (range, segment, hash map) ------------------------------------------------

  /// Counted loop over [lo, hi) (guards folded); locate is the range test of rule T4.
  template <bool Owning>
  struct range_cursor {
    const storage<Owning>* st = nullptr;
    std::int64_t up = 0, lo = 0, i = 0, hi = 0;

    LOOM_FORCE_INLINE bool valid() const { return i < hi; }
    LOOM_FORCE_INLINE std::int64_t index() const { return i; }
    LOOM_FORCE_INLINE std::int64_t position(std::int64_t j) const {
      return eval<position_expr>(*st, {up, j, j, st->extent});
    }
    LOOM_FORCE_INLINE level_range children() const {
      const std::int64_t p = position(i);
      return {p, p + 1};
    }
    LOOM_FORCE_INLINE level_range locate(std::int64_t j) const {
      if (j < lo || j >= hi) return {};
      const std::int64_t p = position(j);
      return {p, p + 1};
    }
    LOOM_FORCE_INLINE void seek(std::int64_t j) { i = std::max(i, j); }
    LOOM_FORCE_INLINE void seek_past(std::int64_t j) { i = j >= hi ? hi : std::max(i, j + 1); }
    LOOM_FORCE_INLINE void next() { ++i; }
  };

  /// The stored coordinates crd[lo, hi), ascending; skips search them by policy P. A
  /// non-unique segment emits each run of equal coordinates once, its children the run.
  template <skip_policy P, bool Owning>
  struct segment_cursor {
    using crd_type = typename loop_array::value_type;
    const storage<Owning>* st = nullptr;
    const crd_type* crd = nullptr;
    std::int64_t up = 0, p = 0, end = 0;

    LOOM_FORCE_INLINE bool valid() const { return p < end; }
    LOOM_FORCE_INLINE std::int64_t index() const { return crd[p]; }
    LOOM_FORCE_INLINE std::int64_t run_end() const {
      if constexpr (loop::unique) {
        return p + 1;
      } else {
        std::int64_t q = p + 1;
        while (q < end && crd[q] == crd[p]) ++q;
        return q;
      }
    }
    LOOM_FORCE_INLINE level_range children() const {
      if constexpr (std::is_same_v<position_expr, pos_node<self>>) {
        return {p, run_end()};
      } else {
        const std::int64_t q = eval<position_expr>(*st, {up, crd[p], p, st->extent});
        return {q, q + 1};
      }
    }
    LOOM_FORCE_INLINE void next() { p = run_end(); }
    LOOM_FORCE_INLINE void seek(std::int64_t i) { p = loom::detail::search_first<P>(crd, p, end, i); }
    LOOM_FORCE_INLINE void seek_past(std::int64_t i) {
      if (i == loom::detail::top_coordinate) p = end;
      else p = loom::detail::search_first<P>(crd, p, end, i + 1);
    }
  };

  /// The keys of one hash table, slots [lo, hi): locate probes the table in O(1) (rule F1's
  /// lookup); iteration walks the keys in ascending order, sorted the first time any kernel
  /// iterates this map (a cursor only located never sorts).
  template <skip_policy P, bool Owning>
  struct hash_cursor {
    using map_storage = typename loop_array::template storage<Owning>;
    const storage<Owning>* st = nullptr;
    const map_storage* map = nullptr;
    std::int64_t up = 0, lo = 0, hi = 0;
    // the sorted walk, started on first use (end < 0: not started)
    mutable const std::int64_t* keys = nullptr;
    mutable const std::int64_t* vals = nullptr;
    mutable std::int64_t p = 0, end = 0;

    LOOM_FORCE_INLINE void start() const {
      if (end < 0) [[unlikely]] {
        const auto& c = map->sorted_order();
        keys = c.keys.data();
        vals = c.vals.data();
        p = lo;
        end = c.end[static_cast<std::size_t>(lo)];
      }
    }
    LOOM_FORCE_INLINE level_range at(std::int64_t key, std::int64_t v) const {
      if constexpr (std::is_same_v<position_expr, pos_node<self>>) {
        return {v, v + 1};
      } else {
        const std::int64_t q = eval<position_expr>(*st, {up, key, v, st->extent});
        return {q, q + 1};
      }
    }
    LOOM_FORCE_INLINE bool valid() const {
      start();
      return p < end;
    }
    LOOM_FORCE_INLINE std::int64_t index() const { return keys[p]; }
    LOOM_FORCE_INLINE level_range children() const { return at(keys[p], vals[p]); }
    LOOM_FORCE_INLINE void next() { ++p; }
    LOOM_FORCE_INLINE void seek(std::int64_t i) {
      start();
      p = loom::detail::search_first<P>(keys, p, end, i);
    }
    LOOM_FORCE_INLINE void seek_past(std::int64_t i) {
      start();
      if (i == loom::detail::top_coordinate) p = end;
      else p = loom::detail::search_first<P>(keys, p, end, i + 1);
    }
    // locate(i) -> the slot holding key i, probed linearly from hash(i) (load <= 1/2)
    LOOM_FORCE_INLINE level_range locate(std::int64_t i) const {
      if (hi <= lo) return {};
      const auto* k = map->keys.data() + lo;
      const auto mask = static_cast<std::uint64_t>(hi - lo - 1);
      for (std::uint64_t s = detail::hash_key(i) & mask;; s = (s + 1) & mask) {
        const auto key = static_cast<std::int64_t>(k[s]);
        if (key == i) return at(i, static_cast<std::int64_t>(map->vals[static_cast<std::size_t>(lo) + s]));
        if (key == detail::empty_key) return {};
      }
    }
  };

  template <class St>
  static LOOM_FORCE_INLINE std::pair<std::int64_t, std::int64_t> bounds(const St& st, std::int64_t up,
                                                                        std::int64_t end) {
    const detail::eval_env env{up, 0, 0, st.extent};
    const std::int64_t lo = eval<lo_expr>(st, env);
    if constexpr (whole_map) {
      (void)end;
      return {lo, static_cast<std::int64_t>(own_array(st).size())};
    } else if constexpr (under_runs) {  // the segments of the run's positions, concatenated
      return {lo, eval<hi_expr>(st, {end - 1, 0, 0, st.extent})};
    } else {
      (void)end;
      return {lo, eval<hi_expr>(st, env)};
    }
  }

  // iterate(up, end) -> the loop's coordinates under the parent position up (the run [up, end)
  // below a non-unique loop)
  template <skip_policy P, bool Owning>
  static LOOM_FORCE_INLINE auto iterate(const storage<Owning>& st, std::int64_t up, std::int64_t end) {
    const auto [lo, hi] = bounds(st, up, end);
    if constexpr (is_range) {
      return range_cursor<Owning>{&st, up, lo, lo, std::max(lo, hi)};
    } else if constexpr (is_hash) {
      hash_cursor<P, Owning> c;
      c.st = &st;
      c.map = &own_array(st);
      c.up = up;
      c.lo = lo;
      c.hi = hi;
      c.p = lo;
      c.end = hi > lo ? -1 : lo;
      return c;
    } else {
      // hi >= lo was checked when the tensor was built (walk), so no clamp in the row loop
      return segment_cursor<P, Owning>{&st, own_array(st).data(), up, lo, hi};
    }
  }

  // Part 3: validation of a tensor built from arrays (walk) -----------------------------------------

  /// Walks every coordinate under every parent (run), calling f(up, index, position); throws
  /// when a segment or table leaves its array, coordinates are out of order or outside the
  /// extent, or a key is not where the hash function puts it. Returns the next level's parents.
  template <bool Owning, class F>
  static detail::parent_runs walk(const storage<Owning>& st, const detail::parent_runs& parents,
                                  const std::string& who, std::size_t mode, F&& f) {
    std::int64_t count = 0;
    detail::parent_runs next;
    const auto fail = [&](const std::string& what) { throw shape_error(who + ": " + what); };
    for (std::int64_t k = 0; k < parents.size(); ++k) {
      const level_range run = parents.at(k);
      const std::int64_t up = run.begin;
      if constexpr (!is_range) {
        const auto size = static_cast<std::int64_t>(own_array(st).size());
        const auto [lo, hi] = bounds(st, up, run.end);
        if (lo < 0 || hi < lo || hi > size)
          fail("the " + std::string(is_hash ? "table" : "segment") + " [" + std::to_string(lo) +
               ", " + std::to_string(hi) + ") of mode " + std::to_string(mode) +
               " under parent position " + std::to_string(up) + " is not a range inside its " +
               (is_hash ? "hash map of " : "index array of ") + std::to_string(size) + " entries");
        if constexpr (is_hash) {
          const std::int64_t cap = hi - lo;
          if ((cap & (cap - 1)) != 0)
            fail("the table [" + std::to_string(lo) + ", " + std::to_string(hi) + ") of mode " +
                 std::to_string(mode) + " under parent position " + std::to_string(up) +
                 " has " + std::to_string(cap) +
                 " slots, not a power of two (build it with loom::mapping::hash_table)");
          own_array(st).sorted->tables.emplace_back(lo, hi);
          const auto& map = own_array(st);
          const auto cur = iterate<skip_policy::linear>(st, up, run.end);
          for (std::int64_t s = lo; s < hi; ++s) {
            const auto key = static_cast<std::int64_t>(map.keys[static_cast<std::size_t>(s)]);
            if (key == detail::empty_key) continue;
            if (key < 0 || key >= st.extent)
              fail("key " + std::to_string(key) + " of mode " + std::to_string(mode) + " (extent " +
                   std::to_string(st.extent) + ") under parent position " + std::to_string(up) +
                   " is outside the extent");
            const level_range r = cur.locate(key);
            const level_range mine =
                cur.at(key, static_cast<std::int64_t>(map.vals[static_cast<std::size_t>(s)]));
            if (r.begin != mine.begin || r.empty())
              fail("key " + std::to_string(key) + " of mode " + std::to_string(mode) +
                   " under parent position " + std::to_string(up) +
                   " is not found where the hash function puts it (a duplicate, or a table not "
                   "built by loom::mapping::hash_table)");
            if (mine.begin < 0)
              fail("key " + std::to_string(key) + " of mode " + std::to_string(mode) +
                   " under parent position " + std::to_string(up) + " maps to the negative offset " +
                   std::to_string(mine.begin));
            f(up, key, mine.begin);
            count = std::max(count, mine.begin + 1);
          }
          continue;
        }
      }
      if constexpr (!is_hash) {
        auto cur = iterate<skip_policy::linear>(st, up, run.end);
        std::int64_t last = -1;
        for (; cur.valid(); cur.next()) {
          const std::int64_t i = cur.index();
          const bool out_of_order = loop::unique ? i <= last : i < last;
          if (i < 0 || i >= st.extent || out_of_order) {
            fail("coordinate " + std::to_string(i) + " of mode " + std::to_string(mode) +
                 " (extent " + std::to_string(st.extent) + ") under parent position " +
                 std::to_string(up) +
                 (out_of_order ? (loop::unique ? " is not strictly ascending (the loop is unique and sorted)"
                                               : " is not ascending (the loop is sorted)")
                               : " is outside the extent"));
          }
          last = i;
          const level_range r = cur.children();
          if (r.begin < 0)
            fail("coordinate " + std::to_string(i) + " of mode " + std::to_string(mode) +
                 " under parent position " + std::to_string(up) + " maps to the negative offset " +
                 std::to_string(r.begin));
          f(up, i, r.begin);
          if constexpr (!loop::unique) next.runs.push_back(r);
          count = std::max(count, r.end);
        }
      }
    }
    next.count = count;
    return next;
  }

  // Part 4: assembly from sorted entries (conversions, outputs) ----------------------------------

  // assemble: a range checks each entry lies in its bounds and places it at its offset; a
  // canonical segment crd(pos(x) : pos(x + 1)) is built like a compressed level (one position
  // per entry when not unique), a singleton crd(pos(x) : pos(x) + 1) holds one coordinate per
  // parent position, and a hash map (whole, or canonical tables H.table(s(x), s(x + 1))) gets
  // one table per parent with positions numbered in key order
  static std::int64_t assemble(storage<true>& st, const level_build& in,
                               std::span<std::int64_t> position) {
    st.extent = in.extent;
    const std::string who = "loom::mapping " + std::string(Def::name);
    if constexpr (is_range) {
      if constexpr (!boost::mp11::mp_empty<array_list>::value) {
        throw shape_error(who + ": loop " + std::string(self::name) +
                           " reads physical arrays; build the tensor from its arrays");
      } else {
        for (std::size_t e = 0; e < in.coord.size(); ++e) {
          const auto cur = iterate<skip_policy::linear>(st, in.parent[e], in.parent[e] + 1);
          const level_range r = cur.locate(in.coord[e]);
          if (r.empty())
            throw shape_error(who + ": an entry with coordinate " + std::to_string(in.coord[e]) +
                              " in mode " + std::to_string(in.mode) + " (extent " +
                              std::to_string(in.extent) + ") under parent position " +
                              std::to_string(in.parent[e]) + " lies outside the stored region " +
                              std::string(self::name) + " in " + bounds_text());
          position[e] = r.begin;
        }
        return walk(st, detail::parent_runs{in.parents, {}}, who, in.mode, [](auto...) {}).count;
      }
    } else {
      using canon = detail::canonical_segment<typename loop::lo, typename loop::hi>;
      constexpr bool singleton = detail::singleton_segment<typename loop::lo, typename loop::hi>::value;
      constexpr bool root = [] {
        if constexpr (whole_map) return true;
        else if constexpr (requires { typename canon::parent; })
          return std::is_same_v<typename canon::parent, lit<0>>;
        else return false;
      }();
      constexpr bool buildable =
          std::is_same_v<position_expr, pos_node<self>> &&
          (whole_map || singleton || !std::is_void_v<typename canon::pos_array>) &&
          (!singleton || !is_hash);
      if constexpr (!buildable) {
        throw shape_error(who + ": loop " + std::string(self::name) +
                           " is not of the form crd(pos(x) : pos(x + 1)), crd(pos(x) : pos(x) + 1) "
                           "or a hash map's table with values at its position; build the tensor "
                           "from its arrays");
      } else {
        if (in.extent > 0)
          loom::detail::check_fits<typename loop_array::value_type>(
              in.extent - 1, "largest coordinate of mode " + std::to_string(in.mode));
        const std::int64_t segments = root ? 1 : in.parents;
        // positions: per distinct (parent, coordinate), or per entry when not unique
        std::vector<std::int64_t> first(static_cast<std::size_t>(segments) + 1, 0);
        std::vector<std::int64_t> coords;
        for (std::size_t e = 0; e < in.coord.size(); ++e) {
          const bool fresh = !loop::unique || e == 0 || in.parent[e] != in.parent[e - 1] ||
                             in.coord[e] != in.coord[e - 1];
          if (fresh) {
            coords.push_back(in.coord[e]);
            ++first[root ? 1 : static_cast<std::size_t>(in.parent[e]) + 1];
          }
          position[e] = static_cast<std::int64_t>(coords.size()) - 1;
        }
        for (std::size_t p = 1; p < first.size(); ++p) first[p] += first[p - 1];
        if constexpr (is_hash) {
          auto& map = std::get<boost::mp11::mp_find<array_list, loop_array>::value>(st.arrays);
          hash_table<typename loop_array::key_type, typename loop_array::mapped_type> h;
          std::vector<std::int64_t> slot_starts;
          std::vector<std::pair<std::int64_t, std::int64_t>> table;
          for (std::int64_t p = 0; p < segments; ++p) {
            table.clear();
            for (std::int64_t q = first[static_cast<std::size_t>(p)]; q < first[static_cast<std::size_t>(p) + 1]; ++q)
              table.emplace_back(coords[static_cast<std::size_t>(q)], q);
            slot_starts.push_back(h.append(table));
            map.sorted->tables.emplace_back(slot_starts.back(), static_cast<std::int64_t>(h.keys.size()));
          }
          slot_starts.push_back(static_cast<std::int64_t>(h.keys.size()));
          map.keys = std::move(h.keys);
          map.vals = std::move(h.vals);
          if constexpr (!whole_map) {
            using slot_array = typename canon::pos_array;
            auto& slots = std::get<boost::mp11::mp_find<array_list, slot_array>::value>(st.arrays);
            slots.assign(slot_starts.begin(), slot_starts.end());
          }
        } else {
          auto& crd = std::get<boost::mp11::mp_find<array_list, loop_array>::value>(st.arrays);
          using C = typename loop_array::value_type;
          crd.assign(coords.size(), C(0));
          for (std::size_t q = 0; q < coords.size(); ++q) crd[q] = static_cast<C>(coords[q]);
          if constexpr (singleton) {
            if (static_cast<std::int64_t>(coords.size()) != in.parents)
              throw shape_error(who + ": loop " + std::string(self::name) +
                                " holds one coordinate per parent position, but " +
                                std::to_string(coords.size()) + " entries have " +
                                std::to_string(in.parents) + " parents");
          } else {
            using pos_array = typename canon::pos_array;
            using Pp = typename pos_array::value_type;
            auto& pos = std::get<boost::mp11::mp_find<array_list, pos_array>::value>(st.arrays);
            loom::detail::check_fits<Pp>(static_cast<std::int64_t>(coords.size()), "number of positions");
            pos.assign(first.size(), Pp(0));
            for (std::size_t p = 0; p < first.size(); ++p) pos[p] = static_cast<Pp>(first[p]);
          }
        }
        return static_cast<std::int64_t>(coords.size());
      }
    }
  }

  // Part 5: text for explain ---------------------------------------------------------------------

  /// "max(0, i - 1) : min(N, i + 2)" (after folding), "crd(pos(i) : pos(i + 1))" or "H".
  static std::string bounds_text() {
    if constexpr (is_range) {
      return detail::show<lo_expr>::text() + " : " + detail::show<hi_expr>::text();
    } else if constexpr (whole_map) {
      return std::string(loop_array::name);
    } else {
      return std::string(loop_array::name) + (is_hash ? ".table(" : "(") +
             detail::show<typename loop::lo>::text() + " : " +
             detail::show<typename loop::hi>::text() + ")";
    }
  }
  /// The loop as declared: "j in 0 : N where j <= i".
  static std::string declared_text() {
    std::string s = std::string(self::name) + " in ";
    if constexpr (is_range) {
      s += detail::show<typename loop::lo>::text() + " : " + detail::show<typename loop::hi>::text();
      std::string g;
      boost::mp11::mp_for_each<boost::mp11::mp_transform<boost::mp11::mp_identity, typename loop::guards>>(
          [&](auto x) { g += (g.empty() ? " where " : " && ") + detail::show<typename decltype(x)::type>::text(); });
      return s + g;
    } else if constexpr (is_hash) {
      return s + "keys(" + bounds_text() + ") @unique @hash";
    } else {
      return s + bounds_text() + (loop::unique ? " @unique" : "");
    }
  }
};

}  // namespace loom::mapping

#endif  // LOOM_FORMAT_MAPPING_MAPPED_LEVEL_HPP
// ---- end <loom/format/mapping/mapped_level.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace loom::mapping {

namespace detail {
template <class Loop>
inline constexpr bool plain_range_v = Loop::is_range && std::is_same_v<typename Loop::lo, lit<0>> &&
                                      std::is_same_v<typename Loop::hi, extent_node> &&
                                      boost::mp11::mp_empty<typename Loop::guards>::value;
}  // namespace detail

/// A storage mapping: `sum(loops...) { (i, j, ...) -> vals(offset) }`, loop k storing mode k.
template <fixed_string Name, class Loops, class Value>
struct definition {
  static constexpr std::string_view name = Name.view();
  using loops = Loops;
  using value_type = Value;
  static constexpr std::size_t order = boost::mp11::mp_size<Loops>::value;
  static constexpr bool all_plain = [] {
    bool all = true;
    boost::mp11::mp_for_each<boost::mp11::mp_transform<boost::mp11::mp_identity, Loops>>(
        [&](auto l) { all = all && detail::plain_range_v<typename decltype(l)::type>; });
    return all;
  }();

  template <class Seq>
  struct make_format;
  template <std::size_t... Ks>
  struct make_format<std::index_sequence<Ks...>> {
    using type = format_spec<mp_list<mapped_level<definition, Ks>...>, Ks...>;
  };
  /// The loom format: one generated level per loop.
  using format = typename make_format<std::make_index_sequence<order>>::type;

  /// "L(i,j) = vals(i*(i + 1)/2 + j) for i in 0 : N, j in 0 : N where j <= i"
  static std::string text(const std::string& label) {
    std::string idx, loops_text;
    boost::mp11::mp_for_each<boost::mp11::mp_iota_c<order>>([&](auto k) {
      using L = mapped_level<definition, decltype(k)::value>;
      idx += (k ? "," : "") + std::string(L::self::name);
      loops_text += (k ? ", " : "") + L::declared_text();
    });
    return label + "(" + idx + ") = vals(" + detail::show<typename Value::offset>::text() +
           ") for " + loops_text;
  }

  /// What explain prints for an operand in this mapping: the mapping, then per loop the rule
  /// that fused it with the program. `role[k]`: 'i' iterated alone, 'm' co-iterated with
  /// `peers[k]`, 'l' located while `peers[k]` is iterated.
  static std::string explain(const std::string& label, const std::vector<char>& role,
                             const std::vector<std::string>& peers,
                             const std::vector<std::string>& program_index) {
    std::string s = "mapping " + label + " = " + std::string(name) + ": " + text(label) + "\n";
    boost::mp11::mp_for_each<boost::mp11::mp_iota_c<order>>([&](auto k) {
      using L = mapped_level<definition, decltype(k)::value>;
      const std::string x(L::self::name);
      const std::string y = k < program_index.size() ? program_index[k] : x;
      const char r = k < role.size() ? role[k] : 'i';
      s += "  fused " + x + " (program index " + y + "): ";
      if (!boost::mp11::mp_empty<typename L::loop::guards>::value)
        s += "G (guard into bound) gives " + x + " in " + L::bounds_text() + "; ";
      if (r == 'l' && L::is_hash) {
        s += "F1 (iteration -> lookup): " + y + " comes from " + peers[k] + "; the hash map " +
             L::bounds_text() + " is probed for it in O(1) (never iterated, never sorted)";
      } else if (r == 'l') {
        s += "F1 (iteration -> lookup): " + y + " comes from " + peers[k] +
             "; T4 turns the range into the test " + L::bounds_text() + " and a read at the offset";
      } else if (L::is_hash) {
        s += "F3 (@unique " + x + "): the program's loop over " + y + " is the loop over the keys of " +
             L::bounds_text() + "; the map is unordered, so its keys are sorted on demand (once per "
             "tensor)" + (r == 'm' ? " and merged with " + peers[k] : "");
      } else if (!L::loop::unique) {
        s += "no F3 (" + x + " not @unique): " + L::bounds_text() + " may repeat a coordinate; each "
             "run of equal " + x + " is one iteration of the program's loop over " + y +
             ", the loop below walks the whole run (its entries accumulate)" +
             (r == 'm' ? "; merged with " + peers[k] : "");
      } else if (L::is_range) {
        s += "F2: the program's loop over " + y + " is the mapping's loop " + x + " in " +
             L::bounds_text() + (r == 'm' ? " (co-iterated with " + peers[k] + ")" : " (a counted loop)");
      } else if (r == 'm') {
        s += "F3 (@unique " + x + ") and F4: sorted merge of " + L::bounds_text() + " with " +
             peers[k] + " (leapfrog, galloping seek)";
      } else {
        s += "F3 (@unique " + x + "): the program's loop over " + y + " is the mapping's loop over " +
             L::bounds_text() + ", one iteration per stored position";
      }
      s += "\n";
    });
    s += "  value: vals(" + detail::show<typename Value::offset>::text() +
         ") read in the loop body (let-inlining: no logical tensor is built)\n";
    return s;
  }
};

/// `define<"lower_packed">(range(i, ...), range(j, ...), values(...))`.
template <fixed_string Name, class... Parts>
constexpr auto define(Parts...) {
  using parts = mp_list<Parts...>;
  using value = boost::mp11::mp_back<parts>;
  using loops = boost::mp11::mp_pop_back<parts>;
  static_assert(requires { typename value::offset; },
                "loom::mapping::define: the last argument must be values(offset)");
  static_assert(boost::mp11::mp_size<loops>::value >= 1,
                "loom::mapping::define: give one loop per mode before values(...)");
  return definition<Name, loops, value>{};
}

/// The loom format of a mapping (the type of a `define` call).
template <class Definition>
using format_of = typename std::remove_cvref_t<Definition>::format;

namespace detail {
template <class F>
struct is_mapped_format : std::false_type {};
template <class Def, std::size_t... Ks, std::size_t... Ms>
struct is_mapped_format<format_spec<mp_list<mapped_level<Def, Ks>...>, Ms...>> : std::true_type {};
}  // namespace detail

/// Satisfied by the formats of storage mappings (and their mode re-orderings).
template <class F>
concept mapped_format = detail::is_mapped_format<F>::value;

}  // namespace loom::mapping

#endif  // LOOM_FORMAT_MAPPING_DEFINITION_HPP
// ---- end <loom/format/mapping/definition.hpp>
// ---- begin <loom/format/mapping/library.hpp>
// Defines the shipped storage mappings: lower- and upper-triangular packed, symmetric stored as
// its lower triangle, band, Z-order (Morton) dense, CSR, DCSR and CSF written as mappings, COO
// (non-unique rows), DCSR with hashed rows and a trie of hash maps (format/mapping/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MAPPING_LIBRARY_HPP
#define LOOM_FORMAT_MAPPING_LIBRARY_HPP


#include <cstdint>

namespace loom::mapping {

/// The names the shipped mappings use: index variables and physical arrays (STOREL's).
namespace names {
inline constexpr loom::index<"i"> i{};
inline constexpr loom::index<"j"> j{};
inline constexpr loom::index<"k"> k{};
inline constexpr auto I = var(i);
inline constexpr auto J = var(j);
inline constexpr array<"pos1", std::int64_t> pos1{};
inline constexpr array<"idx1", std::int32_t> idx1{};
inline constexpr array<"pos2", std::int64_t> pos2{};
inline constexpr array<"idx2", std::int32_t> idx2{};
inline constexpr array<"pos3", std::int64_t> pos3{};
inline constexpr array<"idx3", std::int32_t> idx3{};
/// a hash map from row to its segment number, and per-row tables of column -> position
inline constexpr hash_map<"rows"> rows{};
inline constexpr hash_map<"cols"> cols{};
inline constexpr array<"slot2", std::int64_t> slot2{};
}  // namespace names

using literals::operator""_c;

/// Lower-triangular, rows packed: A(i,j) = vals(i*(i+1)/2 + j) where j <= i (notes §3.3 (8),
/// erratum fixed).
inline constexpr auto lower_packed_mapping = define<"lower_packed">(
    range(names::i, 0_c, extent), range(names::j, 0_c, extent, names::J <= names::I),
    values(names::I * (names::I + 1_c) / 2_c + names::J));
using lower_packed = format_of<decltype(lower_packed_mapping)>;

/// The strictly lower part of the same packed array (j < i): with lower_packed, two views of
/// one array, e.g. symmetric y = L x + (strict L)^T x in two fused loop nests.
inline constexpr auto strict_lower_packed_mapping = define<"strict_lower_packed">(
    range(names::i, 0_c, extent), range(names::j, 0_c, extent, names::J < names::I),
    values(names::I * (names::I + 1_c) / 2_c + names::J));
using strict_lower_packed = format_of<decltype(strict_lower_packed_mapping)>;

/// The diagonal: A(i,i) = vals(i) (a one-entry range per row).
inline constexpr auto diagonal_mapping = define<"diagonal">(
    range(names::i, 0_c, extent), range(names::j, 0_c, extent, names::J >= names::I, names::J <= names::I),
    values(names::I));
using diagonal = format_of<decltype(diagonal_mapping)>;

/// Strictly lower-triangular, rows packed without the diagonal: A(i,j) = vals(i*(i-1)/2 + j)
/// where j < i (the notes' erratum offset is right for this layout: N(N-1)/2 slots). With
/// `diagonal`, the two terms of a lower-triangular matrix stored as a sum of mappings.
inline constexpr auto strict_lower_compact_mapping = define<"strict_lower_compact">(
    range(names::i, 0_c, extent), range(names::j, 0_c, extent, names::J < names::I),
    values(names::I * (names::I - 1_c) / 2_c + names::J));
using strict_lower_compact = format_of<decltype(strict_lower_compact_mapping)>;

/// Upper-triangular, rows packed: row i holds j in i..N-1 after the i*N - i*(i-1)/2 slots of
/// the rows above.
inline constexpr auto upper_packed_mapping = define<"upper_packed">(
    range(names::i, 0_c, extent), range(names::j, 0_c, extent, names::J >= names::I),
    values(names::I * extent - names::I * (names::I - 1_c) / 2_c + names::J - names::I));
using upper_packed = format_of<decltype(upper_packed_mapping)>;

/// Symmetric, stored as its packed lower triangle: A(i,j) = A(j,i) = vals(tri(max, min)).
inline constexpr auto symmetric_packed_mapping = define<"symmetric_packed">(
    range(names::i, 0_c, extent), range(names::j, 0_c, extent),
    values(max(names::I, names::J) * (max(names::I, names::J) + 1_c) / 2_c +
           min(names::I, names::J)));
using symmetric_packed = format_of<decltype(symmetric_packed_mapping)>;

/// Band of half-width W, row by row (LAPACK's band layout): A(i,j) = vals(i*(2W+1) + j - i + W)
/// where i - W <= j <= i + W. Slots outside the matrix (first and last rows) are padding.
template <std::int64_t W>
inline constexpr auto band_mapping = define<"band">(
    range(names::i, 0_c, extent),
    range(names::j, 0_c, extent, names::J >= names::I - c<W>, names::J <= names::I + c<W>),
    values(names::I * c<2 * W + 1> + names::J - names::I + c<W>));
template <std::int64_t W>
using band = format_of<decltype(band_mapping<W>)>;

/// Tridiagonal, rows packed without padding (notes §3.3 (9), erratum fixed): row i starts at
/// 2i - 1 and holds j in i-1..i+1, so A(i,j) = vals(2i + j); exactly 3N - 2 slots.
inline constexpr auto tridiagonal_mapping = define<"tridiagonal">(
    range(names::i, 0_c, extent),
    range(names::j, 0_c, extent, names::I - 1_c <= names::J, names::J <= names::I + 1_c),
    values(2_c * names::I + names::J));
using tridiagonal = format_of<decltype(tridiagonal_mapping)>;

/// Dense row-major (Example 4.1): A(i,j) = vals(i*N + j).
inline constexpr auto dense_rowmajor_mapping = define<"dense_rowmajor">(
    range(names::i, 0_c, extent), range(names::j, 0_c, extent),
    values(names::I * extent + names::J));
using dense_rowmajor = format_of<decltype(dense_rowmajor_mapping)>;

/// Dense in Z-order (Morton): A(i,j) = vals(interleave(i, j)), i in the even bits (notes §3.3
/// (10), read as lookups). N a power of two gives exactly N*N slots.
inline constexpr auto zorder_mapping = define<"zorder">(
    range(names::i, 0_c, extent), range(names::j, 0_c, extent),
    values(interleave(names::I, names::J)));
using zorder = format_of<decltype(zorder_mapping)>;

/// CSR as a mapping (Fig. 1(b)): sum(<i,_> in 0:N) { @unique i -> sum(<p, j> in
/// idx2(pos2(i) : pos2(i+1))) { @unique j -> vals(p) } }.
inline constexpr auto csr_mapping = define<"csr_mapping">(
    range(names::i, 0_c, extent),
    each(names::j, names::idx2.slice(names::pos2(pos(names::i)), names::pos2(pos(names::i) + 1_c)),
         unique),
    values(pos(names::j)));
using csr = format_of<decltype(csr_mapping)>;

/// DCSR as a mapping (Example 4.2): both levels are sorted unique segments.
inline constexpr auto dcsr_mapping = define<"dcsr_mapping">(
    each(names::i, names::idx1.slice(names::pos1(0_c), names::pos1(1_c)), unique),
    each(names::j, names::idx2.slice(names::pos2(pos(names::i)), names::pos2(pos(names::i) + 1_c)),
         unique),
    values(pos(names::j)));
using dcsr = format_of<decltype(dcsr_mapping)>;

/// CSF of order 3 as a mapping (the B of Fig. 1(d)).
inline constexpr auto csf3_mapping = define<"csf3_mapping">(
    each(names::i, names::idx1.slice(names::pos1(0_c), names::pos1(1_c)), unique),
    each(names::j, names::idx2.slice(names::pos2(pos(names::i)), names::pos2(pos(names::i) + 1_c)),
         unique),
    each(names::k, names::idx3.slice(names::pos3(pos(names::j)), names::pos3(pos(names::j) + 1_c)),
         unique),
    values(pos(names::k)));
using csf3 = format_of<decltype(csf3_mapping)>;

/// COO as a mapping (notes §3.4): rows repeat (no `unique`), one column per position:
/// sum(<p, i> in idx1(pos1(0) : pos1(1))) { (i, idx2(p)) -> vals(p) }. A row's run of positions
/// is one iteration of the program's loop over i.
inline constexpr auto coo_mapping = define<"coo_mapping">(
    each(names::i, names::idx1.slice(names::pos1(0_c), names::pos1(1_c))),
    each(names::j, names::idx2.slice(pos(names::i), pos(names::i) + 1_c), unique),
    values(pos(names::j)));
using coo = format_of<decltype(coo_mapping)>;

/// DCSR with hashed rows: a hash map from each non-empty row to its segment number r, then the
/// sorted columns idx2(pos2(r) : pos2(r+1)). Rows are unordered (located in O(1), sorted on
/// demand when a program iterates them).
inline constexpr auto hashed_rows_mapping = define<"hashed_rows">(
    hashed(names::i, names::rows),
    each(names::j, names::idx2.slice(names::pos2(pos(names::i)), names::pos2(pos(names::i) + 1_c)),
         unique),
    values(pos(names::j)));
using hashed_rows = format_of<decltype(hashed_rows_mapping)>;

/// A trie of hash maps (STOREL's `CREATE TRIE T(M)(N)`, `sum(<i,row> in T, <j,v> in row)`):
/// rows hashed to a table number r, each row's columns a hash table in slots
/// slot2(r) : slot2(r+1) of `cols` mapping a column to its value's position.
inline constexpr auto hash_trie_mapping = define<"hash_trie">(
    hashed(names::i, names::rows),
    hashed(names::j, names::cols.table(names::slot2(pos(names::i)), names::slot2(pos(names::i) + 1_c))),
    values(pos(names::j)));
using hash_trie = format_of<decltype(hash_trie_mapping)>;

}  // namespace loom::mapping

#endif  // LOOM_FORMAT_MAPPING_LIBRARY_HPP
// ---- end <loom/format/mapping/library.hpp>
// ---- begin <loom/format/mapping/make.hpp>
// Defines loom::mapping::make_tensor and make_view: a mapped tensor from its physical arrays
// (owned, or borrowed with zero copies), validated once (format/mapping/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MAPPING_MAKE_HPP
#define LOOM_FORMAT_MAPPING_MAKE_HPP


#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom::mapping {

/// A physical array's contents for make_tensor (a container) or make_view (a span).
template <class Arr, class Data>
struct binding {
  Data data;
};
/// `bind(crd, crd_vector)`: the contents of array `crd`.
template <class Arr, class Data>
  requires(!detail::hash_map_kind<Arr>)
binding<Arr, std::remove_cvref_t<Data>> bind(Arr, Data&& d) {
  return {std::forward<Data>(d)};
}

/// `bind(H, table)`: the contents of hash map H, borrowed (a view keeps reading `table`).
template <fixed_string Name, class K, class V, class K2, class V2>
binding<hash_map<Name, K, V>, hash_table_view<K2, V2>> bind(hash_map<Name, K, V>,
                                                            const hash_table<K2, V2>& table) {
  return {table.view()};
}

namespace detail {

template <class Arr, class B>
inline constexpr bool binds_v = false;
template <class Arr, class D>
inline constexpr bool binds_v<Arr, binding<Arr, D>> = true;

// index of the binding of Arr among Bs (sizeof...(Bs) when absent)
template <class Arr, class... Bs>
constexpr std::size_t binding_index() {
  constexpr bool match[] = {binds_v<Arr, Bs>..., false};
  for (std::size_t k = 0; k < sizeof...(Bs); ++k)
    if (match[k]) return k;
  return sizeof...(Bs);
}

/// Fills every level's arrays from the bindings and checks the whole tensor, level by level.
template <class T, class Format, bool Owning, class Values, class... Bs>
basic_tensor<T, Format, Owning> build(const std::array<std::int64_t, Format::order>& shape,
                                      Values&& values, const Bs&... bs) {
  using tensor_t = basic_tensor<T, Format, Owning>;
  const auto all = std::forward_as_tuple(bs...);
  typename tensor_t::level_storages levels{};
  std::string who;
  [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
    (
        [&] {
          using L = boost::mp11::mp_at_c<typename Format::levels, Ks>;
          who = "loom::mapping " + std::string(L::definition::name);
          auto& st = std::get<Ks>(levels);
          st.extent = shape[Format::modes[Ks]];
          boost::mp11::mp_for_each<boost::mp11::mp_iota<boost::mp11::mp_size<typename L::array_list>>>([&](auto a) {
            using Arr = boost::mp11::mp_at_c<typename L::array_list, decltype(a)::value>;
            constexpr std::size_t b = binding_index<Arr, Bs...>();
            static_assert(b < sizeof...(Bs),
                          "loom::mapping::make_tensor/make_view: a physical array the mapping "
                          "reads has no bind(array, data) argument");
            const auto& data = std::get<b>(all).data;
            auto& dest = std::get<decltype(a)::value>(st.arrays);
            if constexpr (detail::hash_map_kind<Arr>) {  // a hash_table: keys and positions
              if (data.keys.size() != data.vals.size())
                throw shape_error(who + ": hash map " + std::string(Arr::name) + " has " +
                                  std::to_string(data.keys.size()) + " keys but " +
                                  std::to_string(data.vals.size()) + " positions");
              if constexpr (Owning) {
                dest.keys.assign(data.keys.begin(), data.keys.end());
                dest.vals.assign(data.vals.begin(), data.vals.end());
              } else {
                dest.keys = std::span<const typename Arr::key_type>(data.keys.data(), data.keys.size());
                dest.vals = std::span<const typename Arr::mapped_type>(data.vals.data(), data.vals.size());
              }
            } else if constexpr (Owning) {
              dest.assign(data.begin(), data.end());
            } else {
              dest = std::span<const typename Arr::value_type>(data.data(), data.size());
            }
          });
        }(),
        ...);
    parent_runs parents;
    (
        [&] {
          using L = boost::mp11::mp_at_c<typename Format::levels, Ks>;
          parents = L::walk(std::get<Ks>(levels), parents, who, Format::modes[Ks], [](auto...) {});
        }(),
        ...);
    if (static_cast<std::int64_t>(values.size()) < parents.count)  // more is fine: views may share an array
      throw shape_error(who + ": the value array has " + std::to_string(values.size()) +
                        " entries; the mapping's offsets need " + std::to_string(parents.count));
  }(std::make_index_sequence<Format::order>{});
  return tensor_t(shape, std::move(levels), std::forward<Values>(values));
}

}  // namespace detail

/// An owning mapped tensor from its arrays: `make_tensor<F>({n, n}, vals, bind(crd, c), ...)`.
template <mapped_format Format, class T, class... Arrs, class... Datas>
tensor<T, Format> make_tensor(const std::array<std::int64_t, Format::order>& shape,
                              std::vector<T> values, const binding<Arrs, Datas>&... arrays) {
  return detail::build<T, Format, true>(shape, std::move(values), arrays...);
}

/// A zero-copy mapped view over caller arrays (spans or contiguous containers that outlive it).
template <mapped_format Format, class T, class... Arrs, class... Datas>
view<T, Format> make_view(const std::array<std::int64_t, Format::order>& shape,
                          std::span<T> values, const binding<Arrs, Datas>&... arrays) {
  return detail::build<T, Format, false>(shape, values, arrays...);
}

}  // namespace loom::mapping

#endif  // LOOM_FORMAT_MAPPING_MAKE_HPP
// ---- end <loom/format/mapping/make.hpp>
// ---- begin <loom/format/mapping/sum.hpp>
// Defines loom::mapping::sum_of: a tensor stored as the sum of mapped tensors, each read with
// its modes in place or permuted (S = L + SL^T), and the distribution of a program over the
// sum, STOREL's `sum(<k,v> in e1 + e2) e3 = sum(<k,v> in e1) e3 + sum(<k,v> in e2) e3`: one
// fused kernel per term, each planned for its own term (format/mapping/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MAPPING_SUM_HPP
#define LOOM_FORMAT_MAPPING_SUM_HPP

// ---- begin <loom/format/format_name.hpp>
// Defines loom::format_name<F>(): the name of a format for messages and explain() (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_FORMAT_NAME_HPP
#define LOOM_FORMAT_FORMAT_NAME_HPP


#include <string>
#include <type_traits>

namespace loom {

/// "csr", "dcsc", ... for the standard aliases; otherwise "format<dense,compressed>::ordered<1,0>".
template <storage_format F>
std::string format_name() {
  if constexpr (std::is_same_v<F, csr>) return "csr";
  else if constexpr (std::is_same_v<F, csc>) return "csc";
  else if constexpr (std::is_same_v<F, dcsr>) return "dcsr";
  else if constexpr (std::is_same_v<F, dcsc>) return "dcsc";
  else if constexpr (std::is_same_v<F, coo>) return "coo";
  else if constexpr (std::is_same_v<F, dense_vector>) return "dense_vector";
  else if constexpr (std::is_same_v<F, sparse_vector>) return "sparse_vector";
  else if constexpr (std::is_same_v<F, dense_matrix>) return "dense_matrix";
  else {
    std::string s = "format<";
    bool first = true;
    boost::mp11::mp_for_each<boost::mp11::mp_transform<boost::mp11::mp_identity, typename F::levels>>(
        [&](auto level) {
          s += (first ? "" : ",") + std::string(decltype(level)::type::name);
          first = false;
        });
    s += ">";
    bool identity = true;
    for (std::size_t k = 0; k < F::order; ++k) identity = identity && F::modes[k] == k;
    if (!identity) {
      s += "::ordered<";
      for (std::size_t k = 0; k < F::order; ++k) s += (k ? "," : "") + std::to_string(F::modes[k]);
      s += ">";
    }
    return s;
  }
}

}  // namespace loom

#endif  // LOOM_FORMAT_FORMAT_NAME_HPP
// ---- end <loom/format/format_name.hpp>
// ---- begin <loom/plan/explain.hpp>
// Defines loom::explain(lhs, rhs): the chosen plan in words: the kernel, the loop order, the
// strategy at each loop level, transpositions and the output strategy (plan/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_PLAN_EXPLAIN_HPP
#define LOOM_PLAN_EXPLAIN_HPP

// ---- begin <loom/expr/visit.hpp>
// Defines loom::expr::for_each_access and for_each_node: runtime walks over an expression (expr/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXPR_VISIT_HPP
#define LOOM_EXPR_VISIT_HPP


#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <tuple>
#include <utility>

namespace loom::expr {

/// Calls `f(node)` for every node of `e`, parents before children, left to right.
template <class E, class F>
constexpr void for_each_node(const E& e, F&& f) {
  f(e);
  if constexpr (requires { e.lhs; e.rhs; }) {
    for_each_node(e.lhs, f);
    for_each_node(e.rhs, f);
  } else if constexpr (requires { e.pred; e.body; }) {
    for_each_node(e.pred, f);
    for_each_node(e.body, f);
  } else if constexpr (requires { e.body; }) {
    for_each_node(e.body, f);
  } else if constexpr (requires { e.args; }) {
    std::apply([&](const auto&... a) { (for_each_node(a, f), ...); }, e.args);
  }
}

template <class X>
struct is_access : std::false_type {};
template <class T, class... Is>
struct is_access<access<T, Is...>> : std::true_type {};

/// Calls `f(access, std::integral_constant<size_t, ordinal>)` for every access of `e`, in
/// `accesses_t<E>` order.
template <class E, class F>
constexpr void for_each_access(const E& e, F&& f) {
  std::size_t ordinal = 0;
  for_each_node(e, [&](const auto& node) {
    if constexpr (is_access<std::remove_cvref_t<decltype(node)>>::value) f(node, ordinal++);
  });
}

}  // namespace loom::expr

#endif  // LOOM_EXPR_VISIT_HPP
// ---- end <loom/expr/visit.hpp>
// ---- begin <loom/optimize/hoist_choice.hpp>
// Defines the runtime choice whether to compute a hoistable sum first (rewrite/hoist.hpp): the
// fused kernel's estimated cost against the sum's own kernel plus the rest with the sum as one
// operand, from the same statistics and loop-order cost as the plan choice (optimize/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_HOIST_CHOICE_HPP
#define LOOM_OPTIMIZE_HOIST_CHOICE_HPP

// ---- begin <loom/optimize/plan_choice.hpp>
// Defines the runtime choice among a kernel's instantiated candidate plans: Galley's loop-order
// cost from sparsity estimates, a plan cache keyed by a coarse statistics signature, and the
// LOOM_DEBUG_PLAN log (optimize/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_PLAN_CHOICE_HPP
#define LOOM_OPTIMIZE_PLAN_CHOICE_HPP

// ---- begin <loom/optimize/chain_bound_estimator.hpp>
// Defines loom::chain_bound_estimator, the degree-constraint bound (optimize/, notes 001 §5.4).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_CHAIN_BOUND_ESTIMATOR_HPP
#define LOOM_OPTIMIZE_CHAIN_BOUND_ESTIMATOR_HPP

// ---- begin <loom/optimize/degree_constraint.hpp>
// Defines loom::degree_constraint, one DC(X, Y, d) bound of the chain-bound estimator (optimize/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_DEGREE_CONSTRAINT_HPP
#define LOOM_OPTIMIZE_DEGREE_CONSTRAINT_HPP

#include <string>
#include <vector>

namespace loom {

/// `DC(X, Y, d)`: for any fixed value of the indices `given` (X), at most `degree` (d) distinct
/// values of the indices `bound` (Y) occur among the non-fill entries (notes 001 §5.4).
/// For a matrix `A[i,j]`: `{{"i"}, {"j"}, max row degree}`, `{{}, {"i", "j"}, nnz}`.
struct degree_constraint {
  std::vector<std::string> given;
  std::vector<std::string> bound;
  double degree = 0;
  friend bool operator==(const degree_constraint&, const degree_constraint&) = default;
};

}  // namespace loom

#endif  // LOOM_OPTIMIZE_DEGREE_CONSTRAINT_HPP
// ---- end <loom/optimize/degree_constraint.hpp>
// ---- begin <loom/optimize/index_extent.hpp>
// Defines loom::index_extent and loom::index_set, runtime index names with extents (optimize/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_INDEX_EXTENT_HPP
#define LOOM_OPTIMIZE_INDEX_EXTENT_HPP


#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace loom {

/// One named index of an estimate and its extent (`{"i", 1000}`).
struct index_extent {
  std::string name;
  std::int64_t extent = 0;
  friend bool operator==(const index_extent&, const index_extent&) = default;
};

/// The indices a sparsity estimate ranges over, in first-appearance order; names are unique.
using index_set = std::vector<index_extent>;

namespace detail {

inline bool has_index(const index_set& s, const std::string& name) {
  return std::any_of(s.begin(), s.end(), [&](const index_extent& x) { return x.name == name; });
}

inline double dense_size(const index_set& s) {
  double p = 1;
  for (const index_extent& x : s) p *= static_cast<double>(x.extent);
  return p;
}

/// Throws `shape_error` on a repeated name or a negative extent.
inline void check_index_set(const index_set& s, const char* who) {
  for (std::size_t a = 0; a < s.size(); ++a) {
    if (s[a].extent < 0)
      throw shape_error(std::string(who) + ": index '" + s[a].name + "' has negative extent");
    for (std::size_t b = a + 1; b < s.size(); ++b)
      if (s[a].name == s[b].name)
        throw shape_error(std::string(who) + ": index '" + s[a].name +
                          "' appears twice; give every mode its own index name");
  }
}

/// `a` followed by the indices of `b` not in `a`; throws `shape_error` when a shared name has
/// different extents.
inline index_set index_union(const index_set& a, const index_set& b, const char* who) {
  index_set out = a;
  for (const index_extent& x : b) {
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const index_extent& y) { return y.name == x.name; });
    if (it == out.end()) {
      out.push_back(x);
    } else if (it->extent != x.extent) {
      throw shape_error(std::string(who) + ": index '" + x.name + "' has extent " +
                        std::to_string(it->extent) + " in one operand and " +
                        std::to_string(x.extent) + " in another; use one extent per index name");
    }
  }
  return out;
}

/// The indices of `s` named in `names` (`keep = true`) or not named there (`keep = false`).
inline index_set index_filter(const index_set& s, const std::vector<std::string>& names,
                              bool keep) {
  index_set out;
  for (const index_extent& x : s)
    if ((std::find(names.begin(), names.end(), x.name) != names.end()) == keep) out.push_back(x);
  return out;
}

}  // namespace detail
}  // namespace loom

#endif  // LOOM_OPTIMIZE_INDEX_EXTENT_HPP
// ---- end <loom/optimize/index_extent.hpp>
// ---- begin <loom/optimize/statistics.hpp>
// Defines loom::statistics, the per-tensor summary the runtime optimizer reads (optimize/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_STATISTICS_HPP
#define LOOM_OPTIMIZE_STATISTICS_HPP

#include <cstdint>
#include <vector>

namespace loom {

/// What the optimizer knows about one tensor: a plain value, gathered by
/// `loom::gather_statistics` and never updated in place (a changed tensor needs new statistics;
/// `loom::statistics_cache` recomputes them when the tensor's storage signature changes).
///
/// Counts are *structural*: every stored entry counts, explicit zeros included (so a dense
/// tensor has `nnz == product of extents`). Vectors indexed by *mode* use logical mode order;
/// `nonempty_fibers` is indexed by *level* (storage order).
struct statistics {
  /// Extents, in logical mode order.
  std::vector<std::int64_t> shape;
  /// Number of stored entries.
  std::int64_t nnz = 0;
  /// `nonempty_fibers[k]`: distinct coordinate prefixes (levels 0..k, storage order) holding at
  /// least one stored entry. `nonempty_fibers[0]` counts the non-empty top-level slices; the last
  /// entry counts distinct stored coordinates (below `nnz` only with duplicate coordinates).
  std::vector<std::int64_t> nonempty_fibers;
  /// `distinct[m]`: number of coordinates of mode m that appear in at least one stored entry.
  std::vector<std::int64_t> distinct;
  /// `max_degree[m]`: largest number of stored entries sharing one coordinate of mode m
  /// (for a matrix, mode 0 gives the largest row and mode 1 the largest column).
  std::vector<std::int64_t> max_degree;
  /// `mean_degree[m]`: `nnz / distinct[m]`, the mean over the coordinates that occur (0 if none).
  std::vector<double> mean_degree;

  /// Number of modes.
  std::size_t order() const { return shape.size(); }
  /// Product of the extents, as a double (it may exceed int64 for large sparse tensors).
  double dense_size() const {
    double s = 1;
    for (std::int64_t e : shape) s *= static_cast<double>(e);
    return s;
  }
  /// `nnz / dense_size()` (0 for an empty shape).
  double density() const {
    const double s = dense_size();
    return s > 0 ? static_cast<double>(nnz) / s : 0.0;
  }
  /// For a matrix: the largest number of stored entries in one row (mode 0).
  std::int64_t max_row_degree() const { return max_degree.empty() ? 0 : max_degree[0]; }
  /// For a matrix: the largest number of stored entries in one column (mode 1).
  std::int64_t max_column_degree() const { return max_degree.size() < 2 ? 0 : max_degree[1]; }

  friend bool operator==(const statistics&, const statistics&) = default;
};

}  // namespace loom

#endif  // LOOM_OPTIMIZE_STATISTICS_HPP
// ---- end <loom/optimize/statistics.hpp>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace loom {

/// Sparsity as a set of degree constraints, estimated with the chain bound (Galley's default
/// "DCStats"; notes 001 §5.4). Every estimate is an upper bound on the number of structurally
/// possible non-fills (cancellation ignored):
/// - constructor: `(∅,{x}, distinct x)` and `({x}, others, max degree of x)` per mode, plus
///   `(∅, all, nnz)`; a vector keeps `(∅,{i}, distinct i)`;
/// - conjunction: union of the operands' DCs, keeping the minimum per (X, Y);
/// - disjunction: extend each operand's DCs to the output indices Z it lacks,
///   `(X, Y ∪ Z, d * |Z|)`; keep the (X, Y) present in every operand, summed; cap at `|Y|`;
/// - aggregate: keep every DC, shrink the index set (the estimate takes the minimum over
///   supersets of the target, which is sound because projection never adds tuples);
/// - estimate: the cheapest product of degrees along a path of DCs from ∅ to a superset of the
///   index set (breadth-first search), capped at the product of extents.
///
/// Index names must be unique across an expression: an aggregated index keeps its DCs, so
/// reusing its name for a different index afterwards would mix two indices (rename first, as
/// Galley's `unique_indices` pass does). Tensors of order >= 5 get the single-mode DCs only (Galley
/// enumerates every subset there); the bound stays sound, only looser.
class chain_bound_estimator {
 public:
  /// An estimate from explicit constraints over `indices`; the names in `dcs` may also include
  /// indices outside `indices` if their extents appear in `extra_extents`.
  chain_bound_estimator(index_set indices, std::vector<degree_constraint> dcs,
                        index_set extra_extents = {})
      : indices_(std::move(indices)) {
    detail::check_index_set(indices_, "loom::chain_bound_estimator");
    known_ = detail::index_union(indices_, extra_extents, "loom::chain_bound_estimator");
    for (degree_constraint& dc : dcs) {
      for (const std::vector<std::string>* side : {&dc.given, &dc.bound})
        for (const std::string& n : *side)
          if (!detail::has_index(known_, n))
            throw shape_error("loom::chain_bound_estimator: a degree constraint names index '" + n +
                              "', which has no extent; add it to the index set");
      add_min(key_of(dc.given, dc.bound), dc.degree);
    }
  }
  /// The estimate of a stored tensor: `names[m]` names logical mode m, extents come from `s`.
  chain_bound_estimator(const statistics& s, const std::vector<std::string>& names)
      : chain_bound_estimator(named(s, names), constraints_of(s, names)) {}

  /// A tensor with no fill entry over `indices` (used to broadcast).
  static chain_bound_estimator full(index_set indices) {
    std::vector<degree_constraint> dcs;
    std::vector<std::string> all;
    for (const index_extent& x : indices) all.push_back(x.name);
    dcs.push_back({{}, all, detail::dense_size(indices)});
    for (const index_extent& x : indices) {
      dcs.push_back({{}, {x.name}, static_cast<double>(x.extent)});
      index_set rest = detail::index_filter(indices, {x.name}, false);
      if (!rest.empty()) dcs.push_back({{x.name}, names_of(rest), detail::dense_size(rest)});
    }
    return chain_bound_estimator(std::move(indices), std::move(dcs));
  }

  /// Pointwise op whose fill annihilates it: every operand's constraint still holds.
  static chain_bound_estimator conjunction(std::span<const chain_bound_estimator> args) {
    chain_bound_estimator out;
    for (const chain_bound_estimator& a : args) {
      out.indices_ =
          detail::index_union(out.indices_, a.indices_, "loom::chain_bound_estimator::conjunction");
      out.known_ =
          detail::index_union(out.known_, a.known_, "loom::chain_bound_estimator::conjunction");
      for (const auto& [key, d] : a.dcs_) out.add_min(key, d);
    }
    return out;
  }
  /// Pointwise op whose fill does not annihilate it: degrees add up over the operands.
  static chain_bound_estimator disjunction(std::span<const chain_bound_estimator> args) {
    chain_bound_estimator out;
    for (const chain_bound_estimator& a : args) {
      out.indices_ =
          detail::index_union(out.indices_, a.indices_, "loom::chain_bound_estimator::disjunction");
      out.known_ =
          detail::index_union(out.known_, a.known_, "loom::chain_bound_estimator::disjunction");
    }
    std::vector<std::map<dc_key, double>> extended;
    for (const chain_bound_estimator& a : args) {
      const index_set z = detail::index_filter(out.indices_, names_of(a.indices_), false);
      const std::vector<std::string> zn = names_of(z);
      const double zs = detail::dense_size(z);
      std::map<dc_key, double> e;
      auto put = [&](const dc_key& k, double d) {
        auto [it, inserted] = e.try_emplace(k, d);
        if (!inserted) it->second = std::min(it->second, d);
      };
      for (const auto& [key, d] : a.dcs_) {
        put(key, d);
        if (!z.empty()) put(key_of(key.first, set_union(key.second, zn)), d * zs);
      }
      extended.push_back(std::move(e));
    }
    if (!extended.empty()) {
      for (const auto& [key, d0] : extended.front()) {
        double sum = d0;
        bool everywhere = true;
        for (std::size_t k = 1; k < extended.size() && everywhere; ++k) {
          auto it = extended[k].find(key);
          if (it == extended[k].end())
            everywhere = false;
          else
            sum += it->second;
        }
        if (everywhere) out.dcs_[key] = std::min(sum, out.size_of(key.second));
      }
    }
    return out;
  }
  /// Aggregate over the named indices: the index set shrinks and every constraint is kept.
  chain_bound_estimator aggregate(const std::vector<std::string>& names) const {
    chain_bound_estimator out = *this;
    out.indices_ = detail::index_filter(indices_, names, false);
    return out;
  }

  /// Upper bound on the number of non-fill entries.
  double estimate() const { return estimate_given({}); }
  /// Upper bound on the number of non-fill entries per fixed value of the `given` indices.
  double estimate_given(const std::vector<std::string>& given) const {
    const std::vector<std::string> target = sorted(names_of(indices_));
    const std::vector<std::string> w = sorted(given);
    const double cap = detail::dense_size(detail::index_filter(indices_, given, false));
    if (target.empty()) return 1;
    constexpr double inf = std::numeric_limits<double>::infinity();
    std::map<std::vector<std::string>, double> best{{{}, 1.0}, {w, 1.0}};
    std::vector<std::vector<std::string>> frontier{{}, w};
    auto weight = [&](const std::vector<std::string>& s) {
      auto it = best.find(s);
      return it == best.end() ? inf : it->second;
    };
    while (!frontier.empty()) {
      std::vector<std::vector<std::string>> next;
      for (const std::vector<std::string>& x : frontier) {
        const double wx = best[x];
        for (const auto& [key, d] : dcs_) {
          if (!includes(x, key.first) || includes(x, key.second)) continue;  // no progress
          std::vector<std::string> y = set_union(x, key.second);
          const double wy = wx * d;
          if (wy < std::min(weight(y), weight(target))) {
            best[y] = wy;
            next.push_back(std::move(y));
          }
        }
      }
      frontier = std::move(next);
    }
    double result = cap;
    for (const auto& [x, wx] : best)
      if (includes(x, target)) result = std::min(result, wx);
    return result;
  }
  const index_set& indices() const { return indices_; }
  /// Every constraint (sorted names, one per (X, Y), the tightest kept).
  std::vector<degree_constraint> constraints() const {
    std::vector<degree_constraint> out;
    for (const auto& [key, d] : dcs_) out.push_back({key.first, key.second, d});
    return out;
  }

 private:
  using dc_key = std::pair<std::vector<std::string>, std::vector<std::string>>;

  chain_bound_estimator() = default;

  static std::vector<std::string> sorted(std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  }
  static std::vector<std::string> set_union(const std::vector<std::string>& a,
                                            const std::vector<std::string>& b) {
    std::vector<std::string> out;
    std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
  }
  static bool includes(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    return std::includes(a.begin(), a.end(), b.begin(), b.end());
  }
  static std::vector<std::string> names_of(const index_set& s) {
    std::vector<std::string> out;
    for (const index_extent& x : s) out.push_back(x.name);
    return out;
  }
  /// (sorted X, sorted Y \ X)
  static dc_key key_of(std::vector<std::string> x, std::vector<std::string> y) {
    x = sorted(std::move(x));
    y = sorted(std::move(y));
    std::vector<std::string> y_minus_x;
    std::set_difference(y.begin(), y.end(), x.begin(), x.end(), std::back_inserter(y_minus_x));
    return {std::move(x), std::move(y_minus_x)};
  }
  double size_of(const std::vector<std::string>& names) const {
    return detail::dense_size(detail::index_filter(known_, names, true));
  }
  void add_min(const dc_key& key, double d) {
    auto [it, inserted] = dcs_.try_emplace(key, d);
    if (!inserted) it->second = std::min(it->second, d);
  }
  static index_set named(const statistics& s, const std::vector<std::string>& names) {
    if (names.size() != s.shape.size())
      throw shape_error("loom::chain_bound_estimator: " + std::to_string(names.size()) +
                        " index names for a tensor of order " + std::to_string(s.shape.size()));
    index_set out;
    for (std::size_t m = 0; m < names.size(); ++m) out.push_back({names[m], s.shape[m]});
    return out;
  }
  static std::vector<degree_constraint> constraints_of(const statistics& s,
                                                       const std::vector<std::string>& names) {
    std::vector<degree_constraint> dcs;
    if (names.size() != s.shape.size()) return dcs;  // `named` throws first
    if (names.size() == 1) {
      dcs.push_back({{}, names, static_cast<double>(s.distinct[0])});
      return dcs;
    }
    for (std::size_t m = 0; m < names.size(); ++m) {
      std::vector<std::string> rest;
      for (std::size_t o = 0; o < names.size(); ++o)
        if (o != m) rest.push_back(names[o]);
      dcs.push_back({{}, {names[m]}, static_cast<double>(s.distinct[m])});
      dcs.push_back({{names[m]}, rest, static_cast<double>(s.max_degree[m])});
    }
    if (!names.empty()) dcs.push_back({{}, names, static_cast<double>(s.nnz)});
    return dcs;
  }

  index_set indices_;
  index_set known_;  // indices_ plus aggregated ones still named by constraints
  std::map<dc_key, double> dcs_;
};

}  // namespace loom

#endif  // LOOM_OPTIMIZE_CHAIN_BOUND_ESTIMATOR_HPP
// ---- end <loom/optimize/chain_bound_estimator.hpp>
// ---- begin <loom/optimize/statistics_cache.hpp>
// Defines loom::statistics_cache: statistics per tensor, redone when storage changes (optimize/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_STATISTICS_CACHE_HPP
#define LOOM_OPTIMIZE_STATISTICS_CACHE_HPP

// ---- begin <loom/optimize/gather_statistics.hpp>
// Defines loom::gather_statistics: loom::statistics of a tensor, read from its level arrays where
// the format allows and by one pass over its entries otherwise (optimize/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_GATHER_STATISTICS_HPP
#define LOOM_OPTIMIZE_GATHER_STATISTICS_HPP


#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom {

namespace detail {

inline statistics empty_statistics(std::span<const std::int64_t> shape, std::int64_t nnz) {
  const std::size_t n = shape.size();
  statistics s;
  s.shape.assign(shape.begin(), shape.end());
  s.nnz = nnz;
  s.nonempty_fibers.assign(n, 0);
  s.distinct.assign(n, 0);
  s.max_degree.assign(n, 0);
  s.mean_degree.assign(n, 0.0);
  return s;
}

inline void set_mean_degrees(statistics& s) {
  for (std::size_t m = 0; m < s.order(); ++m)
    if (s.distinct[m] > 0)
      s.mean_degree[m] = static_cast<double>(s.nnz) / static_cast<double>(s.distinct[m]);
}

/// The reference: one pass over the stored entries, any format. O(nnz * order) time and
/// O(sum of extents) memory (one counter per coordinate of every mode).
/// Non-empty fibers are counted by comparing each entry's storage-order prefix with the previous
/// entry's, which is exact because every loom format stores entries grouped by prefix.
template <class T, storage_format Format, bool Owning>
statistics gather_statistics_generic(const basic_tensor<T, Format, Owning>& t) {
  constexpr std::size_t n = Format::order;
  statistics s = empty_statistics(t.shape(), t.nnz());
  if constexpr (n > 0) {
    std::array<std::vector<std::int64_t>, n> degree;
    for (std::size_t m = 0; m < n; ++m) degree[m].assign(static_cast<std::size_t>(s.shape[m]), 0);
    std::array<std::int64_t, n> previous{};
    bool first = true;
    t.for_each_stored([&](const std::array<std::int64_t, n>& c, const auto&) {
      // The first level whose coordinate differs from the previous entry starts a new fiber at
      // that level and at every level below it.
      std::size_t k = 0;
      if (!first)
        while (k < n && c[Format::modes[k]] == previous[k]) ++k;
      for (std::size_t l = k; l < n; ++l) ++s.nonempty_fibers[l];
      for (std::size_t l = 0; l < n; ++l) previous[l] = c[Format::modes[l]];
      first = false;
      for (std::size_t m = 0; m < n; ++m) ++degree[m][static_cast<std::size_t>(c[m])];
    });
    for (std::size_t m = 0; m < n; ++m) {
      for (std::int64_t d : degree[m]) {
        s.distinct[m] += d > 0 ? 1 : 0;
        s.max_degree[m] = std::max(s.max_degree[m], d);
      }
    }
    set_mean_degrees(s);
  }
  return s;
}

/// Formats read from their arrays: every level dense or unique compressed (dense, csr, csc, dcsr,
/// dcsc, csf, sparse_vector and their reorderings).
template <class Levels>
inline constexpr bool levels_read_from_arrays_v = false;
template <class... Ls>
inline constexpr bool levels_read_from_arrays_v<boost::mp11::mp_list<Ls...>> =
    sizeof...(Ls) > 0 && ((is_dense_level<Ls> || is_unique_compressed_level<Ls>) && ...);

// Every level's positions form one range, and the leaves (stored entries) below a position range
// form one range too, so a position's entry count is a difference of two mapped boundaries.
template <class T, class Format, bool Owning>
struct array_statistics {
  static constexpr std::size_t n = Format::order;
  template <std::size_t K>
  using level_t = boost::mp11::mp_at_c<typename Format::levels, K>;

  const basic_tensor<T, Format, Owning>& t;
  statistics& s;
  std::array<std::int64_t, n> lo{}, hi{};  // positions of each level: [lo[k], hi[k])

  // boundary b of level K-1's positions -> boundary of level K's
  template <std::size_t K>
  std::int64_t child(std::int64_t b) const {
    const auto& st = t.template level<K>();
    if constexpr (is_dense_level<level_t<K>>) return b * st.extent;
    else return static_cast<std::int64_t>(st.pos[static_cast<std::size_t>(b)]);
  }
  template <std::size_t K>
  std::int64_t leaf(std::int64_t b) const {
    if constexpr (K + 1 == n) return b;
    else return leaf<K + 1>(child<K + 1>(b));
  }

  void run() {
    std::int64_t plo = 0, phi = 1;  // the root: one parent position
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      // a level below an empty one may have no pos entries to read (views)
      ((lo[K] = phi > plo ? child<K>(plo) : 0, hi[K] = phi > plo ? child<K>(phi) : 0,
        plo = lo[K], phi = hi[K]),
       ...);
      const std::int64_t leaves = hi[n - 1] - lo[n - 1];
      (level_pass<K>(leaves), ...);
    }(std::make_index_sequence<n>{});
    set_mean_degrees(s);
  }

  template <std::size_t K>
  void level_pass(std::int64_t leaves) {
    constexpr std::size_t mode = Format::modes[K];
    const auto& st = t.template level<K>();
    if constexpr (K + 1 == n) {
      s.nonempty_fibers[K] = hi[K] - lo[K];  // unique levels: one entry per leaf position
      if constexpr (K == 0) {
        s.distinct[mode] = hi[K] - lo[K];
        s.max_degree[mode] = hi[K] > lo[K] ? 1 : 0;
      } else if constexpr (is_dense_level<level_t<K>>) {
        // every parent position holds one entry per coordinate
        const std::int64_t parents = hi[K - 1] - lo[K - 1];
        const bool any = parents > 0 && st.extent > 0;
        s.distinct[mode] = any ? st.extent : 0;
        s.max_degree[mode] = any ? parents : 0;
      } else {
        count_inner<K>(leaves, [&](auto& counter) {
          for (std::int64_t p = lo[K]; p < hi[K]; ++p) ++counter[static_cast<std::size_t>(st.crd[p])];
        });
      }
    } else if constexpr (K == 0) {
      // one parent: each coordinate occurs once, its degree is its position's entry count
      std::int64_t nonempty = 0, max = 0, before = hi[K] > lo[K] ? leaf<K>(lo[K]) : 0;
      for (std::int64_t p = lo[K]; p < hi[K]; ++p) {
        const std::int64_t after = leaf<K>(p + 1), w = after - before;
        before = after;
        nonempty += w > 0 ? 1 : 0;
        max = std::max(max, w);
      }
      s.nonempty_fibers[K] = nonempty;
      s.distinct[mode] = nonempty;
      s.max_degree[mode] = max;
    } else {
      count_inner<K>(leaves, [&](auto& counter) {
        using count_t = typename std::remove_cvref_t<decltype(counter)>::value_type;
        std::int64_t nonempty = 0, before = hi[K] > lo[K] ? leaf<K>(lo[K]) : 0;
        auto add = [&](std::int64_t p, std::int64_t i) {
          const std::int64_t after = leaf<K>(p + 1), w = after - before;
          before = after;
          nonempty += w > 0 ? 1 : 0;
          counter[static_cast<std::size_t>(i)] += static_cast<count_t>(w);
        };
        if constexpr (is_dense_level<level_t<K>>) {
          for (std::int64_t q = lo[K - 1]; q < hi[K - 1]; ++q)
            for (std::int64_t i = 0; i < st.extent; ++i) add(q * st.extent + i, i);
        } else {
          for (std::int64_t p = lo[K]; p < hi[K]; ++p) add(p, static_cast<std::int64_t>(st.crd[p]));
        }
        s.nonempty_fibers[K] = nonempty;
      });
    }
  }

  // Fills a counter per coordinate of level K's mode with `fill`, then reads distinct and max.
  // int32 counters when every count fits: half the memory traffic of int64.
  template <std::size_t K, class Fill>
  void count_inner(std::int64_t leaves, Fill fill) {
    constexpr std::size_t mode = Format::modes[K];
    const auto extent = static_cast<std::size_t>(s.shape[mode]);
    auto finish = [&](auto& counter) {
      fill(counter);
      std::int64_t distinct = 0, max = 0;
      for (const auto d : counter) {
        distinct += d > 0 ? 1 : 0;
        max = std::max(max, static_cast<std::int64_t>(d));
      }
      s.distinct[mode] = distinct;
      s.max_degree[mode] = max;
    };
    if (leaves <= std::numeric_limits<std::int32_t>::max()) {
      std::vector<std::int32_t> counter(extent, 0);
      finish(counter);
    } else {
      std::vector<std::int64_t> counter(extent, 0);
      finish(counter);
    }
  }
};

}  // namespace detail

/// Gathers `loom::statistics` for `t`. Formats made of dense and unique compressed levels (csr,
/// csc, dcsr, dcsc, csf, sparse and dense vectors and matrices) are read from their arrays:
/// fibre counts and the outermost mode's degrees from the `pos` arrays, the other modes' from one
/// counter per coordinate filled from `crd`, O(positions + sum of extents). Any other format takes
/// one pass over its entries (`detail::gather_statistics_generic`); both give the same result.
template <class T, storage_format Format, bool Owning>
statistics gather_statistics(const basic_tensor<T, Format, Owning>& t) {
  if constexpr (detail::levels_read_from_arrays_v<typename Format::levels>) {
    statistics s = detail::empty_statistics(t.shape(), t.nnz());
    detail::array_statistics<T, Format, Owning>{t, s}.run();
    return s;
  } else {
    return detail::gather_statistics_generic(t);
  }
}

}  // namespace loom

#endif  // LOOM_OPTIMIZE_GATHER_STATISTICS_HPP
// ---- end <loom/optimize/gather_statistics.hpp>

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
  static void append_signature(std::vector<std::uintptr_t>& sig, const basic_tensor<T, Format, Owning>& t) {
    sig.push_back(static_cast<std::uintptr_t>(t.nnz()));
    for (std::int64_t e : t.shape()) sig.push_back(static_cast<std::uintptr_t>(e));
    add_array(sig, t.values());
    std::apply(
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

#endif  // LOOM_OPTIMIZE_STATISTICS_CACHE_HPP
// ---- end <loom/optimize/statistics_cache.hpp>
// ---- begin <loom/plan/order.hpp>
// Defines the compile-time choice of the attribute (loop) order and of the operands to transpose
// (plan/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_PLAN_ORDER_HPP
#define LOOM_PLAN_ORDER_HPP


#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/set.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstddef>
#include <type_traits>

namespace loom::plan {

using boost::mp11::mp_list;

/// The most candidate plans instantiated per kernel (a runtime optimizer picks among them).
#ifndef LOOM_MAX_PLAN_CANDIDATES
#  define LOOM_MAX_PLAN_CANDIDATES 4
#endif
inline constexpr std::size_t max_plan_candidates = LOOM_MAX_PLAN_CANDIDATES;
static_assert(max_plan_candidates >= 1, "loom: LOOM_MAX_PLAN_CANDIDATES must be at least 1");

/// The plan's static facts for `lhs = rhs` (an output access and an expression).
/// `Candidate` >= 0 selects that entry of `plan_candidates<Lhs, Rhs>`; -1 is the static choice.
/// `Forced` (an MP11 list of index types, `loom::order`) fixes the loop order instead.
template <class Lhs, class Rhs, int Candidate = -1, class Forced = void>
struct order_plan;

/// The bounded list of plans a runtime optimizer chooses among (the static choice first).
template <class Lhs, class Rhs>
struct plan_candidates;

namespace detail {

template <class A>
struct access_traits;
template <class T, class... Is>
struct access_traits<expr::access<T, Is...>> {
  using tensor_type = std::remove_const_t<T>;
  using format = typename tensor_type::format_type;
  using indices = mp_list<Is...>;
  static constexpr std::size_t order = sizeof...(Is);
  static constexpr bool dense = format::all_dense;
};

// ids of an access's indices, in storage (level) order
template <class Universe, class A>
constexpr auto storage_ids() {
  using tr = access_traits<A>;
  std::array<std::size_t, tr::order> by_mode{};
  std::size_t m = 0;
  boost::mp11::mp_for_each<boost::mp11::mp_transform<boost::mp11::mp_identity, typename tr::indices>>(
      [&](auto i) { by_mode[m++] = boost::mp11::mp_find<Universe, typename decltype(i)::type>::value; });
  std::array<std::size_t, tr::order> by_level{};
  for (std::size_t k = 0; k < tr::order; ++k) by_level[k] = by_mode[tr::format::modes[k]];
  return by_level;
}

inline constexpr std::size_t max_indices = 16;
inline constexpr std::size_t max_accesses = 32;

struct problem {
  std::size_t n = 0;                                  // indices
  std::size_t accesses = 0;
  std::array<bool, max_accesses> sparse{};            // constrains the order
  std::array<std::array<std::size_t, max_indices>, max_accesses> ids{};
  std::array<std::size_t, max_accesses> length{};
  std::array<bool, max_indices> summed{};
  std::array<std::size_t, max_indices> out_rank{};    // preferred position (free indices)
  std::array<bool, max_indices> dense_only{};         // used by no sparse operand
  std::array<std::array<bool, max_indices>, max_accesses> full{};  // full[a][k]: level k is dense
  std::array<std::array<bool, max_indices>, max_indices> before{};  // before[a][b]: a above b
  bool dense_output = false;
};

struct result {
  std::array<std::size_t, max_indices> order{};       // order[d] = index id at depth d
  std::array<bool, max_accesses> transposed{};
  bool ok = false;
};

// Greedy topological order of the precedence constraints of non-dropped sparse accesses:
// free indices first (so sparse outputs append in order), then the output's order.
constexpr result topo(const problem& p, const std::array<bool, max_accesses>& dropped,
                      std::size_t first = max_indices) {
  result r{};
  std::array<bool, max_indices> placed{};
  for (std::size_t d = 0; d < p.n; ++d) {
    std::size_t best = p.n;
    for (std::size_t c = 0; c < p.n; ++c) {
      if (placed[c] || (d == 0 && first < p.n && c != first)) continue;
      bool available = true;
      for (std::size_t a = 0; a < p.accesses && available; ++a) {
        if (!p.sparse[a] || dropped[a]) continue;
        std::size_t at = p.length[a];  // c's level in a, if a uses c
        for (std::size_t k = 0; k < p.length[a]; ++k)
          if (p.ids[a][k] == c) at = k;
        if (at == p.length[a]) continue;  // a does not use c
        for (std::size_t k = 0; k < at; ++k)  // every index stored above c must be placed
          if (!placed[p.ids[a][k]]) available = false;
      }
      for (std::size_t a = 0; a < p.n && available; ++a)
        if (p.before[a][c] && !placed[a]) available = false;
      if (!available) continue;
      // A sparse output wants its free indices first (in-order append). A dense output is
      // located, so indices only dense operands use go innermost (contiguous, vectorisable).
      auto key = [&](std::size_t x) {
        return std::array<std::size_t, 3>{p.dense_output && p.dense_only[x] ? 1u : 0u,
                                          p.summed[x] ? 1u : 0u, p.out_rank[x]};
      };
      if (best == p.n || key(c) < key(best)) best = c;
    }
    if (best == p.n) return r;  // a cycle
    placed[best] = true;
    r.order[d] = best;
  }
  r.ok = true;
  return r;
}

constexpr void mark_transposed(const problem& p, result& r) {
  std::array<std::size_t, max_indices> depth{};
  for (std::size_t d = 0; d < p.n; ++d) depth[r.order[d]] = d;
  for (std::size_t a = 0; a < p.accesses; ++a) {
    if (!p.sparse[a]) continue;
    for (std::size_t k = 1; k < p.length[a]; ++k)
      if (depth[p.ids[a][k]] < depth[p.ids[a][k - 1]]) r.transposed[a] = true;
  }
}

constexpr result choose_under(const problem& p, int candidate) {
  std::array<bool, max_accesses> dropped{};
  result r = topo(p, dropped);
  if (!r.ok && candidate >= 0 && static_cast<std::size_t>(candidate) < p.accesses) {
    dropped[static_cast<std::size_t>(candidate)] = true;
    r = topo(p, dropped);
  }
  // otherwise drop operands from the last one back until the constraints are acyclic
  for (std::size_t a = p.accesses; !r.ok && a-- > 0;) {
    if (!p.sparse[a] || dropped[a]) continue;
    dropped[a] = true;
    r = topo(p, dropped);
  }
  if (r.ok) mark_transposed(p, r);
  return r;
}

// The precedence constraints can only contradict each other when one index name is reused in
// different scopes; then they are ignored and lowering reports the sum it cannot reduce.
constexpr result choose(const problem& p, int candidate) {
  result r = choose_under(p, candidate);
  if (r.ok) return r;
  problem relaxed = p;
  relaxed.before = {};
  return choose_under(relaxed, candidate);
}

// A loop below the outermost whose index only full (dense) levels of sparse operands iterate
// visits its whole extent for every outer iteration (csr x csc SpGEMM in the concordant order
// i, j, k walks every column j for every row i). Transposing such an operand once can give a
// nest in which every loop skips (Gustavson's i, k, j): one candidate per such operand, costed
// at run time with its copy (Galley's reformat; notes 001 §4.1-4.2).
template <class Add>
constexpr void add_transposing(const problem& q, const result& best, Add& add) {
  for (std::size_t d = 1; d < q.n; ++d) {
    const std::size_t x = best.order[d];
    if (q.dense_only[x]) continue;
    bool skips = false;
    for (std::size_t a = 0; a < q.accesses; ++a)
      for (std::size_t k = 0; k < q.length[a]; ++k)
        skips = skips || (q.sparse[a] && q.ids[a][k] == x && !q.full[a][k]);
    if (skips) continue;
    for (std::size_t a = 0; a < q.accesses; ++a) {
      if (!q.sparse[a] || q.length[a] < 2) continue;
      bool dense_on_x = false;
      for (std::size_t k = 0; k < q.length[a]; ++k) dense_on_x = dense_on_x || q.ids[a][k] == x;
      if (!dense_on_x) continue;
      problem t = q;  // the operand as if stored in the reverse order
      for (std::size_t k = 0; k < q.length[a]; ++k) t.ids[a][k] = q.ids[a][q.length[a] - 1 - k];
      result r = choose_under(t, -1);
      if (!r.ok) continue;
      r.transposed = {};
      mark_transposed(q, r);
      add(r);
    }
  }
}

/// The candidate plans of a kernel, best first by the static preference.
template <std::size_t Cap>
struct candidate_list {
  std::array<result, Cap> plans{};
  std::size_t count = 0;
};

constexpr bool same_plan(const problem& p, const result& a, const result& b) {
  for (std::size_t d = 0; d < p.n; ++d)
    if (a.order[d] != b.order[d]) return false;
  for (std::size_t k = 0; k < p.accesses; ++k)
    if (a.transposed[k] != b.transposed[k]) return false;
  return true;
}

// Candidates whose ranking depends on the data: the static choice first; then, when a concordant
// order exists, the greedy completion of every other admissible outermost loop over an index some
// sparse operand stores (an index only dense operands use is never a better outer loop); when none
// exists, the transposition of each sparse operand in turn (notes 001 §4.1–4.2).
template <std::size_t Cap>
constexpr candidate_list<Cap> enumerate(const problem& p) {
  candidate_list<Cap> out{};
  auto add = [&](const result& r) {
    if (!r.ok || out.count == Cap) return;
    for (std::size_t c = 0; c < out.count; ++c)
      if (same_plan(p, out.plans[c], r)) return;
    out.plans[out.count++] = r;
  };
  problem q = p;
  if (!choose_under(q, -1).ok) q.before = {};  // see choose()
  const result best = choose_under(q, -1);
  add(best);
  bool concordant = true;
  for (std::size_t a = 0; a < p.accesses; ++a) concordant = concordant && !best.transposed[a];
  if (concordant) {
    const std::array<bool, max_accesses> none{};
    for (std::size_t c = 0; c < p.n; ++c) {
      if (p.dense_only[c]) continue;
      result r = topo(q, none, c);
      if (r.ok) mark_transposed(q, r);
      add(r);
    }
    add_transposing(q, best, add);
  } else {
    for (std::size_t a = 0; a < p.accesses; ++a)
      if (p.sparse[a]) add(choose_under(q, static_cast<int>(a)));
  }
  return out;
}

// Precedence pairs mp_list<A, B> (A iterated above B) that let every sum be reduced where a
// non-linear operation consumes it: such a sum is a scalar per value of the operation's free
// indices, so those indices come before every index summed inside it (notes §4.10).
// `Outer` holds the free indices of the enclosing non-linear operations.
template <class E, class Outer>
struct precedence {
  using type = mp_list<>;
};
template <class E, class Outer>
using precedence_t = typename precedence<E, Outer>::type;

template <class E>
using has_sum = boost::mp11::mp_bool<!boost::mp11::mp_empty<expr::summed_indices_t<E>>::value>;

template <class Outer, class Node>
using widen = expr::detail::set_union<Outer, expr::free_indices_t<Node>>;

template <class I, class E, class Outer>
struct precedence<expr::sum<I, E>, Outer> {
  template <class A>
  using pair_with = mp_list<A, I>;
  using type = boost::mp11::mp_append<
      boost::mp11::mp_transform<pair_with, boost::mp11::mp_remove<Outer, I>>,
      precedence_t<E, boost::mp11::mp_remove<Outer, I>>>;
};
template <class L, class R, class Outer>
struct precedence<expr::add<L, R>, Outer> {
  using type = boost::mp11::mp_append<precedence_t<L, Outer>, precedence_t<R, Outer>>;
};
// sums over the same index on both sides of a product are each reduced (the lifting rule)
template <class L, class R, class Outer>
struct precedence<expr::mul<L, R>, Outer> {
  static constexpr bool shared = !boost::mp11::mp_empty<boost::mp11::mp_set_intersection<
      boost::mp11::mp_unique<expr::summed_indices_t<L>>,
      boost::mp11::mp_unique<expr::summed_indices_t<R>>>>::value;
  using inner = boost::mp11::mp_if_c<shared, widen<Outer, expr::mul<L, R>>, Outer>;
  using type = boost::mp11::mp_append<precedence_t<L, inner>, precedence_t<R, inner>>;
};
template <class P, class E, class Outer>
struct precedence<expr::where<P, E>, Outer> {
  using type = boost::mp11::mp_append<precedence_t<P, widen<Outer, expr::where<P, E>>>,
                                      precedence_t<E, Outer>>;
};
template <class I, class E, class Outer>
struct precedence<expr::expand<I, E>, Outer> {
  using type = precedence_t<E, Outer>;
};
template <class F, class E, class Outer>
struct precedence<expr::map<F, E>, Outer> {
  using type = precedence_t<E, boost::mp11::mp_if_c<fn::is_linear_v<F>, Outer,
                                                    widen<Outer, expr::map<F, E>>>>;
};
// a constant operand of a binary map has no free index to order
template <class F, class A, class B, class Outer>
struct precedence<expr::map<F, A, B>, Outer> {
  template <class X>
  using scope = boost::mp11::mp_if_c<boost::mp11::mp_empty<expr::free_indices_t<X>>::value, Outer,
                                     widen<Outer, expr::map<F, A, B>>>;
  using type = boost::mp11::mp_append<precedence_t<A, scope<A>>, precedence_t<B, scope<B>>>;
};

template <class Lhs>
struct output_indices;
template <class T, class... Is>
struct output_indices<expr::access<T, Is...>> {
  using type = mp_list<Is...>;
};

}  // namespace detail

/// Every index of `lhs = rhs`: the output's first, then the right-hand side's, by first
/// appearance. The universe of each of its candidate plans (and of its extents).
template <class Lhs, class Rhs>
using assignment_universe = boost::mp11::mp_unique<
    boost::mp11::mp_append<typename detail::output_indices<Lhs>::type, expr::all_indices_t<Rhs>>>;

namespace detail {
// The plan of an order the user fixed: the loop order given, every operand it does not suit
// transposed (`ok` is false when it breaks a precedence constraint).
template <std::size_t N>
constexpr result forced(const problem& p, const std::array<std::size_t, N>& ids) {
  result r{};
  for (std::size_t d = 0; d < N; ++d) r.order[d] = ids[d];
  r.ok = true;
  for (std::size_t a = 0; a < N; ++a)
    for (std::size_t b = a + 1; b < N; ++b)
      if (p.before[ids[b]][ids[a]]) r.ok = false;
  if (r.ok) mark_transposed(p, r);
  return r;
}
}  // namespace detail

template <class OT, class... Os, class Rhs, int Candidate, class Forced>
struct order_plan<expr::access<OT, Os...>, Rhs, Candidate, Forced> {
  using lhs_type = expr::access<OT, Os...>;
  using out_format = typename std::remove_const_t<OT>::format_type;
  using universe = assignment_universe<lhs_type, Rhs>;
  using accesses = expr::accesses_t<Rhs>;
  static constexpr std::size_t index_count = boost::mp11::mp_size<universe>::value;
  static constexpr std::size_t access_count = boost::mp11::mp_size<accesses>::value;
  static_assert(index_count <= detail::max_indices,
                "loom: more than 16 index variables in one kernel is not supported yet");
  static_assert(access_count <= detail::max_accesses,
                "loom: more than 32 accesses in one kernel is not supported yet");

  static constexpr detail::problem problem = [] {
    detail::problem p{};
    p.n = index_count;
    p.accesses = access_count;
    std::size_t a = 0;
    boost::mp11::mp_for_each<boost::mp11::mp_transform<boost::mp11::mp_identity, accesses>>(
        [&](auto acc) {
          using A = typename decltype(acc)::type;
          using tr = detail::access_traits<A>;
          p.sparse[a] = !tr::dense;
          constexpr auto ids = detail::storage_ids<universe, A>();
          for (std::size_t k = 0; k < ids.size(); ++k) p.ids[a][k] = ids[k];
          p.length[a] = ids.size();
          std::size_t k = 0;
          boost::mp11::mp_for_each<boost::mp11::mp_transform<boost::mp11::mp_identity,
                                                             typename tr::format::levels>>(
              [&](auto l) { p.full[a][k++] = decltype(l)::type::properties.full; });
          ++a;
        });
    for (std::size_t c = 0; c < p.n; ++c) {
      p.summed[c] = c >= sizeof...(Os);
      p.out_rank[c] = c;
      p.dense_only[c] = true;
      for (std::size_t b = 0; b < p.accesses; ++b)
        if (p.sparse[b])
          for (std::size_t k = 0; k < p.length[b]; ++k)
            if (p.ids[b][k] == c) p.dense_only[c] = false;
    }
    boost::mp11::mp_for_each<detail::precedence_t<Rhs, mp_list<>>>([&](auto pair) {
      using pair_type = decltype(pair);
      constexpr std::size_t above =
          boost::mp11::mp_find<universe, boost::mp11::mp_first<pair_type>>::value;
      constexpr std::size_t below =
          boost::mp11::mp_find<universe, boost::mp11::mp_second<pair_type>>::value;
      if (above != below) p.before[above][below] = true;
    });
    p.dense_output = out_format::written_in_place;
    // prefer the output's storage order among its indices
    constexpr auto out_ids = detail::storage_ids<universe, lhs_type>();
    for (std::size_t k = 0; k < out_ids.size(); ++k) p.out_rank[out_ids[k]] = k;
    return p;
  }();
  static constexpr detail::result chosen = [] {
    if constexpr (!std::is_void_v<Forced>) {
      static_assert(boost::mp11::mp_size<Forced>::value == index_count &&
                        boost::mp11::mp_is_set<Forced>::value &&
                        boost::mp11::mp_empty<boost::mp11::mp_set_difference<universe, Forced>>::value,
                    "loom::order: list every index of the assignment exactly once (the output's "
                    "and the summed ones)");
      constexpr auto ids = []<class... Is>(mp_list<Is...>) {
        return std::array<std::size_t, sizeof...(Is)>{boost::mp11::mp_find<universe, Is>::value...};
      }(Forced{});
      constexpr detail::result r = detail::forced(problem, ids);
      static_assert(r.ok, "loom::order: this order iterates an index summed inside a non-linear "
                          "operation (map, integer /, where, a product of two sums over one index) "
                          "outside that operation's free indices; the sum cannot be reduced there");
      return r;
    } else if constexpr (Candidate < 0) {
      return detail::choose(problem, -1);
    } else {
      return plan_candidates<lhs_type, Rhs>::list.plans[Candidate];
    }
  }();
  static_assert(chosen.ok, "loom internal error: no loop order found; please report");

  template <class D>
  using index_at = boost::mp11::mp_at_c<universe, chosen.order[D::value]>;
  /// the loop order, outermost first
  using order = boost::mp11::mp_transform<index_at, boost::mp11::mp_iota_c<index_count>>;
  static constexpr std::size_t free_count = sizeof...(Os);

  /// whether the free indices come first and in the output's storage order: then a sparse
  /// output is appended in order; otherwise it goes through a workspace
  static constexpr bool output_in_order = [] {
    constexpr auto out_ids = detail::storage_ids<universe, lhs_type>();
    for (std::size_t k = 0; k < out_ids.size(); ++k)
      if (chosen.order[k] != out_ids[k]) return false;
    return true;
  }();
  /// how many leading output levels the outer loops fix in order (a workspace's row)
  static constexpr std::size_t output_prefix = [] {
    constexpr auto out_ids = detail::storage_ids<universe, lhs_type>();
    std::size_t k = 0;
    while (k < out_ids.size() && chosen.order[k] == out_ids[k]) ++k;
    return k;
  }();
  static constexpr bool any_transposed = [] {
    for (std::size_t a = 0; a < access_count; ++a)
      if (chosen.transposed[a]) return true;
    return false;
  }();
};


template <class Lhs, class Rhs>
struct plan_candidates {
  static constexpr auto list =
      detail::enumerate<max_plan_candidates>(order_plan<Lhs, Rhs>::problem);
  static constexpr std::size_t count = list.count;
};

}  // namespace loom::plan

#endif  // LOOM_PLAN_ORDER_HPP
// ---- end <loom/plan/order.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace loom::optimize {

/// Galley's physical cost constants (notes 001 §4.1, from Galley.jl): per iteration of a sparse
/// and of a dense level, per output write in and out of order, per copied entry of a transposed
/// sparse operand.
struct cost_constants {
  double sparse_read = 1.0;
  double dense_read = 0.2;
  double sequential_write = 5.0;
  double random_write = 10.0;
  double sparse_reformat = 60.0;
};

/// What the cost of one loop order needs to know, by runtime index names. Operands are split as
/// in Galley (notes 001 §4.4): conjunctive ones (their fill annihilates every operation above
/// them) restrict the iterations, disjunctive ones (under a + or a map with f(0) != 0) add to them.
struct loop_order_query {
  std::vector<chain_bound_estimator> conjunctive;
  std::vector<chain_bound_estimator> disjunctive;
  std::vector<std::string> output;        // free indices, in the output's storage order
  /// per index name: the summed access factor of the operand levels iterating it
  std::map<std::string, double> factor;
  /// index names some operand iterates through a level that skips absent coordinates; a loop
  /// over any other index visits its whole extent for every outer iteration
  std::map<std::string, bool> skips;
  /// every index with its extent (indices no operand uses are counted loops)
  index_set extents;
  bool dense_output = false;

  /// Estimated distinct values of the index names `v` that the loops over `v` visit: the join of
  /// the operands that use some index of `v`, projected on `v`.
  double iterations(const std::vector<std::string>& v) const {
    auto touches = [&](const chain_bound_estimator& e) {
      for (const auto& x : e.indices())
        if (std::find(v.begin(), v.end(), x.name) != v.end()) return true;
      return false;
    };
    std::vector<chain_bound_estimator> join;
    for (const auto& e : conjunctive)
      if (touches(e)) join.push_back(e);
    std::vector<chain_bound_estimator> any;
    for (const auto& e : disjunctive)
      if (touches(e)) any.push_back(e);
    if (!any.empty()) join.push_back(any.size() == 1 ? any[0] : chain_bound_estimator::disjunction(any));
    index_set uncovered;  // counted loops
    for (const auto& name : v) {
      bool covered = false;
      for (const auto& e : join) covered = covered || loom::detail::has_index(e.indices(), name);
      if (!covered)
        for (const auto& x : extents)
          if (x.name == name) uncovered.push_back(x);
    }
    if (!uncovered.empty()) join.push_back(chain_bound_estimator::full(std::move(uncovered)));
    if (join.empty()) return 1;
    const chain_bound_estimator all = join.size() == 1 ? join[0] : chain_bound_estimator::conjunction(join);
    std::vector<std::string> rest;
    for (const auto& x : all.indices())
      if (std::find(v.begin(), v.end(), x.name) == v.end()) rest.push_back(x.name);
    return all.aggregate(rest).estimate();
  }
};

/// The shortest mean fiber over x, below the indices `above`, of the conjunctive operands that
/// use x: every visited tuple of `above` pays at least that much to intersect (a merge walks,
/// a leapfrog searches, the shortest fiber), even when the intersection comes out empty;
/// Galley's join estimate alone counts only the matches. 0 when no operand bounds it.
inline double shortest_fiber(const loop_order_query& q, const std::vector<std::string>& above,
                             const std::string& x) {
  double best = -1;
  for (const auto& e : q.conjunctive) {
    if (!loom::detail::has_index(e.indices(), x)) continue;
    std::vector<std::string> without_x, without_both;  // indices to aggregate away
    for (const auto& i : e.indices()) {
      const bool is_above = std::find(above.begin(), above.end(), i.name) != above.end();
      if (!is_above && i.name != x) without_x.push_back(i.name);
      if (!is_above) without_both.push_back(i.name);
    }
    const double child = e.aggregate(without_x).estimate();
    const double parent = without_both.size() == e.indices().size() ? 1.0
                                                                     : e.aggregate(without_both).estimate();
    const double fiber = child / std::max(1.0, parent);
    best = best < 0 ? fiber : std::min(best, fiber);
  }
  return best < 0 ? 0 : best;
}

/// The cost of one loop order (outermost first) plus the copies it forces (notes 001 §4.1):
/// the iterations of every prefix times the access factor of its innermost index, plus output
/// writes (sequential when the free indices lead the order), plus `reformat`. A loop visits at
/// least the shortest fiber of its operands per outer iteration (`shortest_fiber`). A loop over an
/// index that no operand iterates through a sparse level visits its whole extent (Galley's
/// estimate assumes every loop skips; loom's dense levels do not).
inline double loop_order_cost(const loop_order_query& q, const std::vector<std::string>& order,
                              double reformat = 0, const cost_constants& c = {}) {
  double cost = reformat;
  std::vector<std::string> prefix;
  double visited = 1;  // iterations of the loops so far
  for (const std::string& name : order) {
    prefix.push_back(name);
    double extent = 1;
    for (const auto& x : q.extents)
      if (x.name == name) extent = static_cast<double>(x.extent);
    const auto skip = q.skips.find(name);
    const std::vector<std::string> above(prefix.begin(), prefix.end() - 1);
    const double walked = std::max(q.iterations(prefix), visited * shortest_fiber(q, above, name));
    visited = skip != q.skips.end() && skip->second ? std::min(walked, visited * extent)
                                                    : visited * extent;
    const auto f = q.factor.find(name);
    cost += visited * (f == q.factor.end() ? c.dense_read : f->second);
  }
  if (!q.dense_output) {
    bool in_order = true;  // free indices first, in the output's storage order
    for (std::size_t d = 0; d < q.output.size() && d < order.size(); ++d)
      in_order = in_order && order[d] == q.output[d];
    cost += q.iterations(q.output) * (in_order ? c.sequential_write : c.random_write);
  }
  return cost;
}

template <class Node>
inline constexpr char node_type_tag = 0;

/// A sum of the right-hand side that a query treats as one operand over its free indices, as if
/// computed first into a temporary (rewrite/hoist.hpp): its own accesses are left out.
struct replaced_sum {
  const void* node = nullptr;           // the sum node inside the expression
  const void* type = nullptr;           // &node_type_tag<its type> (a parent may share its address)
  std::vector<std::string> free;        // its free indices
  std::size_t first_access = 0;         // ordinal of its first access (for_each_access order)
  std::size_t access_count = 0;
  bool dense = true;                    // the temporary is dense (located) or sparse (iterated)
};

/// Costs of every candidate plan of a kernel and the chosen one.
struct plan_choice {
  std::vector<double> cost;
  std::size_t chosen = 0;
};

namespace detail {

template <class... Is>
std::vector<std::string> names_of(boost::mp11::mp_list<Is...>) {
  return {std::string(Is::name)...};
}

using extent_fn = std::function<std::int64_t(const std::string&)>;

inline chain_bound_estimator full_over(const std::vector<std::string>& names, const extent_fn& extent) {
  index_set s;
  for (const std::string& n : names) s.push_back({n, extent(n)});
  return chain_bound_estimator::full(std::move(s));
}

// Sorts the operands of a node into the query's conjunctive and disjunctive lists: below a +
// (or a map with f(0) != 0, which also covers its whole domain) an operand's fill no longer
// annihilates the operation above it (notes 001 §4.4).
struct collector {
  loop_order_query* q;
  const extent_fn* extent;
  statistics_cache* cache;
  const replaced_sum* replaced = nullptr;  // a sum costed as one operand (computed first)

  void add(chain_bound_estimator e, bool disjunctive) const {
    (disjunctive ? q->disjunctive : q->conjunctive).push_back(std::move(e));
  }
  template <class T, class... Is>
  void operator()(const expr::access<T, Is...>& a, bool disjunctive) const {
    if constexpr (sizeof...(Is) > 0) {
      std::vector<std::string> names{std::string(Is::name)...};
      if constexpr (std::remove_const_t<T>::format_type::all_dense)
        add(full_over(names, *extent), disjunctive);
      else
        add(chain_bound_estimator(cache->get(*a.tensor), names), disjunctive);
    }
  }
  template <class T>
  void operator()(const expr::literal<T>&, bool) const {}
  template <class L, class R>
  void operator()(const expr::add<L, R>& e, bool) const {
    (*this)(e.lhs, true);
    (*this)(e.rhs, true);
  }
  template <class L, class R>
  void operator()(const expr::mul<L, R>& e, bool disjunctive) const {
    (*this)(e.lhs, disjunctive);
    (*this)(e.rhs, disjunctive);
  }
  template <class P, class E>
  void operator()(const expr::where<P, E>& e, bool disjunctive) const {
    (*this)(e.pred, disjunctive);
    (*this)(e.body, disjunctive);
  }
  template <class I, class E>
  void operator()(const expr::sum<I, E>& e, bool disjunctive) const {
    if (replaced != nullptr && static_cast<const void*>(&e) == replaced->node &&
        static_cast<const void*>(&node_type_tag<expr::sum<I, E>>) == replaced->type) {
      add(full_over(replaced->free, *extent), disjunctive);  // an upper bound on its entries
      return;
    }
    (*this)(e.body, disjunctive);
  }
  template <class I, class E>
  void operator()(const expr::expand<I, E>& e, bool disjunctive) const {
    (*this)(e.body, disjunctive);
  }
  template <class F, class... Es>
  void operator()(const expr::map<F, Es...>& e, bool disjunctive) const {
    constexpr bool dense = !fn::is_zero_preserving_v<F>;
    const auto names = names_of(expr::free_indices_t<expr::map<F, Es...>>{});
    if (dense && !names.empty()) add(full_over(names, *extent), true);
    std::apply([&](const auto&... x) { (..., (*this)(x, disjunctive || dense)); }, e.args);
  }
};

}  // namespace detail

template <class F>
constexpr bool level_is_full(std::size_t level) {
  bool full = false;
  std::size_t k = 0;
  boost::mp11::mp_for_each<boost::mp11::mp_transform<boost::mp11::mp_identity, typename F::levels>>(
      [&](auto l) {
        if (k++ == level) full = decltype(l)::type::properties.full;
      });
  return full;
}

/// The loop-order query of a kernel writing `output` (its free indices in storage order) from
/// `rhs`; `extents` holds the output's extents (those of `rhs`'s accesses take precedence). With
/// `replaced`, that sum of `rhs` counts as one operand (rhs costed with the sum computed first).
template <class Rhs>
loop_order_query describe_rhs(std::vector<std::string> output, bool dense_output,
                              std::map<std::string, std::int64_t> extents, const Rhs& rhs,
                              statistics_cache& cache, const replaced_sum* replaced = nullptr) {
  std::map<std::string, std::int64_t> from_rhs;
  expr::for_each_access(rhs, [&]<class T, class... Is>(const expr::access<T, Is...>& a, std::size_t) {
    std::size_t m = 0;
    (..., from_rhs.emplace(std::string(Is::name), a.tensor->extent(m++)));
  });
  from_rhs.merge(extents);
  const detail::extent_fn extent = [&](const std::string& n) {
    const auto it = from_rhs.find(n);
    return it == from_rhs.end() ? std::int64_t{1} : it->second;
  };
  loop_order_query q;
  q.output = std::move(output);
  q.dense_output = dense_output;
  for (const auto& [name, e] : from_rhs) q.extents.push_back({name, e});
  detail::collector{&q, &extent, &cache, replaced}(rhs, false);
  // per level: a dense level is cheap to walk or locate, any other costs a read per entry
  expr::for_each_access(rhs, [&]<class T, class... Is>(const expr::access<T, Is...>&, std::size_t k) {
    if (replaced != nullptr && k >= replaced->first_access &&
        k < replaced->first_access + replaced->access_count)
      return;
    using F = typename std::remove_const_t<T>::format_type;
    std::size_t m = 0;
    (..., [&] {
      const bool dense = F::all_dense || level_is_full<F>(F::level_of_mode[m++]);
      q.factor[std::string(Is::name)] += dense ? cost_constants{}.dense_read
                                               : cost_constants{}.sparse_read;
      q.skips[std::string(Is::name)] = q.skips[std::string(Is::name)] || !dense;
    }());
  });
  if (replaced != nullptr)
    for (const std::string& name : replaced->free) {
      q.factor[name] += replaced->dense ? cost_constants{}.dense_read : cost_constants{}.sparse_read;
      q.skips[name] = q.skips[name] || !replaced->dense;
    }
  return q;
}

/// The loop-order query of `lhs = rhs` under runtime statistics (see `describe_rhs`).
template <class Lhs, class Rhs>
loop_order_query describe(const Lhs& lhs, const Rhs& rhs, statistics_cache& cache,
                          const replaced_sum* replaced = nullptr) {
  using out_t = std::remove_const_t<std::remove_pointer_t<decltype(lhs.tensor)>>;
  std::map<std::string, std::int64_t> extents;
  const auto by_mode = detail::names_of(expr::free_indices_t<Lhs>{});
  if constexpr (out_t::order > 0)
    for (std::size_t m = 0; m < by_mode.size(); ++m) extents.emplace(by_mode[m], lhs.tensor->extent(m));
  std::vector<std::string> output;
  for (std::size_t level = 0; level < by_mode.size(); ++level)
    output.push_back(by_mode[out_t::format_type::modes[level]]);
  return describe_rhs(std::move(output), out_t::format_type::written_in_place, std::move(extents), rhs,
                      cache, replaced);
}

/// Order (by name) and copy cost of candidate C of `lhs = rhs`.
template <class Lhs, class Rhs, std::size_t C>
double candidate_cost(const Lhs& lhs, const Rhs& rhs, const loop_order_query& q,
                      const cost_constants& k = {}) {
  using P = plan::order_plan<Lhs, Rhs, static_cast<int>(C)>;
  std::vector<std::string> order;
  boost::mp11::mp_for_each<typename P::order>([&](auto i) { order.emplace_back(decltype(i)::name); });
  double reformat = 0;
  expr::for_each_access(rhs, [&](const auto& a, std::size_t ordinal) {
    if (P::chosen.transposed[ordinal]) reformat += static_cast<double>(a.tensor->nnz()) * k.sparse_reformat;
  });
  (void)lhs;
  return loop_order_cost(q, order, reformat, k);
}

/// Every candidate's estimated cost and the cheapest (ties keep the static preference).
template <class Lhs, class Rhs>
plan_choice choose_plan(const Lhs& lhs, const Rhs& rhs, statistics_cache& cache) {
  constexpr std::size_t n = plan::plan_candidates<Lhs, Rhs>::count;
  const loop_order_query q = describe(lhs, rhs, cache);
  plan_choice out;
  boost::mp11::mp_for_each<boost::mp11::mp_iota_c<n>>([&](auto c) {
    out.cost.push_back(candidate_cost<Lhs, Rhs, decltype(c)::value>(lhs, rhs, q));
    if (out.cost.back() < out.cost[out.chosen]) out.chosen = c;
  });
  return out;
}

namespace detail {

// floor(log2(x)) + 1, 0 for 0: plans are reused while sizes stay within a factor of two
inline std::uint8_t magnitude(std::int64_t x) {
  return static_cast<std::uint8_t>(x <= 0 ? 0 : std::bit_width(static_cast<std::uint64_t>(x)));
}

// Coarse signature: magnitudes of every operand's extents, stored entries and stored
// coordinates per level. O(operands x order), no pass over the data.
template <class Rhs>
void coarse_signature(const Rhs& rhs, std::vector<std::uint8_t>& sig) {
  sig.clear();
  expr::for_each_access(rhs, [&](const auto& a, std::size_t) {
    const auto& t = *a.tensor;
    using tensor_t = std::remove_cvref_t<decltype(t)>;
    sig.push_back(magnitude(t.nnz()));
    for (std::size_t m = 0; m < tensor_t::order; ++m) sig.push_back(magnitude(t.extent(m)));
    boost::mp11::mp_for_each<boost::mp11::mp_iota_c<tensor_t::order>>([&](auto k) {
      const auto& level = t.template level<decltype(k)::value>();
      if constexpr (requires { level.crd.size(); })
        sig.push_back(magnitude(static_cast<std::int64_t>(level.crd.size())));
    });
  });
}
template <class Rhs>
std::vector<std::uint8_t> coarse_signature(const Rhs& rhs) {
  std::vector<std::uint8_t> sig;
  coarse_signature(rhs, sig);
  return sig;
}

}  // namespace detail

/// The plans chosen for one kernel type, per thread, by coarse signature, with the statistics
/// gathered to choose them. `Purpose` separates choices of another kind over the same kernel
/// (`decompose`). `LOOM_DEBUG_PLAN` logs every choice to stderr.
template <class Lhs, class Rhs, class Purpose = void>
struct plan_cache {
  std::map<std::vector<std::uint8_t>, std::size_t> chosen;
  statistics_cache stats;
  static plan_cache& local() {
    thread_local plan_cache cache;
    return cache;
  }
  /// The choice remembered for `signature`, else `choose(stats)`, remembered.
  template <class Choose>
  std::size_t find_or(const std::vector<std::uint8_t>& signature, Choose&& choose) {
    if (const auto it = chosen.find(signature); it != chosen.end()) {
#ifdef LOOM_DEBUG_PLAN
      std::clog << "loom: plan cache hit: candidate " << it->second << "\n";
#endif
      return it->second;
    }
    const std::size_t c = choose(stats);
    chosen.emplace(signature, c);
    return c;
  }
};

/// The candidate to run for `lhs = rhs`: cached by signature, else costed from statistics.
template <class Lhs, class Rhs>
std::size_t cached_choice(const Lhs& lhs, const Rhs& rhs) {
  thread_local std::vector<std::uint8_t> signature;  // reused: a cache hit allocates nothing
  detail::coarse_signature(rhs, signature);
  return plan_cache<Lhs, Rhs>::local().find_or(signature, [&](statistics_cache& stats) {
    const plan_choice c = choose_plan(lhs, rhs, stats);
#ifdef LOOM_DEBUG_PLAN
    std::clog << "loom: plan chosen at run time: candidate " << c.chosen << " of " << c.cost.size()
              << " (estimated costs:";
    for (double x : c.cost) std::clog << " " << x;
    std::clog << ")\n";
#endif
    return c.chosen;
  });
}

}  // namespace loom::optimize

#endif  // LOOM_OPTIMIZE_PLAN_CHOICE_HPP
// ---- end <loom/optimize/plan_choice.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <cstddef>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace loom::optimize {

/// The two estimates and the verdict: hoisting pays only when it is strictly cheaper, so a
/// rewrite never makes a kernel worse by the model's measure.
struct hoist_choice {
  double fused = 0;    // the kernel as one loop nest (its cheapest candidate plan)
  double hoisted = 0;  // the sum's own kernel plus the rest with the sum as one operand
  bool hoist() const { return hoisted < fused; }
  std::string describe() const {
    std::ostringstream o;
    o.precision(3);
    o << "estimated cost " << (hoist() ? hoisted : fused) << " against " << (hoist() ? fused : hoisted)
      << (hoist() ? " fused" : " computed first");
    return o.str();
  }
};

namespace detail {
struct hoist_purpose {};

template <class S, class Rhs>
std::size_t first_access_of(const S& s, const Rhs& rhs) {
  std::size_t ordinal = 0, first = 0;
  expr::for_each_node(rhs, [&](const auto& node) {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(node)>, S>)
      if (static_cast<const void*>(&node) == static_cast<const void*>(&s)) first = ordinal;
    if constexpr (expr::is_access<std::remove_cvref_t<decltype(node)>>::value) ++ordinal;
  });
  return first;
}

inline std::vector<std::string> restricted(const std::vector<std::string>& order,
                                           const std::vector<std::string>& keep, bool keep_listed) {
  std::vector<std::string> out;
  for (const auto& n : order)
    if ((std::find(keep.begin(), keep.end(), n) != keep.end()) == keep_listed) out.push_back(n);
  return out;
}
}  // namespace detail

/// Costs `lhs = rhs` fused against computing its sum `s` (a subobject of `rhs`) first into a
/// temporary (`dense_temporary`: dense, located; else sparse). The rest keeps the fused plan's
/// loop order without the sum's bound indices; the sum's kernel takes that order restricted to
/// its own indices; its entries are bounded by the full product of its free extents.
template <class Lhs, class Rhs, class S>
hoist_choice choose_hoist(const Lhs& lhs, const Rhs& rhs, const S& s, bool dense_temporary,
                          statistics_cache& cache) {
  constexpr std::size_t n = plan::plan_candidates<Lhs, Rhs>::count;
  const loop_order_query fused = describe(lhs, rhs, cache);
  hoist_choice out;
  std::vector<std::string> order;
  boost::mp11::mp_for_each<boost::mp11::mp_iota_c<n>>([&](auto c) {
    const double cost = candidate_cost<Lhs, Rhs, decltype(c)::value>(lhs, rhs, fused);
    if (decltype(c)::value == 0 || cost < out.fused) {
      out.fused = cost;
      order.clear();
      using P = plan::order_plan<Lhs, Rhs, static_cast<int>(decltype(c)::value)>;
      boost::mp11::mp_for_each<typename P::order>([&](auto i) { order.emplace_back(decltype(i)::name); });
    }
  });
  const std::vector<std::string> free = detail::names_of(expr::free_indices_t<S>{});
  const std::vector<std::string> bound = detail::names_of(expr::summed_indices_t<S>{});
  const std::vector<std::string> own = detail::names_of(expr::all_indices_t<S>{});
  const loop_order_query first = describe_rhs(free, dense_temporary, {}, s, cache);
  const replaced_sum r{&s, &node_type_tag<S>, free, detail::first_access_of(s, rhs),
                       boost::mp11::mp_size<expr::accesses_t<S>>::value, dense_temporary};
  const loop_order_query rest = describe(lhs, rhs, cache, &r);
  out.hoisted = loop_order_cost(first, detail::restricted(order, own, true)) +
                loop_order_cost(rest, detail::restricted(order, bound, false));
  return out;
}

/// `choose_hoist`, remembered per kernel type and coarse statistics signature (like plans).
template <class Lhs, class Rhs, class S>
bool cached_hoist(const Lhs& lhs, const Rhs& rhs, const S& s, bool dense_temporary) {
  thread_local std::vector<std::uint8_t> signature;
  detail::coarse_signature(rhs, signature);
  return plan_cache<Lhs, Rhs, detail::hoist_purpose>::local().find_or(signature, [&](statistics_cache& stats) {
    return static_cast<std::size_t>(choose_hoist(lhs, rhs, s, dense_temporary, stats).hoist());
  }) != 0;
}

}  // namespace loom::optimize

#endif  // LOOM_OPTIMIZE_HOIST_CHOICE_HPP
// ---- end <loom/optimize/hoist_choice.hpp>
// ---- begin <loom/optimize/leader_choice.hpp>
// Defines the runtime choice of the skip policy per loop (optimize/): which operand of each
// intersection leads and how the others catch up (leapfrog, merge, lead first / last), among the
// variants instantiated at compile time, costed from statistics after Galley's physical model
// (notes 001 §4.4), cached by a coarse signature, and explained.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_LEADER_CHOICE_HPP
#define LOOM_OPTIMIZE_LEADER_CHOICE_HPP

// ---- begin <loom/plan/transposed_format.hpp>
// Defines loom::plan::transposed_format<Order, A>: the format of the copy an operand is read
// through when the loop order is not concordant with it (plan/). The evaluator binds it
// (stream/evaluate.hpp), explain() names it and the skip costing reads its levels.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_PLAN_TRANSPOSED_FORMAT_HPP
#define LOOM_PLAN_TRANSPOSED_FORMAT_HPP


#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace loom::plan {

namespace detail {
// F's levels when every one of them can hold the entries in another mode order; else general
// sorted levels: dense first where F's first level is full (a row per coordinate, as F had),
// compressed below.
template <class Levels>
struct permuted_levels {
  using type = Levels;
};
template <class L0, class... Ls>
  requires(!(level_is_permutable_v<L0> && ... && level_is_permutable_v<Ls>))
struct permuted_levels<boost::mp11::mp_list<L0, Ls...>> {
  using type = boost::mp11::mp_list<std::conditional_t<L0::properties.full, dense, compressed>,
                                    std::conditional_t<true, compressed, Ls>...>;
};
}  // namespace detail

/// The format of operand A's copy under loop order `Order` (a list of index types): its modes
/// re-ordered by the depth of their index; the same levels, unless one of them is not
/// permutable (`level_is_permutable_v`: a storage mapping's loops), then general sorted levels
/// (`general`), the mapping materialised once per call in the loop order.
template <class Order, class A>
struct transposed_format;
template <class Order, class T, class... Is>
struct transposed_format<Order, expr::access<T, Is...>> {
  using original = typename std::remove_const_t<T>::format_type;
  using levels = typename detail::permuted_levels<typename original::levels>::type;
  /// true when the copy does not keep the original's levels
  static constexpr bool general = !std::is_same_v<levels, typename original::levels>;
  static constexpr std::array<std::size_t, sizeof...(Is)> modes = [] {
    std::array<std::size_t, sizeof...(Is)> depth{boost::mp11::mp_find<Order, Is>::value...};
    std::array<std::size_t, sizeof...(Is)> m{};
    for (std::size_t k = 0; k < m.size(); ++k) m[k] = k;
    std::sort(m.begin(), m.end(), [&](std::size_t a, std::size_t b) { return depth[a] < depth[b]; });
    return m;
  }();
  template <class Seq>
  struct make;
  template <std::size_t... Ks>
  struct make<std::index_sequence<Ks...>> {
    using type = format_spec<levels, modes[Ks]...>;
  };
  using type = typename make<std::make_index_sequence<sizeof...(Is)>>::type;
};

}  // namespace loom::plan

#endif  // LOOM_PLAN_TRANSPOSED_FORMAT_HPP
// ---- end <loom/plan/transposed_format.hpp>
// ---- begin <loom/stream/skip.hpp>
// Defines the skip policies of an intersection, one per loop (stream/): how `mul` co-iterates
// its operands at a depth (leapfrog, linear merge, or one leader iterating while the others are
// probed), carried as a type by the product's scalar operation.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_STREAM_SKIP_HPP
#define LOOM_STREAM_SKIP_HPP

#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

/// How many skip-policy variants of a kernel `out(...) = e` may be instantiated and chosen among
/// at run time (optimize/leader_choice.hpp). 1 (the default) keeps one kernel per plan, with the
/// static policy of the case table in combinators.hpp; define it (e.g. 4) before including loom
/// to let the optimizer pick a policy per loop from statistics.
#ifndef LOOM_MAX_SKIP_CANDIDATES
#  define LOOM_MAX_SKIP_CANDIDATES 1
#endif

/// Define LOOM_RUNTIME_SKIP_POLICY as 1 before including loom to make every plain `out(...) = e`
/// with an intersection of ordered operands one kernel that chooses its policy per loop at run
/// time from statistics (`runtime` below): no cost per step, but one copy of each such loop per
/// policy (+30-55 % compile time on intersection-heavy code). Off by default, like
/// LOOM_MAX_SKIP_CANDIDATES; LOOM_MAX_SKIP_CANDIDATES > 1 takes precedence.
#ifndef LOOM_RUNTIME_SKIP_POLICY
#  define LOOM_RUNTIME_SKIP_POLICY 0
#endif

namespace loom::stream::skip {

inline constexpr std::size_t max_candidates = LOOM_MAX_SKIP_CANDIDATES;
static_assert(max_candidates >= 1, "loom: LOOM_MAX_SKIP_CANDIDATES must be at least 1");

/// The static policy (combinators.hpp case table): leapfrog between ordered operands, iterate
/// the other operand and locate a random-access one.
struct standard {
  static constexpr const char* name = "standard";
};
/// The default between two ordered operands (`standard`): a merge that steps the operand
/// behind one entry, like the hand-written two-pointer loop, unless one fiber is at least
/// `gallop_ratio` times longer than the other, which then seeks with a galloping search
/// (leapfrog). Decided once per pair of fibers from their lengths: one branch per fiber, one
/// copy of the loop.
struct adaptive {
  static constexpr const char* name = "merge, or leapfrog on skewed fibers";
};
/// The length ratio from which `adaptive` gallops. Measured on rows of 64 entries against rows
/// 64·R long (benchmarks/hand_loop/hand_loop.cpp, `intersect`; time / hand merge): at R = 16 the
/// merge takes 0.80x, galloping 0.92x; at R = 32, 0.79x against 0.72x. The crossover lies
/// between: 24.
inline constexpr std::int64_t gallop_ratio = 24;

/// Every operand behind seeks the other's index with a galloping search.
struct leapfrog {
  static constexpr const char* name = "leapfrog";
};
/// The operand behind steps one entry at a time (a sorted merge, no search).
struct merge {
  static constexpr const char* name = "merge";
};
/// Side K of every intersection at the loop iterates (0: the first operand of the product, 1:
/// the last); the others are probed at its index: located when random-access, else sought.
template <std::size_t K>
struct lead {
  static_assert(K <= 1, "loom::stream::skip::lead: the leader is side 0 (first) or 1 (last)");
  static constexpr const char* name = K == 0 ? "lead first" : "lead last";
};

/// The policy of an intersection of two ordered operands, as a value: what `runtime` reads from
/// the kernel context (and the optimizer's cost table indexes; `standard` is the static table).
enum class code : std::uint8_t { leapfrog, merge, lead_first, lead_last, standard };

/// Where neither operand is random-access, the policy is read at run time from the kernel's
/// context (`kernel_context::skip`, one code per loop, chosen by optimize/leader_choice.hpp from
/// statistics): one kernel serves leapfrog, merge and either leader. Elsewhere it is `standard`.
struct runtime {
  static constexpr const char* name = "chosen at run time";
};

/// The codes of a kernel's loops (outermost first), as `runtime` reads them.
inline constexpr std::size_t max_loops = 16;
using codes = std::array<code, max_loops>;
inline constexpr codes default_codes = [] {
  codes c{};
  c.fill(code::leapfrog);  // what `standard` does between two ordered operands
  return c;
}();

/// Policies by loop depth (outermost first); depths past the list use `standard`.
template <class... Ps>
struct per_loop {};

/// One policy at every loop.
template <class P>
struct every_loop {};

namespace detail {
template <class L, std::size_t D>
struct at_impl {
  using type = standard;
};
template <class... Ps, std::size_t D>
  requires(D < sizeof...(Ps))
struct at_impl<per_loop<Ps...>, D> {
  using type = boost::mp11::mp_at_c<boost::mp11::mp_list<Ps...>, D>;
};
template <class P, std::size_t D>
struct at_impl<every_loop<P>, D> {
  using type = P;
};
template <class Op>
struct skips_of {
  using type = per_loop<>;
};
template <class Op>
  requires requires { typename Op::skips; }
struct skips_of<Op> {
  using type = typename Op::skips;
};
}  // namespace detail

/// The policy of loop D in the list L.
template <class L, std::size_t D>
using at = typename detail::at_impl<L, D>::type;

/// The policy that an operation Op (a product carrying `skips`, or any other) asks at depth D.
template <class Op, std::size_t D>
using of_op_at = at<typename detail::skips_of<Op>::type, D>;

template <class P>
std::string describe(every_loop<P>) {
  return std::string("every loop: ") + P::name;
}

/// "leapfrog, merge at j": the list in words, depth by depth.
template <class... Ps>
std::string describe(per_loop<Ps...>) {
  std::string s;
  [[maybe_unused]] std::size_t d = 0;
  (..., [&] {
    if (!s.empty()) s += ", ";
    s += "loop " + std::to_string(d++) + ": " + Ps::name;
  }());
  return s.empty() ? std::string("standard") : s;
}

}  // namespace loom::stream::skip

#endif  // LOOM_STREAM_SKIP_HPP
// ---- end <loom/stream/skip.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace loom::optimize {

/// Per-entry costs of co-iterating one fiber (Galley's constants, notes 001 §4.1, as ratios:
/// a sequential step is the unit; a galloping seek over a gap g costs `seek * (1 + log2(1+g))`).
struct skip_cost_constants {
  double step = 1.0;      // advance one stored entry
  double seek = 1.0;      // per comparison level of a galloping search
  double hashed_locate = 2.0;
  double other_locate = 1.0;  // bitmap bit test, banded range check
  double bitmap_word = 1.0 / 64;  // a bitmap leader scans its extent a word at a time
};

/// Policy codes in candidate order (`standard` is the combinators' static table); the same codes
/// that a `skip::runtime` intersection reads from its kernel's context.
using skip_code = stream::skip::code;

inline const char* skip_code_name(skip_code c) {
  switch (c) {
    case skip_code::leapfrog: return "leapfrog";
    case skip_code::merge: return "merge";
    case skip_code::lead_first: return "lead first";
    case skip_code::lead_last: return "lead last";
    default: return "standard";
  }
}

namespace detail {

inline constexpr std::size_t max_coiterated = 8;  // operands per loop the analysis keeps

/// One operand that an intersection at a loop iterates or probes (not a full level: those are
/// always located).
struct coiterated {
  std::size_t access = 0;  // ordinal in accesses_t (the lowering's numbering)
  std::size_t mode = 0;    // the tensor's mode for the loop's index
  std::size_t level = 0;   // storage level of that mode in the tensor the kernel reads
  bool locatable = false;  // hashed, bitmap, banded: O(1) probe
  bool scans = false;      // bitmap: iteration scans the extent a word at a time
  bool transposed = false;
};

template <std::size_t Depths>
struct loop_table {
  std::array<std::array<coiterated, max_coiterated>, Depths> at{};
  std::array<std::size_t, Depths> count{};
};

template <class E>
inline constexpr std::size_t access_count_v = boost::mp11::mp_size<expr::accesses_t<E>>::value;

// The accesses reached from the root through products only (sum and expand are transparent):
// the factors that the kernel's mul_op intersects, by ordinal. Operands under +, map or where
// are co-iterated by other streams and are not costed here.
template <class E, std::size_t K>
struct factors {
  using type = boost::mp11::mp_list<>;
};
template <class T, class... Is, std::size_t K>
struct factors<expr::access<T, Is...>, K> {
  using type = boost::mp11::mp_list<boost::mp11::mp_size_t<K>>;
};
template <class L, class R, std::size_t K>
struct factors<expr::mul<L, R>, K> {
  using type = boost::mp11::mp_append<typename factors<L, K>::type,
                                      typename factors<R, K + access_count_v<L>>::type>;
};
template <class I, class E, std::size_t K>
struct factors<expr::sum<I, E>, K> : factors<E, K> {};
template <class I, class E, std::size_t K>
struct factors<expr::expand<I, E>, K> : factors<E, K> {};

template <class Plan, class A>
struct access_info;
template <class Plan, class T, class... Is>
struct access_info<Plan, expr::access<T, Is...>> {
  using format = typename std::remove_const_t<T>::format_type;
  static constexpr std::size_t order = sizeof...(Is);
  static constexpr std::array<std::size_t, sizeof...(Is)> depth_of_mode{
      boost::mp11::mp_find<typename Plan::order, Is>::value...};
};

template <class Plan>
struct plan_rhs;
template <class Lhs, class Rhs, int C, class F>
struct plan_rhs<plan::order_plan<Lhs, Rhs, C, F>> {
  using type = Rhs;
};

/// The co-iterated operands of every loop of plan P.
template <class Plan>
constexpr auto analyse() {
  using rhs = typename plan_rhs<Plan>::type;
  loop_table<Plan::index_count> t{};
  boost::mp11::mp_for_each<typename factors<rhs, 0>::type>([&](auto k) {
    constexpr std::size_t K = decltype(k)::value;
    using A = boost::mp11::mp_at_c<typename Plan::accesses, K>;
    using info = access_info<Plan, A>;
    using F = typename info::format;
    if constexpr (info::order > 0 && !F::all_dense) {
      constexpr bool transposed = Plan::chosen.transposed[K];
      // the copy stores modes by depth, in the levels plan/transposed_format.hpp gives it
      using read = std::conditional_t<
          transposed, plan::transposed_format<typename Plan::order, A>, std::type_identity<F>>;
      for (std::size_t m = 0; m < info::order; ++m) {
        std::size_t level = F::level_of_mode[m];
        if (transposed) {
          level = 0;
          for (std::size_t o = 0; o < info::order; ++o)
            if (info::depth_of_mode[o] < info::depth_of_mode[m]) ++level;
        }
        const level_properties p = read::type::properties[level];
        if (p.full) continue;
        const std::size_t d = info::depth_of_mode[m];
        if (t.count[d] == max_coiterated) continue;
        t.at[d][t.count[d]++] = coiterated{K, m, level, p.random_access, p.random_access && p.padded,
                                           transposed};
      }
    }
  });
  return t;
}

/// What the static table of combinators.hpp does at a loop, as a code (`standard` when it
/// mixes policies, i.e. more than two operands with a random-access one).
template <std::size_t Depths>
constexpr skip_code standard_equivalent(const loop_table<Depths>& t, std::size_t d) {
  const std::size_t n = t.count[d];
  bool any = false;
  for (std::size_t o = 0; o < n; ++o) any = any || t.at[d][o].locatable;
  if (!any) return skip_code::leapfrog;
  if (n == 2) return t.at[d][1].locatable ? skip_code::lead_first : skip_code::lead_last;
  return skip_code::standard;
}

struct skip_alternative {
  std::size_t depth = 0;
  skip_code code = skip_code::standard;
};

template <std::size_t Depths>
struct alternative_list {
  std::array<skip_alternative, 4 * Depths + 1> at{};
  std::size_t count = 0;  // including #0, the static policy
};

/// #0 the static policy; then, loop by loop (outermost first) wherever two or more operands
/// are co-iterated, each other policy at that loop alone; cut at Cap.
template <class Plan, std::size_t Cap>
constexpr auto alternatives() {
  constexpr auto t = analyse<Plan>();
  alternative_list<Plan::index_count> l{};
  l.count = 1;
  for (std::size_t d = 0; d < Plan::index_count; ++d) {
    if (t.count[d] < 2) continue;
    const skip_code same = standard_equivalent(t, d);
    for (skip_code c : {skip_code::merge, skip_code::lead_first, skip_code::lead_last,
                        skip_code::leapfrog}) {
      if (c == same || l.count >= Cap) continue;
      l.at[l.count++] = {d, c};
    }
  }
  return l;
}

template <skip_code C>
struct policy_type;
template <>
struct policy_type<skip_code::leapfrog> {
  using type = stream::skip::leapfrog;
};
template <>
struct policy_type<skip_code::merge> {
  using type = stream::skip::merge;
};
template <>
struct policy_type<skip_code::lead_first> {
  using type = stream::skip::lead<0>;
};
template <>
struct policy_type<skip_code::lead_last> {
  using type = stream::skip::lead<1>;
};

template <class Plan, std::size_t Cap>
struct candidate_at {
  template <class C>
  struct fn {
    static constexpr auto alt = alternatives<Plan, Cap>().at[C::value];
    using type = boost::mp11::mp_push_back<
        boost::mp11::mp_rename<boost::mp11::mp_repeat_c<boost::mp11::mp_list<stream::skip::standard>,
                                                        alt.depth>,
                               stream::skip::per_loop>,
        typename policy_type<alt.code>::type>;
  };
  template <class C>
  using f = typename fn<C>::type;
};

template <class Plan, std::size_t Cap>
struct skip_candidates_impl {
  static constexpr std::size_t count = alternatives<Plan, Cap>().count;
  using type = boost::mp11::mp_push_front<
      boost::mp11::mp_transform_q<boost::mp11::mp_quote<candidate_at<Plan, Cap>::template f>,
                                  boost::mp11::mp_drop_c<boost::mp11::mp_iota_c<count>, 1>>,
      stream::skip::per_loop<>>;
};

}  // namespace detail

/// The skip-policy variants instantiated for plan P (a `loom::plan::order_plan`): #0 the static
/// policy (`per_loop<>`), then one other policy at one loop each, at most Cap in all.
template <class Plan, std::size_t Cap = stream::skip::max_candidates>
using skip_candidates_t = typename detail::skip_candidates_impl<Plan, Cap>::type;

/// One loop's policy costs (indexed by skip_code, standard last) and what they were made of.
struct loop_skip_costs {
  std::size_t depth = 0;
  std::string index;
  double outer = 1;  // estimated iterations of the loops outside
  std::vector<std::string> operands;  // labels, in expression order
  std::vector<double> fiber;          // mean stored entries per fiber of each operand's level
  std::array<double, 5> per_fiber{};  // cost of one fiber's intersection, by skip_code
  skip_code standard_is = skip_code::standard;
};

/// Every candidate's estimated cost, the chosen one, and the per-loop detail for explain.
struct skip_choice {
  std::vector<double> cost;
  std::size_t chosen = 0;
  std::vector<loop_skip_costs> loops;
  std::vector<detail::skip_alternative> candidates;  // #0 is standard everywhere
};

namespace detail {

/// Cost of intersecting one fiber per operand (sizes n, probe facts) under policy c.
inline double fiber_cost(skip_code c, const std::vector<double>& n,
                         const std::vector<coiterated>& ops, double extent,
                         const skip_cost_constants& k) {
  const std::size_t m = n.size();
  auto gallop = [&](double target, double over) {  // seeks into `target` entries, `over` times
    return over * k.seek * (1 + std::log2(1 + target / std::max(over, 1.0)));
  };
  auto step_cost = [&](std::size_t o) {
    return n[o] * k.step + (ops[o].scans ? extent * k.bitmap_word : 0.0);
  };
  auto lead = [&](std::size_t leader) {
    double c = step_cost(leader);
    for (std::size_t o = 0; o < m; ++o) {
      if (o == leader) continue;
      if (ops[o].locatable) c += n[leader] * (ops[o].scans ? k.other_locate : k.hashed_locate);
      else c += gallop(n[o], n[leader]);
    }
    return c;
  };
  double lo = n[0];
  for (double x : n) lo = std::min(lo, x);
  switch (c) {
    case skip_code::merge: {
      double s = 0;
      for (std::size_t o = 0; o < m; ++o) s += step_cost(o);
      return s;
    }
    case skip_code::leapfrog: {  // every operand seeks about once per entry of the smallest
      double s = 0;
      for (std::size_t o = 0; o < m; ++o) s += gallop(n[o], lo);
      return s;
    }
    case skip_code::lead_first: return lead(0);
    case skip_code::lead_last: return lead(m - 1);
    default: {  // the static table: the first non-locatable operand leads, the rest probe
      bool any = false;
      for (const auto& o : ops) any = any || o.locatable;
      if (!any) return fiber_cost(skip_code::leapfrog, n, ops, extent, k);
      std::size_t leader = 0;
      while (leader < m && ops[leader].locatable) ++leader;
      return lead(leader == m ? 0 : leader);
    }
  }
}

template <class Tensor>
std::string skip_label(const Tensor& t, std::size_t k) {
  const std::string name = t.name().empty() ? "operand #" + std::to_string(k) : t.name();
  return name + " [" + format_name<typename Tensor::format_type>() + "]";
}

// Mean stored coordinates per parent at the level of `o` (statistics of the original tensor;
// a transposed copy is estimated from its mode's distinct count and mean degrees).
inline double mean_fiber(const statistics& s, const coiterated& o, std::size_t order,
                         const std::vector<std::size_t>& modes_by_level) {
  if (s.nnz == 0) return 0;
  if (!o.transposed) {
    const double here = static_cast<double>(s.nonempty_fibers[o.level]);
    const double above = o.level == 0 ? 1.0 : static_cast<double>(s.nonempty_fibers[o.level - 1]);
    return above > 0 ? here / above : 0;
  }
  if (o.level == 0) return static_cast<double>(s.distinct[o.mode]);
  (void)order, (void)modes_by_level;
  // order 2: the entries per coordinate of the other mode; higher orders: the same, roughly
  double other = 1;
  for (std::size_t m = 0; m < s.distinct.size(); ++m)
    if (m != o.mode) other = std::max(other, static_cast<double>(s.distinct[m]));
  return static_cast<double>(s.nnz) / other;
}

}  // namespace detail

/// Costs every skip candidate of plan P for `lhs = rhs` (rhs already rewritten, as the
/// evaluator runs it) and picks the cheapest; ties keep the static policy.
template <class Plan, std::size_t Cap = stream::skip::max_candidates, class Lhs, class Rhs>
skip_choice choose_skip(const Lhs& lhs, const Rhs& rhs, statistics_cache& cache,
                        const skip_cost_constants& k = {}) {
  static_assert(std::is_same_v<typename detail::plan_rhs<Plan>::type, Rhs>,
                "loom internal error: choose_skip with another kernel's plan; please report");
  constexpr auto table = detail::analyse<Plan>();
  constexpr auto alts = detail::alternatives<Plan, Cap>();
  skip_choice out;
  for (std::size_t c = 0; c < alts.count; ++c) out.candidates.push_back(alts.at[c]);
  std::vector<std::string> names;
  boost::mp11::mp_for_each<typename Plan::order>([&](auto i) { names.emplace_back(decltype(i)::name); });

  // per access ordinal: statistics, label, extents
  std::vector<const statistics*> stats(Plan::access_count, nullptr);
  std::vector<std::string> labels(Plan::access_count);
  std::vector<std::vector<std::int64_t>> extents(Plan::access_count);
  expr::for_each_access(rhs, [&](const auto& a, std::size_t ord) {
    using tensor_t = std::remove_cvref_t<decltype(*a.tensor)>;
    labels[ord] = detail::skip_label(*a.tensor, ord);
    for (std::size_t m = 0; m < tensor_t::order; ++m) extents[ord].push_back(a.tensor->extent(m));
    if constexpr (tensor_t::order > 0 && !tensor_t::format_type::all_dense)
      stats[ord] = &cache.get(*a.tensor);
  });

  bool any_loop = false;
  for (std::size_t d = 0; d < Plan::index_count; ++d) any_loop = any_loop || table.count[d] >= 2;
  loop_order_query q;
  if (any_loop) q = describe(lhs, rhs, cache);
  for (std::size_t d = 0; d < Plan::index_count; ++d) {
    if (table.count[d] < 2) continue;
    loop_skip_costs l;
    l.depth = d;
    l.index = names[d];
    l.standard_is = detail::standard_equivalent(table, d);
    if (d > 0) l.outer = q.iterations(std::vector<std::string>(names.begin(), names.begin() + d));
    std::vector<detail::coiterated> ops(table.at[d].begin(), table.at[d].begin() + table.count[d]);
    double extent = 1;
    for (const auto& o : ops) {
      l.operands.push_back(labels[o.access]);
      l.fiber.push_back(detail::mean_fiber(*stats[o.access], o, extents[o.access].size(), {}));
      extent = static_cast<double>(extents[o.access][o.mode]);
    }
    for (std::size_t c = 0; c < 5; ++c)
      l.per_fiber[c] = detail::fiber_cost(static_cast<skip_code>(c), l.fiber, ops, extent, k);
    out.loops.push_back(std::move(l));
  }
  for (std::size_t c = 0; c < alts.count; ++c) {
    double total = 0;
    for (const auto& l : out.loops) {
      const skip_code code =
          c > 0 && alts.at[c].depth == l.depth ? alts.at[c].code : skip_code::standard;
      total += l.outer * l.per_fiber[static_cast<std::size_t>(code)];
    }
    out.cost.push_back(total);
    if (total < out.cost[out.chosen]) out.chosen = c;
  }
  return out;
}

namespace detail {
template <class Plan>
struct skip_purpose {};  // a plan_cache key of its own per order plan
}  // namespace detail

/// The skip candidate to run for plan P of `lhs = rhs`: cached by the coarse signature (per
/// thread, per plan), else costed from statistics. `LOOM_DEBUG_PLAN` logs the choice.
template <class Plan, std::size_t Cap = stream::skip::max_candidates, class Lhs, class Rhs>
std::size_t cached_skip_choice(const Lhs& lhs, const Rhs& rhs) {
  using cache_t = plan_cache<Lhs, Rhs, detail::skip_purpose<Plan>>;
  return cache_t::local().find_or(detail::coarse_signature(rhs), [&](statistics_cache& stats) {
    const skip_choice c = choose_skip<Plan, Cap>(lhs, rhs, stats);
#ifdef LOOM_DEBUG_PLAN
    std::clog << "loom: skip policy chosen at run time: candidate " << c.chosen << " of "
              << c.cost.size() << " (estimated costs:";
    for (double x : c.cost) std::clog << " " << x;
    std::clog << ")\n";
#endif
    return c.chosen;
  });
}

namespace detail {
// "  loop j: A [csr] 1989 per fiber, x [sparse_vector] 20 per fiber; 2000 outer iterations"
inline void describe_loop_operands(std::ostream& s, const loop_skip_costs& l) {
  s << "  loop " << l.index << ":";
  for (std::size_t o = 0; o < l.operands.size(); ++o)
    s << (o ? "," : "") << " " << l.operands[o] << " " << static_cast<std::int64_t>(l.fiber[o] + 0.5)
      << " per fiber";
  s << "; " << static_cast<std::int64_t>(l.outer + 0.5) << " outer iterations\n";
}
}  // namespace detail

// The runtime skip policy (opt-in: one kernel per plan, `skip::runtime` at every loop) ----------

/// Whether plan P has a loop where the runtime policy has something to choose: two or more
/// co-iterated operands, none random-access (there, every policy is one `mul_stream`).
template <class Plan>
inline constexpr bool has_runtime_skip_loop = [] {
  constexpr auto t = detail::analyse<Plan>();
  for (std::size_t d = 0; d < Plan::index_count; ++d)
    if (t.count[d] >= 2 && detail::standard_equivalent(t, d) == skip_code::leapfrog) return true;
  return false;
}();

/// The code of each loop from its costs: the cheapest policy where the runtime policy chooses
/// (ties keep leapfrog, the static table's choice), leapfrog elsewhere (where it is unused).
inline stream::skip::codes runtime_skip_codes(const skip_choice& c) {
  stream::skip::codes codes = stream::skip::default_codes;
  for (const auto& l : c.loops) {
    if (l.standard_is != skip_code::leapfrog) continue;  // depth < max_indices <= max_loops
    skip_code best = skip_code::leapfrog;
    for (skip_code code : {skip_code::merge, skip_code::lead_first, skip_code::lead_last})
      if (l.per_fiber[static_cast<std::size_t>(code)] < l.per_fiber[static_cast<std::size_t>(best)])
        best = code;
    codes[l.depth] = best;
  }
  return codes;
}

namespace detail {
template <class Plan>
struct runtime_skip_purpose {};

// Two bits per loop: the plan cache stores one integer per choice.
inline std::size_t pack_codes(const stream::skip::codes& c) {
  std::uint64_t v = 0;
  for (std::size_t d = 0; d < c.size(); ++d) v |= std::uint64_t{static_cast<std::uint8_t>(c[d]) & 3u} << (2 * d);
  return static_cast<std::size_t>(v);
}
inline stream::skip::codes unpack_codes(std::size_t v) {
  stream::skip::codes c{};
  for (std::size_t d = 0; d < c.size(); ++d) c[d] = static_cast<skip_code>((v >> (2 * d)) & 3u);
  return c;
}
}  // namespace detail

/// The codes that plan P's `skip::runtime` intersections run with for `lhs = rhs`: cached by
/// the coarse signature (per thread, per plan), else costed from statistics. `LOOM_DEBUG_PLAN`
/// logs the choice.
template <class Plan, class Lhs, class Rhs>
stream::skip::codes cached_runtime_skips(const Lhs& lhs, const Rhs& rhs) {
  using cache_t = plan_cache<Lhs, Rhs, detail::runtime_skip_purpose<Plan>>;
  return detail::unpack_codes(
      cache_t::local().find_or(detail::coarse_signature(rhs), [&](statistics_cache& stats) {
        const stream::skip::codes codes = runtime_skip_codes(choose_skip<Plan, 1>(lhs, rhs, stats));
#ifdef LOOM_DEBUG_PLAN
        std::clog << "loom: skip policy chosen at run time:";
        for (std::size_t d = 0; d < Plan::index_count; ++d) std::clog << " " << skip_code_name(codes[d]);
        std::clog << " (by loop)\n";
#endif
        return detail::pack_codes(codes);
      }));
}

/// The runtime policy's choice in words: each loop where it chooses, its operands' mean fiber
/// sizes, the estimated cost of each policy and the one chosen (*).
inline std::string describe_runtime_skips(const skip_choice& c) {
  std::ostringstream s;
  const stream::skip::codes codes = runtime_skip_codes(c);
  bool any = false;
  for (const auto& l : c.loops) {
    if (l.standard_is != skip_code::leapfrog) continue;
    if (!any) s << "skip policy per loop (chosen at run time from statistics, one kernel):\n";
    any = true;
    detail::describe_loop_operands(s, l);
    for (skip_code code : {skip_code::leapfrog, skip_code::merge, skip_code::lead_first,
                           skip_code::lead_last}) {
      s << "    " << (codes[l.depth] == code ? "* " : "  ") << skip_code_name(code);
      if (code == skip_code::lead_first) s << " (" << l.operands.front() << " iterates)";
      if (code == skip_code::lead_last) s << " (" << l.operands.back() << " iterates)";
      s << ": estimated cost "
        << static_cast<std::int64_t>(l.outer * l.per_fiber[static_cast<std::size_t>(code)] + 0.5)
        << "\n";
    }
  }
  return s.str();
}

/// The per-loop table of a skip choice in words: each loop with two or more co-iterated
/// operands, their mean fiber sizes, every policy's estimated cost (instantiated or not), and
/// the chosen candidate.
inline std::string describe_skip_choice(const skip_choice& c, std::size_t cap) {
  std::ostringstream s;
  if (c.loops.empty()) {
    s << "skip policy: no loop co-iterates two or more sparse operands (nothing to choose)\n";
    return s.str();
  }
  s << "skip policy per loop (" << c.candidates.size() << " candidates instantiated, at most "
    << cap << "; LOOM_MAX_SKIP_CANDIDATES):\n";
  for (const auto& l : c.loops) {
    detail::describe_loop_operands(s, l);
    for (skip_code code : {skip_code::standard, skip_code::leapfrog, skip_code::merge,
                           skip_code::lead_first, skip_code::lead_last}) {
      std::ptrdiff_t cand = -1;
      if (code == skip_code::standard) cand = 0;
      for (std::size_t k = 1; k < c.candidates.size(); ++k)
        if (c.candidates[k].depth == l.depth && c.candidates[k].code == code)
          cand = static_cast<std::ptrdiff_t>(k);
      const bool chosen = cand >= 0 && static_cast<std::size_t>(cand) == c.chosen;
      s << "    " << (chosen ? "* " : "  ") << skip_code_name(code);
      if (code == skip_code::standard && l.standard_is != skip_code::standard)
        s << " (= " << skip_code_name(l.standard_is) << ")";
      if (code == skip_code::lead_first) s << " (" << l.operands.front() << " iterates)";
      if (code == skip_code::lead_last) s << " (" << l.operands.back() << " iterates)";
      s << ": estimated cost "
        << static_cast<std::int64_t>(l.outer * l.per_fiber[static_cast<std::size_t>(code)] + 0.5);
      if (cand < 0) s << (code == l.standard_is ? " (same as standard)" : " (not instantiated)");
      else s << " (candidate #" << cand << ")";
      s << "\n";
    }
  }
  s << "chosen: skip candidate #" << c.chosen;
  if (c.chosen == 0) s << " (standard at every loop)";
  for (const auto& l : c.loops)
    if (c.chosen > 0 && l.depth == c.candidates[c.chosen].depth)
      s << " (" << skip_code_name(c.candidates[c.chosen].code) << " at loop " << l.index << ")";
  s << "\n";
  return s.str();
}

}  // namespace loom::optimize

#endif  // LOOM_OPTIMIZE_LEADER_CHOICE_HPP
// ---- end <loom/optimize/leader_choice.hpp>
// ---- begin <loom/optimize/workspace_choice.hpp>
// Defines the choice of a sparse output's workspace kind (dense, hashed, sorted) from the
// estimated writes, entries and rows of a plan, cached per plan by a coarse statistics
// signature (optimize/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_WORKSPACE_CHOICE_HPP
#define LOOM_OPTIMIZE_WORKSPACE_CHOICE_HPP

// ---- begin <loom/stream/workspace.hpp>
// Defines the Gustavson workspace of a sparse output written out of order, in three kinds (a
// dense array with a touched list, an open-addressing hash table, a sorted list), and
// loom::workspace_kind, which the optimizer chooses from estimates (stream/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_STREAM_WORKSPACE_HPP
#define LOOM_STREAM_WORKSPACE_HPP


#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace loom {

/// How a workspace row holds the entries that arrive out of order before they are appended in
/// order (DESIGN.md §5): `dense`, an array over the row's cells with a byte per cell and a list
/// of the touched cells (Galley's bytemap); `hashed`, an open-addressing table sized to the
/// row's estimated entries; `sorted`, every write appended to a list, sorted and merged when
/// the row ends.
enum class workspace_kind : std::uint8_t { dense, hashed, sorted };

inline constexpr std::array<workspace_kind, 3> workspace_kinds{
    workspace_kind::dense, workspace_kind::hashed, workspace_kind::sorted};

constexpr std::string_view workspace_kind_name(workspace_kind k) {
  switch (k) {
    case workspace_kind::dense: return "dense";
    case workspace_kind::hashed: return "hashed";
    case workspace_kind::sorted: return "sorted";
  }
  return "?";
}

namespace detail {
inline thread_local std::optional<workspace_kind> forced_workspace{};
}  // namespace detail

/// Forces the workspace kind of every kernel run on this thread while it lives (tests,
/// benchmarks); the optimizer's choice otherwise. Nests; restores the previous setting. A dense
/// row space past 2^26 cells is never allocated: forced `dense` then runs `hashed`.
class scoped_workspace {
 public:
  explicit scoped_workspace(workspace_kind k) : previous_(detail::forced_workspace) {
    detail::forced_workspace = k;
  }
  ~scoped_workspace() { detail::forced_workspace = previous_; }
  scoped_workspace(const scoped_workspace&) = delete;
  scoped_workspace& operator=(const scoped_workspace&) = delete;

 private:
  std::optional<workspace_kind> previous_;
};

}  // namespace loom

namespace loom::stream {

/// The cells a dense workspace may allocate; a larger row space is held in a hash table.
inline constexpr std::int64_t max_dense_workspace_cells = std::int64_t{1} << 26;
static_assert(max_dense_workspace_cells <= (std::int64_t{1} << 32), "dense workspace cells are kept as 32-bit keys");

namespace detail {
/// The rows a radix sort is used for, and its digit in the optimizer's estimate: below this, a
/// comparison sort is faster.
inline constexpr std::size_t radix_sort_min = 512;
inline constexpr int radix_bits = 11;

/// Passes of an LSD radix sort with 11-bit digits over keys in [0, bound) (the cost model's).
constexpr int radix_passes(std::int64_t bound) {
  const int bits = bound <= 1 ? 1 : static_cast<int>(std::bit_width(static_cast<std::uint64_t>(bound - 1)));
  return (bits + radix_bits - 1) / radix_bits;
}

/// Sorts `v` stably by bits [lo, hi) of `key(x)` (the lower bits are left in their order): an
/// LSD radix sort for long inputs, with digits of up to 16 bits sized to the input (digits every
/// key shares are skipped), a comparison sort for short ones or keys too wide for four passes.
/// `Unique`: no two keys are equal, so with lo = 0 the comparison sort need not be stable (and
/// allocates nothing).
template <bool Unique = false, class X, class Key>
void sort_bits(std::vector<X>& v, std::vector<X>& scratch, std::vector<std::size_t>& count, int lo,
               int hi, Key key) {
  if (hi <= lo) return;
  auto digits_of = [&](const X& x) { return static_cast<std::uint64_t>(key(x)) >> lo; };
  const int bits = hi - lo;
  const int width = std::clamp(static_cast<int>(std::bit_width(v.size())) - 3, 8, 16);
  const int passes = (bits + width - 1) / width;
  if (v.size() < radix_sort_min || passes > 4) {
    const auto less = [&](const X& a, const X& b) { return digits_of(a) < digits_of(b); };
    if (Unique && lo == 0) std::sort(v.begin(), v.end(), less);
    else std::stable_sort(v.begin(), v.end(), less);
    return;
  }
  const int digit = (bits + passes - 1) / passes;
  const std::uint64_t mask = (std::uint64_t{1} << digit) - 1;
  scratch.resize(v.size());
  count.resize(std::size_t{1} << digit);
  for (int pass = 0, shift = 0; pass < passes; ++pass, shift += digit) {
    std::fill(count.begin(), count.end(), std::size_t{0});
    for (const X& x : v) ++count[(digits_of(x) >> shift) & mask];
    if (std::find(count.begin(), count.end(), v.size()) != count.end()) continue;  // one digit
    std::size_t at = 0;
    for (std::size_t& c : count) at += std::exchange(c, at);
    for (const X& x : v) scratch[count[(digits_of(x) >> shift) & mask]++] = x;
    v.swap(scratch);
  }
}

/// The sort keys of a workspace's rows: named types, not lambdas, so that every sink with the
/// same value type shares one instantiation of the sorts.
struct key_identity {
  constexpr std::int64_t operator()(std::int64_t x) const { return x; }
};
struct key_first {
  template <class Pair>
  constexpr std::int64_t operator()(const Pair& x) const { return x.first; }
};

/// Sorts `v` stably by `key(x)` in [0, bound).
template <bool Unique = false, class X, class Key>
void sort_by_key(std::vector<X>& v, std::vector<X>& scratch, std::vector<std::size_t>& count,
                 std::int64_t bound, Key key) {
  const int bits = bound <= 1 ? 0 : static_cast<int>(std::bit_width(static_cast<std::uint64_t>(bound - 1)));
  sort_bits<Unique>(v, scratch, count, 0, bits, key);
}
}  // namespace detail

/// The arrays of a workspace, kept per thread and value type between kernels: a finished
/// workspace leaves them clean (accumulators zero, slots empty, no entries), so the next one on
/// the thread reuses their pages instead of faulting fresh ones in (a transpose of 96K entries
/// spent a third of its time in page faults). At most `max_spare_workspace_bytes` are kept.
template <class T>
struct workspace_buffers {
  std::vector<T> acc{};
  std::vector<unsigned char> seen{};
  std::vector<std::int64_t> touched{};
  std::vector<std::uint32_t> cells{};  // a dense row's touched cells: 32-bit keys sort faster
  std::vector<std::uint32_t> scratch_cells{};
  std::vector<std::int64_t> slot_key{};
  std::vector<T> slot_val{};
  std::vector<std::pair<std::int64_t, T>> pairs{};
  std::vector<std::pair<std::int64_t, T>> scratch_pairs{};
  std::vector<std::int64_t> scratch_keys{};
  std::vector<std::size_t> counts{};

  std::size_t bytes() const {
    return acc.capacity() * sizeof(T) + seen.capacity() + touched.capacity() * 8 +
           (cells.capacity() + scratch_cells.capacity()) * 4 +
           slot_key.capacity() * 8 + slot_val.capacity() * sizeof(T) +
           (pairs.capacity() + scratch_pairs.capacity()) * sizeof(std::pair<std::int64_t, T>) +
           scratch_keys.capacity() * 8 + counts.capacity() * sizeof(std::size_t);
  }
  void swap(workspace_buffers& o) noexcept {
    acc.swap(o.acc);
    seen.swap(o.seen);
    touched.swap(o.touched);
    cells.swap(o.cells);
    scratch_cells.swap(o.scratch_cells);
    slot_key.swap(o.slot_key);
    slot_val.swap(o.slot_val);
    pairs.swap(o.pairs);
    scratch_pairs.swap(o.scratch_pairs);
    scratch_keys.swap(o.scratch_keys);
    counts.swap(o.counts);
  }
};

inline constexpr std::size_t max_spare_workspace_bytes = std::size_t{64} << 20;

template <class T>
workspace_buffers<T>& spare_workspace_buffers() {
  thread_local workspace_buffers<T> spare;
  return spare;
}

/// Frees the arrays this thread keeps for the workspaces of value type T (at most
/// `max_spare_workspace_bytes`), e.g. after a burst of large sparse products.
template <class T = double>
void release_workspace_buffers() {
  workspace_buffers<T>{}.swap(spare_workspace_buffers<T>());
}

/// A Gustavson workspace: the first `prefix` output levels are iterated in order by the outer
/// loops; the rest arrive in any order, possibly repeated, and are accumulated per prefix
/// ("row") in a workspace of kind `kind`, then appended in order when the row ends.
template <class T, std::size_t N, class Out>
struct workspace_sink {
  using value_type = T;
  Out& out;
  std::array<std::int64_t, 32> at_depth{};
  std::array<std::size_t, N> depth_of_level{};
  std::array<std::int64_t, N> level_extent{};
  std::size_t prefix = 0;  // output levels fixed by the outer loops
  workspace_kind kind = workspace_kind::dense;
  std::int64_t expected_row_entries = 0;  // sizes the hash table; it grows past half full
  // dense: acc, seen, cells; hashed: slot_key (key + 1, 0 empty), slot_val, `touched` the used
  // slots; sorted (and the hashed row's entries, sorted before they are appended): pairs
  workspace_buffers<T> buf{};
  std::uint64_t mask = 0;
  bool clean = false;  // finished: the buffers may go back to the thread's spare ones
  std::int64_t space = 0;  // cells of a row: dense keys are below it
  // hashed and sorted keys pack the row's levels into bit fields when they fit in 62 bits (no
  // divisions to unpack them, and a sort can skip fields); otherwise they are mixed-radix
  bool packed = false;
  std::array<int, N> shift{};
  std::array<std::int64_t, N> field{};  // (1 << bits of the level) - 1
  int key_bits = 0;    // bits of a packed key
  int sorted_bits = 0; // low bits already in order as the entries arrive

  ~workspace_sink() {
    if (!clean) return;  // an exception left them dirty
    auto& spare = spare_workspace_buffers<T>();
    if (buf.bytes() <= max_spare_workspace_bytes && buf.bytes() >= spare.bytes()) spare.swap(buf);
  }

  void init() {
    buf.swap(spare_workspace_buffers<T>());  // clean, possibly empty
    clean = false;
    space = 1;
    for (std::size_t k = prefix; k < N; ++k) {
      if (level_extent[k] != 0 && space > (std::int64_t{1} << 40) / level_extent[k]) space = -1;
      if (space >= 0) space *= level_extent[k];
    }
    if (kind == workspace_kind::dense && (space < 0 || space > max_dense_workspace_cells))
      kind = workspace_kind::hashed;
    if (space < 0) space = std::numeric_limits<std::int64_t>::max();
    key_bits = 0;
    for (std::size_t k = N; k-- > prefix;) {
      const int bits = level_extent[k] <= 1 ? 0 : static_cast<int>(std::bit_width(
                                                       static_cast<std::uint64_t>(level_extent[k] - 1)));
      shift[k] = key_bits;
      field[k] = (std::int64_t{1} << bits) - 1;
      key_bits += bits;
    }
    packed = kind != workspace_kind::dense && key_bits <= 62;
    // The loops visit the row's depths in order, each ascending, so the entries of a row arrive
    // sorted by the levels at the depths right below the row's (the transpose's i): a stable
    // sort of the key's other bits is enough.
    sorted_bits = 0;
    if (packed) {
      const std::int64_t first = prefix == 0 ? 0 : static_cast<std::int64_t>(depth_of_level[prefix - 1]) + 1;
      for (std::size_t k = prefix; k < N && sorted_bits == 0; ++k) {
        bool in_order = true;
        for (std::size_t q = k; q < N; ++q)
          in_order = in_order && static_cast<std::int64_t>(depth_of_level[q]) == first + static_cast<std::int64_t>(q - k);
        if (in_order) sorted_bits = shift[k] + static_cast<int>(std::bit_width(static_cast<std::uint64_t>(field[k])));
      }
    }
    if (kind == workspace_kind::dense) {
      if (buf.acc.size() < static_cast<std::size_t>(space)) {  // a larger reused one is zero too
        buf.acc.assign(static_cast<std::size_t>(space), semiring_traits<T>::zero());
        buf.seen.assign(static_cast<std::size_t>(space), 0);
      }
    } else if (kind == workspace_kind::hashed) {
      // an overestimate costs a table too large to stay in cache: start at most at 2^16 slots
      const auto want = std::clamp<std::int64_t>(2 * expected_row_entries, 16, std::int64_t{1} << 16);
      const std::uint64_t slots = std::bit_ceil(static_cast<std::uint64_t>(want));
      if (buf.slot_key.size() == slots) mask = slots - 1;  // reused, empty
      else resize_table(slots);
    }
  }
  LOOM_FORCE_INLINE std::int64_t key() const {
    std::int64_t key = 0;
    if (packed) {
      for (std::size_t k = prefix; k < N; ++k) key |= at_depth[depth_of_level[k]] << shift[k];
    } else {
      for (std::size_t k = prefix; k < N; ++k) key = key * level_extent[k] + at_depth[depth_of_level[k]];
    }
    return key;
  }
  static LOOM_FORCE_INLINE std::uint64_t hash(std::int64_t key) {
    const std::uint64_t h = static_cast<std::uint64_t>(key) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
  }
  LOOM_FORCE_INLINE void push(const T& v) {
    const std::int64_t kk = key();
    if (kind == workspace_kind::dense) {
      if (!buf.seen[kk]) {
        buf.seen[kk] = 1;
        buf.cells.push_back(static_cast<std::uint32_t>(kk));  // below 2^26 cells
        buf.acc[kk] = v;
      } else {
        buf.acc[kk] = semiring_traits<T>::add(buf.acc[kk], v);
      }
    } else if (kind == workspace_kind::hashed) {
      for (std::uint64_t s = hash(kk) & mask;; s = (s + 1) & mask) {
        if (buf.slot_key[s] == kk + 1) {
          buf.slot_val[s] = semiring_traits<T>::add(buf.slot_val[s], v);
          return;
        }
        if (buf.slot_key[s] == 0) {
          buf.slot_key[s] = kk + 1;
          buf.slot_val[s] = v;
          buf.touched.push_back(static_cast<std::int64_t>(s));
          if (2 * buf.touched.size() > mask + 1) resize_table(2 * (mask + 1));
          return;
        }
      }
    } else {
      buf.pairs.emplace_back(kk, v);
    }
  }
  // the loop at depth d finished one index: flush when d fixes the last prefix level
  LOOM_FORCE_INLINE void end_of(std::size_t d) {
    if (prefix > 0 && d == depth_of_level[prefix - 1]) flush();
  }
  void finish() {
    if (prefix == 0) flush();
    clean = true;
  }
  void flush() {
    if (kind == workspace_kind::dense) flush_dense();
    else if (packed) flush_pairs<true>();
    else flush_pairs<false>();
  }

 private:
  // the row's fixed coordinates, the rest filled in per entry by `unpack`
  std::array<std::int64_t, N> row_coordinates() const {
    std::array<std::int64_t, N> c{};
    for (std::size_t k = 0; k < prefix; ++k) c[k] = at_depth[depth_of_level[k]];
    return c;
  }
  // one branch-free decoder per flush loop keeps the appender's push inlined in it
  template <bool Packed>
  LOOM_FORCE_INLINE void unpack(std::array<std::int64_t, N>& c, std::int64_t kk) const {
    if constexpr (Packed) {
      for (std::size_t k = prefix; k < N; ++k) c[k] = (kk >> shift[k]) & field[k];
    } else {  // mixed radix; the outermost level is what remains (no division for one level)
      for (std::size_t k = N - 1; k > prefix; --k) {
        c[k] = kk % level_extent[k];
        kk /= level_extent[k];
      }
      c[prefix] = kk;
    }
  }
  void flush_dense() {
    if (buf.cells.size() < detail::radix_sort_min) std::sort(buf.cells.begin(), buf.cells.end());  // most rows
    else detail::sort_by_key<true>(buf.cells, buf.scratch_cells, buf.counts, space, detail::key_identity{});
    std::array<std::int64_t, N> c = row_coordinates();
    for (const std::int64_t kk : buf.cells) {
      unpack<false>(c, kk);
      out.push(c, buf.acc[kk]);
      buf.acc[kk] = semiring_traits<T>::zero();
      buf.seen[kk] = 0;
    }
    buf.cells.clear();
  }
  template <bool Packed>
  void flush_pairs() {
    constexpr detail::key_first by_key{};
    const bool unique = kind == workspace_kind::hashed;
    if (unique) {  // the table's slots were taken in arrival order
      for (std::int64_t s : buf.touched) {
        buf.pairs.emplace_back(buf.slot_key[s] - 1, buf.slot_val[s]);
        buf.slot_key[s] = 0;
      }
      buf.touched.clear();
    }
    // one workspace over a csr-like output whose columns arrive in order (a transpose): a
    // counting sort on the row places the entries straight into the output's arrays
    if constexpr (Packed && requires { requires Out::rows_of_columns; }) {
      if (prefix == 0 && sorted_bits >= shift[0]) {
        const auto& p = buf.pairs;
        out.fill_by_rows(
            p.size(), [&](std::size_t e) { return p[e].first >> shift[0]; },
            [&](std::size_t e) { return p[e].first & field[1]; }, [&](std::size_t e) { return p[e].second; },
            !unique);
        buf.pairs.clear();
        return;
      }
    }
    // stable: a sorted row's duplicates are added in the order they were written
    if constexpr (Packed) {
      if (unique) detail::sort_bits<true>(buf.pairs, buf.scratch_pairs, buf.counts, sorted_bits, key_bits, by_key);
      else detail::sort_bits(buf.pairs, buf.scratch_pairs, buf.counts, sorted_bits, key_bits, by_key);
    } else {
      if (unique) detail::sort_by_key<true>(buf.pairs, buf.scratch_pairs, buf.counts, space, by_key);
      else detail::sort_by_key(buf.pairs, buf.scratch_pairs, buf.counts, space, by_key);
    }
    std::array<std::int64_t, N> c = row_coordinates();
    for (std::size_t q = 0; q < buf.pairs.size();) {
      T v = buf.pairs[q].second;
      std::size_t r = q + 1;
      for (; r < buf.pairs.size() && buf.pairs[r].first == buf.pairs[q].first; ++r)
        v = semiring_traits<T>::add(v, buf.pairs[r].second);
      unpack<Packed>(c, buf.pairs[q].first);
      out.push(c, v);
      q = r;
    }
    buf.pairs.clear();
  }

  // a table of `capacity` slots (a power of two) holding the entries already in the old one
  void resize_table(std::uint64_t capacity) {
    std::vector<std::int64_t> old_key(capacity, 0);
    std::vector<T> old_val(capacity, semiring_traits<T>::zero());
    old_key.swap(buf.slot_key);
    old_val.swap(buf.slot_val);
    mask = capacity - 1;
    std::vector<std::int64_t> old_touched;
    old_touched.swap(buf.touched);
    for (std::int64_t s : old_touched) {
      std::uint64_t t = hash(old_key[s] - 1) & mask;
      while (buf.slot_key[t] != 0) t = (t + 1) & mask;
      buf.slot_key[t] = old_key[s];
      buf.slot_val[t] = old_val[s];
      buf.touched.push_back(static_cast<std::int64_t>(t));
    }
  }
};

}  // namespace loom::stream

#endif  // LOOM_STREAM_WORKSPACE_HPP
// ---- end <loom/stream/workspace.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace loom::optimize {

/// What a workspace will hold, estimated from statistics for one loop order.
struct workspace_estimate {
  double rows = 1;        // workspace rows: distinct values of the output levels the outer loops fix
  double writes = 0;      // values written into the workspace (before duplicates are added)
  double entries = 0;     // distinct output entries
  double cells = 0;       // cells of one row's space (product of the other levels' extents)
  double value_bytes = 8;
};

/// Per-operation costs of the three workspaces, in nanoseconds beyond the loop that produces
/// the writes, fitted on the 2-core machine of BENCHMARKS.md (benchmarks/runtime/workspace.cpp):
/// zeroing a byte of a row space (fresh pages past `fresh_bytes`, which the allocator maps anew
/// on every call), a write that hits the cache, the extra per array of one that misses the
/// second-level or the last-level cache, hashing a key, appending a pair, a comparison of a sort
/// of keys and of a (stable) sort of pairs, a key and a pair moved by one radix-sort pass, and
/// appending an output entry.
struct workspace_constants {
  double zero_byte = 0.1;
  double zero_fresh_byte = 0.4;
  double fresh_bytes = 32.0 * (1 << 20);
  double write_hit = 1.0;
  double l2_miss = 15.0;
  double l3_miss = 45.0;
  double l2_bytes = 2.0 * (1 << 20);
  double l3_bytes = 16.0 * (1 << 20);
  double line_bytes = 64;
  double hash = 5.0;
  double append = 1.5;
  double compare_keys = 1.5;
  double compare_pairs = 3.0;
  double radix_key = 5.0;   // per key and pass of a radix sort
  double radix_pair = 8.0;
  double emit = 3.0;
};

/// The three costs, in the order of loom::workspace_kinds, and the cheapest.
struct workspace_choice {
  workspace_kind kind = workspace_kind::dense;
  std::array<double, 3> cost{};
  workspace_estimate estimate{};
  /// the estimated entries of one row: the hash table starts at twice this
  std::int64_t row_entries() const {
    const double per_row = estimate.entries / std::max(1.0, estimate.rows);
    return static_cast<std::int64_t>(std::min(per_row, double(std::int64_t{1} << 24)));
  }
};

namespace detail {
// the extra cost of a random access into `bytes` of one array
inline double miss_cost(double bytes, const workspace_constants& c) {
  auto beyond = [&](double cache) { return bytes <= cache ? 0.0 : 1.0 - cache / bytes; };
  return beyond(c.l2_bytes) * c.l2_miss + beyond(c.l3_bytes) * c.l3_miss;
}
// sorting n keys (or pairs) spread over `rows` rows, keys below `bound`: an LSD radix sort per
// row of stream::detail::radix_sort_min or more, a comparison sort below (workspace.hpp)
inline double sort_cost(double n, double rows, double bound, bool pairs, const workspace_constants& c) {
  const double per_row = std::max(2.0, n / std::max(1.0, rows));
  const int passes = stream::detail::radix_passes(
      static_cast<std::int64_t>(std::min(bound, double(std::numeric_limits<std::int64_t>::max() / 2))));
  if (per_row >= double(stream::detail::radix_sort_min) && passes <= 4)
    return n * passes * (pairs ? c.radix_pair : c.radix_key);
  return n * std::log2(per_row) * (pairs ? c.compare_pairs : c.compare_keys);
}
}  // namespace detail

/// Costs each workspace kind for `e` and picks the cheapest.
/// - dense: the row space (values and a flag byte per cell) is zeroed once; an entry's first
///   write per row touches the whole space at random, its repeats only the row's entries; the
///   touched keys are sorted per row.
/// - hashed: every write hashes and probes a table of twice the row's entries (keys and values);
///   the row's entries are sorted as pairs.
/// - sorted: every write is appended; the row's writes are sorted (stable) and merged.
/// A row of 512 sorted items or more is radix sorted (linear), a shorter one compared.
inline workspace_choice choose_workspace(const workspace_estimate& e, const workspace_constants& c = {}) {
  using detail::miss_cost;
  workspace_choice out;
  out.estimate = e;
  const double per_row = e.entries / std::max(1.0, e.rows);
  const double repeats = std::max(0.0, e.writes - e.entries);
  const double dense_bytes = e.cells * (e.value_bytes + 1);
  const double row_bytes = std::min(dense_bytes, per_row * 2 * c.line_bytes);  // a row's lines
  const double table_bytes = 2 * per_row * (e.value_bytes + 8);
  const double emit = e.entries * c.emit;
  out.cost[0] = e.cells > static_cast<double>(stream::max_dense_workspace_cells)
                    ? std::numeric_limits<double>::infinity()
                    : dense_bytes * (dense_bytes > c.fresh_bytes ? c.zero_fresh_byte : c.zero_byte) +
                          e.writes * c.write_hit + e.entries * 2 * miss_cost(dense_bytes, c) +
                          repeats * 2 * miss_cost(row_bytes, c) +
                          detail::sort_cost(e.entries, e.rows, e.cells, false, c) + emit;
  out.cost[1] = e.writes * (c.hash + c.write_hit + 2 * miss_cost(table_bytes, c)) +
                e.entries * c.append + detail::sort_cost(e.entries, e.rows, e.cells, true, c) + emit;
  out.cost[2] = e.writes * c.append + detail::sort_cost(e.writes, e.rows, e.cells, true, c) + emit;
  std::size_t best = 0;
  for (std::size_t k = 1; k < 3; ++k)
    if (out.cost[k] < out.cost[best]) best = k;
  out.kind = workspace_kinds[best];
  return out;
}

/// The workspace estimate of plan P (its loop order and output prefix) for `lhs = rhs`.
template <class P, class Lhs, class Rhs>
workspace_estimate estimate_workspace(const Lhs& lhs, const Rhs& rhs, statistics_cache& stats) {
  using out_t = std::remove_const_t<std::remove_pointer_t<decltype(lhs.tensor)>>;
  const loop_order_query q = describe(lhs, rhs, stats);
  std::vector<std::string> order;
  boost::mp11::mp_for_each<typename P::order>([&](auto i) { order.emplace_back(decltype(i)::name); });
  std::size_t last_free = 0;  // the writes happen below the deepest output index
  for (std::size_t d = 0; d < order.size(); ++d)
    if (std::find(q.output.begin(), q.output.end(), order[d]) != q.output.end()) last_free = d;
  workspace_estimate e;
  e.value_bytes = sizeof(typename out_t::value_type);
  e.writes = q.iterations({order.begin(), order.begin() + static_cast<std::ptrdiff_t>(last_free + 1)});
  e.entries = q.iterations(q.output);
  const std::vector<std::string> fixed(q.output.begin(),
                                       q.output.begin() + static_cast<std::ptrdiff_t>(P::output_prefix));
  e.rows = fixed.empty() ? 1.0 : q.iterations(fixed);
  e.cells = 1;
  for (std::size_t level = P::output_prefix; level < out_t::order; ++level)
    e.cells *= static_cast<double>(lhs.tensor->extent(out_t::format_type::modes[level]));
  return e;
}

/// One line for `explain` and the plan log: the chosen kind, the estimate and every cost.
inline std::string describe_workspace_choice(const workspace_choice& w) {
  std::ostringstream s;
  s.precision(3);
  s << workspace_kind_name(w.kind) << " workspace (estimated " << w.estimate.writes << " writes, "
    << w.estimate.entries << " entries in " << w.estimate.rows << " rows of " << w.estimate.cells
    << " cells; cost";
  for (std::size_t k = 0; k < 3; ++k) s << " " << workspace_kind_name(workspace_kinds[k]) << " " << w.cost[k];
  s << ")";
  return s.str();
}

namespace detail {
template <class P>
struct workspace_purpose {};
}  // namespace detail

/// The workspace of plan P for `lhs = rhs`: remembered per version of the operands (the
/// signature `statistics_cache` checks: every array's address and size) and output extents,
/// else estimated from their statistics. Not the plans' coarse signature: two inputs of the same
/// magnitudes can want different kinds (100 or 600 000 distinct keys among a million writes: a
/// hash table 10x faster than a sort, or a sort 1.6x faster than the table), and telling them
/// apart needs their statistics. `loom::scoped_workspace` overrides it.
template <class P, class Lhs, class Rhs>
workspace_choice cached_workspace_choice(const Lhs& lhs, const Rhs& rhs) {
  if (loom::detail::forced_workspace) {
    workspace_choice forced;
    forced.kind = *loom::detail::forced_workspace;
    return forced;
  }
  struct cache {
    std::map<std::vector<std::uintptr_t>, workspace_choice> chosen;
    statistics_cache stats;
  };
  thread_local cache c;
  thread_local std::vector<std::uintptr_t> key;  // reused: a cache hit allocates nothing
  key.clear();
  expr::for_each_access(rhs, [&](const auto& a, std::size_t) { statistics_cache::append_signature(key, *a.tensor); });
  using out_t = std::remove_const_t<std::remove_pointer_t<decltype(lhs.tensor)>>;
  for (std::size_t m = 0; m < out_t::order; ++m) key.push_back(static_cast<std::uintptr_t>(lhs.tensor->extent(m)));
  if (const auto it = c.chosen.find(key); it != c.chosen.end()) return it->second;
  if (c.chosen.size() >= 256) {  // bounded: a choice is cheap to make again
    c.chosen.clear();
    c.stats.clear();
  }
  const workspace_choice w = choose_workspace(estimate_workspace<P>(lhs, rhs, c.stats));
#ifdef LOOM_DEBUG_PLAN
  std::clog << "loom: output written through a " << describe_workspace_choice(w) << "\n";
#endif
  c.chosen.emplace(key, w);
  return w;
}

}  // namespace loom::optimize

#endif  // LOOM_OPTIMIZE_WORKSPACE_CHOICE_HPP
// ---- end <loom/optimize/workspace_choice.hpp>
// ---- begin <loom/plan/pattern.hpp>
// Defines loom::plan::pattern_of: whether a kernel's sparse output has the pattern of one of its
// operands (SDDMM, a scaling, a product with dense factors), so that the output copies that
// operand's positions and coordinates and computes values only (plan/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_PLAN_PATTERN_HPP
#define LOOM_PLAN_PATTERN_HPP


#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <type_traits>

namespace loom::plan {

namespace detail {
struct pattern_walk {
  bool ok = true;             // only products, sums over non-output indices, literals
  std::size_t matches = 0;    // accesses that carry the output's pattern
  std::size_t accesses = 0;   // accesses seen (the next one's ordinal)
  std::size_t ordinal = 0;    // the matching access's ordinal
};

template <class Out, class OutIndices, class E>
struct pattern_node {
  static constexpr void walk(pattern_walk& w) { w.ok = false; }
};
template <class Out, class OutIndices, class V>
struct pattern_node<Out, OutIndices, expr::literal<V>> {
  static constexpr void walk(pattern_walk&) {}
};
// the output's tensor type read with the output's indices in order: the pattern's operand; an
// all-dense operand: a factor located at each entry; any other operand may drop entries
template <class Out, class OutIndices, class T, class... Is>
struct pattern_node<Out, OutIndices, expr::access<T, Is...>> {
  static constexpr void walk(pattern_walk& w) {
    using tensor_t = std::remove_const_t<T>;
    if constexpr (std::is_same_v<tensor_t, Out> &&
                  std::is_same_v<boost::mp11::mp_list<Is...>, OutIndices>) {
      ++w.matches;
      w.ordinal = w.accesses;
    } else if constexpr (!tensor_t::format_type::all_dense) {
      w.ok = false;
    }
    ++w.accesses;
  }
};
template <class Out, class OutIndices, class L, class R>
struct pattern_node<Out, OutIndices, expr::mul<L, R>> {
  static constexpr void walk(pattern_walk& w) {
    pattern_node<Out, OutIndices, L>::walk(w);
    pattern_node<Out, OutIndices, R>::walk(w);
  }
};
template <class Out, class OutIndices, class I, class E>
struct pattern_node<Out, OutIndices, expr::sum<I, E>> {
  static constexpr void walk(pattern_walk& w) {
    if constexpr (boost::mp11::mp_contains<OutIndices, I>::value) w.ok = false;
    pattern_node<Out, OutIndices, E>::walk(w);
  }
};
}  // namespace detail

/// For `lhs = rhs` with a sparse owning output: whether the output's pattern is exactly that of
/// one operand (`shares`), and that operand's ordinal among the accesses (`ordinal`). True when
/// rhs is a product of that operand, read with the output's indices in order and stored in the
/// output's very type, with all-dense operands and literals, summed over other indices only:
/// every entry of the operand yields one output entry (the caller checks the count), in order.
template <class Lhs, class Rhs>
struct pattern_of {
 private:
  using out_t = std::remove_const_t<std::remove_pointer_t<decltype(std::declval<Lhs>().tensor)>>;
  static constexpr detail::pattern_walk w = [] {
    detail::pattern_walk x;
    detail::pattern_node<out_t, expr::free_indices_t<Lhs>, Rhs>::walk(x);
    return x;
  }();

 public:
  static constexpr bool shares = !out_t::format_type::all_dense && out_t::owning && w.ok && w.matches == 1;
  static constexpr std::size_t ordinal = w.ordinal;
};

}  // namespace loom::plan

#endif  // LOOM_PLAN_PATTERN_HPP
// ---- end <loom/plan/pattern.hpp>
// ---- begin <loom/rewrite/for_evaluation.hpp>
// Defines loom::rewrite::for_evaluation(e): the always-profitable rules to a fixpoint, then the
// static constants turned into literals; what the evaluator runs (rewrite/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_FOR_EVALUATION_HPP
#define LOOM_REWRITE_FOR_EVALUATION_HPP

// ---- begin <loom/rewrite/engine.hpp>
// Defines the rewrite engine: loom::rewrite::rewrite<Rules>(e) applies a rule set bottom-up,
// pass after pass, to a fixpoint (bounded), and records the rules that fired (rewrite/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_ENGINE_HPP
#define LOOM_REWRITE_ENGINE_HPP

// ---- begin <loom/rewrite/constants.hpp>
// Defines loom::rewrite::zero and loom::rewrite::one, the statically known constants the rules
// create and eliminate (rewrite/). They never reach the evaluator: finalize() turns them away.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_CONSTANTS_HPP
#define LOOM_REWRITE_CONSTANTS_HPP


#include <boost/mp11/list.hpp>

namespace loom::rewrite {

/// The semiring's 0, known at compile time (annihilates *, neutral for +).
struct zero {};
/// The semiring's 1, known at compile time (neutral for *).
struct one {};

}  // namespace loom::rewrite

// The traits rules consult (free and summed indices, accesses): constants have none.
namespace loom::expr::detail {
template <>
struct free_indices<rewrite::zero> {
  using type = boost::mp11::mp_list<>;
};
template <>
struct free_indices<rewrite::one> {
  using type = boost::mp11::mp_list<>;
};
}  // namespace loom::expr::detail

#endif  // LOOM_REWRITE_CONSTANTS_HPP
// ---- end <loom/rewrite/constants.hpp>
// ---- begin <loom/rewrite/rule.hpp>
// Defines the rewrite_rule concept and rule_applies_to: a rule is a struct with a `name` and
// `apply` overloads whose parameter is the pattern and whose result is the replacement (rewrite/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULE_HPP
#define LOOM_REWRITE_RULE_HPP

#include <concepts>
#include <utility>
#include <string_view>

namespace loom {

/// A rewrite rule: a named struct; its static `apply(const Node&)` overloads match node types
/// (overload resolution is the matcher, `requires` the side condition).
template <class R>
concept rewrite_rule = requires {
  { R::name } -> std::convertible_to<std::string_view>;
};

/// Whether rule R rewrites a node of type E (false, never a hard error, when it does not).
template <class R, class E>
concept rule_applies_to = rewrite_rule<R> && requires(const E& e) { R::apply(e); };

/// The node R makes of an E.
template <class R, class E>
  requires rule_applies_to<R, E>
using apply_rule_t = decltype(R::apply(std::declval<const E&>()));

}  // namespace loom

#endif  // LOOM_REWRITE_RULE_HPP
// ---- end <loom/rewrite/rule.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>

#ifndef LOOM_REWRITE_MAX_PASSES
#  define LOOM_REWRITE_MAX_PASSES 64
#endif

namespace loom::diag {
// Instantiated when a rule set does not reach a fixpoint: shows the expression it cycles on.
// Do not define.
template <class Expression>
struct rewrite_rules_did_not_reach_a_fixpoint;
}  // namespace loom::diag

namespace loom::rewrite {

using boost::mp11::mp_list;

/// The most bottom-up passes the engine makes before it reports a cycle.
inline constexpr std::size_t max_passes = LOOM_REWRITE_MAX_PASSES;

/// An expression and the rules that fired to produce it (an MP11 list, in firing order).
template <class E, class Fired>
struct traced {
  E expr;
  using expression_type = E;
  using fired = Fired;
};

namespace detail {

template <class... Ts>
using cat = boost::mp11::mp_append<mp_list<>, typename Ts::fired...>;

template <class Rules, class E>
constexpr auto pass(const E& e);

// children(e): e with every operand rewritten by one pass
template <class Rules, class E>
constexpr auto children(const E& e) {  // leaves: access, literal, constants
  return traced<E, mp_list<>>{e};
}
template <class Rules, class L, class R>
constexpr auto children(const expr::add<L, R>& e) {
  auto l = pass<Rules>(e.lhs);
  auto r = pass<Rules>(e.rhs);
  using N = expr::add<decltype(l.expr), decltype(r.expr)>;
  return traced<N, cat<decltype(l), decltype(r)>>{N{l.expr, r.expr}};
}
template <class Rules, class L, class R>
constexpr auto children(const expr::mul<L, R>& e) {
  auto l = pass<Rules>(e.lhs);
  auto r = pass<Rules>(e.rhs);
  using N = expr::mul<decltype(l.expr), decltype(r.expr)>;
  return traced<N, cat<decltype(l), decltype(r)>>{N{l.expr, r.expr}};
}
template <class Rules, class P, class B>
constexpr auto children(const expr::where<P, B>& e) {
  auto p = pass<Rules>(e.pred);
  auto b = pass<Rules>(e.body);
  using N = expr::where<decltype(p.expr), decltype(b.expr)>;
  return traced<N, cat<decltype(p), decltype(b)>>{N{p.expr, b.expr}};
}
template <class Rules, class I, class B>
constexpr auto children(const expr::sum<I, B>& e) {
  auto b = pass<Rules>(e.body);
  using N = expr::sum<I, decltype(b.expr)>;
  return traced<N, cat<decltype(b)>>{N{b.expr}};
}
template <class Rules, class I, class B>
constexpr auto children(const expr::expand<I, B>& e) {
  auto b = pass<Rules>(e.body);
  using N = expr::expand<I, decltype(b.expr)>;
  return traced<N, cat<decltype(b)>>{N{b.expr}};
}
template <class Rules, class F, class A>
constexpr auto children(const expr::map<F, A>& e) {
  auto a = pass<Rules>(std::get<0>(e.args));
  using N = expr::map<F, decltype(a.expr)>;
  return traced<N, cat<decltype(a)>>{N{e.f, {a.expr}}};
}
template <class Rules, class F, class A, class B>
constexpr auto children(const expr::map<F, A, B>& e) {
  auto a = pass<Rules>(std::get<0>(e.args));
  auto b = pass<Rules>(std::get<1>(e.args));
  using N = expr::map<F, decltype(a.expr), decltype(b.expr)>;
  return traced<N, cat<decltype(a), decltype(b)>>{N{e.f, {a.expr, b.expr}}};
}

template <class E>
struct applies {
  template <class R>
  using fn = boost::mp11::mp_bool<rule_applies_to<R, E>>;
};

// The first rule of the list (list order is priority) that matches the node, applied once.
template <class Rules, class E, class Fired>
constexpr auto at_node(const traced<E, Fired>& t) {
  using k = boost::mp11::mp_find_if_q<Rules, applies<E>>;
  if constexpr (k::value == boost::mp11::mp_size<Rules>::value) {
    return t;
  } else {
    using R = boost::mp11::mp_at<Rules, k>;
    auto out = R::apply(t.expr);
    return traced<decltype(out), boost::mp11::mp_push_back<Fired, R>>{out};
  }
}

template <class Rules, class E>
constexpr auto pass(const E& e) {
  return at_node<Rules>(children<Rules>(e));
}

template <class Rules, std::size_t Left, class E, class Fired>
constexpr auto fixpoint(const E& e, Fired) {
  auto next = pass<Rules>(e);
  using step_fired = typename decltype(next)::fired;
  if constexpr (boost::mp11::mp_empty<step_fired>::value) {
    return traced<E, Fired>{e};
  } else if constexpr (Left == 0) {
    static_assert(Left != 0,
                  "loom::rewrite: the rule set did not reach a fixpoint within "
                  "LOOM_REWRITE_MAX_PASSES passes; two of its rules undo each other");
    diag::rewrite_rules_did_not_reach_a_fixpoint<E>{};
    return traced<E, Fired>{e};
  } else {
    return fixpoint<Rules, Left - 1>(next.expr, boost::mp11::mp_append<Fired, step_fired>{});
  }
}

}  // namespace detail

/// `e` rewritten by `Rules` (an MP11 list of rules, first = highest priority) to a fixpoint:
/// each pass visits the tree bottom-up and applies the first matching rule at every node.
/// Returns a `traced` value: `.expr` is the result, `::fired` the rules in firing order.
template <class Rules, std::size_t MaxPasses = max_passes, class E>
constexpr auto rewrite(const E& e) {
  return detail::fixpoint<Rules, MaxPasses>(e, mp_list<>{});
}

/// The type `rewrite<Rules>` makes of an E.
template <class E, class Rules>
using rewrite_t = typename decltype(rewrite<Rules>(std::declval<const E&>()))::expression_type;

/// The rules that fired rewriting an E, in order (a rule fires once per match).
template <class E, class Rules>
using fired_t = typename decltype(rewrite<Rules>(std::declval<const E&>()))::fired;

/// The names of the rules in `Fired`, comma separated ("" when none fired).
template <class Fired>
std::string fired_names() {
  std::string s;
  boost::mp11::mp_for_each<boost::mp11::mp_transform<std::type_identity, Fired>>([&](auto r) {
    s += (s.empty() ? "" : ", ") + std::string(decltype(r)::type::name);
  });
  return s;
}

}  // namespace loom::rewrite

#endif  // LOOM_REWRITE_ENGINE_HPP
// ---- end <loom/rewrite/engine.hpp>
// ---- begin <loom/rewrite/rule_sets.hpp>
// Defines the rule sets (MP11 lists; list order is priority): always_profitable, which the
// evaluator applies to every kernel, and sum_product_normal_form (rewrite/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULE_SETS_HPP
#define LOOM_REWRITE_RULE_SETS_HPP

// ---- begin <loom/rewrite/rules/add_zero.hpp>
// Defines loom::rules::add_zero: 0 is neutral for + (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_ADD_ZERO_HPP
#define LOOM_REWRITE_RULES_ADD_ZERO_HPP


#include <string_view>

namespace loom::rules {

// add_zero:  0 + x  ==>  x,   x + 0  ==>  x
struct add_zero {
  static constexpr std::string_view name = "add_zero";
  template <class X>
  static constexpr auto apply(const expr::add<rewrite::zero, X>& e) -> X { return e.rhs; }
  template <class X>
  static constexpr auto apply(const expr::add<X, rewrite::zero>& e) -> X { return e.lhs; }
  static constexpr auto apply(const expr::add<rewrite::zero, rewrite::zero>&) -> rewrite::zero {
    return {};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_ADD_ZERO_HPP
// ---- end <loom/rewrite/rules/add_zero.hpp>
// ---- begin <loom/rewrite/rules/distribute.hpp>
// Defines loom::rules::distribute: * distributes over + (towards the sum-of-products form; not
// always profitable, so only the normal-form rule set uses it) (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_DISTRIBUTE_HPP
#define LOOM_REWRITE_RULES_DISTRIBUTE_HPP


#include <string_view>

namespace loom::rules {

// distribute:  (a + b) * c  ==>  a * c + b * c,    c * (a + b)  ==>  c * a + c * b
struct distribute {
  static constexpr std::string_view name = "distribute";
  template <class A, class B, class C>
  static constexpr auto apply(const expr::mul<expr::add<A, B>, C>& e)
      -> expr::add<expr::mul<A, C>, expr::mul<B, C>> {
    return {{e.lhs.lhs, e.rhs}, {e.lhs.rhs, e.rhs}};
  }
  template <class A, class B, class C>
  static constexpr auto apply(const expr::mul<C, expr::add<A, B>>& e)
      -> expr::add<expr::mul<C, A>, expr::mul<C, B>> {
    return {{e.lhs, e.rhs.lhs}, {e.lhs, e.rhs.rhs}};
  }
  template <class A, class B, class C, class D>  // both sides are sums: split the left first
  static constexpr auto apply(const expr::mul<expr::add<A, B>, expr::add<C, D>>& e)
      -> expr::add<expr::mul<A, expr::add<C, D>>, expr::mul<B, expr::add<C, D>>> {
    return {{e.lhs.lhs, e.rhs}, {e.lhs.rhs, e.rhs}};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_DISTRIBUTE_HPP
// ---- end <loom/rewrite/rules/distribute.hpp>
// ---- begin <loom/rewrite/rules/double_negation.hpp>
// Defines loom::rules::double_negation: -(-x) is x (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_DOUBLE_NEGATION_HPP
#define LOOM_REWRITE_RULES_DOUBLE_NEGATION_HPP


#include <string_view>
#include <tuple>

namespace loom::rules {

// double_negation:  -(-x)  ==>  x
struct double_negation {
  static constexpr std::string_view name = "double_negation";
  template <class X>
  static constexpr auto apply(const expr::map<fn::negate, expr::map<fn::negate, X>>& e) -> X {
    return std::get<0>(std::get<0>(e.args).args);
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_DOUBLE_NEGATION_HPP
// ---- end <loom/rewrite/rules/double_negation.hpp>
// ---- begin <loom/rewrite/rules/flatten_product.hpp>
// Defines loom::rules::flatten_product: products and additions associate to the right, so a
// chain of factors (or terms) has one shape (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_FLATTEN_PRODUCT_HPP
#define LOOM_REWRITE_RULES_FLATTEN_PRODUCT_HPP


#include <string_view>

namespace loom::rules {

// flatten_product:  (a * b) * c  ==>  a * (b * c),    (a + b) + c  ==>  a + (b + c)
struct flatten_product {
  static constexpr std::string_view name = "flatten_product";
  template <class A, class B, class C>
  static constexpr auto apply(const expr::mul<expr::mul<A, B>, C>& e)
      -> expr::mul<A, expr::mul<B, C>> {
    return {e.lhs.lhs, {e.lhs.rhs, e.rhs}};
  }
  template <class A, class B, class C>
  static constexpr auto apply(const expr::add<expr::add<A, B>, C>& e)
      -> expr::add<A, expr::add<B, C>> {
    return {e.lhs.lhs, {e.lhs.rhs, e.rhs}};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_FLATTEN_PRODUCT_HPP
// ---- end <loom/rewrite/rules/flatten_product.hpp>
// ---- begin <loom/rewrite/rules/fold_constants.hpp>
// Defines loom::rules::fold_constants: operations on literals computed once, at rewrite time
// (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_FOLD_CONSTANTS_HPP
#define LOOM_REWRITE_RULES_FOLD_CONSTANTS_HPP


#include <string_view>
#include <tuple>

namespace loom::rules {

// fold_constants:  a * b ==> (a×b),   a + b ==> (a+b),   f(a) ==> (f(a)),   f(a, b) ==> (f(a, b)),
//                  a * (b * x) ==> (a×b) * x            for literals a, b (in the semiring)
struct fold_constants {
  static constexpr std::string_view name = "fold_constants";
  template <class A, class B, class V = expr::value_type_t<expr::mul<expr::literal<A>, expr::literal<B>>>>
  static constexpr auto apply(const expr::mul<expr::literal<A>, expr::literal<B>>& e)
      -> expr::literal<V> {
    return {semiring_traits<V>::mul(static_cast<V>(e.lhs.value), static_cast<V>(e.rhs.value))};
  }
  template <class A, class B, class V = expr::value_type_t<expr::add<expr::literal<A>, expr::literal<B>>>>
  static constexpr auto apply(const expr::add<expr::literal<A>, expr::literal<B>>& e)
      -> expr::literal<V> {
    return {semiring_traits<V>::add(static_cast<V>(e.lhs.value), static_cast<V>(e.rhs.value))};
  }
  template <class A, class B, class X,
            class V = expr::value_type_t<expr::mul<expr::literal<A>, expr::literal<B>>>>
  static constexpr auto apply(const expr::mul<expr::literal<A>, expr::mul<expr::literal<B>, X>>& e)
      -> expr::mul<expr::literal<V>, X> {
    return {{semiring_traits<V>::mul(static_cast<V>(e.lhs.value), static_cast<V>(e.rhs.lhs.value))},
            e.rhs.rhs};
  }
  template <class F, class T>
    requires requires(const F& f, T v) { { f(v) } -> std::convertible_to<T>; }
  static constexpr auto apply(const expr::map<F, expr::literal<T>>& e) -> expr::literal<T> {
    return {static_cast<T>(e.f(std::get<0>(e.args).value))};
  }
  template <class F, class A, class B,
            class V = expr::value_type_t<expr::mul<expr::literal<A>, expr::literal<B>>>>
    requires requires(const F& f, V v) { { f(v, v) } -> std::convertible_to<V>; }
  static constexpr auto apply(const expr::map<F, expr::literal<A>, expr::literal<B>>& e)
      -> expr::literal<V> {
    return {static_cast<V>(e.f(static_cast<V>(std::get<0>(e.args).value),
                               static_cast<V>(std::get<1>(e.args).value)))};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_FOLD_CONSTANTS_HPP
// ---- end <loom/rewrite/rules/fold_constants.hpp>
// ---- begin <loom/rewrite/rules/lift_sum.hpp>
// Defines loom::rules::lift_sum: a sum factor of a product is lifted over the whole product
// (the direction of the sum-product normal form, Σ outermost) (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_LIFT_SUM_HPP
#define LOOM_REWRITE_RULES_LIFT_SUM_HPP

// ---- begin <loom/rewrite/patterns.hpp>
// Defines the small predicates rule side conditions share: which indices a subexpression uses,
// whether a node is a static constant (rewrite/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_PATTERNS_HPP
#define LOOM_REWRITE_PATTERNS_HPP


#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/set.hpp>

#include <type_traits>

namespace loom::rewrite {

/// Whether index I is free in E.
template <class E, class I>
inline constexpr bool uses_v = boost::mp11::mp_contains<expr::free_indices_t<E>, I>::value;

/// Whether index I occurs in E at all (free or bound by a sum inside it).
template <class E, class I>
inline constexpr bool mentions_v =
    uses_v<E, I> || boost::mp11::mp_contains<expr::summed_indices_t<E>, I>::value;

/// Whether E is one of the static constants.
template <class E>
inline constexpr bool is_constant_v = std::is_same_v<E, zero> || std::is_same_v<E, one>;

template <class E>
struct is_literal : std::false_type {};
template <class T>
struct is_literal<expr::literal<T>> : std::true_type {};

/// Index variables ordered by name (the canonical order of a block of sums).
template <class I, class J>
inline constexpr bool index_before_v = I::name < J::name;

}  // namespace loom::rewrite

#endif  // LOOM_REWRITE_PATTERNS_HPP
// ---- end <loom/rewrite/patterns.hpp>

#include <string_view>

namespace loom::rules {

// lift_sum:  sum(i, a) * b  ==>  sum(i, a * b)     if i does not occur in b
//            a * sum(i, b)  ==>  sum(i, a * b)     if i does not occur in a
// (the side condition keeps bound names apart: rename first when both sides bind i)
struct lift_sum {
  static constexpr std::string_view name = "lift_sum";
  template <class I, class A, class B>
    requires(!rewrite::mentions_v<B, I>)
  static constexpr auto apply(const expr::mul<expr::sum<I, A>, B>& e)
      -> expr::sum<I, expr::mul<A, B>> {
    return {{e.lhs.body, e.rhs}};
  }
  template <class I, class A, class B>
    requires(!rewrite::mentions_v<A, I>)
  static constexpr auto apply(const expr::mul<A, expr::sum<I, B>>& e)
      -> expr::sum<I, expr::mul<A, B>> {
    return {{e.lhs, e.rhs.body}};
  }
  template <class I, class A, class J, class B>  // both sides are sums: lift the left one first
    requires(!rewrite::mentions_v<expr::sum<J, B>, I>)
  static constexpr auto apply(const expr::mul<expr::sum<I, A>, expr::sum<J, B>>& e)
      -> expr::sum<I, expr::mul<A, expr::sum<J, B>>> {
    return {{e.lhs.body, e.rhs}};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_LIFT_SUM_HPP
// ---- end <loom/rewrite/rules/lift_sum.hpp>
// ---- begin <loom/rewrite/rules/merge_sums.hpp>
// Defines loom::rules::merge_sums: nested sums form one block with its indices in canonical
// (name) order, so equal blocks written in different orders meet (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_MERGE_SUMS_HPP
#define LOOM_REWRITE_RULES_MERGE_SUMS_HPP


#include <string_view>

namespace loom::rules {

// merge_sums:  sum(i, sum(j, x))  ==>  sum(j, sum(i, x))   if j sorts before i
// (Σ_i Σ_j = Σ_{i,j} = Σ_j Σ_i: the block is one multi-index sum, kept sorted)
struct merge_sums {
  static constexpr std::string_view name = "merge_sums";
  template <class I, class J, class X>
    requires rewrite::index_before_v<J, I>
  static constexpr auto apply(const expr::sum<I, expr::sum<J, X>>& e)
      -> expr::sum<J, expr::sum<I, X>> {
    return {{e.body.body}};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_MERGE_SUMS_HPP
// ---- end <loom/rewrite/rules/merge_sums.hpp>
// ---- begin <loom/rewrite/rules/mul_by_one.hpp>
// Defines loom::rules::mul_by_one: 1 is neutral for * (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_MUL_BY_ONE_HPP
#define LOOM_REWRITE_RULES_MUL_BY_ONE_HPP


#include <string_view>

namespace loom::rules {

// mul_by_one:  1 * x  ==>  x,   x * 1  ==>  x
struct mul_by_one {
  static constexpr std::string_view name = "mul_by_one";
  template <class X>
  static constexpr auto apply(const expr::mul<rewrite::one, X>& e) -> X { return e.rhs; }
  template <class X>
  static constexpr auto apply(const expr::mul<X, rewrite::one>& e) -> X { return e.lhs; }
  static constexpr auto apply(const expr::mul<rewrite::one, rewrite::one>&) -> rewrite::one {
    return {};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_MUL_BY_ONE_HPP
// ---- end <loom/rewrite/rules/mul_by_one.hpp>
// ---- begin <loom/rewrite/rules/mul_by_zero.hpp>
// Defines loom::rules::mul_by_zero: 0 annihilates * and where (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_MUL_BY_ZERO_HPP
#define LOOM_REWRITE_RULES_MUL_BY_ZERO_HPP


#include <string_view>

namespace loom::rules {

// mul_by_zero:  0 * x  ==>  0,   x * 0  ==>  0,   where(0, x) ==> 0,   where(p, 0) ==> 0
// (0 annihilates × in every semiring loom supports)
struct mul_by_zero {
  static constexpr std::string_view name = "mul_by_zero";
  template <class X>
  static constexpr auto apply(const expr::mul<rewrite::zero, X>&) -> rewrite::zero { return {}; }
  template <class X>
  static constexpr auto apply(const expr::mul<X, rewrite::zero>&) -> rewrite::zero { return {}; }
  template <class X>
  static constexpr auto apply(const expr::where<rewrite::zero, X>&) -> rewrite::zero { return {}; }
  template <class X>
  static constexpr auto apply(const expr::where<X, rewrite::zero>&) -> rewrite::zero { return {}; }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_MUL_BY_ZERO_HPP
// ---- end <loom/rewrite/rules/mul_by_zero.hpp>
// ---- begin <loom/rewrite/rules/negation_outward.hpp>
// Defines loom::rules::negation_outward: a negation moves out of products and sums and into
// additions, so every term of a sum of products carries its sign at its root (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_NEGATION_OUTWARD_HPP
#define LOOM_REWRITE_RULES_NEGATION_OUTWARD_HPP


#include <string_view>
#include <tuple>

namespace loom::rules {

namespace detail {
template <class X>
using neg = expr::map<fn::negate, X>;
template <class X>
constexpr neg<X> negate(const X& x) {
  return {fn::negate{}, std::tuple<X>{x}};
}
template <class X>
constexpr const X& operand(const neg<X>& n) {
  return std::get<0>(n.args);
}
}  // namespace detail

// negation_outward:  (-a) * b ==> -(a * b),   a * (-b) ==> -(a * b),   (-a) * (-b) ==> a * b,
//                    sum(i, -a) ==> -sum(i, a),   -(a + b) ==> (-a) + (-b)
struct negation_outward {
  static constexpr std::string_view name = "negation_outward";
  template <class A, class B>
  static constexpr auto apply(const expr::mul<detail::neg<A>, B>& e)
      -> detail::neg<expr::mul<A, B>> {
    return detail::negate(expr::mul<A, B>{detail::operand(e.lhs), e.rhs});
  }
  template <class A, class B>
  static constexpr auto apply(const expr::mul<A, detail::neg<B>>& e)
      -> detail::neg<expr::mul<A, B>> {
    return detail::negate(expr::mul<A, B>{e.lhs, detail::operand(e.rhs)});
  }
  template <class A, class B>
  static constexpr auto apply(const expr::mul<detail::neg<A>, detail::neg<B>>& e)
      -> expr::mul<A, B> {
    return {detail::operand(e.lhs), detail::operand(e.rhs)};
  }
  template <class I, class A>
  static constexpr auto apply(const expr::sum<I, detail::neg<A>>& e)
      -> detail::neg<expr::sum<I, A>> {
    return detail::negate(expr::sum<I, A>{detail::operand(e.body)});
  }
  template <class A, class B>
  static constexpr auto apply(const detail::neg<expr::add<A, B>>& e)
      -> expr::add<detail::neg<A>, detail::neg<B>> {
    return {detail::negate(detail::operand(e).lhs), detail::negate(detail::operand(e).rhs)};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_NEGATION_OUTWARD_HPP
// ---- end <loom/rewrite/rules/negation_outward.hpp>
// ---- begin <loom/rewrite/rules/push_sum.hpp>
// Defines loom::rules::push_sum: a sum moves past the factors of a product that do not use its
// index (factorisation: fewer multiplications per reduced value) (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_PUSH_SUM_HPP
#define LOOM_REWRITE_RULES_PUSH_SUM_HPP


#include <string_view>

namespace loom::rules {

// push_sum:  sum(i, a * b)          ==>  a * sum(i, b)          if i not in a, i in b
//            sum(i, a * b)          ==>  sum(i, a) * b          if i in a, i not in b
//            sum(i, (a * b) * c)    ==>  a * sum(i, b * c)      if i not in a, i in b
//            sum(i, (a * b) * c)    ==>  b * sum(i, a * c)      if i in a, i not in b
//            sum(i, sum(j, a * b))  ==>  sum(j, a * sum(i, b))  if i not in a, i in b
struct push_sum {
  static constexpr std::string_view name = "push_sum";
  template <class I, class A, class B>
    requires(!rewrite::uses_v<A, I> && rewrite::uses_v<B, I>)
  static constexpr auto apply(const expr::sum<I, expr::mul<A, B>>& e)
      -> expr::mul<A, expr::sum<I, B>> {
    return {e.body.lhs, {e.body.rhs}};
  }
  template <class I, class A, class B>
    requires(rewrite::uses_v<A, I> && !rewrite::uses_v<B, I>)
  static constexpr auto apply(const expr::sum<I, expr::mul<A, B>>& e)
      -> expr::mul<expr::sum<I, A>, B> {
    return {{e.body.lhs}, e.body.rhs};
  }
  template <class I, class A, class B, class C>  // a factor of a left-nested product
    requires(!rewrite::uses_v<A, I> && rewrite::uses_v<B, I>)
  static constexpr auto apply(const expr::sum<I, expr::mul<expr::mul<A, B>, C>>& e)
      -> expr::mul<A, expr::sum<I, expr::mul<B, C>>> {
    return {e.body.lhs.lhs, {{e.body.lhs.rhs, e.body.rhs}}};
  }
  template <class I, class A, class B, class C>
    requires(rewrite::uses_v<A, I> && !rewrite::uses_v<B, I>)
  static constexpr auto apply(const expr::sum<I, expr::mul<expr::mul<A, B>, C>>& e)
      -> expr::mul<B, expr::sum<I, expr::mul<A, C>>> {
    return {e.body.lhs.rhs, {{e.body.lhs.lhs, e.body.rhs}}};
  }
  template <class I, class J, class A, class B>
    requires(!rewrite::uses_v<A, I> && rewrite::uses_v<B, I>)
  static constexpr auto apply(const expr::sum<I, expr::sum<J, expr::mul<A, B>>>& e)
      -> expr::sum<J, expr::mul<A, expr::sum<I, B>>> {
    return {{e.body.body.lhs, {e.body.body.rhs}}};
  }
  template <class I, class J, class A, class B>
    requires(rewrite::uses_v<A, I> && !rewrite::uses_v<B, I>)
  static constexpr auto apply(const expr::sum<I, expr::sum<J, expr::mul<A, B>>>& e)
      -> expr::sum<J, expr::mul<expr::sum<I, A>, B>> {
    return {{{e.body.body.lhs}, e.body.body.rhs}};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_PUSH_SUM_HPP
// ---- end <loom/rewrite/rules/push_sum.hpp>
// ---- begin <loom/rewrite/rules/split_sum.hpp>
// Defines loom::rules::split_sum: a sum distributes over + (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_SPLIT_SUM_HPP
#define LOOM_REWRITE_RULES_SPLIT_SUM_HPP


#include <string_view>

namespace loom::rules {

// split_sum:  sum(i, a + b)  ==>  sum(i, a) + sum(i, b)
struct split_sum {
  static constexpr std::string_view name = "split_sum";
  template <class I, class A, class B>
  static constexpr auto apply(const expr::sum<I, expr::add<A, B>>& e)
      -> expr::add<expr::sum<I, A>, expr::sum<I, B>> {
    return {{e.body.lhs}, {e.body.rhs}};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_SPLIT_SUM_HPP
// ---- end <loom/rewrite/rules/split_sum.hpp>
// ---- begin <loom/rewrite/rules/sum_absent.hpp>
// Defines loom::rules::sum_absent: a sum over an index its body does not use is the body times
// the index's extent, kept as the count factor sum(i, 1) (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_SUM_ABSENT_HPP
#define LOOM_REWRITE_RULES_SUM_ABSENT_HPP


#include <string_view>
#include <type_traits>

namespace loom::rules {

// sum_absent:  sum(i, x)  ==>  sum(i, 1) * x     if i is not free in x
// (the count sum(i, 1) = extent(i) is a scalar factor the later rules move freely; the evaluator
// computes it from the extent of i)
struct sum_absent {
  static constexpr std::string_view name = "sum_absent";
  template <class I, class X>
    requires(!rewrite::uses_v<X, I> && !rewrite::is_constant_v<X>)
  static constexpr auto apply(const expr::sum<I, X>& e)
      -> expr::mul<expr::sum<I, rewrite::one>, X> {
    return {{}, e.body};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_SUM_ABSENT_HPP
// ---- end <loom/rewrite/rules/sum_absent.hpp>
// ---- begin <loom/rewrite/rules/zero_propagation.hpp>
// Defines loom::rules::zero_propagation: sums, broadcasts and zero-preserving maps of 0 are 0
// (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_ZERO_PROPAGATION_HPP
#define LOOM_REWRITE_RULES_ZERO_PROPAGATION_HPP


#include <string_view>

namespace loom::rules {

// zero_propagation:  sum(i, 0) ==> 0,   expand(i, 0) ==> 0,   f(0) ==> 0  if f(0) = 0 statically
struct zero_propagation {
  static constexpr std::string_view name = "zero_propagation";
  template <class I>
  static constexpr auto apply(const expr::sum<I, rewrite::zero>&) -> rewrite::zero { return {}; }
  template <class I>
  static constexpr auto apply(const expr::expand<I, rewrite::zero>&) -> rewrite::zero {
    return {};
  }
  template <class F>
    requires fn::is_zero_preserving_v<F>
  static constexpr auto apply(const expr::map<F, rewrite::zero>&) -> rewrite::zero { return {}; }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_ZERO_PROPAGATION_HPP
// ---- end <loom/rewrite/rules/zero_propagation.hpp>

#include <boost/mp11/list.hpp>

namespace loom::rewrite {

/// The zero and one laws and constant folding.
using constant_laws = boost::mp11::mp_list<rules::mul_by_zero, rules::add_zero, rules::mul_by_one,
                                           rules::zero_propagation, rules::fold_constants,
                                           rules::double_negation>;

/// Rules that never make a kernel slower; the evaluator applies them to every assignment.
using always_profitable =
    boost::mp11::mp_append<constant_laws,
                           boost::mp11::mp_list<rules::sum_absent, rules::split_sum,
                                                rules::push_sum, rules::merge_sums>>;

/// Towards the sum-of-products normal form: a sum of signed terms, each a block of sums (in
/// name order) over a right-associated product.
using sum_product_normal_form = boost::mp11::mp_append<
    constant_laws,
    boost::mp11::mp_list<rules::negation_outward, rules::distribute, rules::split_sum,
                         rules::lift_sum, rules::flatten_product, rules::merge_sums>>;

}  // namespace loom::rewrite

#endif  // LOOM_REWRITE_RULE_SETS_HPP
// ---- end <loom/rewrite/rule_sets.hpp>
// ---- begin <loom/rewrite/rules/constants_to_literals.hpp>
// Defines loom::rules::constants_to_literals<V>: the static constants left after rewriting
// become literals of the kernel's value type, which the evaluator understands (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_CONSTANTS_TO_LITERALS_HPP
#define LOOM_REWRITE_RULES_CONSTANTS_TO_LITERALS_HPP


#include <string_view>

namespace loom::rules {

// constants_to_literals<V>:  0 ==> literal<V>(zero),   1 ==> literal<V>(one)
template <class V>
struct constants_to_literals {
  static constexpr std::string_view name = "constants_to_literals";
  static constexpr auto apply(const rewrite::zero&) -> expr::literal<V> {
    return {semiring_traits<V>::zero()};
  }
  static constexpr auto apply(const rewrite::one&) -> expr::literal<V> {
    return {semiring_traits<V>::one()};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_CONSTANTS_TO_LITERALS_HPP
// ---- end <loom/rewrite/rules/constants_to_literals.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>
#include <boost/mp11/set.hpp>

#include <type_traits>

namespace loom::rewrite {

/// `e` under `always_profitable`, ready for the evaluator; `::fired` lists the rules applied.
template <class E>
constexpr auto for_evaluation(const E& e) {
  auto r = rewrite<always_profitable>(e);
  auto f = rewrite<boost::mp11::mp_list<rules::constants_to_literals<expr::value_type_t<E>>>>(r.expr);
  return traced<decltype(f.expr), typename decltype(r)::fired>{f.expr};
}

/// The expression type the evaluator runs for an E.
template <class E>
using for_evaluation_t = typename decltype(for_evaluation(std::declval<const E&>()))::expression_type;

namespace detail {
template <class A, class B>
inline constexpr bool same_index_set_v =
    boost::mp11::mp_size<A>::value == boost::mp11::mp_size<B>::value &&
    boost::mp11::mp_empty<boost::mp11::mp_set_difference<A, B>>::value;
template <class E, class R>
inline constexpr bool kernel_preserved_v =
    same_index_set_v<expr::free_indices_t<E>, expr::free_indices_t<R>> &&
    boost::mp11::mp_empty<boost::mp11::mp_set_difference<expr::all_indices_t<R>,
                                                         expr::all_indices_t<E>>>::value;
}  // namespace detail

/// The kernel the evaluator runs for a (valid) right-hand side e: e under the always-profitable
/// rules, or e itself when the rewrite would change its free indices (a product by a static
/// zero) or introduce an index; `::fired` lists the rules applied.
template <class E>
constexpr auto for_kernel(const E& e) {
  if constexpr (detail::kernel_preserved_v<E, for_evaluation_t<E>>) return for_evaluation(e);
  else return traced<E, mp_list<>>{e};
}

}  // namespace loom::rewrite

#endif  // LOOM_REWRITE_FOR_EVALUATION_HPP
// ---- end <loom/rewrite/for_evaluation.hpp>
// ---- begin <loom/rewrite/hoist.hpp>
// Defines hoisting: a sum that is a factor of a product whose other factor iterates indices the
// sum does not depend on would be recomputed inside the fused loop nest for every value of those
// indices; it is computed once instead (materialised by the evaluator). This file finds such sums
// and rebuilds the expression around their replacement (rewrite/); it never runs a kernel.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_HOIST_HPP
#define LOOM_REWRITE_HOIST_HPP


#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/set.hpp>

#include <tuple>
#include <type_traits>

namespace loom::rewrite {

namespace detail {
template <class E>
struct is_sum : std::false_type {};
template <class I, class E>
struct is_sum<expr::sum<I, E>> : std::true_type {};
template <class L, class R>
using difference = boost::mp11::mp_set_difference<boost::mp11::mp_unique<L>, R>;
template <class A>
struct access_indices;
template <class T, class... Is>
struct access_indices<expr::access<T, Is...>> {
  using type = boost::mp11::mp_list<Is...>;
};
template <class A>
using access_indices_t = typename access_indices<A>::type;
// the indices some access of E reads (their extents are known from the tensors)
template <class E>
using read_indices = boost::mp11::mp_unique<boost::mp11::mp_apply<
    boost::mp11::mp_append, boost::mp11::mp_push_front<boost::mp11::mp_transform<access_indices_t, expr::accesses_t<E>>,
                                                       boost::mp11::mp_list<>>>>;
template <class L, class R>
using intersection = boost::mp11::mp_set_intersection<boost::mp11::mp_unique<L>, boost::mp11::mp_unique<R>>;
}  // namespace detail

/// Whether the sum S, multiplied by Sibling, should be computed once: Sibling iterates an index
/// S does not depend on, the two bind no index name in common (that case is the planner's
/// lifting rule, with its own diagnostic), S reads a tensor (a count sum(i, 1) is a scaling, whose
/// extent comes from the rest of the kernel), every free index of S is read by one of its
/// accesses (not only broadcast), and S has at most two free indices.
template <class S, class Sibling>
inline constexpr bool hoistable_v = [] {
  if constexpr (!detail::is_sum<S>::value) {
    return false;
  } else {
    using extra = detail::difference<expr::all_indices_t<Sibling>, expr::free_indices_t<S>>;
    using shared = detail::intersection<expr::summed_indices_t<S>, expr::summed_indices_t<Sibling>>;
    return !boost::mp11::mp_empty<extra>::value && boost::mp11::mp_empty<shared>::value &&
           !boost::mp11::mp_empty<expr::accesses_t<S>>::value &&  // counts sum(i, 1) are scalings
           boost::mp11::mp_empty<detail::difference<expr::free_indices_t<S>, detail::read_indices<S>>>::value &&
           boost::mp11::mp_size<expr::free_indices_t<S>>::value <= 2;  // materialised as a matrix at most
  }
}();

/// Whether a hoisted S is computed into a dense temporary (a scalar, a vector, or a matrix that
/// is not statically sparse) rather than a sparse one (`dcsr`).
template <class S>
inline constexpr bool hoisted_dense_v = boost::mp11::mp_size<expr::free_indices_t<S>>::value <= 1 ||
                                        expr::sparsity_v<S> == expr::sparsity::dense;

namespace detail {
template <class E>
struct has_hoistable : std::false_type {};
template <class L, class R>
struct has_hoistable<expr::mul<L, R>>
    : std::bool_constant<hoistable_v<L, R> || hoistable_v<R, L> || has_hoistable<L>::value ||
                         has_hoistable<R>::value> {};
template <class L, class R>
struct has_hoistable<expr::add<L, R>>
    : std::bool_constant<has_hoistable<L>::value || has_hoistable<R>::value> {};
template <class P, class B>
struct has_hoistable<expr::where<P, B>>
    : std::bool_constant<has_hoistable<P>::value || has_hoistable<B>::value> {};
template <class I, class B>
struct has_hoistable<expr::sum<I, B>> : has_hoistable<B> {};
template <class I, class B>
struct has_hoistable<expr::expand<I, B>> : has_hoistable<B> {};
template <class F, class... Es>
struct has_hoistable<expr::map<F, Es...>> : std::bool_constant<(has_hoistable<Es>::value || ...)> {};
}  // namespace detail

/// Whether E holds a sum to hoist.
template <class E>
inline constexpr bool has_hoistable_v = detail::has_hoistable<E>::value;

/// Calls `k(s, rebuild)` for the first sum `s` of `e` to hoist (depth first, left to right);
/// `rebuild(x)` is `e` with `s` replaced by `x`. Requires `has_hoistable_v<E>`.
template <class E, class K>
constexpr void hoist_first(const E& e, K&& k) {
  if constexpr (requires { []<class L, class R>(const expr::mul<L, R>&) {}(e); }) {
    using L = std::remove_cvref_t<decltype(e.lhs)>;
    using R = std::remove_cvref_t<decltype(e.rhs)>;
    if constexpr (hoistable_v<L, R>) {
      k(e.lhs, [&](const auto& x) { return expr::mul<std::remove_cvref_t<decltype(x)>, R>{x, e.rhs}; });
    } else if constexpr (hoistable_v<R, L>) {
      k(e.rhs, [&](const auto& x) { return expr::mul<L, std::remove_cvref_t<decltype(x)>>{e.lhs, x}; });
    } else if constexpr (has_hoistable_v<L>) {
      hoist_first(e.lhs, [&](const auto& s, auto rebuild) {
        k(s, [&, rebuild](const auto& x) {
          auto l = rebuild(x);
          return expr::mul<decltype(l), R>{l, e.rhs};
        });
      });
    } else {
      hoist_first(e.rhs, [&](const auto& s, auto rebuild) {
        k(s, [&, rebuild](const auto& x) {
          auto r = rebuild(x);
          return expr::mul<L, decltype(r)>{e.lhs, r};
        });
      });
    }
  } else if constexpr (requires { []<class L, class R>(const expr::add<L, R>&) {}(e); }) {
    using L = std::remove_cvref_t<decltype(e.lhs)>;
    using R = std::remove_cvref_t<decltype(e.rhs)>;
    if constexpr (has_hoistable_v<L>) {
      hoist_first(e.lhs, [&](const auto& s, auto rebuild) {
        k(s, [&, rebuild](const auto& x) {
          auto l = rebuild(x);
          return expr::add<decltype(l), R>{l, e.rhs};
        });
      });
    } else {
      hoist_first(e.rhs, [&](const auto& s, auto rebuild) {
        k(s, [&, rebuild](const auto& x) {
          auto r = rebuild(x);
          return expr::add<L, decltype(r)>{e.lhs, r};
        });
      });
    }
  } else if constexpr (requires { []<class P, class B>(const expr::where<P, B>&) {}(e); }) {
    using P = std::remove_cvref_t<decltype(e.pred)>;
    using B = std::remove_cvref_t<decltype(e.body)>;
    if constexpr (has_hoistable_v<P>) {
      hoist_first(e.pred, [&](const auto& s, auto rebuild) {
        k(s, [&, rebuild](const auto& x) {
          auto p = rebuild(x);
          return expr::where<decltype(p), B>{p, e.body};
        });
      });
    } else {
      hoist_first(e.body, [&](const auto& s, auto rebuild) {
        k(s, [&, rebuild](const auto& x) {
          auto b = rebuild(x);
          return expr::where<P, decltype(b)>{e.pred, b};
        });
      });
    }
  } else if constexpr (requires { []<class I, class B>(const expr::sum<I, B>&) {}(e); }) {
    [&]<class I, class B>(const expr::sum<I, B>& n) {
      hoist_first(n.body, [&](const auto& s, auto rebuild) {
        k(s, [&, rebuild](const auto& x) {
          auto b = rebuild(x);
          return expr::sum<I, decltype(b)>{b};
        });
      });
    }(e);
  } else if constexpr (requires { []<class I, class B>(const expr::expand<I, B>&) {}(e); }) {
    [&]<class I, class B>(const expr::expand<I, B>& n) {
      hoist_first(n.body, [&](const auto& s, auto rebuild) {
        k(s, [&, rebuild](const auto& x) {
          auto b = rebuild(x);
          return expr::expand<I, decltype(b)>{b};
        });
      });
    }(e);
  } else {  // map: one or two operands
    [&]<class F, class... Es>(const expr::map<F, Es...>& n) {
      if constexpr (sizeof...(Es) == 1) {
        hoist_first(std::get<0>(n.args), [&](const auto& s, auto rebuild) {
          k(s, [&, rebuild](const auto& x) {
            auto a = rebuild(x);
            return expr::map<F, decltype(a)>{n.f, {a}};
          });
        });
      } else {
        using A = std::tuple_element_t<0, std::tuple<Es...>>;
        using B = std::tuple_element_t<1, std::tuple<Es...>>;
        if constexpr (has_hoistable_v<A>) {
          hoist_first(std::get<0>(n.args), [&](const auto& s, auto rebuild) {
            k(s, [&, rebuild](const auto& x) {
              auto a = rebuild(x);
              return expr::map<F, decltype(a), B>{n.f, {a, std::get<1>(n.args)}};
            });
          });
        } else {
          hoist_first(std::get<1>(n.args), [&](const auto& s, auto rebuild) {
            k(s, [&, rebuild](const auto& x) {
              auto b = rebuild(x);
              return expr::map<F, A, decltype(b)>{n.f, {std::get<0>(n.args), b}};
            });
          });
        }
      }
    }(e);
  }
}

}  // namespace loom::rewrite

#endif  // LOOM_REWRITE_HOIST_HPP
// ---- end <loom/rewrite/hoist.hpp>

#include <boost/mp11/algorithm.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace loom::plan {

namespace detail {

template <class T>
std::string tensor_label(const T& t, std::size_t ordinal) {
  return t.name().empty() ? "T" + std::to_string(ordinal) : t.name();
}

template <class... Is>
std::string index_list() {
  std::string s;
  ((s += (s.empty() ? "" : ",") + std::string(Is::name)), ...);
  return s;
}

/// Index notation of an expression, with tensor names (or T0, T1, ... by access ordinal).
template <class E>
std::string to_string(const E& e, std::size_t& ordinal) {
  if constexpr (requires { e.tensor; }) {
    return [&]<class T, class... Is>(const expr::access<T, Is...>& a) {
      return tensor_label(*a.tensor, ordinal++) + "(" + index_list<Is...>() + ")";
    }(e);
  } else if constexpr (requires { e.value; }) {
    std::ostringstream s;
    if constexpr (requires { s << e.value; }) s << e.value;
    else if constexpr (requires { s << e.value.value; }) s << e.value.value;
    else s << "literal";
    return s.str();
  } else if constexpr (requires { e.lhs; e.rhs; }) {
    constexpr bool is_add = requires { []<class L, class R>(const expr::add<L, R>&) {}(e); };
    std::string l = to_string(e.lhs, ordinal);
    std::string r = to_string(e.rhs, ordinal);
    return is_add ? "(" + l + " + " + r + ")" : l + " * " + r;
  } else if constexpr (requires { e.pred; e.body; }) {
    std::string p = to_string(e.pred, ordinal);
    return "where(" + p + ", " + to_string(e.body, ordinal) + ")";
  } else if constexpr (requires { e.args; }) {
    using F = decltype(e.f);
    std::string name = "f";
    if constexpr (requires { F::symbol; }) name = std::string(F::symbol);
    std::vector<std::string> args;
    std::apply([&](const auto&... a) { (args.push_back(to_string(a, ordinal)), ...); }, e.args);
    if (args.size() == 2 && name != "f") return "(" + args[0] + " " + name + " " + args[1] + ")";
    if (name == "-") return "-" + args[0];
    if constexpr (requires { e.f.divisor; }) {
      std::ostringstream d;
      d << e.f.divisor;
      return args[0] + " / " + d.str();
    }
    std::string s = "map(" + name;
    for (auto& a : args) s += ", " + a;
    return s + ")";
  } else {
    return [&]<template <class, class> class Node, class I, class B>(const Node<I, B>& n) {
      const bool is_sum = std::is_same_v<Node<I, B>, expr::sum<I, B>>;
      return std::string(is_sum ? "sum(" : "expand(") + std::string(I::name) + ", " +
             to_string(n.body, ordinal) + ")";
    }(e);
  }
}

}  // namespace detail

namespace detail {
template <class P, class Lhs, class Rhs>
std::string explain_plan(const Lhs& lhs, const Rhs& rhs, const std::string& preamble) {
  using order = typename P::order;
  using out_t = std::remove_const_t<std::remove_pointer_t<decltype(lhs.tensor)>>;
  std::ostringstream s;
  std::size_t ordinal = 0;
  const std::string out_name = lhs.tensor->name().empty() ? "out" : lhs.tensor->name();
  std::string kernel = detail::to_string(rhs, ordinal);
  s << "kernel: " << out_name << "(" <<
      [&]<class T, class... Is>(const expr::access<T, Is...>&) { return detail::index_list<Is...>(); }(lhs)
    << ") = " << kernel << "\n" << preamble;

  // operands
  struct operand_info {
    std::string label, format;
    std::string copy_format;  // a transposed copy in general levels (a storage mapping's)
    bool dense = false, transposed = false, view = false;
    std::vector<std::size_t> level_depth;   // depth iterated by each stored level
    std::vector<std::string> level_kind;
    std::vector<char> level_probe;  // random access, not full (hashed, bitmap, banded, user)
    std::vector<char> level_full;   // random access and full: located like a dense level
    std::vector<char> level_role;   // 'i' iterated, 'm' co-iterated, 'l' located (per level)
    std::vector<std::string> level_peers;  // the other operands at that level's loop
    std::int64_t nnz = 0;
    // a storage mapping's account of how its loops were fused (format/mapping/)
    std::string (*mapping_explain)(const std::string&, const std::vector<char>&,
                                   const std::vector<std::string>&,
                                   const std::vector<std::string>&) = nullptr;
  };
  std::vector<operand_info> ops;
  expr::for_each_access(rhs, [&](const auto& a, std::size_t k) {
    using A = std::remove_cvref_t<decltype(a)>;
    using tensor_t = std::remove_const_t<std::remove_pointer_t<decltype(a.tensor)>>;
    using F = typename tensor_t::format_type;
    operand_info info;
    info.label = detail::tensor_label(*a.tensor, k);
    info.format = format_name<F>();
    info.dense = F::all_dense;
    info.transposed = P::chosen.transposed[k];
    info.view = !std::remove_const_t<std::remove_pointer_t<decltype(a.tensor)>>::owning;
    info.nnz = a.tensor->nnz();
    [&]<class T, class... Is>(const expr::access<T, Is...>*) {
      constexpr std::array<std::size_t, sizeof...(Is)> depth_by_mode{
          boost::mp11::mp_find<order, Is>::value...};
      std::array<std::size_t, sizeof...(Is)> modes{};
      for (std::size_t k2 = 0; k2 < modes.size(); ++k2) modes[k2] = F::modes[k2];
      if (F::all_dense || info.transposed)
        std::sort(modes.begin(), modes.end(),
                  [&](std::size_t x, std::size_t y) { return depth_by_mode[x] < depth_by_mode[y]; });
      std::size_t level = 0;
      auto add_levels = [&](auto levels) {
        boost::mp11::mp_for_each<boost::mp11::mp_transform<boost::mp11::mp_identity, decltype(levels)>>(
            [&](auto l) {
              using L = typename decltype(l)::type;
              info.level_depth.push_back(depth_by_mode[modes[level]]);
              info.level_kind.push_back(F::all_dense ? "dense (locate)" : std::string(L::name));
              info.level_probe.push_back(!F::all_dense && L::properties.random_access &&
                                         !L::properties.full);
              info.level_full.push_back(L::properties.random_access && L::properties.full);
              if constexpr (requires { &L::definition::explain; })
                info.mapping_explain = &L::definition::explain;
              ++level;
            });
      };
      using copy = transposed_format<order, A>;
      if constexpr (copy::general) {
        if (info.transposed) {  // the kernel reads the copy's levels
          info.copy_format = format_name<typename copy::type>();
          add_levels(typename copy::levels{});
        } else {
          add_levels(typename F::levels{});
        }
      } else {
        add_levels(typename F::levels{});
      }
      info.level_role.assign(info.level_depth.size(), 'i');
      info.level_peers.assign(info.level_depth.size(), "");
    }(static_cast<const A*>(nullptr));
    ops.push_back(std::move(info));
  });

  s << "operands:";
  if (ops.empty()) s << " none";
  for (const auto& o : ops) s << " " << o.label << " [" << o.format << ", " << o.nnz << " stored]";
  s << "\n";

  std::vector<std::string> names;
  boost::mp11::mp_for_each<order>([&](auto i) { names.push_back(std::string(decltype(i)::name)); });
  using out_indices = expr::free_indices_t<Lhs>;
  s << "attribute order: ";
  for (std::size_t d = 0; d < names.size(); ++d) s << (d ? ", " : "") << names[d];
  s << "  (concordant with every sparse operand" << (P::any_transposed ? " after transposition" : "")
    << ")\n";

  for (std::size_t d = 0; d < names.size(); ++d) {
    bool is_free = false;
    boost::mp11::mp_for_each<out_indices>([&](auto i) { is_free = is_free || names[d] == decltype(i)::name; });
    std::vector<std::string> iterate, locate, probe;
    using slot = std::pair<std::size_t, std::size_t>;  // (operand, level)
    std::vector<slot> iterate_at, locate_at, probe_at;
    for (std::size_t q = 0; q < ops.size(); ++q) {
      const auto& o = ops[q];
      for (std::size_t l = 0; l < o.level_depth.size(); ++l) {
        if (o.level_depth[l] != d) continue;
        const bool random = o.level_kind[l].rfind("dense", 0) == 0 || o.level_full[l];
        (random ? locate : o.level_probe[l] ? probe : iterate)
            .push_back(o.label + " (" + o.level_kind[l] + ")");
        (random ? locate_at : o.level_probe[l] ? probe_at : iterate_at).push_back({q, l});
      }
    }
    // a product probes a random-access level while another operand is iterated (make_mul);
    // with nothing else to iterate, the first one is iterated
    if (iterate.empty() && !probe.empty()) {
      iterate.push_back(probe.front());
      probe.erase(probe.begin());
      iterate_at.push_back(probe_at.front());
      probe_at.erase(probe_at.begin());
    }
    if (iterate.empty() && !locate.empty() && !locate_at.empty()) {
      const auto [q, l] = locate_at.front();  // a full mapped level with no one to iterate
      if (ops[q].level_full[l] && ops[q].level_kind[l].rfind("dense", 0) != 0) {
        iterate.push_back(locate.front());
        locate.erase(locate.begin());
        iterate_at.push_back(locate_at.front());
        locate_at.erase(locate_at.begin());
      }
    }
    locate.insert(locate.end(), probe.begin(), probe.end());
    locate_at.insert(locate_at.end(), probe_at.begin(), probe_at.end());
    for (const auto& [q, l] : iterate_at) {
      ops[q].level_role[l] = iterate_at.size() > 1 ? 'm' : 'i';
      for (const auto& [r, m] : iterate_at)
        if (r != q) ops[q].level_peers[l] += (ops[q].level_peers[l].empty() ? "" : ", ") + ops[r].label;
    }
    for (const auto& [q, l] : locate_at) {
      ops[q].level_role[l] = 'l';
      for (const auto& [r, m] : iterate_at)
        ops[q].level_peers[l] += (ops[q].level_peers[l].empty() ? "" : ", ") + ops[r].label;
      if (ops[q].level_peers[l].empty()) ops[q].level_peers[l] = "the loop over its extent";
    }
    s << "  loop " << names[d] << (is_free ? " [free]" : " [summed]") << ": ";
    if (iterate.empty() && locate.empty()) {
      s << "no operand uses it: dense counted loop over its extent";
    } else if (iterate.empty()) {
      s << "dense counted loop; locate";
      for (auto& x : locate) s << " " << x;
    } else {
      s << (iterate.size() == 1 ? "iterate "
                                : "co-iterate (intersection by merge where multiplied, galloping "
                                  "seek on fibers " + std::to_string(stream::skip::gallop_ratio) +
                                      "x longer than the other, unless a skip policy is chosen "
                                      "below; lexicographic union where added) ");
      for (std::size_t q = 0; q < iterate.size(); ++q) s << (q ? ", " : "") << iterate[q];
      if (!locate.empty()) {
        s << "; locate";
        for (auto& x : locate) s << " " << x;
      }
    }
    if (!is_free) {
      bool free_below = false;
      for (std::size_t e = d + 1; e < names.size(); ++e)
        boost::mp11::mp_for_each<out_indices>(
            [&](auto i) { free_below = free_below || names[e] == decltype(i)::name; });
      s << (free_below ? "; sum into the output" : "; accumulate in a register");
    }
    s << "\n";
  }
  for (const auto& o : ops) {
    if (!o.mapping_explain || o.transposed) continue;
    std::vector<std::string> loop_names;  // the program's index at each level
    for (std::size_t depth : o.level_depth) loop_names.push_back(names[depth]);
    s << o.mapping_explain(o.label, o.level_role, o.level_peers, loop_names);
  }
  for (const auto& o : ops) {
    if (!o.transposed) continue;
    s << "transpose: " << o.label << " is copied from " << o.format;
    if (o.copy_format.empty())
      s << " into a concordant mode order before the loops";
    else  // a storage mapping holds one mode order: its copy is materialised in general levels
      s << " into " << o.copy_format << " before the loops: the mapping is materialised in the "
        << "loop order (its own levels cannot hold the entries in another mode order)";
    s << (o.view ? "; a view is copied on every call\n"
                 : "; the copy is kept for the next calls while " + o.label + " is unchanged\n");
  }
  using out_format = typename out_t::format_type;
  s << "output: " << out_name << " [" << format_name<out_format>() << "] ";
  if constexpr (out_format::all_dense) s << "written in place (locate and accumulate)";
  else if constexpr (out_format::dense_over_bitmap && out_t::owning)
    s << "written in place (locate and accumulate, presence bit set per cell)";
  else if constexpr (P::output_in_order && pattern_of<Lhs, Rhs>::shares &&
                     loom::detail::rows_of_columns<out_format>)
    s << "written on the pattern of " << ops[pattern_of<Lhs, Rhs>::ordinal].label
      << " (its positions and coordinates copied, values computed in its order)";
  else if constexpr (P::output_in_order) s << "assembled by in-order append";
  else {
    std::vector<std::string> out_names;  // the output's indices in storage order
    boost::mp11::mp_for_each<expr::free_indices_t<Lhs>>(
        [&](auto i) { out_names.emplace_back(decltype(i)::name); });
    s << "assembled through a workspace, ";
    if constexpr (P::output_prefix == 0) {
      s << "one for the whole output";
    } else {
      s << "one row per (";
      for (std::size_t k = 0; k < P::output_prefix; ++k)
        s << (k ? "," : "") << out_names[out_format::modes[k]];
      s << ")";
    }
    // csr-like, its columns in the outermost loop: a hashed or sorted workspace fills it by a
    // counting sort on the row (stream/workspace.hpp)
    constexpr bool by_rows = [] {
      if constexpr (P::output_prefix == 0 && loom::detail::rows_of_columns<out_format>) {
        using column = boost::mp11::mp_at_c<expr::free_indices_t<Lhs>, out_format::modes[1]>;
        return boost::mp11::mp_find<typename P::order, column>::value == 0;
      } else {
        return false;
      }
    }();
    if constexpr (by_rows) s << ", placed by row when it ends (a counting sort, unless dense)\n  ";
    else s << ", appended in order when it ends\n  ";
    if (loom::detail::forced_workspace) {
      s << workspace_kind_name(*loom::detail::forced_workspace)
        << " workspace, forced by loom::scoped_workspace";
    } else {
      loom::statistics_cache stats;
      s << optimize::describe_workspace_choice(
          optimize::choose_workspace(optimize::estimate_workspace<P>(lhs, rhs, stats)));
    }
  }
  s << "\n";
  return s.str();
}
}  // namespace detail

namespace detail {
// The skip policy per loop of plan P, as the evaluator chooses it (optimize/leader_choice.hpp):
// among the instantiated candidates (LOOM_MAX_SKIP_CANDIDATES > 1) or as the runtime policy's
// codes (LOOM_RUNTIME_SKIP_POLICY); empty otherwise.
template <class P, class Lhs, class Rhs>
std::string skip_section(const Lhs& lhs, const Rhs& rhs) {
#if LOOM_MAX_SKIP_CANDIDATES > 1
  constexpr std::size_t cap = stream::skip::max_candidates;
  if constexpr (boost::mp11::mp_size<optimize::skip_candidates_t<P, cap>>::value > 1) {
    loom::statistics_cache stats;
    return optimize::describe_skip_choice(optimize::choose_skip<P, cap>(lhs, rhs, stats), cap);
  }
#elif LOOM_RUNTIME_SKIP_POLICY
  if constexpr (optimize::has_runtime_skip_loop<P>) {
    loom::statistics_cache stats;
    return optimize::describe_runtime_skips(optimize::choose_skip<P, 1>(lhs, rhs, stats));
  }
#else
  (void)lhs, (void)rhs;
#endif
  return {};
}
}  // namespace detail

/// A description of the plan loom compiles for `lhs = rhs`, e.g.
/// `loom::explain(y(i), loom::sum(j, A(i, j) * x(j)))`.
template <class Lhs, class R>
std::string explain(const Lhs& lhs, const R& rhs_operand) {
  const auto rewritten = rewrite::for_kernel(expr::as_expr(rhs_operand));  // as the evaluator does
  const auto rhs = rewritten.expr;
  using Rhs = std::remove_cvref_t<decltype(rhs)>;
  using fired = typename decltype(rewritten)::fired;
  std::string rules =
      boost::mp11::mp_empty<fired>::value ? "" : "rules fired: " + rewrite::fired_names<fired>() + "\n";
  if constexpr (rewrite::has_hoistable_v<Rhs>) {  // the evaluator decides as here (hoist_choice.hpp)
    rewrite::hoist_first(rhs, [&](const auto& s, auto) {
      std::size_t ordinal = 0;
      loom::statistics_cache stats;
      const auto c = optimize::choose_hoist(lhs, rhs, s, rewrite::hoisted_dense_v<std::remove_cvref_t<decltype(s)>>, stats);
      rules += (c.hoist() ? "hoisted: " : "not hoisted: ") + detail::to_string(s, ordinal) +
               (c.hoist() ? " is computed once, before the loops below (" : " stays in the fused loops (") +
               c.describe() + ")\n";
    });
  }
  using P0 = order_plan<Lhs, Rhs>;
  constexpr std::size_t n = plan_candidates<Lhs, Rhs>::count;
  if constexpr (n > 1) {
    loom::statistics_cache stats;
    const optimize::plan_choice choice = optimize::choose_plan(lhs, rhs, stats);
    std::ostringstream pre;
    pre << rules << "candidates (" << n << " instantiated, at most " << max_plan_candidates
        << "; LOOM_MAX_PLAN_CANDIDATES), costed at run time from statistics:\n";
    boost::mp11::mp_for_each<boost::mp11::mp_iota_c<n>>([&](auto c) {
      using P = order_plan<Lhs, Rhs, static_cast<int>(decltype(c)::value)>;
      std::string moved;
      expr::for_each_access(rhs, [&](const auto& a, std::size_t k) {
        if (P::chosen.transposed[k]) moved += (moved.empty() ? "" : ", ") + detail::tensor_label(*a.tensor, k);
      });
      std::string names;
      boost::mp11::mp_for_each<typename P::order>(
          [&](auto i) { names += (names.empty() ? "" : ",") + std::string(decltype(i)::name); });
      pre << "  " << (c == choice.chosen ? "* " : "  ") << "#" << c << " order " << names;
      if (!moved.empty()) pre << "; transpose " << moved;
      pre << ": estimated cost " << static_cast<std::int64_t>(choice.cost[c] + 0.5) << "\n";
    });
    pre << "statistics:";
    expr::for_each_access(rhs, [&](const auto& a, std::size_t k) {
      using tensor_t = std::remove_const_t<std::remove_pointer_t<decltype(a.tensor)>>;
      pre << " " << detail::tensor_label(*a.tensor, k);
      if constexpr (tensor_t::format_type::all_dense) {
        pre << " [dense]";
      } else {
        const auto& st = stats.get(*a.tensor);
        pre << " [nnz " << st.nnz << ", max degree per mode";
        for (auto d : st.max_degree) pre << " " << d;
        pre << "]";
      }
    });
    pre << "\nchosen: candidate #" << choice.chosen << ", the cheapest (*)\n";
    std::string out;
    boost::mp11::mp_with_index<n>(choice.chosen, [&](auto c) {
      out = detail::explain_plan<order_plan<Lhs, Rhs, static_cast<int>(decltype(c)::value)>>(
          lhs, rhs, pre.str());
      out += detail::skip_section<order_plan<Lhs, Rhs, static_cast<int>(decltype(c)::value)>>(lhs,
                                                                                             rhs);
    });
    return out;
  }
  return detail::explain_plan<P0>(lhs, rhs, rules) + detail::skip_section<P0>(lhs, rhs);
}

}  // namespace loom::plan

namespace loom::plan {
/// The plan of `lhs = loom::order<...>(e)`: that loop order only (no candidates, no hoisting).
template <class Lhs, class Order, class E>
std::string explain(const Lhs& lhs, const expr::ordered<Order, E>& fixed) {
  const auto rewritten = rewrite::for_kernel(fixed.expr);
  const auto rhs = rewritten.expr;
  using Rhs = std::remove_cvref_t<decltype(rhs)>;
  using fired = typename decltype(rewritten)::fired;
  std::string rules =
      boost::mp11::mp_empty<fired>::value ? "" : "rules fired: " + rewrite::fired_names<fired>() + "\n";
  std::string names;
  boost::mp11::mp_for_each<Order>([&](auto i) { names += (names.empty() ? "" : ", ") + std::string(decltype(i)::name); });
  rules += "loop order fixed by loom::order<" + names + ">\n";
  using P = order_plan<Lhs, Rhs, -1, Order>;
  return detail::explain_plan<P>(lhs, rhs, rules) + detail::skip_section<P>(lhs, rhs);
}
}  // namespace loom::plan

namespace loom {
using plan::explain;

/// An expression in index notation, with tensor names (T0, T1, ... for unnamed ones):
/// `loom::to_string(sum(j, A(i, j) * x(j)))` gives "sum(j, A(i,j) * x(j))".
template <expr::operand E>
std::string to_string(const E& e) {
  std::size_t ordinal = 0;
  return plan::detail::to_string(expr::as_expr(e), ordinal);
}
}  // namespace loom

#endif  // LOOM_PLAN_EXPLAIN_HPP
// ---- end <loom/plan/explain.hpp>
// ---- begin <loom/stream/evaluate.hpp>
// Defines evaluation: `out(i...) = e`, `out(i...) += e` and loom::eval(e). Checks the kernel,
// picks the plan, binds (transposed) operands, lowers to streams and runs them (stream/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_STREAM_EVALUATE_HPP
#define LOOM_STREAM_EVALUATE_HPP

// ---- begin <loom/parallel/run.hpp>
// Defines the parallel run loops: a kernel's outermost loop split into chunks of its index
// range, each chunk driving its own copy of the stream tree into a slice of a dense output,
// into per-thread or per-chunk partial results (reductions over the outer index), or into its
// own entry list (sparse outputs, concatenated in order) (parallel/).
// SPDX-License-Identifier: BSL-1.0
//
//  case table, by the root stream (depth 0) and the output:
//  | root at depth 0 | dense output                          | sparse output                  |
//  |-----------------|---------------------------------------|--------------------------------|
//  | free index      | chunks write disjoint output elements | outer index = output level 0:  |
//  |                 | (bit-identical to serial)             | entries per chunk, concatenated|
//  |                 |                                       | in chunk order (= serial)      |
//  | summed index    | partials per thread (or per chunk in  | serial                         |
//  |                 | deterministic mode) folded in order   |                                |
#ifndef LOOM_PARALLEL_RUN_HPP
#define LOOM_PARALLEL_RUN_HPP

// ---- begin <loom/parallel/partition.hpp>
// Defines the partition of a kernel's outermost loop into chunks of about equal work: by the
// positions of the largest operand whose first level the outer loop iterates (rows balanced by
// stored entries), else evenly (parallel/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_PARALLEL_PARTITION_HPP
#define LOOM_PARALLEL_PARTITION_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace loom::parallel {

/// Chunk c of the outer loop covers the indices [bounds[c], bounds[c+1]); no chunk is empty.
struct partition {
  std::vector<std::int64_t> bounds{};  // empty: no chunk (and no allocation for a serial run)
  std::size_t chunks() const { return bounds.empty() ? 0 : bounds.size() - 1; }
  std::int64_t lo(std::size_t c) const { return bounds[c]; }
  std::int64_t hi(std::size_t c) const { return bounds[c + 1]; }
};

namespace detail {

// The x in [lo, hi] whose f(x) is nearest to target (f non-decreasing; ties: the smaller x), so
// that a heavy row goes to a chunk of its own rather than with every row before it.
template <class F>
std::int64_t nearest(std::int64_t lo, std::int64_t hi, std::int64_t target, const F& f) {
  const std::int64_t first = lo;
  while (lo < hi) {  // first x with f(x) >= target, else hi
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (f(mid) < target) lo = mid + 1;
    else hi = mid;
  }
  if (lo > first && target - f(lo - 1) <= f(lo) - target) return lo - 1;
  return lo;
}

inline partition finish(std::vector<std::int64_t> b, std::int64_t extent) {
  b.front() = 0;
  b.back() = extent;
  for (std::size_t c = 1; c < b.size(); ++c) b[c] = std::clamp(b[c], b[c - 1], extent);
  b.erase(std::unique(b.begin(), b.end()), b.end());
  partition p;
  p.bounds = std::move(b);
  if (p.bounds.size() < 2) p.bounds = {0, extent};
  return p;
}

}  // namespace detail

/// `chunks` ranges of [0, extent) of equal length.
inline partition split_evenly(std::int64_t extent, std::size_t chunks) {
  std::vector<std::int64_t> b(chunks + 1);
  for (std::size_t c = 0; c <= chunks; ++c)
    b[c] = static_cast<std::int64_t>(static_cast<__int128>(extent) * static_cast<__int128>(c) /
                                     static_cast<__int128>(chunks));
  return detail::finish(std::move(b), extent);
}

/// Splits the outer loop by the stored entries of tensor `t`, whose level 0 that loop iterates:
/// the work of a row is its entries on level 1 plus one (a dense or compressed level 0 above a
/// compressed level 1: CSR, DCSR, CSF; a non-unique level 0: COO). Other levels: evenly.
template <class Tensor>
partition split_by_entries(const Tensor& t, std::int64_t extent, std::size_t chunks) {
  const auto& l0 = t.template level<0>();
  std::vector<std::int64_t> b(chunks + 1, 0);
  auto targets = [&](std::int64_t total, auto&& locate) {
    for (std::size_t c = 1; c < chunks; ++c)
      b[c] = locate(static_cast<std::int64_t>(static_cast<__int128>(total) * c / chunks));
  };
  // entries below position q of level 0 (level 1's pos array when it has one)
  auto below = [&](std::int64_t q) -> std::int64_t {
    if constexpr (Tensor::order >= 2) {
      const auto& l1 = t.template level<1>();
      if constexpr (requires { l1.pos[0]; }) return static_cast<std::int64_t>(l1.pos[q]);
    }
    return q;
  };
  if constexpr (requires { l0.pos[0]; l0.crd[0]; }) {  // compressed level 0: rows are crd[q]
    const std::int64_t first = l0.pos.empty() ? 0 : static_cast<std::int64_t>(l0.pos[0]);
    const std::int64_t last = l0.pos.empty() ? 0 : static_cast<std::int64_t>(l0.pos[1]);
    if (last <= first) return split_evenly(extent, chunks);
    auto cum = [&](std::int64_t q) { return below(q) + q; };
    const std::int64_t base = cum(first), total = cum(last) - base;
    targets(total, [&](std::int64_t w) {
      const std::int64_t q = detail::nearest(first, last, base + w, cum);
      return q < last ? static_cast<std::int64_t>(l0.crd[static_cast<std::size_t>(q)]) : extent;
    });
    return detail::finish(std::move(b), extent);
  } else if constexpr (requires { l0.extent; }) {  // dense level 0: rows are positions
    if constexpr (Tensor::order >= 2) {
      const auto& l1 = t.template level<1>();
      if constexpr (requires { l1.pos[0]; }) {
        if (static_cast<std::int64_t>(l1.pos.size()) < extent + 1) return split_evenly(extent, chunks);
        auto cum = [&](std::int64_t r) { return below(r) + r; };
        const std::int64_t total = cum(extent);
        targets(total, [&](std::int64_t w) { return detail::nearest(0, extent, w, cum); });
        return detail::finish(std::move(b), extent);
      }
    }
    return split_evenly(extent, chunks);
  } else {
    return split_evenly(extent, chunks);
  }
}

}  // namespace loom::parallel

#endif  // LOOM_PARALLEL_PARTITION_HPP
// ---- end <loom/parallel/partition.hpp>
// ---- begin <loom/parallel/settings.hpp>
// Defines loom's parallel-execution settings: the thread count, the deterministic mode and the
// work below which kernels stay serial; process-wide, with a per-thread scoped override
// (parallel/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_PARALLEL_SETTINGS_HPP
#define LOOM_PARALLEL_SETTINGS_HPP

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <thread>

namespace loom {

/// How kernels run on several threads (docs/parallel.md).
struct parallel_options {
  /// Threads a kernel may use; 1 runs the serial loop nest unchanged. 0 means "the default":
  /// $LOOM_NUM_THREADS when set, else std::thread::hardware_concurrency().
  int threads = 0;
  /// Reductions over the outermost loop are combined per data-determined chunk, in chunk order,
  /// so results are bit-identical for every thread count (1 included). Off: per-thread partials.
  bool deterministic = false;
  /// Kernels whose work estimate (stored entries of the operands plus the outer extent) is
  /// below this stay serial. Default: $LOOM_PARALLEL_MIN_WORK when set, else 32768.
  std::int64_t min_work = -1;
  /// The work per chunk aimed at when the outer loop is split (at most 256 chunks, at most one
  /// per outer index). Default: $LOOM_PARALLEL_CHUNK_WORK when set, else 16384.
  std::int64_t chunk_work = -1;
};

namespace parallel::detail {

inline int env_int(const char* name, int fallback) {
  if (const char* v = std::getenv(name)) {
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (end != v && n >= 0 && n < (1 << 16)) return static_cast<int>(n);
  }
  return fallback;
}

inline int default_threads() {
  static const int n = [] {
    const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int env = env_int("LOOM_NUM_THREADS", 0);
    return env > 0 ? env : hw;
  }();
  return n;
}

inline std::int64_t default_min_work() {
  static const std::int64_t n = env_int("LOOM_PARALLEL_MIN_WORK", 32768);
  return n;
}

inline std::int64_t default_chunk_work() {
  static const std::int64_t n = std::max(1, env_int("LOOM_PARALLEL_CHUNK_WORK", 16384));
  return n;
}

inline bool default_deterministic() {
  static const bool d = env_int("LOOM_DETERMINISTIC", 0) != 0;
  return d;
}

struct global_settings {
  std::atomic<int> threads{0};
  std::atomic<int> deterministic{-1};  // -1: the environment's default
  std::atomic<std::int64_t> min_work{-1};
  std::atomic<std::int64_t> chunk_work{-1};
};
inline global_settings& globals() {
  static global_settings g;
  return g;
}
inline thread_local std::optional<parallel_options> scoped_override{};

}  // namespace parallel::detail

/// Sets the number of threads kernels may use (process-wide); 0 restores the default
/// ($LOOM_NUM_THREADS, else all hardware threads). `loom::set_num_threads(1)` is serial.
inline void set_num_threads(int n) {
  parallel::detail::globals().threads.store(std::max(0, n), std::memory_order_relaxed);
}

/// The options in effect on the calling thread, defaults resolved (threads >= 1, min_work >= 0,
/// chunk_work >= 1).
inline parallel_options current_parallel_options() {
  namespace d = parallel::detail;
  parallel_options o;
  const int t = d::globals().threads.load(std::memory_order_relaxed);
  o.threads = t > 0 ? t : d::default_threads();
  const int det = d::globals().deterministic.load(std::memory_order_relaxed);
  o.deterministic = det < 0 ? d::default_deterministic() : det != 0;
  const std::int64_t w = d::globals().min_work.load(std::memory_order_relaxed);
  o.min_work = w >= 0 ? w : d::default_min_work();
  const std::int64_t cw = d::globals().chunk_work.load(std::memory_order_relaxed);
  o.chunk_work = cw > 0 ? cw : d::default_chunk_work();
  if (const auto& s = d::scoped_override) {
    if (s->threads > 0) o.threads = s->threads;
    o.deterministic = s->deterministic;
    if (s->min_work >= 0) o.min_work = s->min_work;
    if (s->chunk_work > 0) o.chunk_work = s->chunk_work;
  }
  return o;
}

/// The number of threads a kernel started on this thread may use (>= 1).
inline int num_threads() { return current_parallel_options().threads; }

/// Turns the deterministic mode on or off (process-wide; default $LOOM_DETERMINISTIC, else off).
inline void set_deterministic(bool on) {
  parallel::detail::globals().deterministic.store(on ? 1 : 0, std::memory_order_relaxed);
}
inline bool deterministic() { return current_parallel_options().deterministic; }

/// Sets the work below which kernels stay serial (process-wide); -1 restores the default.
inline void set_parallel_min_work(std::int64_t work) {
  parallel::detail::globals().min_work.store(std::max<std::int64_t>(-1, work),
                                             std::memory_order_relaxed);
}

/// Sets the work per chunk of split loops (process-wide); -1 restores the default.
inline void set_parallel_chunk_work(std::int64_t work) {
  parallel::detail::globals().chunk_work.store(work > 0 ? work : -1, std::memory_order_relaxed);
}

/// Sets every option at once (process-wide); fields at their defaults restore the default.
inline void set_parallel_options(const parallel_options& o) {
  set_num_threads(o.threads);
  set_deterministic(o.deterministic);
  set_parallel_min_work(o.min_work);
  set_parallel_chunk_work(o.chunk_work);
}

/// Overrides the options for kernels started on the current thread while it lives:
/// `{ loom::parallel_scope s({.threads = 4, .deterministic = true}); y(i) = ...; }`.
/// Fields left at their defaults (threads 0, min_work -1) keep the process-wide value.
class parallel_scope {
 public:
  explicit parallel_scope(const parallel_options& o)
      : saved_(parallel::detail::scoped_override) {
    parallel::detail::scoped_override = o;
  }
  parallel_scope(const parallel_scope&) = delete;
  parallel_scope& operator=(const parallel_scope&) = delete;
  ~parallel_scope() { parallel::detail::scoped_override = saved_; }

 private:
  std::optional<parallel_options> saved_;
};

}  // namespace loom

#endif  // LOOM_PARALLEL_SETTINGS_HPP
// ---- end <loom/parallel/settings.hpp>
// ---- begin <loom/parallel/thread_pool.hpp>
// Defines loom's thread pool: std::jthread workers started on first use, which run the chunks
// of one parallel loop at a time, the calling thread taking part (parallel/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_PARALLEL_THREAD_POOL_HPP
#define LOOM_PARALLEL_THREAD_POOL_HPP

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace loom::parallel {

namespace detail {
// Whether the current thread runs a chunk of a parallel loop (nested loops then run serially).
inline thread_local bool inside_parallel_loop = false;

// One parallel loop: chunks [0, count) handed out one at a time (dynamic scheduling: cores
// shared with other processes still finish together). `call(ctx, chunk, slot)` runs one chunk;
// slot in [0, threads) identifies the thread (per-thread workspaces are indexed by it).
struct loop {
  void (*call)(void*, std::size_t, unsigned) = nullptr;
  void* ctx = nullptr;
  std::size_t count = 0;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::exception_ptr error;

  void work(unsigned slot) {
    inside_parallel_loop = true;
    for (;;) {
      const std::size_t c = next.fetch_add(1, std::memory_order_relaxed);
      if (c >= count) break;
      if (failed.load(std::memory_order_relaxed)) continue;
      try {
        call(ctx, c, slot);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        failed.store(true, std::memory_order_relaxed);
      }
    }
    inside_parallel_loop = false;
  }
};
}  // namespace detail

/// The process-wide pool. Workers sleep on a condition variable between loops (no spinning:
/// the cores may be shared). One loop runs at a time; a loop started while another runs (from a
/// second user thread), or from inside a chunk, runs serially on its caller.
class thread_pool {
 public:
  static thread_pool& instance() {
    static thread_pool pool;
    return pool;
  }

  thread_pool() = default;
  thread_pool(const thread_pool&) = delete;
  thread_pool& operator=(const thread_pool&) = delete;
  ~thread_pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    workers_.clear();  // jthreads join
  }

  /// Runs `body(chunk, slot)` for every chunk in [0, chunks) on up to `threads` threads, the
  /// caller being slot 0; returns when all chunks are done and rethrows the first exception.
  template <class F>
  void run(std::size_t chunks, unsigned threads, F&& body) {
    using body_type = std::remove_reference_t<F>;
    detail::loop l;
    l.call = [](void* ctx, std::size_t c, unsigned slot) {
      (*static_cast<body_type*>(ctx))(c, slot);
    };
    l.ctx = const_cast<void*>(static_cast<const void*>(&body));
    l.count = chunks;
    if (threads > chunks) threads = static_cast<unsigned>(chunks);
    std::unique_lock<std::mutex> busy(run_mutex_, std::defer_lock);
    if (threads <= 1 || detail::inside_parallel_loop || !busy.try_lock()) {
      l.work(0);  // serially, on the caller
    } else {
      grow(threads - 1);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        loop_ = &l;
        threads_ = threads;
        pending_ = threads - 1;
        ++epoch_;
      }
      wake_.notify_all();
      l.work(0);
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [&] { return pending_ == 0; });
      loop_ = nullptr;
    }
    if (l.error) std::rethrow_exception(l.error);
  }

  /// Worker threads started so far (the pool grows to the largest thread count asked for).
  std::size_t workers() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return workers_.size();
  }

 private:
  void grow(unsigned count) {
    std::lock_guard<std::mutex> lock(mutex_);
    while (workers_.size() < count) {
      const unsigned slot = static_cast<unsigned>(workers_.size()) + 1;
      workers_.emplace_back([this, slot] { serve(slot); });
    }
  }

  // A worker: waits for a new loop, takes part when its slot is below the loop's thread count.
  // The loop and its thread count are read under the mutex together with the epoch, so a
  // worker joins each loop at most once and a loop never waits for a worker it did not count.
  void serve(unsigned slot) {
    std::uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || epoch_ != seen; });
      if (stop_) return;
      seen = epoch_;
      if (slot >= threads_) continue;
      detail::loop* l = loop_;
      lock.unlock();
      l->work(slot);
      lock.lock();
      if (--pending_ == 0) done_.notify_one();
    }
  }

  mutable std::mutex mutex_;
  std::mutex run_mutex_;
  std::condition_variable wake_, done_;
  std::uint64_t epoch_ = 0;
  detail::loop* loop_ = nullptr;
  unsigned threads_ = 0, pending_ = 0;
  bool stop_ = false;
  std::vector<std::jthread> workers_;  // last member: joined first on destruction
};

/// Runs `body(chunk, slot)` for chunk in [0, chunks) on up to `threads` threads of the pool.
template <class F>
void parallel_for(std::size_t chunks, unsigned threads, F&& body) {
  thread_pool::instance().run(chunks, threads, body);
}

}  // namespace loom::parallel

#endif  // LOOM_PARALLEL_THREAD_POOL_HPP
// ---- end <loom/parallel/thread_pool.hpp>
// ---- begin <loom/stream/combinators.hpp>
// Defines the stream combinators: mul (intersection), lookup (iterate one, locate the other),
// add (lexicographic union), contract, expand, once, map, zero, and the value combinators that
// place them by depth (Etch's shape inference) (stream/).
// SPDX-License-Identifier: BSL-1.0
//
//  case table for make_mul(a, b) / make_union(a, b), by the depths of a and b:
//  | a vs b            | mul                                   | add                          |
//  |-------------------|---------------------------------------|------------------------------|
//  | same, both free   | b full: lookup(a, b); a full: lookup  | union (lexicographic)        |
//  |                   | (b, a); else b, then a, locatable     |                              |
//  |                   | (O(1) probe, absent = zero): lookup;  |                              |
//  |                   | else intersection (skip::adaptive:    |                              |
//  |                   | merge, leapfrog on skewed fibers)     |                              |
//  | same, contracted  | reduce both to scalars, then multiply | union                        |
//  | a shallower       | scaled: a's values times b            | a free: union(a, expand(b))  |
//  |                   | (a contracted, op not linear in a:    | a contracted: union(a,       |
//  |                   | reduce a first)                       | once(b))                     |
//  | both scalars      | op(a, b)                              | op(a, b)                     |
#ifndef LOOM_STREAM_COMBINATORS_HPP
#define LOOM_STREAM_COMBINATORS_HPP

// ---- begin <loom/stream/concepts.hpp>
// Defines the indexed-stream vocabulary: the stream concept, depth of scalars, zero values,
// skip policies (stream/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_STREAM_CONCEPTS_HPP
#define LOOM_STREAM_CONCEPTS_HPP


#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace loom::stream {

/// An indexed stream level (Etch, notes §3.4): `valid()`, `index()` (valid only), `ready()`
/// (valid only), `value()` (ready only: a scalar or the next level's stream), `seek(i)` (to the
/// first state that may hold an index >= i), `seek_past(i)` (> i) and `next()` (the successor
/// δ = seek_past(index()) when ready, seek(index()) otherwise).
/// Static members: `depth` (position of its attribute in the loop order), `contracted` (its
/// index is `*`), `strict` (each index emitted at most once), `full` (every index of the
/// extent is emitted, always ready), `locatable` (has `locate(i)`: the value at i in O(1)).
/// **Laws**: index never decreases; a skip never overshoots a value it must keep; a skip to a
/// target at or beyond (index, ready) makes progress. A default-constructed stream is empty.
template <class S>
concept indexed_stream = std::default_initializable<S> && requires(S s, const S cs, std::int64_t i) {
  { S::depth } -> std::convertible_to<std::size_t>;
  { S::contracted } -> std::convertible_to<bool>;
  { cs.valid() } -> std::same_as<bool>;
  { cs.index() } -> std::convertible_to<std::int64_t>;
  { cs.ready() } -> std::same_as<bool>;
  cs.value();
  s.seek(i);
  s.seek_past(i);
  s.next();
};

template <class X>
inline constexpr bool is_stream_v = requires { std::remove_cvref_t<X>::depth; };

/// Depth of a value: its attribute's position, or "deeper than any attribute" for scalars.
inline constexpr std::size_t scalar_depth = std::numeric_limits<std::size_t>::max();
template <class X>
constexpr std::size_t depth_of() {
  if constexpr (is_stream_v<X>) return std::remove_cvref_t<X>::depth;
  else return scalar_depth;
}
template <class X>
constexpr bool is_contracted() {
  if constexpr (is_stream_v<X>) return std::remove_cvref_t<X>::contracted;
  else return false;
}
template <class X>
constexpr bool is_full() {
  if constexpr (is_stream_v<X>) return std::remove_cvref_t<X>::full;
  else return false;
}

/// The scalar type at the leaves of a (nested) stream.
template <class X, bool = is_stream_v<X>>
struct leaf_type {
  using type = X;
};
template <class X>
struct leaf_type<X, true> {
  using type = typename leaf_type<std::remove_cvref_t<decltype(std::declval<const X&>().value())>>::type;
};
template <class X>
using leaf_t = typename leaf_type<std::remove_cvref_t<X>>::type;

/// True when every level below (and including) X is contracted: it reduces to one scalar.
template <class X>
constexpr bool reducible() {
  if constexpr (!is_stream_v<X>) return true;
  else if constexpr (!std::remove_cvref_t<X>::contracted) return false;
  else return reducible<decltype(std::declval<const X&>().value())>();
}

/// The additive identity of a value type: the empty stream, or the semiring's zero.
template <class X>
constexpr X zero_of() {
  if constexpr (is_stream_v<X>) return X{};
  else return semiring_traits<X>::zero();
}

/// How a coordinate level moves to a target index (defined with the levels, format/).
using loom::skip_policy;

/// Runtime facts shared by the streams of one kernel: the extent of every attribute.
struct kernel_context {
  std::array<std::int64_t, skip::max_loops> extents{};  // by position in the loop order
  skip::codes skip = skip::default_codes;  // by loop: what skip::runtime intersections do
  bool sequential_sums = false;  // loom::deterministic(): no partial sums (lane_sum)
};

}  // namespace loom::stream

#endif  // LOOM_STREAM_CONCEPTS_HPP
// ---- end <loom/stream/concepts.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

namespace loom::stream {

inline constexpr std::int64_t top_index = std::numeric_limits<std::int64_t>::max();

// Scalar operations with their linearity (may a reduction be pushed through them?). A product
// also carries the skip policy of every loop (skip.hpp), so that nested products built from its
// values (value(), lookup, scaled) co-iterate as the plan says at their own depth.
template <class T, class Skips = skip::per_loop<>>
struct mul_op {
  using skips = Skips;
  static constexpr bool linear_left = true, linear_right = true;
  LOOM_FORCE_INLINE T operator()(const T& a, const T& b) const { return semiring_traits<T>::mul(a, b); }
};
template <class T>
struct add_op {
  static constexpr bool linear = true;
  LOOM_FORCE_INLINE T operator()(const T& a, const T& b) const { return semiring_traits<T>::add(a, b); }
};
template <class T>
struct where_op {  // where(p, e): linear in e only
  static constexpr bool linear_left = false, linear_right = true;
  LOOM_FORCE_INLINE T operator()(const T& p, const T& e) const {
    return p == semiring_traits<T>::zero() ? semiring_traits<T>::zero() : e;
  }
};
template <class T, class F>
struct binary_fn_op {  // a user function or comparison: not linear
  static constexpr bool linear = false;
  F f;
  LOOM_FORCE_INLINE T operator()(const T& a, const T& b) const { return static_cast<T>(f(a, b)); }
};

/// Whether S is an intersection that reads its skip policy at run time (skip::runtime).
template <class S>
inline constexpr bool reads_policy_v = requires { requires S::reads_policy; };

/// f(s) with the policy of the intersection s compiled in. The loops that iterate such a stream
/// (reduce, run_located, run_sparse) call this first, so the policy is branched on once per
/// fiber, in front of one copy of the loop per policy, not at every step.
template <class S, class F>
LOOM_FORCE_INLINE decltype(auto) with_compiled_policy(const S& s, F&& f) {
  switch (s.runtime_code()) {
    case skip::code::merge: return f(s.template compiled<skip::merge>());
    case skip::code::lead_first: return f(s.template compiled<skip::lead<0>>());
    case skip::code::lead_last: return f(s.template compiled<skip::lead<1>>());
    default: return f(s.template compiled<skip::leapfrog>());
  }
}

/// Whether reduce(x) may keep partial sums: a sum over a dense (full) range of floating-point
/// scalars, whose in-order chain of adds is latency-bound (SDDMM's dense k reduction).
template <class X>
inline constexpr bool dense_range_v = requires { requires X::dense_range; };

/// The states left in a full stream (every index to its end), or -1 when it does not say.
template <class S>
LOOM_FORCE_INLINE std::int64_t remaining_of(const S& s) {
  if constexpr (requires { s.remaining(); }) return s.remaining();
  else if constexpr (requires { s.n - s.i; }) return static_cast<std::int64_t>(s.n - s.i);
  else return -1;
}

template <class X>
inline constexpr bool lane_reducible = [] {
  if constexpr (dense_range_v<X>) {
    using V = std::remove_cvref_t<decltype(std::declval<const X&>().value())>;
    if constexpr (!is_stream_v<V>) return std::is_floating_point_v<V>;
    else return false;
  } else {
    return false;
  }
}();

/// Whether the kernel asked for sequential sums (the context of the Σ under x's wrappers).
template <class X>
LOOM_FORCE_INLINE bool sequential_sums(const X& x) {
  if constexpr (requires { x.ctx; }) return x.ctx != nullptr && x.ctx->sequential_sums;
  else if constexpr (requires { x.s; }) return sequential_sums(x.s);
  else return true;
}

/// The sum of a dense range in four interleaved partial sums ((s0 + s1) + (s2 + s3)): four
/// independent chains of adds instead of one, as a hand-written dot product keeps. The result
/// may differ from the sequential sum by rounding; loom::set_deterministic(true) (read once per
/// kernel into its context) keeps the sequential order.
template <class X>
LOOM_FORCE_INLINE auto lane_sum(const X& x) {
  using leaf = std::remove_cvref_t<decltype(x.value())>;
  const leaf zero = semiring_traits<leaf>::zero();
  leaf s0 = zero, s1 = zero, s2 = zero, s3 = zero;
  X s = x;
  if (std::int64_t r = remaining_of(s); r >= 0) {  // a counted loop: no test per state
    for (; r >= 4; r -= 4) {
      s0 += s.value();
      s.next();
      s1 += s.value();
      s.next();
      s2 += s.value();
      s.next();
      s3 += s.value();
      s.next();
    }
    for (; r > 0; --r) {
      s0 += s.value();
      s.next();
    }
    return (s0 + s1) + (s2 + s3);
  }
  while (s.valid()) {
    s0 += s.value();
    s.next();
    if (!s.valid()) break;
    s1 += s.value();
    s.next();
    if (!s.valid()) break;
    s2 += s.value();
    s.next();
    if (!s.valid()) break;
    s3 += s.value();
    s.next();
  }
  return (s0 + s1) + (s2 + s3);
}

// reduce(x): the sum of every value of a fully contracted stream (a materialised Σ).
template <class X>
LOOM_FORCE_INLINE auto reduce(const X& x) {
  if constexpr (!is_stream_v<X>) {
    return x;
  } else if constexpr (lane_reducible<X>) {
    if (!sequential_sums(x)) return lane_sum(x);
    auto acc = semiring_traits<leaf_t<X>>::zero();
    for (X s = x; s.valid(); s.next()) acc += s.value();
    return acc;
  } else if constexpr (reads_policy_v<X>) {
    return with_compiled_policy(x, [](const auto& y) { return reduce(y); });
  } else {
    static_assert(X::contracted, "loom internal error: reduce of a free stream; please report");
    using leaf = leaf_t<X>;
    leaf acc = semiring_traits<leaf>::zero();
    X s = x;
    while (s.valid()) {
      if (s.ready()) acc = semiring_traits<leaf>::add(acc, reduce(s.value()));
      s.next();
    }
    return acc;
  }
}

/// Named condition behind the "cannot be lifted" diagnostic (notes §4.10).
template <class X>
inline constexpr bool contracted_operand_reduces_to_a_scalar = reducible<X>();

// A contracted operand that must be reduced to a scalar here (a product of two sums over the
// same index, or a non-linear function of a sum) but whose remainder still depends on a later
// index.
template <std::size_t Depth>
struct sum_cannot_be_reduced_here_it_depends_on_a_later_index;  // do not define: names the depth

template <class X>
LOOM_FORCE_INLINE auto reduce_checked(const X& x) {
  if constexpr (!contracted_operand_reduces_to_a_scalar<X>) {
    static_assert(contracted_operand_reduces_to_a_scalar<X>,
                  "loom: a sum must be reduced to a scalar here (it is multiplied by another sum "
                  "over the same index, or passed to a non-linear function such as map, integer "
                  "/ or a where predicate), but the loop order iterates a free index inside it; "
                  "rename the summation index, store the operand so that the summed index is "
                  "innermost, or materialise the sum first");
    sum_cannot_be_reduced_here_it_depends_on_a_later_index<std::remove_cvref_t<X>::depth>{};
    return leaf_t<X>{};
  } else {
    return reduce(x);
  }
}

template <class Op, class A, class B>
LOOM_FORCE_INLINE auto make_mul(const Op& op, const A& a, const B& b, const kernel_context* ctx);
template <class Op, class A, class B>
LOOM_FORCE_INLINE auto make_union(const Op& op, const A& a, const B& b, const kernel_context* ctx);

// zero_stream<Depth, V>: never valid; the 0 of nested stream types.
template <std::size_t Depth, class V>
struct zero_stream {
  static constexpr std::size_t depth = Depth;
  static constexpr bool contracted = false, strict = true, full = false, locatable = false;
  bool valid() const { return false; }
  std::int64_t index() const { return top_index; }
  bool ready() const { return false; }
  V value() const { return zero_of<V>(); }
  void seek(std::int64_t) {}
  void seek_past(std::int64_t) {}
  void next() {}
};

// mul_stream<A, B, Op, Skip>: intersection of strict A and B. How the operand behind catches up:
//  | Skip      | a behind (index < b's)       | b behind           | on a match        |
//  |-----------|------------------------------|--------------------|-------------------|
//  | leapfrog  | a.seek(b.index) (galloping)  | b.seek(a.index)    | both step         |
//  | merge     | a.next()  (one entry)        | b.next()           | both step         |
//  | lead<0>   | a.next()  (a iterates all)   | b.seek(a.index)    | a steps, b probes |
//  | lead<1>   | a.seek(b.index)              | b.next()           | b steps, a probes |
// Every variant only moves an operand to a state it would reach by next(), or seeks it to an
// index the other holds, so no common index is skipped and index() = max never decreases.
// skip::runtime reads its code from the context once, when the stream is built; the static
// policies are constants, so their branches below fold away.
template <class Skip>
struct intersection_policy {
  static constexpr skip::code code = std::is_same_v<Skip, skip::merge>     ? skip::code::merge
                                     : std::is_same_v<Skip, skip::lead<0>> ? skip::code::lead_first
                                     : std::is_same_v<Skip, skip::lead<1>> ? skip::code::lead_last
                                                                           : skip::code::leapfrog;
  static constexpr intersection_policy at(const kernel_context*, std::size_t) { return {}; }
};
template <>
struct intersection_policy<skip::runtime> {
  skip::code code = skip::code::leapfrog;
  static intersection_policy at(const kernel_context* ctx, std::size_t depth) {
    return {ctx != nullptr ? ctx->skip[depth] : skip::code::leapfrog};
  }
};

/// The entries left in a stream's fiber, or -1 when it does not say (a composite stream, or a
/// cursor with states that are not ready).
template <class S>
LOOM_FORCE_INLINE std::int64_t fiber_length(const S& s) {
  if constexpr (requires { s.end - s.p; typename S::cursor; }) {  // nested: clang 14 would
    if constexpr (!requires(const typename S::cursor& c) { c.ready(); })  // not see S::cursor fail
      return static_cast<std::int64_t>(s.end - s.p);
    else
      return -1;
  } else {
    return -1;
  }
}

/// skip::adaptive's choice for a pair of fibers: step (merge) unless their lengths are unknown or
/// differ by `skip::gallop_ratio` or more.
template <class A, class B>
LOOM_FORCE_INLINE bool merge_fibers(const A& a, const B& b) {
  const std::int64_t la = fiber_length(a), lb = fiber_length(b);
  if (la < 0 || lb < 0) return false;
  return la < skip::gallop_ratio * (lb + 1) && lb < skip::gallop_ratio * (la + 1);
}

template <class A, class B, class Op, class Skip = skip::adaptive>
struct mul_stream {
  static_assert(A::depth == B::depth);
  static constexpr std::size_t depth = A::depth;
  static constexpr bool contracted = false, strict = true, full = A::full && B::full,
                        locatable = false;
  A a{};
  B b{};
  Op op{};
  const kernel_context* ctx = nullptr;
  [[no_unique_address]] intersection_policy<Skip> policy = intersection_policy<Skip>::at(ctx, depth);
  static constexpr bool adaptive = std::is_same_v<Skip, skip::adaptive>;
  // adaptive: this pair of fibers is merged, and the stream always rests on a match (or is
  // exhausted): settled here, kept by next, seek and seek_past
  bool stepwise = adaptive && merge_fibers(a, b) && settle();
  static constexpr bool reads_policy = std::is_same_v<Skip, skip::runtime>;
  LOOM_FORCE_INLINE skip::code runtime_code() const { return policy.code; }

  /// This intersection, and those it is made of at the same loop, with policy P compiled in.
  template <class P>
  LOOM_FORCE_INLINE auto compiled() const {
    auto operand = [](const auto& x) {
      if constexpr (reads_policy_v<std::remove_cvref_t<decltype(x)>>) return x.template compiled<P>();
      else return x;
    };
    using CA = decltype(operand(a));
    using CB = decltype(operand(b));
    return mul_stream<CA, CB, Op, P>{operand(a), operand(b), op, ctx};
  }

  LOOM_FORCE_INLINE bool valid() const { return a.valid() && b.valid(); }
  LOOM_FORCE_INLINE std::int64_t index() const {
    if constexpr (adaptive)
      if (stepwise) return a.index();  // a match
    return std::max<std::int64_t>(a.index(), b.index());
  }
  LOOM_FORCE_INLINE bool ready() const {
    if constexpr (adaptive)
      if (stepwise) return true;  // a match (when valid)
    return a.ready() && b.ready() && a.index() == b.index();
  }
  LOOM_FORCE_INLINE auto value() const { return make_mul(op, a.value(), b.value(), ctx); }
  LOOM_FORCE_INLINE void seek(std::int64_t i) {
    a.seek(i);
    b.seek(i);
    if constexpr (adaptive)
      if (stepwise) to_match();
  }
  LOOM_FORCE_INLINE void seek_past(std::int64_t i) {
    a.seek_past(i);
    b.seek_past(i);
    if constexpr (adaptive)
      if (stepwise) to_match();
  }
  // δ: on a match the operands step as the policy says; otherwise the one behind catches up
  LOOM_FORCE_INLINE void next() {
    if constexpr (adaptive) {
      if (stepwise) {  // past this match, then to the next one
        a.next();
        b.next();
        return to_match();
      }
    }
    const skip::code c = policy.code;
    const std::int64_t ia = a.index(), ib = b.index();
    if (ia == ib) {
      if (a.ready() && b.ready()) {
        if (c == skip::code::lead_first) {
          a.next();  // b is probed at a's next index below
          if (a.valid() && b.index() < a.index()) b.seek(a.index());
        } else if (c == skip::code::lead_last) {
          b.next();
          if (b.valid() && a.index() < b.index()) a.seek(b.index());
        } else {
          a.next();
          b.next();
        }
      } else {
        a.seek(ia);
        b.seek(ib);
      }
    } else if (ia < ib) {
      if (adaptive && stepwise) {
        a.next();
      } else if (c == skip::code::merge || c == skip::code::lead_first) {
        a.next();
        if (c == skip::code::lead_first)
          if (a.valid() && b.index() < a.index()) b.seek(a.index());
      } else {
        a.seek(ib);
      }
    } else {
      if (adaptive && stepwise) {
        b.next();
      } else if (c == skip::code::merge || c == skip::code::lead_last) {
        b.next();
        if (c == skip::code::lead_last)
          if (b.valid() && a.index() < b.index()) a.seek(b.index());
      } else {
        b.seek(ia);
      }
    }
  }

 private:
  // adaptive, merged fibers (every state ready): the one behind steps until the indices meet,
  // in one tight loop, as the hand-written merge does; the run loop sees matches only
  LOOM_FORCE_INLINE bool settle() {
    to_match();
    return true;
  }
  LOOM_FORCE_INLINE void to_match() {
    while (a.valid() && b.valid()) {
      const std::int64_t ia = a.index(), ib = b.index();
      if (ia == ib) return;
      if (ia < ib) a.next();
      else b.next();
    }
  }
};

/// Whether a locatable stream holds index i: always for a full one; else its `contains`, when
/// it has one (a stream without it locates absent indices to zero, harmless in a product).
template <class S>
LOOM_FORCE_INLINE bool contains(const S& s, std::int64_t i) {
  if constexpr (S::full) return true;
  else if constexpr (requires { s.contains(i); }) return s.contains(i);
  else return true;
}

// lookup_stream<A, B, Op, Flip>: iterate A, locate B at A's index (B locatable). Where B is not
// full (hashed, bitmap, banded), A's states whose index B lacks are stepped over as soon as A
// reaches them, so the product emits no zeros and stays strict, and every skip progresses.
template <class A, class B, class Op, bool Flip>
struct lookup_stream {
  static constexpr std::size_t depth = A::depth;
  static constexpr bool contracted = false, strict = A::strict, full = A::full && B::full,
                        locatable = A::locatable;
  A a{};
  B b{};
  Op op{};
  const kernel_context* ctx = nullptr;

  lookup_stream() = default;
  LOOM_FORCE_INLINE lookup_stream(const A& a_, const B& b_, const Op& op_,
                                  const kernel_context* c)
      : a(a_), b(b_), op(op_), ctx(c) {
    settle();
  }

  LOOM_FORCE_INLINE bool contains(std::int64_t i) const
    requires(A::locatable)
  {
    return stream::contains(a, i) && stream::contains(b, i);
  }
  LOOM_FORCE_INLINE bool valid() const { return a.valid(); }
  LOOM_FORCE_INLINE std::int64_t index() const { return a.index(); }
  LOOM_FORCE_INLINE bool ready() const { return a.ready(); }
  LOOM_FORCE_INLINE std::int64_t remaining() const { return full ? remaining_of(a) : -1; }
  LOOM_FORCE_INLINE auto value() const { return combine(a.value(), b.locate(a.index())); }
  LOOM_FORCE_INLINE auto locate(std::int64_t i) const { return combine(a.locate(i), b.locate(i)); }
  LOOM_FORCE_INLINE void seek(std::int64_t i) {
    a.seek(i);
    settle();
  }
  LOOM_FORCE_INLINE void seek_past(std::int64_t i) {
    a.seek_past(i);
    settle();
  }
  LOOM_FORCE_INLINE void next() {
    a.next();
    settle();
  }

 private:
  // step A over ready states at indices B lacks (no-op when B is full)
  LOOM_FORCE_INLINE void settle() {
    if constexpr (!B::full)
      while (a.valid() && a.ready() && !stream::contains(b, a.index())) a.next();
  }
  template <class X, class Y>
  LOOM_FORCE_INLINE auto combine(const X& x, const Y& y) const {
    if constexpr (Flip) return make_mul(op, y, x, ctx);
    else return make_mul(op, x, y, ctx);
  }
};

// scaled_stream<A, X, Op, Flip>: A's levels, each value combined with X (X deeper than A).
template <class A, class X, class Op, bool Flip>
struct scaled_stream {
  static constexpr std::size_t depth = A::depth;
  static constexpr bool contracted = A::contracted, strict = A::strict, full = A::full,
                        locatable = A::locatable, dense_range = dense_range_v<A>;
  A a{};
  X x{};
  Op op{};
  const kernel_context* ctx = nullptr;

  LOOM_FORCE_INLINE bool valid() const { return a.valid(); }
  LOOM_FORCE_INLINE std::int64_t index() const { return a.index(); }
  LOOM_FORCE_INLINE bool ready() const { return a.ready(); }
  LOOM_FORCE_INLINE std::int64_t remaining() const { return remaining_of(a); }
  LOOM_FORCE_INLINE auto value() const { return combine(a.value()); }
  LOOM_FORCE_INLINE auto locate(std::int64_t i) const { return combine(a.locate(i)); }
  LOOM_FORCE_INLINE void seek(std::int64_t i) { a.seek(i); }
  LOOM_FORCE_INLINE void seek_past(std::int64_t i) { a.seek_past(i); }
  LOOM_FORCE_INLINE void next() { a.next(); }

 private:
  template <class V>
  LOOM_FORCE_INLINE auto combine(const V& v) const {
    if constexpr (Flip) return make_mul(op, x, v, ctx);
    else return make_mul(op, v, x, ctx);
  }
};

// union_stream<A, B, Op>: Lean's Stream.add; ready and value decided by comparing
// (index, ready) lexicographically, never by index alone (notes §4.2, T4). Each child's
// (index, ready) is read once per move and cached, so chains of unions stay linear.
template <class A, class B, class Op>
struct union_stream {
  static_assert(A::depth == B::depth && A::contracted == B::contracted);
  static constexpr std::size_t depth = A::depth;
  static constexpr bool contracted = A::contracted, strict = A::strict && B::strict,
                        full = A::full || B::full, locatable = A::locatable && B::locatable;
  A a{};
  B b{};
  Op op{};
  const kernel_context* ctx = nullptr;
  std::int64_t ka = top_index, kb = top_index;  // index, or top when exhausted
  bool ra = false, rb = false;                  // valid and ready

  union_stream() = default;
  LOOM_FORCE_INLINE union_stream(const A& a_, const B& b_, const Op& op_, const kernel_context* c)
      : a(a_), b(b_), op(op_), ctx(c) {
    refresh();
  }

  LOOM_FORCE_INLINE bool valid() const { return ka != top_index || kb != top_index; }
  LOOM_FORCE_INLINE std::int64_t index() const { return std::min(ka, kb); }
  LOOM_FORCE_INLINE bool take_a() const { return ra && lex_le(ka, ra, kb, rb); }
  LOOM_FORCE_INLINE bool take_b() const { return rb && lex_le(kb, rb, ka, ra); }
  LOOM_FORCE_INLINE bool ready() const { return take_a() || take_b(); }
  LOOM_FORCE_INLINE auto value() const {
    using va = std::remove_cvref_t<decltype(a.value())>;
    using vb = std::remove_cvref_t<decltype(b.value())>;
    return make_union(op, take_a() ? a.value() : zero_of<va>(), take_b() ? b.value() : zero_of<vb>(),
                      ctx);
  }
  LOOM_FORCE_INLINE auto locate(std::int64_t i) const
    requires(A::locatable && B::locatable)
  {
    return make_union(op, a.locate(i), b.locate(i), ctx);
  }
  LOOM_FORCE_INLINE void seek(std::int64_t i) {
    if (ka != top_index) a.seek(i);
    if (kb != top_index) b.seek(i);
    refresh();
  }
  LOOM_FORCE_INLINE void seek_past(std::int64_t i) {
    if (ka != top_index) a.seek_past(i);
    if (kb != top_index) b.seek_past(i);
    refresh();
  }
  LOOM_FORCE_INLINE void next() {
    const bool sa = take_a(), sb = take_b();
    if (sa || sb) {  // step exactly the children that were emitted
      if (sa) a.next();
      if (sb) b.next();
    } else {  // not ready: the smaller child must progress towards the common index
      const std::int64_t i = index();
      if (ka == i) a.seek(i);
      if (kb == i) b.seek(i);
    }
    refresh();
  }

 private:
  LOOM_FORCE_INLINE void refresh() {
    read(a, ka, ra);
    read(b, kb, rb);
  }
  template <class S>
  static LOOM_FORCE_INLINE void read(const S& s, std::int64_t& k, bool& r) {
    if (!s.valid()) {
      k = top_index;
      r = false;
      return;
    }
    if constexpr (contracted) k = 0;  // every state of a contracted stream has index *
    else k = s.index();
    r = s.ready();
  }
  static LOOM_FORCE_INLINE bool lex_le(std::int64_t i, bool r, std::int64_t j, bool q) {
    return i < j || (i == j && (!r || q));
  }
};

// contract_stream<S>: Σ over S's attribute: the same states, index *, values summed by the
// consumer. Lawful but not strict: never an operand of an intersection.
template <class S>
struct contract_stream {
  static constexpr std::size_t depth = S::depth;
  static constexpr bool contracted = true, strict = false, full = false, locatable = false;
  /// Σ over every index of a range: every state is ready (the partial sums of lane_sum)
  static constexpr bool dense_range = S::full && !reads_policy_v<S>;
  S s{};
  const kernel_context* ctx = nullptr;
  LOOM_FORCE_INLINE std::int64_t remaining() const { return remaining_of(s); }

  LOOM_FORCE_INLINE bool valid() const { return s.valid(); }
  LOOM_FORCE_INLINE std::int64_t index() const { return s.index(); }
  LOOM_FORCE_INLINE bool ready() const { return s.ready(); }
  LOOM_FORCE_INLINE auto value() const { return s.value(); }
  // a skip to (*, r) is a skip to the stream's own (index, r)
  LOOM_FORCE_INLINE void seek(std::int64_t) { s.seek(s.index()); }
  LOOM_FORCE_INLINE void seek_past(std::int64_t) { s.seek_past(s.index()); }
  LOOM_FORCE_INLINE void next() { s.next(); }

  // a sum over an intersection that reads its policy: compiled in by the loop that reduces it
  static constexpr bool reads_policy = reads_policy_v<S>;
  LOOM_FORCE_INLINE skip::code runtime_code() const { return s.runtime_code(); }
  template <class P>
  LOOM_FORCE_INLINE auto compiled() const {
    using C = decltype(s.template compiled<P>());
    return contract_stream<C>{s.template compiled<P>(), ctx};
  }
};

// expand_stream<Depth, X>: X repeated at every index of [0, n); full and locatable.
template <std::size_t Depth, class X>
struct expand_stream {
  static constexpr std::size_t depth = Depth;
  static constexpr bool contracted = false, strict = true, full = true, locatable = true;
  X x{};
  std::int64_t i = 0, n = 0;

  LOOM_FORCE_INLINE bool valid() const { return i < n; }
  LOOM_FORCE_INLINE std::int64_t index() const { return i; }
  LOOM_FORCE_INLINE bool ready() const { return true; }
  LOOM_FORCE_INLINE X value() const { return x; }  // a fresh copy: inner streams restart
  LOOM_FORCE_INLINE X locate(std::int64_t) const { return x; }
  LOOM_FORCE_INLINE void seek(std::int64_t j) { i = std::max(i, j); }
  LOOM_FORCE_INLINE void seek_past(std::int64_t j) { i = std::max(i, j + 1); }
  LOOM_FORCE_INLINE void next() {
    LOOM_COUNT_WORK(steps);  // a counted loop (no operand stores this index)
    ++i;
  }
};

// once_stream<Depth, X>: a contracted stream emitting X exactly once (X added to a sum).
template <std::size_t Depth, class X>
struct once_stream {
  static constexpr std::size_t depth = Depth;
  static constexpr bool contracted = true, strict = true, full = false, locatable = false;
  X x{};
  bool done = true;

  LOOM_FORCE_INLINE bool valid() const { return !done; }
  LOOM_FORCE_INLINE std::int64_t index() const { return 0; }
  LOOM_FORCE_INLINE bool ready() const { return true; }
  LOOM_FORCE_INLINE X value() const { return x; }
  LOOM_FORCE_INLINE void seek(std::int64_t) {}
  LOOM_FORCE_INLINE void seek_past(std::int64_t) { done = true; }
  LOOM_FORCE_INLINE void next() { done = true; }
};

// deep_map_stream<S, G>: S with g applied to each value (g places Σ, expand or f deeper).
template <class S, class G>
struct deep_map_stream {
  static constexpr std::size_t depth = S::depth;
  static constexpr bool contracted = S::contracted, strict = S::strict, full = S::full,
                        locatable = S::locatable, dense_range = dense_range_v<S>;
  S s{};
  G g{};

  LOOM_FORCE_INLINE bool valid() const { return s.valid(); }
  LOOM_FORCE_INLINE std::int64_t index() const { return s.index(); }
  LOOM_FORCE_INLINE bool ready() const { return s.ready(); }
  LOOM_FORCE_INLINE std::int64_t remaining() const { return remaining_of(s); }
  LOOM_FORCE_INLINE auto value() const { return g(s.value()); }
  LOOM_FORCE_INLINE auto locate(std::int64_t i) const
    requires(S::locatable)
  {
    return g(s.locate(i));
  }
  LOOM_FORCE_INLINE void seek(std::int64_t i) { s.seek(i); }
  LOOM_FORCE_INLINE void seek_past(std::int64_t i) { s.seek_past(i); }
  LOOM_FORCE_INLINE void next() { s.next(); }
};

// apply_linear: a linear scalar function (negate, divide, scale) at every leaf, through sums.
template <class F>
struct apply_linear {
  F f{};
  template <class X>
  LOOM_FORCE_INLINE auto operator()(const X& x) const {
    if constexpr (is_stream_v<X>) return deep_map_stream<X, apply_linear>{x, *this};
    else return static_cast<X>(f(x));
  }
};

// apply_nonlinear: f(v) at every leaf, after reducing any contracted level (f(Σ) ≠ Σ f).
template <class F>
struct apply_nonlinear {
  F f{};
  template <class X>
  LOOM_FORCE_INLINE auto operator()(const X& x) const {
    if constexpr (!is_stream_v<X>) return static_cast<X>(f(x));
    else if constexpr (X::contracted) return (*this)(reduce_checked(x));
    else return deep_map_stream<X, apply_nonlinear>{x, *this};
  }
};

// Two free operands at the same depth, neither full: the loop's skip policy decides who iterates.
//  | policy          | B locatable (hashed, bitmap)  | A locatable only      | neither          |
//  |-----------------|-------------------------------|-----------------------|------------------|
//  | standard        | iterate A, locate B           | iterate B, locate A   | adaptive (merge, |
//  |                 |                               |                       | gallop if skewed)|
//  | lead<0>         | iterate A, locate B           | iterate A, B seeks    | A leads, B seeks |
//  | lead<1>         | iterate B; A located or seeks | iterate B, locate A   | B leads, A seeks |
//  | leapfrog, merge | both iterate (mul_stream)     | both iterate          | both iterate     |
template <class Skip, class Op, class A, class B>
LOOM_FORCE_INLINE auto make_intersection(const Op& op, const A& a, const B& b,
                                         const kernel_context* ctx) {
  if constexpr (std::is_same_v<Skip, skip::runtime> && !A::locatable && !B::locatable) {
    return mul_stream<A, B, Op, skip::runtime>{a, b, op, ctx};
  } else if constexpr (std::is_same_v<Skip, skip::standard> || std::is_same_v<Skip, skip::runtime>) {
    if constexpr (B::locatable) return lookup_stream<A, B, Op, false>{a, b, op, ctx};
    else if constexpr (A::locatable) return lookup_stream<B, A, Op, true>{b, a, op, ctx};
    else return mul_stream<A, B, Op>{a, b, op, ctx};
  } else if constexpr (std::is_same_v<Skip, skip::lead<0>> && B::locatable) {
    return lookup_stream<A, B, Op, false>{a, b, op, ctx};
  } else if constexpr (std::is_same_v<Skip, skip::lead<1>> && A::locatable) {
    return lookup_stream<B, A, Op, true>{b, a, op, ctx};
  } else {
    return mul_stream<A, B, Op, Skip>{a, b, op, ctx};
  }
}

template <class Op, class A, class B>
LOOM_FORCE_INLINE auto make_mul(const Op& op, const A& a, const B& b, const kernel_context* ctx) {
  constexpr std::size_t da = depth_of<A>(), db = depth_of<B>();
  if constexpr (!is_stream_v<A> && !is_stream_v<B>) {
    return op(a, b);
  } else if constexpr (da == db) {
    if constexpr (A::contracted || B::contracted) {
      // two sums over the same index: materialise each (notes §4.10 option c)
      return make_mul(op, reduce_checked(a), reduce_checked(b), ctx);
    } else if constexpr (B::full && B::locatable) {  // a full operand is always located
      return lookup_stream<A, B, Op, false>{a, b, op, ctx};
    } else if constexpr (A::full && A::locatable) {
      return lookup_stream<B, A, Op, true>{b, a, op, ctx};
    } else {
      return make_intersection<skip::of_op_at<Op, da>>(op, a, b, ctx);
    }
  } else if constexpr (da < db) {
    if constexpr (A::contracted && !Op::linear_left) return make_mul(op, reduce_checked(a), b, ctx);
    else return scaled_stream<A, B, Op, false>{a, b, op, ctx};
  } else {
    if constexpr (B::contracted && !Op::linear_right) return make_mul(op, a, reduce_checked(b), ctx);
    else return scaled_stream<B, A, Op, true>{b, a, op, ctx};
  }
}

template <class Op, class A, class B>
LOOM_FORCE_INLINE auto make_union(const Op& op, const A& a, const B& b, const kernel_context* ctx) {
  constexpr std::size_t da = depth_of<A>(), db = depth_of<B>();
  if constexpr (!Op::linear && (is_contracted<A>() || is_contracted<B>())) {
    if constexpr (is_contracted<A>()) return make_union(op, reduce_checked(a), b, ctx);
    else return make_union(op, a, reduce_checked(b), ctx);
  } else if constexpr (!is_stream_v<A> && !is_stream_v<B>) {
    return op(a, b);
  } else if constexpr (da == db) {
    return union_stream<A, B, Op>{a, b, op, ctx};
  } else if constexpr (da < db) {
    if constexpr (A::contracted) {
      return union_stream<A, once_stream<da, B>, Op>{a, {b, false}, op, ctx};
    } else {
      return union_stream<A, expand_stream<da, B>, Op>{a, {b, 0, ctx->extents[da]}, op, ctx};
    }
  } else {
    if constexpr (B::contracted) {
      return union_stream<once_stream<db, A>, B, Op>{{a, false}, b, op, ctx};
    } else {
      return union_stream<expand_stream<db, A>, B, Op>{{a, 0, ctx->extents[db]}, b, op, ctx};
    }
  }
}

}  // namespace loom::stream

#endif  // LOOM_STREAM_COMBINATORS_HPP
// ---- end <loom/stream/combinators.hpp>
// ---- begin <loom/stream/level_streams.hpp>
// Defines the streams over stored levels: level_stream, which turns any level's cursor into
// an indexed stream, and the strided stream of all-dense tensors, which may be walked in any
// mode order (stream/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_STREAM_LEVEL_STREAMS_HPP
#define LOOM_STREAM_LEVEL_STREAMS_HPP


#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace loom::stream {

/// Static description of one access under a loop order: which depth each level iterates.
template <class Tensor, class Order, class... Is>
struct access_layout {
  using tensor_type = std::remove_const_t<Tensor>;
  using format = typename tensor_type::format_type;
  using value_type = typename tensor_type::value_type;
  static constexpr std::size_t order = format::order;
  /// depth_of_mode[m]: position in the loop order of the index used for mode m
  static constexpr std::array<std::size_t, order> depth_of_mode{
      boost::mp11::mp_find<Order, Is>::value...};
  static constexpr std::array<std::size_t, order> depth_of_level = [] {
    std::array<std::size_t, order> d{};
    for (std::size_t k = 0; k < order; ++k) d[k] = depth_of_mode[format::modes[k]];
    return d;
  }();
  /// modes sorted by depth: the walk order of the strided (all-dense) stream
  static constexpr std::array<std::size_t, order> modes_by_depth = [] {
    std::array<std::size_t, order> m{};
    for (std::size_t k = 0; k < order; ++k) m[k] = k;
    std::sort(m.begin(), m.end(),
              [](std::size_t a, std::size_t b) { return depth_of_mode[a] < depth_of_mode[b]; });
    return m;
  }();
  template <std::size_t K>
  using level = boost::mp11::mp_at_c<typename format::levels, K>;
};

template <class Layout, std::size_t K, skip_policy P>
struct level_stream;

/// The stream of level K of a tensor below the parent position range [begin, end), or the value
/// at position `begin` past the last level. Every level, built-in or user-defined, goes through
/// its own customisation point `Level::iterate<P>(storage, begin, end)`, which yields a cursor.
template <class Layout, std::size_t K, skip_policy P = skip_policy::galloping>
LOOM_FORCE_INLINE auto make_level(const typename Layout::tensor_type* t, std::int64_t begin,
                                  std::int64_t end) {
  if constexpr (K == Layout::order) {
    (void)end;
    return t->values()[static_cast<std::size_t>(begin)];
  } else {
    using level = typename Layout::template level<K>;
    return level_stream<Layout, K, P>{
        t, level::template iterate<P>(t->template level<K>(), begin, end)};
  }
}

template <class Layout, std::size_t K, skip_policy P>
using level_cursor_t = decltype(Layout::template level<K>::template iterate<P>(
    std::declval<const typename Layout::tensor_type&>().template level<K>(), std::int64_t{},
    std::int64_t{}));

// level_stream<Layout, K, P>: a level's cursor as an indexed stream. The cursor moves; this
// adds the stream's static facts (depth, strict, full, locatable) and builds the next level's
// stream from the cursor's child positions. Strict: a cursor emits each coordinate once.
template <class Layout, std::size_t K, skip_policy P>
struct level_stream : level_cursor_t<Layout, K, P> {
  using level = typename Layout::template level<K>;
  using cursor = level_cursor_t<Layout, K, P>;
  static constexpr std::size_t depth = Layout::depth_of_level[K];
  static constexpr bool contracted = false, strict = true, full = level::properties.full,
                        locatable = level::properties.random_access;
  const typename Layout::tensor_type* tensor_ = nullptr;

  level_stream() = default;
  LOOM_FORCE_INLINE level_stream(const typename Layout::tensor_type* t, const cursor& c)
      : cursor(c), tensor_(t) {}

  LOOM_FORCE_INLINE bool ready() const {
    if constexpr (requires(const cursor& c) { c.ready(); }) return cursor::ready();
    else return true;
  }
#ifdef LOOM_WORK_COUNTERS  // the cursor's moves, counted (core/work_counters.hpp)
  LOOM_FORCE_INLINE void next() {
    LOOM_COUNT_WORK(steps);
    cursor::next();
  }
  LOOM_FORCE_INLINE void seek(std::int64_t j) {
    LOOM_COUNT_WORK(seeks);
    cursor::seek(j);
  }
  LOOM_FORCE_INLINE void seek_past(std::int64_t j) {
    LOOM_COUNT_WORK(seeks);
    cursor::seek_past(j);
  }
#endif
  LOOM_FORCE_INLINE auto value() const { return child(this->children()); }
  // whether coordinate j is stored (a product skips the absent ones instead of emitting zeros)
  LOOM_FORCE_INLINE bool contains(std::int64_t j) const
    requires(locatable)
  {
    LOOM_COUNT_WORK(probes);
    if constexpr (full) return true;
    else return !cursor::locate(j).empty();
  }
  // the value at coordinate j: the next level, or zero (an empty stream) when j is absent
  LOOM_FORCE_INLINE auto locate(std::int64_t j) const
    requires(locatable)
  {
    LOOM_COUNT_WORK(probes);
    const level_range r = cursor::locate(j);
    using V = decltype(child(r));
    if constexpr (!level::properties.full)
      if (r.empty()) return zero_of<V>();
    return child(r);
  }

 private:
  LOOM_FORCE_INLINE auto child(const level_range& r) const {
    return make_level<Layout, K + 1, P>(tensor_, r.begin, r.end);
  }
};

/// The streams of the built-in levels, by their historical names.
template <class Layout, std::size_t K, skip_policy P = skip_policy::galloping>
using coordinate_stream = level_stream<Layout, K, P>;
template <class Layout, std::size_t K>
using dense_level_stream = level_stream<Layout, K, skip_policy::galloping>;

// strided_stream<Layout, R>: the R-th mode (by depth) of an all-dense tensor, walked in any
// order by offset arithmetic, so dense operands never force a loop order (locate, not iterate).
template <class Layout, std::size_t R>
struct strided_stream;

template <class Layout, std::size_t R>
LOOM_FORCE_INLINE auto make_strided(const typename Layout::tensor_type* t, std::int64_t offset) {
  if constexpr (R == Layout::order) {
    return t->values()[static_cast<std::size_t>(offset)];
  } else {
    constexpr std::size_t mode = Layout::modes_by_depth[R];
    constexpr std::size_t level = Layout::format::level_of_mode[mode];
    std::int64_t stride = 1;
    [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      ((Ks > level ? (stride *= t->template level<Ks>().extent) : 0), ...);
    }(std::make_index_sequence<Layout::order>{});
    return strided_stream<Layout, R>{t, offset, stride, 0, t->extent(mode)};
  }
}

template <class Layout, std::size_t R>
struct strided_stream {
  static constexpr std::size_t depth = Layout::depth_of_mode[Layout::modes_by_depth[R]];
  static constexpr bool contracted = false, strict = true, full = true, locatable = true;
  const typename Layout::tensor_type* t = nullptr;
  std::int64_t offset = 0, stride = 0, i = 0, n = 0;

  LOOM_FORCE_INLINE bool valid() const { return i < n; }
  LOOM_FORCE_INLINE std::int64_t index() const { return i; }
  LOOM_FORCE_INLINE bool ready() const { return true; }
  LOOM_FORCE_INLINE auto value() const { return make_strided<Layout, R + 1>(t, offset + i * stride); }
  LOOM_FORCE_INLINE auto locate(std::int64_t j) const {
    LOOM_COUNT_WORK(probes);
    return make_strided<Layout, R + 1>(t, offset + j * stride);
  }
  LOOM_FORCE_INLINE void seek(std::int64_t j) {
    LOOM_COUNT_WORK(seeks);
    i = std::max(i, j);
  }
  LOOM_FORCE_INLINE void seek_past(std::int64_t j) {
    LOOM_COUNT_WORK(seeks);
    i = std::max(i, j + 1);
  }
  LOOM_FORCE_INLINE void next() {
    LOOM_COUNT_WORK(steps);
    ++i;
  }
};

}  // namespace loom::stream

#endif  // LOOM_STREAM_LEVEL_STREAMS_HPP
// ---- end <loom/stream/level_streams.hpp>
// ---- begin <loom/stream/run.hpp>
// Defines the run loops that drive a stream tree into a destination: a dense array, or a
// coordinate sink that assembles a sparse output (stream/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_STREAM_RUN_HPP
#define LOOM_STREAM_RUN_HPP


#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom::stream {

// The loop template of Etch (notes §5.3) specialised by stream kind: the δ step is `next()`,
// which always-ready levels turn into `++position`, so a compressed level becomes a plain
// counted loop and a dense level a `for`.

/// reduce with a flag telling whether any value was emitted (sparse outputs skip empty sums).
template <class X>
LOOM_FORCE_INLINE auto reduce_touched(const X& x) {
  using leaf = leaf_t<X>;
  if constexpr (!is_stream_v<X>) {
    return std::pair<leaf, bool>{x, true};
  } else if constexpr (lane_reducible<X>) {  // every index of a dense range is emitted
    return std::pair<leaf, bool>{reduce(x), x.valid()};
  } else if constexpr (reads_policy_v<X>) {
    return with_compiled_policy(x, [](const auto& y) { return reduce_touched(y); });
  } else {
    leaf acc = semiring_traits<leaf>::zero();
    bool touched = false;
    X s = x;
    while (s.valid()) {
      if (s.ready()) {
        if constexpr (is_stream_v<decltype(s.value())>) {
          auto [v, t] = reduce_touched(s.value());
          if (t) {
            acc = semiring_traits<leaf>::add(acc, v);
            touched = true;
          }
        } else {
          acc = semiring_traits<leaf>::add(acc, s.value());
          touched = true;
        }
      }
      s.next();
    }
    return std::pair<leaf, bool>{acc, touched};
  }
}

/// The walk of an output written in place: each value lands at cell `off + Σ index·stride[depth]`
/// through `cell(off, value)`. A sum that emits nothing reaches no cell when the cell records
/// presence (`Cell::presence`), as a sparse output would; otherwise it adds zero.
template <class Cell, class S>
LOOM_FORCE_INLINE void run_located(const Cell& cell, const std::int64_t* strides, const S& s,
                                   std::int64_t off) {
  if constexpr (!is_stream_v<S>) {
    LOOM_COUNT_WORK(writes);
    cell(off, s);
  } else if constexpr (reducible<S>() && Cell::presence) {
    const auto [v, touched] = reduce_touched(s);
    if (touched) {
      LOOM_COUNT_WORK(writes);
      cell(off, v);
    }
  } else if constexpr (reducible<S>()) {
    LOOM_COUNT_WORK(writes);
    cell(off, reduce(s));  // local sum
  } else if constexpr (reads_policy_v<S>) {
    with_compiled_policy(s, [&](const auto& y) { run_located(cell, strides, y, off); });
  } else {
    S st = s;
    while (st.valid()) {
      if (st.ready()) {
        if constexpr (S::contracted) run_located(cell, strides, st.value(), off);
        else run_located(cell, strides, st.value(), off + st.index() * strides[S::depth]);
      }
      st.next();
    }
  }
}

/// A dense output's cell: `vals[off] += value`.
template <class T>
struct dense_cell {
  static constexpr bool presence = false;
  T* vals;
  LOOM_FORCE_INLINE void operator()(std::int64_t off, const auto& v) const {
    vals[off] = semiring_traits<T>::add(vals[off], static_cast<T>(v));
  }
};

/// A `format<dense..., bitmap>` output's cell (Galley's bytemap): the value accumulated like a
/// dense one, and the presence bit at the same position set.
template <class T>
struct bitmap_cell {
  static constexpr bool presence = true;
  T* vals;
  std::uint64_t* bits;
  LOOM_FORCE_INLINE void operator()(std::int64_t off, const auto& v) const {
    vals[off] = semiring_traits<T>::add(vals[off], static_cast<T>(v));
    bits[off >> 6] |= std::uint64_t{1} << (off & 63);
  }
};

/// Accumulates a stream into a dense array: `vals[off + Σ index·stride[depth]] += value`.
template <class T, class S>
LOOM_FORCE_INLINE void run_dense(T* vals, const std::int64_t* strides, const S& s,
                                 std::int64_t off) {
  run_located(dense_cell<T>{vals}, strides, s, off);
}

/// Collects the entries of a sparse output in order (coordinates in the output's storage
/// order): the loop order emits each output coordinate once, ascending.
/// Where sinks put finished entries: a plain list (merged later with existing entries).
template <class T, std::size_t N>
struct entry_list {
  std::vector<std::array<std::int64_t, N>> crd;
  std::vector<T> vals;
  LOOM_FORCE_INLINE void push(const std::array<std::int64_t, N>& c, const T& v) {
    crd.push_back(c);
    vals.push_back(v);
  }
};

/// What an append sink writes through: the output's row writer, held by value, when it has one
/// (a csr-like appender), else nothing (entries go to `out.push`).
struct no_writer {};
template <class Out>
struct writer_of {
  using type = no_writer;
};
template <class Out>
  requires requires(Out& o) { o.take_writer(); }
struct writer_of<Out> {
  using type = decltype(std::declval<Out&>().take_writer());
};
template <class Out>
typename writer_of<Out>::type take_writer(Out& out) {
  if constexpr (std::is_same_v<typename writer_of<Out>::type, no_writer>) return {};
  else return out.take_writer();
}

/// `DepthOfLevel[k]`: the loop depth that iterates output level k, a constant, so that the
/// current indices stay in registers rather than in an array read through a runtime map.
template <class T, std::size_t N, class Out, std::array<std::size_t, N> DepthOfLevel>
struct append_sink {
  using value_type = T;
  static constexpr std::array<std::size_t, N> depth_of_level = DepthOfLevel;
  static constexpr bool writes_rows = !std::is_same_v<typename writer_of<Out>::type, no_writer>;
  Out& out;
  std::array<std::int64_t, 32> at_depth{};  // current index of each depth
  [[no_unique_address]] typename writer_of<Out>::type writer = take_writer(out);

  LOOM_FORCE_INLINE void push(const T& v) {
    if constexpr (writes_rows) {
      writer.push(at_depth[DepthOfLevel[0]], at_depth[DepthOfLevel[1]], v);
    } else {
      [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
        out.push(std::array<std::int64_t, N>{at_depth[DepthOfLevel[Ks]]...}, v);
      }(std::make_index_sequence<N>{});
    }
  }
  LOOM_FORCE_INLINE void end_of(std::size_t) {}
  void finish() {
    if constexpr (writes_rows) out.return_writer(writer);
  }
};

/// A sink that writes values only, in order: the output's pattern is an operand's
/// (plan::pattern_of), copied beforehand. The value array is held by value (in registers).
template <class T, class Values>
struct values_sink {
  using value_type = T;
  Values values;
  std::array<std::int64_t, 32> at_depth{};
  LOOM_FORCE_INLINE void push(const T& v) { values.push(v); }
  LOOM_FORCE_INLINE void end_of(std::size_t) {}
  void finish() {}
};

/// Drives a stream into a sink (append or workspace).
template <class Sink, class S>
LOOM_FORCE_INLINE void run_sparse(Sink& sink, const S& s) {
  using T = typename Sink::value_type;
  if constexpr (!is_stream_v<S>) {
    LOOM_COUNT_WORK(writes);
    sink.push(static_cast<T>(s));
  } else if constexpr (reducible<S>()) {
    auto [v, touched] = reduce_touched(s);
    if (touched) {
      LOOM_COUNT_WORK(writes);
      sink.push(static_cast<T>(v));
    }
  } else if constexpr (reads_policy_v<S>) {
    with_compiled_policy(s, [&](const auto& y) { run_sparse(sink, y); });
  } else {
    S st = s;
    while (st.valid()) {
      if (st.ready()) {
        if constexpr (!S::contracted) sink.at_depth[S::depth] = st.index();
        run_sparse(sink, st.value());
        if constexpr (!S::contracted) sink.end_of(S::depth);
      }
      st.next();
    }
  }
}

}  // namespace loom::stream

#endif  // LOOM_STREAM_RUN_HPP
// ---- end <loom/stream/run.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <tuple>
#include <type_traits>
#include <vector>

namespace loom::parallel {

namespace detail {

template <class S>
struct is_contract : std::false_type {};
template <class S>
struct is_contract<stream::contract_stream<S>> : std::true_type {};
template <class S>
struct is_union : std::false_type {};
template <class A, class B, class Op>
struct is_union<stream::union_stream<A, B, Op>> : std::true_type {};
template <class S>
struct is_deep_map : std::false_type {};
template <class S, class G>
struct is_deep_map<stream::deep_map_stream<S, G>> : std::true_type {};
template <class S>
struct is_scaled : std::false_type {};
template <class A, class X, class Op, bool F>
struct is_scaled<stream::scaled_stream<A, X, Op, F>> : std::true_type {};

// Whether a root stream's index() is the outer loop's real index, so that its states can be
// split into index ranges. Every free stream's is; a sum's is when it wraps one (a union of
// sums reports index 0 for every state: not splittable, runs serially).
template <class S>
constexpr bool outer_indexed() {
  if constexpr (!stream::is_stream_v<S>) return false;
  else if constexpr (!S::contracted) return true;
  else if constexpr (is_contract<S>::value) return !std::remove_cvref_t<decltype(std::declval<S&>().s)>::contracted;
  else if constexpr (is_deep_map<S>::value) return outer_indexed<std::remove_cvref_t<decltype(std::declval<S&>().s)>>();
  else if constexpr (is_scaled<S>::value) return outer_indexed<std::remove_cvref_t<decltype(std::declval<S&>().a)>>();
  else return false;
}

// Whether the outer loop (depth 0) iterates level 0 of this access.
template <class Tensor, class Order, class A>
struct outer_first : std::false_type {};
template <class Tensor, class Order, class U, class... Is>
struct outer_first<Tensor, Order, expr::access<U, Is...>>
    : std::bool_constant<stream::access_layout<Tensor, Order, Is...>::depth_of_level[0] == 0> {};

// Kernel calls whose outer loop was split so far (tests check that the split paths ran).
inline std::atomic<std::int64_t> split_loops{0};

}  // namespace detail

/// How many kernel calls have split their outer loop since the program started.
inline std::int64_t split_loop_count() { return detail::split_loops.load(std::memory_order_relaxed); }

/// Whether the kernel whose stream tree is `S` may split its outermost loop.
template <class S>
inline constexpr bool splittable_root = [] {
  if constexpr (!stream::is_stream_v<S>) return false;
  else return S::depth == 0 && detail::outer_indexed<S>();
}();

/// Moves a root stream to its first state that may hold an outer index >= lo: a sum forwards
/// to the stream it sums (its own seek stays in place, the index being "*").
template <class S>
void seek_outer(S& s, std::int64_t lo) {
  if constexpr (detail::is_contract<S>::value || detail::is_deep_map<S>::value) {
    seek_outer(s.s, lo);
  } else if constexpr (detail::is_scaled<S>::value) {
    seek_outer(s.a, lo);
  } else if constexpr (detail::is_union<S>::value) {
    if (s.a.valid()) seek_outer(s.a, lo);
    if (s.b.valid()) seek_outer(s.b, lo);
    s = S(s.a, s.b, s.op, s.ctx);  // re-reads both children
  } else {
    s.seek(lo);
  }
}

/// Runs the ready states of `root` whose outer index lies in [lo, hi): `emit(index, value)`.
template <class S, class Emit>
LOOM_FORCE_INLINE void for_outer_range(const S& root, std::int64_t lo, std::int64_t hi,
                                       Emit&& emit) {
  S st = root;
  seek_outer(st, lo);
  while (st.valid()) {
    const std::int64_t i = st.index();
    if (i >= hi) break;
    if (i >= lo && st.ready()) emit(i, st.value());
    st.next();
  }
}

/// The decision for one kernel call: whether and how its outer loop is split.
struct outer_split {
  bool active = false;
  unsigned threads = 1;
  bool deterministic = false;
  partition parts;
};

/// The most chunks a loop is split into. The count depends on the data and the options only
/// (never on the thread count), so deterministic mode is thread-count independent.
inline constexpr std::size_t max_chunks = 256;

/// Decides the split of a kernel's outer loop (extent `extent`): `Order` is the loop order,
/// `Accesses` the plan's accesses and `pointers` the tensors the kernel reads (one per access).
/// `reduction`: the outer index is summed (partials needed); `partial_size` is then the size of
/// one partial result, which bounds the chunk count in deterministic mode (64 MiB of partials).
template <class Order, class Accesses, class Pointers, class T>
outer_split decide_split(const Pointers& pointers, std::int64_t extent, bool reduction,
                         std::size_t partial_size) {
  outer_split d;
  const parallel_options o = current_parallel_options();
  d.deterministic = o.deterministic && reduction;
  d.threads = static_cast<unsigned>(std::max(1, o.threads));
  if (extent < 2 || (d.threads == 1 && !d.deterministic)) return d;
  // the work estimate, and the operand whose stored entries balance the chunks
  std::int64_t work = extent, lead_nnz = -1;
  std::size_t lead = static_cast<std::size_t>(-1);
  boost::mp11::mp_for_each<boost::mp11::mp_iota_c<std::tuple_size_v<Pointers>>>([&](auto k) {
    const auto* t = std::get<k>(pointers);
    if (t == nullptr) return;
    const std::int64_t nnz = t->nnz();
    work += nnz;
    using tensor_t = std::remove_cvref_t<decltype(*t)>;
    using A = boost::mp11::mp_at_c<Accesses, k>;
    if constexpr (tensor_t::order > 0 && !tensor_t::format_type::all_dense) {
      constexpr bool outer_first = detail::outer_first<tensor_t, Order, A>::value;
      if constexpr (outer_first)
        if (nnz > lead_nnz) lead_nnz = nnz, lead = k;
    }
  });
  if (work < o.min_work) return d;
  std::size_t chunks = static_cast<std::size_t>(
      std::clamp<std::int64_t>(work / o.chunk_work, 2, static_cast<std::int64_t>(max_chunks)));
  chunks = std::min<std::size_t>(chunks, static_cast<std::size_t>(extent));
  if (d.deterministic && partial_size > 0) {
    const std::size_t budget = (std::size_t{64} << 20) / sizeof(T) / partial_size;
    chunks = std::min(chunks, std::max<std::size_t>(budget, 1));
  }
  if (chunks < 2) return d;
  d.parts = split_evenly(extent, chunks);
  boost::mp11::mp_for_each<boost::mp11::mp_iota_c<std::tuple_size_v<Pointers>>>([&](auto k) {
    if (k == lead) d.parts = split_by_entries(*std::get<k>(pointers), extent, chunks);
  });
  d.active = d.parts.chunks() >= 2;
  if (d.active) detail::split_loops.fetch_add(1, std::memory_order_relaxed);
  return d;
}

/// Sets the first `n` values to `v` on the split's threads.
template <class T>
void fill(T* vals, std::size_t n, const T& v, unsigned threads) {
  constexpr std::size_t block = std::size_t{1} << 16;
  if (threads <= 1 || n < 2 * block) {
    std::fill(vals, vals + n, v);
    return;
  }
  const std::size_t blocks = (n + block - 1) / block;
  parallel_for(blocks, threads, [&](std::size_t b, unsigned) {
    std::fill(vals + b * block, vals + std::min(n, (b + 1) * block), v);
  });
}

/// The dense-output loop, split: `vals` (size `size`) is added to as by stream::run_dense.
/// A free outer index: each chunk adds into its own output elements. A summed outer index: each
/// thread (deterministic: each chunk) adds into a zeroed partial, then the partials are added
/// to `vals` element by element in thread (chunk) order.
template <class T, class S>
void run_dense(T* vals, std::size_t size, const std::int64_t* strides, const S& root,
               const outer_split& d) {
  const partition& p = d.parts;
  if constexpr (!S::contracted) {
    parallel_for(p.chunks(), d.threads, [&](std::size_t c, unsigned) {
      for_outer_range(root, p.lo(c), p.hi(c), [&](std::int64_t i, const auto& v) {
        stream::run_dense(vals, strides, v, i * strides[S::depth]);
      });
    });
  } else {
    const std::size_t partials = d.deterministic ? p.chunks() : std::min<std::size_t>(d.threads, p.chunks());
    std::vector<std::unique_ptr<T[]>> part(partials);
    parallel_for(p.chunks(), d.threads, [&](std::size_t c, unsigned slot) {
      const std::size_t k = d.deterministic ? c : slot;
      if (!part[k]) {  // allocated and zeroed by the thread that fills it
        part[k] = std::make_unique<T[]>(size);
        std::fill(part[k].get(), part[k].get() + size, semiring_traits<T>::zero());
      }
      T* buf = part[k].get();
      for_outer_range(root, p.lo(c), p.hi(c),
                      [&](std::int64_t, const auto& v) { stream::run_dense(buf, strides, v, 0); });
    });
    constexpr std::size_t block = std::size_t{1} << 14;
    const std::size_t blocks = (size + block - 1) / block;
    parallel_for(blocks, d.threads, [&](std::size_t b, unsigned) {
      const std::size_t end = std::min(size, (b + 1) * block);
      for (std::size_t k = 0; k < partials; ++k) {
        if (!part[k]) continue;
        const T* buf = part[k].get();
        for (std::size_t e = b * block; e < end; ++e)
          vals[e] = semiring_traits<T>::add(vals[e], buf[e]);
      }
    });
  }
}

/// Where a chunk's sink puts its entries: that chunk's list (a sink serving several chunks of
/// one thread is pointed at each chunk's list in turn).
template <class T, std::size_t N>
struct chunk_target {
  stream::entry_list<T, N>* list = nullptr;
  LOOM_FORCE_INLINE void push(const std::array<std::int64_t, N>& c, const T& v) { list->push(c, v); }
};

/// The sparse-output loop, split (the outer index is the output's first level): every chunk
/// collects its entries, in order, through its thread's sink (`make_sink(target)` builds and
/// configures one); the lists are then pushed into `entries` in chunk order, which is the order
/// the serial loop emits them in.
template <class T, std::size_t N, class Entries, class S, class MakeSink>
void run_sparse(Entries& entries, const S& root, const outer_split& d, const MakeSink& make_sink) {
  const partition& p = d.parts;
  using target = chunk_target<T, N>;
  using sink_type = std::remove_cvref_t<decltype(*make_sink(std::declval<target&>()))>;
  std::vector<stream::entry_list<T, N>> lists(p.chunks());
  const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(d.threads, p.chunks()));
  std::vector<target> targets(threads);
  std::vector<std::unique_ptr<sink_type>> sinks(threads);
  parallel_for(p.chunks(), threads, [&](std::size_t c, unsigned slot) {
    if (!sinks[slot]) sinks[slot] = make_sink(targets[slot]);
    targets[slot].list = &lists[c];
    sink_type& sink = *sinks[slot];
    for_outer_range(root, p.lo(c), p.hi(c), [&](std::int64_t i, const auto& v) {
      sink.at_depth[S::depth] = i;
      stream::run_sparse(sink, v);
      sink.end_of(S::depth);
    });
    sink.finish();
  });
  for (auto& l : lists) {
    for (std::size_t e = 0; e < l.vals.size(); ++e) entries.push(l.crd[e], l.vals[e]);
    l = {};
  }
}

/// Whether a sparse output format is CSR-like (a dense level over a unique compressed level, in
/// mode order): its chunks are then assembled straight into the final arrays, in parallel.
template <class Format>
inline constexpr bool rows_format = false;
template <std::size_t E, class P, class C>
inline constexpr bool rows_format<format_spec<boost::mp11::mp_list<dense_level<E>, compressed_level<uniqueness::unique, P, C>>, 0, 1>> = true;

/// A chunk's part of a CSR-like output: the entries of its rows [lo, hi) and the count per row.
template <class T, class Crd>
struct row_target {
  std::int64_t lo = 0;
  std::vector<std::int64_t> counts;
  std::vector<Crd> crd;
  std::vector<T> vals;
  LOOM_FORCE_INLINE void push(const std::array<std::int64_t, 2>& c, const T& v) {
    ++counts[static_cast<std::size_t>(c[0] - lo)];
    crd.push_back(static_cast<Crd>(c[1]));
    vals.push_back(v);
  }
};

/// The sparse-output loop, split, for a CSR-like output: each chunk collects its rows through
/// its thread's sink; then every chunk copies its entries to their final place (offsets from the
/// chunk sizes) and writes the `pos` entries of its rows. Same arrays as the serial appender.
template <class T, class Format, class S, class MakeSink>
basic_tensor<T, Format, true> run_sparse_rows(const std::array<std::int64_t, 2>& shape,
                                              const S& root, const outer_split& d,
                                              const MakeSink& make_sink) {
  using level1 = boost::mp11::mp_at_c<typename Format::levels, 1>;
  using Pos = typename level1::pos_type;
  using Crd = typename level1::crd_type;
  using target = row_target<T, Crd>;
  using sink_type = std::remove_cvref_t<decltype(*make_sink(std::declval<target&>()))>;
  const partition& p = d.parts;
  const std::size_t chunks = p.chunks();
  if (shape[1] > 0)
    loom::detail::check_fits<Crd>(shape[1] - 1, "largest coordinate of mode 1");
  std::vector<target> parts(chunks);
  const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(d.threads, chunks));
  std::vector<std::unique_ptr<target>> proxies(threads);  // what each thread's sink pushes to
  std::vector<std::unique_ptr<sink_type>> sinks(threads);
  // the sink holds a reference to its thread's proxy; the proxy is swapped with the chunk's part
  parallel_for(chunks, threads, [&](std::size_t c, unsigned slot) {
    if (!sinks[slot]) {
      proxies[slot] = std::make_unique<target>();
      sinks[slot] = make_sink(*proxies[slot]);
    }
    target& t = *proxies[slot];
    t.lo = p.lo(c);
    t.counts.assign(static_cast<std::size_t>(p.hi(c) - p.lo(c)), 0);
    t.crd.clear();
    t.vals.clear();
    sink_type& sink = *sinks[slot];
    for_outer_range(root, p.lo(c), p.hi(c), [&](std::int64_t i, const auto& v) {
      sink.at_depth[S::depth] = i;
      stream::run_sparse(sink, v);
      sink.end_of(S::depth);
    });
    sink.finish();
    parts[c].lo = t.lo;
    parts[c].counts = std::move(t.counts);
    parts[c].crd = std::move(t.crd);
    parts[c].vals = std::move(t.vals);
    t.counts = {};
    t.crd = {};
    t.vals = {};
  });
  std::vector<std::int64_t> offset(chunks + 1, 0);
  for (std::size_t c = 0; c < chunks; ++c)
    offset[c + 1] = offset[c] + static_cast<std::int64_t>(parts[c].vals.size());
  loom::detail::check_fits<Pos>(offset[chunks], "number of positions");
  typename basic_tensor<T, Format, true>::level_storages levels{};
  std::get<0>(levels).extent = shape[0];
  auto& l1 = std::get<1>(levels);
  l1.pos.resize(static_cast<std::size_t>(shape[0]) + 1);
  l1.crd.resize(static_cast<std::size_t>(offset[chunks]));
  std::vector<T> values(static_cast<std::size_t>(offset[chunks]));
  l1.pos[0] = 0;
  parallel_for(chunks, threads, [&](std::size_t c, unsigned) {
    target& t = parts[c];
    std::copy(t.crd.begin(), t.crd.end(), l1.crd.begin() + offset[c]);
    std::copy(t.vals.begin(), t.vals.end(), values.begin() + offset[c]);
    std::int64_t at = offset[c];
    for (std::size_t r = 0; r < t.counts.size(); ++r) {
      at += t.counts[r];
      l1.pos[static_cast<std::size_t>(t.lo) + r + 1] = static_cast<Pos>(at);
    }
    t = {};
  });
  return basic_tensor<T, Format, true>(shape, std::move(levels), std::move(values));
}

}  // namespace loom::parallel

#endif  // LOOM_PARALLEL_RUN_HPP
// ---- end <loom/parallel/run.hpp>
// ---- begin <loom/plan/checks.hpp>
// Defines the compile-time checks of an assignment `lhs = rhs`; each failing check names the
// index variable involved (plan/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_PLAN_CHECKS_HPP
#define LOOM_PLAN_CHECKS_HPP


#include <boost/mp11/algorithm.hpp>
#include <cstddef>
#include <utility>
#include <boost/mp11/bind.hpp>
#include <boost/mp11/set.hpp>

namespace loom::diag {
/// An index name as a character pack, so that both GCC and Clang print it readably
/// (`name<'j'>`) inside the diagnostics below.
template <char... Cs>
struct name {};
namespace detail {
template <class I, class Seq>
struct name_of_impl;
template <class I, std::size_t... Ks>
struct name_of_impl<I, std::index_sequence<Ks...>> {
  using type = name<I::name[Ks]...>;
};
}  // namespace detail
template <class I>
using name_of = typename detail::name_of_impl<I, std::make_index_sequence<I::name.size()>>::type;

// Undefined templates named as sentences: instantiating one prints the offending index
// (STYLE H13). Do not define them.
template <class Index>
struct output_index_not_bound_by_any_input;
template <class Index>
struct product_of_sums_over_the_same_index_cannot_be_lifted;
template <class Index>
struct index_is_free_on_the_right_but_not_on_the_left_sum_over_it;
template <class Index>
struct output_index_repeated;
template <class Index>
struct index_repeated_within_one_access;
template <class Index>
struct index_both_summed_and_free_in_one_scope;
template <class Index>
struct index_summed_twice;
template <class Index, class ExtentA, class ExtentB>
struct index_used_with_two_different_static_extents;
}  // namespace loom::diag

namespace loom::plan {

using boost::mp11::mp_list;

namespace detail {
template <class L, class R>
using intersect = boost::mp11::mp_copy_if_q<L, boost::mp11::mp_bind_front<boost::mp11::mp_set_contains, R>>;

// first index bound in one operand of a node and free in the other, or void
template <class E>
struct scope_clash {
  using type = mp_list<>;
};
template <class L, class R>
struct pair_clash {
  using here = boost::mp11::mp_append<
      intersect<boost::mp11::mp_unique<expr::summed_indices_t<L>>, expr::free_indices_t<R>>,
      intersect<expr::free_indices_t<L>, boost::mp11::mp_unique<expr::summed_indices_t<R>>>>;
  using type = boost::mp11::mp_append<here, typename scope_clash<L>::type,
                                      typename scope_clash<R>::type>;
};
template <class L, class R>
struct scope_clash<expr::add<L, R>> : pair_clash<L, R> {};
template <class L, class R>
struct scope_clash<expr::mul<L, R>> : pair_clash<L, R> {};
template <class L, class R>
struct scope_clash<expr::where<L, R>> : pair_clash<L, R> {};
template <class F, class A, class B>
struct scope_clash<expr::map<F, A, B>> : pair_clash<A, B> {};
template <class F, class A>
struct scope_clash<expr::map<F, A>> : scope_clash<A> {};
template <class I, class E>
struct scope_clash<expr::sum<I, E>> : scope_clash<E> {};
template <class I, class E>
struct scope_clash<expr::expand<I, E>> : scope_clash<E> {};

template <class E>
struct double_sum {
  using type = mp_list<>;
};
template <class L, class R>
struct double_sum<expr::add<L, R>> {
  using type = boost::mp11::mp_append<typename double_sum<L>::type, typename double_sum<R>::type>;
};
template <class L, class R>
struct double_sum<expr::mul<L, R>> : double_sum<expr::add<L, R>> {};
template <class L, class R>
struct double_sum<expr::where<L, R>> : double_sum<expr::add<L, R>> {};
template <class F, class... Es>
struct double_sum<expr::map<F, Es...>> {
  using type = boost::mp11::mp_append<mp_list<>, typename double_sum<Es>::type...>;
};
template <class I, class E>
struct double_sum<expr::sum<I, E>> {
  using here = std::conditional_t<boost::mp11::mp_contains<expr::summed_indices_t<E>, I>::value,
                                  mp_list<I>, mp_list<>>;
  using type = boost::mp11::mp_append<here, typename double_sum<E>::type>;
};
template <class I, class E>
struct double_sum<expr::expand<I, E>> : double_sum<E> {};

template <class A>
struct repeated_in_access {
  using type = mp_list<>;
};
template <class T, class... Is>
struct repeated_in_access<expr::access<T, Is...>> {
  using all = mp_list<Is...>;
  template <class I>
  using repeated = boost::mp11::mp_bool<(boost::mp11::mp_count<all, I>::value > 1)>;
  using type = boost::mp11::mp_copy_if<all, repeated>;
};
template <class List>
struct repeated_in_list;
template <class... As>
struct repeated_in_list<mp_list<As...>> {
  using type = boost::mp11::mp_append<mp_list<>, typename repeated_in_access<As>::type...>;
};

// static extents that disagree: mp_list<I, N1, N2> or empty
template <class Pairs>
struct extent_clash {
  template <class P, class Q>
  using clash = boost::mp11::mp_bool<std::is_same_v<boost::mp11::mp_first<P>, boost::mp11::mp_first<Q>> &&
                                     !std::is_same_v<boost::mp11::mp_second<P>, boost::mp11::mp_second<Q>>>;
  template <class P>
  using clashes_with_any = boost::mp11::mp_any_of_q<Pairs, boost::mp11::mp_bind_front<clash, P>>;
  using bad = boost::mp11::mp_copy_if<Pairs, clashes_with_any>;
};

template <class List, class Default = void>
using first_or = boost::mp11::mp_eval_if<boost::mp11::mp_empty<List>, Default, boost::mp11::mp_front, List>;
}  // namespace detail

/// The facts behind every check of `lhs = rhs` (no diagnostics here).
template <class Lhs, class Rhs>
struct assignment_facts {
  using out = expr::free_indices_t<Lhs>;
  using out_all = typename detail::repeated_in_access<Lhs>::type;
  using rhs_free = expr::free_indices_t<Rhs>;
  using unbound = boost::mp11::mp_remove_if_q<out, boost::mp11::mp_bind_front<boost::mp11::mp_set_contains, rhs_free>>;
  using unsummed = boost::mp11::mp_remove_if_q<rhs_free, boost::mp11::mp_bind_front<boost::mp11::mp_set_contains, out>>;
  using clash = typename detail::scope_clash<Rhs>::type;
  using twice = typename detail::double_sum<Rhs>::type;
  using repeated = typename detail::repeated_in_list<expr::accesses_t<Rhs>>::type;
  using extents = boost::mp11::mp_append<expr::static_extents_t<Rhs>, expr::static_extents_t<Lhs>>;
  using extent_bad = typename detail::extent_clash<extents>::bad;

  static constexpr bool output_indices_are_distinct = boost::mp11::mp_empty<out_all>::value;
  static constexpr bool every_output_index_is_bound = boost::mp11::mp_empty<unbound>::value;
  static constexpr bool every_free_index_is_an_output = boost::mp11::mp_empty<unsummed>::value;
  static constexpr bool no_repeated_access_index = boost::mp11::mp_empty<repeated>::value;
  static constexpr bool scopes_are_clean = boost::mp11::mp_empty<clash>::value;
  static constexpr bool no_index_summed_twice = boost::mp11::mp_empty<twice>::value;
  static constexpr bool static_extents_agree = boost::mp11::mp_empty<extent_bad>::value;
  static constexpr bool valid = output_indices_are_distinct && every_output_index_is_bound &&
                                every_free_index_is_an_output && no_repeated_access_index &&
                                scopes_are_clean && no_index_summed_twice && static_extents_agree;
};

/// Whether `lhs = rhs` may be compiled.
template <class Lhs, class Rhs>
inline constexpr bool assignment_is_valid = assignment_facts<Lhs, Rhs>::valid;

/// Reports the first mistake of `lhs = rhs`: a static_assert with the fix, then an undefined
/// template naming the index (STYLE H13). Instantiate only when `assignment_is_valid` is false.
template <class Lhs, class Rhs>
void report_assignment_errors() {
  using F = assignment_facts<Lhs, Rhs>;
  if constexpr (!F::output_indices_are_distinct) {
    static_assert(F::output_indices_are_distinct,
                  "loom::assign: an index appears twice on the left-hand side; use distinct "
                  "indices for the output's modes");
    diag::output_index_repeated<diag::name_of<boost::mp11::mp_front<typename F::out_all>>>{};
  } else if constexpr (!F::every_output_index_is_bound) {
    static_assert(F::every_output_index_is_bound,
                  "loom::assign: an output index does not appear on the right-hand side; add it "
                  "to an input access or use loom::expand");
    diag::output_index_not_bound_by_any_input<diag::name_of<boost::mp11::mp_front<typename F::unbound>>>{};
  } else if constexpr (!F::every_free_index_is_an_output) {
    static_assert(F::every_free_index_is_an_output,
                  "loom::assign: an index is free on the right-hand side but not on the left; "
                  "sum over it with loom::sum(index, ...) or add it to the output");
    diag::index_is_free_on_the_right_but_not_on_the_left_sum_over_it<
        diag::name_of<boost::mp11::mp_front<typename F::unsummed>>>{};
  } else if constexpr (!F::no_repeated_access_index) {
    static_assert(F::no_repeated_access_index,
                  "loom: an access uses the same index for two modes (a diagonal); this is not "
                  "supported yet");
    diag::index_repeated_within_one_access<diag::name_of<boost::mp11::mp_front<typename F::repeated>>>{};
  } else if constexpr (!F::scopes_are_clean) {
    static_assert(F::scopes_are_clean,
                  "loom::sum: an index is summed in one operand and free in the other; rename "
                  "the summation index");
    diag::index_both_summed_and_free_in_one_scope<diag::name_of<boost::mp11::mp_front<typename F::clash>>>{};
  } else if constexpr (!F::no_index_summed_twice) {
    static_assert(F::no_index_summed_twice,
                  "loom::sum: an index is summed inside a sum over the same index; rename one");
    diag::index_summed_twice<diag::name_of<boost::mp11::mp_front<typename F::twice>>>{};
  } else if constexpr (!F::static_extents_agree) {
    static_assert(F::static_extents_agree,
                  "loom: an index is used with two different static extents; make the fixed "
                  "extents of the dense levels agree");
    using extents = typename F::extents;
    using first = boost::mp11::mp_front<typename F::extent_bad>;
    using other = boost::mp11::mp_front<boost::mp11::mp_copy_if_q<
        extents, boost::mp11::mp_bind_front<detail::extent_clash<extents>::template clash, first>>>;
    diag::index_used_with_two_different_static_extents<diag::name_of<boost::mp11::mp_first<first>>,
                                                       boost::mp11::mp_second<first>,
                                                       boost::mp11::mp_second<other>>{};
  }
}

}  // namespace loom::plan

#endif  // LOOM_PLAN_CHECKS_HPP
// ---- end <loom/plan/checks.hpp>
// ---- begin <loom/stream/lower.hpp>
// Defines lowering: an expression and a loop order become a tree of indexed streams (stream/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_STREAM_LOWER_HPP
#define LOOM_STREAM_LOWER_HPP


#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <tuple>

namespace loom::stream {

// apply_sum<D>: Σ over the attribute at depth D, placed where that attribute is iterated.
template <std::size_t D>
struct apply_sum {
  const kernel_context* ctx = nullptr;
  template <class X>
  LOOM_FORCE_INLINE auto operator()(const X& x) const {
    if constexpr (depth_of<X>() == D) {
      static_assert(!is_contracted<X>(), "loom internal error: index summed twice; please report");
      return contract_stream<X>{x, ctx};
    } else if constexpr (depth_of<X>() < D) {
      return deep_map_stream<X, apply_sum>{x, *this};
    } else {  // the index does not occur: Σ_k e = extent(k) · e
      return apply_linear<fn::scale_by>{fn::scale_by{ctx->extents[D]}}(x);
    }
  }
};

// place_expand<D>: broadcast along the attribute at depth D.
template <std::size_t D>
struct place_expand {
  const kernel_context* ctx = nullptr;
  template <class X>
  LOOM_FORCE_INLINE auto operator()(const X& x) const {
    if constexpr (depth_of<X>() < D) {
      return deep_map_stream<X, place_expand>{x, *this};
    } else {
      static_assert(depth_of<X>() != D, "loom::expand: the expression already uses the index");
      return expand_stream<D, X>{x, 0, ctx->extents[D]};
    }
  }
};

// A scalar function with one operand fixed: f(x, c) or f(c, x).
template <class F, class C, bool ConstantFirst>
struct bind_constant {
  static constexpr bool zero_preserving = false;
  F f;
  C c;
  template <class X>
  LOOM_FORCE_INLINE auto operator()(const X& x) const {
    if constexpr (ConstantFirst) return f(static_cast<X>(c), x);
    else return f(x, static_cast<X>(c));
  }
};

/// Lowers expressions under the loop order `Order`; `Bindings` is a tuple of the tensor
/// pointer of every access (in `accesses_t` order; a transposed copy where the plan says so).
/// With `DenseMaps`, maps whose f(0) may be non-zero are computed over their whole domain.
/// `Skips` (skip.hpp) is the skip policy of every loop's intersections.
template <class Order, class V, bool DenseMaps, class Bindings, class Skips = skip::per_loop<>>
struct lowerer {
  const kernel_context* ctx;
  const Bindings* bindings;

  template <class E>
  static constexpr std::size_t access_count = boost::mp11::mp_size<expr::accesses_t<E>>::value;
  template <class I>
  static constexpr std::size_t depth = boost::mp11::mp_find<Order, I>::value;

  // access
  template <std::size_t K, class T, class... Is>
  LOOM_FORCE_INLINE auto lower(const expr::access<T, Is...>&) const {
    const auto* t = std::get<K>(*bindings);
    using bound = std::remove_cvref_t<decltype(*t)>;
    using layout = access_layout<bound, Order, Is...>;
    if constexpr (bound::format_type::all_dense) {
      return make_strided<layout, 0>(t, 0);
    } else {
      static_assert(std::is_sorted(layout::depth_of_level.begin(), layout::depth_of_level.end()),
                    "loom internal error: an access is not concordant with the loop order; "
                    "please report");
      return make_level<layout, 0>(t, 0, 1);
    }
  }
  template <std::size_t K, class T>
  LOOM_FORCE_INLINE auto lower(const expr::literal<T>& e) const {
    return static_cast<V>(e.value);
  }
  template <std::size_t K, class L, class R>
  LOOM_FORCE_INLINE auto lower(const expr::add<L, R>& e) const {
    return make_union(add_op<V>{}, lower<K>(e.lhs), lower<K + access_count<L>>(e.rhs), ctx);
  }
  template <std::size_t K, class L, class R>
  LOOM_FORCE_INLINE auto lower(const expr::mul<L, R>& e) const {
    return checked_mul(mul_op<V, Skips>{}, lower<K>(e.lhs), lower<K + access_count<L>>(e.rhs));
  }
  template <std::size_t K, class P, class E>
  LOOM_FORCE_INLINE auto lower(const expr::where<P, E>& e) const {
    return checked_mul(where_op<V>{}, lower<K>(e.pred), lower<K + access_count<P>>(e.body));
  }
  template <std::size_t K, class I, class E>
  LOOM_FORCE_INLINE auto lower(const expr::sum<I, E>& e) const {
    return apply_sum<depth<I>>{ctx}(lower<K>(e.body));
  }
  template <std::size_t K, class I, class E>
  LOOM_FORCE_INLINE auto lower(const expr::expand<I, E>& e) const {
    return place_expand<depth<I>>{ctx}(lower<K>(e.body));
  }
  template <std::size_t K, class F, class E>
  LOOM_FORCE_INLINE auto lower(const expr::map<F, E>& e) const {
    auto x = lower<K>(std::get<0>(e.args));
    if constexpr (fn::is_linear_v<F>) {
      return apply_linear<F>{e.f}(x);
    } else {
      return apply_nonlinear<F>{e.f}(densify<F, E>(x));
    }
  }
  template <std::size_t K, class F, class A, class B>
  LOOM_FORCE_INLINE auto lower(const expr::map<F, A, B>& e) const {
    constexpr bool a_constant = boost::mp11::mp_empty<expr::free_indices_t<A>>::value;
    constexpr bool b_constant = boost::mp11::mp_empty<expr::free_indices_t<B>>::value;
    auto a = lower<K>(std::get<0>(e.args));
    auto b = lower<K + access_count<A>>(std::get<1>(e.args));
    if constexpr (b_constant) {
      using g = bind_constant<F, V, false>;
      return apply_nonlinear<g>{g{e.f, static_cast<V>(reduce_checked(b))}}(densify<g, A>(a));
    } else if constexpr (a_constant) {
      using g = bind_constant<F, V, true>;
      return apply_nonlinear<g>{g{e.f, static_cast<V>(reduce_checked(a))}}(densify<g, B>(b));
    } else {
      using op = binary_fn_op<V, F>;
      using whole = expr::map<F, A, B>;
      return make_union(op{e.f}, densify<F, whole>(a), b, ctx);
    }
  }

  template <std::size_t K, class E>
  LOOM_FORCE_INLINE auto lower_root(const E& e) const {
    return lower<K>(e);
  }

 private:
  // Two sums over the same index multiplied: materialised when both reduce to scalars, an
  // error naming the index otherwise (notes §4.10).
  template <class Op, class A, class B>
  LOOM_FORCE_INLINE auto checked_mul(const Op& op, const A& a, const B& b) const {
    constexpr bool same_sum = is_contracted<A>() && is_contracted<B>() &&
                              depth_of<A>() == depth_of<B>();
    constexpr bool liftable = !same_sum || (reducible<A>() && reducible<B>());
    if constexpr (!liftable) {
      static_assert(liftable,
                    "loom: a product of two sums over the same index cannot be lifted, because "
                    "their results still depend on a later index; rename the summation index in "
                    "one factor (e.g. sum(k2, ...)) or materialise one factor first");
      diag::product_of_sums_over_the_same_index_cannot_be_lifted<
          diag::name_of<boost::mp11::mp_at_c<Order, depth_of<A>()>>>{};
      return semiring_traits<V>::zero();
    } else {
      return make_mul(op, a, b, ctx);
    }
  }

  // x unioned with a zero over every free index of E, when f(0) may be non-zero
  template <class F, class E, class X>
  LOOM_FORCE_INLINE auto densify(const X& x) const {
    if constexpr (DenseMaps && !fn::is_zero_preserving_v<F>) {
      return make_union(add_op<V>{}, x, dense_zero<expr::free_indices_t<E>>(), ctx);
    } else {
      return x;
    }
  }
  template <class Indices>
  LOOM_FORCE_INLINE auto dense_zero() const {
    constexpr auto depths = [] {
      std::array<std::size_t, boost::mp11::mp_size<Indices>::value> d{};
      std::size_t k = 0;
      boost::mp11::mp_for_each<Indices>([&](auto i) { d[k++] = depth<decltype(i)>; });
      std::sort(d.begin(), d.end());
      return d;
    }();
    return expand_levels<depths, 0>();
  }
  template <auto Depths, std::size_t R>
  LOOM_FORCE_INLINE auto expand_levels() const {
    if constexpr (R == Depths.size()) {
      return semiring_traits<V>::zero();
    } else {
      auto inner = expand_levels<Depths, R + 1>();
      return expand_stream<Depths[R], decltype(inner)>{inner, 0, ctx->extents[Depths[R]]};
    }
  }
};

}  // namespace loom::stream

#endif  // LOOM_STREAM_LOWER_HPP
// ---- end <loom/stream/lower.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

namespace loom::detail {

using boost::mp11::mp_list;

// The format an operand is reformatted to when the loop order is not concordant with it: its
// modes re-ordered by the depth of their index, in the same levels, or in general sorted levels
// when its levels cannot hold the re-ordered entries (a storage mapping's, plan/transposed_format.hpp).
template <class Order, class A>
using transposed_format = plan::transposed_format<Order, A>;

}  // namespace loom::detail

namespace loom::expr::detail {
template <class A>
struct access_traits_tensor;
template <class T, class... Is>
struct access_traits_tensor<access<T, Is...>> {
  using type = T;
};
}  // namespace loom::expr::detail

namespace loom::detail {

// Per access ordinal K: the tensor type the kernel reads (transposed copy or original).
template <class Plan, std::size_t K>
struct binding {
  using access_type = boost::mp11::mp_at_c<typename Plan::accesses, K>;
  using original = std::remove_const_t<typename expr::detail::access_traits_tensor<access_type>::type>;
  static constexpr bool transposed = Plan::chosen.transposed[K];
  using tensor_type = std::conditional_t<
      transposed,
      tensor<std::remove_const_t<typename original::value_type>, typename transposed_format<typename Plan::order, access_type>::type>,
      original>;
  using storage = std::conditional_t<transposed, std::optional<tensor_type>, std::monostate>;
};

/// Operand `t` reformatted for binding `Bind` (a transposed copy): converted once and reused by
/// the next calls while `t` is the same tensor at the same version (an owning tensor's version
/// changes on every non-const access to its storage); a view, whose caller may change its
/// buffers unseen, is converted on every call into `scratch`. One cached copy per binding of a
/// plan and per thread, kept until another operand or version replaces it.
template <class Bind, class Source>
const typename Bind::tensor_type& transposed_copy(const Source& t,
                                                  std::optional<typename Bind::tensor_type>& scratch) {
  if constexpr (Source::owning) {
    struct entry {
      const void* source = nullptr;
      std::uint64_t version = 0;
      std::unique_ptr<typename Bind::tensor_type> copy;
    };
    thread_local entry cached;
    if (cached.copy && cached.source == &t && cached.version == t.version()) return *cached.copy;
    LOOM_COUNT_WORK_N(writes, t.nnz());  // a copy's entries
    cached.copy.reset();  // the old copy's memory first
    cached.copy = std::make_unique<typename Bind::tensor_type>(t);
    cached.source = &t;
    cached.version = t.version();
    return *cached.copy;
  } else if constexpr (std::is_const_v<typename Source::value_type>) {  // a read-only view
    LOOM_COUNT_WORK_N(writes, t.nnz());
    using F = typename Bind::tensor_type::format_type;
    std::vector<std::array<std::int64_t, F::order>> crd;
    std::vector<std::remove_const_t<typename Source::value_type>> vals;
    t.for_each_stored([&](const auto& c, const auto& v) {
      crd.push_back(c);
      vals.push_back(v);
    });
    return scratch.emplace(from_coo<F>(t.shape(), crd, vals, duplicates::sum));
  } else {
    LOOM_COUNT_WORK_N(writes, t.nnz());
    return scratch.emplace(t);
  }
}

template <class Plan, class Seq = std::make_index_sequence<Plan::access_count>>
struct bindings_of;
template <class Plan, std::size_t... Ks>
struct bindings_of<Plan, std::index_sequence<Ks...>> {
  using pointers = std::tuple<const typename binding<Plan, Ks>::tensor_type*...>;
  using temporaries = std::tuple<typename binding<Plan, Ks>::storage...>;
};

inline std::string operand_label(const std::string& name, std::size_t ordinal,
                                 const std::string& format) {
  if (!name.empty()) return name;
  return "operand #" + std::to_string(ordinal) + " (" + format + ")";
}

template <class... Is>
constexpr std::array<std::string_view, sizeof...(Is)> index_names(mp_list<Is...>) {
  return {Is::name...};
}

/// Where an index's extent was first seen, or where it disagreed: an operand's ordinal (the
/// output is `output_ordinal`) and its mode.
struct extent_source {
  static constexpr std::size_t output_ordinal = static_cast<std::size_t>(-1);
  std::size_t ordinal = 0, mode = 0;
  std::int64_t extent = -1;
};

/// The labels of the operands, by ordinal, then the output's: only built for an error message.
template <class Lhs, class Rhs>
[[gnu::cold]] std::vector<std::string> operand_labels(const Lhs& lhs, const Rhs& rhs) {
  std::vector<std::string> labels;
  expr::for_each_access(rhs, [&](const auto& a, std::size_t k) {
    using tensor_t = std::remove_const_t<std::remove_pointer_t<decltype(a.tensor)>>;
    labels.push_back(operand_label(a.tensor->name(), k, format_name<typename tensor_t::format_type>()));
  });
  using out_t = std::remove_const_t<std::remove_pointer_t<decltype(lhs.tensor)>>;
  labels.push_back(lhs.tensor->name().empty()
                       ? "the output (" + format_name<typename out_t::format_type>() + ")"
                       : lhs.tensor->name());
  return labels;
}

[[noreturn, gnu::cold]] inline void throw_extent_clash(std::string_view index,
                                                       const std::vector<std::string>& labels,
                                                       extent_source first, extent_source second) {
  auto label = [&](std::size_t ordinal) -> const std::string& {
    return labels[std::min(ordinal, labels.size() - 1)];  // the output's label comes last
  };
  throw shape_error("loom: index " + std::string(index) + " has extent " +
                    std::to_string(first.extent) + " in " + label(first.ordinal) + " (mode " +
                    std::to_string(first.mode) + ") but " + std::to_string(second.extent) +
                    " in " + label(second.ordinal) + " (mode " + std::to_string(second.mode) + ")");
}

[[noreturn, gnu::cold]] inline void throw_unknown_extent(std::string_view index) {
  throw shape_error("loom: the extent of index " + std::string(index) +
                    " is unknown: it is summed but used by no operand");
}

/// Extents of every index of the assignment's universe, checked to agree across operands.
/// It depends on the expression, not on the plan, so that the candidate plans of one expression
/// share it; its messages are built out of line, only when something is wrong (this runs on
/// every call).
template <class Lhs, class Rhs>
auto gather_extents(const Lhs& lhs, const Rhs& rhs) {
  using universe = plan::assignment_universe<Lhs, Rhs>;
  constexpr std::size_t n = boost::mp11::mp_size<universe>::value;
  std::array<extent_source, n> first{};
  std::optional<std::pair<std::size_t, extent_source>> bad;  // (index id, where it disagreed)
  auto visit = [&]<class T, class... Is>(const expr::access<T, Is...>& a, std::size_t ordinal) {
    std::size_t m = 0;
    (
        [&] {
          constexpr std::size_t id = boost::mp11::mp_find<universe, Is>::value;
          const std::int64_t e = a.tensor->extent(m);
          if (first[id].extent < 0) first[id] = {ordinal, m, e};
          else if (first[id].extent != e && !bad) bad.emplace(id, extent_source{ordinal, m, e});
          ++m;
        }(),
        ...);
    (void)a, (void)ordinal, (void)m;  // a scalar operand has no mode
  };
  expr::for_each_access(rhs, [&](const auto& a, std::size_t k) { visit(a, k); });
  using out_t = std::remove_const_t<std::remove_pointer_t<decltype(lhs.tensor)>>;
  if constexpr (out_t::order > 0) visit(lhs, extent_source::output_ordinal);
  static constexpr auto names = index_names(universe{});
  if (bad) throw_extent_clash(names[bad->first], operand_labels(lhs, rhs), first[bad->first], bad->second);
  std::array<std::int64_t, n> extent{};  // no allocation per call
  for (std::size_t id = 0; id < n; ++id) {
    if (first[id].extent < 0) throw_unknown_extent(names[id]);
    extent[id] = first[id].extent;
  }
  return extent;
}

/// Whether some map's f(0, ...) is non-zero, so that maps must cover their whole domain.
template <class Rhs>
bool maps_need_dense_domain(const Rhs& rhs) {
  bool dense = false;
  expr::for_each_node(rhs, [&](const auto& node) {
    using N = std::remove_cvref_t<decltype(node)>;
    if constexpr (requires { node.f; node.args; }) {
      using F = decltype(node.f);
      if constexpr (!fn::is_zero_preserving_v<F>) {
        using V = expr::value_type_t<N>;
        const V zero = semiring_traits<V>::zero();
        constexpr std::size_t arity = std::tuple_size_v<decltype(node.args)>;
        auto value_or_zero = [&](const auto& arg) -> std::optional<V> {
          using A = std::remove_cvref_t<decltype(arg)>;
          if constexpr (!boost::mp11::mp_empty<expr::free_indices_t<A>>::value) return zero;
          else if constexpr (requires { arg.value; }) return static_cast<V>(arg.value);
          else return std::nullopt;  // a computed scalar: assume the worst
        };
        if constexpr (arity == 1) {
          dense = dense || !(static_cast<V>(node.f(zero)) == zero);
        } else {
          auto a = value_or_zero(std::get<0>(node.args));
          auto b = value_or_zero(std::get<1>(node.args));
          dense = dense || !a || !b || !(static_cast<V>(node.f(*a, *b)) == zero);
        }
      }
    }
  });
  return dense;
}

// node types of an expression, as a list
template <class E>
struct node_list {
  using type = mp_list<E>;
};
template <class L, class R>
struct node_list<expr::add<L, R>> {
  using type = boost::mp11::mp_append<mp_list<expr::add<L, R>>, typename node_list<L>::type, typename node_list<R>::type>;
};
template <class L, class R>
struct node_list<expr::mul<L, R>> {
  using type = boost::mp11::mp_append<mp_list<expr::mul<L, R>>, typename node_list<L>::type, typename node_list<R>::type>;
};
template <class L, class R>
struct node_list<expr::where<L, R>> {
  using type = boost::mp11::mp_append<mp_list<expr::where<L, R>>, typename node_list<L>::type, typename node_list<R>::type>;
};
template <class I, class E>
struct node_list<expr::sum<I, E>> {
  using type = boost::mp11::mp_push_front<typename node_list<E>::type, expr::sum<I, E>>;
};
template <class I, class E>
struct node_list<expr::expand<I, E>> {
  using type = boost::mp11::mp_push_front<typename node_list<E>::type, expr::expand<I, E>>;
};
template <class F, class... Es>
struct node_list<expr::map<F, Es...>> {
  using type = boost::mp11::mp_append<mp_list<expr::map<F, Es...>>, typename node_list<Es>::type...>;
};
template <class N>
struct is_runtime_map : std::false_type {};
template <class F, class... Es>
struct is_runtime_map<expr::map<F, Es...>> : std::bool_constant<!fn::is_zero_preserving_v<F>> {};

/// Whether the kernel needs a second, dense-domain variant (a map with unknown f(0)).
template <class Rhs>
inline constexpr bool needs_map_variants =
    boost::mp11::mp_any_of<typename node_list<Rhs>::type, is_runtime_map>::value;

/// The entries to reserve for a sparse output: the workspace's estimate of its writes (the
/// flops of a SpGEMM: an upper bound) where one was made, else the operands' stored entries
/// (an upper bound for unions and products of sparse operands, dense ones left out).
template <class Rhs>
std::int64_t output_entries_bound(const Rhs& rhs, const optimize::workspace_choice& workspace) {
  if (workspace.estimate.writes > 0)
    return static_cast<std::int64_t>(std::min(workspace.estimate.writes, 0x1p62));
  std::int64_t sparse = 0, all = 0;  // dense operands (a scaling, SDDMM's factors) add no entries
  expr::for_each_access(rhs, [&](const auto& a, std::size_t) {
    using tensor_t = std::remove_const_t<std::remove_pointer_t<decltype(a.tensor)>>;
    all += a.tensor->nnz();
    if constexpr (!tensor_t::format_type::all_dense) sparse += a.tensor->nnz();
  });
  return sparse > 0 ? sparse : all;
}

/// Runs one instantiated plan into `out`, its intersections co-iterating as `Skips` says.
template <class Plan, bool DenseMaps, class Skips = stream::skip::per_loop<>, class Out, class Lhs,
          class Rhs>
void run_plan(Out& out, const Lhs& lhs, const Rhs& rhs, bool accumulate,
              const auto& extent_by_id, const stream::skip::codes& skips) {
  using order = typename Plan::order;
  using universe = typename Plan::universe;
  using V = expr::value_type_t<Rhs>;
  using T = typename Out::value_type;
  using B = bindings_of<Plan>;
  constexpr std::size_t depth_count = Plan::index_count;

  static_assert(stream::skip::max_loops >= plan::detail::max_indices,
                "loom internal error: fewer skip codes than loops; please report");
  stream::kernel_context ctx;
  ctx.skip = skips;
  ctx.sequential_sums = loom::deterministic();
  for (std::size_t d = 0; d < depth_count; ++d) ctx.extents[d] = extent_by_id[Plan::chosen.order[d]];

  typename B::pointers pointers{};
  typename B::temporaries temporaries{};
  expr::for_each_access(rhs, [&](const auto& a, std::size_t k) {
    boost::mp11::mp_with_index<Plan::access_count>(k, [&](auto K) {
      using bind = binding<Plan, K>;
      if constexpr (std::is_same_v<std::remove_const_t<std::remove_pointer_t<decltype(a.tensor)>>,
                                   typename bind::original>) {
        if constexpr (bind::transposed) {  // reformat to a concordant order, once per version
          std::get<K>(pointers) = &transposed_copy<bind>(*a.tensor, std::get<K>(temporaries));
        } else {
          std::get<K>(pointers) = a.tensor;
        }
      }
    });
  });

  stream::lowerer<order, V, DenseMaps, typename B::pointers, Skips> lower{&ctx, &pointers};
  const auto root = lower.template lower_root<0>(rhs);
  (void)lhs;

  using out_format = typename Out::format_type;
  constexpr std::size_t N = Out::order;
  // depth of each output mode
  static constexpr auto out_depth = [] {
    std::array<std::size_t, N> d{};
    using out_indices = expr::free_indices_t<Lhs>;
    boost::mp11::mp_for_each<boost::mp11::mp_iota_c<N>>([&](auto m) {
      using I = boost::mp11::mp_at_c<out_indices, m>;
      d[m] = boost::mp11::mp_find<order, I>::value;
    });
    return d;
  }();
  (void)universe{};

  // Parallel execution (parallel/): the outer loop is split into chunks when the options and
  // the data allow it; otherwise (always with one thread) the serial loops below run unchanged.
  // The split loops get a copy of the stream tree: `root`'s address must not escape, or the
  // compiler keeps its fields (strides, offsets) in memory in the serial loops too.
  using root_type = std::remove_cvref_t<decltype(root)>;
  constexpr bool splittable =
      parallel::splittable_root<root_type> &&
      !out_format::dense_over_bitmap &&
      (out_format::all_dense || (!stream::is_contracted<root_type>() && Plan::output_prefix >= 1));
  parallel::outer_split split;
  if constexpr (splittable)
    split = parallel::decide_split<order, typename Plan::accesses, typename B::pointers, T>(
        pointers, ctx.extents[0], stream::is_contracted<root_type>(),
        out_format::all_dense ? out.values().size() : 0);

  // an output written in place: the row-major stride of each loop depth that indexes it
  auto located_strides = [&] {
    std::array<std::int64_t, Plan::index_count + 1> strides{};
    for (std::size_t m = 0; m < N; ++m) {
      std::int64_t stride = 1;
      const std::size_t level = out_format::level_of_mode[m];
      for (std::size_t k = level + 1; k < N; ++k) stride *= out.extent(out_format::modes[k]);
      strides[out_depth[m]] = stride;
    }
    return strides;
  };
  (void)located_strides;

  if constexpr (out_format::all_dense) {
    if (!accumulate) {
      if (split.active)
        parallel::fill(out.values().data(), out.values().size(), semiring_traits<T>::zero(),
                       split.threads);
      else
        std::fill(out.values().begin(), out.values().end(), semiring_traits<T>::zero());
    }
    const auto strides = located_strides();
    if constexpr (splittable) {
      if (split.active) {
        parallel::run_dense(out.values().data(), out.values().size(), strides.data(),
                            static_cast<root_type>(root), split);
        return;
      }
    }
    stream::run_dense(out.values().data(), strides.data(), root, 0);
  } else if constexpr (out_format::dense_over_bitmap && Out::owning) {
    // Galley's bytemap: values located and accumulated like a dense output, a presence bit set
    // per cell written; no entries collected or sorted, any loop order. Serial: two rows may
    // share a word of bits. Every construction (by shape, conversion, assembly) sizes the values
    // and bits to the cells.
    auto& bits = out.template level<N - 1>().bits;
    if (!accumulate) {
      std::fill(out.values().begin(), out.values().end(), semiring_traits<T>::zero());
      std::fill(bits.begin(), bits.end(), std::uint64_t{0});
    }
    const auto strides = located_strides();
    stream::run_located(stream::bitmap_cell<T>{out.values().data(), bits.data()}, strides.data(),
                        root, 0);
  } else {
    // out of order: the workspace kind is chosen from estimates (optimize/workspace_choice.hpp)
    optimize::workspace_choice workspace;
    if constexpr (!Plan::output_in_order) workspace = optimize::cached_workspace_choice<Plan>(lhs, rhs);
    static constexpr std::array<std::size_t, N> depth_of_level = [] {
      std::array<std::size_t, N> d{};
      for (std::size_t k = 0; k < N; ++k) d[k] = out_depth[out_format::modes[k]];
      return d;
    }();
    auto configure = [&](auto& sink) {
      if constexpr (requires { sink.prefix; }) {
        sink.depth_of_level = depth_of_level;
        sink.prefix = Plan::output_prefix;
        sink.kind = workspace.kind;
        sink.expected_row_entries = workspace.row_entries();
        for (std::size_t k = 0; k < N; ++k) sink.level_extent[k] = out.extent(out_format::modes[k]);
        sink.init();
      }
    };
    auto drive = [&](auto& sink) {
      configure(sink);
      stream::run_sparse(sink, root);
      sink.finish();
    };
    auto make_sink = [&](auto& target) {  // a thread's sink, configured by that thread
      using target_t = std::remove_cvref_t<decltype(target)>;
      using sink_t = std::conditional_t<Plan::output_in_order,
                                        stream::append_sink<T, N, target_t, depth_of_level>,
                                        stream::workspace_sink<T, N, target_t>>;
      std::unique_ptr<sink_t> sink(new sink_t{target});
      configure(*sink);
      return sink;
    };
    (void)make_sink;
    auto run_into = [&](auto& entries) {
      if constexpr (splittable) {
        if (split.active) {
          parallel::run_sparse<T, N>(entries, static_cast<root_type>(root), split, make_sink);
          return;
        }
      }
      if constexpr (Plan::output_in_order) {
        stream::append_sink<T, N, std::remove_cvref_t<decltype(entries)>, depth_of_level> sink{entries};
        drive(sink);
      } else {
        stream::workspace_sink<T, N, std::remove_cvref_t<decltype(entries)>> sink{entries};
        drive(sink);
      }
    };
    std::string name = out.name();
    if (accumulate) {  // new entries merged with the stored ones
      stream::entry_list<T, N> entries;
      run_into(entries);
      out.for_each_stored([&](const auto& c, const T& v) {
        std::array<std::int64_t, N> s{};
        for (std::size_t k = 0; k < N; ++k) s[k] = c[out_format::modes[k]];
        entries.push(s, v);
      });
      detail::sort_and_merge(entries.crd, entries.vals, duplicates::sum, out_format::modes, false);
      out = detail::assemble_sorted<T, out_format>(out.shape(), entries.crd, std::move(entries.vals));
    } else {  // entries arrive sorted and unique: build the levels directly
      if constexpr (splittable && parallel::rows_format<out_format>) {
        if (split.active) {  // CSR-like: every chunk writes its part of the arrays
          out = parallel::run_sparse_rows<T, out_format>(out.shape(), static_cast<root_type>(root),
                                                         split, make_sink);
          out.set_name(std::move(name));
          return;
        }
      }
      // the output's pattern is an operand's (SDDMM, a scaling): copy it, compute values only
      if constexpr (Plan::output_in_order && plan::pattern_of<Lhs, Rhs>::shares &&
                    detail::appender<T, out_format>::by_rows) {
        const Out* pattern = nullptr;
        expr::for_each_access(rhs, [&](const auto& a, std::size_t k) {
          if constexpr (std::is_same_v<std::remove_cvref_t<decltype(*a.tensor)>, Out>)
            if (k == plan::pattern_of<Lhs, Rhs>::ordinal) pattern = a.tensor;
        });
        try {
          if (pattern != nullptr &&
              detail::appender<T, out_format>::fill_values_on_pattern(out, *pattern, [&](auto& values) {
                stream::values_sink<T, std::remove_cvref_t<decltype(values)>> sink{values};
                stream::run_sparse(sink, root);
                values = sink.values;
              })) {
            out.set_name(std::move(name));
            return;
          }
        } catch (...) {
          out.clear();  // the pattern without all its values: leave a valid empty tensor
          out.set_name(std::move(name));
          throw;
        }
      }
      // the output's own arrays are refilled: a kernel run again allocates nothing
      try {
        detail::appender<T, out_format> entries(out.shape(), &out);
        entries.reserve(static_cast<std::size_t>(
            std::min<std::int64_t>(output_entries_bound(rhs, workspace), std::int64_t{1} << 26)));
        run_into(entries);
        out = std::move(entries).finish();
      } catch (...) {
        out.clear();  // its arrays went to the appender: leave a valid empty tensor
        out.set_name(std::move(name));
        throw;
      }
    }
    out.set_name(std::move(name));
  }
}

/// Runs plan P with the skip policies `Skips`; `skip::runtime` intersections read `skips`.
template <class P, class Skips = stream::skip::per_loop<>, class Out, class Lhs, class Rhs>
void execute_plan(Out& out, const Lhs& lhs, const Rhs& rhs, bool accumulate,
                  const stream::skip::codes& skips = stream::skip::default_codes) {
  const auto extents = gather_extents(lhs, rhs);  // by P::universe, which depends on lhs, rhs only
  if constexpr (needs_map_variants<Rhs>) {
    if (maps_need_dense_domain(rhs))
      return run_plan<P, true, Skips>(out, lhs, rhs, accumulate, extents, skips);
  }
  run_plan<P, false, Skips>(out, lhs, rhs, accumulate, extents, skips);
}

/// Runs plan P with the skip policy of each loop chosen at run time from statistics, when asked
/// (optimize/leader_choice.hpp): with LOOM_MAX_SKIP_CANDIDATES > 1 among that many instantiated
/// variants of the kernel; with LOOM_RUNTIME_SKIP_POLICY, as one kernel whose intersections read
/// their policy (`skip::runtime`). Otherwise, or with nothing to choose, the static table.
template <class P, class Out, class Lhs, class Rhs>
void execute_plan_choosing_skip(Out& out, const Lhs& lhs, const Rhs& rhs, bool accumulate) {
#if LOOM_MAX_SKIP_CANDIDATES > 1
  using candidates = optimize::skip_candidates_t<P, stream::skip::max_candidates>;
  constexpr std::size_t n = boost::mp11::mp_size<candidates>::value;
  if constexpr (n > 1) {
    const std::size_t chosen =
        optimize::cached_skip_choice<P, stream::skip::max_candidates>(lhs, rhs);
    boost::mp11::mp_with_index<n>(chosen, [&](auto c) {
      execute_plan<P, boost::mp11::mp_at_c<candidates, decltype(c)::value>>(out, lhs, rhs,
                                                                             accumulate);
    });
    return;
  }
#elif LOOM_RUNTIME_SKIP_POLICY
  if constexpr (optimize::has_runtime_skip_loop<P>) {
    execute_plan<P, stream::skip::every_loop<stream::skip::runtime>>(
        out, lhs, rhs, accumulate, optimize::cached_runtime_skips<P>(lhs, rhs));
    return;
  }
#endif
  execute_plan<P>(out, lhs, rhs, accumulate);
}

template <class Out, class Lhs, class Rhs>
void execute(Out& out, const Lhs& lhs, const Rhs& rhs, bool accumulate) {
  constexpr std::size_t n = plan::plan_candidates<Lhs, Rhs>::count;
  if constexpr (n > 1) {  // the best plan depends on the data: the runtime optimizer picks
    const std::size_t chosen = optimize::cached_choice(lhs, rhs);
    boost::mp11::mp_with_index<n>(chosen, [&](auto c) {
      execute_plan_choosing_skip<plan::order_plan<Lhs, Rhs, static_cast<int>(decltype(c)::value)>>(
          out, lhs, rhs, accumulate);
    });
  } else {
    execute_plan_choosing_skip<plan::order_plan<Lhs, Rhs>>(out, lhs, rhs, accumulate);
  }
}

// The extent of index I in the accesses of e.
template <class I, class E>
std::int64_t extent_in(const E& e) {
  std::int64_t x = -1;
  expr::for_each_access(e, [&]<class T, class... Is>(const expr::access<T, Is...>& a, std::size_t) {
    std::size_t m = 0;
    (..., [&] {
      if (x < 0 && std::is_same_v<Is, I>) x = a.tensor->extent(m);
      ++m;
    }());
  });
  return x;
}

// A hoisted sum's storage: a dense vector (the size of one operand mode), a dense matrix unless
// the sum is statically sparse (then DCSR).
template <class V, class S, std::size_t N>
using hoisted_tensor = tensor<
    V, std::conditional_t<N == 0, format<>,
                          std::conditional_t<N == 1, dense_vector,
                                             std::conditional_t<rewrite::hoisted_dense_v<S>, dense_matrix, dcsr>>>>;

/// Runs `lhs = rhs`, first computing once a sum that the fused loop nest would recompute for
/// each value of indices it does not depend on (rewrite/hoist.hpp), e.g. the inner sum of
/// sum(i, A(i,j) * sum(k, A(i,k) * x(k))), when the cost model says that is cheaper
/// (optimize/hoist_choice.hpp; a filter the sum would lose, as in TPC-H Q5, keeps it fused).
template <class Out, class Lhs, class Rhs>
void execute_hoisted(Out& out, const Lhs& lhs, const Rhs& rhs, bool accumulate) {
  if constexpr (rewrite::has_hoistable_v<Rhs>) {
    bool hoisted = false;
    rewrite::hoist_first(rhs, [&](const auto& s, auto rebuild) {
      using S = std::remove_cvref_t<decltype(s)>;
      [&]<class... Is>(mp_list<Is...>) {
        using T = hoisted_tensor<expr::value_type_t<S>, S, sizeof...(Is)>;
        if (!optimize::cached_hoist(lhs, rhs, s, rewrite::hoisted_dense_v<S>)) return;
        hoisted = true;
        T t(typename T::shape_type{extent_in<Is>(s)...});
        if constexpr (T::format_type::all_dense) LOOM_COUNT_WORK_N(writes, t.values().size());  // zeroed
        expr::access<T, Is...> target{&t};
        target = s;  // its own kernel (rewritten and hoisted in turn)
        if constexpr (sizeof...(Is) == 0)  // a scalar: a literal (order-0 operands are not streamed)
          execute_hoisted(out, lhs, rebuild(expr::literal<expr::value_type_t<S>>{t.values()[0]}), accumulate);
        else
          execute_hoisted(out, lhs, rebuild(expr::access<const T, Is...>{&t}), accumulate);
      }(expr::free_indices_t<S>{});
    });
    if (!hoisted) execute(out, lhs, rhs, accumulate);
  } else {
    execute(out, lhs, rhs, accumulate);
  }
}

template <class Out, class Rhs>
bool aliases_output(const Out* out, const Rhs& rhs) {
  bool aliased = false;
  expr::for_each_access(rhs, [&](const auto& a, std::size_t) {
    aliased = aliased || static_cast<const void*>(a.tensor) == static_cast<const void*>(out);
  });
  return aliased;
}

}  // namespace loom::detail

namespace loom::expr {

/// `out(i...) = rhs` and `out(i...) += rhs`: checks the kernel (compile time), then evaluates
/// it as one fused loop nest. Found by argument-dependent lookup from `access::operator=`.
template <class OT, class... Os, class R, class Tag>
void evaluate_assignment(access<OT, Os...>& lhs, const R& rhs_operand, Tag) {
  static_assert(operand<R>, "loom::assign: the right-hand side must be an expression or a scalar");
  const auto written = as_expr(rhs_operand);
  using Written = std::remove_cvref_t<decltype(written)>;
  using Lhs = access<OT, Os...>;
  if constexpr (!plan::assignment_is_valid<Lhs, Written>) {
    plan::report_assignment_errors<Lhs, Written>();
  } else {
    const auto rhs = rewrite::for_kernel(written).expr;  // the always-profitable rules (rewrite/)
    constexpr bool accumulate = std::is_same_v<Tag, accumulate_tag>;
    using out_t = std::remove_const_t<OT>;
    static_assert(out_t::owning || out_t::format_type::all_dense,
                  "loom::assign: a sparse output must be an owning loom::tensor; a view over "
                  "caller buffers cannot grow");
    if (loom::detail::aliases_output(lhs.tensor, rhs)) {  // the output is also read: use a copy
      tensor<typename out_t::value_type, typename out_t::format_type> result(*lhs.tensor);
      access<decltype(result), Os...> target{&result};
      loom::detail::execute_hoisted(result, target, rhs, accumulate);
      if constexpr (out_t::owning) {
        *lhs.tensor = std::move(result);
      } else {  // a dense view: write the values back into the caller's buffer
        std::copy(result.values().begin(), result.values().end(), lhs.tensor->values().begin());
      }
    } else {
      loom::detail::execute_hoisted(*lhs.tensor, lhs, rhs, accumulate);
    }
  }
}

/// `out(i...) = loom::order<...>(e)`: e checked and rewritten as above, then run as one loop nest
/// in the order given (operands transposed where they disagree; no candidates, no hoisting).
template <class OT, class... Os, class Order, class E, class Tag>
void evaluate_assignment(access<OT, Os...>& lhs, const ordered<Order, E>& fixed, Tag) {
  using Lhs = access<OT, Os...>;
  if constexpr (!plan::assignment_is_valid<Lhs, E>) {
    plan::report_assignment_errors<Lhs, E>();
  } else {
    const auto rhs = rewrite::for_kernel(fixed.expr).expr;
    using Rhs = std::remove_cvref_t<decltype(rhs)>;
    using P = plan::order_plan<Lhs, Rhs, -1, Order>;
    constexpr bool accumulate = std::is_same_v<Tag, accumulate_tag>;
    using out_t = std::remove_const_t<OT>;
    static_assert(out_t::owning || out_t::format_type::all_dense,
                  "loom::assign: a sparse output must be an owning loom::tensor; a view over "
                  "caller buffers cannot grow");
    if (loom::detail::aliases_output(lhs.tensor, rhs)) {  // the output is also read: use a copy
      tensor<typename out_t::value_type, typename out_t::format_type> result(*lhs.tensor);
      access<decltype(result), Os...> target{&result};
      loom::detail::execute_plan_choosing_skip<plan::order_plan<decltype(target), Rhs, -1, Order>>(
          result, target, rhs, accumulate);
      if constexpr (out_t::owning) *lhs.tensor = std::move(result);
      else std::copy(result.values().begin(), result.values().end(), lhs.tensor->values().begin());
    } else {
      loom::detail::execute_plan_choosing_skip<P>(*lhs.tensor, lhs, rhs, accumulate);
    }
  }
}

}  // namespace loom::expr

namespace loom {

/// The value of an expression without free indices: `double s = loom::eval(sum(i, x(i)));`
template <expr::operand E>
auto eval(const E& e) {
  const auto written = expr::as_expr(e);
  using Written = std::remove_cvref_t<decltype(written)>;
  using V = expr::value_type_t<Written>;
  V value = semiring_traits<V>::zero();  // the kernel writes through a view: no allocation
  view<V, format<>> result({}, {}, std::span<V>(&value, 1));
  expr::access<view<V, format<>>> target{&result};
  if constexpr (!plan::assignment_is_valid<decltype(target), Written>)
    plan::report_assignment_errors<decltype(target), Written>();
  else
    loom::detail::execute_hoisted(result, target, rewrite::for_kernel(written).expr, false);
  return value;
}

}  // namespace loom

#endif  // LOOM_STREAM_EVALUATE_HPP
// ---- end <loom/stream/evaluate.hpp>

#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom::mapping {

/// One term of a sum of mappings: tensor T read as `S(i_0, ..., i_{d-1}) = T(i_{Perm_0}, ...)`.
template <class T, std::size_t... Perm>
struct term {
  static constexpr std::size_t order = sizeof...(Perm);
  const T* tensor = nullptr;

  /// The access of this term for the sum's indices `is...` (an expression).
  template <index_variable... Is>
    requires(sizeof...(Is) == order)
  auto operator()(Is... is) const {
    const auto idx = std::make_tuple(is...);
    return (*tensor)(std::get<Perm>(idx)...);
  }
  /// Appends the term's stored entries in S's coordinates.
  template <class V>
  void append_entries(std::vector<std::array<std::int64_t, order>>& crd, std::vector<V>& val) const {
    constexpr std::array<std::size_t, order> perm{Perm...};
    tensor->for_each_stored([&](const auto& c, const auto& v) {
      std::array<std::int64_t, order> x{};
      for (std::size_t k = 0; k < order; ++k) x[perm[k]] = c[k];
      crd.push_back(x);
      val.push_back(static_cast<V>(v));
    });
  }
  /// The logical shape of the term: T's extents permuted.
  std::array<std::int64_t, order> shape() const {
    std::array<std::int64_t, order> s{};
    std::array<std::int64_t, order> tensor_shape{};
    for (std::size_t m = 0; m < order; ++m) tensor_shape[m] = tensor->extent(m);
    // T(i_{Perm_0}, ...): T's mode k is indexed by S's index Perm_k
    constexpr std::array<std::size_t, order> perm{Perm...};
    for (std::size_t k = 0; k < order; ++k) s[perm[k]] = tensor_shape[k];
    return s;
  }
  /// "SL^T [strict_lower_packed]"
  std::string text() const {
    constexpr std::array<std::size_t, order> perm{Perm...};
    std::string s = tensor->name().empty() ? std::string("term") : tensor->name();
    bool identity = true;
    for (std::size_t m = 0; m < order; ++m) identity = identity && perm[m] == m;
    if (!identity) {
      s += order == 2 ? "^T" : "^(";
      if (order != 2) {
        for (std::size_t m = 0; m < order; ++m) s += (m ? "," : "") + std::to_string(perm[m]);
        s += ")";
      }
    }
    return s + " [" + format_name<typename T::format_type>() + "]";
  }
};

/// The term T as stored: S(i, j, ...) = T(i, j, ...).
template <class T>
auto as_is(const T& t) {
  return [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
    return term<T, Ks...>{&t};
  }(std::make_index_sequence<T::order>{});
}
/// The term T transposed (a matrix): S(i, j) = T(j, i).
template <class T>
  requires(T::order == 2)
term<T, 1, 0> transposed(const T& t) {
  return {&t};
}

/// A tensor stored as the sum of terms (STOREL: a TSM whose body is `e1 + e2`), e.g. a
/// symmetric matrix as `lower_packed + transposed(strict_lower_packed)` over one packed array.
/// `S(i, j)` is the expression `L(i,j) + SL(j,i)` (one kernel; a term read against its storage
/// order is copied into general levels per call, plan/transposed_format.hpp: prefer the next two);
/// `assign_distributed` runs a program linear in S once per term; `materialize()` builds S.
template <class... Terms>
struct sum_of {
  static_assert(sizeof...(Terms) >= 2, "loom::mapping::sum_of: give at least two terms");
  static constexpr std::size_t order = std::tuple_element_t<0, std::tuple<Terms...>>::order;
  static_assert(((Terms::order == order) && ...),
                "loom::mapping::sum_of: every term must have the order of the sum");
  std::tuple<Terms...> terms;
  std::string name;

  /// `S(i, j)`: the sum of the terms' accesses, an ordinary loom expression.
  template <index_variable... Is>
    requires(sizeof...(Is) == order)
  auto operator()(Is... is) const {
    return std::apply([&](const auto& first, const auto&... rest) { return (first(is...) + ... + rest(is...)); },
                      terms);
  }
  std::array<std::int64_t, order> shape() const { return std::get<0>(terms).shape(); }

  /// The sum as one built-in tensor (every level compressed): the terms' entries, permuted and
  /// added. What a program that is not linear in S reads.
  auto materialize() const {
    using first_tensor = std::remove_const_t<std::remove_pointer_t<
        decltype(std::get<0>(std::declval<const std::tuple<Terms...>&>()).tensor)>>;
    using V = std::remove_const_t<typename first_tensor::value_type>;
    using F = typename decltype([]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      return std::type_identity<loom::format<std::conditional_t<Ks < order, loom::compressed, void>...>>{};
    }(std::make_index_sequence<order>{}))::type;
    std::vector<std::array<std::int64_t, order>> crd;
    std::vector<V> val;
    std::apply([&](const auto&... t) { (t.append_entries(crd, val), ...); }, terms);
    return loom::from_coo<F>(shape(), crd, val, loom::duplicates::sum);
  }
  /// One term alone, materialised in S's coordinates like `materialize`.
  template <class Term>
  static auto materialize_one(const Term& t) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(t.tensor)>>;
    using V = std::remove_const_t<typename T::value_type>;
    using F = typename decltype([]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      return std::type_identity<loom::format<std::conditional_t<Ks < order, loom::compressed, void>...>>{};
    }(std::make_index_sequence<order>{}))::type;
    std::vector<std::array<std::int64_t, order>> crd;
    std::vector<V> val;
    t.append_entries(crd, val);
    return loom::from_coo<F>(t.shape(), crd, val, loom::duplicates::sum);
  }
  /// "S = L [lower_packed] + SL^T [strict_lower_packed]"
  std::string text() const {
    std::string s = (name.empty() ? std::string("S") : name) + " = ";
    std::size_t k = 0;
    std::apply([&](const auto&... t) { ((s += (k++ ? " + " : "") + t.text()), ...); }, terms);
    return s;
  }
};

/// `make_sum(as_is(L), transposed(SL))`: checks that the terms' logical shapes agree.
template <class... Terms>
sum_of<Terms...> make_sum(std::string name, Terms... ts) {
  sum_of<Terms...> s{std::tuple<Terms...>{ts...}, std::move(name)};
  const auto want = std::get<0>(s.terms).shape();
  std::size_t k = 0;
  std::apply(
      [&](const auto&... t) {
        (
            [&] {
              const auto got = t.shape();
              for (std::size_t m = 0; m < want.size(); ++m)
                if (got[m] != want[m])
                  throw shape_error("loom::mapping::make_sum " + s.name + ": term " + std::to_string(k) +
                                    " (" + t.text() + ") has extent " + std::to_string(got[m]) +
                                    " in mode " + std::to_string(m) + " but term 0 has " +
                                    std::to_string(want[m]));
              ++k;
            }(),
            ...);
      },
      s.terms);
  return s;
}

namespace detail {
/// How often a program reads S (the distribution needs exactly once: linear in S).
template <class Term>
struct counting_term {
  Term t;
  int* reads;
  template <index_variable... Is>
  auto operator()(Is... is) const {
    ++*reads;
    return t(is...);
  }
};

template <class A>
struct is_mapped_access : std::false_type {};
template <class T, class... Is>
struct is_mapped_access<expr::access<T, Is...>>
    : std::bool_constant<mapped_format<typename std::remove_const_t<T>::format_type>> {};

/// Whether some candidate plan of `out = e` transposes a mapped operand: a guarded mapping
/// cannot hold its transpose in its own levels, so such a term is materialised instead.
template <class Out, class E>
constexpr bool transposes_a_mapping() {
  using Rhs = std::remove_cvref_t<decltype(rewrite::for_kernel(expr::as_expr(std::declval<const E&>())).expr)>;
  bool any = false;
  boost::mp11::mp_for_each<boost::mp11::mp_iota_c<plan::plan_candidates<Out, Rhs>::count>>([&](auto c) {
    using P = plan::order_plan<Out, Rhs, static_cast<int>(decltype(c)::value)>;
    using accesses = typename P::accesses;
    std::size_t k = 0;
    boost::mp11::mp_for_each<boost::mp11::mp_transform<boost::mp11::mp_identity, accesses>>([&](auto a) {
      if (P::chosen.transposed[k++] && is_mapped_access<typename decltype(a)::type>::value) any = true;
    });
  });
  return any;
}

/// Runs (or explains, `Explain`) `out op= program(t)` for one term t.
template <bool Explain, class Out, class Program, class Term>
std::string run_term(Out out, Program& program, const Term& t, bool first) {
  using E = decltype(program(t));
  if constexpr (transposes_a_mapping<Out, E>()) {
    const auto m = sum_of<Term, Term>::materialize_one(t);
    if constexpr (Explain) {
      return "the loop order needs " + t.text() + " transposed, which its mapping cannot store: the "
             "term is materialised (compressed levels) first\n" + loom::explain(out, program(as_is(m)));
    } else {
      if (first) out = program(as_is(m));
      else out += program(as_is(m));
      return {};
    }
  } else if constexpr (Explain) {
    return loom::explain(out, program(t));
  } else {
    if (first) out = program(t);
    else out += program(t);
    return {};
  }
}
}  // namespace detail

/// `out = program(S)` distributed over the sum (STOREL's rule `sum(<k,v> in e1 + e2) e3 =
/// sum(<k,v> in e1) e3 + sum(<k,v> in e2) e3`): `out = program(T_0)`, then `out += program(T_k)`
/// for each further term, every kernel planned and fused for its own term (a transposed term
/// gets the loop order of its storage, so nothing is transposed). `program` is called with an
/// object whose `(i, j, ...)` is the term's access; it must read S exactly once and be linear
/// in it (products, sums and additions around S). A program that reads S more than once runs
/// as one kernel over `S(i, j) = T_0(i, j) + ...` instead. Returns the number of kernels run.
template <class Out, class Program, class... Terms>
int assign_distributed(Out out, Program&& program, const sum_of<Terms...>& s) {
  int reads = 0;
  (void)program(detail::counting_term<std::tuple_element_t<0, std::tuple<Terms...>>>{std::get<0>(s.terms), &reads});
  if (reads != 1) {
    const auto m = s.materialize();
    out = program(m);
    return 1;
  }
  int kernels = 0;
  std::apply(
      [&](const auto&... t) {
        (
            [&] {
              detail::run_term<false>(out, program, t, kernels++ == 0);
            }(),
            ...);
      },
      s.terms);
  return kernels;
}

/// What `assign_distributed` does: the rule, then the plan of each term's kernel.
template <class Out, class Program, class... Terms>
std::string explain_distributed(Out out, Program&& program, const sum_of<Terms...>& s) {
  int reads = 0;
  (void)program(detail::counting_term<std::tuple_element_t<0, std::tuple<Terms...>>>{std::get<0>(s.terms), &reads});
  std::string text = "sum of mappings: " + s.text() + "\n";
  if (reads != 1)
    return text + "not distributed: the program reads " + (s.name.empty() ? "S" : s.name) + " " +
           std::to_string(reads) + " times (the rule needs it once, linearly); the sum is "
           "materialised (compressed levels) and read by one kernel\n" + loom::explain(out, program(s.materialize()));
  text += "distributed (STOREL: sum over e1 + e2 = sum over e1 + sum over e2): " +
          std::to_string(sizeof...(Terms)) + " kernels, each fused with its own term\n";
  int k = 0;
  std::apply(
      [&](const auto&... t) {
        ((text += "kernel " + std::to_string(k) + (k == 0 ? " (=)" : " (+=)") + " over " + t.text() +
                  ":\n" + detail::run_term<true>(out, program, t, k == 0),
          ++k),
         ...);
      },
      s.terms);
  return text;
}

}  // namespace loom::mapping

#endif  // LOOM_FORMAT_MAPPING_SUM_HPP
// ---- end <loom/format/mapping/sum.hpp>

#endif  // LOOM_FORMAT_MAPPING_HPP
// ---- end <loom/format/mapping.hpp>
// ---- begin <loom/io.hpp>
// Umbrella header of io/: Matrix Market and FROSTT readers and writers.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_IO_HPP
#define LOOM_IO_HPP

// ---- begin <loom/io/matrix_market.hpp>
// Defines loom::read_matrix_market and loom::write_matrix_market: Matrix Market files (io/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_IO_MATRIX_MARKET_HPP
#define LOOM_IO_MATRIX_MARKET_HPP

// ---- begin <loom/io/detail/file_entries.hpp>
// Defines loom::detail::file_entries: entries read from a file, checked and assembled (io/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_IO_DETAIL_FILE_ENTRIES_HPP
#define LOOM_IO_DETAIL_FILE_ENTRIES_HPP

// ---- begin <loom/io/read_options.hpp>
// Defines loom::read_options, how the file readers build a tensor (io/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_IO_READ_OPTIONS_HPP
#define LOOM_IO_READ_OPTIONS_HPP


#include <cstdint>

namespace loom {

/// How `read_matrix_market` and `read_tns` build a tensor:
/// `loom::read_matrix_market<double>("A.mtx", {.policy = loom::duplicates::error})`.
struct read_options {
  /// What to do with repeated coordinates (Matrix Market files should not have any; the
  /// common practice, and the default, is to add them up).
  duplicates policy = duplicates::sum;
  /// The most positions and values the file's shape alone may make the format allocate (dense
  /// levels and `pos` arrays, e.g. rows + 1 for csr, rows * columns for dense_matrix). A file
  /// declaring more is rejected with a `parse_error` instead of exhausting memory; raise the
  /// limit for genuinely larger tensors. Storage proportional to the entries is not limited.
  std::int64_t max_dense_elements = std::int64_t{1} << 28;
};

}  // namespace loom

#endif  // LOOM_IO_READ_OPTIONS_HPP
// ---- end <loom/io/read_options.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace loom::detail {

inline constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();

/// a * b, or INT64_MAX when it overflows (a, b >= 0).
constexpr std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > int64_max / b ? int64_max : a * b;
}
/// a + b, or INT64_MAX when it overflows (a, b >= 0).
constexpr std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  return a > int64_max - b ? int64_max : a + b;
}

/// `3 x 4 x 5`
template <std::size_t N>
std::string shape_to_string(const std::array<std::int64_t, N>& shape) {
  std::string s;
  for (std::size_t m = 0; m < N; ++m) s += (m ? " x " : "") + std::to_string(shape[m]);
  return s;
}

/// An upper bound (saturating) of the positions and values `Format` allocates for `shape`
/// holding `nnz` entries: `pos` arrays, dense levels and values; coordinates are not counted.
template <class Format>
std::int64_t format_storage_bound(const std::array<std::int64_t, Format::order>& shape,
                                  std::int64_t nnz) {
  std::int64_t total = 0;
  std::int64_t count = 1;  // positions of the level above
  boost::mp11::mp_for_each<boost::mp11::mp_iota_c<Format::order>>([&](auto k) {
    using level = boost::mp11::mp_at_c<typename Format::levels, decltype(k)::value>;
    const std::int64_t extent = shape[Format::modes[decltype(k)::value]];
    if constexpr (level::properties.full) {
      count = saturating_mul(count, extent);
    } else if constexpr (!level::properties.segmented) {
      total = saturating_add(total, saturating_add(count, 1));  // pos
      count = std::min(saturating_mul(count, extent), nnz);
    }
  });
  return saturating_add(total, count);  // values
}

/// Coordinates (0-based, logical order), values and source lines of the entries of a file.
template <class T, std::size_t N>
struct file_entries {
  std::vector<std::array<std::int64_t, N>> coords;
  std::vector<T> values;
  std::vector<std::int64_t> lines;  // kept only when duplicates are errors
  bool keep_lines = false;

  /// Reserves for `expected` entries, at most 2^24: a declared count may be a lie.
  void reserve(std::int64_t expected) {
    const auto n = static_cast<std::size_t>(std::min<std::int64_t>(expected, 1 << 24));
    coords.reserve(n);
    values.reserve(n);
    if (keep_lines) lines.reserve(n);
  }
  void add(const std::array<std::int64_t, N>& c, const T& v, std::int64_t line) {
    coords.push_back(c);
    values.push_back(v);
    if (keep_lines) lines.push_back(line);
  }
  std::int64_t size() const { return static_cast<std::int64_t>(coords.size()); }
};

/// Empty when `shape` makes `Format` allocate at most `options.max_dense_elements` positions
/// and values beyond what `nnz` entries need; else what is wrong.
template <class Format>
std::string check_storage(const std::array<std::int64_t, Format::order>& shape, std::int64_t nnz,
                          const read_options& options) {
  constexpr auto N = static_cast<std::int64_t>(Format::order);
  const std::int64_t needed = format_storage_bound<Format>(shape, nnz);
  const std::int64_t allowed = saturating_add(
      saturating_add(std::max<std::int64_t>(options.max_dense_elements, 0),
                     saturating_mul(N + 1, nnz)),
      N + 1);
  if (needed <= allowed) return {};
  return "the shape " + shape_to_string(shape) + " needs " +
         (needed == int64_max ? "more than 2^63" : std::to_string(needed)) +
         " positions and values in this format, more than "
         "loom::read_options::max_dense_elements (" +
         std::to_string(options.max_dense_elements) +
         "); choose a sparser format, or raise the limit if the shape is right";
}

/// Throws `parse_error` naming both lines when two entries share coordinates.
template <class T, std::size_t N>
void reject_duplicates(const std::string& file, const file_entries<T, N>& e) {
  std::vector<std::size_t> perm(e.coords.size());
  std::iota(perm.begin(), perm.end(), std::size_t{0});
  std::stable_sort(perm.begin(), perm.end(),
                   [&](std::size_t a, std::size_t b) { return e.coords[a] < e.coords[b]; });
  for (std::size_t k = 1; k < perm.size(); ++k) {
    if (e.coords[perm[k]] != e.coords[perm[k - 1]]) continue;
    std::array<std::int64_t, N> one_based = e.coords[perm[k]];
    for (auto& c : one_based) ++c;
    std::int64_t first = e.lines[perm[k - 1]], second = e.lines[perm[k]];
    if (second < first) std::swap(first, second);
    throw parse_error(file + ":" + std::to_string(second) + ": duplicate entry " +
                      coords_to_string(one_based) + ", first given at line " +
                      std::to_string(first) + " (loom::duplicates::error rejects duplicates)");
  }
}

/// Assembles the entries into a `tensor<T, Format>` named `file`; errors of the format (a
/// coordinate width too small, say) are rethrown with `where` in front.
template <class Format, class T>
tensor<T, Format> entries_to_tensor(const std::string& file, const std::string& where,
                                    const std::array<std::int64_t, Format::order>& shape,
                                    file_entries<T, Format::order>&& e,
                                    const read_options& options) {
  if (options.policy == duplicates::error) reject_duplicates(file, e);
  try {
    auto t = from_coo<Format>(shape, e.coords, e.values, options.policy);
    e = {};
    t.set_name(file);
    return t;
  } catch (const overflow_error& x) {
    throw overflow_error(where + x.what());
  } catch (const shape_error& x) {
    throw shape_error(where + x.what());
  } catch (const duplicate_error& x) {
    throw duplicate_error(where + x.what());
  } catch (const error& x) {
    throw error(where + x.what());
  } catch (const std::bad_alloc&) {
    throw error(where + "out of memory while building the " + shape_to_string(shape) + " tensor");
  } catch (const std::length_error&) {
    throw error(where + "out of memory while building the " + shape_to_string(shape) + " tensor");
  }
}

}  // namespace loom::detail

#endif  // LOOM_IO_DETAIL_FILE_ENTRIES_HPP
// ---- end <loom/io/detail/file_entries.hpp>
// ---- begin <loom/io/detail/line_reader.hpp>
// Defines loom::detail::line_reader: numbered lines, tokens and `file:line:` errors (io/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_IO_DETAIL_LINE_READER_HPP
#define LOOM_IO_DETAIL_LINE_READER_HPP

// ---- begin <loom/io/detail/numbers.hpp>
// Defines the readers' number text: integer tokens, value parsing and printing per value type (io/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_IO_DETAIL_NUMBERS_HPP
#define LOOM_IO_DETAIL_NUMBERS_HPP


#include <charconv>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace loom::detail {

/// `'text'` for messages: at most 40 bytes, control and non-ASCII bytes as `\xNN`.
inline std::string excerpt(std::string_view s) {
  constexpr std::size_t max_shown = 40;
  std::string out = "'";
  for (std::size_t k = 0; k < s.size() && k < max_shown; ++k) {
    const auto c = static_cast<unsigned char>(s[k]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      constexpr char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (s.size() > max_shown) out += "...";
  return out + "'";
}

/// Whether `s` is an optional sign followed by one or more decimal digits.
inline bool is_integer_literal(std::string_view s) {
  std::size_t k = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  if (k == s.size()) return false;
  for (; k < s.size(); ++k)
    if (s[k] < '0' || s[k] > '9') return false;
  return true;
}

/// Outcome of parsing one token.
enum class parse_status { ok, not_a_number, out_of_range };

/// Parses a decimal integer literal (optional `+` or `-`) into any integer type.
template <std::integral Int>
parse_status parse_integer(std::string_view s, Int& out) {
  if (!is_integer_literal(s)) return parse_status::not_a_number;
  if (s[0] == '+') s.remove_prefix(1);
  if constexpr (std::is_unsigned_v<Int>) {
    if (s[0] == '-') {  // only a negative zero fits an unsigned type
      if (s.find_first_not_of('0', 1) != std::string_view::npos) return parse_status::out_of_range;
      out = 0;
      return parse_status::ok;
    }
  }
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec == std::errc::result_out_of_range) return parse_status::out_of_range;
  if (ec != std::errc{} || ptr != s.data() + s.size()) return parse_status::not_a_number;
  return parse_status::ok;
}

/// Parses a decimal floating literal, `nan` or `inf`; an underflow rounds to zero or a
/// subnormal, an overflow is out of range.
template <std::floating_point F>
parse_status parse_floating(std::string_view s, F& out) {
  if (s.size() > 1 && s[0] == '+' && s[1] != '+' && s[1] != '-') s.remove_prefix(1);
  if (s.empty()) return parse_status::not_a_number;
#if defined(__cpp_lib_to_chars)
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ptr != s.data() + s.size() || ec == std::errc::invalid_argument)
    return parse_status::not_a_number;
  if (ec == std::errc::result_out_of_range) {
    // from_chars reports underflow and overflow alike; strtod tells them apart
    const std::string copy(s);
    const long double v = std::strtold(copy.c_str(), nullptr);
    if (std::isinf(v) || std::fabs(v) > static_cast<long double>(std::numeric_limits<F>::max()))
      return parse_status::out_of_range;
    out = static_cast<F>(v);
  }
  return parse_status::ok;
#else
  // without floating-point from_chars (libc++ before 17): strtold, in the C locale's notation
  const std::string copy(s);
  char* end = nullptr;
  const long double v = std::strtold(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || copy.find_first_of("xX") != std::string::npos)
    return parse_status::not_a_number;
  const bool spelled_inf = copy.find_first_of("iI") != std::string::npos;
  if (!std::isnan(v) && !spelled_inf &&
      std::fabs(v) > static_cast<long double>(std::numeric_limits<F>::max()))
    return parse_status::out_of_range;
  out = static_cast<F>(v);
  return parse_status::ok;
#endif
}

/// Appends the shortest text that reads back as exactly `v`.
template <class Number>
void append_number(std::string& out, Number v) {
  char buf[64];
  if constexpr (std::floating_point<Number>) {
#if defined(__cpp_lib_to_chars)
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
#else
    const int n = std::snprintf(buf, sizeof buf, "%.*Lg",
                                std::numeric_limits<Number>::max_digits10,
                                static_cast<long double>(v));
    out.append(buf, static_cast<std::size_t>(n));
#endif
  } else {
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
  }
}

/// `int8`, `uint64`, `float`, `double`: the name of an arithmetic type in messages.
template <class A>
std::string arithmetic_type_name() {
  if constexpr (std::same_as<A, float>) return "float";
  else if constexpr (std::same_as<A, double>) return "double";
  else if constexpr (std::same_as<A, long double>) return "long double";
  else return (std::is_signed_v<A> ? "int" : "uint") + std::to_string(sizeof(A) * 8);
}

/// How the readers parse, negate (skew-symmetric mirror) and print values of type `T`.
/// Specialised for plain arithmetic types, `loom::boolean`, and wrappers around an arithmetic
/// `value` member (`min_plus<T>`, ...). A type without a specialisation cannot be read.
template <class T>
struct value_text;  // no text form for this value type: specialise loom::detail::value_text

template <class T>
  requires std::is_arithmetic_v<T> && (!std::same_as<T, bool>)
struct value_text<T> {
  using carrier = T;
  static constexpr bool integral = std::is_integral_v<T>;
  static std::string type_name() { return arithmetic_type_name<T>(); }
  /// Empty when `token` is a valid value, else what is wrong with it.
  static std::string parse(std::string_view token, T& out) {
    parse_status st;
    if constexpr (std::is_integral_v<T>) st = parse_integer(token, out);
    else st = parse_floating(token, out);
    if (st == parse_status::ok) return {};
    if (st == parse_status::out_of_range)
      return "value " + excerpt(token) + " does not fit the value type " + type_name();
    if constexpr (std::is_integral_v<T>) {
      double ignored;
      if (parse_floating(token, ignored) == parse_status::ok)
        return "value " + excerpt(token) + " is not an integer, but the value type is " +
               type_name();
    }
    return "value " + excerpt(token) + " is not a number";
  }
  /// Whether `-v` exists in T; stores it in `out`.
  static bool negate(const T& v, T& out) {
    if constexpr (std::is_floating_point_v<T>) {
      out = -v;
      return true;
    } else if constexpr (std::is_unsigned_v<T>) {
      out = 0;
      return v == 0;
    } else {
      if (v == std::numeric_limits<T>::min()) return false;
      out = static_cast<T>(-v);
      return true;
    }
  }
  static void append(std::string& out, const T& v) { append_number(out, v); }
};

template <>
struct value_text<boolean> {
  using carrier = bool;
  static constexpr bool integral = true;
  static std::string type_name() { return "boolean"; }
  static std::string parse(std::string_view token, boolean& out) {
    double v = 0;
    if (parse_floating(token, v) != parse_status::ok) return "value " + excerpt(token) + " is not a number";
    if (v != 0 && v != 1)
      return "value " + excerpt(token) + " is not a boolean (0 or 1)";
    out = boolean(v == 1);
    return {};
  }
  static bool negate(const boolean& v, boolean& out) {
    out = v;
    return !v.value;  // false is its own negation; true has none
  }
  static void append(std::string& out, const boolean& v) { out += v.value ? '1' : '0'; }
};

/// Wrappers such as `min_plus<double>`: the text of the carried `value`.
template <class T>
  requires(!std::is_arithmetic_v<T>) && requires(T t) {
    t.value;
    requires std::is_arithmetic_v<decltype(t.value)>;
    requires !std::same_as<decltype(t.value), bool>;
    T(t.value);
  }
struct value_text<T> {
  using carrier = decltype(T::value);
  using inner = value_text<carrier>;
  static constexpr bool integral = inner::integral;
  static std::string type_name() {
    if constexpr (requires { semiring_traits<T>::name; })
      return std::string(semiring_traits<T>::name) + "<" + inner::type_name() + ">";
    else return inner::type_name();
  }
  static std::string parse(std::string_view token, T& out) {
    carrier v{};
    std::string why = inner::parse(token, v);
    if (why.empty()) out = T(v);
    return why;
  }
  static bool negate(const T& v, T& out) {
    carrier n{};
    if (!inner::negate(v.value, n)) return false;
    out = T(n);
    return true;
  }
  static void append(std::string& out, const T& v) { inner::append(out, v.value); }
};

/// Satisfied by value types the readers and writers can handle.
template <class T>
concept text_value = requires(std::string_view s, T& v, std::string& out) {
  { value_text<T>::parse(s, v) } -> std::same_as<std::string>;
  value_text<T>::append(out, v);
};

}  // namespace loom::detail

#endif  // LOOM_IO_DETAIL_NUMBERS_HPP
// ---- end <loom/io/detail/numbers.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace loom::detail {

/// Reads an `std::istream` line by line, counts lines from 1, and throws `parse_error`s of the
/// form `name:line: what`. Stream exceptions are switched off while it reads.
class line_reader {
 public:
  line_reader(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {
    saved_exceptions_ = in_.exceptions();
    in_.exceptions(std::ios::goodbit);
  }
  line_reader(const line_reader&) = delete;
  line_reader& operator=(const line_reader&) = delete;
  ~line_reader() {
    try {
      in_.exceptions(saved_exceptions_);
    } catch (...) {  // the restored mask may match the stream's end-of-file state
    }
  }

  /// Reads the next line into `line()` (without `\n` or a trailing `\r`); false at end of input.
  /// Throws `io_error` when the stream fails for another reason than end of input.
  bool next() {
    if (!std::getline(in_, line_)) {
      if (in_.bad()) throw io_error(name_ + ":" + std::to_string(line_no_ + 1) + ": read error");
      return false;
    }
    ++line_no_;
    if (line_no_ == 1 && line_.starts_with("\xEF\xBB\xBF")) line_.erase(0, 3);  // UTF-8 mark
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    return true;
  }

  /// Reads lines until one that is neither blank nor a comment (first non-blank character in
  /// `comment_chars`); false at end of input.
  bool next_data(std::string_view comment_chars) {
    while (next()) {
      const std::size_t first = line_.find_first_not_of(blanks);
      if (first != std::string::npos && comment_chars.find(line_[first]) == std::string_view::npos)
        return true;
    }
    return false;
  }

  const std::string& line() const { return line_; }
  /// The number of the current line; the last line read once input has ended (1 when empty).
  std::int64_t line_number() const { return line_no_ == 0 ? 1 : line_no_; }
  const std::string& name() const { return name_; }

  /// `name:line: ` for messages about the current line, or about `line` when given.
  std::string where(std::int64_t line = 0) const {
    return name_ + ":" + std::to_string(line > 0 ? line : line_number()) + ": ";
  }
  [[noreturn]] void fail(const std::string& what, std::int64_t line = 0) const {
    throw parse_error(where(line) + what);
  }

  /// Splits the current line at blanks into `out`; returns the number of tokens, stopping at
  /// `out.size()` (so a result equal to `out.size()` may mean "that many or more").
  std::size_t split(std::span<std::string_view> out) const {
    std::size_t count = 0;
    std::string_view rest(line_);
    while (count < out.size()) {
      const std::size_t b = rest.find_first_not_of(blanks);
      if (b == std::string_view::npos) break;
      rest.remove_prefix(b);
      const std::size_t e = std::min(rest.find_first_of(blanks), rest.size());
      out[count++] = rest.substr(0, e);
      rest.remove_prefix(e);
    }
    return count;
  }

  /// Parses a non-negative 64-bit integer token; `what` names it in messages ("row index").
  std::int64_t count(std::string_view token, const std::string& what) const {
    std::int64_t v = 0;
    switch (parse_integer(token, v)) {
      case parse_status::ok:
        break;
      case parse_status::out_of_range:
        fail(what + " " + excerpt(token) + " does not fit a 64-bit integer");
      case parse_status::not_a_number:
        fail(what + " " + excerpt(token) + " is not an integer");
    }
    if (v < 0) fail(what + " is negative (" + std::to_string(v) + ")");
    return v;
  }

  static constexpr std::string_view blanks = " \t\r\v\f";

 private:
  std::istream& in_;
  std::string name_;
  std::string line_;
  std::int64_t line_no_ = 0;
  std::ios::iostate saved_exceptions_{};
};

}  // namespace loom::detail

#endif  // LOOM_IO_DETAIL_LINE_READER_HPP
// ---- end <loom/io/detail/line_reader.hpp>
// ---- begin <loom/io/detail/output.hpp>
// Defines the file plumbing of the readers and writers: opening, buffered writing (io/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_IO_DETAIL_OUTPUT_HPP
#define LOOM_IO_DETAIL_OUTPUT_HPP


#include <cerrno>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <string_view>
#include <system_error>

namespace loom::detail {

/// `: No such file or directory` for the current errno, or nothing.
inline std::string errno_text() {
  const int e = errno;
  return e == 0 ? std::string() : ": " + std::generic_category().message(e);
}

/// Opens `path` for reading or throws `io_error` naming `api` and the path.
inline std::ifstream open_for_reading(const std::string& path, std::string_view api) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw io_error(std::string(api) + ": cannot read '" + path + "': it is a directory");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw io_error(std::string(api) + ": cannot open '" + path + "'" + errno_text());
  return in;
}

/// Creates or truncates `path` for writing, or throws `io_error`.
inline std::ofstream open_for_writing(const std::string& path, std::string_view api) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    throw io_error(std::string(api) + ": cannot open '" + path + "' for writing" + errno_text());
  return out;
}

/// Flushes and closes a written file, or throws `io_error`.
inline void close_written(std::ofstream& out, const std::string& path, std::string_view api) {
  errno = 0;
  out.close();
  if (!out) throw io_error(std::string(api) + ": writing '" + path + "' failed" + errno_text());
}

/// Text collected in `text` and handed to the stream in blocks of about 64 KiB.
struct output_buffer {
  std::ostream& out;
  std::string_view api;
  std::string text{};

  output_buffer(std::ostream& o, std::string_view a) : out(o), api(a) { text.reserve(1 << 16); }
  void flush_if_full() {
    if (text.size() >= (1 << 16)) flush();
  }
  void flush() {
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    text.clear();
    if (!out) throw io_error(std::string(api) + ": the output stream failed");
  }
  void finish() {
    flush();
    out.flush();
    if (!out) throw io_error(std::string(api) + ": the output stream failed");
  }
};

/// Appends `comment` with every line prefixed by `mark` and a space.
inline void append_comment(std::string& text, std::string_view comment, char mark) {
  while (!comment.empty()) {
    const std::size_t end = comment.find('\n');
    const std::string_view line = comment.substr(0, end);
    text += mark;
    if (!line.empty()) (text += ' ') += line;
    text += '\n';
    if (end == std::string_view::npos) break;
    comment.remove_prefix(end + 1);
  }
}

}  // namespace loom::detail

#endif  // LOOM_IO_DETAIL_OUTPUT_HPP
// ---- end <loom/io/detail/output.hpp>
// ---- begin <loom/io/matrix_market_options.hpp>
// Defines loom::matrix_market_options, how write_matrix_market lays out a file (io/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_IO_MATRIX_MARKET_OPTIONS_HPP
#define LOOM_IO_MATRIX_MARKET_OPTIONS_HPP

#include <string>

namespace loom {

/// The field of the banner `%%MatrixMarket matrix <layout> <field> general`.
enum class matrix_market_field {
  automatic,  ///< real for floating types, integer for integral ones; a boolean tensor is
              ///< pattern when every stored value is true, else integer (0/1)
  real,       ///< values as decimal numbers (any value type)
  integer,    ///< values as integers (integral value types and loom::boolean)
  pattern     ///< coordinates only; reading gives the semiring's one() for every entry
};

/// The layout of the banner: coordinate lists entries, array lists every value.
enum class matrix_market_layout {
  coordinate,  ///< `row column value` per stored entry (1-based)
  array        ///< every value of the matrix, column by column (zeros included)
};

/// How `write_matrix_market` writes: `loom::write_matrix_market("A.mtx", A, {.comment = "..."})`.
struct matrix_market_options {
  matrix_market_field field = matrix_market_field::automatic;
  matrix_market_layout layout = matrix_market_layout::coordinate;
  /// Written after the banner, each line prefixed with `%`.
  std::string comment = {};
};

}  // namespace loom

#endif  // LOOM_IO_MATRIX_MARKET_OPTIONS_HPP
// ---- end <loom/io/matrix_market_options.hpp>

#include <array>
#include <cstdint>
#include <fstream>
#include <istream>
#include <new>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

// The format (https://math.nist.gov/MatrixMarket/formats.html), as loom reads it:
//
//   %%MatrixMarket matrix <coordinate|array> <real|double|integer|pattern> <general|symmetric|skew-symmetric>
//   % comment lines and blank lines, anywhere after the banner
//   rows columns entries        (array: rows columns)
//   row column value            (1-based; pattern: row column; array: one value per line,
//   ...                          column by column, the lower triangle when symmetric)
//
// Keywords are case-insensitive. Symmetric files store one triangle (either, or both: loom
// mirrors every off-diagonal entry); skew-symmetric files mirror with negation and may not store
// the diagonal. Values are parsed as the value type T, whatever the field says; complex and
// hermitian files are rejected as not supported. Every malformed input throws loom::parse_error
// `file:line: what`.

namespace loom {

namespace detail {

/// What the banner of a Matrix Market file declares.
struct matrix_market_header {
  enum class symmetry_kind { general, symmetric, skew };
  bool array = false;
  bool pattern = false;
  symmetry_kind symmetry = symmetry_kind::general;
};

inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k) {
    char x = a[k], y = b[k];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

inline constexpr std::string_view matrix_market_banner_form =
    "'%%MatrixMarket matrix <coordinate|array> <real|integer|pattern> "
    "<general|symmetric|skew-symmetric>'";

/// Reads and checks the banner (line 1).
inline matrix_market_header read_matrix_market_banner(line_reader& r) {
  if (!r.next())
    r.fail("the input is empty; expected the banner " + std::string(matrix_market_banner_form));
  std::array<std::string_view, 6> w{};
  const std::size_t n = r.split(w);
  if (n == 0 || !iequals(w[0], "%%MatrixMarket"))
    r.fail("expected the banner " + std::string(matrix_market_banner_form) + ", found " +
           excerpt(r.line()) + " (is this a Matrix Market file?)");
  static constexpr std::array<std::string_view, 4> parts = {"object", "format", "field",
                                                            "symmetry"};
  if (n < 5)
    r.fail("the banner ends before its " + std::string(parts[n - 1]) + "; expected " +
           std::string(matrix_market_banner_form));
  if (n > 5) r.fail("unexpected word " + excerpt(w[5]) + " after the symmetry in the banner");

  matrix_market_header h;
  if (!iequals(w[1], "matrix"))
    r.fail("unknown object " + excerpt(w[1]) + " in the banner (expected 'matrix')");

  if (iequals(w[2], "array")) h.array = true;
  else if (!iequals(w[2], "coordinate"))
    r.fail("unknown format " + excerpt(w[2]) + " in the banner (expected 'coordinate' or 'array')");

  if (iequals(w[3], "pattern")) h.pattern = true;
  else if (iequals(w[3], "complex"))
    r.fail("the complex field is not supported yet; store the real part in a 'real' file");
  else if (!iequals(w[3], "real") && !iequals(w[3], "double") && !iequals(w[3], "integer"))
    r.fail("unknown field " + excerpt(w[3]) +
           " in the banner (expected 'real', 'double', 'integer', 'pattern' or 'complex')");

  using sym = matrix_market_header::symmetry_kind;
  if (iequals(w[4], "symmetric")) h.symmetry = sym::symmetric;
  else if (iequals(w[4], "skew-symmetric")) h.symmetry = sym::skew;
  else if (iequals(w[4], "hermitian"))
    r.fail("the hermitian symmetry is not supported yet (it needs complex values)");
  else if (!iequals(w[4], "general"))
    r.fail("unknown symmetry " + excerpt(w[4]) +
           " in the banner (expected 'general', 'symmetric', 'skew-symmetric' or 'hermitian')");

  if (h.array && h.pattern)
    r.fail("'array pattern' is not a valid combination: an array lists values; use "
           "'coordinate pattern'");
  if (h.pattern && h.symmetry == sym::skew)
    r.fail("'pattern skew-symmetric' is not a valid combination: a pattern has no values to "
           "negate");
  return h;
}

/// Parses a 1-based index token and returns it 0-based; `what` is "row" or "column".
inline std::int64_t read_index(const line_reader& r, std::string_view token, std::int64_t extent,
                               const char* what) {
  std::int64_t v = 0;
  const parse_status st = parse_integer(token, v);
  if (st == parse_status::not_a_number)
    r.fail(std::string(what) + " index " + excerpt(token) + " is not an integer");
  if (st == parse_status::out_of_range || v < 1 || v > extent)
    r.fail(std::string(what) + " index " + excerpt(token) +
           (extent == 0 ? " is out of range: the matrix has no " + std::string(what) + "s"
                        : " is outside 1.." + std::to_string(extent) + " (indices are 1-based)"));
  return v - 1;
}

template <class T>
T read_value(const line_reader& r, std::string_view token) {
  T v = semiring_traits<T>::zero();
  const std::string why = value_text<T>::parse(token, v);
  if (!why.empty()) r.fail(why);
  return v;
}

/// Stores entry (i, j) = v and, in symmetric and skew-symmetric files, its mirror.
template <class T>
void add_mirrored(const line_reader& r, file_entries<T, 2>& e, const matrix_market_header& h,
                  std::int64_t i, std::int64_t j, const T& v, std::string_view token) {
  using sym = matrix_market_header::symmetry_kind;
  const std::int64_t line = r.line_number();
  if (h.symmetry == sym::skew) {
    if (i == j)
      r.fail("entry (" + std::to_string(i + 1) + "," + std::to_string(j + 1) +
             ") lies on the diagonal of a skew-symmetric matrix, whose diagonal is zero and "
             "must not be stored");
    T negated = v;
    if (!value_text<T>::negate(v, negated))
      r.fail("value " + excerpt(token) + " has no negation in the value type " +
             value_text<T>::type_name() + ", so the skew-symmetric mirror (" +
             std::to_string(j + 1) + "," + std::to_string(i + 1) + ") cannot be stored");
    e.add({i, j}, v, line);
    e.add({j, i}, negated, line);
    return;
  }
  e.add({i, j}, v, line);
  if (h.symmetry == sym::symmetric && i != j) e.add({j, i}, v, line);
}

template <class T, class Format>
tensor<T, Format> read_matrix_market_impl(line_reader& r, const read_options& options) {
  using sym = matrix_market_header::symmetry_kind;
  const matrix_market_header h = read_matrix_market_banner(r);
  const std::string size_form = h.array ? "'rows columns'" : "'rows columns entries'";
  if (!r.next_data("%"))
    r.fail("unexpected end of input: expected the size line " + size_form);
  const std::int64_t size_line = r.line_number();
  std::array<std::string_view, 4> w{};
  const std::size_t want = h.array ? 2 : 3;
  const std::size_t n_words = r.split(w);
  if (n_words < want)
    r.fail("the size line " + excerpt(r.line()) + " has " + std::to_string(n_words) +
           " number(s); expected " + size_form);
  if (n_words > want)
    r.fail("unexpected token " + excerpt(w[want]) + " on the size line; expected " + size_form);
  const std::array<std::int64_t, 2> shape = {r.count(w[0], "the number of rows"),
                                             r.count(w[1], "the number of columns")};
  const std::int64_t m = shape[0], n = shape[1];
  if (h.symmetry != sym::general && m != n)
    r.fail(std::string(h.symmetry == sym::skew ? "a skew-symmetric" : "a symmetric") +
           " matrix must be square, but the size line declares " + std::to_string(m) + " x " +
           std::to_string(n));

  std::int64_t declared = 0;  // entries (coordinate) or values (array) the file must hold
  if (!h.array) {
    declared = r.count(w[2], "the number of entries");
  } else if (h.symmetry == sym::general) {
    declared = saturating_mul(m, n);
  } else {  // n(n+1)/2 or n(n-1)/2 values
    const std::int64_t side = h.symmetry == sym::skew ? n - 1 : n + 1;
    declared = side <= 0 ? 0 : saturating_mul(n % 2 == 0 ? n / 2 : n, n % 2 == 0 ? side : side / 2);
  }
  if (h.array && declared == int64_max)
    r.fail("the array holds " + std::to_string(m) + " x " + std::to_string(n) +
           " values, more than 2^63");
  const std::int64_t expanded = h.symmetry == sym::general ? declared : saturating_mul(declared, 2);
  if (const std::string why = check_storage<Format>(shape, expanded, options); !why.empty())
    r.fail(why);

  file_entries<T, 2> e;
  e.keep_lines = options.policy == duplicates::error;
  e.reserve(expanded);
  const std::string declared_where = " (line " + std::to_string(size_line) + ")";
  if (!h.array) {
    const std::size_t per_line = h.pattern ? 2 : 3;
    const char* entry_form = h.pattern ? "'row column'" : "'row column value'";
    for (std::int64_t k = 0; k < declared; ++k) {
      if (!r.next_data("%"))
        r.fail("unexpected end of input: the size line" + declared_where + " declares " +
               std::to_string(declared) + " entries, but the file holds only " +
               std::to_string(k));
      const std::size_t got = r.split(w);
      if (got < per_line)
        r.fail("expected an entry " + std::string(entry_form) + ", found " + excerpt(r.line()));
      if (got > per_line)
        r.fail("unexpected token " + excerpt(w[per_line]) + " after the entry " + entry_form);
      const std::int64_t i = read_index(r, w[0], m, "row");
      const std::int64_t j = read_index(r, w[1], n, "column");
      const T v = h.pattern ? semiring_traits<T>::one() : read_value<T>(r, w[2]);
      add_mirrored(r, e, h, i, j, v, h.pattern ? std::string_view{} : w[2]);
    }
  } else {
    std::int64_t k = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int64_t first = h.symmetry == sym::general ? 0
                                 : h.symmetry == sym::symmetric ? j
                                                                : j + 1;
      for (std::int64_t i = first; i < m; ++i, ++k) {
        if (!r.next_data("%"))
          r.fail("unexpected end of input: the " + std::to_string(m) + " x " + std::to_string(n) +
                 " array" + declared_where + " needs " + std::to_string(declared) +
                 " values, but the file holds only " + std::to_string(k));
        const std::size_t got = r.split(std::span(w).first(2));
        if (got > 1)
          r.fail("unexpected token " + excerpt(w[1]) +
                 " after the value (an array file holds one value per line)");
        add_mirrored(r, e, h, i, j, read_value<T>(r, w[0]), w[0]);
      }
    }
  }
  if (r.next_data("%"))
    r.fail("more " + std::string(h.array ? "values" : "entries") + " than the " +
           std::to_string(declared) + " the size line" + declared_where + " declares: found " +
           excerpt(r.line()));
  return entries_to_tensor<Format>(r.name(), r.where(size_line), shape, std::move(e), options);
}

template <class T, class Format>
constexpr bool check_matrix_market_types() {
  constexpr bool is_matrix = Format::order == 2;
  static_assert(is_matrix,
                "loom::read_matrix_market/write_matrix_market: a Matrix Market file holds a "
                "matrix; use a 2-D format (csr, csc, dcsr, dcsc, coo, dense_matrix), or "
                "read_tns/write_tns for tensors of other orders");
  constexpr bool has_text = text_value<T>;
  static_assert(has_text,
                "loom::read_matrix_market/write_matrix_market: the value type has no text form; "
                "use an arithmetic type, loom::boolean or a semiring wrapper such as "
                "loom::min_plus<double>, or specialise loom::detail::value_text");
  return is_matrix && has_text;
}

}  // namespace detail

// read_matrix_market ------------------------------------------------------------------------------

/// Reads a Matrix Market matrix from `in`; `name` stands for the file in error messages and
/// becomes the tensor's name. Throws `parse_error` (`name:line: what`) for malformed input,
/// `io_error` when the stream fails, and `overflow_error`/`shape_error` (also prefixed with
/// `name:line:`) when the matrix does not fit `Format`.
template <class T, storage_format Format = csr>
tensor<T, Format> read_matrix_market(std::istream& in, const std::string& name,
                                     const read_options& options) {
  if constexpr (detail::check_matrix_market_types<T, Format>()) {
    detail::line_reader r(in, name);
    try {
      return detail::read_matrix_market_impl<T, Format>(r, options);
    } catch (const std::bad_alloc&) {
      throw error(r.where() + "out of memory while reading the matrix");
    }
  } else {
    return {};
  }
}

/// Reads a Matrix Market matrix from `in`, combining repeated entries by `policy`.
template <class T, storage_format Format = csr>
tensor<T, Format> read_matrix_market(std::istream& in, const std::string& name,
                                     duplicates policy = duplicates::sum) {
  return read_matrix_market<T, Format>(in, name, read_options{.policy = policy});
}

/// Reads the Matrix Market file at `path`: `loom::read_matrix_market<double, loom::csr>("A.mtx")`.
/// Throws `io_error` when the file cannot be opened, else as the stream overload.
template <class T, storage_format Format = csr>
tensor<T, Format> read_matrix_market(const std::string& path, const read_options& options) {
  std::ifstream in = detail::open_for_reading(path, "loom::read_matrix_market");
  return read_matrix_market<T, Format>(in, path, options);
}

/// Reads the Matrix Market file at `path`, combining repeated entries by `policy`.
template <class T, storage_format Format = csr>
tensor<T, Format> read_matrix_market(const std::string& path,
                                     duplicates policy = duplicates::sum) {
  return read_matrix_market<T, Format>(path, read_options{.policy = policy});
}

// write_matrix_market -----------------------------------------------------------------------------

/// Writes `A` as a Matrix Market `general` matrix: coordinate (one line per stored entry, in
/// storage order; the zero padding of dense formats is skipped) or array. Floating values are
/// written in the shortest form that reads back exactly. Throws `io_error` when `out` fails.
template <class T, storage_format Format, bool Owning>
void write_matrix_market(std::ostream& out, const basic_tensor<T, Format, Owning>& A,
                         const matrix_market_options& options = {}) {
  if constexpr (detail::check_matrix_market_types<T, Format>()) {
    using text = detail::value_text<T>;
    constexpr bool skip_zeros = Format::properties[Format::order - 1].full;
    const bool array = options.layout == matrix_market_layout::array;
    std::int64_t count = 0;
    bool all_one = true;
    A.for_each_stored([&](const auto&, const T& v) {
      if (skip_zeros && v == semiring_traits<T>::zero()) return;
      ++count;
      if (!(v == semiring_traits<T>::one())) all_one = false;
    });
    matrix_market_field field = options.field;
    if (field == matrix_market_field::automatic) {
      if constexpr (std::same_as<T, boolean>)
        field = all_one && !array ? matrix_market_field::pattern : matrix_market_field::integer;
      else field = text::integral ? matrix_market_field::integer : matrix_market_field::real;
    }
    if (field == matrix_market_field::integer && !text::integral)
      throw error("loom::write_matrix_market: the integer field needs an integral value type "
                  "or loom::boolean, not " + text::type_name() + "; use the real field");
    if (field == matrix_market_field::pattern && array)
      throw error("loom::write_matrix_market: a pattern cannot be written in the array layout; "
                  "use the coordinate layout or a valued field");
    const char* field_name = field == matrix_market_field::real      ? "real"
                             : field == matrix_market_field::integer ? "integer"
                                                                     : "pattern";

    detail::output_buffer buf(out, "loom::write_matrix_market");
    buf.text += "%%MatrixMarket matrix ";
    buf.text += array ? "array " : "coordinate ";
    buf.text += field_name;
    buf.text += " general\n";
    detail::append_comment(buf.text, options.comment, '%');
    const std::int64_t m = A.shape()[0], n = A.shape()[1];
    if (!array) {
      buf.text += std::to_string(m) + " " + std::to_string(n) + " " + std::to_string(count) + "\n";
      const bool pattern = field == matrix_market_field::pattern;
      A.for_each_stored([&](const std::array<std::int64_t, 2>& c, const T& v) {
        if (skip_zeros && v == semiring_traits<T>::zero()) return;
        detail::append_number(buf.text, c[0] + 1);
        buf.text += ' ';
        detail::append_number(buf.text, c[1] + 1);
        if (!pattern) {
          buf.text += ' ';
          text::append(buf.text, v);
        }
        buf.text += '\n';
        buf.flush_if_full();
      });
    } else {
      buf.text += std::to_string(m) + " " + std::to_string(n) + "\n";
      std::vector<T> dense(static_cast<std::size_t>(detail::saturating_mul(m, n)),
                           semiring_traits<T>::zero());
      A.for_each_stored([&](const std::array<std::int64_t, 2>& c, const T& v) {
        T& slot = dense[static_cast<std::size_t>(c[1] * m + c[0])];
        slot = semiring_traits<T>::add(slot, v);
      });
      for (const T& v : dense) {
        text::append(buf.text, v);
        buf.text += '\n';
        buf.flush_if_full();
      }
    }
    buf.finish();
  }
}

/// Writes `A` to the file at `path` (created or truncated); see the stream overload.
template <class T, storage_format Format, bool Owning>
void write_matrix_market(const std::string& path, const basic_tensor<T, Format, Owning>& A,
                         const matrix_market_options& options = {}) {
  std::ofstream out = detail::open_for_writing(path, "loom::write_matrix_market");
  write_matrix_market(out, A, options);
  detail::close_written(out, path, "loom::write_matrix_market");
}

}  // namespace loom

#endif  // LOOM_IO_MATRIX_MARKET_HPP
// ---- end <loom/io/matrix_market.hpp>
// ---- begin <loom/io/tns.hpp>
// Defines loom::read_tns and loom::write_tns: FROSTT coordinate text files of any order (io/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_IO_TNS_HPP
#define LOOM_IO_TNS_HPP


#include <array>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <istream>
#include <new>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

// The format (http://frostt.io/tensors/file-formats.html): one entry per line, N 1-based
// coordinates and a value, separated by blanks. Blank lines and lines starting with `#` or `%`
// are skipped. The shape is the largest coordinate of each mode unless the caller gives it.

namespace loom {

namespace detail {

template <class T, class Format>
tensor<T, Format> read_tns_impl(line_reader& r,
                                const std::optional<std::array<std::int64_t, Format::order>>& given,
                                const read_options& options) {
  constexpr std::size_t N = Format::order;
  if (given)
    for (std::size_t m = 0; m < N; ++m)
      if ((*given)[m] < 0)
        throw shape_error("loom::read_tns: extent " + std::to_string((*given)[m]) + " of mode " +
                          std::to_string(m) + " of the given shape is negative");
  std::array<std::int64_t, N> largest{};      // largest coordinate seen per mode (1-based)
  std::array<std::int64_t, N> largest_line{};  // where it was seen
  file_entries<T, N> e;
  e.keep_lines = options.policy == duplicates::error;
  std::array<std::string_view, N + 2> w{};
  const std::string form = "an order-" + std::to_string(N) + " tensor has " + std::to_string(N) +
                           " coordinates and a value per line";
  while (r.next_data("#%")) {
    const std::size_t got = r.split(w);
    if (got < N + 1)
      r.fail("expected " + std::to_string(N + 1) + " tokens, found " + excerpt(r.line()) + ": " +
             form);
    if (got > N + 1)
      r.fail("unexpected token " + excerpt(w[N + 1]) + " after the value: " + form);
    std::array<std::int64_t, N> c{};
    for (std::size_t m = 0; m < N; ++m) {
      std::int64_t v = 0;
      const parse_status st = parse_integer(w[m], v);
      const std::string what = "coordinate " + std::to_string(m + 1) + " " + excerpt(w[m]);
      if (st == parse_status::not_a_number) r.fail(what + " is not an integer");
      if (st == parse_status::out_of_range) r.fail(what + " does not fit a 64-bit integer");
      if (v < 1) r.fail(what + " is below 1 (coordinates are 1-based)");
      if (given && v > (*given)[m])
        r.fail(what + " is outside 1.." + std::to_string((*given)[m]) + ", the given extent");
      if (v > largest[m]) {
        largest[m] = v;
        largest_line[m] = r.line_number();
      }
      c[m] = v - 1;
    }
    T value = semiring_traits<T>::zero();
    if (const std::string why = value_text<T>::parse(w[N], value); !why.empty()) r.fail(why);
    e.add(c, value, r.line_number());
  }
  const std::array<std::int64_t, N> shape = given ? *given : largest;
  // Errors about the shape point at the largest coordinate of the widest mode, which set it.
  std::size_t widest = 0;
  for (std::size_t m = 1; m < N; ++m)
    if (largest[m] > largest[widest]) widest = m;
  const std::string where = given ? "loom::read_tns: " + r.name() + ": "
                                  : r.where(largest_line[widest] > 0 ? largest_line[widest] : 0);
  if (const std::string why = check_storage<Format>(shape, e.size(), options); !why.empty()) {
    if (given) throw shape_error(where + why);
    throw parse_error(where + why);
  }
  return entries_to_tensor<Format>(r.name(), where, shape, std::move(e), options);
}

template <class T, class Format>
constexpr bool check_tns_types() {
  constexpr bool has_text = text_value<T>;
  static_assert(has_text,
                "loom::read_tns/write_tns: the value type has no text form; use an arithmetic "
                "type, loom::boolean or a semiring wrapper such as loom::min_plus<double>, or "
                "specialise loom::detail::value_text");
  constexpr bool has_modes = Format::order >= 1;
  static_assert(has_modes, "loom::read_tns/write_tns: the format needs at least one mode");
  return has_text && has_modes;
}

template <class T, class Format>
tensor<T, Format> read_tns_checked(
    std::istream& in, const std::string& name,
    const std::optional<std::array<std::int64_t, Format::order>>& shape,
    const read_options& options) {
  if constexpr (check_tns_types<T, Format>()) {
    line_reader r(in, name);
    try {
      return read_tns_impl<T, Format>(r, shape, options);
    } catch (const std::bad_alloc&) {
      throw error(r.where() + "out of memory while reading the tensor");
    }
  } else {
    return {};
  }
}

}  // namespace detail

// read_tns ----------------------------------------------------------------------------------------

/// Reads a FROSTT `.tns` tensor of order `Format::order` from `in`; the shape is the largest
/// coordinate of each mode. `name` stands for the file in messages and names the tensor.
/// Throws `parse_error` (`name:line: what`) for malformed input and `io_error` when the stream
/// fails; `overflow_error` (prefixed too) when a coordinate does not fit the format's widths.
template <class T, storage_format Format>
tensor<T, Format> read_tns(std::istream& in, const std::string& name,
                           const read_options& options = {}) {
  return detail::read_tns_checked<T, Format>(in, name, std::nullopt, options);
}

/// Reads a FROSTT `.tns` tensor of the given `shape` from `in`; a coordinate outside it is a
/// `parse_error`.
template <class T, storage_format Format>
tensor<T, Format> read_tns(std::istream& in, const std::string& name,
                           const std::array<std::int64_t, Format::order>& shape,
                           const read_options& options = {}) {
  return detail::read_tns_checked<T, Format>(in, name, shape, options);
}

/// Reads the FROSTT file at `path`: `loom::read_tns<double, loom::csf<3>>("nell-2.tns")`.
template <class T, storage_format Format>
tensor<T, Format> read_tns(const std::string& path, const read_options& options = {}) {
  std::ifstream in = detail::open_for_reading(path, "loom::read_tns");
  return read_tns<T, Format>(in, path, options);
}

/// Reads the FROSTT file at `path` as a tensor of the given `shape`.
template <class T, storage_format Format>
tensor<T, Format> read_tns(const std::string& path,
                           const std::array<std::int64_t, Format::order>& shape,
                           const read_options& options = {}) {
  std::ifstream in = detail::open_for_reading(path, "loom::read_tns");
  return read_tns<T, Format>(in, path, shape, options);
}

// write_tns ---------------------------------------------------------------------------------------

/// Writes every stored entry of `A` as `i_1 ... i_N value` (1-based, storage order; the zero
/// padding of dense formats is skipped). The format has no header, so the shape is not kept:
/// pass it to `read_tns` when trailing slices are empty. Throws `io_error` when `out` fails.
template <class T, storage_format Format, bool Owning>
void write_tns(std::ostream& out, const basic_tensor<T, Format, Owning>& A) {
  if constexpr (detail::check_tns_types<T, Format>()) {
    constexpr std::size_t N = Format::order;
    constexpr bool skip_zeros = Format::properties[N - 1].full;
    detail::output_buffer buf(out, "loom::write_tns");
    A.for_each_stored([&](const std::array<std::int64_t, N>& c, const T& v) {
      if (skip_zeros && v == semiring_traits<T>::zero()) return;
      for (std::size_t m = 0; m < N; ++m) {
        detail::append_number(buf.text, c[m] + 1);
        buf.text += ' ';
      }
      detail::value_text<T>::append(buf.text, v);
      buf.text += '\n';
      buf.flush_if_full();
    });
    buf.finish();
  }
}

/// Writes `A` to the file at `path` (created or truncated); see the stream overload.
template <class T, storage_format Format, bool Owning>
void write_tns(const std::string& path, const basic_tensor<T, Format, Owning>& A) {
  std::ofstream out = detail::open_for_writing(path, "loom::write_tns");
  write_tns(out, A);
  detail::close_written(out, path, "loom::write_tns");
}

}  // namespace loom

#endif  // LOOM_IO_TNS_HPP
// ---- end <loom/io/tns.hpp>

#endif  // LOOM_IO_HPP
// ---- end <loom/io.hpp>
// ---- begin <loom/la.hpp>
// Umbrella header of la/: the linear-algebra front end (SPORES) over loom tensors.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_LA_HPP
#define LOOM_LA_HPP

// ---- begin <loom/la/evaluate.hpp>
// Defines loom::la::eval (translate, rewrite to the sum-product normal form, evaluate term by
// term), loom::la::eval_naive (one materialised result per operation, the plan without
// rewrites) and loom::la::explain (la/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_LA_EVALUATE_HPP
#define LOOM_LA_EVALUATE_HPP

// ---- begin <loom/la/nodes.hpp>
// Defines the linear-algebra expression nodes of loom::la and the functions that build them
// (la/). Nodes hold operands by value and tensors by pointer; rank 0 is a scalar, 1 a column
// vector, 2 a matrix.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_LA_NODES_HPP
#define LOOM_LA_NODES_HPP


#include <cstddef>
#include <type_traits>

namespace loom::la {

// matrix<T>: a loom tensor of order 1 or 2 (any format), by pointer.
template <class Tensor>
struct matrix {
  static constexpr std::size_t rank = Tensor::order;
  using value_type = typename Tensor::value_type;
  const Tensor* tensor;
};
// scalar<V>: a constant.
template <class V>
struct scalar {
  static constexpr std::size_t rank = 0;
  using value_type = V;
  V value;
};
// product<A, B>: the matrix product A B (matrix × matrix or matrix × vector).
template <class A, class B>
struct product {
  static constexpr std::size_t rank = A::rank + B::rank - 2;
  using value_type = typename A::value_type;
  A a;
  B b;
};
// transposed<A>: Aᵀ.
template <class A>
struct transposed {
  static constexpr std::size_t rank = 2;
  using value_type = typename A::value_type;
  A a;
};
// Element-wise operations; a rank-0 operand is broadcast, a vector is broadcast along columns.
struct plus {};
struct minus {};
struct times {};
struct divides {};
template <class Op, class A, class B>
struct elementwise {
  static constexpr std::size_t rank = A::rank > B::rank ? A::rank : B::rank;
  using value_type = typename std::conditional_t<(A::rank >= B::rank), A, B>::value_type;
  A a;
  B b;
};
// Reductions: sum of all entries, per row, per column; trace; the diagonal as a vector.
template <class A>
struct total {
  static constexpr std::size_t rank = 0;
  using value_type = typename A::value_type;
  A a;
};
template <class A>
struct row_sums_of {
  static constexpr std::size_t rank = 1;
  using value_type = typename A::value_type;
  A a;
};
template <class A>
struct col_sums_of {
  static constexpr std::size_t rank = 1;
  using value_type = typename A::value_type;
  A a;
};
template <class A>
struct trace_of {
  static constexpr std::size_t rank = 0;
  using value_type = typename A::value_type;
  A a;
};
template <class A>
struct diag_of {
  static constexpr std::size_t rank = 1;
  using value_type = typename A::value_type;
  A a;
};

namespace detail {
template <class T>
struct is_node : std::false_type {};
template <class T>
struct is_node<matrix<T>> : std::true_type {};
template <class V>
struct is_node<scalar<V>> : std::true_type {};
template <class A, class B>
struct is_node<product<A, B>> : std::true_type {};
template <class A>
struct is_node<transposed<A>> : std::true_type {};
template <class Op, class A, class B>
struct is_node<elementwise<Op, A, B>> : std::true_type {};
template <class A>
struct is_node<total<A>> : std::true_type {};
template <class A>
struct is_node<row_sums_of<A>> : std::true_type {};
template <class A>
struct is_node<col_sums_of<A>> : std::true_type {};
template <class A>
struct is_node<trace_of<A>> : std::true_type {};
template <class A>
struct is_node<diag_of<A>> : std::true_type {};
}  // namespace detail

/// Satisfied by loom::la expression types.
template <class E>
concept expression = detail::is_node<std::remove_cvref_t<E>>::value;

/// A number usable as an la operand (wrapped into `scalar`).
template <class T>
concept number = std::is_arithmetic_v<std::remove_cvref_t<T>>;

/// Wraps a loom tensor of order 1 or 2 as an la operand: `auto X = la::mat(x_tensor);`.
template <class Tensor>
  requires(Tensor::order == 1 || Tensor::order == 2)
constexpr matrix<Tensor> mat(const Tensor& t) {
  return {&t};
}

namespace detail {
template <class T>
constexpr auto wrap(const T& x) {
  if constexpr (expression<T>) return x;
  else return scalar<double>{static_cast<double>(x)};
}
template <class T>
using wrap_t = decltype(wrap(std::declval<const T&>()));
template <class A, class B>
concept operands = (expression<A> || number<A>) && (expression<B> || number<B>) &&
                   (expression<A> || expression<B>);
}  // namespace detail

/// A * B: the matrix product when both are matrices/vectors, scaling when one is a number or a
/// rank-0 expression.
template <class A, class B>
  requires detail::operands<A, B>
constexpr auto operator*(const A& a, const B& b) {
  using L = detail::wrap_t<A>;
  using R = detail::wrap_t<B>;
  if constexpr (L::rank == 0 || R::rank == 0) {
    return elementwise<times, L, R>{detail::wrap(a), detail::wrap(b)};
  } else {
    static_assert(L::rank == 2, "loom::la: A * B needs a matrix on the left (vectors are columns)");
    return product<L, R>{detail::wrap(a), detail::wrap(b)};
  }
}
template <class A, class B>
  requires detail::operands<A, B>
constexpr auto operator+(const A& a, const B& b) {
  return elementwise<plus, detail::wrap_t<A>, detail::wrap_t<B>>{detail::wrap(a), detail::wrap(b)};
}
template <class A, class B>
  requires detail::operands<A, B>
constexpr auto operator-(const A& a, const B& b) {
  return elementwise<minus, detail::wrap_t<A>, detail::wrap_t<B>>{detail::wrap(a), detail::wrap(b)};
}
template <expression A>
constexpr auto operator-(const A& a) {
  return elementwise<times, scalar<double>, A>{{-1.0}, a};
}
template <class A, class B>
  requires detail::operands<A, B>
constexpr auto operator/(const A& a, const B& b) {
  return elementwise<divides, detail::wrap_t<A>, detail::wrap_t<B>>{detail::wrap(a),
                                                                     detail::wrap(b)};
}

/// The element-wise (Hadamard) product A ∘ B.
template <class A, class B>
  requires detail::operands<A, B>
constexpr auto hadamard(const A& a, const B& b) {
  return elementwise<times, detail::wrap_t<A>, detail::wrap_t<B>>{detail::wrap(a), detail::wrap(b)};
}
/// A ∘ A.
template <expression A>
constexpr auto pow2(const A& a) {
  return elementwise<times, A, A>{a, a};
}
/// Aᵀ (a matrix).
template <expression A>
constexpr auto transpose(const A& a) {
  static_assert(A::rank == 2, "loom::la::transpose: the operand must be a matrix");
  return transposed<A>{a};
}
/// The sum of all entries.
template <expression A>
constexpr auto sum(const A& a) {
  return total<A>{a};
}
/// The vector of row sums (a vector is its own row sums).
template <expression A>
constexpr auto row_sums(const A& a) {
  return row_sums_of<A>{a};
}
/// The vector of column sums of a matrix.
template <expression A>
constexpr auto col_sums(const A& a) {
  static_assert(A::rank == 2, "loom::la::col_sums: the operand must be a matrix");
  return col_sums_of<A>{a};
}
/// The sum of the diagonal of a square matrix expression.
template <expression A>
constexpr auto trace(const A& a) {
  static_assert(A::rank == 2, "loom::la::trace: the operand must be a matrix");
  return trace_of<A>{a};
}
/// The diagonal of a square matrix expression, as a vector.
template <expression A>
constexpr auto diag(const A& a) {
  static_assert(A::rank == 2,
                "loom::la::diag: the operand must be a matrix (diag of a vector is not supported "
                "yet; multiply element-wise by an identity matrix instead)");
  return diag_of<A>{a};
}

}  // namespace loom::la

#endif  // LOOM_LA_NODES_HPP
// ---- end <loom/la/nodes.hpp>
// ---- begin <loom/la/translate.hpp>
// Defines loom::la::to_index_notation: an la expression as an index-notation expression over
// fresh index variables (la/). Every child gets its own range of fresh names, so a duplicated
// subexpression (pow2) binds distinct indices and the rewrites never capture a name.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_LA_TRANSLATE_HPP
#define LOOM_LA_TRANSLATE_HPP


#include <boost/mp11/list.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>

namespace loom::la {

namespace detail {
template <std::size_t N>
constexpr fixed_string<6> fresh_text() {
  static_assert(N < 1000, "loom::la: more than 1000 index variables in one expression");
  const char text[6] = {'l', 'a', static_cast<char>('0' + N / 100), static_cast<char>('0' + N / 10 % 10),
                        static_cast<char>('0' + N % 10), '\0'};
  return fixed_string<6>(text);
}
}  // namespace detail

/// The N-th fresh index variable of a translation ("la000", "la001", ...; they sort by N).
template <std::size_t N>
using fresh = loom::index<detail::fresh_text<N>()>;
/// The free indices of a translated matrix (row, column) or vector (row).
using row = loom::index<"row">;
using col = loom::index<"col">;

/// x / y element-wise: f(0, 0) is not 0, so the evaluator treats the result as dense.
struct divides_fn {
  static constexpr bool zero_preserving = false;
  static constexpr bool linear = false;
  template <class T>
  constexpr T operator()(T x, T y) const {
    return x / y;
  }
};

// fresh_count<E>: how many fresh indices translating E uses
template <class E>
struct fresh_count : std::integral_constant<std::size_t, 0> {};
template <class A, class B>
struct fresh_count<product<A, B>>
    : std::integral_constant<std::size_t, 1 + fresh_count<A>::value + fresh_count<B>::value> {};
template <class A>
struct fresh_count<transposed<A>> : fresh_count<A> {};
template <class Op, class A, class B>
struct fresh_count<elementwise<Op, A, B>>
    : std::integral_constant<std::size_t, fresh_count<A>::value + fresh_count<B>::value> {};
template <class A>
struct fresh_count<total<A>> : std::integral_constant<std::size_t, A::rank + fresh_count<A>::value> {};
template <class A>
struct fresh_count<row_sums_of<A>> : std::integral_constant<std::size_t, 1 + fresh_count<A>::value> {};
template <class A>
struct fresh_count<col_sums_of<A>> : std::integral_constant<std::size_t, 1 + fresh_count<A>::value> {};
template <class A>
struct fresh_count<trace_of<A>> : std::integral_constant<std::size_t, 1 + fresh_count<A>::value> {};
template <class A>
struct fresh_count<diag_of<A>> : fresh_count<A> {};

namespace detail {

using boost::mp11::mp_list;

template <class X>
constexpr auto negate(const X& x) {
  return expr::map<fn::negate, X>{fn::negate{}, std::tuple<X>{x}};
}

// translate<N>(mp_list<Is...>{}, e): e with its free dimensions named Is..., fresh names from N on.
// Static members of one struct, so that every overload sees the others.
struct tr {
template <std::size_t N, class... Is, class T>
static constexpr auto translate(mp_list<Is...>, const matrix<T>& m) {
  static_assert(sizeof...(Is) == T::order, "loom internal error: la rank mismatch; please report");
  if constexpr (sizeof...(Is) == 2) {
    static_assert(!std::is_same_v<boost::mp11::mp_first<boost::mp11::mp_list<Is...>>,
                                  boost::mp11::mp_second<boost::mp11::mp_list<Is...>>>,
                  "loom::la: trace/diag of a stored matrix reads A(i, i), which loom does not "
                  "support yet; use trace/diag of a product (e.g. trace(transpose(U) * X * V))");
  }
  return expr::access<const T, Is...>{m.tensor};
}
template <std::size_t N, class... Is, class V>
static constexpr auto translate(mp_list<Is...>, const scalar<V>& s) {
  return expr::literal<V>{s.value};
}
template <std::size_t N, class I, class J, class A>
static constexpr auto translate(mp_list<I, J>, const transposed<A>& t) {
  return translate<N>(mp_list<J, I>{}, t.a);
}
template <std::size_t N, class I, class J, class A, class B>
static constexpr auto translate(mp_list<I, J>, const product<A, B>& p) {  // matrix × matrix
  using K = fresh<N>;
  auto a = translate<N + 1>(mp_list<I, K>{}, p.a);
  auto b = translate<N + 1 + fresh_count<A>::value>(mp_list<K, J>{}, p.b);
  return expr::sum<K, expr::mul<decltype(a), decltype(b)>>{{a, b}};
}
template <std::size_t N, class I, class A, class B>
static constexpr auto translate(mp_list<I>, const product<A, B>& p) {  // matrix × vector
  using K = fresh<N>;
  auto a = translate<N + 1>(mp_list<I, K>{}, p.a);
  auto b = translate<N + 1 + fresh_count<A>::value>(mp_list<K>{}, p.b);
  return expr::sum<K, expr::mul<decltype(a), decltype(b)>>{{a, b}};
}

// An operand of an element-wise operation under the indices Is... of the result: a scalar
// takes none, a vector beside a matrix takes the row only.
template <std::size_t N, class... Is, class X>
static constexpr auto operand(mp_list<Is...>, const X& x) {
  if constexpr (X::rank == 0) {
    return translate<N>(mp_list<>{}, x);
  } else if constexpr (X::rank == 1 && sizeof...(Is) == 2) {
    return translate<N>(mp_list<boost::mp11::mp_first<mp_list<Is...>>>{}, x);
  } else {
    return translate<N>(mp_list<Is...>{}, x);
  }
}
template <std::size_t N, class... Is, class Op, class A, class B>
static constexpr auto translate(mp_list<Is...>, const elementwise<Op, A, B>& e) {
  auto a = operand<N>(mp_list<Is...>{}, e.a);
  auto b = operand<N + fresh_count<A>::value>(mp_list<Is...>{}, e.b);
  using L = decltype(a);
  using R = decltype(b);
  if constexpr (std::is_same_v<Op, plus>) {
    return expr::add<L, R>{a, b};
  } else if constexpr (std::is_same_v<Op, minus>) {
    auto nb = negate(b);
    return expr::add<L, decltype(nb)>{a, nb};
  } else if constexpr (std::is_same_v<Op, times>) {
    return expr::mul<L, R>{a, b};
  } else {
    return expr::map<divides_fn, L, R>{divides_fn{}, {a, b}};
  }
}
template <std::size_t N, class A>
static constexpr auto translate(mp_list<>, const total<A>& t) {
  if constexpr (A::rank == 2) {
    auto body = translate<N + 2>(mp_list<fresh<N>, fresh<N + 1>>{}, t.a);
    return expr::sum<fresh<N>, expr::sum<fresh<N + 1>, decltype(body)>>{{body}};
  } else if constexpr (A::rank == 1) {
    auto body = translate<N + 1>(mp_list<fresh<N>>{}, t.a);
    return expr::sum<fresh<N>, decltype(body)>{body};
  } else {
    return translate<N>(mp_list<>{}, t.a);
  }
}
template <std::size_t N, class I, class A>
static constexpr auto translate(mp_list<I>, const row_sums_of<A>& r) {
  if constexpr (A::rank == 1) {
    return translate<N + 1>(mp_list<I>{}, r.a);
  } else {
    auto body = translate<N + 1>(mp_list<I, fresh<N>>{}, r.a);
    return expr::sum<fresh<N>, decltype(body)>{body};
  }
}
template <std::size_t N, class J, class A>
static constexpr auto translate(mp_list<J>, const col_sums_of<A>& c) {
  auto body = translate<N + 1>(mp_list<fresh<N>, J>{}, c.a);
  return expr::sum<fresh<N>, decltype(body)>{body};
}
template <std::size_t N, class A>
static constexpr auto translate(mp_list<>, const trace_of<A>& t) {
  auto body = translate<N + 1>(mp_list<fresh<N>, fresh<N>>{}, t.a);
  return expr::sum<fresh<N>, decltype(body)>{body};
}
template <std::size_t N, class I, class A>
static constexpr auto translate(mp_list<I>, const diag_of<A>& d) {
  return translate<N>(mp_list<I, I>{}, d.a);
}
};  // struct tr

template <std::size_t Rank>
struct free_of;
template <>
struct free_of<0> {
  template <class E>
  static constexpr auto run(const E& e) { return tr::translate<0>(mp_list<>{}, e); }
};
template <>
struct free_of<1> {
  template <class E>
  static constexpr auto run(const E& e) { return tr::translate<0>(mp_list<row>{}, e); }
};
template <>
struct free_of<2> {
  template <class E>
  static constexpr auto run(const E& e) { return tr::translate<0>(mp_list<row, col>{}, e); }
};
}  // namespace detail

/// `e` in index notation: free indices `la::row` (and `la::col`), bound ones fresh.
template <expression E>
constexpr auto to_index_notation(const E& e) {
  return detail::free_of<E::rank>::run(e);
}

}  // namespace loom::la

#endif  // LOOM_LA_TRANSLATE_HPP
// ---- end <loom/la/translate.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <ios>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom::la {

/// The result of evaluating an la expression of rank R with value type V.
template <class V, std::size_t R>
using result_t = std::conditional_t<R == 0, V,
                                    std::conditional_t<R == 1, tensor<V, dense_vector>,
                                                       tensor<V, dense_matrix>>>;

namespace detail {

using boost::mp11::mp_list;

// ---------------------------------------------------------------------------------------------
// Part 1: extents of the index variables of a translated expression (from its accesses)
struct extent_table {
  std::vector<std::pair<std::string_view, std::int64_t>> entries;
  void note(std::string_view name, std::int64_t e) {
    for (auto& [n, x] : entries)
      if (n == name) {
        if (x != e)
          throw shape_error("loom::la: dimension " + std::string(name) + " is " + std::to_string(x) +
                            " in one operand and " + std::to_string(e) + " in another");
        return;
      }
    entries.emplace_back(name, e);
  }
  std::int64_t of(std::string_view name) const {
    for (const auto& [n, x] : entries)
      if (n == name) return x;
    throw shape_error("loom::la: the extent of " + std::string(name) + " is unknown");
  }
};
template <class E>
extent_table extents_of(const E& e) {
  extent_table t;
  expr::for_each_access(e, [&]<class T, class... Is>(const expr::access<T, Is...>& a, std::size_t) {
    std::size_t m = 0;
    (t.note(Is::name, a.tensor->extent(m++)), ...);
  });
  return t;
}

// ---------------------------------------------------------------------------------------------
// Part 2: the terms of a normal form: a sum of signed terms, each sums over a product
template <class E>
struct signed_term {
  static constexpr bool negative = false;
  using body = E;
  static constexpr const E& get(const E& e) { return e; }
};
template <class E>
struct signed_term<expr::map<fn::negate, E>> {
  static constexpr bool negative = !signed_term<E>::negative;
  using body = typename signed_term<E>::body;
  static constexpr const body& get(const expr::map<fn::negate, E>& e) {
    return signed_term<E>::get(std::get<0>(e.args));
  }
};
template <class E, class F>
void for_each_term(const E& e, F&& f) {
  if constexpr (requires { []<class L, class R>(const expr::add<L, R>&) {}(e); }) {
    for_each_term(e.lhs, f);
    for_each_term(e.rhs, f);
  } else {
    f(signed_term<E>::get(e), std::bool_constant<signed_term<E>::negative>{});
  }
}

// sums over a product: the summed indices and the factors
template <class E>
struct sum_block {
  using summed = mp_list<>;
  using product = E;
  static constexpr const E& get(const E& e) { return e; }
};
template <class I, class E>
struct sum_block<expr::sum<I, E>> {
  using summed = boost::mp11::mp_push_front<typename sum_block<E>::summed, I>;
  using product = typename sum_block<E>::product;
  static constexpr const product& get(const expr::sum<I, E>& e) { return sum_block<E>::get(e.body); }
};
template <class E>
auto factors_of(const E& e) {
  if constexpr (requires { []<class L, class R>(const expr::mul<L, R>&) {}(e); })
    return std::tuple_cat(factors_of(e.lhs), factors_of(e.rhs));
  else
    return std::tuple<E>{e};
}
template <class X>
struct factor_kind {  // 0: dense access, 1: literal, 2: anything else (sparse access, map, ...)
  static constexpr int value = 2;
};
template <class T, class... Is>
struct factor_kind<expr::access<T, Is...>> {
  static constexpr int value = std::remove_const_t<T>::format_type::all_dense ? 0 : 2;
};
template <class T>
struct factor_kind<expr::literal<T>> {
  static constexpr int value = 1;
};
template <class Tuple>
struct all_dense_factors;
template <class... Xs>
struct all_dense_factors<std::tuple<Xs...>> {
  static constexpr bool value = ((factor_kind<Xs>::value < 2) && ...);
};

// A term's signature at run time: its factors (tensor, index pattern; literal values) with
// bound indices renamed in order of first use, minimised over the orders of the factors that read
// one tensor. Equal signatures mean equal values (commutativity and alpha-renaming); a term with
// another kind of factor gets a unique signature.
struct factor_desc {
  const void* tensor = nullptr;
  std::vector<std::string_view> indices;
  std::string literal;
};
template <class Term>
std::string signature(const Term& term, std::size_t ordinal) {
  using block = sum_block<Term>;
  std::vector<std::string_view> bound;
  boost::mp11::mp_for_each<typename block::summed>([&](auto i) { bound.push_back(decltype(i)::name); });
  std::vector<factor_desc> fs;
  bool plain = true;
  std::apply([&](const auto&... f) {
    (..., [&](const auto& x) {
      using X = std::remove_cvref_t<decltype(x)>;
      factor_desc d;
      if constexpr (factor_kind<X>::value == 1) {
        std::ostringstream v;
        if constexpr (std::is_floating_point_v<decltype(x.value)>) v << std::hexfloat;  // exact
        v << x.value;
        d.literal = v.str();
      } else if constexpr (requires { x.tensor; }) {
        d.tensor = x.tensor;
        [&]<class T, class... Is>(const expr::access<T, Is...>&) { d.indices = {Is::name...}; }(x);
      } else {
        plain = false;
      }
      fs.push_back(std::move(d));
    }(f));
  }, factors_of(block::get(term)));
  if (!plain || fs.size() > 8) return "#" + std::to_string(ordinal);
  std::sort(fs.begin(), fs.end(), [](const factor_desc& a, const factor_desc& b) {
    return std::less<const void*>{}(a.tensor, b.tensor) || (a.tensor == b.tensor && a.literal < b.literal);
  });
  auto text = [&](const std::vector<factor_desc>& order) {
    std::vector<std::string_view> seen;
    std::string out;
    for (const auto& f : order) {
      out += f.literal + "@" + std::to_string(reinterpret_cast<std::uintptr_t>(f.tensor)) + "(";
      for (auto n : f.indices) {
        if (std::find(bound.begin(), bound.end(), n) == bound.end()) {
          out += std::string(n) + ",";
          continue;
        }
        auto at = std::find(seen.begin(), seen.end(), n);
        if (at == seen.end()) seen.push_back(n), at = seen.end() - 1;
        out += "_" + std::to_string(at - seen.begin()) + ",";
      }
      out += ")";
    }
    return out + "/" + std::to_string(bound.size() - seen.size());  // sums no factor uses
  };
  // try every order that keeps the tensors sorted (permutations among equal tensors)
  std::vector<std::size_t> perm(fs.size());
  for (std::size_t q = 0; q < perm.size(); ++q) perm[q] = q;
  std::string best = text(fs);
  auto same_group = [&](const std::vector<std::size_t>& p) {
    for (std::size_t q = 0; q < p.size(); ++q)
      if (fs[p[q]].tensor != fs[q].tensor || fs[p[q]].literal != fs[q].literal) return false;
    return true;
  };
  while (std::next_permutation(perm.begin(), perm.end())) {
    if (!same_group(perm)) continue;
    std::vector<factor_desc> order;
    for (std::size_t q : perm) order.push_back(fs[q]);
    best = std::min(best, text(order));
  }
  return best;
}

// ---------------------------------------------------------------------------------------------
// Part 3: variable elimination over dense factors, in the order the run-time extents make cheapest
template <class V>
struct dense_factor {
  std::vector<std::size_t> ids;  // index ids, row-major
  std::vector<V> data;
};

template <class V>
struct eliminator {
  std::vector<std::int64_t> extent;  // by index id

  // Σ over `drop` of the product of `in`, as a factor over `keep` (in that order).
  dense_factor<V> contract(const std::vector<const dense_factor<V>*>& in,
                           const std::vector<std::size_t>& keep,
                           const std::vector<std::size_t>& drop) const {
    std::vector<std::size_t> loop = keep;
    loop.insert(loop.end(), drop.begin(), drop.end());
    const std::size_t n = loop.size();
    dense_factor<V> out;
    out.ids = keep;
    std::int64_t out_size = 1;
    for (std::size_t id : keep) out_size *= extent[id];
    out.data.assign(static_cast<std::size_t>(out_size), semiring_traits<V>::zero());
    // strides of every operand and of the output along each loop position
    std::vector<std::vector<std::int64_t>> stride(in.size(), std::vector<std::int64_t>(n, 0));
    for (std::size_t f = 0; f < in.size(); ++f) {
      std::int64_t s = 1;
      for (std::size_t k = in[f]->ids.size(); k-- > 0;) {
        for (std::size_t d = 0; d < n; ++d)
          if (loop[d] == in[f]->ids[k]) stride[f][d] = s;
        s *= extent[in[f]->ids[k]];
      }
    }
    std::vector<std::int64_t> ostride(n, 0);
    {
      std::int64_t s = 1;
      for (std::size_t k = keep.size(); k-- > 0;) {
        ostride[k] = s;
        s *= extent[keep[k]];
      }
    }
    std::int64_t points = 1;
    for (std::size_t id : loop) points *= extent[id];
    if (points == 0) return out;
    std::vector<std::int64_t> count(n, 0), off(in.size(), 0);
    std::int64_t ooff = 0;
    for (std::int64_t p = 0; p < points; ++p) {
      V prod = semiring_traits<V>::one();
      for (std::size_t f = 0; f < in.size(); ++f) prod = prod * in[f]->data[static_cast<std::size_t>(off[f])];
      out.data[static_cast<std::size_t>(ooff)] = out.data[static_cast<std::size_t>(ooff)] + prod;
      for (std::size_t d = n; d-- > 0;) {
        ++count[d];
        for (std::size_t f = 0; f < in.size(); ++f) off[f] += stride[f][d];
        ooff += ostride[d];
        if (count[d] < extent[loop[d]]) break;
        for (std::size_t f = 0; f < in.size(); ++f) off[f] -= stride[f][d] * extent[loop[d]];
        ooff -= ostride[d] * extent[loop[d]];
        count[d] = 0;
      }
    }
    return out;
  }

  // Eliminates `summed` greedily: each step the index whose factors span the fewest points.
  dense_factor<V> run(std::vector<dense_factor<V>> factors, std::vector<std::size_t> summed,
                      const std::vector<std::size_t>& free, V& coefficient,
                      std::vector<std::string>* steps = nullptr) const {
    while (!summed.empty()) {
      std::size_t best = 0;
      double best_cost = -1;
      for (std::size_t c = 0; c < summed.size(); ++c) {
        std::vector<std::size_t> span;
        for (const auto& f : factors)
          if (std::find(f.ids.begin(), f.ids.end(), summed[c]) != f.ids.end())
            for (std::size_t id : f.ids)
              if (std::find(span.begin(), span.end(), id) == span.end()) span.push_back(id);
        double cost = 1;
        for (std::size_t id : span) cost *= static_cast<double>(extent[id]);
        if (span.empty()) cost = 0;  // used by no factor: a count
        if (best_cost < 0 || cost < best_cost) best = c, best_cost = cost;
      }
      const std::size_t s = summed[best];
      summed.erase(summed.begin() + static_cast<std::ptrdiff_t>(best));
      std::vector<const dense_factor<V>*> in;
      std::vector<dense_factor<V>> rest;
      std::vector<std::size_t> keep;
      for (const auto& f : factors) {
        if (std::find(f.ids.begin(), f.ids.end(), s) == f.ids.end()) continue;
        in.push_back(&f);
        for (std::size_t id : f.ids)
          if (id != s && std::find(keep.begin(), keep.end(), id) == keep.end()) keep.push_back(id);
      }
      if (in.empty()) {  // Σ_s x = extent(s) · x
        coefficient = coefficient * static_cast<V>(extent[s]);
        continue;
      }
      dense_factor<V> made = contract(in, keep, {s});
      if (steps) steps->push_back("sum over " + std::to_string(s) + " of " + std::to_string(in.size()) +
                                  " factors -> " + std::to_string(made.data.size()) + " entries");
      for (auto& f : factors)
        if (std::find(f.ids.begin(), f.ids.end(), s) == f.ids.end()) rest.push_back(std::move(f));
      rest.push_back(std::move(made));
      factors = std::move(rest);
    }
    std::vector<const dense_factor<V>*> in;
    for (const auto& f : factors) in.push_back(&f);
    return contract(in, free, {});
  }
};

template <class V, class Universe, class T, class... Is>
dense_factor<V> load(const expr::access<T, Is...>& a, const std::vector<std::int64_t>& extent) {
  dense_factor<V> f;
  f.ids = {boost::mp11::mp_find<Universe, Is>::value...};
  std::int64_t size = 1;
  for (std::size_t id : f.ids) size *= extent[id];
  f.data.assign(static_cast<std::size_t>(size), semiring_traits<V>::zero());
  a.tensor->for_each_stored([&](const auto& c, const auto& v) {
    std::int64_t off = 0;
    for (std::size_t m = 0; m < f.ids.size(); ++m) off = off * extent[f.ids[m]] + c[m];
    f.data[static_cast<std::size_t>(off)] = static_cast<V>(v);
  });
  return f;
}

// ---------------------------------------------------------------------------------------------
// Part 4: one term into the result (row-major over the result's free indices)
template <class V, class Free>
struct accumulator {
  std::vector<V> values;  // row-major over Free
  std::vector<std::int64_t> shape;
  std::vector<std::string>* log = nullptr;

  // adds `sign` times the term's values, given over `term_free` (a subset of Free, in Free's
  // order), broadcast along the missing indices
  void add(const std::vector<V>& data, const std::vector<std::size_t>& present, V sign) {
    const std::size_t n = shape.size();
    std::int64_t points = 1;
    for (auto e : shape) points *= e;
    std::vector<std::int64_t> c(n, 0);
    for (std::int64_t p = 0; p < points; ++p) {
      std::int64_t off = 0;
      for (std::size_t k : present) off = off * shape[k] + c[k];
      values[static_cast<std::size_t>(p)] =
          values[static_cast<std::size_t>(p)] + sign * data[static_cast<std::size_t>(off)];
      for (std::size_t d = n; d-- > 0;) {
        if (++c[d] < shape[d]) break;
        c[d] = 0;
      }
    }
  }
};

template <class Free, class TermFree>
std::vector<std::size_t> positions() {
  std::vector<std::size_t> p;
  boost::mp11::mp_for_each<Free>([&](auto i) {
    if constexpr (boost::mp11::mp_contains<TermFree, decltype(i)>::value)
      p.push_back(boost::mp11::mp_find<Free, decltype(i)>::value);
  });
  return p;
}

// A term with a sparse factor as one loom kernel into a dense tensor over its free indices.
template <class V, class Term, class... Is>
std::vector<V> fused_values(const Term& term, const extent_table& ext, mp_list<Is...>) {
  using fmt = std::conditional_t<sizeof...(Is) == 1, dense_vector, dense_matrix>;
  tensor<V, fmt> tmp(typename tensor<V, fmt>::shape_type{ext.of(Is::name)...});
  tmp(Is{}...) = term;
  return std::vector<V>(tmp.values().begin(), tmp.values().end());
}

template <class V, class Free, class Term>
void evaluate_term(const Term& term, V sign, const extent_table& ext, accumulator<V, Free>& acc) {
  using block = sum_block<Term>;
  const auto& product = block::get(term);
  auto factors = factors_of(product);
  using factors_t = decltype(factors);
  // the term's free indices, in the result's order
  using term_free = boost::mp11::mp_copy_if_q<
      Free, boost::mp11::mp_bind_front<boost::mp11::mp_contains, expr::free_indices_t<Term>>>;
  if constexpr (all_dense_factors<factors_t>::value) {
    // dense factors only: variable elimination, cheapest step first for these extents
    using universe = boost::mp11::mp_unique<boost::mp11::mp_append<Free, expr::all_indices_t<Term>>>;
    eliminator<V> el;
    boost::mp11::mp_for_each<universe>([&](auto i) { el.extent.push_back(ext.of(decltype(i)::name)); });
    std::vector<dense_factor<V>> dense;
    V coefficient = sign;
    std::apply([&](const auto&... f) {
      (..., [&](const auto& x) {
        if constexpr (factor_kind<std::remove_cvref_t<decltype(x)>>::value == 1)
          coefficient = coefficient * static_cast<V>(x.value);
        else
          dense.push_back(load<V, universe>(x, el.extent));
      }(f));
    }, factors);
    std::vector<std::size_t> summed, keep;
    boost::mp11::mp_for_each<typename block::summed>(
        [&](auto i) { summed.push_back(boost::mp11::mp_find<universe, decltype(i)>::value); });
    boost::mp11::mp_for_each<term_free>(
        [&](auto i) { keep.push_back(boost::mp11::mp_find<universe, decltype(i)>::value); });
    const dense_factor<V> r = el.run(std::move(dense), std::move(summed), keep, coefficient,
                                     acc.log);
    if (acc.log) acc.log->push_back("term " + loom::to_string(term) + ": variable elimination");
    acc.add(r.data, positions<Free, term_free>(), coefficient);
  } else {
    // a sparse factor: one fused loom kernel (the evaluator pushes sums in first)
    if (acc.log) acc.log->push_back("term " + loom::to_string(term) + ": fused kernel");
    constexpr std::size_t n = boost::mp11::mp_size<term_free>::value;
    if constexpr (n == 0) {
      acc.add({static_cast<V>(loom::eval(term))}, {}, sign);
    } else {
      acc.add(fused_values<V>(term, ext, term_free{}), positions<Free, term_free>(), sign);
    }
  }
}

template <std::size_t Rank>
using free_list = std::conditional_t<Rank == 0, mp_list<>,
                                     std::conditional_t<Rank == 1, mp_list<row>, mp_list<row, col>>>;

template <class E>
auto normal_form(const E& e) {
  return rewrite::rewrite<rewrite::sum_product_normal_form>(to_index_notation(e));
}

template <class E>
auto evaluate(const E& e, std::vector<std::string>* log) {
  using V = typename E::value_type;
  using Free = free_list<E::rank>;
  const auto nf = normal_form(e);
  const extent_table ext = extents_of(to_index_notation(e));
  accumulator<V, Free> acc;
  acc.log = log;
  boost::mp11::mp_for_each<Free>([&](auto i) { acc.shape.push_back(ext.of(decltype(i)::name)); });
  std::int64_t size = 1;
  for (auto s : acc.shape) size *= s;
  acc.values.assign(static_cast<std::size_t>(size), semiring_traits<V>::zero());
  if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(nf.expr)>, rewrite::zero>) {
    // terms equal up to bound names and factor order are computed once, with their count
    std::vector<std::string> sigs;
    std::vector<int> signs;
    for_each_term(nf.expr, [&](const auto& term, auto negative) {
      sigs.push_back(signature(term, sigs.size()));
      signs.push_back(decltype(negative)::value ? -1 : 1);
    });
    std::size_t t = 0;
    for_each_term(nf.expr, [&](const auto& term, auto) {
      const std::size_t me = t++;
      for (std::size_t q = 0; q < me; ++q)
        if (sigs[q] == sigs[me]) return;  // merged into term q
      int count = 0;
      for (std::size_t q = me; q < sigs.size(); ++q)
        if (sigs[q] == sigs[me]) count += signs[q];
      if (count == 0) return;  // the terms cancel
      if (log && count != 1) log->push_back("merged: coefficient " + std::to_string(count));
      evaluate_term<V, Free>(term, static_cast<V>(count), ext, acc);
    });
  }
  if constexpr (E::rank == 0) {
    return acc.values[0];
  } else {
    result_t<V, E::rank> out([&] {
      typename result_t<V, E::rank>::shape_type s{};
      for (std::size_t k = 0; k < s.size(); ++k) s[k] = acc.shape[k];
      return s;
    }());
    std::copy(acc.values.begin(), acc.values.end(), out.values().begin());
    return out;
  }
}

}  // namespace detail

/// The sum-product normal form of `e` (index notation) and the rules that produced it.
template <expression E>
auto normal_form(const E& e) {
  return detail::normal_form(e);
}

/// Evaluates `e`: translated to index notation, rewritten to the sum-product normal form, and
/// computed term by term (dense terms by variable elimination in the cheapest order for the
/// run-time extents, terms with a sparse factor by one fused kernel). A scalar for rank 0, else
/// a dense loom tensor.
template <expression E>
auto eval(const E& e) {
  return detail::evaluate(e, nullptr);
}

/// What `eval(e)` does, in words: the normal form, the rules applied, and each term's plan.
template <expression E>
std::string explain(const E& e) {
  std::vector<std::string> log;
  const auto nf = detail::normal_form(e);
  (void)detail::evaluate(e, &log);
  std::ostringstream s;
  s << "index notation: " << loom::to_string(to_index_notation(e)) << "\n";
  s << "normal form: " << loom::to_string(nf.expr) << "\n";
  s << "rules fired: " << rewrite::fired_names<typename decltype(nf)::fired>() << "\n";
  for (const auto& l : log) s << "  " << l << "\n";
  return s.str();
}

}  // namespace loom::la

#endif  // LOOM_LA_EVALUATE_HPP
// ---- end <loom/la/evaluate.hpp>
// ---- begin <loom/la/naive.hpp>
// Defines loom::la::eval_naive: every operation materialised into its own tensor, one loom kernel
// each, no rewriting across operations (the baseline the SPORES rewrites are measured against)
// (la/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_LA_NAIVE_HPP
#define LOOM_LA_NAIVE_HPP


#include <memory>
#include <type_traits>

namespace loom::la {

namespace detail::naive {

inline constexpr loom::index<"i"> i{};
inline constexpr loom::index<"j"> j{};
inline constexpr loom::index<"k"> k{};

template <class V>
using dmat = tensor<V, dense_matrix>;
template <class V>
using dvec = tensor<V, dense_vector>;

// A materialised operand: a tensor (shared, or the caller's) or a scalar.
template <class T>
std::shared_ptr<const T> borrow(const T* t) {
  return std::shared_ptr<const T>(t, [](const T*) {});
}

// Static members of one struct, so that every overload sees the others.
struct ops {
template <class T>
static auto run(const matrix<T>& m) {
  return borrow(m.tensor);
}
template <class V>
static V run(const scalar<V>& s) {
  return s.value;
}
template <class A, class B>
static auto run(const product<A, B>& p) {
  using V = typename product<A, B>::value_type;
  auto a = run(p.a);
  auto b = run(p.b);
  if constexpr (B::rank == 2) {
    auto c = std::make_shared<dmat<V>>(typename dmat<V>::shape_type{a->extent(0), b->extent(1)});
    (*c)(i, j) = loom::sum(k, (*a)(i, k) * (*b)(k, j));
    return std::shared_ptr<const dmat<V>>(c);
  } else {
    auto c = std::make_shared<dvec<V>>(typename dvec<V>::shape_type{a->extent(0)});
    (*c)(i) = loom::sum(k, (*a)(i, k) * (*b)(k));
    return std::shared_ptr<const dvec<V>>(c);
  }
}
template <class A>
static auto run(const transposed<A>& t) {
  using V = typename A::value_type;
  auto a = run(t.a);
  auto c = std::make_shared<dmat<V>>(typename dmat<V>::shape_type{a->extent(1), a->extent(0)});
  (*c)(j, i) = (*a)(i, j);
  return std::shared_ptr<const dmat<V>>(c);
}
template <class Op, class X, class Y>
static auto combine(const X& x, const Y& y) {
  if constexpr (std::is_same_v<Op, plus>) return x + y;
  else if constexpr (std::is_same_v<Op, minus>) return x - y;
  else if constexpr (std::is_same_v<Op, times>) return x * y;
  else return loom::map(divides_fn{}, x, y);
}
template <class Op, class A, class B>
static auto run(const elementwise<Op, A, B>& e) {
  using V = typename elementwise<Op, A, B>::value_type;
  auto a = run(e.a);
  auto b = run(e.b);
  constexpr std::size_t r = elementwise<Op, A, B>::rank;
  if constexpr (r == 0) {
    if constexpr (std::is_same_v<Op, plus>) return static_cast<V>(a + b);
    else if constexpr (std::is_same_v<Op, minus>) return static_cast<V>(a - b);
    else if constexpr (std::is_same_v<Op, times>) return static_cast<V>(a * b);
    else return static_cast<V>(a / b);
  } else {
    auto at = [&](const auto& x, auto... is) {  // an operand under the result's indices
      using X = std::remove_cvref_t<decltype(x)>;
      if constexpr (std::is_arithmetic_v<X>) return x;
      else if constexpr (std::remove_cvref_t<decltype(*x)>::order == 1) return (*x)(std::get<0>(std::tuple{is...}));
      else return (*x)(is...);
    };
    if constexpr (r == 2) {
      const auto& big = [&]() -> const auto& { if constexpr (A::rank == 2) return a; else return b; }();
      auto c = std::make_shared<dmat<V>>(typename dmat<V>::shape_type{big->extent(0), big->extent(1)});
      (*c)(i, j) = combine<Op>(at(a, i, j), at(b, i, j));
      return std::shared_ptr<const dmat<V>>(c);
    } else {
      const auto& big = [&]() -> const auto& { if constexpr (A::rank == 1) return a; else return b; }();
      auto c = std::make_shared<dvec<V>>(typename dvec<V>::shape_type{big->extent(0)});
      (*c)(i) = combine<Op>(at(a, i), at(b, i));
      return std::shared_ptr<const dvec<V>>(c);
    }
  }
}
template <class A>
static auto run(const total<A>& t) {
  auto a = run(t.a);
  if constexpr (A::rank == 0) return a;
  else if constexpr (A::rank == 1) return loom::eval(loom::sum(i, (*a)(i)));
  else return loom::eval(loom::sum(i, j, (*a)(i, j)));
}
template <class A>
static auto run(const row_sums_of<A>& r) {
  using V = typename A::value_type;
  auto a = run(r.a);
  if constexpr (A::rank == 1) {
    return a;
  } else {
    auto c = std::make_shared<dvec<V>>(typename dvec<V>::shape_type{a->extent(0)});
    (*c)(i) = loom::sum(j, (*a)(i, j));
    return std::shared_ptr<const dvec<V>>(c);
  }
}
template <class A>
static auto run(const col_sums_of<A>& r) {
  using V = typename A::value_type;
  auto a = run(r.a);
  auto c = std::make_shared<dvec<V>>(typename dvec<V>::shape_type{a->extent(1)});
  (*c)(j) = loom::sum(i, (*a)(i, j));
  return std::shared_ptr<const dvec<V>>(c);
}
template <class A>
static auto run(const trace_of<A>& t) {
  using V = typename A::value_type;
  auto a = run(t.a);
  V s = semiring_traits<V>::zero();
  a->for_each_stored([&](const auto& c, const auto& v) {
    if (c[0] == c[1]) s = s + static_cast<V>(v);
  });
  return s;
}
template <class A>
static auto run(const diag_of<A>& d) {
  using V = typename A::value_type;
  auto a = run(d.a);
  auto c = std::make_shared<dvec<V>>(typename dvec<V>::shape_type{a->extent(0)});
  a->for_each_stored([&](const auto& x, const auto& v) {
    if (x[0] == x[1]) c->values()[static_cast<std::size_t>(x[0])] = static_cast<V>(v);
  });
  return std::shared_ptr<const dvec<V>>(c);
}

};  // struct ops

}  // namespace detail::naive

/// `e` evaluated one operation at a time, each result materialised (dense for every operation
/// but the stored operands): the plan without rewrites. Same result types as `eval`.
template <expression E>
auto eval_naive(const E& e) {
  auto r = detail::naive::ops::run(e);
  if constexpr (E::rank == 0) {
    return r;
  } else {
    using V = typename E::value_type;
    using out_t = std::conditional_t<E::rank == 1, tensor<V, dense_vector>, tensor<V, dense_matrix>>;
    out_t out(r->shape());
    if constexpr (E::rank == 1) out(detail::naive::i) = (*r)(detail::naive::i);
    else out(detail::naive::i, detail::naive::j) = (*r)(detail::naive::i, detail::naive::j);
    return out;
  }
}

}  // namespace loom::la

#endif  // LOOM_LA_NAIVE_HPP
// ---- end <loom/la/naive.hpp>

#endif  // LOOM_LA_HPP
// ---- end <loom/la.hpp>
// ---- begin <loom/optimize.hpp>
// Umbrella header of optimize/: statistics, the statistics cache and the sparsity estimators.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_HPP
#define LOOM_OPTIMIZE_HPP

// ---- begin <loom/optimize/decompose.hpp>
// Defines loom::decompose(lhs, rhs): a sum-product program split by a prefix of a
// variable-elimination order into kernels with materialised intermediates, the indices after the
// prefix co-eliminated in one fused kernel (Galley's logical optimizer, notes 001 §3.3-3.7). The
// candidate prefixes and their kernels are instantiated at compile time (bounded by
// LOOM_MAX_ELIMINATION_ORDERS); the cheapest under the logical cost is chosen at run time from
// statistics and cached by a coarse signature (optimize/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_DECOMPOSE_HPP
#define LOOM_OPTIMIZE_DECOMPOSE_HPP


#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#ifndef LOOM_MAX_ELIMINATION_ORDERS
#  define LOOM_MAX_ELIMINATION_ORDERS 8
#endif
#ifndef LOOM_MAX_DENSE_INTERMEDIATE_CELLS
#  define LOOM_MAX_DENSE_INTERMEDIATE_CELLS (std::int64_t{1} << 26)
#endif
// Bitmap intermediates are a third variant of every candidate: +70% compile time on the decompose
// tests, and on the 4-walk graphs never faster than the better of sorted and dense (docs/optimizer.md),
// so they are opt-in. Define it the same way in every translation unit of a program.
#ifndef LOOM_BITMAP_INTERMEDIATES
#  define LOOM_BITMAP_INTERMEDIATES 0
#endif
// A format per intermediate instead of one per candidate: every combination of the formats of a
// candidate's one- and two-index intermediates is a variant of it, each instantiating the
// candidate's kernels again (docs/optimizer.md measures the compile time), so it is opt-in.
// Define it the same way in every translation unit of a program.
// Hashed intermediates (Galley's hash level: sorted coordinates plus a table that locates them in
// O(1)) are a variant of every candidate too, for the same reason opt-in. Define it the same way
// in every translation unit of a program.
#ifndef LOOM_HASHED_INTERMEDIATES
#  define LOOM_HASHED_INTERMEDIATES 0
#endif
#ifndef LOOM_INTERMEDIATE_FORMAT_PER_STEP
#  define LOOM_INTERMEDIATE_FORMAT_PER_STEP 0
#endif

namespace loom {

/// The most elimination prefixes `decompose` instantiates per program (plus the fused kernel).
inline constexpr std::size_t max_elimination_orders = LOOM_MAX_ELIMINATION_ORDERS;
/// The most cells `decompose` stores densely in one intermediate (a dense one- or two-index
/// intermediate is chosen when cheaper than a sorted sparse one and not larger than this).
inline constexpr std::int64_t max_dense_intermediate_cells = LOOM_MAX_DENSE_INTERMEDIATE_CELLS;

/// How `decompose` stores a candidate's one- and two-index intermediates (Galley's output formats,
/// notes 001 §4.4): sorted (csf, a sparse vector), dense, bitmap (Galley's bytemap: dense values
/// with presence bits, written in place, read by their set bits) or hashed (sorted entries plus a
/// hash table per fiber: readers locate an index in O(1) instead of intersecting with the list).
/// Intermediates with three or more indices are sorted.
enum class intermediate_format : std::uint8_t { sorted, dense, bitmap, hashed };
/// Every intermediate format, in the order `decompose` costs them (bitmap only with
/// LOOM_BITMAP_INTERMEDIATES=1, hashed only with LOOM_HASHED_INTERMEDIATES=1).
inline constexpr std::array<intermediate_format, 4> intermediate_formats{
    intermediate_format::sorted, intermediate_format::dense, intermediate_format::bitmap,
    intermediate_format::hashed};
/// "sorted", "dense", "bitmap" or "hashed".
constexpr const char* intermediate_format_name(intermediate_format f) {
  return f == intermediate_format::dense    ? "dense"
         : f == intermediate_format::bitmap ? "bitmap"
         : f == intermediate_format::hashed ? "hashed"
                                            : "sorted";
}
/// Whether this translation unit instantiates intermediates of format `f` (sorted and dense
/// always). The macros are template arguments, so units built with other values (a test program
/// that links both) each call their own function, not one the linker picked.
template <bool Bitmap = LOOM_BITMAP_INTERMEDIATES != 0, bool Hashed = LOOM_HASHED_INTERMEDIATES != 0>
constexpr bool intermediate_format_compiled(intermediate_format f) {
  return f == intermediate_format::bitmap ? Bitmap : f == intermediate_format::hashed ? Hashed : true;
}

namespace detail::ve {

using namespace boost::mp11;

// A candidate's format assignment, as one number: two bits per elimination step, step t's
// intermediate_format in bits 2t and 2t + 1. `uniform_code` gives every step the same format.
inline constexpr std::size_t max_coded_steps = 16;
constexpr intermediate_format format_at(std::size_t code, std::size_t step) {
  return static_cast<intermediate_format>(step < max_coded_steps ? code >> 2 * step & 3u : 0u);
}
constexpr std::size_t uniform_code(intermediate_format f) {
  std::size_t code = 0;
  for (std::size_t t = 0; t < max_coded_steps; ++t) code |= static_cast<std::size_t>(f) << 2 * t;
  return code;
}

// A sum-product: sum(s1, sum(s2, ... A * B * ...)) flattened into summed indices and factors.
template <class E>
struct flatten {
  static constexpr bool ok = false;
  using summed = mp_list<>;
  using factors = mp_list<>;
};
template <class T, class... Is>
struct flatten<expr::access<T, Is...>> {
  static constexpr bool ok = sizeof...(Is) > 0;
  using summed = mp_list<>;
  using factors = mp_list<expr::access<T, Is...>>;
};
template <class L, class R>
struct flatten<expr::mul<L, R>> {
  static constexpr bool ok = flatten<L>::ok && flatten<R>::ok && mp_empty<typename flatten<L>::summed>::value &&
                             mp_empty<typename flatten<R>::summed>::value;
  using summed = mp_list<>;
  using factors = mp_append<typename flatten<L>::factors, typename flatten<R>::factors>;
};
template <class I, class E>
struct flatten<expr::sum<I, E>> {
  static constexpr bool ok = flatten<E>::ok && !mp_contains<typename flatten<E>::summed, I>::value;
  using summed = mp_push_front<typename flatten<E>::summed, I>;
  using factors = typename flatten<E>::factors;
};

// The accesses of a flattened product, left to right, as a tuple of access values.
template <class T, class... Is>
auto collect(const expr::access<T, Is...>& a) {
  return std::tuple{a};
}
template <class L, class R>
auto collect(const expr::mul<L, R>& e) {
  return std::tuple_cat(collect(e.lhs), collect(e.rhs));
}
template <class I, class E>
auto collect(const expr::sum<I, E>& e) {
  return collect(e.body);
}

template <class A>
struct tensor_of_access_impl;
template <class T, class... Is>
struct tensor_of_access_impl<expr::access<T, Is...>> {
  using type = std::remove_const_t<T>;
};
template <class A>
using tensor_of_access = typename tensor_of_access_impl<A>::type;

template <class A>
struct indices_of;
template <class T, class... Is>
struct indices_of<expr::access<T, Is...>> {
  using type = mp_list<Is...>;
};

// The ordered selections of K distinct elements of a list (the permutations when K is its size).
template <class L, std::size_t K>
struct selections {
  template <class X>
  struct prepend {
    template <class P>
    using fn = mp_push_front<P, X>;
  };
  template <class X>
  using starting_with = mp_transform_q<prepend<X>, typename selections<mp_remove<L, X>, K - 1>::type>;
  using type = mp_apply<mp_append, mp_push_front<mp_transform<starting_with, L>, mp_list<>>>;
};
template <class L>
struct selections<L, 0> {
  using type = mp_list<mp_list<>>;
};

// The elimination prefixes of a sum-product over the summed indices L: one index eliminated, then
// two, ... up to all (the indices after the prefix are summed in one fused kernel; the fused kernel
// of all of L is candidate 0). Full orders stay candidates: their last kernel is pointwise over
// intermediates, which may be shared. Shortest first, generated only up to Cap.
template <class L, std::size_t Cap, std::size_t K = 1, class Acc = mp_list<>>
struct elimination_prefixes {
  using type = mp_take_c<Acc, std::min(Cap, mp_size<Acc>::value)>;
};
template <class L, std::size_t Cap, std::size_t K, class Acc>
  requires(K <= mp_size<L>::value && mp_size<Acc>::value < Cap)
struct elimination_prefixes<L, Cap, K, Acc> {
  using type =
      typename elimination_prefixes<L, Cap, K + 1, mp_append<Acc, typename selections<L, K>::type>>::type;
};

// A factor: mp_list<id, indices>; ids below the input count are inputs, the rest intermediates.
template <class F>
using factor_id = mp_first<F>;
template <class F>
using factor_indices = mp_second<F>;
template <class S>
struct uses {
  template <class F>
  using fn = mp_contains<factor_indices<F>, S>;
};

// Eliminating S: the factors using S become one intermediate over their other indices.
template <class Factors, class S, class Id>
struct eliminate {
  using in = mp_copy_if_q<Factors, uses<S>>;
  static_assert(!mp_empty<in>::value, "loom::decompose: a summed index is used by no factor");
  using indices = mp_remove<mp_unique<mp_apply<mp_append, mp_push_front<mp_transform<factor_indices, in>, mp_list<>>>>, S>;
};

// The indices of factor F in the order its storage nests them (inputs: their format's level
// order; intermediates: as made).
template <class Tensors, class F, bool Input = (factor_id<F>::value < mp_size<Tensors>::value)>
struct stored_indices {
  using type = factor_indices<F>;
};
template <class Tensors, class F>
struct stored_indices<Tensors, F, true> {
  using format = typename std::remove_cvref_t<mp_at<Tensors, factor_id<F>>>::format_type;
  template <class K>
  using at_level = mp_at_c<factor_indices<F>, format::modes[K::value]>;
  using type = mp_transform<at_level, mp_iota_c<format::order>>;
};

// A loop order over the indices of All that keeps every list of Stored where it can (Kahn's
// algorithm, ties and cycles broken by the order of All), and whether it keeps all of them.
template <std::size_t N>
struct loop_order {
  std::array<std::size_t, N> positions{};
  bool concordant = true;
};
// before[a][b]: index a of All comes right before b in one of the lists of Stored.
template <class All, class... Stored>
constexpr auto storage_precedence(mp_list<Stored...>) {
  constexpr std::size_t n = mp_size<All>::value;
  std::array<std::array<bool, n>, n> before{};
  (..., [&]<class... Xs>(mp_list<Xs...>) {
    constexpr std::array<std::size_t, sizeof...(Xs)> p{mp_find<All, Xs>::value...};
    for (std::size_t t = 0; t + 1 < p.size(); ++t) before[p[t]][p[t + 1]] = true;
  }(Stored{}));
  return before;
}
template <class All, class... Stored>
constexpr auto concordant_order(mp_list<Stored...> stored) {
  constexpr std::size_t n = mp_size<All>::value;
  const auto before = storage_precedence<All>(stored);  // before[a][b]: a must come before b
  loop_order<n> result;
  std::array<bool, n> placed{};
  for (std::size_t t = 0; t < n; ++t) {
    std::size_t pick = n;
    for (std::size_t c = 0; c < n && pick == n; ++c) {
      if (placed[c]) continue;
      bool free = true;
      for (std::size_t q = 0; q < n; ++q) free = free && (placed[q] || !before[q][c]);
      if (free) pick = c;
    }
    if (pick == n) result.concordant = false;
    for (std::size_t c = 0; c < n && pick == n; ++c)  // a cycle: the first one left
      if (!placed[c]) pick = c;
    placed[pick] = true;
    result.positions[t] = pick;
  }
  return result;
}
// Whether one loop order keeps every list of Stored (no cycle in their precedences).
template <class All, class... Stored>
constexpr bool concordant_exists(mp_list<Stored...> stored) {
  return concordant_order<All>(stored).concordant;
}

// The indices of the intermediate that eliminating S makes, in the order of a loop nest
// concordant with the step's operands, so that the step writes it in order (appended, or one
// workspace row at a time) instead of collecting and sorting its entries.
template <class Tensors, class Factors, class S>
struct concordant_made {
  using e = eliminate<Factors, S, mp_size_t<0>>;
  using all = mp_unique<mp_apply<mp_append, mp_push_front<mp_transform<factor_indices, typename e::in>, mp_list<>>>>;
  template <class F>
  using stored = typename stored_indices<Tensors, F>::type;
  static constexpr auto positions = concordant_order<all>(mp_transform<stored, typename e::in>{}).positions;
  template <class K>
  using at = mp_at_c<all, positions[K::value]>;
  using type = mp_remove<mp_transform<at, mp_iota<mp_size<all>>>, S>;
};
template <class Tensors, class Factors, class S>
using concordant_made_t = typename concordant_made<Tensors, Factors, S>::type;

// A greedy elimination order (the min-fill rule of variable elimination, on the program's
// structure): each time, the summed index whose intermediate has the fewest indices (the first
// such in the written order).
template <class Factors, class Summed, class Order = mp_list<>>
struct greedy_order {
  template <class S>
  using arity = mp_size<typename eliminate<Factors, S, mp_size_t<0>>::indices>;
  using arities = mp_transform<arity, Summed>;
  using best = mp_at<Summed, mp_find<arities, mp_min_element<arities, mp_less>>>;
  using made = mp_list<mp_size_t<0>, typename eliminate<Factors, best, mp_size_t<0>>::indices>;
  using type = typename greedy_order<mp_push_back<mp_remove_if_q<Factors, uses<best>>, made>,
                                     mp_remove<Summed, best>, mp_push_back<Order, best>>::type;
};
template <class Factors, class Order>
struct greedy_order<Factors, mp_list<>, Order> {
  using type = Order;
};

// How many elimination prefixes n summed indices have: n + n(n-1) + ... + n!.
constexpr std::size_t prefix_count(std::size_t n) {
  std::size_t total = 0, term = 1;
  for (std::size_t k = 0; k < n; ++k) total += term *= n - k;
  return total;
}

// The candidates: every prefix when there are at most Cap (exact search, small programs); else the
// prefixes of the greedy order first, then the shortest others, up to Cap.
template <class Factors, class Summed, std::size_t Cap>
struct candidate_prefixes {
  static constexpr std::size_t n = mp_size<Summed>::value;
  static constexpr bool exact = prefix_count(n) <= Cap;
  using greedy = typename greedy_order<Factors, Summed>::type;
  template <class K>
  using greedy_prefix = mp_take<greedy, mp_size_t<K::value + 1>>;
  using greedy_prefixes = mp_transform<greedy_prefix, mp_iota_c<n>>;
  using shortest = typename elimination_prefixes<Summed, Cap + n>::type;
  using merged = mp_unique<mp_append<greedy_prefixes, shortest>>;
  using type = mp_if_c<exact, shortest, mp_take_c<merged, std::min(Cap, mp_size<merged>::value)>>;
};

// Common subexpressions (notes 001 §3.7): a step whose factors are all inputs and that computes,
// up to a renaming of indices, what an earlier such step computed over the same tensors can reuse
// that intermediate: as it is, or transposed when the renaming permutes its indices. The match is
// structural (here, at compile time); that the tensors are the same objects is checked at run
// time, and the cost model decides whether reusing beats recomputing.
inline constexpr int max_step_factors = 8, max_step_indices = 16;

struct step_shape {
  int factors = 0;
  bool leaf = true;  // every factor an input
  int tensor[max_step_factors]{};
  int arity[max_step_factors]{};
  int index[max_step_factors][max_step_indices]{};
  int summed = 0;
  int made_count = 0;
  int made[max_step_indices]{};
};

struct twin_match {
  int twin = -1;                      // the earlier step, or -1
  int made[max_step_indices]{};       // the twin's intermediate indices, renamed to this step's
  int factor[max_step_factors]{};     // the twin's factor f is this step's factor factor[f]
};

// Tries every pairing of the factors (at most a few) for an index renaming t -> u.
constexpr bool match_shapes(const step_shape& t, const step_shape& u, twin_match& m) {
  if (!t.leaf || !u.leaf || t.factors != u.factors || t.made_count != u.made_count) return false;
  int perm[max_step_factors]{};
  for (int f = 0; f < u.factors; ++f) perm[f] = f;
  do {
    int to[max_step_indices], from[max_step_indices];
    for (int x = 0; x < max_step_indices; ++x) to[x] = from[x] = -1;
    bool ok = true;
    auto bind = [&](int a, int b) {
      if (to[a] == -1 && from[b] == -1) {
        to[a] = b;
        from[b] = a;
      }
      return to[a] == b;
    };
    for (int f = 0; f < t.factors && ok; ++f) {
      const int g = perm[f];
      ok = t.tensor[f] == u.tensor[g] && t.arity[f] == u.arity[g];
      for (int p = 0; p < t.arity[f] && ok; ++p) ok = bind(t.index[f][p], u.index[g][p]);
    }
    ok = ok && bind(t.summed, u.summed);
    if (ok) {
      for (int x = 0; x < t.made_count; ++x) m.made[x] = to[t.made[x]];
      for (int f = 0; f < t.factors; ++f) m.factor[f] = perm[f];
      return true;
    }
  } while (std::next_permutation(perm, perm + u.factors));
  return false;
}

template <class Universe, class Tensors, class S, class In, class Made>
constexpr step_shape shape_of() {
  step_shape s;
  s.summed = static_cast<int>(mp_find<Universe, S>::value);
  s.made_count = static_cast<int>(mp_size<Made>::value);
  mp_for_each<mp_iota<mp_size<Made>>>([&](auto x) { s.made[x] = static_cast<int>(mp_find<Universe, mp_at<Made, decltype(x)>>::value); });
  s.factors = static_cast<int>(mp_size<In>::value);
  mp_for_each<mp_iota<mp_size<In>>>([&](auto f) {
    using F = mp_at<In, decltype(f)>;
    if constexpr (factor_id<F>::value >= mp_size<Tensors>::value) {
      s.leaf = false;
    } else {
      using T = mp_at<Tensors, factor_id<F>>;
      s.tensor[f] = static_cast<int>(mp_find<mp_unique<Tensors>, T>::value);
      s.arity[f] = static_cast<int>(mp_size<factor_indices<F>>::value);
      mp_for_each<mp_iota<mp_size<factor_indices<F>>>>([&](auto p) {
        s.index[f][p] = static_cast<int>(mp_find<Universe, mp_at<factor_indices<F>, decltype(p)>>::value);
      });
    }
  });
  return s;
}

// A step: mp_list<summed index, factors in, made factor, twin step (mp_int, -1: none), the twin's
// factor pairing (mp_list of mp_int), the twin's modes in this step's intermediate (a list)>.
template <class Step>
using step_index = mp_first<Step>;
template <class Step>
using step_inputs = mp_second<Step>;
template <class Step>
using step_made = mp_third<Step>;
template <class Step>
using step_twin = mp_at_c<Step, 3>;
template <class Step>
using step_pairing = mp_at_c<Step, 4>;
template <class Step>
using step_from_twin = mp_at_c<Step, 5>;
template <class Step>
using step_relaid = mp_bool<!std::is_same_v<step_from_twin<Step>, mp_iota<mp_size<step_from_twin<Step>>>>>;

// `from` with its modes moved: mode p goes to mode FromTwin[p] (a transposition).
template <class To, class From, class... Ps>
void relayout(To& to, const From& from, mp_list<Ps...>) {
  constexpr std::size_t N = sizeof...(Ps);
  constexpr std::array<std::size_t, N> at{Ps::value...};
  typename To::shape_type shape{};
  for (std::size_t p = 0; p < N; ++p) shape[at[p]] = from.extent(p);
  if constexpr (To::format_type::all_dense) {  // identity modes on both sides: row-major cells
    To out(shape);
    std::array<std::int64_t, N> stride{}, extent{}, to_stride{};
    std::int64_t s = 1;
    for (std::size_t m = N; m-- > 0;) to_stride[m] = s, s *= shape[m];
    for (std::size_t p = 0; p < N; ++p) extent[p] = from.extent(p), stride[p] = to_stride[at[p]];
    loom::detail::permute_dense(from.values().data(), out.values().data(), extent, stride);
    to = std::move(out);
  } else {
    std::vector<std::array<std::int64_t, N>> crd;
    std::vector<typename To::value_type> vals;
    crd.reserve(static_cast<std::size_t>(from.nnz()));
    vals.reserve(static_cast<std::size_t>(from.nnz()));
    from.for_each_stored([&](const auto& c, const auto& v) {
      std::array<std::int64_t, N> x{};
      for (std::size_t p = 0; p < N; ++p) x[at[p]] = c[p];
      crd.push_back(x);
      vals.push_back(v);
    });
    to = from_coo<typename To::format_type>(shape, crd, vals);
  }
}

template <class Universe, class Tensors, class Steps, class S, class In, class Made>
constexpr twin_match find_twin() {
  twin_match m;
  if constexpr (mp_size<In>::value <= max_step_factors && mp_size<Universe>::value <= max_step_indices) {
    constexpr step_shape u = shape_of<Universe, Tensors, S, In, Made>();
    int t = 0;
    mp_for_each<mp_transform<mp_identity, Steps>>([&](auto st) {
      using P = typename decltype(st)::type;
      if (m.twin < 0 && step_twin<P>::value < 0 &&
          match_shapes(shape_of<Universe, Tensors, step_index<P>, step_inputs<P>, factor_indices<step_made<P>>>(), u, m))
        m.twin = t;
      ++t;
    });
  }
  return m;
}

template <class Universe, class Tensors, class Steps, class S, class In, class Made, class Id>
struct make_step {
  static constexpr twin_match m = find_twin<Universe, Tensors, Steps, S, In, Made>();
  // mode p of the twin's intermediate is mode from_twin[p] of this one
  template <class X>
  using from_twin_at = mp_find<Made, mp_at_c<Universe, static_cast<std::size_t>(m.made[X::value])>>;
  template <class F>
  using pairing_at = mp_int<m.factor[F::value]>;
  using from_twin = mp_if_c<(m.twin >= 0), mp_transform<from_twin_at, mp_iota<mp_size<Made>>>, mp_iota<mp_size<Made>>>;
  using type = mp_list<S, In, mp_list<Id, Made>, mp_int<m.twin>, mp_transform<pairing_at, mp_iota<mp_size<In>>>,
                       from_twin>;
};

// Concordant: made indices in a concordant loop order (sparse intermediates, written in order),
// else in order of appearance (dense ones, written in place, where that keeps a shared
// intermediate in the layout its consumers read).
template <std::size_t Code, class Universe, class Tensors, class Order, class Factors, std::size_t Next,
          class Steps = mp_list<>>
struct plan_of {
  using steps = Steps;
  using remaining = Factors;
};
template <std::size_t Code, class Universe, class Tensors, class S, class... Rest, class Factors, std::size_t Next,
          class Steps>
struct plan_of<Code, Universe, Tensors, mp_list<S, Rest...>, Factors, Next, Steps> {
  using e = eliminate<Factors, S, mp_size_t<Next>>;
  static constexpr bool concordant = format_at(Code, mp_size<Steps>::value) != intermediate_format::dense;
  using made = mp_eval_if_c<!concordant, typename e::indices, concordant_made_t, Tensors, Factors, S>;
  using step = typename make_step<Universe, Tensors, Steps, S, typename e::in, made, mp_size_t<Next>>::type;
  using next = plan_of<Code, Universe, Tensors, mp_list<Rest...>,
                       mp_push_back<mp_remove_if_q<Factors, uses<S>>, step_made<step>>, Next + 1,
                       mp_push_back<Steps, step>>;
  using steps = typename next::steps;
  using remaining = typename next::remaining;
};

// An intermediate: sorted (csf, a sparse vector, a scalar) or, with one or two indices, dense,
// bitmap or hashed (dense rows over hashed columns when two): Galley's intermediate-format choice,
// notes 001 §4.4. The choice is one per candidate order, so that each step's kernel is
// instantiated once per format, not once per combination of its inputs' formats
// (LOOM_INTERMEDIATE_FORMAT_PER_STEP: one per intermediate). A slot holds its own tensor or points
// at a twin's.
template <class V, class Indices, intermediate_format F>
struct intermediate_slot {
  static constexpr std::size_t order = mp_size<Indices>::value;
  static constexpr bool may_be_dense = order >= 1 && order <= 2;
  static constexpr intermediate_format kind = may_be_dense ? F : intermediate_format::sorted;
  static constexpr bool dense = kind == intermediate_format::dense;
  using bitmap_format = mp_if_c<order == 1, format<bitmap>, format<loom::dense, bitmap>>;
  using hashed_format = mp_if_c<order == 1, format<hashed>, format<loom::dense, hashed>>;
  using sorted_format = mp_if_c<order == 0, format<>, mp_if_c<order == 1, sparse_vector, csf<order>>>;
  using type = tensor<V, mp_if_c<dense, dense_n<order>,
                                 mp_if_c<kind == intermediate_format::bitmap, bitmap_format,
                                         mp_if_c<kind == intermediate_format::hashed, hashed_format, sorted_format>>>>;
  std::optional<type> own;
  const type* made = nullptr;
};

/// Static facts of `lhs = rhs` decomposed.
template <class Lhs, class Rhs>
struct program {
  using flat = flatten<Rhs>;
  static constexpr bool ok = flat::ok;
  using summed = typename flat::summed;
  using inputs = typename flat::factors;
  static constexpr std::size_t input_count = mp_size<inputs>::value;
  template <class K>
  using input_factor = mp_list<K, typename indices_of<mp_at<inputs, K>>::type>;
  using initial = mp_transform<input_factor, mp_iota_c<input_count>>;
  using orders = typename candidate_prefixes<initial, summed, max_elimination_orders>::type;
  // the summed indices that candidate Order leaves to its last, fused kernel
  template <class Order>
  using fused_rest = mp_remove_if_q<summed, mp_bind_front<mp_contains, Order>>;
  using tensors = mp_transform<tensor_of_access, inputs>;
  using universe = mp_unique<mp_apply<mp_append, mp_push_front<mp_transform<factor_indices, initial>, mp_list<>>>>;
  // sorted and bitmap intermediates take a loop order concordant with their step; dense ones
  // are written in place in any order and keep the written order
  // Code: the steps' formats (format_at); a dense step's made indices keep the written order
  template <class Order, std::size_t Code = 0>
  using plan = plan_of<Code, universe, tensors, Order, initial, input_count>;
  using V = expr::value_type_t<Rhs>;
};

template <class I, class Tuple>
std::int64_t extent_of(const Tuple& inputs) {
  std::int64_t e = -1;
  std::apply([&](const auto&... a) {
    (..., [&]<class T, class... Is>(const expr::access<T, Is...>& x) {
      std::size_t m = 0;
      (..., [&] {
        if (e < 0 && std::is_same_v<Is, I>) e = x.tensor->extent(m);
        ++m;
      }());
    }(a));
  }, inputs);
  return e;
}

template <class... Is>
std::string names(mp_list<Is...>) {
  std::string s;
  (..., (s += (s.empty() ? "" : ",") + std::string(Is::name)));
  return s;
}

// sum(I1, sum(I2, ... e)) over the indices of Summed.
template <class Summed>
struct wrap_sums;
template <>
struct wrap_sums<mp_list<>> {
  template <class E>
  static E apply(const E& e) {
    return e;
  }
};
template <class I, class... Is>
struct wrap_sums<mp_list<I, Is...>> {
  template <class E>
  static auto apply(const E& e) {
    const auto inner = wrap_sums<mp_list<Is...>>::apply(e);
    return expr::sum<I, std::remove_cvref_t<decltype(inner)>>{inner};
  }
};

template <class A>
auto product(const A& a) {
  return a;
}
template <class A, class B, class... Rest>
auto product(const A& a, const B& b, const Rest&... rest) {
  return product(expr::mul<A, B>{a, b}, rest...);
}

}  // namespace detail::ve

/// What `decompose` considered and chose: candidate 0 is the fused kernel (no intermediate),
/// candidate c > 0 the elimination prefix c - 1 (its steps, then one fused kernel for the rest).
struct decomposition_choice {
  std::vector<std::string> description;  // per candidate, its kernels
  std::vector<double> cost;              // Galley's logical cost per candidate
  // per candidate: the format of its first one- or two-index intermediate (of all of them, unless
  // LOOM_INTERMEDIATE_FORMAT_PER_STEP chose a mix); sorted when it has none
  std::vector<intermediate_format> format;
  std::vector<std::vector<intermediate_format>> step_formats;  // per candidate, per step
  std::vector<std::size_t> variant;      // per candidate, which of its instantiated format assignments
  std::vector<std::size_t> variants;     // per candidate, how many it has (costed, instantiated)
  std::vector<std::uint32_t> reuse;      // per candidate, bit t: step t reuses its twin's intermediate
  std::size_t chosen = 0;
};

namespace detail::ve {

template <class Lhs, class Rhs>
struct runner {
  using P = program<Lhs, Rhs>;
  using V = typename P::V;
  using inputs_tuple = decltype(collect(std::declval<const Rhs&>()));
  static constexpr std::size_t n_in = P::input_count;

  template <class Order, std::size_t Code>
  using steps_of = typename P::template plan<Order, Code>::steps;
  // the format code gives step t (the intermediate with factor id n_in + t) its format
  template <class Made>
  static constexpr std::size_t step_of = factor_id<Made>::value - n_in;
  template <std::size_t Code>
  struct slot_fn {
    template <class Step>
    using fn = intermediate_slot<V, factor_indices<step_made<Step>>, format_at(Code, step_of<step_made<Step>>)>;
  };
  template <class Order, std::size_t Code>
  using intermediates = mp_rename<mp_transform_q<slot_fn<Code>, steps_of<Order, Code>>, std::tuple>;
  // write costs per sorted entry and per dense cell (dense pays when over a third full); a bitmap
  // clears its cells (values and bits) and writes each entry in place, no sort (SpGEMM with 12% of
  // cells set: 0.55x the time of a sorted output), but its readers walk bits: 30 per entry puts
  // the choice near Galley's cut-offs (notes 001 §4.3: bytemap above 5% full, dense above 50%):
  // bitmap above about 7% full, dense above about 60%
  static constexpr double sparse_write = 60.0, dense_write = 20.0, bitmap_cell = 2.0, bitmap_write = 30.0;
  // a hashed intermediate is written like a sorted one, then its tables are built (per entry) and,
  // with two indices, its rows' offsets (per row); every read of it is a probe
  static constexpr double hashed_write = 60.0, hashed_row = 2.0, hash_probe = 2.5;
  // a dense one-index intermediate is cleared (like a bitmap's cells) and written in place
  static constexpr double dense_vector_write = 2.0;

  template <class Step>
  using dense_capable =
      mp_bool<intermediate_slot<V, factor_indices<step_made<Step>>, intermediate_format::dense>::dense>;

  // Whether factor F fixes an order on its indices for the kernel reading it: a sparse input or a
  // sparse intermediate with two or more indices (dense ones are located in any order).
  template <std::size_t Code>
  struct constrains {
    template <class F>
    using fn = mp_bool<(mp_size<factor_indices<F>>::value >= 2) &&
                       (factor_id<F>::value < n_in
                            ? !std::remove_cvref_t<mp_at_c<typename P::tensors, std::min(factor_id<F>::value, n_in - 1)>>::format_type::all_dense
                            : !(format_at(Code, factor_id<F>::value - n_in) == intermediate_format::dense &&
                                mp_size<factor_indices<F>>::value <= 2))>;
  };
  template <class F>
  using stored_of = typename stored_indices<typename P::tensors, F>::type;
  // Whether the kernel over Factors must transpose one of them (no loop order suits every sparse
  // one): the planner then copies it, which the cost counts like writing a sparse intermediate.
  template <std::size_t Code, class Factors>
  static constexpr bool needs_transpose = [] {
    using sparse = mp_copy_if_q<Factors, constrains<Code>>;
    using all = mp_unique<mp_apply<mp_append, mp_push_front<mp_transform<factor_indices, Factors>, mp_list<>>>>;
    return !concordant_exists<all>(mp_transform<stored_of, sparse>{});
  }();
  template <std::size_t Code, class Factors>
  static double transpose_cost(const std::vector<std::optional<chain_bound_estimator>>& est) {
    if constexpr (!needs_transpose<Code, Factors>) {
      (void)est;
      return 0.0;
    } else {
      double smallest = std::numeric_limits<double>::infinity();
      bool bitmap_factor = false;
      mp_for_each<mp_transform<factor_id, mp_copy_if_q<Factors, constrains<Code>>>>([&](auto id) {
        constexpr std::size_t f = decltype(id)::value;
        smallest = std::min(smallest, est[f]->estimate());
        bitmap_factor = bitmap_factor || (f >= n_in && format_at(Code, f - n_in) == intermediate_format::bitmap);
      });
      // a bitmap is transposed through its entries, cell by cell (zenios 4-walks: 4x the sorted plan)
      if (bitmap_factor) return std::numeric_limits<double>::infinity();
      return sparse_write * smallest;
    }
  }
  // Whether factor F is read by iteration: a sparse input whose innermost level cannot locate
  // (hashed and bitmap ones are located), or a sorted intermediate.
  template <std::size_t Code, class F>
  static constexpr bool iterated = [] {
    constexpr std::size_t id = factor_id<F>::value;
    if constexpr (id < n_in) {
      using format = typename std::remove_cvref_t<mp_at_c<typename P::tensors, id>>::format_type;
      return !format::all_dense && !format::properties[format::order - 1].random_access;
    } else {
      return intermediate_slot<V, factor_indices<F>, format_at(Code, id - n_in)>::kind == intermediate_format::sorted;
    }
  }();
  template <std::size_t Code>
  struct iterated_q {
    template <class F>
    using fn = mp_bool<iterated<Code, F>>;
  };
  template <class F>
  using one_index = mp_bool<mp_size<factor_indices<F>>::value == 1>;

  // How often a kernel over Factors visits a fiber along x of another factor than T: once per
  // binding of the indices that precede x in the storage orders of its iterated factors, joined
  // over every factor but T. In the fused y(i) = sum(j, k, A(i,j) C(j,k) x(k)) the row of C is
  // visited once per entry of A, which may be more or fewer times than C has rows. Nullopt when T
  // has one other factor: then each of that factor's fibers is visited once (T1 = B T0: B's rows).
  template <std::size_t Code, class Factors, class T, class x>
  static std::optional<double> outer_bindings(const std::vector<std::optional<chain_bound_estimator>>& est) {
    using others = mp_remove<Factors, T>;
    if constexpr (mp_size<others>::value < 2) {
      (void)est;
      return std::nullopt;
    } else {
      using all = mp_unique<mp_apply<mp_append, mp_push_front<mp_transform<factor_indices, others>, mp_list<>>>>;
      constexpr std::size_t n = mp_size<all>::value;
      static constexpr auto outer = [] {
        auto before = storage_precedence<all>(mp_transform<stored_of, mp_copy_if_q<others, iterated_q<Code>>>{});
        for (std::size_t m = 0; m < n; ++m)  // transitive closure
          for (std::size_t a = 0; a < n; ++a)
            for (std::size_t b = 0; b < n; ++b) before[a][b] = before[a][b] || (before[a][m] && before[m][b]);
        std::array<bool, n> o{};
        for (std::size_t a = 0; a < n; ++a) o[a] = before[a][mp_find<all, x>::value];
        return o;
      }();
      std::vector<std::string> inner;
      mp_for_each<mp_iota_c<n>>([&](auto a) {
        if (!outer[a]) inner.emplace_back(mp_at_c<all, a>::name);
      });
      std::vector<chain_bound_estimator> parts;
      mp_for_each<mp_transform<factor_id, others>>([&](auto id) { parts.push_back(*est[id]); });
      return std::max(1.0, chain_bound_estimator::conjunction(parts).aggregate(inner).estimate());
    }
  }
  // F's fibers along x: how many the kernel visits (outer_bindings, else one visit each) and
  // their mean length.
  struct fiber_walk {
    double visits, length;
  };
  template <class F, class x>
  static fiber_walk walk_of(const std::vector<std::optional<chain_bound_estimator>>& est, std::optional<double> bindings) {
    const chain_bound_estimator& e = *est[factor_id<F>::value];
    const double fibers = std::max(1.0, e.aggregate({std::string(x::name)}).estimate());
    return {bindings.value_or(fibers), std::max(1.0, e.estimate() / fibers)};
  }

  // The leapfrog a kernel over Factors runs against each sorted one-index factor T(x) (a sparse
  // vector input or intermediate): every visit of a fiber along x of another iterated factor
  // F(..., x) intersects it with T, galloping through the longer list, min(a, b) * (1 + log2(max /
  // min)) steps. The join counts only the matches (three hops, T = C x of 88 entries against 100K
  // rows of B: 149K products, but 9.4 ms against 1.2 ms when T is dense and located). Sorted
  // factors with more indices are not charged.
  template <std::size_t Code, class Factors>
  static double intersection_cost(const std::vector<std::optional<chain_bound_estimator>>& est) {
    double total = 0;
    // most kernels read no one-index factor: nothing to instantiate for them
    mp_for_each<mp_transform<mp_identity, mp_copy_if<Factors, one_index>>>([&](auto t) {
      using T = typename decltype(t)::type;
      if constexpr (iterated<Code, T>) {
        using x = mp_first<factor_indices<T>>;
        const double b = std::max(1.0, est[factor_id<T>::value]->estimate());
        const std::optional<double> bindings = outer_bindings<Code, Factors, T, x>(est);
        mp_for_each<mp_transform<mp_identity, Factors>>([&](auto f) {
          using F = typename decltype(f)::type;
          if constexpr (!std::is_same_v<F, T> && mp_size<factor_indices<F>>::value >= 2 &&
                        mp_contains<factor_indices<F>, x>::value && iterated<Code, F>) {
            const auto [visits, a] = walk_of<F, x>(est, bindings);
            total += visits * std::min(a, b) * (1.0 + std::log2(std::max(a, b) / std::min(a, b)));
          }
        });
      }
    });
    return total;
  }

  // The probes a kernel over Factors makes into each hashed intermediate T: another iterated factor
  // F meeting T's last index leads there and T is located at each entry of each visit of F's
  // fibers (the static table: a random-access operand is located while the other iterates).
  template <class F>
  using intermediate_factor = mp_bool<(factor_id<F>::value >= n_in)>;
  template <std::size_t Code, class Factors>
  static double probe_cost(const std::vector<std::optional<chain_bound_estimator>>& est) {
    double total = 0;
    mp_for_each<mp_transform<mp_identity, mp_copy_if<Factors, intermediate_factor>>>([&](auto t) {
      using T = typename decltype(t)::type;
      if constexpr (intermediate_slot<V, factor_indices<T>, format_at(Code, factor_id<T>::value - n_in)>::kind ==
                    intermediate_format::hashed) {
        using x = mp_back<factor_indices<T>>;
        double probes = 0;
        const std::optional<double> bindings = outer_bindings<Code, Factors, T, x>(est);
        mp_for_each<mp_transform<mp_identity, Factors>>([&](auto f) {
          using F = typename decltype(f)::type;
          if constexpr (!std::is_same_v<F, T> && mp_contains<factor_indices<F>, x>::value && iterated<Code, F>) {
            const auto [visits, length] = walk_of<F, x>(est, bindings);
            probes = std::max(probes, visits * length);
          }
        });
        total += hash_probe * probes;
      }
    });
    return total;
  }

  // whether the dense and bitmap variants differ from the sorted one for this order
  template <class Order>
  static constexpr bool has_format_choice =
      mp_any_of<steps_of<Order, uniform_code(intermediate_format::dense)>, dense_capable>::value;

  // The format codes instantiated for Order, uniform ones first (sorted, dense, bitmap), then,
  // with LOOM_INTERMEDIATE_FORMAT_PER_STEP, every mix over the steps whose intermediates may be
  // dense (the others stay sorted).
  // per step of Order, whether its intermediate may be dense (one or two indices)
  template <class Order>
  static constexpr auto capable_steps = [] {
    using steps = steps_of<Order, 0>;
    std::array<bool, mp_size<steps>::value + 1> capable{};
    mp_for_each<mp_iota<mp_size<steps>>>([&](auto t) { capable[t] = dense_capable<mp_at_c<steps, t>>::value; });
    return capable;
  }();
  // the formats compiled in, in the order they are costed (the first of equal costs wins)
  static constexpr auto compiled_formats = [] {
    struct list {
      std::array<intermediate_format, intermediate_formats.size()> kind{};
      std::size_t size = 0;
    } out;
    for (const intermediate_format f : intermediate_formats)
      if (intermediate_format_compiled(f)) out.kind[out.size++] = f;
    return out;
  }();
  template <class Order>
  static constexpr auto format_code_array = [] {
    constexpr std::size_t kinds = compiled_formats.size;
    constexpr std::size_t n = mp_size<steps_of<Order, 0>>::value;
    constexpr auto capable = capable_steps<Order>;
    std::size_t k = 0;
    for (std::size_t t = 0; t < n; ++t) k += capable[t] ? 1 : 0;
    std::size_t combos = 1;
    for (std::size_t t = 0; t < k; ++t) combos *= kinds;
    // two to four capable steps, at most 81 mixes (4 steps of 3 formats, 3 of 4): a variant fits
    // the plan cache's 8 bits
    const bool mixed = LOOM_INTERMEDIATE_FORMAT_PER_STEP && k >= 2 && k <= 4 && combos <= 81 && n <= max_coded_steps;
    struct codes {
      std::array<std::size_t, intermediate_formats.size() + 81> code{};
      std::size_t size = 0;
    } out;
    out.code[out.size++] = 0;
    if (k == 0) return out;
    for (std::size_t f = 1; f < kinds; ++f) out.code[out.size++] = uniform_code(compiled_formats.kind[f]);
    for (std::size_t m = 0; mixed && m < combos; ++m) {
      std::size_t code = 0, rest = m, first = m % kinds;
      bool uniform = true;
      for (std::size_t t = 0; t < n; ++t) {
        if (!capable[t]) continue;
        const std::size_t f = rest % kinds;
        rest /= kinds;
        uniform = uniform && f == first;
        code |= static_cast<std::size_t>(compiled_formats.kind[f]) << 2 * t;
      }
      if (!uniform) out.code[out.size++] = code;
    }
    return out;
  }();


  // Whether `Step` has a twin over the very same tensors (so it shares the twin's intermediate).
  template <class Order, std::size_t Code, class Step>
  static bool shares(const inputs_tuple& in) {
    if constexpr (step_twin<Step>::value < 0) {
      (void)in;
      return false;
    } else {
      using Twin = mp_at_c<steps_of<Order, Code>, static_cast<std::size_t>(step_twin<Step>::value)>;
      bool same = true;
      mp_for_each<mp_iota<mp_size<step_inputs<Twin>>>>([&](auto f) {
        using F = decltype(f);
        constexpr std::size_t a = factor_id<mp_at<step_inputs<Twin>, F>>::value;
        constexpr std::size_t b = factor_id<mp_at<step_inputs<Step>, mp_at<step_pairing<Step>, F>>>::value;
        same = same && static_cast<const void*>(std::get<a>(in).tensor) == static_cast<const void*>(std::get<b>(in).tensor);
      });
      return same;
    }
  }

  // The logical cost of an elimination prefix: per step, the pointwise product's entries times its
  // indices, plus writing the intermediate: 20 per cell when dense (2 for a vector), 60 per entry
  // when sorted, 2 per cell and 30 per entry when bitmap, 120 per entry (2 per row) when hashed,
  // and what its readers pay (leapfrog, probes); a shared step costs only its copy, if transposed. Then the last kernel: the product
  // of the remaining factors, summed over the indices the prefix left, likewise. Dense intermediates larger than
  // max_dense_intermediate_cells make the dense and bitmap variants infinitely costly.
  // `kinds` receives each step's format (sorted where the code asks for dense or bitmap but the
  // intermediate has three or more indices).
  template <class Order, std::size_t Code>
  static double cost(const std::vector<chain_bound_estimator>& input_est, const inputs_tuple& in,
                     std::string& text, std::uint32_t& reuse, std::vector<intermediate_format>& kinds) {
    std::vector<std::optional<chain_bound_estimator>> est(input_est.begin(), input_est.end());
    double total = 0;
    std::ostringstream s;
    reuse = 0;
    kinds.clear();
    std::size_t t = 0;
    mp_for_each<mp_transform<mp_identity, steps_of<Order, Code>>>([&](auto st) {
      using step = typename decltype(st)::type;
      std::vector<chain_bound_estimator> parts;
      mp_for_each<mp_transform<factor_id, step_inputs<step>>>([&](auto id) { parts.push_back(*est[id]); });
      const chain_bound_estimator comp = parts.size() == 1 ? parts[0] : chain_bound_estimator::conjunction(parts);
      const chain_bound_estimator mat = comp.aggregate({std::string(step_index<step>::name)});
      double cells = 1;
      index_set made;
      mp_for_each<factor_indices<step_made<step>>>([&](auto i) {
        const std::int64_t e = extent_of<decltype(i)>(in);
        cells *= static_cast<double>(e);
        made.push_back({std::string(decltype(i)::name), e});
      });
      const double out = mat.estimate();
      constexpr intermediate_format kind =
          intermediate_slot<V, factor_indices<step_made<step>>, format_at(Code, step_of<step_made<step>>)>::kind;
      kinds.push_back(kind);
      constexpr bool is_dense = kind == intermediate_format::dense;
      const bool fits = cells <= static_cast<double>(max_dense_intermediate_cells);
      const double rows = made.size() == 2 ? static_cast<double>(made[0].extent) : 0.0;
      const double write = kind == intermediate_format::sorted   ? sparse_write * out
                           : kind == intermediate_format::hashed ? (sparse_write + hashed_write) * out + hashed_row * rows
                           : !fits                               ? std::numeric_limits<double>::infinity()
                           : is_dense                            ? (made.size() == 1 ? dense_vector_write : dense_write) * cells
                                                                 : bitmap_cell * cells + bitmap_write * out;
      const double compute = comp.estimate() * static_cast<double>(comp.indices().size()) + write +
                             transpose_cost<Code, step_inputs<step>>(est) +
                             intersection_cost<Code, step_inputs<step>>(est) + probe_cost<Code, step_inputs<step>>(est);
      // reusing a twin: free as it is; a transposed copy sorts its entries (sparse) or reads and
      // writes every cell out of order (dense): measured at about twice the cost of writing it
      const double copy = !step_relaid<step>::value ? 0.0 : 2.0 * write;
      const bool shared = shares<Order, Code, step>(in) && copy < compute;
      if (shared) reuse |= std::uint32_t{1} << t;
      total += shared ? copy : compute;
      ++t;
      est.resize(std::max<std::size_t>(est.size(), factor_id<step_made<step>>::value + 1));
      // a dense intermediate is read cell by cell by the kernels that use it
      est[factor_id<step_made<step>>::value] = is_dense ? chain_bound_estimator::full(made) : mat;
      s << "T" << factor_id<step_made<step>>::value - n_in << "(" << names(factor_indices<step_made<step>>{}) << ")";
      if (shared) {
        s << " = T" << step_twin<step>::value << (step_relaid<step>::value ? " transposed" : "")
          << " (the same sum over the same tensors: computed once); ";
      } else {
        s << " = sum(" << step_index<step>::name << ", ...) [" << static_cast<std::int64_t>(comp.estimate())
          << " products, " << static_cast<std::int64_t>(out) << " entries, " << (kind == intermediate_format::sorted ? "sparse" : intermediate_format_name(kind))
          << "]; ";
      }
    });
    // the last kernel: the remaining factors, summed over the indices the prefix left
    std::vector<chain_bound_estimator> rest;
    mp_for_each<mp_transform<factor_id, typename P::template plan<Order, Code>::remaining>>(
        [&](auto id) { rest.push_back(*est[id]); });
    const chain_bound_estimator last = rest.size() == 1 ? rest[0] : chain_bound_estimator::conjunction(rest);
    const double transpose = transpose_cost<Code, typename P::template plan<Order, Code>::remaining>(est);
    total += last.estimate() * static_cast<double>(last.indices().size()) + transpose +
             intersection_cost<Code, typename P::template plan<Order, Code>::remaining>(est) +
             probe_cost<Code, typename P::template plan<Order, Code>::remaining>(est);
    using rest_summed = typename P::template fused_rest<Order>;
    if constexpr (mp_empty<rest_summed>::value) s << "output = product of the rest [";
    else s << "output = sum(" << names(rest_summed{}) << ", product of the rest) in one kernel [";
    s << static_cast<std::int64_t>(last.estimate()) << " products" << (transpose > 0 ? ", one factor transposed" : "")
      << "]";
    text = s.str();
    return total;
  }

  // The access of factor F: an input or an intermediate.
  template <class F, class Inter>
  static auto access_of(const inputs_tuple& in, const Inter& inter) {
    constexpr std::size_t id = factor_id<F>::value;
    if constexpr (id < n_in) {
      return std::get<id>(in);
    } else {
      const auto& slot = std::get<id - n_in>(inter);
      using tensor_t = typename std::remove_cvref_t<decltype(slot)>::type;
      return [&]<class... Is>(mp_list<Is...>) { return expr::access<const tensor_t, Is...>{slot.made}; }(
          factor_indices<F>{});
    }
  }

  template <class Order, std::size_t Code>
  static void run(const Lhs& lhs, const inputs_tuple& in, std::uint32_t reuse, bool accumulate) {
    intermediates<Order, Code> inter;
    std::size_t t = 0;
    mp_for_each<mp_transform<mp_identity, steps_of<Order, Code>>>([&](auto st) {
      using step = typename decltype(st)::type;
      auto& slot = std::get<factor_id<step_made<step>>::value - n_in>(inter);
      using tensor_t = typename std::remove_cvref_t<decltype(slot)>::type;
      const bool reused = (reuse >> t++ & 1u) != 0;
      if constexpr (step_twin<step>::value >= 0) {
        if (reused && shares<Order, Code, step>(in)) {
          const tensor_t& twin = *std::get<static_cast<std::size_t>(step_twin<step>::value)>(inter).made;
          if constexpr (step_relaid<step>::value) {
            relayout(slot.own.emplace(), twin, step_from_twin<step>{});
            slot.made = &*slot.own;
          } else {
            slot.made = &twin;
          }
          return;
        }
      }
      [&]<class... Fs>(mp_list<Fs...>) {
        const auto body = product(access_of<Fs>(in, inter)...);
        [&]<class... Is>(mp_list<Is...>) {
          auto& t = slot.own.emplace(typename tensor_t::shape_type{extent_of<Is>(in)...});
          slot.made = &t;
          expr::access<tensor_t, Is...> target{&t};
          target = expr::sum<step_index<step>, std::remove_cvref_t<decltype(body)>>{body};
        }(factor_indices<step_made<step>>{});
      }(step_inputs<step>{});
    });
    [&]<class... Fs>(mp_list<Fs...>) {
      Lhs target = lhs;
      const auto last = wrap_sums<typename P::template fused_rest<Order>>::apply(product(access_of<Fs>(in, inter)...));
      if (accumulate) target += last;
      else target = last;
    }(typename P::template plan<Order, Code>::remaining{});
  }
};

struct decompose_purpose {};  // plan_cache key: elimination orders, not loop orders

template <class Lhs, class Rhs>
decomposition_choice plan_decomposition(const Lhs& lhs, const Rhs& rhs, statistics_cache& cache) {
  using R = runner<Lhs, Rhs>;
  using P = typename R::P;
  const auto in = collect(rhs);
  std::vector<chain_bound_estimator> est;
  std::apply([&](const auto&... a) {
    (..., [&]<class T, class... Is>(const expr::access<T, Is...>& x) {
      std::vector<std::string> n{std::string(Is::name)...};
      if constexpr (std::remove_const_t<T>::format_type::all_dense) {
        index_set s;
        std::size_t m = 0;
        (..., s.push_back({std::string(Is::name), x.tensor->extent(m++)}));
        est.push_back(chain_bound_estimator::full(std::move(s)));
      } else {
        est.push_back(chain_bound_estimator(cache.get(*x.tensor), n));
      }
    }(a));
  }, in);
  decomposition_choice out;
  const chain_bound_estimator all = est.size() == 1 ? est[0] : chain_bound_estimator::conjunction(est);
  // the fused kernel also runs the leapfrog of every sparse vector it intersects with fibers
  const double fused_intersections =
      R::template intersection_cost<0, typename P::initial>(std::vector<std::optional<chain_bound_estimator>>(est.begin(), est.end()));
  out.cost.push_back(all.estimate() * static_cast<double>(all.indices().size()) + fused_intersections);
  out.format.push_back(intermediate_format::sorted);
  out.step_formats.emplace_back();
  out.variant.push_back(0);
  out.variants.push_back(1);
  out.reuse.push_back(0);
  out.description.push_back(
      "one fused kernel [" + std::to_string(static_cast<std::int64_t>(all.estimate())) + " products" +
      (fused_intersections > 0
           ? ", " + std::to_string(static_cast<std::int64_t>(fused_intersections)) + " leapfrog steps against sparse vectors"
           : std::string()) +
      "]");
  mp_for_each<typename P::orders>([&](auto order) {
    using O = decltype(order);
    std::string text;
    std::uint32_t reuse = 0;
    std::vector<intermediate_format> kinds;
    double c = std::numeric_limits<double>::quiet_NaN();
    std::size_t variant = 0;
    constexpr auto codes = R::template format_code_array<O>;
    mp_for_each<mp_iota_c<codes.size>>([&](auto v) {  // the first of equal costs wins
      std::string other_text;
      std::uint32_t other_reuse = 0;
      std::vector<intermediate_format> other_kinds;
      const double d = R::template cost<O, codes.code[v]>(est, in, other_text, other_reuse, other_kinds);
      if (v == 0 || d < c)
        c = d, variant = v, text = std::move(other_text), reuse = other_reuse, kinds = std::move(other_kinds);
    });
    intermediate_format first = intermediate_format::sorted;
    constexpr auto capable = R::template capable_steps<O>;
    for (std::size_t t = 0; t < kinds.size(); ++t)
      if (capable[t]) {
        first = kinds[t];
        break;
      }
    out.cost.push_back(c);
    out.format.push_back(first);
    out.step_formats.push_back(std::move(kinds));
    out.variant.push_back(variant);
    out.variants.push_back(codes.size);
    out.reuse.push_back(reuse);
    using rest_summed = typename P::template fused_rest<O>;
    out.description.push_back("eliminate " + names(O{}) +
                              (mp_empty<rest_summed>::value ? "" : ", then " + names(rest_summed{}) + " fused") +
                              ": " + text);
    if (out.cost.back() < out.cost[out.chosen]) out.chosen = out.cost.size() - 1;
  });
  (void)lhs;
  return out;
}

// The formats of candidate `which` (> 0) in its assignment `variant`, one per step ("sorted,dense").
template <class Lhs, class Rhs>
std::string variant_formats(std::size_t which, std::size_t variant) {
  using R = runner<Lhs, Rhs>;
  std::string s;
  mp_with_index<mp_size<typename program<Lhs, Rhs>::orders>::value>(which - 1, [&](auto c) {
    using O = mp_at_c<typename program<Lhs, Rhs>::orders, c>;
    constexpr auto codes = R::template format_code_array<O>;
    constexpr auto capable = R::template capable_steps<O>;
    for (std::size_t t = 0; t < mp_size<typename R::template steps_of<O, 0>>::value; ++t)
      s += std::string(t ? "," : "") +
           intermediate_format_name(capable[t] ? format_at(codes.code[variant < codes.size ? variant : 0], t)
                                               : intermediate_format::sorted);
  });
  return s;
}

// Runs candidate `which` (> 0) in its format assignment `variant` (decomposition_choice::variant),
// or as `forced` says when not empty: one format for every one- and two-index intermediate, or
// one per step (steps with other intermediates are sorted whatever they ask); reusing twins as
// `reuse` says.
template <class Lhs, class Rhs>
void run_candidate(std::size_t which, std::size_t variant, const std::vector<intermediate_format>& forced,
                   std::uint32_t reuse, const Lhs& lhs, const Rhs& rhs, bool accumulate = false) {
  using P = program<Lhs, Rhs>;
  using R = runner<Lhs, Rhs>;
  for (const intermediate_format f : forced)
    if (!intermediate_format_compiled(f))
      throw error(std::string("loom::decompose_with: ") + intermediate_format_name(f) +
                  " intermediates are not compiled in (define " +
                  (f == intermediate_format::bitmap ? "LOOM_BITMAP_INTERMEDIATES" : "LOOM_HASHED_INTERMEDIATES") + "=1)");
  const auto in = collect(rhs);
  constexpr std::size_t n = mp_size<typename P::orders>::value;
  mp_with_index<n>(which - 1, [&](auto c) {
    using O = mp_at_c<typename P::orders, c>;
    constexpr auto codes = R::template format_code_array<O>;
    constexpr auto capable = R::template capable_steps<O>;
    constexpr std::size_t steps = mp_size<typename R::template steps_of<O, 0>>::value;
    std::size_t v = variant < codes.size ? variant : 0;
    if (!forced.empty()) {
      if (forced.size() != 1 && forced.size() != steps)
        throw shape_error("loom::decompose_with: candidate " + std::to_string(which) + " has " +
                          std::to_string(steps) + " steps, but " + std::to_string(forced.size()) +
                          " intermediate formats were given");
      // one format stands for every step; steps whose intermediates cannot be dense are sorted
      auto matches = [&](std::size_t code) {
        for (std::size_t t = 0; t < steps; ++t)
          if (capable[t] && format_at(code, t) != forced[forced.size() == 1 ? 0 : t]) return false;
        return true;
      };
      v = codes.size;
      for (std::size_t k = 0; k < codes.size && v == codes.size; ++k)
        if (matches(codes.code[k])) v = k;
      if (v == codes.size)
        throw error("loom::decompose_with: that mix of intermediate formats is not compiled in "
                    "(define LOOM_INTERMEDIATE_FORMAT_PER_STEP=1)");
    }
    mp_with_index<codes.size>(v, [&](auto k) { R::template run<O, codes.code[k]>(lhs, in, reuse, accumulate); });
  });
}

}  // namespace detail::ve

/// The candidates `decompose(lhs, rhs)` would weigh, their costs and the choice.
template <class Lhs, class R>
decomposition_choice plan_decomposition(const Lhs& lhs, const R& rhs) {
  statistics_cache cache;
  return detail::ve::plan_decomposition(lhs, rhs, cache);
}

namespace detail::ve {

// One sum-product into lhs (or added to it), by the plan chosen from statistics (cached).
template <class Lhs, class Rhs>
std::size_t decompose_product(Lhs lhs, const Rhs& rhs, bool accumulate) {
  // cached: the candidate in bits 0-15, its format assignment in bits 16-23, the reuse mask above
  const std::size_t packed = optimize::plan_cache<Lhs, Rhs, decompose_purpose>::local().find_or(
      optimize::detail::coarse_signature(rhs), [&](statistics_cache& stats) {
        const decomposition_choice c = plan_decomposition(lhs, rhs, stats);
        return c.chosen | c.variant[c.chosen] << 16 | std::size_t{c.reuse[c.chosen]} << 24;
      });
  const std::size_t chosen = packed & 0xffffu;
  const std::size_t variant = packed >> 16 & 0xffu;
  const auto reuse = static_cast<std::uint32_t>(packed >> 24);
#ifdef LOOM_DEBUG_PLAN
  std::clog << "loom::decompose: candidate " << chosen;
  if (chosen != 0) std::clog << ", intermediates " << variant_formats<Lhs, Rhs>(chosen, variant);
  std::clog << ", reuse mask " << reuse << "\n";
#endif
  if (chosen != 0) run_candidate(chosen, variant, {}, reuse, lhs, rhs, accumulate);
  else if (accumulate) lhs += rhs;
  else lhs = rhs;
  return chosen;
}

// Sums over a body with + in it: products distributed over the sums, one sum-product per term
// (Galley's distribution of * over +, notes 001 §3.8). Each term keeps the summed indices.
template <class E>
struct summed_of {
  using type = mp_list<>;
  static const E& body(const E& e) { return e; }
};
template <class I, class E>
struct summed_of<expr::sum<I, E>> {
  using type = mp_push_front<typename summed_of<E>::type, I>;
  static const auto& body(const expr::sum<I, E>& e) { return summed_of<E>::body(e.body); }
};

template <class T, class... Is>
auto terms_of(const expr::access<T, Is...>& a) {
  return std::tuple{a};
}
template <class L, class R>
auto terms_of(const expr::add<L, R>& e) {
  return std::tuple_cat(terms_of(e.lhs), terms_of(e.rhs));
}
template <class L, class Rs>
auto times_each(const L& l, const Rs& rs) {
  return std::apply([&](const auto&... r) { return std::tuple{expr::mul<L, std::remove_cvref_t<decltype(r)>>{l, r}...}; },
                    rs);
}
template <class L, class R>
auto terms_of(const expr::mul<L, R>& e) {
  const auto rs = terms_of(e.rhs);
  return std::apply([&](const auto&... l) { return std::tuple_cat(times_each(l, rs)...); }, terms_of(e.lhs));
}

template <class Rhs>
auto sum_product_terms(const Rhs& rhs) {
  using S = typename summed_of<Rhs>::type;
  return std::apply([](const auto&... t) { return std::tuple{wrap_sums<S>::apply(t)...}; },
                    terms_of(summed_of<Rhs>::body(rhs)));
}

template <class Tuple>
struct all_sum_products;
template <class... Ts>
struct all_sum_products<std::tuple<Ts...>> {
  // every term a product of accesses that uses every summed index (no sum over an absent index)
  static constexpr bool value = (... && flatten<Ts>::ok);
};

template <class Lhs, class Rhs>
std::size_t decompose_any(Lhs lhs, const Rhs& rhs, bool accumulate) {
  if constexpr (flatten<Rhs>::ok) {
    return decompose_product(lhs, rhs, accumulate);
  } else {
    using terms_t = decltype(sum_product_terms(rhs));
    static_assert(all_sum_products<terms_t>::value,
                  "loom::decompose: the right-hand side must be sums over products of tensor accesses, "
                  "possibly with + between them (e.g. sum(p, sum(j, S(i, p) * (P(p, j) + Q(p, j)) * w(j)))), "
                  "with every summed index used by every term; or map(f, such an expression)");
    const auto terms = sum_product_terms(rhs);
    std::size_t first = 0;
    std::size_t t = 0;
    std::apply([&](const auto&... term) {
      (..., [&] {
        const std::size_t c = decompose_product(lhs, term, accumulate || t > 0);
        if (t++ == 0) first = c;
      }());
    }, terms);
    return first;
  }
}

template <class Rhs>
struct is_unary_map : std::false_type {};
template <class F, class E>
struct is_unary_map<expr::map<F, E>> : std::true_type {};

}  // namespace detail::ve

/// `lhs = rhs` for a sum-product `rhs` (sums over a product of tensor accesses), evaluated by the
/// cheapest of: one fused kernel, or a prefix of a variable-elimination order that materialises
/// one intermediate per index it eliminates (dense or sparse, by estimated fill; shared between
/// steps that compute the same sum over the same tensors), then sums the other indices out in one
/// fused kernel. Sums over products with `+` in them are distributed
/// into one sum-product per term, and `map(f, e)` decomposes `e` then applies `f`. Returns the
/// candidate run for the (first) sum-product (0: fused).
template <class Lhs, class R>
std::size_t decompose(Lhs lhs, const R& rhs) {
  using Rhs = std::remove_cvref_t<R>;
  if constexpr (detail::ve::is_unary_map<Rhs>::value) {
    return [&]<class T, class... Is>(const expr::access<T, Is...>&) {
      using tensor_t = std::remove_const_t<T>;
      tensor_t inner(lhs.tensor->shape());
      const std::size_t c =
          detail::ve::decompose_any(expr::access<tensor_t, Is...>{&inner}, std::get<0>(rhs.args), false);
      using inner_access = expr::access<const tensor_t, Is...>;
      lhs = expr::map<decltype(rhs.f), inner_access>{rhs.f, std::tuple<inner_access>{inner_access{&inner}}};
      return c;
    }(lhs);
  } else {
    return detail::ve::decompose_any(lhs, rhs, false);
  }
}

/// Runs candidate `which` of `decompose` (0: fused; c: elimination prefix c - 1), for tests and
/// benchmarks that compare plans. `formats` (how one- and two-index intermediates are stored: one
/// format for all of them, or one per step of the candidate, which with more than one format needs
/// LOOM_INTERMEDIATE_FORMAT_PER_STEP=1) and `reuse` (bit t: step t reuses an earlier step's
/// intermediate where it computes the same sum over the same tensors) default to the planner's
/// choice for that candidate.
template <class Lhs, class R>
void decompose_with(std::size_t which, Lhs lhs, const R& rhs, const std::vector<intermediate_format>& formats,
                    std::optional<std::uint32_t> reuse = std::nullopt) {
  using Rhs = std::remove_cvref_t<R>;
  using P = detail::ve::program<Lhs, Rhs>;
  static_assert(P::ok, "loom::decompose: the right-hand side must be sums over a product of tensor accesses");
  constexpr std::size_t n = boost::mp11::mp_size<typename P::orders>::value;
  if (which == 0) {
    lhs = rhs;
    return;
  }
  if (which > n) throw shape_error("loom::decompose_with: candidate " + std::to_string(which) +
                                   " does not exist (there are " + std::to_string(n + 1) + ")");
  std::size_t variant = 0;
  if (formats.empty() || !reuse) {
    const decomposition_choice c = plan_decomposition(lhs, rhs);
    variant = c.variant[which];
    if (!reuse) reuse = c.reuse[which];
  }
  detail::ve::run_candidate(which, variant, formats, *reuse, lhs, rhs);
}
template <class Lhs, class R>
void decompose_with(std::size_t which, Lhs lhs, const R& rhs, std::optional<intermediate_format> format = std::nullopt,
                    std::optional<std::uint32_t> reuse = std::nullopt) {
  decompose_with(which, lhs, rhs, format ? std::vector<intermediate_format>{*format} : std::vector<intermediate_format>{},
                 reuse);
}

/// The candidates of `decompose(lhs, rhs)` in words, with their logical costs and the choice.
template <class Lhs, class R>
std::string explain_decomposition(const Lhs& lhs, const R& rhs) {
  using Rhs = std::remove_cvref_t<R>;
  std::ostringstream s;
  if constexpr (detail::ve::is_unary_map<Rhs>::value) {
    s << "map(f, ...) applied to the result of:\n" << explain_decomposition(lhs, std::get<0>(rhs.args));
  } else if constexpr (!detail::ve::flatten<Rhs>::ok) {
    const auto terms = detail::ve::sum_product_terms(rhs);
    std::size_t t = 0;
    std::apply([&](const auto&... term) {
      (..., (s << "term " << ++t << " of " << sizeof...(term) << " (* distributed over +):\n"
               << explain_decomposition(lhs, term)));
    }, terms);
  } else {
    const decomposition_choice c = plan_decomposition(lhs, rhs);
    s << "decomposition candidates (Galley's logical cost; at most " << max_elimination_orders
      << " elimination prefixes, LOOM_MAX_ELIMINATION_ORDERS):\n";
    for (std::size_t k = 0; k < c.cost.size(); ++k)
      s << "  " << (k == c.chosen ? "* " : "  ") << "#" << k << " cost "
        << static_cast<std::int64_t>(c.cost[k] + 0.5) << ": " << c.description[k] << "\n";
  }
  return s.str();
}

}  // namespace loom

#endif  // LOOM_OPTIMIZE_DECOMPOSE_HPP
// ---- end <loom/optimize/decompose.hpp>
// ---- begin <loom/optimize/estimate_map.hpp>
// Defines loom::estimate_map: the join/union/mixed dispatch for a pointwise op (optimize/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_ESTIMATE_MAP_HPP
#define LOOM_OPTIMIZE_ESTIMATE_MAP_HPP

// ---- begin <loom/optimize/sparsity_estimator.hpp>
// Defines the loom::sparsity_estimator concept, the five-operation estimator interface (optimize/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_SPARSITY_ESTIMATOR_HPP
#define LOOM_OPTIMIZE_SPARSITY_ESTIMATOR_HPP


#include <concepts>
#include <span>
#include <string>
#include <vector>

namespace loom {

/// A sparsity estimator (Galley's statistics interface, notes 001 §5.2), all at run time:
/// - construct from a tensor's `statistics` and one index name per mode (`E(s, {"i", "j"})`),
///   or `E::full(indices)` for a tensor without fill entries;
/// - `E::conjunction(args)`: pointwise op whose operands' fills annihilate it (product,
///   intersection); the result ranges over the union of the operands' indices;
/// - `E::disjunction(args)`: pointwise op whose fills do not annihilate it (sum, union);
/// - `e.aggregate(names)`: reduction over the named indices;
/// - `e.estimate()`: the estimated number of non-fill entries; `e.indices()` the index set.
/// Models: `loom::uniform_estimator`, `loom::chain_bound_estimator`.
template <class E>
concept sparsity_estimator = std::copy_constructible<E> &&
    requires(const E& e, std::span<const E> args, const std::vector<std::string>& names,
             const statistics& s, const index_set& indices) {
  E(s, names);
  { E::full(indices) } -> std::same_as<E>;
  { E::conjunction(args) } -> std::same_as<E>;
  { E::disjunction(args) } -> std::same_as<E>;
  { e.aggregate(names) } -> std::same_as<E>;
  { e.estimate() } -> std::convertible_to<double>;
  { e.indices() } -> std::convertible_to<const index_set&>;
};

}  // namespace loom

#endif  // LOOM_OPTIMIZE_SPARSITY_ESTIMATOR_HPP
// ---- end <loom/optimize/sparsity_estimator.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace loom {

/// The estimate of a pointwise op `op(args...)`, where `fill_annihilates[k]` says whether
/// operand k's fill value annihilates `op` (for `*` with fill 0: true; for `+`: false).
/// Galley's dispatch (notes 001 §5.2): operands without indices (scalars) are skipped; all
/// join-like -> conjunction; all union-like -> disjunction; mixed -> conjunction of the join-like
/// operands only (the others can add non-fills only where a join-like one is non-fill),
/// broadcast over the indices that only the union-like operands have.
template <sparsity_estimator E>
E estimate_map(std::span<const E> args, std::span<const bool> fill_annihilates) {
  if (args.size() != fill_annihilates.size())
    throw error("loom::estimate_map: " + std::to_string(args.size()) + " operands but " +
                std::to_string(fill_annihilates.size()) +
                " annihilation flags; give one per operand");
  std::vector<E> join, all;
  index_set every;
  for (std::size_t k = 0; k < args.size(); ++k) {
    if (args[k].indices().empty()) continue;
    all.push_back(args[k]);
    every = detail::index_union(every, args[k].indices(), "loom::estimate_map");
    if (fill_annihilates[k]) join.push_back(args[k]);
  }
  if (all.empty()) return E::conjunction(args);
  if (join.empty()) return E::disjunction(std::span<const E>(all));
  if (join.size() == all.size()) return E::conjunction(std::span<const E>(all));
  index_set covered;
  for (const E& j : join) covered = detail::index_union(covered, j.indices(), "loom::estimate_map");
  std::vector<std::string> names;
  for (const index_extent& x : covered) names.push_back(x.name);
  const index_set extra = detail::index_filter(every, names, false);
  if (!extra.empty()) join.push_back(E::full(extra));
  return E::conjunction(std::span<const E>(join));
}

}  // namespace loom

#endif  // LOOM_OPTIMIZE_ESTIMATE_MAP_HPP
// ---- end <loom/optimize/estimate_map.hpp>
// ---- begin <loom/optimize/leader_run.hpp>
// Defines the explicit entry points of the skip-policy choice (optimize/): run a kernel with a
// fixed policy per loop, or with the policy chosen at run time among Cap candidates, and explain
// the choice. They work whatever LOOM_MAX_SKIP_CANDIDATES says (that macro only governs the
// plain `out(...) = e`).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_LEADER_RUN_HPP
#define LOOM_OPTIMIZE_LEADER_RUN_HPP


#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <string>
#include <type_traits>

namespace loom::optimize {

/// How many skip candidates the explicit entry points instantiate by default.
inline constexpr std::size_t default_skip_cap = 4;

namespace detail {

// Calls f(plan) with the order plan the evaluator would run for `lhs = rhs` (rhs rewritten).
template <class Lhs, class Rhs, class F>
void with_order_plan(const Lhs& lhs, const Rhs& rhs, F&& f) {
  constexpr std::size_t n = plan::plan_candidates<Lhs, Rhs>::count;
  if constexpr (n > 1) {
    boost::mp11::mp_with_index<n>(cached_choice(lhs, rhs), [&](auto c) {
      f(plan::order_plan<Lhs, Rhs, static_cast<int>(decltype(c)::value)>{});
    });
  } else {
    f(plan::order_plan<Lhs, Rhs>{});
  }
}

template <class Lhs, class R, class F>
void with_kernel(const Lhs& lhs, const R& rhs_operand, F&& f) {
  const auto written = expr::as_expr(rhs_operand);
  using Written = std::remove_cvref_t<decltype(written)>;
  if constexpr (!plan::assignment_is_valid<Lhs, Written>) {
    plan::report_assignment_errors<Lhs, Written>();
  } else {
    const auto rhs = rewrite::for_kernel(written).expr;  // as the evaluator runs it
    with_order_plan(lhs, rhs, [&](auto p) { f(p, rhs); });
  }
}

}  // namespace detail

/// Runs `lhs = rhs` with the skip policies `Skips` (a `loom::stream::skip::per_loop<...>`), e.g.
/// `assign_with_skip<per_loop<skip::lead<1>>>(z(), sum(i, x(i) * y(i)))`. For comparisons and
/// tests: no hoisting of inner sums, and the output must not be an operand.
template <class Skips, class OT, class... Os, class R>
void assign_with_skip(const expr::access<OT, Os...>& lhs, const R& rhs) {
  detail::with_kernel(lhs, rhs, [&](auto p, const auto& k) {
    loom::detail::execute_plan<decltype(p), Skips>(*lhs.tensor, lhs, k, false);
  });
}

/// Runs `lhs = rhs` as one kernel whose intersections of ordered operands read their policy
/// from `codes` (one per loop, outermost first: `skip::runtime`), e.g. to force merge at the
/// second loop.
template <class OT, class... Os, class R>
void assign_with_runtime_skips(const stream::skip::codes& codes, const expr::access<OT, Os...>& lhs,
                               const R& rhs) {
  detail::with_kernel(lhs, rhs, [&](auto p, const auto& k) {
    loom::detail::execute_plan<decltype(p), stream::skip::every_loop<stream::skip::runtime>>(
        *lhs.tensor, lhs, k, false, codes);
  });
}

/// Runs `lhs = rhs` as one `skip::runtime` kernel with the codes chosen from statistics (cached
/// per kernel by the coarse signature): the one-kernel alternative to assign_choosing_skip, at a
/// per-step cost (benchmarks/results/leader.md).
template <class OT, class... Os, class R>
void assign_choosing_runtime_skips(const expr::access<OT, Os...>& lhs, const R& rhs) {
  detail::with_kernel(lhs, rhs, [&](auto p, const auto& k) {
    using P = decltype(p);
    loom::detail::execute_plan<P, stream::skip::every_loop<stream::skip::runtime>>(
        *lhs.tensor, lhs, k, false, cached_runtime_skips<P>(lhs, k));
  });
}

/// The codes assign_choosing_runtime_skips runs `lhs = rhs` with (uncached).
template <class OT, class... Os, class R>
stream::skip::codes plan_runtime_skips(const expr::access<OT, Os...>& lhs, const R& rhs) {
  stream::skip::codes out = stream::skip::default_codes;
  detail::with_kernel(lhs, rhs, [&](auto p, const auto& k) {
    statistics_cache stats;
    out = runtime_skip_codes(choose_skip<decltype(p), 1>(lhs, k, stats));
  });
  return out;
}

/// The runtime codes' table of `lhs = rhs` in words (see describe_runtime_skips).
template <class OT, class... Os, class R>
std::string explain_runtime_skips(const expr::access<OT, Os...>& lhs, const R& rhs) {
  std::string out;
  detail::with_kernel(lhs, rhs, [&](auto p, const auto& k) {
    statistics_cache stats;
    out = describe_runtime_skips(choose_skip<decltype(p), 1>(lhs, k, stats));
  });
  return out;
}

/// Runs skip candidate `c` (of `skip_candidates_t<plan, Cap>`; clamped) of `lhs = rhs`.
template <std::size_t Cap = default_skip_cap, class OT, class... Os, class R>
void assign_with_skip_candidate(std::size_t c, const expr::access<OT, Os...>& lhs, const R& rhs) {
  detail::with_kernel(lhs, rhs, [&](auto p, const auto& k) {
    using P = decltype(p);
    using candidates = skip_candidates_t<P, Cap>;
    constexpr std::size_t n = boost::mp11::mp_size<candidates>::value;
    boost::mp11::mp_with_index<n>(c < n ? c : n - 1, [&](auto s) {
      loom::detail::execute_plan<P, boost::mp11::mp_at_c<candidates, decltype(s)::value>>(
          *lhs.tensor, lhs, k, false);
    });
  });
}

/// Runs `lhs = rhs` with the skip policy chosen at run time among at most Cap candidates
/// (cached per kernel by the coarse statistics signature).
template <std::size_t Cap = default_skip_cap, class OT, class... Os, class R>
void assign_choosing_skip(const expr::access<OT, Os...>& lhs, const R& rhs) {
  detail::with_kernel(lhs, rhs, [&](auto p, const auto& k) {
    using P = decltype(p);
    using candidates = skip_candidates_t<P, Cap>;
    constexpr std::size_t n = boost::mp11::mp_size<candidates>::value;
    const std::size_t chosen = n > 1 ? cached_skip_choice<P, Cap>(lhs, k) : 0;
    boost::mp11::mp_with_index<n>(chosen, [&](auto s) {
      loom::detail::execute_plan<P, boost::mp11::mp_at_c<candidates, decltype(s)::value>>(
          *lhs.tensor, lhs, k, false);
    });
  });
}

/// The skip choice for `lhs = rhs` (every candidate's cost and the per-loop detail), uncached.
template <std::size_t Cap = default_skip_cap, class OT, class... Os, class R>
skip_choice plan_skip(const expr::access<OT, Os...>& lhs, const R& rhs) {
  skip_choice out;
  detail::with_kernel(lhs, rhs, [&](auto p, const auto& k) {
    statistics_cache stats;
    out = choose_skip<decltype(p), Cap>(lhs, k, stats);
  });
  return out;
}

/// The per-loop skip-policy table of `lhs = rhs` in words (see describe_skip_choice).
template <std::size_t Cap = default_skip_cap, class OT, class... Os, class R>
std::string explain_skip(const expr::access<OT, Os...>& lhs, const R& rhs) {
  return describe_skip_choice(plan_skip<Cap>(lhs, rhs), Cap);
}

}  // namespace loom::optimize

#endif  // LOOM_OPTIMIZE_LEADER_RUN_HPP
// ---- end <loom/optimize/leader_run.hpp>
// ---- begin <loom/optimize/matrix_chain.hpp>
// Defines loom::matrix_chain: a product of sparse matrices decomposed by variable elimination
// into one SpGEMM kernel per step, the order chosen from sparsity estimates (Galley's logical
// optimizer on chains, notes 001 §3.3-3.7), with materialised sparse intermediates (optimize/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_MATRIX_CHAIN_HPP
#define LOOM_OPTIMIZE_MATRIX_CHAIN_HPP


#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace loom {

/// How `matrix_chain` orders its products.
enum class chain_order {
  optimized,      ///< exact search over every elimination order (interval DP) by estimated cost
  greedy,         ///< eliminate the cheapest inner index first, repeatedly
  left_to_right,  ///< (((A B) C) D): the fixed plan, for comparison
};

/// Galley's logical cost constants (notes 001 §3.3).
struct logical_cost_constants {
  double compute = 1.0;          // per pointwise product entry and index
  double dense_allocate = 0.5;   // per entry of a dense intermediate
  double sparse_allocate = 60.0; // per entry of a sparse intermediate
};

/// A decomposition of M0 M1 ... M(n-1): `steps[s]` multiplies the products of factor ranges
/// [first, split] and [split + 1, last]; steps are in execution order.
struct chain_plan {
  struct step {
    std::size_t first, split, last;
    double compute, output;  // estimated pointwise entries and non-zeros of the result
    double cost;
  };
  std::vector<step> steps;
  double cost = 0;
  std::string describe(const std::vector<std::string>& names) const;
};

namespace detail {

inline std::string chain_index(std::size_t t) { return "x" + std::to_string(t); }

struct chain_planner {
  std::vector<chain_bound_estimator> factors;  // factor t over (x_t, x_{t+1})
  std::vector<std::int64_t> extents;           // extent of x_t, t = 0..n
  logical_cost_constants k;

  // estimate of the product of two interval results over (x_a, x_b) and (x_b, x_c)
  chain_plan::step cost_of(const chain_bound_estimator& left, const chain_bound_estimator& right,
                           std::size_t a, std::size_t b, std::size_t c,
                           chain_bound_estimator& result) const {
    const chain_bound_estimator comp =
        chain_bound_estimator::conjunction(std::vector{left, right});
    result = comp.aggregate({chain_index(b)});
    const double compute = comp.estimate();
    const double out = result.estimate();
    const double cells = static_cast<double>(extents[a]) * static_cast<double>(extents[c]);
    const double density = cells > 0 ? out / cells : 0;
    const double cost = compute * 3 * k.compute +
                        out * (density > 0.5 ? k.dense_allocate : k.sparse_allocate);
    return {a, b - 1, c - 1, compute, out, cost};
  }

  // Exact: interval dynamic programming over every parenthesisation (= elimination order).
  chain_plan exact() const {
    const std::size_t n = factors.size();
    struct cell {
      double cost = 0;
      std::size_t split = 0;
      chain_plan::step last{};
      std::optional<chain_bound_estimator> est;
    };
    std::vector<std::vector<cell>> best(n, std::vector<cell>(n));
    for (std::size_t t = 0; t < n; ++t) best[t][t].est = factors[t];
    for (std::size_t len = 2; len <= n; ++len)
      for (std::size_t a = 0; a + len <= n; ++a) {
        const std::size_t z = a + len - 1;
        cell& c = best[a][z];
        c.cost = std::numeric_limits<double>::infinity();
        for (std::size_t s = a; s < z; ++s) {
          chain_bound_estimator result = factors[0];
          const auto st = cost_of(*best[a][s].est, *best[s + 1][z].est, a, s + 1, z + 1, result);
          const double total = best[a][s].cost + best[s + 1][z].cost + st.cost;
          if (total < c.cost) {
            c.cost = total;
            c.split = s;
            c.last = st;
            c.est = result;
          }
        }
      }
    chain_plan plan;
    plan.cost = best[0][n - 1].cost;
    // post-order: children before parents
    auto emit = [&](auto&& self, std::size_t a, std::size_t z) -> void {
      if (a == z) return;
      self(self, a, best[a][z].split);
      self(self, best[a][z].split + 1, z);
      plan.steps.push_back(best[a][z].last);
    };
    emit(emit, 0, n - 1);
    return plan;
  }

  // Greedy (or fixed left-to-right): repeatedly multiply the cheapest adjacent pair.
  chain_plan sequential(bool left_to_right) const {
    struct range {
      std::size_t first, last;
      chain_bound_estimator est;
    };
    std::vector<range> live;
    for (std::size_t t = 0; t < factors.size(); ++t) live.push_back({t, t, factors[t]});
    chain_plan plan;
    while (live.size() > 1) {
      std::size_t pick = 0;
      chain_plan::step best_step{};
      chain_bound_estimator best_est = factors[0];
      for (std::size_t p = 0; p + 1 < live.size(); ++p) {
        chain_bound_estimator result = factors[0];
        const auto st = cost_of(live[p].est, live[p + 1].est, live[p].first, live[p + 1].first,
                                live[p + 1].last + 1, result);
        if (p == 0 || (!left_to_right && st.cost < best_step.cost)) {
          pick = p;
          best_step = st;
          best_est = result;
        }
      }
      plan.steps.push_back(best_step);
      plan.cost += best_step.cost;
      live[pick] = {live[pick].first, live[pick + 1].last, best_est};
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(pick) + 1);
    }
    return plan;
  }
};

// Statistics per factor, kept between calls (per thread) while the factor's arrays are unchanged:
// a chain run again on the same matrices is planned without reading them.
inline statistics_cache& chain_statistics() {
  thread_local statistics_cache cache;
  return cache;
}

inline chain_bound_estimator chain_factor(const statistics& s, std::size_t t) {
  return chain_bound_estimator(s, {chain_index(t), chain_index(t + 1)});
}

// A factor as csr: itself when it is csr already, else a converted copy.
template <class T, class F>
struct csr_factor {
  std::optional<tensor<T, csr>> copy;
  const tensor<T, csr>* ptr;
  explicit csr_factor(const tensor<T, F>& m) {
    if constexpr (std::is_same_v<F, csr>) ptr = &m;
    else ptr = &copy.emplace(m);
  }
  csr_factor(const csr_factor&) = delete;
};

}  // namespace detail

inline std::string chain_plan::describe(const std::vector<std::string>& names) const {
  std::vector<std::string> label(names);
  std::ostringstream s;
  auto range = [&](std::size_t a, std::size_t z) {
    if (a == z) return label[a];
    std::string r = "(";
    for (std::size_t t = a; t <= z; ++t) r += label[t];
    return r + ")";
  };
  for (std::size_t q = 0; q < steps.size(); ++q) {
    const step& st = steps[q];
    s << "  kernel " << q + 1 << ": " << range(st.first, st.split) << " * "
      << range(st.split + 1, st.last) << ": estimated " << static_cast<std::int64_t>(st.compute)
      << " products, " << static_cast<std::int64_t>(st.output) << " non-zeros, cost "
      << static_cast<std::int64_t>(st.cost) << "\n";
  }
  s << "  estimated total cost " << static_cast<std::int64_t>(cost) << "\n";
  return s.str();
}

/// The decomposition `matrix_chain` would run for these factors.
template <class T, class... Fs>
chain_plan plan_matrix_chain(chain_order order, const tensor<T, Fs>&... ms) {
  static_assert(sizeof...(Fs) >= 2, "loom::matrix_chain: give at least two matrices");
  // a plan is kept per (order, factors) while no factor's statistics were gathered again since
  statistics_cache& stats = detail::chain_statistics();
  const std::array<const statistics*, sizeof...(Fs)> factor_stats{&stats.get(ms)...};  // node-stable
  std::vector<const void*> key{static_cast<const void*>(&ms)...};
  key.push_back(reinterpret_cast<const void*>(static_cast<std::uintptr_t>(order)));
  thread_local std::map<std::vector<const void*>, std::pair<std::int64_t, chain_plan>> plans;
  if (auto it = plans.find(key); it != plans.end() && it->second.first == stats.misses()) return it->second.second;
  detail::chain_planner p;
  std::size_t t = 0;
  for (const statistics* s : factor_stats) p.factors.push_back(detail::chain_factor(*s, t++));
  std::array<std::array<std::int64_t, 2>, sizeof...(Fs)> shapes{
      std::array<std::int64_t, 2>{ms.extent(0), ms.extent(1)}...};
  for (std::size_t q = 0; q + 1 < shapes.size(); ++q)
    if (shapes[q][1] != shapes[q + 1][0])
      throw shape_error("loom::matrix_chain: factor " + std::to_string(q) + " has " +
                        std::to_string(shapes[q][1]) + " columns but factor " +
                        std::to_string(q + 1) + " has " + std::to_string(shapes[q + 1][0]) +
                        " rows");
  p.extents.push_back(shapes[0][0]);
  for (const auto& s : shapes) p.extents.push_back(s[1]);
  chain_plan plan;
  switch (order) {
    case chain_order::optimized: plan = p.exact(); break;
    case chain_order::greedy: plan = p.sequential(false); break;
    case chain_order::left_to_right: plan = p.sequential(true); break;
  }
  if (plans.size() > 256) plans.clear();  // bounded: a plan is cheap to make again
  plans[std::move(key)] = {stats.misses(), plan};
  return plan;
}

/// M0 M1 ... M(n-1) for sparse matrices of any format: one fused SpGEMM kernel per step of the
/// chosen decomposition, intermediates materialised as csr. Factors must be matrices.
template <class T, class... Fs>
tensor<T, csr> matrix_chain(chain_order order, const tensor<T, Fs>&... ms) {
  static_assert(((tensor<T, Fs>::order == 2) && ...), "loom::matrix_chain: every factor must be a matrix");
  const chain_plan plan = plan_matrix_chain(order, ms...);
  constexpr std::size_t n = sizeof...(Fs);
  const std::tuple<detail::csr_factor<T, Fs>...> held(ms...);
  const std::array<const tensor<T, csr>*, n> factors =
      std::apply([](const auto&... f) { return std::array<const tensor<T, csr>*, n>{f.ptr...}; }, held);
  // products[a][z]: the product of factors a..z once computed
  std::vector<std::vector<std::optional<tensor<T, csr>>>> done(n, std::vector<std::optional<tensor<T, csr>>>(n));
  auto take = [&](std::size_t a, std::size_t z) -> const tensor<T, csr>& {
    if (a == z) return *factors[a];
    return *done[a][z];
  };
  constexpr loom::index<"i"> i;
  constexpr loom::index<"k"> k;
  constexpr loom::index<"j"> j;
  for (const auto& st : plan.steps) {
    const tensor<T, csr>& left = take(st.first, st.split);
    const tensor<T, csr>& right = take(st.split + 1, st.last);
    tensor<T, csr> out({left.extent(0), right.extent(1)});
    out(i, j) = sum(k, left(i, k) * right(k, j));
    done[st.first][st.last] = std::move(out);
  }
  return std::move(*done[0][n - 1]);
}

/// Same, with the optimized order.
template <class T, class... Fs>
tensor<T, csr> matrix_chain(const tensor<T, Fs>&... ms) {
  return matrix_chain(chain_order::optimized, ms...);
}

}  // namespace loom

#endif  // LOOM_OPTIMIZE_MATRIX_CHAIN_HPP
// ---- end <loom/optimize/matrix_chain.hpp>
// ---- begin <loom/optimize/uniform_estimator.hpp>
// Defines loom::uniform_estimator, the System-R density estimate (optimize/, notes 001 §5.3).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_UNIFORM_ESTIMATOR_HPP
#define LOOM_OPTIMIZE_UNIFORM_ESTIMATOR_HPP


#include <cmath>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace loom {

/// Sparsity as a density: a tensor over index set I with n non-fills has density p = n / |I|,
/// non-fills are assumed independent and uniform (Galley's "naive" statistics; notes 001 §5.3):
/// - conjunction (product, intersection): nnz = |I_out| * prod_k p_k;
/// - disjunction (sum, union):            nnz = |I_out| * (1 - prod_k (1 - p_k));
/// - aggregate over I_a:                  nnz = |I \ I_a| * (1 - (1 - p)^{|I_a|}),
///   with |I_a| the product of the aggregated extents.
/// Densities multiply directly; products of (1 - p) are taken in log space (log1p/expm1), as
/// Galley.jl does, so huge index spaces and tiny densities do not round to 0 or 1.
class uniform_estimator {
 public:
  /// An estimate of `nnz` non-fills over `indices`.
  uniform_estimator(index_set indices, double nnz) : indices_(std::move(indices)), nnz_(nnz) {
    detail::check_index_set(indices_, "loom::uniform_estimator");
    if (nnz_ < 0 || nnz_ > detail::dense_size(indices_))
      throw shape_error("loom::uniform_estimator: nnz " + std::to_string(nnz_) +
                        " is outside [0, product of extents]");
  }
  /// The estimate of a stored tensor: `names[m]` names logical mode m, extents come from `s`.
  uniform_estimator(const statistics& s, const std::vector<std::string>& names)
      : uniform_estimator(named(s, names), static_cast<double>(s.nnz)) {}

  /// A tensor with no fill entry over `indices` (used to broadcast).
  static uniform_estimator full(index_set indices) {
    const double n = detail::dense_size(indices);
    return uniform_estimator(std::move(indices), n);
  }

  /// Pointwise op whose fill annihilates it (`A * B`): the non-fills of the output are the
  /// intersection of the operands' (broadcast over the union of their indices).
  static uniform_estimator conjunction(std::span<const uniform_estimator> args) {
    index_set out;
    double p = 1;
    for (const uniform_estimator& a : args) {
      out = detail::index_union(out, a.indices_, "loom::uniform_estimator::conjunction");
      p *= a.density();
    }
    const double size = detail::dense_size(out);
    const double n = clamp(size * p, size);
    return uniform_estimator(std::move(out), n);
  }
  /// Pointwise op whose fill does not annihilate it (`A + B`): the union of the non-fills.
  static uniform_estimator disjunction(std::span<const uniform_estimator> args) {
    index_set out;
    double log_q = 0;  // log of P(fill in every operand)
    for (const uniform_estimator& a : args) {
      out = detail::index_union(out, a.indices_, "loom::uniform_estimator::disjunction");
      log_q += std::log1p(-a.density());
    }
    const double size = detail::dense_size(out);
    const double n = clamp(size * -std::expm1(log_q), size);
    return uniform_estimator(std::move(out), n);
  }
  /// Aggregate (sum, max, ...) over the named indices; names not in the index set are ignored.
  uniform_estimator aggregate(const std::vector<std::string>& names) const {
    index_set kept = detail::index_filter(indices_, names, false);
    const double reduced = detail::dense_size(detail::index_filter(indices_, names, true));
    const double p = density();
    const double size = detail::dense_size(kept);
    const double n = clamp(size * -std::expm1(reduced * std::log1p(-p)), size);
    return uniform_estimator(std::move(kept), n);
  }

  /// Estimated number of non-fill entries.
  double estimate() const { return nnz_; }
  /// Expected number of non-fills per fixed value of the `given` indices (`nnz / |given|`).
  double estimate_given(const std::vector<std::string>& given) const {
    const double g = detail::dense_size(detail::index_filter(indices_, given, true));
    return g > 0 ? nnz_ / g : 0.0;
  }
  /// `estimate() / product of extents` (0 over an empty index space).
  double density() const {
    const double s = detail::dense_size(indices_);
    return s > 0 ? nnz_ / s : 0.0;
  }
  const index_set& indices() const { return indices_; }

 private:
  static index_set named(const statistics& s, const std::vector<std::string>& names) {
    if (names.size() != s.shape.size())
      throw shape_error("loom::uniform_estimator: " + std::to_string(names.size()) +
                        " index names for a tensor of order " + std::to_string(s.shape.size()));
    index_set out;
    for (std::size_t m = 0; m < names.size(); ++m) out.push_back({names[m], s.shape[m]});
    return out;
  }
  static double clamp(double n, double hi) {
    if (!(n > 0)) return 0;  // also maps NaN to 0
    return n > hi ? hi : n;
  }

  index_set indices_;
  double nnz_ = 0;
};

}  // namespace loom

#endif  // LOOM_OPTIMIZE_UNIFORM_ESTIMATOR_HPP
// ---- end <loom/optimize/uniform_estimator.hpp>

#endif  // LOOM_OPTIMIZE_HPP
// ---- end <loom/optimize.hpp>
// ---- begin <loom/parallel.hpp>
// Umbrella header of parallel/: thread count and deterministic mode, the thread pool, the
// partition of outer loops and the parallel run loops.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_PARALLEL_HPP
#define LOOM_PARALLEL_HPP


#endif  // LOOM_PARALLEL_HPP
// ---- end <loom/parallel.hpp>
// ---- begin <loom/plan.hpp>
// Umbrella header of plan/: loop order, transposition, compile-time checks, explain().
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_PLAN_HPP
#define LOOM_PLAN_HPP


#endif  // LOOM_PLAN_HPP
// ---- end <loom/plan.hpp>
// ---- begin <loom/relational.hpp>
// Relations on indexed streams: CSV tables keyed into trie-shaped tensors, predicates, results
// as rows (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_HPP
#define LOOM_RELATIONAL_HPP

// ---- begin <loom/relational/aggregate.hpp>
// Defines the aggregates of a keyed relation: the value each row contributes and how rows with
// equal keys combine (count, exists, sum, min, max) (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_AGGREGATE_HPP
#define LOOM_RELATIONAL_AGGREGATE_HPP

// ---- begin <loom/relational/table.hpp>
// Defines loom::relational::table: named typed columns read from CSV, with derived columns and
// CSV output (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_TABLE_HPP
#define LOOM_RELATIONAL_TABLE_HPP

// ---- begin <loom/relational/column.hpp>
// Defines loom::relational::column: one typed column of a table, stored as a plain array
// (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_COLUMN_HPP
#define LOOM_RELATIONAL_COLUMN_HPP

// ---- begin <loom/relational/date.hpp>
// Defines dates as day numbers: parsing `YYYY-MM-DD`, formatting, and the year of a day (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_DATE_HPP
#define LOOM_RELATIONAL_DATE_HPP


#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace loom::relational {

/// A civil date (proleptic Gregorian).
struct civil_date {
  std::int64_t year;
  int month;  // 1..12
  int day;    // 1..31
};

// H. Hinnant's days_from_civil / civil_from_days: exact for every proleptic Gregorian date.

/// Days since 1970-01-01 of a civil date.
constexpr std::int64_t days_from_civil(std::int64_t y, int m, int d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/// The civil date of a day number (days since 1970-01-01).
constexpr civil_date civil_from_days(std::int64_t z) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const int d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (m <= 2), m, d};
}

/// The year of a day number: the derived attribute `extract(year from date)`.
constexpr std::int64_t year_of(std::int64_t days) { return civil_from_days(days).year; }

constexpr bool is_leap_year(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/// Parses `YYYY-MM-DD` (four-digit year) into a day number; nullopt when malformed or invalid.
constexpr std::optional<std::int64_t> parse_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
  auto digits = [&](std::size_t from, std::size_t n) -> int {
    int v = 0;
    for (std::size_t k = from; k < from + n; ++k) {
      if (s[k] < '0' || s[k] > '9') return -1;
      v = v * 10 + (s[k] - '0');
    }
    return v;
  };
  const int y = digits(0, 4), m = digits(5, 2), d = digits(8, 2);
  if (y < 0 || m < 1 || m > 12 || d < 1) return std::nullopt;
  constexpr int month_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const int last = month_days[m - 1] + (m == 2 && is_leap_year(y) ? 1 : 0);
  if (d > last) return std::nullopt;
  return days_from_civil(y, m, d);
}

/// A day number as `YYYY-MM-DD`. **Example**: `format_date(8766) == "1994-01-01"`.
inline std::string format_date(std::int64_t days) {
  const civil_date c = civil_from_days(days);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04lld-%02d-%02d", static_cast<long long>(c.year), c.month,
                c.day);
  return buf;
}

/// The day number of a date literal, `date("1994-01-01") == 8766`; a malformed literal is a
/// compile error in a constant expression and a `loom::parse_error` at run time.
constexpr std::int64_t date(std::string_view s) {
  const auto d = parse_date(s);
  if (!d) throw parse_error("loom::relational::date: '" + std::string(s) + "' is not a valid YYYY-MM-DD date");
  return *d;
}

}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_DATE_HPP
// ---- end <loom/relational/date.hpp>
// ---- begin <loom/relational/dictionary.hpp>
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
// ---- end <loom/relational/dictionary.hpp>
// ---- begin <loom/relational/error.hpp>
// Defines the runtime errors of relations: malformed CSV and unknown columns (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_ERROR_HPP
#define LOOM_RELATIONAL_ERROR_HPP


#include <cstdint>
#include <string>
#include <utility>

namespace loom::relational {

/// A CSV file is malformed: wrong field count, a value that does not parse as its column's type,
/// or a schema column missing from the header. `what()` reads
/// `file:line: column k (name): what`; the parts are also available separately.
class csv_error : public parse_error {
 public:
  csv_error(std::string file, std::int64_t line, std::int64_t column, std::string column_name,
            const std::string& what)
      : parse_error(file + ":" + std::to_string(line) + ": " +
                    (column > 0 ? "column " + std::to_string(column) +
                                      (column_name.empty() ? "" : " (" + column_name + ")") + ": "
                                : (column_name.empty() ? "" : "column " + column_name + ": ")) +
                    what),
        file_(std::move(file)),
        line_(line),
        column_(column),
        column_name_(std::move(column_name)) {}

  const std::string& file() const { return file_; }
  /// 1-based line number (the header is line 1).
  std::int64_t line() const { return line_; }
  /// 1-based field number in the line, or 0 when the error concerns no field.
  std::int64_t column() const { return column_; }
  const std::string& column_name() const { return column_name_; }

 private:
  std::string file_;
  std::int64_t line_;
  std::int64_t column_;
  std::string column_name_;
};

/// A table has no column of the requested name, or the column has the wrong type for the use.
class column_error : public error {
 public:
  using error::error;
};

}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_ERROR_HPP
// ---- end <loom/relational/error.hpp>

#include <charconv>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loom::relational {

/// How a CSV field is read and stored. Integers, dates (days since 1970-01-01) and strings
/// (dictionary codes) are integer columns and may key a relation; decimals are doubles.
enum class column_type { int64, decimal, date, string };

constexpr std::string_view to_string(column_type t) {
  switch (t) {
    case column_type::int64: return "int64";
    case column_type::decimal: return "decimal";
    case column_type::date: return "date";
    case column_type::string: return "string";
  }
  return "?";
}

/// A named, typed column. Integer-like types (int64, date, string codes) live in `ints()`,
/// decimals in `reals()`; string columns share their dictionary with columns derived from them.
class column {
 public:
  column() = default;
  column(std::string name, column_type type) : name_(std::move(name)), type_(type) {}
  column(std::string name, std::vector<std::int64_t> ints, column_type type = column_type::int64,
         std::shared_ptr<const dictionary> dict = nullptr)
      : name_(std::move(name)), type_(type), ints_(std::move(ints)), dict_(std::move(dict)) {
    if (type_ == column_type::decimal)
      throw column_error("loom::relational::column " + name_ +
                         ": a decimal column holds doubles; pass a std::vector<double>");
    if (type_ == column_type::string && !dict_)
      throw column_error("loom::relational::column " + name_ + ": a string column needs a dictionary");
  }
  column(std::string name, std::vector<double> reals)
      : name_(std::move(name)), type_(column_type::decimal), reals_(std::move(reals)) {}

  const std::string& name() const { return name_; }
  column_type type() const { return type_; }
  std::size_t size() const { return is_integer() ? ints_.size() : reals_.size(); }
  /// True for the types that can key a relation (stored as integers).
  bool is_integer() const { return type_ != column_type::decimal; }

  /// The integer values (int64, date as days, string codes); throws for a decimal column.
  std::span<const std::int64_t> ints() const {
    if (!is_integer())
      throw column_error("loom::relational: column " + name_ +
                         " is decimal; it cannot be used as an integer key");
    return ints_;
  }
  /// The decimal values; throws for other types.
  std::span<const double> reals() const {
    if (is_integer())
      throw column_error("loom::relational: column " + name_ + " is " +
                         std::string(to_string(type_)) + ", not decimal");
    return reals_;
  }
  /// The value of any column as a double (codes and days as numbers).
  double number(std::size_t row) const {
    return is_integer() ? static_cast<double>(ints_[row]) : reals_[row];
  }
  /// The dictionary of a string column (null for other types).
  const std::shared_ptr<const dictionary>& dict() const { return dict_; }

  /// The field as CSV text: dates as YYYY-MM-DD, strings decoded, decimals round-trip.
  std::string text(std::size_t row) const;

  // Used by the CSV reader.
  std::vector<std::int64_t>& mutable_ints() { return ints_; }
  std::vector<double>& mutable_reals() { return reals_; }
  void set_dictionary(std::shared_ptr<const dictionary> d) { dict_ = std::move(d); }

 private:
  std::string name_;
  column_type type_ = column_type::int64;
  std::vector<std::int64_t> ints_;
  std::vector<double> reals_;
  std::shared_ptr<const dictionary> dict_;
};

namespace detail {
/// The shortest text that reads back as the same double.
inline std::string format_decimal(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}
}  // namespace detail

inline std::string column::text(std::size_t row) const {
  switch (type_) {
    case column_type::int64: return std::to_string(ints_[row]);
    case column_type::decimal: return detail::format_decimal(reals_[row]);
    case column_type::date: return format_date(ints_[row]);
    case column_type::string: return dict_->word(ints_[row]);
  }
  return {};
}

}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_COLUMN_HPP
// ---- end <loom/relational/column.hpp>

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loom::relational {

/// A column-store table: columns of equal length, looked up by name.
/// **Example**: `auto t = read_csv("orders.csv", {{"o_orderkey", column_type::int64}});`
class table {
 public:
  table() = default;
  explicit table(std::string name) : name_(std::move(name)) {}

  /// The table's name (the file it was read from), used in error messages.
  const std::string& name() const { return name_; }
  std::size_t rows() const { return columns_.empty() ? 0 : columns_.front().size(); }
  const std::vector<column>& columns() const { return columns_; }

  /// The column called `name`; throws `column_error` listing the columns when there is none.
  const column& operator[](std::string_view name) const {
    for (const column& c : columns_)
      if (c.name() == name) return c;
    std::string known;
    for (const column& c : columns_) known += (known.empty() ? "" : ", ") + c.name();
    throw column_error("loom::relational: table " + (name_.empty() ? "(unnamed)" : name_) +
                       " has no column " + std::string(name) + " (columns: " + known + ")");
  }
  bool has(std::string_view name) const {
    for (const column& c : columns_)
      if (c.name() == name) return true;
    return false;
  }
  /// Shorthands: `t.ints("o_custkey")`, `t.reals("l_discount")`.
  std::span<const std::int64_t> ints(std::string_view name) const { return (*this)[name].ints(); }
  std::span<const double> reals(std::string_view name) const { return (*this)[name].reals(); }

  /// Appends a column; its length must match the table's.
  table& add(column c) {
    if (!columns_.empty() && c.size() != rows())
      throw column_error("loom::relational: column " + c.name() + " has " +
                         std::to_string(c.size()) + " rows but table " + name_ + " has " +
                         std::to_string(rows()));
    if (has(c.name()))
      throw column_error("loom::relational: table " + name_ + " already has a column " + c.name());
    columns_.push_back(std::move(c));
    return *this;
  }

  /// Replaces the column of the same name (same length).
  table& replace(column c) {
    for (column& old : columns_)
      if (old.name() == c.name()) {
        if (c.size() != old.size())
          throw column_error("loom::relational: column " + c.name() + " has " +
                             std::to_string(c.size()) + " rows, not " + std::to_string(old.size()));
        old = std::move(c);
        return *this;
      }
    (void)(*this)[c.name()];  // throws, listing the columns
    return *this;
  }

  /// A derived attribute: `t.derive("o_year", "o_orderdate", year_of)` adds the integer column
  /// `f(source[row])` for every row (f maps an integer value: a key, a day, a code).
  template <class F>
  table& derive(std::string name, std::string_view source, F f,
                column_type type = column_type::int64) {
    const auto in = (*this)[source].ints();
    std::vector<std::int64_t> out(in.size());
    for (std::size_t r = 0; r < in.size(); ++r) out[r] = static_cast<std::int64_t>(f(in[r]));
    return add(column(std::move(name), std::move(out), type));
  }

  /// Writes a header line and one line per row; strings are quoted when needed.
  void write_csv(std::ostream& out, char delimiter = ',') const {
    for (std::size_t c = 0; c < columns_.size(); ++c)
      out << (c ? std::string(1, delimiter) : "") << quote(columns_[c].name(), delimiter);
    out << '\n';
    for (std::size_t r = 0; r < rows(); ++r) {
      for (std::size_t c = 0; c < columns_.size(); ++c)
        out << (c ? std::string(1, delimiter) : "") << quote(columns_[c].text(r), delimiter);
      out << '\n';
    }
  }

 private:
  static std::string quote(const std::string& s, char delimiter) {
    if (s.find_first_of(std::string{delimiter, '"', '\n', '\r'}) == std::string::npos) return s;
    std::string q = "\"";
    for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  }

  std::string name_;
  std::vector<column> columns_;
};

/// Re-encodes two string columns (of one or two tables) through one merged dictionary, so that
/// equal strings get equal codes and the columns can be joined as keys.
/// **Example**: `share_dictionary(customer, "c_city", supplier, "s_city");`
inline void share_dictionary(table& a, std::string_view col_a, table& b, std::string_view col_b) {
  const column& ca = a[col_a];
  const column& cb = b[col_b];
  if (ca.type() != column_type::string || cb.type() != column_type::string)
    throw column_error("loom::relational::share_dictionary: " + std::string(col_a) + " and " +
                       std::string(col_b) + " must both be string columns");
  std::vector<std::string> words = ca.dict()->words();
  words.insert(words.end(), cb.dict()->words().begin(), cb.dict()->words().end());
  const auto merged = std::make_shared<const dictionary>(std::move(words));
  auto recode = [&](const column& c) {
    std::vector<std::int64_t> remap(static_cast<std::size_t>(c.dict()->size()));
    for (std::int64_t k = 0; k < c.dict()->size(); ++k)
      remap[static_cast<std::size_t>(k)] = *merged->code(c.dict()->word(k));
    std::vector<std::int64_t> codes(c.size());
    for (std::size_t r = 0; r < c.size(); ++r) codes[r] = remap[static_cast<std::size_t>(c.ints()[r])];
    return column(c.name(), std::move(codes), column_type::string, merged);
  };
  column na = recode(ca), nb = recode(cb);
  a.replace(std::move(na));
  b.replace(std::move(nb));
}

}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_TABLE_HPP
// ---- end <loom/relational/table.hpp>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

namespace loom::relational {

// An aggregate has `value_type` (a semiring), `policy` (how equal keys combine in from_coo) and
// `bind(table)`, which returns the per-row value function `(std::size_t row) -> value_type`.

/// Each row counts 1; equal keys add up (bag semantics, K = N).
template <class T = std::int64_t>
struct count {
  using value_type = T;
  static constexpr duplicates policy = duplicates::sum;
  auto bind(const table&) const {
    return [](std::size_t) { return semiring_traits<T>::one(); };
  }
};

/// Each key is present once with the value one (set semantics).
template <class T = std::int64_t>
struct exists {
  using value_type = T;
  static constexpr duplicates policy = duplicates::last;
  auto bind(const table&) const {
    return [](std::size_t) { return semiring_traits<T>::one(); };
  }
};

namespace detail {
// A column read as T, or a user function of the row.
template <class T, class Source>
auto row_values(const table& t, const Source& source) {
  if constexpr (std::is_convertible_v<const Source&, std::string_view>) {
    const column& c = t[std::string_view(source)];
    if (c.is_integer()) {  // codes and days read as numbers
      return std::function<T(std::size_t)>(
          [v = c.ints()](std::size_t r) { return T(static_cast<double>(v[r])); });
    }
    return std::function<T(std::size_t)>([v = c.reals()](std::size_t r) { return T(v[r]); });
  } else {
    return std::function<T(std::size_t)>(
        [source](std::size_t r) { return static_cast<T>(source(r)); });
  }
}
}  // namespace detail

/// An aggregate: `bind(table)` gives the per-row value function; equal keys combine by `Policy`.
template <class V, duplicates Policy, class Bind>
struct aggregate {
  using value_type = V;
  static constexpr duplicates policy = Policy;
  Bind binder;
  auto bind(const table& t) const { return binder(t); }
};

namespace detail {
template <class V, duplicates P, class Bind>
aggregate<V, P, Bind> make_aggregate(Bind b) {
  return {std::move(b)};
}
}  // namespace detail

/// The sum of a column (by name) or of `f(row)` over rows with equal keys (K = T, +, ×).
/// **Example**: `sum_of<double>([&](std::size_t r) { return price[r] * (1 - disc[r]); })`
template <class T, class Source>
auto sum_of(Source source) {
  return detail::make_aggregate<T, duplicates::sum>(
      [source](const table& t) { return detail::row_values<T>(t, source); });
}

/// The minimum of a column or of `f(row)`: values in the (min, +) semiring, whose + is min.
template <class T, class Source>
auto min_of(Source source) {
  return detail::make_aggregate<min_plus<T>, duplicates::sum>([source](const table& t) {
    return [f = detail::row_values<T>(t, source)](std::size_t r) { return min_plus<T>(f(r)); };
  });
}

/// The maximum of a column or of `f(row)`: values in the (max, +) semiring, whose + is max.
template <class T, class Source>
auto max_of(Source source) {
  return detail::make_aggregate<max_plus<T>, duplicates::sum>([source](const table& t) {
    return [f = detail::row_values<T>(t, source)](std::size_t r) { return max_plus<T>(f(r)); };
  });
}

}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_AGGREGATE_HPP
// ---- end <loom/relational/aggregate.hpp>
// ---- begin <loom/relational/csv.hpp>
// Defines loom::relational::read_csv: typed columns from a CSV file, strings dictionary-encoded
// (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_CSV_HPP
#define LOOM_RELATIONAL_CSV_HPP


#include <charconv>
#include <cstdint>
#include <deque>
#include <fstream>
#include <istream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace loom::relational {

/// One column to load: its header name and type.
struct column_spec {
  std::string name;
  column_type type;
};

struct csv_options {
  char delimiter = ',';
  /// With a header, schema columns are found by name and other columns are skipped; without,
  /// the schema lists every column in file order.
  bool header = true;
};

namespace detail {

class csv_parser {
 public:
  csv_parser(std::string_view text, const std::string& file, char delimiter)
      : text_(text), file_(file), delimiter_(delimiter) {
    if (text_.starts_with("\xEF\xBB\xBF")) pos_ = 3;  // UTF-8 byte order mark
  }

  /// Reads the next record into `fields()`; false at end of input. Blank lines are skipped.
  bool next() {
    while (pos_ < text_.size() && (text_[pos_] == '\n' || text_[pos_] == '\r')) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
    if (pos_ >= text_.size()) return false;
    record_line_ = line_;
    fields_.clear();
    scratch_used_ = 0;
    for (;;) {
      if (pos_ < text_.size() && text_[pos_] == '"') {
        read_quoted();
      } else {
        const std::size_t begin = pos_;
        while (pos_ < text_.size() && text_[pos_] != delimiter_ && text_[pos_] != '\n') ++pos_;
        std::size_t end = pos_;
        if (end > begin && text_[end - 1] == '\r') --end;
        fields_.push_back(text_.substr(begin, end - begin));
      }
      if (pos_ < text_.size() && text_[pos_] == delimiter_) {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size()) {  // '\n'
        ++pos_;
        ++line_;
      }
      return true;
    }
  }

  const std::vector<std::string_view>& fields() const { return fields_; }
  /// The line on which the current record starts (1-based).
  std::int64_t line() const { return record_line_; }

 private:
  void read_quoted() {
    const std::int64_t start_line = line_;
    ++pos_;
    if (scratch_used_ == scratch_.size()) scratch_.emplace_back();
    std::string& s = scratch_[scratch_used_++];
    s.clear();
    for (;;) {
      if (pos_ >= text_.size())
        throw csv_error(file_, start_line, static_cast<std::int64_t>(fields_.size()) + 1, "",
                        "unterminated quoted field");
      const char ch = text_[pos_++];
      if (ch == '"') {
        if (pos_ < text_.size() && text_[pos_] == '"') {
          s += '"';
          ++pos_;
          continue;
        }
        break;
      }
      if (ch == '\n') ++line_;
      s += ch;
    }
    if (pos_ < text_.size() && text_[pos_] == '\r') ++pos_;
    if (pos_ < text_.size() && text_[pos_] != delimiter_ && text_[pos_] != '\n')
      throw csv_error(file_, start_line, static_cast<std::int64_t>(fields_.size()) + 1, "",
                      "unexpected character after a closing quote");
    fields_.push_back(s);
  }

  std::string_view text_;
  const std::string& file_;
  char delimiter_;
  std::size_t pos_ = 0;
  std::int64_t line_ = 1;
  std::int64_t record_line_ = 1;
  std::vector<std::string_view> fields_;
  std::deque<std::string> scratch_;  // unescaped quoted fields; a deque keeps them in place
  std::size_t scratch_used_ = 0;
};

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

inline std::string shown(std::string_view s) {
  constexpr std::size_t max = 40;
  return "'" + std::string(s.substr(0, max)) + (s.size() > max ? "...'" : "'");
}

}  // namespace detail

/// Reads the columns of `schema` from CSV text; `name` (the file) appears in error messages.
/// Throws `csv_error` (`file:line: column k (name): what`) for a wrong field count, a value that
/// does not parse as its column's type, or a schema column missing from the header.
inline table read_csv_text(std::string_view text, const std::string& name,
                           const std::vector<column_spec>& schema, const csv_options& options = {}) {
  detail::csv_parser parser(text, name, options.delimiter);
  std::vector<std::int64_t> slot_of_field;  // field index -> schema slot, or -1 (skipped)
  std::vector<std::string> field_names;
  std::size_t expected = schema.size();
  if (options.header) {
    if (!parser.next()) throw csv_error(name, 1, 0, "", "the file is empty; expected a header line");
    for (std::string_view f : parser.fields()) field_names.emplace_back(detail::trim(f));
    expected = field_names.size();
    slot_of_field.assign(expected, -1);
    for (std::size_t s = 0; s < schema.size(); ++s) {
      std::size_t found = expected;
      for (std::size_t f = 0; f < expected; ++f)
        if (field_names[f] == schema[s].name) {
          if (found != expected)
            throw csv_error(name, 1, static_cast<std::int64_t>(f) + 1, schema[s].name,
                            "the header names this column twice");
          found = f;
        }
      if (found == expected) {
        std::string known;
        for (const auto& n : field_names) known += (known.empty() ? "" : ", ") + n;
        throw csv_error(name, 1, 0, schema[s].name,
                        "unknown column: not in the header (columns: " + known + ")");
      }
      slot_of_field[found] = static_cast<std::int64_t>(s);
    }
  } else {
    for (std::size_t s = 0; s < schema.size(); ++s) {
      slot_of_field.push_back(static_cast<std::int64_t>(s));
      field_names.push_back(schema[s].name);
    }
  }

  std::vector<column> cols;
  std::vector<detail::dictionary_builder> dicts(schema.size());
  for (const auto& spec : schema) cols.emplace_back(spec.name, spec.type);

  while (parser.next()) {
    const auto& fields = parser.fields();
    if (fields.size() != expected)
      throw csv_error(name, parser.line(), 0, "",
                      "expected " + std::to_string(expected) + " fields, found " +
                          std::to_string(fields.size()));
    for (std::size_t f = 0; f < fields.size(); ++f) {
      const std::int64_t s = slot_of_field[f];
      if (s < 0) continue;
      column& c = cols[static_cast<std::size_t>(s)];
      const std::string_view raw = fields[f];
      auto fail = [&](std::string_view what) {
        throw csv_error(name, parser.line(), static_cast<std::int64_t>(f) + 1, c.name(),
                        "cannot parse " + detail::shown(raw) + " as " + std::string(what));
      };
      switch (c.type()) {
        case column_type::int64: {
          const std::string_view v = detail::trim(raw);
          std::int64_t x = 0;
          const auto r = std::from_chars(v.data(), v.data() + v.size(), x);
          if (v.empty() || r.ec != std::errc{} || r.ptr != v.data() + v.size())
            fail(r.ec == std::errc::result_out_of_range ? "int64 (out of range)" : "int64");
          c.mutable_ints().push_back(x);
          break;
        }
        case column_type::decimal: {
          const std::string_view v = detail::trim(raw);
          double x = 0;
          const auto r = std::from_chars(v.data(), v.data() + v.size(), x);
          if (v.empty() || r.ec != std::errc{} || r.ptr != v.data() + v.size()) fail("decimal");
          c.mutable_reals().push_back(x);
          break;
        }
        case column_type::date: {
          const auto d = parse_date(detail::trim(raw));
          if (!d) fail("a date (YYYY-MM-DD)");
          c.mutable_ints().push_back(*d);
          break;
        }
        case column_type::string:
          c.mutable_ints().push_back(dicts[static_cast<std::size_t>(s)].add(raw));
          break;
      }
    }
  }

  table t(name);
  for (std::size_t s = 0; s < schema.size(); ++s) {
    if (cols[s].type() == column_type::string) {
      std::vector<std::int64_t> remap;
      cols[s].set_dictionary(std::make_shared<const dictionary>(dicts[s].finish(remap)));
      for (auto& code : cols[s].mutable_ints()) code = remap[static_cast<std::size_t>(code)];
    }
    t.add(std::move(cols[s]));
  }
  return t;
}

/// Reads the columns of `schema` from the CSV file at `path` (see `read_csv_text`); throws
/// `io_error` when the file cannot be read.
inline table read_csv(const std::string& path, const std::vector<column_spec>& schema,
                      const csv_options& options = {}) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw io_error(path + ": cannot open the file");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw io_error(path + ": read error");
  return read_csv_text(text, path, schema, options);
}

}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_CSV_HPP
// ---- end <loom/relational/csv.hpp>
// ---- begin <loom/relational/interval.hpp>
// Defines loom::relational::interval: a key range as an implicit stream level (Etch's
// predRange) — no stored keys, `seek` jumps straight to the target, `locate` is a comparison
// (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_INTERVAL_HPP
#define LOOM_RELATIONAL_INTERVAL_HPP


#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace loom::relational {

/// The coordinates [lo, hi) of a root level, stored as two numbers. A view made by `interval`
/// gives every coordinate the same value (position 0); an assembled tensor (consecutive keys)
/// has one position per coordinate.
struct interval_level {
  static constexpr level_properties properties{.random_access = true};  // ordered, unique
  static constexpr std::size_t static_extent = dynamic_extent;
  static constexpr std::string_view name = "interval";

  template <bool Owning>
  struct storage {
    std::int64_t lo = 0, hi = 0;
    bool shared_value = false;  // every coordinate at position 0
  };

  struct cursor {
    std::int64_t i = 0, lo = 0, hi = 0;
    bool shared_value = false;

    LOOM_FORCE_INLINE bool valid() const { return i < hi; }
    LOOM_FORCE_INLINE std::int64_t index() const { return i; }
    LOOM_FORCE_INLINE level_range at(std::int64_t j) const {
      return shared_value ? level_range{0, 1} : level_range{j - lo, j - lo + 1};
    }
    LOOM_FORCE_INLINE level_range children() const { return at(i); }
    // locate(j) -> the position of j when lo <= j < hi, else empty
    LOOM_FORCE_INLINE level_range locate(std::int64_t j) const {
      return j >= lo && j < hi ? at(j) : level_range{};
    }
    LOOM_FORCE_INLINE void seek(std::int64_t j) { i = std::max(i, j); }  // a jump, not a search
    LOOM_FORCE_INLINE void seek_past(std::int64_t j) { i = j >= hi ? hi : std::max(i, j + 1); }
    LOOM_FORCE_INLINE void next() { ++i; }
  };

  template <skip_policy, bool Owning>
  static cursor iterate(const storage<Owning>& st, std::int64_t, std::int64_t) {
    return {st.lo, st.lo, st.hi, st.shared_value};
  }

  static std::int64_t assemble(storage<true>& st, const level_build& in,
                               std::span<std::int64_t> position) {
    if (in.parents != 1)
      throw shape_error("loom::relational::interval_level: mode " + std::to_string(in.mode) +
                        " must be the first level");
    st.lo = in.coord.empty() ? 0 : in.coord.front();
    st.hi = in.coord.empty() ? 0 : in.coord.back() + 1;
    st.shared_value = false;
    for (std::size_t e = 0; e < in.coord.size(); ++e) {
      if (e > 0 && in.coord[e] != in.coord[e - 1] && in.coord[e] != in.coord[e - 1] + 1)
        throw shape_error("loom::relational::interval_level: the keys of mode " +
                          std::to_string(in.mode) + " are not consecutive (" +
                          std::to_string(in.coord[e - 1]) + " then " +
                          std::to_string(in.coord[e]) + ")");
      position[e] = in.coord[e] - st.lo;
    }
    return st.hi - st.lo;
  }
};
static_assert(level_type<interval_level> && level_with_locate<interval_level>);

namespace detail {
template <class T>
inline const T semiring_one = semiring_traits<T>::one();
}  // namespace detail

/// `[lo <= key < hi]` over keys `0 .. extent-1` as a level with no storage: merged with a
/// relation's level, `seek` jumps to the target in O(1), and the planner may also locate it
/// (one comparison). Use it like `range`: `in_1994(d) * O(d, o, c)`.
template <class T = std::int64_t>
view<const T, format<interval_level>> interval(std::int64_t lo, std::int64_t hi,
                                               std::int64_t extent) {
  if (extent < 0) throw shape_error("loom::relational::interval: the extent is negative");
  typename view<const T, format<interval_level>>::level_storages levels{};
  auto& st = std::get<0>(levels);
  st.lo = std::clamp<std::int64_t>(lo, 0, extent);
  st.hi = std::clamp<std::int64_t>(hi, st.lo, extent);
  st.shared_value = true;
  view<const T, format<interval_level>> v({extent}, levels,
                                          std::span<const T>(&detail::semiring_one<T>, 1));
  v.set_name("[" + std::to_string(st.lo) + "," + std::to_string(st.hi) + ")");
  return v;
}

}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_INTERVAL_HPP
// ---- end <loom/relational/interval.hpp>
// ---- begin <loom/relational/predicates.hpp>
// Defines key predicates as 0/1 tensors to multiply into a query: ranges, equality, sets of
// codes, SQL LIKE over a string column; and value filters (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_PREDICATES_HPP
#define LOOM_RELATIONAL_PREDICATES_HPP


#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loom::relational {

// A predicate on a key is a sparse vector of ones over the keys that satisfy it. Multiplying it
// into a query is a selection (σ_p(M) = p · M); as a compressed level it is intersected with the
// relation's level by the leapfrog merge, whose seeks jump over keys outside the predicate.

namespace detail {
template <class T>
tensor<T, sparse_vector> ones_at(std::int64_t extent, std::vector<std::int64_t> keys) {
  if (extent < 0) throw shape_error("loom::relational: a predicate's extent is negative");
  using level = compressed;
  typename tensor<T, sparse_vector>::level_storages levels{};
  auto& st = std::get<0>(levels);
  if (extent > 0) loom::detail::check_fits<level::crd_type>(extent - 1, "largest key of a predicate");
  st.pos = {0, static_cast<level::pos_type>(keys.size())};
  st.crd.reserve(keys.size());
  for (std::int64_t k : keys) st.crd.push_back(static_cast<level::crd_type>(k));
  std::vector<T> vals(keys.size(), semiring_traits<T>::one());
  return tensor<T, sparse_vector>({extent}, std::move(levels), std::move(vals));
}
}  // namespace detail

/// `[lo <= key < hi]` over keys `0 .. extent-1` (clipped to the extent).
/// **Example**: `range<double>(date("1994-01-01"), date("1995-01-01"), days)`
template <class T = std::int64_t>
tensor<T, sparse_vector> range(std::int64_t lo, std::int64_t hi, std::int64_t extent) {
  lo = std::max<std::int64_t>(lo, 0);
  hi = std::min(hi, extent);
  std::vector<std::int64_t> keys;
  for (std::int64_t k = lo; k < hi; ++k) keys.push_back(k);
  return detail::ones_at<T>(extent, std::move(keys));
}

/// `[key == value]` over keys `0 .. extent-1` (empty when value is outside).
template <class T = std::int64_t>
tensor<T, sparse_vector> equal(std::int64_t value, std::int64_t extent) {
  return range<T>(value, value + 1, extent);
}

/// `[f(key)]` for every key `0 .. extent-1`.
template <class T = std::int64_t, class F>
tensor<T, sparse_vector> predicate(std::int64_t extent, F f) {
  std::vector<std::int64_t> keys;
  for (std::int64_t k = 0; k < extent; ++k)
    if (f(k)) keys.push_back(k);
  return detail::ones_at<T>(extent, std::move(keys));
}

namespace detail {
inline const dictionary& dictionary_of(const column& c, std::string_view who) {
  if (c.type() != column_type::string || !c.dict())
    throw column_error("loom::relational::" + std::string(who) + ": column " + c.name() +
                       " is not a string column");
  return *c.dict();
}
}  // namespace detail

/// `[f(string)]` over the dictionary codes of string column `c`.
template <class T = std::int64_t, class F>
tensor<T, sparse_vector> string_predicate(const column& c, F f) {
  const dictionary& d = detail::dictionary_of(c, "string_predicate");
  return predicate<T>(d.size(), [&](std::int64_t code) { return f(std::string_view(d.word(code))); });
}

/// `[string == s]` over the codes of string column `c` (no entry when s does not occur).
template <class T = std::int64_t>
tensor<T, sparse_vector> string_equal(const column& c, std::string_view s) {
  const dictionary& d = detail::dictionary_of(c, "string_equal");
  const auto code = d.code(s);
  return code ? equal<T>(*code, d.size()) : detail::ones_at<T>(d.size(), {});
}

/// SQL LIKE: `%` matches any run of characters, `_` any one character; case-sensitive.
constexpr bool like_match(std::string_view s, std::string_view pattern) {
  // iterative wildcard matching with backtracking to the last `%`: O(|s| * |pattern|) worst case
  std::size_t si = 0, pi = 0, star = std::string_view::npos, mark = 0;
  while (si < s.size()) {
    if (pi < pattern.size() && pattern[pi] == '%') {  // before the literal test: '%' is a wildcard
      star = pi++;
      mark = si;
    } else if (pi < pattern.size() && (pattern[pi] == '_' || pattern[pi] == s[si])) {
      ++si;
      ++pi;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      si = ++mark;
    } else {
      return false;
    }
  }
  while (pi < pattern.size() && pattern[pi] == '%') ++pi;
  return pi == pattern.size();
}

/// `[string LIKE pattern]` over the codes of string column `c`: Q9's `p_name like '%green%'`.
template <class T = std::int64_t>
tensor<T, sparse_vector> like(const column& c, std::string_view pattern) {
  return string_predicate<T>(c, [pattern](std::string_view s) { return like_match(s, pattern); });
}

/// A value filter: the entries of `a` whose value satisfies `keep`, same format and shape.
/// (Inside an expression, `loom::where(A(i, j) > t, A(i, j))` filters without materialising.)
template <class T, storage_format Format, bool Owning, class F>
tensor<T, Format> filter_values(const basic_tensor<T, Format, Owning>& a, F keep) {
  constexpr std::size_t N = Format::order;
  std::vector<std::array<std::int64_t, N>> coords;
  std::vector<T> values;
  a.for_each_stored([&](const auto& c, const T& v) {
    if (keep(v)) {
      coords.push_back(c);
      values.push_back(v);
    }
  });
  return from_coo<Format>(a.shape(), coords, values, duplicates::error);
}

}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_PREDICATES_HPP
// ---- end <loom/relational/predicates.hpp>
// ---- begin <loom/relational/relation.hpp>
// Defines loom::relational::key_by: a table as a trie-shaped tensor keyed by chosen columns, one
// level per key column, whose value is an aggregate in a semiring (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_RELATION_HPP
#define LOOM_RELATIONAL_RELATION_HPP


#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace loom::relational {

/// The extent a key column needs: the dictionary size of a string column, else max + 1 (at
/// least 1). Joined columns must share an extent: pass `extent_of(a, b, ...)` to both.
inline std::int64_t extent_of(const column& c) {
  if (c.type() == column_type::string) return std::max<std::int64_t>(1, c.dict()->size());
  std::int64_t m = 0;
  for (std::int64_t v : c.ints()) m = std::max(m, v + 1);
  return std::max<std::int64_t>(1, m);
}
template <class... Cs>
  requires(sizeof...(Cs) >= 2)
std::int64_t extent_of(const Cs&... cs) {
  return std::max({extent_of(static_cast<const column&>(cs))...});
}

/// A relation: `table` keyed by the columns `keys` (outermost first), stored in `Format`
/// (default: one compressed level per key, `csf<N>`), with one value per distinct key combining
/// the rows' values by `agg` (`count()`, `exists()`, `sum_of<T>(...)`, `min_of`, `max_of`).
/// Key columns must be integer-like (int64, date, string codes) and non-negative. `shape[k] = 0`
/// asks for `extent_of(column)`.
/// **Example**: `auto L = key_by<csf<2>>(lineitem, {"l_orderkey", "l_suppkey"}, count());`
template <storage_format Format, class Agg>
tensor<typename Agg::value_type, Format> key_by(
    const table& t, const std::array<std::string, Format::order>& keys, const Agg& agg,
    std::array<std::int64_t, Format::order> shape = {}) {
  constexpr std::size_t N = Format::order;
  using V = typename Agg::value_type;
  std::array<std::span<const std::int64_t>, N> key_values;
  for (std::size_t k = 0; k < N; ++k) {
    const column& c = t[keys[k]];
    if (!c.is_integer())
      throw column_error("loom::relational::key_by: key column " + keys[k] + " of " + t.name() +
                         " is decimal; key by an integer, date or string column");
    key_values[k] = c.ints();
    if (shape[k] == 0) shape[k] = extent_of(c);
  }
  const std::size_t n = t.rows();
  std::vector<std::array<std::int64_t, N>> coords(n);
  std::vector<V> values(n);
  const auto value_of = agg.bind(t);
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t k = 0; k < N; ++k) {
      const std::int64_t v = key_values[k][r];
      if (v < 0 || v >= shape[k])
        throw column_error("loom::relational::key_by: " + t.name() + " row " +
                           std::to_string(r + 1) + ": key " + keys[k] + " = " +
                           std::to_string(v) + " is outside [0, " + std::to_string(shape[k]) +
                           "); keys must be non-negative and below the extent");
      coords[r][k] = v;
    }
    values[r] = value_of(r);
  }
  return from_coo<Format>(shape, coords, values, Agg::policy);
}

/// `key_by` with the default format `csf<N>` (one compressed level per key column).
template <std::size_t N, class Agg>
tensor<typename Agg::value_type, csf<N>> key_by(const table& t,
                                                const std::array<std::string, N>& keys,
                                                const Agg& agg,
                                                std::array<std::int64_t, N> shape = {}) {
  return key_by<csf<N>>(t, keys, agg, shape);
}

}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_RELATION_HPP
// ---- end <loom/relational/relation.hpp>
// ---- begin <loom/relational/rows.hpp>
// Defines the way back from tensors to rows: entries as (keys, value) rows and as a table with
// typed, decoded key columns (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_ROWS_HPP
#define LOOM_RELATIONAL_ROWS_HPP


#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace loom::relational {

/// One result row: the key of each mode (logical order) and the value.
template <class T, std::size_t N>
struct row {
  std::array<std::int64_t, N> keys;
  T value;
  friend bool operator==(const row&, const row&) = default;
};

/// The stored entries of `a` whose value is not the semiring's zero (a dense output's padding is
/// not a row), in storage order.
template <class T, storage_format Format, bool Owning>
std::vector<row<T, Format::order>> to_rows(const basic_tensor<T, Format, Owning>& a) {
  std::vector<row<T, Format::order>> rows;
  a.for_each_stored([&](const auto& c, const T& v) {
    if (!(v == semiring_traits<T>::zero())) rows.push_back({c, v});
  });
  return rows;
}

/// How a result key is shown: a name and the column it came from (for its type and dictionary).
struct key_column {
  std::string name;
  column_type type = column_type::int64;
  std::shared_ptr<const dictionary> dict = nullptr;

  key_column(std::string n, column_type t = column_type::int64,
             std::shared_ptr<const dictionary> d = nullptr)
      : name(std::move(n)), type(t), dict(std::move(d)) {}
  /// Named and typed like `c` (a string key decodes through c's dictionary).
  key_column(const column& c) : key_column(c.name(), c.type(), c.dict()) {}  // NOLINT: implicit
  key_column(const char* n) : key_column(std::string(n)) {}                  // NOLINT: implicit
};

namespace detail {
template <class T>
auto plain_value(const T& v) {
  if constexpr (requires { v.value; }) return v.value;  // min_plus, max_plus, boolean, ...
  else return v;
}
}  // namespace detail

/// The result as a table: one column per key (typed and decoded as `keys[k]` says), then the
/// value column `value_name` (int64 for integer values, decimal otherwise).
/// **Example**: `to_table(revenue, {nation["n_name"]}, "revenue").write_csv(std::cout);`
template <class T, storage_format Format, bool Owning>
table to_table(const basic_tensor<T, Format, Owning>& a,
               const std::array<key_column, Format::order>& keys, const std::string& value_name) {
  constexpr std::size_t N = Format::order;
  const auto rows = to_rows(a);
  table t(a.name().empty() ? "result" : a.name());
  for (std::size_t k = 0; k < N; ++k) {
    std::vector<std::int64_t> v;
    v.reserve(rows.size());
    for (const auto& r : rows) v.push_back(r.keys[k]);
    const key_column& kc = keys[k];
    if (kc.type == column_type::decimal)
      throw column_error("loom::relational::to_table: key " + kc.name + " cannot be decimal");
    if (kc.type == column_type::string && kc.dict)
      for (std::int64_t code : v)
        if (code >= kc.dict->size())
          throw column_error("loom::relational::to_table: key " + kc.name + " = " +
                             std::to_string(code) + " is not a code of its dictionary");
    t.add(column(kc.name, std::move(v), kc.type == column_type::string && !kc.dict
                                            ? column_type::int64 : kc.type, kc.dict));
  }
  using plain = decltype(detail::plain_value(std::declval<T>()));
  if constexpr (std::is_integral_v<plain>) {
    std::vector<std::int64_t> v;
    for (const auto& r : rows) v.push_back(static_cast<std::int64_t>(detail::plain_value(r.value)));
    t.add(column(value_name, std::move(v)));
  } else {
    std::vector<double> v;
    for (const auto& r : rows) v.push_back(static_cast<double>(detail::plain_value(r.value)));
    t.add(column(value_name, std::move(v)));
  }
  return t;
}

/// Sorts a table's rows by the given columns (ascending, or descending where `descending[k]`);
/// strings sort by their text, which their codes preserve.
inline table sort_rows(const table& t, const std::vector<std::string>& by,
                       const std::vector<bool>& descending = {}) {
  std::vector<std::size_t> perm(t.rows());
  for (std::size_t r = 0; r < perm.size(); ++r) perm[r] = r;
  std::vector<const column*> cols;
  for (const auto& name : by) cols.push_back(&t[name]);
  std::stable_sort(perm.begin(), perm.end(), [&](std::size_t a, std::size_t b) {
    for (std::size_t k = 0; k < cols.size(); ++k) {
      const double x = cols[k]->number(a), y = cols[k]->number(b);
      if (x == y) continue;
      const bool desc = k < descending.size() && descending[k];
      return desc ? x > y : x < y;
    }
    return false;
  });
  table out(t.name());
  for (const column& c : t.columns()) {
    if (c.is_integer()) {
      std::vector<std::int64_t> v;
      for (std::size_t r : perm) v.push_back(c.ints()[r]);
      out.add(column(c.name(), std::move(v), c.type(), c.dict()));
    } else {
      std::vector<double> v;
      for (std::size_t r : perm) v.push_back(c.reals()[r]);
      out.add(column(c.name(), std::move(v)));
    }
  }
  return out;
}

}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_ROWS_HPP
// ---- end <loom/relational/rows.hpp>
// ---- begin <loom/relational/value_filter.hpp>
// Defines value filters as a stream level: a zero-copy view of a sparse vector whose entries
// failing a comparison are not ready (Etch's valFilter), so a fused kernel never descends below
// them (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_VALUE_FILTER_HPP
#define LOOM_RELATIONAL_VALUE_FILTER_HPP


#include <boost/mp11/list.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace loom::relational {

// Comparisons `value <op> bound` of a value filter.
struct greater {
  static constexpr std::string_view symbol = ">";
  template <class T>
  static constexpr bool test(const T& v, const T& b) { return b < v; }
};
struct greater_equal {
  static constexpr std::string_view symbol = ">=";
  template <class T>
  static constexpr bool test(const T& v, const T& b) { return !(v < b); }
};
struct less {
  static constexpr std::string_view symbol = "<";
  template <class T>
  static constexpr bool test(const T& v, const T& b) { return v < b; }
};
struct less_equal {
  static constexpr std::string_view symbol = "<=";
  template <class T>
  static constexpr bool test(const T& v, const T& b) { return !(b < v); }
};

/// A compressed level whose positions carry values (it is the last level) and whose cursor is
/// ready only on positions where `Cmp::test(value, bound)`: a value filter evaluated while the
/// kernel runs, with no copy of the data. With no values attached (an assembled tensor), it is a
/// plain compressed level.
template <class Cmp, class T, class Pos = std::int64_t, class Crd = std::int32_t>
struct value_filter_level {
  static constexpr level_properties properties{};  // ordered, unique
  static constexpr std::size_t static_extent = dynamic_extent;
  static constexpr std::string_view name = "compressed with a value filter";
  using pos_type = Pos;
  using crd_type = Crd;

  template <bool Owning>
  struct storage {
    level_array<Pos, Owning> pos;
    level_array<Crd, Owning> crd;
    std::span<const T> values;  // the values at this level's positions; empty: no filter
    T bound{};
  };

  template <skip_policy P>
  struct cursor : coordinate_cursor<Crd, true, P> {
    const T* values = nullptr;
    T bound{};
    // valFilter: a position whose value fails the test emits nothing; skips are unchanged
    LOOM_FORCE_INLINE bool ready() const {
      return values == nullptr || Cmp::test(values[this->p], bound);
    }
  };

  template <skip_policy P, bool Owning>
  static cursor<P> iterate(const storage<Owning>& st, std::int64_t begin, std::int64_t) {
    cursor<P> c;
    c.crd = st.crd.data();
    c.p = static_cast<std::int64_t>(st.pos[begin]);
    c.end = static_cast<std::int64_t>(st.pos[begin + 1]);
    c.values = st.values.empty() ? nullptr : st.values.data();
    c.bound = st.bound;
    return c;
  }

  static std::int64_t assemble(storage<true>& st, const level_build& in,
                               std::span<std::int64_t> position) {
    using plain = compressed_level<uniqueness::unique, Pos, Crd>;
    typename plain::template storage<true> built;
    const std::int64_t n = plain::assemble(built, in, position);
    st.pos = std::move(built.pos);
    st.crd = std::move(built.crd);
    return n;
  }
};

/// The entries of sparse vector `v` with `value <Cmp> bound`, as a zero-copy view for use inside
/// a kernel: `y(j) = sum(i, value_filter<greater>(v, t)(i) * A(i, j))` never visits the rows
/// of A whose v(i) <= t. `v` must outlive the view.
template <class Cmp, class T, class Pos, class Crd, bool Owning>
auto value_filter(
    const basic_tensor<T, format_spec<boost::mp11::mp_list<compressed_level<uniqueness::unique, Pos, Crd>>, 0>,
                       Owning>& v,
    std::type_identity_t<T> bound) {
  using level = value_filter_level<Cmp, T, Pos, Crd>;
  using fmt = format<level>;
  typename view<const T, fmt>::level_storages levels{};
  const auto& st = v.template level<0>();
  std::get<0>(levels).pos = std::span<const Pos>(st.pos.data(), st.pos.size());
  std::get<0>(levels).crd = std::span<const Crd>(st.crd.data(), st.crd.size());
  std::get<0>(levels).values = v.values();
  std::get<0>(levels).bound = bound;
  view<const T, fmt> out(v.shape(), levels, v.values());
  out.set_name(v.name().empty() ? "filtered" : v.name() + " " + std::string(Cmp::symbol) + " bound");
  return out;
}

}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_VALUE_FILTER_HPP
// ---- end <loom/relational/value_filter.hpp>

namespace loom {
/// Short name: `loom::rel::key_by`, `loom::rel::read_csv`, ...
namespace rel = relational;
}  // namespace loom

#endif  // LOOM_RELATIONAL_HPP
// ---- end <loom/relational.hpp>
// ---- begin <loom/rewrite.hpp>
// Umbrella header of rewrite/: the rule engine, the rules and the rule sets.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_HPP
#define LOOM_REWRITE_HPP

// ---- begin <loom/rewrite/saturation.hpp>
// Umbrella header of rewrite/saturation/: equality saturation at compile time (issue 4 item 4).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_SATURATION_HPP
#define LOOM_REWRITE_SATURATION_HPP

// ---- begin <loom/rewrite/saturation/egraph.hpp>
// Defines loom::rewrite::saturation::egraph: an e-graph in fixed-capacity arrays, usable in
// constant evaluation: hash-consed nodes, e-classes as a union-find, the class analyses the
// SPORES rules read (free indices, bound indices, constant value) (rewrite/saturation/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_SATURATION_EGRAPH_HPP
#define LOOM_REWRITE_SATURATION_EGRAPH_HPP

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

#ifndef LOOM_SATURATION_MAX_NODES
#  define LOOM_SATURATION_MAX_NODES 640
#endif
#ifndef LOOM_SATURATION_MAX_ITERATIONS
#  define LOOM_SATURATION_MAX_ITERATIONS 12
#endif

namespace loom::rewrite::saturation {

/// Node kinds of the sum-product form: a leaf (tensor access or literal, by slot), a constant
/// the rules made (-1, 2, folded products), +, *, a sum over one index, and an opaque pointwise
/// function of one or two operands (a map other than negation: saturation works below it).
enum class kind : std::uint8_t { leaf, constant, add, mul, sum, opaque1, opaque2 };

using id_t = std::uint16_t;
inline constexpr id_t no_id = 0xffff;
inline constexpr std::size_t max_leaves = 48;  // leaf occurrences: operand and index ids
inline constexpr std::size_t max_indices = 64;  // original indices plus one per sum (a bit mask)

/// One operator: its kind, its sum index, its operand classes, its leaf slot, its constant.
struct enode {
  kind k = kind::leaf;
  std::uint8_t index = 0;
  id_t a = no_id;
  id_t b = no_id;
  std::uint16_t slot = 0;
  double value = 0;
  friend constexpr bool operator==(const enode&, const enode&) = default;
};

/// A leaf occurrence: which operand of the expression (`source`, its slot in leaves_t), its
/// index ids (in the access's order), its free indices, and its sparsity class (a format with a
/// compressed level, or a scalar).
struct leaf_info {
  std::uint16_t source = 0;
  std::array<std::uint8_t, 8> ids{};
  std::uint8_t order = 0;
  std::uint64_t mask = 0;
  bool sparse = false;
  bool scalar = false;
};

/// An e-graph of at most Max nodes. Class ids are node ids (a class is named by its first node);
/// `find` gives the representative.
template <std::size_t Max>
struct egraph {
  static constexpr std::size_t capacity = Max;
  static constexpr std::size_t table_size = 2 * Max + 1;

  std::array<enode, Max> nodes{};
  std::array<bool, Max> dead{};  // a duplicate found by congruence: skipped by matching
  std::array<id_t, Max> parent{};
  std::array<std::uint64_t, Max> free{};   // class analysis: free indices (a class invariant)
  std::array<std::uint64_t, Max> bound{};  // union of the indices summed inside the class
  std::array<bool, Max> is_constant{};
  std::array<double, Max> constant{};
  std::array<id_t, table_size> table{};  // hash-consing: open addressing over node ids
  std::size_t size = 0;

  std::array<leaf_info, max_leaves> leaves{};
  std::size_t leaf_count = 0;    // occurrences
  std::size_t source_count = 0;  // operands
  std::array<std::uint8_t, max_indices> original{};  // index id -> original index id
  std::array<double, max_indices> static_extent{};   // 0: known only at run time
  std::array<std::uint8_t, max_indices> base{};      // original id -> first original of its name
  std::size_t original_count = 0;
  std::size_t index_count = 0;

  id_t root = no_id;
  id_t other = no_id;  // a second root, when two expressions are compared
  bool other_pending = false;  // encoding a pair: sums keep their names
  std::size_t iterations = 0;
  std::size_t cursor = 0;     // where the next iteration starts matching (see rules.hpp)
  std::size_t ac_cursor = 0;
  std::size_t max_work = 0;   // the most matching work one iteration did
  bool matched = false;       // between the two halves of an iteration (see rules.hpp)
  bool changed = false;
  bool node_limit_hit = false;
  bool saturated = false;
  bool supported = true;  // false: the expression holds a node the encoder does not model

  constexpr egraph() {
    for (auto& t : table) t = no_id;
  }

  constexpr id_t find(id_t c) const {
    while (parent[c] != c) c = parent[c];
    return c;
  }

  constexpr enode canonical(enode n) const {
    if (n.a != no_id) n.a = find(n.a);
    if (n.b != no_id) n.b = find(n.b);
    return n;
  }

  static constexpr std::size_t hash(const enode& n) {
    std::uint64_t h = static_cast<std::uint64_t>(n.k) * 0x9e3779b97f4a7c15ull;
    h ^= n.index + 0x7f4a7c15ull + (h << 6) + (h >> 2);
    h ^= n.a + 0x51ed27ull + (h << 6) + (h >> 2);
    h ^= n.b + 0x2545f491ull + (h << 6) + (h >> 2);
    h ^= n.slot + (h << 6) + (h >> 2);
    h ^= std::bit_cast<std::uint64_t>(n.value) + (h << 6) + (h >> 2);
    return static_cast<std::size_t>(h % table_size);
  }

  /// The slot of `n` (canonical) in the table: its node, or an empty slot.
  constexpr std::size_t probe(const enode& n) const {
    std::size_t s = hash(n);
    while (table[s] != no_id && canonical(nodes[table[s]]) != n) s = (s + 1) % table_size;
    return s;
  }

  constexpr std::uint64_t free_of(const enode& n) const {
    switch (n.k) {
      case kind::leaf: return leaves[n.slot].mask;
      case kind::constant: return 0;
      case kind::sum: return free[n.a] & ~(std::uint64_t{1} << n.index);
      case kind::opaque1: return free[n.a];
      default: return free[n.a] | free[n.b];
    }
  }
  constexpr std::uint64_t bound_of(const enode& n) const {
    switch (n.k) {
      case kind::leaf:
      case kind::constant: return 0;
      case kind::sum: return bound[n.a] | (std::uint64_t{1} << n.index);
      case kind::opaque1: return bound[n.a];
      default: return bound[n.a] | bound[n.b];
    }
  }

  /// The class of `n`, added if no equal node exists; `no_id` once the node limit is reached.
  constexpr id_t add(enode n) {
    n = canonical(n);
    const std::size_t s = probe(n);
    if (table[s] != no_id) return find(table[s]);
    if (size == Max) {
      node_limit_hit = true;
      return no_id;
    }
    const id_t c = static_cast<id_t>(size++);
    nodes[c] = n;
    parent[c] = c;
    free[c] = free_of(n);
    bound[c] = bound_of(n);
    is_constant[c] = n.k == kind::constant;
    constant[c] = n.value;
    if (n.k == kind::mul && is_constant[n.a] && is_constant[n.b]) {
      is_constant[c] = true;
      constant[c] = constant[n.a] * constant[n.b];
    }
    table[s] = c;
    return c;
  }

  constexpr id_t add_constant(double v) { return add({kind::constant, 0, no_id, no_id, 0, v}); }

  /// Merges two classes; false when they already were one.
  constexpr bool merge(id_t x, id_t y) {
    x = find(x);
    y = find(y);
    if (x == y) return false;
    if (y < x) {
      const id_t t = x;
      x = y;
      y = t;
    }
    parent[y] = x;
    bound[x] |= bound[y];
    if (!is_constant[x] && is_constant[y]) {
      is_constant[x] = true;
      constant[x] = constant[y];
    }
    return true;
  }

  /// Restores the congruence invariant after merges: nodes whose canonical forms coincide are
  /// one node, so their classes merge (repeated until nothing changes).
  constexpr void rebuild() {
    bool changed = true;
    while (changed) {
      changed = false;
      for (auto& t : table) t = no_id;
      for (std::size_t c = 0; c < size; ++c) {
        if (dead[c]) continue;
        const enode n = canonical(nodes[c]);
        const std::size_t s = probe(n);
        if (table[s] == no_id) {
          table[s] = static_cast<id_t>(c);
        } else {
          dead[c] = true;
          changed = merge(table[s], static_cast<id_t>(c)) || changed;
        }
      }
    }
    for (std::size_t c = 0; c < size; ++c) parent[c] = find(parent[c]);  // flat: find is one step
  }

  /// Number of e-classes (live representatives).
  constexpr std::size_t class_count() const {
    std::size_t k = 0;
    for (std::size_t c = 0; c < size; ++c) k += parent[c] == c ? 1 : 0;
    return k;
  }
};

}  // namespace loom::rewrite::saturation

#endif  // LOOM_REWRITE_SATURATION_EGRAPH_HPP
// ---- end <loom/rewrite/saturation/egraph.hpp>
// ---- begin <loom/rewrite/saturation/encode.hpp>
// Defines the encoding of an expression type into an egraph (sum-product form), the list of its
// leaves (the operands the e-graph refers to by slot) and their collection from a value
// (rewrite/saturation/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_SATURATION_ENCODE_HPP
#define LOOM_REWRITE_SATURATION_ENCODE_HPP

// ---- begin <loom/rewrite/saturation/operands.hpp>
// Defines the operand naming saturation needs beside the expression: slot_tag (an operand named
// by its position, so that a rewritten copy of an expression still names it), tagged_t, and the
// renaming of bound names apart (renamed_apart_t, base_index_t) (rewrite/saturation/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_SATURATION_OPERANDS_HPP
#define LOOM_REWRITE_SATURATION_OPERANDS_HPP


#include <cstddef>
#include <string_view>
#include <type_traits>

namespace loom::rewrite::saturation {

/// An operand renamed by its slot, so that a rewritten copy of an expression (whose operands
/// move and repeat) still names them: the type of a tensor or literal, never dereferenced.
template <std::size_t Slot, class T>
struct slot_tag {
  using value_type = typename std::remove_const_t<T>::value_type;
  using format_type = typename std::remove_const_t<T>::format_type;
};
template <std::size_t Slot, class T>
struct slot_tag<Slot, expr::literal<T>> {
  using value_type = T;
  struct format_type {
    static constexpr bool all_dense = true;
  };
};

namespace detail {
// tagged<E, Next>: E with operand number Next + k renamed slot_tag<Next + k, ...>; `ok` is false
// when E holds an opaque map (a rewritten copy could not name it)
template <class E, std::size_t Next>
struct tagged {
  static constexpr bool ok = false;
  static constexpr std::size_t next = Next;
  using type = E;
};
template <class T, class... Is, std::size_t Next>
struct tagged<expr::access<T, Is...>, Next> {
  static constexpr bool ok = true;
  static constexpr std::size_t next = Next + 1;
  using type = expr::access<slot_tag<Next, T>, Is...>;
};
template <class T, std::size_t Next>
struct tagged<expr::literal<T>, Next> {
  static constexpr bool ok = true;
  static constexpr std::size_t next = Next + 1;
  using type = expr::access<slot_tag<Next, expr::literal<T>>>;
};
template <class L, class R, std::size_t Next>
struct tagged<expr::add<L, R>, Next> {
  using l = tagged<L, Next>;
  using r = tagged<R, l::next>;
  static constexpr bool ok = l::ok && r::ok;
  static constexpr std::size_t next = r::next;
  using type = expr::add<typename l::type, typename r::type>;
};
template <class L, class R, std::size_t Next>
struct tagged<expr::mul<L, R>, Next> : tagged<expr::add<L, R>, Next> {
  using base = tagged<expr::add<L, R>, Next>;
  using type = expr::mul<typename base::l::type, typename base::r::type>;
};
template <class I, class B, std::size_t Next>
struct tagged<expr::sum<I, B>, Next> : tagged<B, Next> {
  using type = expr::sum<I, typename tagged<B, Next>::type>;
};
template <class X, std::size_t Next>
struct tagged<expr::map<fn::negate, X>, Next> : tagged<X, Next> {
  using type = expr::map<fn::negate, typename tagged<X, Next>::type>;
};
}  // namespace detail

namespace detail {
// A name made of an index's name, a separator and a number: bound names renamed apart.
template <class Original, std::size_t Id, char Separator>
constexpr auto numbered_name() {
  constexpr std::size_t n = Original::name.size();
  char text[n + 4]{};
  for (std::size_t k = 0; k < n; ++k) text[k] = Original::name[k];
  text[n] = Separator;
  text[n + 1] = static_cast<char>('0' + Id / 10 % 10);
  text[n + 2] = static_cast<char>('0' + Id % 10);
  return fixed_string<n + 4>(text);
}

// The name an index was renamed apart from: its name up to '~'.
template <class I>
constexpr std::size_t base_length = I::name.find('~') == std::string_view::npos ? I::name.size()
                                                                                 : I::name.find('~');
template <class I>
constexpr auto base_name() {
  char text[base_length<I> + 1]{};
  for (std::size_t k = 0; k < base_length<I>; ++k) text[k] = I::name[k];
  return fixed_string<base_length<I> + 1>(text);
}
template <class I>
using base_index_t = loom::index<base_name<I>()>;

// subst<E, From, To>: index From replaced by To where it is free
template <class E, class From, class To>
struct subst {
  using type = E;
};
template <class T, class... Is, class From, class To>
struct subst<expr::access<T, Is...>, From, To> {
  using type = expr::access<T, std::conditional_t<std::is_same_v<Is, From>, To, Is>...>;
};
template <class L, class R, class From, class To>
struct subst<expr::add<L, R>, From, To> {
  using type = expr::add<typename subst<L, From, To>::type, typename subst<R, From, To>::type>;
};
template <class L, class R, class From, class To>
struct subst<expr::mul<L, R>, From, To> {
  using type = expr::mul<typename subst<L, From, To>::type, typename subst<R, From, To>::type>;
};
template <class X, class From, class To>
struct subst<expr::map<fn::negate, X>, From, To> {
  using type = expr::map<fn::negate, typename subst<X, From, To>::type>;
};
template <class I, class B, class From, class To>
struct subst<expr::sum<I, B>, From, To> {
  using type = std::conditional_t<std::is_same_v<I, From>, expr::sum<I, B>,
                                  expr::sum<I, typename subst<B, From, To>::type>>;
};

// apart<E, N>: every sum of E binds a name of its own (numbered from N), so the normal form's
// lift_sum can pull every sum out (it will not capture a name)
template <class E, std::size_t N>
struct apart {
  using type = E;
  static constexpr std::size_t next = N;
};
template <class L, class R, std::size_t N>
struct apart<expr::add<L, R>, N> {
  using l = apart<L, N>;
  using r = apart<R, l::next>;
  using type = expr::add<typename l::type, typename r::type>;
  static constexpr std::size_t next = r::next;
};
template <class L, class R, std::size_t N>
struct apart<expr::mul<L, R>, N> : apart<expr::add<L, R>, N> {
  using base = apart<expr::add<L, R>, N>;
  using type = expr::mul<typename base::l::type, typename base::r::type>;
};
template <class X, std::size_t N>
struct apart<expr::map<fn::negate, X>, N> : apart<X, N> {
  using type = expr::map<fn::negate, typename apart<X, N>::type>;
};
template <class I, class B, std::size_t N>
struct apart<expr::sum<I, B>, N> {
  using b = apart<B, N>;
  using renamed = loom::index<numbered_name<I, b::next, '~'>()>;
  using type = expr::sum<renamed, typename subst<typename b::type, I, renamed>::type>;
  static constexpr std::size_t next = b::next + 1;
};
}  // namespace detail

/// E with every bound name renamed apart (an alpha-equivalent expression).
template <class E>
using renamed_apart_t = typename detail::apart<E, 0>::type;

/// E with its operands named by slot (see slot_tag); `void` when E holds an opaque map.
template <class E>
using tagged_t = std::conditional_t<detail::tagged<E, 0>::ok, typename detail::tagged<E, 0>::type, void>;

}  // namespace loom::rewrite::saturation

#endif  // LOOM_REWRITE_SATURATION_OPERANDS_HPP
// ---- end <loom/rewrite/saturation/operands.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace loom::rewrite::saturation {

using boost::mp11::mp_list;

namespace detail {

// leaves<E>: the operands the e-graph names by slot, depth first: accesses, literals, and the
// maps it treats as opaque (their operands follow them).
template <class E>
struct leaves {
  using type = mp_list<E>;
};
template <>
struct leaves<zero> {
  using type = mp_list<>;
};
template <>
struct leaves<one> {
  using type = mp_list<>;
};
template <class L, class R>
struct leaves<expr::add<L, R>> {
  using type = boost::mp11::mp_append<typename leaves<L>::type, typename leaves<R>::type>;
};
template <class L, class R>
struct leaves<expr::mul<L, R>> : leaves<expr::add<L, R>> {};
template <class I, class B>
struct leaves<expr::sum<I, B>> : leaves<B> {};
template <class X>
struct leaves<expr::map<fn::negate, X>> : leaves<X> {};
template <class F, class... Xs>
struct leaves<expr::map<F, Xs...>> {
  using type = boost::mp11::mp_append<mp_list<expr::map<F, Xs...>>, typename leaves<Xs>::type...>;
};

// modelled<E>: whether every node of E is one the e-graph models (where and expand are not)
template <class E>
struct modelled : std::false_type {};
template <class T, class... Is>
struct modelled<expr::access<T, Is...>> : std::bool_constant<(sizeof...(Is) <= 8)> {};
template <class T>
struct modelled<expr::literal<T>> : std::true_type {};
template <>
struct modelled<zero> : std::true_type {};
template <>
struct modelled<one> : std::true_type {};
template <class L, class R>
struct modelled<expr::add<L, R>> : std::bool_constant<modelled<L>::value && modelled<R>::value> {};
template <class L, class R>
struct modelled<expr::mul<L, R>> : modelled<expr::add<L, R>> {};
template <class I, class B>
struct modelled<expr::sum<I, B>> : modelled<B> {};
template <class F, class X>
struct modelled<expr::map<F, X>> : modelled<X> {};
template <class F, class X, class Y>
struct modelled<expr::map<F, X, Y>> : modelled<expr::add<X, Y>> {};

template <class Orig, class I>
inline constexpr std::uint8_t id_of = static_cast<std::uint8_t>(boost::mp11::mp_find<Orig, I>::value);

using environment = std::array<std::uint8_t, max_indices>;  // original index id -> current id

template <class Orig, class E>
struct encoder;

// The occurrence of operand `source` read at index ids `ids`: found, or added.
template <std::size_t Max, std::size_t N>
constexpr id_t occurrence(egraph<Max>& g, std::size_t source, const std::array<std::uint8_t, N>& ids,
                          bool sparse, bool scalar) {
  leaf_info l;
  l.source = static_cast<std::uint16_t>(source);
  l.order = static_cast<std::uint8_t>(N);
  l.sparse = sparse;
  l.scalar = scalar;
  for (std::size_t m = 0; m < N; ++m) {
    l.ids[m] = ids[m];
    l.mask |= std::uint64_t{1} << ids[m];
  }
  std::size_t k = 0;
  while (k < g.leaf_count && !(g.leaves[k].source == l.source && g.leaves[k].ids == l.ids &&
                               g.leaves[k].order == l.order))
    ++k;
  if (k == max_leaves) {
    g.supported = false;
    return no_id;
  }
  if (k == g.leaf_count) g.leaves[g.leaf_count++] = l;
  return g.add({kind::leaf, 0, no_id, no_id, static_cast<std::uint16_t>(k), 0});
}

template <class Orig, class Tensor, class... Is>
struct access_encoder {
  template <std::size_t Max>
  static constexpr id_t run(egraph<Max>& g, const environment& env, std::size_t source) {
    using format = typename std::remove_const_t<Tensor>::format_type;
    const std::array<std::uint8_t, sizeof...(Is)> ids{env[id_of<Orig, Is>]...};
    // a dense level with a static extent fixes the extent of the index on its mode
    std::size_t k = 0;
    boost::mp11::mp_for_each<boost::mp11::mp_transform<std::type_identity, typename format::levels>>(
        [&](auto level) {
          constexpr std::size_t e = decltype(level)::type::static_extent;
          if constexpr (e != dynamic_extent)
            g.static_extent[g.original[ids[format::modes[k]]]] = static_cast<double>(e);
          ++k;
        });
    return occurrence(g, source, ids, !format::all_dense, false);
  }
};

template <class Orig, class T, class... Is>
struct encoder<Orig, expr::access<T, Is...>> {
  template <std::size_t Max>
  static constexpr id_t run(egraph<Max>& g, const environment& env) {
    return access_encoder<Orig, T, Is...>::run(g, env, g.source_count++);
  }
};

template <class Orig, class T>
struct encoder<Orig, expr::literal<T>> {
  template <std::size_t Max>
  static constexpr id_t run(egraph<Max>& g, const environment&) {
    return occurrence(g, g.source_count++, std::array<std::uint8_t, 0>{}, false, true);
  }
};

// The seed (the sum-product normal form, see saturate.hpp) names its operands by slot.
template <class Orig, std::size_t Slot, class T, class... Is>
struct encoder<Orig, expr::access<slot_tag<Slot, T>, Is...>> {
  template <std::size_t Max>
  static constexpr id_t run(egraph<Max>& g, const environment& env) {
    return access_encoder<Orig, T, Is...>::run(g, env, Slot);
  }
};
template <class Orig, std::size_t Slot, class T>
struct encoder<Orig, expr::access<slot_tag<Slot, expr::literal<T>>>> {
  template <std::size_t Max>
  static constexpr id_t run(egraph<Max>& g, const environment&) {
    return occurrence(g, Slot, std::array<std::uint8_t, 0>{}, false, true);
  }
};

template <class Orig>
struct encoder<Orig, zero> {
  template <std::size_t Max>
  static constexpr id_t run(egraph<Max>& g, const environment&) { return g.add_constant(0); }
};
template <class Orig>
struct encoder<Orig, one> {
  template <std::size_t Max>
  static constexpr id_t run(egraph<Max>& g, const environment&) { return g.add_constant(1); }
};

template <class Orig, class L, class R>
struct encoder<Orig, expr::add<L, R>> {
  template <std::size_t Max>
  static constexpr id_t run(egraph<Max>& g, const environment& env) {
    const id_t a = encoder<Orig, L>::run(g, env);
    const id_t b = encoder<Orig, R>::run(g, env);
    return g.add({kind::add, 0, a, b, 0, 0});
  }
};

template <class Orig, class L, class R>
struct encoder<Orig, expr::mul<L, R>> {
  template <std::size_t Max>
  static constexpr id_t run(egraph<Max>& g, const environment& env) {
    const id_t a = encoder<Orig, L>::run(g, env);
    const id_t b = encoder<Orig, R>::run(g, env);
    return g.add({kind::mul, 0, a, b, 0, 0});
  }
};

// Every sum binds a fresh index id (the bound name is renamed apart), so moving sums never
// captures a name, even in e * e with the same bound names on both sides.
template <class Orig, class I, class B>
struct encoder<Orig, expr::sum<I, B>> {
  template <std::size_t Max>
  static constexpr id_t run(egraph<Max>& g, const environment& env) {
    if (!g.other_pending && g.index_count == max_indices) {  // no id left: not modelled
      g.supported = false;
      return no_id;
    }
    // comparing two expressions: bound names are kept, so that alike names meet
    const auto fresh = g.other_pending ? id_of<Orig, I> : static_cast<std::uint8_t>(g.index_count++);
    g.original[fresh] = id_of<Orig, I>;
    environment inner = env;
    inner[id_of<Orig, I>] = fresh;
    const id_t a = encoder<Orig, B>::run(g, inner);
    return g.add({kind::sum, fresh, a, no_id, 0, 0});
  }
};

template <class Orig, class X>
struct encoder<Orig, expr::map<fn::negate, X>> {  // -x is (-1) * x
  template <std::size_t Max>
  static constexpr id_t run(egraph<Max>& g, const environment& env) {
    const id_t a = encoder<Orig, X>::run(g, env);
    return g.add({kind::mul, 0, g.add_constant(-1), a, 0, 0});
  }
};

template <class Orig, class F, class X>
struct encoder<Orig, expr::map<F, X>> {
  template <std::size_t Max>
  static constexpr id_t run(egraph<Max>& g, const environment& env) {
    const auto slot = static_cast<std::uint16_t>(g.source_count++);
    const id_t a = encoder<Orig, X>::run(g, env);
    return g.add({kind::opaque1, 0, a, no_id, slot, 0});
  }
};

template <class Orig, class F, class X, class Y>
struct encoder<Orig, expr::map<F, X, Y>> {
  template <std::size_t Max>
  static constexpr id_t run(egraph<Max>& g, const environment& env) {
    const auto slot = static_cast<std::uint16_t>(g.source_count++);
    const id_t a = encoder<Orig, X>::run(g, env);
    const id_t b = encoder<Orig, Y>::run(g, env);
    return g.add({kind::opaque2, 0, a, b, slot, 0});
  }
};

}  // namespace detail


/// The leaf operands of E (see detail::leaves), an MP11 list.
template <class E>
using leaves_t = typename detail::leaves<E>::type;

/// The indices of E, free or bound, each once: original index id -> type.
template <class E>
using original_indices_t = expr::all_indices_t<E>;

/// The original indices of the e-graph of E seeded with Seed: E's, then the seed's own.
template <class E, class Seed>
using seeded_indices_t = boost::mp11::mp_unique<boost::mp11::mp_append<
    original_indices_t<E>, original_indices_t<std::conditional_t<std::is_void_v<Seed>, E, Seed>>>>;

/// Whether the e-graph models E: only access, literal, +, *, sum and maps of one or two
/// operands, within the leaf and index capacities.
template <class E>
inline constexpr bool encodable_v =
    detail::modelled<E>::value && boost::mp11::mp_size<leaves_t<E>>::value <= max_leaves &&
    boost::mp11::mp_size<original_indices_t<E>>::value +
            boost::mp11::mp_size<expr::summed_indices_t<E>>::value <= max_indices;

/// The e-graph of E before any rule: E inserted post-order (shared subterms hash-consed), and,
/// when given, `Seed` (an equivalent expression over tagged_t<E>'s operands) in E's class.
template <class E, std::size_t Max, class Seed = void>
constexpr egraph<Max> encode() {
  egraph<Max> g;
  if constexpr (!encodable_v<E>) {
    g.supported = false;
  } else if constexpr (!std::is_void_v<Seed> &&
                       boost::mp11::mp_size<seeded_indices_t<E, Seed>>::value +
                               boost::mp11::mp_size<expr::summed_indices_t<E>>::value > max_indices) {
    return encode<E, Max, void>();  // the seed's renamed indices would not fit: no seed
  } else {
    using orig = seeded_indices_t<E, Seed>;
    g.original_count = g.index_count = boost::mp11::mp_size<orig>::value;
    // indices renamed apart from one name share a base: the name they may take back
    std::array<std::string_view, max_indices> names{};
    std::size_t n = 0;
    boost::mp11::mp_for_each<boost::mp11::mp_transform<std::type_identity, orig>>(
        [&](auto i) { names[n++] = detail::base_index_t<typename decltype(i)::type>::name; });
    for (std::size_t k = 0; k < n; ++k) {
      std::size_t j = 0;
      while (names[j] != names[k]) ++j;
      g.base[k] = static_cast<std::uint8_t>(j);
    }
    detail::environment env{};
    for (std::size_t k = 0; k < g.original_count; ++k) {
      env[k] = static_cast<std::uint8_t>(k);
      g.original[k] = static_cast<std::uint8_t>(k);
    }
    g.root = detail::encoder<orig, E>::run(g, env);
    g.supported = g.supported && g.root != no_id;
    if constexpr (!std::is_void_v<Seed>) {
      egraph<Max> seeded = g;
      const id_t s = detail::encoder<orig, Seed>::run(seeded, env);
      if (seeded.supported && s != no_id && !seeded.node_limit_hit) {
        seeded.merge(g.root, s);
        seeded.rebuild();
        seeded.root = seeded.find(g.root);
        return seeded;
      }
    }
  }
  return g;
}

/// The e-graph of two expressions over the same operands (accesses of slot_tag tensors name
/// operands across both): `root` is E's class, `other` F's.
template <class E, class F, std::size_t Max>
constexpr egraph<Max> encode_pair() {
  egraph<Max> g;
  if constexpr (!encodable_v<E> || !encodable_v<F>) {
    g.supported = false;
  } else {
    using orig = boost::mp11::mp_unique<boost::mp11::mp_append<original_indices_t<E>, original_indices_t<F>>>;
    g.original_count = g.index_count = boost::mp11::mp_size<orig>::value;
    detail::environment env{};
    for (std::size_t k = 0; k < g.original_count; ++k) {
      env[k] = static_cast<std::uint8_t>(k);
      g.original[k] = g.base[k] = static_cast<std::uint8_t>(k);
    }
    g.other_pending = true;
    g.root = detail::encoder<orig, E>::run(g, env);
    g.other = detail::encoder<orig, F>::run(g, env);
    g.supported = g.supported && g.root != no_id && g.other != no_id;
  }
  return g;
}

namespace detail {
// declared first: each overload calls the others (no ADL into this namespace)
template <class E>
constexpr auto collect(const E& e);
constexpr auto collect(const zero&);
constexpr auto collect(const one&);
template <class L, class R>
constexpr auto collect(const expr::add<L, R>& e);
template <class L, class R>
constexpr auto collect(const expr::mul<L, R>& e);
template <class I, class B>
constexpr auto collect(const expr::sum<I, B>& e);
template <class X>
constexpr auto collect(const expr::map<fn::negate, X>& e);
template <class F, class... Xs>
  requires(!std::is_same_v<F, fn::negate> || sizeof...(Xs) != 1)
constexpr auto collect(const expr::map<F, Xs...>& e);

template <class E>
constexpr auto collect(const E& e) {
  return std::tuple<E>{e};
}
constexpr auto collect(const zero&) { return std::tuple<>{}; }
constexpr auto collect(const one&) { return std::tuple<>{}; }
template <class L, class R>
constexpr auto collect(const expr::add<L, R>& e) {
  return std::tuple_cat(collect(e.lhs), collect(e.rhs));
}
template <class L, class R>
constexpr auto collect(const expr::mul<L, R>& e) {
  return std::tuple_cat(collect(e.lhs), collect(e.rhs));
}
template <class I, class B>
constexpr auto collect(const expr::sum<I, B>& e) {
  return collect(e.body);
}
template <class X>
constexpr auto collect(const expr::map<fn::negate, X>& e) {
  return collect(std::get<0>(e.args));
}
template <class F, class... Xs>
  requires(!std::is_same_v<F, fn::negate> || sizeof...(Xs) != 1)
constexpr auto collect(const expr::map<F, Xs...>& e) {
  return std::apply([&](const auto&... x) { return std::tuple_cat(std::tuple{e}, collect(x)...); },
                    e.args);
}
}  // namespace detail

/// The leaves of `e` (values: tensor pointers, literal values, map functions) in slot order.
template <class E>
constexpr auto collect_leaves(const E& e) {
  return detail::collect(e);
}

}  // namespace loom::rewrite::saturation

#endif  // LOOM_REWRITE_SATURATION_ENCODE_HPP
// ---- end <loom/rewrite/saturation/encode.hpp>
// ---- begin <loom/rewrite/saturation/extract.hpp>
// Defines the static cost (SPORES Figure 12: estimated output size from per-leaf densities and
// per-index extents), the scenarios it is evaluated under, the extracted term, and greedy
// extraction of the cheapest term of a class (rewrite/saturation/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_SATURATION_EXTRACT_HPP
#define LOOM_REWRITE_SATURATION_EXTRACT_HPP


#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

#ifndef LOOM_SATURATION_DEFAULT_EXTENT
#  define LOOM_SATURATION_DEFAULT_EXTENT 1000.0
#endif
#ifndef LOOM_SATURATION_DEFAULT_DENSITY
#  define LOOM_SATURATION_DEFAULT_DENSITY 0.01
#endif
#ifndef LOOM_SATURATION_MAX_TERM
#  define LOOM_SATURATION_MAX_TERM 160
#endif

namespace loom::rewrite::saturation {

inline constexpr double infinite_cost = 1e300;

/// What the cost reads: the extent of every original index and the density (nnz / size) of
/// every leaf. At compile time from the formats (static extents, sparsity classes); at run time
/// from the tensors.
struct scenario {
  std::array<double, max_indices> extent{};
  std::array<double, max_leaves> density{};
};

/// The index and leaf facts a term needs on its own (for its cost and for rebuilding).
struct signature {
  std::array<leaf_info, max_leaves> leaves{};
  std::size_t leaf_count = 0;
  std::array<std::uint8_t, max_indices> original{};
  std::array<double, max_indices> static_extent{};
  std::size_t original_count = 0;
  std::array<std::uint8_t, max_indices> base{};
};

/// An extracted expression: a tree of operators in post-order (children before parents).
struct term {
  std::array<enode, LOOM_SATURATION_MAX_TERM> nodes{};
  std::size_t size = 0;
  id_t root = no_id;
  bool overflow = false;
  signature sig{};

  constexpr bool same_tree(const term& o, id_t x, id_t y) const {
    const enode& p = nodes[x];
    const enode& q = o.nodes[y];
    if (p.k != q.k || p.index != q.index || p.slot != q.slot || p.value != q.value) return false;
    if (p.a != no_id && !same_tree(o, p.a, q.a)) return false;
    if (p.b != no_id && !same_tree(o, p.b, q.b)) return false;
    return true;
  }
  friend constexpr bool operator==(const term& x, const term& y) {
    return x.root != no_id && y.root != no_id && x.same_tree(y, x.root, y.root);
  }
};

template <std::size_t Max>
constexpr signature signature_of(const egraph<Max>& g) {
  return {g.leaves, g.leaf_count, g.original, g.static_extent, g.original_count, g.base};
}

/// The scenario the static choice uses: static extents where the formats give them, otherwise
/// LOOM_SATURATION_DEFAULT_EXTENT; dense leaves density 1, sparse leaves
/// LOOM_SATURATION_DEFAULT_DENSITY. `sparse_density` and `extent_of` vary it for alternatives.
constexpr scenario default_scenario(const signature& s, double sparse_density = LOOM_SATURATION_DEFAULT_DENSITY,
                                    double dense_only_extent = 0, double sparse_extent = 0) {
  scenario sc;
  std::uint64_t in_sparse = 0;
  for (std::size_t l = 0; l < s.leaf_count; ++l)
    if (s.leaves[l].sparse)
      for (std::size_t m = 0; m < s.leaves[l].order; ++m)
        in_sparse |= std::uint64_t{1} << s.original[s.leaves[l].ids[m]];
  for (std::size_t k = 0; k < s.original_count; ++k) {
    double e = LOOM_SATURATION_DEFAULT_EXTENT;
    if (dense_only_extent > 0) e = ((in_sparse >> k) & 1u) ? sparse_extent : dense_only_extent;
    sc.extent[k] = s.static_extent[k] > 0 ? s.static_extent[k] : e;
  }
  for (std::size_t l = 0; l < s.leaf_count; ++l)
    sc.density[l] = s.leaves[l].sparse ? sparse_density : 1.0;
  return sc;
}

namespace detail {
constexpr double min(double x, double y) { return x < y ? x : y; }

// density of one operator from its operands' (Figure 12): * keeps the sparser, + adds, a sum
// multiplies by the extent; opaque functions may map 0 elsewhere: dense
constexpr double density(const enode& n, double da, double db, const scenario& sc,
                         const signature& s) {
  switch (n.k) {
    case kind::leaf: return sc.density[n.slot];
    case kind::constant: return 1;
    case kind::mul: return min(da, db);
    case kind::add: return min(1, da + db);
    case kind::sum: return min(1, sc.extent[s.original[n.index]] * da);
    default: return 1;
  }
}
constexpr double size(std::uint64_t free, double d, const scenario& sc, const signature& s) {
  for (; free != 0; free &= free - 1) d *= sc.extent[s.original[std::countr_zero(free)]];
  return d;
}
// what an operator costs on its own: the entries it produces (a constant costs nothing)
constexpr double own_cost(const enode& n, double size) { return n.k == kind::constant ? 0 : size; }
}  // namespace detail

/// The cost of a term under a scenario: the summed estimated output sizes of its operators.
constexpr double cost(const term& t, const scenario& sc) {
  std::array<double, LOOM_SATURATION_MAX_TERM> d{};
  std::array<std::uint64_t, LOOM_SATURATION_MAX_TERM> free{};
  double total = 0;
  for (std::size_t k = 0; k < t.size; ++k) {  // post-order: operands first
    const enode& n = t.nodes[k];
    const double da = n.a != no_id ? d[n.a] : 1, db = n.b != no_id ? d[n.b] : 1;
    const std::uint64_t fa = n.a != no_id ? free[n.a] : 0, fb = n.b != no_id ? free[n.b] : 0;
    d[k] = detail::density(n, da, db, sc, t.sig);
    free[k] = n.k == kind::leaf  ? t.sig.leaves[n.slot].mask
              : n.k == kind::sum ? fa & ~(std::uint64_t{1} << n.index)
                                 : fa | fb;
    total += detail::own_cost(n, detail::size(free[k], d[k], sc, t.sig));
  }
  return total;
}

namespace detail {
template <std::size_t Max>
struct extractor {
  const egraph<Max>& g;
  const scenario& sc;
  signature sig;
  std::array<double, Max> dens{};
  std::array<double, Max> best{};
  std::array<id_t, Max> choice{};
  std::size_t passes_ = 0;

  std::array<enode, Max> canon{};  // each node with its operands' representatives
  std::array<id_t, Max> rep{};

  constexpr void canonicalise() {
    for (std::size_t c = 0; c < g.size; ++c) {
      canon[c] = g.canonical(g.nodes[c]);
      rep[c] = g.find(static_cast<id_t>(c));
    }
  }

  constexpr void densities() {
    for (auto& x : dens) x = 2;  // above any density: not yet known
    for (bool changed = true; changed && passes_++ < Max;) {
      changed = false;
      for (std::size_t c = 0; c < g.size; ++c) {
        const enode& n = canon[c];
        const double da = n.a != no_id ? dens[n.a] : 1, db = n.b != no_id ? dens[n.b] : 1;
        if (da > 1 || db > 1) continue;
        const double x = density(n, da, db, sc, sig);
        if (x < dens[rep[c]]) {  // the tighter estimate wins (notes 004 §4.7)
          dens[rep[c]] = x;
          changed = true;
        }
      }
    }
  }

  constexpr void costs() {
    for (auto& x : best) x = infinite_cost;
    for (auto& x : choice) x = no_id;
    std::array<double, Max> own{};
    for (std::size_t c = 0; c < g.size; ++c)
      if (c == rep[c]) own[c] = size(g.free[c], dens[c], sc, sig);
    passes_ = 0;
    for (bool changed = true; changed && passes_++ < Max;) {
      changed = false;
      for (std::size_t c = 0; c < g.size; ++c) {
        if (g.dead[c]) continue;
        const enode& n = canon[c];
        const double ca = n.a != no_id ? best[n.a] : 0, cb = n.b != no_id ? best[n.b] : 0;
        if (ca >= infinite_cost || cb >= infinite_cost) continue;
        const id_t r = rep[c];
        const double x = own_cost(n, own[r]) + ca + cb;
        if (x < best[r]) {
          best[r] = x;
          choice[r] = static_cast<id_t>(c);
          changed = true;
        }
      }
    }
  }

  constexpr id_t emit(term& t, id_t c) const {
    enode n = g.canonical(g.nodes[choice[g.find(c)]]);
    if (n.a != no_id) n.a = emit(t, n.a);
    if (n.b != no_id) n.b = emit(t, n.b);
    if (t.overflow || t.size == t.nodes.size()) {
      t.overflow = true;
      return 0;
    }
    t.nodes[t.size] = n;
    return static_cast<id_t>(t.size++);
  }
};
}  // namespace detail

/// The cheapest term of the root class under `sc` (greedy: the cheapest node of each class).
template <std::size_t Max>
constexpr term extract(const egraph<Max>& g, const scenario& sc) {
  term t;
  t.sig = signature_of(g);
  if (!g.supported) return t;
  detail::extractor<Max> x{g, sc, t.sig};
  x.canonicalise();
  x.densities();
  x.costs();
  t.root = x.emit(t, g.root);
  if (t.overflow) t.root = no_id;
  return t;
}

}  // namespace loom::rewrite::saturation

#endif  // LOOM_REWRITE_SATURATION_EXTRACT_HPP
// ---- end <loom/rewrite/saturation/extract.hpp>
// ---- begin <loom/rewrite/saturation/print.hpp>
// Defines the constexpr text of an extracted term, for static_asserts and explain:
// leaves as `#slot(i,j)`, renamed binders as `k_07`, constants as integers when they are
// (rewrite/saturation/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_SATURATION_PRINT_HPP
#define LOOM_REWRITE_SATURATION_PRINT_HPP

// ---- begin <loom/rewrite/saturation/rebuild.hpp>
// Defines the way back from an extracted term to an expression: the term's operators become
// expr nodes over the original leaves (tensor pointers, literal values, map functions), bound
// indices keep their names unless two binders would share one (rewrite/saturation/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_SATURATION_REBUILD_HPP
#define LOOM_REWRITE_SATURATION_REBUILD_HPP


#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>

namespace loom::rewrite::saturation {

namespace detail {

constexpr bool encloses(const term& t, id_t k, id_t target) {
  if (k == target) return true;
  const enode& n = t.nodes[k];
  return (n.a != no_id && encloses(t, n.a, target)) || (n.b != no_id && encloses(t, n.b, target));
}

// Whether binder `id` of term t can take back the name it was renamed from: no sum of the same
// name encloses or is enclosed by one of its sums, and no free index of that name is in scope.
constexpr bool conflicts_below(const term& t, id_t k, std::uint8_t id, std::uint8_t base) {
  const enode& n = t.nodes[k];
  if (n.k == kind::sum && n.index != id && t.sig.base[t.sig.original[n.index]] == base) return true;
  if (n.k == kind::leaf) {
    const leaf_info& l = t.sig.leaves[n.slot];
    for (std::size_t m = 0; m < l.order; ++m)
      if (l.ids[m] < t.sig.original_count && t.sig.base[l.ids[m]] == base) return true;
  }
  return (n.a != no_id && conflicts_below(t, n.a, id, base)) ||
         (n.b != no_id && conflicts_below(t, n.b, id, base));
}
constexpr bool keeps_name(const term& t, std::uint8_t id) {
  const std::uint8_t base = t.sig.base[t.sig.original[id]];
  for (std::size_t k = 0; k < t.size; ++k) {
    const enode& n = t.nodes[k];
    if (n.k != kind::sum) continue;
    const bool same = t.sig.base[t.sig.original[n.index]] == base;
    if (n.index == id && conflicts_below(t, n.a, id, base)) return false;
    if (n.index != id && same) {  // a same-named sum enclosing a sum of id
      for (std::size_t m = 0; m < t.size; ++m)
        if (t.nodes[m].k == kind::sum && t.nodes[m].index == id &&
            encloses(t, n.a, static_cast<id_t>(m)))
          return false;
    }
  }
  return true;
}

// Source: a type with `static constexpr term value`, `using expression = E` and
// `using indices` (original index id -> type).
template <class Source, std::size_t Id>
constexpr auto index_type() {
  using orig = typename Source::indices;
  constexpr const term& t = Source::value;
  using O = boost::mp11::mp_at_c<orig, t.sig.original[Id]>;
  if constexpr (Id < t.sig.original_count) return O{};
  else if constexpr (keeps_name(t, Id)) return base_index_t<O>{};
  else return loom::index<numbered_name<base_index_t<O>, Id, '_'>()>{};
}
template <class Source, std::size_t Id>
using index_t = decltype(index_type<Source, Id>());

template <class Source, class Leaf, class Seq>
struct renamed_access;
template <class Source, class T, class... Is, std::size_t... Ms>
struct renamed_access<Source, expr::access<T, Is...>, std::index_sequence<Ms...>> {
  using type = expr::access<T, index_t<Source, Source::value.sig.leaves[Source::slot_].ids[Ms]>...>;
};

template <class Source, std::size_t Slot>
struct at_slot : Source {
  static constexpr std::size_t slot_ = Slot;
};

template <class Source, std::size_t Node, class Leaves>
constexpr auto build(const Leaves& leaves) {
  constexpr const term& t = Source::value;
  constexpr enode n = t.nodes[Node];
  using V = expr::value_type_t<typename Source::expression>;
  if constexpr (n.k == kind::leaf) {
    const auto& leaf = std::get<t.sig.leaves[n.slot].source>(leaves);
    using L = std::remove_cvref_t<decltype(leaf)>;
    if constexpr (requires { leaf.tensor; }) {
      using A = typename renamed_access<at_slot<Source, n.slot>, L,
                                        std::make_index_sequence<t.sig.leaves[n.slot].order>>::type;
      return A{leaf.tensor};
    } else {
      return leaf;
    }
  } else if constexpr (n.k == kind::constant) {
    return expr::literal<V>{static_cast<V>(n.value)};
  } else if constexpr (n.k == kind::add) {
    auto a = build<Source, n.a>(leaves);
    auto b = build<Source, n.b>(leaves);
    return expr::add<decltype(a), decltype(b)>{a, b};
  } else if constexpr (n.k == kind::mul) {
    auto a = build<Source, n.a>(leaves);
    auto b = build<Source, n.b>(leaves);
    if constexpr (t.nodes[n.a].k == kind::constant && t.nodes[n.a].value == -1.0) {
      return expr::map<fn::negate, decltype(b)>{fn::negate{}, std::tuple{b}};  // -x, not (-1) * x
    } else {
      return expr::mul<decltype(a), decltype(b)>{a, b};
    }
  } else if constexpr (n.k == kind::sum) {
    auto a = build<Source, n.a>(leaves);
    return expr::sum<index_t<Source, n.index>, decltype(a)>{a};
  } else if constexpr (n.k == kind::opaque1) {
    const auto& m = std::get<n.slot>(leaves);
    auto a = build<Source, n.a>(leaves);
    using F = std::remove_cvref_t<decltype(m.f)>;
    return expr::map<F, decltype(a)>{m.f, std::tuple{a}};
  } else {
    const auto& m = std::get<n.slot>(leaves);
    auto a = build<Source, n.a>(leaves);
    auto b = build<Source, n.b>(leaves);
    using F = std::remove_cvref_t<decltype(m.f)>;
    return expr::map<F, decltype(a), decltype(b)>{m.f, std::tuple{a, b}};
  }
}

}  // namespace detail

/// The expression of the term `Source::value` (Source: `static constexpr term value`,
/// `using expression = E`) over the leaves of `e` (an E).
template <class Source, class E>
constexpr auto rebuild(const E& e) {
  return detail::build<Source, Source::value.root>(collect_leaves(e));
}

}  // namespace loom::rewrite::saturation

#endif  // LOOM_REWRITE_SATURATION_REBUILD_HPP
// ---- end <loom/rewrite/saturation/rebuild.hpp>

#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>
#include <string_view>

namespace loom::rewrite::saturation {

/// A fixed-capacity constexpr string.
struct text {
  std::array<char, 2048> chars{};
  std::size_t size = 0;
  constexpr void put(std::string_view s) {
    for (char c : s)
      if (size < chars.size()) chars[size++] = c;
  }
  constexpr void put(long long v) {
    if (v < 0) {
      put("-");
      v = -v;
    }
    char digits[24]{};
    std::size_t n = 0;
    do digits[n++] = static_cast<char>('0' + v % 10);
    while ((v /= 10) > 0);
    while (n > 0) put(std::string_view(&digits[--n], 1));
  }
  constexpr std::string_view view() const { return {chars.data(), size}; }
};

namespace detail {
struct printer {
  const term& t;
  std::array<std::string_view, max_indices> names{};

  constexpr void index(text& out, std::uint8_t id) const {
    out.put(names[t.sig.base[t.sig.original[id]]]);
    if (id >= t.sig.original_count && !keeps_name(t, id)) {
      out.put("_");
      out.put(static_cast<long long>(id));
    }
  }
  constexpr void node(text& out, id_t k) const {
    const enode& n = t.nodes[k];
    switch (n.k) {
      case kind::leaf: {
        const leaf_info& l = t.sig.leaves[n.slot];
        out.put("#");
        out.put(static_cast<long long>(l.source));
        if (l.scalar) return;
        out.put("(");
        for (std::size_t m = 0; m < l.order; ++m) {
          if (m > 0) out.put(",");
          index(out, l.ids[m]);
        }
        out.put(")");
        return;
      }
      case kind::constant:
        if (n.value == static_cast<double>(static_cast<long long>(n.value))) out.put(static_cast<long long>(n.value));
        else out.put("c");
        return;
      case kind::add:
      case kind::mul:
        out.put("(");
        node(out, n.a);
        out.put(n.k == kind::add ? " + " : " * ");
        node(out, n.b);
        out.put(")");
        return;
      case kind::sum:
        out.put("sum(");
        index(out, n.index);
        out.put(", ");
        node(out, n.a);
        out.put(")");
        return;
      default:
        out.put("f#");
        out.put(static_cast<long long>(n.slot));
        out.put("(");
        node(out, n.a);
        if (n.k == kind::opaque2) {
          out.put(", ");
          node(out, n.b);
        }
        out.put(")");
        return;
    }
  }
};
}  // namespace detail

/// The text of `t`, index names taken from Indices (original index id -> type).
template <class Indices>
constexpr text print(const term& t) {
  detail::printer p{t};
  std::size_t k = 0;
  boost::mp11::mp_for_each<boost::mp11::mp_transform<std::type_identity, Indices>>(
      [&](auto i) { p.names[k++] = detail::base_index_t<typename decltype(i)::type>::name; });
  text out;
  if (t.root != no_id) p.node(out, t.root);
  return out;
}

/// The text of alternative K of a saturation_result R.
template <class R, std::size_t K = 0>
constexpr text print_alternative() {
  return print<typename R::indices>(R::template candidate<R::pick.first[K]>);
}

}  // namespace loom::rewrite::saturation

#endif  // LOOM_REWRITE_SATURATION_PRINT_HPP
// ---- end <loom/rewrite/saturation/print.hpp>
// ---- begin <loom/rewrite/saturation/rules.hpp>
// Defines one saturation iteration over an egraph: every SPORES rule (notes 004 §3.1, §3.4)
// matched against the nodes present at the start of the iteration, then the congruence rebuild
// (rewrite/saturation/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_SATURATION_RULES_HPP
#define LOOM_REWRITE_SATURATION_RULES_HPP


#include <array>
#include <cstddef>
#include <cstdint>

#ifndef LOOM_SATURATION_MAX_WORK
// Rule matches per iteration (member visits and applications): one iteration is one constant
// evaluation, and clang allows 2^20 steps per constant without -fconstexpr-steps.
#  define LOOM_SATURATION_MAX_WORK 8000
#endif

namespace loom::rewrite::saturation {

// The rules, as equations between classes (a, b, c classes; i an index):
//   commute       a * b = b * a                 a + b = b + a
//   associate     (a * b) * c = a * (b * c)     (a + b) + c = a + (b + c)       (both ways)
//   distribute    a * (b + c) = a * b + a * c   factor: a * b + a * c = a * (b + c)
//   push / pull   sum(i, a * b) = a * sum(i, b)                        if i not in a
//   split / join  sum(i, a + b) = sum(i, a) + sum(i, b)                if i in a and in b
//   swap          sum(i, sum(j, a)) = sum(j, sum(i, a))
//   constants     a + a = 2 * a;  c1 * c2 = c;  1 * a = a;  c1 * a + c2 * a = (c1 + c2) * a
// Rule 5 (a sum over an absent index is a product by the extent) is left out: the evaluator
// would need the extent of an index no operand carries.

namespace detail {

template <std::size_t Max>
struct matcher {
  egraph<Max>& g;
  std::array<id_t, Max> head{};  // first node of each class (by representative)
  std::array<id_t, Max> next{};
  std::size_t limit = 0;         // nodes present when the iteration started
  std::size_t ac_budget = Max / 8;
  std::size_t work_budget = LOOM_SATURATION_MAX_WORK;
  std::size_t work = 0;  // member visits and rule applications: bounds one constant evaluation
  bool changed = false;
  bool partial = false;  // the work bound stopped the iteration before every node was matched

  constexpr void index_classes() {
    for (auto& h : head) h = no_id;
    limit = g.size;
    for (std::size_t n = limit; n-- > 0;) {
      if (g.dead[n]) continue;
      const id_t c = g.find(static_cast<id_t>(n));
      next[n] = head[c];
      head[c] = static_cast<id_t>(n);
    }
  }

  constexpr id_t node(kind k, id_t a, id_t b, std::uint8_t index = 0) {
    if (a == no_id || b == no_id) return no_id;
    return g.add({k, index, a, (k == kind::sum ? no_id : b), 0, 0});
  }
  constexpr id_t mul(id_t a, id_t b) { return node(kind::mul, a, b); }
  constexpr id_t plus(id_t a, id_t b) { return node(kind::add, a, b); }
  constexpr id_t sum(std::uint8_t i, id_t a) { return node(kind::sum, a, a, i); }

  constexpr void equate(id_t c, id_t d) {
    ++work;
    if (d != no_id) changed = g.merge(c, d) || changed;
  }
  constexpr bool uses(id_t c, std::uint8_t i) const {
    return ((g.free[g.find(c)] | g.bound[g.find(c)]) >> i) & 1u;
  }
  constexpr bool has_free(id_t c, std::uint8_t i) const { return (g.free[g.find(c)] >> i) & 1u; }

  // the members of class c (as it was indexed) of kind k
  template <class F>
  constexpr void each(id_t c, kind k, F&& f) {
    c = g.find(c);
    if (c >= limit) return;
    for (id_t m = head[c]; m != no_id; m = next[m]) {
      ++work;
      if (g.nodes[m].k == k) f(g.nodes[m]);
    }
  }

  // commutativity and associativity: what enables the other rules, and what grows the graph
  // fastest; run after them, each iteration at most `ac_budget` new nodes (notes 004 §4.4)
  constexpr void ac_mul(id_t self, const enode& n) {
    const id_t a = n.a, b = n.b;
    each(a, kind::mul, [&](const enode& s) {  // (x * y) * b = x * (y * b)
      equate(self, mul(s.a, mul(s.b, b)));
    });
    each(b, kind::mul, [&](const enode& s) {  // a * (x * y) = (a * x) * y
      equate(self, mul(mul(a, s.a), s.b));
    });
    equate(self, mul(b, a));
  }
  constexpr void ac_add(id_t self, const enode& n) {
    const id_t a = n.a, b = n.b;
    each(a, kind::add, [&](const enode& s) { equate(self, plus(s.a, plus(s.b, b))); });
    each(b, kind::add, [&](const enode& s) { equate(self, plus(plus(a, s.a), s.b)); });
    equate(self, plus(b, a));
  }

  constexpr void at_mul(id_t self, const enode& n) {
    const id_t a = n.a, b = n.b;
    // constants: folded, and the unit dropped
    if (g.is_constant[g.find(a)] && g.is_constant[g.find(b)])
      equate(self, g.add_constant(g.constant[g.find(a)] * g.constant[g.find(b)]));
    if (g.is_constant[g.find(a)] && g.constant[g.find(a)] == 1.0) equate(self, b);
    each(b, kind::sum, [&](const enode& s) {  // pull: a * sum(i, x) = sum(i, a * x)
      if (!uses(a, s.index)) equate(self, sum(s.index, mul(a, s.a)));
    });
    each(b, kind::add, [&](const enode& s) {  // distribute
      equate(self, plus(mul(a, s.a), mul(a, s.b)));
    });
  }

  constexpr void at_add(id_t self, const enode& n) {
    const id_t a = n.a, b = n.b;
    if (g.find(a) == g.find(b)) equate(self, mul(g.add_constant(2), a));
    if (g.is_constant[g.find(a)] && g.is_constant[g.find(b)])
      equate(self, g.add_constant(g.constant[g.find(a)] + g.constant[g.find(b)]));
    each(a, kind::mul, [&](const enode& x) {  // factor: p * q + p * r = p * (q + r)
      each(b, kind::mul, [&](const enode& y) {
        if (g.find(x.a) == g.find(y.a)) equate(self, mul(x.a, plus(x.b, y.b)));
      });
    });
    each(a, kind::sum, [&](const enode& x) {  // join: sum(i, p) + sum(i, q) = sum(i, p + q)
      each(b, kind::sum, [&](const enode& y) {
        if (x.index == y.index) equate(self, sum(x.index, plus(x.a, y.a)));
      });
    });
  }

  constexpr void at_sum(id_t self, const enode& n) {
    const std::uint8_t i = n.index;
    each(n.a, kind::mul, [&](const enode& s) {  // push: sum(i, p * q) = p * sum(i, q)
      if (!has_free(s.a, i)) equate(self, mul(s.a, sum(i, s.b)));
    });
    each(n.a, kind::add, [&](const enode& s) {  // split
      if (has_free(s.a, i) && has_free(s.b, i)) equate(self, plus(sum(i, s.a), sum(i, s.b)));
    });
    each(n.a, kind::sum, [&](const enode& s) {  // swap
      equate(self, sum(s.index, sum(i, s.a)));
    });
  }

  // Matching starts where the previous iteration's work bound stopped it (round robin), so
  // that no node starves when an iteration cannot visit them all.
  constexpr void run() {
    index_classes();
    const std::size_t start = g.cursor < limit ? g.cursor : 0;
    std::size_t t = 0;
    for (; t < limit && !g.node_limit_hit && work < work_budget; ++t) {
      const std::size_t c = (start + t) % limit;
      if (g.dead[c]) continue;
      const enode n = g.nodes[c];
      const id_t self = static_cast<id_t>(c);
      if (n.k == kind::mul) at_mul(self, n);
      else if (n.k == kind::add) at_add(self, n);
      else if (n.k == kind::sum) at_sum(self, n);
    }
    partial = t < limit;
    g.cursor = (start + t) % limit;
    const std::size_t budget = g.size + ac_budget;
    const std::size_t ac_work = work + work_budget / 2;
    const std::size_t ac_start = g.ac_cursor < limit ? g.ac_cursor : 0;
    std::size_t u = 0;
    for (; u < limit && !g.node_limit_hit && g.size < budget && work < ac_work; ++u) {
      const std::size_t c = (ac_start + u) % limit;
      if (g.dead[c]) continue;
      const enode n = g.nodes[c];
      if (n.k == kind::mul) ac_mul(static_cast<id_t>(c), n);
      else if (n.k == kind::add) ac_add(static_cast<id_t>(c), n);
    }
    partial = partial || u < limit;
    g.ac_cursor = (ac_start + u) % limit;
    if (work > g.max_work) g.max_work = work;
    changed = changed || g.size != limit;
  }
};

}  // namespace detail

/// Half an iteration, alternately: every rule at the nodes present (`matched`), then the
/// congruence rebuild, which marks `saturated` when the matching changed nothing. Two constants
/// per iteration, so each has the compiler's whole evaluation budget.
template <std::size_t Max>
constexpr egraph<Max> step(egraph<Max> g) {
  if (g.saturated || !g.supported) return g;
  if (!g.matched) {
    if (g.node_limit_hit) return g;
    detail::matcher<Max> m{g};
    m.run();
    g.matched = true;
    g.changed = m.changed || m.partial;
  } else {
    g.rebuild();
    g.matched = false;
    if (g.changed) ++g.iterations;
    else g.saturated = true;
  }
  return g;
}

}  // namespace loom::rewrite::saturation

#endif  // LOOM_REWRITE_SATURATION_RULES_HPP
// ---- end <loom/rewrite/saturation/rules.hpp>
// ---- begin <loom/rewrite/saturation/saturate.hpp>
// Defines loom::rewrite::saturate(e): equality saturation of e's sum-product form in constant
// evaluation, the cheapest term by static cost rebuilt as an expression; the bounded set of
// alternatives whose ranking needs run-time sizes, the run-time choice among them, and the
// saturation report `explain` prints (rewrite/saturation/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_SATURATION_SATURATE_HPP
#define LOOM_REWRITE_SATURATION_SATURATE_HPP


#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#ifndef LOOM_SATURATION_MAX_ALTERNATIVES
#  define LOOM_SATURATION_MAX_ALTERNATIVES 4
#endif

namespace loom::rewrite {

/// Bounds of one saturation: nodes of the e-graph, rule iterations, alternatives kept.
template <std::size_t MaxNodes = LOOM_SATURATION_MAX_NODES,
          std::size_t MaxIterations = LOOM_SATURATION_MAX_ITERATIONS,
          std::size_t MaxAlternatives = LOOM_SATURATION_MAX_ALTERNATIVES>
struct saturation_limits {
  static constexpr std::size_t max_nodes = MaxNodes;
  static constexpr std::size_t max_iterations = MaxIterations;
  static constexpr std::size_t max_alternatives = MaxAlternatives;
};

namespace saturation {

// The seed: E's sum-product normal form (the rule engine's, over E's operands named by slot),
// put in E's class before the first iteration, so the expanded terms are there from the start
// and the node budget goes to factorising them. None when E holds an opaque map.
template <class E, class Tagged = tagged_t<E>>
struct seed {
  using type = void;
};
template <class E, class Tagged>
  requires(!std::is_void_v<Tagged>)
struct seed<E, Tagged> {
  using apart = renamed_apart_t<Tagged>;
  using normal = rewrite_t<apart, sum_product_normal_form>;
  using type = std::conditional_t<
      boost::mp11::mp_empty<boost::mp11::mp_set_difference<expr::all_indices_t<normal>,
                                                          expr::all_indices_t<apart>>>::value,
      normal, void>;
};
template <class E>
using seed_t = typename seed<E>::type;

// Each iteration is its own constant (own evaluation budget: clang's -fconstexpr-steps counts
// per constant), and a saturated graph is copied unchanged.
template <class E, std::size_t Max, std::size_t K>
inline constexpr egraph<Max> graph_v = step(graph_v<E, Max, K - 1>);
template <class E, std::size_t Max>
inline constexpr egraph<Max> graph_v<E, Max, 0> = encode<E, Max, seed_t<E>>();

template <class E, class F, std::size_t Max, std::size_t K>
inline constexpr egraph<Max> pair_v = step(pair_v<E, F, Max, K - 1>);
template <class E, class F, std::size_t Max>
inline constexpr egraph<Max> pair_v<E, F, Max, 0> = encode_pair<E, F, Max>();

/// The scenarios alternatives are extracted under: the default; dense data; very sparse data
/// with thin dense factors (indices only dense operands use are short); dense data, thin factors.
inline constexpr std::size_t scenario_count = 4;
constexpr scenario scenario_at(const signature& s, std::size_t k) {
  switch (k) {
    case 0: return default_scenario(s);
    case 1: return default_scenario(s, 1.0);
    case 2: return default_scenario(s, 1e-4, 16, 1e5);
    default: return default_scenario(s, 1.0, 16, 1e4);
  }
}

template <class E, class Limits>
struct result {
  using expression = E;
  using indices = seeded_indices_t<E, seed_t<E>>;
  static constexpr const egraph<Limits::max_nodes>& graph =
      graph_v<E, Limits::max_nodes, 2 * Limits::max_iterations>;
  static constexpr signature sig = signature_of(graph);
  template <std::size_t K>
  static constexpr term candidate = extract(graph, scenario_at(sig, K));

  // distinct candidates, the default first, at most max_alternatives
  static constexpr auto pick = [] {
    const std::array<term, scenario_count> all{candidate<0>, candidate<1>, candidate<2>, candidate<3>};
    std::array<std::size_t, scenario_count> which{};
    std::size_t n = 0;
    for (std::size_t k = 0; k < scenario_count && n < Limits::max_alternatives; ++k) {
      bool seen = all[k].root == no_id;
      for (std::size_t j = 0; j < n; ++j) seen = seen || all[which[j]] == all[k];
      if (!seen) which[n++] = k;
    }
    return std::pair{which, n};
  }();
  static constexpr std::size_t alternative_count = pick.second;
  static constexpr bool usable = graph.supported && alternative_count > 0;
  static constexpr double static_cost = usable ? cost(candidate<0>, scenario_at(sig, 0)) : 0;
};

// the term of alternative K as a rebuild source
template <class R, std::size_t K>
struct alternative_source {
  using expression = typename R::expression;
  using indices = typename R::indices;
  static constexpr const term& value = R::template candidate<R::pick.first[K]>;
};

}  // namespace saturation

/// The saturation of E under Limits: the e-graph, the extracted terms, the report.
template <class E, class Limits = saturation_limits<>>
using saturation_result = saturation::result<E, Limits>;

/// Whether saturation puts E and F in one e-class (so they are equal on every input). Operands
/// are named across both by accesses of `saturation::slot_tag<N, Tensor>` types. False proves
/// nothing: the search is bounded (and the rule set needs bound names renamed alike).
template <class E, class F, class Limits = saturation_limits<>>
inline constexpr bool equivalent_v = [] {
  const auto& g = saturation::pair_v<E, F, Limits::max_nodes, 2 * Limits::max_iterations>;
  return g.supported && g.find(g.root) == g.find(g.other);
}();

/// `e` rewritten by equality saturation: the cheapest term under the static cost, as an
/// expression over e's tensors. `e` itself when it holds nodes the e-graph does not model
/// (where, expand) or exceeds its capacities.
template <class Limits = saturation_limits<>, class E>
constexpr auto saturate(const E& e) {
  using R = saturation_result<E, Limits>;
  if constexpr (!R::usable) return e;
  else return saturation::rebuild<saturation::alternative_source<R, 0>>(e);
}

/// Alternative K (K < saturation_result<E>::alternative_count) as an expression over e's tensors.
template <std::size_t K, class Limits = saturation_limits<>, class E>
constexpr auto saturate_alternative(const E& e) {
  using R = saturation_result<E, Limits>;
  static_assert(K < R::alternative_count,
                "loom::rewrite::saturate_alternative: no such alternative; "
                "ask for K < saturation_result<E>::alternative_count");
  return saturation::rebuild<saturation::alternative_source<R, K>>(e);
}

namespace saturation {
template <class Leaves, std::size_t... Ss>
scenario measured(const signature& sig, const Leaves& leaves, std::index_sequence<Ss...>) {
  scenario sc = scenario_at(sig, 0);
  auto one = [&](std::size_t source, const auto& leaf) {
    if constexpr (requires { leaf.tensor->shape(); leaf.tensor->nnz(); }) {
      const auto& t = *leaf.tensor;
      for (std::size_t s = 0; s < sig.leaf_count; ++s) {
        if (sig.leaves[s].source != source) continue;
        double size = 1;
        for (std::size_t m = 0; m < sig.leaves[s].order; ++m) {
          const auto e = static_cast<double>(t.shape()[m]);
          sc.extent[sig.original[sig.leaves[s].ids[m]]] = e;
          size *= e;
        }
        sc.density[s] = size > 0 ? static_cast<double>(t.nnz()) / size : 0.0;
      }
    }
  };
  (one(Ss, std::get<Ss>(leaves)), ...);
  return sc;
}
}  // namespace saturation

/// The run-time choice among the alternatives: each one's cost under the tensors' extents and
/// densities (shape and nnz: the statistics the Figure 12 estimator reads), and the cheapest.
struct saturation_choice {
  std::size_t chosen = 0;
  std::vector<double> costs;
};

template <class Limits = saturation_limits<>, class E>
saturation_choice choose_alternative(const E& e) {
  using R = saturation_result<E, Limits>;
  saturation_choice c;
  if constexpr (R::usable) {
    const auto leaves = saturation::collect_leaves(e);
    const saturation::scenario sc = saturation::measured(
        R::sig, leaves, std::make_index_sequence<std::tuple_size_v<decltype(leaves)>>{});
    [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      (c.costs.push_back(saturation::cost(saturation::alternative_source<R, Ks>::value, sc)), ...);
    }(std::make_index_sequence<R::alternative_count>{});
    for (std::size_t k = 1; k < c.costs.size(); ++k)
      if (c.costs[k] < c.costs[c.chosen]) c.chosen = k;
  }
  return c;
}

/// Calls `f` with the alternative of `e` that is cheapest for the tensors it reads (a switch
/// over the instantiated alternatives); returns what f returns (the same type for every one).
template <class Limits = saturation_limits<>, class E, class F>
decltype(auto) with_cheapest(const E& e, F&& f) {
  using R = saturation_result<E, Limits>;
  if constexpr (!R::usable) {
    return f(e);
  } else {
    const saturation_choice choice = choose_alternative<Limits>(e);
    const std::size_t k = choice.chosen;
#ifdef LOOM_DEBUG_PLAN
    std::clog << "loom saturation: alternative " << k << " of " << choice.costs.size() << ", costs";
    for (double c : choice.costs) std::clog << ' ' << c;
    std::clog << '\n';
#endif
    return [&]<std::size_t... Ks>(std::index_sequence<Ks...>) -> decltype(auto) {
      using out = decltype(f(saturate<Limits>(e)));
      if constexpr (std::is_void_v<out>) {
        (void)((k == Ks ? (f(saturate_alternative<Ks, Limits>(e)), true) : false) || ...);
      } else {
        out r{};
        (void)((k == Ks ? (r = f(saturate_alternative<Ks, Limits>(e)), true) : false) || ...);
        return r;
      }
    }(std::make_index_sequence<R::alternative_count>{});
  }
}

/// The saturation line of `explain`: e-graph size, iterations, limits hit, extracted cost.
template <class Limits = saturation_limits<>, class E>
std::string explain_saturation(const E&) {
  using R = saturation_result<E, Limits>;
  if constexpr (!R::graph.supported) {
    return "saturation: not applied (a node the e-graph does not model)";
  } else {
    const auto& g = R::graph;
    std::string s = "saturation: e-graph " + std::to_string(g.size) + " nodes, " +
                    std::to_string(g.class_count()) + " classes, " + std::to_string(g.iterations) +
                    " iterations, ";
    s += g.saturated ? "saturated" : g.node_limit_hit ? "node limit hit" : "iteration limit hit";
    char cost[32];
    std::snprintf(cost, sizeof cost, "%.4g", R::static_cost);
    s += ", extracted cost " + std::string(cost) + ", " + std::to_string(R::alternative_count) +
         " alternative(s)";
    return s;
  }
}

}  // namespace loom::rewrite

#endif  // LOOM_REWRITE_SATURATION_SATURATE_HPP
// ---- end <loom/rewrite/saturation/saturate.hpp>

#endif  // LOOM_REWRITE_SATURATION_HPP
// ---- end <loom/rewrite/saturation.hpp>

#endif  // LOOM_REWRITE_HPP
// ---- end <loom/rewrite.hpp>
// ---- begin <loom/stream.hpp>
// Umbrella header of stream/: indexed streams, combinators, lowering, run loops, evaluation.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_STREAM_HPP
#define LOOM_STREAM_HPP


#endif  // LOOM_STREAM_HPP
// ---- end <loom/stream.hpp>
// ---- begin <loom/tra.hpp>
// Tiled tensors and the tensor relational algebra (tra/): relations of dense tiles, the TRA
// operators, the IA plans with rules R1-x and R2-x, the cost model and the matmul strategies.
// MPI execution is separate: <loom/tra/mpi.hpp>.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_HPP
#define LOOM_TRA_HPP

// ---- begin <loom/tra/convert.hpp>
// Defines the conversions between loom tensors (any format, views too) and tiled tensors, i.e.
// relations whose key grid has the tensor's order: to_tiled and from_tiled (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_CONVERT_HPP
#define LOOM_TRA_CONVERT_HPP

// ---- begin <loom/tra/relation.hpp>
// Defines loom::tra::relation<T, K, R>: a tensor relation, the set of (key, tile) pairs of the
// TRA paper (notes 003 §2.1), with its key bounds, tile shape and integrity checks (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_RELATION_HPP
#define LOOM_TRA_RELATION_HPP

// ---- begin <loom/tra/tile.hpp>
// Defines loom::tra::tile<T, R>: a dense row-major array of rank R, the value of a tensor
// relation, and its loom views (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_TILE_HPP
#define LOOM_TRA_TILE_HPP


#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace loom::tra {

template <std::size_t R>
using shape_t = std::array<std::int64_t, R>;

template <std::size_t R>
constexpr std::int64_t volume(const shape_t<R>& s) {
  std::int64_t v = 1;
  for (auto e : s) v *= e;
  return v;
}

template <std::size_t R>
std::string to_string(const shape_t<R>& s) {
  std::string out = "(";
  for (std::size_t d = 0; d < R; ++d) out += (d ? "," : "") + std::to_string(s[d]);
  return out + ")";
}

/// A dense tile of rank R (the paper's array of type T^(r,b)), row-major: dimension 0 is the
/// outermost (rows of a matrix tile), dimension R-1 is contiguous.
template <class T, std::size_t R>
class tile {
 public:
  using value_type = T;
  static constexpr std::size_t rank = R;
  using shape_type = shape_t<R>;

  tile() = default;
  /// An all-zero tile.
  explicit tile(const shape_type& shape)
      : shape_(shape), data_(static_cast<std::size_t>(checked_volume(shape)),
                             semiring_traits<T>::zero()) {}
  tile(const shape_type& shape, std::vector<T> data) : shape_(shape), data_(std::move(data)) {
    if (static_cast<std::int64_t>(data_.size()) != checked_volume(shape))
      throw shape_error("loom::tra::tile: " + std::to_string(data_.size()) +
                        " values for a tile of shape " + to_string(shape));
  }

  const shape_type& shape() const { return shape_; }
  std::int64_t extent(std::size_t d) const { return shape_[d]; }
  std::int64_t size() const { return static_cast<std::int64_t>(data_.size()); }
  std::span<const T> data() const { return data_; }
  std::span<T> data() { return data_; }

  template <std::integral... Is>
    requires(sizeof...(Is) == R)
  T& operator()(Is... is) {
    return data_[offset({static_cast<std::int64_t>(is)...})];
  }
  template <std::integral... Is>
    requires(sizeof...(Is) == R)
  const T& operator()(Is... is) const {
    return data_[offset({static_cast<std::int64_t>(is)...})];
  }

  /// A loom view over this tile's buffer (format dense_n<R>, zero copies).
  auto view() { return make_view<T>(data_.data()); }
  auto view() const { return make_view<const T>(data_.data()); }
  /// A view whose dense levels carry the static extents B... (checked against the shape here):
  /// loom then rejects, at compile time, index notation whose extents disagree.
  template <std::size_t... B>
    requires(sizeof...(B) == R)
  auto static_view() {
    return make_static_view<T, B...>(data_.data());
  }
  template <std::size_t... B>
    requires(sizeof...(B) == R)
  auto static_view() const {
    return make_static_view<const T, B...>(data_.data());
  }

  friend bool operator==(const tile& a, const tile& b) {
    return a.shape_ == b.shape_ && a.data_ == b.data_;
  }

 private:
  static std::int64_t checked_volume(const shape_type& s) {
    for (std::size_t d = 0; d < R; ++d)
      if (s[d] < 0)
        throw shape_error("loom::tra::tile: extent " + std::to_string(s[d]) + " of dimension " +
                          std::to_string(d) + " is negative");
    return volume(s);
  }
  std::size_t offset(const shape_type& c) const {
    std::int64_t o = 0;
    for (std::size_t d = 0; d < R; ++d) o = o * shape_[d] + c[d];
    return static_cast<std::size_t>(o);
  }
  template <class U>
  auto make_view(U* p) const {
    using fmt = dense_n<R>;
    typename loom::view<U, fmt>::level_storages levels{};
    [&]<std::size_t... D>(std::index_sequence<D...>) {
      ((std::get<D>(levels).extent = shape_[D]), ...);
    }(std::make_index_sequence<R>{});
    return loom::view<U, fmt>(shape_, levels, std::span<U>(p, data_.size()));
  }

  template <class U, std::size_t... B>
  auto make_static_view(U* p) const {
    using fmt = format<dense_level<B>...>;
    if (shape_ != shape_type{static_cast<std::int64_t>(B)...})
      throw shape_error("loom::tra::tile::static_view: the tile has shape " + to_string(shape_) +
                        ", not " + to_string(shape_type{static_cast<std::int64_t>(B)...}));
    typename loom::view<U, fmt>::level_storages levels{};
    [&]<std::size_t... D>(std::index_sequence<D...>) {
      ((std::get<D>(levels).extent = shape_[D]), ...);
    }(std::make_index_sequence<R>{});
    return loom::view<U, fmt>(shape_, levels, std::span<U>(p, data_.size()));
  }

  shape_type shape_{};
  std::vector<T> data_{};
};

/// A tile whose shape is part of its type (B...): products and sums of mismatched shapes do not
/// compile. Converts to and from `tile<T, R>` (the run-time shaped tile relations hold).
template <class T, std::size_t... B>
class static_tile {
 public:
  static constexpr std::size_t rank = sizeof...(B);
  static constexpr shape_t<rank> shape{static_cast<std::int64_t>(B)...};
  static_tile() : t_(shape) {}
  /// From a run-time shaped tile of the same shape (throws shape_error otherwise).
  explicit static_tile(tile<T, rank> t) : t_(std::move(t)) {
    if (t_.shape() != shape)
      throw shape_error("loom::tra::static_tile: a tile of shape " + to_string(t_.shape()) +
                        " is not " + to_string(shape));
  }
  const tile<T, rank>& dynamic() const { return t_; }
  tile<T, rank>& dynamic() { return t_; }
  template <std::integral... Is>
  T& operator()(Is... is) { return t_(is...); }
  template <std::integral... Is>
  const T& operator()(Is... is) const { return t_(is...); }
  auto view() { return t_.template static_view<B...>(); }
  auto view() const { return t_.template static_view<B...>(); }
  friend bool operator==(const static_tile& a, const static_tile& b) { return a.t_ == b.t_; }

 private:
  tile<T, rank> t_;
};

}  // namespace loom::tra

#endif  // LOOM_TRA_TILE_HPP
// ---- end <loom/tra/tile.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace loom::tra {

template <std::size_t K>
using key_array = std::array<std::int64_t, K>;

/// A tensor relation R^(k, r, b): keys of arity K below `bounds()` (0 <= key_d < bound_d), each
/// with one tile of rank R and the relation's common shape (notes §2.1: no ragged tiles).
/// Tuples are kept ordered by key; uniqueness (one tile per key) is enforced on insert.
template <class T, std::size_t K, std::size_t R>
class relation {
 public:
  using value_type = T;
  static constexpr std::size_t key_arity = K;
  static constexpr std::size_t rank = R;
  using key_type = key_array<K>;
  using tile_type = tile<T, R>;
  using map_type = std::map<key_type, tile_type>;

  relation() = default;
  relation(const key_type& bounds, const shape_t<R>& tile_shape)
      : bounds_(bounds), tile_shape_(tile_shape) {}

  const key_type& bounds() const { return bounds_; }
  const shape_t<R>& tile_shape() const { return tile_shape_; }
  std::int64_t size() const { return static_cast<std::int64_t>(tuples_.size()); }
  bool empty() const { return tuples_.empty(); }
  auto begin() const { return tuples_.begin(); }
  auto end() const { return tuples_.end(); }
  const map_type& tuples() const { return tuples_; }

  /// Adds (key, tile); throws on a key out of bounds, a tile of another shape, or a second tile
  /// for the same key (the uniqueness constraint).
  void insert(const key_type& key, tile_type t) {
    check_key(key, "insert");
    if (t.shape() != tile_shape_)
      throw shape_error("loom::tra::relation::insert: tile of shape " + to_string(t.shape()) +
                        " in a relation of tile shape " + to_string(tile_shape_));
    if (!tuples_.emplace(key, std::move(t)).second)
      throw duplicate_error("loom::tra::relation::insert: key " + to_string(key) +
                            " is already present (uniqueness)");
  }
  /// The tile of `key`, or nullptr.
  const tile_type* find(const key_type& key) const {
    auto it = tuples_.find(key);
    return it == tuples_.end() ? nullptr : &it->second;
  }
  tile_type* find(const key_type& key) {
    auto it = tuples_.find(key);
    return it == tuples_.end() ? nullptr : &it->second;
  }
  const tile_type& at(const key_type& key) const {
    if (auto* t = find(key)) return *t;
    throw shape_error("loom::tra::relation::at: no tile with key " + to_string(key));
  }
  /// Folds `t` into the tile of `key` with `op(existing, t)` (in place when op has
  /// `accumulate(existing, t)`), or inserts it when the key is new.
  template <class Op>
  void merge(const key_type& key, const tile_type& t, Op&& op) {
    check_key(key, "merge");
    auto it = tuples_.find(key);
    if (it == tuples_.end()) {
      tuples_.emplace(key, t);
    } else if constexpr (requires { op.accumulate(it->second, t); }) {
      op.accumulate(it->second, t);
    } else {
      it->second = op(it->second, t);
    }
  }
  /// The tile of `key`, inserted as all-zero when absent.
  tile_type& get_or_zero(const key_type& key) {
    check_key(key, "get_or_zero");
    return tuples_.try_emplace(key, tile_shape_).first->second;
  }

  /// Number of keys of the full box, prod bounds (the paper's Card under full-box keys).
  std::int64_t box_size() const { return volume(bounds_); }
  /// Every key of the box is present (stronger than continuity; notes §2.3).
  bool is_full_box() const { return size() == box_size(); }
  /// For every present key, every key' <= key is present ("no holes", notes §2.3).
  bool is_continuous() const {
    for (const auto& [key, t] : tuples_) {
      (void)t;
      key_type lo{};
      bool ok = true;
      for_each_key_below(key, lo, 0, ok);
      if (!ok) return false;
    }
    return true;
  }

  friend bool operator==(const relation& a, const relation& b) {
    return a.bounds_ == b.bounds_ && a.tile_shape_ == b.tile_shape_ && a.tuples_ == b.tuples_;
  }

 private:
  void check_key(const key_type& key, const char* who) const {
    for (std::size_t d = 0; d < K; ++d)
      if (key[d] < 0 || key[d] >= bounds_[d])
        throw shape_error(std::string("loom::tra::relation::") + who + ": key " + to_string(key) +
                          " is outside the bounds " + to_string(bounds_));
  }
  void for_each_key_below(const key_type& top, key_type& c, std::size_t d, bool& ok) const {
    if (!ok) return;
    if (d == K) {
      if (!tuples_.count(c)) ok = false;
      return;
    }
    for (c[d] = 0; c[d] <= top[d] && ok; ++c[d]) for_each_key_below(top, c, d + 1, ok);
  }

  key_type bounds_{};
  shape_t<R> tile_shape_{};
  map_type tuples_{};
};

}  // namespace loom::tra

#endif  // LOOM_TRA_RELATION_HPP
// ---- end <loom/tra/relation.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

namespace loom::tra {

/// A tiled tensor of order R: key <t_0, ..., t_{R-1}> holds the tile starting at coordinate
/// t_d * tile_shape_d. Edge tiles are padded with zeros (an explicit extension: the paper has no
/// ragged tiles); `shape` remembers the logical extents.
template <class T, std::size_t R>
struct tiled_tensor {
  relation<T, R, R> tiles;
  shape_t<R> shape{};
};

/// Which tiles `to_tiled` stores.
enum class empty_tiles {
  keep,  ///< every tile of the grid (a full box: Card = prod bounds, as the cost model assumes)
  drop   ///< only tiles holding a stored entry (block-sparse)
};

/// Tiles a loom tensor (any format) into tiles of `tile_shape`.
template <tensor_type Tensor>
auto to_tiled(const Tensor& t, const shape_t<Tensor::order>& tile_shape,
              empty_tiles policy = empty_tiles::keep) {
  constexpr std::size_t R = Tensor::order;
  using T = std::remove_const_t<typename Tensor::value_type>;
  key_array<R> bounds{};
  for (std::size_t d = 0; d < R; ++d) {
    if (tile_shape[d] <= 0)
      throw shape_error("loom::tra::to_tiled: tile extent " + std::to_string(tile_shape[d]) +
                        " of dimension " + std::to_string(d) + " must be positive");
    bounds[d] = (t.shape()[d] + tile_shape[d] - 1) / tile_shape[d];
  }
  tiled_tensor<T, R> out{relation<T, R, R>(bounds, tile_shape), t.shape()};
  std::map<key_array<R>, tile<T, R>> tiles;
  if (policy == empty_tiles::keep) {
    key_array<R> k{};
    const std::int64_t n = volume(bounds);
    for (std::int64_t f = 0; f < n; ++f) {
      std::int64_t r = f;
      for (std::size_t d = R; d-- > 0;) {
        k[d] = r % bounds[d];
        r /= bounds[d];
      }
      tiles.emplace(k, tile<T, R>(tile_shape));
    }
  }
  t.for_each_stored([&](const auto& c, const auto& v) {
    key_array<R> k{};
    std::int64_t off = 0;
    for (std::size_t d = 0; d < R; ++d) {
      k[d] = c[d] / tile_shape[d];
      off = off * tile_shape[d] + c[d] % tile_shape[d];
    }
    auto it = tiles.try_emplace(k, tile_shape).first;
    it->second.data()[static_cast<std::size_t>(off)] = v;
  });
  for (auto& [k, tl] : tiles) out.tiles.insert(k, std::move(tl));
  return out;
}

/// The loom tensor in `Format` holding a tiled tensor's entries (padding dropped; for sparse
/// formats, zeros are not stored).
template <storage_format Format, class T, std::size_t R>
tensor<T, Format> from_tiled(const tiled_tensor<T, R>& tt) {
  static_assert(Format::order == R, "loom::tra::from_tiled: the format's order must be the tensor's");
  std::vector<std::array<std::int64_t, R>> coords;
  std::vector<T> values;
  const auto& ts = tt.tiles.tile_shape();
  const std::int64_t n = volume(ts);
  for (const auto& [key, tl] : tt.tiles) {
    for (std::int64_t f = 0; f < n; ++f) {
      std::array<std::int64_t, R> c{};
      std::int64_t r = f;
      bool inside = true;
      for (std::size_t d = R; d-- > 0;) {
        c[d] = key[d] * ts[d] + r % ts[d];
        r /= ts[d];
        inside = inside && c[d] < tt.shape[d];
      }
      const T v = tl.data()[static_cast<std::size_t>(f)];
      if (!inside || (!Format::all_dense && v == semiring_traits<T>::zero())) continue;
      coords.push_back(c);
      values.push_back(v);
    }
  }
  return from_coo<Format>(tt.shape, coords, values);
}

}  // namespace loom::tra

#endif  // LOOM_TRA_CONVERT_HPP
// ---- end <loom/tra/convert.hpp>
// ---- begin <loom/tra/cost.hpp>
// Defines the TRA/IA cost model C = α·Cn + β·Cc (notes 003 §5), with the paper's formulas and
// the notes' corrections behind a policy, the four distributed matmul strategies, the choice
// among them and its `explain` text (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_COST_HPP
#define LOOM_TRA_COST_HPP

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace loom::tra {

/// `paper` reproduces the printed formulas (UT-11); `corrected` applies notes §5's fixes: Size
/// in bytes, SHUF moves (s-1)/s of the data, BCAST (s-1) copies, Σᴸ counts every aggOp call.
enum class cost_policy { paper, corrected };

struct cost_model {
  double alpha = 1.0;  // seconds (or units) per element/byte moved
  double beta = 0.0;   // seconds (or units) per flop
  std::int64_t sites = 1;
  cost_policy policy = cost_policy::paper;
  std::int64_t scalar_bytes = 8;

  /// Size(R) = prod key bounds x prod tile bounds (elements; bytes under `corrected`).
  double size(double tuples, double tile_volume) const {
    const double s = tuples * tile_volume;
    return policy == cost_policy::paper ? s : s * static_cast<double>(scalar_bytes);
  }
  double bcast(double size_r) const {
    const double s = static_cast<double>(sites);
    return policy == cost_policy::paper ? s * size_r : (s - 1) * size_r;
  }
  double shuf(double size_r) const {
    const double s = static_cast<double>(sites);
    return policy == cost_policy::paper ? size_r : size_r * (s - 1) / s;
  }
  /// Σᴸ compute: printed as prod_{i not in gbk} bounds x C_aggOp; corrected counts the calls.
  double aggregate(double all_keys, double group_keys, double c_agg) const {
    return policy == cost_policy::paper ? (all_keys / group_keys) * c_agg
                                        : (all_keys - group_keys) * c_agg;
  }
  double total(double cn, double cc) const { return alpha * cn + beta * cc; }
};

/// How an input matrix is already spread over the sites (the paper's D, with ∅ split into
/// `replicated` and `single`; notes §3.1).
enum class partitioning { none, rows, cols, replicated };

/// The four distributed matmul strategies of notes §4.3.
enum class matmul_strategy { broadcast_left, broadcast_right, cross_product, replicated_3d };

inline constexpr std::array<matmul_strategy, 4> all_matmul_strategies{
    matmul_strategy::broadcast_left, matmul_strategy::broadcast_right,
    matmul_strategy::cross_product, matmul_strategy::replicated_3d};

inline std::string_view name(matmul_strategy s) {
  switch (s) {
    case matmul_strategy::broadcast_left: return "broadcast left";
    case matmul_strategy::broadcast_right: return "broadcast right";
    case matmul_strategy::cross_product: return "cross product";
    case matmul_strategy::replicated_3d: return "replicated 3-D";
  }
  return "?";
}

/// X: I x K tiles, Y: K x J tiles, tiles m x k and k x n.
struct matmul_shape {
  std::int64_t I = 1, K = 1, J = 1;
  std::int64_t m = 1, k = 1, n = 1;
  partitioning x = partitioning::none, y = partitioning::none;
};

struct strategy_cost {
  matmul_strategy strategy{};
  double cn = 0;  // communication (elements or bytes)
  double cc = 0;  // compute (flops)
  double total = 0;
};

/// Cn and Cc of one strategy, from the key bounds alone (the paper's point: no statistics).
inline strategy_cost estimate(const cost_model& cm, const matmul_shape& sh, matmul_strategy st) {
  const double I = static_cast<double>(sh.I), K = static_cast<double>(sh.K),
               J = static_cast<double>(sh.J);
  const double size_x = cm.size(I * K, static_cast<double>(sh.m * sh.k));
  const double size_y = cm.size(K * J, static_cast<double>(sh.k * sh.n));
  const double join_card = I * K * J;  // I·K · K·J / K
  const double size_out = cm.size(join_card, static_cast<double>(sh.m * sh.n));
  const double c_proj = 2.0 * static_cast<double>(sh.m * sh.k * sh.n);
  const double c_agg = static_cast<double>(sh.m * sh.n);
  strategy_cost c{st, 0, 0, 0};
  c.cc = join_card * c_proj + cm.aggregate(join_card, I * J, c_agg);
  const bool x_rep = sh.x == partitioning::replicated, y_rep = sh.y == partitioning::replicated;
  switch (st) {
    case matmul_strategy::broadcast_left:
      // ⋈ᴸ(BCAST X, Y): output partitioned as Y; a column split of Y keeps groups <i,j> on one
      // site, so the SHUF<0,2> before Σᴸ is dropped (R2-4 after partition propagation).
      c.cn = (x_rep ? 0 : cm.bcast(size_x)) + (sh.y == partitioning::cols ? 0 : cm.shuf(size_out));
      break;
    case matmul_strategy::broadcast_right:
      c.cn = (y_rep ? 0 : cm.bcast(size_y)) + (sh.x == partitioning::rows ? 0 : cm.shuf(size_out));
      break;
    case matmul_strategy::cross_product:
      c.cn = (sh.x == partitioning::cols ? 0 : cm.shuf(size_x)) +
             (sh.y == partitioning::rows ? 0 : cm.shuf(size_y)) + cm.shuf(size_out);
      break;
    case matmul_strategy::replicated_3d:
      // X duplicated J times and Y I times, then shuffled by <i, j>; Σᴸ is then local.
      c.cn = cm.shuf(size_x * J) + cm.shuf(size_y * I);
      break;
  }
  c.total = cm.total(c.cn, c.cc);
  return c;
}

/// The cheapest strategy (ties go to the first in `all_matmul_strategies`).
inline strategy_cost choose(const cost_model& cm, const matmul_shape& sh) {
  strategy_cost best = estimate(cm, sh, all_matmul_strategies[0]);
  for (auto st : all_matmul_strategies) {
    const auto c = estimate(cm, sh, st);
    if (c.total < best.total) best = c;
  }
  return best;
}

/// Every strategy with its estimated communication and compute, and the choice.
inline std::string explain(const cost_model& cm, const matmul_shape& sh) {
  auto fmt = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return std::string(buf);
  };
  const char* unit = cm.policy == cost_policy::paper ? "elements" : "bytes";
  std::string out = "distributed matmul: X " + std::to_string(sh.I) + "x" + std::to_string(sh.K) +
                    " tiles of " + std::to_string(sh.m) + "x" + std::to_string(sh.k) + ", Y " +
                    std::to_string(sh.K) + "x" + std::to_string(sh.J) + " tiles of " +
                    std::to_string(sh.k) + "x" + std::to_string(sh.n) + ", " +
                    std::to_string(cm.sites) + " sites, alpha " + fmt(cm.alpha) + ", beta " +
                    fmt(cm.beta) + "\n";
  const auto best = choose(cm, sh);
  for (auto st : all_matmul_strategies) {
    const auto c = estimate(cm, sh, st);
    out += std::string(st == best.strategy ? "  * " : "    ") + std::string(name(st)) + ": Cn " +
           fmt(c.cn) + " " + unit + ", Cc " + fmt(c.cc) + " flops, cost " + fmt(c.total) + "\n";
  }
  out += "chosen: " + std::string(name(best.strategy)) + "\n";
  return out;
}

}  // namespace loom::tra

#endif  // LOOM_TRA_COST_HPP
// ---- end <loom/tra/cost.hpp>
// ---- begin <loom/tra/counters.hpp>
// Defines loom::tra::counters(): the scalar operations done by the tile kernels of this thread,
// which the rewrite tests read (UT-5: R1-6 and R1-7 must save additions) (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_COUNTERS_HPP
#define LOOM_TRA_COUNTERS_HPP

#include <cstdint>

namespace loom::tra {

struct kernel_counters {
  std::int64_t adds = 0;  // scalar additions
  std::int64_t muls = 0;  // scalar multiplications
};
inline kernel_counters& counters() {
  thread_local kernel_counters c;
  return c;
}

/// Restores the counters on exit: kernels run only to learn an output shape are not counted.
struct uncounted {
  kernel_counters saved = counters();
  uncounted() = default;
  uncounted(const uncounted&) = delete;
  uncounted& operator=(const uncounted&) = delete;
  ~uncounted() { counters() = saved; }
};

}  // namespace loom::tra

#endif  // LOOM_TRA_COUNTERS_HPP
// ---- end <loom/tra/counters.hpp>
// ---- begin <loom/tra/einsum.hpp>
// Defines the einsum front end (notes 003 §8.2 item 23): "ij,jk->ik" over key indices lowers to
// Σ(gbk, mat_add)(⋈(jl, jr, mat_mul)) — as an IA plan type (einsum_plan_t) and as a call on two
// relations (einsum<"...">(l, r)); batch indices kept in the output stay group-by keys; a tile
// whose letters run the other way from the kernel's C(x,z) = A(x,y) B(y,z) is transposed (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_EINSUM_HPP
#define LOOM_TRA_EINSUM_HPP

// ---- begin <loom/tra/ia/nodes.hpp>
// Defines the implementation-algebra (IA) plan nodes as empty types (notes 003 §3.2, §8.2
// items 9-11): leaf, bcast, shuf, lfilter, lmap, lagg, ljoin, ldup; partition tags; and the
// partition each node's output has (propagation, which the paper leaves out) (tra/ia/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_IA_NODES_HPP
#define LOOM_TRA_IA_NODES_HPP

// ---- begin <loom/tra/key_functions.hpp>
// Defines the introspectable key functions and key predicates of REKEY and filter: project,
// permute, linearize, insert_dim; eq, lt_eq, in_range, and_ (notes 003 §8.2 item 6) (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_KEY_FUNCTIONS_HPP
#define LOOM_TRA_KEY_FUNCTIONS_HPP


#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loom::tra {

// A key function maps key_array<In> to key_array<out_arity>, gives its output bounds, says whether it is
// injective and which input positions it reads (rewrite conditions test these).

/// project<I...>: keeps positions I... in that order (a permutation when it names every position).
template <std::size_t... I>
struct project {
  static constexpr std::string_view name = "project";
  static constexpr std::size_t out_arity = sizeof...(I);
  static constexpr std::array<std::size_t, out_arity> positions{I...};
  template <std::size_t K>
  static constexpr key_array<out_arity> apply(const key_array<K>& k) { return {k[I]...}; }
  template <std::size_t K>
  key_array<out_arity> operator()(const key_array<K>& k) const { return apply(k); }
  template <std::size_t K>
  static constexpr key_array<out_arity> bounds(const key_array<K>& b) { return {b[I]...}; }
  template <std::size_t K>
  static constexpr bool injective() {
    if (sizeof...(I) != K) return false;
    std::array<bool, K> seen{};
    for (std::size_t p : positions) {
      if (p >= K || seen[p]) return false;
      seen[p] = true;
    }
    return true;
  }
  /// True when position `p` of the output is position `q` of the input.
  static constexpr bool identity = [] {
    std::size_t d = 0;
    for (std::size_t p : positions)
      if (p != d++) return false;
    return true;
  }();
};
template <std::size_t... I>
using permute = project<I...>;

/// linearize<C...>: <k0, k1, ...> -> <sum C_d k_d> (the paper's <2k1 + k2>); the caller gives
/// the output bound.
template <std::int64_t... C>
struct linearize {
  static constexpr std::string_view name = "linearize";
  static constexpr std::size_t out_arity = 1;
  template <std::size_t K>
  static constexpr key_array<1> apply(const key_array<K>& k) {
    static_assert(K == sizeof...(C), "loom::tra::linearize: give one coefficient per key position");
    std::int64_t s = 0;
    std::size_t d = 0;
    ((s += C * k[d++]), ...);
    return {s};
  }
  template <std::size_t K>
  key_array<1> operator()(const key_array<K>& k) const { return apply(k); }
  template <std::size_t K>
  static constexpr key_array<1> bounds(const key_array<K>& b) {
    std::int64_t top = 0;
    std::size_t d = 0;
    ((top += C * (b[d++] - 1)), ...);
    return {top + 1};
  }
  template <std::size_t K>
  static constexpr bool injective() { return false; }  // not in general; rekey checks at run time
};

/// insert_dim<P>: a one-to-many key map used with `duplicate(n)`: <k...> -> <k..., c, ...> with
/// the new position P taking every c in [0, n) (notes §4.3, corrected in UT-6).
template <std::size_t P>
struct insert_dim {
  template <std::size_t K>
  static constexpr key_array<K + 1> apply(const key_array<K>& k, std::int64_t c) {
    key_array<K + 1> out{};
    for (std::size_t d = 0, s = 0; d < K + 1; ++d) out[d] = d == P ? c : k[s++];
    return out;
  }
  template <std::size_t K>
  static constexpr key_array<K + 1> bounds(const key_array<K>& b, std::int64_t n) { return apply(b, n); }
};

// Predicates over keys: `test(key)` and the positions they read (R1-5, R1-6 conditions).

/// Key positions I and J are equal (the paper's checkEq on two positions).
template <std::size_t I, std::size_t J>
struct eq {
  static constexpr std::string_view name = "checkEq";
  static constexpr std::array<std::size_t, 2> reads{I, J};
  template <std::size_t K>
  bool operator()(const key_array<K>& k) const { return k[I] == k[J]; }
};
/// key[I] <= key[J] (UT-12's upper triangle).
template <std::size_t I, std::size_t J>
struct lt_eq {
  static constexpr std::string_view name = "lt_eq";
  static constexpr std::array<std::size_t, 2> reads{I, J};
  template <std::size_t K>
  bool operator()(const key_array<K>& k) const { return k[I] <= k[J]; }
};
/// lo <= key[I] < hi.
template <std::size_t I, std::int64_t Lo, std::int64_t Hi>
struct in_range {
  static constexpr std::array<std::size_t, 1> reads{I};
  template <std::size_t K>
  bool operator()(const key_array<K>& k) const { return Lo <= k[I] && k[I] < Hi; }
};
/// f and g (R1-1 merges two filters into one).
template <class F, class G>
struct and_ {
  F f{};
  G g{};
  template <std::size_t K>
  bool operator()(const key_array<K>& k) const { return f(k) && g(k); }
};

/// Does predicate P read only positions listed in `allowed`? (false for opaque callables)
template <class P, std::size_t N>
constexpr bool reads_only(const std::array<std::size_t, N>& allowed) {
  if constexpr (requires { P::reads; }) {
    for (std::size_t r : P::reads) {
      bool found = false;
      for (std::size_t a : allowed) found = found || a == r;
      if (!found) return false;
    }
    return true;
  } else {
    return false;
  }
}

}  // namespace loom::tra

#endif  // LOOM_TRA_KEY_FUNCTIONS_HPP
// ---- end <loom/tra/key_functions.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace loom::tra::ia {

/// A list of key positions (join keys, group-by keys, partition dimensions).
template <std::size_t... D>
struct dims {
  static constexpr std::array<std::size_t, sizeof...(D)> values{D...};
  static constexpr std::size_t size = sizeof...(D);
};

// Partition tags: the paper's D, with its ∅ split in two (notes §3.1).
/// Tuples placed by a hash of the key positions D (D non-empty).
template <class D>
struct partitioned {};
/// Every site holds every tuple (the paper's D = ∅ after BCAST).
struct replicated {};
/// All tuples on site 0 (what Σ<> needs; the paper has no symbol for it).
struct single {};
/// Placed with no known rule (an input read as it comes, or after a key map that moves D).
struct arbitrary {};

/// Identity key map and identity tile map (the paper's "_").
struct same_key {
  template <class K>
  K operator()(const K& k) const { return k; }
};
struct same_tile {
  template <class X>
  X operator()(const X& t) const { return t; }
};

/// f ∘ g for key maps or tile maps (R1-2).
template <class F, class G>
struct compose {
  template <class X>
  auto operator()(const X& x) const { return F{}(G{}(x)); }
};
template <class F, class G>
  requires requires { F::out_arity; }
struct compose<F, G> {
  static constexpr std::size_t out_arity = F::out_arity;
  template <class X>
  auto operator()(const X& x) const { return F{}(G{}(x)); }
  template <class B>
  static constexpr auto bounds(const B& b) { return F::bounds(G::bounds(b)); }
};

/// A predicate over another key shape: P applied to `Adapt(key)` (R1-5, R1-6 push predicates
/// through aggregation and join by rebuilding the key P expects).
template <class F>
constexpr std::string_view name_or_f() {
  if constexpr (requires { F::name; }) return F::name;
  else return "f";
}
template <class P, class Adapt>
struct pred_on {
  static constexpr std::string_view name = name_or_f<P>();
  template <class K>
  bool operator()(const K& k) const { return P{}(Adapt{}(k)); }
};

/// The I-th input of the plan, of key-arity K, placed as Partition.
template <std::size_t I, std::size_t K, class Partition = arbitrary>
struct leaf {};
/// BCAST: every tuple to every site.
template <class C>
struct bcast {};
/// SHUF<D>: repartition by the positions D (dims<> gathers on one site).
template <class D, class C>
struct shuf {};
/// σᴸ: per-site filter on keys.
template <class F, class C>
struct lfilter {};
/// λᴸ(keyMap, tileMap): per-site map (one-to-one here; ldup is the one-to-many case).
template <class KeyMap, class TileMap, class C>
struct lmap {};
/// Σᴸ(gbk, op): per-site aggregation.
template <class Gbk, class Op, class C>
struct lagg {};
/// Σᴸ(gbk, op) keeping the site as a last key position: the pre-aggregation of a combiner
/// (R2-5). Partial sums of one group from different sites stay distinct tuples, so a later SHUF
/// and Σᴸ merge them; the paper's relations are sets and could not hold them otherwise.
template <class Gbk, class Op, class C>
struct lpartial {};
/// ⋈ᴸ(jkL, jkR, op): per-site join of tuples on the same site.
template <class JL, class JR, class Op, class L, class R>
struct ljoin {};
/// λᴸ(insert_dim<P>, duplicate(n)) with n = bound `Dim` of input `From` (notes §4.3, UT-6).
template <std::size_t P, std::size_t From, std::size_t Dim, class C>
struct ldup {};

// partition_t<Node>: where the output of Node lives ------------------------------------------
namespace detail {

template <class Node>
struct partition_of {
  using type = arbitrary;
};
template <std::size_t I, std::size_t K, class P>
struct partition_of<leaf<I, K, P>> {
  using type = P;
};
template <class C>
struct partition_of<bcast<C>> {
  using type = replicated;
};
template <class C>
struct partition_of<shuf<dims<>, C>> {
  using type = single;
};
template <std::size_t... D, class C>
  requires(sizeof...(D) > 0)
struct partition_of<shuf<dims<D...>, C>> {
  using type = partitioned<dims<D...>>;
};
template <class F, class C>
struct partition_of<lfilter<F, C>> : partition_of<C> {};
template <class A, class C>
struct partition_of<lmap<same_key, A, C>> : partition_of<C> {};

// Renumber D through a projection: position d of the input becomes the index of d in Gbk, or
// the partition is lost when some d is projected away.
template <class D, class Gbk>
struct renumber {
  static constexpr bool ok = [] {
    for (std::size_t d : D::values) {
      bool found = false;
      for (std::size_t g : Gbk::values) found = found || g == d;
      if (!found) return false;
    }
    return D::size > 0;
  }();
  template <std::size_t N>
  static constexpr std::size_t at() {
    for (std::size_t g = 0; g < Gbk::size; ++g)
      if (Gbk::values[g] == D::values[N]) return g;
    return 0;
  }
  using type = decltype([]<std::size_t... N>(std::index_sequence<N...>) {
    return dims<at<N>()...>{};
  }(std::make_index_sequence<D::size>{}));
};

template <class P, class Gbk>
struct through_projection {
  using type = arbitrary;
};
template <class Gbk>
struct through_projection<replicated, Gbk> {
  using type = replicated;
};
template <class Gbk>
struct through_projection<single, Gbk> {
  using type = single;
};
template <class D, class Gbk>
  requires renumber<D, Gbk>::ok
struct through_projection<partitioned<D>, Gbk> {
  using type = partitioned<typename renumber<D, Gbk>::type>;
};
template <class Gbk, class Op, class C>
struct partition_of<lagg<Gbk, Op, C>> {
  using type = typename through_projection<typename partition_of<C>::type, Gbk>::type;
};
template <class Gbk, class Op, class C>
struct partition_of<lpartial<Gbk, Op, C>> : partition_of<lagg<Gbk, Op, C>> {};

// arity_v<Node>: the key-arity of a node's output (all static, notes §8.2 item 2).
template <class Node>
struct arity;
template <std::size_t I, std::size_t K, class P>
struct arity<leaf<I, K, P>> : std::integral_constant<std::size_t, K> {};
template <class C>
struct arity<bcast<C>> : arity<C> {};
template <class D, class C>
struct arity<shuf<D, C>> : arity<C> {};
template <class F, class C>
struct arity<lfilter<F, C>> : arity<C> {};
template <class A, class C>
struct arity<lmap<same_key, A, C>> : arity<C> {};
template <class KM, class A, class C>
  requires requires { KM::out_arity; }
struct arity<lmap<KM, A, C>> : std::integral_constant<std::size_t, KM::out_arity> {};
template <class Gbk, class Op, class C>
struct arity<lagg<Gbk, Op, C>> : std::integral_constant<std::size_t, Gbk::size> {};
template <class Gbk, class Op, class C>
struct arity<lpartial<Gbk, Op, C>> : std::integral_constant<std::size_t, Gbk::size + 1> {};
template <class JL, class JR, class Op, class L, class R>
struct arity<ljoin<JL, JR, Op, L, R>>
    : std::integral_constant<std::size_t, arity<L>::value + arity<R>::value - JL::size> {};
template <std::size_t P, std::size_t From, std::size_t Dim, class C>
struct arity<ldup<P, From, Dim, C>> : std::integral_constant<std::size_t, arity<C>::value + 1> {};

// ⋈ᴸ output key [L∖JL, JL, R∖JR]: the output position of left position p / right position q.
template <std::size_t K, class J>
constexpr bool in_dims(std::size_t p) {
  for (std::size_t d : J::values)
    if (d == p) return true;
  return false;
}
template <std::size_t K, class J>
constexpr std::size_t rest_rank(std::size_t p) {  // rank of p among the positions not in J
  std::size_t r = 0;
  for (std::size_t d = 0; d < p; ++d) r += in_dims<K, J>(d) ? 0 : 1;
  return r;
}
template <std::size_t K, class J>
constexpr std::size_t join_rank(std::size_t p) {
  for (std::size_t j = 0; j < J::size; ++j)
    if (J::values[j] == p) return j;
  return 0;
}
template <std::size_t KL, std::size_t KR, class JL, class JR, bool Left, class D>
struct join_positions {
  static constexpr std::size_t g = JL::size;
  static constexpr std::size_t map(std::size_t p) {
    if constexpr (Left) {
      return in_dims<KL, JL>(p) ? KL - g + join_rank<KL, JL>(p) : rest_rank<KL, JL>(p);
    } else {
      return in_dims<KR, JR>(p) ? KL - g + join_rank<KR, JR>(p) : KL + rest_rank<KR, JR>(p);
    }
  }
  using type = decltype([]<std::size_t... N>(std::index_sequence<N...>) {
    return dims<map(D::values[N])...>{};
  }(std::make_index_sequence<D::size>{}));
};

// A join is complete on each site when one side is replicated (its output then lives where the
// other side does) or both sides are partitioned on matching join keys (notes §8.2 item 12).
template <class JL, class JR, class PL, class PR, std::size_t KL, std::size_t KR>
struct join_partition {
  using type = arbitrary;
};
template <class JL, class JR, class PR, std::size_t KL, std::size_t KR>
struct join_partition<JL, JR, replicated, PR, KL, KR> {
  using type = PR;
};
template <class JL, class JR, class D, std::size_t KL, std::size_t KR>
struct join_partition<JL, JR, replicated, partitioned<D>, KL, KR> {
  using type = partitioned<typename join_positions<KL, KR, JL, JR, false, D>::type>;
};
template <class JL, class JR, class D, std::size_t KL, std::size_t KR>
struct join_partition<JL, JR, partitioned<D>, replicated, KL, KR> {
  using type = partitioned<typename join_positions<KL, KR, JL, JR, true, D>::type>;
};
template <class JL, class JR, std::size_t KL, std::size_t KR>
struct join_partition<JL, JR, replicated, replicated, KL, KR> {
  using type = replicated;
};
// Both sides partitioned on matched join positions: DL ⊆ JL and DR is DL's image in JR (the
// same partition function then sends matching tuples to the same site).
template <class JL, class JR, class DL, class DR>
constexpr bool co_partitioned() {
  if (DL::size != DR::size || DL::size == 0) return false;
  for (std::size_t n = 0; n < DL::size; ++n) {
    bool found = false;
    for (std::size_t j = 0; j < JL::size; ++j)
      if (JL::values[j] == DL::values[n]) found = found || JR::values[j] == DR::values[n];
    if (!found) return false;
  }
  return true;
}
template <class JL, class JR, class DL, class DR, std::size_t KL, std::size_t KR>
  requires(co_partitioned<JL, JR, DL, DR>())
struct join_partition<JL, JR, partitioned<DL>, partitioned<DR>, KL, KR> {
  using type = partitioned<typename join_positions<KL, KR, JL, JR, true, DL>::type>;
};
template <class JL, class JR, class Op, class L, class R>
struct partition_of<ljoin<JL, JR, Op, L, R>> {
  using type = typename join_partition<JL, JR, typename partition_of<L>::type,
                                       typename partition_of<R>::type, arity<L>::value,
                                       arity<R>::value>::type;
};

/// Is the join complete (every matching pair meets on some site)? (notes §3.2 gap (c))
template <class PL, class PR, class JL, class JR>
struct join_complete
    : std::bool_constant<std::is_same_v<PL, replicated> || std::is_same_v<PR, replicated> ||
                         (std::is_same_v<PL, single> && std::is_same_v<PR, single>)> {};
template <class DL, class DR, class JL, class JR>
struct join_complete<partitioned<DL>, partitioned<DR>, JL, JR>
    : std::bool_constant<co_partitioned<JL, JR, DL, DR>()> {};
/// Is a local aggregation complete (each group on one site)? ∅ != D ⊆ gbk, single, or replicated.
template <class P, class Gbk>
struct agg_complete : std::false_type {};
template <class Gbk>
struct agg_complete<single, Gbk> : std::true_type {};
template <class Gbk>
struct agg_complete<replicated, Gbk> : std::true_type {};
template <class D, class Gbk>
struct agg_complete<partitioned<D>, Gbk> : std::bool_constant<renumber<D, Gbk>::ok> {};
}  // namespace detail

/// Where the output of plan node `Node` lives.
template <class Node>
using partition_t = typename detail::partition_of<Node>::type;
/// The key-arity of the output of plan node `Node`.
template <class Node>
inline constexpr std::size_t arity_v = detail::arity<Node>::value;

}  // namespace loom::tra::ia

#endif  // LOOM_TRA_IA_NODES_HPP
// ---- end <loom/tra/ia/nodes.hpp>
// ---- begin <loom/tra/kernels.hpp>
// Defines the tile kernels: matmul, add, transpose, diagonal, each written with loom's own dense
// loops over views of tile buffers, and the counters the cost tests read (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_KERNELS_HPP
#define LOOM_TRA_KERNELS_HPP

// ---- begin <loom/tra/strip.hpp>
// Defines loom::tra::strip<T, W>: W values of T as one semiring element (the product semiring
// T^W, componentwise), the value type of the vectorised tile kernels (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_STRIP_HPP
#define LOOM_TRA_STRIP_HPP


#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

namespace loom::tra {

/// W consecutive values of a row, operated on as one value. A scalar converts to a strip by
/// broadcast, so `Bs(k, j) * A(i, k)` multiplies a strip of B's row k by one value of A: loom's
/// dense loop then keeps W/2 (for double) SIMD accumulators in registers.
template <class T, std::size_t W>
  requires std::is_floating_point_v<T> && (W % (16 / sizeof(T)) == 0)
struct strip {
  static constexpr std::size_t lanes = 16 / sizeof(T);  // one SSE2 register
  typedef T lane_type __attribute__((vector_size(16)));
  static constexpr std::size_t parts = W / lanes;
  lane_type part[parts];

  strip() = default;
  LOOM_FORCE_INLINE strip(T x) {  // NOLINT: implicit broadcast is the point
    lane_type v{};
    for (std::size_t l = 0; l < lanes; ++l) v[l] = x;
    for (std::size_t p = 0; p < parts; ++p) part[p] = v;
  }
  LOOM_FORCE_INLINE T lane(std::size_t w) const { return part[w / lanes][w % lanes]; }

  template <class F>
  LOOM_FORCE_INLINE static strip zip(const strip& a, const strip& b, F f) {
    strip r;
    [&]<std::size_t... P>(std::index_sequence<P...>) {
      ((r.part[P] = f(a.part[P], b.part[P])), ...);
    }(std::make_index_sequence<parts>{});
    return r;
  }
  friend bool operator==(const strip& a, const strip& b) {
    for (std::size_t w = 0; w < W; ++w)
      if (a.lane(w) != b.lane(w)) return false;
    return true;
  }
};

}  // namespace loom::tra

namespace loom {
/// T^W with componentwise + and x: a semiring whenever T is one.
template <class T, std::size_t W>
struct semiring_traits<tra::strip<T, W>> {
  using S = tra::strip<T, W>;
  static constexpr std::string_view name = "strip";
  static constexpr bool idempotent = false;
  static S zero() { return S(T(0)); }
  static S one() { return S(T(1)); }
  LOOM_FORCE_INLINE static S add(const S& a, const S& b) {
    return S::zip(a, b, [](auto x, auto y) { return x + y; });
  }
  LOOM_FORCE_INLINE static S mul(const S& a, const S& b) {
    return S::zip(a, b, [](auto x, auto y) { return x * y; });
  }
  static S scale(const S& a, std::int64_t n) { return mul(a, S(static_cast<T>(n))); }
};
}  // namespace loom

#endif  // LOOM_TRA_STRIP_HPP
// ---- end <loom/tra/strip.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace loom::tra {

namespace detail {
inline constexpr loom::index<"i"> ki;
inline constexpr loom::index<"j"> kj;
inline constexpr loom::index<"k"> kk;

// Strip width: 128 bytes of T (8 SSE2 registers of accumulators in the inner loop).
template <class T>
inline constexpr std::size_t strip_width = 128 / sizeof(T);

template <class T>
inline constexpr bool has_strip_kernel = std::is_same_v<T, double> || std::is_same_v<T, float>;

// C (m x n) = A (m x k) B (k x n), all row-major. B and C are copied to rows of W-wide strips
// (a memcpy when n is a multiple of W: same bytes; else zero-padded); A is read in place. loom's
// loop order i, j, k keeps the W-wide sum in registers, and A(i,k) is broadcast to a strip by the
// conversion in the product. (Viewing the tiles as strips in place would break strict aliasing,
// and `may_alias` strips halve the speed: GCC then keeps the sums in memory.)
template <class T>
void matmul_strips(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, const T* b, T* c,
                   bool accumulate) {
  constexpr std::size_t W = strip_width<T>;
  using S = strip<T, W>;
  static_assert(sizeof(S) == W * sizeof(T), "loom internal error: strips must be unpadded; please report");
  constexpr auto w = static_cast<std::int64_t>(W);
  const std::int64_t nb = (n + w - 1) / w;
  const bool whole = n % w == 0;
  thread_local std::vector<S> bs, cs;  // reused: copying is O(n^2), the product O(n^3)
  bs.resize(static_cast<std::size_t>(k * nb));
  cs.resize(static_cast<std::size_t>(m * nb));
  auto to_strips = [&](const T* src, std::int64_t rows, std::vector<S>& dst) {
    if (whole) {
      std::memcpy(static_cast<void*>(dst.data()), src, static_cast<std::size_t>(rows * n) * sizeof(T));
      return;
    }
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t s = 0; s < nb; ++s) {
        S& d = dst[static_cast<std::size_t>(r * nb + s)];
        const std::int64_t c0 = s * w, len = std::min<std::int64_t>(w, n - c0);
        d = S(T(0));
        for (std::int64_t l = 0; l < len; ++l) d.part[l / S::lanes][l % S::lanes] = src[r * n + c0 + l];
      }
  };
  to_strips(b, k, bs);
  if (accumulate) to_strips(c, m, cs);
  auto A = loom::dense_matrix_view<const T>(m, k, std::span<const T>(a, static_cast<std::size_t>(m * k)));
  auto B = loom::dense_matrix_view<const S>(k, nb, std::span<const S>(bs));
  auto C = loom::dense_matrix_view<S>(m, nb, std::span<S>(cs));
  auto product = loom::sum(kk, B(kk, kj) * A(ki, kk));
  static_assert(std::is_same_v<std::remove_const_t<loom::expr::value_type_t<decltype(product)>>, S>,
                "loom internal error: the strip product must have the strip value type; please report");
  if (accumulate) C(ki, kj) += product;
  else C(ki, kj) = product;
  if (whole) {
    std::memcpy(c, static_cast<const void*>(cs.data()), static_cast<std::size_t>(m * n) * sizeof(T));
    return;
  }
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t s = 0; s < nb; ++s) {
      const S& src = cs[static_cast<std::size_t>(r * nb + s)];
      const std::int64_t c0 = s * w, len = std::min<std::int64_t>(w, n - c0);
      for (std::int64_t l = 0; l < len; ++l) c[r * n + c0 + l] = src.lane(static_cast<std::size_t>(l));
    }
}
}  // namespace detail

/// C = A B for matrix tiles (any semiring; float and double take the vectorised strip kernel).
template <class T>
void matmul_into(const tile<T, 2>& a, const tile<T, 2>& b, tile<T, 2>& c, bool accumulate = false) {
  const std::int64_t m = a.extent(0), k = a.extent(1), n = b.extent(1);
  if (b.extent(0) != k)
    throw shape_error("loom::tra::matmul: inner extents differ: " + to_string(a.shape()) + " x " +
                      to_string(b.shape()));
  if (c.shape() != shape_t<2>{m, n}) c = tile<T, 2>({m, n});
  counters().muls += m * n * k;
  counters().adds += m * n * k;
  if constexpr (detail::has_strip_kernel<T>) {
    detail::matmul_strips(m, n, k, a.data().data(), b.data().data(), c.data().data(), accumulate);
  } else {
    auto A = a.view();
    auto B = b.view();
    auto C = c.view();
    if (accumulate) C(detail::ki, detail::kj) += loom::sum(detail::kk, A(detail::ki, detail::kk) * B(detail::kk, detail::kj));
    else C(detail::ki, detail::kj) = loom::sum(detail::kk, A(detail::ki, detail::kk) * B(detail::kk, detail::kj));
  }
}

template <class T>
tile<T, 2> matmul(const tile<T, 2>& a, const tile<T, 2>& b) {
  tile<T, 2> c({a.extent(0), b.extent(1)});
  matmul_into(a, b, c);
  return c;
}

/// C = A B for tiles whose shapes are types: the inner extents must agree at compile time.
template <class T, std::size_t M, std::size_t K, std::size_t N>
static_tile<T, M, N> matmul(const static_tile<T, M, K>& a, const static_tile<T, K, N>& b) {
  static_tile<T, M, N> c;
  matmul_into(a.dynamic(), b.dynamic(), c.dynamic());
  return c;
}

/// Element-wise a + b (tiles of equal shape), a loom loop over the flattened buffers.
template <class T, std::size_t R>
tile<T, R> add(const tile<T, R>& a, const tile<T, R>& b) {
  if (a.shape() != b.shape())
    throw shape_error("loom::tra::add: tile shapes differ: " + to_string(a.shape()) + " and " +
                      to_string(b.shape()));
  tile<T, R> c(a.shape());
  auto x = loom::dense_vector_view<const T>(a.data());
  auto y = loom::dense_vector_view<const T>(b.data());
  auto z = loom::dense_vector_view<T>(c.data());
  z(detail::ki) = x(detail::ki) + y(detail::ki);
  counters().adds += a.size();
  return c;
}

/// a += b in place (the aggregation kernel; no allocation).
template <class T, std::size_t R>
void add_into(tile<T, R>& a, const tile<T, R>& b) {
  if (a.shape() != b.shape())
    throw shape_error("loom::tra::add: tile shapes differ: " + to_string(a.shape()) + " and " +
                      to_string(b.shape()));
  auto y = loom::dense_vector_view<const T>(b.data());
  auto z = loom::dense_vector_view<T>(a.data());
  z(detail::ki) += y(detail::ki);
  counters().adds += a.size();
}

/// The transpose of a matrix tile.
template <class T>
tile<T, 2> transpose(const tile<T, 2>& a) {
  tile<T, 2> c({a.extent(1), a.extent(0)});
  auto A = a.view();
  auto C = c.view();
  C(detail::ki, detail::kj) = A(detail::kj, detail::ki);
  return c;
}

/// The diagonal of a square matrix tile, as a vector (the paper's `diag`, extraction form).
template <class T>
tile<T, 1> diagonal(const tile<T, 2>& a) {
  const std::int64_t n = std::min(a.extent(0), a.extent(1));
  tile<T, 1> d({n});
  for (std::int64_t p = 0; p < n; ++p) d(p) = a(p, p);  // loom has no diagonal access A(i,i) yet
  return d;
}

/// The diagonal kept as a matrix with zeros elsewhere (the other reading of `diag`).
template <class T>
tile<T, 2> diagonal_matrix(const tile<T, 2>& a) {
  tile<T, 2> d(a.shape());
  const std::int64_t n = std::min(a.extent(0), a.extent(1));
  for (std::int64_t p = 0; p < n; ++p) d(p, p) = a(p, p);
  return d;
}

/// Element-wise a + b on the diagonal only: diag(a + b) = diag(a) + diag(b), fused (R1-7).
template <class T>
tile<T, 1> add_diagonals(const tile<T, 2>& a, const tile<T, 2>& b) {
  const std::int64_t n = std::min(a.extent(0), a.extent(1));
  tile<T, 1> d({n});
  for (std::int64_t p = 0; p < n; ++p) d(p) = semiring_traits<T>::add(a(p, p), b(p, p));
  counters().adds += n;
  return d;
}

/// Function objects for the kernels, with the traits the rewrite rules read (notes §8.2 item 7).
struct mat_add {
  static constexpr std::string_view name = "add";
  static constexpr bool associative = true, commutative = true;
  template <class T, std::size_t R>
  tile<T, R> operator()(const tile<T, R>& a, const tile<T, R>& b) const { return add(a, b); }
  /// a = a + b in place (aggregation folds with it: no tile allocated per step)
  template <class T, std::size_t R>
  void accumulate(tile<T, R>& a, const tile<T, R>& b) const { add_into(a, b); }
};
struct mat_mul {
  static constexpr std::string_view name = "matmul";
  template <class T>
  tile<T, 2> operator()(const tile<T, 2>& a, const tile<T, 2>& b) const { return matmul(a, b); }
  /// out += a b: lets join_aggregate fuse Σ(mat_add) into the join (notes §8.2 item 16)
  using accumulates_with = mat_add;
  template <class T>
  void accumulate_product(const tile<T, 2>& a, const tile<T, 2>& b, tile<T, 2>& out) const {
    matmul_into(a, b, out, true);
  }
};
struct diag_extract {
  static constexpr std::string_view name = "diag";
  template <class T>
  tile<T, 1> operator()(const tile<T, 2>& a) const { return diagonal(a); }
};
struct transpose_tile {
  static constexpr std::string_view name = "transpose";
  template <class T>
  tile<T, 2> operator()(const tile<T, 2>& a) const { return transpose(a); }
};
/// diag distributes over mat_add: diag(a + b) = diag(a) + diag(b) (the R1-7 special case).
template <class Map, class Op>
inline constexpr bool distributes_over = false;
template <>
inline constexpr bool distributes_over<diag_extract, mat_add> = true;

}  // namespace loom::tra

#endif  // LOOM_TRA_KERNELS_HPP
// ---- end <loom/tra/kernels.hpp>
// ---- begin <loom/tra/operators.hpp>
// Defines the seven TRA operators over tensor relations with the paper's semantics (notes 003
// §2.2): aggregate (Σ), join (⋈), rekey, filter (σ), transform (λ), tile_dim (TILE), stack
// (STACK); plus duplicate (λᴸ with insert_dim) and dual_rekey (footnote 2) (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_OPERATORS_HPP
#define LOOM_TRA_OPERATORS_HPP


#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom::tra {

namespace detail {
template <class X>
struct tile_traits;
template <class T, std::size_t R>
struct tile_traits<tile<T, R>> {
  using value_type = T;
  static constexpr std::size_t rank = R;
};
template <class X>
using tile_value_t = typename tile_traits<std::remove_cvref_t<X>>::value_type;
template <class X>
inline constexpr std::size_t tile_rank_v = tile_traits<std::remove_cvref_t<X>>::rank;

template <std::size_t K, std::size_t G>
key_array<G> pick(const key_array<K>& k, const std::array<std::size_t, G>& pos) {
  key_array<G> out{};
  for (std::size_t g = 0; g < G; ++g) out[g] = k[pos[g]];
  return out;
}
template <std::size_t K, std::size_t G>
std::array<std::size_t, K - G> complement(const std::array<std::size_t, G>& pos) {
  std::array<std::size_t, K - G> out{};
  std::size_t n = 0;
  for (std::size_t d = 0; d < K; ++d) {
    bool in = false;
    for (std::size_t p : pos) in = in || p == d;
    if (!in) out[n++] = d;
  }
  return out;
}
template <std::size_t K, std::size_t G>
void check_positions(const std::array<std::size_t, G>& pos, const char* who) {
  std::array<bool, K> seen{};
  for (std::size_t p : pos) {
    if (p >= K || seen[p])
      throw shape_error(std::string("loom::tra::") + who + ": key position " + std::to_string(p) +
                        " is out of range or repeated (key-arity " + std::to_string(K) + ")");
    seen[p] = true;
  }
}
}  // namespace detail

/// Σ(groupByKeys, aggOp): groups tuples by the key positions `gbk` (output key = that
/// projection, in gbk's order) and folds each group with `op` in key order. `op` must be
/// associative and commutative (the paper gives no order).
template <class T, std::size_t K, std::size_t R, std::size_t G, class Op>
relation<T, G, R> aggregate(const relation<T, K, R>& in, const std::array<std::size_t, G>& gbk,
                            Op op) {
  detail::check_positions<K>(gbk, "aggregate");
  relation<T, G, R> out(detail::pick(in.bounds(), gbk), in.tile_shape());
  for (const auto& [key, t] : in) out.merge(detail::pick(key, gbk), t, op);
  return out;
}

/// ⋈(joinKeysL, joinKeysR, projOp): every pair with left[jl[m]] == right[jr[m]] for all m gives
/// projOp(left tile, right tile) under the key [L∖jl, jl, R∖jr] (the paper's formal layout,
/// notes §2.2 item 2). Matched dimensions must have equal bounds (extended join integrity).
template <class T, std::size_t KL, std::size_t RL, class U, std::size_t KR, std::size_t RR,
          std::size_t G, class Op>
auto join(const relation<T, KL, RL>& left, const relation<U, KR, RR>& right,
          const std::array<std::size_t, G>& jl, const std::array<std::size_t, G>& jr, Op op) {
  using result_tile = std::remove_cvref_t<decltype(op(std::declval<const tile<T, RL>&>(),
                                                      std::declval<const tile<U, RR>&>()))>;
  using V = detail::tile_value_t<result_tile>;
  constexpr std::size_t RO = detail::tile_rank_v<result_tile>;
  constexpr std::size_t KO = KL + KR - G;
  detail::check_positions<KL>(jl, "join");
  detail::check_positions<KR>(jr, "join");
  for (std::size_t m = 0; m < G; ++m)
    if (left.bounds()[jl[m]] != right.bounds()[jr[m]])
      throw shape_error("loom::tra::join: left key position " + std::to_string(jl[m]) +
                        " has bound " + std::to_string(left.bounds()[jl[m]]) +
                        " but right key position " + std::to_string(jr[m]) + " has bound " +
                        std::to_string(right.bounds()[jr[m]]) +
                        " (extended join integrity: matched dimensions need equal bounds)");
  const auto lrest = detail::complement<KL>(jl);
  const auto rrest = detail::complement<KR>(jr);
  auto out_key = [&](const key_array<KL>& a, const key_array<KR>& b) {
    key_array<KO> o{};
    std::size_t n = 0;
    for (std::size_t p : lrest) o[n++] = a[p];
    for (std::size_t p : jl) o[n++] = a[p];
    for (std::size_t p : rrest) o[n++] = b[p];
    return o;
  };
  const key_array<KO> bounds = out_key(left.bounds(), right.bounds());
  std::map<key_array<G>, std::vector<const std::pair<const key_array<KR>, tile<U, RR>>*>> index;
  for (const auto& tuple : right) index[detail::pick(tuple.first, jr)].push_back(&tuple);
  shape_t<RO> shape{};
  bool have_shape = false;
  std::vector<std::pair<key_array<KO>, result_tile>> produced;
  for (const auto& [a, ta] : left) {
    auto it = index.find(detail::pick(a, jl));
    if (it == index.end()) continue;
    for (const auto* b : it->second) {
      produced.emplace_back(out_key(a, b->first), op(ta, b->second));
      if (!have_shape) shape = produced.back().second.shape();
      have_shape = true;
    }
  }
  if (!have_shape) {
    uncounted probe;
    shape = op(tile<T, RL>(left.tile_shape()), tile<U, RR>(right.tile_shape())).shape();
  }
  relation<V, KO, RO> out(bounds, shape);
  for (auto& [k, t] : produced) out.insert(k, std::move(t));
  return out;
}

/// Σ(gbk, aggOp)(⋈(jl, jr, projOp)(left, right)), fused when projOp can accumulate its product
/// into a tile with aggOp (matmul into a sum: no joined tile is materialised). Same result as
/// the two operators in sequence; the join's integrity checks still apply.
template <class T, std::size_t KL, std::size_t KR, std::size_t G, std::size_t GB, class Proj,
          class Agg>
auto join_aggregate(const relation<T, KL, 2>& left, const relation<T, KR, 2>& right,
                    const std::array<std::size_t, G>& jl, const std::array<std::size_t, G>& jr,
                    Proj proj, const std::array<std::size_t, GB>& gbk, Agg agg) {
  if constexpr (requires { typename Proj::accumulates_with; } &&
                std::is_same_v<typename Proj::accumulates_with, Agg>) {
    constexpr std::size_t KO = KL + KR - G;
    // the join's checks and output bounds, on empty relations (cheap)
    const auto probe = join(relation<T, KL, 2>(left.bounds(), left.tile_shape()),
                            relation<T, KR, 2>(right.bounds(), right.tile_shape()), jl, jr, proj);
    detail::check_positions<KO>(gbk, "join_aggregate");
    const auto lrest = detail::complement<KL>(jl);
    const auto rrest = detail::complement<KR>(jr);
    relation<T, GB, 2> out(detail::pick(probe.bounds(), gbk), probe.tile_shape());
    std::map<key_array<G>, std::vector<const std::pair<const key_array<KR>, tile<T, 2>>*>> index;
    for (const auto& tuple : right) index[detail::pick(tuple.first, jr)].push_back(&tuple);
    for (const auto& [a, ta] : left) {
      auto it = index.find(detail::pick(a, jl));
      if (it == index.end()) continue;
      for (const auto* b : it->second) {
        key_array<KO> o{};
        std::size_t n = 0;
        for (std::size_t p : lrest) o[n++] = a[p];
        for (std::size_t p : jl) o[n++] = a[p];
        for (std::size_t p : rrest) o[n++] = b->first[p];
        proj.accumulate_product(ta, b->second, out.get_or_zero(detail::pick(o, gbk)));
      }
    }
    return out;
  } else {
    return aggregate(join(left, right, jl, jr, proj), gbk, agg);
  }
}

/// σ(boolFunc): keeps the tuples whose key satisfies `pred` (keys only, never tile contents).
template <class T, std::size_t K, std::size_t R, class Pred>
relation<T, K, R> filter(const relation<T, K, R>& in, Pred pred) {
  relation<T, K, R> out(in.bounds(), in.tile_shape());
  for (const auto& [key, t] : in)
    if (pred(key)) out.insert(key, t);
  return out;
}

/// REKEY(keyFunc) with explicit output bounds. Throws duplicate_error when two keys map to one
/// (a non-injective key function breaks uniqueness: filter first, or aggregate instead).
template <std::size_t KO, class T, std::size_t K, std::size_t R, class F>
relation<T, KO, R> rekey(const relation<T, K, R>& in, F f, const key_array<KO>& bounds) {
  relation<T, KO, R> out(bounds, in.tile_shape());
  std::map<key_array<KO>, key_array<K>> source;
  for (const auto& [key, t] : in) {
    const key_array<KO> k = f(key);
    auto [it, fresh] = source.emplace(k, key);
    if (!fresh)
      throw duplicate_error("loom::tra::rekey: keys " + to_string(it->second) + " and " +
                            to_string(key) + " both map to " + to_string(k) +
                            "; the key function is not injective here (filter first, or use "
                            "aggregate)");
    out.insert(k, t);
  }
  return out;
}
/// REKEY with an introspectable key function (project, permute, linearize): bounds derived.
template <class F, class T, std::size_t K, std::size_t R>
auto rekey(const relation<T, K, R>& in, F f = {}) {
  return rekey<F::out_arity>(in, f, F::bounds(in.bounds()));
}

/// λ(transformFunc): maps every tile, keys untouched.
template <class T, std::size_t K, std::size_t R, class F>
auto transform(const relation<T, K, R>& in, F f) {
  using result_tile = std::remove_cvref_t<decltype(f(std::declval<const tile<T, R>&>()))>;
  using V = detail::tile_value_t<result_tile>;
  constexpr std::size_t RO = detail::tile_rank_v<result_tile>;
  shape_t<RO> shape{};
  if (in.empty()) {
    uncounted probe;
    shape = f(tile<T, R>(in.tile_shape())).shape();
  }
  std::vector<std::pair<key_array<K>, result_tile>> produced;
  for (const auto& [key, t] : in) {
    produced.emplace_back(key, f(t));
    shape = produced.back().second.shape();
  }
  relation<V, K, RO> out(in.bounds(), shape);
  for (auto& [key, t] : produced) out.insert(key, std::move(t));
  return out;
}

/// TILE(tileDim, tileSize): splits every tile along array dimension `dim` (0 = rows) into tiles
/// of extent `size`; the piece number becomes a new, last key position (notes §2.2 item 6).
template <class T, std::size_t K, std::size_t R>
relation<T, K + 1, R> tile_dim(const relation<T, K, R>& in, std::size_t dim, std::int64_t size) {
  const auto& s = in.tile_shape();
  if (dim >= R || size <= 0 || s[dim] % size != 0)
    throw shape_error("loom::tra::tile_dim: dimension " + std::to_string(dim) + " of tiles " +
                      to_string(s) + " cannot be cut into pieces of " + std::to_string(size) +
                      " (the paper's relations have no ragged tiles)");
  const std::int64_t pieces = s[dim] / size;
  shape_t<R> ps = s;
  ps[dim] = size;
  key_array<K + 1> bounds{};
  for (std::size_t d = 0; d < K; ++d) bounds[d] = in.bounds()[d];
  bounds[K] = pieces;
  relation<T, K + 1, R> out(bounds, ps);
  std::int64_t outer = 1, inner = 1;  // tile as (outer, s[dim], inner)
  for (std::size_t d = 0; d < dim; ++d) outer *= s[d];
  for (std::size_t d = dim + 1; d < R; ++d) inner *= s[d];
  for (const auto& [key, t] : in)
    for (std::int64_t p = 0; p < pieces; ++p) {
      tile<T, R> piece(ps);
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t x = 0; x < size; ++x)
          for (std::int64_t i = 0; i < inner; ++i)
            piece.data()[static_cast<std::size_t>((o * size + x) * inner + i)] =
                t.data()[static_cast<std::size_t>((o * s[dim] + p * size + x) * inner + i)];
      key_array<K + 1> k{};
      for (std::size_t d = 0; d < K; ++d) k[d] = key[d];
      k[K] = p;
      out.insert(k, std::move(piece));
    }
  return out;
}

/// STACK(keyDim, arrayDim): groups tuples by every key position except `key_dim` and
/// concatenates each group's tiles along `array_dim`, in `key_dim` order (the inverse of TILE).
/// Every group must hold all bound(key_dim) pieces.
template <class T, std::size_t K, std::size_t R>
  requires(K >= 1)
relation<T, K - 1, R> stack(const relation<T, K, R>& in, std::size_t key_dim, std::size_t array_dim) {
  if (key_dim >= K || array_dim >= R)
    throw shape_error("loom::tra::stack: key dimension " + std::to_string(key_dim) +
                      " or array dimension " + std::to_string(array_dim) + " is out of range");
  const std::int64_t pieces = in.bounds()[key_dim];
  const auto& s = in.tile_shape();
  shape_t<R> big = s;
  big[array_dim] = s[array_dim] * pieces;
  key_array<K - 1> bounds{};
  for (std::size_t d = 0, n = 0; d < K; ++d)
    if (d != key_dim) bounds[n++] = in.bounds()[d];
  std::map<key_array<K - 1>, std::vector<const tile<T, R>*>> groups;
  for (const auto& [key, t] : in) {
    key_array<K - 1> g{};
    for (std::size_t d = 0, n = 0; d < K; ++d)
      if (d != key_dim) g[n++] = key[d];
    auto& slot = groups[g];
    slot.resize(static_cast<std::size_t>(pieces), nullptr);
    slot[static_cast<std::size_t>(key[key_dim])] = &t;
  }
  std::int64_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < array_dim; ++d) outer *= s[d];
  for (std::size_t d = array_dim + 1; d < R; ++d) inner *= s[d];
  relation<T, K - 1, R> out(bounds, big);
  for (const auto& [g, parts] : groups) {
    tile<T, R> whole(big);
    for (std::int64_t p = 0; p < pieces; ++p) {
      const tile<T, R>* t = parts[static_cast<std::size_t>(p)];
      if (!t)
        throw shape_error("loom::tra::stack: group " + to_string(g) + " lacks piece " +
                          std::to_string(p) + " of key dimension " + std::to_string(key_dim));
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t x = 0; x < s[array_dim]; ++x)
          for (std::int64_t i = 0; i < inner; ++i)
            whole.data()[static_cast<std::size_t>((o * big[array_dim] + p * s[array_dim] + x) * inner + i)] =
                t->data()[static_cast<std::size_t>((o * s[array_dim] + x) * inner + i)];
    }
    out.insert(g, std::move(whole));
  }
  return out;
}

/// λᴸ(insert_dim<P>, duplicate(n)): every tuple copied n times, copy c under the key with c
/// inserted at position P (notes §4.3 as corrected by UT-6: no duplicate keys).
template <std::size_t P, class T, std::size_t K, std::size_t R>
  requires(P <= K)
relation<T, K + 1, R> duplicate(const relation<T, K, R>& in, std::int64_t n) {
  relation<T, K + 1, R> out(insert_dim<P>::bounds(in.bounds(), n), in.tile_shape());
  for (const auto& [key, t] : in)
    for (std::int64_t c = 0; c < n; ++c) out.insert(insert_dim<P>::apply(key, c), t);
  return out;
}

/// The dual REKEY of footnote 2: the N keys, in lexicographic order, become <0> .. <N-1>, which
/// restores continuity after a filter.
template <class T, std::size_t K, std::size_t R>
relation<T, 1, R> dual_rekey(const relation<T, K, R>& in) {
  relation<T, 1, R> out({in.size()}, in.tile_shape());
  std::int64_t n = 0;
  for (const auto& [key, t] : in) out.insert({n++}, t);
  return out;
}

}  // namespace loom::tra

#endif  // LOOM_TRA_OPERATORS_HPP
// ---- end <loom/tra/operators.hpp>

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

namespace loom::tra {

namespace detail {
constexpr bool has(std::string_view s, char c) { return s.find(c) != std::string_view::npos; }

// The spec's three letter strings ---------------------------------------------------------------
struct einsum_text {
  std::string_view left, right, out;
  bool parsed = false;
};
constexpr einsum_text split_einsum(std::string_view s) {
  const std::size_t comma = s.find(','), arrow = s.find("->");
  if (comma == std::string_view::npos || arrow == std::string_view::npos || comma > arrow) return {};
  return {s.substr(0, comma), s.substr(comma + 1, arrow - comma - 1), s.substr(arrow + 2), true};
}

// Letter roles: the last two letters of an operand (and of the output) are its tiles' rows and
// columns; the letters before them are batch letters, key-only (their tile extent is 1).
constexpr bool is_tile_letter(std::string_view s, char c) {
  const std::size_t p = s.find(c);
  return p != std::string_view::npos && p + 2 >= s.size();
}
/// The letter of `a`'s tile that `b`'s tile also has (the contracted one); 0 if none.
constexpr char shared_tile_letter(std::string_view a, std::string_view b) {
  for (std::size_t p = a.size() - 2; p < a.size(); ++p)
    if (is_tile_letter(b, a[p])) return a[p];
  return 0;
}
/// The other letter of `s`'s tile.
constexpr char other_tile_letter(std::string_view s, char c) {
  return s[s.size() - 2] == c ? s[s.size() - 1] : s[s.size() - 2];
}

/// What keeps loom from running an einsum spec (none: it runs).
enum class einsum_problem {
  none,
  malformed,                    ///< not "<left>,<right>-><out>" with one letter per key position
  repeated_letter,              ///< "ii,...": a diagonal or a trace
  output_letter_not_in_inputs,  ///< "ij,jk->iz"
  fewer_than_two_letters,       ///< a vector or scalar operand or output ("ij,j->i")
  tiles_not_a_matrix_product,   ///< the tiles share no letter or both ("ij,ij->ij")
  contracted_letter_kept,       ///< the shared tile letter is in the output ("ij,jk->ijk")
  letter_with_two_roles,        ///< a tile letter in one place, a batch letter in another
};

constexpr einsum_problem einsum_check(std::string_view spec) {
  const einsum_text t = split_einsum(spec);
  if (!t.parsed) return einsum_problem::malformed;
  const std::string_view parts[3] = {t.left, t.right, t.out};
  for (std::string_view s : parts)
    for (char c : s)
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return einsum_problem::malformed;
  for (std::string_view s : parts)
    for (std::size_t p = 0; p < s.size(); ++p)
      if (s.find(s[p], p + 1) != std::string_view::npos) return einsum_problem::repeated_letter;
  for (char c : t.out)
    if (!has(t.left, c) && !has(t.right, c)) return einsum_problem::output_letter_not_in_inputs;
  for (std::string_view s : parts)
    if (s.size() < 2) return einsum_problem::fewer_than_two_letters;
  const char y = shared_tile_letter(t.left, t.right);
  if (y == 0 || is_tile_letter(t.right, other_tile_letter(t.left, y)))
    return einsum_problem::tiles_not_a_matrix_product;
  if (has(t.out, y)) return einsum_problem::contracted_letter_kept;
  for (std::string_view s : parts)
    for (char c : s)
      for (std::string_view u : parts)
        if (has(u, c) && is_tile_letter(u, c) != is_tile_letter(s, c))
          return einsum_problem::letter_with_two_roles;
  // Now the left tile is {x, y}, the right one {y, z}, x is not in the right operand, z not in
  // the left one, and the output's tile letters (tile letters of the operands, without y) are
  // {x, z}: a matrix product, up to the order of each tile's letters.
  return einsum_problem::none;
}

/// Which tiles are transposed so that each pair multiplies as C(x,z) = A(x,y) B(y,z): the left
/// tile when it is (y, x), the right one when it is (z, y), the output's when it is (z, x).
struct einsum_transposes {
  bool left = false, right = false, out = false;
};
constexpr einsum_transposes einsum_orientation(std::string_view spec) {
  const einsum_text t = split_einsum(spec);
  if (einsum_check(spec) != einsum_problem::none) return {};
  const char y = shared_tile_letter(t.left, t.right);
  const char z = other_tile_letter(t.right, y);
  return {t.left[t.left.size() - 2] == y, t.right[t.right.size() - 1] == y,
          t.out[t.out.size() - 2] == z};
}

/// The parsed spec "<left>,<right>-><out>": one letter per key position.
template <fixed_string S>
struct einsum_spec {
  static constexpr std::string_view text = S.view();
  static constexpr einsum_problem problem = einsum_check(text);
  static constexpr bool valid = problem == einsum_problem::none;
  static constexpr std::string_view left = split_einsum(text).left;
  static constexpr std::string_view right = split_einsum(text).right;
  static constexpr std::string_view out = split_einsum(text).out;
  static constexpr std::size_t kl = left.size(), kr = right.size(), gb = out.size();
  static constexpr std::size_t g = [] {
    std::size_t n = 0;
    for (char c : left) n += has(right, c) ? 1 : 0;
    return n;
  }();
  static constexpr std::size_t ko = kl + kr - g;
  static constexpr std::array<std::size_t, g> jl = [] {
    std::array<std::size_t, g> a{};
    std::size_t n = 0;
    for (std::size_t p = 0; p < kl; ++p)
      if (has(right, left[p]) && n < g) a[n++] = p;
    return a;
  }();
  static constexpr std::array<std::size_t, g> jr = [] {
    std::array<std::size_t, g> a{};
    for (std::size_t n = 0; n < g; ++n) a[n] = right.find(left[jl[n]]);
    return a;
  }();
  // the join's output key [L∖J, J, R∖J] as letters
  static constexpr std::array<char, ko> joined = [] {
    std::array<char, ko> a{};
    std::size_t n = 0;
    for (char c : left)
      if (!has(right, c) && n < ko) a[n++] = c;
    for (std::size_t p : jl)
      if (n < ko) a[n++] = left[p];
    for (char c : right)
      if (!has(left, c) && n < ko) a[n++] = c;
    return a;
  }();
  static constexpr std::array<std::size_t, gb> gbk = [] {
    std::array<std::size_t, gb> a{};
    for (std::size_t n = 0; n < gb; ++n)
      for (std::size_t p = 0; p < ko; ++p)
        if (joined[p] == out[n]) a[n] = p;
    return a;
  }();
  static constexpr einsum_transposes transposes = einsum_orientation(text);
};

// One static_assert per problem: only the spec's own problem fires (no cascade).
template <einsum_problem P>
struct einsum_diagnostic {
  static_assert(P != einsum_problem::malformed,
                "loom::tra::einsum: the spec is not \"<left>,<right>-><out>\" with one letter "
                "(a-z, A-Z) per key position; write it like \"ij,jk->ik\"");
  static_assert(P != einsum_problem::repeated_letter,
                "loom::tra::einsum: a letter repeats within an operand or the output (a diagonal "
                "or a trace), which is not supported yet; use distinct letters in each");
  static_assert(P != einsum_problem::output_letter_not_in_inputs,
                "loom::tra::einsum: an output letter appears in neither operand; take every "
                "output letter from the operands");
  static_assert(P != einsum_problem::fewer_than_two_letters,
                "loom::tra::einsum: an operand or the output has fewer than two letters, but its "
                "tiles are matrices whose rows and columns are its last two letters; vector and "
                "scalar operands or results are not supported yet (store a vector as an n x 1 "
                "matrix)");
  static_assert(P != einsum_problem::tiles_not_a_matrix_product,
                "loom::tra::einsum: the operands' tile letters (the last two of each) must share "
                "exactly one letter, because tile pairs multiply as matrices; element-wise, outer "
                "and double contractions of tiles are not supported yet");
  static_assert(P != einsum_problem::contracted_letter_kept,
                "loom::tra::einsum: the letter shared by the operands' tiles is kept in the "
                "output, but the tile product sums over it; drop it from the output (a letter "
                "kept from both operands must be a batch letter, as b in \"bij,bjk->bik\")");
  static_assert(P != einsum_problem::letter_with_two_roles,
                "loom::tra::einsum: a letter is a tile row or column (one of the last two "
                "letters) in one operand or the output but a batch letter (an earlier one) in "
                "another; give every letter the same role everywhere, batch letters first");
  static constexpr bool ok = P == einsum_problem::none;
};

template <class Seq, const auto& A>
struct dims_of;
template <std::size_t... I, const auto& A>
struct dims_of<std::index_sequence<I...>, A> {
  using type = ia::dims<A[I]...>;
};
template <const auto& A>
using dims_of_t = typename dims_of<std::make_index_sequence<A.size()>, A>::type;

template <bool Transpose, class C>
using transposed_if = std::conditional_t<Transpose, ia::lmap<ia::same_key, transpose_tile, C>, C>;

template <fixed_string S, class LeftPart, class RightPart, bool Valid = einsum_spec<S>::valid>
struct einsum_plan : einsum_diagnostic<einsum_spec<S>::problem> {
  using type = void;
};
template <fixed_string S, class LeftPart, class RightPart>
struct einsum_plan<S, LeftPart, RightPart, true> {
  using spec = einsum_spec<S>;
  using type = transposed_if<
      spec::transposes.out,
      ia::lagg<dims_of_t<spec::gbk>, mat_add,
               ia::ljoin<dims_of_t<spec::jl>, dims_of_t<spec::jr>, mat_mul,
                         transposed_if<spec::transposes.left, ia::leaf<0, spec::kl, LeftPart>>,
                         transposed_if<spec::transposes.right, ia::leaf<1, spec::kr, RightPart>>>>>;
};

// The checked einsum: transposes where a tile runs the other way, then Σ∘⋈ (fused).
template <class T, std::size_t KL, std::size_t KR, std::size_t G, std::size_t GB>
relation<T, GB, 2> einsum_run(const relation<T, KL, 2>& l, const relation<T, KR, 2>& r,
                              const std::array<std::size_t, G>& jl,
                              const std::array<std::size_t, G>& jr,
                              const std::array<std::size_t, GB>& gbk, einsum_transposes t) {
  relation<T, KL, 2> lt;
  relation<T, KR, 2> rt;
  if (t.left) lt = transform(l, transpose_tile{});
  if (t.right) rt = transform(r, transpose_tile{});
  relation<T, GB, 2> out =
      join_aggregate(t.left ? lt : l, t.right ? rt : r, jl, jr, mat_mul{}, gbk, mat_add{});
  if (t.out) return transform(out, transpose_tile{});
  return out;
}
}  // namespace detail

/// The IA plan of einsum S over inputs 0 and 1, placed as LeftPart and RightPart (to run it,
/// one side must be replicated or both co-partitioned on the join keys). A tile transposed by
/// einsum is a λᴸ(_, transpose) over its leaf, or over the whole plan for the output's.
template <fixed_string S, class LeftPart = ia::arbitrary, class RightPart = ia::arbitrary>
using einsum_plan_t = typename detail::einsum_plan<S, LeftPart, RightPart>::type;

/// einsum over the keys of two relations of matrix tiles: letters name key positions; the last
/// two letters of each operand and of the output also name its tiles' rows and columns (each
/// such index is split into a key part and a tile part, notes §2.3), earlier letters are batch
/// letters (key only). Each tile pair contracts as a matrix product over the one letter the two
/// tiles share; tiles whose letters run the other way are transposed. See docs/tra.md.
template <fixed_string S, class T, std::size_t KL, std::size_t KR>
auto einsum(const relation<T, KL, 2>& l, const relation<T, KR, 2>& r) {
  using spec = detail::einsum_spec<S>;
  constexpr bool supported = detail::einsum_diagnostic<spec::problem>::ok;
  constexpr bool arities_match = spec::kl == KL && spec::kr == KR;
  static_assert(!supported || arities_match,
                "loom::tra::einsum: an operand's letters are not as many as its relation's key "
                "positions; give one letter per key position of each relation");
  if constexpr (supported && arities_match)
    return detail::einsum_run(l, r, spec::jl, spec::jr, spec::gbk, spec::transposes);
  else
    return relation<T, spec::gb, 2>{};  // placeholder after the error above
}

}  // namespace loom::tra

#endif  // LOOM_TRA_EINSUM_HPP
// ---- end <loom/tra/einsum.hpp>
// ---- begin <loom/tra/ia/execute.hpp>
// Defines execute/evaluate: runs an IA plan over a transport. `local_sites` simulates s sites in
// one process (BCAST copies, SHUF re-buckets); tra/mpi/ provides the MPI transport (tra/ia/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_IA_EXECUTE_HPP
#define LOOM_TRA_IA_EXECUTE_HPP

// ---- begin <loom/tra/ia/placement.hpp>
// Defines where a tuple lives: the partition function over the positions D (shared by the
// single-machine executor and the MPI transport, so both place tuples alike) (tra/ia/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_IA_PLACEMENT_HPP
#define LOOM_TRA_IA_PLACEMENT_HPP


#include <cstddef>
#include <cstdint>
#include <span>

namespace loom::tra::ia {

/// The site of `key` when partitioned on positions `d`: Π_D(key) linearised in its key box,
/// modulo the number of sites (a block-cyclic spread, balanced on full boxes). Tuples equal on
/// D land together, and two relations with equal bounds on D use the same function.
template <std::size_t K>
std::int64_t site_of(const key_array<K>& key, const key_array<K>& bounds, std::span<const std::size_t> d,
                     std::int64_t sites) {
  std::int64_t lin = 0;
  for (std::size_t p : d) lin = lin * bounds[p] + key[p];
  return sites <= 0 ? 0 : lin % sites;
}

/// How an input is placed before a plan runs.
enum class placement_kind { arbitrary, partitioned, replicated, single };

}  // namespace loom::tra::ia

#endif  // LOOM_TRA_IA_PLACEMENT_HPP
// ---- end <loom/tra/ia/placement.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom::tra::ia {

/// s sites in one process: a physical relation is one relation per site. `moved` counts the
/// elements (tuples x tile volume) that changed site, for comparison with the cost model.
class local_sites {
 public:
  template <class Rel>
  using phys = std::vector<Rel>;

  explicit local_sites(std::int64_t sites) : sites_(sites < 1 ? 1 : sites) {}
  std::int64_t sites() const { return sites_; }
  double moved() const { return moved_; }

  template <class Rel>
  phys<Rel> place(const Rel& r, placement_kind kind, std::span<const std::size_t> d) const {
    phys<Rel> out(static_cast<std::size_t>(sites_), Rel(r.bounds(), r.tile_shape()));
    std::int64_t ordinal = 0;
    for (const auto& [key, t] : r) {
      switch (kind) {
        case placement_kind::replicated:
          for (auto& site : out) site.insert(key, t);
          break;
        case placement_kind::single: out[0].insert(key, t); break;
        case placement_kind::partitioned:
          out[static_cast<std::size_t>(site_of(key, r.bounds(), d, sites_))].insert(key, t);
          break;
        case placement_kind::arbitrary:
          out[static_cast<std::size_t>(ordinal % sites_)].insert(key, t);
          break;
      }
      ++ordinal;
    }
    return out;
  }
  template <class Rel>
  phys<Rel> broadcast(const phys<Rel>& p) const {
    Rel all = union_of(p, false);
    phys<Rel> out(static_cast<std::size_t>(sites_), all);
    for (std::size_t s = 0; s < p.size(); ++s)
      moved_ += static_cast<double>((all.size() - p[s].size()) * volume(all.tile_shape()));
    return out;
  }
  /// SHUF(d); an empty d gathers everything on site 0.
  template <class Rel>
  phys<Rel> shuffle(const phys<Rel>& p, std::span<const std::size_t> d) const {
    phys<Rel> out(static_cast<std::size_t>(sites_), Rel(p[0].bounds(), p[0].tile_shape()));
    for (std::size_t s = 0; s < p.size(); ++s)
      for (const auto& [key, t] : p[s]) {
        const std::int64_t to = d.empty() ? 0 : site_of(key, p[s].bounds(), d, sites_);
        auto& dst = out[static_cast<std::size_t>(to)];
        if (dst.find(key)) continue;  // a replica already arrived
        dst.insert(key, t);
        if (to != static_cast<std::int64_t>(s)) moved_ += static_cast<double>(volume(t.shape()));
      }
    return out;
  }
  template <class Rel, class F>
  auto local(const phys<Rel>& p, F f) const {
    using Out = std::remove_cvref_t<decltype(f(p[0]))>;
    phys<Out> out;
    for (const auto& site : p) out.push_back(f(site));
    return out;
  }
  /// f(site, rel) on every site.
  template <class Rel, class F>
  auto local_site(const phys<Rel>& p, F f) const {
    using Out = std::remove_cvref_t<decltype(f(std::int64_t{0}, p[0]))>;
    phys<Out> out;
    for (std::size_t s = 0; s < p.size(); ++s) out.push_back(f(static_cast<std::int64_t>(s), p[s]));
    return out;
  }
  template <class A, class B, class F>
  auto local2(const phys<A>& a, const phys<B>& b, F f) const {
    using Out = std::remove_cvref_t<decltype(f(a[0], b[0]))>;
    phys<Out> out;
    for (std::size_t s = 0; s < a.size(); ++s) out.push_back(f(a[s], b[s]));
    return out;
  }
  /// Π_{key,array} of every site: replicas collapse; two different tiles under one key mean a
  /// local join or aggregation ran on incomplete data, which is reported, never hidden.
  template <class Rel>
  Rel collect(const phys<Rel>& p) const {
    return union_of(p, true);
  }

 private:
  template <class Rel>
  static Rel union_of(const phys<Rel>& p, bool check) {
    Rel all(p[0].bounds(), p[0].tile_shape());
    for (std::size_t s = 0; s < p.size(); ++s)
      for (const auto& [key, t] : p[s]) {
        if (const auto* have = all.find(key)) {
          if (check && !(*have == t))
            throw shape_error("loom::tra::ia: key " + to_string(key) +
                              " holds different tiles on two sites (a local join or aggregation "
                              "ran on incomplete data; shuffle on its keys first)");
          continue;
        }
        all.insert(key, t);
      }
    return all;
  }
  std::int64_t sites_;
  mutable double moved_ = 0;
};

namespace detail {
template <class P>
struct placement_of {
  static constexpr placement_kind kind = placement_kind::arbitrary;
  static constexpr std::array<std::size_t, 0> dims{};
};
template <>
struct placement_of<replicated> {
  static constexpr placement_kind kind = placement_kind::replicated;
  static constexpr std::array<std::size_t, 0> dims{};
};
template <>
struct placement_of<single> {
  static constexpr placement_kind kind = placement_kind::single;
  static constexpr std::array<std::size_t, 0> dims{};
};
template <class D>
struct placement_of<partitioned<D>> {
  static constexpr placement_kind kind = placement_kind::partitioned;
  static constexpr auto dims = D::values;
};

template <class KM, class Rel>
auto apply_key_map(const Rel& r) {
  if constexpr (std::is_same_v<KM, same_key>) return r;
  else return rekey<KM>(r);
}
template <class A, class Rel>
auto apply_tile_map(const Rel& r) {
  if constexpr (std::is_same_v<A, same_tile>) return r;
  else return transform(r, A{});
}

template <class Plan>
struct exec;

template <std::size_t I, std::size_t K, class P>
struct exec<leaf<I, K, P>> {
  template <class Tr, class In>
  static auto run(const Tr& tr, const In& in) {
    const auto& r = std::get<I>(in);
    static_assert(std::remove_cvref_t<decltype(r)>::key_arity == K,
                  "loom::tra::ia::execute: a leaf's key-arity differs from its input's");
    using pl = placement_of<P>;
    return tr.place(r, pl::kind, std::span<const std::size_t>(pl::dims));
  }
};
template <class C>
struct exec<bcast<C>> {
  template <class Tr, class In>
  static auto run(const Tr& tr, const In& in) {
    return tr.broadcast(exec<C>::run(tr, in));
  }
};
template <class D, class C>
struct exec<shuf<D, C>> {
  template <class Tr, class In>
  static auto run(const Tr& tr, const In& in) {
    return tr.shuffle(exec<C>::run(tr, in), std::span<const std::size_t>(D::values));
  }
};
template <class F, class C>
struct exec<lfilter<F, C>> {
  template <class Tr, class In>
  static auto run(const Tr& tr, const In& in) {
    return tr.local(exec<C>::run(tr, in), [](const auto& r) { return filter(r, F{}); });
  }
};
template <class KM, class A, class C>
struct exec<lmap<KM, A, C>> {
  template <class Tr, class In>
  static auto run(const Tr& tr, const In& in) {
    return tr.local(exec<C>::run(tr, in),
                    [](const auto& r) { return apply_tile_map<A>(apply_key_map<KM>(r)); });
  }
};
template <class G, class Op, class C>
struct exec<lagg<G, Op, C>> {
  template <class Tr, class In>
  static auto run(const Tr& tr, const In& in) {
    return tr.local(exec<C>::run(tr, in), [](const auto& r) { return aggregate(r, G::values, Op{}); });
  }
};
template <class G, class Op, class C>
struct exec<lpartial<G, Op, C>> {
  template <class Tr, class In>
  static auto run(const Tr& tr, const In& in) {
    const std::int64_t sites = tr.sites();
    return tr.local_site(exec<C>::run(tr, in), [sites](std::int64_t site, const auto& r) {
      const auto a = aggregate(r, G::values, Op{});
      using A = std::remove_cvref_t<decltype(a)>;
      constexpr std::size_t K = A::key_arity;
      key_array<K + 1> bounds{};
      for (std::size_t d = 0; d < K; ++d) bounds[d] = a.bounds()[d];
      bounds[K] = sites;
      relation<typename A::value_type, K + 1, A::rank> out(bounds, a.tile_shape());
      for (const auto& [key, t] : a) {
        key_array<K + 1> k{};
        for (std::size_t d = 0; d < K; ++d) k[d] = key[d];
        k[K] = site;
        out.insert(k, t);
      }
      return out;
    });
  }
};
template <class JL, class JR, class Op, class L, class R>
struct exec<ljoin<JL, JR, Op, L, R>> {
  static constexpr bool complete = join_complete<partition_t<L>, partition_t<R>, JL, JR>::value;
  template <class Tr, class In>
  static auto run(const Tr& tr, const In& in) {
    static_assert(complete,
                  "loom::tra::ia::execute: a local join whose inputs are not co-located would "
                  "lose pairs; broadcast one side, or shuffle both on matching join keys");
    return tr.local2(exec<L>::run(tr, in), exec<R>::run(tr, in), [](const auto& a, const auto& b) {
      return join(a, b, JL::values, JR::values, Op{});
    });
  }
};
// Σᴸ directly over ⋈ᴸ: one fused local operator (join_aggregate decides whether it can fuse).
template <class G, class Op, class JL, class JR, class P, class L, class R>
struct exec<lagg<G, Op, ljoin<JL, JR, P, L, R>>> {
  template <class Tr, class In>
  static auto run(const Tr& tr, const In& in) {
    static_assert(exec<ljoin<JL, JR, P, L, R>>::complete,
                  "loom::tra::ia::execute: a local join whose inputs are not co-located would "
                  "lose pairs; broadcast one side, or shuffle both on matching join keys");
    return tr.local2(exec<L>::run(tr, in), exec<R>::run(tr, in), [](const auto& a, const auto& b) {
      if constexpr (std::remove_cvref_t<decltype(a)>::rank == 2 &&
                    std::remove_cvref_t<decltype(b)>::rank == 2)
        return join_aggregate(a, b, JL::values, JR::values, P{}, G::values, Op{});
      else
        return aggregate(join(a, b, JL::values, JR::values, P{}), G::values, Op{});
    });
  }
};
template <std::size_t P, std::size_t From, std::size_t Dim, class C>
struct exec<ldup<P, From, Dim, C>> {
  template <class Tr, class In>
  static auto run(const Tr& tr, const In& in) {
    const std::int64_t n = std::get<From>(in).bounds()[Dim];
    return tr.local(exec<C>::run(tr, in), [n](const auto& r) { return duplicate<P>(r, n); });
  }
};
}  // namespace detail

/// Runs `Plan` over the transport; the result stays distributed (one relation per site).
template <class Plan, class Transport, class... Inputs>
auto execute(const Transport& tr, const Inputs&... inputs) {
  return detail::exec<Plan>::run(tr, std::forward_as_tuple(inputs...));
}

/// Runs `Plan` and collects the logical result (the union of every site's tuples).
template <class Plan, class Transport, class... Inputs>
auto evaluate(const Transport& tr, const Inputs&... inputs) {
  return tr.collect(execute<Plan>(tr, inputs...));
}

}  // namespace loom::tra::ia

#endif  // LOOM_TRA_IA_EXECUTE_HPP
// ---- end <loom/tra/ia/execute.hpp>
// ---- begin <loom/tra/ia/rewrite.hpp>
// Defines rewrite_t<Plan, Rules>: applies IA rules bottom-up to a fixpoint (depth-bounded), the
// way loom's rules are matched: `rule_applies_to<R, E>` is `R::apply(e)` resolving (tra/ia/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_IA_REWRITE_HPP
#define LOOM_TRA_IA_REWRITE_HPP


#include <boost/mp11/list.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace loom::tra::ia {

/// Rule R matches plan node E (overload resolution on R::apply is the pattern match).
template <class R, class E>
concept rule_applies_to = requires(E e) { R::apply(e); };

template <class R, class E>
using apply_rule_t = decltype(R::apply(std::declval<E>()));

namespace detail {
template <class E, class Rules>
struct rewrite_once_impl {
  using type = E;
  static constexpr bool changed = false;
};
template <class E, class R, class... Rs>
struct rewrite_once_impl<E, boost::mp11::mp_list<R, Rs...>>
    : rewrite_once_impl<E, boost::mp11::mp_list<Rs...>> {};
template <class E, class R, class... Rs>
  requires rule_applies_to<R, E>
struct rewrite_once_impl<E, boost::mp11::mp_list<R, Rs...>> {
  using type = apply_rule_t<R, E>;
  static constexpr bool changed = true;
};

template <class E, class Rules, std::size_t Fuel>
struct rewrite_impl;

// children first, then the root, then again on a changed root (Fuel bounds the depth)
template <class E, class Rules, std::size_t Fuel>
struct rewrite_children {
  using type = E;
};
template <class C, class Rules, std::size_t Fuel>
struct rewrite_children<bcast<C>, Rules, Fuel> {
  using type = bcast<typename rewrite_impl<C, Rules, Fuel>::type>;
};
template <class D, class C, class Rules, std::size_t Fuel>
struct rewrite_children<shuf<D, C>, Rules, Fuel> {
  using type = shuf<D, typename rewrite_impl<C, Rules, Fuel>::type>;
};
template <class F, class C, class Rules, std::size_t Fuel>
struct rewrite_children<lfilter<F, C>, Rules, Fuel> {
  using type = lfilter<F, typename rewrite_impl<C, Rules, Fuel>::type>;
};
template <class K, class A, class C, class Rules, std::size_t Fuel>
struct rewrite_children<lmap<K, A, C>, Rules, Fuel> {
  using type = lmap<K, A, typename rewrite_impl<C, Rules, Fuel>::type>;
};
template <class G, class Op, class C, class Rules, std::size_t Fuel>
struct rewrite_children<lagg<G, Op, C>, Rules, Fuel> {
  using type = lagg<G, Op, typename rewrite_impl<C, Rules, Fuel>::type>;
};
template <class G, class Op, class C, class Rules, std::size_t Fuel>
struct rewrite_children<lpartial<G, Op, C>, Rules, Fuel> {
  using type = lpartial<G, Op, typename rewrite_impl<C, Rules, Fuel>::type>;
};
template <class JL, class JR, class Op, class L, class R, class Rules, std::size_t Fuel>
struct rewrite_children<ljoin<JL, JR, Op, L, R>, Rules, Fuel> {
  using type = ljoin<JL, JR, Op, typename rewrite_impl<L, Rules, Fuel>::type,
                     typename rewrite_impl<R, Rules, Fuel>::type>;
};
template <std::size_t P, std::size_t From, std::size_t Dim, class C, class Rules, std::size_t Fuel>
struct rewrite_children<ldup<P, From, Dim, C>, Rules, Fuel> {
  using type = ldup<P, From, Dim, typename rewrite_impl<C, Rules, Fuel>::type>;
};

template <class E, class Rules>
struct rewrite_impl<E, Rules, 0> {
  using type = E;  // out of fuel: stop (a rule set that cycles is cut here)
};
template <bool Changed, class Next, class Inner, class Rules, std::size_t Fuel>
struct continue_if {  // not changed: a fixpoint (only the taken branch is instantiated)
  using type = Inner;
};
template <class Next, class Inner, class Rules, std::size_t Fuel>
struct continue_if<true, Next, Inner, Rules, Fuel> {
  using type = typename rewrite_impl<Next, Rules, Fuel>::type;
};
template <class E, class Rules, std::size_t Fuel>
struct rewrite_impl {
  using inner = typename rewrite_children<E, Rules, Fuel - 1>::type;
  using once = rewrite_once_impl<inner, Rules>;
  using type =
      typename continue_if<once::changed, typename once::type, inner, Rules, Fuel - 1>::type;
};
}  // namespace detail

/// The plan after applying `Rules` (an mp_list, order = priority) bottom-up to a fixpoint.
template <class Plan, class Rules, std::size_t Fuel = 16>
using rewrite_t = typename detail::rewrite_impl<Plan, Rules, Fuel>::type;

}  // namespace loom::tra::ia

#endif  // LOOM_TRA_IA_REWRITE_HPP
// ---- end <loom/tra/ia/rewrite.hpp>
// ---- begin <loom/tra/ia/to_string.hpp>
// Defines ia::to_string<Plan>(): an IA plan type printed in the paper's notation, e.g.
// "Σᴸ<0,2>(add, SHUF<0,2>(⋈ᴸ<1>,<0>(matmul, BCAST(R0), R1{1})))" (STYLE.md H21) (tra/ia/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_IA_TO_STRING_HPP
#define LOOM_TRA_IA_TO_STRING_HPP


#include <cstddef>
#include <string>
#include <string_view>

namespace loom::tra::ia {

namespace detail {
template <class D>
std::string dims_text() {
  std::string out = "<";
  for (std::size_t n = 0; n < D::size; ++n) out += (n ? "," : "") + std::to_string(D::values[n]);
  return out + ">";
}
template <class F>
std::string fn_name() {
  if constexpr (requires { F::name; }) return std::string(F::name);
  else return "f";
}
template <class D>
std::string partition_dims_text(partitioned<D>) {
  std::string out;
  for (std::size_t n = 0; n < D::size; ++n) out += (n ? "," : "") + std::to_string(D::values[n]);
  return out;
}
template <class P>
std::string placement_text() {
  if constexpr (std::is_same_v<P, replicated>) return "{*}";
  else if constexpr (std::is_same_v<P, single>) return "{site 0}";
  else if constexpr (std::is_same_v<P, arbitrary>) return "";
  else return "{" + partition_dims_text(P{}) + "}";
}

template <class Plan>
struct printer;
template <std::size_t I, std::size_t K, class P>
struct printer<leaf<I, K, P>> {
  static std::string text() { return "R" + std::to_string(I) + placement_text<P>(); }
};
template <class C>
struct printer<bcast<C>> {
  static std::string text() { return "BCAST(" + printer<C>::text() + ")"; }
};
template <class D, class C>
struct printer<shuf<D, C>> {
  static std::string text() { return "SHUF" + dims_text<D>() + "(" + printer<C>::text() + ")"; }
};
template <class F, class C>
struct printer<lfilter<F, C>> {
  static std::string text() { return "σᴸ(" + fn_name<F>() + ", " + printer<C>::text() + ")"; }
};
template <class KM, class A, class C>
struct printer<lmap<KM, A, C>> {
  static std::string text() {
    const std::string k = std::is_same_v<KM, same_key> ? "_" : fn_name<KM>();
    const std::string a = std::is_same_v<A, same_tile> ? "_" : fn_name<A>();
    return "λᴸ(" + k + ", " + a + ", " + printer<C>::text() + ")";
  }
};
template <class G, class Op, class C>
struct printer<lagg<G, Op, C>> {
  static std::string text() {
    return "Σᴸ" + dims_text<G>() + "(" + fn_name<Op>() + ", " + printer<C>::text() + ")";
  }
};
template <class G, class Op, class C>
struct printer<lpartial<G, Op, C>> {
  static std::string text() {
    return "Σᴸ⁺" + dims_text<G>() + "(" + fn_name<Op>() + ", " + printer<C>::text() + ")";
  }
};
template <class JL, class JR, class Op, class L, class R>
struct printer<ljoin<JL, JR, Op, L, R>> {
  static std::string text() {
    return "⋈ᴸ" + dims_text<JL>() + "," + dims_text<JR>() + "(" + fn_name<Op>() + ", " +
           printer<L>::text() + ", " + printer<R>::text() + ")";
  }
};
template <std::size_t P, std::size_t From, std::size_t Dim, class C>
struct printer<ldup<P, From, Dim, C>> {
  static std::string text() {
    return "λᴸ(insertDim(" + std::to_string(P) + "), duplicate(bound " + std::to_string(Dim) +
           " of R" + std::to_string(From) + "), " + printer<C>::text() + ")";
  }
};
}  // namespace detail

/// The plan in the paper's notation (R<i>{D} is input i placed on positions D; {*} replicated).
template <class Plan>
std::string to_string() {
  return detail::printer<Plan>::text();
}

}  // namespace loom::tra::ia

#endif  // LOOM_TRA_IA_TO_STRING_HPP
// ---- end <loom/tra/ia/to_string.hpp>
// ---- begin <loom/tra/plans.hpp>
// Defines the distributed matmul plans of notes 003 §4.3 as IA plan types (broadcast left,
// broadcast right, cross product, replicated 3-D) for inputs placed as XPart and YPart, and the
// generic rules applied to them (R2-4 drops the final shuffle when partitions allow) (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_PLANS_HPP
#define LOOM_TRA_PLANS_HPP

// ---- begin <loom/tra/rules/rule_sets.hpp>
// Defines the rule sets (MP11 lists, order = priority) used by loom::tra::ia::rewrite_t
// (tra/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_RULES_RULE_SETS_HPP
#define LOOM_TRA_RULES_RULE_SETS_HPP

// ---- begin <loom/tra/rules/lambda_composition.hpp>
// Defines the lambda-composition rules R1-1 .. R1-7 over IA plans (notes 003 §4.1, with its
// corrected conditions). Each rule's `apply` overloads are the pattern (parameter) and the
// replacement (trailing return type); `requires` holds the side condition (STYLE.md H12).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_RULES_LAMBDA_COMPOSITION_HPP
#define LOOM_TRA_RULES_LAMBDA_COMPOSITION_HPP


#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

namespace loom::tra::rules {
using namespace loom::tra::ia;

/// R1-1  σᴸ(f1, σᴸ(f2, R))  ==>  σᴸ(f1 ∧ f2, R)   (unconditional)
struct merge_filters {
  static constexpr std::string_view name = "R1-1 merge_filters";
  template <class F1, class F2, class C>
  static auto apply(lfilter<F1, lfilter<F2, C>>) -> lfilter<and_<F1, F2>, C>;
};

/// R1-2  λᴸ(k1, a1, λᴸ(k2, a2, R))  ==>  λᴸ(k1∘k2, a1∘a2, R)   (one-to-one maps)
struct merge_maps {
  static constexpr std::string_view name = "R1-2 merge_maps";
  template <class K1, class A1, class K2, class A2, class C>
  static auto apply(lmap<K1, A1, lmap<K2, A2, C>>)
      -> lmap<std::conditional_t<std::is_same_v<K1, same_key>, K2,
                                 std::conditional_t<std::is_same_v<K2, same_key>, K1, compose<K1, K2>>>,
              std::conditional_t<std::is_same_v<A1, same_tile>, A2,
                                 std::conditional_t<std::is_same_v<A2, same_tile>, A1, compose<A1, A2>>>,
              C>;
};

/// R1-3  σᴸ(f, λᴸ(id, a, R))  ==>  λᴸ(id, a, σᴸ(f, R))   if the key map is the identity
/// (the profitable direction: filter before paying for the map)
struct filter_before_map {
  static constexpr std::string_view name = "R1-3 filter_before_map";
  template <class F, class A, class C>
  static auto apply(lfilter<F, lmap<same_key, A, C>>) -> lmap<same_key, A, lfilter<F, C>>;
};

/// R1-4  λᴸ(id, a, Σᴸ(g, op, R))  ==>  Σᴸ(g, op, λᴸ(id, a, R))   if a distributes over op
/// (a(op(x, y)) = op(a(x), a(y))) and the key map is the identity. The non-distributive form
/// (a as a finaliser) is not a rewrite here: applying a at every fold step would be wrong.
struct map_into_aggregation {
  static constexpr std::string_view name = "R1-4 map_into_aggregation";
  template <class A, class G, class Op, class C>
    requires distributes_over<A, Op>
  static auto apply(lmap<same_key, A, lagg<G, Op, C>>) -> lagg<G, Op, lmap<same_key, A, C>>;
};

namespace detail {
// Rebuilds the aggregated key from an input key: the projection onto gbk.
template <class G>
struct project_gbk {
  template <class K>
  auto operator()(const K& k) const {
    std::array<std::int64_t, G::size> o{};
    for (std::size_t n = 0; n < G::size; ++n) o[n] = k[G::values[n]];
    return o;
  }
};
// Rebuilds the join-key segment of a join's output key from one side's key: positions JSide go
// to output positions [Skip, Skip + |J|); other positions are left 0 (the predicate must not
// read them: checked by the rule's condition).
template <class JSide, std::size_t Skip, std::size_t KO>
struct join_key_as_output {
  template <class K>
  auto operator()(const K& k) const {
    std::array<std::int64_t, KO> o{};
    for (std::size_t n = 0; n < JSide::size; ++n) o[Skip + n] = k[JSide::values[n]];
    return o;
  }
};
template <std::size_t Skip, std::size_t G>
constexpr std::array<std::size_t, G> segment() {
  std::array<std::size_t, G> a{};
  for (std::size_t n = 0; n < G; ++n) a[n] = Skip + n;
  return a;
}
}  // namespace detail

/// R1-5  σᴸ(f, Σᴸ(g, op, R))  ==>  Σᴸ(g, op, σᴸ(f∘Π_g, R))   (predicate pushdown below the
/// aggregation; sound because f sees only the output key, which is Π_g of every input key)
struct filter_into_aggregation {
  static constexpr std::string_view name = "R1-5 filter_into_aggregation";
  template <class F, class G, class Op, class C>
  static auto apply(lfilter<F, lagg<G, Op, C>>)
      -> lagg<G, Op, lfilter<pred_on<F, detail::project_gbk<G>>, C>>;
};

/// R1-6  σᴸ(f, ⋈ᴸ(jl, jr, op, L, R))  ==>  ⋈ᴸ(jl, jr, op, σᴸ(f', L), σᴸ(f', R))   if f reads
/// only the join-key positions of the output (then it can be decided on either side first)
struct filter_into_join {
  static constexpr std::string_view name = "R1-6 filter_into_join";
  template <class F, class JL, class JR, class Op, class L, class R,
            std::size_t Skip = arity_v<L> - JL::size,
            std::size_t KO = arity_v<ljoin<JL, JR, Op, L, R>>>
    requires(reads_only<F>(detail::segment<Skip, JL::size>()))
  static auto apply(lfilter<F, ljoin<JL, JR, Op, L, R>>)
      -> ljoin<JL, JR, Op, lfilter<pred_on<F, detail::join_key_as_output<JL, Skip, KO>>, L>,
               lfilter<pred_on<F, detail::join_key_as_output<JR, Skip, KO>>, R>>;
};

/// R1-7  λᴸ(k, a, ⋈ᴸ(jl, jr, op, L, R))  ==>  λᴸ(k, id, ⋈ᴸ(jl, jr, op, λᴸ(id, a, L), λᴸ(id, a, R)))
/// if a distributes over op (the special case: map each input, then combine; diag over add).
struct map_into_join {
  static constexpr std::string_view name = "R1-7 map_into_join";
  template <class KM, class A, class JL, class JR, class Op, class L, class R>
    requires distributes_over<A, Op>
  static auto apply(lmap<KM, A, ljoin<JL, JR, Op, L, R>>)
      -> lmap<KM, same_tile, ljoin<JL, JR, Op, lmap<same_key, A, L>, lmap<same_key, A, R>>>;
};

}  // namespace loom::tra::rules

#endif  // LOOM_TRA_RULES_LAMBDA_COMPOSITION_HPP
// ---- end <loom/tra/rules/lambda_composition.hpp>
// ---- begin <loom/tra/rules/repartition.hpp>
// Defines the repartition rules R2-1 .. R2-7 over IA plans (notes 003 §4.1, with the corrected
// conditions: R2-4 reads the input's existing partition, R2-5 needs an associative and
// commutative op and shuffles on renumbered positions, R2-7 needs a complete join) (tra/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_RULES_REPARTITION_HPP
#define LOOM_TRA_RULES_REPARTITION_HPP


#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

namespace loom::tra::rules {
using namespace loom::tra::ia;

/// R2-1  SHUF(p2, SHUF(p1, R))  ==>  SHUF(p2, R)   (and a BCAST under a SHUF is dropped too)
struct collapse_shuffles {
  static constexpr std::string_view name = "R2-1 collapse_shuffles";
  template <class D2, class D1, class C>
  static auto apply(shuf<D2, shuf<D1, C>>) -> shuf<D2, C>;
};

/// R2-2  σᴸ(f, BCAST(R)) ==> BCAST(σᴸ(f, R));  σᴸ(f, SHUF(p, R)) ==> SHUF(p, σᴸ(f, R))
/// (filter before moving data)
struct filter_before_move {
  static constexpr std::string_view name = "R2-2 filter_before_move";
  template <class F, class C>
  static auto apply(lfilter<F, bcast<C>>) -> bcast<lfilter<F, C>>;
  template <class F, class D, class C>
  static auto apply(lfilter<F, shuf<D, C>>) -> shuf<D, lfilter<F, C>>;
};

/// R2-3  λᴸ(id, a, BCAST(R)) ==> BCAST(λᴸ(id, a, R)); the same under SHUF(p) — only when the
/// key map is the identity, so p means the same positions before and after the map.
struct map_before_move {
  static constexpr std::string_view name = "R2-3 map_before_move";
  template <class A, class C>
    requires(!std::is_same_v<A, same_tile>)
  static auto apply(lmap<same_key, A, bcast<C>>) -> bcast<lmap<same_key, A, C>>;
  template <class A, class D, class C>
    requires(!std::is_same_v<A, same_tile>)
  static auto apply(lmap<same_key, A, shuf<D, C>>) -> shuf<D, lmap<same_key, A, C>>;
};

/// λᴸ(id, id, R) ==> R (what R1-2 and R1-7 leave behind).
struct drop_identity_map {
  static constexpr std::string_view name = "drop_identity_map";
  template <class C>
  static auto apply(lmap<same_key, same_tile, C>) -> C;
};

/// R2-4  Σᴸ(g, op, SHUF(p, R))  ==>  Σᴸ(g, op, R)   if R is already partitioned on a non-empty
/// D ⊆ g (then every group already lives on one site).
struct skip_shuffle_before_aggregation {
  static constexpr std::string_view name = "R2-4 skip_shuffle_before_aggregation";
  template <class G, class Op, class D, class C>
    requires ia::detail::agg_complete<partition_t<C>, G>::value &&
             (!std::is_same_v<partition_t<C>, replicated>)
  static auto apply(lagg<G, Op, shuf<D, C>>) -> lagg<G, Op, C>;
};

namespace detail {
template <class Seq>
struct iota_dims_impl;
template <std::size_t... I>
struct iota_dims_impl<std::index_sequence<I...>> {
  using type = dims<I...>;
};
template <std::size_t N>
using iota_dims = typename iota_dims_impl<std::make_index_sequence<N>>::type;
template <class C>
inline constexpr bool is_lagg = false;
template <class G, class Op, class C>
inline constexpr bool is_lagg<lagg<G, Op, C>> = true;
template <class G, class Op, class C>
inline constexpr bool is_lagg<lpartial<G, Op, C>> = true;
}  // namespace detail

/// R2-5  Σᴸ(g, op, SHUF(p, R))  ==>  Σᴸ(0..|g|-1, op, SHUF(p', Σᴸ⁺(g, op, R)))   (a combiner;
/// Σᴸ⁺ = lpartial keeps the site in the key so partial sums of one group stay distinct)
/// if op is associative and commutative, p ⊆ g (p' is p renumbered into g's positions), and the
/// input is not already grouped (else R2-4 applies) nor already pre-aggregated.
struct two_phase_aggregation {
  static constexpr std::string_view name = "R2-5 two_phase_aggregation";
  template <class G, class Op, class D, class C>
    requires Op::associative && Op::commutative && ia::detail::renumber<D, G>::ok &&
             (!ia::detail::agg_complete<partition_t<C>, G>::value) && (!detail::is_lagg<C>)
  static auto apply(lagg<G, Op, shuf<D, C>>)
      -> lagg<detail::iota_dims<G::size>, Op,
              shuf<typename ia::detail::renumber<D, G>::type, lpartial<G, Op, C>>>;
};

/// R2-6  ⋈ᴸ(BCAST L, R) == ⋈ᴸ(L, BCAST R) == ⋈ᴸ(SHUF(jl) L, SHUF(jr) R): alternatives, not a
/// simplification; plan enumeration uses these two (never the fixpoint driver).
struct broadcast_other_side {
  static constexpr std::string_view name = "R2-6 broadcast_other_side";
  template <class JL, class JR, class Op, class L, class R>
  static auto apply(ljoin<JL, JR, Op, bcast<L>, R>) -> ljoin<JL, JR, Op, L, bcast<R>>;
};
struct shuffle_join {
  static constexpr std::string_view name = "R2-6 shuffle_join";
  template <class JL, class JR, class Op, class L, class R>
  static auto apply(ljoin<JL, JR, Op, bcast<L>, R>) -> ljoin<JL, JR, Op, shuf<JL, L>, shuf<JR, R>>;
};

/// R2-7  SHUF(p, ⋈ᴸ(jl, jr, op, BCAST L, R))  ==>  ⋈ᴸ(jl, jr, op, SHUF(jl, L), SHUF(jr, R))   if p
/// is the join-key segment of the output (the left-hand join is complete: one side broadcast).
struct co_partitioned_join {
  static constexpr std::string_view name = "R2-7 co_partitioned_join";
  template <class D, class JL, class JR, class Op, class L, class R>
    requires std::is_same_v<D, typename ia::detail::join_positions<
                                   arity_v<bcast<L>>, arity_v<R>, JL, JR, true, JL>::type>
  static auto apply(shuf<D, ljoin<JL, JR, Op, bcast<L>, R>>)
      -> ljoin<JL, JR, Op, shuf<JL, L>, shuf<JR, R>>;
};

}  // namespace loom::tra::rules

#endif  // LOOM_TRA_RULES_REPARTITION_HPP
// ---- end <loom/tra/rules/repartition.hpp>

#include <boost/mp11/list.hpp>

namespace loom::tra::rules {

/// R1-x: fewer flops and less memory inside a site.
using lambda_composition =
    boost::mp11::mp_list<merge_filters, merge_maps, filter_before_map, map_into_aggregation,
                         filter_into_aggregation, filter_into_join, map_into_join,
                         drop_identity_map>;
/// R2-x that always reduce communication (R2-6 alternatives are enumerated, not applied here;
/// R2-5 and R2-7 change the plan's shape and are offered by the strategy generator).
using repartition = boost::mp11::mp_list<collapse_shuffles, filter_before_move, map_before_move,
                                         skip_shuffle_before_aggregation>;
using all = boost::mp11::mp_append<lambda_composition, repartition>;

}  // namespace loom::tra::rules

#endif  // LOOM_TRA_RULES_RULE_SETS_HPP
// ---- end <loom/tra/rules/rule_sets.hpp>

namespace loom::tra {

/// X (key <i,k>) times Y (key <k,j>): Σ<0,2>(⋈(<1>,<0>, matmul)) in four physical forms.
template <class XPart = ia::arbitrary, class YPart = ia::arbitrary>
struct matmul_plans {
  using X = ia::leaf<0, 2, XPart>;
  using Y = ia::leaf<1, 2, YPart>;
  template <class L, class R>
  using mm_join = ia::ljoin<ia::dims<1>, ia::dims<0>, mat_mul, L, R>;
  template <class J>
  using sum_out = ia::lagg<ia::dims<0, 2>, mat_add, ia::shuf<ia::dims<0, 2>, J>>;

  using broadcast_left = ia::rewrite_t<sum_out<mm_join<ia::bcast<X>, Y>>, rules::repartition>;
  using broadcast_right = ia::rewrite_t<sum_out<mm_join<X, ia::bcast<Y>>>, rules::repartition>;
  using cross_product = ia::rewrite_t<
      sum_out<mm_join<ia::shuf<ia::dims<1>, X>, ia::shuf<ia::dims<0>, Y>>>, rules::repartition>;
  // X's blocks copied J times (new last key), Y's I times (new first key), both shuffled by
  // <i, j>: the join on all three positions is local, and so is the sum (notes §4.3, corrected).
  using replicated_3d = ia::lagg<
      ia::dims<0, 2>, mat_add,
      ia::ljoin<ia::dims<0, 1, 2>, ia::dims<0, 1, 2>, mat_mul,
                ia::shuf<ia::dims<0, 2>, ia::ldup<2, 1, 1, X>>,
                ia::shuf<ia::dims<0, 2>, ia::ldup<0, 0, 0, Y>>>>;
};

/// Runs `f(plan_type)` for the plan of strategy `s` (a runtime choice over the four types).
template <class XPart, class YPart, class F>
decltype(auto) with_matmul_plan(matmul_strategy s, F&& f) {
  using P = matmul_plans<XPart, YPart>;
  switch (s) {
    case matmul_strategy::broadcast_left: return f(typename P::broadcast_left{});
    case matmul_strategy::broadcast_right: return f(typename P::broadcast_right{});
    case matmul_strategy::cross_product: return f(typename P::cross_product{});
    case matmul_strategy::replicated_3d: break;
  }
  return f(typename P::replicated_3d{});
}

}  // namespace loom::tra

#endif  // LOOM_TRA_PLANS_HPP
// ---- end <loom/tra/plans.hpp>

#endif  // LOOM_TRA_HPP
// ---- end <loom/tra.hpp>

#endif  // LOOM_LOOM_HPP
// ---- end <loom/loom.hpp>
