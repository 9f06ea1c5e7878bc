// SPDX-License-Identifier: GPL-2.0
/*
 * The negative cache: a peer (address and port) whose RDMA attempt was
 * refused goes straight to TCP until its entry expires
 * (net.exs.neg_cache_ttl_ms), so a host without an AF_EXS listener there
 * costs at most one attempt per TTL.  A host that never answered at all
 * (no AF_EXS, no RDMA stack) is remembered by its address, every port of
 * it, for longer (net.exs.neg_cache_host_ttl_ms): a web server or package
 * mirror costs one attempt, not one per port.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/jhash.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <net/ipv6.h>

#include "netns.h"
#include "protocol.h"

#define EXS_NEGCACHE_MAX	4096

struct exs_neg_entry {
	struct hlist_node	node;
	struct in6_addr		addr;	/* IPv4 as IPv4-mapped */
	__be16			port;	/* 0: every port (a host entry) */
	unsigned long		expires;
};

static u32 exs_neg_hash(const struct in6_addr *addr, __be16 port)
{
	return jhash2((const u32 *)addr, 4, (__force u32)port);
}

/* Called under neg_lock. */
static void exs_neg_del(struct exs_net *en, struct exs_neg_entry *e)
{
	hash_del(&e->node);
	en->neg_count--;
	kfree(e);
}

/* Called under neg_lock; drops expired entries on the way. */
static struct exs_neg_entry *exs_neg_find(struct exs_net *en,
					  const struct in6_addr *addr,
					  __be16 port, u32 hash)
{
	struct exs_neg_entry *e;
	struct hlist_node *tmp;

	hash_for_each_possible_safe(en->neg, e, tmp, node, hash) {
		if (time_after_eq(jiffies, e->expires)) {
			exs_neg_del(en, e);
			continue;
		}
		if (e->port == port && ipv6_addr_equal(&e->addr, addr))
			return e;
	}
	return NULL;
}

bool exs_negcache_hit(struct net *net, const struct sockaddr *sa)
{
	struct exs_net *en = exs_pernet(net);
	struct in6_addr addr;
	__be16 port;
	bool hit;

	exs_addr_to_v6(sa, &addr, &port);
	spin_lock_bh(&en->neg_lock);
	hit = exs_neg_find(en, &addr, 0, exs_neg_hash(&addr, 0)) ||
	      exs_neg_find(en, &addr, port, exs_neg_hash(&addr, port));
	spin_unlock_bh(&en->neg_lock);
	return hit;
}

/* @sa failed an RDMA attempt: its port, or (@host) the whole host, which
 * never answered.  neg_cache_ttl_ms 0 keeps no entry of either kind;
 * neg_cache_host_ttl_ms 0 keeps the port's instead of the host's.
 */
static void exs_negcache_add(struct net *net, const struct sockaddr *sa,
			     bool host)
{
	struct exs_net *en = exs_pernet(net);
	int ttl = READ_ONCE(en->cfg.neg_cache_ttl_ms);
	int host_ttl = READ_ONCE(en->cfg.neg_cache_host_ttl_ms);
	struct exs_neg_entry *e;
	struct in6_addr addr;
	__be16 port;
	u32 hash;

	if (ttl <= 0)
		return;
	exs_addr_to_v6(sa, &addr, &port);
	if (host && host_ttl > 0) {
		ttl = host_ttl;
		port = 0;
	}
	hash = exs_neg_hash(&addr, port);
	spin_lock_bh(&en->neg_lock);
	e = exs_neg_find(en, &addr, port, hash);
	if (!e && en->neg_count < EXS_NEGCACHE_MAX) {
		e = kzalloc(sizeof(*e), GFP_ATOMIC);
		if (e) {
			e->addr = addr;
			e->port = port;
			hash_add(en->neg, &e->node, hash);
			en->neg_count++;
		}
	}
	if (e)
		e->expires = jiffies + msecs_to_jiffies(ttl);
	spin_unlock_bh(&en->neg_lock);
}

/* A connect to @sa went to TCP for @reason, not for a while only (the
 * caller knows that): what says AF_EXS is not there keeps later connects
 * away.  A refusal or another protocol version is the port's; no answer
 * at all, the host's.
 */
void exs_negcache_failed(struct net *net, const struct sockaddr *sa,
			 enum exs_fallback_reason reason)
{
	switch (reason) {
	case EXS_FALLBACK_PEER_REJECT:
	case EXS_FALLBACK_VERSION:
		exs_negcache_add(net, sa, false);
		break;
	case EXS_FALLBACK_TIMEOUT:
	case EXS_FALLBACK_NO_ANSWER:
		exs_negcache_add(net, sa, true);
		break;
	default:
		break;
	}
}

void exs_negcache_net_init(struct net *net)
{
	struct exs_net *en = exs_pernet(net);

	spin_lock_init(&en->neg_lock);
	hash_init(en->neg);
}

/* Drop every entry, or (@all false) those of this host's own addresses
 * at @port and for every port.
 */
static void exs_neg_forget(struct net *net, bool all, __be16 port)
{
	struct exs_net *en = exs_pernet(net);
	struct exs_neg_entry *e;
	struct hlist_node *tmp;
	int bkt;

	spin_lock_bh(&en->neg_lock);
	hash_for_each_safe(en->neg, bkt, tmp, e, node)
		if (all || ((e->port == port || !e->port) &&
			    exs_addr_is_local(net, &e->addr)))
			exs_neg_del(en, e);
	spin_unlock_bh(&en->neg_lock);
}

/* Forget every failed peer: the map or the policy changed. */
void exs_negcache_flush(struct net *net)
{
	exs_neg_forget(net, true, 0);
}

/* A listener here took RDMA at @port: what the cache holds for this host's
 * own addresses at @port is wrong from now on (a client on this host,
 * looped back over RDMA, would stay on TCP for the rest of the TTL).
 */
void exs_negcache_forget_local(struct net *net, __be16 port)
{
	exs_neg_forget(net, false, port);
}
