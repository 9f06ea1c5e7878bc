// SPDX-License-Identifier: GPL-2.0
/*
 * The link dump (EXS_CMD_LINK_GET): every RDMA queue pair of a namespace
 * between this host and a peer host, with the streams on it and what
 * they moved.
 *
 * A link is a connection that owns its QP (one that is not a rider):
 * an unshared connection, a carrier with its riders, a parked QP, or a
 * carrier whose own stream ended (link_only).  Each is on its device's
 * list from the QP's creation to its teardown, so the dump walks the
 * devices' lists, under their locks and each link's own.
 */
#include <linux/af_exs.h>
#include <net/genetlink.h>
#include <net/ipv6.h>

#include "conn.h"
#include "diag.h"

/* Where @holder's link stands.  Called under holder->lock. */
static u8 exs_link_diag_state(const struct exs_conn *holder)
{
	/* a carrier whose own stream parked is up for its riders */
	if (holder->park == EXS_PARK_IDLE && !READ_ONCE(holder->link->nchans))
		return EXS_LINK_STATE_PARKED;
	if (holder->park == EXS_PARK_GONE || holder->torn_down)
		return EXS_LINK_STATE_CLOSING;
	if (holder->resume)
		return EXS_LINK_STATE_RESUMING;
	/* ...as is one whose own stream ended */
	if (holder->qp_closing ||
	    (holder->state == EXS_CONN_CLOSED && !holder->link_only))
		return EXS_LINK_STATE_CLOSING;
	if (holder->state == EXS_CONN_CONNECTING)
		return EXS_LINK_STATE_CONNECTING;
	return EXS_LINK_STATE_UP;
}

/* The streams on @holder's link: its own, unless it ended or parked, and its
 * riders'.  Called under holder->lock.
 */
static u32 exs_link_diag_streams(const struct exs_conn *holder)
{
	bool own = !holder->link_only && holder->park == EXS_PARK_NONE &&
		   holder->state != EXS_CONN_CLOSED;

	return own + READ_ONCE(holder->link->nchans);
}

static int exs_link_fill(struct sk_buff *skb, const struct exs_conn *holder)
{
	char devname[IB_DEVICE_NAME_MAX];
	const struct in6_addr *node = &holder->link->node;
	struct nlattr *nest;
	u64 tx_bytes;

	/* posted by any stream on it, under the link's lock */
	spin_lock(&holder->link->lock);
	tx_bytes = holder->link->tx_bytes;
	spin_unlock(&holder->link->lock);
	/* a rename may rewrite the name as we read it */
	strscpy(devname, holder->link->dev->ibdev->name, sizeof(devname));
	nest = nla_nest_start(skb, EXS_A_LINK);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, EXS_LINK_ID, holder->link->id) ||
	    (ipv6_addr_v4mapped(node) ?
	     nla_put_in_addr(skb, EXS_LINK_NODE, node->s6_addr32[3]) :
	     nla_put_in6_addr(skb, EXS_LINK_NODE, node)) ||
	    nla_put_u8(skb, EXS_LINK_FAMILY, holder->link->family) ||
	    nla_put_string(skb, EXS_LINK_DEVICE, devname) ||
	    nla_put_u8(skb, EXS_LINK_STATE, exs_link_diag_state(holder)) ||
	    nla_put_u8(skb, EXS_LINK_SHARED, holder->link->shared) ||
	    nla_put_u32(skb, EXS_LINK_STREAMS, exs_link_diag_streams(holder)) ||
	    nla_put_u64_64bit(skb, EXS_LINK_TX_BYTES, tx_bytes,
			      EXS_LINK_PAD) ||
	    nla_put_u64_64bit(skb, EXS_LINK_RX_BYTES, holder->link->rx_bytes,
			      EXS_LINK_PAD) ||
	    nla_put_u32(skb, EXS_LINK_RESUMES, holder->link->resumes) ||
	    nla_put_u8(skb, EXS_LINK_VERSION, holder->link->version)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

struct exs_link_walk {
	struct sk_buff			*skb;
	struct netlink_callback		*cb;
	const struct genl_family	*family;
	struct net			*net;
	unsigned long			idx;	/* the namespace's links so far */
	int				err;	/* the skb is full */
};

/* One message for @link, if it is the namespace's and not sent yet.
 * Called under its device's lock (exs_dev_each_link()), which keeps it
 * on the device's list and its device set.
 */
static void exs_link_dump_one(struct exs_link *link, void *arg)
{
	struct exs_conn *holder = link->holder;
	struct exs_link_walk *w = arg;
	void *hdr;

	if (w->err || !net_eq(link->net, w->net) ||
	    w->idx++ < w->cb->args[0])
		return;
	hdr = genlmsg_put(w->skb, NETLINK_CB(w->cb->skb).portid,
			  w->cb->nlh->nlmsg_seq, w->family, NLM_F_MULTI,
			  EXS_CMD_LINK_GET);
	if (!hdr) {
		w->err = -EMSGSIZE;
		return;
	}
	spin_lock(&holder->lock);
	w->err = exs_link_fill(w->skb, holder);
	spin_unlock(&holder->lock);
	if (w->err) {
		genlmsg_cancel(w->skb, hdr);
		return;
	}
	genlmsg_end(w->skb, hdr);
	w->cb->args[0]++;
}

/* One message per link; cb->args[0] is the next one's index among the
 * namespace's.  A link set up or gone during a dump may be missed or
 * seen twice, as a socket in the socket dump.
 */
int exs_link_diag_dump(struct sk_buff *skb, struct netlink_callback *cb,
		       const struct genl_family *family)
{
	struct exs_link_walk w = {
		.skb	= skb,
		.cb	= cb,
		.family	= family,
		.net	= sock_net(skb->sk),
	};

	exs_dev_each_link(exs_link_dump_one, &w);
	return skb->len;
}
