#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Load af_exs_kunit.ko (debug kernel only: Debian's kernels lack KUnit) and
# report each KUnit case as a TAP line.

. "$(dirname "$0")/lib.sh"

exs_tap_begin "AF_EXS KUnit suites"
ko=$(dirname "${EXS_MODULE:-/nonexistent}")/af_exs_kunit.ko
if [ ! -d /sys/kernel/debug/kunit ] && ! grep -q kunit /proc/filesystems 2>/dev/null; then
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
fi
if [ ! -d /sys/kernel/debug/kunit ] || [ ! -r "$ko" ]; then
	exs_skip "KUnit" "this kernel has no KUnit or af_exs_kunit.ko is missing"
	exs_tap_end
	exit $KSFT_SKIP
fi

if ! insmod "$ko"; then
	exs_fail "af_exs_kunit.ko loads"
	exs_tap_end
	exit $KSFT_FAIL
fi
for suite in af_exs af_exs_ring af_exs_wire af_exs_map af_exs_watch af_exs_wc af_exs_urg af_exs_link_sq; do
	results=/sys/kernel/debug/kunit/$suite/results
	if [ ! -r "$results" ]; then
		exs_fail "the $suite suite ran" "no $results"
		continue
	fi
	n=$EXS_NTEST
	while read -r line; do
		case "$line" in
		"ok "[0-9]*" "*)
			set -- $line
			exs_ok "kunit: $suite: $3" ;;
		"not ok "[0-9]*" "*)
			set -- $line
			exs_fail "kunit: $suite: $4" ;;
		esac
	done < <(grep -E '^\s+(not )?ok [0-9]+ ' "$results")
	[ "$EXS_NTEST" -gt "$n" ] || exs_fail "the $suite suite reported cases"
done
rmmod af_exs_kunit
exs_tap_end
