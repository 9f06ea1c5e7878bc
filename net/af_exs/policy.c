// SPDX-License-Identifier: GPL-2.0
/*
 * The namespace's map and policy, and the decision connect() takes from
 * them before anything else: RDMA, and at which address, or TCP at once.
 *
 * Readers run under RCU and never block a writer; writers serialise on
 * cfg_lock and publish a complete new map with one pointer store.  The
 * map is read only by connect(), so established connections never notice
 * a change.
 */
#include <linux/err.h>
#include <linux/slab.h>
#include <net/ipv6.h>

#include "map.h"
#include "netns.h"
#include "protocol.h"

/* How connect() to @dst starts: EXS_FALLBACK_NONE and the RDMA address
 * in @node, or EXS_FALLBACK_POLICY.  *@named: the map named @dst, so
 * RDMA may go there even through a gateway (exs_addr_via_gateway()).
 */
enum exs_fallback_reason exs_policy_route(struct net *net,
					  const struct sockaddr *dst,
					  struct sockaddr_storage *node,
					  bool *named)
{
	struct exs_net *en = exs_pernet(net);
	enum exs_fallback_reason reason = EXS_FALLBACK_NONE;
	const struct exs_map_entry *e = NULL;
	u8 policy = READ_ONCE(en->policy);
	const struct exs_map *map;
	struct in6_addr addr;
	__be16 port;

	*named = false;
	if (policy == EXS_POLICY_OFF)
		return EXS_FALLBACK_POLICY;
	exs_addr_to_v6(dst, &addr, &port);

	rcu_read_lock();
	map = rcu_dereference(en->map);
	if (map)
		e = exs_map_lookup(map, &addr);
	*named = !!e;
	if (e && exs_map_port_ok(e, ntohs(port)))
		exs_addr_from_v6(ipv6_addr_any(&e->node) ? &addr : &e->node,
				 port, node);
	else if (e || policy == EXS_POLICY_MAP)
		reason = EXS_FALLBACK_POLICY;
	else
		exs_addr_from_v6(&addr, port, node);
	rcu_read_unlock();
	return reason;
}

/* Publish @map (NULL: empty), under cfg_lock.  Peers the negative cache
 * holds get another chance: the map that sent them there is gone.
 */
static void exs_policy_publish(struct net *net, struct exs_map *map)
{
	struct exs_net *en = exs_pernet(net);
	struct exs_map *old;

	old = rcu_replace_pointer(en->map, map,
				  lockdep_is_held(&en->cfg_lock));
	if (old)
		kvfree_rcu(old, rcu);
	exs_negcache_flush(net);
}

/* Replace the map with @n entries, add one (@n 1, @replace false), or
 * with @del delete one.  The entries are checked by the caller.
 */
int exs_policy_map_change(struct net *net, const struct exs_map_entry *add,
			  unsigned int n, const struct exs_map_entry *del,
			  bool replace)
{
	struct exs_net *en = exs_pernet(net);
	struct exs_map *map, *old;
	int err = 0;

	mutex_lock(&en->cfg_lock);
	old = rcu_dereference_protected(en->map,
					lockdep_is_held(&en->cfg_lock));
	map = exs_map_build(replace ? NULL : old, add, n, del);
	if (IS_ERR(map))
		err = PTR_ERR(map);
	else
		exs_policy_publish(net, map);
	mutex_unlock(&en->cfg_lock);
	return err;
}

void exs_policy_set(struct net *net, enum exs_policy policy)
{
	struct exs_net *en = exs_pernet(net);

	mutex_lock(&en->cfg_lock);
	WRITE_ONCE(en->policy, policy);
	exs_negcache_flush(net);
	mutex_unlock(&en->cfg_lock);
}

/* Walk the map for a dump: the entry at @idx, copied, or -ENOENT. */
int exs_policy_map_entry(struct net *net, unsigned int idx,
			 struct exs_map_entry *e)
{
	struct exs_net *en = exs_pernet(net);
	const struct exs_map *map;
	int err = -ENOENT;

	rcu_read_lock();
	map = rcu_dereference(en->map);
	if (map && idx < map->n) {
		*e = map->e[idx];
		err = 0;
	}
	rcu_read_unlock();
	return err;
}

void exs_policy_net_init(struct net *net)
{
	struct exs_net *en = exs_pernet(net);

	mutex_init(&en->cfg_lock);
	en->policy = EXS_POLICY_AUTO;
}

void exs_policy_net_exit(struct net *net)
{
	struct exs_net *en = exs_pernet(net);

	kvfree(rcu_dereference_protected(en->map, true));
}
