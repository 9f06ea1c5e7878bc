#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# RDMA connections over a bad link, between two hosts (exs-vm --hosts 2):
# once a connection stands, netem on both hosts' link (under Soft-RoCE)
# loses, duplicates or reorders 1% and 5% of the packets while a
# checksummed transfer runs both ways over RDMA.  Every byte must arrive
# intact, over RDMA still (SO_DOMAIN and the device's packet counters).
#
# EXS_NETEM_BYTES sets the size each way (16 MiB; make stress also runs
# 1 GiB on stock 6.1), EXS_NETEM_MTU the link's MTU (9000), EXS_NETEM_ONLY
# the cases run (those whose name holds it: "5% reordered").
#
#   exs-vm --hosts 2 -- selftests/exs_netem.sh selftests/exs_netem.sh

. "$(dirname "$0")/lib.sh"

host=${EXS_VM_HOST:?run under exs-vm --hosts 2}
share=${EXS_VM_SHARE:?}
peer4=10.0.0.2
bytes=${EXS_NETEM_BYTES:-$((16 << 20))}
mkdir -p "$share"

exs_tap_begin "AF_EXS over a lossy link, host $host"
exs_loaded || exs_skip_all af_exs "module not loaded"
modprobe -q sch_netem 2>/dev/null
# netem is the root qdisc from here to the end (see impair() below)
tc qdisc replace dev exs0 root netem loss 0% 2>/dev/null ||
	exs_skip_all netem "no netem qdisc"
# RoCE links carry jumbo frames: at MTU 9000 the RDMA MTU is 4096.
mtu=${EXS_NETEM_MTU:-9000}
mtu0=$(cat /sys/class/net/exs0/mtu)
ip link set exs0 mtu "$mtu" || exs_skip_all mtu "exs0 takes no MTU $mtu"
trap 'tc qdisc del dev exs0 root 2>/dev/null; ip link set exs0 mtu $mtu0; unprobe; exs_cleanup' EXIT
# A failed attempt must not send the next case to TCP.  A lost burst's
# tail is resent after 268 ms, not the CM's 2.1 s (6.1) or 0.5 s (6.12):
# under loss, those waits are most of a transfer's time
# (EXS_NETEM_ACK_TIMEOUT=0 keeps the CM's).  Not SMC-R's 134 ms: its
# seven tries (0.9 s) once ran out while a busy emulation host stalled a
# guest.  All three go back at the end: the fault suite follows in make
# stress's boot.
exs_sysctl net.exs.neg_cache_ttl_ms=0 net.exs.connect_timeout_ms=60000 \
	net.exs.ack_timeout="${EXS_NETEM_ACK_TIMEOUT:-16}"
secs=$((600 + bytes / 100000))	# generous: ~100 kB/s under emulation

# The link turns bad once the connection stands: a lossy link may well
# fail an RDMA connection's setup, and that ends in a fallback to TCP,
# which is correct but not what is tested here.  netem stays the root
# qdisc from here to the end and only its settings change: replacing or
# deleting a root qdisc deactivates the device for a moment, and 6.12's
# rxe errors any QP whose packet that refuses, its MAD QP too (every
# later connect of the host's then times out: rdma_cm is dead until the
# device is added again).
impair() { tc qdisc change dev exs0 root netem $1; }
mend() { tc qdisc change dev exs0 root netem loss 0%; }

# rxe once stopped a queue pair with "Failed allocating skb" (a GiB case
# on the debug kernel), which has two causes: no memory for a 4.5 KB
# atomic skb, or a source GID gone from the table.  What tells them apart
# is kept while the cases run and printed for a failed one: free memory
# and free blocks of 8 KB or more every 5 s, and every link and address
# event.
sample_memory() {
	while :; do
		echo "at $(cut -d' ' -f1 /proc/uptime) s: $(awk '/^MemFree/ { print $2 }' /proc/meminfo) kB free;" \
			"$(awk '{ n = 0; for (i = 6; i <= NF; i++) n += $i
				printf "%s %d, ", $4, n }' /proc/buddyinfo)blocks >= 8 KB free"
		sleep 5
	done
}
exs_bg sample_memory > "$EXS_TMP/memory.log" 2>&1
exs_bg ip -ts monitor link address > "$EXS_TMP/events.log" 2>&1

# Which of the two it was, at the moment it happens: kretprobes that
# record only a failure, of the skb allocation or of the GID lookup (each
# returns NULL or an error pointer when it fails).
tr=$(exs_tracefs)
probes="exs_skb:__alloc_skb exs_gid:rdma_get_gid_attr
	exs_gid_ndev:rdma_read_gid_attr_ndev_rcu"
probe_failures() {
	local p name
	[ -w "$tr/kprobe_events" ] || return 0
	for p in $probes; do
		name=${p%%:*}
		echo "r:$name ${p#*:} ret=\$retval:x64" >> $tr/kprobe_events &&
			echo 'ret == 0 || ret >= 0xfffffffffffff001' \
				> $tr/events/kprobes/$name/filter &&
			echo 1 > $tr/events/kprobes/$name/enable
	done 2>/dev/null
}
unprobe() {
	local p
	[ -w "$tr/kprobe_events" ] || return 0
	for p in $probes; do
		echo 0 > $tr/events/kprobes/${p%%:*}/enable
		echo "-:${p%%:*}" >> $tr/kprobe_events
	done 2>/dev/null
}
probe_failures

moved() {
	echo "#   counters that moved: $(exs_stat_moved "$EXS_TMP/netem.stat")"
	exs_module_said "$EXS_TMP/netem.stat"
	tail -n +"$(cat "$EXS_TMP/memory.at")" "$EXS_TMP/memory.log" |
		sort -n -k4 | head -n 1 | sed 's/^/#   least memory free: /'
	tail -n +"$(cat "$EXS_TMP/events.at")" "$EXS_TMP/events.log" |
		head -n 5 | sed 's/^/#   link event: /'
	[ -n "$tr" ] && grep -v '^#' $tr/trace | tail -n 5 |
		sed 's/^ */#   failed: /'
	echo "#   GIDs now: $(cat /sys/class/infiniband/*/ports/1/gids/* 2>/dev/null |
		grep -v '^0000:0000:0000:0000:0000:0000:0000:0000$' | sort -u |
		tr '\n' ' ')"
}

# xfer NAME PORT SPEC: both hosts' halves of one case
xfer() {
	local name=$1 port=$2 pid pkts rdma i
	exs_stat_save "$EXS_TMP/netem.stat"
	echo $(($(wc -l < "$EXS_TMP/memory.log") + 1)) > "$EXS_TMP/memory.at"
	echo $(($(wc -l < "$EXS_TMP/events.log") + 1)) > "$EXS_TMP/events.at"
	[ -n "$tr" ] && echo > $tr/trace
	if [ "$host" = b ]; then
		exs_bg exs_connect -l -x -p "$port" -e exs -n "$bytes" \
			-t "$secs" >/dev/null
		pid=${EXS_PIDS[-1]}
		exs_wait_listen "$port" 10
		ready "$name"
		exs_wait_file "$share/impair.$port" 120 && impair "$3"
		if wait "$pid"; then
			exs_ok "$name: b: the server's bytes arrived intact"
		else
			exs_fail "$name: b: the server's bytes arrived intact"
			moved
		fi
		mend
		return
	fi
	await_ready "$name" || { exs_fail "$name" "server never ready"; return; }
	pkts=$(exs_rdma_pkts)
	rdma=$(exs_stat ConnectRdma)
	exs_bg exs_connect -x -a $peer4 -p "$port" -e exs -n "$bytes" \
		-t "$secs" 2> "$EXS_TMP/xfer.err"
	pid=${EXS_PIDS[-1]}
	for ((i = 0; i < 600; i++)); do
		[ "$(exs_stat ConnectRdma)" != "$rdma" ] && break
		sleep 0.1
	done
	impair "$3"
	touch "$share/impair.$port"
	if wait "$pid"; then
		exs_ok "$name: a: the client's bytes arrived intact"
	else
		exs_fail "$name: a: the client's bytes arrived intact"
		sed 's/^/#   /' "$EXS_TMP/xfer.err"
		moved
	fi
	mend
	exs_check "$name: a: over RDMA all along" \
		[ $(($(exs_rdma_pkts) - pkts)) -ge $((2 * bytes / 4096)) ]
}

port=25000
while IFS=$'\t' read -r what spec; do
	port=$((port + 1))
	[[ "$what" == *"${EXS_NETEM_ONLY:-}"* ]] || continue
	xfer "$what, $((bytes >> 20)) MiB each way" $port "$spec"
	# the next case starts on both hosts together
	touch "$share/$host.$port"
	exs_wait_file "$share/a.$port" "$secs"
	exs_wait_file "$share/b.$port" "$secs"
done <<EOF
1% loss	loss 1%
5% loss	loss 5%
1% duplicated	duplicate 1%
5% duplicated	duplicate 5%
1% reordered	delay 2ms reorder 99% 50%
5% reordered	delay 2ms reorder 95% 50%
EOF

exs_tap_end
