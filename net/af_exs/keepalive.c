// SPDX-License-Identifier: GPL-2.0
/*
 * Is the peer still there?  An RDMA connection's native TCP socket is not
 * connected, so TCP's zero-window probes and keepalives never run for it;
 * one delayed work per connection does their job on the connection:
 *
 *  - persist: while the peer's ring is full (no credits), a probe goes out
 *    every EXS_PROBE_INTERVAL whether or not anybody waits in send(), so
 *    a non-blocking sender polling for POLLOUT learns of a dead peer as
 *    TCP's would;
 *  - keepalive: with SO_KEEPALIVE, a connection that heard nothing from
 *    its peer for TCP_KEEPIDLE (else net.ipv4.tcp_keepalive_time) probes,
 *    and again every TCP_KEEPINTVL while the silence lasts.
 *
 * A probe is a send the peer's device must acknowledge (exs_conn_probe()).
 * A live peer's acknowledgment, like every completion, counts as hearing
 * from it (conn->last_heard).  A dead peer's never comes, and neither its
 * device's retries nor their end can be relied on: rxe retries forever
 * (EXS_RETRY_COUNT), and it can wedge a send queue for good after its
 * link went down and up, while its receive side still takes the peer's
 * probes.  So whenever a request awaits its ack, probe or data, the watch
 * runs too.  A send queue that stood still for net.exs.stall_timeout_ms
 * (a minute) moves the connection to a new QP (resume.c), which a dead
 * peer never answers: the connection then ends with ETIMEDOUT, as TCP's
 * retransmission timer would end it; with TCP_USER_TIMEOUT, at once.
 */
#include <net/tcp.h>

#include "protocol.h"
#include "conn.h"
#include "netns.h"
#include "watch.h"

/* (Re)arm the watch to run in @delay jiffies; never once the teardown
 * began: it sets qp_closing under conn->lock, then stops the watch
 * (exs_watch_stop()).  A resume's qp_closing stops the watch only while
 * the QP is replaced.  Called under conn->lock.
 */
static void exs_watch_arm(struct exs_conn *conn, unsigned long delay)
{
	lockdep_assert_held(&conn->lock);
	if (conn->qp_closing)
		return;
	conn->watch_at = jiffies + delay;
	conn->watch_armed = true;
	mod_delayed_work(exs_wq, &conn->watch_work, delay);
}

/* How long a request may await its ack: TCP_USER_TIMEOUT, set on the
 * native socket, else net.exs.stall_timeout_ms.
 */
static unsigned long exs_watch_stall(const struct exs_sock *exs)
{
	u32 user_timeout = READ_ONCE(inet_csk(exs->native->sk)->icsk_user_timeout);

	return user_timeout ? msecs_to_jiffies(user_timeout) :
			      exs_stall_timeout(sock_net(&exs->sk));
}

/* Probe if due; jiffies until the next look, 0 when there is nothing to
 * watch.  Called under conn->lock, which keeps the owner alive.
 */
static unsigned long exs_watch_check(struct exs_conn *conn)
{
	struct exs_watch_in in = { .persist = EXS_PROBE_INTERVAL };
	const struct tcp_sock *tp;
	struct exs_watch_plan plan;

	conn->persist = false;
	if (conn->state != EXS_CONN_ESTABLISHED || !conn->owner)
		return 0;
	conn->persist = conn->peer_ready && !exs_conn_tx_free(conn);
	tp = tcp_sk(conn->owner->native->sk);

	in.idle = jiffies - conn->last_heard;
	in.full = conn->persist;
	in.keepalive = conn->keepalive;
	in.waiting = exs_conn_awaits_ack(conn);
	in.unacked = jiffies - exs_conn_unacked_since(conn);
	in.keepidle = keepalive_time_when(tp);
	in.intvl = keepalive_intvl_when(tp);
	in.stall = exs_watch_stall(conn->owner);
	plan = exs_watch_plan(&in);
	/* TCP_USER_TIMEOUT bounds the error itself: no resume after it */
	if (plan.expire)
		exs_conn_stalled(conn,
				 !READ_ONCE(inet_csk(conn->owner->native->sk)->icsk_user_timeout));
	else if (plan.probe)
		exs_conn_probe(conn);
	return plan.next;
}

void exs_watch_work(struct work_struct *work)
{
	struct exs_conn *conn = container_of(to_delayed_work(work),
					     struct exs_conn, watch_work);
	unsigned long next;

	spin_lock_bh(&conn->lock);
	/* armed after its teardown stopped it: the teardown's order broke */
	if (WARN_ON_ONCE(conn->watch_over)) {
		spin_unlock_bh(&conn->lock);
		return;
	}
	conn->watch_armed = false;
	next = exs_watch_check(conn);
	if (next)
		exs_watch_arm(conn, next);
	spin_unlock_bh(&conn->lock);
}

/* The sender found the peer's ring full: persist probes start, unless they
 * run already.  Called under conn->lock.
 */
void exs_watch_stalled(struct exs_conn *conn)
{
	if (!conn->persist) {
		conn->persist = true;
		exs_watch_arm(conn, EXS_PROBE_INTERVAL);
	}
}

/* A request began to await its ack (exs_post_send()): the watch must look
 * no later than its stall bound.  Rarely more than a flag test: a busy
 * connection's watch stays armed, and finds each new request in time.
 * Called under conn->lock.
 */
void exs_watch_await(struct exs_conn *conn)
{
	unsigned long stall;

	/* a closed socket's connection has its own bound (timeout_work) */
	if (!conn->owner)
		return;
	stall = exs_watch_stall(conn->owner);
	if (!conn->watch_armed || time_after(conn->watch_at, jiffies + stall))
		exs_watch_arm(conn, stall);
}

/* The socket got its connection, or changed SO_KEEPALIVE (to
 * @keepalive) or TCP_KEEPIDLE/TCP_KEEPINTVL: look again now.
 */
void exs_watch_update(struct exs_sock *exs, bool keepalive)
{
	struct exs_conn *conn = exs->conn;

	spin_lock_bh(&conn->lock);
	conn->keepalive = keepalive;
	if (!conn->persist)
		exs_watch_arm(conn, 0);
	spin_unlock_bh(&conn->lock);
}

/* The teardown: no watch runs after this.  Its caller set qp_closing
 * under conn->lock, so nothing arms the watch from then on, whatever the
 * socket does meanwhile (a send, SO_KEEPALIVE): cancelling it once is
 * enough.  The other order, cancel and then mark, let a send or a
 * setsockopt in between arm it again (issue 41's second race), which
 * exs_watch_work()'s warning shows: exs_resume.sh holds the teardown of
 * a stream on another's QP here, once the watch is stopped, while its
 * socket sets SO_KEEPALIVE.  Process context, no lock held.
 */
void exs_watch_stop(struct exs_conn *conn)
{
	might_sleep();
	WARN_ON_ONCE(!READ_ONCE(conn->qp_closing));
	cancel_delayed_work_sync(&conn->watch_work);
	spin_lock_bh(&conn->lock);
	conn->watch_over = true;
	conn->watch_armed = false;
	spin_unlock_bh(&conn->lock);
	if (conn->carrier)
		exs_test_hold_teardown();
}

/* proto->keepalive: SO_KEEPALIVE and sock_set_keepalive() call it, under
 * the socket lock and before they set SOCK_KEEPOPEN.
 */
void exs_keepalive(struct sock *sk, int on)
{
	struct exs_sock *exs = exs_sk(sk);

	if (exs_on_rdma(exs))
		exs_watch_update(exs, on);
}
