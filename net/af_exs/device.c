// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA devices: an ib_client that keeps the list of AF_EXS links on each
 * device, and ends them when the device goes away.
 */
#define pr_fmt(fmt) "af_exs: " fmt

#include <linux/delay.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "conn.h"
#include "mib.h"

static struct ib_client exs_ib_client;
static atomic_t exs_dev_count = ATOMIC_INIT(0);
/* every exs_dev, for the resume test (resume.c) */
static LIST_HEAD(exs_devs);
static DEFINE_SPINLOCK(exs_devs_lock);

/* Without any RDMA device, connect() goes to TCP at no cost at all. */
bool exs_dev_any(void)
{
	return atomic_read(&exs_dev_count) > 0;
}

/* iWARP devices are not used: iWARP's CM sets up each connection over a
 * TCP connection to the listener's own port, which the native TCP listener
 * holds, so the server's program would accept the MPA handshake as a TCP
 * client.  Until AF_EXS has a port scheme of its own for iWARP, a
 * connection that resolves to one goes to TCP (FallbackNoDevice) before
 * anything is sent.
 */
static bool exs_dev_usable(struct ib_device *ibdev)
{
	u32 port;

	rdma_for_each_port(ibdev, port)
		if (rdma_protocol_iwarp(ibdev, port))
			return false;
	return true;
}

static int exs_dev_add(struct ib_device *ibdev)
{
	struct exs_dev *dev;

	if (!exs_dev_usable(ibdev))
		return -EOPNOTSUPP;
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->ibdev = ibdev;
	refcount_set(&dev->ref, 1);
	init_completion(&dev->released);
	spin_lock_init(&dev->lock);
	INIT_LIST_HEAD(&dev->links);
	ib_set_client_data(ibdev, &exs_ib_client, dev);
	spin_lock_bh(&exs_devs_lock);
	list_add(&dev->node, &exs_devs);
	spin_unlock_bh(&exs_devs_lock);
	atomic_inc(&exs_dev_count);
	/* devices are not per namespace; their events count in init_net */
	EXS_INC_STATS(&init_net, EXS_MIB_DEVADDED);
	return 0;
}

/* Called before rdma_cm's own removal: end every link on the device
 * (exs_link_abort() only queues their holders' teardown, which destroys
 * the QPs, PDs and cm_ids and drops their device references), wait for
 * the last one.  A parked holder just ends, but the streams its link
 * still carries end as on any other link, with ENETDOWN (exs_park_end()),
 * and the link is counted.
 */
static void exs_dev_remove(struct ib_device *ibdev, void *data)
{
	struct exs_dev *dev = data;
	struct exs_link *link;

	atomic_dec(&exs_dev_count);
	EXS_INC_STATS(&init_net, EXS_MIB_DEVGONE);
	spin_lock_bh(&exs_devs_lock);
	list_del(&dev->node);
	spin_unlock_bh(&exs_devs_lock);
	spin_lock_bh(&dev->lock);
	WRITE_ONCE(dev->dying, true);
	list_for_each_entry(link, &dev->links, dev_node) {
		bool carried;

		if (!exs_park_end(link->holder, -ENETDOWN, &carried))
			exs_link_abort(link->holder, -ENETDOWN, false);
		else if (!carried)
			continue;	/* parked alone: no stream ended */
		/* once for the link, however many streams it carried */
		EXS_INC_STATS(link->net, EXS_MIB_DEVREMOVED);
	}
	spin_unlock_bh(&dev->lock);

	exs_dev_put(dev);
	wait_for_completion(&dev->released);
	kfree(dev);
}

static struct ib_client exs_ib_client = {
	.name	= "af_exs",
	.add	= exs_dev_add,
	.remove	= exs_dev_remove,
};

/* A reference on @ibdev's exs_dev, or NULL when it is going away. */
struct exs_dev *exs_dev_get(struct ib_device *ibdev)
{
	struct exs_dev *dev = ib_get_client_data(ibdev, &exs_ib_client);
	bool ok;

	if (!dev)
		return NULL;
	spin_lock_bh(&dev->lock);
	ok = !dev->dying && refcount_inc_not_zero(&dev->ref);
	spin_unlock_bh(&dev->lock);
	return ok ? dev : NULL;
}

void exs_dev_put(struct exs_dev *dev)
{
	if (refcount_dec_and_test(&dev->ref))
		complete(&dev->released);
}

/* Whether netdev @ifindex of @net, the one under a port (RoCE's, IPoIB's,
 * an iWARP device's), is down: 0 names none, and a netdev that is gone
 * is not down.
 */
bool exs_dev_port_down(struct net *net, int ifindex)
{
	struct net_device *ndev;
	bool down = false;

	if (!ifindex || !net)
		return false;
	rcu_read_lock();
	ndev = dev_get_by_index_rcu(net, ifindex);
	if (ndev)
		down = !netif_running(ndev) || !netif_carrier_ok(ndev);
	rcu_read_unlock();
	return down;
}

static bool exs_dev_id_port_down(struct rdma_cm_id *id)
{
	struct rdma_dev_addr *addr = &id->route.addr.dev_addr;

	return exs_dev_port_down(addr->net, addr->bound_dev_if);
}

/* Set at module exit, before exs_wq is flushed: no wait holds it. */
static bool exs_dev_stopping;

void exs_dev_stop_waits(void)
{
	WRITE_ONCE(exs_dev_stopping, true);
}

/* Before @id's QP is destroyed.  While a netdev is down, Soft-RoCE's
 * packets already handed to it stay in its queues, each holding a
 * reference on their QP, until it is up again; rxe_destroy_qp() waits
 * 50 s for them and then frees the QP under them (rxe_skb_tx_dtor's
 * refcount underflow once the port comes back).  So an rxe QP that was
 * up (one that never was handed the netdev nothing: an acceptor's failed
 * REQ, in rdma_cm's handler) waits for its port, however long the
 * outage, unless the device goes or the module is unloaded.  Other
 * devices keep their packets in hardware: no wait.  Process context,
 * never under a lock.
 */
void exs_dev_wait_port_up(struct exs_link *link, struct rdma_cm_id *id)
{
	struct exs_dev *dev = link->dev;

	might_sleep();
	if (!dev || !READ_ONCE(link->ifindex) ||
	    dev->ibdev->ops.driver_id != RDMA_DRIVER_RXE ||
	    !exs_dev_id_port_down(id))
		return;
	EXS_INC_STATS(link->net, EXS_MIB_PORTDOWNWAITS);
	while (!READ_ONCE(dev->dying) && !READ_ONCE(exs_dev_stopping) &&
	       exs_dev_id_port_down(id))
		msleep(250);
}

/* Call @fn on every link of every device, under the device's lock (its
 * holder's lock nests inside it).
 */
void exs_dev_each_link(void (*fn)(struct exs_link *link, void *arg),
		       void *arg)
{
	struct exs_link *link;
	struct exs_dev *dev;

	spin_lock_bh(&exs_devs_lock);
	list_for_each_entry(dev, &exs_devs, node) {
		spin_lock(&dev->lock);
		list_for_each_entry(link, &dev->links, dev_node)
			fn(link, arg);
		spin_unlock(&dev->lock);
	}
	spin_unlock_bh(&exs_devs_lock);
}

int exs_device_init(void)
{
	return ib_register_client(&exs_ib_client);
}

void exs_device_exit(void)
{
	ib_unregister_client(&exs_ib_client);
}
