// The SPORES and STOREL flagships: sum((X - U V^T)^2) with X sparse and U, V dense and thin (loom::la
// rewritten plan vs the naive operation-at-a-time plan vs Eigen, plus the closed form written by
// hand in Eigen); STOREL's BATAx y(j) = sum(i, k, b A(i,j) A(i,k) x(k)) and SigmaMMM
// q = sum(i, j, k, A(i,k) B(k,j)), each with the rewrites (sums pushed in: factorised) and without
// (the same kernel, unrewritten); ALS, PNMF and MLR from the SPORES evaluation (rewritten vs naive);
// the GLM (logistic-regression gradient) and SVM (hinge loss) programs with element-wise functions
// (rewritten vs naive vs Eigen).
// SPDX-License-Identifier: BSL-1.0
#include <loom/la.hpp>

#include <cstdlib>

#include "../runtime/support.hpp"
#include <Eigen/Dense>

namespace {

namespace lb = loom_bench;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
using dmat = loom::tensor<double, loom::dense_matrix>;
using dvec = loom::tensor<double, loom::dense_vector>;

dmat dense(std::int64_t m, std::int64_t n, std::uint64_t seed) {
  dmat t({m, n});
  const auto v = lb::dense_values(m * n, seed);
  std::copy(v.begin(), v.end(), t.values().begin());
  return t;
}
Eigen::MatrixXd to_eigen_dense(const dmat& t) {
  Eigen::MatrixXd M(t.extent(0), t.extent(1));
  for (std::int64_t r = 0; r < t.extent(0); ++r)
    for (std::int64_t c = 0; c < t.extent(1); ++c)
      M(r, c) = t.values()[static_cast<std::size_t>(r * t.extent(1) + c)];
  return M;
}

// Runs `rhs` into `out` without the compile-time rewrites: the unfactorised plan.
template <class Out, class Lhs, class Rhs>
void unrewritten(Out& out, const Lhs& lhs, const Rhs& rhs) {
  (void)out;  // lhs names it
  loom::detail::run_decided(
      loom::detail::decide_fused(lhs, rhs, std::false_type{}, loom::default_options{}));
}
template <class Rhs> double unrewritten_scalar(const Rhs& rhs) {
  loom::tensor<double, loom::format<>> r;
  loom::expr::access<loom::tensor<double, loom::format<>>> target{&r};
  loom::detail::run_decided(
      loom::detail::decide_fused(target, rhs, std::false_type{}, loom::default_options{}));
  return r.values()[0];
}

// sum((X - U V^T)^2) ----------------------------------------------------------------------------
struct flagship_input {
  loom::tensor<double, loom::csr> X;
  dmat U, V;
  Eigen::SparseMatrix<double, Eigen::RowMajor, int> eX;
  Eigen::MatrixXd eU, eV;
};

void register_flagship(std::int64_t m, std::int64_t n, std::int64_t r, std::int64_t per_row) {
  const std::string name = std::to_string(m) + "x" + std::to_string(n) + "_r" + std::to_string(r) +
                           "_nnz" + std::to_string(m * per_row);
  auto data = std::make_shared<lb::lazy<flagship_input>>([=] {
    auto in = std::make_unique<flagship_input>();
    in->X = lb::to_loom<loom::csr>(lb::random_matrix(m, n, per_row, 1));
    in->U = dense(m, r, 2);
    in->V = dense(n, r, 3);
    in->eX = lb::to_eigen<Eigen::RowMajor>(in->X);
    in->eU = to_eigen_dense(in->U);
    in->eV = to_eigen_dense(in->V);
    const auto x = loom::la::mat(in->X);
    const auto u = loom::la::mat(in->U);
    const auto v = loom::la::mat(in->V);
    const double want = (Eigen::MatrixXd(in->eX) - in->eU * in->eV.transpose()).squaredNorm();
    lb::check_scalar("flagship: rewritten vs eigen",
                     loom::la::eval(loom::la::sum(loom::la::pow2(x - u * loom::la::transpose(v)))),
                     want, 1e-9);
    lb::check_scalar(
        "flagship: naive vs eigen",
        loom::la::eval_naive(loom::la::sum(loom::la::pow2(x - u * loom::la::transpose(v)))), want,
        1e-9);
    return in;
  });
  const std::int64_t nnz = m * per_row;
  lb::add("sum_sq_x_minus_uvt", name, "loom_rewritten", [=](benchmark::State& s) {
    auto& in = data->get();
    const auto x = loom::la::mat(in.X);
    const auto u = loom::la::mat(in.U);
    const auto v = loom::la::mat(in.V);
    for (auto _ : s)
      benchmark::DoNotOptimize(
          loom::la::eval(loom::la::sum(loom::la::pow2(x - u * loom::la::transpose(v)))));
    lb::label(s, nnz, "sum(X^2) - 2 trace(U^T X V) + sum(U^T U o V^T V), found by the rewrites");
  });
  lb::add("sum_sq_x_minus_uvt", name, "loom_naive", [=](benchmark::State& s) {
    auto& in = data->get();
    const auto x = loom::la::mat(in.X);
    const auto u = loom::la::mat(in.U);
    const auto v = loom::la::mat(in.V);
    for (auto _ : s)
      benchmark::DoNotOptimize(
          loom::la::eval_naive(loom::la::sum(loom::la::pow2(x - u * loom::la::transpose(v)))));
    lb::label(s, nnz, "operation at a time: dense U V^T, X - it, squared, summed");
  });
  lb::add("sum_sq_x_minus_uvt", name, "eigen", [=](benchmark::State& s) {
    auto& in = data->get();
    for (auto _ : s) {
      const double e = (Eigen::MatrixXd(in.eX) - in.eU * in.eV.transpose()).squaredNorm();
      benchmark::DoNotOptimize(e);
    }
    lb::label(s, nnz, "(X - U V^T).squaredNorm(), dense");
  });
  lb::add("sum_sq_x_minus_uvt", name, "eigen_closed_form_by_hand", [=](benchmark::State& s) {
    auto& in = data->get();
    for (auto _ : s) {
      const Eigen::MatrixXd XV = in.eX * in.eV;
      const double e = in.eX.squaredNorm() - 2 * (in.eU.transpose() * XV).trace() +
                       ((in.eU.transpose() * in.eU).cwiseProduct(in.eV.transpose() * in.eV)).sum();
      benchmark::DoNotOptimize(e);
    }
    lb::label(s, nnz, "the factorised form written by hand");
  });
}

// BATAx: y(j) = sum(i, k, b A(i,j) A(i,k) x(k)) --------------------------------------------------
struct batax_input {
  loom::tensor<double, loom::csr> A;
  dvec x;
  Eigen::SparseMatrix<double, Eigen::RowMajor, int> eA;
  Eigen::VectorXd ex;
};
void register_batax(std::int64_t n, std::int64_t per_row) {
  const std::string name = std::to_string(n) + "_nnz" + std::to_string(n * per_row);
  auto data = std::make_shared<lb::lazy<batax_input>>([=] {
    auto in = std::make_unique<batax_input>();
    in->A = lb::to_loom<loom::csr>(lb::random_matrix(n, n, per_row, 5));
    in->x = dvec({n});
    const auto v = lb::dense_values(n, 6);
    std::copy(v.begin(), v.end(), in->x.values().begin());
    in->eA = lb::to_eigen<Eigen::RowMajor>(in->A);
    in->ex = Eigen::Map<const Eigen::VectorXd>(v.data(), n);
    const Eigen::VectorXd want = 0.5 * (in->eA.transpose() * (in->eA * in->ex));
    dvec y({n});
    const auto& A = in->A;
    y(j) = loom::sum(i, loom::sum(k, 0.5 * A(i, j) * A(i, k) * in->x(k)));
    lb::check_values("batax: rewritten vs eigen", y.values(), want, 1e-9);
    unrewritten(y, y(j), loom::sum(i, loom::sum(k, 0.5 * A(i, j) * A(i, k) * in->x(k))));
    lb::check_values("batax: unrewritten vs eigen", y.values(), want, 1e-9);
    return in;
  });
  const std::int64_t nnz = n * per_row;
  lb::add("batax", name, "loom_rewritten", [=](benchmark::State& s) {
    auto& in = data->get();
    dvec y({n});
    const auto& A = in.A;
    for (auto _ : s) y(j) = loom::sum(i, loom::sum(k, 0.5 * A(i, j) * A(i, k) * in.x(k)));
    lb::label(s, nnz, "sums pushed in: sum(i, b A(i,j) sum(k, A(i,k) x(k)))");
  });
  lb::add("batax", name, "loom_unrewritten", [=](benchmark::State& s) {
    auto& in = data->get();
    dvec y({n});
    const auto& A = in.A;
    for (auto _ : s)
      unrewritten(y, y(j), loom::sum(i, loom::sum(k, 0.5 * A(i, j) * A(i, k) * in.x(k))));
    lb::label(s, nnz, "one loop nest over i, j, k");
  });
  lb::add("batax", name, "eigen", [=](benchmark::State& s) {
    auto& in = data->get();
    Eigen::VectorXd y(n);
    for (auto _ : s) {
      y.noalias() = 0.5 * (in.eA.transpose() * (in.eA * in.ex));
      benchmark::DoNotOptimize(y.data());
    }
    lb::label(s, nnz, "b A^T (A x)");
  });
}

// SigmaMMM: q = sum(i, j, k, A(i,k) B(k,j)), A CSC, B CSR -----------------------------------------
struct smmm_input {
  loom::tensor<double, loom::csc> A;
  loom::tensor<double, loom::csr> B;
};
void register_smmm(std::int64_t n, std::int64_t per_row) {
  const std::string name = std::to_string(n) + "_nnz" + std::to_string(n * per_row);
  auto data = std::make_shared<lb::lazy<smmm_input>>([=] {
    auto in = std::make_unique<smmm_input>();
    in->A = lb::to_loom<loom::csc>(lb::random_matrix(n, n, per_row, 7));
    in->B = lb::to_loom<loom::csr>(lb::random_matrix(n, n, per_row, 8));
    const auto& A = in->A;
    const auto& B = in->B;
    const double a = loom::eval(loom::sum(i, j, loom::sum(k, A(i, k) * B(k, j))));
    const double b = unrewritten_scalar(loom::sum(i, j, loom::sum(k, A(i, k) * B(k, j))));
    lb::check_scalar("smmm: rewritten vs unrewritten", a, b, 1e-9);
    return in;
  });
  const std::int64_t nnz = n * per_row;
  lb::add("sigma_mmm", name, "loom_rewritten", [=](benchmark::State& s) {
    auto& in = data->get();
    const auto& A = in.A;
    const auto& B = in.B;
    for (auto _ : s)
      benchmark::DoNotOptimize(loom::eval(loom::sum(i, j, loom::sum(k, A(i, k) * B(k, j)))));
    lb::label(s, nnz, "sum(k, sum(i, A(i,k)) sum(j, B(k,j)))");
  });
  lb::add("sigma_mmm", name, "loom_unrewritten", [=](benchmark::State& s) {
    auto& in = data->get();
    const auto& A = in.A;
    const auto& B = in.B;
    for (auto _ : s)
      benchmark::DoNotOptimize(
          unrewritten_scalar(loom::sum(i, j, loom::sum(k, A(i, k) * B(k, j)))));
    lb::label(s, nnz, "one loop nest over k, i, j");
  });
}

// `make(input)` timed as la::eval (rewritten) and la::eval_naive (operation at a time).
template <class Data, class Make>
void add_rewritten_and_naive(const std::string& kernel, const std::string& name, std::int64_t nnz,
                             const std::shared_ptr<Data>& data, Make make,
                             const std::string& what) {
  lb::add(kernel, name, "loom_rewritten", [=](benchmark::State& s) {
    auto& in = data->get();
    const auto e = make(in);
    for (auto _ : s) benchmark::DoNotOptimize(loom::la::eval(e));
    lb::label(s, nnz, what);
  });
  lb::add(kernel, name, "loom_naive", [=](benchmark::State& s) {
    auto& in = data->get();
    const auto e = make(in);
    for (auto _ : s) benchmark::DoNotOptimize(loom::la::eval_naive(e));
    lb::label(s, nnz, "operation at a time");
  });
}

// ALS, PNMF, MLR (SPORES §5) ------------------------------------------------------------------------
struct spores_input {
  loom::tensor<double, loom::csr> X;
  dmat U, V, W, H;
  dvec P;
};
void register_spores(std::int64_t m, std::int64_t n, std::int64_t r, std::int64_t per_row) {
  const std::string name = std::to_string(m) + "x" + std::to_string(n) + "_r" + std::to_string(r);
  auto data = std::make_shared<lb::lazy<spores_input>>([=] {
    auto in = std::make_unique<spores_input>();
    in->X = lb::to_loom<loom::csr>(lb::random_matrix(m, n, per_row, 9));
    in->U = dense(m, r, 10);
    in->V = dense(n, r, 11);
    in->W = dense(m, r, 12);
    in->H = dense(r, n, 13);
    in->P = dvec({m});
    const auto p = lb::dense_values(m, 14);
    std::copy(p.begin(), p.end(), in->P.values().begin());
    return in;
  });
  const std::int64_t nnz = m * per_row;
  auto both = [&](const std::string& kernel, auto make, const std::string& what) {
    add_rewritten_and_naive(kernel, name, nnz, data, make, what);
  };
  using namespace loom::la;
  both(
      "als",
      [](const spores_input& in) {
        return (mat(in.U) * transpose(mat(in.V)) - mat(in.X)) * mat(in.V);
      },
      "(U V^T - X) V distributed: U (V^T V) - X V");
  both(
      "pnmf", [](const spores_input& in) { return loom::la::sum(mat(in.W) * mat(in.H)); },
      "sum(W H) = colSums(W) . rowSums(H)");
  both(
      "mlr",
      [](const spores_input& in) {
        return hadamard(mat(in.P), mat(in.X)) -
               hadamard(hadamard(mat(in.P), row_sums(mat(in.P))), mat(in.X));
      },
      "P*X - P*rowSums(P)*X");
}

// GLM and SVM (SPORES §5, element-wise functions) --------------------------------------------------
struct glm_input {
  loom::tensor<double, loom::csr> X;
  dvec w, y;
  dmat W, Y;  // MLR: weights and one-hot labels over 4 classes
  Eigen::SparseMatrix<double, Eigen::RowMajor, int> eX;
  Eigen::VectorXd ew, ey;
  Eigen::MatrixXd eW, eY;
};
Eigen::MatrixXd eigen_mlr(const glm_input& in) {
  const Eigen::MatrixXd E = (in.eX * in.eW).array().exp().matrix();
  const Eigen::VectorXd total = E.rowwise().sum();
  return in.eX.transpose() * (total.cwiseInverse().asDiagonal() * E - in.eY);
}
void register_glm(std::int64_t m, std::int64_t n, std::int64_t per_row) {
  const std::string name =
      std::to_string(m) + "x" + std::to_string(n) + "_nnz" + std::to_string(m * per_row);
  auto data = std::make_shared<lb::lazy<glm_input>>([=] {
    auto in = std::make_unique<glm_input>();
    in->X = lb::to_loom<loom::csr>(lb::random_matrix(m, n, per_row, 15));
    in->w = dvec({n});
    in->y = dvec({m});
    const auto w = lb::dense_values(n, 16), y = lb::dense_values(m, 17);
    std::copy(w.begin(), w.end(), in->w.values().begin());
    std::copy(y.begin(), y.end(), in->y.values().begin());
    in->eX = lb::to_eigen<Eigen::RowMajor>(in->X);
    in->ew = Eigen::Map<const Eigen::VectorXd>(w.data(), n);
    in->ey = Eigen::Map<const Eigen::VectorXd>(y.data(), m);
    in->W = dense(n, 4, 18);
    for (double& v : in->W.values()) v /= static_cast<double>(per_row);  // exp stays in range
    in->Y = dmat({m, 4});
    for (std::int64_t r = 0; r < m; ++r) in->Y.at(r, r % 4) = 1;
    in->eW = to_eigen_dense(in->W);
    in->eY = to_eigen_dense(in->Y);
    using namespace loom::la;
    {
      const Eigen::MatrixXd want = eigen_mlr(*in);
      const auto scores = loom::la::exp(mat(in->X) * mat(in->W));
      const auto got = eval(transpose(mat(in->X)) * (scores / row_sums(scores) - mat(in->Y)));
      for (std::int64_t c = 0; c < n; ++c)
        for (std::int64_t k = 0; k < 4; ++k)
          lb::check_scalar("mlr: rewritten vs eigen", got.at(c, k), want(c, k), 1e-9);
    }
    const Eigen::VectorXd z = in->eX * in->ew;
    const Eigen::VectorXd g =
        in->eX.transpose() *
        (z.unaryExpr([](double v) { return 1 / (1 + std::exp(-v)); }) - in->ey);
    const auto got = eval(transpose(mat(in->X)) * (sigmoid(mat(in->X) * mat(in->w)) - mat(in->y)));
    for (std::int64_t c = 0; c < n; ++c)
      lb::check_scalar("glm: rewritten vs eigen", got.at(c), g(c), 1e-9);
    const double hinge = (1.0 - in->ey.cwiseProduct(z).array()).max(0.0).sum();
    lb::check_scalar(
        "svm: rewritten vs eigen",
        eval(loom::la::sum(max(0.0, 1.0 - hadamard(mat(in->y), mat(in->X) * mat(in->w))))), hinge,
        1e-9);
    return in;
  });
  const std::int64_t nnz = m * per_row;
  auto three = [&](const std::string& kernel, auto make, auto eigen, const std::string& what) {
    add_rewritten_and_naive(kernel, name, nnz, data, make, what);
    lb::add(kernel, name, "eigen", [=](benchmark::State& s) {
      auto& in = data->get();
      for (auto _ : s) benchmark::DoNotOptimize(eigen(in));
      lb::label(s, nnz, "the same expression in Eigen");
    });
  };
  using namespace loom::la;
  three(
      "glm_gradient",
      [](const glm_input& in) {
        return transpose(mat(in.X)) * (sigmoid(mat(in.X) * mat(in.w)) - mat(in.y));
      },
      [](const glm_input& in) {
        const Eigen::VectorXd z = in.eX * in.ew;
        return Eigen::VectorXd(in.eX.transpose() * (z.unaryExpr([](double v) {
                                 return 1 / (1 + std::exp(-v));
                               }) - in.ey));
      },
      "X^T (sigmoid(X w) - y)");
  three(
      "svm_hinge",
      [](const glm_input& in) {
        return loom::la::sum(max(0.0, 1.0 - hadamard(mat(in.y), mat(in.X) * mat(in.w))));
      },
      [](const glm_input& in) {
        const Eigen::VectorXd z = in.eX * in.ew;
        return (1.0 - in.ey.cwiseProduct(z).array()).max(0.0).sum();
      },
      "sum(max(0, 1 - y o (X w)))");
  three(
      "mlr_gradient",
      [](const glm_input& in) {
        const auto scores = loom::la::exp(mat(in.X) * mat(in.W));
        return transpose(mat(in.X)) * (scores / row_sums(scores) - mat(in.Y));
      },
      [](const glm_input& in) { return eigen_mlr(in); }, "X^T (softmax(X W) - Y), 4 classes");
}

}  // namespace

int main(int argc, char** argv) {
  register_flagship(2000, 2000, 10, 10);
  register_flagship(4000, 4000, 10, 10);
  register_batax(100000, 20);
  register_batax(20000, 100);
  register_smmm(100000, 10);
  register_smmm(20000, 50);
  register_spores(2000, 2000, 10, 10);
  register_glm(100000, 100, 10);
  register_glm(20000, 1000, 50);
  return lb::run(argc, argv);
}
