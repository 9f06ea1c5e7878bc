#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run under exs-run, with the ephemeral port range narrowed to a few
ports: HOLD connections to ADDR PORT stay open (each has a port in TCP and
an rdma_cm id in RDMA's own port space), and then LISTENERS times a
listener bound to an ephemeral port takes a connection and one byte each
way.  exs_control.sh counts which transport carried them: a listener
whose port an rdma_cm id already held could not listen for RDMA.

  exs_ports.py ADDR PORT HOLD LISTENERS
"""
import socket
import sys

addr, port, hold, listeners = sys.argv[1], *map(int, sys.argv[2:5])


def exchange(c, a):
    c.sendall(b"x")
    a.sendall(a.recv(1))
    if c.recv(1) != b"x":
        sys.exit("the byte came back changed")


lsn = socket.create_server((addr, port))
held = []
for _ in range(hold):
    c = socket.create_connection((addr, port), timeout=60)
    a, _ = lsn.accept()
    exchange(c, a)
    held += [c, a]

for _ in range(listeners):
    with socket.create_server((addr, 0)) as l:
        c = socket.create_connection(l.getsockname(), timeout=60)
        a, _ = l.accept()
        exchange(c, a)
        c.close()
        a.close()
