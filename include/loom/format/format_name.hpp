// Defines loom::format_name<F>(): the name of a format for messages and explain() (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_FORMAT_NAME_HPP
#define LOOM_FORMAT_FORMAT_NAME_HPP

#include <loom/core/static_text.hpp>
#include <loom/format/format.hpp>

#include <string>
#include <string_view>
#include <type_traits>

namespace loom {

namespace detail {
// The name of F, written while compiling (core/static_text.hpp).
template <storage_format F> struct format_name_writer {
  static constexpr void write(text_sink& s) {
    if constexpr (std::is_same_v<F, csr>)
      s.put("csr");
    else if constexpr (std::is_same_v<F, csc>)
      s.put("csc");
    else if constexpr (std::is_same_v<F, dcsr>)
      s.put("dcsr");
    else if constexpr (std::is_same_v<F, dcsc>)
      s.put("dcsc");
    else if constexpr (std::is_same_v<F, coo>)
      s.put("coo");
    else if constexpr (std::is_same_v<F, dense_vector>)
      s.put("dense_vector");
    else if constexpr (std::is_same_v<F, sparse_vector>)
      s.put("sparse_vector");
    else if constexpr (std::is_same_v<F, dense_matrix>)
      s.put("dense_matrix");
    else
      write_levels(s, static_cast<typename F::levels*>(nullptr));
  }
  template <class... Levels>
  static constexpr void write_levels(text_sink& s, boost::mp11::mp_list<Levels...>*) {
    s.put("format<");
    bool first = true;
    ((s.put(first ? "" : ","), s.put(Levels::name), first = false), ...);
    s.put(">");
    bool identity = true;
    for (std::size_t level = 0; level < F::order; ++level)
      identity = identity && F::modes[level] == level;
    if (identity) return;
    s.put("::ordered<");
    for (std::size_t level = 0; level < F::order; ++level) {
      if (level != 0) s.put(",");
      s.put_number(F::modes[level]);
    }
    s.put(">");
  }
};
}  // namespace detail

/// The name of F as a constant: "csr", "dcsc", ... for the standard aliases; otherwise
/// "format<dense,compressed>::ordered<1,0>".
template <storage_format F>
inline constexpr std::string_view format_name_v =
    detail::static_text<detail::format_name_writer<F>>::view;

/// format_name_v<F> as a string.
template <storage_format F> std::string format_name() { return std::string(format_name_v<F>); }

}  // namespace loom

#endif  // LOOM_FORMAT_FORMAT_NAME_HPP
