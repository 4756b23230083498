// Tests that a CMake consumer of loom::loom builds and runs SpMV.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <vector>

#ifdef LOOM_EXPECTED_VERSION_MAJOR  // set by the find_package route from the package version
static_assert(LOOM_VERSION_MAJOR == LOOM_EXPECTED_VERSION_MAJOR &&
                  LOOM_VERSION_MINOR == LOOM_EXPECTED_VERSION_MINOR &&
                  LOOM_VERSION_PATCH == LOOM_EXPECTED_VERSION_PATCH,
              "loom-config-version.cmake and <loom/version.hpp> disagree");
#endif

int main() {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  loom::tensor<double, loom::csr> A = loom::from_coo<loom::csr, double>(
      {3, 3}, std::vector<std::array<std::int64_t, 2>>{{0, 0}, {1, 2}, {2, 1}},
      std::vector<double>{1, 2, 3}, loom::duplicates::error);
  loom::tensor<double, loom::dense_vector> x({3}), y({3});
  x.at(0) = 1;
  x.at(1) = 2;
  x.at(2) = 3;
  y(i) = loom::sum(j, A(i, j) * x(j));
  if (y.at(0) != 1 || y.at(1) != 6 || y.at(2) != 6) {
    std::fprintf(stderr, "SpMV gave y = (%g, %g, %g), expected (1, 6, 6)\n", y.at(0), y.at(1),
                 y.at(2));
    return 1;
  }
  std::puts("SpMV ok: y = (1, 6, 6)");
  return 0;
}
