#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Side by side, in one run on the two-host rig: raw RDMA verbs, plain TCP,
# AF_EXS over RDMA and AF_EXS fallen back to TCP, under unmodified programs
# (perftest, sockperf ping-pong at 16 B and 1 KiB, iperf3 with 64 KiB
# writes), interleaved round by round.  Prints medians and ratios to TCP.
# A measurement, not a test: emulated timings are noisy, so only ratios
# from one run mean anything.
#   measure.sh [KERNEL] [ROUNDS]     EXS_MEASURE_KINDS="verbs tcp exs exsbp fb"
set -u
top=$(readlink -f "$(dirname "$0")/..")
cd "$top" || exit 2
kernel=${1:-6.12}
rounds=${2:-5}
out=$top/build/measure

./scripts/build-modules.sh "$kernel" >/dev/null && make -s tools || exit 1
./selftests/vm/exs-vm --kernel "$kernel" --hosts 2 --timeout 1800 --out "$out" -- \
	"scripts/measure-guest.sh a $rounds" \
	"scripts/measure-guest.sh b $rounds"
rc=$?
cat "$out/a.log"
exit $rc
