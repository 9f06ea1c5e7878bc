#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's report: from the figures the guests wrote to the tables,
plots and ratios a reader compares transports by.

    report.py OUT [--meta KEY=VALUE ...]

Reads OUT/<kernel>/results.jsonl (one line per figure, tools/bench/
bench-guest.sh), throws away every figure that the wrong transport carried,
and writes to OUT:
    results.json   the run's facts, every figure, every group's median
    results.csv    one row per (kernel, transport, workload, size, clients)
    summary.json   the named ratios of medians (AF_EXS first); a ratio
                   that could not be measured is null, its reason beside
                   it under NAME_why
    *.png          latency, bandwidth and requests/s against size/clients
and prints the ratios against their targets.
"""
import csv
import glob
import json
import math
import os
import statistics
import sys
from functools import partial

# The figure each workload is judged by, and whether lower is better.
METRIC = {"pp": ("lat_us", True), "stream": ("mbit_s", False),
          "conn": ("per_s", False), "rr": ("per_s", False),
          "connect": ("conn_us", True), "fair": ("lat_load_quotient", True)}
RDMA_PEERS = {"smc", "rsockets"}
TCP_LIKE = {"tcp", "fallback", "nordma"}


def wrong_transport(f):
    """Why a figure does not show the transport it is labelled with."""
    t, pkts = f["transport"], f.get("rdma_pkts", 0)
    if f.get("family") == "verbs":
        return None
    if t in ("exs", "exs_busypoll", "exs_noshare", "exs_nobatch") and \
            f.get("carrier") != "rdma":
        return "AF_EXS connection was not on RDMA (%s)" % f.get("carrier")
    if t == "fallback" and f.get("carrier") == "rdma":
        return "the fallback connection went RDMA"
    # TCP moves no RDMA packet; a fallback's first connect tries once
    if t in TCP_LIKE and pkts > 200:
        return "%d RDMA packets during a TCP figure" % pkts
    # SMC-R and rsockets: at least a packet an exchange, or a packet per
    # 64 KiB streamed, else their TCP fallback carried the bytes
    if t in RDMA_PEERS:
        need = f["iters"] if f["workload"] != "stream" else f["bytes"] // 65536
        if pkts < max(need, 100):
            return "%d RDMA packets for %d exchanges: TCP carried it" % (
                pkts, f["iters"])
    return None


def unreadable(f):
    """perftest now and then prints inf for a latency."""
    val = f.get(METRIC[f["workload"]][0])
    if val is None or not math.isfinite(val) or val <= 0:
        return "no finite figure (%s)" % val
    return None


def load(out):
    figures, dropped = [], []
    for path in sorted(glob.glob(os.path.join(out, "*", "results.jsonl"))):
        for line in open(path):
            line = line.strip()
            if not line:
                continue
            f = json.loads(line)
            # fair: the ping-pong's median latency beside the stream
            # over its median alone
            if f.get("workload") == "fair" and f.get("lat_alone_us"):
                f["lat_load_quotient"] = f["lat_us"] / f["lat_alone_us"]
            if "error" in f:
                why = f["error"] or "the run failed and said nothing"
            else:
                why = wrong_transport(f) or unreadable(f)
            if why:
                f["dropped"] = why
                dropped.append(f)
            else:
                figures.append(f)
    return figures, dropped


def key(f):
    return (f["kernel"], f["transport"], f["workload"], f["size"],
            f.get("clients", 1))


def per_op(fs):
    """Both hosts' CPU time and context switches, and the packets on the
    link, per operation (request, round trip, connection), medians: where
    a transport's cost goes."""
    def med(keys, scale=1):
        v = [sum(f[k] for k in keys) * scale / f["iters"]
             for f in fs if f.get("iters") and keys[0] in f]
        return statistics.median(v) if v else None
    # link_pkts: the client's IP packets in and out, every packet on the link
    return dict(cpu_us_per_op=med(("cpu_client_s", "cpu_server_s"), 1e6),
                ctxt_per_op=med(("ctxt_client", "ctxt_server")),
                pkts_per_op=med(("link_pkts",)))


def opt(v):
    return "%.1f" % v if v is not None else "-"


def costs(rows, kernel):
    """The request/response rows' cost per request, every transport."""
    out = []
    for r in rows:
        if (r["kernel"] == kernel and r["workload"] == "rr" and
                r["median"] is not None and r.get("cpu_us_per_op")):
            out.append("%-9s %3d clients %8.0f/s %8.0f us CPU %6s switches "
                       "%6s packets"
                       % (r["transport"], r["clients"], r["median"],
                          r["cpu_us_per_op"], opt(r.get("ctxt_per_op")),
                          opt(r.get("pkts_per_op"))))
    return out


def group(figures, dropped):
    groups = {}
    for f in figures:
        groups.setdefault(key(f), []).append(f)
    rows = []
    for k, fs in sorted(groups.items()):
        metric = METRIC[k[2]][0]
        vals = [f[metric] for f in fs]
        cpu = [(f.get("cpu_client_s", 0) + f.get("cpu_server_s", 0)) /
               f["bytes"] * 1e9 for f in fs
               if f.get("bytes") and "cpu_client_s" in f]
        rows.append(dict(kernel=k[0], transport=k[1], workload=k[2],
                         size=k[3], clients=k[4], metric=metric,
                         median=statistics.median(vals), min=min(vals),
                         max=max(vals), n=len(vals),
                         cpu_ns_per_byte=statistics.median(cpu) if cpu
                         else None, **per_op(fs)))
    # a group with no valid figure still says why
    seen = {(r["kernel"], r["transport"], r["workload"], r["size"],
             r["clients"]) for r in rows}
    for f in dropped:
        k = key(f)
        if k not in seen:
            seen.add(k)
            rows.append(dict(kernel=k[0], transport=k[1], workload=k[2],
                             size=k[3], clients=k[4],
                             metric=METRIC[k[2]][0], median=None,
                             min=None, max=None, n=0, cpu_ns_per_byte=None,
                             cpu_us_per_op=None, ctxt_per_op=None,
                             pkts_per_op=None,
                             why=f["dropped"]))
    return rows


class Table:
    def __init__(self, rows, kernel, figures):
        self.rows = {(r["transport"], r["workload"], r["size"],
                      r["clients"]): r for r in rows
                     if r["kernel"] == kernel}
        self.figures = [f for f in figures if f["kernel"] == kernel]

    def get(self, transport, workload, size, clients=1):
        r = self.rows.get((transport, workload, size, clients))
        if r is None:
            return None, "%s %s %s x%d not measured" % (
                transport, workload, size, clients)
        if r["median"] is None:
            return None, "%s %s %s: %s" % (transport, workload, size,
                                           r.get("why"))
        return r["median"], None

    def paired(self, num, den):
        """The median over repetitions of each repetition's ratio: a
        pair measured side by side (bench-guest.sh's pair: TCP and the
        fallback taking turns in one run) shares the drift of its
        repetition, which the medians of the two transports' own figures
        do not cancel."""
        per_rep = {}
        for f in self.figures:
            k = (f["transport"], f["workload"], f["size"],
                 f.get("clients", 1))
            if k in (num, den):
                side = per_rep.setdefault(f["rep"], ([], []))
                side[k != num].append(f[METRIC[k[1]][0]])
        rs = [statistics.mean(a) / statistics.mean(b)
              for a, b in per_rep.values() if a and b and any(b)]
        if not rs:
            return None, "%s and %s: no repetition holds both" % (
                num[0], den[0])
        return statistics.median(rs), None


# name: (numerator, denominator, target, the target's sense) - a term is
# (transport, workload, size, clients) or a ("gain", transport) pair
def gain(t):
    return ("gain", t)


RATIOS = {
    "lat16_exs_busypoll_over_raw_write":
        (("exs_busypoll", "pp", 16, 1), ("ib_write_lat", "pp", 16, 1), 1.10, "<="),
    "lat16_exs_over_raw_send_event":
        (("exs", "pp", 16, 1), ("ib_send_lat_event", "pp", 16, 1), 1.10, "<="),
    "lat1k_exs_over_raw_write":
        (("exs_busypoll", "pp", 1024, 1), ("ib_write_lat", "pp", 1024, 1), 1.10, "<="),
    "lat1k_exs_over_raw_send_event":
        (("exs", "pp", 1024, 1), ("ib_send_lat_event", "pp", 1024, 1), 1.10, "<="),
    "lat16_exs_over_smc":
        (("exs", "pp", 16, 1), ("smc", "pp", 16, 1), 0.85, "<="),
    "lat1k_exs_over_smc":
        (("exs", "pp", 1024, 1), ("smc", "pp", 1024, 1), 0.85, "<="),
    "bw64k_exs_over_raw_write":
        (("exs", "stream", 65536, 1), ("ib_write_bw", "stream", 65536, 1), 0.90, ">="),
    "bw64k_exs_over_smc":
        (("exs", "stream", 65536, 1), ("smc", "stream", 65536, 1), 1.30, ">="),
    "bw64k_exs_over_rsockets":
        (("exs", "stream", 65536, 1), ("rsockets", "stream", 65536, 1), 1.00, ">="),
    "lat16_fallback_over_tcp":
        (("fallback", "pp", 16, 1), ("tcp", "pp", 16, 1), 1.02, "<="),
    "bw64k_fallback_over_tcp":
        (("fallback", "stream", 65536, 1), ("tcp", "stream", 65536, 1), 0.98, ">="),
    "connrate_exs_over_smc":
        (("exs", "conn", 1, 1), ("smc", "conn", 1, 1), 2.00, ">="),
    "rr_scaling_exs_over_tcp": (gain("exs"), gain("tcp"), 0.90, ">="),
    "rr16_exs_over_smc":
        (("exs", "rr", 64, 16), ("smc", "rr", 64, 16), 1.30, ">="),
    # connect() to a host without RDMA (bench-guest.sh's nordma), the
    # first one's head start included, over TCP's beside it
    "connect_nordma_exs_over_tcp":
        (("nordma", "connect", 1, 1), ("tcp", "connect", 1, 1), 1.10, "<="),
    # a ping-pong's latency beside a 64 KiB stream on its link, over its
    # latency alone, against two TCP connections' (issue 41's fairness)
    "fair_exs_over_tcp":
        (("exs", "fair", 64, 1), ("tcp", "fair", 64, 1), 2.00, "<="),
}


# No target: what the RDMA peers themselves reach where AF_EXS has one
REFERENCE = {
    "rr_scaling_smc_over_tcp": (gain("smc"), gain("tcp")),
    "rr_scaling_rsockets_over_tcp": (gain("rsockets"), gain("tcp")),
    # AF_EXS with a queue pair per connection (net.exs.share_qp 0)
    "rr_scaling_exs_noshare_over_tcp": (gain("exs_noshare"), gain("tcp")),
    "rr16_exs_noshare_over_smc":
        (("exs_noshare", "rr", 64, 16), ("smc", "rr", 64, 16)),
    "rr16_exs_over_exs_noshare":
        (("exs", "rr", 64, 16), ("exs_noshare", "rr", 64, 16)),
    "connrate_exs_noshare_over_smc":
        (("exs_noshare", "conn", 1, 1), ("smc", "conn", 1, 1)),
    # AF_EXS with a ring write for each small write (batch=0, batch.c)
    "rr_scaling_exs_nobatch_over_tcp": (gain("exs_nobatch"), gain("tcp")),
    "rr16_exs_nobatch_over_smc":
        (("exs_nobatch", "rr", 64, 16), ("smc", "rr", 64, 16)),
    "rr16_exs_over_exs_nobatch":
        (("exs", "rr", 64, 16), ("exs_nobatch", "rr", 64, 16)),
}


def term(table, t):
    if t[0] == "gain":	# requests/s at 16 clients over 1 client
        hi, why = table.get(t[1], "rr", 64, 16)
        lo, why1 = table.get(t[1], "rr", 64, 1)
        if why or why1:
            return None, why or why1
        return hi / lo, None
    return table.get(*t)


# The fallback is TCP's own socket: its ratios are paired (Table.paired),
# as a 2% target is below the spread of three unpaired medians here.
PAIRED = {"lat16_fallback_over_tcp", "bw64k_fallback_over_tcp",
          "connect_nordma_exs_over_tcp"}


def quotient(table, num, den):
    a, why_a = term(table, num)
    b, why_b = term(table, den)
    if why_a or why_b or not b:
        return None, why_a or why_b or "denominator is 0"
    return a / b, None


def ratios(table):
    summary, checks = {}, []
    for name, (num, den, target, sense) in RATIOS.items():
        ratio = table.paired if name in PAIRED else partial(quotient, table)
        val, why = ratio(num, den)
        summary[name] = None if why else round(val, 3)
        if why:
            summary[name + "_why"] = why
        checks.append((name, summary[name], target, sense, why))
    for name, (num, den) in REFERENCE.items():
        val, why = quotient(table, num, den)
        summary[name] = None if why else round(val, 3)
        if why:
            summary[name + "_why"] = why
    return summary, checks


def plot(rows, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("# matplotlib missing: no plots", file=sys.stderr)
        return []
    made = []
    charts = [("pp", "size", "half round trip, median [us]", True,
               "latency"),
              ("stream", "size", "bandwidth [Mbit/s]", False, "bandwidth"),
              ("rr", "clients", "requests/s", False, "requests")]
    for kernel in sorted({r["kernel"] for r in rows}):
        for workload, x, ylabel, logy, name in charts:
            fig, ax = plt.subplots(figsize=(7, 4.5))
            lines = {}
            for r in rows:
                if (r["kernel"] == kernel and r["workload"] == workload and
                        r["median"] is not None):
                    lines.setdefault(r["transport"], []).append(r)
            if not lines:
                plt.close(fig)
                continue
            for t, rs in sorted(lines.items()):
                rs.sort(key=lambda r: r[x])
                xs = [r[x] for r in rs]
                ys = [r["median"] for r in rs]
                err = [[r["median"] - r["min"] for r in rs],
                       [r["max"] - r["median"] for r in rs]]
                ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=t)
            ax.set_xscale("log", base=2)
            if logy:
                ax.set_yscale("log")
            ax.set_xlabel("message size [bytes]" if x == "size" else
                          "concurrent clients")
            ax.set_ylabel(ylabel)
            ax.set_title("%s, kernel %s (median, min-max bars)" % (name,
                                                                    kernel))
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8)
            path = os.path.join(out, "%s-%s.png" % (name, kernel))
            fig.tight_layout()
            fig.savefig(path, dpi=90)
            plt.close(fig)
            made.append(os.path.basename(path))
    return made


def main():
    out = sys.argv[1]
    meta = dict(a.split("=", 1) for a in sys.argv[2:] if "=" in a)
    figures, dropped = load(out)
    rows = group(figures, dropped)
    kernels = sorted({r["kernel"] for r in rows})
    # SMC-R runs on the newest kernel only: the named ratios come from there
    primary = kernels[-1] if kernels else None
    for k in kernels:
        if any(r["kernel"] == k and r["transport"] == "smc" and
               r["median"] is not None for r in rows):
            primary = k
    summary, checks = ratios(Table(rows, primary, figures))
    summary = dict(kernel=primary, **summary)
    per_kernel = {k: ratios(Table(rows, k, figures))[0] for k in kernels}

    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["kernel", "transport", "workload",
                                          "size", "clients", "metric",
                                          "median", "min", "max", "n",
                                          "cpu_ns_per_byte", "cpu_us_per_op",
                                          "ctxt_per_op", "pkts_per_op", "why"])
        w.writeheader()
        for r in rows:
            w.writerow(r)
    plots = plot(rows, out)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(dict(meta=dict(meta, kernels=kernels), summary=summary,
                       ratios_by_kernel=per_kernel, groups=rows,
                       figures=figures, dropped=dropped, plots=plots), f,
                  indent=1)
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)

    print("# AF_EXS against the others, kernel %s (ratios of medians)" %
          primary)
    print("%-36s %8s  %-8s %s" % ("ratio", "value", "target", "verdict"))
    for name, val, target, sense, why in checks:
        if val is None:
            print("%-36s %8s  %s %-5s %s" % (name, "null", sense, target,
                                             "not measured: " + why))
            continue
        ok = val <= target if sense == "<=" else val >= target
        print("%-36s %8.3f  %s %-5s %s" % (name, val, sense, target,
                                           "met" if ok else "MISSED"))
    print("# for reference (no target): " +
          ", ".join("%s %s" % (name, "null" if summary[name] is None else
                               "%.3f" % summary[name]) for name in REFERENCE))
    print("# per request (request/response): CPU and switches of both hosts, "
          "packets on the link:")
    for line in costs(rows, primary):
        print("#   " + line)
    print("# %d figures, %d thrown away (see results.json 'dropped')" % (
        len(figures), len(dropped)))
    print("# %s" % os.path.join(out, "summary.json"))


if __name__ == "__main__":
    main()
