// SPDX-License-Identifier: GPL-2.0
/*
 * MSG_ZEROCOPY on an RDMA socket, as TCP answers it.  A program that set
 * SO_ZEROCOPY and sends with MSG_ZEROCOPY waits for a notification on
 * the error queue before it reuses its buffer; TCP posts one for every
 * such send that sent anything (SO_EE_ORIGIN_ZEROCOPY, the range of send
 * ids it completes), with SO_EE_CODE_ZEROCOPY_COPIED when the kernel
 * copied after all (as TCP over loopback does).  The ring path copies
 * the user's bytes into the send buffer before sendmsg() returns, so the
 * buffer is free at once: the notification goes out then, saying
 * COPIED, through the kernel's own MSG_ZEROCOPY accounting (the send id,
 * RLIMIT_MEMLOCK, the notification's optmem, merging of ranges), and is
 * read by recvmsg(MSG_ERRQUEUE) in the layout TCP's IPv4 or IPv6 socket
 * gives it.  A merged socket is TCP's, and TCP answers.
 */
#include <linux/errqueue.h>
#include <linux/in6.h>
#include <linux/skbuff.h>
#include <net/sock.h>

#include "protocol.h"
#include "conn.h"

/* sendmsg() begins: the notification this send will complete, or NULL
 * when it is not a zero-copy send (without SO_ZEROCOPY TCP ignores the
 * flag).  ERR_PTR(-ENOBUFS) as TCP's, when no notification can be had
 * (optmem or RLIMIT_MEMLOCK).  A caller's own notification (io_uring's
 * SEND_ZC) never comes: the socket does not say SOCK_SUPPORT_ZC.  Under
 * the socket lock.
 */
struct ubuf_info *exs_zc_begin(struct sock *sk, struct msghdr *msg,
			       size_t len)
{
	struct ubuf_info *uarg;

	if (WARN_ON_ONCE(msg->msg_ubuf))
		return ERR_PTR(-EOPNOTSUPP);
	if (!(msg->msg_flags & MSG_ZEROCOPY) || !len ||
	    !sock_flag(sk, SOCK_ZEROCOPY))
		return NULL;
	uarg = msg_zerocopy_realloc(sk, len, NULL);
	return uarg ?: ERR_PTR(-ENOBUFS);
}

/* sendmsg() ends, having copied @copied bytes: they are in the send
 * buffer, so the notification goes now, as a copy's, and wakes whoever
 * polls for it (the kernel's error report wakes the AF_EXS sock's own
 * queue, which nobody waits on: conn.c).  A send that sent nothing gives
 * its id back, as TCP's does.
 */
void exs_zc_end(struct exs_sock *exs, struct ubuf_info *uarg, size_t copied)
{
	if (IS_ERR_OR_NULL(uarg))
		return;
	if (!copied) {
		net_zcopy_put_abort(uarg, true);
		return;
	}
	uarg_to_msgzc(uarg)->zerocopy = 0;
	net_zcopy_put(uarg);
	exs_wake(exs, EPOLLERR);
}

/* recvmsg(MSG_ERRQUEUE): what ip_recv_error() or ipv6_recv_error() gives
 * for a notification on TCP's socket of the same family: the extended
 * error and an offender all zeros (nothing was received from anyone), at
 * SOL_IP/IP_RECVERR or SOL_IPV6/IPV6_RECVERR; no address.  EAGAIN when
 * the queue is empty.
 */
int exs_recv_errqueue(struct exs_sock *exs, struct msghdr *msg, size_t len)
{
	struct sock *sk = &exs->sk;
	struct sock_exterr_skb *serr;
	struct sk_buff *skb;
	struct {
		struct sock_extended_err ee;
		union {
			struct sockaddr_in	v4;
			struct sockaddr_in6	v6;
		} offender;
	} errhdr;
	bool v6 = exs->native->sk->sk_family == AF_INET6;
	int copied, err;

	skb = sock_dequeue_err_skb(sk);
	if (!skb)
		return -EAGAIN;
	copied = min_t(size_t, skb->len, len);
	if (copied < skb->len)
		msg->msg_flags |= MSG_TRUNC;
	err = skb_copy_datagram_msg(skb, 0, msg, copied);
	if (err) {
		kfree_skb(skb);
		return err;
	}
	sock_recv_timestamp(msg, sk, skb);

	serr = SKB_EXT_ERR(skb);
	memset(&errhdr, 0, sizeof(errhdr));
	errhdr.ee = serr->ee;
	if (v6)
		put_cmsg(msg, SOL_IPV6, IPV6_RECVERR,
			 sizeof(errhdr.ee) + sizeof(errhdr.offender.v6),
			 &errhdr);
	else
		put_cmsg(msg, SOL_IP, IP_RECVERR,
			 sizeof(errhdr.ee) + sizeof(errhdr.offender.v4),
			 &errhdr);
	msg->msg_flags |= MSG_ERRQUEUE;
	consume_skb(skb);
	return copied;
}
