#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# AF_EXS between two hosts (exs-vm --hosts 2): host a runs the clients,
# host b the servers.  Every case checks the data and which socket carried
# it; unmodified programs run under exs-run and the counters on both hosts
# prove that AF_EXS sockets were used.
#
#   exs-vm --hosts 2 -- selftests/exs_pair.sh selftests/exs_pair.sh

. "$(dirname "$0")/lib.sh"

host=${EXS_VM_HOST:?run under exs-vm --hosts 2}
share=${EXS_VM_SHARE:?}
peer4=10.0.0.2
peer6=fd00::2
mkdir -p "$share"

exs_tap_begin "AF_EXS between two hosts, host $host"
exs_loaded || exs_skip_all af_exs "module not loaded"

# Emulated hosts (and the debug kernel above all) set up an RDMA connection
# in seconds, not microseconds: give attempts time before they fall back.
sysctl -qw net.exs.connect_timeout_ms=30000

# EXS_PAIR_SCALE=N divides the transfer sizes (the debug kernel is slow);
# the cases and what they assert stay the same.
scale=${EXS_PAIR_SCALE:-1}
kib() { echo $(($1 * 1024 / scale)); }
[ "$scale" = 1 ] || echo "# transfers scaled down by $scale"

rdma=$(exs_stat ConnectRdma)
reject=$(exs_stat FallbackPeerReject)
acc_rdma=$(exs_stat AcceptRdma)
acc_tcp=$(exs_stat AcceptTcp)

rdma_xfer "ipv4 exs -> exs, 32 MiB each way" 21001 "$(kib 32768)" "-x" "-x -a $peer4"
rdma_xfer "ipv6 exs -> exs, 8 MiB each way" 21002 "$(kib 8192)" "-6 -x" "-6 -x -a $peer6"
pair_xfer "ipv4 exs -> plain TCP server falls back" 21003 \
	"-e inet -n 4000000" "-x -a $peer4 -e inet -n 4000000"
pair_xfer "ipv6 exs -> plain TCP server falls back" 21004 \
	"-6 -e inet6 -n 4000000" "-6 -x -a $peer6 -e inet6 -n 4000000"
pair_xfer "ipv4 plain TCP client -> exs listener" 21005 \
	"-x -e inet -n 4000000" "-a $peer4 -e inet -n 4000000"
rdma_xfer "ipv4 exs, non-blocking connect, epoll" 21006 "$(kib 1024)" \
	"-x -m epoll" "-x -N -a $peer4 -m epoll"
rdma_xfer "ipv4 exs, poll" 21007 "$(kib 1024)" "-x -m poll" "-x -a $peer4 -m poll"
rdma_xfer "ipv4 exs, 200 concurrent connections" 21008 "$(kib 256)" \
	"-x -c 200" "-x -a $peer4 -c 200"
# exs_connect's own -t 900 is this case's bound, not exs_run's default 300 s:
# the debug kernel's eighth (128 MiB each way) took about 300 s in one run
EXS_TEST_TIMEOUT=900 \
rdma_xfer "ipv4 exs -> exs, 1 GiB each way at once" 21010 "$(kib 1048576)" \
	"-x -m block -t 900" "-x -a $peer4 -m block -t 900"

echo "# $host: $(exs_stat_line)"
if [ "$host" = a ]; then
	exs_check "a: every exs -> exs connect went RDMA and was counted" \
		[ $(($(exs_stat ConnectRdma) - rdma)) -eq 205 ]
	exs_check "a: connects to plain TCP servers fell back, reason: peer reject" \
		[ $(($(exs_stat FallbackPeerReject) - reject)) -eq 2 ]
else
	exs_check "b: every exs accept of an exs client was RDMA" \
		[ $(($(exs_stat AcceptRdma) - acc_rdma)) -eq 205 ]
	exs_check "b: the plain TCP client got a plain TCP socket" \
		[ $(($(exs_stat AcceptTcp) - acc_tcp)) -eq 1 ]
fi

# one listener, an AF_EXS client and a plain TCP client at once
if [ "$host" = b ]; then
	acc_rdma=$(exs_stat AcceptRdma)
	acc_tcp=$(exs_stat AcceptTcp)
fi
name="one exs listener serves an RDMA and a TCP client together"
if [ "$host" = b ]; then
	pair_xfer "$name" 21009 "-x -c 2 -n 1000000"
else
	await_ready "$name" || exs_fail "$name" "server never ready"
	exs_bg exs_connect -p 21009 -a $peer4 -e inet -n 1000000
	exs_run "$name: the AF_EXS client" \
		exs_connect -p 21009 -x -a $peer4 -e exs -n 1000000
	exs_check "$name: the plain TCP client" wait "${EXS_PIDS[-1]}"
fi
if [ "$host" = b ]; then
	exs_assert "b: one accept was RDMA, one TCP" \
		'[ $(($(exs_stat AcceptRdma) - acc_rdma)) -eq 1 ] &&
		[ $(($(exs_stat AcceptTcp) - acc_tcp)) -eq 1 ]'
fi

# share_serve NAME PORT N [park]: b's side of the two cases below, the
# exs_share.py server and its verdict
share_serve() {
	local name=$1 err=$EXS_TMP/share.$2.err
	exs_bg exs-run python3 "$(dirname "$0")/exs_share.py" listen "${@:2}" \
		2> "$err"
	exs_wait_listen "$2" 60
	ready "$name"
	if wait "${EXS_PIDS[-1]}"; then
		exs_ok "$name: server side"
	else
		exs_fail "$name: server side"
		sed 's/^/#   /' "$err"
	fi
}

# With net.exs.share_qp 1, connections to one host share a queue pair
# (share.c), that of the first one that is up.  The first two are reset
# and the third closed before the rest move anything: they go on, on the
# queue pair the first built, and the device carries their bytes
# (exs_share.py).  An ack timeout of its
# own keeps the queue pairs of the cases before out of it: a connection
# shares or reuses only a queue pair built with the one in force.
share_qp() {
	local name="ipv4 exs, 8 connections on one queue pair, its first reset"
	local port=21015 n=8 bytes=$(kib 2048) shared pkts
	local here
	here=$(dirname "$0")
	shared=$(exs_stat ConnectShared)
	[ "$host" = b ] && shared=$(exs_stat AcceptShared)
	pkts=$(exs_rdma_pkts)
	if [ "$host" = b ]; then
		share_serve "$name" $port $n
		exs_check "$name: b: a JOIN for each but the first" \
			[ $(($(exs_stat AcceptShared) - shared)) -eq $n ]
	else
		await_ready "$name" || { exs_fail "$name" "server never ready"; return; }
		exs_sysctl net.exs.share_qp=1 net.exs.ack_timeout=19
		exs_run "$name" exs-run python3 "$here/exs_share.py" \
			connect $peer4 $port $n "$bytes"
		exs_sysctl_restore
		exs_check "$name: a: all but the first rode its queue pair" \
			[ $(($(exs_stat ConnectShared) - shared)) -eq $n ]
	fi
	exs_check "$name: $host: the RDMA device carried the bytes" \
		[ $(($(exs_rdma_pkts) - pkts)) -ge $((2 * (n - 2) * bytes / 4096)) ]
}
share_qp

# A rider that ended in order parks on its channel, at both ends, as a
# queue pair does: the next connect to that host takes it (OPEN, READY)
# instead of a JOIN that registers rings of its own.  The first
# connection stays open, so no queue pair parks: every connect after the
# second must take the rider the one before it left.  b lets its parked
# riders go after 6 s (twice its reuse_idle_ms: time enough, on the debug
# kernel beside another boot, for a's next connect), a keeps its own
# 20 s: before the last connect a waits 10 s, and the OPEN for the rider
# b let go is refused; a starts afresh on the link, which stays: a JOIN,
# not TCP, nor a queue pair of its own.
share_park() {
	local name="ipv4 exs, a parked rider taken by each next connection"
	local port=21016 n=6 bytes=$(kib 256) shared reused rdma pkts
	local here
	here=$(dirname "$0")
	shared=$(exs_stat ConnectShared) reused=$(exs_stat ConnectReuse)
	rdma=$(exs_stat ConnectRdma)
	if [ "$host" = b ]; then
		shared=$(exs_stat AcceptShared) reused=$(exs_stat AcceptReuse)
		rdma=$(exs_stat RdmaReject)
	fi
	pkts=$(exs_rdma_pkts)
	if [ "$host" = b ]; then
		exs_sysctl net.exs.reuse_idle_ms=3000
		share_serve "$name" $port $n park
		exs_sysctl_restore
		shared=$(($(exs_stat AcceptShared) - shared))
		reused=$(($(exs_stat AcceptReuse) - reused))
		rdma=$(($(exs_stat RdmaReject) - rdma))
		exs_assert "$name: b: $shared JOINs (2), $reused OPENs on the parked rider ($((n - 2))), $rdma refused (1)" \
			'[ $shared -eq 2 ] && [ $reused -eq $((n - 2)) ] &&
			[ $rdma -eq 1 ]'
	else
		await_ready "$name" || { exs_fail "$name" "server never ready"; return; }
		exs_sysctl net.exs.share_qp=1 net.exs.ack_timeout=18 \
			net.exs.reuse_idle_ms=20000
		exs_run "$name" exs-run python3 "$here/exs_share.py" \
			park $peer4 $port $n "$bytes" 10
		exs_sysctl_restore
		shared=$(($(exs_stat ConnectShared) - shared))
		reused=$(($(exs_stat ConnectReuse) - reused))
		rdma=$(($(exs_stat ConnectRdma) - rdma))
		exs_assert "$name: a: $shared JOINs (2), $reused took the parked rider ($((n - 2))), $rdma over RDMA ($((n + 1)))" \
			'[ $shared -eq 2 ] && [ $reused -eq $((n - 2)) ] &&
			[ $rdma -eq $((n + 1)) ]'
	fi
	exs_check "$name: $host: the RDMA device carried the bytes" \
		[ $(($(exs_rdma_pkts) - pkts)) -ge $((2 * n * bytes / 4096)) ]
}
share_park

# A parked rider whose OPEN is refused (nothing listens at that port)
# parks again at both ends, as a parked queue pair does, and the next
# connect still takes it.  Connection 0 stays open; 1 joins, ends and
# parks; a connect to a port without a listener takes the rider, is
# refused as TCP's, and the rider parks again; 2 and 3 each take it.
share_park_refused() {
	local name="ipv4 exs, a parked rider whose OPEN was refused parks again"
	local port=21026 noport=21027 n=3 bytes=$(kib 256) shared reused rej
	local here
	here=$(dirname "$0")
	if [ "$host" = b ]; then
		shared=$(exs_stat AcceptShared) reused=$(exs_stat AcceptReuse)
		exs_sysctl net.exs.reuse_idle_ms=10000
		share_serve "$name" $port $n park
		exs_sysctl_restore
		exs_assert "$name: b: one JOIN, then OPENs on the parked rider" \
			'[ $(($(exs_stat AcceptShared) - shared)) -eq 1 ] &&
			[ $(($(exs_stat AcceptReuse) - reused)) -eq $((n - 1)) ]'
	else
		shared=$(exs_stat ConnectShared) reused=$(exs_stat ConnectReuse)
		rej=$(exs_stat FallbackPeerReject)
		await_ready "$name" || { exs_fail "$name" "server never ready"; return; }
		exs_sysctl net.exs.share_qp=1 net.exs.ack_timeout=24 \
			net.exs.reuse_idle_ms=10000
		exs_run "$name" exs-run python3 "$here/exs_share.py" \
			park $peer4 $port $n "$bytes" 0 $noport
		exs_sysctl_restore
		exs_assert "$name: a: one JOIN, one refusal, the rider taken after it" \
			'[ $(($(exs_stat ConnectShared) - shared)) -eq 1 ] &&
			[ $(($(exs_stat FallbackPeerReject) - rej)) -eq 1 ] &&
			[ $(($(exs_stat ConnectReuse) - reused)) -eq $((n - 1)) ]'
	fi
}
share_park_refused

# A parked rider whose channel the other host gave to another stream:
# b lets its riders go as they end (net.exs.reuse_idle_ms 0), a parks
# its own.  Connection 1 parks at a only; connection 2 (a ring of
# another size, so it takes no parked rider) JOINs and gets at b the
# channel b let go; connection 3 takes a's parked rider, and its OPEN
# reaches connection 2's stream at b.  That OPEN is refused (RdmaReject),
# 3 JOINs afresh, over RDMA, and no stream is reset, no protocol error
# counted (exs_share.py taken).
share_park_taken() {
	local name="ipv4 exs, an OPEN for a parked rider whose channel was taken"
	local port=21030 bytes=$(kib 256) shared reused rdma rej perr
	local here
	here=$(dirname "$0")
	perr=$(exs_stat ProtocolErrors)
	if [ "$host" = b ]; then
		shared=$(exs_stat AcceptShared) rej=$(exs_stat RdmaReject)
		exs_sysctl net.exs.reuse_idle_ms=0
		share_serve "$name" $port 3 park
		exs_sysctl_restore
		shared=$(($(exs_stat AcceptShared) - shared))
		rej=$(($(exs_stat RdmaReject) - rej))
		exs_assert "$name: b: $shared JOINs (3), $rej refused (1)" \
			"[ $shared -eq 3 ] && [ $rej -eq 1 ]"
	else
		shared=$(exs_stat ConnectShared) reused=$(exs_stat ConnectReuse)
		rdma=$(exs_stat ConnectRdma) rej=$(exs_fallbacks)
		await_ready "$name" || { exs_fail "$name" "server never ready"; return; }
		exs_sysctl net.exs.share_qp=1 net.exs.ack_timeout=25 \
			net.exs.reuse_idle_ms=10000
		exs_run "$name" exs-run python3 "$here/exs_share.py" \
			taken $peer4 $port "$bytes"
		exs_sysctl_restore
		shared=$(($(exs_stat ConnectShared) - shared))
		reused=$(($(exs_stat ConnectReuse) - reused))
		rdma=$(($(exs_stat ConnectRdma) - rdma))
		rej=$(($(exs_fallbacks) - rej))
		exs_assert "$name: a: $shared JOINs (3), $reused reused (0), $rdma over RDMA (4), $rej fell back (0)" \
			"[ $shared -eq 3 ] && [ $reused -eq 0 ] && [ $rdma -eq 4 ] && [ $rej -eq 0 ]"
	fi
	exs_check "$name: $host: no protocol error" \
		[ "$(exs_stat ProtocolErrors)" -eq "$perr" ]
}
share_park_taken

# What a peer makes this host pin is bounded and charged (mem.c): b
# caps what one peer's accepted streams pin (net.exs.ring_mem_peer) at
# four streams' rings (1 MiB each way: 512 pages a stream), and serves
# from a memory cgroup of its own.  a opens six connections and holds
# them: four are RDMA, the last two are refused (RingMemRefused,
# FallbackNoMem) and go to TCP, every byte intact.  While a holds them
# all open, b reads RingMemPages (the cap, printed) and its cgroup's
# kernel memory (grown by the four streams' rings at least); once they
# closed, RingMemPages is back where it was.  With "req" every
# connection is a queue pair of its own (a REQ each), with "join" they
# ride the first one's link (JOINs).
ring_mem_ring_pages() { [ "$(exs_stat RingMemPages)" -le "$1" ]; }
ring_mem_bound() {	# ring_mem_bound req|join PORT ACK-TIMEOUT
	local name="ipv4 exs, accepted rings bounded per peer, charged ($1)"
	local port=$2 n=5 cap=2048 here base cg err sharing=0 reuse=0
	local refused acc tcp rdma rej peak kmem0= kmem memory_on=
	here=$(dirname "$0")
	[ "$1" = join ] && sharing=1 reuse=10000
	if [ "$host" = b ]; then
		cg=/sys/fs/cgroup/exs-ringmem.$port err=$EXS_TMP/ringmem.$port.err
		# what the cases before left parked goes first (2 x 10 s):
		# one that went mid-case would make room under the cap
		if ! exs_wait_until 60 ring_mem_ring_pages 0; then
			exs_fail "$name" "RingMemPages $(exs_stat RingMemPages) left by earlier cases"
			ready "$name"
			return
		fi
		base=0
		[ -e /sys/fs/cgroup/cgroup.subtree_control ] || cg=
		if [ -n "$cg" ] &&
		   ! grep -qw memory /sys/fs/cgroup/cgroup.subtree_control; then
			echo +memory > /sys/fs/cgroup/cgroup.subtree_control &&
				memory_on=1
		fi
		[ -n "$cg" ] && mkdir -p "$cg"
		refused=$(exs_stat RingMemRefused) acc=$(exs_stat AcceptRdma)
		tcp=$(exs_stat AcceptTcp)
		exs_sysctl net.exs.ring_size=1048576 net.exs.reuse_idle_ms=0 \
			net.exs.ring_mem_peer=$((base + cap))
		(if [ -n "$cg" ]; then echo "$BASHPID" > "$cg/cgroup.procs"; fi &&
			exec exs-run python3 "$here/exs_share.py" listen $port $n) \
			2> "$err" &
		EXS_PIDS+=($!)
		exs_wait_listen $port 60
		# the server's own kernel memory is in it by now
		[ -n "$cg" ] &&
			kmem0=$(awk '$1 == "kernel" { print $2 }' "$cg/memory.stat" 2>/dev/null)
		ready "$name"
		# a holds them all open until b has looked
		if exs_wait_file "$share/ringmem.up.$port" 180; then
			peak=$(exs_stat RingMemPages)
			[ -n "$cg" ] &&
				kmem=$(awk '$1 == "kernel" { print $2 }' "$cg/memory.stat" 2>/dev/null)
		fi
		touch "$share/ringmem.seen.$port"
		if wait "${EXS_PIDS[-1]}"; then
			exs_ok "$name: server side"
		else
			exs_fail "$name: server side"
			sed 's/^/#   /' "$err"
		fi
		exs_sysctl_restore
		refused=$(($(exs_stat RingMemRefused) - refused))
		acc=$(($(exs_stat AcceptRdma) - acc)) tcp=$(($(exs_stat AcceptTcp) - tcp))
		exs_assert "$name: b: $acc RDMA (4), $tcp TCP (2), $refused refused (2)" \
			"[ $acc -eq 4 ] && [ $tcp -eq 2 ] && [ $refused -eq 2 ]"
		exs_check "$name: b: with all open, RingMemPages $((${peak:-0} - base)) over $base, the cap $cap" \
			[ $((${peak:-0} - base)) -eq $cap ]
		if [ -n "$kmem0" ]; then
			exs_check "$name: b: its cgroup's kernel memory grew $(((${kmem:-0} - kmem0) >> 20)) MiB (8 at least)" \
				[ $((${kmem:-0} - kmem0)) -ge $((8 << 20)) ]
		else
			exs_skip "$name: b: charged to its cgroup" "no memory controller"
		fi
		exs_check "$name: b: RingMemPages back to $base once they closed" \
			exs_wait_until 60 ring_mem_ring_pages "$base"
		if [ -n "$cg" ]; then
			rmdir "$cg" 2>/dev/null
			[ -n "$memory_on" ] &&
				echo -memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
		fi
	else
		rdma=$(exs_stat ConnectRdma) rej=$(exs_stat FallbackNoMem)
		await_ready "$name" || { exs_fail "$name" "server never ready"; return; }
		exs_sysctl net.exs.share_qp=$sharing net.exs.ack_timeout="$3" \
			net.exs.ring_size=1048576 net.exs.reuse_idle_ms=$reuse
		# once all are up (step 1), b looks before they move or close
		printf '#!/bin/sh\n[ "$1" = 1 ] || exit 0\ntouch %s\nfor i in $(seq 1800); do [ -e %s ] && exit 0; sleep 0.1; done\nexit 1\n' \
			"$share/ringmem.up.$port" "$share/ringmem.seen.$port" \
			> "$EXS_TMP/ringmem.$port.look"
		chmod +x "$EXS_TMP/ringmem.$port.look"
		exs_run "$name" exs-run python3 "$here/exs_share.py" \
			hold $peer4 $port $n "$(kib 1024)" "$EXS_TMP/ringmem.$port.look"
		exs_sysctl_restore
		rdma=$(($(exs_stat ConnectRdma) - rdma))
		rej=$(($(exs_stat FallbackNoMem) - rej))
		exs_assert "$name: a: $rdma over RDMA (4), $rej refused to TCP, FallbackNoMem (2)" \
			"[ $rdma -eq 4 ] && [ $rej -eq 2 ]"
	fi
}
ring_mem_bound req 21031 26
ring_mem_bound join 21032 27

# Small messages on a shared queue pair go in batches (batch.c): while
# one awaits its ack, the next ones of every connection on it gather in
# the next.  Nine connections exchange small messages at once, each
# echoed and checked (exs_share.py); at both hosts BATCH messages carried
# them, and more writes went in them than there were batches.
share_batch() {
	local name="ipv4 exs, 9 connections' small messages batched on one queue pair"
	local port=21017 n=8 rounds=$((400 / scale)) batches writes
	local here
	here=$(dirname "$0")
	batches=$(exs_stat RdmaBatches) writes=$(exs_stat RdmaBatchedWrites)
	if [ "$host" = b ]; then
		share_serve "$name" $port $n
	else
		await_ready "$name" || { exs_fail "$name" "server never ready"; return; }
		exs_sysctl net.exs.share_qp=1 net.exs.ack_timeout=17
		exs_run "$name" exs-run python3 "$here/exs_share.py" \
			pingpong $peer4 $port $n $rounds
		exs_sysctl_restore
	fi
	batches=$(($(exs_stat RdmaBatches) - batches))
	writes=$(($(exs_stat RdmaBatchedWrites) - writes))
	exs_assert "$name: $host: $writes writes in $batches batches" \
		"[ $batches -gt 0 ] && [ $writes -gt $batches ]"
}
share_batch

# A late READY: b's READY leaves b after a's connect_timeout_ms.  a's own
# READY (or OPEN) reached b meanwhile, and b's listener took the
# connection on it, so a must await b's answer rather than give up and
# reset a connection b's server holds (conn.c, exs_conn_answer_late()).
# tc delays b's RC SENDs (BTH opcode 4: READY and the other control
# messages) by 2.5 s, not the acks of a's; a's connect_timeout_ms is 1 s.
# No bytes: b sends nothing but SENDs, all late alike (a ring write
# overtaking a late SEND would reorder the queue pair's packets, a fault
# of another kind).  Twice: on a new queue pair, and on it parked, where
# a's OPEN awaits the READY.  a's ring size is this case's own, so that
# queue pairs parked by the cases before stay out of it, and it shares
# none (net.exs.share_qp 0).
# roce_netem DEV NETEM [MATCH...]: netem NETEM on what DEV sends to
# RoCEv2's UDP port that u32's MATCH also matches, the rest untouched
roce_netem() {
	local dev=$1 netem=$2

	shift 2
	exs_roce_band "$dev" "netem $netem" "$@"
}
# roce_netem_works: both hosts find the same (the debug kernel has no tc
# prio or u32)
roce_netem_works() {
	local ok

	ip link add exs-tc type dummy
	roce_netem exs-tc "delay 1ms" 2>/dev/null
	ok=$?
	ip link del exs-tc
	return $ok
}
late_sends() {	# late_sends DEV: delay DEV's RoCEv2 RC SENDs by 2.5 s
	roce_netem "$1" "delay 2500ms" match u8 4 0xff at 28
}
parked_since() { [ $(($(exs_stat Parked) - $1)) -ge 1 ]; }
late_ready() {
	local name="the peer's READY comes after connect_timeout_ms" port=21011
	local n=0 acc_rdma acc_reuse rdma reuse parked timeouts
	roce_netem_works || { exs_skip "$name" "no tc prio, netem or u32"; return; }
	if [ "$host" = b ]; then
		acc_rdma=$(exs_stat AcceptRdma) acc_reuse=$(exs_stat AcceptReuse)
		late_sends exs0
		pair_xfer "$name" $port "-x -c 2 -e exs -n $n"
		tc qdisc del dev exs0 root
		exs_assert "$name: b: both accepted over RDMA, the second on a parked queue pair" \
			'[ $(($(exs_stat AcceptRdma) - acc_rdma)) -eq 2 ] &&
			[ $(($(exs_stat AcceptReuse) - acc_reuse)) -eq 1 ]'
		return
	fi
	rdma=$(exs_stat ConnectRdma) reuse=$(exs_stat ConnectReuse)
	parked=$(exs_stat Parked) timeouts=$(exs_stat FallbackTimeout)
	exs_sysctl net.exs.connect_timeout_ms=1000 net.exs.ring_size=131072 \
		net.exs.share_qp=0
	await_ready "$name" || { exs_fail "$name" "server never ready"; return; }
	exs_run "$name: a: on a new queue pair" \
		exs_connect -x -a $peer4 -p $port -e exs -n $n
	exs_check "$name: a: whose end parks" exs_wait_until 30 parked_since "$parked"
	exs_run "$name: a: on that queue pair, parked" \
		exs_connect -x -a $peer4 -p $port -e exs -n $n
	exs_sysctl_restore
	exs_assert "$name: a: both over RDMA, the second a reuse, no timeout" \
		'[ $(($(exs_stat ConnectRdma) - rdma)) -eq 2 ] &&
		[ $(($(exs_stat ConnectReuse) - reuse)) -eq 1 ] &&
		[ "$(exs_stat FallbackTimeout)" -eq "$timeouts" ]'
}
late_ready

# timed_out NAME STAT STEP: since exs_stat_save STAT, the module logged a
# connect to b that timed out at STEP
timed_out() {
	exs_module_logged "$1" "$2" "connect to ::ffff:$peer4 timed out: $3"
}

# A peer whose RDMA never answers (a firewall that drops RoCE, say): tc
# drops every RoCEv2 packet a sends, so its REQ goes nowhere.  With no
# head start for TCP (connect_race_ms 0), a's connect must go to TCP at
# connect_timeout_ms (1 s here), counted as FallbackTimeout, and the
# module's log must say the REQ had no REP.
# No negative-cache entry outlives the case; a ring size of its own
# keeps parked queue pairs out of it, and net.exs.share_qp 0 those that
# carry others.
no_rep() {
	local name="the peer's RDMA never answers, no race: TCP after connect_timeout_ms"
	local port=21012 stat=$EXS_TMP/no_rep.stat timeouts

	roce_netem_works || { exs_skip "$name" "no tc prio, netem or u32"; return; }
	if [ "$host" = b ]; then
		pair_xfer "$name" $port "-x -e inet -n 100000"
		return
	fi
	exs_stat_save "$stat"
	timeouts=$(exs_stat FallbackTimeout)
	exs_sysctl net.exs.connect_timeout_ms=1000 net.exs.neg_cache_ttl_ms=0 \
		net.exs.ring_size=65536 net.exs.share_qp=0 net.exs.connect_race_ms=0
	roce_netem exs0 "loss 100%"
	pair_xfer "$name" $port "" "-x -a $peer4 -e inet -n 100000"
	tc qdisc del dev exs0 root
	exs_sysctl_restore
	exs_check "$name: a: counted as FallbackTimeout" \
		[ $(($(exs_stat FallbackTimeout) - timeouts)) -eq 1 ]
	timed_out "$name: a: the module says its REQ had no REP" "$stat" \
		"REQ sent, no REP"
}
no_rep

# A READY that never comes: tc drops the RC SENDs both hosts send (READY
# and the other control messages), the CM's handshake passing.  a's
# connect goes to TCP at connect_timeout_ms, counted as FallbackTimeout,
# and the log says it had no READY.  b answered the REQ, so b runs
# AF_EXS: no negative-cache entry, and the next connect, once the link is
# clean again, is RDMA.
no_ready() {
	local name="the peer's READY never comes: TCP, the next connect RDMA"
	local port=21013 stat=$EXS_TMP/no_ready.stat timeouts rdma cached

	roce_netem_works || { exs_skip "$name" "no tc prio, netem or u32"; return; }
	if [ "$host" = b ]; then
		roce_netem exs0 "loss 100%" match u8 4 0xff at 28
		pair_xfer "$name" $port "-x -e inet -n 100000"
		tc qdisc del dev exs0 root
		pair_xfer "$name: again" $port "-x -e exs -n 100000"
		return
	fi
	exs_stat_save "$stat"
	timeouts=$(exs_stat FallbackTimeout) rdma=$(exs_stat ConnectRdma)
	cached=$(exs_stat FallbackNegCache)
	exs_sysctl net.exs.connect_timeout_ms=3000 net.exs.ring_size=32768 \
		net.exs.share_qp=0
	roce_netem exs0 "loss 100%" match u8 4 0xff at 28
	pair_xfer "$name" $port "" "-x -a $peer4 -e inet -n 100000"
	tc qdisc del dev exs0 root
	timed_out "$name: a: the module says it had no READY" "$stat" \
		"connected, no READY"
	pair_xfer "$name: again" $port "" "-x -a $peer4 -e exs -n 100000"
	exs_sysctl_restore
	exs_assert "$name: a: one FallbackTimeout, then RDMA, not the negative cache" \
		'[ $(($(exs_stat FallbackTimeout) - timeouts)) -eq 1 ] &&
		[ $(($(exs_stat ConnectRdma) - rdma)) -eq 1 ] &&
		[ "$(exs_stat FallbackNegCache)" -eq "$cached" ]'
}
no_ready

# A connect waiting for a link coming up (link_table.c) waits no longer
# than its own connect() may: tc drops what a sends to RoCEv2's port, a
# first connect with a connect_timeout_ms of 60 s claims the link and
# waits, non-blocking; a second, made with 1.5 s, waits for that link
# (ConnectLinkWait) and must be on TCP at its own deadline, counted as
# FallbackTimeout, while the first still waits (its link's attempt would
# have held the second past the script's 30 s).  A ring size and an ack
# timeout of its own keep the links and parked queue pairs of the cases
# before out of it.
link_wait_deadline() {
	local name="a connect waiting for a link goes to TCP at its own deadline"
	local port=21019 timeouts waited here
	here=$(dirname "$0")

	roce_netem_works || { exs_skip "$name" "no tc prio, netem or u32"; return; }
	if [ "$host" = b ]; then
		share_serve "$name" $port 0
		return
	fi
	timeouts=$(exs_stat FallbackTimeout) waited=$(exs_stat ConnectLinkWait)
	await_ready "$name" || { exs_fail "$name" "server never ready"; return; }
	exs_sysctl net.exs.share_qp=1 net.exs.ack_timeout=18 \
		net.exs.ring_size=16384 net.exs.neg_cache_ttl_ms=0 \
		net.exs.connect_timeout_ms=60000 net.exs.connect_race_ms=0
	roce_netem exs0 "loss 100%"
	if exs-run python3 "$here/exs_share.py" linkwait $peer4 $port \
		2> "$EXS_TMP/linkwait.err"; then
		exs_ok "$name: a"
	else
		exs_fail "$name: a"
		sed 's/^/#   /' "$EXS_TMP/linkwait.err"
	fi
	tc qdisc del dev exs0 root
	exs_sysctl_restore
	exs_assert "$name: a: it waited for the link, then timed out" \
		'[ $(($(exs_stat ConnectLinkWait) - waited)) -eq 1 ] &&
		 [ $(($(exs_stat FallbackTimeout) - timeouts)) -eq 1 ]'
}
link_wait_deadline

# A rider's batched bytes await their ack as a request of its own does
# (keepalive.c): tc drops every RoCEv2 packet a sends once the rider of
# an idle queue pair set TCP_USER_TIMEOUT (2 s), so the batch holding its
# next request is never acked, and nothing else on the queue pair awaits
# an ack.  Its recv must fail with ETIMEDOUT, counted in RdmaStalls, and
# the deadline is that socket's alone: the queue pair's first
# connection, which set none, stays up (exs_share.py checks).  An ack
# timeout of its own keeps the queue pairs of the cases before out.
# b's end hears nothing of the cut (as a TCP server would not): its
# server stops once a is done, instead of at its own 120 s timeout.
share_batch_stall() {
	local name="ipv4 exs, a rider's batched request never acked: ETIMEDOUT"
	local port=21018 flag=$EXS_TMP/stall stalls batches
	local here
	here=$(dirname "$0")
	roce_netem_works || { exs_skip "$name" "no tc prio, netem or u32"; return; }
	if [ "$host" = b ]; then
		exs_bg exs-run python3 "$here/exs_share.py" listen $port 1 \
			2> "$EXS_TMP/stall.err"
		exs_wait_listen $port 60
		ready "$name"
		exs_wait_file "$share/ready.$name: done" 300
		if kill -0 "${EXS_PIDS[-1]}" 2> /dev/null; then
			kill "${EXS_PIDS[-1]}"
			exs_ok "$name: server side"
		elif wait "${EXS_PIDS[-1]}"; then
			exs_ok "$name: server side"
		else
			exs_fail "$name: server side"
			sed 's/^/#   /' "$EXS_TMP/stall.err"
		fi
		return
	fi
	stalls=$(exs_stat RdmaStalls) batches=$(exs_stat RdmaBatches)
	if ! await_ready "$name"; then
		exs_fail "$name" "server never ready"
		ready "$name: done"
		return
	fi
	exs_sysctl net.exs.share_qp=1 net.exs.ack_timeout=15
	exs_bg exs-run python3 "$here/exs_share.py" stall $peer4 $port "$flag" \
		2> "$EXS_TMP/stall.err"
	if exs_wait_file "$flag.ready" 120; then
		roce_netem exs0 "loss 100%"
		touch "$flag"
		if wait "${EXS_PIDS[-1]}"; then
			exs_ok "$name: a"
		else
			exs_fail "$name: a"
			sed 's/^/#   /' "$EXS_TMP/stall.err"
		fi
		tc qdisc del dev exs0 root
	else
		exs_fail "$name: a" "$(cat "$EXS_TMP/stall.err")"
	fi
	exs_sysctl_restore
	ready "$name: done"
	exs_assert "$name: a: in a batch, counted in RdmaStalls" \
		'[ "$(exs_stat RdmaBatches)" -gt "$batches" ] &&
		[ "$(exs_stat RdmaStalls)" -gt "$stalls" ]'
}
share_batch_stall

# A node that answers ARP late: b ignores a's ARP requests for 6 s, so
# a's neighbour entry for b, flushed, fails after its three probes (3 s).
# a's address resolution tries again every half second (connect.c,
# EXS_RESOLVE_TRY_MS), soliciting each time, so once b answers the
# connect goes RDMA, long before connect_timeout_ms (30 s here); one try
# of the whole timeout would sleep until it, the entry failed, and then
# fall back.
arp_late() {
	local name="the node answers ARP 6 s late: still RDMA" restore

	if [ "$host" = b ]; then
		sysctl -qw net.ipv4.conf.exs0.arp_ignore=8
		(sleep 6; sysctl -qw net.ipv4.conf.exs0.arp_ignore=0) &
		restore=$!
		ready "$name: ARP ignored"
	else
		await_ready "$name: ARP ignored" && ip neigh flush dev exs0
	fi
	rdma_xfer "$name" 21014 "$(kib 1024)" "-x" "-x -a $peer4"
	[ "$host" = b ] && wait "$restore"
}
arp_late

# Version negotiation: a host capped one wire version lower (the module's
# wire_version) still speaks RDMA with one that is not, as acceptor (it
# picks the lower version from the connector's range) and as connector
# (its REQ names the lower version alone): the connection is RDMA at both
# ends, and its link speaks the lower version (exsconfig's links, looked
# at while the connection is open).  An ack timeout of its own builds a
# new queue pair for each half: a parked or shared one would carry the
# version it was built with.
exs_wire_param=/sys/module/af_exs/parameters/wire_version
link_speaks() {	# link_speaks LINKS SOCKS PORT VERSION
	python3 - "$@" <<'PY'
import json, sys
links, socks = (json.load(open(f)) for f in sys.argv[1:3])
port, version = int(sys.argv[3]), int(sys.argv[4])
mine = [s for s in socks if s.get("peer_port") == port]
ids = {s.get("link") for s in mine}
ok = (len(mine) == 1 and mine[0].get("transport") == "rdma" and
      [l.get("version") for l in links if l.get("id") in ids] == [version])
if not ok:
    print(f"# sockets to {port}: {mine}")
    print(f"# links: {links}")
sys.exit(0 if ok else 1)
PY
}
wire_capped() {	# wire_capped HOST ACK-TIMEOUT PORT: HOST speaks one lower
	local name="$1 capped one wire version lower" v pkts rdma
	local here
	here=$(dirname "$0")
	v=$(cat "$exs_wire_param")
	pkts=$(exs_rdma_pkts)
	[ "$host" = "$1" ] && echo $((v - 1)) > "$exs_wire_param"
	if [ "$host" = b ]; then
		rdma=$(exs_stat AcceptRdma)
		share_serve "$name" "$3" 0
		exs_check "$name: b: accepted over RDMA" \
			[ $(($(exs_stat AcceptRdma) - rdma)) -eq 1 ]
	else
		printf '#!/bin/sh\nexsconfig -j links > %s.links.$1 && exsconfig -j sockets > %s.socks.$1\n' \
			"$EXS_TMP/wire$3" "$EXS_TMP/wire$3" > "$EXS_TMP/wire$3.look"
		chmod +x "$EXS_TMP/wire$3.look"
		rdma=$(exs_stat ConnectRdma)
		await_ready "$name" || { exs_fail "$name" "server never ready"; return; }
		exs_sysctl net.exs.ack_timeout="$2"
		exs_run "$name" exs-run python3 "$here/exs_share.py" hold \
			$peer4 "$3" 0 "$(kib 1024)" "$EXS_TMP/wire$3.look"
		exs_sysctl_restore
		exs_check "$name: a: connected over RDMA" \
			[ $(($(exs_stat ConnectRdma) - rdma)) -eq 1 ]
		exs_check "$name: a: its link speaks version $((v - 1))" \
			link_speaks "$EXS_TMP/wire$3.links.1" \
			"$EXS_TMP/wire$3.socks.1" "$3" $((v - 1))
	fi
	exs_check "$name: $host: the RDMA device carried the bytes" \
		[ $(($(exs_rdma_pkts) - pkts)) -ge $((2 * $(kib 1024) / 4096)) ]
	[ "$host" = "$1" ] && echo "$v" > "$exs_wire_param"
	# each host's cap stays its own until both are done
	if [ "$host" = b ]; then
		ready "$name: done"
	else
		await_ready "$name: done"
	fi
}
if [ -w "$exs_wire_param" ]; then
	wire_capped b 22 21024
	wire_capped a 23 21025
else
	exs_skip "wire version negotiation" "no wire_version parameter"
fi

# Fair sharing: a 64-byte ping-pong whose link also carries a stream of
# 64 KiB writes (exs_bench -w fair, three rounds, beside two TCP
# connections measured alike).  What is asserted is what the two streams
# did: each AF_EXS round's stream rode the ping-pong's link (JOIN, or a
# channel of it parked the round before), both over RDMA, TCP's over TCP,
# and the ping-pong kept exchanging while the stream kept writing, and
# was done before the stream's own end (a starved one makes its round
# trips only once the stream ends, 34 s in: load_outlived).  The latency
# quotients (loaded over alone, AF_EXS's over TCP's) are printed, never
# judged: make bench judges them, as fair_exs_over_tcp (at most 2).
share_fair() {
	local name="a ping-pong beside a 64 KiB stream on its link: both move" r
	local out=$EXS_TMP/fair.json shared reused rdma
	if [ "$host" = b ]; then
		exs_bg exs_bench -s -f exs -p 21028
		exs_bg exs_bench -s -f tcp -p 21029
		exs_wait_listen 21028 30 && exs_wait_listen 21029 30
		ready "$name"
		await_done "$name"
		kill "${EXS_PIDS[-1]}" "${EXS_PIDS[-2]}" 2>/dev/null
		return
	fi
	await_ready "$name" || { exs_fail "$name" "server never ready"; return; }
	shared=$(exs_stat ConnectShared) reused=$(exs_stat ConnectReuse)
	rdma=$(exs_stat ConnectRdma)
	exs_sysctl net.exs.share_qp=1
	: > "$out"
	for r in 1 2 3; do
		# the load ends by itself 34 s in: bounded
		timeout 120 exs_bench -c $peer4 -p 21028 -f exs -w fair -z 64 \
			-t 2 >> "$out" &&
		timeout 120 exs_bench -c $peer4 -p 21029 -f tcp -w fair -z 64 \
			-t 2 >> "$out" || break
	done
	exs_sysctl_restore
	done_ "$name"
	# a round's connections JOIN the link, or OPEN on a channel of it
	# parked by the round before (ConnectReuse): what no load stream
	# may do is set up a queue pair of its own
	exs_check "$name: a: no load stream on a queue pair of its own" \
		[ $(($(exs_stat ConnectRdma) - rdma - $(exs_stat ConnectShared) + shared \
		     - $(exs_stat ConnectReuse) + reused)) -le 3 ]
	exs_run "$name" python3 - "$out" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
q = {f: [r["lat_us"] / r["lat_alone_us"] for r in runs
         if r["family"] == f and r["carrier"] == c]
     for f, c in (("exs", "rdma"), ("tcp", "tcp-socket"))}
if len(q["exs"]) != 3 or len(q["tcp"]) != 3:
    sys.exit(f"runs on the wrong transport, or missing: {runs}")
exs, tcp = statistics.median(q["exs"]), statistics.median(q["tcp"])
print(f"loaded/alone latency: AF_EXS {exs:.2f} (rounds {q['exs']}), "
      f"TCP {tcp:.2f} (rounds {q['tcp']}), ratio {exs / tcp:.2f} "
      "(printed; make bench judges it)")
# both moved at once: round trips under the load, the load's writes
# between the first and the last of them, and the load still writing
# when the ping-pong was done (a starved one ends after it)
stalled = [r for r in runs if r["iters"] < 2 or r.get("load_writes", 0) < 1
           or r.get("load_outlived", True)]
if stalled:
    sys.exit(f"a round where one of the two did not move: {stalled}")
PY
	# both quotients, printed whatever the verdict
	sed 's/^/# /' "$EXS_TMP/run.log" | tail -n 1
}
share_fair

# A SO_REUSEPORT group (listeners.c): four IPPROTO_EXS listeners on one
# port of b, which take SO_REUSEPORT on 6.1 too, and 48 connections from
# a, one after another, the first held open: every listener must accept
# RDMA connections, and none come by TCP.  Twice: with the links shared
# (the first connection sends a REQ, the others JOIN its link or OPEN a
# channel of it parked: b counts some), and with sharing and parking off
# (each one a REQ of its own: b counts neither).  Before the group, only
# the first listener took RDMA; the others listened for TCP alone
# (ListenTcpOnly).
reuseport_group() {
	local name="a SO_REUSEPORT group of 4: every listener takes RDMA"
	local round port tcponly fb joined
	for round in shared own; do
		case $round in
		shared) port=21046 ;;
		own) port=21047 ;;
		esac
		if [ "$host" = b ]; then
			tcponly=$(exs_stat ListenTcpOnly)
			joined=$(($(exs_stat AcceptShared) + $(exs_stat AcceptReuse)))
			exs_bg timeout 300 python3 "$(dirname "$0")/exs_reuseport.py" \
				listen $port 4 48 240 > "$EXS_TMP/reuseport.out" 2>&1
			exs_wait_listen $port 30
			ready "$name $round"
			await_done "$name $round"
			# its last accept came before a's last echo
			exs_wait_until 10 bash -c "! kill -0 ${EXS_PIDS[-1]} 2>/dev/null"
			kill "${EXS_PIDS[-1]}" 2>/dev/null
			if wait "${EXS_PIDS[-1]}"; then
				exs_ok "$name ($round links): b: each listener's accepts"
			else
				exs_fail "$name ($round links): b: each listener's accepts"
			fi
			sed 's/^/# /' "$EXS_TMP/reuseport.out"
			exs_check "$name ($round links): b: all four listened for RDMA" \
				[ "$(exs_stat ListenTcpOnly)" -eq "$tcponly" ]
			joined=$(($(exs_stat AcceptShared) + $(exs_stat AcceptReuse) - joined))
			if [ $round = shared ]; then
				exs_check "$name (shared links): b: JOINs or OPENs came ($joined)" \
					[ "$joined" -gt 0 ]
			else
				exs_check "$name (own links): b: every one a REQ" \
					[ "$joined" -eq 0 ]
			fi
			continue
		fi
		if ! await_ready "$name $round"; then
			exs_fail "$name ($round links)" "server never ready"
			done_ "$name $round"
			continue
		fi
		[ $round = own ] &&
			exs_sysctl net.exs.share_qp=0 net.exs.reuse_idle_ms=0
		fb=$(exs_fallbacks)
		exs_run "$name ($round links): a: 48 connects over RDMA" \
			python3 "$(dirname "$0")/exs_reuseport.py" connect $peer4 $port 48
		exs_sysctl_restore
		exs_check "$name ($round links): a: none fell back" \
			[ "$(exs_fallbacks)" -eq "$fb" ]
		done_ "$name $round"
	done
}
reuseport_group

# unmodified_run NAME "SERVER CMD" "CLIENT CMD": both under exs-run
unmodified_run() {
	local name=$1 server=$2 client=$3 port=$4
	if [ "$host" = b ]; then
		acc=$(exs_stat AcceptRdma)
		exs_bg exs-run bash -c "$server" > "$EXS_TMP/$port.log" 2>&1
		exs_wait_listen "$port" 30
		ready "$name"
		await_done "$name"
		exs_check "$name: the server accepted over RDMA" \
			[ $(($(exs_stat AcceptRdma) - acc)) -ge 1 ]
		kill "${EXS_PIDS[-1]}" 2>/dev/null
	else
		local rdma fb pkts
		rdma=$(exs_stat ConnectRdma)
		fb=$(exs_fallbacks)
		pkts=$(exs_rdma_pkts)
		await_ready "$name" || { exs_fail "$name" "server never ready"; return; }
		exs_run "$name" exs-run bash -c "$client"
		done_ "$name"
		exs_assert "$name: the client connected over RDMA, never fell back" \
			'[ $(($(exs_stat ConnectRdma) - rdma)) -ge 1 ] &&
			[ "$(exs_fallbacks)" -eq "$fb" ] &&
			[ $(($(exs_rdma_pkts) - pkts)) -ge 100 ]'
	fi
}

if command -v iperf3 >/dev/null; then
	unmodified_run "iperf3 under exs-run" "iperf3 -s -p 5201" \
		"iperf3 -c $peer4 -p 5201 -t 3 -J > $EXS_TMP/iperf3.json &&
		 python3 -c 'import json,sys; d=json.load(open(\"$EXS_TMP/iperf3.json\"));
sys.exit(0 if d[\"end\"][\"sum_received\"][\"bytes\"] > 0 else 1)'" 5201
else
	exs_skip "iperf3 under exs-run" "iperf3 not installed"
fi

if command -v sockperf >/dev/null; then
	unmodified_run "sockperf ping-pong under exs-run" "sockperf sr --tcp -p 11111" \
		"sockperf pp --tcp -i $peer4 -p 11111 -t 2 -m 64 > $EXS_TMP/sockperf.log &&
		 grep -q 'Summary: Latency' $EXS_TMP/sockperf.log" 11111
else
	exs_skip "sockperf ping-pong under exs-run" "sockperf not installed"
fi

if command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null; then
	unmodified_run "redis-server and redis-benchmark under exs-run" \
		"redis-server --port 6379 --bind 0.0.0.0 --protected-mode no --save '' --appendonly no" \
		"redis-benchmark -h $peer4 -p 6379 -n 2000 -c 8 -t set,get -q --csv > $EXS_TMP/redis.csv &&
		 grep -q '\"GET\"' $EXS_TMP/redis.csv &&
		 redis-cli -h $peer4 -p 6379 set exs ok >/dev/null &&
		 [ \"\$(redis-cli -h $peer4 -p 6379 get exs)\" = ok ]" 6379
else
	exs_skip "redis-server and redis-benchmark under exs-run" "redis not installed"
fi

# make bench's own program (tools/bench/exs_bench.c) reports the transport
# that carried each figure: it must say RDMA here
unmodified_run "exs_bench ping-pong, stream, requests and connect loop over AF_EXS" \
	"exs_bench -s -f exs -p 18002" \
	"for w in pp stream rr conn; do
		exs_bench -c $peer4 -p 18002 -f exs -w \$w -z 1024 -n 4 -t 1 |
			grep -q '\"carrier\": \"rdma\"' || exit 1
	 done" 18002

if command -v curl >/dev/null; then
	web=$share/www
	if [ "$host" = b ]; then
		mkdir -p "$web"
		head -c 5000000 /dev/urandom > "$web/blob"
		sha256sum < "$web/blob" > "$share/blob.sha"
	fi
	unmodified_run "python http.server and curl under exs-run" \
		"cd $web && python3 -m http.server 8080" \
		"curl -sf http://$peer4:8080/blob | sha256sum | cmp -s - $share/blob.sha" 8080
else
	exs_skip "python http.server and curl under exs-run" "curl not installed"
fi

# A Go HTTP server and client, a static binary: Go makes its own system
# calls, which no preload reaches, so only exs-run by BPF (6.12's
# update_socket_protocol()) puts them on RDMA; on 6.1 they stay TCP's.
if grep -qw update_socket_protocol /proc/kallsyms; then
	[ "$host" = b ] && head -c 3000000 /dev/urandom > "$share/goblob" &&
		sha256sum < "$share/goblob" > "$share/goblob.sha"
	unmodified_run "a Go HTTP server and client (static binaries) under exs-run" \
		"exs_gohttp serve 8081 $share/goblob" \
		"exs_gohttp get http://$peer4:8081/ $share/goblob.sha" 8081
else
	exs_skip "a Go HTTP server and client (static binaries) under exs-run" \
		"no update_socket_protocol() here: exs-run preloads, which Go's own system calls bypass"
fi

# nginx's reuseport with 4 workers under exs-run (by BPF, 6.12: the
# preload's AF_EXS-family sockets refuse SO_REUSEPORT on 6.1), wrk's 64
# connections from a: every one over RDMA, and every worker served some
# (its pid in the access log: each worker accepts on a listener of its
# own in the group).
nginx_reuseport() {
	local name="nginx, reuseport, 4 workers under exs-run: every worker serves RDMA"
	local conf=$EXS_TMP/nginx-rp.conf log=$EXS_TMP/nginx-rp.log acc tcp
	local rdma fb
	if [ "$host" = b ]; then
		mkdir -p "$EXS_TMP/rp"
		head -c 4096 /dev/urandom > "$EXS_TMP/rp/4k"
		: > "$log"
		cat > "$conf" <<-EOF
		worker_processes 4;
		pid $EXS_TMP/nginx-rp.pid;
		error_log $EXS_TMP/nginx-rp.err;
		events { worker_connections 256; }
		http {
			log_format workers '\$pid';
			access_log $log workers;
			client_body_temp_path $EXS_TMP;
			proxy_temp_path $EXS_TMP;
			fastcgi_temp_path $EXS_TMP;
			uwsgi_temp_path $EXS_TMP;
			scgi_temp_path $EXS_TMP;
			server { listen $peer4:8082 reuseport; root $EXS_TMP/rp; }
		}
		EOF
		acc=$(exs_stat AcceptRdma) tcp=$(exs_stat AcceptTcp)
		exs_bg exs-run nginx -e "$EXS_TMP/nginx-rp.err" -c "$conf" \
			-g 'daemon off;'
		exs_wait_listen 8082 30
		ready "$name"
		await_done "$name"
		kill "${EXS_PIDS[-1]}" 2>/dev/null
		wait "${EXS_PIDS[-1]}" 2>/dev/null
		sort "$log" | uniq -c | sed 's/^/# requests by worker pid: /'
		exs_check "$name: b: all 4 workers served" \
			[ "$(sort -u "$log" | wc -l)" -eq 4 ]
		exs_assert "$name: b: 64 connections accepted over RDMA, none by TCP" \
			'[ $(($(exs_stat AcceptRdma) - acc)) -ge 64 ] &&
			[ "$(exs_stat AcceptTcp)" -eq "$tcp" ]'
		return
	fi
	await_ready "$name" || { exs_fail "$name" "server never ready"; return; }
	rdma=$(exs_stat ConnectRdma) fb=$(exs_fallbacks)
	exs_run "$name: a: wrk, 64 connections" exs-run wrk -t 2 -c 64 -d 5s \
		--timeout 30s "http://$peer4:8082/4k"
	sed 's/^/# /' "$EXS_TMP/run.log" | grep -E 'Requests/sec|errors|Non-2xx'
	exs_check "$name: a: every response a 200, no socket error" \
		bash -c "! grep -qE 'Socket errors|Non-2xx' '$EXS_TMP/run.log'"
	exs_assert "$name: a: 64 connections over RDMA, none fell back" \
		'[ $(($(exs_stat ConnectRdma) - rdma)) -ge 64 ] &&
		[ "$(exs_fallbacks)" -eq "$fb" ]'
	done_ "$name"
}
if grep -qw update_socket_protocol /proc/kallsyms && command -v nginx >/dev/null &&
   command -v wrk >/dev/null; then
	nginx_reuseport
else
	exs_skip "nginx, reuseport, 4 workers under exs-run" \
		"no update_socket_protocol() (the preload's sockets refuse SO_REUSEPORT), nginx or wrk"
fi

# Busy polling reaches an epoll waiter (busy_poll.c): a ping-pong of
# 64-byte messages over RDMA, the client waiting in epoll_wait() for each
# answer, 500 round trips, once with net.core.busy_poll 0 and once with
# 200 ms (longer than an emulated round trip).  Without, the client's
# thread sleeps about once a round trip; with, it spins instead: at most
# a quarter as many sleeps.  Both printed.
busy_poll_epoll() {
	local name="epoll with net.core.busy_poll: the waiter spins, not sleeps"
	local port=21042 off on

	if [ "$host" = b ]; then
		for port in 21042 21043; do
			# bounded: a client that never comes must not hold b
			exs_bg timeout 300 exs_busypoll -l -p $port
			exs_wait_listen $port 30
			ready "$name $port"
			wait "${EXS_PIDS[-1]}" ||
				exs_fail "$name: b: server on $port"
		done
		return
	fi
	await_ready "$name 21042" &&
	exs_sysctl net.core.busy_poll=0 &&
	off=$(exs_busypoll -a $peer4 -p 21042 -n 500 2> "$EXS_TMP/bp.err") &&
	await_ready "$name 21043" &&
	exs_sysctl net.core.busy_poll=200000 &&
	on=$(exs_busypoll -a $peer4 -p 21043 -n 500 2>> "$EXS_TMP/bp.err")
	exs_sysctl_restore
	off=${off##* } on=${on##* }
	echo "# sleeps per round trip: ${off:-?} without busy polling, ${on:-?} with"
	if [ -n "$off" ] && [ -n "$on" ] &&
	   awk -v a="$off" -v b="$on" 'BEGIN { exit !(a >= 0.5 && b * 4 <= a) }'; then
		exs_ok "$name"
	else
		exs_fail "$name"
		sed 's/^/#   /' "$EXS_TMP/bp.err"
	fi
}
busy_poll_epoll

# A REQ answered after its head start: tc holds what b's CM sends (UD
# SENDs, BTH opcode 0x64) 1 s, and a's connect_race_ms is 250 ms.  a
# gives RDMA up and connects over TCP, counted as FallbackNoAnswer; b's
# program accepts that TCP connection and nothing else, as the RDMA child
# its late REP answered never reaches accept() (a never says READY): no
# AcceptRdma at b.  An ack timeout of its own keeps a's links and parked
# queue pairs to b out of it; the entry for b goes at the end.
late_answer() {
	local name="the REQ's answer comes after connect_race_ms: TCP, no RDMA accept"
	local port=21041 noans acc

	roce_netem_works || { exs_skip "$name" "no tc prio, netem or u32"; return; }
	if [ "$host" = b ]; then
		acc=$(exs_stat AcceptRdma)
		roce_netem exs0 "delay 1000ms" match u8 0x64 0xff at 28
		pair_xfer "$name" $port "-x -e inet -n 100000"
		tc qdisc del dev exs0 root
		exs_check "$name: b: no RDMA accept" \
			[ "$(exs_stat AcceptRdma)" -eq "$acc" ]
		return
	fi
	exsconfig flush
	noans=$(exs_stat FallbackNoAnswer)
	exs_sysctl net.exs.connect_race_ms=250 net.exs.ack_timeout=22
	pair_xfer "$name" $port "" "-x -a $peer4 -e inet -n 100000"
	exs_sysctl_restore
	exs_check "$name: a: counted as FallbackNoAnswer" \
		[ $(($(exs_stat FallbackNoAnswer) - noans)) -eq 1 ]
	exsconfig flush
}
late_answer

# RDMA goes only to nodes reached without a gateway, unless the map names
# them (policy.c): b takes 10.0.9.2 as a second address, which a reaches
# through b as its gateway.  a's connect there goes to TCP, counted as
# FallbackGateway, with no REQ sent; with the map naming 10.0.9.2, the
# next is RDMA (RoCEv2 is routed), its REQ answered within a head start
# (3 s here: the rig's is off), after which it has its whole deadline.
gateway() {
	local name="a node behind a gateway: TCP, RDMA once the map names it"
	local port=21040 gw reqs rdma

	if [ "$host" = b ]; then
		ip addr add 10.0.9.2/32 dev exs0
		pair_xfer "$name" $port "-x -e inet -n 65536"
		pair_xfer "$name: mapped" $port "-x -e exs -n 65536"
		ip addr del 10.0.9.2/32 dev exs0
		return
	fi
	ip route add 10.0.9.0/24 via $peer4
	gw=$(exs_stat FallbackGateway) reqs=$(exs_cm_reqs)
	pair_xfer "$name" $port "" "-x -a 10.0.9.2 -e inet -n 65536"
	exs_assert "$name: a: counted as FallbackGateway, no REQ sent" \
		'[ $(($(exs_stat FallbackGateway) - gw)) -eq 1 ] &&
		[ "$(exs_cm_reqs)" = "$reqs" ]'
	rdma=$(exs_stat ConnectRdma)
	printf '10.0.9.2/32 -\n' > "$EXS_TMP/gateway.map"
	exsconfig load "$EXS_TMP/gateway.map" >/dev/null
	exs_sysctl net.exs.connect_race_ms=3000
	pair_xfer "$name: mapped" $port "" "-x -a 10.0.9.2 -e exs -n 65536"
	exs_sysctl_restore
	exsconfig flush
	ip route del 10.0.9.0/24
	exs_check "$name: a: mapped, counted as ConnectRdma" \
		[ $(($(exs_stat ConnectRdma) - rdma)) -eq 1 ]
}
gateway

# The socket API and the data path of AF_EXS over RDMA against TCP's, case
# by case: host a talks to itself over its RDMA address (Soft-RoCE loops it
# back), so every AF_EXS to AF_EXS pair in exs_sockapi and exs_stream is an
# RDMA connection (-R asserts that), and each answer must be TCP's.
api=0
if [ "$host" = a ]; then
	exs_blackhole
	echo "# exs_sockapi over RDMA (10.0.0.1, fd00::1)"
	exs_explained exs_sockapi -4 10.0.0.1 -6 fd00::1 -R || api=1
	echo "# exs_stream over RDMA (10.0.0.1, fd00::1)"
	exs_explained exs_stream -4 10.0.0.1 -6 fd00::1 -R -S "$scale" || api=1
	echo "# exs_oob over RDMA (10.0.0.1, fd00::1)"
	exs_explained exs_oob -4 10.0.0.1 -6 fd00::1 -R || api=1

	# As a device without immediate data must: every ring write is
	# followed by a DATA message (rxe counts the SENDs), bytes intact.
	name="ring writes announced by a SEND instead of immediate data"
	echo 0 > /sys/module/af_exs/parameters/imm_data
	sends=$(exs_rdma_stat rdma_sends)
	writes=$(exs_stat RdmaWrites)
	exs_bg exs_connect -l -x -p 21020 -e exs -n "$(kib 8192)" >/dev/null
	exs_wait_listen 21020 10
	exs_run "$name" exs_connect -x -a 10.0.0.1 -p 21020 -e exs \
		-n "$(kib 8192)"
	exs_check "$name: the server side" wait "${EXS_PIDS[-1]}"
	exs_check "$name: a DATA message per write" \
		[ $(($(exs_rdma_stat rdma_sends) - sends)) -ge \
		  $(($(exs_stat RdmaWrites) - writes)) ]
	echo 1 > /sys/module/af_exs/parameters/imm_data
fi

exs_tap_end && [ "$api" = 0 ]
