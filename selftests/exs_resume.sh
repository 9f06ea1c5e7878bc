#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A connection whose queue pair fails goes on, on a new one, between two
# hosts (exs-vm --hosts 2): while a checksummed transfer runs both ways
# over RDMA, the client's, the server's, then both hosts' connections are
# made to fail (/sys/kernel/debug/af_exs/fail_qp: as if the device had
# reported the QP failed) several times, the server's once its FIN is
# out while the client still sends, and while the client idles, its EOF
# read; then those of four connections
# sharing one QP, and that QP again once its first connection ended (it
# moves for the other three only); then the client's link refuses its
# RDMA packets for a moment (6.12's rxe ends the QP), one connection's
# and then four sharing connections'.  Every byte must
# arrive intact, over RDMA all along (SO_DOMAIN, the device's packet
# counters, TCP quiet), each resume counted (RdmaResumes) and none
# failed; a failure once both FINs are through ends the connection in
# order; then, with resuming off (the module's resume parameter), the
# same failure ends the connection with ECONNRESET, as before.
#
# EXS_RESUME_BYTES sets the size each way (64 MiB), EXS_RESUME_TIMES the
# failures made per case (3).
#
#   exs-vm --hosts 2 -- selftests/exs_resume.sh selftests/exs_resume.sh

. "$(dirname "$0")/lib.sh"

host=${EXS_VM_HOST:?run under exs-vm --hosts 2}
share=${EXS_VM_SHARE:?}
peer4=10.0.0.2
peer6=fd00::2
bytes=${EXS_RESUME_BYTES:-$((64 << 20))}
times=${EXS_RESUME_TIMES:-3}
knob=/sys/kernel/debug/af_exs/fail_qp
orphan_knob=/sys/kernel/debug/af_exs/orphan_timeout_ms
orphan_ms=1000
param=/sys/module/af_exs/parameters/resume
here=$(dirname "$(readlink -f "$0")")
mkdir -p "$share"

exs_tap_begin "AF_EXS resumes on a new queue pair, host $host"
exs_loaded || exs_skip_all af_exs "module not loaded"
[ -e $knob ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
[ -w $knob ] || exs_skip_all debugfs "no $knob"
# A queue pair of its own for each connection but in the sharing cases
# (share_on): a case's connect could join the queue pair of the case
# before while that one still closes
sysctl -qw net.exs.share_qp=0
# RoCE's jumbo frames, as exs_netem.sh: 4 KiB RDMA packets, which come
# from the cache the last case fails
mtu0=$(cat /sys/class/net/exs0/mtu)
ip link set exs0 mtu 9000 || exs_skip_all mtu "exs0 takes no MTU 9000"
hold=/sys/kernel/debug/af_exs/hold_teardown_ms
held=/sys/kernel/debug/af_exs/held_teardowns
trap 'echo 1 > $param; { echo 0 > $hold; } 2>/dev/null
	{ echo 0 > $orphan_knob; } 2>/dev/null
	tc qdisc del dev exs0 root 2>/dev/null
	ip link set exs0 mtu $mtu0; exs_cleanup' EXIT
exs_sysctl net.exs.neg_cache_ttl_ms=0 net.exs.connect_timeout_ms=60000
secs=$((300 + bytes / 100000))

# resume_now: fail every connection's QP here, and wait until one more
# resume finished on this host (or failed: the case then says so); none
# to fail (the transfer ended, or the peer's failure is being mended)
# makes no wait
resume_now() {
	local done=$(exs_stat RdmaResumes) failed=$(exs_stat RdmaResumeFails)
	local made=$(exs_stat TestQpFailures)
	echo 1 > $knob
	[ "$(exs_stat TestQpFailures)" != "$made" ] || return 1
	exs_wait_until 120 eval '[ "$(exs_stat RdmaResumes)" != "$done" ] ||
		[ "$(exs_stat RdmaResumeFails)" != "$failed" ]'
}

# flowing: until this host received some more bytes over RDMA
flowing() {
	local was=$(exs_stat RdmaBytesIn)
	exs_wait_until 30 eval '[ $(($(exs_stat RdmaBytesIn) - was)) -ge 1048576 ]'
}

# xfer NAME PORT WHO [-6]: both hosts' halves of one case; WHO (a, b or
# ab) says which hosts make their connection resume, $times times each.
# With sbytes, the server sends that many, not $bytes.
# With conns > 1, that many connections (ports PORT on) move data, the
# first one's QP carrying the others: $bytes each way the first, half
# that the others, so that it outlives them.  With first_ends, the
# first moves a 64th of $bytes and the others $bytes, each server
# accepting late: the first's once the others joined its QP (a link
# whose first stream ended takes no more: 6.1 once built a QP of its
# own for the third); theirs once the first ended (its end of the QP
# parked: a QP shared is not shared fairly, riders once moved their 64
# MiB before the first its 4) and its socket's bound ran out.  The
# failures come then, and the QP has them for its riders only.
conns=1
first_ends=0
sbytes=
xfer_bytes() {
	if [ $first_ends = 1 ]; then
		echo $(($1 ? bytes : bytes / 64))
	else
		echo $(($1 ? bytes / 2 : bytes))
	fi
}
xfer() {
	local name=$1 port=$2 who=$3 v6=${4:-} pid i segs pkts made bad=0
	local addr=$([ -n "$v6" ] && echo $peer6 || echo $peer4)
	local stat="$EXS_TMP/resume.stat" n pids live late
	exs_stat_save "$stat"
	segs=$(exs_tcp_segs)
	pkts=$(exs_rdma_pkts)
	if [ "$host" = b ]; then
		for ((i = 0; i < conns; i++)); do
			n=$(xfer_bytes $i)
			late=()
			if [ $first_ends = 1 ]; then
				late=(-W "$share/flowing.$port")
				[ $i = 0 ] || late=(-W "$share/parked.$port")
			fi
			exs_bg exs_connect -l $v6 -x -p $((port + i)) -e exs \
				-n ${sbytes:-$n} -R $n -t "$secs" "${late[@]}" \
				>/dev/null 2> "$EXS_TMP/xfer.err.$i"
			exs_wait_listen $((port + i)) 10
		done
		ready "$name"
		exs_wait_file "$share/flowing.$port" 120
	else
		await_ready "$name" ||
			{ exs_fail "$name" "server never ready"; return; }
		local rdma=$(exs_stat ConnectRdma) joined=$(exs_stat ConnectShared)
		for ((i = 0; i < conns; i++)); do
			n=$(xfer_bytes $i)
			exs_bg exs_connect $v6 -x -a $addr -p $((port + i)) \
				-e exs -n $n -R ${sbytes:-$n} -t "$secs" \
				>/dev/null 2> "$EXS_TMP/xfer.err.$i"
			# the first builds the QP the others join
			[ $i -gt 0 ] || exs_wait_until 60 eval \
				'[ "$(exs_stat ConnectRdma)" != "$rdma" ]'
		done
		exs_wait_until 60 eval \
			'[ $(($(exs_stat ConnectShared) - joined)) -ge $((conns - 1)) ]'
		touch "$share/flowing.$port"
	fi
	pids=("${EXS_PIDS[@]: -conns}")
	live=("${pids[@]}")
	if [ $first_ends = 1 ]; then
		# the first's socket closed with its bound cut short; the
		# riders' keep their minute
		exs_wait_until 120 eval '! kill -0 ${pids[0]} 2>/dev/null'
		echo 0 > $orphan_knob
		touch "$share/closed.$host.$port"
	fi
	if [[ $who == *$host* ]] && [ $first_ends = 1 ]; then
		# the first's socket closed, and its end of the QP parked
		exs_wait_until 120 eval '! kill -0 ${pids[0]} 2>/dev/null &&
			[ $(exs_stat_delta "$stat" Parked) -ge 1 ]' ||
			exs_fail "$name: $host: the first connection parked"
		# ...and its closed socket's bound (orphan_timeout_ms) ran
		# out at both hosts: the QP moves for the riders only after
		exs_wait_file "$share/closed.a.$port" 120 &&
			exs_wait_file "$share/closed.b.$port" 120 ||
			exs_fail "$name: $host: the first connection closed at both hosts"
		sleep $((orphan_ms / 1000 + 2))
		touch "$share/parked.$port"
		live=("${pids[@]:1}")
	fi
	if [[ $who == *$host* ]]; then
		# up to $times failures, while every transfer lasts
		for ((i = 0; i < times; i++)); do
			flowing
			for pid in "${live[@]}"; do
				kill -0 "$pid" 2>/dev/null && continue
				echo "#   a transfer ended before failure $((i + 1))"
				break 2
			done
			$fail
		done
	fi
	for i in "${!pids[@]}"; do
		wait "${pids[i]}" && continue
		bad=$((bad + 1))
		sed "s/^/#   $((port + i)): /" "$EXS_TMP/xfer.err.$i"
	done
	if [ $bad = 0 ]; then
		exs_ok "$name: $host: the bytes arrived intact"
	else
		exs_fail "$name: $host: the bytes arrived intact" \
			"$bad of $conns transfers failed"
		echo "#   counters that moved: $(exs_stat_moved "$stat")"
		exs_module_said "$stat"
	fi
	if [ "$host" = a ] && [ $conns -gt 1 ]; then
		exs_check "$name: a: $((conns - 1)) connections rode the first one's QP" \
			[ "$(exs_stat_delta "$stat" ConnectShared)" = $((conns - 1)) ]
	fi
	if [[ $who == *$host* ]] && [ "$fail" = resume_now ]; then
		# with both hosts at it, all of one host's tries may find
		# the connection mending the other's failure
		made=$(exs_stat_delta "$stat" TestQpFailures)
		exs_assert "$name: $host: its QP failed ($made times), and resumed each time" \
			"[ $made -ge $([ "$who" = ab ] && echo 0 || echo 1) ] &&
			 [ $(exs_stat_delta "$stat" RdmaResumes) -ge $made ]"
	fi
	if [ $first_ends = 1 ]; then
		# at both ends, the QP moved with no stream of its own
		made=$(exs_stat_delta "$stat" TestQpFailures)
		[[ $who == *$host* ]] || made=1
		exs_assert "$name: $host: the QP moved for its riders only ($made times)" \
			"[ $(exs_stat_delta "$stat" RdmaLinkResumes) -ge $made ]"
	fi
	exs_assert "$name: $host: no resume failed, no connection aborted" \
		"[ $(exs_stat_delta "$stat" RdmaResumeFails) = 0 ] &&
		 [ $(exs_stat_delta "$stat" RdmaAborts) = 0 ]"
	exs_check "$name: $host: the RDMA device carried the bytes" \
		[ $(($(exs_rdma_pkts) - pkts)) -ge \
		  $(((bytes + ${sbytes:-$bytes}) / 4096)) ]
	exs_check "$name: $host: TCP carried no payload" \
		[ $(($(exs_tcp_segs) - segs)) -lt 40 ]
}

# refuse_sends: the link refuses what RDMA connections send for 0.2 s
# (their RoCEv2 packets, RC opcodes only, go to a pfifo whose limit drops
# to 0), as a full queue does.  6.12's rxe errors a QP whose packet its
# qdisc refused, with nothing to say why but flushed requests (6.1's
# takes it for a lost packet), and the connection must resume, not
# reset.  CM messages (UD) pass: rxe errors its MAD QP alike, and rdma_cm
# is dead from then.  rc_band sets the qdiscs up while the link is idle:
# adding or deleting a root qdisc deactivates the device for a moment.
rc_band() { exs_roce_band exs0 "pfifo limit 1000" match u8 0 0xe0 at 28; }
refuse_sends() {
	local done=$(exs_stat RdmaResumes)

	tc qdisc change dev exs0 parent 1:3 handle 30: pfifo limit 0
	sleep 0.2
	tc qdisc change dev exs0 parent 1:3 handle 30: pfifo limit 1000
	exs_wait_until 10 eval '[ "$(exs_stat RdmaResumes)" != "$done" ]'
}

# share_on [ACK] / share_off: the client's connections share a QP for a
# case; an ack timeout of their own (18) keeps them off the QPs of the
# cases around, parked ones too
share_on() {
	[ "$host" = a ] || return 0
	share0=$(sysctl -n net.exs.ack_timeout)
	sysctl -qw net.exs.share_qp=1 net.exs.ack_timeout="${1:-18}"
}
share_off() {
	[ "$host" = a ] || return 0
	sysctl -qw net.exs.share_qp=0 net.exs.ack_timeout="$share0"
}

# both hosts start each case together
sync_case() {
	touch "$share/$host.$1"
	exs_wait_file "$share/a.$1" "$secs"
	exs_wait_file "$share/b.$1" "$secs"
}

# want NAME: EXS_RESUME_ONLY picks the cases whose name holds it
want() { [[ "$1" == *"${EXS_RESUME_ONLY:-}"* ]]; }

MiB=$((bytes >> 20))
fail=resume_now
port=26000
for who in a b ab; do
	port=$((port + 1))
	case $who in
	a) name="the client's QP fails" ;;
	b) name="the server's QP fails" ;;
	*) name="both hosts' QPs fail" ;;
	esac
	want "$name" || continue
	xfer "$name, $MiB MiB each way" $port $who
	sync_case $port
done
# The server's QP fails once its FIN is out (it sends 64 KiB), while the
# client still sends: the client hears the disconnect after the FIN and
# must resume, not end in order.  Before, it ended in order: its send
# failed with EPIPE, and the server's resume waited for a REQ that never
# came (6.12's intermittent "refuses its packets" failure, where the
# server's stall watch found a dead QP first).
name="the server's QP fails after its FIN"
if want "$name"; then
	sbytes=65536
	xfer "$name, $MiB MiB to it" 26008 b
	sbytes=
	[ "$host" = a ] &&
		exs_check "$name: a: it resumed too" \
			[ "$(exs_stat_delta "$EXS_TMP/resume.stat" RdmaResumes)" -ge 1 ]
	sync_case 26008
fi
# ...and while the client, its EOF read, is idle: with nothing of its
# own in flight, the disconnect is still the server's resume, not its
# end.  The client sends 1 MiB once it resumed too.  Before (wire
# version 6's rule, a FIN then the disconnect ends the stream), it
# never resumed: its wait below ran out ("no resume within 120 s").
name="the server's QP fails after its FIN, the client idle"
port=26009
if want "$name"; then
	exs_stat_save "$EXS_TMP/idle.stat"
	idle=$share/idle.$port
	if [ "$host" = b ]; then
		rm -f "$idle"
		exs_bg exs-run python3 "$here/exs_reset.py" listen $port \
			halfopen "for i in \$(seq 1200); do
				[ -e $idle ] && echo 1 > $knob && exit 0
				sleep 0.1; done; echo client never idle; exit 1" \
			> "$EXS_TMP/idle.log" 2>&1
		exs_wait_listen $port 10
		ready $port
	else
		await_ready $port
		# CMD: idle until this end resumed (120 s at most)
		cat > "$EXS_TMP/idle.sh" <<-EOF
		touch $idle
		for i in \$(seq 1200); do
			[ "\$(awk '\$1 == "RdmaResumes" { print \$2 }' \\
				/proc/net/exs_stat)" != $(exs_stat RdmaResumes) ] &&
				exit 0
			sleep 0.1
		done
		echo "no resume within 120 s"
		exit 1
		EOF
		exs_bg exs-run python3 "$here/exs_reset.py" connect $peer4 \
			$port halfopen "sh $EXS_TMP/idle.sh" \
			> "$EXS_TMP/idle.log" 2>&1
	fi
	if wait "${EXS_PIDS[-1]}"; then
		exs_ok "$name: $host: the stream went on"
	else
		exs_fail "$name: $host: the stream went on"
		sed 's/^/#   /' "$EXS_TMP/idle.log"
		exs_module_said "$EXS_TMP/idle.stat"
	fi
	[ "$host" = a ] &&
		exs_check "$name: a: over RDMA" \
			[ "$(exs_stat_delta "$EXS_TMP/idle.stat" ConnectRdma)" -ge 1 ]
	exs_assert "$name: $host: it resumed, the 1 MiB over RDMA, nothing failed" \
		"[ $(exs_stat_delta "$EXS_TMP/idle.stat" RdmaResumes) -ge 1 ] &&
		 [ $(exs_stat_delta "$EXS_TMP/idle.stat" RdmaResumeFails) = 0 ] &&
		 [ $(exs_stat_delta "$EXS_TMP/idle.stat" RdmaAborts) = 0 ] &&
		 [ $(exs_stat_delta "$EXS_TMP/idle.stat" $([ "$host" = a ] &&
			echo RdmaBytesOut || echo RdmaBytesIn)) -ge 1048576 ]"
	sync_case $port
fi
# Four connections on one QP (share.c): its failure, noticed by the
# carrier or by a rider, moves them all to a new one
name="four connections share the client's failing QP"
if want "$name"; then
	share_on
	conns=4
	xfer "$name, $MiB MiB each way" 26030 a
	conns=1
	share_off
	sync_case 26030
fi
# The first connection ends (its QP parks at both ends), then the QP
# fails under the three others: it moves for them, LINK in its RESUME.
# The first's closed socket's bound, its minute, is cut to a second (a
# test knob): the QP moves for the riders after it ran out, as it did on
# the debug kernel, where the bound once ended the resume and the
# riders with it.
name="the first of four sharing connections ends, then the QP fails"
if ! want "$name"; then
	:
elif [ ! -w $orphan_knob ]; then
	exs_skip "$name" "no $orphan_knob"
else
	share_on 17
	conns=4
	first_ends=1
	echo $orphan_ms > $orphan_knob
	xfer "$name, $MiB MiB each way" 26050 a
	echo 0 > $orphan_knob
	first_ends=0
	conns=1
	share_off
	sync_case 26050
fi
# over IPv6: the acceptor finds the connection by an IPv6 four-tuple
name="the client's QP fails, over IPv6"
if want "$name"; then
	xfer "$name, $MiB MiB each way" 26006 a -6
	sync_case 26006
fi
name="the client's link refuses its packets"
if ! want "$name"; then
	:
elif ! rc_band 2>/dev/null; then
	tc qdisc del dev exs0 root 2>/dev/null
	exs_skip "$name" "no tc prio, pfifo or u32"
else
	fail=refuse_sends
	xfer "$name $times times, $MiB MiB each way" 26007 a
	[ "$host" = a ] &&
		echo "#   resumed $(exs_stat_delta "$EXS_TMP/resume.stat" RdmaResumes) times"
	sync_case 26007
	share_on
	conns=4
	xfer "$name $times times, four connections on its QP" 26040 a
	[ "$host" = a ] &&
		echo "#   resumed $(exs_stat_delta "$EXS_TMP/resume.stat" RdmaResumes) times"
	conns=1
	share_off
	fail=resume_now
	sync_case 26040
	tc qdisc del dev exs0 root
fi

# rxe cannot build a packet (on the debug kernel, booted with
# slub_debug=A,kmalloc-8k: failslab fails that cache's atomic
# allocations, where rxe's 4 KiB packets come from): the queue pair
# fails, or stops sending and the stall watch finds it, and the
# connection goes on, on a new one.  The first time, on 6.1 it stopped
# the queue pair for good and the connection ended (testing.rst).
fs=/sys/kernel/debug/failslab
name="rxe cannot build a packet"
port=26005
if ! want "$name"; then
	:
elif [ "$(cat /sys/kernel/slab/kmalloc-8k/failslab 2>/dev/null)" != 1 ] ||
   [ ! -w $fs/times ]; then
	exs_skip "$name" "boot the debug kernel with slub_debug=A,kmalloc-8k"
elif [ "$host" = b ]; then
	exs_bg exs_connect -l -x -p $port -e exs -n "$bytes" -t "$secs" \
		>/dev/null 2> "$EXS_TMP/nomem.err"
	exs_wait_listen $port 10
	ready "$name"
	exs_check "$name: b: the bytes arrived intact" wait "${EXS_PIDS[-1]}"
else
	await_ready "$name"
	exs_stat_save "$EXS_TMP/nomem.stat"
	rdma=$(exs_stat ConnectRdma)
	exs_bg exs_connect -x -a $peer4 -p $port -e exs -n "$bytes" \
		-t "$secs" >/dev/null 2> "$EXS_TMP/nomem.err"
	exs_wait_until 60 eval '[ "$(exs_stat ConnectRdma)" != "$rdma" ]'
	flowing
	# One atomic allocation from that cache fails at a time, until one
	# was rxe's (others use the cache too): rxe says so.
	pid=${EXS_PIDS[-1]}
	failed() { dmesg | grep -c 'Failed allocating skb'; }
	was=$(failed)
	echo Y > $fs/cache-filter
	echo Y > $fs/ignore-gfp-wait
	echo 0 > $fs/verbose
	echo 1 > $fs/interval
	for ((i = 0; i < 20; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		echo 1 > $fs/times
		echo 100 > $fs/probability
		exs_wait_until 10 eval '[ "$(cat $fs/times)" = 0 ]'
		exs_tally faults 1
		[ "$(failed)" -gt "$was" ] && break
	done
	echo 0 > $fs/probability
	exs_check "$name: a: rxe could not build a packet" [ "$(failed)" -gt "$was" ]
	if wait "$pid"; then
		exs_ok "$name: a: the bytes arrived intact"
	else
		exs_fail "$name: a: the bytes arrived intact"
		sed 's/^/#   /' "$EXS_TMP/nomem.err"
	fi
	exs_check "$name: a: the connection resumed" \
		[ "$(exs_stat_delta "$EXS_TMP/nomem.stat" RdmaResumes)" -ge 1 ]
	echo "#   counters that moved: $(exs_stat_moved "$EXS_TMP/nomem.stat")"
	dmesg | grep -E 'rxe|af_exs' | tail -n 3 | sed 's/^/#   kernel: /'
fi
want "$name" && sync_case $port

# A reset is no QP failure: the end that resets says ABORT, and the
# disconnect waits for its ack, so the other end's recv() fails with
# ECONNRESET at once.  Had the disconnect come alone, that end would
# have tried to resume, and failed only when the REQ was refused or the
# resume's deadline passed.  Each host resets three connections
# (SO_LINGER 0) while the other waits on them, dropping all it sends for
# the first 0.2 s of each reset (the ABORT goes out again, 268 ms later
# at ack_timeout 16), one of a's beside one of b's each time; then b's
# listener closes twice on a connection it never accepted (exs_reset.py).
# (One at a time, the eight took over two minutes of make check's time.)
name="a reset is no QP failure"
drop="tc qdisc add dev exs0 root netem loss 100% && \
	{ sleep 0.2; tc qdisc del dev exs0 root; } >/dev/null 2>&1 &"
if want "$name"; then
	exs_stat_save "$EXS_TMP/reset.stat"
	ack0=$(sysctl -n net.exs.ack_timeout)
	sysctl -qw net.exs.ack_timeout=16
	bad=0
	port=26010
	# WHO:HOW, WHO resetting its end: by a close, or (b) its listener's;
	# a stage's runs side by side, each on a connection of its own; a
	# resetting end says it is up (its exchange done) and resets once
	# all of the stage's are (a's drop would otherwise slow another's
	# handshake), a minute at most
	for stage in "a:reset b:reset" "a:reset b:reset" "a:reset b:reset" \
		     "b:unaccepted b:unaccepted"; do
		# the last stage's drop over, at both hosts
		exs_wait_until 10 eval '! tc qdisc show dev exs0 | grep -q netem'
		go=$share/go.$port
		runs=() roles=() ups=()
		for run in $stage; do
			port=$((port + 1))
			runs+=($port)
			role=(wait)
			log="$EXS_TMP/reset.$port"
			rdma=$share/rdma.$port
			[ "${run#*:}" = reset ] && ups+=("$share/up.$port")
			case $run in
			$host:reset)
				role=(reset "touch $share/up.$port
					for i in \$(seq 600); do
						[ -e $go ] && break; sleep 0.1
					done; $drop")
				;;
			$host:unaccepted)
				role=(unaccepted "while [ ! -e $rdma ]; do sleep 0.1; done")
				;;
			esac
			roles+=(${role[0]})
			if [ "$host" = b ]; then
				exs_bg exs-run python3 "$here/exs_reset.py" \
					listen $port "${role[@]}" > "$log" 2>&1
				exs_wait_listen $port 10
				ready $port
			else
				await_ready $port
				was=$(exs_stat ConnectRdma)
				exs_bg exs-run python3 "$here/exs_reset.py" \
					connect $peer4 $port "${role[@]}" \
					> "$log" 2>&1
				# up on RDMA before the listener may close
				exs_wait_until 60 eval \
					'[ "$(exs_stat ConnectRdma)" != "$was" ]'
				touch "$rdma"
			fi
		done
		if [ "$host" = a ]; then
			for up in "${ups[@]}"; do
				exs_wait_file "$up" 60
			done
			touch "$go"
		fi
		for ((i = ${#runs[@]}; i > 0; i--)); do
			wait "${EXS_PIDS[-i]}" && continue
			bad=$((bad + 1))
			sed "s/^/#   ${runs[-i]} ${roles[-i]}: /" \
				"$EXS_TMP/reset.${runs[-i]}"
		done
	done
	sysctl -qw net.exs.ack_timeout="$ack0"
	tc qdisc del dev exs0 root 2>/dev/null
	grep -h "reset after" "$EXS_TMP"/reset.260* | sed 's/^/#   /'
	exs_check "$name: $host: every waiting end saw ECONNRESET" [ $bad = 0 ]
	if [ "$host" = a ]; then
		exs_check "$name: a: the connections were on RDMA" \
			[ "$(exs_stat_delta "$EXS_TMP/reset.stat" ConnectRdma)" -ge 8 ]
	fi
	exs_assert "$name: $host: no resume tried" \
		"[ $(exs_stat_delta "$EXS_TMP/reset.stat" RdmaResumes) = 0 ] &&
		 [ $(exs_stat_delta "$EXS_TMP/reset.stat" RdmaResumeFails) = 0 ]"
	sync_case 26010
fi

# A QP that fails once both FINs are through loses nothing: the
# connection ends in order, as when the peer disconnects then.  Each end
# shuts its writing down and reads EOF; then a fails its QP, this time
# whatever its stream (2 > fail_qp), and both ends still read EOF, with
# no abort counted and no resume tried.
name="the QP fails after both FINs"
port=26020
if want "$name"; then
	exs_stat_save "$EXS_TMP/fin.stat"
	failed=$share/failed.$port
	if [ "$host" = b ]; then
		exs_bg exs-run python3 "$here/exs_reset.py" listen $port \
			finished "while [ ! -e $failed ]; do sleep 0.1; done" \
			> "$EXS_TMP/fin.log" 2>&1
		exs_wait_listen $port 10
		ready $port
	else
		await_ready $port
		exs_bg exs-run python3 "$here/exs_reset.py" connect $peer4 \
			$port finished "sleep 0.5; echo 2 > $knob; touch $failed" \
			> "$EXS_TMP/fin.log" 2>&1
	fi
	if wait "${EXS_PIDS[-1]}"; then
		exs_ok "$name: $host: EOF, then EOF again"
	else
		exs_fail "$name: $host: EOF, then EOF again"
		sed 's/^/#   /' "$EXS_TMP/fin.log"
	fi
	if [ "$host" = a ]; then
		exs_assert "$name: a: the connection was on RDMA, its QP failed" \
			"[ $(exs_stat_delta "$EXS_TMP/fin.stat" ConnectRdma) -ge 1 ] &&
			 [ $(exs_stat_delta "$EXS_TMP/fin.stat" TestQpFailures) -ge 1 ]"
	fi
	exs_assert "$name: $host: no abort, no resume" \
		"[ $(exs_stat_delta "$EXS_TMP/fin.stat" RdmaAborts) = 0 ] &&
		 [ $(exs_stat_delta "$EXS_TMP/fin.stat" RdmaResumes) = 0 ] &&
		 [ $(exs_stat_delta "$EXS_TMP/fin.stat" RdmaResumeFails) = 0 ]"
	sync_case $port
fi

# Resuming off: the failure ends the connection, as before resuming was
# there (the client asks; the server's end hears the disconnect).
echo 0 > $param
name="resuming off, the client's QP fails"
port=26004
if ! want "$name"; then
	:
elif [ "$host" = b ]; then
	exs_bg exs_connect -l -x -p $port -e exs -n "$bytes" -t "$secs" \
		>/dev/null 2> "$EXS_TMP/off.err"
	exs_wait_listen $port 10
	ready "$name"
	exs_wait_file "$share/flowing.$port" 120
else
	await_ready "$name"
	rdma=$(exs_stat ConnectRdma)
	exs_bg exs_connect -x -a $peer4 -p $port -e exs -n "$bytes" \
		-t "$secs" >/dev/null 2> "$EXS_TMP/off.err"
	exs_wait_until 60 eval '[ "$(exs_stat ConnectRdma)" != "$rdma" ]'
	touch "$share/flowing.$port"
	flowing
	echo 1 > $knob
fi
if ! want "$name"; then
	:
elif wait "${EXS_PIDS[-1]}"; then
	exs_fail "$name: $host: the transfer fails" "it did not"
else
	exs_ok "$name: $host: the transfer fails"
	sed 's/^/#   /' "$EXS_TMP/off.err"
fi
want "$name" && sync_case $port

# Resuming off, a shared QP fails under a stream whose peer's FIN came
# and which still sends: the QP's first connection ends, frees the PD,
# and that stream's teardown is held 3 s (hold_teardown_ms) before it
# marks it closing.  Its sends meanwhile must find the QP gone and end as
# TCP's would (EPIPE or ECONNRESET); before the fix they read the freed
# PD, or NULL (issue 41's first race).  Its teardown is held 3 s more
# once it stopped the stream's watch, while the socket sets SO_KEEPALIVE
# on and off (from before the failure to 8 s after its send failed):
# nothing may arm the watch then, as it is marked closing, and no watch
# may run once stopped (exs_watch_work() warns).  Stopped before it was
# marked closing, as before the second race's fix, a setsockopt in the
# hold armed the watch again (issue 41's second race).
name="resuming off, a half-closed stream sends as its shared QP fails"

port=26030
if ! want "$name"; then
	:
elif [ ! -w $hold ]; then
	exs_skip "$name" "no $hold"
elif [ "$host" = b ]; then
	# the first stream lasts until its QP fails (16 GiB)
	exs_bg exs_connect -l -x -p $port -e exs -n $((16 << 30)) -t "$secs" \
		>/dev/null 2>&1
	# the second stream's server says FIN at once, then reads
	timeout 300 exs-run python3 -c 'import socket, sys
l = socket.create_server(("", int(sys.argv[1])))
c = l.accept()[0]
c.shutdown(socket.SHUT_WR)
try:
    while c.recv(65536):
        pass
except OSError:
    pass' $((port + 1)) > /dev/null 2>&1 &
	EXS_PIDS+=($!)
	exs_wait_listen $port 10
	exs_wait_listen $((port + 1)) 10
	ready "$name"
	exs_wait_file "$share/done.$port" 300
	kill "${EXS_PIDS[@]: -2}" 2>/dev/null
	wait "${EXS_PIDS[@]: -2}" 2>/dev/null
else
	await_ready "$name"
	share_on
	joined=$(exs_stat ConnectShared)
	rdma=$(exs_stat ConnectRdma)
	exs_bg exs_connect -x -a $peer4 -p $port -e exs -n $((16 << 30)) \
		-t "$secs" >/dev/null 2>&1
	exs_wait_until 60 eval '[ "$(exs_stat ConnectRdma)" != "$rdma" ]'
	flowing
	# a send every 50 ms: mostly none in flight when the QP fails, so
	# the stream ends in order, not by a flushed request of its own;
	# 1 KiB and 64 bytes in turn, a ring write's path and a batch's
	# (each must find the link closed before it reads the PD);
	# beside it, SO_KEEPALIVE on and off every 10 ms until 8 s after a
	# send failed, through the second hold; its exit status says
	# whether every setsockopt was taken
	batched=$(exs_stat RdmaBatchedWrites)
	timeout 300 exs-run python3 -c 'import errno, socket, sys, threading, time
s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
while s.recv(4096):
    pass
open(sys.argv[3], "w").close()
stop, toggled = [time.time() + 60], [0, None]
def toggle():
    on = 1
    while time.time() < stop[0]:
        try:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, on)
        except OSError as e:
            toggled[1] = e
            return
        toggled[0] += 1
        on ^= 1
        time.sleep(0.01)
t = threading.Thread(target=toggle)
t.start()
end = time.time() + 60
n = 0
try:
    while time.time() < end:
        s.send(b"x" * (1024 if n % 2 else 64))
        n += 1
        time.sleep(0.05)
    print("no error")
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))
stop[0] = time.time() + 8
t.join()
print("SO_KEEPALIVE set", toggled[0], "times;", toggled[1] or "no error")
sys.exit(1 if toggled[1] else 0)' \
		$peer4 $((port + 1)) "$EXS_TMP/half.eof" > "$EXS_TMP/half.out" \
		2> "$EXS_TMP/half.err" &
	half=$!
	if exs_wait_file "$EXS_TMP/half.eof" 60; then
		exs_assert "$name: a: the second stream rides the first's QP" \
			"[ \$(exs_stat ConnectShared) -gt $joined ]"
		# a second of sends on the live link first: ten batched
		sleep 1
		was=$(cat $held)
		warned=$(dmesg | grep -cE 'WARNING.*exs_watch_(work|stop)')
		echo 3000 > $hold
		echo 1 > $knob
		wait $half
		rc=$?
		# the second hold began 3 s after the first: both are over
		# by the time the toggling ends, 8 s after the send failed
		exs_wait_until 10 eval '[ $(($(cat $held) - was)) -ge 2 ]'
		echo 0 > $hold
		# what the program printed, not what libbpf warned (stderr)
		exs_assert "$name: a: its sends end as TCP's would ($(head -1 "$EXS_TMP/half.out"))" \
			'head -1 "$EXS_TMP/half.out" | grep -qxE "EPIPE|ECONNRESET" ||
			 { sed "s/^/#   /" "$EXS_TMP/half.err"; false; }'
		# its small sends went in batches (the first stream's are
		# 64 KiB): both paths were in use as the link failed
		exs_check "$name: a: its 64-byte sends were batched" \
			[ "$(exs_stat RdmaBatchedWrites)" -gt "$batched" ]
		# the windows were open: its teardown was held twice
		exs_check "$name: a: its teardown was held twice ($(($(cat $held) - was)))" \
			[ $(($(cat $held) - was)) -ge 2 ]
		exs_check "$name: a: SO_KEEPALIVE taken throughout ($(tail -1 "$EXS_TMP/half.out"))" \
			[ "$rc" = 0 ]
		exs_check "$name: a: SO_KEEPALIVE armed no watch once stopped" \
			[ "$(dmesg | grep -cE 'WARNING.*exs_watch_(work|stop)')" = "$warned" ]
	else
		kill $half 2>/dev/null
		exs_fail "$name" "the second stream never read its EOF: $(cat "$EXS_TMP/half.out" "$EXS_TMP/half.err")"
	fi
	share_off
	kill "${EXS_PIDS[-1]}" 2>/dev/null
	wait "${EXS_PIDS[-1]}" 2>/dev/null
	touch "$share/done.$port"
fi
want "$name" && sync_case $port
echo 1 > $param

exs_tap_end
