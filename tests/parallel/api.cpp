// The parallel API and machinery: thread-count settings and scopes, the thread pool (every chunk
// once, exceptions, nested and concurrent loops), the partition by stored entries, the work
// threshold, and a kernel whose user function throws inside a chunk.
// SPDX-License-Identifier: BSL-1.0
#include <atomic>
#include <stdexcept>
#include <thread>

#include "support.hpp"

namespace {

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

namespace par = loom::test::par;

}  // namespace

TEST_CASE("parallel: thread count settings and scopes") {
  const int initial = loom::num_threads();
  CHECK(initial >= 1);
  loom::set_num_threads(3);
  CHECK(loom::num_threads() == 3);
  {
    loom::parallel_scope outer({.threads = 5, .deterministic = true});
    CHECK(loom::num_threads() == 5);
    CHECK(loom::deterministic());
    {
      loom::parallel_scope inner({.threads = 2});
      CHECK(loom::num_threads() == 2);
      CHECK(!loom::deterministic());
      CHECK(loom::current_parallel_options().min_work >= 0);
    }
    CHECK(loom::num_threads() == 5);
    // a scope is per thread: another thread sees the process-wide value
    int other = 0;
    std::thread([&] { other = loom::num_threads(); }).join();
    CHECK(other == 3);
  }
  CHECK(loom::num_threads() == 3);
  loom::set_num_threads(0);  // back to the default
  CHECK(loom::num_threads() == initial);
  loom::set_parallel_min_work(123);
  CHECK(loom::current_parallel_options().min_work == 123);
  loom::set_parallel_min_work(-1);
  loom::set_parallel_chunk_work(7);
  CHECK(loom::current_parallel_options().chunk_work == 7);
  loom::set_parallel_chunk_work(-1);
  CHECK(loom::current_parallel_options().chunk_work >= 1);
  loom::set_deterministic(true);
  CHECK(loom::deterministic());
  loom::set_deterministic(false);
}

TEST_CASE("parallel: the pool runs every chunk once, on up to the threads asked for") {
  for (unsigned threads : {1u, 2u, 3u, 7u})
    for (std::size_t chunks : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{1000}}) {
      std::vector<std::atomic<int>> hits(chunks);
      std::vector<std::atomic<int>> slots(8);
      loom::parallel::parallel_for(chunks, threads, [&](std::size_t c, unsigned slot) {
        hits[c].fetch_add(1);
        slots[slot].fetch_add(1);
      });
      bool once = true;
      for (auto& h : hits) once = once && h.load() == 1;
      CHECK(once);
      for (unsigned s = threads; s < 8; ++s) CHECK(slots[s].load() == 0);
    }
  // the pool grew to the most threads asked for here, the caller being the seventh (other
  // tests of this executable may have asked for more before)
  CHECK(loom::parallel::detail::pool_workers() >= 6);
}

TEST_CASE("parallel: exceptions, nested loops and concurrent callers") {
  CHECK_THROWS_AS(loom::parallel::parallel_for(100, 4,
                                               [](std::size_t c, unsigned) {
                                                 if (c == 57) throw std::runtime_error("chunk 57");
                                               }),
                  std::runtime_error);
  // the pool still works after an exception
  std::atomic<int> n{0};
  loom::parallel::parallel_for(10, 4, [&](std::size_t, unsigned) { ++n; });
  CHECK(n.load() == 10);
  // a loop started inside a chunk runs serially on that thread
  std::atomic<int> inner{0};
  loom::parallel::parallel_for(8, 4, [&](std::size_t, unsigned) {
    loom::parallel::parallel_for(5, 4, [&](std::size_t, unsigned slot) {
      CHECK(slot == 0u);
      ++inner;
    });
  });
  CHECK(inner.load() == 40);
  // two user threads starting loops at once: both complete (one may run serially)
  std::atomic<int> a{0}, b{0};
  std::thread t1([&] {
    for (int r = 0; r < 50; ++r)
      loom::parallel::parallel_for(20, 3, [&](std::size_t, unsigned) { ++a; });
  });
  std::thread t2([&] {
    for (int r = 0; r < 50; ++r)
      loom::parallel::parallel_for(20, 3, [&](std::size_t, unsigned) { ++b; });
  });
  t1.join();
  t2.join();
  CHECK(a.load() == 1000);
  CHECK(b.load() == 1000);
}

TEST_CASE("parallel: partitions balance rows by stored entries") {
  // one heavy row (1000 entries) among 99 rows of one entry
  std::vector<std::array<std::int64_t, 2>> c;
  std::vector<double> v;
  for (std::int64_t q = 0; q < 1000; ++q) c.push_back({50, q}), v.push_back(1);
  for (std::int64_t r = 0; r < 100; ++r)
    if (r != 50) c.push_back({r, 0}), v.push_back(1);
  const auto A = loom::from_coo<loom::csr>({100, 1000}, c, v);
  const auto p = loom::parallel::split_by_entries(A, 100, 4);
  CHECK(p.bounds.front() == 0);
  CHECK(p.bounds.back() == 100);
  bool ascending = true, heavy_alone = false;
  for (std::size_t k = 0; k < p.chunks(); ++k) {
    ascending = ascending && p.lo(k) < p.hi(k);
    heavy_alone = heavy_alone || (p.lo(k) >= 40 && p.hi(k) <= 60 && p.lo(k) <= 50 && 50 < p.hi(k));
  }
  CHECK(ascending);
  CHECK(heavy_alone);  // the heavy row's chunk holds few other rows
  const auto D = loom::convert<loom::dcsr>(A);
  const auto pd = loom::parallel::split_by_entries(D, 100, 4);
  CHECK(pd.bounds.back() == 100);
  const auto O = loom::convert<loom::coo>(A);
  CHECK(loom::parallel::split_by_entries(O, 100, 4).bounds.back() == 100);
  const loom::tensor<double, loom::dcsr> empty({100, 10});
  CHECK(loom::parallel::split_by_entries(empty, 100, 4).chunks() == 4);  // evenly
  CHECK(loom::parallel::split_evenly(3, 8).chunks() == 3);               // no empty chunk
  CHECK(loom::parallel::split_evenly(0, 8).chunks() == 1);
}

TEST_CASE("parallel: small kernels stay serial under the default work threshold") {
  const auto A =
      loom::test::random_tensor<double, loom::csr>({20, 20}, loom::test::density::medium, 1);
  loom::tensor<double, loom::dense_vector> x({20}), y({20});
  loom::parallel_scope s({.threads = 4});
  const std::int64_t before = loom::parallel::split_loop_count();
  y(i) = loom::sum(j, A(i, j) * x(j));
  CHECK(loom::parallel::split_loop_count() == before);
}

TEST_CASE("parallel: an exception thrown by a user function inside a chunk reaches the caller") {
  const auto A =
      loom::test::random_tensor<double, loom::csr>({64, 64}, loom::test::density::full, 2);
  loom::tensor<double, loom::dense_matrix> B({64, 64});
  loom::parallel_scope s({.threads = 4, .min_work = 0, .chunk_work = 1});
  auto f = [](double v) -> double {
    if (v > 8.5) throw std::domain_error("too large");
    return v;
  };
  CHECK_THROWS_AS(B(i, j) = loom::map(f, A(i, j)), std::domain_error);
}
