// SPDX-License-Identifier: GPL-2.0
/*
 * Busy polling for epoll.  The kernel's epoll busy polling
 * (net.core.busy_poll, 6.9's per-epoll EPIOCSPARAMS) spins only for a
 * socket whose sk_napi_id names a NAPI context, a NIC queue's on TCP; an
 * RDMA socket has none, so its waiter always slept.  AF_EXS registers one
 * NAPI context on a dummy device and gives every RDMA socket its id.
 * Its poll has no packets to take: the waiter spins in napi_busy_loop()
 * until the completion handler's wakeup puts the socket on the ready
 * list (ep_busy_loop_end()), and so takes its data without the sleep and
 * the wakeup.  The bottom halves the loop turns on between rounds run
 * whatever completion work is pending on the spinning CPU there and then;
 * completions raised on other CPUs run there, as without it.  poll() and
 * select() spun already (sk_ll_usec, SO_BUSY_POLL); they now call this
 * poll too.  A merged socket is TCP's, with its NIC's id.
 */
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/busy_poll.h>
#include <net/sock.h>

#include "protocol.h"

static struct net_device *exs_napi_dev;
static struct napi_struct exs_napi;

static int exs_napi_poll(struct napi_struct *napi, int budget)
{
	/* no packets of ours: the bottom-half toggles around this call did
	 * the work.  Completing with 0 ends the context's turn once the
	 * busy loop stops (inside it, napi_complete_done() does nothing).
	 */
	napi_complete_done(napi, 0);
	return 0;
}

/* @sk is on RDMA from now on: the kernel's busy polling spins for it. */
void exs_busy_poll_mark(struct sock *sk)
{
#ifdef CONFIG_NET_RX_BUSY_POLL
	WRITE_ONCE(sk->sk_napi_id, exs_napi.napi_id);
#endif
}

int exs_busy_poll_init(void)
{
#ifdef EXS_HAVE_ALLOC_NETDEV_DUMMY
	exs_napi_dev = alloc_netdev_dummy(0);
	if (!exs_napi_dev)
		return -ENOMEM;
#else
	exs_napi_dev = kzalloc(sizeof(*exs_napi_dev), GFP_KERNEL);
	if (!exs_napi_dev)
		return -ENOMEM;
	init_dummy_netdev(exs_napi_dev);
#endif
	netif_napi_add(exs_napi_dev, &exs_napi, exs_napi_poll);
	napi_enable(&exs_napi);
	return 0;
}

/* Once no socket is left: a busy loop in progress holds the RCU read
 * lock over its NAPI lookup, which netif_napi_del() waits out.
 */
void exs_busy_poll_exit(void)
{
	napi_disable(&exs_napi);
	netif_napi_del(&exs_napi);
#ifdef EXS_HAVE_ALLOC_NETDEV_DUMMY
	free_netdev(exs_napi_dev);
#else
	kfree(exs_napi_dev);
#endif
}
