// Named pause points, so tests can kill a floe process at a known moment (SIGKILL
// mid-write, mid-commit) instead of racing it. Inert unless FLOE_TEST_PAUSE_AT names the
// point.
#pragma once

#include <string_view>

namespace floe {

/// When the environment variable FLOE_TEST_PAUSE_AT equals `point`, writes
/// "floe: test: paused at <point>" to stderr and sleeps for FLOE_TEST_PAUSE_MS (default
/// 60000) milliseconds, then carries on. Points: "write" (with one task, it has written
/// the first batch into open data files), "commit" (every data file is closed, nothing
/// committed), "swap" (the new metadata file is written, the catalog pointer not yet
/// moved).
/// And when FLOE_TEST_THROW_AT equals `point`, throws std::out_of_range there (as a
/// std::stoi given a stray file name once did), so tests can show that no exception
/// crosses a public entry point (the floe command, the Python package) and that what the
/// work wrote is deleted as the stack unwinds.
void TestPausePoint(std::string_view point);

}  // namespace floe
