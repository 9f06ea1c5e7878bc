// SPDX-License-Identifier: GPL-2.0
/*
 * Resuming: an established connection whose queue pair failed moves to a
 * new one, and its stream goes on from where it stopped, as TCP's goes on
 * after a retransmission.
 *
 * A QP can fail under a live connection for reasons of its own: a device
 * that could not build a packet (6.1's rxe then leaves the QP waiting for
 * an ack forever, which the stall watch finds), the QP's fatal event, a
 * local error on a send.  Nothing of the stream dies with it: the rings,
 * their registration and every cursor belong to the connection.  So:
 *
 *  1. the end that noticed drains the failed QP and destroys it with its
 *     cm_id; the peer sees the disconnect and does the same, unless what
 *     arrived before it (an ABORT, a LAST, FINs both ways) says the
 *     connection ended: a FIN alone does not, the stream may be
 *     half-closed;
 *  2. the connector connects again through rdma_cm, from the same port,
 *     with a REQ marked EXS_WIRE_REQ_RESUME that names the same
 *     four-tuple and ring; the acceptor takes it only for a connection
 *     it holds with that four-tuple, from that RDMA node, whose peer ring
 *     it names, and answers with its own ring as before.  The new QP
 *     lives in the connection's PD, so the ring's key stands;
 *  3. each end's first message on the new QP is RESUME: how far it holds
 *     the other's bytes, and whether its FIN.  Each writes again from
 *     there.  Bytes the failed QP placed but never announced are written
 *     again, to the same offsets.
 *
 * A QP that carries riders (share.c) resumes for all of them: whichever
 * connection on it noticed the failure, the carrier's connection moves
 * the QP, the riders' requests are taken as completed with its drain,
 * and once the new QP is up each rider says RESUME on its channel and
 * writes again from what its peer holds, as the carrier does.  A parked
 * rider stays parked; one whose stream was ending ends.  A carrier whose
 * own stream is gone (it ended, is over both ways or its peer said LAST,
 * or its QP was parked) moves the QP for its riders only: its RESUME says
 * LINK and names no stream, its end stays gone, and the peer's end of that
 * stream, if it still had one, ends as its lost ABORT would have said.
 *
 * A resume that is refused, or not done within its deadline, ends the
 * connection with the error its failure would have given (and with a
 * carrier's, every rider on it).  A listener
 * that closed cannot take a resume (rdma_cm has nowhere to deliver the
 * REQ), nor can a device that went away.
 */
#define pr_fmt(fmt) "af_exs: " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <net/ipv6.h>

#include "protocol.h"
#include "conn.h"
#include "mib.h"
#include "ring.h"

static bool exs_resume_enabled = true;
module_param_named(resume, exs_resume_enabled, bool, 0644);
MODULE_PARM_DESC(resume,
		 "move a connection whose queue pair failed to a new one (0: end it, as before)");

/* How long the new QP may take to come up: what a connect may take
 * (net.exs.connect_timeout_ms), and no less than this.
 */
#define EXS_RESUME_TIMEOUT	(10 * HZ)

static unsigned long exs_resume_deadline(const struct exs_conn *conn)
{
	return max_t(unsigned long, EXS_RESUME_TIMEOUT,
		     msecs_to_jiffies(exs_connect_timeout_ms(conn->net)));
}

static void exs_resume_queue(struct exs_conn *conn)
{
	refcount_inc(&conn->ref);
	if (!queue_work(exs_wq, &conn->resume_work))
		refcount_dec(&conn->ref);	/* queued: never the last */
}

/* @conn's stream can carry on over a new QP: established and handed out, not
 * over both ways, not parked or parking, no teardown under way.  What a
 * connection's resume asks, and a rider's on its carrier's new QP.
 */
static bool exs_resume_stream_ok(const struct exs_conn *conn)
{
	return conn->state == EXS_CONN_ESTABLISHED && conn->announced &&
	       conn->peer_ready && conn->park == EXS_PARK_NONE &&
	       !conn->resume_off && !conn->torn_down && !conn->qp_closing &&
	       !conn->last_sent && !conn->last_rcvd &&
	       !exs_conn_stream_over(conn);
}

/* @conn, a carrier, may move its QP for its riders only: some still move
 * bytes on it (exs_share_riders_live(): those only finishing end in order
 * with the QP), and its own stream is gone (ended, over both ways, or
 * parked), not being torn down.  Called under conn->lock.
 */
static bool exs_resume_link_ok(const struct exs_conn *conn)
{
	if (READ_ONCE(conn->link->err) || conn->park == EXS_PARK_GONE ||
	    !exs_share_riders_live(conn))
		return false;
	return conn->link_only || conn->park == EXS_PARK_IDLE ||
	       (conn->state == EXS_CONN_ESTABLISHED &&
		exs_conn_peer_over(conn));
}

/* @conn's QP moves for its riders only: its own stream stays gone, in
 * order if it was over, else with @err (the peer's LINK told us that its
 * end is gone, and its ABORT was lost with the QP).  It carries no new
 * connection from here, and goes with its last rider.  Called under
 * conn->lock.
 */
static void exs_resume_link_only(struct exs_conn *conn, int err)
{
	conn->link_only = true;
	if (conn->park == EXS_PARK_IDLE)
		exs_park_leave(conn);
	else if (conn->state == EXS_CONN_ESTABLISHED &&
		 !exs_conn_peer_over(conn))
		exs_conn_close_err(conn, err);
	conn->state = EXS_CONN_CLOSED;
	exs_conn_wake(conn, EPOLLIN | EPOLLOUT | EPOLLHUP | EPOLLRDHUP |
			    (conn->err ? EPOLLERR : 0));
}

/* Move @conn to a new QP instead of ending it with @err, if it can go on:
 * established and handed out, its stream not over both ways, not parked
 * or parking, no teardown and no other resume under way, its device
 * there; or, a carrier whose stream is gone, for its riders.  A resume
 * whose new QP failed before the RESUMEs crossed starts over (the same
 * trouble on the link may well end two QPs in a row).  True when the
 * resume began.  Called under conn->lock.
 */
bool exs_conn_resume(struct exs_conn *conn, int err)
{
	bool link;

	lockdep_assert_held(&conn->lock);
	/* a rider's QP is its carrier's, which resumes for both */
	if (conn->carrier)
		return exs_share_resume(conn, err);
	if (!READ_ONCE(exs_resume_enabled) ||
	    (conn->resume && conn->resume != EXS_RESUME_SYNC) ||
	    conn->resume_off || conn->torn_down || conn->qp_closing ||
	    !conn->link->cm_id || !conn->link->dev ||
	    READ_ONCE(conn->link->dev->dying))
		return false;
	link = conn->link_only || !exs_resume_stream_ok(conn);
	if (link && !exs_resume_link_ok(conn))
		return false;
	if (link)
		exs_resume_link_only(conn, err);
	/* from here nothing is written (exs_conn_tx_push()) until both
	 * ends said RESUME; what the failed QP still delivers is read
	 */
	conn->resume = EXS_RESUME_DRAIN;
	conn->resume_err = err;
	conn->peer_resumed = false;
	/* nothing more goes to the failed QP, and its flushes are ours;
	 * nor from any stream on the link, nor a batch until it is over
	 */
	conn->qp_closing = true;
	exs_link_qp_shut(conn->link, true);	/* batches wait too */
	/* its cm_id's events are old news (exs_link_cm_handler() compares) */
	conn->link->old_id = conn->link->cm_id;
	WRITE_ONCE(conn->link->cm_id, NULL);
	exs_conn_arm_resume(conn, exs_resume_deadline(conn));
	exs_resume_queue(conn);
	return true;
}

/* The new QP of a resume, on its link's new cm_id: on the device the
 * ring is registered with, in the link's PD.  Process context, before the
 * REQ or the REP goes out.
 */
int exs_resume_qp(struct exs_conn *conn)
{
	int err;

	if (conn->link->cm_id->device != conn->link->dev->ibdev)
		return -ENODEV;
	/* its receives are posted as it is built (exs_link_make_qp()) */
	spin_lock_bh(&conn->lock);
	conn->qp_closing = false;
	spin_unlock_bh(&conn->lock);
	err = exs_conn_make_qp(conn);
	/* the streams on the link may post on it once it is whole, unless
	 * its teardown began meanwhile (which cannot happen today: the
	 * connector's teardown takes this cm_id's handler lock first,
	 * exs_conn_hw_work(), the acceptor's waits for its resume work,
	 * exs_resume_stop())
	 */
	spin_lock_bh(&conn->lock);
	if (!err && !conn->qp_closing)
		exs_link_qp_open(conn->link);
	spin_unlock_bh(&conn->lock);
	return err;
}

/* The carrier's failed QP is drained: its riders' requests all completed,
 * flushed or not.  A rider whose stream goes on waits for the new QP
 * (the carrier's exs_resume_up() queues its RESUME), by the same
 * deadline; a parked one stays parked; one that was ending ends, in
 * order if it can.  At each resume every rider starts over: its peer's
 * does too, whatever the last one got to.  Process context.
 */
static void exs_resume_hold_riders(struct exs_conn *carrier)
{
	int chan, err = READ_ONCE(carrier->resume_err);
	struct exs_conn *rider;

	if (!carrier->link->chans)
		return;
	for (chan = 1; chan < EXS_CHAN_MAX; chan++) {
		rider = exs_link_chan_get(carrier->link, chan);
		if (!rider)
			continue;
		spin_lock_bh(&rider->lock);
		exs_conn_sq_through(rider);
		if (exs_resume_stream_ok(rider)) {
			rider->resume = EXS_RESUME_CONNECT;
			rider->resume_err = err;
			rider->peer_resumed = false;
			exs_conn_arm_resume(rider,
					    exs_resume_deadline(carrier));
		} else if (rider->park == EXS_PARK_IDLE) {
			/* nothing of its own in flight */
		} else if (rider->leave_wait ||
			   exs_conn_ends_in_order(rider)) {
			exs_conn_queue_hw(rider);
		} else {
			__exs_conn_abort(rider, err, false);
		}
		spin_unlock_bh(&rider->lock);
		exs_conn_put(rider);
	}
}

static bool exs_resume_rider_queue(struct exs_conn *rider, void *unused)
{
	exs_resume_queue(rider);
	return false;
}

/* @conn's new QP is up: if it holds a link that carries riders, each
 * rider held for it says RESUME, from its resume work (the riders' locks
 * come before the carrier's).  A rider itself holds none.  Called under
 * conn->lock.
 */
static void exs_resume_riders_up(struct exs_conn *conn)
{
	if (!conn->carrier && conn->link)
		exs_link_each_chan(conn->link, exs_resume_rider_queue, NULL);
}

/* A rider's turn once its carrier's new QP is up: RESUME on its channel,
 * unless that QP failed already (the next round holds it again).
 */
static void exs_resume_rider_up(struct exs_conn *rider)
{
	struct exs_conn *carrier = rider->carrier;
	bool up;
	int err;

	spin_lock_bh(&rider->lock);
	spin_lock_nested(&carrier->lock, SINGLE_DEPTH_NESTING);
	up = !carrier->qp_closing && (carrier->resume == EXS_RESUME_SYNC ||
				      carrier->resume == EXS_RESUME_NONE);
	spin_unlock(&carrier->lock);
	if (up && rider->resume == EXS_RESUME_CONNECT &&
	    rider->state == EXS_CONN_ESTABLISHED) {
		err = exs_resume_up(rider);
		if (err)
			__exs_conn_abort(rider, err == -EPROTO ? -ECONNRESET :
					 rider->resume_err, err == -EPROTO);
	}
	spin_unlock_bh(&rider->lock);
}

/* Step 1: the failed QP and its cm_id go, its completions flushed
 * first: a FIN or an ABORT that arrived is read before we decide.  False
 * when the connection ended meanwhile, or needs no resume any more.
 */
static bool exs_resume_drain(struct exs_conn *conn, struct rdma_cm_id *old)
{
	bool go_on;

	rdma_disconnect(old);	/* the peer's cue to resume too */
	if (conn->link->qp) {
		ib_drain_qp(conn->link->qp);
		exs_dev_wait_port_up(conn->link, old);
		rdma_destroy_qp(old);
	}
	rdma_destroy_id(old);

	spin_lock_bh(&conn->lock);
	spin_lock(&conn->link->lock);	/* shut since the resume began */
	exs_link_set_qp(conn->link, NULL);
	spin_unlock(&conn->link->lock);
	conn->link->old_id = NULL;
	/* every request completed, flushed or not */
	exs_conn_sq_through(conn);
	/* both FINs were through, or the peer's LAST came: our stream
	 * ends in order after all, and the QP moves on for the riders, if
	 * any
	 */
	if (!conn->link_only && conn->state == EXS_CONN_ESTABLISHED &&
	    exs_conn_peer_over(conn) && exs_resume_link_ok(conn))
		exs_resume_link_only(conn, conn->resume_err);
	go_on = conn->link_only ? exs_resume_link_ok(conn) :
		conn->state == EXS_CONN_ESTABLISHED &&
		!exs_conn_peer_over(conn);
	if (go_on) {
		conn->resume = conn->passive ? EXS_RESUME_WAIT :
					       EXS_RESUME_CONNECT;
	} else if (conn->state == EXS_CONN_ESTABLISHED || conn->link_only) {
		/* over, and no rider left to move for */
		exs_share_link_failed(conn, conn->resume_err);
		exs_conn_queue_hw(conn);
	}
	spin_unlock_bh(&conn->lock);
	if (go_on)
		exs_resume_hold_riders(conn);
	return go_on;
}

void exs_resume_work(struct work_struct *work)
{
	struct exs_conn *conn = container_of(work, struct exs_conn,
					     resume_work);
	struct rdma_cm_id *old, *id = NULL;
	int err = 0;

	if (conn->carrier) {
		exs_resume_rider_up(conn);
		goto out;
	}
	spin_lock_bh(&conn->lock);
	old = conn->link->old_id;
	spin_unlock_bh(&conn->lock);
	if (old && !exs_resume_drain(conn, old))
		goto out;

	if (!conn->passive) {
		/* step 2, the connector's side: once, after the drain */
		if (old)
			err = exs_connect_resume(conn);
	} else {
		/* the acceptor's: the REQ may have come before the drain
		 * ended, or comes later and queues this again
		 */
		spin_lock_bh(&conn->lock);
		if (conn->resume == EXS_RESUME_WAIT && conn->link->resume_id) {
			swap(id, conn->link->resume_id);
			WRITE_ONCE(conn->link->cm_id, id);
			conn->resume = EXS_RESUME_CONNECT;
		}
		spin_unlock_bh(&conn->lock);
		if (id)
			err = exs_rdma_accept_resumed(conn, id);
	}
	if (err)
		exs_conn_abort(conn, conn->resume_err, false);
out:
	exs_conn_put(conn);
}

/* Does the REQ @peer, from RDMA node @from, resume @conn, an acceptor's
 * end?  Called under conn->lock.
 */
static bool exs_resume_matches(const struct exs_conn *conn,
			       const struct exs_wire_peer *peer,
			       const struct in6_addr *from)
{
	return conn->self.sport == peer->dport &&
	       conn->self.dport == peer->sport &&
	       ipv6_addr_equal(&conn->self.saddr, &peer->daddr) &&
	       ipv6_addr_equal(&conn->self.daddr, &peer->saddr) &&
	       conn->peer.ring_addr == peer->ring_addr &&
	       conn->peer.ring_rkey == peer->ring_rkey &&
	       conn->peer.ring_len == peer->ring_len &&
	       conn->link->version == peer->version &&
	       ipv6_addr_equal(&conn->link->node, from);
}

/* Keep the REQ on @id for @conn, starting the resume if the acceptor had
 * not noticed the failure yet.  Called under conn->lock.
 */
static bool exs_resume_take(struct exs_conn *conn, struct rdma_cm_id *id)
{
	if (conn->link->resume_id || conn->resume_off)
		return false;
	/* not noticed yet (or on the QP the last resume made): it starts,
	 * if exs_conn_resume() allows
	 */
	if (conn->resume != EXS_RESUME_DRAIN &&
	    conn->resume != EXS_RESUME_WAIT &&
	    !exs_conn_resume(conn, -ECONNRESET))
		return false;
	conn->link->resume_id = id;
	id->context = &conn->link->ctx;
	if (conn->resume == EXS_RESUME_WAIT)
		exs_resume_queue(conn);
	return true;
}

/* A REQ marked RESUME reached a listener (accept.c), in its rdma_cm
 * handler: 0 when a connection takes it (the REP follows from the resume
 * work; @id is the connection's from now on), else why not, an enum
 * exs_wire_reject.
 */
int exs_resume_request(struct rdma_cm_id *id, struct net *net,
		       const struct exs_wire_peer *peer)
{
	struct exs_dev *dev = exs_dev_get(id->device);
	int why = EXS_WIRE_REJ_NO_LISTENER;
	struct exs_link *link;
	struct in6_addr from;
	__be16 unused;

	if (!dev)
		return why;
	exs_addr_to_v6((struct sockaddr *)&id->route.addr.dst_addr, &from,
		       &unused);
	spin_lock_bh(&dev->lock);
	list_for_each_entry(link, &dev->links, dev_node) {
		struct exs_conn *conn = link->holder;
		bool found;

		if (!link->passive || !net_eq(link->net, net))
			continue;
		spin_lock(&conn->lock);
		found = exs_resume_matches(conn, peer, &from);
		if (found && exs_resume_take(conn, id))
			why = EXS_WIRE_REJ_NONE;
		spin_unlock(&conn->lock);
		if (found)
			break;
	}
	spin_unlock_bh(&dev->lock);
	exs_dev_put(dev);
	return why;
}

/* Both ends are on the new QP and each said how far it got: write again
 * from what the peer holds, and repeat our credit, which may have been
 * lost with the failed QP.  Called under conn->lock.
 */
static int exs_resume_finish(struct exs_conn *conn)
{
	u32 cursor = conn->peer_resume_cursor;
	bool peer_fin = conn->peer_resume_flags & EXS_RESUME_FIN;

	if (!conn->link_only &&
	    !exs_resume_cursor_ok(conn->tcredit, cursor, conn->tposted,
				  conn->fin_sent, peer_fin))
		return -EPROTO;
	conn->resume = EXS_RESUME_NONE;
	conn->peer_resumed = false;
	conn->self.resume = false;
	/* the link moved (a rider's stream only followed it) */
	if (!conn->carrier) {
		conn->link->resumes++;
		exs_link_qp_resumed(conn->link);
	}
	if (conn->link_only) {
		/* no stream: the riders say their own RESUMEs; the last of
		 * them may have left meanwhile (an acceptor's leaves at its
		 * LAST, its connector's end a little later)
		 */
		exs_conn_disarm_timeout(conn);
		EXS_INC_STATS(conn->net, EXS_MIB_LINKRESUMES);
		if (!exs_conn_carries(conn))
			exs_conn_queue_hw(conn);
		return 0;
	}
	conn->tposted = cursor;
	conn->tdone = cursor;
	exs_urg_resumed(conn, cursor);
	conn->fin_sent = peer_fin;
	conn->fin_acked = peer_fin;
	if (conn->orphan)
		exs_conn_arm_orphan(conn);
	else
		exs_conn_disarm_timeout(conn);
	EXS_INC_STATS(conn->net, EXS_MIB_RESUMES);

	if (!exs_conn_send_ctrl(conn, EXS_MSG_CREDIT, conn->rcons)) {
		conn->racked = conn->rcons;
		conn->credit_owed = false;
	} else {
		conn->credit_owed = true;
	}
	exs_conn_tx_push(conn);
	exs_conn_write_space(conn);
	/* bytes came for the closed socket meanwhile: the reset the
	 * resume held back
	 */
	if (exs_conn_orphan_rx(conn))
		return 0;
	if (conn->orphan && exs_conn_tx_finished(conn))
		exs_conn_finished(conn);
	return 0;
}

/* The new QP is up (its ESTABLISHED): say RESUME.  0, or the connection
 * must end.  Called under conn->lock.
 */
int exs_resume_up(struct exs_conn *conn)
{
	conn->resume = EXS_RESUME_SYNC;
	conn->last_heard = jiffies;
	conn->last_acked = conn->last_heard;
	if (exs_conn_send_resume(conn))
		return -ECONNRESET;
	exs_resume_riders_up(conn);
	return conn->peer_resumed ? exs_resume_finish(conn) : 0;
}

/* The peer's RESUME, which may come before our own ESTABLISHED event.
 * Anywhere else it is a protocol error.  Called under conn->lock.
 */
int exs_resume_rx(struct exs_conn *conn, u32 cursor, u8 flags)
{
	if ((conn->resume != EXS_RESUME_CONNECT &&
	     conn->resume != EXS_RESUME_SYNC) || conn->peer_resumed ||
	    ((flags & EXS_RESUME_LINK) && conn->carrier))
		return -EPROTO;
	/* the peer's end of our stream is gone: the QP goes on for the
	 * riders only, ours ends too (the RESUME we said, or will, named
	 * our stream: the peer, its own gone, takes no cursor from it)
	 */
	if ((flags & EXS_RESUME_LINK) && !conn->link_only)
		exs_resume_link_only(conn, -ECONNRESET);
	conn->peer_resumed = true;
	conn->peer_resume_cursor = cursor;
	conn->peer_resume_flags = flags;
	return conn->resume == EXS_RESUME_SYNC ? exs_resume_finish(conn) : 0;
}

/* The teardown's part: no resume runs after this or starts; a failed QP
 * not drained yet goes with the teardown's own, a REQ kept is refused
 * (destroying its id rejects it).
 */
void exs_resume_stop(struct exs_conn *conn)
{
	struct rdma_cm_id *rid;

	spin_lock_bh(&conn->lock);
	conn->resume_off = true;
	spin_unlock_bh(&conn->lock);
	if (cancel_work_sync(&conn->resume_work))
		exs_conn_put(conn);

	if (conn->carrier || !conn->link)	/* its holder resumes */
		return;
	spin_lock_bh(&conn->lock);
	if (conn->link->old_id) {
		WARN_ON_ONCE(conn->link->cm_id);
		WRITE_ONCE(conn->link->cm_id, conn->link->old_id);
		conn->link->old_id = NULL;
	}
	rid = conn->link->resume_id;
	conn->link->resume_id = NULL;
	spin_unlock_bh(&conn->lock);
	if (rid)
		rdma_destroy_id(rid);
}

/* Tests: a write to /sys/kernel/debug/af_exs/fail_qp is, for connections
 * of the writer's namespace that are up and in use, the device's report
 * that their QP failed (IB_EVENT_QP_FATAL).  1: those whose stream is
 * still open one way or the other, and carriers whose own is gone but
 * whose riders use the QP (a failure resumes them); 2: also those whose
 * stream is over both ways, which then end in order.
 */
static struct dentry *exs_debugfs_dir;

struct exs_fail_qp {
	struct net	*net;
	bool		over_too;
};

static void exs_fail_qp_one(struct exs_link *link, void *arg)
{
	const struct exs_fail_qp *fq = arg;
	struct exs_conn *conn = link->holder;

	spin_lock(&conn->lock);
	if (net_eq(link->net, fq->net) && !conn->resume && !conn->qp_closing &&
	    ((conn->state == EXS_CONN_ESTABLISHED && conn->announced &&
	      conn->park == EXS_PARK_NONE &&
	      (fq->over_too || !exs_conn_stream_over(conn))) ||
	     exs_resume_link_ok(conn))) {
		EXS_INC_STATS(conn->net, EXS_MIB_QPFAILTESTS);
		exs_conn_qp_failed(conn, -ECONNRESET);
	}
	spin_unlock(&conn->lock);
}

static ssize_t exs_fail_qp_write(struct file *file, const char __user *buf,
				 size_t len, loff_t *ppos)
{
	struct exs_fail_qp fq = { .net = current->nsproxy->net_ns };
	unsigned int which;
	int err;

	err = kstrtouint_from_user(buf, len, 0, &which);
	if (err)
		return err;
	if (which != 1 && which != 2)
		return -EINVAL;
	fq.over_too = which == 2;
	exs_dev_each_link(exs_fail_qp_one, &fq);
	return len;
}

static const struct file_operations exs_fail_qp_fops = {
	.owner	= THIS_MODULE,
	.write	= exs_fail_qp_write,
	.llseek	= noop_llseek,
};

/* Tests: /sys/kernel/debug/af_exs/hold_teardown_ms holds the teardown of
 * a stream on another's QP that long before it marks the stream closing,
 * and again once it stopped the watch (exs_watch_stop()).  Its QP's
 * first connection may have freed the PD meanwhile, and its socket may
 * still send or set SO_KEEPALIVE: the windows exs_resume.sh's race cases
 * open.
 */
static u32 exs_hold_teardown_ms;
static u32 exs_held_teardowns;	/* ...and how many it held: the case's proof */

/* Sleep *@ms (a minute at most), counted in *@held, if a test set it. */
static void exs_test_hold(const u32 *ms, u32 *held)
{
	u32 wait = READ_ONCE(*ms);

	if (!wait)
		return;
	WRITE_ONCE(*held, READ_ONCE(*held) + 1);
	msleep(min(wait, 60000U));
}

void exs_test_hold_teardown(void)
{
	exs_test_hold(&exs_hold_teardown_ms, &exs_held_teardowns);
}

/* Tests: /sys/kernel/debug/af_exs/hold_joins_ms holds an acceptor's join
 * work that long before it takes the JOINs heard, so that they wait as a
 * flood's would: exs_badpeer's join-flood counts the refusals of those
 * past the bound (link.c exs_link_join_add()).
 */
static u32 exs_hold_joins_ms;
static u32 exs_held_joins;

void exs_test_hold_joins(void)
{
	exs_test_hold(&exs_hold_joins_ms, &exs_held_joins);
}

/* Tests: /sys/kernel/debug/af_exs/orphan_timeout_ms, if not 0, is a
 * closed socket's bound from its close in place of EXS_ORPHAN_TIMEOUT's
 * minute (a minute at most), so that a case may outlast it in seconds:
 * exs_resume.sh's link that moves for its other streams only, once its
 * first's socket closed.
 */
static u32 exs_orphan_timeout_ms;

unsigned long exs_orphan_timeout(void)
{
	u32 ms = READ_ONCE(exs_orphan_timeout_ms);

	return ms ? min_t(unsigned long, msecs_to_jiffies(ms),
			  EXS_ORPHAN_TIMEOUT) : EXS_ORPHAN_TIMEOUT;
}

void exs_resume_init(void)
{
	exs_debugfs_dir = debugfs_create_dir("af_exs", NULL);
	debugfs_create_file("fail_qp", 0200, exs_debugfs_dir, NULL,
			    &exs_fail_qp_fops);
	debugfs_create_u32("hold_teardown_ms", 0600, exs_debugfs_dir,
			   &exs_hold_teardown_ms);
	debugfs_create_u32("held_teardowns", 0400, exs_debugfs_dir,
			   &exs_held_teardowns);
	debugfs_create_u32("hold_joins_ms", 0600, exs_debugfs_dir,
			   &exs_hold_joins_ms);
	debugfs_create_u32("held_joins", 0400, exs_debugfs_dir,
			   &exs_held_joins);
	debugfs_create_u32("orphan_timeout_ms", 0600, exs_debugfs_dir,
			   &exs_orphan_timeout_ms);
}

void exs_resume_exit(void)
{
	debugfs_remove_recursive(exs_debugfs_dir);
}
