#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run under exs-run, with the ephemeral port range narrowed to a few
ports: HOLD connections to ADDR PORT stay open (each has a port in TCP and
an rdma_cm id in RDMA's own port space), and then LISTENERS times a
listener bound to an ephemeral port takes a connection and one byte each
way.  Then, REUSE times each, a connection is closed (established, or
abandoned at once, to PORT + 1) and a listener binds the port it had, as
soon as TCP lets it.  exs_control.sh counts which transport carried them: a listener
whose port an rdma_cm id still held could not listen for RDMA.

  exs_ports.py ADDR PORT HOLD LISTENERS REUSE
"""
import errno
import socket
import sys
import time

addr, port, hold, listeners, reuse = sys.argv[1], *map(int, sys.argv[2:6])


def exchange(c, a):
    c.sendall(b"x")
    a.sendall(a.recv(1))
    if c.recv(1) != b"x":
        sys.exit("the byte came back changed")


def serve_once(l):
    """A connection to listener l, one byte each way, closed."""
    c = socket.create_connection(l.getsockname(), timeout=60)
    a, _ = l.accept()
    exchange(c, a)
    c.close()
    a.close()


def listen_on(p):
    """A listener on port p, once TCP gives it out (TIME_WAIT-like: the
    closed connection holds it while its cm_id does)."""
    for _ in range(100):
        try:
            return socket.create_server((addr, p))
        except OSError as e:
            if e.errno != errno.EADDRINUSE:
                raise
            time.sleep(0.1)
    sys.exit(f"port {p} still in use after 10 s")


lsn = socket.create_server((addr, port), backlog=128)
# the abandoned connects' own, never accepted from
dropped = socket.create_server((addr, port + 1), backlog=128)
held = []
for _ in range(hold):
    c = socket.create_connection((addr, port), timeout=60)
    a, _ = lsn.accept()
    exchange(c, a)
    held += [c, a]

for _ in range(listeners):
    with socket.create_server((addr, 0)) as l:
        serve_once(l)

for _ in range(reuse):
    # an established connection, closed
    c = socket.create_connection((addr, port), timeout=60)
    a, _ = lsn.accept()
    exchange(c, a)
    p = c.getsockname()[1]
    c.close()
    a.close()
    with listen_on(p) as l:
        serve_once(l)
    # a connect abandoned at once: closed while RDMA sets it up, or just
    # after (on a loopback device the setup may win the race).  Bound
    # first, so its port is known without asking a connecting socket.
    c = socket.socket()
    c.bind((addr, 0))
    p = c.getsockname()[1]
    c.setblocking(False)
    c.connect_ex((addr, port + 1))
    c.close()
    with listen_on(p) as l:
        serve_once(l)
