#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The demo's part on one host (run by exs-vm): host b serves, host a runs
# the unmodified client.
set -u
case ${1:-} in a|b) ;; *) echo "usage: demo-guest.sh a|b" >&2; exit 2 ;; esac
share=$EXS_VM_SHARE
mkdir -p "$share"
# the story, apart from the boot's noise: make demo prints this file
if [ -z "${EXS_DEMO_STORY:-}" ]; then
	EXS_DEMO_STORY=1 "$0" "$@" 2>&1 | tee "$share/story.$1"
	exit "${PIPESTATUS[0]}"
fi
# exs-run by BPF, no preload, where the kernel has the hook (6.12)
bpf_hook() { grep -qw update_socket_protocol /proc/kallsyms; }

stat() { exsconfig -j stats | python3 -c "import json, sys; print(json.load(sys.stdin)['$1'])"; }

fallbacks() { awk '$1 ~ /^Fallback/ { n += $2 } END { print n + 0 }' /proc/net/exs_stat; }
segs() { awk '$1 == "Tcp:" && $2 ~ /^[0-9]+$/ { print $11 + $12 }' /proc/net/snmp; }
pkts() {
	rdma statistic show link rxe0/1 | awk '{ for (i = 1; i < NF; i++)
		if ($i == "sent_pkts" || $i == "rcvd_pkts") n += $(i + 1) } END { print n + 0 }'
}

snap() {
	o=$(stat ActiveOpen) r=$(stat ConnectRdma) f=$(fallbacks) s=$(segs)
	p=$(pkts) e=$(stat ParkExpired)
}

transport() {	# what carried the connections since snap
	echo "   AF_EXS connections: $(($(stat ActiveOpen) - o)) opened," \
	     "$(($(stat ConnectRdma) - r)) over RDMA, $(($(fallbacks) - f)) fell back to TCP"
	echo "   packets: RDMA device $(($(pkts) - p)), TCP segments $(($(segs) - s))"
	# case 1's queue pairs stay parked for reuse, then end: a DREQ and
	# its reply each, counted by the device whenever that falls
	local ended=$(($(stat ParkExpired) - e))
	[ "$ended" = 0 ] ||
		echo "   (those RDMA packets: case 1's parked queue pairs ending, $ended of" \
		     "them, idle for net.exs.reuse_idle_ms)"
}

if [ "$1" = b ]; then
	echo "host b: af_exs loaded as family $(cat /sys/module/af_exs/parameters/family);"
	rdma link | sed 's/^/host b: /'
	echo "host b: 'exs-run iperf3 -s -p 5201' (AF_EXS) and 'iperf3 -s -p 5202' (plain TCP)"
	exs-run iperf3 -s -p 5201 >/dev/null 2>&1 &
	iperf3 -s -p 5202 >/dev/null 2>&1 &
	if bpf_hook; then
		echo "host b: 'exs-run exs_gohttp serve 8081' (Go's HTTP server, static)"
		head -c 3000000 /dev/urandom > "$share/goblob"
		sha256sum < "$share/goblob" > "$share/goblob.sha"
		exs-run exs_gohttp serve 8081 "$share/goblob" >/dev/null 2>&1 &
	fi
	sleep 2
	touch "$share/ready"
	for _ in $(seq 600); do
		[ -e "$share/done" ] && break
		sleep 0.5
	done
	echo "host b: accepts over RDMA: $(stat AcceptRdma), handed out as plain TCP: $(stat AcceptTcp)"
	kill $(jobs -p) 2>/dev/null
	exit 0
fi

rc=0
for _ in $(seq 600); do
	[ -e "$share/ready" ] && break
	sleep 0.1
done
echo "host a: af_exs loaded as family $(cat /sys/module/af_exs/parameters/family)"
rdma link | sed 's/^/host a: /'

echo
echo "== 1. unmodified iperf3 under exs-run, to an AF_EXS server on host b: RDMA"
snap
exs-run iperf3 -c 10.0.0.2 -p 5201 -t 3 > /tmp/iperf3.out &
iperf=$!
sleep 2
echo "   exsconfig sockets, while it runs:"
exsconfig sockets | sed 's/^/   /'
echo "   exsconfig links, the queue pairs to host b that carry them:"
exsconfig links | sed 's/^/   /'
wait "$iperf" || rc=1
grep -E 'sender|receiver' /tmp/iperf3.out
transport
if bpf_hook; then
	echo "   (iperf3 opened ordinary AF_INET sockets; exs-run's BPF program made"
	echo "    them AF_EXS ones, IPPROTO_EXS; the peers met through rdma_cm and"
	echo "    the bytes went by RDMA WRITE)"
else
	echo "   (iperf3 opened ordinary AF_INET sockets; the preload made them AF_EXS,"
	echo "    the peers met through rdma_cm and the bytes went by RDMA WRITE)"
fi
echo "   (Soft-RoCE computes RDMA's checksums in software, and QEMU emulates"
echo "    every instruction: here RDMA trails TCP, case 2's figures.  What"
echo "    carries over to hardware is AF_EXS against SMC-R and raw verbs on"
echo "    the same device: make bench)"

echo
echo "== 2. the same client to a plain TCP server on host b: TCP fallback"
snap
exs-run iperf3 -c 10.0.0.2 -p 5202 -t 3 | grep -E 'sender|receiver'
transport
echo "   (nothing listens there with AF_EXS: rdma_cm's reject sent the sockets"
echo "    to TCP by merging into their native sockets; reason counted below)"

echo
echo "== 3. the map says TCP for port 5201 (policy map, deny=5201): TCP at once"
printf '# host      RDMA address   ports\n10.0.0.2    -              deny=5201\n' > /tmp/exs.map
sed 's/^/   map: /' /tmp/exs.map
exsconfig load /tmp/exs.map | sed 's/^/   /'
exsconfig policy map
snap
exs-run iperf3 -c 10.0.0.2 -p 5201 -t 3 | grep -E 'sender|receiver'
transport
echo "   (no RDMA attempt at all: FallbackPolicy $(stat FallbackPolicy))"
exsconfig flush
exsconfig policy auto

if bpf_hook; then
	echo
	echo "== 4. a Go HTTP client and server (static binaries) under exs-run: RDMA"
	echo "   (Go makes its own system calls, which no preload reaches; exs-run"
	echo "    turns their TCP sockets into AF_EXS ones by BPF, in their cgroup)"
	snap
	if exs-run exs_gohttp get http://10.0.0.2:8081/ "$share/goblob.sha"; then
		echo "   3 MB fetched 3 times, every SHA-256 as served"
	else
		echo "   the fetch failed"
		rc=1
	fi
	transport
else
	echo
	echo "== 4. (6.12 only: a Go program over RDMA with no preload; this kernel"
	echo "    has no update_socket_protocol(), so exs-run preloads here)"
fi

echo
echo "== counters on host a (exsconfig stats, non-zero)"
exsconfig stats | awk '$2 != 0 { print "   " $0 }'
touch "$share/done"
exit $rc
