// SPDX-License-Identifier: GPL-2.0
/*
 * The socket dump (EXS_CMD_SOCK_GET): every AF_EXS socket of a namespace,
 * its four-tuple, transport, state and, on RDMA, its rings, bytes and
 * link.
 */
#include <net/genetlink.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "protocol.h"
#include "conn.h"
#include "netns.h"
#include "diag.h"

void exs_diag_link(struct exs_sock *exs)
{
	struct exs_net *en = exs_pernet(sock_net(&exs->sk));

	spin_lock_bh(&en->socks_lock);
	list_add_tail(&exs->node, &en->socks);
	spin_unlock_bh(&en->socks_lock);
}

void exs_diag_unlink(struct exs_sock *exs)
{
	struct exs_net *en = exs_pernet(sock_net(&exs->sk));

	spin_lock_bh(&en->socks_lock);
	list_del_init(&exs->node);
	spin_unlock_bh(&en->socks_lock);
}

/* Up to EXS_DIAG_BATCH sockets from the @idx-th on, held: one walk of
 * the list per batch rather than per socket.  How many.
 */
#define EXS_DIAG_BATCH	32

static unsigned int exs_diag_get(struct net *net, unsigned long idx,
				 struct exs_sock **batch)
{
	struct exs_net *en = exs_pernet(net);
	struct exs_sock *exs;
	unsigned int n = 0;

	spin_lock_bh(&en->socks_lock);
	list_for_each_entry(exs, &en->socks, node) {
		if (idx) {
			idx--;
			continue;
		}
		sock_hold(&exs->sk);
		batch[n++] = exs;
		if (n == EXS_DIAG_BATCH)
			break;
	}
	spin_unlock_bh(&en->socks_lock);
	return n;
}

/* Both ends: the RDMA connection's, else the native socket's (before an
 * RDMA attempt settles, its destination is connect()'s).
 */
static void exs_diag_tuple(struct exs_sock *exs, struct exs_wire_peer *t)
{
	struct sock *nsk = exs->native->sk;
	const struct inet_sock *inet = inet_sk(nsk);

	if (exs_on_rdma(exs)) {
		*t = exs->conn->self;
		return;
	}
	t->family = nsk->sk_family;
	t->sport = htons(inet->inet_num);
	t->dport = inet->inet_dport;
	ipv6_addr_set_v4mapped(inet->inet_rcv_saddr, &t->saddr);
	ipv6_addr_set_v4mapped(inet->inet_daddr, &t->daddr);
#if IS_ENABLED(CONFIG_IPV6)
	if (nsk->sk_family == AF_INET6) {
		t->saddr = nsk->sk_v6_rcv_saddr;
		t->daddr = nsk->sk_v6_daddr;
	}
#endif
	if (exs->cstate == EXS_CS_CONNECTING)
		exs_addr_to_v6((struct sockaddr *)&exs->daddr, &t->daddr,
			       &t->dport);
}

static int exs_diag_put_addr(struct sk_buff *skb, int type,
			     const struct in6_addr *a)
{
	if (ipv6_addr_v4mapped(a))
		return nla_put_in_addr(skb, type, a->s6_addr32[3]);
	return nla_put_in6_addr(skb, type, a);
}

static int exs_diag_fill(struct sk_buff *skb, struct exs_sock *exs)
{
	struct exs_info info = {};
	struct exs_wire_peer t = {};
	struct nlattr *nest;
	u8 state, ack_timeout;

	exs_sock_info(exs, &info);
	exs_diag_tuple(exs, &t);
	state = exs_on_rdma(exs) || info.exsi_listening ?
		exs->sk.sk_state : exs->native->sk->sk_state;
	if (exs->cstate == EXS_CS_CONNECTING)
		state = TCP_SYN_SENT;
	if (info.exsi_listening)
		state = TCP_LISTEN;

	nest = nla_nest_start(skb, EXS_A_SOCK);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, EXS_SOCK_INODE, sock_i_ino(&exs->sk),
			      EXS_SOCK_PAD) ||
	    nla_put_u8(skb, EXS_SOCK_FAMILY, info.exsi_native_family) ||
	    exs_diag_put_addr(skb, EXS_SOCK_SADDR, &t.saddr) ||
	    exs_diag_put_addr(skb, EXS_SOCK_DADDR, &t.daddr) ||
	    nla_put_u16(skb, EXS_SOCK_SPORT, ntohs(t.sport)) ||
	    nla_put_u16(skb, EXS_SOCK_DPORT, ntohs(t.dport)) ||
	    nla_put_u8(skb, EXS_SOCK_TRANSPORT, info.exsi_transport) ||
	    nla_put_u8(skb, EXS_SOCK_STATE, state) ||
	    nla_put_u8(skb, EXS_SOCK_FALLBACK, info.exsi_fallback_reason))
		goto cancel;
	if (info.exsi_transport == EXS_TRANSPORT_RDMA &&
	    (nla_put_u32(skb, EXS_SOCK_RX_RING, info.exsi_rx_ring) ||
	     nla_put_u32(skb, EXS_SOCK_TX_RING, info.exsi_tx_ring) ||
	     nla_put_u32(skb, EXS_SOCK_RX_QUEUED, info.exsi_rx_queued) ||
	     nla_put_u32(skb, EXS_SOCK_TX_QUEUED, info.exsi_tx_queued) ||
	     nla_put_u32(skb, EXS_SOCK_TX_CREDIT, info.exsi_tx_credit) ||
	     nla_put_u64_64bit(skb, EXS_SOCK_BYTES_SENT,
			       info.exsi_bytes_sent, EXS_SOCK_PAD) ||
	     nla_put_u64_64bit(skb, EXS_SOCK_BYTES_RECEIVED,
			       info.exsi_bytes_received, EXS_SOCK_PAD)))
		goto cancel;
	/* its link's, which a resume may set meanwhile */
	ack_timeout = exs_on_rdma(exs) ?
		      READ_ONCE(exs->conn->link->ack_timeout) : 0;
	if (ack_timeout &&
	    nla_put_u8(skb, EXS_SOCK_ACK_TIMEOUT, ack_timeout))
		goto cancel;
	/* its own QP's link, or its carrier's (link_diag.c) */
	if (exs_on_rdma(exs) &&
	    nla_put_u32(skb, EXS_SOCK_LINK,
			exs->conn->link->id))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* One message for @exs; nothing for a socket closed since it was found. */
static int exs_diag_one(struct sk_buff *skb, struct netlink_callback *cb,
			const struct genl_family *family, struct exs_sock *exs)
{
	void *hdr;
	int err = 0;

	lock_sock(&exs->sk);
	/* closing: an RDMA socket lets its connection go (exs->conn NULL)
	 * a lock section before its native socket
	 */
	if (exs->native && (!exs_on_rdma(exs) || exs->conn)) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, family, NLM_F_MULTI,
				  EXS_CMD_SOCK_GET);
		err = hdr ? exs_diag_fill(skb, exs) : -EMSGSIZE;
		if (!err)
			genlmsg_end(skb, hdr);
		else if (hdr)
			genlmsg_cancel(skb, hdr);
	}
	release_sock(&exs->sk);
	return err;
}

/* One message per socket; cb->args[0] is the next one's index.  A socket
 * opened or closed during a dump may be missed or seen twice, as with
 * /proc/net/tcp.
 */
int exs_diag_dump(struct sk_buff *skb, struct netlink_callback *cb,
		  const struct genl_family *family)
{
	struct exs_sock *batch[EXS_DIAG_BATCH];
	struct net *net = sock_net(skb->sk);
	unsigned int n, i;
	int err = 0;

	do {
		n = exs_diag_get(net, cb->args[0], batch);
		for (i = 0; i < n; i++) {
			/* a full skb: the rest of the batch is only put */
			if (!err)
				err = exs_diag_one(skb, cb, family, batch[i]);
			if (!err)
				cb->args[0]++;
			sock_put(&batch[i]->sk);
		}
	} while (n == EXS_DIAG_BATCH && !err);
	return skb->len;
}
