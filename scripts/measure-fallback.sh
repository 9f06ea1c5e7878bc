#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Side by side, in one run on the two-host rig: plain TCP against AF_EXS
# sockets that fell back to TCP, both under unmodified programs (sockperf
# ping-pong for latency, iperf3 for throughput), interleaved round by round.
# Prints medians and the ratio AF_EXS/TCP.  A measurement, not a test:
# emulated timings are noisy, so only the ratios mean anything.
#   measure-fallback.sh [KERNEL] [ROUNDS]
set -u
top=$(readlink -f "$(dirname "$0")/..")
cd "$top" || exit 2
kernel=${1:-6.12}
rounds=${2:-5}
out=$top/build/measure-fallback

./scripts/build-modules.sh "$kernel" >/dev/null && make -s tools || exit 1
./selftests/vm/exs-vm --kernel "$kernel" --hosts 2 --timeout 1800 --out "$out" -- \
	"scripts/measure-fallback-guest.sh a $rounds" \
	"scripts/measure-fallback-guest.sh b $rounds"
rc=$?
cat "$out/a.log"
exit $rc
