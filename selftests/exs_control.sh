#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The control plane between two hosts (exs-vm --hosts 2): host a's map and
# policy decide each connect to host b, checked by the transport that
# carried the bytes and the counter of the reason; then, on host a alone,
# namespaces, tracepoints, the sysctls' effects, bad input and
# unprivileged writers.
#
#   exs-vm --hosts 2 -- selftests/exs_control.sh selftests/exs_control.sh

. "$(dirname "$0")/lib.sh"

host=${EXS_VM_HOST:?run under exs-vm --hosts 2}
share=${EXS_VM_SHARE:?}
peer4=10.0.0.2
here=$(dirname "$(readlink -f "$0")")
mkdir -p "$share"

exs_tap_begin "AF_EXS control plane, host $host"
if ! exs_loaded || ! command -v exsconfig >/dev/null; then
	exs_skip "af_exs" "module or exsconfig missing"
	exs_tap_end
	exit $KSFT_SKIP
fi

sysctl -qw net.exs.connect_timeout_ms=30000
# a second address on the RDMA link: the map's RDMA address for b
ip addr add "10.0.1.$([ "$host" = a ] && echo 1 || echo 2)/24" dev exs0

scale=${EXS_PAIR_SCALE:-1}
kib() { echo $(($1 * 1024 / scale)); }

# map TEXT: load TEXT as host a's map
map() {
	printf '%b\n' "$1" > "$EXS_TMP/map"
	exsconfig load "$EXS_TMP/map" >/dev/null
}

# tcp_at_once NAME PORT: a connect the policy sends to TCP, with no RDMA
# attempt (the CM sends no REQ), counted as FallbackPolicy.  Not the
# device's packets: a queue pair the cases before parked ends when its
# idle time runs out (10 s, b's 20 s), and on the debug kernel that came
# inside this case, after a quiet second.
tcp_at_once() {
	local name=$1 port=$2 fb rdma reqs
	if [ "$host" = a ]; then
		fb=$(exs_stat FallbackPolicy)
		rdma=$(exs_stat ConnectRdma)
		reqs=$(exs_cm_reqs)
	fi
	pair_xfer "$name" "$port" "-x -n 100000" "-x -a $peer4 -e inet -n 100000"
	[ "$host" = a ] || return
	exs_check "$name: counted as FallbackPolicy" \
		[ $(($(exs_stat FallbackPolicy) - fb)) -eq 1 ]
	exs_assert "$name: no RDMA attempt" \
		'[ "$(exs_stat ConnectRdma)" -eq "$rdma" ] &&
		[ "$(exs_cm_reqs)" -eq "$reqs" ]'
}

# ---- the map and the policy decide connect() -------------------------------

if [ "$host" = a ]; then
	tracing=$(exs_tracefs)
	if [ -e "$tracing/events/af_exs/enable" ]; then
		echo > "$tracing/trace"
		echo 1 > "$tracing/events/af_exs/enable"
	fi
	exsconfig flush
	exsconfig policy auto
	exs_check "default policy is auto" [ "$(exsconfig policy)" = auto ]
	rdma=$(exs_stat ConnectRdma)
fi
rdma_xfer "policy auto, empty map: RDMA" 23001 "$(kib 1024)" "-x" "-x -a $peer4"

if [ "$host" = a ]; then
	map "$peer4 - allow=23002,23050-23060"
	exsconfig policy map
fi
rdma_xfer "policy map, mapped and allowed: RDMA" 23002 "$(kib 1024)" "-x" "-x -a $peer4"

[ "$host" = a ] && map "$peer4 - allow=23000-23099 deny=23003"
tcp_at_once "denied port: TCP at once" 23003

[ "$host" = a ] && map "10.0.0.99 -\\n10.0.2.0/24 -"
tcp_at_once "unmapped host under policy map: TCP at once" 23004

if [ "$host" = a ]; then
	map "10.0.0.0/24 -"
	exsconfig policy off
fi
tcp_at_once "policy off: TCP at once" 23005

if [ "$host" = a ]; then
	exsconfig policy map
	# the /32 wins over the /24 of the same host
	map "10.0.0.0/24 10.0.0.2\\n$peer4 10.0.1.2"
	rdma=$(exs_stat ConnectRdma)
fi
rdma_xfer "the map's RDMA address carries the connection" 23006 "$(kib 1024)" \
	"-x" "-x -a $peer4"

if [ "$host" = a ]; then
	map "$peer4 10.0.7.1"	# no route: the attempt cannot start
	nodev=$(exs_stat FallbackNoDevice)
fi
pair_xfer "an RDMA address nobody has: TCP" 23007 "-x -n 100000" \
	"-x -a $peer4 -e inet -n 100000"
[ "$host" = a ] && exs_check "an RDMA address nobody has: counted as FallbackNoDevice" \
	[ $(($(exs_stat FallbackNoDevice) - nodev)) -eq 1 ]

# one on the link that nobody answers ARP for: the resolution tries
# every half second until connect_timeout_ms, then the socket goes to TCP
# (FallbackTimeout) and the module says where it stood
name="an RDMA address that does not answer: TCP at connect_timeout_ms"
if [ "$host" = a ]; then
	map "$peer4 10.0.1.99"
	exs_stat_save "$EXS_TMP/silent.stat"
	timeouts=$(exs_stat FallbackTimeout)
	exs_sysctl net.exs.connect_timeout_ms=2000
fi
pair_xfer "$name" 23012 "-x -n 100000" "-x -a $peer4 -e inet -n 100000"
if [ "$host" = a ]; then
	exs_sysctl_restore
	exs_check "$name: counted as FallbackTimeout" \
		[ $(($(exs_stat FallbackTimeout) - timeouts)) -eq 1 ]
	exs_module_logged "$name: the module says it was resolving the address" \
		"$EXS_TMP/silent.stat" \
		"connect to ::ffff:10.0.1.99 timed out: resolving the address"
fi

# reloads and policy changes during a transfer: the connection never
# notices (the map is read at connect() only)
if [ "$host" = a ]; then
	map "$peer4 -"
	printf '%s -\n10.0.0.0/24 -\n' "$peer4" > "$EXS_TMP/map.1"
	printf '%s - allow=23008\nfd00::/64 -\n' "$peer4" > "$EXS_TMP/map.2"
	(
		n=0
		while [ ! -e "$EXS_TMP/stop" ]; do
			exsconfig load "$EXS_TMP/map.$((n % 2 + 1))" >/dev/null &&
				n=$((n + 1))
			exsconfig policy "$([ $((n % 3)) = 0 ] && echo auto || echo map)"
		done
		echo "$n" > "$EXS_TMP/reloads"
	) &
	reloader=$!
fi
rdma_xfer "map reloads during the transfer break nothing" 23008 "$(kib 16384)" \
	"-x -m block" "-x -a $peer4 -m block"
if [ "$host" = a ]; then
	touch "$EXS_TMP/stop"
	wait "$reloader"
	exs_check "the map was reloaded during the transfer" \
		[ "$(cat "$EXS_TMP/reloads")" -ge 2 ]
	exsconfig flush
	exsconfig policy auto
fi

# the socket dump sees a live RDMA connection: its peer, rings, bytes
name="exsconfig sockets shows the RDMA connection"
if [ "$host" = b ]; then
	pair_xfer "$name" 23009 "-x -e exs -n $(kib 65536) -t 300"
else
	await_ready "$name" || exs_fail "$name" "server never ready"
	exs_bg exs_connect -p 23009 -x -a $peer4 -e exs -n "$(kib 65536)" -t 300
	found=1
	for _ in $(seq 300); do
		exsconfig -j sockets > "$EXS_TMP/socks.json" 2>/dev/null
		python3 - "$EXS_TMP/socks.json" <<'PY' && { found=0; break; }
import json, sys
socks = json.load(open(sys.argv[1]))
sys.exit(0 if any(s.get("transport") == "rdma" and s.get("peer") == "10.0.0.2"
                  and s.get("peer_port") == 23009 and s.get("rx_ring", 0) > 0
                  and s.get("state") == "ESTAB" for s in socks) else 1)
PY
		sleep 0.2
	done
	exs_check "$name" [ "$found" = 0 ]
	exs_check "$name: the transfer completes" wait "${EXS_PIDS[-1]}"
fi

# links_carry LINKS SOCKS KEY PORT N NODE: the sockets whose KEY
# (peer_port at the client, local_port at the server) is PORT are N
# established RDMA sockets that all name one link, the only link that
# carries N streams: shared, up, to NODE (- for any)
links_carry() {
	python3 - "$@" <<'PY'
import json, sys
links, socks = (json.load(open(f)) for f in sys.argv[1:3])
key, port, n, node = sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
mine = [s for s in socks if s.get(key) == port and s.get("state") == "ESTAB"]
named = {s.get("link") for s in mine}
full = [l for l in links if l.get("streams", 0) >= n]
ok = (len(mine) == n and all(s.get("transport") == "rdma" for s in mine) and
      len(named) == 1 and len(full) == 1 and full[0].get("id") in named and
      full[0].get("streams") == n and full[0].get("shared") is True and
      full[0].get("state") == "up" and node in ("-", full[0].get("node")))
if not ok:
    print(f"# sockets on {port}: {mine}")
    print(f"# links: {links}")
sys.exit(0 if ok else 1)
PY
}

# links_grew LINKS1 LINKS2 N BYTES: the link that carries N streams
# (links_carry) counted at least N * BYTES more each way, and no resume
links_grew() {
	python3 - "$@" <<'PY'
import json, sys
before, after = (json.load(open(f)) for f in sys.argv[1:3])
n, nbytes = int(sys.argv[3]), int(sys.argv[4])
old = [l for l in before if l.get("streams", 0) >= n]
new = [l for l in after if old and l.get("id") == old[0].get("id")]
ok = (len(old) == 1 and len(new) == 1 and
      all(new[0].get(k, 0) - old[0].get(k, 0) >= n * nbytes
          for k in ("bytes_sent", "bytes_received")) and
      "resumes" in old[0] and
      new[0].get("resumes", -1) == old[0]["resumes"])
if not ok:
    print(f"# before: {old}")
    print(f"# after: {new}")
sys.exit(0 if ok else 1)
PY
}

# The link dump.  With net.exs.share_qp 1, five connections to b ride one
# queue pair: one link at each end, whose streams count them all and
# whose bytes grow by what they move, and each RDMA socket names it.
# exs_share.py holds them open while exsconfig looks, once they are up
# (a, then b) and once they moved 1 MiB each way each.  An ack timeout
# of its own keeps the queue pairs other cases parked out of it (a
# connection shares or reuses only one built with the one in force).
name="exsconfig links: one shared link carries the connections to b"
port=23013 n=4
if [ "$host" = b ]; then
	shared=$(exs_stat AcceptShared)
	exs_bg exs-run python3 "$here/exs_share.py" listen $port $n \
		2> "$EXS_TMP/links.err"
	server=${EXS_PIDS[-1]}
	exs_wait_listen $port 60
	ready "$name"
	if exs_wait_file "$share/links.look" 120; then
		exsconfig -j links > "$EXS_TMP/links.b.json"
		exsconfig -j sockets > "$EXS_TMP/socks.b.json"
	fi
	touch "$share/links.seen"
	if wait "$server"; then
		exs_ok "$name: server side"
	else
		exs_fail "$name: server side"
		sed 's/^/#   /' "$EXS_TMP/links.err"
	fi
	exs_check "$name: b: a JOIN for each but the first" \
		[ $(($(exs_stat AcceptShared) - shared)) -eq $n ]
	exs_check "$name: b: one link carries the $((n + 1)) streams, each socket names it" \
		links_carry "$EXS_TMP/links.b.json" "$EXS_TMP/socks.b.json" \
		local_port $port $((n + 1)) -
else
	# exs_share.py's look: both dumps, and the first time b's too
	cat > "$EXS_TMP/look" <<LOOK
#!/bin/bash
exsconfig -j links > "$EXS_TMP/links.\$1.json" &&
	exsconfig -j sockets > "$EXS_TMP/socks.\$1.json" &&
	exsconfig links > "$EXS_TMP/links.\$1.txt" || exit 1
[ "\$1" = 1 ] || exit 0
touch "$share/links.look"
for _ in \$(seq 600); do
	[ -e "$share/links.seen" ] && exit 0
	sleep 0.1
done
exit 1
LOOK
	chmod +x "$EXS_TMP/look"
	shared=$(exs_stat ConnectShared)
	await_ready "$name" || exs_fail "$name" "server never ready"
	exs_sysctl net.exs.share_qp=1 net.exs.ack_timeout=20
	exs_run "$name" exs-run python3 "$here/exs_share.py" \
		hold $peer4 $port $n "$(kib 1024)" "$EXS_TMP/look"
	exs_sysctl_restore
	exs_check "$name: a: all but the first rode its queue pair" \
		[ $(($(exs_stat ConnectShared) - shared)) -eq $n ]
	exs_check "$name: a: one link to b carries the $((n + 1)) streams, each socket names it" \
		links_carry "$EXS_TMP/links.1.json" "$EXS_TMP/socks.1.json" \
		peer_port $port $((n + 1)) $peer4
	exs_check "$name: a: still so once they moved their bytes" \
		links_carry "$EXS_TMP/links.2.json" "$EXS_TMP/socks.2.json" \
		peer_port $port $((n + 1)) $peer4
	exs_check "$name: a: its bytes grew by what they moved, each way" \
		links_grew "$EXS_TMP/links.1.json" "$EXS_TMP/links.2.json" \
		$((n + 1)) "$(kib 1024)"
	exs_check "$name: a: exsconfig links prints it" \
		grep -Eq "^[0-9]+ +up +$peer4 +inet +[^ ]+ +yes +$((n + 1)) " \
		"$EXS_TMP/links.2.txt"
fi

# Concurrent first connects: 16 connects to b start at once, with no
# queue pair to b up (an ack timeout of its own): the first builds one
# link, the others wait for it and then join it (link_table.c), rather
# than each build a queue pair of its own.
#
# Then a burst of 24 once that link and its 16 streams are parked: a
# connect takes a parked stream and OPENs on it (reuse.c), or joins the
# link, waiting for it if it is reopening (exs_link_reopen()); none
# builds another, whatever order they come in.  Both ends keep parked
# queue pairs for a minute here, so that it is still parked.
# burst_serve NAME PORT N: b's server for a burst, N + 1 connections
burst_serve() {
	local server
	exs_bg exs-run python3 "$here/exs_share.py" listen "$2" "$3" \
		2> "$EXS_TMP/burst.$2.err"
	server=${EXS_PIDS[-1]}
	exs_wait_listen "$2" 60
	ready "$1"
	if wait "$server"; then
		exs_ok "$1: server side"
	else
		exs_fail "$1: server side"
		sed 's/^/#   /' "$EXS_TMP/burst.$2.err"
	fi
}

burst2_b() {
	local name="24 connects at once, a link of 16 parked: it carries them all"
	local shared reused
	shared=$(exs_stat AcceptShared) reused=$(exs_stat AcceptReuse)
	burst_serve "$name" 23015 $n2
	exs_check "$name: b: each came by an OPEN on a parked end or a JOIN" \
		[ $(($(exs_stat AcceptShared) - shared + $(exs_stat AcceptReuse) - reused)) -eq $((n2 + 1)) ]
}

# burst_link FILE: the id of the link that carried the first burst
burst_link() {
	python3 -c 'import json, sys
print(*[l["id"] for l in json.load(open(sys.argv[1]))
        if l.get("streams", 0) > int(sys.argv[2])][:1])' "$1" "$n"
}

# link_state ID STATE: exsconfig lists link ID in STATE
link_state() {
	exsconfig -j links > "$EXS_TMP/burst.state" &&
	python3 -c 'import json, sys
sys.exit(not any(str(l["id"]) == sys.argv[2] and l["state"] == sys.argv[3]
                 for l in json.load(open(sys.argv[1]))))' \
		"$EXS_TMP/burst.state" "$1" "$2"
}

burst2_a() {
	local name="24 connects at once, a link of 16 parked: it carries them all"
	local port=23015 id reused shared rdma
	id=$(burst_link "$EXS_TMP/burst.links.1")
	if [ -z "$id" ] || ! exs_wait_until 30 link_state "$id" parked; then
		exs_fail "$name" "link ${id:-?} never parked"
		return
	fi
	shared=$(exs_stat ConnectShared) rdma=$(exs_stat ConnectRdma)
	reused=$(exs_stat ConnectReuse)
	sed -i "s/burst\.links\./burst2.links./; s/burst\.socks\./burst2.socks./" \
		"$EXS_TMP/burst.look"
	await_ready "$name" || exs_fail "$name" "server never ready"
	exs_run "$name" exs-run python3 "$here/exs_share.py" \
		burst $peer4 $port $n2 "$(kib 256)" "$EXS_TMP/burst.look"
	exs_assert "$name: a: all $((n2 + 1)) over RDMA, each on a parked stream or joined" \
		'[ $(($(exs_stat ConnectRdma) - rdma)) -eq $((n2 + 1)) ] &&
		 [ $(($(exs_stat ConnectReuse) - reused)) -ge 1 ] &&
		 [ $(($(exs_stat ConnectReuse) - reused + $(exs_stat ConnectShared) - shared)) -eq $((n2 + 1)) ]'
	exs_check "$name: a: link $id carries the $((n2 + 1)) streams" \
		eval 'links_carry "$EXS_TMP/burst2.links.1" \
			"$EXS_TMP/burst2.socks.1" peer_port $port $((n2 + 1)) \
			$peer4 && [ "$(burst_link "$EXS_TMP/burst2.links.1")" = "$id" ]'
}

name="16 connects at once build one link"
port=23014 n=15 n2=23
if [ "$host" = b ]; then
	exs_sysctl net.exs.reuse_idle_ms=60000
	shared=$(exs_stat AcceptShared)
	burst_serve "$name" $port $n
	exs_check "$name: b: a JOIN for each but the first" \
		[ $(($(exs_stat AcceptShared) - shared)) -eq $n ]
	burst2_b
else
	printf '#!/bin/sh\nexsconfig -j links > %s/burst.links.$1 && exsconfig -j sockets > %s/burst.socks.$1\n' \
		"$EXS_TMP" "$EXS_TMP" > "$EXS_TMP/burst.look"
	chmod +x "$EXS_TMP/burst.look"
	shared=$(exs_stat ConnectShared) rdma=$(exs_stat ConnectRdma)
	waited=$(exs_stat ConnectLinkWait)
	await_ready "$name" || exs_fail "$name" "server never ready"
	exs_sysctl net.exs.share_qp=1 net.exs.ack_timeout=21 \
		net.exs.reuse_idle_ms=60000
	exs_run "$name" exs-run python3 "$here/exs_share.py" \
		burst $peer4 $port $n "$(kib 256)" "$EXS_TMP/burst.look"
	exs_assert "$name: a: all $((n + 1)) over RDMA, all but one joined" \
		'[ $(($(exs_stat ConnectRdma) - rdma)) -eq $((n + 1)) ] &&
		 [ $(($(exs_stat ConnectShared) - shared)) -eq $n ]'
	# one at least found the link coming up (the rest may find it up)
	exs_check "$name: a: connects waited for the link coming up ($(($(exs_stat ConnectLinkWait) - waited)))" \
		[ $(($(exs_stat ConnectLinkWait) - waited)) -ge 1 ]
	exs_check "$name: a: one link to b carries the $((n + 1)) streams, each socket names it" \
		links_carry "$EXS_TMP/burst.links.1" "$EXS_TMP/burst.socks.1" \
		peer_port $port $((n + 1)) $peer4
	burst2_a
fi
exs_sysctl_restore

# delayed_ack_fraction: credits return every 1/N of the ring; with 32
# rather than 2, the same transfer returns them more often.  Only "more":
# a sender low on window asks for its credits at once whatever N is, and on
# a slow kernel it often is (a debug-kernel run counted 64 vs 35, a stock
# one 512 vs 167).
credit_run() {
	local name=$1 port=$2 before
	sysctl -qw net.exs.delayed_ack_fraction="$3"
	before=$(exs_stat CreditUpdates)
	pair_xfer "$name" "$port" "-x -e exs -n $(kib 8192)" \
		"-x -a $peer4 -e exs -n $(kib 8192)"
	credits=$(($(exs_stat CreditUpdates) - before))
}
credit_run "delayed_ack_fraction 2" 23010 2
u2=$credits
credit_run "delayed_ack_fraction 32" 23011 32
u32=$credits
sysctl -qw net.exs.delayed_ack_fraction=4
exs_check "$host: delayed_ack_fraction 32 returns credits more often than 2 ($u32 vs $u2)" \
	[ "$u32" -gt "$u2" ]

if [ "$host" = b ]; then
	exs_tap_end
	exit
fi

# ---- host a alone -----------------------------------------------------------

# tracepoints: the connects and fallbacks above, and a reset now (a
# connection to a's own RDMA address, closed with SO_LINGER 0)
if [ -e "$tracing/events/af_exs/enable" ]; then
	exs_run "an RDMA connection to ourselves, reset at close" \
		exs-run python3 "$here/exs_echo.py" 10.0.0.1 23020 10 100 --reset
	sleep 1
	echo 0 > "$tracing/events/af_exs/enable"
	cp "$tracing/trace" "$EXS_TMP/trace"
	exs_check "tracepoint exs_connect saw the RDMA connects" \
		grep -q "exs_connect: .*:23001 err=0" "$EXS_TMP/trace"
	exs_check "tracepoint exs_fallback names the reason" \
		grep -q "exs_fallback: .*10.0.0.2\]:23003 reason=policy" "$EXS_TMP/trace"
	exs_check "tracepoint exs_accept saw the accept" \
		grep -q "exs_accept: .*:23020 " "$EXS_TMP/trace"
	exs_check "tracepoint exs_abort saw the reset" \
		grep -q "exs_abort: .*err=-104" "$EXS_TMP/trace"
else
	exs_skip "tracepoints" "no tracefs"
fi

# inline_threshold: 32-byte writes go inline at 64, never at 0
inline_run() {
	local before
	sysctl -qw net.exs.inline_threshold="$1"
	before=$(exs_stat InlineWrites)
	exs-run python3 "$here/exs_echo.py" 10.0.0.1 "$2" 50 32 >&2 || return 1
	echo $(($(exs_stat InlineWrites) - before))
}
i0=$(inline_run 0 23021)
i64=$(inline_run 64 23022)
exs_check "inline_threshold 0 sends no write inline ($i0)" [ "$i0" = 0 ]
exs_check "inline_threshold 64 sends the small writes inline ($i64)" \
	[ "${i64:-0}" -ge 100 ]

# ack_timeout: a connection set up while it is 14 has both ends' queue
# pairs set to it by the CM (the dump's ack_timeout); at 0, to the CM's
# own value
ack_run() {
	sysctl -qw net.exs.ack_timeout="$1"
	exs-run python3 "$here/exs_echo.py" 10.0.0.1 "$2" 1 10 --while \
		"exsconfig -j sockets > $EXS_TMP/ack.$2" >&2 || return 1
	python3 -c 'import json, sys
port = int(sys.argv[2])
print(*(x.get("ack_timeout", "-") for x in json.load(open(sys.argv[1]))
        if x["transport"] == "rdma" and port in (x["local_port"], x["peer_port"])))
' "$EXS_TMP/ack.$2" "$2"
}
a14=$(ack_run 14 23024)
a0=$(ack_run 0 23025)
exs_check "ack_timeout 14: both ends' queue pairs run with it ($a14)" \
	[ "$a14" = "14 14" ]
exs_check "ack_timeout 0: both run with the CM's value ($a0)" \
	python3 -c 'import sys
v = sys.argv[1].split()
sys.exit(not (len(v) == 2 and v[0] == v[1] and v[0] not in ("14", "0", "-")))' "$a0"
exs_check "ack_timeout refuses 32" \
	bash -c '! sysctl -qw net.exs.ack_timeout=32 2>/dev/null'
exs_check "connect_timeout_ms refuses 60001 (the CM's REQ outlasts it)" \
	bash -c '! sysctl -qw net.exs.connect_timeout_ms=60001 2>/dev/null'

# rdma_cm's port space follows TCP's.  With 64 ephemeral ports, 24 held
# connections take 24 in TCP; the listeners after them get the others,
# and each must listen for RDMA too: no rdma_cm id may hold a port that
# TCP gives out (one that picked its own took a listener's, 1 in 3 here).
# Then listeners on the ports of closed connections, 4 established and 4
# abandoned at once (closed mid-connect, or just after): TCP gives each
# port out again only once its cm_id is gone.  52 connections accepted
# in all (the abandoned ones are not).  An abandoned connect whose setup
# won the race closed in order, and its peer, never accepted, says no
# LAST: it holds its port until reuse_idle_ms runs out, as TCP's
# FIN_WAIT2 would; 3 s of it here, within listen_on()'s 10 s (with 10 s,
# the case failed so once on 6.12).
exs_sysctl net.ipv4.ip_local_port_range="40000 40063" \
	net.exs.reuse_idle_ms=3000
exs_stat_save "$EXS_TMP/ports.stat"
exs_run "24 connections held, 16 listeners on ephemeral ports, 8 on freed ones" \
	exs-run python3 "$here/exs_ports.py" 10.0.0.1 23026 24 16 4
moved=$(exs_stat_moved "$EXS_TMP/ports.stat")
exs_sysctl_restore
exs_check "every listener listened for RDMA, every connect used it ($moved)" \
	bash -c '[[ "$1" == *"AcceptRdma +52 "* && "$1" != *ListenTcpOnly* &&
		   "$1" != *Fallback* ]]' - "$moved"

# A closed connection's parked QP keeps its port as TIME_WAIT would: a
# bind with SO_REUSEADDR takes it at once (the QP goes), one without
# gets EADDRINUSE.
exs_run "a parked QP's port: EADDRINUSE, or at once with SO_REUSEADDR" \
	exs-run python3 "$here/exs_parked_port.py" 10.0.0.1 23027

# a socket that fell back shows in the dump with its reason
exsconfig policy off
exs_run "exsconfig sockets shows a fallback and its reason" \
	exs-run python3 "$here/exs_echo.py" 10.0.0.1 23023 1 10 --while \
	"exsconfig -j sockets | python3 -c 'import json, sys
s = json.load(sys.stdin)
sys.exit(0 if any(x[\"transport\"] == \"tcp\" and x[\"fallback\"] == \"policy\"
                  and x[\"peer_port\"] == 23023 for x in s) else 1)'"
exsconfig policy auto

# counters: JSON matches /proc, a reset zeroes them.  Parked QPs expire
# and links go in the background, so a counter may move between reads:
# each JSON value must lie between /proc's before and after it.
exs_check "exsconfig -j stats agrees with /proc/net/exs_stat" \
	python3 -c "import json, subprocess, sys
def proc():
    return {k: int(v) for k, v in (l.split() for l in open('/proc/net/exs_stat'))}
p0 = proc()
j = json.loads(subprocess.check_output(['exsconfig', '-j', 'stats']))
p1 = proc()
def span(k):  # a gauge may go down as well as up, a counter only up
    return sorted((p0[k], p1[k])) if k == 'RingMemPages' else (p0[k], p1[k])
sys.exit(0 if j and set(j) <= set(p1) and
         all(span(k)[0] <= v <= span(k)[1] for k, v in j.items()) else 1)"

# ---- namespaces -------------------------------------------------------------

ns_run() { ip netns exec "$@"; }
ip netns add exs-n1 && ip netns add exs-n2
trap 'ip netns del exs-n1 2>/dev/null; ip netns del exs-n2 2>/dev/null; exs_cleanup' EXIT
ns_run exs-n1 ip link set lo up
ns_run exs-n2 ip link set lo up
printf '10.1.0.0/16 -\n' > "$EXS_TMP/n1.map"
printf 'fd00:2::/64 fd00::2 deny=22\n' > "$EXS_TMP/n2.map"
map "$peer4 -"
ns_run exs-n1 exsconfig load "$EXS_TMP/n1.map" >/dev/null
ns_run exs-n2 exsconfig load "$EXS_TMP/n2.map" >/dev/null
ns_run exs-n1 exsconfig policy map
ns_run exs-n2 exsconfig policy off
exs_assert "namespaces: each has its own map" \
	'[ "$(ns_run exs-n1 exsconfig map)" = "10.1.0.0/16 -" ] &&
	[ "$(ns_run exs-n2 exsconfig map)" = "fd00:2::/64 fd00::2 deny=22" ] &&
	[ "$(exsconfig map)" = "$peer4/32 -" ]'
exs_assert "namespaces: each has its own policy" \
	'[ "$(ns_run exs-n1 exsconfig policy)" = map ] &&
	[ "$(ns_run exs-n2 exsconfig policy)" = off ] &&
	[ "$(exsconfig policy)" = auto ]'
fb_init=$(exs_stat FallbackPolicy)
fb_n1=$(ns_run exs-n1 exsconfig -j stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["FallbackPolicy"])')
ns_run exs-n2 exs_connect -l -x -p 23030 -n 1000 >/dev/null &
ns_run exs-n2 bash -c ". $here/lib.sh; exs_wait_listen 23030 10"
exs_run "namespaces: a connect in exs-n2 (policy off) falls back" \
	ip netns exec exs-n2 exs_connect -x -a 127.0.0.1 -p 23030 -e inet -n 1000
wait $!
stat_in() { ns_run "$1" awk -v n="$2" '$1 == n { print $2 }' /proc/net/exs_stat; }
exs_assert "namespaces: only exs-n2 counted the fallback" \
	'[ "$(stat_in exs-n2 FallbackPolicy)" = 1 ] &&
	[ "$(stat_in exs-n1 FallbackPolicy)" = "$fb_n1" ] &&
	[ "$(exs_stat FallbackPolicy)" = "$fb_init" ]'
ns_run exs-n2 exsconfig reset-stats
exs_assert "namespaces: reset-stats zeroes one namespace only" \
	'[ "$(stat_in exs-n2 FallbackPolicy)" = 0 ] &&
	[ "$(stat_in exs-n2 ActiveOpen)" = 0 ] &&
	[ "$(exs_stat FallbackPolicy)" = "$fb_init" ] &&
	[ "$(exs_stat ActiveOpen)" -gt 0 ]'

# ---- bad input: clear errors, nothing changed ------------------------------

before=$(exsconfig map)
bad_file() {
	local name=$1 text=$2 want=$3 out
	printf '%b\n' "$text" > "$EXS_TMP/bad.map"
	out=$(exsconfig load "$EXS_TMP/bad.map" 2>&1)
	local rc=$?
	exs_assert "bad file, $name: exit 1, '$want', map unchanged" \
		'[ "$rc" = 1 ] &&
		[[ "$out" == *"$EXS_TMP/bad.map:$want"* ]] &&
		[ "$(exsconfig map)" = "$before" ]'
	[ "$rc" = 1 ] || echo "#   $out"
}
bad_file "not an address" "10.0.0.0/8 -\n# fine\n300.1.2.3 -" "3: field 1 '300.1.2.3'"
bad_file "prefix length 33" "10.0.0.0/33 -" "1: field 1"
bad_file "IPv6 length 129" "fd00::/129 -" "1: field 1"
bad_file "host bits past the length" "10.0.0.1/8 -" "1: field 1"
bad_file "IPv4-mapped IPv6" "::ffff:10.0.0.0/104 -" "1: field 1"
bad_file "no RDMA address" "\n\n10.0.0.0/8" "3: field 2"
bad_file "multicast RDMA address" "10.0.0.0/8 224.0.0.1" "1: field 2"
bad_file "port 0" "10.0.0.0/8 - allow=0" "1: field 3"
bad_file "port 70000" "10.0.0.0/8 - deny=70000" "1: field 3"
bad_file "range backwards" "10.0.0.0/8 - allow=9-5" "1: field 3"
bad_file "unknown field" "10.0.0.0/8 - permit=80" "1: field 3"
bad_file "17 ranges" "10.0.0.0/8 - allow=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17" "1: field 3"
bad_file "the same prefix twice" "10.0.0.0/8 -\n10.0.0.0/8 10.0.0.9" "2: field 1"
seq 0 1024 | awk '{ printf "10.%d.%d.0/24 -\n", int($1 / 256), $1 % 256 }' > "$EXS_TMP/big.map"
out=$(exsconfig load "$EXS_TMP/big.map" 2>&1)
rc=$?
exs_assert "bad file, 1025 entries: refused, map unchanged" \
	'[ "$rc" = 1 ] && [[ "$out" == *"big.map:1025"* ]] &&
	[ "$(exsconfig map)" = "$before" ]'
head -n 1024 "$EXS_TMP/big.map" > "$EXS_TMP/full.map"
exs_run "1024 entries load" exsconfig load "$EXS_TMP/full.map"
exs_check "overlapping prefixes of different lengths load (longest wins)" \
	exsconfig load <(printf '10.0.0.0/8 -\n10.0.0.0/16 10.0.1.2\n10.0.0.2 10.0.1.2\n')
exs_assert "exsconfig map prints what load reads back" \
	'bash -c "exsconfig map > $EXS_TMP/again.map &&
	exsconfig load $EXS_TMP/again.map >/dev/null &&
	[ \"\$(exsconfig map)\" = \"\$(cat $EXS_TMP/again.map)\" ]"'
map "$peer4 -"
exs_run "hostile netlink requests are refused, the map unchanged" exs_nlbad

# ---- privileges -------------------------------------------------------------

before=$(exsconfig map)
chmod o+x "$EXS_TMP" && chmod o+r "$EXS_TMP/n1.map"	# nobody may read it
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
for cmd in "flush" "policy off" "reset-stats" "load $EXS_TMP/n1.map" "del $peer4"; do
	# shellcheck disable=SC2086 # the command's words
	out=$(nobody "$(command -v exsconfig)" $cmd 2>&1)
	rc=$?
	exs_assert "unprivileged '$cmd': EPERM (exit 2), nothing changed" \
		'[ "$rc" = 2 ] && [[ "$out" == *"not permitted"* ]] &&
		[ "$(exsconfig map)" = "$before" ] && [ "$(exsconfig policy)" = auto ]'
done
exs_assert "unprivileged reads work" \
	'nobody exsconfig map >/dev/null &&
	nobody exsconfig stats >/dev/null &&
	nobody exsconfig sockets >/dev/null &&
	nobody exsconfig links >/dev/null &&
	nobody exsconfig policy >/dev/null'
if unshare -Ur true 2>/dev/null; then
	exs_assert "root of a new user namespace may not write the initial namespace" \
		'unshare -Ur "$(command -v exsconfig)" policy off 2>/dev/null
		[ $? = 2 ] && [ "$(exsconfig policy)" = auto ]'
else
	exs_skip "a user namespace's root and the initial namespace" \
		"no user namespaces here"
fi
if unshare -Urn true 2>/dev/null; then
	exs_assert "root of a new user namespace writes its own network namespace" \
		'unshare -Urn bash -c "exsconfig policy off &&
		[ \"\$(exsconfig policy)\" = off ]" &&
		[ "$(exsconfig policy)" = auto ]'
else
	exs_skip "a user namespace's own network namespace" "unshare -Urn failed"
fi

exsconfig flush
exs_tap_end
