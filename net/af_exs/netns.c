// SPDX-License-Identifier: GPL-2.0
/* Per-network-namespace AF_EXS state: counters, settings, negative cache. */
#include <net/netns/generic.h>

#include "netns.h"

static unsigned int exs_net_id __read_mostly;

struct exs_net *exs_pernet(const struct net *net)
{
	return net_generic(net, exs_net_id);
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
