#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One connection to ourselves for the control selftests, run under
exs-run so that its sockets are AF_EXS: N ping-pongs of SIZE bytes with
TCP_NODELAY, then, optionally, a command run while the connection is
still open (to look at it from outside), and a close that resets it
(SO_LINGER 0) instead of an orderly one.

  exs_echo.py ADDR PORT N SIZE [--while CMD] [--reset]
"""
import argparse
import socket
import struct
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("addr")
ap.add_argument("port", type=int)
ap.add_argument("n", type=int)
ap.add_argument("size", type=int)
ap.add_argument("--while", dest="cmd")
ap.add_argument("--reset", action="store_true")
args = ap.parse_args()

lsn = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
lsn.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
lsn.bind((args.addr, args.port))
lsn.listen(1)
c = socket.create_connection((args.addr, args.port), timeout=60)
a, _ = lsn.accept()
a.settimeout(60)
for s in (a, c):
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def recv_all(s, n):
    buf = b""
    while len(buf) < n:
        got = s.recv(n - len(buf))
        if not got:
            sys.exit("peer closed early")
        buf += got
    return buf


msg = b"x" * args.size
for _ in range(args.n):
    c.sendall(msg)
    a.sendall(recv_all(a, args.size))
    if recv_all(c, args.size) != msg:
        sys.exit("echo differs")

rc = 0
if args.cmd:
    rc = subprocess.call(args.cmd, shell=True)
if args.reset:
    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
c.close()
a.close()
lsn.close()
sys.exit(rc)
