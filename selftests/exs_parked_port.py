#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run under exs-run.  A closed connection whose queue pair parked keeps
its port while the QP's cm_id lives, as TIME_WAIT keeps a closed TCP
connection's: a bind without SO_REUSEADDR fails with EADDRINUSE, one with
it takes the port at once (the parked QP goes), and the listener there
listens for RDMA.

  exs_parked_port.py ADDR PORT
"""
import errno
import socket
import sys
import time

addr, port = sys.argv[1], int(sys.argv[2])


def stat(name):
    with open("/proc/net/exs_stat") as f:
        return int(dict(line.split() for line in f).get(name, 0))


def exchange(l):
    """A connection to listener l, one byte each way; its client's
    port, and both ends closed (the client first)."""
    c = socket.socket()
    # a ring size of its own: no parked QP fits, so this one is new
    c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32768)
    c.connect(l.getsockname())
    a, _ = l.accept()
    c.sendall(b"x")
    a.sendall(a.recv(1))
    if c.recv(1) != b"x":
        sys.exit("the byte came back changed")
    p = c.getsockname()[1]
    c.close()
    a.close()
    return p


parked, reused = stat("Parked"), stat("ConnectReuse")
with socket.create_server((addr, port)) as l:
    p = exchange(l)
if stat("ConnectReuse") != reused:
    sys.exit("the connection reused a parked QP: nothing to test")
for _ in range(100):
    if stat("Parked") >= parked + 2:
        break
    time.sleep(0.1)
else:
    sys.exit("the connection's QP never parked at both ends")

s = socket.socket()
try:
    s.bind((addr, p))
    sys.exit(f"port {p} bound without SO_REUSEADDR while its QP is parked")
except OSError as e:
    if e.errno != errno.EADDRINUSE:
        raise
s.close()

tcp_only = stat("ListenTcpOnly")
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((addr, p))       # at once, or OSError
s.listen()
exchange(s)
s.close()
if stat("ListenTcpOnly") != tcp_only:
    sys.exit(f"the listener on port {p} could not listen for RDMA")
