#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# An in-kernel consumer of AF_EXS sockets, between two hosts (exs-vm
# --hosts 2): the NBD block driver.  nbd-client, unmodified under exs-run,
# connects and negotiates from user space, then hands its socket to the
# kernel and exits; from then on the nbd driver moves every block with
# sock_sendmsg() and sock_recvmsg() (page vectors, MSG_WAITALL, GFP_NOIO)
# on that struct socket, and shuts it down at the end.  Host b exports a
# file with nbd-server; host a writes random blocks through /dev/nbd0,
# reads them back, and b's file must then hold them.
#
#  - nbd-server under exs-run, nbd-client's socket made AF_EXS
#    (EXS_PRELOAD_SKIP set empty): the connection is set up over RDMA.
#    The nbd driver of Debian's 6.1 and 6.12 takes TCP and UNIX stream
#    sockets only (nbd_get_socket(): sk_is_tcp(), since the stable backport
#    of "nbd: verify socket is supported during setup"; AF_SMC's are
#    refused alike), so there it must refuse the AF_EXS socket cleanly:
#    EINVAL, its message, nothing left behind.  A driver that takes it
#    must move the blocks over RDMA (the socket dump, with no program
#    holding the socket: AF_EXS on RDMA; AF_EXS's byte counters and the
#    device's packets both ways; TCP quiet);
#  - exs-run nbd-client as it comes: the preload leaves nbd-client's
#    sockets TCP's (its skip list), so NBD works under exs-run, by TCP;
#  - NBD's port denied in host a's map: the connect goes to TCP at once
#    (FallbackPolicy), the kernel takes TCP's own socket, the blocks go by
#    TCP;
#  - a plain nbd-server: the connect falls back (peer reject) before the
#    kernel takes the socket; the blocks go by TCP, the RDMA device quiet.
#
# EXS_NBD_BYTES sets what a writes and reads back (16 MiB).
#
#   exs-vm --hosts 2 -- selftests/exs_nbd.sh selftests/exs_nbd.sh

. "$(dirname "$0")/lib.sh"

host=${EXS_VM_HOST:?run under exs-vm --hosts 2}
share=${EXS_VM_SHARE:?}
peer4=10.0.0.2
bytes=${EXS_NBD_BYTES:-$((16 << 20))}
dev=/dev/nbd0
mkdir -p "$share"

exs_tap_begin "the NBD driver over AF_EXS, host $host"
exs_loaded || exs_skip_all af_exs "module not loaded"
command -v nbd-client >/dev/null && command -v nbd-server >/dev/null ||
	exs_skip_all nbd "nbd-client and nbd-server not installed"
if [ "$host" = a ]; then
	[ -b $dev ] || modprobe -q nbd
	# b's server then stops waiting for a client
	[ -b $dev ] || { touch "$share/nbd.skip"; exs_skip_all nbd "no $dev (no nbd driver)"; }
fi
trap 'nbd-client -d $dev >/dev/null 2>&1; exs_cleanup' EXIT
# no negative-cache entry from the fallback case may send a later connect
# to TCP; the debug kernel sets up an RDMA connection in seconds
exs_sysctl net.exs.neg_cache_ttl_ms=0 net.exs.connect_timeout_ms=30000

# the kernel's socket to PORT in the dump: "TRANSPORT FALLBACK", or nothing
dumped() {
	exsconfig -j sockets 2>/dev/null | python3 -c 'import json, sys
for s in json.load(sys.stdin):
    if s.get("peer_port") == int(sys.argv[1]):
        print(s["transport"], s["fallback"])' "$1"
}

# serve NAME PORT WRAP HOW: b's half of a case, nbd-server run through
# WRAP (exs-run, or env for a plain server), which accepts over HOW (RDMA
# or TCP)
serve() {
	local name=$1 port=$2 wrap=$3 img="$EXS_TMP/disk.$2" acc
	local counter=$([ "$4" = RDMA ] && echo AcceptRdma || echo AcceptTcp)
	truncate -s $((bytes + (1 << 20))) "$img"
	cat > "$EXS_TMP/nbd.$port.conf" <<-EOF
	[generic]
		port = $port
		listenaddr = 0.0.0.0
	[exs]
		exportname = $img
		flush = true
	EOF
	acc=$(exs_stat $counter)
	exs_bg $wrap nbd-server -d -C "$EXS_TMP/nbd.$port.conf" \
		> "$EXS_TMP/server.$port" 2>&1
	exs_wait_listen "$port" 30
	ready "$name"
	exs_wait_until 300 eval '[ -e "$share/done.$name" ] || [ -e "$share/nbd.skip" ]'
	if [ -e "$share/nbd.skip" ]; then
		kill "${EXS_PIDS[-1]}" 2>/dev/null
		exs_skip_all nbd "host a has no nbd driver"
	elif [ ! -e "$share/done.$name" ]; then
		exs_fail "$name: b: the client finished"
	elif [ -e "$share/$port.refused" ]; then
		exs_skip "$name: b: the file holds the blocks a wrote" \
			"a's nbd driver refused the socket"
	else
		exs_check "$name: b: the file holds the blocks a wrote" \
			cmp -s <(head -c "$bytes" "$img" | sha256sum) \
			"$share/$port.sha"
	fi
	if [ "$wrap" = exs-run ]; then
		exs_check "$name: b: the server accepted over $4" \
			[ $(($(exs_stat $counter) - acc)) -ge 1 ]
	fi
	kill "${EXS_PIDS[-1]}" 2>/dev/null
}

# the nbd driver said why it refused a socket, since line $1 of dmesg
nbd_refused() {
	dmesg | tail -n +"$1" | grep -q 'nbd.*Unsupported socket'
}

# use NAME PORT HOW: a's half: connect through exs-run, write, read back,
# disconnect; HOW is how the blocks must go: rdma, plain (TCP: the
# preload left the socket alone), policy (TCP, as the map says) or
# peer_reject (TCP, a plain server).  All but plain make nbd-client's
# socket AF_EXS (EXS_PRELOAD_SKIP empty).
use() {
	local name=$1 port=$2 how=$3 stat="$EXS_TMP/nbd.stat" rc
	local segs pkts fb out in seen nfail=$EXS_NFAIL log=$(dmesg | wc -l)
	local skip=() opens=$(exs_stat ActiveOpen)
	[ "$how" = plain ] || skip=(env EXS_PRELOAD_SKIP=)
	head -c "$bytes" /dev/urandom > "$EXS_TMP/blocks"
	sha256sum < "$EXS_TMP/blocks" > "$share/$port.sha"
	await_ready "$name" || { exs_fail "$name" "server never ready"; return; }
	exs_stat_save "$stat"
	segs=$(exs_tcp_segs)
	pkts=$(exs_rdma_pkts)
	fb=$(exs_fallbacks)
	timeout 120 "${skip[@]}" exs-run nbd-client $peer4 "$port" $dev -N exs -b 4096 \
		-t 60 > "$EXS_TMP/client.$port" 2>&1
	rc=$?
	seen=$(dumped "$port")
	if [ $rc != 0 ] && [ "$how" = rdma ] && nbd_refused $((log + 1)); then
		# this kernel's nbd takes TCP and UNIX sockets only
		touch "$share/$port.refused"
		done_ "$name"
		exs_assert "$name: a: the nbd driver refused the AF_EXS socket cleanly (EINVAL, its message)" \
			"grep -q 'Failed to setup device' $EXS_TMP/client.$port &&
			 [ $(exs_stat_delta "$stat" ConnectRdma) = 1 ]"
		exs_skip "$name: a: the blocks go by RDMA" \
			"this kernel's nbd driver takes TCP and UNIX sockets only"
		exs_check "$name: a: no AF_EXS socket left behind" \
			exs_wait_until 30 exs_no_sockets
		return
	fi
	if [ $rc != 0 ]; then
		exs_fail "$name: a: exs-run nbd-client hands its socket to the kernel" "exit $rc"
		sed 's/^/#   /' "$EXS_TMP/client.$port"
		dmesg | tail -n +$((log + 1)) | tail -n 5 | sed 's/^/#   kernel: /'
		done_ "$name"
		return
	fi
	exs_ok "$name: a: exs-run nbd-client hands its socket to the kernel"
	exs_run "$name: a: the blocks written through $dev read back intact" \
		bash -c "dd if=$EXS_TMP/blocks of=$dev bs=1M oflag=direct conv=fsync status=none &&
			 dd if=$dev bs=1M count=$((bytes >> 20)) iflag=direct status=none |
			 cmp - $EXS_TMP/blocks"
	exs_run "$name: a: nbd-client -d ends it" nbd-client -d $dev
	done_ "$name"
	out=$(exs_stat_delta "$stat" RdmaBytesOut)
	in=$(exs_stat_delta "$stat" RdmaBytesIn)
	if [ "$how" = rdma ]; then
		exs_check "$name: a: the kernel held an AF_EXS socket on RDMA" \
			[ "$seen" = "rdma -" ]
		exs_assert "$name: a: connected over RDMA, never fell back" \
			"[ $(exs_stat_delta "$stat" ConnectRdma) -ge 1 ] &&
			 [ $(exs_fallbacks) -eq $fb ]"
		exs_assert "$name: a: AF_EXS moved the blocks both ways ($out out, $in in)" \
			"[ $out -ge $bytes ] && [ $in -ge $bytes ]"
		exs_check "$name: a: the RDMA device carried them" \
			[ $(($(exs_rdma_pkts) - pkts)) -ge $((2 * bytes / 4096)) ]
		exs_check "$name: a: TCP carried no payload" \
			[ $(($(exs_tcp_segs) - segs)) -lt 40 ]
	elif [ "$how" = plain ]; then
		exs_assert "$name: a: the preload left nbd-client's socket TCP's" \
			"[ -z '$seen' ] && [ $(exs_stat ActiveOpen) = $opens ]"
	else
		exs_check "$name: a: the kernel held a socket merged into TCP ($how)" \
			[ "$seen" = "tcp $how" ]
	fi
	if [ "$how" != rdma ]; then
		exs_assert "$name: a: TCP moved the blocks, AF_EXS and RDMA nothing" \
			"[ $(($(exs_tcp_segs) - segs)) -ge $((2 * bytes / 65536)) ] &&
			 [ $out = 0 ] && [ $in = 0 ] &&
			 [ $(($(exs_rdma_pkts) - pkts)) -lt 40 ]"
	fi
	exs_explain_failures "$stat" "$nfail"
	exs_check "$name: a: no AF_EXS socket left behind" \
		exs_wait_until 30 exs_no_sockets
}

MiB=$((bytes >> 20))
# PORT WRAP HOW NAME: HOW the blocks go, and how b's server accepted
for c in "28001 exs-run rdma nbd-server under exs-run, nbd-client AF_EXS" \
	 "28004 exs-run plain exs-run nbd-client as it comes" \
	 "28002 exs-run policy its port denied in a's map" \
	 "28003 env peer_reject plain nbd-server"; do
	read -r port wrap how name <<< "$c"
	name="$name, $MiB MiB"
	if [ "$host" = b ]; then
		serve "$name" "$port" "$wrap" "$([ $how = rdma ] && echo RDMA || echo TCP)"
	else
		[ "$how" = policy ] &&
			echo "$peer4 - deny=$port" > "$EXS_TMP/map" &&
			exsconfig load "$EXS_TMP/map" >/dev/null
		use "$name" "$port" "$how"
		exsconfig flush >/dev/null
	fi
done

exs_tap_end
