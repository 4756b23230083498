// loom::auto_tensor: an output whose format each assignment chooses from the estimated fill
// (Galley's output formats and test T14), against the dense reference over
// densities and seeds; read back as an operand in every format; += and self-reads keep the format;
// explain says why.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "support/random.hpp"
#include "support/reference.hpp"

namespace {

namespace lt = loom::test;
constexpr loom::index<"auto_i"> i;
constexpr loom::index<"auto_j"> j;
constexpr loom::index<"auto_k"> k;

template <class T, std::size_t N>
void check_same(const loom::auto_tensor<T, N>& got, const lt::dense_result<T, N>& want) {
  const auto shape = got.shape();
  if constexpr (N == 1) {
    for (std::int64_t a = 0; a < shape[0]; ++a)
      CHECK(got.at(a) == doctest::Approx(want.values[static_cast<std::size_t>(a)]));
  } else {
    for (std::int64_t a = 0; a < shape[0]; ++a)
      for (std::int64_t b = 0; b < shape[1]; ++b)
        CHECK(got.at(a, b) ==
              doctest::Approx(want.values[static_cast<std::size_t>(a * shape[1] + b)]));
  }
}

}  // namespace

TEST_CASE("auto_tensor: Galley's cut-offs (T14)") {
  using loom::auto_format;
  using loom::optimize::choose_output_format;
  CHECK(choose_output_format(60, 100, true).format == auto_format::dense);
  CHECK(choose_output_format(10, 100, false).format == auto_format::bitmap);
  CHECK(choose_output_format(1, 100, true).format == auto_format::sorted);
  CHECK(choose_output_format(1, 100, false).format == auto_format::hashed);
  CHECK(choose_output_format(0, 0, true).format == auto_format::sorted);
  CHECK(choose_output_format(10, 100, true).describe() ==
        "bitmap: estimated 10 entries in 100 cells (10% full; dense above 50%, bitmap above 5%)");
}

TEST_CASE(
    "auto_tensor: the format follows the estimated fill, every result matches the "
    "reference, and each format is read back as an operand") {
  std::set<loom::auto_format> read_back;
  for (std::uint64_t seed = 1; seed <= 3; ++seed)
    for (const lt::density d : {lt::density::sparse, lt::density::medium, lt::density::full}) {
      CAPTURE(seed);
      CAPTURE(lt::density_name(d));
      const auto A = lt::random_tensor<double, loom::csr>({40, 30}, d, seed);
      const auto B = lt::random_tensor<double, loom::csr>({40, 30}, d, seed + 4);
      const auto x = lt::random_tensor<double, loom::dense_vector>({30}, lt::density::full, seed);
      loom::tensor<double, loom::dense_matrix> ref({40, 30});
      loom::tensor<double, loom::dense_vector> yref({40}), y({40});
      loom::auto_tensor<double, 2> C({40, 30});
      auto check = [&](const auto& rhs) {
        C(i, j) = rhs;
        const auto want = lt::reference_eval(ref(i, j), rhs);
        check_same(C, want);
        CAPTURE(C.reason());
        std::int64_t stored = 0;
        for (const double v : want.values) stored += v != 0;
        if (d == lt::density::full) CHECK(C.held_format() == loom::auto_format::dense);
        if (stored == 0) CHECK(C.held_format() != loom::auto_format::dense);
        // read back in the format held: y = C x
        read_back.insert(C.held_format());
        y(i) = loom::sum(j, C(i, j) * x(j));
        const auto got = lt::to_dense(y);
        for (std::int64_t a = 0; a < 40; ++a) {
          double dot = 0;
          for (std::int64_t b = 0; b < 30; ++b)
            dot += want.values[static_cast<std::size_t>(a * 30 + b)] * x.at(b);
          CHECK(got.values[static_cast<std::size_t>(a)] == doctest::Approx(dot));
        }
      };
      check(A(i, j) * B(i, j));
      check(A(i, j) + B(i, j));
      check(2.0 * A(i, j));
      // written out of order: C(j, i) from row-major operands
      loom::auto_tensor<double, 2> T({30, 40});
      loom::tensor<double, loom::dense_matrix> tref({30, 40});
      T(j, i) = A(i, j) * B(i, j);
      check_same(T, lt::reference_eval(tref(j, i), A(i, j) * B(i, j)));
      if (d == lt::density::sparse) CHECK(T.held_format() == loom::auto_format::hashed);
      C(i, j) = 3.0 * T(j, i);  // T read back in its format (hashed where sparse)
      read_back.insert(T.held_format());
      const auto twice = lt::reference_eval(ref(i, j), 3.0 * A(i, j) * B(i, j));
      check_same(C, twice);
      // a vector
      loom::auto_tensor<double, 1> z({40});
      z(i) = loom::sum(j, A(i, j) * x(j));
      check_same(z, lt::reference_eval(yref(i), loom::sum(j, A(i, j) * x(j))));
    }
  CHECK(read_back.size() == 4);  // every format was held and read
}

TEST_CASE("auto_tensor: += and a right-hand side that reads the output keep the format held") {
  const auto A = lt::random_tensor<double, loom::csr>({20, 20}, lt::density::sparse, 9);
  loom::auto_tensor<double, 2> C({20, 20});
  C(i, j) = A(i, j) * A(i, j);
  const loom::auto_format held = C.held_format();
  CHECK(held == loom::auto_format::sorted);
  C(i, j) += loom::sum(k, A(i, k) * A(k, j));  // denser, but added to the format held
  CHECK(C.held_format() == held);
  CHECK(C.reason() == "sorted: kept, += adds to the format held");
  loom::tensor<double, loom::dense_matrix> ref({20, 20});
  ref(i, j) = A(i, j) * A(i, j);
  ref(i, j) += loom::sum(k, A(i, k) * A(k, j));
  check_same(C, lt::to_dense(ref));
  C(i, j) = 2.0 * C(i, j);
  CHECK(C.reason() == "sorted: kept, the right-hand side reads the output");
  ref(i, j) = 2.0 * ref(i, j);
  check_same(C, lt::to_dense(ref));
}

TEST_CASE("auto_tensor: explain says which format and why") {
  auto A = lt::random_tensor<double, loom::csr>({50, 50}, lt::density::full, 3);
  A.set_name("A");
  loom::auto_tensor<double, 2> C({50, 50});
  C.set_name("C");
  const std::string text = loom::explain(C(i, j), A(i, j) * A(i, j));
  CAPTURE(text);
  CHECK(text.find("output format chosen: dense: estimated") != std::string::npos);
  CHECK(text.find("output: C [dense_matrix]") != std::string::npos);
}
