// A format per intermediate (opt::format_per_step) and hashed intermediates
// (opt::hashed_intermediates: accepted, hashed ones are costed by default since 2026-11-29).
// - The three-hop y(i) = sum(j, k, l, A(i,j) B(j,k) C(k,l) x(l)) from a sparse x, whose first
//   intermediate T0(k) = C x holds a few dozen entries and whose second, T1(j) = B T0, nearly every
//   cell (every row of B has an entry in a hub column that T0 reaches).
// - The two-hop y(i) = sum(j, k, A(i,j) C(j,k) x(k)) on a large graph, whose one intermediate
//   T0(j) = C x holds a dozen entries of millions and is read at every entry of A: intersected
//   with every row when sorted, located in a table when hashed, or located in millions of cells.
// loom::decompose (the plan chosen from statistics), the candidate that materialises the
// intermediates with each assignment of their formats, and the fused kernel.
// SPDX-License-Identifier: BSL-1.0
#include "support.hpp"

namespace {

// a format per intermediate, hashed among them
using per_step_hashed = loom::options<loom::opt::eliminate, loom::opt::format_per_step,
                                      loom::opt::hashed_intermediates>;

namespace lb = loom_bench;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"l"> l;

using csr_t = loom::tensor<double, loom::csr>;
using vec_t = loom::tensor<double, loom::sparse_vector>;
using out_t = loom::tensor<double, loom::dense_vector>;
using formats_t = std::vector<loom::intermediate_format>;

// reference: M v by hand, v dense
std::vector<double> spmv_by_hand(const csr_t& M, const std::vector<double>& v) {
  const std::int64_t n = M.extent(0);
  std::vector<double> out(static_cast<std::size_t>(n), 0.0);
  const auto& pos = M.level<1>().pos;
  const auto& crd = M.level<1>().crd;
  for (std::int64_t r = 0; r < n; ++r)
    for (auto p = pos[static_cast<std::size_t>(r)]; p < pos[static_cast<std::size_t>(r) + 1]; ++p)
      out[static_cast<std::size_t>(r)] +=
          M.values()[static_cast<std::size_t>(p)] *
          v[static_cast<std::size_t>(crd[static_cast<std::size_t>(p)])];
  return out;
}

std::vector<double> dense_of(const vec_t& x) {
  std::vector<double> d(static_cast<std::size_t>(x.extent(0)), 0.0);
  const auto& crd = x.level<0>().crd;
  for (std::size_t e = 0; e < crd.size(); ++e) d[static_cast<std::size_t>(crd[e])] = x.values()[e];
  return d;
}

struct hops {
  csr_t A, B, C;
  vec_t x;
  std::vector<double> want;
  auto program() const {
    return loom::sum(j, loom::sum(k, loom::sum(l, A(i, j) * B(j, k) * C(k, l) * x(l))));
  }
  std::int64_t counted() const { return B.nnz(); }
};

// n vertices; `hubs` columns of B; x has `seeds` entries, each row of C in a hub reaches them
std::unique_ptr<hops> make_hops(std::int64_t n, std::int64_t per_row, std::int64_t hubs,
                                std::int64_t seeds) {
  auto h = std::make_unique<hops>();
  h->A = lb::to_loom<loom::csr>(lb::random_matrix(n, n, per_row, 11));
  lb::entries<2> b = lb::random_matrix(n, n, per_row, 12);
  lb::rng g(13);
  for (std::int64_t r = 0; r < n; ++r)
    b.crd.push_back({r, g.below(hubs)}), b.val.push_back(g.value());
  h->B = lb::to_loom<loom::csr>(b);  // duplicates summed
  const lb::entries<1> x = lb::random_vector(n, seeds, 14);
  lb::entries<2> c = lb::random_matrix(n, n, 2, 15);
  for (std::int64_t r = 0; r < hubs; ++r)
    c.crd.push_back({r, x.crd[static_cast<std::size_t>(r % seeds)][0]}), c.val.push_back(g.value());
  h->C = lb::to_loom<loom::csr>(c);
  h->x = lb::to_loom<loom::sparse_vector>(x);
  h->want = spmv_by_hand(h->A, spmv_by_hand(h->B, spmv_by_hand(h->C, dense_of(h->x))));
  return h;
}

struct two_hops {
  csr_t A, C;
  vec_t x;
  std::vector<double> want;
  auto program() const { return loom::sum(j, loom::sum(k, A(i, j) * C(j, k) * x(k))); }
  std::int64_t counted() const { return A.nnz(); }
};

// n vertices; A with `per_row` entries per row, C one per row, x `seeds` entries
std::unique_ptr<two_hops> make_two_hops(std::int64_t n, std::int64_t per_row, std::int64_t seeds) {
  auto h = std::make_unique<two_hops>();
  h->A = lb::to_loom<loom::csr>(lb::random_matrix(n, n, per_row, 21));
  h->C = lb::to_loom<loom::csr>(lb::random_matrix(n, n, 1, 22));
  h->x = lb::to_loom<loom::sparse_vector>(lb::random_vector(n, seeds, 23));
  h->want = spmv_by_hand(h->A, spmv_by_hand(h->C, dense_of(h->x)));
  return h;
}

void check(const std::string& what, const out_t& y, const std::vector<double>& want) {
  lb::check_values("intermediates/" + what, y.values(), want, 1e-9);
}

// decompose (the plan chosen from statistics), the candidate whose description starts with
// `candidate` with each format assignment, and the fused kernel
template <class Data>
void register_plans(const std::string& name, std::int64_t n, std::shared_ptr<lb::lazy<Data>> data,
                    const std::string& candidate,
                    const std::vector<std::pair<std::string, formats_t>>& assignments) {
  lb::add("intermediates", name, "decompose", [=](benchmark::State& st) {
    Data& h = data->get();
    out_t y({n});
    for (auto _ : st) {
      loom::decompose(y(i), h.program(), per_step_hashed{});
      benchmark::DoNotOptimize(y.values().data());
    }
    check(name + " decompose", y, h.want);
    const auto plan = loom::plan_decomposition(y(i), h.program(), per_step_hashed{});
    lb::label(st, h.counted(),
              "chosen: #" + std::to_string(plan.chosen) + " " + plan.description[plan.chosen]);
  });
  for (const auto& [impl, formats] : assignments)
    lb::add("intermediates", name, impl, [=, impl = impl, formats = formats](benchmark::State& st) {
      Data& h = data->get();
      out_t y({n});
      const auto plan = loom::plan_decomposition(y(i), h.program(), per_step_hashed{});
      std::size_t c = 0;
      for (std::size_t d = 1; d < plan.description.size(); ++d)
        if (plan.description[d].rfind(candidate, 0) == 0) c = d;
      if (c == 0) {
        st.SkipWithError(("no candidate starts with " + candidate).c_str());
        return;
      }
      for (auto _ : st) {
        loom::decompose(y(i), h.program(),
                        per_step_hashed{.candidate = c,
                                        .intermediates = formats,
                                        .reuse = plan.reuse[c]});  // no planning per call
        benchmark::DoNotOptimize(y.values().data());
      }
      check(name + " " + impl, y, h.want);
      std::string text = "candidate #" + std::to_string(c);
      for (std::size_t t = 0; t < formats.size(); ++t)
        text += ", T" + std::to_string(t) + " " + loom::intermediate_format_name(formats[t]);
      lb::label(st, h.counted(),
                text + (plan.step_formats[c] == formats ? " (chosen for this candidate)" : ""));
    });
  lb::add("intermediates", name, "fused", [=](benchmark::State& st) {
    Data& h = data->get();
    out_t y({n});
    for (auto _ : st) {
      y(i) = h.program();
      benchmark::DoNotOptimize(y.values().data());
    }
    check(name + " fused", y, h.want);
    lb::label(st, h.counted(), "one fused kernel");
  });
}

}  // namespace

int main(int argc, char** argv) {
  using F = loom::intermediate_format;
  constexpr std::int64_t three = 100'000, two = 2'000'000;
  // the candidate that materialises T0(k) and T1(j), each format assignment
  register_plans("three_hops_100K", three,
                 std::make_shared<lb::lazy<hops>>([] { return make_hops(three, 8, 64, 4); }),
                 "eliminate l,k, then j fused",
                 {{"sorted", {F::sorted, F::sorted}},
                  {"dense", {F::dense, F::dense}},
                  {"sorted_dense", {F::sorted, F::dense}},
                  {"dense_sorted", {F::dense, F::sorted}},
                  {"hashed_dense", {F::hashed, F::dense}},
                  {"hashed", {F::hashed, F::hashed}}});
  // the candidate that materialises T0(j) alone, in each format
  register_plans("two_hops_2M", two,
                 std::make_shared<lb::lazy<two_hops>>([] { return make_two_hops(two, 3, 12); }),
                 "eliminate k, then j fused",
                 {{"sorted", {F::sorted}}, {"dense", {F::dense}}, {"hashed", {F::hashed}}});
  return lb::run(argc, argv);
}
