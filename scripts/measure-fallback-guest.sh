#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of measure-fallback.sh.  b serves plain and under exs-run,
# a measures both in alternation.
set -u
role=$1 rounds=$2
share=$EXS_VM_SHARE
mkdir -p "$share"
if [ "$role" = b ]; then
	sockperf server --tcp -p 11111 >/dev/null 2>&1 &
	exs-run sockperf server --tcp -p 11112 >/dev/null 2>&1 &
	iperf3 -s -p 5201 >/dev/null 2>&1 &
	exs-run iperf3 -s -p 5202 >/dev/null 2>&1 &
	sleep 3
	touch "$share/ready"
	while [ ! -e "$share/done" ]; do sleep 1; done
	exit 0
fi
while [ ! -e "$share/ready" ]; do sleep 0.2; done

lat() {	# lat PORT PRELOAD SIZE: average one-way latency in usec
	$2 sockperf ping-pong --tcp -i 10.0.0.2 -p "$1" -m "$3" -t 5 2>/dev/null |
		sed -n 's/.*avg-latency=\([0-9.]*\).*/\1/p' | tail -n 1
}
bw() {	# bw PORT PRELOAD: receiver Mbit/s of a 5 s iperf3 run
	$2 iperf3 -c 10.0.0.2 -p "$1" -t 5 -J 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/1e6)'
}
: > "$share/raw"
one_round() {	# one_round tcp|exs
	local port_l=11111 port_b=5201 pre=
	if [ "$1" = exs ]; then
		port_l=11112 port_b=5202 pre=exs-run
	fi
	for size in 16 1024; do
		echo "lat$size $1 $(lat $port_l "$pre" $size)" >> "$share/raw"
	done
	echo "bw $1 $(bw $port_b "$pre")" >> "$share/raw"
}
# alternate which goes first, so warm-up favours neither
for r in $(seq "$rounds"); do
	if [ $((r % 2)) = 1 ]; then
		one_round tcp
		one_round exs
	else
		one_round exs
		one_round tcp
	fi
done
touch "$share/done"
python3 - "$share/raw" <<'PY'
import statistics, sys
v = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 3 and f[2]:
        v.setdefault((f[0], f[1]), []).append(float(f[2]))
print("%-10s %12s %12s %10s   (median of %d rounds, interleaved)" %
      ("metric", "TCP", "AF_EXS fb", "exs/tcp", len(v.get(("bw", "tcp"), []))))
for m, unit in (("lat16", "us"), ("lat1024", "us"), ("bw", "Mbit/s")):
    t, x = v.get((m, "tcp")), v.get((m, "exs"))
    if not t or not x:
        print("%-10s not measured" % m)
        continue
    mt, mx = statistics.median(t), statistics.median(x)
    print("%-10s %9.1f %-2s %9.1f %-2s %10.3f   spread tcp %.1f-%.1f exs %.1f-%.1f" %
          (m, mt, unit[:2], mx, unit[:2], mx / mt, min(t), max(t), min(x), max(x)))
PY
