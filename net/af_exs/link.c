// SPDX-License-Identifier: GPL-2.0
/*
 * A link's own memory (link.h): allocated with the connection that holds
 * it, with that connection's reference; each stream that joins it takes
 * one more; freed at the last, once its QP, CQs and PD are gone
 * (teardown.c).
 */
#include <linux/slab.h>

#include "conn.h"
#include "fault.h"

struct exs_link *exs_link_alloc(struct exs_conn *holder, struct net *net,
				struct rdma_cm_id *id)
{
	struct exs_link *link;

	if (exs_fail_alloc(sizeof(*link)))
		return NULL;
	link = kzalloc(sizeof(*link), GFP_KERNEL);
	if (!link)
		return NULL;
	refcount_set(&link->ref, 1);
	link->holder = holder;
	link->net = get_net(net);
	spin_lock_init(&link->lock);
	link->cm_id = id;
	link->batch_cqe.done = exs_batch_done;
	link->ctrl_cqe.done = exs_link_tx_done;
	link->fence_cqe.done = exs_link_fence_done;
	INIT_WORK(&link->qp_event_work, exs_link_qp_event_work);
	INIT_DELAYED_WORK(&link->watch_work, exs_link_watch_work);
	INIT_LIST_HEAD(&link->dev_node);
	INIT_HLIST_NODE(&link->table_node);
	INIT_LIST_HEAD(&link->waiters);
	INIT_LIST_HEAD(&link->joins);
	mutex_init(&link->mutex);
	return link;
}

/* Who @link is to, once its builder knows (a connector's settle, an
 * acceptor's REQ): before it is in the link table or on its device's
 * list, where the lookups read it without a lock.
 */
void exs_link_set_peer(struct exs_link *link, const struct in6_addr *node,
		       u8 family, bool passive, bool shared)
{
	WARN_ON_ONCE(link->dev || !hlist_unhashed(&link->table_node));
	link->node = *node;
	link->family = family;
	link->passive = passive;
	link->shared = shared;
}

/* @link carries one more stream, which holds it until freed */
void exs_link_get(struct exs_link *link)
{
	refcount_inc(&link->ref);
}

/* No request is posted on @link's QP from now (tx.c, batch.c,
 * link_tx.c): its holder's teardown or resume, which set its own
 * qp_closing, takes the QP or its PD away after this; a resume
 * (@resume) also holds batches and the link's own messages until it is
 * over.  Called under the holder's conn->lock, which has
 * BHs off: the link's lock is taken plainly.
 */
void exs_link_qp_shut(struct exs_link *link, bool resume)
{
	lockdep_assert_held(&link->holder->lock);
	spin_lock(&link->lock);
	link->closing = true;
	if (resume)
		link->resuming = true;
	spin_unlock(&link->lock);
}

/* A resume's new QP is built: the streams on @link may post on it.
 * Called under the holder's conn->lock.
 */
void exs_link_qp_open(struct exs_link *link)
{
	lockdep_assert_held(&link->holder->lock);
	spin_lock(&link->lock);
	link->closing = false;
	spin_unlock(&link->lock);
}

/* ...and the resume is over: batches again.  Under the holder's lock. */
void exs_link_qp_resumed(struct exs_link *link)
{
	lockdep_assert_held(&link->holder->lock);
	spin_lock(&link->lock);
	link->resuming = false;
	spin_unlock(&link->lock);
}

/* The channel table (link.h): the streams on @link's channels, their
 * count, the JOINs heard for them, the QP's failure; under the link's
 * lock alone, taken with BHs off: from process context (the join work,
 * a teardown, a resume), from a completion handler, or under a
 * connection's lock.
 */

static struct exs_conn **exs_link_chan(struct exs_link *link, u8 chan)
{
	return link->chans && chan && chan < EXS_CHAN_MAX ?
	       &link->chans[chan] : NULL;
}

/* @conn on a free channel of @link's (the table holds a reference to
 * it, conn->chan says which), counted: 0, or -EBUSY when @link carries
 * all it may.
 */
int exs_link_chan_add(struct exs_link *link, struct exs_conn *conn)
{
	int chan, err = -EBUSY;

	if (!link->chans)
		return -EBUSY;
	spin_lock_bh(&link->lock);
	/* none free while it carries all it may */
	chan = exs_link_sq_fits(link->nchans, link->quiet_sq) ?
	       1 : EXS_CHAN_MAX;
	for (; chan < EXS_CHAN_MAX; chan++) {
		if (link->chans[chan])
			continue;
		refcount_inc(&conn->ref);
		WRITE_ONCE(link->chans[chan], conn);
		WRITE_ONCE(link->nchans, link->nchans + 1);
		conn->chan = chan;
		err = 0;
		break;
	}
	spin_unlock_bh(&link->lock);
	return err;
}

/* The stream on @link's channel @chan, with a reference, or NULL. */
struct exs_conn *exs_link_chan_get(struct exs_link *link, u8 chan)
{
	struct exs_conn **slot = exs_link_chan(link, chan);
	struct exs_conn *conn;

	if (!slot)
		return NULL;
	spin_lock_bh(&link->lock);
	conn = *slot;
	if (conn)
		refcount_inc(&conn->ref);
	spin_unlock_bh(&link->lock);
	return conn;
}

/* Some stream is on @link's channel @chan: a record for it is one the
 * peer may send.  A hint, without the lock (a stream that leaves just
 * then drops it as it would have an instant later).
 */
bool exs_link_chan_used(struct exs_link *link, u8 chan)
{
	struct exs_conn **slot = exs_link_chan(link, chan);

	return slot && READ_ONCE(*slot);
}

/* Call @fn for each stream on @link's channels, under the link's lock
 * (the table's reference keeps each), until it returns true: true then.
 * @fn may read the stream's fields as hints; it takes no lock.
 */
bool exs_link_each_chan(struct exs_link *link,
			bool (*fn)(struct exs_conn *conn, void *arg),
			void *arg)
{
	bool stop = false;
	int chan;

	if (!link->chans)
		return false;
	spin_lock_bh(&link->lock);
	for (chan = 1; chan < EXS_CHAN_MAX && !stop; chan++)
		if (link->chans[chan])
			stop = fn(link->chans[chan], arg);
	spin_unlock_bh(&link->lock);
	return stop;
}

/* Under the link's lock: @conn out of the count, if it was in it, its
 * @inflight requests (still to complete) in the link's quiet_sq.
 */
static bool __exs_link_count_out(struct exs_link *link, struct exs_conn *conn,
				 u32 inflight)
{
	lockdep_assert_held(&link->lock);
	if (!conn || conn->counted_out)
		return false;
	conn->counted_out = true;
	WRITE_ONCE(conn->quiet_sq, inflight);
	WRITE_ONCE(link->quiet_sq, link->quiet_sq + inflight);
	WRITE_ONCE(link->nchans, link->nchans - 1);
	if (inflight)
		exs_link_watch_begin(link, conn);	/* link_watch.c */
	return true;
}

/* Under the link's lock: @conn's requests counted quiet, but @inflight,
 * have completed (or gone with their QP).
 */
static void __exs_link_quiet_done(struct exs_link *link,
				  struct exs_conn *conn, u32 inflight)
{
	lockdep_assert_held(&link->lock);
	if (inflight >= conn->quiet_sq)
		return;
	WRITE_ONCE(link->quiet_sq, link->quiet_sq - conn->quiet_sq + inflight);
	WRITE_ONCE(conn->quiet_sq, inflight);
}

/* @conn, on its channel of @link's, posts no more: out of the count,
 * its requests in flight counted against the link until they complete
 * (link_sq.h).  The streams still counted, or -ENOENT when @conn was
 * not.  Called under conn->lock.
 */
int exs_link_chan_count_out(struct exs_link *link, struct exs_conn *conn)
{
	struct exs_conn **slot = exs_link_chan(link, conn->chan);
	int left = -ENOENT;

	lockdep_assert_held(&conn->lock);
	if (!slot)
		return -ENOENT;
	spin_lock_bh(&link->lock);
	if (*slot == conn &&
	    __exs_link_count_out(link, conn, conn->sq_head - conn->sq_tail))
		left = link->nchans;
	spin_unlock_bh(&link->lock);
	return left;
}

/* @conn's requests completed as far as its sq_tail says (or it starts
 * over on a new QP): those of them counted quiet no longer count.
 * Called under conn->lock.
 */
void exs_link_quiet_done(struct exs_link *link, struct exs_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	if (!READ_ONCE(conn->quiet_sq))
		return;
	spin_lock(&link->lock);
	__exs_link_quiet_done(link, conn, conn->sq_head - conn->sq_tail);
	spin_unlock(&link->lock);
}

/* ...and, parked and taken again, back in it while there is room: true
 * when it is.
 */
bool exs_link_chan_count_in(struct exs_link *link, struct exs_conn *conn)
{
	struct exs_conn **slot = exs_link_chan(link, conn->chan);
	bool in = false;

	if (!slot)
		return false;
	spin_lock_bh(&link->lock);
	/* its own requests in flight are within its EXS_SQ_DEPTH again */
	if (*slot == conn && conn->counted_out &&
	    exs_link_sq_fits(link->nchans,
			     link->quiet_sq - conn->quiet_sq)) {
		__exs_link_quiet_done(link, conn, 0);
		conn->counted_out = false;
		WRITE_ONCE(link->nchans, link->nchans + 1);
		in = true;
	}
	spin_unlock_bh(&link->lock);
	return in;
}

/* Under the link's lock: @slot's stream off its channel, out of the
 * count; the table's reference is the caller's now.
 */
static struct exs_conn *__exs_link_chan_take(struct exs_link *link,
					     struct exs_conn **slot)
{
	struct exs_conn *conn = *slot;

	lockdep_assert_held(&link->lock);
	WRITE_ONCE(*slot, NULL);
	/* its requests completed (share.c's leave waits), or the link goes */
	__exs_link_count_out(link, conn, 0);
	if (conn)
		__exs_link_quiet_done(link, conn, 0);
	return conn;
}

/* @conn leaves its channel of @link's: true when it was there, and the
 * table's reference is the caller's to drop.
 */
bool exs_link_chan_del(struct exs_link *link, struct exs_conn *conn)
{
	struct exs_conn **slot = exs_link_chan(link, conn->chan);
	bool was = false;

	if (!slot)
		return false;
	spin_lock_bh(&link->lock);
	if (*slot == conn)
		was = __exs_link_chan_take(link, slot) == conn;
	spin_unlock_bh(&link->lock);
	return was;
}

/* Whatever stream is on @link's channel @chan, taken off (the link is
 * going), with the table's reference; or NULL.
 */
struct exs_conn *exs_link_chan_take(struct exs_link *link, u8 chan)
{
	struct exs_conn **slot = exs_link_chan(link, chan);
	struct exs_conn *conn;

	if (!slot)
		return NULL;
	spin_lock_bh(&link->lock);
	conn = __exs_link_chan_take(link, slot);
	spin_unlock_bh(&link->lock);
	return conn;
}

/* @link's QP failed: its first error stays, for every stream on it. */
void exs_link_fail(struct exs_link *link, int err)
{
	if (!READ_ONCE(link->err))
		cmpxchg(&link->err, 0, err);
}

/* A JOIN heard on @link, for its acceptor's join work: false when as
 * many wait as the link has channels.  A connector counts a rider out
 * once it gives up on it, though its JOIN may still wait here, and JOINs
 * again on another channel: so as many JOINs as channels, never more,
 * may come from a peer that keeps to the protocol (one that repeats a
 * channel's JOIN is refused by this bound too, and by the link's room).
 */
bool exs_link_join_add(struct exs_link *link, struct exs_join *join)
{
	bool ok;

	spin_lock_bh(&link->lock);
	ok = link->njoins < EXS_CHAN_MAX - 1;
	if (ok) {
		list_add_tail(&join->node, &link->joins);
		link->njoins++;
	}
	spin_unlock_bh(&link->lock);
	return ok;
}

/* ...and the first of them, taken off, or NULL */
struct exs_join *exs_link_join_next(struct exs_link *link)
{
	struct exs_join *join;

	spin_lock_bh(&link->lock);
	join = list_first_entry_or_null(&link->joins, struct exs_join, node);
	if (join) {
		list_del(&join->node);
		link->njoins--;
	}
	spin_unlock_bh(&link->lock);
	return join;
}

static void exs_link_free(struct exs_link *link)
{
	/* nobody finds it, and no waiter outlives it (link_table.c) */
	exs_link_table_del(link);
	WARN_ON_ONCE(link->dev || link->qp || link->pd || link->old_id ||
		     link->resume_id || !list_empty(&link->joins) ||
		     delayed_work_pending(&link->watch_work));
	kfree(link->rx_msgs);
	kfree(link->batch);
	kfree(link->rx);
	kfree(link->chans);
	mutex_destroy(&link->mutex);
	put_net(link->net);
	kfree(link);
}

void exs_link_put(struct exs_link *link)
{
	if (link && refcount_dec_and_test(&link->ref))
		exs_link_free(link);
}
