// SPDX-License-Identifier: GPL-2.0
/*
 * Building and matching host-to-node maps.  Pure functions on immutable
 * maps, tested by KUnit (map_test.c); policy.c owns the namespace's map.
 *
 * A map holds at most EXS_MAP_MAX_ENTRIES entries, sorted longest prefix
 * first, so the first entry that matches is the longest match.  A linear
 * scan of a few hundred entries costs less than the rdma_cm exchange it
 * decides on, and keeps the structure trivially swappable.
 */
#include <linux/err.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/socket.h>
#include <net/ipv6.h>

#include "map.h"

static bool exs_map_v4(const struct exs_map_entry *e)
{
	return e->family == AF_INET;
}

/* A node: unicast, or :: for "the peer's own address". */
static bool exs_map_node_usable(const struct in6_addr *a)
{
	if (ipv6_addr_any(a))
		return true;
	if (ipv6_addr_v4mapped(a)) {
		__be32 v4 = a->s6_addr32[3];

		return !ipv4_is_zeronet(v4) && !ipv4_is_multicast(v4) &&
		       !ipv4_is_lbcast(v4);
	}
	return !(ipv6_addr_type(a) & IPV6_ADDR_MULTICAST);
}

/* NULL, or why the entry's key (prefix and length) means nothing. */
const char *exs_map_key_check(const struct exs_map_entry *e)
{
	unsigned int max_plen = e->family == AF_INET ? 32 : 128;
	struct in6_addr masked;

	if (e->family != AF_INET && e->family != AF_INET6)
		return "prefix is neither IPv4 nor IPv6";
	if (ipv6_addr_v4mapped(&e->prefix) != exs_map_v4(e))
		return "IPv4-mapped prefix: give the IPv4 address";
	if (e->plen > max_plen)
		return "prefix length too long for the address";
	ipv6_addr_prefix(&masked, &e->prefix,
			 e->family == AF_INET ? 96 + e->plen : e->plen);
	if (!ipv6_addr_equal(&masked, &e->prefix))
		return "prefix has bits set past its length";
	return NULL;
}

/* NULL, or why no lookup could use the entry as its writer meant. */
const char *exs_map_entry_check(const struct exs_map_entry *e)
{
	const char *why = exs_map_key_check(e);
	unsigned int i;

	if (why)
		return why;
	if (!exs_map_node_usable(&e->node))
		return "node is not a unicast address";
	if (e->n_allow + e->n_deny > EXS_MAP_MAX_RANGES)
		return "too many port ranges";
	for (i = 0; i < e->n_allow + e->n_deny; i++)
		if (!e->ranges[i].min || e->ranges[i].min > e->ranges[i].max)
			return "port range is empty or starts at 0";
	return NULL;
}

/* The same key: one prefix of one length. */
bool exs_map_entry_same(const struct exs_map_entry *a,
			const struct exs_map_entry *b)
{
	return a->family == b->family && a->plen == b->plen &&
	       ipv6_addr_equal(&a->prefix, &b->prefix);
}

static unsigned int exs_map_bits(const struct exs_map_entry *e)
{
	return e->family == AF_INET ? 96 + e->plen : e->plen;
}

static int exs_map_cmp(const void *a, const void *b)
{
	return (int)exs_map_bits(b) - (int)exs_map_bits(a);
}

/* A new map: @old's entries except the one like @del, plus @n_add from
 * @add.  ERR_PTR(-EEXIST) if a key repeats, -ENOENT if @del is not
 * there, -E2BIG past EXS_MAP_MAX_ENTRIES; NULL for an empty map.
 */
struct exs_map *exs_map_build(const struct exs_map *old,
			      const struct exs_map_entry *add,
			      unsigned int n_add,
			      const struct exs_map_entry *del)
{
	unsigned int i, j, n = 0, n_old = old ? old->n : 0;
	bool deleted = false;
	struct exs_map *map;

	if (n_old + n_add > EXS_MAP_MAX_ENTRIES + !!del)
		return ERR_PTR(-E2BIG);
	map = kvzalloc(struct_size(map, e, n_old + n_add), GFP_KERNEL);
	if (!map)
		return ERR_PTR(-ENOMEM);

	for (i = 0; i < n_old; i++) {
		if (del && exs_map_entry_same(&old->e[i], del)) {
			deleted = true;
			continue;
		}
		map->e[n++] = old->e[i];
	}
	if (del && !deleted)
		goto err_noent;
	if (n + n_add > EXS_MAP_MAX_ENTRIES)
		goto err_big;
	for (i = 0; i < n_add; i++) {
		for (j = 0; j < n; j++)
			if (exs_map_entry_same(&map->e[j], &add[i]))
				goto err_exist;
		map->e[n++] = add[i];
	}
	if (!n) {
		kvfree(map);
		return NULL;
	}
	map->n = n;
	sort(map->e, n, sizeof(map->e[0]), exs_map_cmp, NULL);
	return map;

err_noent:
	kvfree(map);
	return ERR_PTR(-ENOENT);
err_big:
	kvfree(map);
	return ERR_PTR(-E2BIG);
err_exist:
	kvfree(map);
	return ERR_PTR(-EEXIST);
}

/* The longest prefix holding @addr (IPv4 as IPv4-mapped), or NULL. */
const struct exs_map_entry *exs_map_lookup(const struct exs_map *map,
					   const struct in6_addr *addr)
{
	bool v4 = ipv6_addr_v4mapped(addr);
	unsigned int i;

	for (i = 0; i < map->n; i++) {
		const struct exs_map_entry *e = &map->e[i];

		if (v4 == exs_map_v4(e) &&
		    ipv6_prefix_equal(addr, &e->prefix, exs_map_bits(e)))
			return e;
	}
	return NULL;
}

static bool exs_ranges_hold(const struct exs_port_range *r, unsigned int n,
			    u16 port)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (port >= r[i].min && port <= r[i].max)
			return true;
	return false;
}

/* Allowed: in an allow range (or there are none) and in no deny range. */
bool exs_map_port_ok(const struct exs_map_entry *e, u16 port)
{
	if (e->n_allow && !exs_ranges_hold(e->ranges, e->n_allow, port))
		return false;
	return !exs_ranges_hold(e->ranges + e->n_allow, e->n_deny, port);
}
