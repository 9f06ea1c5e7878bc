#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: install what is missing, build for every supported kernel,
# run the static checks and every selftest in the VM rig, and end with
# "N passed, N failed".  Results: build/results/.
set -u
top=$(readlink -f "$(dirname "$0")/..")
cd "$top" || exit 2
# shellcheck source=selftests/vm/kernels.sh
. selftests/vm/kernels.sh

results=$top/build/results
rm -rf "$results"
mkdir -p "$results"
pass=0 fail=0 skip=0
# CI gives the whole run 90 minutes: every VM run's timeout is cut to what
# is left of EXS_CHECK_BUDGET, and a run that could not have a useful part
# of it is skipped (and says so), so the summary line is always printed.
start=$(date +%s)
budget=${EXS_CHECK_BUDGET:-4800}
elapsed() { echo $(($(date +%s) - start)); }

result() {	# result NAME RC [DETAIL-FILE]
	if [ "$2" = 0 ]; then
		pass=$((pass + 1))
		echo "ok - $1"
	else
		fail=$((fail + 1))
		echo "not ok - $1"
		[ -n "${3:-}" ] && [ -s "$3" ] && sed 's/^/#   /' "$3" | head -n 100
	fi
}

clean() {	# clean NAME LOG CMD...: CMD succeeds and logs no warning or error
	local name=$1 log=$2 rc
	shift 2
	"$@" > "$log" 2>&1
	rc=$?
	grep -qE 'warning:|error:' "$log" && rc=1
	result "$name" $rc "$log"
}

count_tap() {	# count_tap LOG...: add a VM run's TAP results
	local f p s n
	for f in "$@"; do
		[ -r "$f" ] || continue
		p=$(grep -cE '^ok [0-9]+ ' "$f")
		s=$(grep -cE '^ok [0-9]+ .*# SKIP' "$f")
		n=$(grep -cE '^not ok [0-9]+ ' "$f")
		pass=$((pass + p - s))
		skip=$((skip + s))
		fail=$((fail + n))
		grep -E '^not ok [0-9]+ ' -A 12 "$f" | grep -E '^(not ok|#)' |
			sed "s|^|$(basename "$(dirname "$f")")/$(basename "$f"): |" | head -n 60
	done
}

if [ "${EXS_NO_SETUP:-0}" != 1 ]; then
	./scripts/setup.sh || { echo "setup failed"; echo "0 passed, 1 failed"; exit 1; }
fi
hash -r

# A fresh machine builds the debug kernel (15-20 minutes of both cores):
# at the lowest priority, beside the stock kernels' runs, which leave it
# the CPU time they do not use.  Cached, it answers at once.
# debug-kernel.rc says it answered (a zombie still passes kill -0).
{
	nice -n 19 ./scripts/debug-kernel.sh > "$results/debug-kernel.path" \
		2> "$results/debug-kernel.log"
	echo $? > "$results/debug-kernel.rc"
} &
dk_pid=$!

clean "userspace tools and selftests build without warnings" \
	"$results/tools.log" make -s tools

for k in $EXS_KERNELS; do
	rel=$(exs_kernel_release "$k")
	clean "module builds W=1 clean against $rel" "$results/build-$k.log" \
		./scripts/build-modules.sh "$k"
	clean "sparse is clean against $rel" "$results/sparse-$k.log" \
		make -s -C "$(exs_kernel_kbuild "$k")" M="$top/build/$rel" C=2 W=1 modules
done

./scripts/checkpatch.sh > "$results/checkpatch.log" 2>&1
result "checkpatch --strict is clean" $? "$results/checkpatch.log"

./scripts/layers.sh > "$results/layers.log" 2>&1
result "a stream's struct holds no verbs object, no module file is over 800 lines" \
	$? "$results/layers.log"

./scripts/dkms-check.sh > "$results/dkms.log" 2>&1
result "dkms builds the module for every supported kernel" $? "$results/dkms.log"

# vm_run NAME KERNEL HOSTS MEMORY TIMEOUT CMD [CMD]: one rig run, its exit
# status in NAME.rc (or NAME.skip when the budget is spent); vm_report NAME
# adds its TAP results, plus one failure if the run itself failed
# (timeout, kernel report).  Runs of one host each may go side by side.
# A run whose timeout the budget cut (NAME.cut) and that ran out of it
# alive, with no kernel report, is one skip, not a failure: the cases it
# finished count, the rest did not run.  At its own timeout it fails, as
# a hang.
# A run whose host died of 6.12's rxe crash (exs-vm's 125: in rxe's
# worker, no frame of af_exs; it comes without the module too) runs once
# more, and only the second counts; its first log stays as NAME.crash.log.
vm_run() {
	local name=$1 k=$2 hosts=$3 mem=$4 t=$5 dir="$results/$1" t0 left rc
	local try own=$5
	shift 5
	t0=$(elapsed)
	echo "# $name (at ${t0} s)"
	for try in 1 2; do
		left=$((budget - $(elapsed)))
		if [ "$left" -lt 600 ]; then
			echo "time budget: ${left} s of ${budget} s left" > "$dir.skip"
			return
		fi
		rm -f "$dir.cut"
		t=$own
		if [ "$t" -gt "$left" ]; then
			echo "cut from $own s to the budget's $left s" > "$dir.cut"
			t=$left
		fi
		./selftests/vm/exs-vm --kernel "$k" --hosts "$hosts" \
			--memory "$mem" --timeout "$t" --out "$dir" -- "$@" \
			> "$dir.log" 2>&1
		rc=$?
		[ "$rc" = 125 ] && [ "$try" = 1 ] || break
		mv "$dir.log" "$dir.crash.log"
		echo "# $name: a host died of rxe's known crash (testing.rst): once more"
		grep -m 3 -E 'died in rxe|Oops|BUG:' "$dir.crash.log" | sed 's/^ */#   /'
	done
	echo "$rc" > "$dir.rc"
	echo "# $name took $(($(elapsed) - t0)) s"
}

# only_ran_out DIR: the run in DIR timed out with each host alive to the
# end and nothing wrong in its kernel log.  exs-vm says a host "did not
# finish"; its guest's watchdog dumped its tasks shortly before the end
# ("near its timeout", the proof that it was alive then), and its live
# log holds no kernel report but that dump (nor QEMU's exc_debug_kernel
# warning, which exs-vm-finish does not count either), before it or
# after.  (At the timeout exs-vm's own kill may find one host gone first
# and call it dead: the dump says it lived.)  A host that died before
# its dump, or that reported, is a failure.
only_ran_out() {
	local dir=$1 f clean="$1/clean.live"
	grep -q "did not finish" "$dir.log" || return 1
	grep -q "logged kernel errors" "$dir.log" && return 1
	for f in "$dir"/[ab].live; do
		# a host that finished said what its kernel logged itself
		[ -r "$f" ] && [ ! -e "${f%.live}.rc" ] || continue
		grep -q "near its timeout" "$f" || return 1
		grep -v "near its timeout\|exc_debug_kernel" "$f" > "$clean"
		[ -z "$(./selftests/vm/exs-vm-report "$clean")" ] || return 1
	done
}

vm_report() {
	local dir="$results/$1"
	if [ -e "$dir.skip" ]; then
		skip=$((skip + 1))
		echo "ok - $1 # SKIP $(cat "$dir.skip")"
		return
	fi
	count_tap "$dir"/[ab].log
	if [ "$(cat "$dir.rc")" = 124 ] && [ -e "$dir.cut" ] &&
	   only_ran_out "$dir"; then
		skip=$((skip + 1))
		echo "ok - $1: the run finished # SKIP time budget: $(cat "$dir.cut"), and it ran out"
		return
	fi
	result "$1: the run finished with no kernel report" "$(cat "$dir.rc")" "$dir.log"
}

vm_suite() {
	vm_run "$@"
	vm_report "$1"
}

# The debug kernel (KUnit, KASAN, lockdep, kmemleak), in two boots of one
# CPU each (it takes minutes to boot: udev's coldplug under KASAN).  One:
# KUnit, the single-host suite (10 rounds of unload and load, where a
# round takes seconds) and the fuzzers.  Two: an in-kernel socket user,
# and the socket API and data path over a looped-back RDMA device with a
# 32nd of the bytes (KASAN under TCG is slow).  The two-host suites, the
# malicious peer and allocation failures run on it in make stress.
debug_one() {
	vm_run debug-one "$dk" 1 2G 2400 "selftests/kunit.sh;
		EXS_UNLOAD_ROUNDS=10 selftests/exs_local.sh; selftests/exs_fuzz.sh"
}
debug_two() {
	vm_run debug-two "$dk" 1 2G 2400 \
		"EXS_KERN_BYTES=1048576 selftests/exs_kern.sh;
		EXS_PAIR_SCALE=32 selftests/exs_rdma_loop.sh"
}
# Each stock kernel's single-host suite: the socket API, the fuzzers, the
# malicious peer.
local_run() {
	vm_run "$1-local" "$1" 1 1G 1500 \
		"selftests/exs_local.sh; selftests/exs_fuzz.sh; selftests/exs_badpeer.sh"
}
# two_at_a_time JOB...: one-host runs (one emulated CPU each, on a
# two-core machine), two side by side, in the order given; each JOB a
# command, words split (wait -n with pids: bash 5.1)
two_at_a_time() {
	local job pid pids=() live
	for job in "$@"; do
		while [ "${#pids[@]}" -ge 2 ]; do
			wait -n "${pids[@]}"
			live=()
			for pid in "${pids[@]}"; do
				kill -0 "$pid" 2>/dev/null && live+=("$pid")
			done
			pids=("${live[@]}")
		done
		$job &
		pids+=($!)
	done
	wait "${pids[@]}"
}

# KUnit and the debug kernel's runs need its module.
dk= debug_checked=0 debug_done=0
debug_build() {
	[ "$debug_checked" = 1 ] && return
	debug_checked=1
	wait "$dk_pid" 2>/dev/null
	dk_rc=$(cat "$results/debug-kernel.rc" 2>/dev/null || echo 1)
	echo "# debug kernel ready (at $(elapsed) s)"
	result "debug kernel builds (cached under ~/.cache/af-exs)" "$dk_rc" \
		"$results/debug-kernel.log"
	dk=$(cat "$results/debug-kernel.path")
	[ -n "$dk" ] && clean "module and KUnit module build W=1 clean against the debug kernel" \
		"$results/build-debug.log" ./scripts/build-modules.sh "$dk"
}
debug_report() {
	vm_report debug-one
	vm_report debug-two
	debug_done=1
}

# The single-host runs first, the longest first: the debug kernel's, if
# it is built already (cached: a fresh machine builds it at the lowest
# priority beside the stock kernels' runs, which leave it the CPU time
# they do not use; beside that build, 6.1's took 1077 s on 2026-12-02).
locals=()
for k in $EXS_KERNELS; do
	locals+=("local_run $k")
done
if [ -e "$results/debug-kernel.rc" ]; then
	debug_build
	[ -n "$dk" ] && locals=(debug_one debug_two "${locals[@]}")
fi
two_at_a_time "${locals[@]}"
[ -n "$dk" ] && debug_report
for k in $EXS_KERNELS; do
	vm_report "$k-local"
done

# ...then the two-host ones, one pair at a time: a 16th of the bytes (64
# MiB each way at most; make stress moves an eighth, on the debug kernel),
# the in-kernel socket users, then the control plane in the same boot
# (last: it adds an address to the RDMA link, and leaves it)
for k in $EXS_KERNELS; do
	pair="EXS_PAIR_SCALE=16 selftests/exs_pair.sh; exs-vm-barrier pair;
		selftests/exs_kern.sh; selftests/exs_nbd.sh;
		exs-vm-barrier control; selftests/exs_control.sh"
	vm_suite "$k-pair" "$k" 2 1G 2400 "$pair" "$pair"
done

# The runs of faults and load wait for the debug kernel's build: beside
# a fresh machine's, a thousand connections at once once ran host a out
# of memory and the bad link's QEMU stream stopped for good (testing.rst,
# "The stock kernels").
[ "$debug_checked" = 1 ] || echo "# debug kernel"
debug_build

for k in $EXS_KERNELS; do
	# failed queue pairs (64 MiB each way: at 16 a transfer can end
	# before its third failure), faults and, on the
	# first kernel only (CI time), load and a bad link (1 MiB a case
	# here; make stress moves 16 MiB on the debug kernel and 1 GiB on
	# stock 6.1); exs_fault.sh last: it kills host b
	faults="selftests/exs_resume.sh; selftests/exs_fault.sh"
	[ "$k" = "${EXS_KERNELS%% *}" ] && faults="selftests/exs_load.sh;
		EXS_NETEM_BYTES=$((1 << 20)) selftests/exs_netem.sh; $faults"
	vm_suite "$k-fault" "$k" 2 1G 1800 "$faults" "$faults"
done

# A fresh machine's debug kernel, built by now, runs last, its two
# boots side by side, in what is left of the budget.
if [ "$debug_done" = 0 ] && [ -n "$dk" ]; then
	two_at_a_time debug_one debug_two
	debug_report
fi

echo "# results and logs: $results"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
