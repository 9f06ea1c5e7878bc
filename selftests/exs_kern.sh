#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-kernel socket users between two hosts (exs-vm --hosts 2): a test
# module (selftests/kmod/exs_kern.c) creates its own socket with
# sock_create_kern() and talks through kernel_connect(), kernel_accept(),
# kernel_sendmsg(), kernel_recvmsg() and kernel_sock_shutdown(), as a
# kernel consumer does, with no file and no user space.  Host b loads it
# as the server, host a as the client; the client sends a pattern, the
# server checks it and sends it back to be checked.
#
#  - AF_EXS to AF_EXS: the connection is RDMA's on both hosts and the
#    bytes go by RDMA both ways (AF_EXS's byte counters, the device's
#    packets, TCP quiet);
#  - an AF_EXS client, a plain TCP server: the connect falls back (peer
#    reject); the kernel user keeps its AF_EXS socket, whose calls then
#    go to TCP (there is no file to hand over): TCP carries the bytes;
#  - a plain TCP client, an AF_EXS server: kernel_accept() hands out an
#    AF_EXS socket that owns the TCP child (AcceptKernel).
#
# On one host (exs-vm --hosts 1, as make check runs it on the debug
# kernel) the module plays both ends (role=pair) over a Soft-RoCE device
# on a dummy link, which loops an AF_EXS connection to the host's own
# address back over RDMA; the same cases and checks, all on that host.
#
# EXS_KERN_BYTES sets the bytes each way (4 MiB).
#
#   exs-vm --hosts 2 -- selftests/exs_kern.sh selftests/exs_kern.sh
#   exs-vm -- selftests/exs_kern.sh

. "$(dirname "$0")/lib.sh"

bytes=${EXS_KERN_BYTES:-$((4 << 20))}
ko=$(dirname "$(readlink -f "$0")")/../build/$(uname -r)/selftests/kmod/exs_kern.ko
param=/sys/module/exs_kern/parameters
if [ "${EXS_VM_HOSTS:-1}" = 2 ]; then
	host=${EXS_VM_HOST:?}
	share=${EXS_VM_SHARE:?}
	peer4=10.0.0.2
	mkdir -p "$share"
else
	# one host, both ends: "ab" passes every host's checks below
	host=ab
	peer4=10.0.8.1
fi
is() { [[ $host == *$1* ]]; }

exs_tap_begin "in-kernel socket users over AF_EXS, host $host"
exs_loaded || exs_skip_all af_exs "module not loaded"
[ -r "$ko" ] || exs_skip_all exs_kern "no $ko: run scripts/build-modules.sh"
trap 'rmmod exs_kern 2>/dev/null; exs_rxe_loop_del exskl0; exs_cleanup' EXIT
if [ "$host" = ab ]; then
	exs_rxe_loop exskl0 $peer4 || exs_skip_all "RDMA loop" "no Soft-RoCE device"
fi
exs_sysctl net.exs.neg_cache_ttl_ms=0 net.exs.connect_timeout_ms=30000
exs=$(cat /sys/module/af_exs/parameters/family)
inet=2

# finished [server_]: the module's result, once it has one (its waits end
# in 60 s)
finished() {
	exs_wait_until 150 eval "! grep -q running $param/${1:-}result" &&
		cat "$param/${1:-}result"
}

# kern_case NAME PORT SERVER-FAMILY CLIENT-FAMILY: one case, both halves;
# the module's outcome, and what the checks after it read (KERN_*)
kern_case() {
	local name=$1 port=$2 sfam=$3 cfam=$4 res
	local stat="$EXS_TMP/kern.stat" segs pkts
	exs_stat_save "$stat"
	segs=$(exs_tcp_segs)
	pkts=$(exs_rdma_pkts)
	if [ "$host" = ab ]; then
		insmod "$ko" role=pair family="$cfam" server_family="$sfam" \
			addr=$peer4 port="$port" bytes="$bytes"
		res=$(finished server_)
		exs_check "$name: server: the pattern went both ways intact ($res)" \
			[ "$res" = "ok $bytes" ]
		res=$(finished)
		rmmod exs_kern
		exs_check "$name: client: the pattern went both ways intact ($res)" \
			[ "$res" = "ok $bytes" ]
	else
		if [ "$host" = b ]; then
			insmod "$ko" role=server family="$sfam" port="$port" \
				bytes="$bytes"
			exs_wait_listen "$port" 30
			ready "$name"
		else
			await_ready "$name" ||
				{ exs_fail "$name" "server never ready"; return; }
			insmod "$ko" role=client family="$cfam" addr=$peer4 \
				port="$port" bytes="$bytes"
		fi
		res=$(finished)
		rmmod exs_kern
		exs_check "$name: $host: the pattern went both ways intact ($res)" \
			[ "$res" = "ok $bytes" ]
		if [ "$host" = b ]; then
			done_ "$name"
		else
			await_done "$name"
		fi
	fi
	KERN_STAT=$stat KERN_SEGS=$(($(exs_tcp_segs) - segs))
	KERN_PKTS=$(($(exs_rdma_pkts) - pkts))
	KERN_OUT=$(exs_stat_delta "$stat" RdmaBytesOut)
	KERN_IN=$(exs_stat_delta "$stat" RdmaBytesIn)
}

# both ends on this host count both ends' bytes
ends=${#host}

# tcp_carried NAME: the last case's bytes went by TCP, none by AF_EXS
tcp_carried() {
	exs_assert "$1: $host: TCP carried the bytes, RDMA nothing" \
		"[ $KERN_SEGS -ge $((2 * bytes / 65536)) ] && [ $KERN_OUT = 0 ] &&
		 [ $KERN_IN = 0 ]"
}

name="AF_EXS client, AF_EXS server"
kern_case "$name" 29001 $exs $exs
is a && exs_check "$name: $host: the client connected over RDMA" \
	[ "$(exs_stat_delta "$KERN_STAT" ConnectRdma)" = 1 ]
is b && exs_check "$name: $host: the server accepted over RDMA" \
	[ "$(exs_stat_delta "$KERN_STAT" AcceptRdma)" = 1 ]
exs_assert "$name: $host: AF_EXS moved the bytes both ways ($KERN_OUT out, $KERN_IN in)" \
	"[ $KERN_OUT -ge $((ends * bytes)) ] && [ $KERN_IN -ge $((ends * bytes)) ]"
exs_check "$name: $host: the RDMA device carried them" \
	[ $KERN_PKTS -ge $((2 * bytes / 4096)) ]
exs_check "$name: $host: TCP carried no payload" [ $KERN_SEGS -lt 40 ]

name="AF_EXS client, plain TCP server"
kern_case "$name" 29002 $inet $exs
is a && exs_check "$name: $host: the connect fell back, peer reject" \
	[ "$(exs_stat_delta "$KERN_STAT" FallbackPeerReject)" = 1 ]
tcp_carried "$name"

name="plain TCP client, AF_EXS server"
kern_case "$name" 29003 $exs $inet
is b && exs_check "$name: $host: kernel_accept() wrapped the TCP child (AcceptKernel)" \
	[ "$(exs_stat_delta "$KERN_STAT" AcceptKernel)" = 1 ]
tcp_carried "$name"
exs_check "$host: no AF_EXS socket left behind" \
	exs_wait_until 30 exs_no_sockets

exs_tap_end
