#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A SO_REUSEPORT group of AF_EXS listeners, for exs_pair.sh.

The server makes N listeners on one port with SO_REUSEPORT, as IPPROTO_EXS
sockets (which take SO_REUSEPORT on 6.1 as well), and accepts TOTAL
connections on whichever listener they reach, each echoing one byte.  It
prints how many each listener accepted and over which transport
(EXS_INFO), and fails unless every listener accepted at least one RDMA
connection and none came over TCP: the group spreads RDMA connections as
TCP spreads SYNs over it.

The client makes TOTAL connections to the port one after another, each
an IPPROTO_EXS socket that sends a byte, reads it back and must say RDMA.
It keeps the first open until the last is done, so that with sharing on
the others JOIN its link (or OPEN a channel of it that parked), where the
first sent a REQ.

  exs_reuseport.py listen PORT N TOTAL SECONDS
  exs_reuseport.py connect ADDR PORT TOTAL

Exit 0 on success; 1, saying why, otherwise; 4 when the module offers no
IPPROTO_EXS.
"""
import selectors
import socket
import sys
import time

SOL_EXS = 300		# include/uapi/linux/af_exs.h
EXS_INFO = 1
RDMA, TCP = 1, 2	# enum exs_transport
NAMES = {RDMA: "rdma", TCP: "tcp"}


def ipproto():
    try:
        with open("/sys/module/af_exs/parameters/ipproto") as f:
            n = int(f.read())
    except (OSError, ValueError):
        n = 0
    if not n:
        print("no IPPROTO_EXS", file=sys.stderr)
        sys.exit(4)
    return n


def transport(s):
    # a connection that fell back is TCP's socket, which knows no SOL_EXS
    try:
        return s.getsockopt(SOL_EXS, EXS_INFO, 32)[0]
    except OSError:
        return TCP


def listen(port, n, total, seconds):
    proto = ipproto()
    sel = selectors.DefaultSelector()
    counts = []
    for i in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, proto)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        s.bind(("0.0.0.0", port))
        s.listen(64)
        sel.register(s, selectors.EVENT_READ, i)
        counts.append({RDMA: 0, TCP: 0})
    done, end = 0, time.monotonic() + seconds
    while done < total and time.monotonic() < end:
        for key, _ in sel.select(timeout=1):
            c, _ = key.fileobj.accept()
            c.settimeout(30)
            t = transport(c)
            counts[key.data][t] = counts[key.data].get(t, 0) + 1
            c.sendall(c.recv(1))
            # the client's first stays open until its last is done
            if done:
                c.close()
            else:
                held = c
            done += 1
    if done:
        held.close()
    for i, c in enumerate(counts):
        print(f"listener {i}: " +
              ", ".join(f"{NAMES.get(t, t)} {k}" for t, k in c.items()))
    if done < total:
        sys.exit(f"accepted {done} of {total}")
    if any(c[TCP] for c in counts):
        sys.exit("a connection came over TCP")
    if not all(c[RDMA] for c in counts):
        sys.exit("a listener of the group took no RDMA connection")


def connect(addr, port, total):
    proto = ipproto()
    first = None
    for i in range(total):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, proto)
        s.settimeout(60)
        s.connect((addr, port))
        s.sendall(b"x")
        if s.recv(1) != b"x":
            sys.exit(f"connection {i}: no echo")
        if transport(s) != RDMA:
            sys.exit(f"connection {i}: not over RDMA")
        if first is None:
            first = s
        else:
            s.close()
    first.close()


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "listen":
        listen(*map(int, sys.argv[2:6]))
    elif len(sys.argv) == 5 and sys.argv[1] == "connect":
        connect(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
