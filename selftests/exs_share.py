#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Connections that share a queue pair, for exs_pair.sh, run under exs-run
so that the sockets are AF_EXS.

The client opens one connection and makes an exchange on it, so that it
is up before the others (they can share only a queue pair that is up);
then N more, one after another, each with an exchange.  Before they move
anything it resets the first, whose queue pair the others ride, and the
second (SO_LINGER 0), and closes the third.  Then each of the rest sends
BYTES of its own pattern, half-closes and reads back the echo up to EOF,
all at once, in threads: a reset of the queue pair's first connection
is its own, as on TCP.  The server accepts N + 1 connections and echoes
each up to EOF; a reset is what the first two must see.

With pingpong, all N + 1 connections, once up, make ROUNDS exchanges
of small messages at once, each echoed and checked: what the queue
pair's batches carry (batch.c).

With stall, two connections, the second a rider with TCP_USER_TIMEOUT,
whose next request goes in a batch that the link never delivers: its
answer must fail with ETIMEDOUT (listen PORT 1 serves it).

With park, the first connection stays open while the N others come one
after another, each moving BYTES as above and closing; the client waits
until its end parked (exsconfig's Parked) before the next connect, which
then takes the parked rider.  Before the last it waits GONE seconds
more, for the server's end of the rider to be let go.  With NOPORT,
before the second of them it connects to NOPORT, where nothing listens:
that connect takes the parked rider, whose OPEN is refused, is refused
as TCP's, and the rider must park again for the next.

With taken (the server host lets its riders go as they end, this one
parks its own), connection 1 ends and parks here only; connection 2,
with a ring of its own size (it takes no parked rider), JOINs and gets
the channel the server host let go; connection 3 takes connection 1's
parked rider, whose OPEN reaches connection 2's stream there: it must be
refused, 3 start afresh, and 2 go on untouched.

With linkwait, a first connect that the link never answers (exs_pair.sh
drops what this host sends to RoCEv2's port) waits out a long
connect_timeout_ms, non-blocking; a second one, made with a short one,
waits for the first's link coming up and must go to TCP at its own
deadline, while the first still waits (listen PORT 0 serves it).

With devgone, connection 0 builds the link and connection 1 rides it;
0 then ends in order and parks (the link's first stream, parked, with a
live one on it), FLAG is created, and 1 sends and reads until it fails,
as the shell deletes this host's RDMA device: with ENETDOWN, as a stream
on a link whose first stream is open would (listen PORT 1 serves it).

With hold, all N + 1 connections stay open while the shell command
CMD looks at them from outside, twice: once they are up (CMD 1), and
after each moved BYTES each way, echoed and checked (CMD 2).  With
burst, the same, but the N + 1 connects all start at once.

  exs_share.py listen PORT N [park]
  exs_share.py connect ADDR PORT N BYTES
  exs_share.py pingpong ADDR PORT N ROUNDS
  exs_share.py stall ADDR PORT FLAG
  exs_share.py park ADDR PORT N BYTES [GONE [NOPORT]]
  exs_share.py taken ADDR PORT BYTES
  exs_share.py devgone ADDR PORT FLAG
  exs_share.py hold ADDR PORT N BYTES CMD
  exs_share.py burst ADDR PORT N BYTES CMD

Exit 0 when every byte came back as sent; 1, saying why, otherwise.
"""
import errno
import os
import select
import socket
import struct
import subprocess
import sys
import threading
import time

TIMEOUT = 120
USAGE = next(p for p in __doc__.split("\n\n")
             if p.lstrip().startswith("exs_share.py"))
failures = []
# the connections the client resets; any other must not be
reset_ok = {0, 1}


def pattern(seed, n):
    """n bytes that differ from one connection to the next"""
    block = bytes((seed * 31 + i) & 0xff for i in range(256))
    return (block * (n // 256 + 1))[:n]


def echo(s, idx):
    try:
        while True:
            data = s.recv(65536)
            if not data:
                break
            s.sendall(data)
        s.shutdown(socket.SHUT_WR)
    except ConnectionResetError:
        if idx not in reset_ok:
            failures.append(f"connection {idx} reset")
    finally:
        s.close()


def serve(port, n):
    lsn = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsn.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsn.bind(("0.0.0.0", port))
    lsn.listen(n + 1)
    lsn.settimeout(TIMEOUT)
    threads = []
    for idx in range(n + 1):
        s, _ = lsn.accept()
        s.settimeout(TIMEOUT)
        # the client's exchange tells which connection this is
        seq = s.recv(1)
        if not seq:
            sys.exit(f"exs_share: connection {idx} closed at once")
        s.sendall(seq)
        t = threading.Thread(target=echo, args=(s, seq[0]))
        t.start()
        threads.append(t)
    lsn.close()
    for t in threads:
        t.join()


# SOL_EXS and EXS_RING_SIZE (include/uapi/linux/af_exs.h)
SOL_EXS = 300
EXS_RING_SIZE = 3


def opened(addr, port, idx, nodelay=False, ring=0):
    """Connection idx, up: its exchange tells the server which it is."""
    if ring:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(SOL_EXS, EXS_RING_SIZE, ring)
        s.settimeout(TIMEOUT)
        s.connect((addr, port))
    else:
        s = socket.create_connection((addr, port), timeout=TIMEOUT)
    if nodelay:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.sendall(bytes([idx]))
    if s.recv(1) != bytes([idx]):
        sys.exit(f"exs_share: no exchange on connection {idx}")
    return s


def transfer(s, idx, nbytes):
    want = pattern(idx, nbytes)
    got = bytearray()

    def reader():
        while True:
            data = s.recv(65536)
            if not data:
                return
            got.extend(data)

    try:
        r = threading.Thread(target=reader)
        r.start()
        s.sendall(want)
        s.shutdown(socket.SHUT_WR)
        r.join()
    except OSError as e:
        failures.append(f"connection {idx}: {e}")
        return
    finally:
        s.close()
    if bytes(got) != want:
        failures.append(f"connection {idx}: {len(got)} of {nbytes} bytes "
                        "came back, or not as sent")


def client(addr, port, n, nbytes):
    socks = []
    for idx in range(n + 1):
        socks.append(opened(addr, port, idx))
    # resets on the shared queue pair, its first connection's among
    # them, and an orderly end
    for s in socks[:2]:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                     struct.pack("ii", 1, 0))
        s.close()
    socks[2].shutdown(socket.SHUT_WR)
    if socks[2].recv(1):
        failures.append("connection 2: bytes after the exchange")
    socks[2].close()
    threads = [threading.Thread(target=transfer, args=(s, idx, nbytes))
               for idx, s in enumerate(socks) if idx > 2]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def pingpong_one(s, idx, rounds):
    """rounds small messages, each echoed and checked, then the end"""
    try:
        for r in range(rounds):
            want = pattern(idx * rounds + r, 1 + (idx * 7 + r * 13) % 200)
            s.sendall(want)
            got = bytearray()
            while len(got) < len(want):
                data = s.recv(len(want) - len(got))
                if not data:
                    break
                got.extend(data)
            if bytes(got) != want:
                failures.append(f"connection {idx}: round {r} came back "
                                f"as {len(got)} bytes, or not as sent")
                return
        s.shutdown(socket.SHUT_WR)
        if s.recv(1):
            failures.append(f"connection {idx}: bytes after the last round")
    except OSError as e:
        failures.append(f"connection {idx}: {e}")
    finally:
        s.close()


def pingpong(addr, port, n, rounds):
    socks = []
    for idx in range(n + 1):
        socks.append(opened(addr, port, idx, nodelay=True))
    threads = [threading.Thread(target=pingpong_one, args=(s, idx, rounds))
               for idx, s in enumerate(socks)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def stall(addr, port, flag):
    """A rider's request in a batch whose ack never comes (exs_pair.sh
    drops what this host sends once FLAG.ready exists, then creates
    FLAG): with TCP_USER_TIMEOUT, the recv that awaits the answer fails
    with ETIMEDOUT, as TCP's would, though the queue pair's first
    connection is idle and nothing else watches.  The deadline is that
    socket's own: the first connection, which set none, is not ended
    with it (its own stall bound would end or resume it later)."""
    socks = []
    for idx in range(2):
        socks.append(opened(addr, port, idx, nodelay=True))
    rider = socks[1]
    rider.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, 2000)
    open(flag + ".ready", "w").close()
    deadline = time.monotonic() + TIMEOUT
    while not os.path.exists(flag):
        if time.monotonic() > deadline:
            sys.exit("exs_share: the link was never cut")
        time.sleep(0.05)
    try:
        rider.sendall(pattern(1, 16))
        rider.recv(16)
        failures.append("the request was answered over a cut link")
    except OSError as e:
        # the socket's own timeout is a TimeoutError without an errno
        if e.errno != errno.ETIMEDOUT:
            failures.append(f"{e}, not ETIMEDOUT")
    # at once: no poll for the socket's timeout first, as recv() does
    socks[0].setblocking(False)
    try:
        socks[0].recv(16)
        failures.append("the first connection ended with the rider's deadline")
    except BlockingIOError:
        pass
    except OSError as e:
        failures.append(f"the first connection ended with the rider's deadline: {e}")
    for s in socks:
        s.close()


def parked():
    """how many connections this host parked so far"""
    out = subprocess.run(["exsconfig", "stats"], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "Parked":
            return int(f[1])
    sys.exit("exs_share: exsconfig stats shows no Parked")


def await_parked(before, what):
    deadline = time.monotonic() + 30
    while parked() == before:
        if time.monotonic() > deadline:
            sys.exit(f"exs_share: {what} never parked")
        time.sleep(0.05)


def refused_open(addr, port):
    """A connect to a port nobody listens on takes the parked rider: its
    OPEN is refused, the connect is refused as TCP's, and the rider
    parks again."""
    before = parked()
    try:
        socket.create_connection((addr, port), timeout=TIMEOUT).close()
        failures.append(f"a connect to port {port} was not refused")
    except ConnectionRefusedError:
        pass
    await_parked(before, "the rider whose OPEN was refused")


def park(addr, port, n, nbytes, gone, noport):
    first = opened(addr, port, 0)
    for idx in range(1, n + 1):
        if idx == n:
            time.sleep(gone)
        if idx == 2 and noport:
            refused_open(addr, noport)
        before = parked()
        s = opened(addr, port, idx)
        transfer(s, idx, nbytes)
        await_parked(before, f"connection {idx}")
    first.shutdown(socket.SHUT_WR)
    if first.recv(1):
        failures.append("connection 0: bytes after the exchange")
    first.close()


def taken(addr, port, nbytes):
    first = opened(addr, port, 0)
    before = parked()
    transfer(opened(addr, port, 1), 1, nbytes)
    await_parked(before, "connection 1")
    # the server host's end of it goes at once; give its teardown time
    # to free the channel, so that connection 2's JOIN takes it
    time.sleep(2)
    second = opened(addr, port, 2, ring=64 << 10)
    third = opened(addr, port, 3)
    transfer(third, 3, nbytes)
    transfer(second, 2, nbytes)
    first.shutdown(socket.SHUT_WR)
    if first.recv(1):
        failures.append("connection 0: bytes after the exchange")
    first.close()


def exchanged(s, idx, nbytes):
    """nbytes of idx's pattern each way, echoed and checked; s stays
    open"""
    want = pattern(idx, nbytes)
    got = bytearray()

    def reader():
        try:
            while len(got) < nbytes:
                data = s.recv(min(65536, nbytes - len(got)))
                if not data:
                    return
                got.extend(data)
        except OSError as e:
            failures.append(f"connection {idx}: {e}")

    r = threading.Thread(target=reader)
    r.start()
    try:
        s.sendall(want)
    except OSError as e:
        failures.append(f"connection {idx}: {e}")
    r.join()
    if bytes(got) != want:
        failures.append(f"connection {idx}: {len(got)} of {nbytes} bytes "
                        "came back, or not as sent")


def look(cmd, step):
    rc = subprocess.call(f"{cmd} {step}", shell=True)
    if rc:
        failures.append(f"'{cmd} {step}' exited with {rc}")


def opened_at_once(addr, port, n):
    """N + 1 connections whose connects all start together"""
    socks = [None] * (n + 1)
    go = threading.Barrier(n + 1)

    def one(idx):
        go.wait()
        socks[idx] = opened(addr, port, idx)

    threads = [threading.Thread(target=one, args=(idx,))
               for idx in range(n + 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if None in socks:
        sys.exit(f"exs_share: {socks.count(None)} connections failed")
    return socks


def hold(addr, port, n, nbytes, cmd, at_once=False):
    socks = (opened_at_once(addr, port, n) if at_once else
             [opened(addr, port, idx) for idx in range(n + 1)])
    look(cmd, 1)
    threads = [threading.Thread(target=exchanged, args=(s, idx, nbytes))
               for idx, s in enumerate(socks)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    look(cmd, 2)
    for idx, s in enumerate(socks):
        s.shutdown(socket.SHUT_WR)
        if s.recv(1):
            failures.append(f"connection {idx}: bytes after the exchange")
        s.close()


def devgone(addr, port, flag):
    """A stream on a link whose first stream is parked ends with the
    device, with ENETDOWN."""
    first = opened(addr, port, 0)
    second = opened(addr, port, 1)
    before = parked()
    first.shutdown(socket.SHUT_WR)
    if first.recv(1):
        failures.append("connection 0: bytes after the exchange")
    first.close()
    await_parked(before, "connection 0")
    open(flag, "w").close()

    # the error goes to the first call that meets it, the send's or the
    # reader's; the other gets EPIPE or EOF after it, as on TCP
    errs = []

    def drain():
        try:
            while second.recv(65536):
                pass
        except OSError as e:
            errs.append(e)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    block = bytes(65536)
    try:
        while True:
            second.sendall(block)
    except OSError as e:
        errs.append(e)
    reader.join(TIMEOUT)
    print("exs_share: connection 1: " + "; ".join(str(e) for e in errs))
    if not any(e.errno == errno.ENETDOWN for e in errs):
        failures.append("connection 1 did not end with ENETDOWN")


def linkwait(addr, port):
    """The second connect's wait for the first's link ends at its own
    connect()'s deadline, not the link's."""
    first = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    first.setblocking(False)
    err = first.connect_ex((addr, port))
    if err != errno.EINPROGRESS:
        sys.exit(f"exs_share: the first connect: {os.strerror(err)}")
    with open("/proc/sys/net/exs/connect_timeout_ms", "w") as f:
        f.write("1500")
    try:
        second = socket.create_connection((addr, port), timeout=30)
    except OSError as e:
        sys.exit(f"exs_share: the second connect: {e}")
    # TCP's: merged (an IPPROTO_EXS socket says AF_INET too)
    if (second.getsockopt(socket.SOL_SOCKET, socket.SO_DOMAIN),
            second.getsockopt(socket.SOL_SOCKET, socket.SO_PROTOCOL)) != \
            (socket.AF_INET, socket.IPPROTO_TCP):
        failures.append("the second connect is not on TCP")
    second.sendall(bytes([0]))
    if second.recv(1) != bytes([0]):
        failures.append("no exchange on the second connection")
    _, w, _ = select.select([], [first], [], 0)
    if w:
        failures.append("the first connect ended before the second")
    second.close()
    first.close()


def main():
    args = sys.argv[1:]
    if len(args) in (3, 4) and args[0] == "listen":
        if args[3:] == ["park"]:
            reset_ok.clear()
        elif args[3:]:
            sys.exit(USAGE)
        serve(int(args[1]), int(args[2]))
    elif len(args) == 5 and args[0] == "connect":
        client(args[1], int(args[2]), int(args[3]), int(args[4]))
    elif len(args) == 4 and args[0] == "taken":
        taken(args[1], int(args[2]), int(args[3]))
    elif len(args) == 4 and args[0] == "devgone":
        devgone(args[1], int(args[2]), args[3])
    elif len(args) == 3 and args[0] == "linkwait":
        linkwait(args[1], int(args[2]))
    elif len(args) == 4 and args[0] == "stall":
        stall(args[1], int(args[2]), args[3])
    elif len(args) == 5 and args[0] == "pingpong":
        pingpong(args[1], int(args[2]), int(args[3]), int(args[4]))
    elif len(args) == 6 and args[0] in ("hold", "burst"):
        hold(args[1], int(args[2]), int(args[3]), int(args[4]), args[5],
             args[0] == "burst")
    elif len(args) in (5, 6, 7) and args[0] == "park":
        park(args[1], int(args[2]), int(args[3]), int(args[4]),
             float(args[5]) if len(args) >= 6 else 0,
             int(args[6]) if len(args) == 7 else 0)
    else:
        sys.exit(USAGE)
    if failures:
        sys.exit("exs_share: " + "; ".join(failures))


if __name__ == "__main__":
    main()
