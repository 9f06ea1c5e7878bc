#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: two VM hosts joined by one virtual link with Soft-RoCE on both
# ends; an unmodified iperf3 runs under exs-run, first against an AF_EXS
# server, then against a plain TCP server, and the counters on both hosts
# say which transport carried each connection.
#   EXS_DEMO_KERNEL=6.1|6.12 (default 6.12)
set -u
top=$(readlink -f "$(dirname "$0")/..")
cd "$top" || exit 2
kernel=${EXS_DEMO_KERNEL:-6.12}

./scripts/setup.sh >/dev/null || exit 1
hash -r
make -s tools >/dev/null && ./scripts/build-modules.sh "$kernel" >/dev/null 2>&1 || {
	echo "demo: build failed (try 'make modules-all')" >&2
	exit 1
}

out=$top/build/demo
echo "Booting host a (10.0.0.1) and host b (10.0.0.2) on Linux $kernel under QEMU (TCG)..."
./selftests/vm/exs-vm --kernel "$kernel" --hosts 2 --timeout 600 --out "$out" -- \
	"scripts/demo-guest.sh a" "scripts/demo-guest.sh b"
rc=$?
echo
echo "------------------------------- host a --------------------------------"
cat "$out/a.log"
echo "------------------------------- host b --------------------------------"
cat "$out/b.log"
exit $rc
