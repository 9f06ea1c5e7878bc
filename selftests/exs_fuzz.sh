#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Hostile input on one host: the syscall fuzzer over sockets that reach
# each other by RDMA (a Soft-RoCE device on a dummy link: rxe loops local
# traffic back) and by TCP, then the netlink fuzzer in a namespace of its
# own.  Afterwards every socket must be gone, the module must unload, and
# the kernel's checkers (exs-vm reads dmesg) must have nothing to say.
#
#   exs-vm -- 'EXS_FUZZ_CALLS=200000 selftests/exs_fuzz.sh'
#
# EXS_FUZZ_SEED picks the run (a failure names its seed), EXS_FUZZ_CALLS
# and EXS_FUZZ_MSGS its length.

. "$(dirname "$0")/lib.sh"

seed=${EXS_FUZZ_SEED:-$(date +%s)}
calls=${EXS_FUZZ_CALLS:-100000}
msgs=${EXS_FUZZ_MSGS:-20000}
addr=10.0.7.1

exs_tap_begin "AF_EXS under random system calls and netlink messages, seed $seed"
exs_loaded || exs_skip_all af_exs "module not loaded"

if ! exs_rxe_loop exsfz0 $addr; then
	exs_skip "syscall fuzzer over RDMA" "no Soft-RoCE device"
	addr=127.0.0.1
fi
# connect attempts that do not get an answer give up soon: the fuzzer makes
# many, and their sockets are closed under them
sysctl -qw net.exs.connect_timeout_ms=3000

pkts=$(exs_rdma_pkts)
rdma=$(exs_stat ConnectRdma)
# its progress (stderr) shows as it goes: a run that stops says where
name="syscall fuzzer: $calls calls, 4 threads, seed $seed"
if exs_fuzz -s "$seed" -n "$calls" -t 4 -a $addr -w 120 > "$EXS_TMP/fuzz.log" \
	2> >(sed -u 's/^/# exs_fuzz: /'); then
	exs_ok "$name"
else
	exs_fail "$name"
	sed 's/^/#   /' "$EXS_TMP/fuzz.log"
fi
grep '^# syscalls=' "$EXS_TMP/fuzz.log"
exs_tally syscalls "$(sed -n 's/^# syscalls=\([0-9]*\).*/\1/p' "$EXS_TMP/fuzz.log")"
if [ "$addr" != 127.0.0.1 ]; then
	exs_assert "the fuzzer's connections went RDMA too ($(($(exs_stat ConnectRdma) - rdma)))" \
		'[ $(($(exs_stat ConnectRdma) - rdma)) -gt 0 ] &&
		 [ $(($(exs_rdma_pkts) - pkts)) -gt 0 ]'
fi

# every socket closes on its own once its owner is gone
released() {
	exs_no_sockets && [ "$(cat /sys/module/af_exs/refcnt)" = 0 ]
}
exs_check "every socket the fuzzer left is released" exs_wait_until 60 released

EXS_TEST_TIMEOUT=1800 exs_run "netlink fuzzer: $msgs messages, seed $seed" \
	unshare -n exs_nlfuzz -s "$seed" -n "$msgs"
sed -n 's/^# \(netlink_messages=.*\)/# \1/p' "$EXS_TMP/run.log"
exs_tally netlink "$(sed -n 's/^# netlink_messages=\([0-9]*\).*/\1/p' "$EXS_TMP/run.log")"

exs_rxe_loop_del exsfz0
exs_check "the module unloads after the fuzzing" rmmod af_exs
exs_check "the module loads again" exs_insmod

exs_tap_end
