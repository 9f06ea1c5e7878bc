// SPDX-License-Identifier: GPL-2.0
/*
 * A link's own memory (link.h): allocated with the connection that holds
 * it, freed with it once its QP, CQs and PD are gone (teardown.c).
 */
#include <linux/slab.h>

#include "conn.h"
#include "fault.h"

struct exs_link *exs_link_alloc(struct exs_conn *holder,
				struct rdma_cm_id *id)
{
	struct exs_link *link;

	if (exs_fail_alloc(sizeof(*link)))
		return NULL;
	link = kzalloc(sizeof(*link), GFP_KERNEL);
	if (!link)
		return NULL;
	link->holder = holder;
	link->cm_id = id;
	link->batch_cqe.done = exs_batch_done;
	INIT_LIST_HEAD(&link->dev_node);
	INIT_HLIST_NODE(&link->table_node);
	INIT_LIST_HEAD(&link->waiters);
	INIT_LIST_HEAD(&link->joins);
	mutex_init(&link->mutex);
	return link;
}

void exs_link_free(struct exs_link *link)
{
	if (!link)
		return;
	/* nobody finds it, and no waiter outlives it (link_table.c) */
	exs_link_table_del(link);
	WARN_ON_ONCE(link->dev || link->qp || link->pd || link->old_id ||
		     link->resume_id);
	kfree(link->rx_msgs);
	kfree(link->batch);
	kfree(link->rx);
	kfree(link->chans);
	mutex_destroy(&link->mutex);
	kfree(link);
}
