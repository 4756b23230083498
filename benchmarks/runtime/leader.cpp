// Skip policy per loop (leader choice): the sparse dot product s = sum(i, x(i) * z(i)), the
// elementwise product w(i) = x(i) * z(i) into a sparse vector, and SpMSpV y(i) = sum(j, A(i,j) *
// x(j)) with A in CSR (rows intersected with a sparse x), each on skewed and balanced sizes:
// every fixed policy (standard = leapfrog, merge, lead first, lead last), the policy chosen at
// run time from statistics (optimize/choice/skip_choice.hpp), and two hand-written loops (a
// two-pointer merge; the smaller side leading with a galloping search in the larger).
// SPDX-License-Identifier: BSL-1.0
#include <loom/exec/skip_queries.hpp>

#include "support.hpp"

namespace {

namespace lb = loom_bench;
namespace sk = loom::stream::skip;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

using scalar = loom::tensor<double, loom::format<>>;
using svec = loom::tensor<double, loom::sparse_vector>;

// Hand-written baselines over loom's arrays ---------------------------------------------------------
// a two-pointer merge
double merge_dot(const std::int32_t* xc, const double* xv, std::int64_t xn, const std::int32_t* zc,
                 const double* zv, std::int64_t zn) {
  double s = 0;
  std::int64_t p = 0, q = 0;
  while (p < xn && q < zn) {
    const std::int32_t a = xc[p], b = zc[q];
    if (a == b)
      s += xv[p++] * zv[q++];
    else if (a < b)
      ++p;
    else
      ++q;
  }
  return s;
}

// the shorter side leads; each of its coordinates is found in the longer by galloping
double lead_dot(const std::int32_t* xc, const double* xv, std::int64_t xn, const std::int32_t* zc,
                const double* zv, std::int64_t zn) {
  if (xn > zn) return lead_dot(zc, zv, zn, xc, xv, xn);
  double s = 0;
  std::int64_t q = 0;
  for (std::int64_t p = 0; p < xn && q < zn; ++p) {
    const std::int32_t a = xc[p];
    std::int64_t step = 1, lo = q, hi = q;
    while (hi < zn && zc[hi] < a) {
      lo = hi + 1;
      hi += step;
      step *= 2;
    }
    hi = std::min(hi, zn);
    q = std::lower_bound(zc + lo, zc + hi, a) - zc;
    if (q < zn && zc[q] == a) s += xv[p] * zv[q++];
  }
  return s;
}

// elementwise product by merge or by the shorter side leading, into preallocated arrays
std::int64_t merge_mul(const svec& x, const svec& z, std::int32_t* oc, double* ov) {
  const auto *xc = x.level<0>().crd.data(), *zc = z.level<0>().crd.data();
  const double *xv = x.values().data(), *zv = z.values().data();
  const std::int64_t xn = x.nnz(), zn = z.nnz();
  std::int64_t p = 0, q = 0, k = 0;
  while (p < xn && q < zn) {
    const std::int32_t a = xc[p], b = zc[q];
    if (a == b) {
      oc[k] = a;
      ov[k++] = xv[p++] * zv[q++];
    } else if (a < b) {
      ++p;
    } else {
      ++q;
    }
  }
  return k;
}
std::int64_t lead_mul(const svec& x, const svec& z, std::int32_t* oc, double* ov) {
  const svec& s = x.nnz() <= z.nnz() ? x : z;
  const svec& l = x.nnz() <= z.nnz() ? z : x;
  const auto *sc = s.level<0>().crd.data(), *lc = l.level<0>().crd.data();
  const double *sv = s.values().data(), *lv = l.values().data();
  const std::int64_t sn = s.nnz(), ln = l.nnz();
  std::int64_t q = 0, k = 0;
  for (std::int64_t p = 0; p < sn && q < ln; ++p) {
    const std::int32_t a = sc[p];
    std::int64_t step = 1, lo = q, hi = q;
    while (hi < ln && lc[hi] < a) {
      lo = hi + 1;
      hi += step;
      step *= 2;
    }
    hi = std::min(hi, ln);
    q = std::lower_bound(lc + lo, lc + hi, a) - lc;
    if (q < ln && lc[q] == a) {
      oc[k] = a;
      ov[k++] = sv[p] * lv[q++];
    }
  }
  return k;
}

// Policies --------------------------------------------------------------------------------------------
// 0-3: the static policies, one kernel each; 4: among instantiated candidates
// (opt::skip_candidates); 5, 6: one kernel reading leapfrog / merge at run time (skip::runtime:
// the per-step cost of reading the policy); 7: skip::runtime with the codes chosen from
// statistics (opt::runtime_skips).
sk::codes codes_at(std::size_t depth, sk::code c) {
  sk::codes codes = sk::default_codes;
  codes[depth] = c;
  return codes;
}
template <class Lhs, class Rhs> void run_policy(int which, const Lhs& lhs, const Rhs& rhs) {
  switch (which) {
    case 0:
      loom::assign(lhs, rhs, loom::options<loom::opt::fixed_skips<sk::per_loop<>>>{});
      break;
    case 1:
      loom::assign(lhs, rhs, loom::options<loom::opt::fixed_skips<sk::per_loop<sk::merge>>>{});
      break;
    case 2:
      loom::assign(lhs, rhs, loom::options<loom::opt::fixed_skips<sk::per_loop<sk::lead<0>>>>{});
      break;
    case 3:
      loom::assign(lhs, rhs, loom::options<loom::opt::fixed_skips<sk::per_loop<sk::lead<1>>>>{});
      break;
    case 4:
      loom::assign(lhs, rhs, loom::options<loom::opt::skip_candidates<>>{});
      break;
    case 5:
      loom::assign(
          lhs, rhs,
          loom::options<loom::opt::runtime_skips>{.skip_codes = codes_at(0, sk::code::leapfrog)});
      break;
    case 6:
      loom::assign(
          lhs, rhs,
          loom::options<loom::opt::runtime_skips>{.skip_codes = codes_at(0, sk::code::merge)});
      break;
    default:
      loom::assign(lhs, rhs, loom::options<loom::opt::runtime_skips>{});
      break;
  }
}
// SpMSpV: the intersection is the inner loop j
template <class Lhs, class Rhs> void run_policy_inner(int which, const Lhs& lhs, const Rhs& rhs) {
  switch (which) {
    case 0:
      loom::assign(lhs, rhs, loom::options<loom::opt::fixed_skips<sk::per_loop<>>>{});
      break;
    case 1:
      loom::assign(lhs, rhs,
                   loom::options<loom::opt::fixed_skips<sk::per_loop<sk::standard, sk::merge>>>{});
      break;
    case 2:
      loom::assign(
          lhs, rhs,
          loom::options<loom::opt::fixed_skips<sk::per_loop<sk::standard, sk::lead<0>>>>{});
      break;
    case 3:
      loom::assign(
          lhs, rhs,
          loom::options<loom::opt::fixed_skips<sk::per_loop<sk::standard, sk::lead<1>>>>{});
      break;
    case 4:
      loom::assign(lhs, rhs, loom::options<loom::opt::skip_candidates<>>{});
      break;
    case 5:
      loom::assign(
          lhs, rhs,
          loom::options<loom::opt::runtime_skips>{.skip_codes = codes_at(1, sk::code::leapfrog)});
      break;
    case 6:
      loom::assign(
          lhs, rhs,
          loom::options<loom::opt::runtime_skips>{.skip_codes = codes_at(1, sk::code::merge)});
      break;
    default:
      loom::assign(lhs, rhs, loom::options<loom::opt::runtime_skips>{});
      break;
  }
}
constexpr int policy_count = 8;
const char* const policy_names[] = {"standard_leapfrog", "merge",         "lead_first",
                                    "lead_last",         "chosen",        "runtime_leapfrog",
                                    "runtime_merge",     "runtime_chosen"};

// dot and elementwise --------------------------------------------------------------------------------
struct vec_input {
  svec x, z, w;
  scalar s;
  std::vector<std::int32_t> oc;
  std::vector<double> ov;
};

void register_vectors(const std::string& name, std::int64_t n, std::int64_t nx, std::int64_t nz) {
  auto data = std::make_shared<lb::lazy<vec_input>>([=] {
    auto in = std::make_unique<vec_input>();
    in->x = lb::to_loom<loom::sparse_vector>(lb::random_vector(n, nx, 31));
    in->z = lb::to_loom<loom::sparse_vector>(lb::random_vector(n, nz, 32));
    in->w = svec({n});
    in->oc.resize(static_cast<std::size_t>(std::min(nx, nz)));
    in->ov.resize(in->oc.size());
    const auto &x = in->x, &z = in->z;
    const double want = merge_dot(x.level<0>().crd.data(), x.values().data(), x.nnz(),
                                  z.level<0>().crd.data(), z.values().data(), z.nnz());
    lb::check_scalar("leader dot/" + name + ": lead vs merge",
                     lead_dot(x.level<0>().crd.data(), x.values().data(), x.nnz(),
                              z.level<0>().crd.data(), z.values().data(), z.nnz()),
                     want);
    const loom::expr::access<scalar> out{&in->s};
    for (int p = 0; p < policy_count; ++p) {
      run_policy(p, out, loom::sum(i, in->x(i) * in->z(i)));
      lb::check_scalar("leader dot/" + name + ": loom " + policy_names[p] + " vs hand",
                       in->s.values()[0], want);
      run_policy(p, in->w(i), in->x(i) * in->z(i));
      const std::int64_t k = merge_mul(x, z, in->oc.data(), in->ov.data());
      if (in->w.nnz() != k) lb::fail("leader mul/" + name + ": loom entries differ from hand");
      lb::check_values("leader mul/" + name + ": loom vs hand", in->w.values(),
                       std::vector<double>(in->ov.begin(), in->ov.begin() + k));
    }
    std::fprintf(stderr, "%s",
                 loom::explain(out, loom::sum(i, in->x(i) * in->z(i)),
                               loom::options<loom::opt::skip_candidates<>>{})
                     .c_str());
    return in;
  });
  const std::string what = "sparse_vector . sparse_vector";
  for (int p = 0; p < policy_count; ++p) {
    lb::add("leader_dot", name, policy_names[p], [=](benchmark::State& s) {
      vec_input& in = data->get();
      const loom::expr::access<scalar> out{&in.s};
      for (auto _ : s) {
        run_policy(p, out, loom::sum(i, in.x(i) * in.z(i)));
        benchmark::DoNotOptimize(in.s.values()[0]);
      }
      lb::label(s, in.x.nnz() + in.z.nnz(), what);
    });
  }
  lb::add("leader_dot", name, "hand_merge", [=](benchmark::State& s) {
    vec_input& in = data->get();
    for (auto _ : s)
      benchmark::DoNotOptimize(merge_dot(in.x.level<0>().crd.data(), in.x.values().data(),
                                         in.x.nnz(), in.z.level<0>().crd.data(),
                                         in.z.values().data(), in.z.nnz()));
    lb::label(s, in.x.nnz() + in.z.nnz(), what);
  });
  lb::add("leader_dot", name, "hand_lead", [=](benchmark::State& s) {
    vec_input& in = data->get();
    for (auto _ : s)
      benchmark::DoNotOptimize(lead_dot(in.x.level<0>().crd.data(), in.x.values().data(),
                                        in.x.nnz(), in.z.level<0>().crd.data(),
                                        in.z.values().data(), in.z.nnz()));
    lb::label(s, in.x.nnz() + in.z.nnz(), what);
  });
  const std::string what_mul = "sparse_vector * sparse_vector -> sparse_vector";
  for (int p = 0; p < policy_count; ++p) {
    lb::add("leader_mul", name, policy_names[p], [=](benchmark::State& s) {
      vec_input& in = data->get();
      for (auto _ : s) {
        run_policy(p, in.w(i), in.x(i) * in.z(i));
        benchmark::DoNotOptimize(in.w.values().data());
        benchmark::ClobberMemory();
      }
      lb::label(s, in.x.nnz() + in.z.nnz(), what_mul);
    });
  }
  // the hand-written loops fill preallocated arrays; loom builds a new tensor each call
  lb::add("leader_mul", name, "hand_merge", [=](benchmark::State& s) {
    vec_input& in = data->get();
    for (auto _ : s) benchmark::DoNotOptimize(merge_mul(in.x, in.z, in.oc.data(), in.ov.data()));
    lb::label(s, in.x.nnz() + in.z.nnz(), what_mul);
  });
  lb::add("leader_mul", name, "hand_lead", [=](benchmark::State& s) {
    vec_input& in = data->get();
    for (auto _ : s) benchmark::DoNotOptimize(lead_mul(in.x, in.z, in.oc.data(), in.ov.data()));
    lb::label(s, in.x.nnz() + in.z.nnz(), what_mul);
  });
}

// SpMSpV: CSR rows intersected with a sparse x ---------------------------------------------------------
struct spmspv_input {
  loom::tensor<double, loom::csr> A;
  svec x;
  loom::tensor<double, loom::dense_vector> y;
  std::vector<double> hy;
};

template <bool Lead> void hand_spmspv(spmspv_input& in) {
  const auto& row = in.A.level<1>();
  const double* av = in.A.values().data();
  const auto* xc = in.x.level<0>().crd.data();
  const double* xv = in.x.values().data();
  for (std::int64_t r = 0; r < in.A.extent(0); ++r) {
    const auto b = row.pos[r], e = row.pos[r + 1];
    in.hy[static_cast<std::size_t>(r)] =
        Lead ? lead_dot(row.crd.data() + b, av + b, e - b, xc, xv, in.x.nnz())
             : merge_dot(row.crd.data() + b, av + b, e - b, xc, xv, in.x.nnz());
  }
}

void register_spmspv(const std::string& name, std::int64_t m, std::int64_t n, std::int64_t per_row,
                     std::int64_t nx) {
  auto data = std::make_shared<lb::lazy<spmspv_input>>([=] {
    auto in = std::make_unique<spmspv_input>();
    in->A = lb::to_loom<loom::csr>(lb::random_matrix(m, n, per_row, 41));
    in->x = lb::to_loom<loom::sparse_vector>(lb::random_vector(n, nx, 42));
    in->y = loom::tensor<double, loom::dense_vector>({m});
    in->hy.assign(static_cast<std::size_t>(m), 0.0);
    hand_spmspv<false>(*in);
    const std::vector<double> want = in->hy;
    hand_spmspv<true>(*in);
    lb::check_values("leader spmspv/" + name + ": hand lead vs merge", in->hy, want);
    for (int p = 0; p < policy_count; ++p) {
      run_policy_inner(p, in->y(i), loom::sum(j, in->A(i, j) * in->x(j)));
      lb::check_values("leader spmspv/" + name + ": loom " + policy_names[p] + " vs hand",
                       in->y.values(), want);
    }
    std::fprintf(stderr, "%s",
                 loom::explain(in->y(i), loom::sum(j, in->A(i, j) * in->x(j)),
                               loom::options<loom::opt::skip_candidates<>>{})
                     .c_str());
    return in;
  });
  const std::string what = "CSR x sparse -> dense";
  for (int p = 0; p < policy_count; ++p) {
    lb::add("leader_spmspv", name, policy_names[p], [=](benchmark::State& s) {
      spmspv_input& in = data->get();
      for (auto _ : s) {
        run_policy_inner(p, in.y(i), loom::sum(j, in.A(i, j) * in.x(j)));
        benchmark::DoNotOptimize(in.y.values().data());
        benchmark::ClobberMemory();
      }
      lb::label(s, in.A.nnz() + in.x.nnz(), what);
    });
  }
  lb::add("leader_spmspv", name, "hand_merge", [=](benchmark::State& s) {
    spmspv_input& in = data->get();
    for (auto _ : s) {
      hand_spmspv<false>(in);
      benchmark::DoNotOptimize(in.hy.data());
      benchmark::ClobberMemory();
    }
    lb::label(s, in.A.nnz() + in.x.nnz(), what);
  });
  lb::add("leader_spmspv", name, "hand_lead", [=](benchmark::State& s) {
    spmspv_input& in = data->get();
    for (auto _ : s) {
      hand_spmspv<true>(in);
      benchmark::DoNotOptimize(in.hy.data());
      benchmark::ClobberMemory();
    }
    lb::label(s, in.A.nnz() + in.x.nnz(), what);
  });
}

}  // namespace

int main(int argc, char** argv) {
  // 1M extent: 100 entries against 1M (skewed), 100K against 100K (balanced), 10K against 1M
  register_vectors("skewed_100_vs_1M", 4'000'000, 100, 1'000'000);
  register_vectors("mid_10K_vs_1M", 4'000'000, 10'000, 1'000'000);
  register_vectors("balanced_100K_vs_100K", 1'000'000, 100'000, 100'000);
  // rows of about 2000 entries against 20 x entries (skewed); rows of 500 against 500 (balanced)
  register_spmspv("long_rows_short_x", 2'000, 200'000, 2'000, 20);
  register_spmspv("balanced", 2'000, 100'000, 500, 500);
  register_spmspv("short_rows_long_x", 20'000, 100'000, 4, 50'000);
  return lb::run(argc, argv);
}
