// SPDX-License-Identifier: GPL-2.0
/* Per-network-namespace AF_EXS state: counters, settings, negative cache;
 * and which addresses are this host's in a namespace.
 */
#include <linux/in6.h>
#include <net/addrconf.h>
#include <net/ip6_route.h>
#include <net/netns/generic.h>
#include <net/route.h>

#include "netns.h"

static unsigned int exs_net_id __read_mostly;

struct exs_net *exs_pernet(const struct net *net)
{
	return net_generic(net, exs_net_id);
}

/* One of this host's addresses in @net?  Both lookups take the RCU read
 * lock themselves: callable under a spinlock (negcache.c), or in a
 * completion handler (accept.c).
 */
bool exs_addr_is_local(struct net *net, const struct in6_addr *addr)
{
	if (ipv6_addr_v4mapped(addr))
		return inet_addr_type(net, addr->s6_addr32[3]) == RTN_LOCAL;
	return ipv6_chk_addr(net, addr, NULL, 0);
}

/* Does @net route to @addr through a gateway?  RoCEv2 and iWARP would
 * follow it, but a peer behind a router is mostly not in the RDMA fabric
 * (a web server, a mirror), and its REQ would cross networks for nothing.
 * No route at all: no, the attempt finds that out as before.
 */
bool exs_addr_via_gateway(struct net *net, const struct in6_addr *addr)
{
	struct dst_entry *dst;
	struct rtable *rt;
	bool gw;

	if (ipv6_addr_v4mapped(addr)) {
		struct flowi4 fl4 = { .daddr = addr->s6_addr32[3] };

		rt = ip_route_output_key(net, &fl4);
		if (IS_ERR(rt))
			return false;
		gw = rt->rt_uses_gateway;
		ip_rt_put(rt);
	} else {
		struct flowi6 fl6 = { .daddr = *addr };

		dst = ip6_route_output(net, NULL, &fl6);
		gw = !dst->error &&
		     (container_of(dst, struct rt6_info, dst)->rt6i_flags &
		      RTF_GATEWAY);
		dst_release(dst);
	}
	return gw;
}

static int __net_init exs_net_init(struct net *net)
{
	struct exs_net *en = exs_pernet(net);
	int err;

	exs_negcache_net_init(net);
	exs_policy_net_init(net);
	spin_lock_init(&en->socks_lock);
	INIT_LIST_HEAD(&en->socks);
	err = exs_mib_net_init(net);
	if (err)
		return err;
	err = exs_sysctl_net_init(net);
	if (err)
		exs_mib_net_exit(net);
	return err;
}

static void __net_exit exs_net_exit(struct net *net)
{
	exs_sysctl_net_exit(net);
	exs_mib_net_exit(net);
	exs_negcache_flush(net);
	exs_policy_net_exit(net);
}

static struct pernet_operations exs_net_ops = {
	.init	= exs_net_init,
	.exit	= exs_net_exit,
	.id	= &exs_net_id,
	.size	= sizeof(struct exs_net),
};

int exs_netns_init(void)
{
	return register_pernet_subsys(&exs_net_ops);
}

void exs_netns_exit(void)
{
	unregister_pernet_subsys(&exs_net_ops);
}
