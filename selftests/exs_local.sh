#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# AF_EXS on one host: the socket API against TCP's, the merge under races,
# loopback transfers in every combination, the preload, module unload.
# Runs inside an exs-vm guest (or any host with af_exs loaded), as root.

. "$(dirname "$0")/lib.sh"

exs_tap_begin "AF_EXS on one host"
exs_loaded || exs_skip_all af_exs "module not loaded"

exs_blackhole

echo "# exs_sockapi"
exs_sockapi
echo "# exs_sockapi -P: IPPROTO_EXS"
exs_sockapi -P
echo "# exs_stream"
exs_stream
echo "# exs_oob"
exs_oob
echo "# exs_race"
exs_race 200
echo "# exs_cgrefuse: a cgroup's socket-create program refuses, as nobody"
exs_cgrefuse 200

# transfer ADDR FAMILY-FLAG MODE CLIENT SERVER: CLIENT and SERVER are
# "exs" or "tcp"; every connected socket must be plain TCP afterwards.
port=20000
transfer() {
	local addr=$1 v6=$2 mode=$3 cli=$4 srv=$5 extra=${6:-} dom=inet
	local cflag= sflag=
	[ -n "$v6" ] && dom=inet6
	[ "$cli" = exs ] && cflag=-x
	[ "$srv" = exs ] && sflag=-x
	port=$((port + 1))
	exs_bg exs_connect -l $sflag $v6 -p $port -e $dom $extra -m "$mode" >/dev/null
	exs_wait_listen $port 10
	exs_run "$dom $cli -> $srv, $mode${extra:+ $extra}" \
		exs_connect $cflag $v6 -a "$addr" -p $port -e $dom $extra -m "$mode"
	wait "${EXS_PIDS[-1]}" || exs_fail "$dom $cli -> $srv server side"
}

opens=$(exs_stat ActiveOpen)
fb=$(exs_stat FallbackNoDevice)
acc=$(exs_stat AcceptTcp)
for mode in block poll epoll; do
	transfer 127.0.0.1 "" $mode exs tcp "-n 4000000"
	transfer 127.0.0.1 "" $mode tcp exs "-n 4000000"
	transfer 127.0.0.1 "" $mode exs exs "-n 4000000"
	transfer ::1 -6 $mode exs exs "-n 4000000"
done
transfer 127.0.0.1 "" poll exs exs "-N"
transfer ::1 -6 poll exs tcp "-N"
transfer 127.0.0.1 "" poll exs exs "-c 100 -n 100000"
transfer ::1 -6 epoll exs exs "-c 100 -n 100000"

# 3 exs->tcp, 3 exs->exs, 3 v6 exs->exs, 2 -N, 200 concurrent
want=$((3 + 3 + 3 + 2 + 200))
exs_check "every AF_EXS connect fell back, counted as: no RDMA device" \
	[ $(($(exs_stat FallbackNoDevice) - fb)) -eq $want ]
exs_check "every AF_EXS connect was counted as an active open" \
	[ $(($(exs_stat ActiveOpen) - opens)) -eq $want ]
# 3 tcp->exs, 3 exs->exs, 3 v6, 1 -N, 200 concurrent
exs_check "every AF_EXS accept handed out plain TCP" \
	[ $(($(exs_stat AcceptTcp) - acc)) -eq $((3 + 3 + 3 + 1 + 200)) ]

# After the merge no AF_EXS function runs on the data path: trace every
# af_exs function while merged sockets move data, and find only setup
# (the servers' listeners are AF_EXS and legitimately set options).
if tr=$(exs_tracefs) &&
   echo ':mod:af_exs' > $tr/set_ftrace_filter 2>/dev/null &&
   echo function > $tr/current_tracer 2>/dev/null; then
	echo > $tr/trace
	transfer 127.0.0.1 "" poll exs exs "-n 2000000"
	transfer ::1 -6 epoll exs tcp "-n 2000000"
	echo 0 > $tr/tracing_on	# freeze: changing the tracer empties the buffer
	data=$(grep -cE ': exs_(sendmsg|recvmsg|poll|ioctl|getname|splice_read) ' $tr/trace)
	setup=$(grep -cE ': exs_connect ' $tr/trace)
	grep -E ': exs_(sendmsg|recvmsg|poll|ioctl|getname|splice_read) ' \
		$tr/trace | head -n 5 | sed 's/^/#   /'
	echo nop > $tr/current_tracer
	echo > $tr/set_ftrace_filter
	echo 1 > $tr/tracing_on
	exs_check "no AF_EXS function ran on the merged sockets' data path ($data calls)" \
		[ "$data" -eq 0 ]
	exs_check "the trace did see AF_EXS at connect ($setup calls)" [ "$setup" -ge 2 ]
	echo > $tr/trace
else
	exs_skip "no AF_EXS function on the data path" "no function tracer"
	exs_skip "the trace saw AF_EXS at connect" "no function tracer"
fi

# The preload turns an unmodified program's TCP sockets into AF_EXS ones.
opens=$(exs_stat ActiveOpen)
acc=$(exs_stat AcceptTcp)
port=$((port + 1))
exs_bg exs-run exs_connect -l -p $port -e inet >/dev/null
exs_wait_listen $port 10
exs_run "preload: unmodified TCP client and server" \
	exs-run exs_connect -a 127.0.0.1 -p $port -e inet
wait "${EXS_PIDS[-1]}"
exs_check "preload: the client socket was AF_EXS" \
	[ $(($(exs_stat ActiveOpen) - opens)) -eq 1 ]
exs_check "preload: the listener was AF_EXS" \
	[ $(($(exs_stat AcceptTcp) - acc)) -eq 1 ]
exs_run "preload leaves UDP and UNIX sockets alone" \
	env EXS_RUN=preload exs-run python3 -c '
import socket, sys
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
x = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
dom = lambda s: s.getsockopt(socket.SOL_SOCKET, socket.SO_DOMAIN)
fam = int(open("/sys/module/af_exs/parameters/family").read())
sys.exit(0 if (dom(u), dom(x), dom(t)) == (2, 1, fam) else 1)'

# exs-run by BPF (transparent.bpf.c), where the kernel has the hook
# update_socket_protocol() (6.6 and later): a program's TCP sockets are
# IPPROTO_EXS ones, a static binary's too (busybox's nc, which no preload
# reaches), in its cgroup only, and nothing is left once it ends.
# Before the hook (6.1), exs-run preloads and the static binary stays TCP.
static_nc() {	# static_nc PORT: a static binary's connect and read
	timeout 30 busybox nc 127.0.0.1 "$1" < /dev/null | grep -q hello
}
nc_server() {	# nc_server PORT: a plain TCP server saying hello once
	exs_bg python3 -c "
import socket
l = socket.create_server(('127.0.0.1', $1))
c, _ = l.accept()
c.sendall(b'hello')
c.close()"
	exs_wait_listen "$1" 10
}
port=$((port + 1))
opens=$(exs_stat ActiveOpen)
nc_server $port
if grep -qw update_socket_protocol /proc/kallsyms; then
	exs_run "exs-run by BPF: a static binary's TCP socket is AF_EXS's" \
		exs-run busybox nc 127.0.0.1 $port < /dev/null
	exs_check "... counted as an AF_EXS connect (ActiveOpen +1)" \
		[ $(($(exs_stat ActiveOpen) - opens)) -eq 1 ]
	no_run_left() {	# no exs-run cgroup anywhere, nothing pinned
		[ -z "$(find /sys/fs/cgroup -name 'exs-run.*' 2>/dev/null)" ] &&
			[ ! -e /sys/fs/bpf/af_exs/transparent_link ]
	}
	exs_check "... its cgroup and the BPF program are gone after it" \
		no_run_left
	exs_run "exs-run by BPF leaves UDP and UNIX sockets alone, TCP's (flags, 0 or IPPROTO_TCP) and MPTCP's say AF_INET[6], IPPROTO_EXS" \
		exs-run python3 -c '
import socket, sys
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
x = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
t4 = socket.socket(socket.AF_INET, socket.SOCK_STREAM | socket.SOCK_NONBLOCK)
t6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM, socket.IPPROTO_TCP)
m = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)  # MPTCP
opt = lambda s, o: s.getsockopt(socket.SOL_SOCKET, o)
ipproto = int(open("/sys/module/af_exs/parameters/ipproto").read())
got = [(opt(s, socket.SO_DOMAIN), opt(s, socket.SO_PROTOCOL))
       for s in (u, x, t4, t6, m)]
sys.exit(0 if got == [(2, 17), (1, 0), (2, ipproto), (10, ipproto), (2, ipproto)]
         else got)'

	# a daemon that PROG leaves behind keeps AF_EXS, as it would keep a
	# preload; its cgroup goes once it ends
	port=$((port + 1))
	nc_server $port
	opens=$(exs_stat ActiveOpen)
	exs_run "exs-run returns while PROG's daemon lives on" \
		exs-run bash -c "(sleep 2; busybox nc 127.0.0.1 $port < /dev/null) \
			> /dev/null 2>&1 & exit 0"
	daemon_done() {
		local i
		for i in $(seq 300); do
			[ $(($(exs_stat ActiveOpen) - opens)) -ge 1 ] &&
				no_run_left && return 0
			sleep 0.1
		done
		return 1
	}
	exs_check "... its connect was AF_EXS's, then its cgroup and the program went" \
		daemon_done

	# four at once: one loads and pins the program, the last to end
	# unpins it
	opens=$(exs_stat ActiveOpen)
	four=()
	for i in 1 2 3 4; do
		port=$((port + 1))
		nc_server $port
		exs_bg exs-run busybox nc 127.0.0.1 $port < /dev/null > /dev/null
		four+=("${EXS_PIDS[-1]}")
	done
	exs_check "four exs-runs at once" wait "${four[@]}"
	four_done() {
		[ $(($(exs_stat ActiveOpen) - opens)) -eq 4 ] && no_run_left
	}
	exs_check "... four AF_EXS connects, nothing left after them" four_done

	# an exs-run killed outright (SIGKILL) leaves its cgroup on; the
	# next exs-run beside it turns it off and removes it once its tasks
	# are gone
	exs_bg exs-run sleep 60
	killed=${EXS_PIDS[-1]}
	in_cgroup() {	# PROG is running in an exs-run cgroup
		local i
		for i in $(seq 300); do
			pgrep -f '^sleep 60$' | xargs -r -I{} cat /proc/{}/cgroup |
				grep -q exs-run && return 0
			sleep 0.1
		done
		return 1
	}
	exs_check "an exs-run killed outright leaves PROG in its cgroup" in_cgroup
	kill -9 "$killed"
	pkill -9 -f '^sleep 60$'
	wait "$killed" 2>/dev/null
	exs_run "... the next exs-run" exs-run true
	exs_check "... swept that cgroup: nothing left, nothing pinned" no_run_left

	# exsconfig transparent: a cgroup turned on, and only it
	cg=/sys/fs/cgroup/exs-test.$$
	mkdir $cg
	exs_check "exsconfig transparent on a cgroup" exsconfig transparent on $cg
	exs_check "exsconfig -j transparent lists it" \
		bash -c "exsconfig -j transparent | grep -q '\"$cg\"'"
	port=$((port + 1))
	nc_server $port
	opens=$(exs_stat ActiveOpen)
	exs_check "a static binary outside it stays TCP" static_nc $port
	exs_check "... not an AF_EXS connect (ActiveOpen +0)" \
		[ "$(exs_stat ActiveOpen)" = "$opens" ]
	port=$((port + 1))
	nc_server $port
	exs_check "a static binary in it" bash -c "echo \$\$ > $cg/cgroup.procs &&
		timeout 30 busybox nc 127.0.0.1 $port < /dev/null | grep -q hello"
	exs_check "... is an AF_EXS connect (ActiveOpen +1)" \
		[ $(($(exs_stat ActiveOpen) - opens)) -eq 1 ]
	exs_check "exsconfig transparent off: nothing left pinned" \
		bash -c "exsconfig transparent off $cg &&
			 [ ! -e /sys/fs/bpf/af_exs/transparent_link ] &&
			 exsconfig transparent | grep -q 'off for every cgroup'"
	exs_check "exsconfig transparent on a path that is no cgroup: usage error (1)" \
		bash -c "exsconfig transparent on /tmp; [ \$? = 1 ]"
	rmdir $cg
else
	exs_check "exs-run without the hook preloads: a static binary stays TCP" \
		bash -c "exs-run busybox nc 127.0.0.1 $port < /dev/null | grep -q hello"
	exs_check "... not an AF_EXS connect (ActiveOpen +0)" \
		[ "$(exs_stat ActiveOpen)" = "$opens" ]
	exs_check "exsconfig transparent says why it cannot (2)" \
		bash -c "exsconfig transparent on /sys/fs/cgroup 2>&1 |
			 grep -q update_socket_protocol; [ \${PIPESTATUS[0]} = 2 ]"
fi

# Unload is refused while an AF_EXS socket exists, of the family or of
# IPPROTO_EXS, and clean after.
for made in "fam, socket.SOCK_STREAM, 0" \
	    "socket.AF_INET6, socket.SOCK_STREAM, ipproto"; do
	exs_bg python3 -c "
import socket, time
fam = int(open('/sys/module/af_exs/parameters/family').read())
ipproto = int(open('/sys/module/af_exs/parameters/ipproto').read())
s = socket.socket($made)
time.sleep(60)"
	holder=${EXS_PIDS[-1]}
	for _ in $(seq 50); do
		[ "$(cat /sys/module/af_exs/refcnt)" -gt 0 ] && break
		sleep 0.1
	done
	exs_check "rmmod is refused while a socket exists: socket($made)" \
		bash -c '! rmmod af_exs 2>/dev/null'
	kill "$holder"
	wait "$holder" 2>/dev/null
	for _ in $(seq 50); do
		[ "$(cat /sys/module/af_exs/refcnt)" -eq 0 ] && break
		sleep 0.1
	done
done
exs_check "rmmod succeeds once the last socket is closed" rmmod af_exs
exs_run "preload passes through without the module" \
	bash -c "exs_connect -l -p 29999 -e inet >/dev/null & sleep 0.5;
		 exs-run exs_connect -a 127.0.0.1 -p 29999 -e inet && wait \$!"
exs_check "the module loads again" exs_insmod "${EXS_MODULE:-$(modinfo -n af_exs 2>/dev/null)}"

# Load and unload in a loop, a socket used in between: every round clean
# (exs-vm fails the run on any kernel report or leak).  EXS_UNLOAD_ROUNDS:
# 100, fewer where a round takes seconds (the debug kernel).
rounds=${EXS_UNLOAD_ROUNDS:-100}
cycle() {
	local i mod=${EXS_MODULE:-$(modinfo -n af_exs 2>/dev/null)}
	for ((i = 0; i < rounds; i++)); do
		rmmod af_exs || return 1
		exs_insmod "$mod" || return 1
		exs_connect -l -x -p 29998 -e inet -n 1000 > /dev/null &
		exs_wait_listen 29998 10 &&
			exs_connect -x -a 127.0.0.1 -p 29998 -e inet -n 1000 &&
			wait $! || return 1
	done
}
exs_check "unload and load $rounds times, a connection each time" cycle

exs_tap_end
