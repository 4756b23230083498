// core/progress.hpp: the progress callback is called by the readers, key_by, decompose and the
// tile conversions with done monotone from 0 to total, at a bounded rate, and never when unset.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace rel = loom::relational;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"l"> l;

struct report {
  std::string phase, subject, unit;
  std::int64_t done, total;
  double fraction;
};

// Records every call while it lives.
struct recorder {
  std::vector<report> calls;
  loom::scoped_progress scope{[this](const loom::progress& p) {
    calls.push_back(
        {std::string(p.phase), std::string(p.subject), p.unit, p.done, p.total, p.fraction()});
  }};
};

// The reports of one operation: phase and unit throughout, done from 0 rising to total.
void check_reports(const std::vector<report>& calls, const std::string& phase,
                   const std::string& unit, std::size_t most = 110) {
  REQUIRE(!calls.empty());
  CHECK(calls.size() <= most);
  for (const report& r : calls) {
    CHECK(r.phase == phase);
    CHECK(r.unit == unit);
  }
  CHECK(calls.front().done == 0);
  for (std::size_t c = 1; c < calls.size(); ++c) CHECK(calls[c].done > calls[c - 1].done);
  CHECK(calls.back().done == calls.back().total);
  CHECK(calls.back().fraction == 1.0);
}

// Reports as often as the 1% limit allows, whatever the clock says.
struct no_time_limit {
  std::int64_t saved = loom::detail::progress_interval_ns.exchange(0);
  ~no_time_limit() { loom::detail::progress_interval_ns = saved; }
};

const std::string pushpull = std::string(LOOM_DATA_DIR) + "/pushpull.mtx";

std::string sales_csv(int rows) {
  std::ostringstream csv;
  csv << "store,day,qty\n";
  for (int r = 0; r < rows; ++r) csv << r % 97 << "," << r % 31 << "," << r % 5 << "\n";
  return csv.str();
}

}  // namespace

TEST_CASE("progress: nothing is called when no callback is set") {
  int calls = 0;
  loom::set_progress([&](const loom::progress&) { ++calls; });
  CHECK(static_cast<bool>(loom::set_progress({})));  // the previous one returned; none now
  (void)loom::read_matrix_market<double, loom::csr>(pushpull);
  const auto t =
      rel::read_csv_text(sales_csv(1000), "sales.csv",
                         {{"store", rel::column_type::int64}, {"day", rel::column_type::int64}});
  (void)rel::key_by<2>(t, {"store", "day"}, rel::count());
  loom::detail::progress_reporter unset("phase", "", 100, "units");
  unset.advance_to(100);
  unset.finish();
  CHECK(!unset.active());
  CHECK(calls == 0);
}

TEST_CASE("progress: a reporter reports 0, about every 1%, then total; a total of 0 once") {
  const no_time_limit fast;
  {
    recorder rec;
    loom::detail::progress_reporter p("counting", "fake", 10'000'000, "units");
    for (std::int64_t d = 0; d <= 10'000'000; ++d) p.advance_to(d);
    p.finish();
    check_reports(rec.calls, "counting", "units", 102);
    CHECK(rec.calls.size() >= 100);
    CHECK(rec.calls.front().subject == "fake");
    p.finish();  // once only
    CHECK(rec.calls.back().total == 10'000'000);
  }
  {
    recorder rec;
    loom::detail::progress_reporter p("counting", "", 0, "units");
    p.finish();
    REQUIRE(rec.calls.size() == 1);
    CHECK(rec.calls[0].done == 0);
    CHECK(rec.calls[0].total == 0);
    CHECK(rec.calls[0].fraction == 1.0);
  }
}

TEST_CASE("progress: reports are at least the interval apart, first and last excepted") {
  recorder rec;  // the default interval (50 ms): a fast loop reports little beyond 0 and total
  loom::detail::progress_reporter p("counting", "", 1'000'000, "units");
  for (std::int64_t d = 0; d <= 1'000'000; ++d) p.advance_to(d);
  p.finish();
  check_reports(rec.calls, "counting", "units", 102);
}

TEST_CASE("progress: a throwing callback leaves the operation") {
  const loom::scoped_progress scope(
      [](const loom::progress&) { throw std::runtime_error("stop"); });
  CHECK_THROWS_AS((loom::read_matrix_market<double, loom::csr>(pushpull)), std::runtime_error);
}

TEST_CASE("progress: read_matrix_market and read_tns report the bytes of the file") {
  const no_time_limit fast;
  {
    recorder rec;
    const auto A = loom::read_matrix_market<double, loom::csr>(pushpull);
    check_reports(rec.calls, "reading", "bytes");
    CHECK(rec.calls.front().subject == pushpull);
    CHECK(rec.calls.back().total ==
          static_cast<std::int64_t>(std::filesystem::file_size(pushpull)));
    CHECK(rec.calls.size() > 2);  // about every 1% of the bytes
    CHECK(A.nnz() > 0);
  }
  {
    std::ostringstream text;
    for (int e = 0; e < 5000; ++e) text << e % 50 + 1 << " " << e / 50 + 1 << " 2 1.5\n";
    std::istringstream in(text.str());
    recorder rec;
    (void)loom::read_tns<double, loom::csf<3>>(in, "cube.tns");
    check_reports(rec.calls, "reading", "bytes");
    CHECK(rec.calls.front().subject == "cube.tns");
    CHECK(rec.calls.back().total == static_cast<std::int64_t>(text.str().size()));
  }
}

TEST_CASE("progress: a stream that cannot seek has an unknown total until the end") {
  struct no_seek : std::stringbuf {
    using std::stringbuf::stringbuf;
    pos_type seekoff(off_type, std::ios::seekdir, std::ios::openmode) override {
      return pos_type(off_type(-1));
    }
  };
  const std::string text = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 4\n";
  no_seek buf(text);
  std::istream in(&buf);
  recorder rec;
  const auto A = loom::read_matrix_market<double, loom::csr>(in, "piped.mtx");
  check_reports(rec.calls, "reading", "bytes");
  CHECK(rec.calls.front().total == -1);
  CHECK(rec.calls.front().fraction == 0.0);
  CHECK(rec.calls.back().total == static_cast<std::int64_t>(text.size()));
  CHECK(A.nnz() == 2);
}

TEST_CASE("progress: read_csv_text reports bytes, key_by rows") {
  const no_time_limit fast;
  const std::string csv = sales_csv(20000);
  recorder rec;
  const auto t = rel::read_csv_text(csv, "sales.csv",
                                    {{"store", rel::column_type::int64},
                                     {"day", rel::column_type::int64},
                                     {"qty", rel::column_type::int64}});
  check_reports(rec.calls, "reading", "bytes");
  CHECK(rec.calls.back().total == static_cast<std::int64_t>(csv.size()));
  CHECK(rec.calls.size() > 50);
  rec.calls.clear();
  const auto C = rel::key_by<2>(t, {"store", "day"}, rel::count());
  check_reports(rec.calls, "keying", "rows");
  CHECK(rec.calls.front().subject == "sales.csv");
  CHECK(rec.calls.back().total == 20000);
  CHECK(C.nnz() > 0);
}

TEST_CASE("progress: decompose reports its eliminations and the last kernel") {
  const no_time_limit fast;
  auto chain = [](std::int64_t r, std::int64_t c) {
    std::vector<std::array<std::int64_t, 2>> x;
    for (std::int64_t a = 0; a < r; ++a) x.push_back({a, a % c});
    return loom::from_coo<loom::csr>({r, c}, x, std::vector<double>(x.size(), 1.0));
  };
  const auto A = chain(6, 5), B = chain(5, 4), C = chain(4, 3);
  loom::tensor<double, loom::dense_matrix> E({6, 3});
  recorder rec;
  loom::decompose(E(i, l), loom::sum(j, loom::sum(k, A(i, j) * B(j, k) * C(k, l))),
                  loom::options<loom::opt::eliminate>{.candidate = 1});
  check_reports(rec.calls, "eliminating", "eliminations");
  CHECK(rec.calls.back().total == 2);  // j eliminated, then the last kernel
}

TEST_CASE("progress: the tile conversions report tiles") {
  const no_time_limit fast;
  const auto A = loom::read_matrix_market<double, loom::csr>(pushpull);
  recorder rec;
  const auto tiled = loom::tra::to_tiled(A, {4, 4}, loom::tra::empty_tiles::drop);
  check_reports(rec.calls, "tiling", "tiles");
  CHECK(rec.calls.back().total == tiled.tiles.size());
  rec.calls.clear();
  const auto back = loom::tra::from_tiled<loom::csr>(tiled);
  check_reports(rec.calls, "untiling", "tiles");
  rec.calls.clear();
  const auto sparse = loom::tra::to_sparse_tiles<loom::csr>(A, {4, 4});
  check_reports(rec.calls, "tiling", "tiles");
  CHECK(rec.calls.back().total == static_cast<std::int64_t>(sparse.size()));
  rec.calls.clear();
  (void)loom::tra::from_sparse_tiles<loom::csr>(sparse, A.shape());
  check_reports(rec.calls, "untiling", "tiles");
  CHECK(back.nnz() == A.nnz());
}
