// Catch2's implementation, compiled once per build into the catch_impl library that every
// Catch2 executable links (unit_tests and the GPU suites). It is the slowest file of the
// build to compile (about 15 s at -O3); before, each suite compiled it again.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "catch_session.h"

namespace embed::test {

int run_catch_session(int argc, char** argv) { return Catch::Session().run(argc, argv); }

}  // namespace embed::test
