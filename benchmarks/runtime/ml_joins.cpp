// Logistic-regression inference over a star join (Galley's ML over
// joins): y(i) = sigmoid(sum(p, c, j, S(i, p, c) * (P(p, j) + C(c, j)) * theta(j))), where sale i
// is of product p to customer c, and each feature column j belongs to P or to C. Compared:
// loom::decompose (the plan chosen from statistics: theta pushed into each feature table), the plan
// that materialises the feature matrix X(i, j) and then multiplies it by theta, the single fused
// loom kernel, and a hand-written loop over the sales with both dot products precomputed.
// SPDX-License-Identifier: BSL-1.0
#include <cmath>

#include "support.hpp"

namespace {

namespace lb = loom_bench;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"p"> p;
constexpr loom::index<"c"> c;

struct sigmoid {
  double operator()(double x) const { return 1.0 / (1.0 + std::exp(-x)); }
};

struct star {
  std::int64_t sales = 0, products = 0, customers = 0, product_features = 0, features = 0;
  std::vector<std::int64_t> sale_product, sale_customer;
  loom::tensor<double, loom::csf<3>> S;
  loom::tensor<double, loom::dense_matrix> P, C;
  loom::tensor<double, loom::dense_vector> theta;
  std::vector<double> want;
};

std::vector<double> hand(const star& s) {
  std::vector<double> wp(static_cast<std::size_t>(s.products)),
      wc(static_cast<std::size_t>(s.customers));
  const auto pv = s.P.values(), cv = s.C.values(), th = s.theta.values();
  for (std::int64_t a = 0; a < s.products; ++a) {
    double d = 0;
    for (std::int64_t f = 0; f < s.product_features; ++f)
      d += pv[static_cast<std::size_t>(a * s.features + f)] * th[static_cast<std::size_t>(f)];
    wp[static_cast<std::size_t>(a)] = d;
  }
  for (std::int64_t a = 0; a < s.customers; ++a) {
    double d = 0;
    for (std::int64_t f = s.product_features; f < s.features; ++f)
      d += cv[static_cast<std::size_t>(a * s.features + f)] * th[static_cast<std::size_t>(f)];
    wc[static_cast<std::size_t>(a)] = d;
  }
  std::vector<double> y(static_cast<std::size_t>(s.sales));
  for (std::int64_t r = 0; r < s.sales; ++r)
    y[static_cast<std::size_t>(r)] =
        sigmoid{}(wp[static_cast<std::size_t>(s.sale_product[static_cast<std::size_t>(r)])] +
                  wc[static_cast<std::size_t>(s.sale_customer[static_cast<std::size_t>(r)])]);
  return y;
}

auto program(const star& s) {
  return loom::map(sigmoid{},
                   loom::sum(p, loom::sum(c, loom::sum(j, s.S(i, p, c) * (s.P(p, j) + s.C(c, j)) *
                                                              s.theta(j)))));
}

void register_star(const std::string& name, std::int64_t sales, std::int64_t products,
                   std::int64_t customers, std::int64_t product_features,
                   std::int64_t customer_features) {
  auto data = std::make_shared<lb::lazy<star>>([=] {
    auto s = std::make_unique<star>();
    s->sales = sales, s->products = products, s->customers = customers;
    s->product_features = product_features, s->features = product_features + customer_features;
    lb::rng g(42);
    std::vector<std::array<std::int64_t, 3>> crd;
    for (std::int64_t r = 0; r < sales; ++r) {
      s->sale_product.push_back(g.below(products));
      s->sale_customer.push_back(g.below(customers));
      crd.push_back({r, s->sale_product.back(), s->sale_customer.back()});
    }
    s->S = loom::from_coo<loom::csf<3>>({sales, products, customers}, crd,
                                        std::vector<double>(crd.size(), 1.0));
    s->P = loom::tensor<double, loom::dense_matrix>({products, s->features});
    s->C = loom::tensor<double, loom::dense_matrix>({customers, s->features});
    for (std::int64_t a = 0; a < products; ++a)
      for (std::int64_t f = 0; f < product_features; ++f)
        s->P.values()[static_cast<std::size_t>(a * s->features + f)] = g.value() - 1.0;
    for (std::int64_t a = 0; a < customers; ++a)
      for (std::int64_t f = product_features; f < s->features; ++f)
        s->C.values()[static_cast<std::size_t>(a * s->features + f)] = g.value() - 1.0;
    s->theta = loom::tensor<double, loom::dense_vector>({s->features});
    for (auto& t : s->theta.values()) t = (g.value() - 1.0) / 4;
    s->want = hand(*s);
    loom::tensor<double, loom::dense_vector> y({sales});
    std::printf("ml_joins/%s: %lld sales, %lld products, %lld customers, %lld features\n%s",
                name.c_str(), (long long)sales, (long long)products, (long long)customers,
                (long long)s->features,
                loom::explain(y(i), program(*s), loom::options<loom::opt::eliminate>{}).c_str());
    loom::decompose(y(i), program(*s));
    lb::check_values("ml_joins/" + name + ": decompose vs hand", y.values(), s->want);
    if (sales <= 100'000) {
      y(i) = program(*s);
      lb::check_values("ml_joins/" + name + ": fused vs hand", y.values(), s->want);
    }
    return s;
  });
  lb::add("ml_joins", name, "decompose", [=](benchmark::State& st) {
    const star& s = data->get();
    loom::tensor<double, loom::dense_vector> y({s.sales});
    for (auto _ : st) {
      loom::decompose(y(i), program(s));
      benchmark::DoNotOptimize(y.values()[0]);
    }
    lb::label(st, s.sales, "chosen plan: theta pushed into the feature tables");
  });
  lb::add("ml_joins", name, "materialised", [=](benchmark::State& st) {
    const star& s = data->get();
    loom::tensor<double, loom::dense_vector> y({s.sales});
    loom::tensor<double, loom::dense_matrix> X({s.sales, s.features});
    for (auto _ : st) {
      X(i, j) = loom::sum(p, loom::sum(c, s.S(i, p, c) * (s.P(p, j) + s.C(c, j))));
      y(i) = loom::map(sigmoid{}, loom::sum(j, X(i, j) * s.theta(j)));
      benchmark::DoNotOptimize(y.values()[0]);
    }
    lb::check_values("ml_joins: materialised vs hand", y.values(), s.want);
    lb::label(st, s.sales, "feature matrix X materialised, then X * theta");
  });
  if (sales <= 100'000)  // the fused kernel takes seconds: once is enough
    lb::add("ml_joins", name, "fused", [=](benchmark::State& st) {
      const star& s = data->get();
      loom::tensor<double, loom::dense_vector> y({s.sales});
      for (auto _ : st) {
        y(i) = program(s);
        benchmark::DoNotOptimize(y.values()[0]);
      }
      lb::label(st, s.sales, "one fused kernel");
    });
  lb::add("ml_joins", name, "hand", [=](benchmark::State& st) {
    const star& s = data->get();
    for (auto _ : st) benchmark::DoNotOptimize(hand(s).data());
    lb::label(st, s.sales, "hand-written, dot products per table precomputed");
  });
}

}  // namespace

int main(int argc, char** argv) {
  register_star("star_100K_139f", 100'000, 2'000, 5'000, 70, 69);
  register_star("star_300K_139f", 300'000, 10'000, 30'000, 70, 69);
  return lb::run(argc, argv);
}
