// SPDX-License-Identifier: GPL-2.0
/*
 * The links a connect may ride, found by a hashed lookup: every queue
 * pair a connector built to share, keyed by namespace and peer node,
 * from the connect that builds it until it is freed.  A later connect
 * to that node joins one that is up (share.c); one still coming up it
 * waits for.
 *
 * Concurrent first connects to a node would each find none up and each
 * build a queue pair.  As SMC-R lets one first contact build a link
 * group while the others wait, a connect that finds a link to its node
 * coming up (new, or parked and carrying a stream again) waits for it,
 * and then joins it.  The look for a link and the insert of one's own
 * are one step under the table's lock (exs_link_claim()), so of
 * concurrent first connects one builds.  Whatever ends the wait (the
 * queue pair announced, or its attempt ended, or its socket closed)
 * takes every waiter off and queues its connect work, whose settle
 * starts its connect again (exs_connect_settle()): it joins the link
 * now up, or claims again, so that of the waiters of one that never
 * came up one builds and the others wait for it, all in the time their
 * connect() has left.  A waiter that closes takes itself off; one whose
 * connect()'s deadline comes first is taken off by its own timer
 * (exs_link_wait_expire()) and goes to TCP.  A link already has
 * EXS_SHARE_RIDERS waiters: the next connect builds.
 *
 * One lock, exs_links_lock (BHs off), guards the table, each link's
 * waiters and each socket's place among them.  It is taken last, under
 * a connection's lock, the parked pool's (exs_park_take()) or a
 * socket's; inside it, only queue_work() and mod_delayed_work() take the
 * workqueue's and the timer base's own.  A waiter holds no reference to
 * the link: the link leaves the table, and drops its waiters, before it
 * is freed.
 */
#include <linux/hashtable.h>
#include <net/ipv6.h>

#include "protocol.h"
#include "conn.h"
#include "mib.h"

static DEFINE_HASHTABLE(exs_links, 8);
static DEFINE_SPINLOCK(exs_links_lock);

static void __exs_link_wait_end(struct exs_link *link, u8 reason)
{
	struct exs_sock *exs, *tmp;

	lockdep_assert_held(&exs_links_lock);
	/* a node that did not answer RDMA, or speaks no version of ours,
	 * would not answer the waiters either
	 */
	if (reason != EXS_FALLBACK_TIMEOUT && reason != EXS_FALLBACK_VERSION &&
	    reason != EXS_FALLBACK_NO_ANSWER)
		reason = EXS_FALLBACK_NONE;
	WRITE_ONCE(link->pending, false);
	list_for_each_entry_safe(exs, tmp, &link->waiters, link_wait_node) {
		list_del_init(&exs->link_wait_node);
		exs->link_fail_reason = reason;
		queue_work(exs_wq, &exs->connect_work);
	}
	link->nwaiters = 0;
}

/* @conn is up, or will never be (@reason: why its connect fell back, if
 * it did): every waiter starts its connect again, in the time its
 * connect() has left (joining @conn, or claiming again); or, where the
 * node did not answer RDMA, goes to TCP as the first did.  Process
 * context or softirq; idempotent.
 */
void exs_link_wait_end(struct exs_conn *conn, u8 reason)
{
	/* set before anyone could wait: at the claim, or as a parked link
	 * is taken (exs_link_reopen())
	 */
	if (conn->carrier || !conn->link || !READ_ONCE(conn->link->pending))
		return;
	spin_lock_bh(&exs_links_lock);
	if (conn->link->pending)
		__exs_link_wait_end(conn->link, reason);
	spin_unlock_bh(&exs_links_lock);
}

/* @conn, a link parked idle, is taken for a new stream (exs_park_take()):
 * until it is up again, connects to its node wait for it as for a new
 * link.  Under the parked pool's lock.
 */
void exs_link_reopen(struct exs_conn *conn)
{
	if (hlist_unhashed_lockless(&conn->link->table_node))
		return;
	spin_lock_bh(&exs_links_lock);
	WRITE_ONCE(conn->link->pending, true);
	spin_unlock_bh(&exs_links_lock);
}

/* @link is freed: out of the table, its waiters sent on. */
void exs_link_table_del(struct exs_link *link)
{
	if (hlist_unhashed_lockless(&link->table_node))
		return;
	spin_lock_bh(&exs_links_lock);
	if (link->pending)
		__exs_link_wait_end(link, EXS_FALLBACK_NONE);
	hash_del(&link->table_node);
	spin_unlock_bh(&exs_links_lock);
}

/* Call @fn for each link in @net to @node, under the table's lock: it
 * may take a reference (refcount_inc_not_zero(): one being freed is
 * still there) and return true to stop.
 */
void exs_links_each(struct net *net, const struct in6_addr *node,
		    bool (*fn)(struct exs_conn *conn, void *arg), void *arg)
{
	struct exs_link *link;

	spin_lock_bh(&exs_links_lock);
	hash_for_each_possible(exs_links, link, table_node,
			       exs_node_hash(net, node)) {
		if (net_eq(link->net, net) &&
		    ipv6_addr_equal(&link->node, node) &&
		    fn(link->holder, arg))
			break;
	}
	spin_unlock_bh(&exs_links_lock);
}

/* A link to @conn's node @exs may join or wait for.  One up with room:
 * @exs's wait is over before it began (its settle, in connect() or its
 * connect work, joins it; it waits no more after that, so it cannot go
 * round); one coming up with room: @exs waits on it.
 */
static bool __exs_link_wait(struct exs_sock *exs, struct exs_conn *conn)
{
	const struct exs_link *mine = conn->link;
	struct exs_link *link;

	lockdep_assert_held(&exs_links_lock);
	hash_for_each_possible(exs_links, link, table_node,
			       exs_node_hash(mine->net, &mine->node)) {
		if (link == mine || !net_eq(link->net, mine->net) ||
		    link->family != mine->family ||
		    link->ack_cfg != mine->ack_cfg ||
		    !ipv6_addr_equal(&link->node, &mine->node))
			continue;
		if (!link->pending) {
			if (!exs_share_can_carry(link->holder))
				continue;
			/* up since this connect looked: settle joins it */
			exs->link_nowait = true;
			exs->link_fail_reason = EXS_FALLBACK_NONE;
			exs->link_waiting = true;
			queue_work(exs_wq, &exs->connect_work);
			return true;
		}
		if (link->nwaiters >= EXS_SHARE_RIDERS)
			continue;
		list_add_tail(&exs->link_wait_node, &link->waiters);
		link->nwaiters++;
		exs->wait_link = link;
		exs->link_waiting = true;
		/* the link's own attempt may end later than connect() may
		 * wait: one that started later, or after a first one failed
		 */
		mod_delayed_work(exs_wq, &exs->link_wait_timer,
				 max_t(long, exs->connect_deadline - jiffies,
				       1));
		EXS_INC_STATS(conn->net, EXS_MIB_CONNECTLINKWAIT);
		return true;
	}
	return false;
}

/* @conn, @exs's connection to its node on a QP built to share, not yet
 * started: it goes in the table, as the link later connects to that
 * node wait for until it is up; or, when @may_wait and another link to
 * the node is up or coming up with room, @exs waits for that one
 * instead (false: its settle starts it again, and @conn is not used).
 * One look and one insert under one lock: of concurrent first connects,
 * one builds.  Under the socket lock.
 */
bool exs_link_claim(struct exs_sock *exs, struct exs_conn *conn,
		    bool may_wait)
{
	bool build = true;

	spin_lock_bh(&exs_links_lock);
	if (may_wait && !exs->link_nowait && __exs_link_wait(exs, conn)) {
		build = false;
	} else {
		WRITE_ONCE(conn->link->pending, true);
		hash_add(exs_links, &conn->link->table_node,
			 exs_node_hash(conn->link->net, &conn->link->node));
	}
	spin_unlock_bh(&exs_links_lock);
	return build;
}

/* Is @exs's wait over (or did it never wait)?  Once it is, it waits no
 * more.  Under the socket lock.
 */
bool exs_link_wait_over(struct exs_sock *exs)
{
	bool over;

	if (!exs->link_waiting)
		return true;
	spin_lock_bh(&exs_links_lock);
	over = list_empty(&exs->link_wait_node);
	spin_unlock_bh(&exs_links_lock);
	if (over) {
		exs->link_waiting = false;
		cancel_delayed_work(&exs->link_wait_timer);
	}
	return over;
}

/* @exs leaves the waiters of its link, if it still is one: false if
 * not (the wait ended meanwhile).  Under the table's lock.
 */
static bool __exs_link_unwait(struct exs_sock *exs)
{
	lockdep_assert_held(&exs_links_lock);
	if (list_empty(&exs->link_wait_node))
		return false;
	list_del_init(&exs->link_wait_node);
	exs->wait_link->nwaiters--;
	return true;
}

/* connect()'s deadline came while @exs still waits for a link: it waits
 * no more, and its settle sends it to TCP as the timeout it is
 * (exs_connect_settle()).  The socket's release cancels this first.
 */
void exs_link_wait_expire(struct work_struct *work)
{
	struct exs_sock *exs = container_of(to_delayed_work(work),
					    struct exs_sock, link_wait_timer);

	spin_lock_bh(&exs_links_lock);
	if (__exs_link_unwait(exs)) {
		exs->link_fail_reason = EXS_FALLBACK_TIMEOUT;
		queue_work(exs_wq, &exs->connect_work);
	}
	spin_unlock_bh(&exs_links_lock);
}

/* @exs closes while it waits: it waits no more.  Under the socket lock. */
void exs_link_wait_cancel(struct exs_sock *exs)
{
	if (!exs->link_waiting)
		return;
	spin_lock_bh(&exs_links_lock);
	__exs_link_unwait(exs);
	spin_unlock_bh(&exs_links_lock);
	exs->link_waiting = false;
}
