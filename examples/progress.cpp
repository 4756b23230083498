// A progress bar for loom's long operations: reads a Matrix Market file (data/matrices/pushpull.mtx,
// or the path given), then reads and keys a generated table, each drawn as
// `[##########..........]  50% reading pushpull.mtx` on stderr.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#if __has_include(<unistd.h>)
#  include <unistd.h>  // isatty
#endif

// Rewrites the bar in place on a terminal; in a log (CI, a pipe) writes one line per quarter.
void draw(const loom::progress& p) {
#if __has_include(<unistd.h>)
  static const bool terminal = isatty(fileno(stderr)) != 0;
#else
  static const bool terminal = false;
#endif
  static int next_quarter = 0;  // the quarter a log line is due at
  const int percent = static_cast<int>(p.fraction() * 100);
  const bool last = p.done == p.total;
  const std::string name = std::filesystem::path(p.subject).filename().string();
  if (!terminal) {
    if (p.done == 0) next_quarter = 0;  // a new operation
    if (percent < next_quarter * 25) return;
    next_quarter = percent / 25 + 1;
  }
  const int filled = percent / 5;  // of 20
  std::fprintf(stderr, "%s[%s%s] %3d%% %.*s %s", terminal ? "\r" : "",
               std::string(static_cast<std::size_t>(filled), '#').c_str(),
               std::string(static_cast<std::size_t>(20 - filled), '.').c_str(), percent,
               static_cast<int>(p.phase.size()), p.phase.data(), name.c_str());
  if (!terminal || last) std::fputc('\n', stderr);
}

int main(int argc, char** argv) {
  const bool smoke = std::getenv("LOOM_EXAMPLE_SMOKE") != nullptr;
  const std::string path = argc > 1 ? argv[1] : "data/matrices/pushpull.mtx";
  loom::set_progress(draw);  // off again with loom::set_progress({})

  const auto A = loom::read_matrix_market<double, loom::csr>(path);
  std::printf("%s: %lld x %lld, %lld entries\n", path.c_str(), static_cast<long long>(A.shape()[0]),
              static_cast<long long>(A.shape()[1]), static_cast<long long>(A.nnz()));

  // a table of orders: (customer, day, amount), keyed by customer and day
  const int rows = smoke ? 100'000 : 2'000'000;
  std::string csv = "customer,day,amount\n";
  for (int r = 0; r < rows; ++r)
    csv += std::to_string(r * 7 % 5000) + "," + std::to_string(r % 365) + "," +
           std::to_string(r % 100) + ".5\n";
  namespace rel = loom::relational;
  const rel::table orders = rel::read_csv_text(csv, "orders.csv",
                                               {{"customer", rel::column_type::int64},
                                                {"day", rel::column_type::int64},
                                                {"amount", rel::column_type::decimal}});
  const auto spent = rel::key_by<2>(orders, {"customer", "day"}, rel::sum_of<double>("amount"));
  std::printf("orders.csv: %d rows, %lld (customer, day) pairs\n", rows,
              static_cast<long long>(spent.nnz()));
}
