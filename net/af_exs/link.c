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

/* No request is posted on @link's QP from now (tx.c, batch.c): its
 * holder's teardown or resume, which set its own qp_closing, takes the
 * QP or its PD away after this; a resume (@resume) also holds batches
 * until it is over.  Called under the holder's conn->lock, which may
 * have been taken with interrupts off (an rdma_cm handler's): so the
 * link's lock is taken plainly, a BH lock in a section that has BHs off.
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

static void exs_link_free(struct exs_link *link)
{
	/* nobody finds it, and no waiter outlives it (link_table.c) */
	exs_link_table_del(link);
	WARN_ON_ONCE(link->dev || link->qp || link->pd || link->old_id ||
		     link->resume_id);
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
