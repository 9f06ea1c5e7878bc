/* SPDX-License-Identifier: GPL-2.0 */
/* Per-network-namespace AF_EXS state. */
#ifndef __EXS_NETNS_H
#define __EXS_NETNS_H

#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <net/net_namespace.h>
#include <linux/af_exs.h>

struct exs_mib;

/* The net.exs sysctls (sysctl.c); Documentation/af_exs/sysctl.rst */
struct exs_settings {
	int	connect_timeout_ms;	/* an RDMA attempt, before TCP */
	int	neg_cache_ttl_ms;	/* how long a failed peer stays on TCP */
	int	neg_cache_host_ttl_ms;	/* ...a host that never answered */
	int	connect_race_ms;	/* a REQ's answer awaited, before TCP */
	int	ring_size;		/* receive ring without SO_RCVBUF */
	int	busy_poll_us;		/* EXS_BUSY_POLL of a new socket */
	int	inline_threshold;	/* EXS_INLINE of a new socket */
	int	delayed_ack_fraction;	/* credits every 1/N of the ring */
	int	ack_timeout;		/* the QPs' local ACK timeout; 0: CM's */
	int	reuse_idle_ms;		/* a parked QP waits; 0: no reuse */
	int	share_qp;		/* connections share a QP (share.c) */
	int	stall_timeout_ms;	/* a request unacked: the QP is dead */
	/* mem.c: what accepted streams' rings may pin, in pages */
	unsigned long	ring_mem;	/* in the namespace */
	unsigned long	ring_mem_peer;	/* ...for one peer node */
};

struct exs_map;

/* Locks: cfg_lock (a mutex, writers of map and policy, and stats-reset)
 * is taken before neg_lock (a map change empties the negative cache);
 * neg_lock and socks_lock are BH spinlocks and leaves.  The socket dump
 * takes no socket lock under socks_lock: it holds references, drops it,
 * then locks each socket.
 */
struct exs_net {
	struct exs_mib __percpu	*mib;
	struct exs_mib		*mib_base;	/* the values at the last reset */
	struct exs_settings	cfg;
	struct ctl_table_header	*sysctl;
	struct exs_map __rcu	*map;		/* map.c; NULL when empty */
	u8			policy;		/* enum exs_policy */
	struct mutex		cfg_lock;	/* map and policy writers */
	spinlock_t		socks_lock;
	struct list_head	socks;		/* every AF_EXS sock, for dumps */
	spinlock_t		neg_lock;	/* the negative cache */
	unsigned int		neg_count;
	DECLARE_HASHTABLE(neg, 6);
	/* mem.c: pages accepted streams' rings pin, under its lock */
	unsigned long		ring_pages;
};

struct exs_net *exs_pernet(const struct net *net);

/* how long an RDMA connection may take to come up, either side */
static inline int exs_connect_timeout_ms(const struct net *net)
{
	return READ_ONCE(exs_pernet(net)->cfg.connect_timeout_ms);
}

/* How long a request may await its ack before its QP counts as dead
 * (keepalive.c, link_watch.c): TCP's retransmission timer's bound.
 */
static inline unsigned long exs_stall_timeout(const struct net *net)
{
	return msecs_to_jiffies(READ_ONCE(exs_pernet(net)->cfg.stall_timeout_ms));
}

/* mib.c */
int exs_mib_net_init(struct net *net);
void exs_mib_net_exit(struct net *net);

/* sysctl.c */
int exs_sysctl_net_init(struct net *net);
void exs_sysctl_net_exit(struct net *net);

/* negcache.c: peers whose last RDMA attempt failed go to TCP for a while */
struct sockaddr;
bool exs_negcache_hit(struct net *net, const struct sockaddr *addr);
void exs_negcache_failed(struct net *net, const struct sockaddr *addr,
			 enum exs_fallback_reason reason);
void exs_negcache_net_init(struct net *net);
void exs_negcache_flush(struct net *net);
void exs_negcache_forget_local(struct net *net, __be16 port);

/* policy.c: the map and policy connect() consults */
struct exs_map_entry;
enum exs_fallback_reason exs_policy_route(struct net *net,
					  const struct sockaddr *dst,
					  struct sockaddr_storage *node,
					  bool *named);
int exs_policy_map_change(struct net *net, const struct exs_map_entry *add,
			  unsigned int n, const struct exs_map_entry *del,
			  bool replace);
int exs_policy_map_entry(struct net *net, unsigned int idx,
			 struct exs_map_entry *e);
void exs_policy_set(struct net *net, enum exs_policy policy);
void exs_policy_net_init(struct net *net);
void exs_policy_net_exit(struct net *net);

/* netlink.c */
int exs_netlink_init(void);
void exs_netlink_exit(void);

/* netns.c */
int exs_netns_init(void);
void exs_netns_exit(void);
bool exs_addr_is_local(struct net *net, const struct in6_addr *addr);
bool exs_addr_via_gateway(struct net *net, const struct in6_addr *addr);

#endif /* __EXS_NETNS_H */
