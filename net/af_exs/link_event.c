// SPDX-License-Identifier: GPL-2.0
/*
 * A link's events (link.h): its QP's, which the driver raises, and its
 * cm_id's once the QP is up, which rdma_cm raises.  Either concerns the
 * QP every stream on the link posts on, so the link takes them and
 * tells its streams: today through the stream that built it (its
 * holder), whose end or resume takes the others along (share.c).
 */
#define pr_fmt(fmt) "af_exs: " fmt

#include "conn.h"

/* @qp is @link's QP from now (NULL: none).  Each change bumps qp_gen
 * after it, so an event of a QP read before the change is known for old
 * news (exs_link_qp_event_work()).  By the QP's builder, its resume or
 * its teardown, which the holder's work serialises.
 */
void exs_link_set_qp(struct exs_link *link, struct ib_qp *qp)
{
	WRITE_ONCE(link->qp, qp);
	/* pairs with the event's acquire: who sees this generation sees
	 * this QP, or a later one
	 */
	smp_store_release(&link->qp_gen, link->qp_gen + 1);
}

/* The queue pair's own events, in whatever context the driver raises
 * them: only its failures matter, and they are acted on in process
 * context, with a reference on the link.  The event names a QP alive as
 * it runs: one a resume replaced is dropped here, and the work knows a
 * QP replaced since by the generation noted.  The QP is destroyed, and
 * the work cancelled (exs_link_qp_events_end()), before the holder whose
 * lock it takes is freed.
 */
void exs_link_qp_event(struct ib_event *ev, void *context)
{
	struct exs_link *link = context;
	u32 gen;

	switch (ev->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		/* pairs with exs_link_set_qp(): the QP read next is the
		 * generation's, or a later one's
		 */
		gen = smp_load_acquire(&link->qp_gen);
		if (ev->element.qp != READ_ONCE(link->qp))
			break;
		WRITE_ONCE(link->qp_event, ev->event);
		WRITE_ONCE(link->event_gen, gen);
		refcount_inc(&link->ref);
		if (!queue_work(exs_wq, &link->qp_event_work))
			refcount_dec(&link->ref);	/* queued: never the last */
		break;
	default:
		break;
	}
}

/* A request or access error is the peer's doing; the device's own failure
 * is worth a new QP.  An event of a QP replaced or gone since is old news.
 */
void exs_link_qp_event_work(struct work_struct *work)
{
	struct exs_link *link = container_of(work, struct exs_link,
					     qp_event_work);
	enum ib_event_type event = READ_ONCE(link->qp_event);
	bool fatal = event == IB_EVENT_QP_FATAL;
	struct exs_conn *holder = link->holder;

	spin_lock_bh(&holder->lock);
	/* qp_closing is set before the teardown clears link->qp */
	if (READ_ONCE(link->event_gen) == smp_load_acquire(&link->qp_gen) &&
	    READ_ONCE(link->qp) && !holder->qp_closing) {
		pr_warn_ratelimited("queue pair failed (%s)%s\n",
				    ib_event_msg(event),
				    fatal ? "" : ", connection reset");
		if (fatal)
			exs_conn_qp_failed(holder, -ECONNRESET);
		else
			__exs_link_abort(holder, -ECONNRESET, true);
	}
	spin_unlock_bh(&holder->lock);
	exs_link_put(link);
}

/* @link's QP is destroyed: no event comes after this, and none waits. */
void exs_link_qp_events_end(struct exs_link *link)
{
	if (cancel_work_sync(&link->qp_event_work))
		exs_link_put(link);	/* the event's: never the last */
}

/* rdma_cm's events of @link's cm_id once its QP is up (the handshake's
 * own are its builder's: connect.c, accept.c).  The peer's disconnect
 * ends the QP under every stream, as the device's removal does.
 */
void exs_link_cm_event(struct exs_link *link, enum rdma_cm_event_type event)
{
	switch (event) {
	case RDMA_CM_EVENT_DISCONNECTED:
		exs_conn_disconnected(link->holder);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		exs_link_abort(link->holder, -ENETDOWN, false);
		break;
	default:
		break;
	}
}
