/* SPDX-License-Identifier: GPL-2.0 */
/* Per-network-namespace AF_EXS state. */
#ifndef __EXS_NETNS_H
#define __EXS_NETNS_H

#include <linux/hashtable.h>
#include <linux/spinlock.h>
#include <net/net_namespace.h>

struct exs_mib;

/* The net.exs sysctls (sysctl.c); Documentation/af_exs/sysctl.rst */
struct exs_settings {
	int	connect_timeout_ms;	/* an RDMA attempt, before TCP */
	int	neg_cache_ttl_ms;	/* how long a failed peer stays on TCP */
	int	ring_size;		/* receive ring without SO_RCVBUF */
	int	busy_poll_us;		/* EXS_BUSY_POLL of a new socket */
};

struct exs_net {
	struct exs_mib __percpu	*mib;
	struct exs_settings	cfg;
	struct ctl_table_header	*sysctl;
	spinlock_t		neg_lock;	/* the negative cache */
	unsigned int		neg_count;
	DECLARE_HASHTABLE(neg, 6);
};

struct exs_net *exs_pernet(const struct net *net);

/* mib.c */
int exs_mib_net_init(struct net *net);
void exs_mib_net_exit(struct net *net);

/* sysctl.c */
int exs_sysctl_net_init(struct net *net);
void exs_sysctl_net_exit(struct net *net);

/* negcache.c: peers whose last RDMA attempt failed go to TCP for a while */
struct sockaddr;
bool exs_negcache_hit(struct net *net, const struct sockaddr *addr);
void exs_negcache_add(struct net *net, const struct sockaddr *addr);
void exs_negcache_net_init(struct net *net);
void exs_negcache_net_exit(struct net *net);

int exs_netns_init(void);
void exs_netns_exit(void);

#endif /* __EXS_NETNS_H */
