// SPDX-License-Identifier: GPL-2.0
/*
 * The ports AF_EXS listens on for RDMA, and the listeners on each.
 *
 * A listener's requests come through the cm_id listening on its address
 * and port, in rdma_cm's port space, which one cm_id holds at a time.
 * Listeners of one SO_REUSEPORT group (as TCP groups them: the same
 * namespace, port, address, family, IPV6_V6ONLY and bound device, all
 * with the option and one uid) share the first one's port, a struct
 * exs_lport with that cm_id, and each request is handed to one of them
 * by a hash of the peer's TCP-level address and port, as TCP spreads
 * SYNs over a group (without a reuseport BPF program, which wants the
 * SYN's packet).  So are the OPENs and JOINs that reach the port over a
 * parked or shared link.  The lport is the cm_id's context, so it lives
 * until the cm_id is gone, which goes with the group's last listener.
 *
 * exs_listen_mutex serialises every change to the table and to a port's
 * members, so that a group's listeners that listen at once, or one that
 * listens while its group's last leaves, meet in one group, never on two
 * cm_ids (the second of which rdma_cm refuses).  Requests read both under
 * RCU: a pick takes one slot of the members' array, whatever the group's
 * size, and a port's table bucket is keyed by its namespace too.  The
 * mutex comes after a socket's lock; no handler takes it.
 */
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/memcontrol.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <net/netns/hash.h>

#include "protocol.h"
#include "conn.h"

static DEFINE_HASHTABLE(exs_lports, 8);
static DEFINE_MUTEX(exs_listen_mutex);

static u32 exs_lport_hash(const struct net *net, __be16 port)
{
	return jhash_1word((__force u32)port, net_hash_mix(net));
}

/* The listener lives until its socket closed and no child points to it;
 * a request may still look at it for a grace period.
 */
void exs_listener_put(struct exs_listener *lsn)
{
	if (refcount_dec_and_test(&lsn->ref)) {
		mem_cgroup_put(lsn->memcg);
		kfree_rcu(lsn, rcu);
	}
}

/* Does the request fit a listener on @k, as a TCP SYN would? */
static bool exs_lkey_fits(const struct exs_lkey *k,
			  const struct exs_wire_peer *peer)
{
	/* a resume names its connection's own port, whichever listener
	 * it reaches (exs_share_resume_port())
	 */
	if (peer->dport != k->port && !peer->resume)
		return false;
	if (k->family == AF_INET)
		return peer->family == AF_INET;
	return peer->family == AF_INET6 || !k->v6only;
}

/* Whether a listener on @k, bound to @daddr's address or to any, would
 * take a TCP segment for @daddr.
 */
static bool exs_lkey_addr_ok(const struct exs_lkey *k,
			     const struct in6_addr *daddr)
{
	return ipv6_addr_any(&k->addr) || ipv6_addr_equal(&k->addr, daddr) ||
	       (ipv6_addr_v4mapped(&k->addr) &&
		k->addr.s6_addr32[3] == htonl(INADDR_ANY));
}

bool exs_request_fits(const struct exs_listener *lsn,
		      const struct exs_wire_peer *peer)
{
	return exs_lkey_fits(&lsn->lport->key, peer);
}

bool exs_listener_addr_ok(const struct exs_listener *lsn,
			  const struct in6_addr *daddr)
{
	return exs_lkey_addr_ok(&lsn->lport->key, daddr);
}

/* Listeners on @a and @b would be one SO_REUSEPORT group on TCP. */
static bool exs_lkey_grouped(const struct exs_lkey *a,
			     const struct exs_lkey *b)
{
	return a->port == b->port && a->family == b->family &&
	       a->v6only == b->v6only && ipv6_addr_equal(&a->addr, &b->addr) &&
	       a->bound_dev_if == b->bound_dev_if &&
	       a->reuseport && b->reuseport && uid_eq(a->uid, b->uid);
}

/* @lport's members and @lsn, in a new array for readers to find.  Under
 * exs_listen_mutex.
 */
static int exs_lport_add(struct exs_lport *lport, struct exs_listener *lsn)
{
	struct exs_lmembers *old, *new;
	unsigned int n;

	old = rcu_dereference_protected(lport->members,
					lockdep_is_held(&exs_listen_mutex));
	n = old ? old->n : 0;
	/* TCP's groups stop there too (sock_reuseport.c); the rest listen
	 * for TCP alone.  The array is the listening program's to pay for.
	 */
	if (n >= U16_MAX)
		return -ENOSPC;
	new = kzalloc(struct_size(new, m, n + 1), GFP_KERNEL_ACCOUNT);
	if (!new)
		return -ENOMEM;
	if (n)
		memcpy(new->m, old->m, n * sizeof(new->m[0]));
	new->m[n] = lsn;
	new->n = n + 1;
	lsn->lport = lport;
	rcu_assign_pointer(lport->members, new);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

/* @lsn out of @lport's members, in place: the last member takes its
 * slot, then the count drops.  A reader that still counted it, or read
 * its slot before, finds a listener freed only after a grace period.
 * Under exs_listen_mutex; false when @lsn was the last.
 */
static bool exs_lport_del(struct exs_lport *lport, struct exs_listener *lsn)
{
	struct exs_lmembers *ms;
	unsigned int i;

	ms = rcu_dereference_protected(lport->members,
				       lockdep_is_held(&exs_listen_mutex));
	for (i = 0; i < ms->n; i++) {
		if (ms->m[i] != lsn)
			continue;
		WRITE_ONCE(ms->m[i], ms->m[ms->n - 1]);
		WRITE_ONCE(ms->n, ms->n - 1);
		break;
	}
	return ms->n;
}

/* The group @key belongs to, listening, in @net; or NULL.  Under
 * exs_listen_mutex.
 */
static struct exs_lport *exs_lport_group(struct net *net,
					 const struct exs_lkey *key)
{
	struct exs_lport *lport;

	hash_for_each_possible(exs_lports, lport, hnode,
			       exs_lport_hash(net, key->port))
		if (net_eq(lport->net, net) && READ_ONCE(lport->id) &&
		    exs_lkey_grouped(&lport->key, key))
			return lport;
	return NULL;
}

static void exs_lport_remove_work(struct work_struct *work)
{
	struct exs_lport *lport = container_of(work, struct exs_lport,
					       remove_work);
	struct rdma_cm_id *id = xchg(&lport->id, NULL);

	if (id)
		rdma_destroy_id(id);
}

/* A cm_id of its own for @lsn, listening on @addr, in a new lport. */
static int exs_lport_create(struct exs_listener *lsn,
			    const struct exs_lkey *key, struct sockaddr *addr,
			    int backlog, rdma_cm_event_handler handler)
{
	struct exs_lport *lport;
	struct rdma_cm_id *id;
	int err;

	lport = kzalloc(sizeof(*lport), GFP_KERNEL_ACCOUNT);
	if (!lport)
		return -ENOMEM;
	lport->ctx.listener = true;
	lport->net = lsn->net;
	lport->key = *key;
	INIT_WORK(&lport->remove_work, exs_lport_remove_work);

	/* a member, and its cm_id known, before requests or the device's
	 * removal can come (from rdma_listen() on)
	 */
	err = exs_lport_add(lport, lsn);
	if (err)
		goto err_free;
	id = rdma_create_id(lsn->net, handler, &lport->ctx, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id)) {
		err = PTR_ERR(id);
		goto err_free;
	}
	WRITE_ONCE(lport->id, id);
	err = key->family == AF_INET6 ? rdma_set_afonly(id, key->v6only) : 0;
	if (!err)
		err = rdma_bind_addr(id, addr);
	if (!err)
		err = rdma_listen(id, backlog);
	if (err)
		goto err_id;
	hash_add_rcu(exs_lports, &lport->hnode,
		     exs_lport_hash(lport->net, key->port));
	return 0;

err_id:
	/* the remove work, if the device went meanwhile, destroys it */
	id = xchg(&lport->id, NULL);
	if (id)
		rdma_destroy_id(id);
	cancel_work_sync(&lport->remove_work);
err_free:
	lsn->lport = NULL;
	kfree(rcu_dereference_protected(lport->members, true));
	kfree(lport);
	return err;
}

/* @lsn listens for RDMA on @key's port at @addr: in the group of
 * listeners already there (its native socket could bind beside theirs,
 * so TCP's rule let it), or on a cm_id of its own.  0, or rdma_cm's
 * error.
 */
int exs_listener_listen(struct exs_listener *lsn, const struct exs_lkey *key,
			struct sockaddr *addr, int backlog,
			rdma_cm_event_handler handler)
{
	struct exs_lport *lport;
	int err;

	mutex_lock(&exs_listen_mutex);
	lport = exs_lport_group(lsn->net, key);
	if (lport)
		err = exs_lport_add(lport, lsn);
	else
		err = exs_lport_create(lsn, key, addr, backlog, handler);
	mutex_unlock(&exs_listen_mutex);
	return err;
}

/* @lsn closes: no request is handed to it from now on (one that picked
 * it before finds it closed: exs_child_reserve()), and the group's last
 * listener takes the cm_id with it.  No handler runs once the cm_id is
 * gone, so none queues the remove work after it is cancelled, nor looks
 * at the lport after its grace period.
 */
void exs_listener_leave(struct exs_listener *lsn)
{
	struct exs_lport *lport = lsn->lport;
	struct exs_lmembers *ms;
	struct rdma_cm_id *id;

	mutex_lock(&exs_listen_mutex);
	if (!exs_lport_del(lport, lsn)) {
		hash_del_rcu(&lport->hnode);
		id = xchg(&lport->id, NULL);
		if (id)
			rdma_destroy_id(id);
		cancel_work_sync(&lport->remove_work);
		ms = rcu_dereference_protected(lport->members,
					       lockdep_is_held(&exs_listen_mutex));
		kfree_rcu(ms, rcu);
		kfree_rcu(lport, rcu);
	}
	mutex_unlock(&exs_listen_mutex);
}

/* Which of a group's @n listeners takes the connection @peer asks for. */
static u32 exs_listener_spread(const struct exs_wire_peer *peer, u32 n)
{
	static u32 seed __read_mostly;

	net_get_random_once(&seed, sizeof(seed));
	return reciprocal_scale(jhash2((__force const u32 *)peer->saddr.s6_addr32,
				       4, seed ^ (__force u32)peer->sport), n);
}

static struct exs_listener *__exs_listener_pick(struct exs_lport *lport,
						const struct exs_wire_peer *peer)
{
	struct exs_listener *lsn = NULL;
	struct exs_lmembers *ms;
	unsigned int n;

	rcu_read_lock();
	ms = rcu_dereference(lport->members);
	n = ms ? READ_ONCE(ms->n) : 0;
	if (n) {
		lsn = READ_ONCE(ms->m[exs_listener_spread(peer, n)]);
		if (!refcount_inc_not_zero(&lsn->ref))
			lsn = NULL;
	}
	rcu_read_unlock();
	return lsn;
}

/* Closed: its socket let it go (exs_rdma_unlisten(), which took it out
 * of its port's members first; its lock orders the two for us).
 */
static bool exs_listener_closed(struct exs_listener *lsn)
{
	bool closed;

	spin_lock_bh(&lsn->lock);
	closed = !lsn->owner;
	spin_unlock_bh(&lsn->lock);
	return closed;
}

/* The listener on @lport that takes @peer's connection, with a
 * reference; NULL when every one has closed.  One of a group that closed
 * just now leaves the others: refusing the request as for no listener
 * would keep the connector off the port (its negative cache).  Any
 * context; under a conn->lock, the listener's lock comes after it.
 */
struct exs_listener *exs_listener_pick(struct exs_lport *lport,
				       const struct exs_wire_peer *peer)
{
	struct exs_listener *lsn = __exs_listener_pick(lport, peer);

	if (lsn && exs_listener_closed(lsn)) {
		exs_listener_put(lsn);
		lsn = __exs_listener_pick(lport, peer);
	}
	return lsn;
}

/* The listener an OPEN or a JOIN names, as rdma_cm finds the cm_id a REQ
 * goes to: the port, and the address it is bound to, if any (a port
 * still listening before one whose device went); then, in its group,
 * the one a REQ from there would go to.  With a reference, or NULL.
 */
struct exs_listener *exs_listener_find(struct net *net,
				       const struct exs_wire_peer *peer)
{
	struct exs_lport *lport, *found = NULL;
	struct exs_listener *lsn = NULL;

	rcu_read_lock();
	hash_for_each_possible_rcu(exs_lports, lport, hnode,
				   exs_lport_hash(net, peer->dport)) {
		if (!net_eq(lport->net, net) ||
		    !exs_lkey_fits(&lport->key, peer) ||
		    !exs_lkey_addr_ok(&lport->key, &peer->daddr))
			continue;
		found = found ?: lport;
		if (READ_ONCE(lport->id)) {
			found = lport;
			break;
		}
	}
	if (found)
		lsn = exs_listener_pick(found, peer);
	rcu_read_unlock();
	return lsn;
}

/* The device under @lport's cm_id @id went away: its listeners serve TCP
 * alone from now on.  From its handler: the destroy runs in a work item.
 */
void exs_lport_removed(struct exs_lport *lport, struct rdma_cm_id *id)
{
	if (id == READ_ONCE(lport->id))
		queue_work(exs_wq, &lport->remove_work);
}
