#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""perftest's report (stdin) as one exs_bench-style JSON line (stdout).

    perftest_line.py LABEL SIZE < ib_write_lat.log

Latency tests give t_typical (perftest's median) and the 99th percentile,
both one-way as perftest reports them; bandwidth tests the average, which
perftest prints in MiB/s.  A run that printed no figure gives an "error".
"""
import json
import sys


def main():
    label, size = sys.argv[1], int(sys.argv[2])
    out = {"transport": label, "family": "verbs", "size": size,
           "clients": 1, "carrier": "rdma"}
    lines = sys.stdin.read().splitlines()
    for i, line in enumerate(lines):
        if "#bytes" not in line:
            continue
        for row in lines[i + 1:]:
            vals = row.split()
            try:
                nums = [float(v) for v in vals]
            except ValueError:
                continue
            if not nums or int(nums[0]) != size:
                continue
            if "t_typical" in line:
                out.update(workload="pp", iters=int(nums[1]),
                           lat_us=nums[4], lat_p99_us=nums[7])
            else:
                out.update(workload="stream", iters=int(nums[1]),
                           mbit_s=nums[3] * 1048576 * 8 / 1e6)
            print(json.dumps(out))
            return
    out.update(workload="stream" if "_bw" in label else "pp",
               error="perftest printed no figure: " +
               (lines[-1].strip() if lines else "no output").replace('"', ""))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
