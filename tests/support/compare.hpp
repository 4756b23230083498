// Compares loom's results with the dense reference and reports mismatches (test
// support).
//
// A result tensor of any format equals the reference when every point does, absent entries
// counting as the semiring's zero (so a stored zero equals an absent entry). Values compare
// exactly unless the case sets a relative tolerance (needed only where rounding differs, e.g.
// after a division). A mismatch fails the current doctest case and prints the expression, the
// formats, the semiring, the density, the seed, the coordinates, the expected and the actual value.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_SUPPORT_COMPARE_HPP
#define LOOM_TESTS_SUPPORT_COMPARE_HPP

#include <loom/core/semiring.hpp>
#include <loom/core/unpack.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/function.hpp>
#include <boost/mp11/list.hpp>
#include <boost/mp11/set.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iomanip>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <support/random.hpp>
#include <support/reference.hpp>

namespace loom::test {

// Names ------------------------------------------------------------------------------------------

namespace detail {
template <class Format, class... Levels, std::size_t... Ks>
std::string spell_format(boost::mp11::mp_list<Levels...>, std::index_sequence<Ks...>) {
  std::string s = "format<";
  std::size_t k = 0;
  ((s.append(k++ ? "," : "").append(Levels::name)), ...);
  s += ">";
  bool identity = ((Format::modes[Ks] == Ks) && ...);
  if (!identity) {
    s += "::ordered<";
    k = 0;
    ((s.append(k++ ? "," : "").append(std::to_string(Format::modes[Ks]))), ...);
    s += ">";
  }
  return s;
}
}  // namespace detail

/// A readable name of a format: the alias when there is one (`csr`, `csf<3>`), else its levels.
template <class Format> std::string format_name() {
  if constexpr (std::is_same_v<Format, dense_vector>)
    return "dense_vector";
  else if constexpr (std::is_same_v<Format, sparse_vector>)
    return "sparse_vector";
  else if constexpr (std::is_same_v<Format, dense_matrix>)
    return "dense_matrix";
  else if constexpr (std::is_same_v<Format, csr>)
    return "csr";
  else if constexpr (std::is_same_v<Format, csc>)
    return "csc";
  else if constexpr (std::is_same_v<Format, dcsr>)
    return "dcsr";
  else if constexpr (std::is_same_v<Format, dcsc>)
    return "dcsc";
  else if constexpr (std::is_same_v<Format, coo>)
    return "coo";
  else if constexpr (Format::order >= 3 && std::is_same_v<Format, csf<Format::order>>)
    return concat("csf<", std::to_string(Format::order), ">");
  else if constexpr (Format::order >= 3 &&  // coo_n<N> needs N >= 2: guard it before naming it
                     std::is_same_v<Format, coo_n<(Format::order >= 2 ? Format::order : 2)>>)
    return concat("coo_n<", std::to_string(Format::order), ">");
  else if constexpr (Format::order >= 3 && std::is_same_v<Format, dense_n<Format::order>>)
    return concat("dense_n<", std::to_string(Format::order), ">");
  else
    return detail::spell_format<Format>(typename Format::levels{},
                                        std::make_index_sequence<Format::order>{});
}

/// A readable name of a value type / semiring.
template <class T> std::string semiring_name() {
  if constexpr (std::is_same_v<T, double>)
    return "double";
  else if constexpr (std::is_same_v<T, float>)
    return "float";
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return "int64";
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return "int32";
  else if constexpr (std::is_same_v<T, boolean>)
    return "boolean";
  else if constexpr (std::is_same_v<T, min_plus<double>>)
    return "min_plus<double>";
  else if constexpr (std::is_same_v<T, min_plus<std::int64_t>>)
    return "min_plus<int64>";
  else if constexpr (std::is_same_v<T, max_plus<double>>)
    return "max_plus<double>";
  else if constexpr (std::is_same_v<T, max_times<double>>)
    return "max_times<double>";
  else
    return std::string(semiring_traits<T>::name);
}

/// A value as text (infinities as inf, doubles with round-trip precision).
template <class T> std::string show(const T& v) {
  if constexpr (std::is_same_v<T, boolean>) {
    return v.value ? "true" : "false";
  } else if constexpr (std::is_arithmetic_v<T>) {
    std::ostringstream os;
    os << std::setprecision(17) << v;
    return os.str();
  } else if constexpr (requires { v.value; }) {
    return show(v.value);
  } else {
    return "<value>";
  }
}

template <std::size_t N> std::string show_coords(const std::array<std::int64_t, N>& c) {
  std::string s = "(";
  for (std::size_t m = 0; m < N; ++m) s.append(m ? "," : "").append(std::to_string(c[m]));
  return s + ")";
}

// Equality ---------------------------------------------------------------------------------------

/// Exact equality, or |a - b| <= tol * max(1, |a|, |b|) for floating carriers when tol > 0.
template <class T> bool values_equal(const T& a, const T& b, double tol) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a == b) return true;
    if (std::isnan(a) && std::isnan(b)) return true;
    if (tol <= 0 || !std::isfinite(a) || !std::isfinite(b)) return false;
    const double scale =
        std::max({1.0, std::abs(static_cast<double>(a)), std::abs(static_cast<double>(b))});
    return std::abs(static_cast<double>(a) - static_cast<double>(b)) <= tol * scale;
  } else if constexpr (std::is_arithmetic_v<T>) {
    return a == b;
  } else if constexpr (requires { a.value; }) {
    return values_equal(a.value, b.value, tol);
  } else {
    return a == b;
  }
}

// Cases, counters, reports -----------------------------------------------------------------------

/// What a differential case is; printed with every failure so that it can be reproduced.
struct case_context {
  std::string expression;                  ///< e.g. "y(i) = sum(j, A(i,j) * x(j))"
  std::string formats;                     ///< e.g. "A=csr x=dense_vector y=sparse_vector"
  std::string semiring;                    ///< value type, e.g. "min_plus<double>"
  std::string densities;                   ///< e.g. "A=30% x=full"
  std::uint64_t seed = 0;                  ///< the case seed (operands use mix_seed(seed, k))
  std::string extents{};                   ///< the case extents e0..e3 (shapes derive from them)
  double tolerance = 0;                    ///< relative tolerance; 0 = exact
  std::function<std::string()> explain{};  ///< the plan, printed on failure when set

  std::string describe() const {
    std::string s = concat("expression: ", expression, "\n  formats:    ", formats,
                           "\n  semiring:   ", semiring, "\n  densities:  ", densities,
                           "\n  seed:       ", std::to_string(seed));
    if (!extents.empty()) s.append("\n  extents:    ").append(extents);
    if (explain) {
      try {
        s.append("\n  plan:\n").append(explain());
      } catch (const std::exception& e) {
        s.append("\n  plan: loom::explain threw: ").append(e.what());
      }
    }
    return s;
  }
};

/// Counters over the whole test run (printed once at the end by tests/differential/summary.cpp).
struct harness_stats {
  std::int64_t cases = 0;         ///< comparisons of a whole result against the reference
  std::int64_t failed_cases = 0;  ///< of which failed
  std::int64_t points = 0;        ///< points compared
};
inline harness_stats& stats() {
  static harness_stats s;
  return s;
}

/// Largest number of differing points listed per failing case.
inline constexpr int max_reported_points = 6;

/// How many failing cases of the current group are reported in full; the rest are counted and
/// summarised in one line each when the group ends (keeps a broken kernel's report readable).
struct failure_budget {
  int limit = 1 << 30;
  int shown = 0;
  std::vector<std::string> hidden;
};
inline failure_budget& budget() {
  static failure_budget b;
  return b;
}

/// Opens a group of cases (one per doctest case): at most `limit` failures are shown in full.
class case_group {
 public:
  explicit case_group(int limit = 3) { budget() = failure_budget{limit, 0, {}}; }
  case_group(const case_group&) = delete;
  case_group& operator=(const case_group&) = delete;
  ~case_group() {
    const failure_budget b = budget();
    budget() = failure_budget{};
    if (b.hidden.empty()) return;
    std::string s = std::to_string(b.hidden.size()) + " further failing cases (not shown in full):";
    for (std::size_t k = 0; k < b.hidden.size() && k < 12; ++k)
      s.append("\n    ").append(b.hidden[k]);
    if (b.hidden.size() > 12) s += "\n    ...";
    FAIL_CHECK(s);
  }
};

namespace detail {
// With LOOM_DIFFERENTIAL_LOG=<file> in the environment, every failing case is appended there in
// full (whatever the budget), one block per case.
inline void log_failure(const case_context& ctx, const std::string& what) {
  static const char* path = std::getenv("LOOM_DIFFERENTIAL_LOG");
  if (path == nullptr || *path == '\0') return;
  std::ofstream out(path, std::ios::app);
  out << "FAIL " << what << "\n  " << ctx.describe() << "\n\n";
}

inline void report_failure(const case_context& ctx, const std::string& what) {
  log_failure(ctx, what);
  failure_budget& b = budget();
  if (b.shown >= b.limit) {
    std::string first_line = what.substr(0, what.find('\n'));
    if (!first_line.empty() && first_line.back() == ':') first_line.pop_back();
    b.hidden.push_back(concat(ctx.expression, " | ", ctx.formats, " | ", ctx.semiring, " | ",
                              ctx.densities, " | seed ", std::to_string(ctx.seed), " | ",
                              first_line));
    return;
  }
  ++b.shown;
  const std::string where = ctx.describe();
  INFO(where);
  FAIL_CHECK(what);
}
}  // namespace detail

/// Compares `actual` (any format) with the reference point by point. Returns true on a match;
/// otherwise fails the doctest case with a description of the first mismatches.
template <class T, class Format, bool Owning, std::size_t N>
bool check_tensor(const basic_tensor<T, Format, Owning>& actual, const dense_result<T, N>& expected,
                  const case_context& ctx) {
  static_assert(Format::order == N, "loom::test::check_tensor: orders differ");
  ++stats().cases;
  auto fail = [&](const std::string& what) {
    ++stats().failed_cases;
    detail::report_failure(ctx, what);
    return false;
  };
  if (actual.shape() != expected.shape)
    return fail(concat("the result has shape ", show_coords(actual.shape()), ", expected ",
                       show_coords(expected.shape)));
  dense_result<T, N> got;
  got.shape = expected.shape;
  got.values.assign(expected.values.size(), semiring_traits<T>::zero());
  std::vector<bool> seen(expected.values.size(), false);
  std::string structure_error;
  // ordered, unique levels store their entries in ascending storage order: a kernel that
  // appends out of order leaves every value right but breaks lookups and merges
  constexpr bool ascending = [] {
    bool all = true;
    boost::mp11::mp_for_each<
        boost::mp11::mp_transform<boost::mp11::mp_identity, typename Format::levels>>([&](auto l) {
      all = all && decltype(l)::type::properties.ordered && decltype(l)::type::properties.unique;
    });
    return all;
  }();
  std::optional<std::array<std::int64_t, N>> previous;  // in storage order
  actual.for_each_stored([&](const std::array<std::int64_t, N>& c, const T& v) {
    for (std::size_t m = 0; m < N; ++m)
      if (c[m] < 0 || c[m] >= expected.shape[m]) {
        if (structure_error.empty())
          structure_error = concat("a stored coordinate ", show_coords(c), " is outside the shape");
        return;
      }
    if constexpr (ascending) {
      std::array<std::int64_t, N> s{};
      for (std::size_t k = 0; k < N; ++k) s[k] = c[Format::modes[k]];
      if (previous && !(*previous < s) && structure_error.empty())
        structure_error = concat("coordinate ", show_coords(c),
                                 " is stored after a later one (entries out of storage order)");
      previous = s;
    }
    const std::size_t off = got.offset(c);
    if (seen[off] && structure_error.empty())
      structure_error = concat("coordinate ", show_coords(c), " is stored twice (values ",
                               show(got.values[off]), " and ", show(v), ")");
    seen[off] = true;
    got.values[off] = v;
  });
  if (!structure_error.empty()) return fail(structure_error);
  std::int64_t differing = 0;
  std::string lines;
  for_each_point(expected.shape, [&](const std::array<std::int64_t, N>& c) {
    ++stats().points;
    const T& e = expected.at(c);
    const T& a = got.at(c);
    if (values_equal(a, e, ctx.tolerance)) return;
    if (differing++ < max_reported_points)
      lines += concat("\n    at ", show_coords(c), ": expected ", show(e), ", actual ", show(a),
                      seen[got.offset(c)] ? "" : " (absent)");
  });
  if (differing == 0) return true;
  return fail(concat(std::to_string(differing), " of ", std::to_string(expected.values.size()),
                     " points differ (output ", std::to_string(actual.nnz()), " stored):", lines));
}

/// Compares a scalar result.
template <class T> bool check_scalar(const T& actual, const T& expected, const case_context& ctx) {
  ++stats().cases;
  ++stats().points;
  if (values_equal(actual, expected, ctx.tolerance)) return true;
  ++stats().failed_cases;
  detail::report_failure(ctx, concat("expected ", show(expected), ", actual ", show(actual)));
  return false;
}

/// Runs `f` (the loom evaluation under test); an exception fails the case, naming it.
template <class F> bool run_guarded(const case_context& ctx, F&& f) {
  try {
    f();
    return true;
  } catch (const std::exception& e) {
    ++stats().cases;
    ++stats().failed_cases;
    detail::report_failure(ctx, concat("loom threw: ", e.what()));
    return false;
  }
}

// Running loom on a case -------------------------------------------------------------------------
//
// The calls below reach loom's evaluator (`=`, `+=`, `eval`, `explain`) through the expression's
// types (argument-dependent lookup), so this header does not need the evaluator to be included
// first; the differential tests include <loom/loom.hpp>. Build with -DLOOM_DIFFERENTIAL_EXPLAIN=1
// to print loom::explain's plan with every failure (off by default: instantiating explain for
// every kernel roughly triples the compile time of a differential file).

#ifndef LOOM_DIFFERENTIAL_EXPLAIN
#  define LOOM_DIFFERENTIAL_EXPLAIN 0
#endif

/// check_assign with the reference given (computed beforehand from the same operands).
template <class Tensor, class... Is, class E, class Expected>
bool check_assign_against(const expr::access<Tensor, Is...>& lhs, const E& rhs, case_context ctx,
                          bool accumulate, const Expected& expected) {
#if LOOM_DIFFERENTIAL_EXPLAIN
  if constexpr (requires { explain(lhs, rhs); })
    ctx.explain = [lhs, rhs] { return std::string(explain(lhs, rhs)); };
#endif
  const bool ran = run_guarded(ctx, [&] {
    auto out = lhs;
    if (accumulate)
      out += rhs;
    else
      out = rhs;
  });
  return ran && check_tensor(*lhs.tensor, expected, ctx);
}

/// Runs `lhs = rhs` (or `lhs += rhs`) in loom and compares the result with the reference,
/// computed beforehand from the same operands (and, for `+=`, the output's current contents).
template <class Tensor, class... Is, class E>
bool check_assign(const expr::access<Tensor, Is...>& lhs, const E& rhs, case_context ctx,
                  bool accumulate = false) {
  const auto expected = accumulate ? reference_eval_accumulate(lhs, rhs) : reference_eval(lhs, rhs);
  return check_assign_against(lhs, rhs, std::move(ctx), accumulate, expected);
}

/// Runs `loom::eval(e)` and compares the scalar with the reference.
template <class E> bool check_eval(const E& e, case_context ctx) {
  const auto expected = reference_eval(e);
  auto actual = expected;
  const bool ran = run_guarded(ctx, [&] { actual = eval(e); });
  return ran && check_scalar(actual, expected, ctx);
}

/// The density pairs a two-operand case runs: all 36 when `all`, else 6 (each density of the
/// first operand once, the second rotated by the seed).
inline std::vector<std::array<density, 2>> density_pairs(bool all, std::uint64_t seed) {
  std::vector<std::array<density, 2>> out;
  const std::size_t n = all_densities.size();
  for (std::size_t a = 0; a < n; ++a) {
    if (all) {
      for (std::size_t b = 0; b < n; ++b) out.push_back({all_densities[a], all_densities[b]});
    } else {
      out.push_back({all_densities[a], all_densities[(a + seed) % n]});
    }
  }
  return out;
}

/// The k-th density of a rotation started by the seed (for outputs' prior contents and for
/// third operands).
inline density rotated_density(std::size_t k, std::uint64_t seed) {
  return all_densities[(k + seed) % all_densities.size()];
}

/// Calls `body(seed, d0, d1, d2)` for every seed and density pair (see `density_pairs`); `d2` is
/// a third density rotating with the case (for a further operand or the output's prior contents).
template <class F> void for_each_case(bool all_pairs, F&& body) {
#if defined(LOOM_TEST_COVERING_SAMPLE) && LOOM_TEST_COVERING_SAMPLE
  all_pairs = false;  // every density on each side: 6 pairs rather than 36 (tools/test.sh)
#endif
  for (const std::uint64_t seed : seeds) {
    std::size_t k = 0;
    for (const auto& [d0, d1] : density_pairs(all_pairs, seed))
      body(seed, d0, d1, rotated_density(k++, seed));
  }
}

/// "A=30% x=full": names paired with densities.
inline std::string densities_text(
    std::initializer_list<std::pair<std::string_view, density>> entries) {
  std::string s;
  for (const auto& [name, d] : entries)
    s.append(s.empty() ? "" : " ").append(name).append("=").append(density_name(d));
  return s;
}

/// "A=csr x=dense_vector": names paired with their formats.
template <class... Formats, class... Names> std::string formats_text(const Names&... names) {
  std::string s;
  std::size_t k = 0;
  ((s.append(k++ ? " " : "").append(names).append("=").append(format_name<Formats>())), ...);
  return s;
}

// Lists of format combinations -------------------------------------------------------------------

namespace detail {
template <class Product, class Outputs> struct append_rotating {
  template <class K>
  using one = boost::mp11::mp_push_back<
      boost::mp11::mp_at<Product, K>,
      boost::mp11::mp_at_c<Outputs, (K::value + K::value / boost::mp11::mp_size<Outputs>::value) %
                                        boost::mp11::mp_size<Outputs>::value>>;
  using type = boost::mp11::mp_transform<one, boost::mp11::mp_iota<boost::mp11::mp_size<Product>>>;
};
}  // namespace detail

/// The cartesian product of `Lists...` (as mp_lists), each combination extended by one type of
/// `Outputs` in rotation: the k-th combination gets Outputs[(k + k / n) % n] with n the size of
/// Outputs (the k / n term keeps the choice from following the last list's position alone).
/// Every output format is covered without multiplying the number of instantiated kernels by the
/// number of outputs.
template <class Outputs, class... Lists>
using product_with_rotating =
    typename detail::append_rotating<boost::mp11::mp_product<boost::mp11::mp_list, Lists...>,
                                     Outputs>::type;

/// `Combos` (a list of mp_lists) each extended by one type of `Extra` in the same rotation.
template <class Combos, class Extra>
using with_rotating = typename detail::append_rotating<Combos, Extra>::type;

/// Every type of `List` as a one-element mp_list (to start a list of combinations).
template <class List> using singletons = boost::mp11::mp_transform<boost::mp11::mp_list, List>;

namespace detail {
// (position, type) for every type of a combination; a lone type is position 0
template <class Combo> struct combo_slots {
  using type = boost::mp11::mp_list<boost::mp11::mp_list<boost::mp11::mp_size_t<0>, Combo>>;
};
template <template <class...> class L, class... Ts> struct combo_slots<L<Ts...>> {
  using type =
      boost::mp11::mp_transform<boost::mp11::mp_list, boost::mp11::mp_iota_c<sizeof...(Ts)>,
                                boost::mp11::mp_list<Ts...>>;
};
// State = (kept combinations, set of slots seen): keep a combination with an unseen slot
template <class State, class Combo> struct cover_step {
  using seen = boost::mp11::mp_second<State>;
  using slots = typename combo_slots<Combo>::type;
  template <class S> using unseen = boost::mp11::mp_not<boost::mp11::mp_set_contains<seen, S>>;
  using type = boost::mp11::mp_if<
      boost::mp11::mp_any_of<slots, unseen>,
      boost::mp11::mp_list<boost::mp11::mp_push_back<boost::mp11::mp_first<State>, Combo>,
                           boost::mp11::mp_fold<slots, seen, boost::mp11::mp_set_push_back>>,
      State>;
};
template <class State, class Combo> using cover_step_t = typename cover_step<State, Combo>::type;
}  // namespace detail

/// The first combinations of `List` (in order) that together put every type at every position
/// where the full list has it: each format of each operand is still run, in fewer pairings.
template <class List>
using covering_sample = boost::mp11::mp_first<boost::mp11::mp_fold<
    List, boost::mp11::mp_list<boost::mp11::mp_clear<List>, boost::mp11::mp_list<>>,
    detail::cover_step_t>>;

/// An MP11 list as the std::tuple that TEST_CASE_TEMPLATE_APPLY expects. Built with
/// -DLOOM_TEST_COVERING_SAMPLE=1 (tools/test.sh: gcc's differential tests, to keep CI short),
/// only the `covering_sample` of the list; the clang build (under the sanitizers) instantiates
/// every combination.
#if defined(LOOM_TEST_COVERING_SAMPLE) && LOOM_TEST_COVERING_SAMPLE
template <class List> using as_tuple = boost::mp11::mp_rename<covering_sample<List>, std::tuple>;
#else
template <class List> using as_tuple = boost::mp11::mp_rename<List, std::tuple>;
#endif

// Drivers: random operands, loom, reference, comparison ------------------------------------------

/// Options of a group of differential cases.
struct case_options {
  bool all_pairs =
      true;  ///< all 36 density pairs of the first two inputs (else 6; always 6 with LOOM_TEST_COVERING_SAMPLE)
  bool accumulate = true;  ///< also run `+=` into an output with random prior contents
  double tolerance = 0;    ///< relative tolerance (0 = exact)
  /// When not empty, every seed runs with each of these extents instead of
  /// extents_for_seed(seed) (for degenerate shapes: 1 x n, 0 x n, ...).
  std::vector<std::array<std::int64_t, 4>> extents{};
};

namespace detail {
inline std::vector<std::array<std::int64_t, 4>> extents_of_case(const case_options& opt,
                                                                std::uint64_t seed) {
  if (!opt.extents.empty()) return opt.extents;
  return {extents_for_seed(seed)};
}
}  // namespace detail

namespace detail {
inline density density_after(density d, std::size_t k) {
  std::size_t at = 0;
  while (all_densities[at] != d) ++at;
  return all_densities[(at + k) % all_densities.size()];
}
}  // namespace detail

namespace detail {
// Random inputs `Inputs...` of shapes `get<Offset + k>(shapes)`, operand k seeded by
// mix_seed(seed, k + 1).
template <class T, class... Inputs, std::size_t Offset, class Shapes, std::size_t... K>
std::tuple<tensor<T, Inputs>...> random_inputs(const Shapes& shapes,
                                               const std::array<density, sizeof...(Inputs)>& dens,
                                               std::uint64_t seed,
                                               std::integral_constant<std::size_t, Offset>,
                                               std::index_sequence<K...>) {
  return {
      random_tensor<T, Inputs>(std::get<Offset + K>(shapes), dens[K], mix_seed(seed, K + 1))...};
}

// "A=csr B=coo" and "A=30% B=full" for the inputs.
template <class... Inputs, std::size_t... K>
void describe_inputs(const std::string_view* names, const density* dens, std::string& formats,
                     std::string& densities, std::index_sequence<K...>) {
  ((formats.append(K ? " " : "").append(names[K]).append("=").append(format_name<Inputs>()),
    densities.append(K ? " " : "").append(names[K]).append("=").append(density_name(dens[K]))),
   ...);
}

template <std::size_t N>
std::array<density, N> input_densities(density d0, density d1, density d2) {
  std::array<density, N> dens{};
  for (std::size_t k = 0; k < N; ++k) dens[k] = k == 0 ? d0 : k == 1 ? d1 : density_after(d2, k);
  return dens;
}
}  // namespace detail

/// Runs a kernel over every seed and density combination, with `=` and (optionally) `+=`.
///
/// `shapes(e)` maps the case extents e (four values in 5..13, see extents_for_seed, or those of
/// `opt.extents`) to a tuple (output shape, input shapes...). Inputs are random tensors in
/// `Inputs...` (the first two take every density pair, further ones a rotating density); the
/// output is a random `Out` tensor whose prior contents `=` must replace and `+=` must add to.
/// `make(out, inputs...)` returns the pair (lhs access, rhs expression), e.g.
/// `std::pair{C(i, j), A(i, j) + B(i, j)}`. `text` is the kernel as written with `=`; `names` are
/// the output's then the inputs' names.
template <class T, class Out, class... Inputs, class Shapes, class Make>
void kernel_cases(std::string_view text,
                  const std::array<std::string_view, sizeof...(Inputs) + 1>& names, Shapes shapes,
                  Make make, case_options opt = {}) {
  constexpr std::size_t n_in = sizeof...(Inputs);
  const case_group group;
  // with one input, the second density of a pair is unused: run each first density once
  const bool pairs = opt.all_pairs && n_in >= 2;
  for_each_case(pairs, [&](std::uint64_t seed, density d0, density d1, density d2) {
    for (const auto& e : detail::extents_of_case(opt, seed)) {
      const auto s = shapes(e);
      const auto dens = detail::input_densities<n_in>(d0, d1, d2);
      auto inputs = detail::random_inputs<T, Inputs...>(s, dens, seed,
                                                        std::integral_constant<std::size_t, 1>{},
                                                        std::index_sequence_for<Inputs...>{});
      std::string formats, densities;
      detail::describe_inputs<Inputs...>(names.data() + 1, dens.data(), formats, densities,
                                         std::index_sequence_for<Inputs...>{});
      case_context ctx{.expression = std::string(text),
                       .formats = concat(formats, " ", names[0], "=", format_name<Out>()),
                       .semiring = semiring_name<T>(),
                       .densities = concat(densities, " ", names[0], "(before)=", density_name(d2)),
                       .seed = seed,
                       .extents = show_coords(e),
                       .tolerance = opt.tolerance};
      // `+=` is checked against the reference of `=` plus the prior contents (the right-hand
      // side interpreted once), unless it reads its own output
      std::optional<dense_result<T, Out::order>> assigned;
      {
        auto out = random_tensor<T, Out>(std::get<0>(s), d2, mix_seed(seed, 100));
        const auto [lhs, rhs] =
            loom::detail::unpack([&](const auto&... in) { return make(out, in...); }, inputs);
        auto expected = reference_eval(lhs, rhs);
        check_assign_against(lhs, rhs, ctx, false, expected);
        if (opt.accumulate && !reads_tensor(rhs, &out)) assigned = std::move(expected);
      }
      if (opt.accumulate) {
        auto out = random_tensor<T, Out>(std::get<0>(s), d2, mix_seed(seed, 101));
        std::string acc(text);
        if (const auto eq = acc.find(" = "); eq != std::string::npos) acc.replace(eq, 3, " += ");
        ctx.expression = concat(acc, "   (prior contents: seed salt 101)");
        const auto [lhs, rhs] =
            loom::detail::unpack([&](const auto&... in) { return make(out, in...); }, inputs);
        if (assigned)
          check_assign_against(lhs, rhs, ctx, true,
                               reference_accumulate(lhs, std::move(*assigned)));
        else
          check_assign(lhs, rhs, ctx, true);
      }
    }
  });
}

/// Runs a scalar kernel `loom::eval(make(inputs...))` over every seed and density combination.
/// `shapes(e)` returns a tuple of the inputs' shapes.
template <class T, class... Inputs, class Shapes, class Make>
void scalar_cases(std::string_view text,
                  const std::array<std::string_view, sizeof...(Inputs)>& names, Shapes shapes,
                  Make make, case_options opt = {}) {
  constexpr std::size_t n_in = sizeof...(Inputs);
  const case_group group;
  const bool pairs = opt.all_pairs && n_in >= 2;
  for_each_case(pairs, [&](std::uint64_t seed, density d0, density d1, density d2) {
    for (const auto& e : detail::extents_of_case(opt, seed)) {
      const auto s = shapes(e);
      const auto dens = detail::input_densities<n_in>(d0, d1, d2);
      auto inputs = detail::random_inputs<T, Inputs...>(s, dens, seed,
                                                        std::integral_constant<std::size_t, 0>{},
                                                        std::index_sequence_for<Inputs...>{});
      std::string formats, densities;
      detail::describe_inputs<Inputs...>(names.data(), dens.data(), formats, densities,
                                         std::index_sequence_for<Inputs...>{});
      case_context ctx{.expression = std::string(text),
                       .formats = formats,
                       .semiring = semiring_name<T>(),
                       .densities = densities,
                       .seed = seed,
                       .extents = show_coords(e),
                       .tolerance = opt.tolerance};
      loom::detail::unpack([&](const auto&... in) { check_eval(make(in...), ctx); }, inputs);
    }
  });
}

/// Shapes of a kernel on same-shaped matrices: C, A, B all e0 x e1.
inline auto same_matrix_shapes(const std::array<std::int64_t, 4>& e) {
  const std::array<std::int64_t, 2> s{e[0], e[1]};
  return std::tuple{s, s, s};
}

}  // namespace loom::test

#endif  // LOOM_TESTS_SUPPORT_COMPARE_HPP
