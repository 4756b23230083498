// Defines loom::mapping::define<"name">(loops..., values(e)): a storage mapping, the logical
// tensor as an index-notation expression over physical arrays (STOREL's TSM), and format_of,
// the loom format it compiles to (format/mapping/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MAPPING_DEFINITION_HPP
#define LOOM_FORMAT_MAPPING_DEFINITION_HPP

#include <loom/core/fixed_string.hpp>
#include <loom/format/format.hpp>
#include <loom/format/mapping/index_expr.hpp>
#include <loom/format/mapping/loops.hpp>
#include <loom/format/mapping/mapped_level.hpp>

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
template <fixed_string Name, class Loops, class Value> struct definition {
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

  template <class Seq> struct make_format;
  template <std::size_t... Ks> struct make_format<std::index_sequence<Ks...>> {
    using type = format_spec<mp_list<mapped_level<definition, Ks>...>, Ks...>;
  };
  /// The loom format: one generated level per loop.
  using format = typename make_format<std::make_index_sequence<order>>::type;

  /// "L(i,j) = vals(i*(i + 1)/2 + j) for i in 0 : N, j in 0 : N where j <= i"
  static std::string text(const std::string& label) {
    std::string idx, loops_text;
    boost::mp11::mp_for_each<boost::mp11::mp_iota_c<order>>([&](auto kc) {
      using L = mapped_level<definition, decltype(kc)::value>;
      idx += (kc ? "," : "") + std::string(L::self::name);
      loops_text += (kc ? ", " : "") + L::declared_text();
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
    boost::mp11::mp_for_each<boost::mp11::mp_iota_c<order>>([&](auto kc) {
      using L = mapped_level<definition, decltype(kc)::value>;
      const std::string x(L::self::name);
      const std::string y = kc < program_index.size() ? program_index[kc] : x;
      const char r = kc < role.size() ? role[kc] : 'i';
      s += "  fused " + x + " (program index " + y + "): ";
      if (!boost::mp11::mp_empty<typename L::loop::guards>::value)
        s += "G (guard into bound) gives " + x + " in " + L::bounds_text() + "; ";
      if (r == 'l' && L::is_hash) {
        s += "F1 (iteration -> lookup): " + y + " comes from " + peers[kc] + "; the hash map " +
             L::bounds_text() + " is probed for it in O(1) (never iterated, never sorted)";
      } else if (r == 'l') {
        s += "F1 (iteration -> lookup): " + y + " comes from " + peers[kc] +
             "; T4 turns the range into the test " + L::bounds_text() + " and a read at the offset";
      } else if (L::is_hash) {
        s += "F3 (@unique " + x + "): the program's loop over " + y +
             " is the loop over the keys of " + L::bounds_text() +
             "; the map is unordered, so its keys are sorted on demand (once per "
             "tensor)" +
             (r == 'm' ? " and merged with " + peers[kc] : "");
      } else if (!L::loop::unique) {
        s += "no F3 (" + x + " not @unique): " + L::bounds_text() +
             " may repeat a coordinate; each "
             "run of equal " +
             x + " is one iteration of the program's loop over " + y +
             ", the loop below walks the whole run (its entries accumulate)" +
             (r == 'm' ? "; merged with " + peers[kc] : "");
      } else if (L::is_range) {
        s += "F2: the program's loop over " + y + " is the mapping's loop " + x + " in " +
             L::bounds_text() +
             (r == 'm' ? " (co-iterated with " + peers[kc] + ")" : " (a counted loop)");
      } else if (r == 'm') {
        s += "F3 (@unique " + x + ") and F4: sorted merge of " + L::bounds_text() + " with " +
             peers[kc] + " (leapfrog, galloping seek)";
      } else {
        s += "F3 (@unique " + x + "): the program's loop over " + y +
             " is the mapping's loop over " + L::bounds_text() +
             ", one iteration per stored position";
      }
      s += "\n";
    });
    s += "  value: vals(" + detail::show<typename Value::offset>::text() +
         ") read in the loop body (let-inlining: no logical tensor is built)\n";
    return s;
  }
};

/// `define<"lower_packed">(range(i, ...), range(j, ...), values(...))`.
template <fixed_string Name, class... Parts> constexpr auto define(Parts...) {
  using parts = mp_list<Parts...>;
  using value = boost::mp11::mp_back<parts>;
  using loops = boost::mp11::mp_pop_back<parts>;
  static_assert(
      requires { typename value::offset; },
      "loom::mapping::define: the last argument must be values(offset)");
  static_assert(boost::mp11::mp_size<loops>::value >= 1,
                "loom::mapping::define: give one loop per mode before values(...)");
  return definition<Name, loops, value>{};
}

/// The loom format of a mapping (the type of a `define` call).
template <class Definition> using format_of = typename std::remove_cvref_t<Definition>::format;

namespace detail {
template <class F> struct is_mapped_format : std::false_type {};
template <class Def, std::size_t... Ks, std::size_t... Ms>
struct is_mapped_format<format_spec<mp_list<mapped_level<Def, Ks>...>, Ms...>> : std::true_type {};
}  // namespace detail

/// Satisfied by the formats of storage mappings (and their mode re-orderings).
template <class F>
concept mapped_format = detail::is_mapped_format<F>::value;

}  // namespace loom::mapping

#endif  // LOOM_FORMAT_MAPPING_DEFINITION_HPP
