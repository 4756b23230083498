// Defines the shipped storage mappings: lower- and upper-triangular packed, symmetric stored as
// its lower triangle, band, Z-order (Morton) dense, CSR, DCSR and CSF written as mappings, COO
// (non-unique rows), DCSR with hashed rows, a trie of hash maps and a dictionary of keys
// (format/mapping/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MAPPING_LIBRARY_HPP
#define LOOM_FORMAT_MAPPING_LIBRARY_HPP

#include <loom/core/index.hpp>
#include <loom/format/mapping/definition.hpp>
#include <loom/format/mapping/index_expr.hpp>
#include <loom/format/mapping/loops.hpp>

#include <cstdint>

namespace loom::mapping {

/// The names the shipped mappings use: index variables and physical arrays (STOREL's).
namespace names {
inline constexpr loom::index<"i"> i{};
inline constexpr loom::index<"j"> j{};
inline constexpr loom::index<"k"> k{};
inline constexpr auto I = var(i);
inline constexpr auto J = var(j);
inline constexpr array<"pos1", std::int64_t> pos1{};
inline constexpr array<"idx1", std::int32_t> idx1{};
inline constexpr array<"pos2", std::int64_t> pos2{};
inline constexpr array<"idx2", std::int32_t> idx2{};
inline constexpr array<"pos3", std::int64_t> pos3{};
inline constexpr array<"idx3", std::int32_t> idx3{};
/// a hash map from row to its segment number, and per-row tables of column -> position
inline constexpr hash_map<"rows"> rows{};
inline constexpr hash_map<"cols"> cols{};
/// one flat map from (row, column) pairs, `i * N + j`, to the value's position (DOK)
inline constexpr hash_map<"entries"> entries{};
inline constexpr array<"slot2", std::int64_t> slot2{};
}  // namespace names

using literals::operator""_c;

/// Lower-triangular, rows packed: A(i,j) = vals(i*(i+1)/2 + j) where j <= i (notes §3.3 (8),
/// erratum fixed).
inline constexpr auto lower_packed_mapping = define<"lower_packed">(
    range(names::i, 0_c, extent), range(names::j, 0_c, extent, names::J <= names::I),
    values(names::I*(names::I + 1_c) / 2_c + names::J));
using lower_packed = format_of<decltype(lower_packed_mapping)>;

/// The strictly lower part of the same packed array (j < i): with lower_packed, two views of
/// one array, e.g. symmetric y = L x + (strict L)^T x in two fused loop nests.
inline constexpr auto strict_lower_packed_mapping = define<"strict_lower_packed">(
    range(names::i, 0_c, extent), range(names::j, 0_c, extent, names::J < names::I),
    values(names::I*(names::I + 1_c) / 2_c + names::J));
using strict_lower_packed = format_of<decltype(strict_lower_packed_mapping)>;

/// The diagonal: A(i,i) = vals(i) (a one-entry range per row).
inline constexpr auto diagonal_mapping = define<"diagonal">(
    range(names::i, 0_c, extent),
    range(names::j, 0_c, extent, names::J >= names::I, names::J <= names::I), values(names::I));
using diagonal = format_of<decltype(diagonal_mapping)>;

/// Strictly lower-triangular, rows packed without the diagonal: A(i,j) = vals(i*(i-1)/2 + j)
/// where j < i (the notes' erratum offset is right for this layout: N(N-1)/2 slots). With
/// `diagonal`, the two terms of a lower-triangular matrix stored as a sum of mappings.
inline constexpr auto strict_lower_compact_mapping = define<"strict_lower_compact">(
    range(names::i, 0_c, extent), range(names::j, 0_c, extent, names::J < names::I),
    values(names::I*(names::I - 1_c) / 2_c + names::J));
using strict_lower_compact = format_of<decltype(strict_lower_compact_mapping)>;

/// Upper-triangular, rows packed: row i holds j in i..N-1 after the i*N - i*(i-1)/2 slots of
/// the rows above.
inline constexpr auto upper_packed_mapping = define<"upper_packed">(
    range(names::i, 0_c, extent), range(names::j, 0_c, extent, names::J >= names::I),
    values(names::I* extent - names::I * (names::I - 1_c) / 2_c + names::J - names::I));
using upper_packed = format_of<decltype(upper_packed_mapping)>;

/// Symmetric, stored as its packed lower triangle: A(i,j) = A(j,i) = vals(tri(max, min)).
inline constexpr auto symmetric_packed_mapping = define<"symmetric_packed">(
    range(names::i, 0_c, extent), range(names::j, 0_c, extent),
    values(max(names::I, names::J) * (max(names::I, names::J) + 1_c) / 2_c +
           min(names::I, names::J)));
using symmetric_packed = format_of<decltype(symmetric_packed_mapping)>;

/// Band of half-width W, row by row (LAPACK's band layout): A(i,j) = vals(i*(2W+1) + j - i + W)
/// where i - W <= j <= i + W. Slots outside the matrix (first and last rows) are padding.
template <std::int64_t W>
inline constexpr auto band_mapping = define<"band">(
    range(names::i, 0_c, extent),
    range(names::j, 0_c, extent, names::J >= names::I - c<W>, names::J <= names::I + c<W>),
    values(names::I* c<2 * W + 1> + names::J - names::I + c<W>));
template <std::int64_t W> using band = format_of<decltype(band_mapping<W>)>;

/// Tridiagonal, rows packed without padding (notes §3.3 (9), erratum fixed): row i starts at
/// 2i - 1 and holds j in i-1..i+1, so A(i,j) = vals(2i + j); exactly 3N - 2 slots.
inline constexpr auto tridiagonal_mapping = define<"tridiagonal">(
    range(names::i, 0_c, extent),
    range(names::j, 0_c, extent, names::I - 1_c <= names::J, names::J <= names::I + 1_c),
    values(2_c * names::I + names::J));
using tridiagonal = format_of<decltype(tridiagonal_mapping)>;

/// Dense row-major (Example 4.1): A(i,j) = vals(i*N + j).
inline constexpr auto dense_rowmajor_mapping =
    define<"dense_rowmajor">(range(names::i, 0_c, extent), range(names::j, 0_c, extent),
                             values(names::I* extent + names::J));
using dense_rowmajor = format_of<decltype(dense_rowmajor_mapping)>;

/// Dense in Z-order (Morton): A(i,j) = vals(interleave(i, j)), i in the even bits (notes §3.3
/// (10), read as lookups). N a power of two gives exactly N*N slots.
inline constexpr auto zorder_mapping =
    define<"zorder">(range(names::i, 0_c, extent), range(names::j, 0_c, extent),
                     values(interleave(names::I, names::J)));
using zorder = format_of<decltype(zorder_mapping)>;

/// CSR as a mapping (Fig. 1(b)): sum(<i,_> in 0:N) { @unique i -> sum(<p, j> in
/// idx2(pos2(i) : pos2(i+1))) { @unique j -> vals(p) } }.
inline constexpr auto csr_mapping = define<"csr_mapping">(
    range(names::i, 0_c, extent),
    each(names::j, names::idx2.slice(names::pos2(pos(names::i)), names::pos2(pos(names::i) + 1_c)),
         unique),
    values(pos(names::j)));
using csr = format_of<decltype(csr_mapping)>;

/// DCSR as a mapping (Example 4.2): both levels are sorted unique segments.
inline constexpr auto dcsr_mapping = define<"dcsr_mapping">(
    each(names::i, names::idx1.slice(names::pos1(0_c), names::pos1(1_c)), unique),
    each(names::j, names::idx2.slice(names::pos2(pos(names::i)), names::pos2(pos(names::i) + 1_c)),
         unique),
    values(pos(names::j)));
using dcsr = format_of<decltype(dcsr_mapping)>;

/// CSF of order 3 as a mapping (the B of Fig. 1(d)).
inline constexpr auto csf3_mapping = define<"csf3_mapping">(
    each(names::i, names::idx1.slice(names::pos1(0_c), names::pos1(1_c)), unique),
    each(names::j, names::idx2.slice(names::pos2(pos(names::i)), names::pos2(pos(names::i) + 1_c)),
         unique),
    each(names::k, names::idx3.slice(names::pos3(pos(names::j)), names::pos3(pos(names::j) + 1_c)),
         unique),
    values(pos(names::k)));
using csf3 = format_of<decltype(csf3_mapping)>;

/// COO as a mapping (notes §3.4): rows repeat (no `unique`), one column per position:
/// sum(<p, i> in idx1(pos1(0) : pos1(1))) { (i, idx2(p)) -> vals(p) }. A row's run of positions
/// is one iteration of the program's loop over i.
inline constexpr auto coo_mapping = define<"coo_mapping">(
    each(names::i, names::idx1.slice(names::pos1(0_c), names::pos1(1_c))),
    each(names::j, names::idx2.slice(pos(names::i), pos(names::i) + 1_c), unique),
    values(pos(names::j)));
using coo = format_of<decltype(coo_mapping)>;

/// DCSR with hashed rows: a hash map from each non-empty row to its segment number r, then the
/// sorted columns idx2(pos2(r) : pos2(r+1)). Rows are unordered (located in O(1), sorted on
/// demand when a program iterates them).
inline constexpr auto hashed_rows_mapping = define<"hashed_rows">(
    hashed(names::i, names::rows),
    each(names::j, names::idx2.slice(names::pos2(pos(names::i)), names::pos2(pos(names::i) + 1_c)),
         unique),
    values(pos(names::j)));
using hashed_rows = format_of<decltype(hashed_rows_mapping)>;

/// A trie of hash maps (STOREL's `CREATE TRIE T(M)(N)`, `sum(<i,row> in T, <j,v> in row)`):
/// rows hashed to a table number r, each row's columns a hash table in slots
/// slot2(r) : slot2(r+1) of `cols` mapping a column to its value's position.
inline constexpr auto hash_trie_mapping = define<"hash_trie">(
    hashed(names::i, names::rows),
    hashed(names::j,
           names::cols.table(names::slot2(pos(names::i)), names::slot2(pos(names::i) + 1_c))),
    values(pos(names::j)));
using hash_trie = format_of<decltype(hash_trie_mapping)>;

/// A dictionary of keys (STOREL's `CREATE HASHMAP H(M,N)`, `sum(<<i,j>,v> in H) {(i,j) -> v}`;
/// SciPy's DOK): one flat hash map from the pair (i, j), stored as the key `i * N + j`, to the
/// value's position. Located in O(1) at (i, j); iterated row by row, in column order, after one
/// sort of the whole map on first use (never when only located).
inline constexpr auto dok_mapping = define<"dok">(
    range(names::i, 0_c, extent), hashed(names::j, names::entries.pairs()), values(pos(names::j)));
using dok = format_of<decltype(dok_mapping)>;

}  // namespace loom::mapping

#endif  // LOOM_FORMAT_MAPPING_LIBRARY_HPP
