// Deliberate faults for mpiscope's own tests, configured by the MPISCOPE_FAULT environment
// variable (unset in normal use; then every query is a cheap "no"). Items, comma separated:
//   alloc-fail:R          buffer allocation fails on world rank R
//   corrupt:R             rank R flips one received byte before -check verifies it
//   hang:NAME:BYTES:R     rank R stops responding when NAME starts timing BYTES-byte messages
//   run-tag:TAG           the run's scratch-file tag is TAG instead of a random one, so that a
//                         test can plant files at the names the run will use
//   stop-setup:Q:R        rank R stops itself (SIGSTOP, every thread) before it sets up the
//                         communicators of a Q-process layout, between measurement points
//   stop-release:NAME:R   rank R stops itself (SIGSTOP) when it releases a point of benchmark
//                         NAME (IMB-IO: closes and removes its files), after the point's phase
// Documented in docs/testing.md.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mpiscope::core::fault {

bool allocation_should_fail();
bool corrupt_received_data();
// Never returns if a hang is planted for this benchmark and size on this rank.
void maybe_hang(std::string_view benchmark, std::size_t bytes);
// The planted run tag, or empty.
std::string planted_run_tag();
// Stops this process (SIGSTOP) if stop-setup is planted for this process count and rank.
void maybe_stop_in_setup(int processes);
// Stops this process (SIGSTOP) if stop-release is planted for this benchmark and rank.
void maybe_stop_in_release(std::string_view benchmark);

}  // namespace mpiscope::core::fault
