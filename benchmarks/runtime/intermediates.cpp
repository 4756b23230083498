// A format per intermediate (issue 5, LOOM_INTERMEDIATE_FORMAT_PER_STEP=1) and hashed
// intermediates (LOOM_HASHED_INTERMEDIATES=1).
// - The three-hop y(i) = sum(j, k, l, A(i,j) B(j,k) C(k,l) x(l)) from a sparse x, whose first
//   intermediate T0(k) = C x holds a few dozen entries and whose second, T1(j) = B T0, nearly every
//   cell (every row of B has an entry in a hub column that T0 reaches).
// - The two-hop y(i) = sum(j, k, A(i,j) C(j,k) x(k)) on a large graph, whose one intermediate
//   T0(j) = C x holds a dozen entries of millions and is read at every entry of A: intersected
//   with every row when sorted, located in a table when hashed, or located in millions of cells.
// loom::decompose (the plan chosen from statistics), the candidate that materialises the
// intermediates with each assignment of their formats, and the fused kernel.
// SPDX-License-Identifier: BSL-1.0
#define LOOM_INTERMEDIATE_FORMAT_PER_STEP 1
#define LOOM_HASHED_INTERMEDIATES 1
#include "support.hpp"

namespace {

namespace lb = loom_bench;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"l"> l;

using csr_t = loom::tensor<double, loom::csr>;
using vec_t = loom::tensor<double, loom::sparse_vector>;
using out_t = loom::tensor<double, loom::dense_vector>;

struct hops {
  csr_t A, B, C;
  vec_t x;
  std::vector<double> want;
};

// n vertices; `hubs` columns of B; x has `seeds` entries, each row of C in a hub reaches them
std::unique_ptr<hops> make_hops(std::int64_t n, std::int64_t per_row, std::int64_t hubs, std::int64_t seeds) {
  auto h = std::make_unique<hops>();
  h->A = lb::to_loom<loom::csr>(lb::random_matrix(n, n, per_row, 11));
  lb::entries<2> b = lb::random_matrix(n, n, per_row, 12);
  lb::rng g(13);
  for (std::int64_t r = 0; r < n; ++r) b.crd.push_back({r, g.below(hubs)}), b.val.push_back(g.value());
  h->B = lb::to_loom<loom::csr>(b);  // duplicates summed
  const lb::entries<1> x = lb::random_vector(n, seeds, 14);
  lb::entries<2> c = lb::random_matrix(n, n, 2, 15);
  for (std::int64_t r = 0; r < hubs; ++r) c.crd.push_back({r, x.crd[static_cast<std::size_t>(r % seeds)][0]}), c.val.push_back(g.value());
  h->C = lb::to_loom<loom::csr>(c);
  h->x = lb::to_loom<loom::sparse_vector>(x);
  // reference: three sparse matrix-vector products by hand
  auto spmv = [n](const csr_t& M, const std::vector<double>& v) {
    std::vector<double> out(static_cast<std::size_t>(n), 0.0);
    const auto& pos = M.level<1>().pos;
    const auto& crd = M.level<1>().crd;
    for (std::int64_t r = 0; r < n; ++r)
      for (auto p = pos[static_cast<std::size_t>(r)]; p < pos[static_cast<std::size_t>(r) + 1]; ++p)
        out[static_cast<std::size_t>(r)] += M.values()[static_cast<std::size_t>(p)] * v[static_cast<std::size_t>(crd[static_cast<std::size_t>(p)])];
    return out;
  };
  std::vector<double> xd(static_cast<std::size_t>(n), 0.0);
  for (std::size_t e = 0; e < x.crd.size(); ++e) xd[static_cast<std::size_t>(x.crd[e][0])] = h->x.values()[e];
  h->want = spmv(h->A, spmv(h->B, spmv(h->C, xd)));
  return h;
}

void check(const std::string& what, const out_t& y, const std::vector<double>& want) {
  lb::check_values("intermediates/" + what, y.values(), want, 1e-9);
}

void register_hops(const std::string& name, std::int64_t n) {
  auto data = std::make_shared<lb::lazy<hops>>([n] { return make_hops(n, 8, 64, 4); });
  auto program = [](const hops& h) {
    return loom::sum(j, loom::sum(k, loom::sum(l, h.A(i, j) * h.B(j, k) * h.C(k, l) * h.x(l))));
  };
  lb::add("intermediates", name, "decompose", [=](benchmark::State& st) {
    hops& h = data->get();
    out_t y({n});
    for (auto _ : st) {
      loom::decompose(y(i), program(h));
      benchmark::DoNotOptimize(y.values().data());
    }
    check(name + " decompose", y, h.want);
    const auto plan = loom::plan_decomposition(y(i), program(h));
    lb::label(st, h.B.nnz(), "chosen: #" + std::to_string(plan.chosen) + " " + plan.description[plan.chosen]);
  });
  // the candidate that materialises T0(k) and T1(j), each format assignment
  const std::vector<std::pair<std::string, std::vector<loom::intermediate_format>>> assignments{
      {"sorted", {loom::intermediate_format::sorted, loom::intermediate_format::sorted}},
      {"dense", {loom::intermediate_format::dense, loom::intermediate_format::dense}},
      {"sorted_dense", {loom::intermediate_format::sorted, loom::intermediate_format::dense}},
      {"dense_sorted", {loom::intermediate_format::dense, loom::intermediate_format::sorted}},
      {"hashed_dense", {loom::intermediate_format::hashed, loom::intermediate_format::dense}},
      {"hashed", {loom::intermediate_format::hashed, loom::intermediate_format::hashed}}};
  for (const auto& [impl, formats] : assignments)
    lb::add("intermediates", name, impl, [=, impl = impl, formats = formats](benchmark::State& st) {
      hops& h = data->get();
      out_t y({n});
      const auto plan = loom::plan_decomposition(y(i), program(h));
      std::size_t c = 0;
      for (std::size_t d = 1; d < plan.description.size(); ++d)
        if (plan.description[d].rfind("eliminate l,k, then j fused", 0) == 0) c = d;
      if (c == 0) {
        st.SkipWithError("no candidate eliminates l then k");
        return;
      }
      for (auto _ : st) {
        loom::decompose_with(c, y(i), program(h), formats, plan.reuse[c]);  // no planning per call
        benchmark::DoNotOptimize(y.values().data());
      }
      check(name + " " + impl, y, h.want);
      lb::label(st, h.B.nnz(), "candidate #" + std::to_string(c) + ", T0 " + loom::intermediate_format_name(formats[0]) +
                                  ", T1 " + loom::intermediate_format_name(formats[1]) +
                                  (plan.step_formats[c] == formats ? " (chosen for this candidate)" : ""));
    });
  lb::add("intermediates", name, "fused", [=](benchmark::State& st) {
    hops& h = data->get();
    out_t y({n});
    for (auto _ : st) {
      y(i) = program(h);
      benchmark::DoNotOptimize(y.values().data());
    }
    check(name + " fused", y, h.want);
    lb::label(st, h.B.nnz(), "one fused kernel");
  });
}

struct two_hops {
  csr_t A, C;
  vec_t x;
  std::vector<double> want;
};

// n vertices; A with `per_row` entries per row, C one per row, x `seeds` entries
std::unique_ptr<two_hops> make_two_hops(std::int64_t n, std::int64_t per_row, std::int64_t seeds) {
  auto h = std::make_unique<two_hops>();
  h->A = lb::to_loom<loom::csr>(lb::random_matrix(n, n, per_row, 21));
  h->C = lb::to_loom<loom::csr>(lb::random_matrix(n, n, 1, 22));
  h->x = lb::to_loom<loom::sparse_vector>(lb::random_vector(n, seeds, 23));
  // reference: T0 = C x by hand into a dense vector, then y = A T0
  std::vector<double> xd(static_cast<std::size_t>(n), 0.0), t0(static_cast<std::size_t>(n), 0.0);
  const auto& xc = h->x.level<0>().crd;
  for (std::size_t e = 0; e < xc.size(); ++e) xd[static_cast<std::size_t>(xc[e])] = h->x.values()[e];
  auto spmv = [n](const csr_t& M, const std::vector<double>& v, std::vector<double>& out) {
    const auto& pos = M.level<1>().pos;
    const auto& crd = M.level<1>().crd;
    for (std::int64_t r = 0; r < n; ++r)
      for (auto p = pos[static_cast<std::size_t>(r)]; p < pos[static_cast<std::size_t>(r) + 1]; ++p)
        out[static_cast<std::size_t>(r)] += M.values()[static_cast<std::size_t>(p)] * v[static_cast<std::size_t>(crd[static_cast<std::size_t>(p)])];
  };
  spmv(h->C, xd, t0);
  h->want.assign(static_cast<std::size_t>(n), 0.0);
  spmv(h->A, t0, h->want);
  return h;
}

void register_two_hops(const std::string& name, std::int64_t n) {
  auto data = std::make_shared<lb::lazy<two_hops>>([n] { return make_two_hops(n, 3, 12); });
  auto program = [](const two_hops& h) { return loom::sum(j, loom::sum(k, h.A(i, j) * h.C(j, k) * h.x(k))); };
  lb::add("intermediates", name, "decompose", [=](benchmark::State& st) {
    two_hops& h = data->get();
    out_t y({n});
    for (auto _ : st) {
      loom::decompose(y(i), program(h));
      benchmark::DoNotOptimize(y.values().data());
    }
    check(name + " decompose", y, h.want);
    const auto plan = loom::plan_decomposition(y(i), program(h));
    lb::label(st, h.A.nnz(), "chosen: #" + std::to_string(plan.chosen) + " " + plan.description[plan.chosen]);
  });
  for (const loom::intermediate_format f :
       {loom::intermediate_format::sorted, loom::intermediate_format::dense, loom::intermediate_format::hashed})
    lb::add("intermediates", name, loom::intermediate_format_name(f), [=](benchmark::State& st) {
      two_hops& h = data->get();
      out_t y({n});
      const auto plan = loom::plan_decomposition(y(i), program(h));
      std::size_t c = 0;
      for (std::size_t d = 1; d < plan.description.size(); ++d)
        if (plan.description[d].rfind("eliminate k, then j fused", 0) == 0) c = d;
      if (c == 0) {
        st.SkipWithError("no candidate eliminates k alone");
        return;
      }
      for (auto _ : st) {
        loom::decompose_with(c, y(i), program(h), f, plan.reuse[c]);  // no planning per call
        benchmark::DoNotOptimize(y.values().data());
      }
      check(name + " " + loom::intermediate_format_name(f), y, h.want);
      lb::label(st, h.A.nnz(), std::string("candidate #") + std::to_string(c) + ", T0 " + loom::intermediate_format_name(f) +
                                   (plan.step_formats[c][0] == f ? " (chosen for this candidate)" : ""));
    });
  lb::add("intermediates", name, "fused", [=](benchmark::State& st) {
    two_hops& h = data->get();
    out_t y({n});
    for (auto _ : st) {
      y(i) = program(h);
      benchmark::DoNotOptimize(y.values().data());
    }
    check(name + " fused", y, h.want);
    lb::label(st, h.A.nnz(), "one fused kernel");
  });
}

}  // namespace

int main(int argc, char** argv) {
  register_hops("three_hops_100K", 100'000);
  register_two_hops("two_hops_2M", 2'000'000);
  return lb::run(argc, argv);
}
