// SPDX-License-Identifier: GPL-2.0
/*
 * How an RDMA connection ends: an abort, the socket's close (orphaning),
 * the teardown of what the device holds, and the one timer whose
 * deadlines end connections that waited too long.
 */
#define pr_fmt(fmt) "af_exs: " fmt

#include <net/sock.h>

#include "protocol.h"
#include "conn.h"
#include "mib.h"
#include "netns.h"
#include "trace.h"

/* Queue the teardown with a reference of its own: it may be queued again
 * while it runs, and it drops the closed socket's reference itself.
 * From here the QP is going: it never parks, a connector cannot take it
 * from the pool, and an OPEN on it is not accepted (reuse.c), though the
 * teardown may not run for a while.  Called under conn->lock.
 */
void exs_conn_queue_hw(struct exs_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	conn->park = EXS_PARK_GONE;
	refcount_inc(&conn->ref);
	if (!queue_work(exs_wq, &conn->hw_work))
		refcount_dec(&conn->ref);	/* already queued: never the last */
}

/* conn->err is the connection's record (EPOLLHUP for good); the socket
 * takes its copy once it is the connection's on RDMA: sk_err, which
 * SO_ERROR, send() and recv() consume, as on TCP.  A connect that failed
 * before that falls back and must not leave an error behind.  Called
 * under conn->lock, which exs_connect_settle() and accept's graft hold
 * while they make the socket the connection's.
 */
void exs_conn_report_err(struct exs_conn *conn)
{
	struct exs_sock *exs = conn->owner;

	if (conn->err && exs && READ_ONCE(exs->cstate) == EXS_CS_RDMA)
		WRITE_ONCE(exs->sk.sk_err, -conn->err);
}

/* The one place a connection closes with an error: the socket will see
 * @err (unless it has one already), and an established connection that
 * ends this way, however it was noticed, is counted and traced as an
 * abort.  Called under conn->lock.
 */
void exs_conn_close_err(struct exs_conn *conn, int err)
{
	if (conn->state == EXS_CONN_ESTABLISHED) {
		EXS_INC_STATS(conn->net, EXS_MIB_ABORTS);
		trace_exs_abort(&conn->self, err);
	}
	conn->state = EXS_CONN_CLOSED;
	if (!conn->err) {
		conn->err = err;
		exs_conn_report_err(conn);
	}
}

/* End the connection now with @err: the socket sees it at once, the
 * resources go in process context.  Called under conn->lock.
 */
void __exs_conn_abort(struct exs_conn *conn, int err, bool protocol_error)
{
	lockdep_assert_held(&conn->lock);
	if (conn->state != EXS_CONN_CLOSED) {
		/* once per connection: one violation may be reported twice
		 * (a failed receive and the queue pair's event)
		 */
		if (protocol_error)
			EXS_INC_STATS(conn->net, EXS_MIB_PROTOERR);
		if (conn->resume)
			EXS_INC_STATS(conn->net, EXS_MIB_RESUMEFAILS);
		/* a carrier's failed resume leaves its riders no QP */
		if (conn->resume && !conn->carrier)
			exs_share_link_failed(conn, err);

		exs_conn_close_err(conn, err);
		/* whoever waits for it to come up learns it never will */
		exs_link_wait_end(conn, conn->reason);
		if (!conn->announced && conn->on_connect)
			conn->on_connect(conn);
		exs_conn_wake(conn, EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP |
				    EPOLLRDHUP);
	} else if (conn->resume && conn->link_only &&
		   conn->park != EXS_PARK_GONE) {
		/* a QP that moved for its riders only could not: once, as
		 * the teardown is queued below
		 */
		EXS_INC_STATS(conn->net, EXS_MIB_RESUMEFAILS);
		exs_share_link_failed(conn, err);
	}
	/* a carrier's QP outlives its own stream while riders use it */
	if ((!conn->carrier && READ_ONCE(conn->link->err)) ||
	    !exs_share_busy(conn))
		exs_conn_queue_hw(conn);
}

/* The same, without conn->lock: process context or softirq. */
void exs_conn_abort(struct exs_conn *conn, int err, bool protocol_error)
{
	spin_lock_bh(&conn->lock);
	__exs_conn_abort(conn, err, protocol_error);
	spin_unlock_bh(&conn->lock);
}

/* The QP under @conn failed, not just its stream: every connection it
 * carries ends with @err too (share.c).  Called under conn->lock.
 */
void __exs_link_abort(struct exs_conn *conn, int err, bool protocol_error)
{
	exs_share_link_failed(conn, err);
	__exs_conn_abort(conn, err, protocol_error);
}

void exs_link_abort(struct exs_conn *conn, int err, bool protocol_error)
{
	spin_lock_bh(&conn->lock);
	__exs_link_abort(conn, err, protocol_error);
	spin_unlock_bh(&conn->lock);
}

/* How long a teardown waits for its ABORT's ack: time for a lost ABORT
 * to be sent twice more (IB's ack timeout is 4.096 us << t), within
 * bounds: the peer, if it is there at all, is owed no more.
 */
static unsigned long exs_abort_ack_wait(const struct exs_conn *conn)
{
	u8 t = READ_ONCE(conn->link->ack_timeout);
	u64 us = div_u64(4096ULL << min_t(u8, t, 24), 1000);

	return clamp_t(unsigned long, usecs_to_jiffies(3 * us), 2 * HZ,
		       8 * HZ);
}

/* The socket is closed.  Its reference moves to the teardown, which runs
 * once the remaining bytes and the FIN left (or the timeout hit); with
 * @reset (SO_LINGER 0), or with unread data, at once: the peer sees a
 * reset, as on TCP.  Called under conn->lock.
 */
static void __exs_conn_orphan(struct exs_conn *conn, bool reset)
{
	conn->owner = NULL;
	conn->orphan = true;
	conn->orphan_by = jiffies + exs_orphan_timeout();
	conn->on_connect = NULL;
	/* its socket gave it up: nobody waits for it to come up */
	exs_link_wait_end(conn, EXS_FALLBACK_NONE);
	if (conn->state == EXS_CONN_ESTABLISHED) {
		if (reset || conn->rprod != conn->rcons) {
			exs_conn_send_abort(conn);
			exs_conn_close_err(conn, -ECONNRESET);
		} else {
			exs_conn_shut_wr(conn);
		}
	}
	/* armed under the lock, so the teardown's cancel always sees it */
	if (conn->hw_released)
		exs_conn_queue_hw(conn);
	else if (exs_conn_tx_finished(conn))
		exs_conn_finished(conn);
	else
		exs_conn_arm_orphan(conn);
}

void exs_conn_orphan(struct exs_conn *conn, bool reset)
{
	spin_lock_bh(&conn->lock);
	__exs_conn_orphan(conn, reset);
	spin_unlock_bh(&conn->lock);
}

/* The owning socket is closing, and *@native goes with it: while the
 * cm_id lives, the connection keeps the native socket, and with it the
 * port, which rdma_cm holds too.  TCP would give a freed port out at
 * once, and a listener it went to could not listen for RDMA there.
 * hw_work releases it with the socket's reference; once the device let
 * go, there is nothing to keep it for.
 *
 * One critical section with the orphaning: a completion in between would
 * wake an owner whose native socket is gone.
 */
void exs_conn_disown(struct exs_conn *conn, struct socket **native,
		     bool reset)
{
	spin_lock_bh(&conn->lock);
	/* a reused connection's QP has one already, the first socket's */
	if (!conn->hw_released && !conn->native) {
		/* never merged, so it has no file (fallback.c lends one) */
		conn->native = *native;
		*native = NULL;
	}
	__exs_conn_orphan(conn, reset);
	spin_unlock_bh(&conn->lock);
}

/* Release everything the device holds for this connection, in process
 * context, while the socket may still be open: the rings stay (unread
 * bytes remain readable), the QP, MR, CQs and (with @destroy_id) the
 * cm_id go.  The QP is drained first, so no completion handler runs
 * after this on anything of ours.
 */
void exs_conn_hw_release(struct exs_conn *conn, bool destroy_id)
{
	struct exs_link *link = conn->link;
	struct rdma_cm_id *id = link->cm_id;
	struct ib_device *ibdev;
	bool abort_sent;

	spin_lock_bh(&conn->lock);
	conn->qp_closing = true;
	/* no stream on the link posts after this (exs_link_post()) */
	exs_link_qp_shut(link, false);	/* not to resume */
	abort_sent = conn->abort_sent;
	spin_unlock_bh(&conn->lock);
	exs_watch_stop(conn);				/* no probe after this */
	exs_link_watch_stop(link);			/* ...nor link stall */
	/* the disconnect would flush an ABORT the device has not sent, or
	 * a rider's last bytes
	 */
	if (abort_sent)
		wait_for_completion_timeout(&conn->abort_done,
					    exs_abort_ack_wait(conn));
	exs_share_settle(conn, exs_abort_ack_wait(conn));
	if (id)
		rdma_disconnect(id);
	if (link->qp)
		ib_drain_qp(link->qp);
	/* the riders' requests are flushed too: their rings go now */
	exs_share_drop_riders(conn);

	spin_lock_bh(&conn->lock);
	/* in order (exs_conn_ends_in_order()), else a reset */
	if (exs_conn_ends_in_order(conn))
		conn->state = EXS_CONN_CLOSED;
	else if (conn->state != EXS_CONN_CLOSED)
		exs_conn_close_err(conn, -ECONNRESET);
	exs_conn_wake(conn, EPOLLIN | EPOLLOUT | EPOLLHUP | EPOLLRDHUP |
			    (conn->err ? EPOLLERR : 0));
	spin_unlock_bh(&conn->lock);

	if (link->qp) {
		exs_dev_wait_port_up(link, id);
		rdma_destroy_qp(id);
	}
	/* closing since qp_closing was set: nobody posts on it (tx.c) */
	spin_lock_bh(&link->lock);
	exs_link_set_qp(link, NULL);
	spin_unlock_bh(&link->lock);
	if (id && destroy_id)
		rdma_destroy_id(id);
	WRITE_ONCE(link->cm_id, NULL);

	/* the stream's own, in the link's PD: its ring's registration and
	 * its rings' mappings; then the link's (link_qp.c)
	 */
	if (link->dev) {
		ibdev = link->dev->ibdev;
		if (conn->mr)
			ib_dereg_mr(conn->mr);
		if (sg_dma_address(&conn->rsg))
			ib_dma_unmap_sg(ibdev, &conn->rsg, 1,
					DMA_BIDIRECTIONAL);
		if (conn->tdma)
			ib_dma_unmap_single(ibdev, conn->tdma, conn->tsize,
					    DMA_TO_DEVICE);
	}
	conn->mr = NULL;
	exs_link_release(link);
}

void exs_conn_hw_work(struct work_struct *work)
{
	struct exs_conn *conn = container_of(work, struct exs_conn, hw_work);
	struct socket *native = NULL;
	bool put_orphan;

	/* Out of the pool for good: marked GONE when this was queued, it
	 * cannot park again (exs_conn_finished()) before the QP is flushed.
	 */
	exs_park_unlink(conn);
	/* no resume runs from here, nor starts */
	exs_resume_stop(conn);
	if (conn->carrier) {
		if (!conn->torn_down) {
			exs_test_hold_teardown();
			/* it posts nothing more, and its watch is not
			 * armed again (exs_watch_stop())
			 */
			spin_lock_bh(&conn->lock);
			conn->qp_closing = true;
			WRITE_ONCE(conn->torn_down, true);
			spin_unlock_bh(&conn->lock);
			cancel_delayed_work_sync(&conn->timeout_work);
			exs_watch_stop(conn);
		}
		exs_share_leave(conn);
	} else if (conn->link && !conn->torn_down &&
		   (conn->link->cm_id || conn->link->dev)) {
		/* after this no rdma_cm handler builds anything on the conn */
		if (conn->link->cm_id)
			rdma_lock_handler(conn->link->cm_id);
		WRITE_ONCE(conn->torn_down, true);
		if (conn->link->cm_id)
			rdma_unlock_handler(conn->link->cm_id);
		cancel_delayed_work_sync(&conn->timeout_work);
		if (cancel_work_sync(&conn->resolve_work))
			exs_conn_put(conn);
		exs_conn_hw_release(conn, true);
	}

	/* the closed socket's reference, dropped here and only once */
	spin_lock_bh(&conn->lock);
	conn->hw_released = true;
	put_orphan = conn->orphan && !conn->orphan_put;
	conn->orphan_put |= put_orphan;
	if (put_orphan)
		swap(native, conn->native);
	spin_unlock_bh(&conn->lock);
	/* the cm_id is gone: TCP may give its port out again */
	if (native)
		sock_release(native);
	if (put_orphan) {
		cancel_delayed_work_sync(&conn->timeout_work);
		exs_conn_put(conn);
	}
	exs_conn_put(conn);	/* exs_conn_queue_hw()'s */
}

/* Arm timeout_work for @delay from now; a run that finds an earlier
 * deadline than the last one armed (it waited for the lock while it was
 * armed again: a parked connection reused) does nothing.  Called under
 * conn->lock, or before anyone else can see the connection.
 */
void exs_conn_arm_timeout(struct exs_conn *conn, unsigned long delay)
{
	conn->timeout_at = jiffies + delay;
	mod_delayed_work(exs_wq, &conn->timeout_work, delay);
}

/* A closed socket's bound, from its close (exs_orphan_timeout()): armed at
 * the close, and again, for what is left of it, after a resume, whose
 * own deadline (no later: exs_conn_arm_resume()) took the timer
 * meanwhile.  Called under conn->lock.
 */
static unsigned long exs_conn_orphan_left(const struct exs_conn *conn)
{
	unsigned long now = jiffies;

	return time_after(conn->orphan_by, now) ? conn->orphan_by - now : 0;
}

void exs_conn_arm_orphan(struct exs_conn *conn)
{
	exs_conn_arm_timeout(conn, exs_conn_orphan_left(conn));
}

/* A resume's deadline, @delay from now: a closed socket's own bound, if
 * sooner, still holds (timeout_work ends a resume that outlives it),
 * but not for a link that moves for its other streams only: that bound
 * was its first stream's, which is over (it once ended the riders of a
 * link whose first socket had closed over a minute before).  Called
 * under conn->lock.
 */
void exs_conn_arm_resume(struct exs_conn *conn, unsigned long delay)
{
	if (conn->orphan && !conn->link_only)
		delay = min(delay, exs_conn_orphan_left(conn));
	exs_conn_arm_timeout(conn, delay);
}

void exs_conn_disarm_timeout(struct exs_conn *conn)
{
	conn->timeout_at = jiffies + MAX_JIFFY_OFFSET;
	cancel_delayed_work(&conn->timeout_work);
}

/* The connect deadline passed on a connection that is up but whose peer
 * has not said READY.  If our READY (a reuse's OPEN) reached the peer's
 * device, the peer takes the connection as soon as it reads it: accept()
 * may hand it out, or connect() return, and giving up now would reset
 * it.  Its answer is then awaited as long as an ack would be, once.  Not
 * acked by the deadline, it may never have arrived (a peer rebooted
 * under a parked QP): the attempt fails, and the socket goes to TCP.
 * Called under conn->lock.
 */
static bool exs_conn_answer_late(struct exs_conn *conn)
{
	if (conn->answer_late || exs_conn_awaits_ack(conn))
		return false;
	conn->answer_late = true;
	exs_conn_arm_timeout(conn, exs_stall_timeout(conn->net));
	return true;
}

/* A connector's attempt ran out of time.  Which step it was waiting for
 * tells a silent peer (no REP) from a link that cannot reach the node
 * (no address): say it, as TCP's SYN timeouts cannot.  Under conn->lock.
 */
static void exs_connect_timed_out(struct exs_conn *conn)
{
	static const char * const stage[] = {
		[EXS_STAGE_ADDR]	= "resolving the address",
		[EXS_STAGE_ROUTE]	= "resolving the route",
		[EXS_STAGE_REP]		= "REQ sent, no REP",
		[EXS_STAGE_READY]	= "connected, no READY",
	};
	u8 at = READ_ONCE(conn->stage);

	/* its REQ's head start ran out (head_start.c) */
	if (exs_head_start_out(conn))
		return;
	if (!conn->reason)
		conn->reason = EXS_FALLBACK_TIMEOUT;
	/* a peer that answered the REQ runs AF_EXS: slow, not absent, so
	 * no negative-cache entry
	 */
	if (at == EXS_STAGE_READY)
		conn->transient = true;
	pr_info_ratelimited("connect to %pI6c timed out: %s\n", &conn->node,
			    stage[at]);
	__exs_conn_abort(conn, -ETIMEDOUT, false);
}

/* One timer, six deadlines: a connector's RDMA attempt still connecting
 * (a child's is the CM's), an established one whose peer never said
 * READY, a resume (resume.c), a closed socket's last bytes, its peer's
 * LAST (reuse.c), and a parked connection's idle time.  Anything else
 * it finds has moved on.
 */
void exs_conn_timeout_work(struct work_struct *work)
{
	struct exs_conn *conn = container_of(to_delayed_work(work),
					     struct exs_conn, timeout_work);

	spin_lock_bh(&conn->lock);
	if (time_before(jiffies, conn->timeout_at)) {
		/* armed again meanwhile */
	} else if (exs_park_expire(conn)) {
		/* parked, or done and waiting for the peer's LAST, too long:
		 * an orderly end
		 */
	} else if (conn->resume && (conn->state == EXS_CONN_ESTABLISHED ||
				    conn->link_only)) {
		/* the new QP never came up: the failure stands */
		__exs_conn_abort(conn, conn->resume_err, false);
	} else if (conn->state == EXS_CONN_CONNECTING && conn->passive) {
		/* A child's handshake is the CM's until the CM ends it: the
		 * RTU, a REJ, or its REP's last retry.  Destroying the id
		 * before may race that retry's timeout, whose callback ib_cm
		 * makes without a reference on the id: a use-after-free in
		 * rdma_cm, seen on 6.1 under load.  Look again later.
		 */
		exs_conn_arm_timeout(conn,
				     msecs_to_jiffies(exs_connect_timeout_ms(conn->net)));
	} else if (conn->state == EXS_CONN_CONNECTING) {
		exs_connect_timed_out(conn);
	} else if (conn->state == EXS_CONN_ESTABLISHED && !conn->announced) {
		/* the peer may hold it already if only its READY is late */
		if (conn->orphan || conn->passive)
			__exs_conn_abort(conn, -ETIMEDOUT, false);
		else if (!exs_conn_answer_late(conn))
			exs_connect_timed_out(conn);
	} else if (conn->orphan) {
		/* TCP's orphan resets as its timer runs out */
		exs_conn_send_orphan_abort(conn);
		__exs_conn_abort(conn, -ETIMEDOUT, false);
	}
	spin_unlock_bh(&conn->lock);
}
