#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Allocations that fail, on a kernel with fault injection (the debug
# kernel), on one host that talks RDMA to itself (exs_rxe_loop):
#
#   1. The RDMA path's own allocations (the connection, its rings, its
#      queue pair: fail_exs_alloc) fail at random on both ends: every
#      connection still moves its bytes intact, over TCP where its RDMA
#      setup failed, and the failures are counted as such.
#   2. With injection off again, connections use RDMA; nothing is left
#      behind and the module unloads (kmemleak scans when the run ends).
#   3. failslab and fail_page_alloc fail the test programs' own kernel
#      allocations (socket calls, the native TCP socket, sends): calls may
#      fail, but nothing crashes, hangs or corrupts a byte
#      (EXS_NOMEM_TASKS=0 leaves it out).
#
# The faults injected are appended to $EXS_TALLY ("faults N").
#
#   exs-vm --kernel DEBUG-KERNEL -- selftests/exs_nomem.sh

. "$(dirname "$0")/lib.sh"

addr=10.0.9.1
port=23200
dbg=/sys/kernel/debug
rounds=${EXS_NOMEM_ROUNDS:-20}

exs_tap_begin "AF_EXS when allocations fail"
exs_loaded || exs_skip_all af_exs "module not loaded"
[ -d $dbg/fail_exs_alloc ] && [ -d $dbg/failslab ] ||
	exs_skip_all "allocation failures" "no fault injection in this kernel"
exs_rxe_loop exsnm0 $addr ||
	exs_skip_all "allocation failures" "no Soft-RoCE device"

# inject DIR PROBABILITY [TASKS]: fail that share of DIR's calls, quietly,
# counting down from a known number so what was injected can be read back;
# with TASKS, only in tasks marked with make-it-fail.  The probability is
# set last: until the task filter is on, every task's allocations may fail
# (the rig's init died of it once).
budget=1000000
inject() {
	if [ -n "${3:-}" ]; then echo Y; else echo N; fi > "$1/task-filter"
	echo 1 > "$1/interval"
	echo 0 > "$1/verbose"
	echo 0 > "$1/space"
	echo $budget > "$1/times"
	[ -e "$1/ignore-gfp-wait" ] && echo N > "$1/ignore-gfp-wait"
	echo "$2" > "$1/probability"
}
# uninject DIR: off; prints how many faults DIR injected
uninject() {
	echo 0 > "$1/probability"
	echo $((budget - $(cat "$1/times")))
}
faults=0
stop_injecting() {
	local d
	for d in fail_exs_alloc failslab fail_page_alloc; do
		[ -e $dbg/$d/probability ] && uninject $dbg/$d > /dev/null
	done
}
# part 3's tmpfs comes off before exs_cleanup removes the directory it is on
trap 'stop_injecting; umount "$EXS_TMP/failing" 2>/dev/null
	exs_rxe_loop_del exsnm0; exs_cleanup' EXIT
sysctl -qw net.exs.connect_timeout_ms=30000
# a connection whose RDMA setup failed must not make the next one skip it
sysctl -qw net.exs.neg_cache_ttl_ms=0 2>/dev/null

fallbacks() {
	echo $(($(exs_stat FallbackNoMem) + $(exs_stat FallbackPeerReject)))
}

# --- 1. the RDMA path's allocations -----------------------------------------
name="the RDMA path's allocations fail (10%)"
rdma=$(exs_stat ConnectRdma)
fb=$(fallbacks)
inject $dbg/fail_exs_alloc 10
exs_bg exs_connect -l -x -a $addr -p $port -c 4 -r "$rounds" -n 65536 -t 600 \
	>/dev/null
exs_wait_listen $port 30
exs_run "$name: $((4 * rounds)) connections move their bytes intact" \
	exs_connect -x -a $addr -p $port -c 4 -r "$rounds" -n 65536 -t 600
exs_check "$name: the server's ends too" wait "${EXS_PIDS[-1]}"
n=$(uninject $dbg/fail_exs_alloc)
faults=$((faults + n))
echo "# $name: $n faults, $(($(exs_stat ConnectRdma) - rdma)) over RDMA," \
	"$(($(fallbacks) - fb)) fell back"
exs_check "$name: faults were injected" [ "$n" -gt 0 ]
exs_check "$name: and counted as fallbacks for want of memory" \
	[ $(($(fallbacks) - fb)) -gt 0 ]

# --- 2. afterwards -------------------------------------------------------------
name="injection off"
rdma=$(exs_stat ConnectRdma)
exs_bg exs_connect -l -x -a $addr -p $((port + 100)) -e exs -n 1048576 >/dev/null
exs_wait_listen $((port + 100)) 30
exs_run "$name: a connection uses RDMA again" \
	exs_connect -x -a $addr -p $((port + 100)) -e exs -n 1048576
wait "${EXS_PIDS[-1]}"
exs_check "$name: counted as RDMA" [ $(($(exs_stat ConnectRdma) - rdma)) = 1 ]
exs_check "$name: every socket is released" exs_wait_until 60 exs_no_sockets
exs_rxe_loop_del exsnm0
exs_check "$name: the module unloads" rmmod af_exs
exs_check "$name: and loads again" exs_insmod

# --- 3. the tasks' own allocations ---------------------------------------------
# Last.  Run outside a tmpfs of their own, the marked programs broke the
# guest's 9p root (opens failing with EINVAL); inside one (below) that was
# not seen.  EXS_NOMEM_TASKS=0 leaves it out.
if [ "${EXS_NOMEM_TASKS:-1}" != 1 ]; then
	exs_skip "failslab and fail_page_alloc fail the programs' allocations" \
		"EXS_NOMEM_TASKS=0"
	exs_tally faults $faults
	exs_tap_end
	exit $?
fi
exs_rxe_loop exsnm0 $addr
# Each round a fresh pair of processes marked to fail (exs_connect -F):
# any call may fail, so an exit status is not judged; a corrupt byte or a
# hang is.  They must not reach 9p (the rig's root, and the lower layer
# of its /tmp) once marked: a clunk whose allocation fails makes 9p's
# client drop a fid the server still holds, and every later open that
# reuses it fails with EINVAL, for every process.  So they run in a tmpfs
# of their own, loader and libraries included, and write there.
name="failslab and fail_page_alloc fail the programs' allocations (2%)"
jail=$EXS_TMP/failing
mkdir -p "$jail"
mount -t tmpfs exsnomem "$jail"
cp "$(command -v exs_connect)" "$jail/"
for lib in $(ldd "$jail/exs_connect" | grep -o '/[^ ]*'); do
	cp "$lib" "$jail/"
done
failing=("$(ls "$jail"/ld-linux*)" --library-path "$jail" ./exs_connect -F)
tally=$EXS_TALLY
export EXS_TALLY=$jail/tally
inject $dbg/failslab 2 tasks
inject $dbg/fail_page_alloc 2 tasks
hung=0 corrupt=0 ok=0
for ((i = 0; i < rounds; i++)); do
	p=$((port + 1 + i))
	(cd "$jail" && exec "${failing[@]}" -l -x -a $addr -p $p -n 262144 \
		-t 60 > /dev/null 2> srv.err) &
	srv=$!
	exs_wait_listen $p 10
	(cd "$jail" && exec timeout -k 5 150 "${failing[@]}" -x -a $addr -p $p \
		-n 262144 -t 60 > /dev/null 2> cli.err)
	rc=$?
	[ $rc = 0 ] && ok=$((ok + 1))
	[ $rc = 124 ] || [ $rc = 137 ] && hung=$((hung + 1))
	timeout 150 tail --pid=$srv -f /dev/null || { hung=$((hung + 1)); kill -9 $srv; }
	wait $srv 2>/dev/null
	grep -hE 'differs|more than|EOF after' "$jail/srv.err" "$jail/cli.err" &&
		corrupt=$((corrupt + 1))
done
n=$(($(uninject $dbg/failslab) + $(uninject $dbg/fail_page_alloc)))
EXS_TALLY=$tally
[ -n "$EXS_TALLY" ] && cat "$jail/tally" >> "$EXS_TALLY" 2>/dev/null
faults=$((faults + n))
echo "# $name: $n faults, $ok of $rounds rounds completed"
exs_check "$name: faults were injected" [ "$n" -gt 0 ]
exs_check "$name: no call hung" [ "$hung" = 0 ]
exs_check "$name: no byte arrived corrupt" [ "$corrupt" = 0 ]
exs_tally faults $faults

exs_tap_end
