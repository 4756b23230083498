// Defines loom::format_name<F>(): the name of a format for messages and explain() (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_FORMAT_NAME_HPP
#define LOOM_FORMAT_FORMAT_NAME_HPP

#include <loom/format/format.hpp>

#include <string>
#include <type_traits>

namespace loom {

/// "csr", "dcsc", ... for the standard aliases; otherwise "format<dense,compressed>::ordered<1,0>".
template <storage_format F> std::string format_name() {
  if constexpr (std::is_same_v<F, csr>)
    return "csr";
  else if constexpr (std::is_same_v<F, csc>)
    return "csc";
  else if constexpr (std::is_same_v<F, dcsr>)
    return "dcsr";
  else if constexpr (std::is_same_v<F, dcsc>)
    return "dcsc";
  else if constexpr (std::is_same_v<F, coo>)
    return "coo";
  else if constexpr (std::is_same_v<F, dense_vector>)
    return "dense_vector";
  else if constexpr (std::is_same_v<F, sparse_vector>)
    return "sparse_vector";
  else if constexpr (std::is_same_v<F, dense_matrix>)
    return "dense_matrix";
  else {
    std::string s = "format<";
    bool first = true;
    boost::mp11::mp_for_each<
        boost::mp11::mp_transform<boost::mp11::mp_identity, typename F::levels>>([&](auto level) {
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
