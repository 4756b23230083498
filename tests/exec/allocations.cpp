// Outputs keep their storage: the second run of each kernel of the differential suite's list
// allocates nothing (the arrays of a sparse output are refilled in place, capacity
// kept; plan and workspace caches are hit without building keys on the heap).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include <support/counting_new.hpp>
#include <support/random.hpp>

namespace {
using namespace loom;
using loom::test::density;
using loom::test::random_tensor;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"l"> l;

// Runs the kernel twice (the first call may allocate: caches, the output's first arrays), then
// a third time to check the second's count is not luck; returns the allocations of the last.
template <class F> long allocations_on_repeat(F&& kernel) {
  kernel();
  kernel();
  return loom_test::allocations_of(kernel);
}
}  // namespace

// Under AddressSanitizer the counts come from ASan's allocator hook (support/counting_new.hpp).
TEST_CASE("a kernel written again into the same output allocates nothing") {
  loom::set_num_threads(1);
  const auto A = random_tensor<double, csr>({40, 30}, density::medium, 1);
  const auto B = random_tensor<double, csr>({40, 30}, density::medium, 2);
  const auto Bt = random_tensor<double, csr>({30, 40}, density::medium, 3);
  const auto x = random_tensor<double, dense_vector>({30}, density::full, 5);
  const auto xs = random_tensor<double, sparse_vector>({30}, density::medium, 6);
  const auto U = random_tensor<double, dense_matrix>({40, 8}, density::full, 7);
  const auto V = random_tensor<double, dense_matrix>({30, 8}, density::full, 8);
  const auto T3 = random_tensor<double, csf<3>>({10, 12, 14}, density::medium, 9);
  const auto W = random_tensor<double, dense_matrix>({12, 8}, density::full, 10);
  const auto Z = random_tensor<double, dense_matrix>({14, 8}, density::full, 11);
  const auto y14 = random_tensor<double, dense_vector>({14}, density::full, 12);

  tensor<double, dense_vector> y({40});
  tensor<double, sparse_vector> ys({40});
  tensor<double, csr> C({40, 30}), G({40, 40}), Ct({30, 40});
  tensor<double, dense_matrix> M({10, 8});
  tensor<double, csr> Tv({10, 12});
  double s = 0;

  // the counter counts (in every build): a fresh output's first arrays are allocations
  CHECK(loom_test::allocations_of([&] {
          tensor<double, csr> fresh({40, 30});
          fresh(i, j) = A(i, j) + B(i, j);
        }) > 0);
  CHECK(allocations_on_repeat([&] { y(i) = sum(j, A(i, j) * x(j)); }) == 0);    // SpMV
  CHECK(allocations_on_repeat([&] { ys(i) = sum(j, A(i, j) * xs(j)); }) == 0);  // SpMSpV
  CHECK(allocations_on_repeat([&] { C(i, j) = A(i, j) + B(i, j); }) == 0);      // add
  CHECK(allocations_on_repeat([&] { C(i, j) = A(i, j) * B(i, j); }) == 0);      // A∘B
  const tensor<double, csc> Bc(B);  // transposed once, the copy kept while Bc is unchanged
  CHECK(allocations_on_repeat([&] { C(i, j) = A(i, j) * Bc(i, j); }) == 0);  // csr∘csc
  const tensor<double, csc> Btc(Bt);
  CHECK(allocations_on_repeat([&] { G(i, j) = sum(k, A(i, k) * Btc(k, j)); }) == 0);  // csr × csc
  CHECK(allocations_on_repeat([&] { G(i, j) = sum(k, A(i, k) * Bt(k, j)); }) == 0);   // SpGEMM
  CHECK(allocations_on_repeat([&] { C(i, j) = sum(k, A(i, j) * U(i, k) * V(j, k)); }) ==
        0);                                                                             // SDDMM
  CHECK(allocations_on_repeat([&] { s += eval(sum(i, j, A(i, j) * B(i, j))); }) == 0);  // inner
  CHECK(allocations_on_repeat([&] { M(i, l) = sum(j, k, T3(i, j, k) * W(j, l) * Z(k, l)); }) ==
        0);                                                                             // MTTKRP
  CHECK(allocations_on_repeat([&] { Tv(i, j) = sum(k, T3(i, j, k) * y14(k)); }) == 0);  // TTV
  CHECK(s != 0);
}

TEST_CASE("an output's arrays are reused, and a failed kernel leaves it a valid empty tensor") {
  loom::set_num_threads(1);
  const auto A = random_tensor<double, csr>({30, 30}, density::medium, 21);
  const auto B = random_tensor<double, csr>({30, 30}, density::medium, 22);
  tensor<double, csr> C({30, 30});
  C(i, j) = A(i, j) + B(i, j);
  const double* before = C.values().data();
  C(i, j) = A(i, j) * B(i, j);  // a smaller pattern: the same arrays
  CHECK(C.values().data() == before);
  CHECK(C.nnz() <= A.nnz());

  // 600 entries overflow 8-bit positions: overflow_error, and N is empty, not broken
  using narrow = format<dense, compressed_level<uniqueness::unique, std::int8_t, std::int32_t>>;
  tensor<double, narrow> N({2, 300});
  N.set_name("N");
  const auto wide = random_tensor<double, csr>({2, 300}, density::full, 23);
  CHECK_THROWS_AS((N(i, j) = wide(i, j) * wide(i, j)), loom::overflow_error);
  CHECK(N.nnz() == 0);
  CHECK(N.name() == "N");
  CHECK(N.at(1, 299) == 0.0);
}

// The row writer has room for the output's previous length; a row that does not fit is
// counted, the arrays grow, and the row is written again from its start (format/assembly/appender.hpp).
TEST_CASE("rows that outgrow an output's arrays are written again, whole") {
  loom::set_num_threads(1);
  const auto A = random_tensor<double, csr>({3, 20000}, density::medium, 31);
  const auto B = random_tensor<double, csr>({3, 20000}, density::full, 32);  // rows of 20000
  const auto mismatches = [&](const tensor<double, csr>& C, auto op) {
    long bad = 0;
    for (std::int64_t r = 0; r < 3; ++r)
      for (std::int64_t c = 0; c < 20000; ++c) bad += C.at(r, c) != op(A.at(r, c), B.at(r, c));
    return bad;
  };
  tensor<double, csr> C({3, 20000});
  C(i, j) = A(i, j) * B(i, j);  // fresh: every row grows the arrays
  CHECK(C.nnz() == A.nnz());
  CHECK(mismatches(C, [](double a, double b) { return a * b; }) == 0);
  C(i, j) = A(i, j) + B(i, j);  // a larger pattern into the arrays of a smaller one
  CHECK(C.nnz() == 60000);
  CHECK(mismatches(C, [](double a, double b) { return a + b; }) == 0);
  C(i, j) = A(i, j) * B(i, j);  // smaller again: the same arrays
  CHECK(C.nnz() == A.nnz());
  CHECK(mismatches(C, [](double a, double b) { return a * b; }) == 0);
}
