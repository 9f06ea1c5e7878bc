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
results=/sys/kernel/debug/kunit/af_exs/results
if [ ! -r "$results" ]; then
	exs_fail "the af_exs suite ran" "no $results"
else
	while read -r line; do
		case "$line" in
		"ok "[0-9]*" "*)
			set -- $line
			exs_ok "kunit: $3" ;;
		"not ok "[0-9]*" "*)
			set -- $line
			exs_fail "kunit: $4" ;;
		esac
	done < <(grep -E '^\s+(not )?ok [0-9]+ ' "$results")
	[ "$EXS_NTEST" -gt 0 ] || exs_fail "the af_exs suite reported cases"
fi
rmmod af_exs_kunit
exs_tap_end
