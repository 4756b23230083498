// loom::program: statements run in order, a sum that occurs more than once over the same
// tensors computed once (Galley's CSE), against the statements run one by one and the dense
// reference over densities and seeds; a counting function checks the sum runs once; sums of the
// same type over other tensors get their own temporary; explain lists the shared sums.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "support/random.hpp"
#include "support/reference.hpp"

namespace {

namespace lt = loom::test;
constexpr loom::index<"prog_i"> i;
constexpr loom::index<"prog_j"> j;
constexpr loom::index<"prog_k"> k;

template <class T, std::size_t N>
void check_close(const lt::dense_result<T, N>& got, const lt::dense_result<T, N>& want) {
  REQUIRE(got.values.size() == want.values.size());
  for (std::size_t p = 0; p < got.values.size(); ++p)
    CHECK(got.values[p] == doctest::Approx(want.values[p]));
}

// x -> x, counting its calls (one per stored entry it is applied to)
inline long calls = 0;
struct counted {
  static constexpr bool zero_preserving = true;
  double operator()(double x) const {
    ++calls;
    return x;
  }
};

}  // namespace

TEST_CASE(
    "program: a sum shared by two statements is computed once; results match the "
    "reference") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed)
    for (const lt::density d : {lt::density::sparse, lt::density::medium, lt::density::full}) {
      CAPTURE(seed);
      CAPTURE(lt::density_name(d));
      const auto A = lt::random_tensor<double, loom::csr>({30, 20}, d, seed);
      const auto x = lt::random_tensor<double, loom::dense_vector>({20}, lt::density::full, seed);
      const auto b =
          lt::random_tensor<double, loom::dense_vector>({30}, lt::density::full, seed + 1);
      const auto B = lt::random_tensor<double, loom::csr>({20, 25}, d, seed + 2);
      loom::tensor<double, loom::dense_vector> y({30}), z({30}), yr({30}), zr({30});
      loom::tensor<double, loom::csr> C({30, 25}), D({30, 25});
      loom::tensor<double, loom::csr> Cr({30, 25}), Dr({30, 25});
      const auto s = loom::sum(j, loom::map(counted{}, A(i, j)) * x(j));
      const auto m = loom::sum(j, A(i, j) * B(j, k));
      auto p = loom::program(loom::let(y(i), s + b(i)), loom::let(z(i), s * s),
                             loom::let(C(i, k), 2.0 * m), loom::let(D(i, k), m * m));
      calls = 0;
      p.run();
      const long shared_calls = calls;
      CHECK(p.shared_computed() == 2);
      calls = 0;
      yr(i) = s + b(i);  // one by one: the sum runs in each statement
      zr(i) = s * s;
      const long separate_calls = calls;
      CHECK(shared_calls == A.nnz());  // once
      CHECK(separate_calls >= 2 * A.nnz());
      check_close(lt::to_dense(y), lt::reference_eval(yr(i), s + b(i)));
      check_close(lt::to_dense(z), lt::reference_eval(zr(i), s * s));
      check_close(lt::to_dense(C), lt::reference_eval(Cr(i, k), 2.0 * m));
      check_close(lt::to_dense(D), lt::reference_eval(Dr(i, k), m * m));
      // let_add, and a statement reading what the one before wrote
      auto q =
          loom::program(loom::let(y(i), s), loom::let_add(y(i), s), loom::let(z(i), 3.0 * y(i)));
      q.run();
      auto twice = lt::reference_eval(yr(i), s);
      for (double& v : twice.values) v *= 2;
      check_close(lt::to_dense(y), twice);
      for (double& v : twice.values) v *= 3;
      check_close(lt::to_dense(z), twice);
      CHECK(q.shared_computed() == 1);
    }
}

TEST_CASE("program: sums of one type over other tensors are not merged") {
  const auto A = lt::random_tensor<double, loom::csr>({10, 8}, lt::density::medium, 4);
  const auto A2 = lt::random_tensor<double, loom::csr>({10, 8}, lt::density::medium, 5);
  const auto x = lt::random_tensor<double, loom::dense_vector>({8}, lt::density::full, 6);
  loom::tensor<double, loom::dense_vector> y({10}), z({10}), r({10});
  auto p = loom::program(loom::let(y(i), loom::sum(j, A(i, j) * x(j))),
                         loom::let(z(i), loom::sum(j, A2(i, j) * x(j))));
  p.run();
  CHECK(p.shared_computed() == 2);  // one temporary each
  check_close(lt::to_dense(y), lt::reference_eval(r(i), loom::sum(j, A(i, j) * x(j))));
  check_close(lt::to_dense(z), lt::reference_eval(r(i), loom::sum(j, A2(i, j) * x(j))));
}

TEST_CASE("program: explain lists the shared sums and each statement's plan") {
  auto A = lt::random_tensor<double, loom::csr>({10, 8}, lt::density::medium, 4);
  A.set_name("A");
  auto x = lt::random_tensor<double, loom::dense_vector>({8}, lt::density::full, 6);
  x.set_name("x");
  loom::tensor<double, loom::dense_vector> y({10}), z({10});
  y.set_name("y");
  z.set_name("z");
  const auto s = loom::sum(j, A(i, j) * x(j));
  auto p = loom::program(loom::let(y(i), 2.0 * s), loom::let(z(i), s * s));
  const std::string text = p.explain();
  CAPTURE(text);
  CHECK(text.find("program: 2 statements, 1 shared sums") != std::string::npos);
  CHECK(text.find("shared t0 = sum(prog_j, A(prog_i,prog_j) * x(prog_j)): computed once, read 3 "
                  "times") != std::string::npos);
  CHECK(text.find("statement 1 (=):") != std::string::npos);
}
