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

result() {	# result NAME RC [DETAIL-FILE]
	if [ "$2" = 0 ]; then
		pass=$((pass + 1))
		echo "ok - $1"
	else
		fail=$((fail + 1))
		echo "not ok - $1"
		[ -n "${3:-}" ] && [ -s "$3" ] && sed 's/^/#   /' "$3" | head -n 40
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

./scripts/dkms-check.sh > "$results/dkms.log" 2>&1
result "dkms builds the module for every supported kernel" $? "$results/dkms.log"

# vm_suite NAME KERNEL HOSTS MEMORY TIMEOUT CMD [CMD]: TAP results of a rig
# run, plus one failure if the run itself failed (timeout, kernel report).
vm_suite() {
	local name=$1 k=$2 hosts=$3 mem=$4 t=$5 dir="$results/$1" rc
	shift 5
	echo "# $name"
	./selftests/vm/exs-vm --kernel "$k" --hosts "$hosts" --memory "$mem" \
		--timeout "$t" --out "$dir" -- "$@" > "$dir.log" 2>&1
	rc=$?
	count_tap "$dir"/[ab].log
	result "$name: the run finished with no kernel report" $rc "$dir.log"
}

for k in $EXS_KERNELS; do
	vm_suite "$k-local" "$k" 1 1G 1200 \
		"selftests/exs_local.sh; selftests/exs_fuzz.sh; selftests/exs_badpeer.sh"
	vm_suite "$k-pair" "$k" 2 1G 1500 selftests/exs_pair.sh selftests/exs_pair.sh
	# faults and, on the first kernel only (CI time), load and a bad link
	# (4 MiB a case here, 1 GiB in make stress); exs_fault.sh last: it
	# kills host b
	faults=selftests/exs_fault.sh
	[ "$k" = "${EXS_KERNELS%% *}" ] && faults="selftests/exs_load.sh;
		EXS_NETEM_BYTES=$((4 << 20)) selftests/exs_netem.sh; $faults"
	vm_suite "$k-fault" "$k" 2 1G 1800 "$faults" "$faults"
	vm_suite "$k-control" "$k" 2 1G 900 selftests/exs_control.sh \
		selftests/exs_control.sh
done

# The debug kernel (KUnit, KASAN, lockdep, kmemleak): built once, cached.
# KUnit runs there, and the selftests once more, where any kernel report
# (exs-vm reads dmesg) fails the run.
echo "# debug kernel"
dk=$(./scripts/debug-kernel.sh 2> "$results/debug-kernel.log")
result "debug kernel builds (cached under ~/.cache/af-exs)" $? "$results/debug-kernel.log"
if [ -n "$dk" ]; then
	clean "module and KUnit module build W=1 clean against the debug kernel" \
		"$results/build-debug.log" ./scripts/build-modules.sh "$dk"
	# One boot per rig: the debug kernel takes minutes to boot (udev's
	# coldplug under KASAN).  KUnit, the single-host cases (10 rounds of
	# unload and load, where a round takes seconds) and the fuzzers; the
	# malicious peer and allocation failures run in make stress...
	vm_suite debug-local "$dk" 1 2G 2400 "selftests/kunit.sh;
		EXS_UNLOAD_ROUNDS=10 selftests/exs_local.sh; selftests/exs_fuzz.sh"
	# ...then the two-host cases with an eighth of the bytes (KASAN under
	# TCG is slow), and map, netlink and namespaces under kmemleak
	pair="export EXS_PAIR_SCALE=8; selftests/exs_pair.sh; selftests/exs_control.sh"
	vm_suite debug-pair "$dk" 2 2G 3000 "$pair" "$pair"
fi

echo "# results and logs: $results"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
