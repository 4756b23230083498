// core/unpack.hpp: loom::detail::unpack calls like std::apply, with the tuple's value category
// and constness passed on to each element and the callable's result returned as it is.
// SPDX-License-Identifier: BSL-1.0
#include <loom/core/unpack.hpp>

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <tuple>
#include <type_traits>

using loom::detail::unpack;

static_assert(unpack([](int a, int b) { return a * 10 + b; }, std::tuple{4, 2}) == 42);
static_assert(unpack([] { return 7; }, std::tuple<>{}) == 7);

TEST_CASE("unpack passes each element as the tuple holds it and returns what f returns") {
  std::tuple<int, std::string> t{1, "one"};
  // an lvalue tuple: references to its elements, so f may change them
  unpack([](int& n, std::string& s) { n += 1, s += "+"; }, t);
  CHECK(std::get<0>(t) == 2);
  CHECK(std::get<1>(t) == "one+");
  // a reference returned is the element itself
  int& first = unpack([](int& n, std::string&) -> int& { return n; }, t);
  CHECK(&first == &std::get<0>(t));
  // a const tuple: const references
  const auto& ct = t;
  unpack([](const auto& n,
            const auto&) { static_assert(std::is_const_v<std::remove_reference_t<decltype(n)>>); },
         ct);
  // an rvalue tuple: its elements are moved from
  auto moved = unpack([](std::unique_ptr<int> p) { return *p; },
                      std::tuple<std::unique_ptr<int>>{std::make_unique<int>(5)});
  CHECK(moved == 5);
  // a stateful callable keeps its state: unpack takes it by reference
  int calls = 0;
  auto count = [&calls](auto&&...) mutable { ++calls; };
  unpack(count, std::tuple{1, 2, 3});
  unpack(count, std::tuple{});
  CHECK(calls == 2);
}
