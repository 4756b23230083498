// Law checks for the indexed_stream concept (the indexed-streams paper P5–P8, T13): monotone,
// lawful (a skip never loses a value it must keep), strict where claimed, terminating.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_SUPPORT_LAWS_INDEXED_STREAM_HPP
#define LOOM_TESTS_SUPPORT_LAWS_INDEXED_STREAM_HPP

#include <loom/stream.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace loom::test {

using path = std::vector<std::int64_t>;  // one index per level; -1 for a contracted level

/// The finitely supported function a stream denotes (Def. 5.11): path -> summed value.
template <class S>
void denote(const S& s0, path prefix, std::map<path, double>& out, int budget = 100000) {
  if constexpr (!stream::is_stream_v<S>) {
    out[prefix] += static_cast<double>(s0);
  } else {
    S s = s0;
    while (s.valid()) {
      REQUIRE(budget-- > 0);  // termination
      if (s.ready()) {
        path p = prefix;
        p.push_back(S::contracted ? -1 : s.index());
        denote(s.value(), p, out);
      }
      s.next();
    }
  }
}

template <class S> std::map<path, double> denote(const S& s) {
  std::map<path, double> out;
  denote(s, {}, out);
  for (auto it = out.begin(); it != out.end();)
    it = it->second == 0 ? out.erase(it) : std::next(it);
  return out;
}

template <class S> std::int64_t index_or_top(const S& s) {
  if (!s.valid()) return std::numeric_limits<std::int64_t>::max();
  return S::contracted ? 0 : s.index();
}

/// A stream that drives its own loop (`for_each_ready`) visits exactly the ready states that
/// stepping it through valid, ready and next visits, with the same values.
template <class S> void check_drives_like_steps(const S& s0) {
  if constexpr (stream::drives_itself_v<S>) {
    using visit = std::pair<std::int64_t, std::map<path, double>>;
    std::vector<visit> inside, outside;
    s0.for_each_ready([&](std::int64_t i, const auto& v) {
      std::map<path, double> d;
      denote(v, {}, d);
      inside.emplace_back(S::contracted ? 0 : i, d);
    });
    for (S s = s0; s.valid(); s.next()) {
      if (!s.ready()) continue;
      std::map<path, double> d;
      denote(s.value(), {}, d);
      outside.emplace_back(S::contracted ? 0 : s.index(), d);
    }
    CHECK(inside == outside);
  }
}

/// Checks P5 (monotone), P7 (lawful), strictness (when S::strict) and termination on every
/// reachable state of `s` and every target in [lo, hi] x {seek, seek_past}.
template <class S> int check_stream_laws(const S& s0, std::int64_t lo, std::int64_t hi) {
  int checks = 0;
  S q = s0;
  std::int64_t last_ready = std::numeric_limits<std::int64_t>::min();
  int steps = 0;
  while (true) {
    const auto before = denote(q);
    for (std::int64_t i = lo; i <= hi; ++i) {
      for (int strict = 0; strict < 2; ++strict) {
        S moved = q;
        if (moved.valid()) {
          if (strict)
            moved.seek_past(i);
          else
            moved.seek(i);
        }
        CAPTURE(i);
        CAPTURE(strict);
        CHECK(index_or_top(moved) >= index_or_top(q));  // P5
        const auto after = denote(moved);
        for (const auto& [p, v] : before) {
          if (S::contracted) break;
          const bool kept = strict ? p[0] > i : p[0] >= i;
          if (!kept) continue;
          auto it = after.find(p);
          CHECK((it != after.end() && it->second == v));  // P7: nothing at or past i is lost
        }
        if constexpr (S::contracted) {
          if (!strict) CHECK(after == before);  // a non-strict skip of Σ keeps every value
        } else {
          for (const auto& [p, v] : after) {
            auto it = before.find(p);
            CHECK((it != before.end() && it->second == v));  // a skip invents nothing
          }
        }
        ++checks;
      }
    }
    check_drives_like_steps(q);
    if (!q.valid()) break;
    if (q.ready() && S::strict && !S::contracted) {
      CHECK(q.index() > last_ready);  // strict: ready indices increase
      last_ready = q.index();
    }
    q.next();
    REQUIRE(++steps < 100000);
  }
  return checks;
}

}  // namespace loom::test

#endif  // LOOM_TESTS_SUPPORT_LAWS_INDEXED_STREAM_HPP
