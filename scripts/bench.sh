#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: AF_EXS against raw verbs (perftest), plain TCP, its own TCP
# fallback, SMC-R and rsockets, in the two-host rig.  Each kernel boots its
# two hosts once and measures every transport in turn on the same rxe link
# (tools/bench/bench-guest.sh); SMC-R runs on 6.12 only.  Then
# tools/bench/report.py writes results.json, results.csv, summary.json and
# the plots, and prints the ratios against the targets.
#
#   EXS_BENCH_KERNELS  kernels, in order (default: 6.12 6.1)
#   EXS_BENCH_OUT      results directory (default: build/bench)
#   EXS_BENCH_REPS, EXS_BENCH_SECONDS, EXS_BENCH_QUICK,
#   EXS_BENCH_WORKLOADS: see bench-guest.sh
#
# Emulated timings are slow and noisy: read the ratios of one run, never
# its absolute figures, and never two runs' figures side by side.
set -u
top=$(readlink -f "$(dirname "$0")/..")
cd "$top" || exit 2
kernels=${EXS_BENCH_KERNELS:-6.12 6.1}
out=${EXS_BENCH_OUT:-$top/build/bench}

if [ "${EXS_NO_SETUP:-0}" != 1 ]; then
	./scripts/setup.sh || exit 2
fi
hash -r
# the plots: matplotlib from PyPI, for the python3 that runs the report
if ! python3 -c 'import matplotlib' 2>/dev/null; then
	python3 -m pip install -q matplotlib 2>/dev/null ||
		python3 -m pip install -q --break-system-packages matplotlib
fi
# shellcheck disable=SC2086
make -s tools && ./scripts/build-modules.sh $kernels > /dev/null || exit 2

rm -rf "$out"
mkdir -p "$out"
# the guests see only what their command line exports
guest="export EXS_BENCH_REPS=${EXS_BENCH_REPS:-3}"
guest+=" EXS_BENCH_SECONDS=${EXS_BENCH_SECONDS:-2}"
guest+=" EXS_BENCH_QUICK=${EXS_BENCH_QUICK:-0}"
guest+=" EXS_BENCH_WORKLOADS='${EXS_BENCH_WORKLOADS:-pp stream conn rr fair nordma}'"
guest+="; tools/bench/bench-guest.sh"
for k in $kernels; do
	echo "# $k: booting two hosts, measuring (tens of minutes under TCG)"
	./selftests/vm/exs-vm --kernel "$k" --hosts 2 --memory 2G --timeout 7200 \
		--out "$out/$k" -- "$guest" "$guest" > "$out/$k.log" 2>&1 ||
		echo "# $k: the run failed, see $out/$k.log"
	tr '\r' '\n' < "$out/$k/a.log" | grep -E '^# ' || true
done

settings="reps=${EXS_BENCH_REPS:-3} seconds=${EXS_BENCH_SECONDS:-2}"
[ "${EXS_BENCH_QUICK:-0}" = 1 ] && settings="$settings, the targets' sizes only"
[ -n "${EXS_BENCH_WORKLOADS:-}" ] && settings="$settings, $EXS_BENCH_WORKLOADS only"
python3 tools/bench/report.py "$out" \
	"commit=$(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo -dirty)" \
	"date=$(date -u +%FT%TZ)" "settings=$settings" \
	"rig=QEMU TCG, one vCPU a host, Soft-RoCE over a stream netdev"
