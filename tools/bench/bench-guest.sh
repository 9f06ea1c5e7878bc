#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench, inside the two exs-vm hosts: host b serves, host a measures
# each transport in turn on the same rxe link and appends one JSON line per
# figure to $EXS_VM_OUT/results.jsonl.  Repetitions are interleaved (every
# transport at one point, then the next point; the whole list once per
# repetition) so that drift of the emulated machine hits all alike.  The
# fallback, TCP's own socket, is measured beside TCP in one exs_bench run
# (-A: the two connections take turns every 100 or 500 ms), and report.py
# takes its ratios pair by pair: a 2% target is finer than the drift
# between two runs one after the other.
#
#   exs-vm --hosts 2 -- tools/bench/bench-guest.sh tools/bench/bench-guest.sh
#
# EXS_BENCH_REPS (3), EXS_BENCH_SECONDS (2) per figure, EXS_BENCH_QUICK=1
# (only the sizes and client counts the targets name), EXS_BENCH_WORKLOADS
# (which of "pp stream conn rr fair nordma" run: all).
set -u
# shellcheck source=../../selftests/lib.sh
. "$(dirname "$0")/../../selftests/lib.sh"
host=${EXS_VM_HOST:?run under exs-vm --hosts 2}
share=${EXS_VM_SHARE:?}
out=${EXS_VM_OUT:?}
peer=10.0.0.2
reps=${EXS_BENCH_REPS:-3}
secs=${EXS_BENCH_SECONDS:-2}
rspreload=$(ls /usr/lib/*/rsocket/librspreload.so 2>/dev/null | head -n 1)
kver=$(uname -r)

pp_sizes="1 16 64 1024 4096 65536"
bw_sizes="64 1024 16384 65536 1048576"
rr_clients="1 4 16 64"
# the sizes the targets name only (the repetitions and seconds stay)
if [ "${EXS_BENCH_QUICK:-0}" = 1 ]; then
	pp_sizes="16 1024" bw_sizes="65536" rr_clients="1 16"
fi

# Port of each transport's server on b.  fallback is an AF_EXS client of
# the plain TCP server; rsockets is this program under librspreload.so.
declare -A port=([tcp]=18001 [exs]=18002 [exs_busypoll]=18002 [exs_noshare]=18002
		 [exs_nobatch]=18002 [fallback]=18001 [smc]=18003 [rsockets]=18004)
declare -A family=([tcp]=tcp [exs]=exs [exs_busypoll]=exs [exs_noshare]=exs [fallback]=exs
		   [exs_nobatch]=exs [smc]=smc [rsockets]=tcp)

# SMC-R needs the smc module and the same UEID on both hosts (SMC-Rv2 on
# stock rxe, no PNET table); on 6.1 its connect hangs on rxe bugs fixed
# later (the issue's finding), so it is measured on 6.12 only.
smc_setup() {
	case "$kver" in 6.1.*) echo "SMC-R hangs on 6.1's rxe"; return 1 ;; esac
	modprobe -q smc 2>/dev/null || { echo "no smc module"; return 1; }
	smc_ueid EXS-BENCH || { echo "SMC refused the UEID"; return 1; }
}

# --- host b: the servers, and perftest's servers on request ---------------
if [ "$host" = b ]; then
	exs_bench -s -f tcp -p 18001 &
	exs_bench -s -f exs -p 18002 &
	if smc_setup > "$share/smc.b.why" 2>&1; then
		exs_bench -s -f smc -p 18003 &
	fi
	touch "$share/servers.ready"
	# perftest serves one test per run, and rsockets wants a server
	# per rr client (sock()): a names each such server in cmd.N, and
	# asks for N+1 only when done with N, so a server still running then
	# is stopped, with what it started (timeout signals its process
	# group; a perftest server whose client failed would hold its port).
	# b looks for them ten times a second, waiting on a FIFO nobody
	# writes: sleep(1) there cost a fork and an exec each time, which
	# under TCG took a third of b's CPU from every figure
	mkfifo "$EXS_TMP/tick" && exec {tick}<> "$EXS_TMP/tick"
	n=0 spid=
	while [ ! -e "$share/finished" ]; do
		if [ -e "$share/cmd.$((n + 1))" ]; then
			n=$((n + 1))
			if [ -n "$spid" ]; then
				kill "$spid" 2>/dev/null
				wait "$spid" 2>/dev/null
			fi
			timeout 120 bash -c "$(cat "$share/cmd.$n")" \
				> "$share/srv.$n.log" 2>&1 &
			spid=$!
		fi
		read -r -t 0.1 -u "$tick" _
	done
	kill $(jobs -p) 2>/dev/null
	wait
	exit 0
fi

# --- host a: the measurements ----------------------------------------------
exs_wait_file "$share/servers.ready" 300 || { echo "b never ready"; exit 1; }
smc_setup > "$share/smc.a.why" 2>&1
smc_why=$(cat "$share/smc.a.why" "$share/smc.b.why" | head -n 1)
results=$out/results.jsonl
: > "$results"
# a loaded emulated host may answer a REQ later than a head start made
# for hardware (net.exs.connect_race_ms): the figures wait for RDMA
sysctl -qw net.exs.connect_timeout_ms=30000 net.exs.connect_race_ms=0
n=0

emit() {	# emit REP: tag exs_bench's line with the run's facts
	sed "s/^{/{\"kernel\": \"$kver\", \"rep\": $1, /" >> "$results"
}

missing() {	# missing REP TRANSPORT WORKLOAD SIZE CLIENTS WHY
	printf '{"kernel": "%s", "rep": %s, "transport": "%s", "workload": "%s", "size": %s, "clients": %s, "error": "%s"}\n' \
		"$kver" "$1" "$2" "$3" "$4" "$5" "$6" >> "$results"
}

# a figure's bound: fair's load ends by itself 2 -t + 30 s in
tmo=$(awk -v s="$secs" 'BEGIN { printf "%d", 60 + 3 * s }')

# sock REP TRANSPORT WORKLOAD SIZE [CLIENTS]: one exs_bench figure
sock() {
	local rep=$1 t=$2 w=$3 z=$4 c=${5:-1} pre=() opt=() line rc try servers=1
	case "$t" in
	smc) [ -z "$smc_why" ] ||
		{ missing "$rep" "$t" "$w" "$z" "$c" "$smc_why"; return; } ;;
	rsockets) [ -n "$rspreload" ] ||
		{ missing "$rep" "$t" "$w" "$z" "$c" "librspreload.so not installed"; return; }
		pre=(env LD_PRELOAD="$rspreload")
		# Debian 12's rsockets (rdma-core 44) loses connections
		# once a process serves more than three (rdma-core's fix:
		# "Fix for cm_svc_run", 2024): a server per rr client, on
		# ports 18004 up, each its own process
		[ "$w" = rr ] && servers=$c
		opt=(-S "$servers")
		remote "for ((p = 18004; p < 18004 + $servers; p++)); do
			LD_PRELOAD=$rspreload exs_bench -s -f tcp -p \$p &
			done; wait" ;;
	exs_busypoll) opt=(-b 50000) ;;	# longer than a TCG round trip
	# AF_EXS with a queue pair per connection, beside the default
	exs_noshare) share0=$(sysctl -n net.exs.share_qp)
		sysctl -qw net.exs.share_qp=0 ;;
	# AF_EXS sharing a queue pair, a ring write for each small write
	exs_nobatch) batching 0 ;;
	esac
	# a server b has just started may not listen yet
	for ((try = 0; try < 20; try++)); do
		[ "$t" = rsockets ] && sleep 1
		line=$(timeout "$tmo" "${pre[@]}" exs_bench -c $peer \
			-p "${port[$t]}" -f "${family[$t]}" -L "$t" -w "$w" \
			-z "$z" -n "$c" -t "$secs" "${opt[@]}" 2> "$out/bench.err")
		rc=$?
		[ "$t" = rsockets ] && [ $rc != 0 ] &&
			grep -q "Connection refused" "$out/bench.err" || break
	done
	[ "$t" = exs_noshare ] && sysctl -qw net.exs.share_qp="$share0"
	[ "$t" = exs_nobatch ] && batching 1
	if [ $rc = 0 ]; then
		echo "$line" | emit "$rep"
	elif [ $rc = 124 ]; then
		missing "$rep" "$t" "$w" "$z" "$c" "no answer within $tmo s"
	else
		missing "$rep" "$t" "$w" "$z" "$c" \
			"$(tail -n 1 "$out/bench.err" | tr -d '"\\')"
	fi
}

# pair REP WORKLOAD SIZE: TCP and the fallback (an AF_EXS socket that
# finds plain TCP at the server), side by side, as long as two figures
pair() {
	local rep=$1 w=$2 z=$3 lines t

	if lines=$(timeout 60 exs_bench -c $peer -p "${port[tcp]}" -f tcp \
		-L tcp -A exs -M fallback -w "$w" -z "$z" \
		-t "$(awk -v s="$secs" 'BEGIN { print 2 * s }')" \
		2> "$out/bench.err"); then
		echo "$lines" | emit "$rep"
		return
	fi
	for t in tcp fallback; do
		missing "$rep" $t "$w" "$z" 1 \
			"$(tail -n 1 "$out/bench.err" | tr -d '"\\')"
	done
}

remote() {	# remote CMD: b runs CMD, in place of the last one
	n=$((n + 1))
	echo "$1" > "$share/cmd.$n.tmp"
	mv "$share/cmd.$n.tmp" "$share/cmd.$n"
}

# batching 0|1: the module's batch parameter (batch.c) at both hosts, as
# both send small writes (b takes its command within 0.1 s)
batching() {
	remote "echo $1 > /sys/module/af_exs/parameters/batch"
	echo "$1" > /sys/module/af_exs/parameters/batch
	sleep 1
}

# perf REP LABEL TEST SIZE [ARGS]: one perftest figure, its server on b
perf() {
	local rep=$1 label=$2 test=$3 z=$4 i log="$out/perf.log"
	shift 4
	# QP data go over a TCP connection (rdma_cm's exchange failed one
	# connect in three here, each after a minute of CM retries); GID 1
	# is rxe's IPv4 one
	remote "exec $test -d rxe0 -x 1 -F -s $z $*"
	for ((i = 0; i < 100; i++)); do
		sleep 0.2
		timeout 120 "$test" -d rxe0 -x 1 -F -s "$z" "$@" $peer \
			> "$log" 2>&1 && break
		# refused: the server is not listening yet
		grep -q "Couldn't connect\|Unable to" "$log" || break
	done
	python3 "$EXS_ROOT/tools/bench/perftest_line.py" "$label" "$z" < "$log" |
		emit "$rep"
}

workloads=" ${EXS_BENCH_WORKLOADS:-pp stream conn rr fair nordma} "
runs() { [[ "$workloads" == *" $1 "* ]]; }

for ((rep = 1; rep <= reps; rep++)); do
	echo "# repetition $rep of $reps"
	runs pp || pp_sizes=
	runs stream || bw_sizes=
	runs rr || rr_clients=
	for z in $pp_sizes; do
		perf "$rep" ib_write_lat ib_write_lat "$z" -n 500
		perf "$rep" ib_send_lat ib_send_lat "$z" -n 500
		perf "$rep" ib_send_lat_event ib_send_lat "$z" -n 500 -e
		pair "$rep" pp "$z"
		for t in exs exs_busypoll smc rsockets; do
			sock "$rep" $t pp "$z"
		done
	done
	for z in $bw_sizes; do
		perf "$rep" ib_write_bw ib_write_bw "$z" -D "$secs"
		pair "$rep" stream "$z"
		for t in exs smc rsockets; do
			sock "$rep" $t stream "$z"
		done
	done
	for t in tcp exs exs_noshare fallback smc rsockets; do
		runs conn && sock "$rep" $t conn 1
	done
	for c in $rr_clients; do
		for t in tcp exs exs_noshare exs_nobatch smc rsockets; do
			sock "$rep" $t rr 64 "$c"
		done
	done
	# a 64-byte ping-pong alone, then beside a 64 KiB stream on a
	# second connection (AF_EXS's on the same link): the two quotients
	for t in tcp exs; do
		runs fair && sock "$rep" $t fair 64
	done
done
# A host without RDMA, last (b deletes its device): 50 AF_EXS connects
# to fresh ports beside 50 TCP ones, each repetition with a's negative
# cache emptied, so that each pays the first connect's head start
# (net.exs.connect_race_ms) as a new host would
if runs nordma; then
	# reuse_idle_ms 0: no parked queue pair or link to b, whose end of
	# them goes with its device, is tried
	sysctl -qw net.exs.connect_timeout_ms=5000 net.exs.connect_race_ms=250 \
		net.exs.reuse_idle_ms=0
	remote "rdma link delete rxe0; exec exs_conntime -l -p 18100 -c 50"
	sleep 2		# b takes its command within 0.1 s: its device is gone
	for ((rep = 1; rep <= reps; rep++)); do
		# b's listeners may not be up yet: a refused connect fails
		line=
		for ((try = 0; try < 20; try++)); do
			exsconfig flush
			line=$(exs_conntime -a $peer -p 18100 -c 50 -j \
				2> "$out/bench.err") && break
			line=
			sleep 1
		done
		if [ -n "$line" ]; then
			echo "$line" | emit "$rep"
		else
			for t in nordma tcp; do
				missing "$rep" $t connect 1 1 \
					"$(tail -n 1 "$out/bench.err" | tr -d '"\\')"
			done
		fi
	done
fi
touch "$share/finished"
echo "# $(wc -l < "$results") figures in $results"
echo "# af_exs: $(exs_stat_line)"
