// Defines the parallel run loops: a kernel's outermost loop split into chunks of its index
// range, each chunk driving its own copy of the stream tree into a slice of a dense output,
// into per-thread or per-chunk partial results (reductions over the outer index), or into its
// own entry list (sparse outputs, concatenated in order) (parallel/).
// SPDX-License-Identifier: BSL-1.0
//
//  case table, by the root stream (depth 0) and the output:
//  | root at depth 0 | dense output                          | sparse output                  |
//  |-----------------|---------------------------------------|--------------------------------|
//  | free index      | chunks write disjoint output elements | outer index = output level 0:  |
//  |                 | (bit-identical to serial)             | entries per chunk, concatenated|
//  |                 |                                       | in chunk order (= serial)      |
//  | summed index    | partials per thread (or per chunk in  | serial                         |
//  |                 | deterministic mode) folded in order   |                                |
#ifndef LOOM_PARALLEL_RUN_HPP
#define LOOM_PARALLEL_RUN_HPP

#include <loom/core/config.hpp>
#include <loom/core/semiring.hpp>
#include <loom/expr/access.hpp>
#include <loom/format/assembly/append_arrays.hpp>
#include <loom/format/assembly/appender.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/parallel/partition.hpp>
#include <loom/parallel/settings.hpp>
#include <loom/parallel/thread_pool.hpp>
#include <loom/stream/combinators.hpp>
#include <loom/stream/level_streams.hpp>
#include <loom/stream/run.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom::parallel {

namespace detail {

template <class S> struct is_contract : std::false_type {};
template <class S> struct is_contract<stream::contract_stream<S>> : std::true_type {};
template <class S> struct is_union : std::false_type {};
template <class A, class B, class Op>
struct is_union<stream::union_stream<A, B, Op>> : std::true_type {};
template <class S> struct is_deep_map : std::false_type {};
template <class S, class G> struct is_deep_map<stream::deep_map_stream<S, G>> : std::true_type {};
template <class S> struct is_scaled : std::false_type {};
template <class A, class X, class Op, bool F>
struct is_scaled<stream::scaled_stream<A, X, Op, F>> : std::true_type {};

// Whether a root stream's index() is the outer loop's real index, so that its states can be
// split into index ranges. Every free stream's is; a sum's is when it wraps one (a union of
// sums reports index 0 for every state: not splittable, runs serially).
template <class S> constexpr bool outer_indexed() {
  if constexpr (!stream::is_stream_v<S>)
    return false;
  else if constexpr (!S::contracted)
    return true;
  else if constexpr (is_contract<S>::value)
    return !std::remove_cvref_t<decltype(std::declval<S&>().s)>::contracted;
  else if constexpr (is_deep_map<S>::value)
    return outer_indexed<std::remove_cvref_t<decltype(std::declval<S&>().s)>>();
  else if constexpr (is_scaled<S>::value)
    return outer_indexed<std::remove_cvref_t<decltype(std::declval<S&>().a)>>();
  else
    return false;
}

// Whether the outer loop (depth 0) iterates level 0 of this access.
template <class Tensor, class Order, class A> struct outer_first : std::false_type {};
template <class Tensor, class Order, class U, class... Is>
struct outer_first<Tensor, Order, expr::access<U, Is...>>
    : std::bool_constant<stream::access_layout<Tensor, Order, Is...>::depth_of_level[0] == 0> {};

// Kernel calls whose outer loop was split so far (tests check that the split paths ran).
inline std::atomic<std::int64_t> split_loops{0};

}  // namespace detail

/// How many kernel calls have split their outer loop since the program started.
inline std::int64_t split_loop_count() {
  return detail::split_loops.load(std::memory_order_relaxed);
}

/// Whether the kernel whose stream tree is `S` may split its outermost loop.
template <class S>
inline constexpr bool splittable_root = [] {
  if constexpr (!stream::is_stream_v<S>)
    return false;
  else
    return S::depth == 0 && detail::outer_indexed<S>();
}();

/// Moves a root stream to its first state that may hold an outer index >= lo: a sum forwards
/// to the stream it sums (its own seek stays in place, the index being "*").
template <class S> void seek_outer(S& s, std::int64_t lo) {
  if constexpr (detail::is_contract<S>::value || detail::is_deep_map<S>::value) {
    seek_outer(s.s, lo);
  } else if constexpr (detail::is_scaled<S>::value) {
    seek_outer(s.a, lo);
  } else if constexpr (detail::is_union<S>::value) {
    if (s.a.valid()) seek_outer(s.a, lo);
    if (s.b.valid()) seek_outer(s.b, lo);
    s = S(s.a, s.b, s.op, s.ctx);  // re-reads both children
  } else {
    s.seek(lo);
  }
}

/// Runs the ready states of `root` whose outer index lies in [lo, hi): `emit(index, value)`.
template <class S, class Emit>
LOOM_FORCE_INLINE void for_outer_range(const S& root, std::int64_t lo, std::int64_t hi,
                                       Emit&& emit) {
  S st = root;
  seek_outer(st, lo);
  while (st.valid()) {
    const std::int64_t row = st.index();
    if (row >= hi) break;
    if (row >= lo && st.ready()) emit(row, st.value());
    st.next();
  }
}

/// The decision for one kernel call: whether and how its outer loop is split.
struct outer_split {
  bool active = false;
  unsigned threads = 1;
  bool deterministic = false;
  partition parts;
};

/// The most chunks a loop is split into. The count depends on the data and the options only
/// (never on the thread count), so deterministic mode is thread-count independent.
inline constexpr std::size_t max_chunks = 256;

namespace detail {
/// The chunks of a loop of `extent` iterations and `work` estimated steps (0 or 1: no split);
/// deterministic reductions keep their partials (`partial_bytes` each) within 64 MiB.
LOOM_DECL std::size_t chunk_count(const parallel_options& o, bool deterministic,
                                  std::int64_t extent, std::int64_t work,
                                  std::size_t partial_bytes);

// The stored entries of an operand (none for an absent one): one function per tensor type.
template <class Tensor> std::int64_t stored_entries(const Tensor* t) {
  return t == nullptr ? 0 : static_cast<std::int64_t>(t->nnz());
}
// Whether operand `A`, read as `Tensor` under loop order `Order`, may balance the chunks by its
// entries: a sparse operand whose first level is the outer loop's.
template <class Order, class A, class Tensor> constexpr bool may_lead() {
  if constexpr (Tensor::order > 0 && !Tensor::format_type::all_dense)
    return outer_first<Tensor, Order, A>::value;
  else
    return false;
}
template <class Order, class Accesses, class Pointers, std::size_t... K>
void count_entries(const Pointers& pointers, std::int64_t& work, std::int64_t& lead_nnz,
                   std::size_t& lead, std::index_sequence<K...>) {
  const bool present[] = {(std::get<K>(pointers) != nullptr)...};
  const std::int64_t nnz[] = {stored_entries(std::get<K>(pointers))...};
  constexpr bool leads[] = {may_lead<Order, boost::mp11::mp_at_c<Accesses, K>,
                                     std::remove_cvref_t<decltype(*std::get<K>(pointers))>>()...};
  for (std::size_t op = 0; op < sizeof...(K); ++op) {
    work += nnz[op];
    if (leads[op] && present[op] && nnz[op] > lead_nnz) lead_nnz = nnz[op], lead = op;
  }
}
}  // namespace detail

/// Decides the split of a kernel's outer loop (extent `extent`): `Order` is the loop order,
/// `Accesses` the plan's accesses and `pointers` the tensors the kernel reads (one per access).
/// `reduction`: the outer index is summed (partials needed); `partial_size` is then the size of
/// one partial result, which bounds the chunk count in deterministic mode (64 MiB of partials).
/// Folds over the operands, no lambda per operand (compile time).
template <class Order, class Accesses, class Pointers, class T>
outer_split decide_split(const Pointers& pointers, std::int64_t extent, bool reduction,
                         std::size_t partial_size) {
  outer_split d;
  const parallel_options o = current_parallel_options();
  d.deterministic = o.deterministic && reduction;
  d.threads = static_cast<unsigned>(std::max(1, o.threads));
  if (extent < 2 || (d.threads == 1 && !d.deterministic)) return d;
  // the work estimate, and the operand whose stored entries balance the chunks
  constexpr std::size_t n = std::tuple_size_v<Pointers>;
  std::int64_t work = extent, lead_nnz = -1;
  std::size_t lead = static_cast<std::size_t>(-1);
  if constexpr (n > 0)
    detail::count_entries<Order, Accesses>(pointers, work, lead_nnz, lead,
                                           std::make_index_sequence<n>{});
  // a summed outer loop writes partial outputs, zeroed then added: not worth it where two of
  // them hold more cells than the loops do steps (SpMM through the transpose, C(i,k) = sum(j,
  // S(j,i) * B(j,k)), whose partials are each the whole dense output). Two whatever the thread
  // count, so that deterministic mode splits (or not) the same way for every thread count.
  if (reduction && 2.0 * static_cast<double>(partial_size) > static_cast<double>(work)) return d;
  const std::size_t chunks =
      detail::chunk_count(o, d.deterministic, extent, work, sizeof(T) * partial_size);
  if (chunks < 2) return d;
  d.parts = split_evenly(extent, chunks);
  if (lead != static_cast<std::size_t>(-1))
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (..., (K == lead ? void(d.parts = split_by_entries(*std::get<K>(pointers), extent, chunks))
                       : void()));
    }(std::make_index_sequence<n>{});
  d.active = d.parts.chunks() >= 2;
  if (d.active) detail::split_loops.fetch_add(1, std::memory_order_relaxed);
  return d;
}

/// Sets the first `n` values to `v` on the split's threads.
template <class T> void fill(T* vals, std::size_t n, const T& v, unsigned threads) {
  constexpr std::size_t block = std::size_t{1} << 16;
  if (threads <= 1 || n < 2 * block) {
    std::fill(vals, vals + n, v);
    return;
  }
  const std::size_t blocks = (n + block - 1) / block;
  parallel_for(blocks, threads, [&](std::size_t b, unsigned) {
    std::fill(vals + b * block, vals + std::min(n, (b + 1) * block), v);
  });
}

/// The dense-output loop, split: `vals` (size `size`) is added to as by stream::run_dense.
/// A free outer index: each chunk adds into its own output elements. A summed outer index: each
/// thread (deterministic: each chunk) adds into a zeroed partial, then the partials are added
/// to `vals` element by element in thread (chunk) order.
template <class T, class S>
void run_dense(T* vals, std::size_t size, const std::int64_t* strides, const S& root,
               const outer_split& d) {
  const partition& p = d.parts;
  if constexpr (!S::contracted) {
    parallel_for(p.chunks(), d.threads, [&](std::size_t c, unsigned) {
      for_outer_range(root, p.lo(c), p.hi(c), [&](std::int64_t row, const auto& v) {
        stream::run_dense(vals, strides, v, row * strides[S::depth]);
      });
    });
  } else {
    const std::size_t partials =
        d.deterministic ? p.chunks() : std::min<std::size_t>(d.threads, p.chunks());
    std::vector<std::unique_ptr<T[]>> part(partials);
    parallel_for(p.chunks(), d.threads, [&](std::size_t c, unsigned slot) {
      const std::size_t part_k = d.deterministic ? c : slot;
      if (!part[part_k]) {  // allocated and zeroed by the thread that fills it
        part[part_k] = std::make_unique<T[]>(size);
        std::fill(part[part_k].get(), part[part_k].get() + size, semiring_traits<T>::zero());
      }
      T* buf = part[part_k].get();
      for_outer_range(root, p.lo(c), p.hi(c),
                      [&](std::int64_t, const auto& v) { stream::run_dense(buf, strides, v, 0); });
    });
    constexpr std::size_t block = std::size_t{1} << 14;
    const std::size_t blocks = (size + block - 1) / block;
    parallel_for(blocks, d.threads, [&](std::size_t b, unsigned) {
      const std::size_t end = std::min(size, (b + 1) * block);
      for (std::size_t p_k = 0; p_k < partials; ++p_k) {
        if (!part[p_k]) continue;
        const T* buf = part[p_k].get();
        for (std::size_t e = b * block; e < end; ++e)
          vals[e] = semiring_traits<T>::add(vals[e], buf[e]);
      }
    });
  }
}

/// Where a chunk's sink puts its entries: that chunk's list (a sink serving several chunks of
/// one thread is pointed at each chunk's list in turn).
template <class T, std::size_t N> struct chunk_target {
  stream::entry_list<T, N>* list = nullptr;
  LOOM_FORCE_INLINE void push(const std::array<std::int64_t, N>& c, const T& v) {
    list->push(c, v);
  }
};

/// The sparse-output loop, split (the outer index is the output's first level): every chunk
/// collects its entries, in order, through its thread's sink (`make_sink(target)` builds and
/// configures one); the lists are then pushed into `entries` in chunk order, which is the order
/// the serial loop emits them in.
template <class T, std::size_t N, class Entries, class S, class MakeSink>
void run_sparse(Entries& entries, const S& root, const outer_split& d, const MakeSink& make_sink) {
  const partition& p = d.parts;
  using target = chunk_target<T, N>;
  using sink_type = std::remove_cvref_t<decltype(*make_sink(std::declval<target&>()))>;
  std::vector<stream::entry_list<T, N>> lists(p.chunks());
  const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(d.threads, p.chunks()));
  std::vector<target> targets(threads);
  std::vector<std::unique_ptr<sink_type>> sinks(threads);
  parallel_for(p.chunks(), threads, [&](std::size_t c, unsigned slot) {
    if (!sinks[slot]) sinks[slot] = make_sink(targets[slot]);
    targets[slot].list = &lists[c];
    sink_type& sink = *sinks[slot];
    for_outer_range(root, p.lo(c), p.hi(c), [&](std::int64_t row, const auto& v) {
      sink.at_depth[S::depth] = row;
      do stream::run_sparse(sink, v);
      while (sink.end_of(S::depth));
    });
    sink.finish();
  });
  for (auto& l : lists) {
    for (std::size_t e = 0; e < l.vals.size(); ++e) entries.push(l.crd[e], l.vals[e]);
    l = {};
  }
}

/// Whether a sparse output format is CSR-like (a dense level over a unique compressed level, in
/// mode order, by their declared layouts, or over a level appended as one and then adapted):
/// its chunks are then assembled straight into the final arrays, in parallel.
template <class Format> inline constexpr bool rows_format = false;
template <class Outer, class Inner>
inline constexpr bool rows_format<format_spec<boost::mp11::mp_list<Outer, Inner>, 0, 1>> =
    loom::detail::is_dense_level<Outer> &&
    (loom::detail::is_unique_compressed_level<Inner> ||
     (layout_of<Inner> == level_layout::appended && Inner::properties.unique));

/// A chunk's part of a CSR-like output: the entries of its rows [lo, hi) and the count per row.
template <class T, class Crd> struct row_target {
  static constexpr bool by_rows = true;  // a workspace stores a row whole (append_row)
  std::int64_t lo = 0;
  std::vector<std::int64_t> counts;
  std::vector<Crd> crd;
  std::vector<T> vals;
  LOOM_FORCE_INLINE void push(const std::array<std::int64_t, 2>& c, const T& v) {
    ++counts[static_cast<std::size_t>(c[0] - lo)];
    crd.push_back(static_cast<Crd>(c[1]));
    vals.push_back(v);
  }
  /// Row `row`'s `n` entries, columns ascending (`entry(e)`: column and value), as the serial
  /// appender's `append_row`: the count added once, then plain stores.
  template <class Entry>
  LOOM_FORCE_INLINE void append_row(std::int64_t row, std::size_t n, Entry&& entry) {
    counts[static_cast<std::size_t>(row - lo)] += static_cast<std::int64_t>(n);
    const std::size_t at = crd.size();
    crd.resize(at + n);
    vals.resize(at + n);
    loom::detail::store_row(crd.data() + at, vals.data() + at, n, entry);
  }
  // an in-order chunk appends as the serial appender does (format/assembly/appender.hpp): the writer
  // is taken when the chunk starts (stream::append_sink::restart) and returned at its end
  using writer = loom::detail::row_writer<T, std::int64_t, Crd, true>;
  writer take_writer() {
    const auto n = static_cast<std::int64_t>(crd.size());
    const auto room = static_cast<std::int64_t>(std::min(crd.size(), vals.size()));
    return {counts.data(), lo, crd.data(), vals.data(), n, room, n, &crd, &vals};
  }
  void return_writer(const writer& w) {
    crd.resize(static_cast<std::size_t>(std::min(w.written, w.room)));
    vals.resize(crd.size());
  }
};

/// The sparse-output loop, split, for a CSR-like output: each chunk collects its rows through
/// its thread's sink; then every chunk copies its entries to their final place (offsets from the
/// chunk sizes) and writes the `pos` entries of its rows. Same arrays as the serial appender.
template <class T, class Format, class S, class MakeSink>
basic_tensor<T, Format, true> run_sparse_rows(const std::array<std::int64_t, 2>& shape,
                                              const S& root, const outer_split& d,
                                              const MakeSink& make_sink,
                                              basic_tensor<T, Format, true>* recycled = nullptr) {
  using level1 = boost::mp11::mp_at_c<typename Format::levels, 1>;
  using Pos = typename level1::pos_type;
  using Crd = typename level1::crd_type;
  using target = row_target<T, Crd>;
  using sink_type = std::remove_cvref_t<decltype(*make_sink(std::declval<target&>()))>;
  const partition& p = d.parts;
  const std::size_t chunks = p.chunks();
  if (shape[1] > 0) loom::detail::check_fits<Crd>(shape[1] - 1, "largest coordinate of mode 1");
  std::vector<target> parts(chunks);
  const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(d.threads, chunks));
  std::vector<std::unique_ptr<target>> proxies(threads);  // what each thread's sink pushes to
  std::vector<std::unique_ptr<sink_type>> sinks(threads);
  // the sink holds a reference to its thread's proxy; the proxy is swapped with the chunk's part
  parallel_for(chunks, threads, [&](std::size_t c, unsigned slot) {
    if (!sinks[slot]) {
      proxies[slot] = std::make_unique<target>();
      sinks[slot] = make_sink(*proxies[slot]);
    }
    target& t = *proxies[slot];
    t.lo = p.lo(c);
    t.counts.assign(static_cast<std::size_t>(p.hi(c) - p.lo(c)), 0);
    t.crd.clear();
    t.vals.clear();
    sink_type& sink = *sinks[slot];
    sink.restart();  // the chunk's rows, into t's arrays as they are now
    for_outer_range(root, p.lo(c), p.hi(c), [&](std::int64_t row, const auto& v) {
      sink.at_depth[S::depth] = row;
      do stream::run_sparse(sink, v);
      while (sink.end_of(S::depth));
    });
    sink.finish();
    parts[c].lo = t.lo;
    parts[c].counts = std::move(t.counts);
    parts[c].crd = std::move(t.crd);
    parts[c].vals = std::move(t.vals);
    t.counts = {};
    t.crd = {};
    t.vals = {};
  });
  std::vector<std::int64_t> offset(chunks + 1, 0);
  for (std::size_t c = 0; c < chunks; ++c)
    offset[c + 1] = offset[c] + static_cast<std::int64_t>(parts[c].vals.size());
  loom::detail::check_fits<Pos>(offset[chunks], "number of positions");
  typename basic_tensor<T, Format, true>::level_storages levels{};
  std::vector<T> values;
  if (recycled != nullptr) {  // the output's own arrays, capacity kept: no fresh pages to fault
    std::tie(levels, values) = loom::detail::appender<T, Format>::take_arrays(*recycled);
  }
  std::get<0>(levels).extent = shape[0];
  auto& l1 = std::get<1>(levels);
  l1.pos.resize(static_cast<std::size_t>(shape[0]) + 1);
  l1.crd.resize(static_cast<std::size_t>(offset[chunks]));
  values.resize(static_cast<std::size_t>(offset[chunks]));
  l1.pos[0] = 0;
  parallel_for(chunks, threads, [&](std::size_t c, unsigned) {
    target& t = parts[c];
    std::copy(t.crd.begin(), t.crd.end(), l1.crd.begin() + offset[c]);
    std::copy(t.vals.begin(), t.vals.end(), values.begin() + offset[c]);
    std::int64_t at = offset[c];
    for (std::size_t r = 0; r < t.counts.size(); ++r) {
      at += t.counts[r];
      l1.pos[static_cast<std::size_t>(t.lo) + r + 1] = static_cast<Pos>(at);
    }
    t = {};
  });
  if constexpr (layout_of<level1> == level_layout::appended)  // laid out its own way
    level1::adapt(l1, values, shape[1], semiring_traits<T>::zero());
  return basic_tensor<T, Format, true>(shape, std::move(levels), std::move(values));
}

#if LOOM_HEADER_ONLY
namespace detail {
LOOM_DEF std::size_t chunk_count(const parallel_options& o, bool deterministic, std::int64_t extent,
                                 std::int64_t work, std::size_t partial_bytes) {
  if (work < o.min_work) return 0;
  std::size_t chunks = static_cast<std::size_t>(
      std::clamp<std::int64_t>(work / o.chunk_work, 2, static_cast<std::int64_t>(max_chunks)));
  chunks = std::min<std::size_t>(chunks, static_cast<std::size_t>(extent));
  if (deterministic && partial_bytes > 0)
    chunks = std::min(chunks, std::max<std::size_t>((std::size_t{64} << 20) / partial_bytes, 1));
  return chunks;
}
}  // namespace detail
#endif  // LOOM_HEADER_ONLY
}  // namespace loom::parallel

#endif  // LOOM_PARALLEL_RUN_HPP
