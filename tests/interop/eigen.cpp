// loom/interop/eigen.hpp: Eigen's sparse and dense objects as kernel operands and outputs without
// a copy, checked against the dense reference evaluator and against Eigen's own products; the
// errors for an uncompressed sparse matrix and strided dense storage.
// SPDX-License-Identifier: BSL-1.0
#include <loom/interop/eigen.hpp>
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <support/compare.hpp>

namespace {

namespace lt = loom::test;
using lt::density;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

using shape2 = std::array<std::int64_t, 2>;

// An Eigen sparse matrix holding the entries of a loom tensor.
template <class Sparse, class Tensor> Sparse to_eigen(const Tensor& t) {
  using index = typename Sparse::StorageIndex;
  std::vector<Eigen::Triplet<typename Sparse::Scalar, index>> triplets;
  t.for_each_stored([&](const auto& c, const auto& v) {
    triplets.emplace_back(static_cast<index>(c[0]), static_cast<index>(c[1]), v);
  });
  Sparse m(t.extent(0), t.extent(1));
  m.setFromTriplets(triplets.begin(), triplets.end());
  m.makeCompressed();
  return m;
}

lt::case_context context(std::string text, std::string formats, std::uint64_t seed) {
  return lt::case_context{.expression = std::move(text),
                          .formats = std::move(formats),
                          .semiring = "double",
                          .densities = "",
                          .seed = seed};
}

constexpr std::uint64_t seeds[] = {1, 2, 3, 7, 11};
constexpr density densities[] = {density::empty, density::sparse, density::medium, density::full};

}  // namespace

TEST_CASE("eigen_view: SpMV over a column-major SparseMatrix, into an Eigen vector") {
  for (const std::uint64_t seed : seeds)
    for (const density d : densities) {
      const std::int64_t m = 3 + static_cast<std::int64_t>(seed % 5),
                         n = 4 + static_cast<std::int64_t>(seed % 3);
      const auto A = lt::random_tensor<double, loom::csr>(shape2{m, n}, d, seed);
      const auto x0 = lt::random_tensor<double, loom::dense_vector>({n}, density::full, seed + 1);
      const auto A_eigen = to_eigen<Eigen::SparseMatrix<double>>(A);  // column-major, int
      Eigen::VectorXd x(n), y = Eigen::VectorXd::Constant(m, 5.0);
      for (std::int64_t p = 0; p < n; ++p) x(p) = x0.values()[static_cast<std::size_t>(p)];

      const auto Av = loom::eigen_view(A_eigen);
      static_assert(std::is_same_v<typename decltype(Av)::value_type, const double>);
      static_assert(std::is_same_v<
                    typename decltype(Av)::format_type,
                    loom::format<loom::dense, loom::compressed_level<loom::uniqueness::unique, int,
                                                                     int>>::ordered<1, 0>>);
      const auto xv = loom::eigen_view(x);
      auto yv = loom::eigen_view(y);
      CHECK(lt::check_assign(yv(i), loom::sum(j, Av(i, j) * xv(j)),
                             context("y(i) = sum(j, A(i,j) * x(j))",
                                     "A=Eigen::SparseMatrix<double> x,y=Eigen::VectorXd", seed)));
      const Eigen::VectorXd expected = A_eigen * x;
      yv(i) = loom::sum(j, Av(i, j) * xv(j));
      for (std::int64_t r = 0; r < m; ++r) CHECK(y(r) == doctest::Approx(expected(r)));
    }
}

TEST_CASE("eigen_view: SpGEMM of row-major SparseMatrix views with 64-bit indices") {
  using sparse = Eigen::SparseMatrix<double, Eigen::RowMajor, std::int64_t>;
  for (const std::uint64_t seed : seeds)
    for (const density d : densities) {
      const std::int64_t m = 2 + static_cast<std::int64_t>(seed % 4), n = 5,
                         p = 3 + static_cast<std::int64_t>(seed % 2);
      auto A_eigen = to_eigen<sparse>(lt::random_tensor<double, loom::csr>(shape2{m, n}, d, seed));
      auto B_eigen = to_eigen<sparse>(
          lt::random_tensor<double, loom::csr>(shape2{n, p}, density::medium, seed + 9));
      auto Av = loom::eigen_view(A_eigen);  // writable values: non-const matrix
      static_assert(std::is_same_v<typename decltype(Av)::value_type, double>);
      static_assert(std::is_same_v<
                    typename decltype(Av)::format_type,
                    loom::format<loom::dense, loom::compressed_level<loom::uniqueness::unique,
                                                                     std::int64_t, std::int64_t>>>);
      const auto Bv = loom::eigen_view(B_eigen);
      loom::tensor<double, loom::dcsr> C(shape2{m, p});
      CHECK(lt::check_assign(
          C(i, j), loom::sum(k, Av(i, k) * Bv(k, j)),
          context("C(i,j) = sum(k, A(i,k) * B(k,j))",
                  "A,B=Eigen::SparseMatrix<double, RowMajor, int64> C=dcsr", seed)));

      // into a column-major dense Eigen matrix, compared with Eigen's product
      Eigen::MatrixXd C_eigen = Eigen::MatrixXd::Constant(m, p, -1.0);
      auto Cv = loom::eigen_view(C_eigen);
      CHECK(lt::check_assign(Cv(i, j), loom::sum(k, Av(i, k) * Bv(k, j)),
                             context("C(i,j) = sum(k, A(i,k) * B(k,j))",
                                     "A,B=Eigen::SparseMatrix<RowMajor> C=Eigen::MatrixXd", seed)));
      Cv(i, j) = loom::sum(k, Av(i, k) * Bv(k, j));
      const Eigen::MatrixXd expected = Eigen::MatrixXd(A_eigen) * Eigen::MatrixXd(B_eigen);
      for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t c = 0; c < p; ++c)
          CHECK(C_eigen(r, c) == doctest::Approx(expected(r, c)));

      // the view's values are Eigen's
      if (A_eigen.nonZeros() > 0) {
        Av.values()[0] = 42.0;
        CHECK(A_eigen.valuePtr()[0] == 42.0);
      }
    }
}

TEST_CASE("eigen_view: a row-major dense operand, a Map temporary, a column as output") {
  using row_major = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  for (const std::uint64_t seed : seeds) {
    const std::int64_t m = 4, n = 3 + static_cast<std::int64_t>(seed % 3);
    const auto A =
        lt::random_tensor<double, loom::dense_matrix>(shape2{m, n}, density::medium, seed);
    row_major D(m, n);
    for (std::int64_t r = 0; r < m; ++r)
      for (std::int64_t c = 0; c < n; ++c) D(r, c) = A.at(r, c);
    std::vector<double> x_buffer(static_cast<std::size_t>(n));
    for (std::size_t q = 0; q < x_buffer.size(); ++q) x_buffer[q] = 1.0 + static_cast<double>(q);
    Eigen::VectorXd y(m);
    const auto Dv = loom::eigen_view(D);
    static_assert(std::is_same_v<typename decltype(Dv)::format_type, loom::dense_matrix>);
    const auto xv = loom::eigen_view(Eigen::Map<const Eigen::VectorXd>(x_buffer.data(), n));
    auto yv = loom::eigen_view(y);
    CHECK(lt::check_assign(
        yv(i), loom::sum(j, Dv(i, j) * xv(j)),
        context("y(i) = sum(j, D(i,j) * x(j))",
                "D=Eigen row-major Matrix x=Map<const VectorXd> y=VectorXd", seed)));
    yv(i) = loom::sum(j, Dv(i, j) * xv(j));
    const Eigen::VectorXd expected = D * Eigen::Map<const Eigen::VectorXd>(x_buffer.data(), n);
    CHECK(y.isApprox(expected));

    // a column of a column-major matrix is contiguous: a vector view
    Eigen::MatrixXd columns = Eigen::MatrixXd::Zero(m, 2);
    auto column = loom::eigen_view(columns.col(1));
    column(i) = loom::sum(j, Dv(i, j) * xv(j));
    CHECK(columns.col(1).isApprox(expected));
    CHECK(columns.col(0).isZero());
  }
}

TEST_CASE("eigen_view: what cannot be viewed says why") {
  Eigen::SparseMatrix<double> A(4, 4);
  A.insert(1, 2) = 3.0;  // inserting leaves the matrix uncompressed
  REQUIRE(!A.isCompressed());
  CHECK_THROWS_WITH_AS(loom::eigen_view(A),
                       doctest::Contains("4x4 Eigen::SparseMatrix is not compressed; call "
                                         "makeCompressed() first"),
                       loom::shape_error);
  A.makeCompressed();
  CHECK(loom::eigen_view(A).nnz() == 1);

  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(4, 4);
  CHECK_THROWS_WITH_AS(loom::eigen_view(M.row(1)), doctest::Contains("inner stride 4"),
                       loom::shape_error);
  CHECK_THROWS_WITH_AS(loom::eigen_view(M.block(0, 0, 2, 2)),
                       doctest::Contains("only contiguous storage can be viewed"),
                       loom::shape_error);
  CHECK(loom::eigen_view(M.block(0, 1, 4, 2)).nnz() == 8);  // whole columns: contiguous
}
