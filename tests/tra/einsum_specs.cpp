// einsum (tra/einsum.hpp) over every spec shape: each two-operand spec over the letters i, j, k
// is either run and compared with a dense reference on ragged tiles, or rejected at compile time;
// the same for specs with a batch letter b. Each spec is instantiated once.
// SPDX-License-Identifier: BSL-1.0
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "support.hpp"

using namespace loom::tra;
using loom::tra::detail::einsum_check;
using loom::tra::detail::einsum_problem;

namespace {

// Spec texts, generated -------------------------------------------------------------------------
struct spec_chars {
  char c[16]{};
  std::size_t n = 0;
  constexpr void push(std::string_view s) {
    for (char x : s) c[n++] = x;
  }
  constexpr std::string_view view() const { return {c, n}; }
};
constexpr spec_chars make_spec(std::string_view l, std::string_view r, std::string_view o) {
  spec_chars s;
  s.push(l);
  s.push(",");
  s.push(r);
  s.push("->");
  s.push(o);
  return s;
}

// A matrix product C(x,z) = A(x,y) B(y,z) with each operand and the output in either order
// (`orientation` bits: left yx, right zy, output zx), over letters x, y, z.
struct product_letters {
  char xy[3], yx[3], yz[3], zy[3], xz[3], zx[3];
  constexpr product_letters(char x, char y, char z)
      : xy{x, y, 0}, yx{y, x, 0}, yz{y, z, 0}, zy{z, y, 0}, xz{x, z, 0}, zx{z, x, 0} {}
};

// The product family: the roles x, y, z given to i, j, k in each of the 6 ways, times the 8
// orientations: 48 specs, every one of them a matrix product over i, j, k.
constexpr std::size_t product_count = 48;
constexpr spec_chars product_spec(std::size_t id) {
  constexpr char roles[6][3] = {{'i', 'j', 'k'}, {'i', 'k', 'j'}, {'j', 'i', 'k'},
                                {'j', 'k', 'i'}, {'k', 'i', 'j'}, {'k', 'j', 'i'}};
  const auto& r = roles[id / 8];
  const product_letters p(r[0], r[1], r[2]);
  const std::size_t o = id % 8;
  return make_spec(o & 1 ? p.yx : p.xy, o & 2 ? p.zy : p.yz, o & 4 ? p.zx : p.xz);
}

// The batch family: x, y, z = i, j, k in the 8 orientations, with a batch letter b leading the
// left operand, the right one or both, and kept in the output or summed: 8 x 3 x 2 = 48 specs.
constexpr std::size_t batch_count = 48;
constexpr spec_chars batch_spec(std::size_t id) {
  const product_letters p('i', 'j', 'k');
  const std::size_t o = id % 8, where = (id / 8) % 3;
  const bool kept = id >= 24;
  spec_chars l, r, out;
  if (where != 1) l.push("b");
  l.push(o & 1 ? p.yx : p.xy);
  if (where != 0) r.push("b");
  r.push(o & 2 ? p.zy : p.yz);
  if (kept) out.push("b");
  out.push(o & 4 ? p.zx : p.xz);
  return make_spec(l.view(), r.view(), out.view());
}

/// The generated spec as a template argument (fixed_string of the exact length).
template <spec_chars (*Make)(std::size_t), std::size_t Id> struct spec_of {
  static constexpr spec_chars chars = Make(Id);
  static constexpr auto value = [] {
    char text[chars.n + 1]{};
    for (std::size_t k = 0; k < chars.n; ++k) text[k] = chars.c[k];
    return loom::fixed_string<chars.n + 1>(text);
  }();
};

// The dense reference -------------------------------------------------------------------------
struct parts {
  std::string_view left, right, out;
};
parts split(std::string_view spec) {
  const std::size_t comma = spec.find(','), arrow = spec.find("->");
  return {spec.substr(0, comma), spec.substr(comma + 1, arrow - comma - 1), spec.substr(arrow + 2)};
}

constexpr std::string_view alphabet = "bijk";
/// Extent and tile extent of each letter of `alphabet` (b is a batch letter: no tile part).
struct sizes {
  std::array<std::int64_t, 4> n{}, tile{};
  std::int64_t extent(char c) const { return n[alphabet.find(c)]; }
  std::int64_t tile_of(char c) const { return tile[alphabet.find(c)]; }
  std::int64_t volume(std::string_view s) const {
    std::int64_t v = 1;
    for (char c : s) v *= extent(c);
    return v;
  }
  std::string text() const {
    std::string t;
    for (std::size_t d = 0; d < 4; ++d)
      t += std::string(1, alphabet[d]) + "=" + std::to_string(n[d]) + "/" +
           std::to_string(tile[d]) + " ";
    return t;
  }
};

/// Seed 0: extents that are multiples of the tile extents; other seeds: ragged edge tiles, and
/// sometimes a single tile shorter than the tile extent.
sizes sizes_for(std::uint64_t seed) {
  std::mt19937_64 g(seed * 7919 + 17);
  sizes s;
  s.n[0] = 1 + static_cast<std::int64_t>(g() % 3);
  s.tile[0] = 1;
  for (std::size_t d = 1; d < 4; ++d) {
    const auto t = 2 + static_cast<std::int64_t>(g() % 3);
    auto q = static_cast<std::int64_t>(g() % 3);
    const std::int64_t rem =
        seed == 0 ? 0 : 1 + static_cast<std::int64_t>(g() % static_cast<std::uint64_t>(t - 1));
    if (q == 0 && rem == 0) q = 1;
    s.n[d] = q * t + rem;
    s.tile[d] = t;
  }
  return s;
}

std::vector<double> random_values(std::int64_t count, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<double> v(static_cast<std::size_t>(count));
  for (double& x : v) x = static_cast<double>(static_cast<int>(g() % 14) - 4);  // exact sums
  return v;
}

/// Row-major offset of the current binding `at` (indexed like `alphabet`) in an array over `s`.
std::size_t offset(std::string_view s, const sizes& z, const std::array<std::int64_t, 4>& at) {
  std::int64_t o = 0;
  for (char c : s) o = o * z.extent(c) + at[alphabet.find(c)];
  return static_cast<std::size_t>(o);
}

/// out[o] = Σ over every other letter of a[l] * b[r]: plain loops over the whole index space.
std::vector<double> dense_einsum(const parts& p, const sizes& z, const std::vector<double>& a,
                                 const std::vector<double>& b) {
  std::string letters(p.left);
  for (char c : p.right)
    if (letters.find(c) == std::string::npos) letters += c;
  std::vector<double> out(static_cast<std::size_t>(z.volume(p.out)), 0.0);
  for (char c : letters)
    if (z.extent(c) == 0) return out;
  std::array<std::int64_t, 4> at{};
  while (true) {
    out[offset(p.out, z, at)] += a[offset(p.left, z, at)] * b[offset(p.right, z, at)];
    std::size_t m = letters.size();
    while (m > 0) {
      const std::size_t d = alphabet.find(letters[m - 1]);
      if (++at[d] < z.n[d]) break;
      at[d] = 0;
      --m;
    }
    if (m == 0) return out;
  }
}

// Tiling: the last two letters of an array are tiled, a leading letter is a batch key --------
template <std::size_t K>
relation<double, K, 2> tiled(std::string_view s, const sizes& z, const std::vector<double>& v) {
  const char r = s[K - 2], c = s[K - 1];
  if constexpr (K == 2) {  // through loom's own conversion
    auto view =
        loom::dense_matrix_view<const double>(z.extent(r), z.extent(c), std::span<const double>(v));
    return to_tiled(view, {z.tile_of(r), z.tile_of(c)}).tiles;
  } else {
    static_assert(K == 3);
    const std::int64_t nb = z.extent(s[0]), nr = z.extent(r), nc = z.extent(c);
    const std::int64_t tr = z.tile_of(r), tc = z.tile_of(c);
    relation<double, 3, 2> out({nb, (nr + tr - 1) / tr, (nc + tc - 1) / tc}, {tr, tc});
    for (std::int64_t b = 0; b < nb; ++b)
      for (std::int64_t kr = 0; kr < out.bounds()[1]; ++kr)
        for (std::int64_t kc = 0; kc < out.bounds()[2]; ++kc) {
          tile<double, 2> t({tr, tc});
          for (std::int64_t x = 0; x < tr && kr * tr + x < nr; ++x)
            for (std::int64_t y = 0; y < tc && kc * tc + y < nc; ++y)
              t(x, y) = v[static_cast<std::size_t>((b * nr + kr * tr + x) * nc + kc * tc + y)];
          out.insert({b, kr, kc}, std::move(t));
        }
    return out;
  }
}

template <std::size_t K>
std::vector<double> untiled(const relation<double, K, 2>& rel, std::string_view s, const sizes& z) {
  const char r = s[K - 2], c = s[K - 1];
  const std::int64_t nr = z.extent(r), nc = z.extent(c);
  if constexpr (K == 2) {  // through loom's own conversion
    const auto m = from_tiled<loom::dense_matrix>(tiled_tensor<double, 2>{rel, {nr, nc}});
    std::vector<double> out;
    for (std::int64_t x = 0; x < nr; ++x)
      for (std::int64_t y = 0; y < nc; ++y) out.push_back(m.at(x, y));
    return out;
  } else {
    static_assert(K == 3);
    std::vector<double> out(static_cast<std::size_t>(z.volume(s)), 0.0);
    const auto& ts = rel.tile_shape();
    for (const auto& [key, t] : rel)
      for (std::int64_t x = 0; x < ts[0] && key[1] * ts[0] + x < nr; ++x)
        for (std::int64_t y = 0; y < ts[1] && key[2] * ts[1] + y < nc; ++y)
          out[static_cast<std::size_t>((key[0] * nr + key[1] * ts[0] + x) * nc + key[2] * ts[1] +
                                       y)] = t(x, y);
    return out;
  }
}

template <std::size_t KL, std::size_t KR, std::size_t KO>
using einsum_fn = relation<double, KO, 2> (*)(const relation<double, KL, 2>&,
                                              const relation<double, KR, 2>&);

constexpr std::array<std::uint64_t, 5> seeds{0, 1, 2, 3, 4};

/// Runs one spec over every seed (shapes, tile extents and values) against the reference.
template <std::size_t KL, std::size_t KR, std::size_t KO>
void check_spec(std::string_view spec, einsum_fn<KL, KR, KO> f) {
  const parts p = split(spec);
  for (std::uint64_t seed : seeds) {
    const sizes z = sizes_for(seed);
    const auto a = random_values(z.volume(p.left), seed * 2 + 1);
    const auto b = random_values(z.volume(p.right), seed * 2 + 2);
    INFO("spec ", spec, ", seed ", seed, ", extents/tiles ", z.text());
    try {
      const auto c = f(tiled<KL>(p.left, z, a), tiled<KR>(p.right, z, b));
      const char r = p.out[KO - 2], col = p.out[KO - 1];
      CHECK(c.tile_shape() == shape_t<2>{z.tile_of(r), z.tile_of(col)});
      CHECK(c.bounds()[KO - 2] == (z.extent(r) + z.tile_of(r) - 1) / z.tile_of(r));
      CHECK(c.bounds()[KO - 1] == (z.extent(col) + z.tile_of(col) - 1) / z.tile_of(col));
      CHECK(untiled<KO>(c, p.out, z) == dense_einsum(p, z, a, b));
    } catch (const std::exception& e) {  // report every spec, not just the first that throws
      const std::string what = std::string("threw: ") + e.what();
      FAIL_CHECK(what);
    }
  }
}

/// Instantiates einsum once for the generated spec and checks it.
template <spec_chars (*Make)(std::size_t), std::size_t Id> void check_generated() {
  using S = spec_of<Make, Id>;
  constexpr std::string_view text = S::chars.view();
  static_assert(einsum_check(text) == einsum_problem::none);
  constexpr std::size_t kl = text.find(','), kr = text.find('-') - kl - 1;
  constexpr std::size_t ko = text.size() - text.find('>') - 1;
  check_spec<kl, kr, ko>(text,
                         [](const relation<double, kl, 2>& l, const relation<double, kr, 2>& r) {
                           return einsum<S::value>(l, r);
                         });
}
template <spec_chars (*Make)(std::size_t), std::size_t... Id>
void check_all(std::index_sequence<Id...>) {
  (check_generated<Make, Id>(), ...);
}

// The test's own rule, phrased without tile letters: over i, j, k, a spec is a matrix product
// up to transposes when each side has two distinct letters, the operands share exactly one
// letter, and the output holds the other two.
bool is_matrix_product(const parts& p) {
  for (std::string_view s : {p.left, p.right, p.out})
    if (s.size() != 2 || s[0] == s[1]) return false;
  int shared = 0;
  char y = 0;
  for (char c : p.left)
    if (p.right.find(c) != std::string_view::npos) ++shared, y = c;
  if (shared != 1) return false;
  const char x = p.left[0] == y ? p.left[1] : p.left[0];
  const char z = p.right[0] == y ? p.right[1] : p.right[0];
  return (p.out[0] == x && p.out[1] == z) || (p.out[0] == z && p.out[1] == x);
}

/// The rule with batch letters: the letter before the last two of a side is a batch letter (key
/// only); the last two letters (the tile's) must form a matrix product, no batch letter may be a
/// tile letter anywhere, and the output's batch letter must be an operand's.
bool runs_with_batch(const parts& p) {
  auto tile_part = [](std::string_view s) { return s.substr(s.size() - 2); };
  auto batch_part = [](std::string_view s) { return s.substr(0, s.size() - 2); };
  if (!is_matrix_product({tile_part(p.left), tile_part(p.right), tile_part(p.out)})) return false;
  const std::string tiles = std::string(tile_part(p.left)) + std::string(tile_part(p.right)) +
                            std::string(tile_part(p.out));
  for (std::string_view s : {p.left, p.right, p.out})
    for (char c : batch_part(s))
      if (tiles.find(c) != std::string::npos) return false;
  for (char c : batch_part(p.out))
    if (batch_part(p.left).find(c) == std::string_view::npos &&
        batch_part(p.right).find(c) == std::string_view::npos)
      return false;
  return true;
}

std::string verdict(const std::string& spec, bool runs) {
  return "spec " + spec + ": loom " + (runs ? "runs" : "rejects") + " it";
}

/// Every string of up to `max` letters from `letters`, repeats allowed ("", "i", ..., "kkk").
std::vector<std::string> words(std::string_view letters, std::size_t max) {
  std::vector<std::string> all{""};
  for (std::size_t from = 0; from < all.size(); ++from)
    if (all[from].size() < max)
      for (char c : letters) all.push_back(all[from] + c);
  return all;
}

}  // namespace

TEST_CASE("einsum over i, j, k: loom runs exactly the 48 matrix products, rejects the rest") {
  std::vector<std::string> generated;
  for (std::size_t id = 0; id < product_count; ++id)
    generated.emplace_back(product_spec(id).view());
  const auto w = words("ijk", 3);  // 40 words: 40 x 40 x 40 specs, diagonals included
  int supported = 0;
  for (const auto& l : w)
    for (const auto& r : w)
      for (const auto& o : w) {
        const std::string spec = l + "," + r + "->" + o;
        const bool expect = is_matrix_product({l, r, o});
        const bool runs = einsum_check(spec) == einsum_problem::none;
        if (expect != runs) FAIL_CHECK(verdict(spec, runs));
        if (runs) {
          ++supported;
          CHECK(std::find(generated.begin(), generated.end(), spec) != generated.end());
        }
      }
  CHECK(supported == 48);
}

TEST_CASE("einsum over i, j, k: every matrix product, any operand or output order, ragged tiles") {
  check_all<product_spec>(std::make_index_sequence<product_count>{});
}

TEST_CASE("einsum with a batch letter: every spec over b, i, j, k with up to one per side") {
  std::vector<std::string> generated;
  for (std::size_t id = 0; id < batch_count; ++id) generated.emplace_back(batch_spec(id).view());
  std::vector<std::string> sides;  // two or three distinct letters of b, i, j, k: 36 words
  for (const auto& s : words("bijk", 3))
    if (s.size() >= 2 && s[0] != s[1] && (s.size() == 2 || (s[2] != s[0] && s[2] != s[1])))
      sides.push_back(s);
  int supported = 0, found = 0;
  for (const auto& l : sides)
    for (const auto& r : sides)
      for (const auto& o : sides) {
        const std::string spec = l + "," + r + "->" + o;
        const bool expect = runs_with_batch({l, r, o});
        const bool runs = einsum_check(spec) == einsum_problem::none;
        if (expect != runs) FAIL_CHECK(verdict(spec, runs));
        supported += runs ? 1 : 0;
        found += runs && std::find(generated.begin(), generated.end(), spec) != generated.end();
      }
  // 24 ways to give x, y, z three of the letters, 8 orientations, and the fourth letter as the
  // batch letter of: no side, left, right, both, left and output, right and output, all three
  CHECK(supported == 24 * 8 * 7);
  CHECK(found == static_cast<int>(batch_count));
  check_all<batch_spec>(std::make_index_sequence<batch_count>{});
}

// What a rejected spec is told (the static_assert that fires is the one for this problem)
static_assert(einsum_check("ij;jk->ik") == einsum_problem::malformed);
static_assert(einsum_check("ij,jk->i.k") == einsum_problem::malformed);
static_assert(einsum_check("ii,ij->j") == einsum_problem::repeated_letter);
static_assert(einsum_check("ij,jk->iz") == einsum_problem::output_letter_not_in_inputs);
static_assert(einsum_check("ij,j->i") == einsum_problem::fewer_than_two_letters);
static_assert(einsum_check("ij,jk->") == einsum_problem::fewer_than_two_letters);
static_assert(einsum_check("ij,ij->ij") == einsum_problem::tiles_not_a_matrix_product);
static_assert(einsum_check("ij,ji->ij") == einsum_problem::tiles_not_a_matrix_product);
static_assert(einsum_check("ij,jk->ijk") == einsum_problem::contracted_letter_kept);
static_assert(einsum_check("ij,jk->ij") == einsum_problem::contracted_letter_kept);
static_assert(einsum_check("ibj,bjk->bik") == einsum_problem::letter_with_two_roles);
static_assert(einsum_check("ij,jk->ik") == einsum_problem::none);

// The IA plan transposes the same tiles, as λᴸ(_, transpose) nodes
static_assert(
    std::is_same_v<einsum_plan_t<"ij,kj->ik">,
                   ia::lagg<ia::dims<0, 2>, mat_add,
                            ia::ljoin<ia::dims<1>, ia::dims<1>, mat_mul, ia::leaf<0, 2>,
                                      ia::lmap<ia::same_key, transpose_tile, ia::leaf<1, 2>>>>>);
static_assert(
    std::is_same_v<
        einsum_plan_t<"ji,kj->ki">,
        ia::lmap<ia::same_key, transpose_tile,
                 ia::lagg<ia::dims<2, 0>, mat_add,
                          ia::ljoin<ia::dims<0>, ia::dims<1>, mat_mul,
                                    ia::lmap<ia::same_key, transpose_tile, ia::leaf<0, 2>>,
                                    ia::lmap<ia::same_key, transpose_tile, ia::leaf<1, 2>>>>>>);

namespace {
template <std::size_t Id> void check_plan() {
  using S = spec_of<product_spec, Id>;
  constexpr std::size_t x_at = Id & 1;  // the left operand's kept letter: partition on it
  using plan = einsum_plan_t<S::value, ia::partitioned<ia::dims<x_at>>, ia::replicated>;
  const sizes z = sizes_for(3);
  const parts p = split(S::chars.view());
  const auto l = tiled<2>(p.left, z, random_values(z.volume(p.left), 5));
  const auto r = tiled<2>(p.right, z, random_values(z.volume(p.right), 6));
  INFO("spec ", S::chars.view(), ", plan ", ia::to_string<plan>());
  CHECK(ia::evaluate<plan>(ia::local_sites(3), l, r) == einsum<S::value>(l, r));
}
}  // namespace

TEST_CASE("einsum_plan_t runs the same transposes as einsum, placed on 3 sites") {
  CHECK(ia::to_string<einsum_plan_t<"ij,kj->ik">>() ==
        "Σᴸ<0,2>(add, ⋈ᴸ<1>,<1>(matmul, R0, λᴸ(_, transpose, R1)))");
  [&]<std::size_t... Id>(std::index_sequence<Id...>) {
    (check_plan<Id>(), ...);
  }(std::make_index_sequence<8>{});
}
