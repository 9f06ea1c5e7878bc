// SPDX-License-Identifier: GPL-2.0
/*
 * Ring memory: the receive ring and the send buffer (the peer's ring's
 * mirror) of every RDMA stream, which stay pinned while the stream, or
 * its parked QP, lives.
 *
 * Each is charged to the memory cgroup of the socket it serves (its
 * sk_memcg: where socket memory is accounted, as on cgroup v2), a
 * connector's own, an accepted stream's listener's, whichever context
 * allocates it (rdma_cm's handlers and exs_wq run in the root cgroup).
 *
 * What a peer makes this host allocate, the rings of a stream it asks a
 * listener for (REQ or JOIN), is bounded too: net.exs.ring_mem pages in
 * the namespace, net.exs.ring_mem_peer pages for one peer node, and the
 * initial namespace's ring_mem for the whole host (another namespace's
 * root sets its own limits, not the host's).  A stream past any is
 * refused (the connector goes to TCP) and counted (RingMemRefused);
 * RingMemPages is what accepted streams pin now.  A connector's rings
 * are its socket's, bounded by its memory cgroup alone.
 */
#include <linux/hashtable.h>
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "conn.h"
#include "fault.h"
#include "mem.h"
#include "mib.h"
#include "netns.h"

/* What one peer node's accepted streams pin in one namespace: an entry
 * lives while it is above 0.
 */
struct exs_mem_peer {
	struct hlist_node	node;
	const struct net	*net;	/* its streams hold a reference */
	struct in6_addr		addr;
	unsigned long		pages;
};

static DEFINE_HASHTABLE(exs_mem_peers, 6);
/* every namespace's accepted streams' pages */
static unsigned long exs_mem_host_pages;
/* guards exs_mem_peers, exs_mem_host_pages and every ring_pages */
static DEFINE_SPINLOCK(exs_mem_lock);

static unsigned long exs_mem_pages(u32 size)
{
	return 1UL << get_order(size);
}

static struct exs_mem_peer *exs_mem_peer_find(const struct net *net,
					      const struct in6_addr *addr,
					      u32 hash)
{
	struct exs_mem_peer *p;

	hash_for_each_possible(exs_mem_peers, p, node, hash)
		if (p->net == net && ipv6_addr_equal(&p->addr, addr))
			return p;
	return NULL;
}

/* Whether @pages more fit the host's, @en's and @p's (NULL: a peer with
 * none yet) limits.  Called under exs_mem_lock.
 */
static bool exs_mem_fits(const struct exs_net *en,
			 const struct exs_mem_peer *p, unsigned long pages)
{
	return exs_mem_host_pages + pages <=
	       READ_ONCE(exs_pernet(&init_net)->cfg.ring_mem) &&
	       en->ring_pages + pages <= READ_ONCE(en->cfg.ring_mem) &&
	       (p ? p->pages : 0) + pages <= READ_ONCE(en->cfg.ring_mem_peer);
}

/* Count @pages for accepted @conn against the host's, its namespace's
 * and its peer's limits: 0, or -ENOBUFS past any (counted).  Process
 * context.
 */
static int exs_mem_charge(struct exs_conn *conn, unsigned long pages)
{
	struct exs_net *en = exs_pernet(conn->net);
	u32 hash = exs_node_hash(conn->net, &conn->node);
	struct exs_mem_peer *p, *new = NULL;
	int err = 0;

again:
	spin_lock_bh(&exs_mem_lock);
	p = exs_mem_peer_find(conn->net, &conn->node, hash);
	if (!p && !new) {
		/* the peer's first stream here: an entry, then look again */
		spin_unlock_bh(&exs_mem_lock);
		new = kzalloc(sizeof(*new), GFP_KERNEL);
		if (!new)
			return -ENOMEM;
		goto again;
	}
	if (!exs_mem_fits(en, p, pages)) {
		err = -ENOBUFS;
	} else {
		if (!p) {
			p = new;
			new = NULL;
			p->net = conn->net;
			p->addr = conn->node;
			hash_add(exs_mem_peers, &p->node, hash);
		}
		p->pages += pages;
		WRITE_ONCE(en->ring_pages, en->ring_pages + pages);
		exs_mem_host_pages += pages;
		/* the same peer each time: the node is the link's */
		conn->mem_peer = p;
		conn->mem_pages += pages;
	}
	spin_unlock_bh(&exs_mem_lock);
	kfree(new);
	if (err)
		EXS_INC_STATS(conn->net, EXS_MIB_RINGMEMREFUSED);
	return err;
}

/* Whether an accepted stream from @node whose rings take at least @size
 * and @peer_size bytes fits now: a REQ past the limits is refused before
 * its queue pair is built (counted; else exs_mem_ring_alloc() decides,
 * and counts).
 */
bool exs_mem_room(struct net *net, const struct in6_addr *node, u32 size,
		  u32 peer_size)
{
	struct exs_net *en = exs_pernet(net);
	unsigned long pages = exs_mem_pages(size) + exs_mem_pages(peer_size);
	struct exs_mem_peer *p;
	bool room;

	spin_lock_bh(&exs_mem_lock);
	p = exs_mem_peer_find(net, node, exs_node_hash(net, node));
	room = exs_mem_fits(en, p, pages);
	spin_unlock_bh(&exs_mem_lock);
	if (!room)
		EXS_INC_STATS(net, EXS_MIB_RINGMEMREFUSED);
	return room;
}

/* Everything @conn counted goes back, as its rings are freed. */
void exs_mem_uncharge(struct exs_conn *conn)
{
	struct exs_net *en = exs_pernet(conn->net);
	struct exs_mem_peer *p = conn->mem_peer;

	if (!conn->mem_pages)
		return;
	spin_lock_bh(&exs_mem_lock);
	if (!WARN_ON_ONCE(p->pages < conn->mem_pages))
		p->pages -= conn->mem_pages;
	if (!p->pages) {
		hash_del(&p->node);
		kfree(p);
	}
	WRITE_ONCE(en->ring_pages,
		   en->ring_pages - min(en->ring_pages, conn->mem_pages));
	exs_mem_host_pages -= min(exs_mem_host_pages, conn->mem_pages);
	spin_unlock_bh(&exs_mem_lock);
	conn->mem_pages = 0;
	conn->mem_peer = NULL;
}

/* A ring of @size bytes for @conn, zeroed, charged to its memory cgroup
 * and, an accepted stream's, counted against the limits; or NULL.
 * Process context.
 */
void *exs_mem_ring_alloc(struct exs_conn *conn, u32 size)
{
	struct mem_cgroup *old;
	void *buf;

	if (exs_fail_alloc(size))
		return NULL;
	if (conn->passive && exs_mem_charge(conn, exs_mem_pages(size)))
		return NULL;
	old = set_active_memcg(conn->memcg);
	buf = (void *)__get_free_pages(GFP_KERNEL_ACCOUNT | __GFP_ZERO |
				       __GFP_NOWARN | __GFP_NORETRY,
				       get_order(size));
	set_active_memcg(old);
	/* the charge stays until the connection goes (exs_conn_free()) */
	return buf;
}

void exs_mem_ring_free(void *buf, u32 size)
{
	if (buf)
		free_pages((unsigned long)buf, get_order(size));
}

/* A reference on @memcg (NULL: none), for a connection's rings */
struct mem_cgroup *exs_mem_memcg_get(struct mem_cgroup *memcg)
{
#ifdef CONFIG_MEMCG
	if (memcg)
		css_get(&memcg->css);
	return memcg;
#else
	return NULL;
#endif
}

/* The memory cgroup @sk's buffers are charged to, with a reference: the
 * rings of the streams it makes or accepts; NULL for none (the root, or
 * no socket accounting).
 */
struct mem_cgroup *exs_mem_sock_memcg(struct sock *sk)
{
	return exs_mem_memcg_get(READ_ONCE(sk->sk_memcg));
}

