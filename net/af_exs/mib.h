/* SPDX-License-Identifier: GPL-2.0 */
/* Per-namespace AF_EXS counters, in the manner of MPTCP's MIB. */
#ifndef __EXS_MIB_H
#define __EXS_MIB_H

#include <linux/percpu.h>
#include <net/net_namespace.h>
#include <linux/af_exs.h>

enum exs_mib_field {
	EXS_MIB_ACTIVEOPEN,	/* connect() decided a transport */
	EXS_MIB_LISTEN,		/* listen() on an AF_EXS socket */
	EXS_MIB_ACCEPTTCP,	/* accept() handed out a plain TCP socket */
	EXS_MIB_ACCEPTKERN,	/* kernel_accept() wrapped a TCP child */
	/* one counter per enum exs_fallback_reason, in the same order */
	EXS_MIB_FALLBACK_BASE,
	EXS_MIB_MAX = EXS_MIB_FALLBACK_BASE + EXS_FALLBACK_MAX,
};

struct exs_mib {
	unsigned long mibs[EXS_MIB_MAX];
};

struct exs_net {
	struct exs_mib __percpu *mib;
};

struct exs_net *exs_pernet(const struct net *net);

static inline void EXS_INC_STATS(const struct net *net,
				 enum exs_mib_field field)
{
	this_cpu_inc(exs_pernet(net)->mib->mibs[field]);
}

static inline enum exs_mib_field
exs_mib_fallback(enum exs_fallback_reason reason)
{
	return EXS_MIB_FALLBACK_BASE + reason - 1;
}

unsigned long exs_mib_read(const struct net *net, enum exs_mib_field field);
const char *exs_mib_name(enum exs_mib_field field);
int exs_mib_init(void);
void exs_mib_exit(void);

#endif /* __EXS_MIB_H */
