// SPDX-License-Identifier: GPL-2.0
/*
 * Urgent data over RDMA, as TCP has it (Linux's tcp_mark_urg(),
 * tcp_check_urg(), tcp_urg(), tcp_recv_urg() and tcp_recvmsg()):
 * send(MSG_OOB) makes the last byte it sent urgent; the receiver hears
 * of it at once (SIGURG to the socket's owner, EPOLLPRI once the byte is
 * there), recv(MSG_OOB) takes that one byte, an ordinary read stops at
 * it and steps over it unless SO_OOBINLINE, SIOCATMARK says whether the
 * next byte read is it, and a newer urgent byte replaces an older one.
 * The arithmetic is urg.h's (KUnit); this file applies it to a stream.
 *
 * The byte itself travels in the stream, as TCP's does; a URG message
 * (wire version 6) carries its cursor, TCP's urgent pointer, and goes
 * before the write that carries the byte, so the receiver knows of it
 * before reading there, as TCP's urgent pointer comes with (or ahead of)
 * the segment holding the byte.  Until the byte is in the peer's ring
 * nothing is gathered (TCP's urgent mode overrides Nagle and corking),
 * and a resume posts the URG again if the byte did not make it.  A queue
 * pair of an older version takes no URG: the byte goes in band, counted
 * (UrgentInBand).
 *
 * Everything here is the stream's and called under conn->lock (conn.h),
 * but exs_urg_recv(), which takes it.
 */
#include <linux/skbuff.h>
#include <net/sock.h>

#include "protocol.h"
#include "conn.h"
#include "mib.h"
#include "ring.h"

/* send(MSG_OOB) copied bytes and ends, or waits for room: the last byte
 * copied is urgent, as tcp_push() marks it at either.  Nothing is marked
 * once every copied byte is posted (TCP's write queue is empty then) or
 * our FIN is out (the peer takes no URG after it); a mark already made
 * there is not made again.
 */
void exs_urg_mark(struct exs_conn *conn)
{
	struct exs_urg *u = &conn->urg;

	lockdep_assert_held(&conn->lock);
	if (conn->fin_sent || conn->tposted == conn->tcopied ||
	    ((u->owed || u->push) && u->snd == conn->tcopied - 1))
		return;
	if (conn->link->version < EXS_WIRE_V_URG) {
		EXS_INC_STATS(conn->net, EXS_MIB_URGINBAND);
		return;
	}
	u->snd = conn->tcopied - 1;
	u->owed = true;
	u->push = true;
}

/* Post the URG owed: 0, or the send's error (-EAGAIN: no send slot, a
 * completion pushes again; otherwise the stream is going).
 */
int exs_urg_send(struct exs_conn *conn)
{
	int err;

	lockdep_assert_held(&conn->lock);
	err = exs_conn_send_ctrl(conn, EXS_MSG_URG, conn->urg.snd);
	if (err)
		return err;
	conn->urg.owed = false;
	EXS_INC_STATS(conn->net, EXS_MIB_URGSENT);
	return 0;
}

/* Our writes completed up to tdone: once past the urgent byte, gathering
 * may hold bytes back again.
 */
void exs_urg_acked(struct exs_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	if (conn->urg.push && !conn->urg.owed &&
	    (s32)(conn->tdone - conn->urg.snd) > 0)
		conn->urg.push = false;
}

/* A resume found the peer holding our bytes up to @cursor: an urgent byte
 * not among them may have lost its URG with the old queue pair, so it is
 * sent again (a peer that had it ignores a URG no newer than its own).
 */
void exs_urg_resumed(struct exs_conn *conn, u32 cursor)
{
	lockdep_assert_held(&conn->lock);
	if (conn->urg.push && (s32)(conn->urg.snd - cursor) >= 0)
		conn->urg.owed = true;
}

/* SO_OOBINLINE of the socket that has, or will have, the stream: one not
 * yet accept()ed has its listener's as its handshake ended, as a TCP
 * child does (accept.c), and its socket gets it.
 */
static bool exs_urg_inline(const struct exs_conn *conn)
{
	if (conn->owner)
		return sock_flag(&conn->owner->sk, SOCK_URGINLINE);
	return conn->urg.lsn_inline;
}

/* Bytes came into the ring: the peer's urgent byte among them is readable
 * out of band from now on.  On every arrival, so the ring is read only
 * when a byte is due.
 */
void exs_urg_rx_bytes(struct exs_conn *conn)
{
	const u8 *ring = conn->rbuf;
	struct exs_urg *u = &conn->urg;

	lockdep_assert_held(&conn->lock);
	if (!exs_urg_due(u, conn->rprod))
		return;
	exs_urg_arrives(u, conn->rprod,
			ring[exs_ring_off(conn->rsize, u->seq)]);
	exs_conn_wake(conn, EPOLLPRI);
}

/* URG from the peer, on a queue pair that speaks it and a stream that is
 * up and has had no FIN: 0 or -EPROTO.  The owner's SIGURG is sent here,
 * under conn->lock, as TCP sends it from its receive path.
 */
int exs_urg_rx(struct exs_conn *conn, u32 cursor)
{
	bool signal;
	int ret;

	lockdep_assert_held(&conn->lock);
	if (conn->link->version < EXS_WIRE_V_URG ||
	    !conn->ready_sent || conn->fin_rcvd)
		return -EPROTO;
	ret = exs_urg_announce(&conn->urg, cursor, conn->rcons, conn->rprod,
			       conn->rsize, exs_urg_inline(conn), &signal);
	if (ret <= 0)
		return ret;
	EXS_INC_STATS(conn->net, EXS_MIB_URGRCVD);
	/* its byte comes after: exs_urg_rx_bytes() finds it */
	if (signal && conn->owner)
		sk_send_sigurg(&conn->owner->sk);
	return 0;
}

/* recv(MSG_OOB), as tcp_recv_urg(): the urgent byte, never blocking. */
int exs_urg_recv(struct exs_sock *exs, struct msghdr *msg, size_t len,
		 int flags)
{
	struct exs_conn *conn = exs->conn;
	struct sock *sk = &exs->sk;
	bool got = false;
	u8 byte = 0;
	u16 state;
	int err;

	lock_sock(sk);
	spin_lock_bh(&conn->lock);
	state = conn->urg.data;
	if (sock_flag(sk, SOCK_URGINLINE) || !state || state == EXS_URG_READ) {
		err = -EINVAL;
	} else if (conn->state == EXS_CONN_CLOSED && !conn->fin_rcvd) {
		err = -ENOTCONN;
	} else if (state & EXS_URG_VALID) {
		byte = state & 0xff;
		if (!(flags & MSG_PEEK))
			conn->urg.data = EXS_URG_READ;
		got = true;
		err = 0;
	} else if (conn->state == EXS_CONN_CLOSED || conn->fin_rcvd ||
		   (sk->sk_shutdown & RCV_SHUTDOWN)) {
		err = 0;
	} else {
		err = -EAGAIN;
	}
	spin_unlock_bh(&conn->lock);
	if (got) {
		msg->msg_flags |= MSG_OOB;
		if (!len)
			msg->msg_flags |= MSG_TRUNC;
		else if (!(flags & MSG_TRUNC) && memcpy_to_msg(msg, &byte, 1))
			err = -EFAULT;
		else
			err = 1;
	}
	release_sock(sk);
	return err;
}
