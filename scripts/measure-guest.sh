#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of measure.sh: b serves, a measures every kind in turn, round
# by round, alternating the order so warm-up favours none.
#   verbs  raw RDMA verbs (perftest: ib_write_lat, ib_write_bw)
#   tcp    plain TCP (sockperf ping-pong, iperf3)
#   exs    AF_EXS to AF_EXS, over RDMA (both ends under exs-run)
#   exsbp  the same with busy polling (net.exs.busy_poll_us on both ends)
#   fb     AF_EXS client to a plain TCP server: the TCP fallback
set -u
role=$1 rounds=$2
busy_us=${EXS_MEASURE_BUSY_US:-50000}
share=$EXS_VM_SHARE
mkdir -p "$share"
peer=10.0.0.2
if [ "$role" = b ]; then
	sockperf server --tcp -p 11111 >/dev/null 2>&1 &
	exs-run sockperf server --tcp -p 11112 >/dev/null 2>&1 &
	iperf3 -s -p 5201 >/dev/null 2>&1 &
	exs-run iperf3 -s -p 5202 >/dev/null 2>&1 &
	# busy-polling servers: sockets take the sysctl when created, and
	# accepted ones their listener's setting
	sysctl -qw net.exs.busy_poll_us=$busy_us
	exs-run sockperf server --tcp -p 11113 >/dev/null 2>&1 &
	exs-run iperf3 -s -p 5203 >/dev/null 2>&1 &
	sleep 2
	sysctl -qw net.exs.busy_poll_us=0
	# perftest servers serve one run each
	for p in 18516:16 18517:1024; do
		(while [ ! -e "$share/done" ]; do
			ib_write_lat -R -d rxe0 -p "${p%:*}" -s "${p#*:}" -n 500 >/dev/null 2>&1
		done) &
	done
	(while [ ! -e "$share/done" ]; do
		ib_write_bw -R -d rxe0 -p 18518 -s 65536 -D 5 >/dev/null 2>&1
	done) &
	sleep 3
	touch "$share/ready"
	while [ ! -e "$share/done" ]; do sleep 1; done
	pkill -f ib_write_ 2>/dev/null
	exit 0
fi
while [ ! -e "$share/ready" ]; do sleep 0.2; done

lat() {	# lat PORT PRELOAD SIZE: average one-way latency in usec
	$2 sockperf ping-pong --tcp -i $peer -p "$1" -m "$3" -t 5 2>/dev/null |
		sed -n 's/.*avg-latency=\([0-9.]*\).*/\1/p' | tail -n 1
}
bw() {	# bw PORT PRELOAD: receiver Mbit/s of a 5 s iperf3 run, 64 KiB writes
	$2 iperf3 -c $peer -p "$1" -t 5 -l 65536 -J 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/1e6)'
}
verbs_lat() {	# verbs_lat PORT SIZE: perftest's average one-way latency, usec
	sleep 0.5
	timeout 120 ib_write_lat -R -d rxe0 -p "$1" -s "$2" -n 500 $peer 2>/dev/null |
		awk '$1 == "'"$2"'" { print $6 }' | tail -n 1
}
verbs_bw() {	# 64 KiB RDMA writes for 5 s, Mbit/s
	sleep 0.5
	timeout 120 ib_write_bw -R -d rxe0 -p 18518 -s 65536 -D 5 $peer 2>/dev/null |
		awk '$1 == "65536" { print $4 * 8 * 1.048576 }' | tail -n 1
}
: > "$share/raw"
one_round() {	# one_round KIND
	case $1 in
	verbs)
		echo "lat16 verbs $(verbs_lat 18516 16)" >> "$share/raw"
		echo "lat1024 verbs $(verbs_lat 18517 1024)" >> "$share/raw"
		echo "bw verbs $(verbs_bw)" >> "$share/raw"
		return ;;
	tcp) set -- tcp 11111 5201 "" ;;
	exs) set -- exs 11112 5202 exs-run ;;
	exsbp)
		sysctl -qw net.exs.busy_poll_us=$busy_us
		set -- exsbp 11113 5203 exs-run ;;
	fb) set -- fb 11111 5201 exs-run ;;
	esac
	for size in 16 1024; do
		echo "lat$size $1 $(lat "$2" "$4" $size)" >> "$share/raw"
	done
	echo "bw $1 $(bw "$3" "$4")" >> "$share/raw"
	sysctl -qw net.exs.busy_poll_us=0
}
kinds=(${EXS_MEASURE_KINDS:-verbs tcp exs exsbp fb})
for r in $(seq "$rounds"); do
	if [ $((r % 2)) = 1 ]; then order=("${kinds[@]}"); else
		order=(); for ((i = ${#kinds[@]} - 1; i >= 0; i--)); do order+=("${kinds[i]}"); done
	fi
	for k in "${order[@]}"; do one_round "$k"; done
done
touch "$share/done"
python3 - "$share/raw" "${kinds[@]}" <<'PY'
import statistics, sys
v = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 3 and f[2]:
        v.setdefault((f[0], f[1]), []).append(float(f[2]))
kinds = sys.argv[2:]
print("medians of each kind, rounds interleaved; ratios to plain TCP")
print("%-8s" % "metric" + "".join("%16s" % k for k in kinds))
for m, unit in (("lat16", "us"), ("lat1024", "us"), ("bw", "Mbit/s")):
    row, rat = "%-8s" % m, "%-8s" % ""
    t = v.get((m, "tcp"))
    for k in kinds:
        x = v.get((m, k))
        if not x:
            row += "%16s" % "-"
            rat += "%16s" % ""
            continue
        med = statistics.median(x)
        row += "%11.1f %-4s" % (med, unit[:4])
        rat += "%16s" % ("x%.2f" % (med / statistics.median(t)) if t else "")
    print(row)
    print(rat)
PY
