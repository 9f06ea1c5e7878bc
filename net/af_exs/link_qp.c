// SPDX-License-Identifier: GPL-2.0
/*
 * A link's verbs objects (link.h): its device, PD, receive buffers, CQs
 * and QP, built when its holder's cm_id has its device (conn.c
 * exs_conn_create_qp()), the QP again when a resume replaces it
 * (resume.c), and taken down once the QP is gone (teardown.c); its
 * events are link_event.c's.  The streams' own objects (their rings'
 * registrations and mappings, in the link's PD) are theirs to take down
 * first.
 */
#define pr_fmt(fmt) "af_exs: " fmt

#include <linux/slab.h>

#include "conn.h"
#include "fault.h"

/* the last link id given out (link_diag.c) */
static atomic_t exs_link_ids = ATOMIC_INIT(0);

/* The link's PD, receive buffers and CQs on its cm_id's device, and its
 * place in the device's list: set before the device's list shows it,
 * taken away by exs_link_release() whatever this got to.  A link built
 * to share has room for the other streams' requests and messages, and
 * takes BATCH messages.  Process context.
 */
int exs_link_build(struct exs_link *link)
{
	bool share = link->shared;
	struct ib_device *ibdev;
	int err, i;

	link->dev = exs_dev_get(link->cm_id->device);
	if (!link->dev)
		return -ENODEV;
	ibdev = link->dev->ibdev;
	link->id = atomic_inc_return(&exs_link_ids);
	spin_lock_bh(&link->dev->lock);
	list_add(&link->dev_node, &link->dev->links);
	spin_unlock_bh(&link->dev->lock);

	if (exs_fail_alloc(sizeof(*link->pd)))
		return -ENOMEM;
	link->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(link->pd)) {
		err = PTR_ERR(link->pd);
		link->pd = NULL;
		return err;
	}

	link->rq_depth = share ? EXS_SHARE_RQ_DEPTH : EXS_RQ_DEPTH;
	link->sq_room = share ? EXS_SHARE_SQ_ROOM : EXS_SQ_DEPTH;
	link->rx_size = share ? EXS_BATCH_MAX : sizeof(union exs_wire_rx);
	if (share) {
		link->chans = kcalloc(EXS_CHAN_MAX, sizeof(*link->chans),
				      GFP_KERNEL);
		if (!link->chans)
			return -ENOMEM;
		link->batch = kmalloc(EXS_BATCH_MAX, GFP_KERNEL);
		if (!link->batch)
			return -ENOMEM;
	}
	link->rx = kcalloc(link->rq_depth, sizeof(*link->rx), GFP_KERNEL);
	if (!link->rx)
		return -ENOMEM;
	for (i = 0; i < link->rq_depth; i++) {
		link->rx[i].link = link;
		link->rx[i].cqe.done = exs_link_rx_done;
	}
	link->rx_msgs = kcalloc(link->rq_depth, link->rx_size, GFP_KERNEL);
	if (!link->rx_msgs)
		return -ENOMEM;
	link->rx_msgs_dma = ib_dma_map_single(ibdev, link->rx_msgs,
					      link->rq_depth * link->rx_size,
					      DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ibdev, link->rx_msgs_dma)) {
		link->rx_msgs_dma = 0;
		return -ENOMEM;
	}

	/* one more of each for ib_drain_qp()'s marker */
	link->scq = ib_cq_pool_get(ibdev, link->sq_room + 1, -1,
				   IB_POLL_SOFTIRQ);
	if (IS_ERR(link->scq)) {
		err = PTR_ERR(link->scq);
		link->scq = NULL;
		return err;
	}
	link->rcq = ib_cq_pool_get(ibdev, link->rq_depth + 1, -1,
				   IB_POLL_SOFTIRQ);
	if (IS_ERR(link->rcq)) {
		err = PTR_ERR(link->rcq);
		link->rcq = NULL;
		return err;
	}
	return 0;
}

/* The queue pair itself, on the link's cm_id, in its PD and on its CQs,
 * and its receives posted before the connection exists, so the first
 * message can never find the queue empty: a new link's, or a resumed
 * one's, whose old QP is gone.  @inline_max: what its holder's stream
 * writes inline.  Process context.
 */
int exs_link_make_qp(struct exs_link *link, u32 inline_max)
{
	struct ib_qp_init_attr attr = {};
	int err, i;

	attr.send_cq = link->scq;
	attr.recv_cq = link->rcq;
	attr.cap.max_send_wr = link->sq_room + 1;
	attr.cap.max_recv_wr = link->rq_depth + 1;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	/* control messages always go inline, an OPEN the longest but for
	 * a shared QP's BATCH
	 */
	attr.cap.max_inline_data = max3(inline_max,
					sizeof(struct exs_wire_open),
					link->batch ? EXS_BATCH_MAX : 0);
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	attr.event_handler = exs_link_qp_event;
	attr.qp_context = link;
	if (exs_fail_alloc(sizeof(attr)))
		return -ENOMEM;
	err = rdma_create_qp(link->cm_id, link->pd, &attr);
	if (err)
		return err;
	exs_link_set_qp(link, link->cm_id->qp);
	/* the device may grant less than we asked */
	WRITE_ONCE(link->inline_cap,
		   min_t(u32, attr.cap.max_inline_data, U16_MAX));
	/* under the lock: a stream's __exs_batch_add() reads batch_cap
	 * there before it finds the link closing
	 */
	spin_lock_bh(&link->lock);
	exs_batch_init(link);
	exs_link_tx_init(link);
	spin_unlock_bh(&link->lock);

	for (i = 0; i < link->rq_depth; i++) {
		struct exs_rx_slot *slot = &link->rx[i];

		slot->sge.addr = link->rx_msgs_dma + i * link->rx_size;
		slot->sge.length = link->rx_size;
		slot->sge.lkey = link->pd->local_dma_lkey;
		err = exs_link_post_recv(link, slot);
		if (err)
			return err;
	}
	return 0;
}

/* What exs_link_build() made, once the QP is destroyed and every
 * stream's registration in the PD is gone.  Process context.
 */
void exs_link_release(struct exs_link *link)
{
	struct exs_dev *dev = link->dev;

	exs_link_qp_events_end(link);
	if (dev) {
		if (link->scq)
			ib_cq_pool_put(link->scq, link->sq_room + 1);
		if (link->rcq)
			ib_cq_pool_put(link->rcq, link->rq_depth + 1);
		if (link->rx_msgs_dma)
			ib_dma_unmap_single(dev->ibdev, link->rx_msgs_dma,
					    link->rq_depth * link->rx_size,
					    DMA_FROM_DEVICE);
		/* after the QP and the MRs that live in it */
		if (link->pd)
			ib_dealloc_pd(link->pd);
		spin_lock_bh(&dev->lock);
		list_del_init(&link->dev_node);
		spin_unlock_bh(&dev->lock);
		link->dev = NULL;
		exs_dev_put(dev);
	}
	link->rx_msgs_dma = 0;
	link->pd = NULL;
	link->scq = NULL;
	link->rcq = NULL;
}
