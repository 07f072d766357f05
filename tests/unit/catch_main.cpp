// main() of the unit tests: every case, with Catch2's command line.
#include "catch_session.h"

int main(int argc, char** argv) { return embed::test::run_catch_session(argc, argv); }
