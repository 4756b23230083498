// What reading an adaptive level costs (format/levels/adaptive.hpp: a fiber's kind read per
// fiber, its moves branching on it) against the level of the same kind compiled in, and a hand
// loop. y(i) = sum(j, A(i,j) * x(j)), output reused:
// - rows: A's rows iterated, x dense. Sparse rows (8 per row: the adaptive rows are sorted) against
//   csr; bitmap rows (a fifth full) against format<dense, bitmap>; full rows against dense_matrix.
// - probe: A csr iterated, x located. x with 2% of its entries (hashed fibers) against
//   format<hashed>; x a third full (a bitmap) against format<bitmap>.
// SPDX-License-Identifier: BSL-1.0
#include "support.hpp"

namespace {

namespace lb = loom_bench;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

using rows_adaptive = loom::format<loom::dense, loom::adaptive>;
using out_t = loom::tensor<double, loom::dense_vector>;

// y = A x by hand over csr arrays, x dense
void hand_spmv(const loom::tensor<double, loom::csr>& A, const std::vector<double>& x,
               std::vector<double>& y) {
  const auto& pos = A.level<1>().pos;
  const auto& crd = A.level<1>().crd;
  const double* v = A.values().data();
  for (std::size_t r = 0; r + 1 < pos.size(); ++r) {
    double s = 0;
    for (auto p = pos[r]; p < pos[r + 1]; ++p) s += v[p] * x[static_cast<std::size_t>(crd[p])];
    y[r] = s;
  }
}

std::vector<double> dense_of(const lb::entries<1>& x, std::int64_t n) {
  std::vector<double> d(static_cast<std::size_t>(n), 0.0);
  for (std::size_t e = 0; e < x.crd.size(); ++e)
    d[static_cast<std::size_t>(x.crd[e][0])] = x.val[e];
  return d;
}

// A (m x n, per_row entries a row) read by rows in `Compiled` and in the adaptive level
template <class Compiled> struct rows_case {
  loom::tensor<double, loom::csr> csr;
  loom::tensor<double, Compiled> compiled;
  loom::tensor<double, rows_adaptive> adaptive;
  loom::tensor<double, loom::dense_vector> x;
  std::vector<double> x_dense, want;
};

template <class Compiled>
void register_rows(const std::string& name, std::int64_t m, std::int64_t n, std::int64_t per_row,
                   const std::string& kind) {
  auto data = std::make_shared<lb::lazy<rows_case<Compiled>>>([=] {
    auto c = std::make_unique<rows_case<Compiled>>();
    const lb::entries<2> a = lb::random_matrix(m, n, per_row, 31);
    c->csr = lb::to_loom<loom::csr>(a);
    c->compiled = lb::to_loom<Compiled>(a);
    c->adaptive = lb::to_loom<rows_adaptive>(a);
    c->x_dense = lb::dense_values(n, 32);
    c->x = loom::tensor<double, loom::dense_vector>({n});
    std::copy(c->x_dense.begin(), c->x_dense.end(), c->x.values().begin());
    c->want.assign(static_cast<std::size_t>(m), 0.0);
    hand_spmv(c->csr, c->x_dense, c->want);
    return c;
  });
  lb::add("adaptive", name, "hand", [=](benchmark::State& st) {
    auto& c = data->get();
    std::vector<double> y(static_cast<std::size_t>(m));
    for (auto _ : st) {
      hand_spmv(c.csr, c.x_dense, y);
      benchmark::DoNotOptimize(y.data());
    }
    lb::label(st, c.csr.nnz(), "csr arrays by hand");
  });
  lb::add("adaptive", name, "compiled", [=](benchmark::State& st) {
    auto& c = data->get();
    out_t y({m});
    for (auto _ : st) {
      y(i) = loom::sum(j, c.compiled(i, j) * c.x(j));
      benchmark::DoNotOptimize(y.values().data());
    }
    lb::check_values("adaptive/" + name + " compiled", y.values(), c.want, 1e-9);
    lb::label(st, c.csr.nnz(), loom::format_name<Compiled>());
  });
  lb::add("adaptive", name, "adaptive", [=](benchmark::State& st) {
    auto& c = data->get();
    out_t y({m});
    for (auto _ : st) {
      y(i) = loom::sum(j, c.adaptive(i, j) * c.x(j));
      benchmark::DoNotOptimize(y.values().data());
    }
    lb::check_values("adaptive/" + name + " adaptive", y.values(), c.want, 1e-9);
    const auto fibers = loom::adaptive::fibers_of(c.adaptive.template level<1>(),
                                                  kind == "dense"    ? loom::fiber_kind::dense
                                                  : kind == "bitmap" ? loom::fiber_kind::bitmap
                                                                     : loom::fiber_kind::sorted);
    lb::label(st, c.csr.nnz(),
              std::to_string(fibers) + " of " + std::to_string(m) + " rows " + kind);
  });
}

// A csr iterated, x (count entries of n) located in `Compiled` and in the adaptive level
template <class Compiled> struct probe_case {
  loom::tensor<double, loom::csr> A;
  loom::tensor<double, Compiled> compiled;
  loom::tensor<double, loom::format<loom::adaptive>> adaptive;
  std::vector<double> want;
};

template <class Compiled>
void register_probe(const std::string& name, std::int64_t m, std::int64_t n, std::int64_t per_row,
                    std::int64_t count) {
  auto data = std::make_shared<lb::lazy<probe_case<Compiled>>>([=] {
    auto c = std::make_unique<probe_case<Compiled>>();
    c->A = lb::to_loom<loom::csr>(lb::random_matrix(m, n, per_row, 41));
    const lb::entries<1> x = lb::random_vector(n, count, 42);
    c->compiled = lb::to_loom<Compiled>(x);
    c->adaptive = lb::to_loom<loom::format<loom::adaptive>>(x);
    c->want.assign(static_cast<std::size_t>(m), 0.0);
    hand_spmv(c->A, dense_of(x, n), c->want);
    return c;
  });
  lb::add("adaptive", name, "compiled", [=](benchmark::State& st) {
    auto& c = data->get();
    out_t y({m});
    for (auto _ : st) {
      y(i) = loom::sum(j, c.A(i, j) * c.compiled(j));
      benchmark::DoNotOptimize(y.values().data());
    }
    lb::check_values("adaptive/" + name + " compiled", y.values(), c.want, 1e-9);
    lb::label(st, c.A.nnz(), "x " + loom::format_name<Compiled>());
  });
  lb::add("adaptive", name, "adaptive", [=](benchmark::State& st) {
    auto& c = data->get();
    out_t y({m});
    for (auto _ : st) {
      y(i) = loom::sum(j, c.A(i, j) * c.adaptive(j));
      benchmark::DoNotOptimize(y.values().data());
    }
    lb::check_values("adaptive/" + name + " adaptive", y.values(), c.want, 1e-9);
    lb::label(st, c.A.nnz(),
              std::string("x adaptive, its fiber ") +
                  std::string(loom::fiber_kind_name(c.adaptive.template level<0>().kind[0])));
  });
}

}  // namespace

int main(int argc, char** argv) {
  register_rows<loom::csr>("rows_sparse_1M", 1'000'000, 1'000'000, 8, "sorted");
  register_rows<loom::format<loom::dense, loom::bitmap>>("rows_bitmap_20K", 20'000, 2'000, 400,
                                                         "bitmap");
  register_rows<loom::dense_matrix>("rows_dense_4K", 4'000, 1'000, 2'000, "dense");
  register_probe<loom::format<loom::hashed>>("probe_hashed_1M", 1'000'000, 1'000'000, 8, 20'000);
  register_probe<loom::format<loom::bitmap>>("probe_bitmap_1M", 1'000'000, 1'000'000, 8, 333'333);
  return lb::run(argc, argv);
}
