#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The demo's part on one host (run by exs-vm): host b serves, host a runs
# the unmodified client.
set -u
share=$EXS_VM_SHARE
mkdir -p "$share"

stat() { awk -v n="$1" '$1 == n { print $2 }' /proc/net/exs_stat; }

transport() {	# transport OPENS-BEFORE FALLBACKS-BEFORE: what carried it
	local o=$(($(stat ActiveOpen) - $1)) f=$(($(stat FallbackNoRdma) - $2))
	echo "   AF_EXS connections opened: $o, fell back to TCP: $f"
}

if [ "$1" = b ]; then
	echo "host b: af_exs loaded as family $(cat /sys/module/af_exs/parameters/family);"
	rdma link | sed 's/^/host b: /'
	echo "host b: 'exs-run iperf3 -s -p 5201' (AF_EXS) and 'iperf3 -s -p 5202' (plain TCP)"
	exs-run iperf3 -s -p 5201 >/dev/null 2>&1 &
	iperf3 -s -p 5202 >/dev/null 2>&1 &
	sleep 2
	touch "$share/ready"
	for _ in $(seq 600); do
		[ -e "$share/done" ] && break
		sleep 0.5
	done
	echo "host b: AF_EXS accepts handed out as plain TCP: $(stat AcceptTcp)"
	kill %1 %2 2>/dev/null
	exit 0
fi

for _ in $(seq 600); do
	[ -e "$share/ready" ] && break
	sleep 0.1
done
echo "host a: af_exs loaded as family $(cat /sys/module/af_exs/parameters/family)"
rdma link | sed 's/^/host a: /'

echo
echo "== 1. unmodified iperf3 under exs-run, to an AF_EXS server on host b"
o=$(stat ActiveOpen) f=$(stat FallbackNoRdma)
exs-run iperf3 -c 10.0.0.2 -p 5201 -t 3 | grep -E 'sender|receiver'
transport "$o" "$f"
echo "   (this build has no RDMA data path yet: every connection falls back to"
echo "    TCP by merging into its native socket)"

echo
echo "== 2. the same client to a plain TCP server on host b: TCP fallback"
o=$(stat ActiveOpen) f=$(stat FallbackNoRdma)
exs-run iperf3 -c 10.0.0.2 -p 5202 -t 3 | grep -E 'sender|receiver'
transport "$o" "$f"

echo
echo "== counters on host a (/proc/net/exs_stat)"
sed 's/^/   /' /proc/net/exs_stat
touch "$share/done"
