/* SPDX-License-Identifier: GPL-2.0 */
/* Ring memory: charged to a memory cgroup, bounded for peers (mem.c). */
#ifndef __EXS_MEM_H
#define __EXS_MEM_H

#include <linux/types.h>

struct exs_conn;
struct in6_addr;
struct mem_cgroup;
struct net;
struct sock;

bool exs_mem_room(struct net *net, const struct in6_addr *node, u32 size,
		  u32 peer_size);
void *exs_mem_ring_alloc(struct exs_conn *conn, u32 size);
void exs_mem_ring_free(void *buf, u32 size);
void exs_mem_uncharge(struct exs_conn *conn);
struct mem_cgroup *exs_mem_memcg_get(struct mem_cgroup *memcg);
struct mem_cgroup *exs_mem_sock_memcg(struct sock *sk);

#endif /* __EXS_MEM_H */
