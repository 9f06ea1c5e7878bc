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

make -s tools > "$results/tools.log" 2>&1
result "userspace tools and selftests build without warnings" \
	"$( [ $? = 0 ] && ! grep -q 'warning:' "$results/tools.log"; echo $?)" "$results/tools.log"

for k in $EXS_KERNELS; do
	rel=$(exs_kernel_release "$k")
	./scripts/build-modules.sh "$k" > "$results/build-$k.log" 2>&1
	rc=$?
	grep -q 'warning:' "$results/build-$k.log" && rc=1
	result "module builds W=1 clean against $rel" $rc "$results/build-$k.log"
	make -s -C "$(exs_kernel_kbuild "$k")" M="$top/build/$rel" C=2 W=1 modules \
		> "$results/sparse-$k.log" 2>&1
	rc=$?
	grep -qE 'warning:|error:' "$results/sparse-$k.log" && rc=1
	result "sparse is clean against $rel" $rc "$results/sparse-$k.log"
done

./scripts/checkpatch.sh > "$results/checkpatch.log" 2>&1
result "checkpatch --strict is clean" $? "$results/checkpatch.log"

./scripts/dkms-check.sh > "$results/dkms.log" 2>&1
result "dkms builds the module for every supported kernel" $? "$results/dkms.log"

for k in $EXS_KERNELS; do
	echo "# kernel $k: one host"
	./selftests/vm/exs-vm --kernel "$k" --hosts 1 --timeout 900 \
		--out "$results/$k-local" -- selftests/exs_local.sh \
		> "$results/$k-local.log" 2>&1
	rc=$?
	count_tap "$results/$k-local/a.log"
	if [ $rc != 0 ] && ! grep -qE '^not ok' "$results/$k-local/a.log" 2>/dev/null; then
		result "kernel $k one-host run finished cleanly" $rc "$results/$k-local.log"
	fi

	echo "# kernel $k: two hosts"
	./selftests/vm/exs-vm --kernel "$k" --hosts 2 --timeout 1200 \
		--out "$results/$k-pair" -- selftests/exs_pair.sh selftests/exs_pair.sh \
		> "$results/$k-pair.log" 2>&1
	rc=$?
	count_tap "$results/$k-pair/a.log" "$results/$k-pair/b.log"
	if [ $rc != 0 ] && ! cat "$results/$k-pair/"[ab].log 2>/dev/null | grep -qE '^not ok'; then
		result "kernel $k two-host run finished cleanly" $rc "$results/$k-pair.log"
	fi
done

# The debug kernel (KUnit, KASAN, lockdep, kmemleak): built once, cached.
# KUnit runs there, and the selftests once more, where any kernel report
# (exs-vm reads dmesg) fails the run.
echo "# debug kernel"
dk=$(./scripts/debug-kernel.sh 2> "$results/debug-kernel.log")
result "debug kernel builds (cached under ~/.cache/af-exs)" $? "$results/debug-kernel.log"
if [ -n "$dk" ]; then
	./scripts/build-modules.sh "$dk" > "$results/build-debug.log" 2>&1
	rc=$?
	grep -q 'warning:' "$results/build-debug.log" && rc=1
	result "module and KUnit module build W=1 clean against the debug kernel" \
		$rc "$results/build-debug.log"
	for suite in kunit exs_local; do
		./selftests/vm/exs-vm --kernel "$dk" --hosts 1 --memory 2G --timeout 1500 \
			--out "$results/debug-$suite" -- "selftests/$suite.sh" \
			> "$results/debug-$suite.log" 2>&1
		rc=$?
		count_tap "$results/debug-$suite/a.log"
		result "debug kernel: $suite ran with no KASAN, lockdep, kmemleak or hung-task report" \
			$rc "$results/debug-$suite.log"
	done
	./selftests/vm/exs-vm --kernel "$dk" --hosts 2 --memory 2G --timeout 1800 \
		--out "$results/debug-pair" -- selftests/exs_pair.sh selftests/exs_pair.sh \
		> "$results/debug-pair.log" 2>&1
	rc=$?
	count_tap "$results/debug-pair/a.log" "$results/debug-pair/b.log"
	result "debug kernel: two-host run with no kernel report" $rc "$results/debug-pair.log"
fi

echo "# results and logs: $results"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
