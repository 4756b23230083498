// Defines the storage of a Gustavson workspace: loom::workspace_kind and scoped_workspace (the
// kind the optimizer chooses, or a test forces), the sorts of a row's keys, the layout of the
// keys, and the arrays each thread keeps between kernels (format/assembly/). The sink that writes through
// them is format/assembly/workspace.hpp.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_ASSEMBLY_WORKSPACE_STORAGE_HPP
#define LOOM_FORMAT_ASSEMBLY_WORKSPACE_STORAGE_HPP

#include <loom/core/algorithms.hpp>
#include <loom/core/config.hpp>
#include <loom/core/semiring.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace loom {

// In loom::enums: its enumerators, in loom itself, would shadow the levels loom::dense and
// loom::hashed (GCC 12 -Wshadow).
namespace enums {
/// How a workspace row holds the entries that arrive out of order before they are appended in
/// order: `dense`, an array over the row's cells with a byte per cell and a list
/// of the touched cells (Galley's bytemap); `hashed`, an open-addressing table sized to the
/// row's estimated entries; `sorted`, every write appended to a list, sorted and merged when
/// the row ends.
enum class workspace_kind : std::uint8_t { dense, hashed, sorted };
}  // namespace enums
using enums::workspace_kind;

inline constexpr std::array<workspace_kind, 3> workspace_kinds{
    workspace_kind::dense, workspace_kind::hashed, workspace_kind::sorted};

constexpr std::string_view workspace_kind_name(workspace_kind k) {
  switch (k) {
    case workspace_kind::dense:
      return "dense";
    case workspace_kind::hashed:
      return "hashed";
    case workspace_kind::sorted:
      return "sorted";
  }
  return "?";
}

namespace detail {
inline thread_local std::optional<workspace_kind> forced_workspace{};
}  // namespace detail

/// Forces the workspace kind of every kernel run on this thread while it lives (tests,
/// benchmarks); the optimizer's choice otherwise. Nests; restores the previous setting. A dense
/// row space past 2^26 cells is never allocated: forced `dense` then runs `hashed`.
class scoped_workspace {
 public:
  explicit scoped_workspace(workspace_kind k) : previous_(detail::forced_workspace) {
    detail::forced_workspace = k;
  }
  ~scoped_workspace() { detail::forced_workspace = previous_; }
  scoped_workspace(const scoped_workspace&) = delete;
  scoped_workspace& operator=(const scoped_workspace&) = delete;

 private:
  std::optional<workspace_kind> previous_;
};

}  // namespace loom

namespace loom::stream {

/// The cells a dense workspace may allocate; a larger row space is held in a hash table.
inline constexpr std::int64_t max_dense_workspace_cells = std::int64_t{1} << 26;
static_assert(max_dense_workspace_cells <= (std::int64_t{1} << 32),
              "dense workspace cells are kept as 32-bit keys");

namespace detail {
/// The rows a radix sort is used for, and its digit in the optimizer's estimate: below this, a
/// comparison sort is faster.
inline constexpr std::size_t radix_sort_min = 512;
inline constexpr int radix_bits = 11;

/// Passes of an LSD radix sort with 11-bit digits over keys in [0, bound) (the cost model's).
constexpr int radix_passes(std::int64_t bound) {
  const int bits =
      bound <= 1 ? 1 : static_cast<int>(std::bit_width(static_cast<std::uint64_t>(bound - 1)));
  return (bits + radix_bits - 1) / radix_bits;
}

/// Sorts `v` stably by bits [lo, hi) of `key(x)` (the lower bits are left in their order): an
/// LSD radix sort for long inputs, with digits of up to 16 bits sized to the input (digits every
/// key shares are skipped), a comparison sort for short ones or keys too wide for four passes.
/// `Unique`: no two keys are equal, so with lo = 0 the comparison sort need not be stable (and
/// allocates nothing).
template <bool Unique = false, class X, class Key>
void sort_bits(std::vector<X>& v, std::vector<X>& scratch, std::vector<std::size_t>& count, int lo,
               int hi, Key key) {
  if (hi <= lo) return;
  auto digits_of = [&](const X& x) { return static_cast<std::uint64_t>(key(x)) >> lo; };
  const int bits = hi - lo;
  const int width = std::clamp(static_cast<int>(std::bit_width(v.size())) - 3, 8, 16);
  const int passes = (bits + width - 1) / width;
  if (v.size() < radix_sort_min || passes > 4) {
    const auto less = [&](const X& a, const X& b) { return digits_of(a) < digits_of(b); };
    if (Unique && lo == 0)
      std::sort(v.begin(), v.end(), less);
    else
      std::stable_sort(v.begin(), v.end(), less);
    return;
  }
  const int digit = (bits + passes - 1) / passes;
  const std::uint64_t mask = (std::uint64_t{1} << digit) - 1;
  scratch.resize(v.size());
  count.resize(std::size_t{1} << digit);
  for (int pass = 0, shift = 0; pass < passes; ++pass, shift += digit) {
    std::fill(count.begin(), count.end(), std::size_t{0});
    for (const X& x : v) ++count[(digits_of(x) >> shift) & mask];
    if (std::find(count.begin(), count.end(), v.size()) != count.end()) continue;  // one digit
    std::size_t at = 0;
    for (std::size_t& c : count) at += std::exchange(c, at);
    for (const X& x : v) scratch[count[(digits_of(x) >> shift) & mask]++] = x;
    v.swap(scratch);
  }
}

/// The sort keys of a workspace's rows: named types, not lambdas, so that every sink with the
/// same value type shares one instantiation of the sorts.
struct key_identity {
  constexpr std::int64_t operator()(std::int64_t x) const { return x; }
};
struct key_first {
  template <class Pair> constexpr std::int64_t operator()(const Pair& x) const { return x.first; }
};

/// The hashed workspace's slot for a key, before masking (Fibonacci hashing, high bits folded).
LOOM_FORCE_INLINE std::uint64_t workspace_hash(std::int64_t key) {
  const std::uint64_t h = static_cast<std::uint64_t>(key) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

/// The layout of a workspace's keys (see `plan_workspace_keys`).
struct workspace_keys {
  std::int64_t space = 0;  // cells of a row: dense keys are below it
  int key_bits = 0;        // bits of a packed key
  bool packed = false;     // the row's levels packed into bit fields (else mixed-radix)
  int sorted_bits = 0;     // low bits already in order as the entries arrive
};

/// Lays out the keys of a workspace over output levels [prefix, n) (`level_extent`,
/// `depth_of_level` by level): the row space, each level's bit field (`shift`, `field`), whether
/// the fields fit 62 bits, and the low bits the loops already deliver in order. A dense `kind`
/// whose row space is too large becomes hashed. Not a template: compiled once.
LOOM_DECL workspace_keys plan_workspace_keys(std::size_t n, std::size_t prefix,
                                             const std::int64_t* level_extent,
                                             const std::size_t* depth_of_level,
                                             workspace_kind& kind, int* shift, std::int64_t* field);

/// Sorts a dense workspace row's distinct cells, fewer than `radix_sort_min`. They arrive as
/// ascending runs, one per fiber summed into the row (SpGEMM's rows of B), so the runs are found
/// (a compare per cell) and merged pairwise, branch-free: 0.5-0.65x std::sort's time on rows of
/// 5-20 runs of 5-20 cells, 0.22x on 2 runs of 100. Rows of short runs (under 4 cells on
/// average) have no order to use: insertion sort up to 32 cells, else std::sort.
LOOM_DECL void sort_workspace_cells(std::vector<std::uint32_t>& cells,
                                    std::vector<std::uint32_t>& scratch);

// The sorts of double-valued workspaces (a dense row's distinct 32-bit cells; 64-bit keys with
// values): under separate compilation, compiled once in loom::runtime (docs/build-cost.md).
using workspace_cells = std::vector<std::uint32_t>;
using workspace_pairs = std::vector<std::pair<std::int64_t, double>>;
#if !LOOM_HEADER_ONLY
extern template void sort_bits<true>(workspace_cells&, workspace_cells&, std::vector<std::size_t>&,
                                     int, int, key_identity);
extern template void sort_bits<true>(workspace_pairs&, workspace_pairs&, std::vector<std::size_t>&,
                                     int, int, key_first);
extern template void sort_bits<false>(workspace_pairs&, workspace_pairs&, std::vector<std::size_t>&,
                                      int, int, key_first);
#elif defined(LOOM_BUILDING_RUNTIME)
template void sort_bits<true>(workspace_cells&, workspace_cells&, std::vector<std::size_t>&, int,
                              int, key_identity);
template void sort_bits<true>(workspace_pairs&, workspace_pairs&, std::vector<std::size_t>&, int,
                              int, key_first);
template void sort_bits<false>(workspace_pairs&, workspace_pairs&, std::vector<std::size_t>&, int,
                               int, key_first);
#endif

#if LOOM_HEADER_ONLY
namespace cells {
inline void insertion_sort(std::uint32_t* first, std::uint32_t* last) {
  for (std::uint32_t* i = first + 1; i < last; ++i) {
    const std::uint32_t x = *i;
    std::uint32_t* j = i;
    for (; j > first && x < j[-1]; --j) *j = j[-1];
    *j = x;
  }
}
// [a, am) and [am, bm) of src, merged into dst from a: a compare and conditional moves per cell
inline void merge_runs(const std::uint32_t* src, std::uint32_t* dst, std::size_t a, std::size_t am,
                       std::size_t bm) {
  std::size_t b = am, o = a;
  while (a < am && b < bm) {
    const std::uint32_t x = src[a], y = src[b];
    const bool right = y < x;
    dst[o++] = right ? y : x;
    a += !right;
    b += right;
  }
  while (a < am) dst[o++] = src[a++];
  while (b < bm) dst[o++] = src[b++];
}
}  // namespace cells

LOOM_DEF workspace_keys plan_workspace_keys(std::size_t n, std::size_t prefix,
                                            const std::int64_t* level_extent,
                                            const std::size_t* depth_of_level, workspace_kind& kind,
                                            int* shift, std::int64_t* field) {
  workspace_keys keys;
  std::int64_t space = 1;
  for (std::size_t k = prefix; k < n; ++k) {
    if (level_extent[k] != 0 && space > (std::int64_t{1} << 40) / level_extent[k]) space = -1;
    if (space >= 0) space *= level_extent[k];
  }
  if (kind == workspace_kind::dense && (space < 0 || space > max_dense_workspace_cells))
    kind = workspace_kind::hashed;
  keys.space = space < 0 ? std::numeric_limits<std::int64_t>::max() : space;
  for (std::size_t k = n; k-- > prefix;) {
    const int bits =
        level_extent[k] <= 1
            ? 0
            : static_cast<int>(std::bit_width(static_cast<std::uint64_t>(level_extent[k] - 1)));
    shift[k] = keys.key_bits;
    field[k] = (std::int64_t{1} << bits) - 1;
    keys.key_bits += bits;
  }
  keys.packed = kind != workspace_kind::dense && keys.key_bits <= 62;
  // The loops visit the row's depths in order, each ascending, so the entries of a row arrive
  // sorted by the levels at the depths right below the row's (the transpose's i): a stable
  // sort of the key's other bits is enough.
  if (keys.packed) {
    const std::int64_t first =
        prefix == 0 ? 0 : static_cast<std::int64_t>(depth_of_level[prefix - 1]) + 1;
    for (std::size_t k = prefix; k < n && keys.sorted_bits == 0; ++k) {
      bool in_order = true;
      for (std::size_t q = k; q < n; ++q)
        in_order = in_order && static_cast<std::int64_t>(depth_of_level[q]) ==
                                   first + static_cast<std::int64_t>(q - k);
      if (in_order)
        keys.sorted_bits =
            shift[k] + static_cast<int>(std::bit_width(static_cast<std::uint64_t>(field[k])));
    }
  }
  return keys;
}

LOOM_DEF void sort_workspace_cells(std::vector<std::uint32_t>& v,
                                   std::vector<std::uint32_t>& scratch) {
  const std::size_t n = v.size();
  if (n <= 16) {  // what std::sort does with so few
    if (n > 1) cells::insertion_sort(v.data(), v.data() + n);
    return;
  }
  if (n >= radix_sort_min) {
    loom::detail::sort_range(v.begin(), v.end());
    return;
  }
  std::array<std::uint32_t, radix_sort_min + 1> bounds;  // where each run starts, then n
  std::size_t runs = 1;
  bounds[0] = 0;
  for (std::size_t i = 1; i < n; ++i) {
    bounds[runs] = static_cast<std::uint32_t>(i);
    runs += v[i] < v[i - 1];
  }
  if (runs == 1) return;
  if (4 * runs > n) {
    if (n <= 32)
      cells::insertion_sort(v.data(), v.data() + n);
    else
      loom::detail::sort_range(v.begin(), v.end());
    return;
  }
  bounds[runs] = static_cast<std::uint32_t>(n);
  if (scratch.size() < n) scratch.resize(n);
  std::uint32_t* src = v.data();
  std::uint32_t* dst = scratch.data();
  while (runs > 1) {
    std::size_t merged = 0;
    for (std::size_t r = 0; r < runs; r += 2) {
      if (r + 1 == runs)
        std::copy(src + bounds[r], src + bounds[r + 1], dst + bounds[r]);
      else
        cells::merge_runs(src, dst, bounds[r], bounds[r + 1], bounds[r + 2]);
      bounds[merged++] = bounds[r];
    }
    bounds[merged] = static_cast<std::uint32_t>(n);
    runs = merged;
    std::swap(src, dst);
  }
  if (src != v.data()) std::copy(src, src + n, v.data());
}
#endif  // LOOM_HEADER_ONLY

/// Sorts `v` stably by `key(x)` in [0, bound).
template <bool Unique = false, class X, class Key>
void sort_by_key(std::vector<X>& v, std::vector<X>& scratch, std::vector<std::size_t>& count,
                 std::int64_t bound, Key key) {
  const int bits =
      bound <= 1 ? 0 : static_cast<int>(std::bit_width(static_cast<std::uint64_t>(bound - 1)));
  sort_bits<Unique>(v, scratch, count, 0, bits, key);
}
}  // namespace detail

/// The arrays of a workspace, kept per thread and value type between kernels: a finished
/// workspace leaves them clean (accumulators zero, slots empty, no entries), so the next one on
/// the thread reuses their pages instead of faulting fresh ones in (a transpose of 96K entries
/// spent a third of its time in page faults). At most `max_spare_workspace_bytes` are kept.
template <class T> struct workspace_buffers {
  std::vector<T> acc{};
  std::vector<unsigned char> seen{};
  std::vector<std::int64_t> touched{};
  std::vector<std::uint32_t> cells{};  // a dense row's touched cells: 32-bit keys sort faster
  std::vector<std::uint32_t> scratch_cells{};
  std::vector<std::int64_t> slot_key{};
  std::vector<T> slot_val{};
  std::vector<std::pair<std::int64_t, T>> pairs{};
  std::vector<std::pair<std::int64_t, T>> scratch_pairs{};
  std::vector<std::int64_t> scratch_keys{};
  std::vector<std::size_t> counts{};

  std::size_t bytes() const {
    return acc.capacity() * sizeof(T) + seen.capacity() + touched.capacity() * 8 +
           (cells.capacity() + scratch_cells.capacity()) * 4 + slot_key.capacity() * 8 +
           slot_val.capacity() * sizeof(T) +
           (pairs.capacity() + scratch_pairs.capacity()) * sizeof(std::pair<std::int64_t, T>) +
           scratch_keys.capacity() * 8 + counts.capacity() * sizeof(std::size_t);
  }
  ~workspace_buffers();
  /// Takes the thread's spare arrays (clean, possibly empty), leaving it this set's.
  void take_spare();
  /// Readies the arrays of a workspace of `kind` over `space` cells, its rows of about
  /// `row_entries` entries: a dense row's accumulators and flags (a larger reused set is zero
  /// too), a hashed row's empty table. Returns the table's mask (0 for the other kinds).
  std::uint64_t prepare(workspace_kind kind, std::int64_t space, std::int64_t row_entries);
  /// Moves the hash table's entries (slot_key, slot_val, touched) into a table of `capacity`
  /// slots, a power of two.
  void resize_table(std::uint64_t capacity);
  /// Hands the arrays to the thread's spare set when they fit `max_spare_workspace_bytes` and
  /// hold more than it does (this set gets the smaller one, to be freed).
  void keep_as_spare();

  void swap(workspace_buffers& o) noexcept {
    acc.swap(o.acc);
    seen.swap(o.seen);
    touched.swap(o.touched);
    cells.swap(o.cells);
    scratch_cells.swap(o.scratch_cells);
    slot_key.swap(o.slot_key);
    slot_val.swap(o.slot_val);
    pairs.swap(o.pairs);
    scratch_pairs.swap(o.scratch_pairs);
    scratch_keys.swap(o.scratch_keys);
    counts.swap(o.counts);
  }
};

inline constexpr std::size_t max_spare_workspace_bytes = std::size_t{64} << 20;

template <class T> workspace_buffers<T>& spare_workspace_buffers() {
  thread_local workspace_buffers<T> spare;
  return spare;
}

// out of line, and for double compiled once in loom::runtime: every workspace kernel destroys
// eleven arrays here (2 KB of code per sink type when inlined)
template <class T> workspace_buffers<T>::~workspace_buffers() = default;
template <class T> void workspace_buffers<T>::take_spare() { swap(spare_workspace_buffers<T>()); }
template <class T>
std::uint64_t workspace_buffers<T>::prepare(workspace_kind kind, std::int64_t space,
                                            std::int64_t row_entries) {
  if (kind == workspace_kind::dense) {
    if (acc.size() < static_cast<std::size_t>(space)) {
      acc.assign(static_cast<std::size_t>(space), semiring_traits<T>::zero());
      seen.assign(static_cast<std::size_t>(space), 0);
    }
  } else if (kind == workspace_kind::hashed) {
    // an overestimate costs a table too large to stay in cache: start at most at 2^16 slots
    const auto want = std::clamp<std::int64_t>(2 * row_entries, 16, std::int64_t{1} << 16);
    const std::uint64_t slots = std::bit_ceil(static_cast<std::uint64_t>(want));
    if (slot_key.size() != slots) resize_table(slots);  // else reused, empty
    return slots - 1;
  }
  return 0;
}
template <class T> void workspace_buffers<T>::resize_table(std::uint64_t capacity) {
  std::vector<std::int64_t> old_key(capacity, 0);
  std::vector<T> old_val(capacity, semiring_traits<T>::zero());
  old_key.swap(slot_key);
  old_val.swap(slot_val);
  const std::uint64_t mask = capacity - 1;
  std::vector<std::int64_t> old_touched;
  old_touched.swap(touched);
  for (std::int64_t s : old_touched) {
    std::uint64_t t = detail::workspace_hash(old_key[s] - 1) & mask;
    while (slot_key[t] != 0) t = (t + 1) & mask;
    slot_key[t] = old_key[s];
    slot_val[t] = old_val[s];
    touched.push_back(static_cast<std::int64_t>(t));
  }
}
template <class T> void workspace_buffers<T>::keep_as_spare() {
  auto& spare = spare_workspace_buffers<T>();
  if (bytes() <= max_spare_workspace_bytes && bytes() >= spare.bytes()) spare.swap(*this);
}
#if !LOOM_HEADER_ONLY
extern template struct workspace_buffers<double>;
#elif defined(LOOM_BUILDING_RUNTIME)
template struct workspace_buffers<double>;
#endif

/// Frees the arrays this thread keeps for the workspaces of value type T (at most
/// `max_spare_workspace_bytes`), e.g. after a burst of large sparse products.
template <class T = double> void release_workspace_buffers() {
  workspace_buffers<T>{}.swap(spare_workspace_buffers<T>());
}

}  // namespace loom::stream

#endif  // LOOM_FORMAT_ASSEMBLY_WORKSPACE_STORAGE_HPP
