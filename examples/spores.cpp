// SPORES's evaluation programs (SPORES) written with loom::la: logistic regression (GLM)
// trained by gradient descent, the SVM hinge loss and the multinomial logistic regression (MLR)
// gradient, each evaluated through loom's rewrites and against the naive plan (one operation at
// a time, every intermediate materialised), timed with loom/bench.hpp. LOOM_EXAMPLE_SMOKE=1
// runs it at a small size.
// SPDX-License-Identifier: BSL-1.0
#include <loom/bench.hpp>
#include <loom/loom.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>

namespace la = loom::la;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
using dvec = loom::tensor<double, loom::dense_vector>;
using dmat = loom::tensor<double, loom::dense_matrix>;

// The largest difference between two dense results of the same shape.
template <class A, class B> double max_diff(const A& a, const B& b) {
  double d = 0;
  for (std::size_t p = 0; p < a.values().size(); ++p)
    d = std::max(d, std::abs(a.values()[p] - b.values()[p]));
  return d;
}

int main() {
  const bool smoke = std::getenv("LOOM_EXAMPLE_SMOKE") != nullptr;
  const std::int64_t m = smoke ? 2000 : 100000, n = smoke ? 50 : 100, per_row = 10, classes = 4;
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<std::int64_t> column(0, n - 1);

  // X: m samples of n features, about per_row nonzeros each; labels y in {-1, 1} from a hidden w
  std::vector<std::array<std::int64_t, 2>> coords;
  std::vector<double> values;
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t e = 0; e < per_row; ++e) {
      coords.push_back({r, column(gen)});
      values.push_back(unit(gen));
    }
  const auto X = loom::from_coo<loom::csr>({m, n}, coords, values, loom::duplicates::sum);
  dvec hidden({n}), w({n}), y({m}), y01({m});
  for (auto& v : hidden.values()) v = unit(gen);
  dvec score({m});
  score(i) = loom::sum(j, X(i, j) * hidden(j));
  for (std::int64_t r = 0; r < m; ++r) {
    y.at(r) = score.at(r) >= 0 ? 1.0 : -1.0;
    y01.at(r) = score.at(r) >= 0 ? 1.0 : 0.0;
  }
  std::printf("X: %lld samples x %lld features, %lld nonzeros\n", static_cast<long long>(m),
              static_cast<long long>(n), static_cast<long long>(X.nnz()));

  // GLM: w <- w - (step / m) X^T (sigmoid(X w) - y), a few steps; the loss falls
  const double step = 4.0;
  auto logistic_loss = [&] {
    const auto margin = la::hadamard(la::mat(y), la::mat(X) * la::mat(w));
    return la::eval(la::sum(la::log(1.0 + la::exp(-1.0 * margin)))) / static_cast<double>(m);
  };
  std::printf("\nGLM (logistic regression), gradient descent: loss %.4f", logistic_loss());
  for (int it = 0; it < 5; ++it) {
    const auto grad =
        la::eval(la::transpose(la::mat(X)) * (la::sigmoid(la::mat(X) * la::mat(w)) - la::mat(y01)));
    for (std::int64_t c = 0; c < n; ++c) w.at(c) -= step / static_cast<double>(m) * grad.at(c);
    std::printf(" -> %.4f", logistic_loss());
  }
  std::printf("\n");

  // The three programs, rewritten and naive: the same values, timed
  const auto glm =
      la::transpose(la::mat(X)) * (la::sigmoid(la::mat(X) * la::mat(w)) - la::mat(y01));
  const auto svm = la::sum(la::max(0.0, 1.0 - la::hadamard(la::mat(y), la::mat(X) * la::mat(w))));
  dmat W({n, classes}), Y({m, classes});
  for (auto& v : W.values()) v = unit(gen) / per_row;
  for (std::int64_t r = 0; r < m; ++r) Y.at(r, r % classes) = 1;
  const auto scores = la::exp(la::mat(X) * la::mat(W));
  const auto mlr = la::transpose(la::mat(X)) * (scores / la::row_sums(scores) - la::mat(Y));

  std::printf("GLM gradient X^T (sigmoid(X w) - y): max |rewritten - naive| %.1e\n",
              max_diff(la::eval(glm), la::eval_naive(glm)));
  std::printf("SVM hinge loss sum(max(0, 1 - y o X w)): %.6f (naive %.6f)\n", la::eval(svm),
              la::eval_naive(svm));
  std::printf("MLR gradient X^T (softmax(X W) - Y): max |rewritten - naive| %.1e\n",
              max_diff(la::eval(mlr), la::eval_naive(mlr)));

  const loom::bench::options opts{.rounds = smoke ? 3 : 7, .min_time = smoke ? 0.001 : 0.02};
  auto compare = [&](const char* name, const auto& e) {
    const auto r =
        loom::bench::compare(name,
                             {{"naive", [&] { loom::bench::do_not_optimize(la::eval_naive(e)); }},
                              {"loom", [&] { loom::bench::do_not_optimize(la::eval(e)); }}},
                             opts);
    std::printf("\n%s", r.markdown().c_str());
  };
  compare("GLM gradient", glm);
  compare("SVM hinge loss", svm);
  compare("MLR gradient", mlr);
  return 0;
}
