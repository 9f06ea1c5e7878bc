#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside an exs-vm guest: set up the host, run its command, record the
# outcome in the shared directory.
#   guest.sh NAME INDEX NHOSTS LOAD_MODULE MODULE OUT DEADLINE
set -u
name=$1 idx=$2 nhosts=$3 load=$4 module=$5 out=$6 deadline=$7
top=$(readlink -f "$(dirname "$0")/../..")

export EXS_VM_HOST=$name EXS_VM_OUT=$out EXS_VM_HOSTS=$nhosts
export EXS_VM_SHARE=$out/share
# exs_connect counts the bytes it checked here (the stress report's)
export EXS_TALLY=$out/$name.tally
rm -f "$EXS_TALLY"
export EXS_ROOT=$top EXS_MODULE=$module
export PATH="$top/build/bin:$top/selftests/vm:$top/tools/exsconfig:$PATH"

setup() {
	ip link set lo up
	sysctl -qw kernel.hung_task_timeout_secs=60 2>/dev/null
	sysctl -qw kernel.panic_on_oops=1 2>/dev/null
	if [ "$nhosts" = 2 ]; then
		local dev
		dev=$(grep -l "52:54:00:45:58:0$idx" /sys/class/net/*/address)
		dev=$(basename "$(dirname "$dev")")
		ip link set "$dev" name exs0 || return 1
		ip addr add "10.0.0.$idx/24" dev exs0
		ip -6 addr add "fd00::$idx/64" dev exs0 nodad
		ip link set exs0 up
		modprobe -q rdma_rxe	# built in on the debug kernel
		rdma link add rxe0 type rxe netdev exs0 ||
			echo "exs-vm: no Soft-RoCE device on host $name" >&2
	fi
	if [ "$load" = 1 ]; then
		# insmod does not resolve dependencies: rdma_cm pulls ib_core
		modprobe -q rdma_cm 2>/dev/null	# built in on the debug kernel
		insmod "$module" || return 1
		# as lib.sh's exs_rig_sysctls: an emulated REQ's answer
		# may take longer than the hardware's head start
		sysctl -qw net.exs.connect_race_ms=0
	fi
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
	# kmemleak (debug kernel): forget what boot left behind, and scan only
	# when exs-vm-finish asks (a periodic scan of the whole memory takes
	# the emulated CPU for minutes)
	if [ -w "$kmemleak" ]; then
		echo scan=off > "$kmemleak"
		echo clear > "$kmemleak"
	fi
	dmesg --clear
}

# Shortly before exs-vm's timeout, every task's stack and every CPU's
# backtrace go to the console (exs-vm's log): a run that is stuck but not
# locked up (a task spinning in a loop that yields) still says where.
watchdog() {
	local left=$((deadline - $(date +%s)))

	sleep $((left > 240 ? left - 120 : left / 2))
	dmesg -n 8
	echo "exs-vm: host $name near its timeout: dumping tasks" > /dev/kmsg
	echo w > /proc/sysrq-trigger
	echo l > /proc/sysrq-trigger
	echo t > /proc/sysrq-trigger
}

kmemleak=/sys/kernel/debug/kmemleak
rc=0
watchdog &
wpid=$!
lpid=
if ! setup; then
	echo "exs-vm: host $name setup failed" >&2
	rc=2
else
	# The console shows errors only (loglevel=4), and a panic ends the
	# guest before exs-vm-finish reads the log: the log goes to the
	# shared directory as it comes, so a host that dies still says what
	# went wrong before its last report, and in which case (the
	# selftests' lines are in it, unthrottled)
	sysctl -qw kernel.printk_devkmsg=on
	dmesg --follow-new > "$out/$name.live" 2>/dev/null &
	lpid=$!
	bash -c "$(cat "$out/.rig/$name.cmd")"
	rc=$?
fi
kill "$wpid" $lpid 2>/dev/null
exs-vm-finish "$rc"
rc=$?
# Stay up, draining the link, until the other host has its outcome too:
# a QEMU that exits while the other's frame waits for room in their
# socket stops the other's transmit queue for good (QEMU 7.2's stream
# netdev; testing.rst), and the other's QPs then cannot be destroyed.
# exs-vm ends the run if the other host dies first.
while [ "$nhosts" = 2 ] && [ "$(date +%s)" -lt "$deadline" ] &&
      { [ ! -e "$out/a.rc" ] || [ ! -e "$out/b.rc" ]; }; do
	sleep 0.5
done
exit "$rc"
