// Defines loom::eigen_view: zero-copy loom views of Eigen's sparse and dense matrices and vectors
// (interop/). Needs Eigen 3.3 or later on the include path; loom.hpp does not include it.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_INTEROP_EIGEN_HPP
#define LOOM_INTEROP_EIGEN_HPP

#include <loom/core/error.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/format/view.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

#include <Eigen/Core>
#include <Eigen/SparseCore>

namespace loom {

namespace detail {
// Objects that hold their arrays (a temporary one dies before its view is used); a Map, Ref or
// Block only points into someone else's.
template <class M> struct eigen_owns_storage : std::is_base_of<Eigen::PlainObjectBase<M>, M> {};
template <class T, int Options, class Index>
struct eigen_owns_storage<Eigen::SparseMatrix<T, Options, Index>> : std::true_type {};

template <class M>
concept eigen_sparse_compressed =
    std::is_base_of_v<Eigen::SparseCompressedBase<std::remove_const_t<M>>, std::remove_const_t<M>>;

template <class M>
concept eigen_dense_direct =
    std::is_base_of_v<Eigen::DenseBase<std::remove_const_t<M>>, std::remove_const_t<M>> &&
    (std::remove_const_t<M>::Flags & Eigen::DirectAccessBit) != 0;

inline std::string eigen_shape_text(std::int64_t rows, std::int64_t cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}
}  // namespace detail

/// A zero-copy view of a compressed `Eigen::SparseMatrix` (or a `Map` of one): `loom::csr` when
/// row-major, `loom::csc` when column-major, positions and coordinates in Eigen's `StorageIndex`.
/// Values are writable unless the matrix is const. The arrays are validated once (as `csr_view`).
template <class M>
  requires detail::eigen_sparse_compressed<M>
auto eigen_view(M& m) {
  using plain = std::remove_const_t<M>;
  using index = typename plain::StorageIndex;
  using value = std::remove_reference_t<decltype(*m.valuePtr())>;
  if (!m.isCompressed())
    throw shape_error("loom::eigen_view: the " + detail::eigen_shape_text(m.rows(), m.cols()) +
                      " Eigen::SparseMatrix is not compressed; call makeCompressed() first");
  const auto outer = static_cast<std::size_t>(m.outerSize());
  const auto nnz = static_cast<std::size_t>(m.outerIndexPtr()[outer]);
  const std::span<const index> pos(m.outerIndexPtr(), outer + 1);
  const std::span<const index> crd(m.innerIndexPtr(), nnz);
  const std::span<value> values(m.valuePtr(), nnz);
  if constexpr (plain::IsRowMajor)
    return csr_view<value, index, index>(m.rows(), m.cols(), pos, crd, values);
  else
    return csc_view<value, index, index>(m.rows(), m.cols(), pos, crd, values);
}

/// A zero-copy view of a contiguous Eigen dense vector or matrix (`Eigen::Matrix`, `Array`, a
/// `Map` or `Ref` without inner stride): `loom::dense_vector` for a compile-time vector,
/// `loom::dense_matrix` for a row-major matrix, `dense_matrix::ordered<1, 0>` for a column-major
/// one. Writable unless the object is const, so it may be a kernel's output.
template <class M>
  requires detail::eigen_dense_direct<M>
auto eigen_view(M& m) {
  using plain = std::remove_const_t<M>;
  using value = std::remove_pointer_t<decltype(m.data())>;
  const std::int64_t rows = m.rows(), cols = m.cols();
  const bool contiguous =
      m.innerStride() == 1 && (m.outerStride() == m.innerSize() || m.outerSize() <= 1);
  if (!contiguous)
    throw shape_error("loom::eigen_view: the " + detail::eigen_shape_text(rows, cols) +
                      " Eigen object has inner stride " + std::to_string(m.innerStride()) +
                      " and outer stride " + std::to_string(m.outerStride()) +
                      "; only contiguous storage can be viewed (copy it into a Matrix first)");
  const std::span<value> values(m.data(), static_cast<std::size_t>(rows * cols));
  if constexpr (plain::IsVectorAtCompileTime) {
    return dense_vector_view<value>(values);
  } else if constexpr (plain::IsRowMajor) {
    return dense_matrix_view<value>(rows, cols, values);
  } else {
    using fmt = dense_matrix::ordered<1, 0>;
    typename view<value, fmt>::level_storages levels{};
    std::get<0>(levels).extent = cols;
    std::get<1>(levels).extent = rows;
    return view<value, fmt>({rows, cols}, levels, values);
  }
}

/// A temporary Eigen object would be destroyed before the view is used: name it first. A `Map`,
/// `Ref` or `Block` owns nothing, so a temporary one may be viewed.
template <class M>
  requires(!std::is_lvalue_reference_v<M> &&
           (detail::eigen_sparse_compressed<M> || detail::eigen_dense_direct<M>))
auto eigen_view(M&& m) {
  static_assert(!detail::eigen_owns_storage<std::remove_const_t<M>>::value,
                "loom::eigen_view: the argument is a temporary Eigen object, which dies at the "
                "end of the statement while the view still points into it; name it first");
  return eigen_view(static_cast<M&>(m));
}

}  // namespace loom

#endif  // LOOM_INTEROP_EIGEN_HPP
