#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One end of a connection that is reset, for exs_resume.sh, run under
exs-run so that its sockets are AF_EXS.  ROLE says what this end does:

  reset   one exchange (the connection is up, over RDMA if it can be),
          then CMD if given, then a close with SO_LINGER 0;
  wait    the same exchange, then recv() until it fails: it must fail
          with ECONNRESET, as on TCP;
  unaccepted
          (listen only) once a connection is in the listener's queue,
          CMD if given, then close the listener, never having accepted
          it: the connector sees a reset, as on TCP;
  finished
          the counter-case: the exchange, shutdown(SHUT_WR), recv()
          until EOF, then CMD if given: recv() must still say EOF, not
          a reset;
  halfopen
          the exchange; the listener's end then says FIN, runs CMD and
          reads 1 MiB of a pattern up to EOF, its listener kept open
          (a resume's REQ goes there); the connector's reads EOF, runs
          CMD, then sends that 1 MiB and closes: a half-closed stream
          goes on, the connector's end idle as CMD runs.

  exs_reset.py listen PORT ROLE [CMD]
  exs_reset.py connect ADDR PORT ROLE [CMD]

Exit 0 when this end did its part; 1, saying why, when the waiting end
saw anything but the reset.
"""
import select
import socket
import struct
import subprocess
import sys
import time

ROLES = ("reset", "wait", "unaccepted", "finished", "halfopen")
HALF = bytes(i % 251 for i in range(1 << 20))


def usage():
    sys.exit(__doc__.split("\n\n")[1])


def run(cmd):
    if cmd and subprocess.call(cmd, shell=True):
        sys.exit(f"exs_reset: {cmd} failed")


def finished(s):
    """shutdown, EOF, CMD, EOF again"""
    s.shutdown(socket.SHUT_WR)
    if s.recv(1) != b"":
        sys.exit("exs_reset: no EOF")
    run(cmd)
    # what CMD did to the connection has reached the socket by now
    time.sleep(0.5)
    got = s.recv(1)
    if got != b"":
        sys.exit(f"exs_reset: recv gave {got!r} after EOF")
    s.close()


def halfopen(s):
    """the listener: FIN, CMD, 1 MiB in; the connector: EOF, CMD, 1 MiB
    out"""
    if args[0] == "connect":
        if s.recv(1) != b"":
            sys.exit("exs_reset: no EOF")
        run(cmd)
        s.sendall(HALF)
        s.close()
        return
    s.shutdown(socket.SHUT_WR)
    run(cmd)
    got = bytearray()
    while True:
        data = s.recv(65536)
        if not data:
            break
        got += data
    if got != HALF:
        sys.exit(f"exs_reset: {len(got)} bytes, not the 1 MiB sent")
    s.close()


args = sys.argv[1:]
cmd = None
if args and args[-1] not in ROLES:
    cmd = args.pop()
if len(args) < 3 or args[-1] not in ROLES:
    usage()
role = args[-1]

if args[0] == "listen" and len(args) == 3:
    lsn = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsn.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsn.bind(("0.0.0.0", int(args[1])))
    lsn.listen(1)
    if role == "unaccepted":
        if not select.select([lsn], [], [], 120)[0]:
            sys.exit("exs_reset: nobody connected")
        run(cmd)
        lsn.close()
        sys.exit(0)
    lsn.settimeout(120)
    s, _ = lsn.accept()
    # a resume's REQ comes to the listener (halfopen's is kept)
    if role != "halfopen":
        lsn.close()
elif args[0] == "connect" and len(args) == 4 and role != "unaccepted":
    s = socket.create_connection((args[1], int(args[2])), timeout=120)
else:
    usage()
s.settimeout(120)

s.sendall(b"x")
start = time.monotonic()
try:
    # the peer's half of the exchange, if it ever accepted
    got = s.recv(1)
    if role == "reset":
        if got != b"x":
            sys.exit("exs_reset: no exchange")
        # the peer waits in recv() by now, or soon: either way it must
        # see the reset
        time.sleep(0.5)
        run(cmd)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                     struct.pack("ii", 1, 0))
        s.close()
        sys.exit(0)
    if role in ("finished", "halfopen"):
        if got != b"x":
            sys.exit("exs_reset: no exchange")
        # no reset is this role's answer: any error fails it
        try:
            (finished if role == "finished" else halfopen)(s)
        except OSError as e:
            sys.exit(f"exs_reset: {role}: {e}")
        sys.exit(0)
    start = time.monotonic()
    while got == b"x":
        got = s.recv(1)
except ConnectionResetError:
    print(f"exs_reset: reset after {time.monotonic() - start:.1f} s")
    sys.exit(0)
except OSError as e:
    sys.exit(f"exs_reset: {e} after {time.monotonic() - start:.1f} s, "
             "not a reset")
sys.exit(f"exs_reset: recv gave {got!r} after "
         f"{time.monotonic() - start:.1f} s, not a reset")
