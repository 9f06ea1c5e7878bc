// SPDX-License-Identifier: GPL-2.0
/* net.exs sysctls, per network namespace (Documentation/af_exs/sysctl.rst). */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>

#include "netns.h"
#include "protocol.h"
#include "ring.h"
#include "compat.h"

static int exs_timeout_min = 1;
static int exs_timeout_max = 600000;
/* Below the CM's own REQ timeout (16 tries, at least 4 s apart with
 * rdma_cm's constants): a connector's id destroyed as its REQ's last try
 * times out meets an ib_cm race (overview.rst, "Accepting over RDMA").
 */
static int exs_connect_timeout_max = 60000;
/* the stall bound: above any retry's round on a live path */
static int exs_stall_timeout_min = 1000;
static int exs_ttl_max = 3600000;
static int exs_ring_min = EXS_RING_MIN;
static int exs_ring_max = EXS_RING_MAX;
static int exs_busy_poll_max = EXS_BUSY_POLL_MAX;
static int exs_inline_max = EXS_INLINE_MAX;
static int exs_fraction_max = EXS_ACK_FRACTION_MAX;
static int exs_ack_timeout_max = 31;	/* IB's 5-bit field */

static struct ctl_table exs_sysctl_template[] = {
	{
		.procname	= "connect_timeout_ms",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &exs_timeout_min,
		.extra2		= &exs_connect_timeout_max,
	},
	{
		.procname	= "neg_cache_ttl_ms",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &exs_ttl_max,
	},
	{
		.procname	= "ring_size",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &exs_ring_min,
		.extra2		= &exs_ring_max,
	},
	{
		.procname	= "busy_poll_us",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &exs_busy_poll_max,
	},
	{
		.procname	= "inline_threshold",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &exs_inline_max,
	},
	{
		.procname	= "delayed_ack_fraction",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ONE,
		.extra2		= &exs_fraction_max,
	},
	{
		.procname	= "ack_timeout",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &exs_ack_timeout_max,
	},
	{
		.procname	= "reuse_idle_ms",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &exs_timeout_max,
	},
	{
		.procname	= "share_qp",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "ring_mem",	/* pages, as tcp_mem */
		.maxlen		= sizeof(unsigned long),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
	},
	{
		.procname	= "ring_mem_peer",
		.maxlen		= sizeof(unsigned long),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
	},
	{
		.procname	= "neg_cache_host_ttl_ms",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &exs_ttl_max,
	},
	{
		.procname	= "connect_race_ms",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &exs_connect_timeout_max,
	},
	{
		.procname	= "stall_timeout_ms",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &exs_stall_timeout_min,
		.extra2		= &exs_timeout_max,
	},
	{ }
};

int exs_sysctl_net_init(struct net *net)
{
	struct exs_net *en = exs_pernet(net);
	struct ctl_table *table;

	en->cfg.connect_timeout_ms = 5000;
	en->cfg.neg_cache_ttl_ms = 10000;
	en->cfg.neg_cache_host_ttl_ms = 60000;
	/* RFC 8305's Connection Attempt Delay: a REQ's answer (REP or REJ)
	 * takes a round trip and the peer's setup of a queue pair, well
	 * under this on hardware
	 */
	en->cfg.connect_race_ms = 250;
	en->cfg.ring_size = 256 << 10;
	en->cfg.inline_threshold = EXS_INLINE_DEFAULT;
	en->cfg.delayed_ack_fraction = EXS_ACK_FRACTION_DEFAULT;
	en->cfg.reuse_idle_ms = 10000;
	en->cfg.share_qp = 1;
	en->cfg.stall_timeout_ms = 60000;
	/* pinned, unlike TCP's buffers (tcp_mem's largest default is about
	 * 3/32 of memory, for the host): a quarter of memory for the
	 * namespace (the initial one's: the host's), an eighth for one peer
	 */
	en->cfg.ring_mem = totalram_pages() / 4;
	en->cfg.ring_mem_peer = totalram_pages() / 8;

	table = kmemdup(exs_sysctl_template, sizeof(exs_sysctl_template),
			GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	table[0].data = &en->cfg.connect_timeout_ms;
	table[1].data = &en->cfg.neg_cache_ttl_ms;
	table[2].data = &en->cfg.ring_size;
	table[3].data = &en->cfg.busy_poll_us;
	table[4].data = &en->cfg.inline_threshold;
	table[5].data = &en->cfg.delayed_ack_fraction;
	table[6].data = &en->cfg.ack_timeout;
	table[7].data = &en->cfg.reuse_idle_ms;
	table[8].data = &en->cfg.share_qp;
	table[9].data = &en->cfg.ring_mem;
	table[10].data = &en->cfg.ring_mem_peer;
	table[11].data = &en->cfg.neg_cache_host_ttl_ms;
	table[12].data = &en->cfg.connect_race_ms;
	table[13].data = &en->cfg.stall_timeout_ms;

	en->sysctl = exs_register_net_sysctl(net, "net/exs", table,
					     ARRAY_SIZE(exs_sysctl_template) - 1);
	if (!en->sysctl) {
		kfree(table);
		return -ENOMEM;
	}
	return 0;
}

void exs_sysctl_net_exit(struct net *net)
{
	struct exs_net *en = exs_pernet(net);
	const struct ctl_table *table = en->sysctl->ctl_table_arg;

	unregister_net_sysctl_table(en->sysctl);
	kfree(table);
}
