// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA devices: an ib_client that keeps the list of AF_EXS connections on
 * each device, and ends them when the device goes away.
 */
#define pr_fmt(fmt) "af_exs: " fmt

#include <linux/slab.h>
#include <rdma/ib_verbs.h>

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
	INIT_LIST_HEAD(&dev->conns);
	ib_set_client_data(ibdev, &exs_ib_client, dev);
	spin_lock_bh(&exs_devs_lock);
	list_add(&dev->node, &exs_devs);
	spin_unlock_bh(&exs_devs_lock);
	atomic_inc(&exs_dev_count);
	/* devices are not per namespace; their events count in init_net */
	EXS_INC_STATS(&init_net, EXS_MIB_DEVADDED);
	return 0;
}

/* Called before rdma_cm's own removal: end every connection on the device
 * (exs_link_abort() only queues their teardown, which destroys the QPs,
 * PDs and cm_ids and drops their device references), wait for the last
 * one.
 */
static void exs_dev_remove(struct ib_device *ibdev, void *data)
{
	struct exs_dev *dev = data;
	struct exs_conn *conn;

	atomic_dec(&exs_dev_count);
	EXS_INC_STATS(&init_net, EXS_MIB_DEVGONE);
	spin_lock_bh(&exs_devs_lock);
	list_del(&dev->node);
	spin_unlock_bh(&exs_devs_lock);
	spin_lock_bh(&dev->lock);
	dev->dying = true;
	list_for_each_entry(conn, &dev->conns, dev_node) {
		if (exs_park_end(conn))
			continue;
		EXS_INC_STATS(conn->net, EXS_MIB_DEVREMOVED);
		exs_link_abort(conn, -ENETDOWN, false);
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

/* Call @fn on every connection of every device, under the device's lock
 * (conn->lock nests inside it).
 */
void exs_dev_each_conn(void (*fn)(struct exs_conn *conn, void *arg),
		       void *arg)
{
	struct exs_conn *conn;
	struct exs_dev *dev;

	spin_lock_bh(&exs_devs_lock);
	list_for_each_entry(dev, &exs_devs, node) {
		spin_lock(&dev->lock);
		list_for_each_entry(conn, &dev->conns, dev_node)
			fn(conn, arg);
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
