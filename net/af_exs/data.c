// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA data path of an established AF_EXS socket: sendmsg copies into
 * the send buffer and lets tx.c post it, recvmsg copies out of the ring
 * and returns credits, and poll, shutdown, ioctl and getname answer as TCP
 * would.  System calls hold the socket lock; cursors shared with the
 * completion handlers are read and moved under conn->lock.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <asm/ioctls.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <linux/sched/stat.h>
#include <linux/uio.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "protocol.h"
#include "conn.h"
#include "mib.h"
#include "ring.h"

typedef bool (*exs_wait_fn)(struct exs_sock *exs, u32 arg);

/* Hybrid polling, as the block layer's: a wait that took long before
 * first sleeps for half of what such waits took (woken early if its data
 * comes), then spins.  A spinning guest CPU holds the host core that the
 * emulated link and rxe's own work need; a device that answers in
 * microseconds gets a spin only.
 */
#define EXS_POLL_SLEEP_MIN_US	20

static void exs_busy_sleep(struct exs_sock *exs, exs_wait_fn done, u32 arg,
			   u64 ns)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *nsk = exs->native->sk;
	ktime_t t = ns_to_ktime(ns);

	add_wait_queue(sk_sleep(nsk), &wait);
	set_current_state(TASK_INTERRUPTIBLE);
	if (!done(exs, arg))
		schedule_hrtimeout(&t, HRTIMER_MODE_REL);
	__set_current_state(TASK_RUNNING);
	remove_wait_queue(sk_sleep(nsk), &wait);
}

/* EXS_BUSY_POLL: spin (socket lock dropped, so the other direction's
 * calls go on) on the cursors the completion handlers move, for up to
 * busy_poll_us, before paying for a sleep and a wakeup.  rxe and real
 * NICs alike complete in softirq, which a spinning task does not hold off.
 */
static bool exs_busy_wait(struct exs_sock *exs, exs_wait_fn done, u32 arg)
{
	u32 us = READ_ONCE(exs->busy_poll_us);
	u32 half = READ_ONCE(exs->poll_mean_us) / 2;
	bool hit = false;
	u64 start, end;

	if (!us)
		return false;
	start = local_clock();
	end = start + (u64)us * NSEC_PER_USEC;
	release_sock(&exs->sk);
	if (half >= EXS_POLL_SLEEP_MIN_US)
		exs_busy_sleep(exs, done, arg,
			       (u64)min(half, us) * NSEC_PER_USEC);
	do {
		if (done(exs, arg)) {
			hit = true;
			break;
		}
		/* run completion work pending on this CPU (the CQ's
		 * irq_poll, rxe's tasklets) here and now; if another task is
		 * runnable (ksoftirqd, rxe's or the CQ's worker), let it run
		 * now rather than at the end of our slice: it may be the one
		 * that completes what we wait for
		 */
		local_bh_disable();
		local_bh_enable();
		if (!single_task_running())
			schedule();
		else
			cpu_relax();
	} while (!signal_pending(current) && local_clock() < end);
	lock_sock(&exs->sk);
	if (hit) {
		u32 took = div_u64(local_clock() - start, NSEC_PER_USEC);
		u32 mean = exs->poll_mean_us;

		/* under the socket lock, the one writer */
		WRITE_ONCE(exs->poll_mean_us,
			   mean ? mean - mean / 4 + took / 4 : took);
		EXS_INC_STATS(sock_net(&exs->sk), EXS_MIB_BUSYPOLLHIT);
	}
	return hit;
}

/* Sleep on the native socket's wait queue (the one poll uses) until
 * @done, a signal or the timeout; the socket lock is dropped while asleep.
 * @done is checked once the waiter is queued, so no wakeup is lost.
 * -EAGAIN when there is no time to wait, -EINTR/-ERESTARTSYS on a signal.
 */
static int exs_wait(struct exs_sock *exs, long *timeo, exs_wait_fn done,
		    u32 arg)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *nsk = exs->native->sk;

	if (!*timeo)
		return -EAGAIN;
	if (signal_pending(current))
		return sock_intr_errno(*timeo);
	if (exs_busy_wait(exs, done, arg))
		return 0;
	add_wait_queue(sk_sleep(nsk), &wait);
	while (!done(exs, arg) && *timeo && !signal_pending(current)) {
		release_sock(&exs->sk);
		*timeo = wait_woken(&wait, TASK_INTERRUPTIBLE, *timeo);
		lock_sock(&exs->sk);
	}
	remove_wait_queue(sk_sleep(nsk), &wait);
	return 0;
}

static bool exs_tx_ready(struct exs_sock *exs, u32 unused)
{
	struct exs_conn *conn = exs->conn;
	bool ready;

	spin_lock_bh(&conn->lock);
	ready = conn->state != EXS_CONN_ESTABLISHED ||
		exs_conn_tx_room(conn) > 0;
	spin_unlock_bh(&conn->lock);
	return ready;
}

/* @prod: the producer cursor the reader last saw */
static bool exs_rx_ready(struct exs_sock *exs, u32 prod)
{
	struct exs_conn *conn = exs->conn;

	return READ_ONCE(conn->rprod) != prod || READ_ONCE(conn->fin_rcvd) ||
	       READ_ONCE(conn->state) == EXS_CONN_CLOSED ||
	       (exs->sk.sk_shutdown & RCV_SHUTDOWN);
}

/* TCP_NODELAY and TCP_CORK live on the native socket, where setsockopt
 * put them.
 */
static void exs_tx_flags(struct exs_sock *exs, struct exs_conn *conn,
			 bool more)
{
	u8 nonagle = tcp_sk(exs->native->sk)->nonagle;

	conn->nodelay = nonagle & TCP_NAGLE_OFF;
	conn->hold = more || (nonagle & TCP_NAGLE_CORK);
}

void exs_rdma_push(struct exs_sock *exs)
{
	struct exs_conn *conn = exs->conn;

	spin_lock_bh(&conn->lock);
	exs_tx_flags(exs, conn, false);
	exs_conn_tx_push(conn);
	spin_unlock_bh(&conn->lock);
}

/* Copy @len bytes between the ring at @base and the user's iterator,
 * starting at @cursor, in two pieces when they wrap.
 */
static int exs_ring_copy(void *base, u32 size, u32 cursor, u32 len,
			 struct iov_iter *iter, bool into_ring)
{
	u32 done = 0;

	while (done < len) {
		u32 n = exs_ring_contig(size, cursor + done, len - done);
		void *p = base + exs_ring_off(size, cursor + done);

		if ((into_ring ? copy_from_iter(p, n, iter) :
				 copy_to_iter(p, n, iter)) != n)
			return -EFAULT;
		done += n;
	}
	return 0;
}

int exs_rdma_sendmsg(struct exs_sock *exs, struct msghdr *msg, size_t len)
{
	struct exs_conn *conn = exs->conn;
	struct sock *sk = &exs->sk;
	int flags = msg->msg_flags;
	struct ubuf_info *uarg;
	bool stalled = false;
	bool urg = flags & MSG_OOB;
	size_t copied = 0;
	long timeo;
	int err = 0;

	lock_sock(sk);
	uarg = exs_zc_begin(sk, msg, len);
	if (IS_ERR(uarg)) {
		release_sock(sk);
		return PTR_ERR(uarg);
	}
	timeo = sock_sndtimeo(sk, flags & MSG_DONTWAIT);
	while (msg_data_left(msg)) {
		u32 free, cursor, n;

		spin_lock_bh(&conn->lock);
		if (conn->state != EXS_CONN_ESTABLISHED || conn->shut_wr) {
			err = sock_error(sk) ?: -EPIPE;
			spin_unlock_bh(&conn->lock);
			break;
		}
		free = exs_conn_tx_room(conn);
		cursor = conn->tcopied;
		if (!free) {
			/* what was copied may leave while we wait, its last
			 * byte urgent under MSG_OOB, as tcp_push() marks it
			 */
			if (urg && copied)
				exs_urg_mark(conn);
			exs_tx_flags(exs, conn, false);
			exs_conn_tx_push(conn);
			/* one stall per call, however often it wakes */
			if (conn->peer_ready && !stalled) {
				EXS_INC_STATS(sock_net(sk),
					      EXS_MIB_CREDITSTALLS);
				exs_watch_stalled(conn);
			}
			stalled = true;
		}
		spin_unlock_bh(&conn->lock);

		if (!free) {
			err = exs_wait(exs, &timeo, exs_tx_ready, 0);
			if (err)
				break;
			continue;
		}

		n = min_t(size_t, free, msg_data_left(msg));
		err = exs_ring_copy(conn->tbuf, conn->tsize, cursor, n,
				    &msg->msg_iter, true);
		if (err)
			break;

		spin_lock_bh(&conn->lock);
		conn->tcopied += n;
		conn->tx_bytes += n;
		/* MSG_OOB: the call's last byte is urgent (oob.c) */
		if (urg && !msg_data_left(msg))
			exs_urg_mark(conn);
		exs_tx_flags(exs, conn,
			     msg_data_left(msg) || (flags & MSG_MORE));
		exs_conn_tx_push(conn);
		spin_unlock_bh(&conn->lock);
		copied += n;
	}
	/* ...or, cut short, the last it sent, as TCP marks it */
	if (urg && copied && err) {
		spin_lock_bh(&conn->lock);
		exs_urg_mark(conn);
		exs_conn_tx_push(conn);
		spin_unlock_bh(&conn->lock);
	}
	exs_zc_end(exs, uarg, copied);
	release_sock(sk);

	if (copied)
		return copied;
	if (err == -EPIPE && !(flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current, 0);
	return err;
}

/* @n bytes at the consumer cursor are read (or stepped over): credits
 * back when due.  Called under conn->lock.
 */
static void exs_rx_consume(struct exs_conn *conn, u32 n)
{
	conn->rcons += n;
	conn->rx_bytes += n;
	exs_urg_passed(&conn->urg, conn->rcons);
	exs_conn_credit(conn);
}

int exs_rdma_recvmsg(struct exs_sock *exs, struct msghdr *msg, size_t len,
		     int flags)
{
	struct exs_conn *conn = exs->conn;
	struct sock *sk = &exs->sk;
	bool peek = flags & MSG_PEEK;
	size_t copied = 0;
	int target, err = 0;
	u32 peek_at;
	long timeo;

	/* the error queue first, as tcp_recvmsg() */
	if (flags & MSG_ERRQUEUE)
		return exs_recv_errqueue(exs, msg, len);
	if (flags & MSG_OOB)
		return exs_urg_recv(exs, msg, len, flags);

	lock_sock(sk);
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	target = sock_rcvlowat(sk, flags & MSG_WAITALL, len);
	peek_at = READ_ONCE(conn->rcons);
	while (copied < len) {
		u32 prod, cons, avail, n;
		bool fin, closed, step;

		spin_lock_bh(&conn->lock);
		prod = conn->rprod;
		/* urgent bytes a newer one displaced: stepped over (oob.c) */
		if (conn->urg.skip && !peek) {
			exs_rx_consume(conn, conn->urg.skip);
			conn->urg.skip = 0;
		}
		/* as TCP's "race in MSG_PEEK": another reader took bytes
		 * while this one slept
		 */
		n = exs_urg_cons(&conn->urg, conn->rcons);
		if ((s32)(n - peek_at) > 0)
			peek_at = n;
		cons = peek ? peek_at : conn->rcons;
		fin = conn->fin_rcvd;
		closed = conn->state == EXS_CONN_CLOSED;
		/* as TCP, a read that has bytes stops at the urgent mark,
		 * as one does with a signal pending; one at it steps over
		 * the byte
		 */
		if (exs_urg_stops(&conn->urg, cons) &&
		    (copied || signal_pending(current))) {
			spin_unlock_bh(&conn->lock);
			if (!copied)
				err = timeo ? sock_intr_errno(timeo) : -EAGAIN;
			break;
		}
		avail = exs_urg_clip(&conn->urg, sock_flag(sk, SOCK_URGINLINE),
				     cons, exs_ring_used(prod, cons), &step);
		if (step && !peek)
			exs_rx_consume(conn, 1);
		spin_unlock_bh(&conn->lock);
		if (step) {
			peek_at++;
			continue;
		}

		if (avail) {
			n = min_t(size_t, avail, len - copied);
			err = exs_ring_copy(conn->rbuf, conn->rsize, cons, n,
					    &msg->msg_iter, false);
			if (err)
				break;
			if (!peek) {
				spin_lock_bh(&conn->lock);
				exs_rx_consume(conn, n);
				spin_unlock_bh(&conn->lock);
			}
			peek_at += n;
			copied += n;
			if (copied >= target)
				break;
			continue;
		}
		if (copied >= target || fin || (sk->sk_shutdown & RCV_SHUTDOWN))
			break;
		if (closed) {
			err = sock_error(sk);
			break;
		}
		err = exs_wait(exs, &timeo, exs_rx_ready, prod);
		if (err)
			break;
	}
	release_sock(sk);
	return copied ? copied : err;
}

__poll_t exs_rdma_poll(struct exs_sock *exs)
{
	struct exs_conn *conn = exs->conn;
	u8 shutdown = READ_ONCE(exs->sk.sk_shutdown);
	__poll_t mask = 0;
	u32 free;

	spin_lock_bh(&conn->lock);
	/* as tcp_poll: readable once SO_RCVLOWAT bytes are there, one more
	 * when the next is an urgent byte a read steps over; EPOLLPRI while
	 * that byte waits to be read out of band (oob.c)
	 */
	if (exs_urg_readable(&conn->urg, conn->rcons, conn->rprod,
			     sock_flag(&exs->sk, SOCK_URGINLINE),
			     sock_rcvlowat(&exs->sk, 0, INT_MAX)))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (conn->urg.data & EXS_URG_VALID)
		mask |= EPOLLPRI;
	if (conn->fin_rcvd || (shutdown & RCV_SHUTDOWN))
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	if (conn->state == EXS_CONN_CLOSED) {
		/* Writable either way, as on TCP.  After the peer's orderly
		 * close (its FIN came first) this is TCP's CLOSE_WAIT: no
		 * hangup until we shut down too; otherwise a reset.
		 */
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP | EPOLLOUT |
			EPOLLWRNORM;
		if (!conn->fin_rcvd || conn->err)
			mask |= EPOLLHUP;
	}
	/* as tcp_poll: an error nobody took yet, or a notification
	 * (zerocopy.c)
	 */
	if (READ_ONCE(exs->sk.sk_err) ||
	    !skb_queue_empty_lockless(&exs->sk.sk_error_queue))
		mask |= EPOLLERR;
	free = conn->peer_ready ? exs_conn_tx_free(conn) : 0;
	if (conn->shut_wr || (conn->state == EXS_CONN_ESTABLISHED &&
			      free >= conn->tsize / 8))
		mask |= EPOLLOUT | EPOLLWRNORM;
	else if (conn->state == EXS_CONN_ESTABLISHED)
		conn->tx_wanted = true;	/* wake us when room comes */
	if ((conn->fin_rcvd && conn->shut_wr) || shutdown == SHUTDOWN_MASK)
		mask |= EPOLLHUP;
	spin_unlock_bh(&conn->lock);
	return mask;
}

int exs_rdma_shutdown(struct exs_sock *exs, int how)
{
	struct exs_conn *conn = exs->conn;
	struct sock *sk = &exs->sk;

	how++;	/* SHUT_RD/WR/RDWR to RCV_SHUTDOWN/SEND_SHUTDOWN bits */
	if ((how & ~SHUTDOWN_MASK) || !how)
		return -EINVAL;

	lock_sock(sk);
	WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | how);
	spin_lock_bh(&conn->lock);
	if (how & SEND_SHUTDOWN)
		exs_conn_shut_wr(conn);
	exs_conn_wake(conn, EPOLLIN | EPOLLOUT | EPOLLRDHUP);
	spin_unlock_bh(&conn->lock);
	release_sock(sk);
	return 0;
}

int exs_rdma_ioctl(struct exs_sock *exs, unsigned int cmd, unsigned long arg)
{
	struct exs_conn *conn = exs->conn;
	int answ;

	spin_lock_bh(&conn->lock);
	switch (cmd) {
	case SIOCINQ:
		answ = exs_urg_inq(&conn->urg, conn->rcons, conn->rprod,
				   sock_flag(&exs->sk, SOCK_URGINLINE));
		break;
	case SIOCOUTQ:	/* TCP: not yet acked; here: not yet in the ring */
		answ = conn->tcopied - conn->tdone;
		break;
	case SIOCOUTQNSD:
		answ = conn->tcopied - conn->tposted;
		break;
	case SIOCATMARK:
		answ = exs_urg_at_mark(&conn->urg, conn->rcons);
		break;
	default:
		spin_unlock_bh(&conn->lock);
		return -ENOIOCTLCMD;
	}
	spin_unlock_bh(&conn->lock);
	return put_user(answ, (int __user *)arg);
}

/* The TCP-level addresses the connection was set up with, in the form a
 * TCP socket of the native family gives them (IPv4-mapped on AF_INET6).
 */
int exs_rdma_getname(struct exs_sock *exs, struct sockaddr *addr, int peer)
{
	struct exs_conn *conn = exs->conn;
	const struct in6_addr *a = peer ? &conn->self.daddr : &conn->self.saddr;
	__be16 port = peer ? conn->self.dport : conn->self.sport;
	struct sockaddr_in6 *sin6;

	if (exs->native->sk->sk_family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)addr;

		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_port = port;
		sin->sin_addr.s_addr = a->s6_addr32[3];
		return sizeof(*sin);
	}
	sin6 = (struct sockaddr_in6 *)addr;
	memset(sin6, 0, sizeof(*sin6));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = port;
	sin6->sin6_addr = *a;
	return sizeof(*sin6);
}

/* EXS_INFO's RDMA part; the socket is locked */
void exs_rdma_info(struct exs_sock *exs, struct exs_info *info)
{
	struct exs_conn *conn = exs->conn;

	spin_lock_bh(&conn->lock);
	info->exsi_rx_ring = conn->rsize;
	info->exsi_tx_ring = conn->tsize;
	info->exsi_rx_queued = conn->rprod - conn->rcons;
	info->exsi_tx_queued = conn->tcopied - conn->tdone;
	info->exsi_tx_credit = conn->peer_ready ? exs_conn_tx_free(conn) : 0;
	info->exsi_bytes_sent = conn->tx_bytes;
	info->exsi_bytes_received = conn->rx_bytes;
	info->exsi_inline = conn->inline_max;
	info->exsi_credit_fraction = conn->credit_fraction;
	spin_unlock_bh(&conn->lock);
}

/* TCP_INFO of an RDMA socket, whose native socket never connected: its
 * state and byte counts as TCP would give them.  Our FIN counts from
 * shutdown(SHUT_WR) on, as TCP's FIN_WAIT1 does, sent or still queued;
 * the connector's SYN counts one in bytes_acked (an acceptor's SYN-ACK
 * none, as tcp_minisocks.c starts it), a FIN one in bytes_acked and
 * bytes_received.  Both FINs out, ours unacked, is LAST_ACK whichever
 * came first (TCP would say CLOSING if ours did).  The RTT is a request's
 * post to its ack (tx.c).  What has no meaning here (windows,
 * retransmissions) stays 0.  The socket is locked.
 */
void exs_rdma_tcp_info(struct exs_sock *exs, struct tcp_info *ti)
{
	struct exs_conn *conn = exs->conn;
	u8 state = TCP_ESTABLISHED;
	bool fin;

	memset(ti, 0, sizeof(*ti));
	spin_lock_bh(&conn->lock);
	fin = conn->fin_sent || conn->shut_wr;
	/* a peer that closed in order leaves us in CLOSE_WAIT, as TCP */
	if (conn->state == EXS_CONN_CLOSED &&
	    (conn->err || !conn->fin_rcvd))
		state = TCP_CLOSE;
	else if (fin && conn->fin_rcvd)
		state = conn->fin_acked ? TCP_CLOSE : TCP_LAST_ACK;
	else if (fin)
		state = conn->fin_acked ? TCP_FIN_WAIT2 : TCP_FIN_WAIT1;
	else if (conn->fin_rcvd)
		state = TCP_CLOSE_WAIT;
	ti->tcpi_state = state;
	ti->tcpi_bytes_sent = conn->tx_bytes -
			      (u32)(conn->tcopied - conn->tposted);
	ti->tcpi_bytes_acked = !conn->passive + conn->tx_bytes -
			       (u32)(conn->tcopied - conn->tdone) +
			       conn->fin_acked;
	ti->tcpi_bytes_received = conn->rx_bytes +
				  (u32)(conn->rprod - conn->rcons) +
				  conn->fin_rcvd;
	ti->tcpi_notsent_bytes = conn->tcopied - conn->tposted;
	ti->tcpi_rtt = conn->srtt_us;
	ti->tcpi_rttvar = conn->rttvar_us;
	ti->tcpi_min_rtt = conn->min_rtt_us;
	spin_unlock_bh(&conn->lock);
}

/* all sent, FIN included, and in the peer's ring */
static bool exs_tx_delivered(struct exs_sock *exs, u32 unused)
{
	struct exs_conn *conn = exs->conn;
	bool done;

	spin_lock_bh(&conn->lock);
	done = exs_conn_tx_finished(conn);
	spin_unlock_bh(&conn->lock);
	return done;
}

/* close(): the connection finishes sending in the background; with
 * SO_LINGER and a timeout, close() first waits (as tcp_close does) for
 * what it sent to be delivered, unless it resets for unread data.
 * Called with the socket locked.
 */
void exs_rdma_release(struct exs_sock *exs)
{
	struct exs_conn *conn = exs->conn;
	struct sock *sk = &exs->sk;
	long timeo = sk->sk_lingertime;

	if (sock_flag(sk, SOCK_LINGER) && timeo &&
	    !(current->flags & PF_EXITING) &&
	    READ_ONCE(conn->rprod) == READ_ONCE(conn->rcons)) {
		spin_lock_bh(&conn->lock);
		exs_conn_shut_wr(conn);
		spin_unlock_bh(&conn->lock);
		exs_wait(exs, &timeo, exs_tx_delivered, 0);
	}

	exs->conn = NULL;
	exs_conn_disown(conn, &exs->native,
			sock_flag(sk, SOCK_LINGER) && !sk->sk_lingertime);
}
