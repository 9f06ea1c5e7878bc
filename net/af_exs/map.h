/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host-to-node map: which peers connect() tries over RDMA, at which
 * RDMA address, on which ports.  A map is immutable once built; writers
 * build a new one and swap the namespace's pointer (policy.c), so a
 * connect() sees the old map or the new one, never half of either.
 */
#ifndef __EXS_MAP_H
#define __EXS_MAP_H

#include <linux/in6.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <linux/af_exs.h>

struct exs_port_range {
	u16	min, max;
};

struct exs_map_entry {
	struct in6_addr	prefix;		/* IPv4 as IPv4-mapped */
	struct in6_addr	node;		/* likewise; :: for the peer's own */
	u8		plen;		/* as given: 0..32 for IPv4 */
	u8		family;		/* AF_INET or AF_INET6, of the prefix */
	u8		n_allow;	/* ranges[0..n_allow) */
	u8		n_deny;		/* then n_deny more */
	struct exs_port_range ranges[EXS_MAP_MAX_RANGES];
};

struct exs_map {
	struct rcu_head		rcu;
	unsigned int		n;
	struct exs_map_entry	e[];	/* longest prefix first */
};

const char *exs_map_key_check(const struct exs_map_entry *e);
const char *exs_map_entry_check(const struct exs_map_entry *e);
bool exs_map_entry_same(const struct exs_map_entry *a,
			const struct exs_map_entry *b);
struct exs_map *exs_map_build(const struct exs_map *old,
			      const struct exs_map_entry *add,
			      unsigned int n_add,
			      const struct exs_map_entry *del);
const struct exs_map_entry *exs_map_lookup(const struct exs_map *map,
					   const struct in6_addr *addr);
bool exs_map_port_ok(const struct exs_map_entry *e, u16 port);

#endif /* __EXS_MAP_H */
