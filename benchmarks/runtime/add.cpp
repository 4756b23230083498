// Sparse add C(i,j) = A(i,j) + B(i,j), CSR + CSR -> CSR: loom (output assembled, into the same C
// and into a fresh one), a hand-written row-by-row merge that keeps its pos/crd/values vectors,
// and Eigen (row-major A + B).
// SPDX-License-Identifier: BSL-1.0
#include "support.hpp"

namespace {

namespace lb = loom_bench;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

using eigen_csr = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

struct input {
  loom::tensor<double, loom::csr> A, B, C;
  eigen_csr eA, eB, eC;
  lb::csr_arrays H;  // the hand loop's output, kept between calls
};

// The baseline: one merge per row, appending to arrays reserved for nnz(A) + nnz(B) entries (the
// timed loop reuses one result's vectors, as loom reuses C's arrays; "loom_fresh" builds a new C).
lb::csr_arrays hand(const input& in) { return lb::hand_add(in.A, in.B); }

void register_input(const std::string& name,
                    std::function<std::pair<lb::entries<2>, lb::entries<2>>()> make) {
  auto data = std::make_shared<lb::lazy<input>>([=] {
    auto in = std::make_unique<input>();
    {
      auto [a, b] = make();
      in->A = lb::to_loom<loom::csr>(a);
      in->B = lb::to_loom<loom::csr>(b);
    }
    in->C = loom::tensor<double, loom::csr>(in->A.shape());
    in->eA = lb::to_eigen<Eigen::RowMajor>(in->A);
    in->eB = lb::to_eigen<Eigen::RowMajor>(in->B);
    const lb::csr_arrays want = hand(*in);
    in->C(i, j) = in->A(i, j) + in->B(i, j);
    lb::check_csr("add/" + name + ": loom vs hand", in->C, want);
    in->eC = in->eA + in->eB;
    lb::check_exact(
        "add/" + name + ": eigen vs hand (pos)",
        std::vector<std::int64_t>(in->eC.outerIndexPtr(), in->eC.outerIndexPtr() + want.rows + 1),
        want.pos);
    lb::check_exact("add/" + name + ": eigen vs hand (crd)",
                    std::vector<std::int32_t>(in->eC.innerIndexPtr(),
                                              in->eC.innerIndexPtr() + in->eC.nonZeros()),
                    want.crd);
    lb::check_values("add/" + name + ": eigen vs hand (values)",
                     std::vector<double>(in->eC.valuePtr(), in->eC.valuePtr() + in->eC.nonZeros()),
                     want.val);
    return in;
  });
  const std::string what = "CSR + CSR -> CSR";
  lb::add("add", name, "loom", [=](benchmark::State& s) {
    input& in = data->get();
    for (auto _ : s) {
      in.C(i, j) = in.A(i, j) + in.B(i, j);
      benchmark::DoNotOptimize(in.C.values().data());
      benchmark::ClobberMemory();
    }
    lb::label(s, in.A.nnz() + in.B.nnz(), what);
  });
  lb::add("add", name, "hand", [=](benchmark::State& s) {
    input& in = data->get();
    for (auto _ : s) {
      lb::hand_add(in.A, in.B, in.H);  // into the same vectors, as loom writes into the same C
      benchmark::DoNotOptimize(in.H.val.data());
      benchmark::ClobberMemory();
    }
    lb::label(s, in.A.nnz() + in.B.nnz(), what);
  });
  // loom into a new output per call (the first assignment's cost: allocation, page faults)
  lb::add("add", name, "loom_fresh", [=](benchmark::State& s) {
    input& in = data->get();
    for (auto _ : s) {
      loom::tensor<double, loom::csr> C(in.C.shape());
      C(i, j) = in.A(i, j) + in.B(i, j);
      benchmark::DoNotOptimize(C.values().data());
      benchmark::ClobberMemory();
    }
    lb::label(s, in.C.nnz(), what);
  });
  lb::add("add", name, "eigen", [=](benchmark::State& s) {
    input& in = data->get();
    for (auto _ : s) {
      in.eC = in.eA + in.eB;
      benchmark::DoNotOptimize(in.eC.valuePtr());
      benchmark::ClobberMemory();
    }
    lb::label(s, in.A.nnz() + in.B.nnz(), what);
  });
}

}  // namespace

int main(int argc, char** argv) {
  // two 1M x 1M matrices with 8 uniform entries per row each (~8M entries, ~100 MB each)
  register_input("uniform_1Mx1M_8M", [] {
    return std::pair{lb::random_matrix(1'000'000, 1'000'000, 8, 31),
                     lb::random_matrix(1'000'000, 1'000'000, 8, 32)};
  });
  // real matrices: A + A^T (the same pattern when A is symmetric)
  for (const auto& [name, path] : lb::real_matrices())
    register_input(name, [path = path] {
      auto a = lb::load_matrix(path);
      auto b = a;
      for (auto& c : b.crd) std::swap(c[0], c[1]);
      std::swap(b.shape[0], b.shape[1]);
      if (a.shape != b.shape) lb::fail("add: " + path + " is not square");
      return std::pair{std::move(a), std::move(b)};
    });
  return lb::run(argc, argv);
}
