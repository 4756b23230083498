// Defines loom::mapping::make_tensor and make_view: a mapped tensor from its physical arrays
// (owned, or borrowed with zero copies), validated once (format/mapping/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MAPPING_MAKE_HPP
#define LOOM_FORMAT_MAPPING_MAKE_HPP

#include <loom/core/error.hpp>
#include <loom/format/mapping/definition.hpp>
#include <loom/format/mapping/hash_map.hpp>
#include <loom/format/tensor.hpp>

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
template <class Arr, class Data> struct binding {
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

template <class Arr, class B> inline constexpr bool binds_v = false;
template <class Arr, class D> inline constexpr bool binds_v<Arr, binding<Arr, D>> = true;

// index of the binding of Arr among Bs (sizeof...(Bs) when absent)
template <class Arr, class... Bs> constexpr std::size_t binding_index() {
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
          boost::mp11::mp_for_each<
              boost::mp11::mp_iota<boost::mp11::mp_size<typename L::array_list>>>([&](auto a) {
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
                dest.keys =
                    std::span<const typename Arr::key_type>(data.keys.data(), data.keys.size());
                dest.vals =
                    std::span<const typename Arr::mapped_type>(data.vals.data(), data.vals.size());
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
    if (static_cast<std::int64_t>(values.size()) <
        parents.count)  // more is fine: views may share an array
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
view<T, Format> make_view(const std::array<std::int64_t, Format::order>& shape, std::span<T> values,
                          const binding<Arrs, Datas>&... arrays) {
  return detail::build<T, Format, false>(shape, values, arrays...);
}

}  // namespace loom::mapping

#endif  // LOOM_FORMAT_MAPPING_MAKE_HPP
