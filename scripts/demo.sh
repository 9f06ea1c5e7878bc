#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: two VM hosts joined by one virtual link with Soft-RoCE on both
# ends; an unmodified iperf3 runs under exs-run, first against an AF_EXS
# server, then against a plain TCP server, then as the map denies it, and
# on 6.12 a static Go HTTP client and server run over RDMA with no
# preload; the counters on both hosts say which transport carried each
# connection.  Only the hosts' stories are printed; their consoles are
# kept in build/demo.
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
rm -f "$out"/share/story.*	# never last run's
echo "Booting host a (10.0.0.1) and host b (10.0.0.2) on Linux $kernel under QEMU (TCG)..."
./selftests/vm/exs-vm --kernel "$kernel" --hosts 2 --timeout 600 --out "$out" -- \
	"scripts/demo-guest.sh a" "scripts/demo-guest.sh b"
rc=$?
# the story each host told; the boot logs stay in $out
echo
for h in a b; do
	echo "------------------------------- host $h --------------------------------"
	if [ -s "$out/share/story.$h" ]; then
		cat "$out/share/story.$h"
	fi
	# a host that did not finish its story: how its console ended
	if [ "$rc" != 0 ] || [ ! -s "$out/share/story.$h" ]; then
		echo "(host $h's console, last lines:)"
		tail -n 30 "$out/$h.log" 2>/dev/null
	fi
done
echo
echo "(each host's whole console, boot included: $out/a.log, $out/b.log)"
exit $rc
