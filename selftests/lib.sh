# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the AF_EXS selftests, in the manner of the MPTCP
# selftests' mptcp_lib.sh: TAP output, skip versus fail, cleanup traps.

readonly KSFT_PASS=0
readonly KSFT_FAIL=1
readonly KSFT_SKIP=4

EXS_NTEST=0
EXS_NFAIL=0
EXS_NSKIP=0
EXS_TMP=$(mktemp -d /tmp/exs-test.XXXXXX)
EXS_PIDS=()
EXS_SYSCTLS=()

# Every net.exs value as the suite found it: a suite may set them with a
# plain sysctl, and the suites after it in the same boot must not inherit
# that (exs_load's 16 KiB rings once hung exs_stream's linger case)
declare -A EXS_SYSCTL_BASE=()
exs_sysctl_snapshot() {
	local f
	for f in /proc/sys/net/exs/*; do
		[ -w "$f" ] && EXS_SYSCTL_BASE[$f]=$(< "$f")
	done 2>/dev/null
}
exs_sysctl_snapshot

# only what changed is written: a write may have side effects
exs_sysctl_reset() {
	local f
	for f in "${!EXS_SYSCTL_BASE[@]}"; do
		[ "$(cat "$f" 2>/dev/null)" = "${EXS_SYSCTL_BASE[$f]}" ] ||
			echo "${EXS_SYSCTL_BASE[$f]}" > "$f"
	done 2>/dev/null
}

exs_cleanup() {
	local p
	for p in "${EXS_PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	exs_sysctl_restore
	exs_sysctl_reset
	rm -rf "$EXS_TMP"
}
trap exs_cleanup EXIT

# exs_sysctl NAME=VALUE...: set sysctls for this suite only; exs_cleanup
# (or exs_sysctl_restore, sooner) puts back what was there, for the suite
# that follows in the same boot
exs_sysctl_restore() {
	local i
	# newest first, so a name set twice ends with its first value
	for ((i = ${#EXS_SYSCTLS[@]} - 1; i >= 0; i--)); do
		sysctl -qw "${EXS_SYSCTLS[i]}" 2>/dev/null
	done
	EXS_SYSCTLS=()
}
exs_sysctl() {
	local kv old
	for kv; do
		old=$(sysctl -n "${kv%%=*}") || return 1
		EXS_SYSCTLS+=("${kv%%=*}=$old")
		sysctl -qw "$kv" || return 1
	done
}

# exs_tap LINE: print a TAP line; inside exs-vm, to the kernel log too, so
# that a kernel report there says which case it came after
exs_tap() {
	echo "$1"
	[ -n "${EXS_VM_HOST:-}" ] &&
		{ echo "<6>exs-selftest: $1" > /dev/kmsg; } 2>/dev/null
	return 0
}

exs_tap_begin() {
	echo "TAP version 13"
	exs_tap "# $1"
}

exs_ok() {
	EXS_NTEST=$((EXS_NTEST + 1))
	exs_tap "ok $EXS_NTEST - $1"
}

exs_fail() {
	EXS_NTEST=$((EXS_NTEST + 1))
	EXS_NFAIL=$((EXS_NFAIL + 1))
	exs_tap "not ok $EXS_NTEST - $1${2:+ # $2}"
}

exs_skip() {
	EXS_NTEST=$((EXS_NTEST + 1))
	EXS_NSKIP=$((EXS_NSKIP + 1))
	exs_tap "ok $EXS_NTEST - $1 # SKIP ${2:-}"
}

# exs_skip_all NAME WHY: the whole suite cannot run here: skip and exit
exs_skip_all() {
	exs_skip "$1" "$2"
	exs_tap_end
	exit $KSFT_SKIP
}

# exs_run NAME CMD...: one test from a command's exit status (4 is skip);
# its output is shown, indented, only when it fails.  A command that hangs
# fails after EXS_TEST_TIMEOUT seconds instead of stalling the run.
exs_run() {
	local name=$1 rc log="$EXS_TMP/run.log"
	shift
	timeout --kill-after=5 "${EXS_TEST_TIMEOUT:-300}" "$@" > "$log" 2>&1
	rc=$?
	case $rc in
	0) exs_ok "$name" ;;
	"$KSFT_SKIP") exs_skip "$name" "$(tail -n 1 "$log")" ;;
	*) exs_fail "$name" "exit $rc"; sed 's/^/#   /' "$log" ;;
	esac
	return $rc
}

# exs_check NAME CONDITION-COMMAND...: one test from a condition
exs_check() {
	local name=$1
	shift
	if "$@"; then exs_ok "$name"; else exs_fail "$name" "$*"; fi
}

# exs_assert NAME 'CONDITION': one test from a shell condition, evaluated
# whole (exs_check would take only the first part of "a && b")
exs_assert() {
	local name=$1
	if eval "$2"; then exs_ok "$name"; else exs_fail "$name" "$2"; fi
}

exs_bg() {
	"$@" &
	EXS_PIDS+=($!)
}

# exs_dump_stuck PID: why a job is still running, as TAP comments: where
# each of its threads sleeps in the kernel, the host's AF_EXS sockets and
# links, and the RDMA device's state (for a CI log that must explain a
# hang)
exs_dump_stuck() {
	local t
	for t in /proc/"$1"/task/*; do
		echo "# task ${t##*/} ($(cat "$t/wchan" 2>/dev/null)):"
		sed 's/^/#   /' "$t/stack" 2>/dev/null
	done
	exsconfig sockets 2>&1 | sed 's/^/# /'
	exsconfig links 2>&1 | sed 's/^/# /'
	rdma link show 2>&1 | sed 's/^/# /'
	echo "# $(exs_stat_line)"
}

# exs_rig_sysctls: what an emulated host needs that hardware does not.  A
# REQ's answer, which net.exs.connect_race_ms (250 ms) awaits on hardware,
# took longer than that on a TCG guest (6.12, exs_pair.sh's first IPv6
# connect), and a missed head start sends the host to TCP for a minute:
# the rig waits the whole connect timeout (0), and the cases that test
# the head start set it themselves.  exs-vm's guest sets it at boot;
# suites that load the module again go through exs_insmod.
exs_rig_sysctls() {
	sysctl -qw net.exs.connect_race_ms=0 2>/dev/null
	return 0
}
exs_insmod() { insmod "${1:-$EXS_MODULE}" && exs_rig_sysctls; }

exs_loaded() {
	[ -r /sys/module/af_exs/parameters/family ]
}

# exs_stat NAME: a counter from /proc/net/exs_stat (0 when absent)
exs_stat() {
	awk -v n="$1" '$1 == n { print $2; f = 1 } END { if (!f) print 0 }' \
		/proc/net/exs_stat 2>/dev/null || echo 0
}

# exs_tally WHAT N: add to the run's tally (exs-vm sets EXS_TALLY), which
# make stress sums: syscalls, netlink, faults, checked, corrupt
exs_tally() {
	[ -n "${EXS_TALLY:-}" ] && echo "$1 $2" >> "$EXS_TALLY"
	return 0
}

# exs_nsockets: how many AF_EXS sockets the host has
exs_nsockets() {
	exsconfig -j sockets |
		python3 -c 'import json, sys; print(len(json.load(sys.stdin)))'
}

# exs_no_sockets: the host has no AF_EXS socket left
exs_no_sockets() {
	[ "$(exs_nsockets)" = 0 ]
}

# exs_wait_until SECONDS CMD...: until CMD succeeds (teardown, for one,
# is asynchronous), for SECONDS of the clock however long CMD takes
exs_wait_until() {
	local end=$((SECONDS + $1 + 1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# exs_tcp_segs: TCP segments this host sent and received so far
exs_tcp_segs() {
	awk '$1 == "Tcp:" && $2 ~ /^[0-9]+$/ { print $11 + $12 }' /proc/net/snmp
}

# exs_rdma_stat COUNTER...: the sum of the named counters of every RDMA link
exs_rdma_stat() {
	rdma statistic show 2>/dev/null |
		awk -v names=" $* " '{ for (i = 1; i < NF; i++)
			if (index(names, " " $i " ")) n += $(i + 1) }
		     END { print n + 0 }'
}

# exs_fallbacks: every fallback this host counted, whatever its reason
exs_fallbacks() {
	awk '$1 ~ /^Fallback/ { n += $2 } END { print n + 0 }' /proc/net/exs_stat
}

# exs_stat_line: the non-zero counters on one line, for a failure's detail
exs_stat_line() {
	awk '$2 != 0 { printf "%s %s ", $1, $2 }' /proc/net/exs_stat 2>/dev/null
}

# exs_stat_save FILE, exs_stat_moved FILE: the counters (AF_EXS's, the
# RDMA CM's and the devices' error counters) that moved since the save, on
# one line: when a case expected RDMA and got TCP, this says which
# fallback reason was taken and whether the CM had to resend (a lost MAD
# costs a retry of seconds); when a connection failed, whether its queue
# pair ran out of retries
exs_stat_snapshot() {
	cat /proc/net/exs_stat 2>/dev/null
	grep -Hs . /sys/class/infiniband/*/ports/*/cm_tx_retries/* |
		sed 's|^/sys/class/infiniband/||; s|/ports/[0-9]*||; s|:| |'
	grep -Hs . /sys/class/infiniband/*/ports/*/hw_counters/*_err |
		sed 's|^/sys/class/infiniband/||; s|/ports/[0-9]*/hw_counters||; s|:| |'
}
exs_stat_save() {
	exs_stat_snapshot > "$1"
	exs_module_log | wc -l > "$1.log"
}
exs_stat_moved() {
	exs_stat_snapshot | awk 'NR == FNR { old[$1] = $2; next }
		$2 != old[$1] { printf "%s +%d ", $1, $2 - old[$1] }' "$1" -
}
# exs_stat_delta FILE NAME: how far an AF_EXS counter moved since
# exs_stat_save FILE
exs_stat_delta() {
	echo $(($(exs_stat "$2") - $(awk -v n="$2" \
		'$1 == n { print $2; f = 1 } END { if (!f) print 0 }' "$1")))
}

# exs_module_log: the module's kernel messages (a protocol error names
# the message and the state it found); exs_module_said STAT: the first
# few since STAT was saved, as TAP comments
exs_module_log() {
	dmesg 2>/dev/null | grep -v 'exs-selftest: ' | grep 'af_exs: '
}
exs_module_said() {
	exs_module_log | tail -n +$(($(cat "$1.log" 2>/dev/null || echo 0) + 1)) |
		head -n 5 | sed 's/^/#   kernel: /'
}

# exs_module_logged NAME STAT TEXT: one test, that the module logged
# TEXT since exs_stat_save STAT
exs_module_logged() {
	exs_check "$1" grep -q "$3" <<< "$(exs_module_said "$2")"
}

# exs_explain_failures STAT NFAIL: when tests failed since EXS_NFAIL was
# NFAIL, print the counters that moved since STAT was saved, and what the
# module logged meanwhile
exs_explain_failures() {
	[ "$EXS_NFAIL" -eq "$2" ] && return
	echo "#   $host: counters that moved: $(exs_stat_moved "$1")"
	exs_module_said "$1"
}

# exs_explained CMD...: run CMD; if it fails, print the counters that
# moved while it ran (which fallback reason sent a pair to TCP, say)
exs_explained() {
	local stat="$EXS_TMP/explained.stat" rc
	exs_stat_save "$stat"
	"$@" && return 0
	rc=$?
	echo "# counters that moved: $(exs_stat_moved "$stat")"
	exs_module_said "$stat"
	return $rc
}

# exs_roce_band DEV QDISC [MATCH...]: what DEV sends to RoCEv2's UDP port
# that u32's MATCH also matches goes through the child qdisc QDISC (handle
# 30:, under a prio root), the rest untouched.  Set it up while the link
# is idle: adding a root qdisc deactivates the device for a moment, and
# 6.12's rxe ends any QP whose packet that refuses.
exs_roce_band() {
	local dev=$1 qdisc=$2

	shift 2
	tc qdisc add dev "$dev" root handle 1: prio bands 3 \
		priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 &&
	tc qdisc add dev "$dev" parent 1:3 handle 30: $qdisc &&
	tc filter add dev "$dev" parent 1: protocol ip prio 1 u32 \
		match ip protocol 17 0xff match ip dport 4791 0xffff \
		"$@" flowid 1:3
}

# exs_rdma_pkts: packets the host's RDMA devices sent and received so far
exs_rdma_pkts() {
	exs_rdma_stat sent_pkts rcvd_pkts
}

# exs_cm_reqs: REQs the host's CM sent so far (each RDMA connect attempt
# sends one, and more on retries); "none" without the CM's counters, which
# no comparison then passes
exs_cm_reqs() {
	cat /sys/class/infiniband/*/ports/*/cm_tx_msgs/req 2>/dev/null |
		awk '{ n += $1 } END { print NR ? n : "none" }'
}

# exs_tracefs: the tracing directory, mounted if it is not yet (a suite's
# tracepoints, function tracer or kprobes); fails when there is none
exs_tracefs() {
	local t=/sys/kernel/tracing

	[ -e $t/trace ] || mount -t tracefs nodev $t 2>/dev/null
	[ -e $t/trace ] && echo $t
}

# exs_wait_file PATH SECONDS: wait for a file another host writes
exs_wait_file() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# exs_wait_listen PORT SECONDS: wait for a local TCP listener; says so
# if none came (a test that goes on then fails later, for a reason that
# is not its own)
exs_wait_listen() {
	local hex i
	hex=$(printf '%04X' "$1")
	# /proc/net/tcp, not ss: ss's sock_diag query may ask for a module,
	# and exs_nomem's failing programs once kept its modprobe waiting
	for ((i = 0; i < $2 * 10; i++)); do
		grep -qsE ":$hex [0-9A-F]+:0000 0A" /proc/net/tcp /proc/net/tcp6 &&
			return 0
		sleep 0.1
	done
	echo "# no listener on port $1 after $2 s"
	return 1
}

# exs_rxe_loop NAME ADDR: a dummy link NAME with ADDR/24 and a Soft-RoCE
# device rxe-NAME on it; rxe loops traffic to a local address back, so one
# host talks RDMA to itself.  exs_rxe_loop_del NAME removes both.
exs_rxe_loop() {
	ip link add "$1" type dummy 2>/dev/null &&
		ip addr add "$2/24" dev "$1" && ip link set "$1" up &&
		{ modprobe -q rdma_rxe; rdma link add "rxe-$1" type rxe netdev "$1"; }
}
exs_rxe_loop_del() {
	rdma link delete "rxe-$1" 2>/dev/null
	ip link del "$1" 2>/dev/null
}

# exs_blackhole: TEST-NET-1 behind a dummy device, where SYNs vanish, so a
# connect there blocks (the connect-timeout and signal cases)
exs_blackhole() {
	ip link add exs-blackhole type dummy 2>/dev/null
	ip addr add 192.0.2.1/24 dev exs-blackhole 2>/dev/null
	ip link set exs-blackhole up
}

# Two hosts (exs-vm --hosts 2, $host and $share set) meet through files
# in the shared directory: b says a server is ready, a says a client is
# done.
ready() { touch "$share/ready.$1"; }
await_ready() { exs_wait_file "$share/ready.$1" 60; }
done_() { touch "$share/done.$1"; }
await_done() { exs_wait_file "$share/done.$1" 300; }

# pair_xfer NAME PORT "SERVER ARGS" "CLIENT ARGS"
pair_xfer() {
	local name=$1 port=$2
	if [ "$host" = b ]; then
		exs_bg exs_connect -l -p "$port" $3 >/dev/null \
			2> "$EXS_TMP/server.err"
		# a client let in before the listener is up is refused, and
		# its retry goes to TCP (the negative cache): wait, or say so
		exs_wait_listen "$port" 60
		ready "$name"
		if wait "${EXS_PIDS[-1]}"; then
			exs_ok "$name: server side"
		else
			exs_fail "$name: server side"
			sed 's/^/#   /' "$EXS_TMP/server.err"
		fi
	else
		await_ready "$name" || { exs_fail "$name" "server never ready"; return; }
		exs_run "$name" exs_connect -p "$port" $4
	fi
}

# rdma_xfer NAME PORT BYTES "SERVER ARGS" "CLIENT ARGS": a transfer that
# must go by RDMA, shown three ways: SO_DOMAIN stays AF_EXS on both ends
# (-e exs), the RDMA device moved at least a packet per 4 KiB each way,
# and TCP moved next to nothing (no payload: a 1 MiB TCP transfer alone
# takes hundreds of segments).
# When it went by TCP after all, each host prints the counters that moved
# (which fallback reason, whether the CM resent), for the log to explain.
rdma_xfer() {
	local name=$1 port=$2 bytes=$3 segs pkts nfail=$EXS_NFAIL
	local stat="$EXS_TMP/xfer.stat"
	exs_stat_save "$stat"
	segs=$(exs_tcp_segs)
	pkts=$(exs_rdma_pkts)
	pair_xfer "$name" "$port" "$4 -e exs -n $bytes" "$5 -e exs -n $bytes"
	exs_check "$name: $host: the RDMA device carried the bytes" \
		[ $(($(exs_rdma_pkts) - pkts)) -ge $((2 * bytes / 4096)) ]
	exs_check "$name: $host: TCP carried no payload" \
		[ $(($(exs_tcp_segs) - segs)) -lt 40 ]
	exs_explain_failures "$stat" "$nfail"
}

exs_tap_end() {
	echo "1..$EXS_NTEST"
	echo "# $((EXS_NTEST - EXS_NFAIL - EXS_NSKIP)) passed, $EXS_NFAIL failed, $EXS_NSKIP skipped"
	[ "$EXS_NFAIL" -eq 0 ]
}
