#pragma once
// Runs the Catch2 test cases linked into this executable with its command line, as
// Catch::Session().run() does; for a main() of our own (the GPU suites skip without a
// device). Defined beside Catch2's implementation in catch_impl.cpp, so that the suites'
// own files include <catch2/catch.hpp> for the macros alone.
namespace embed::test {

int run_catch_session(int argc, char** argv);

}  // namespace embed::test
