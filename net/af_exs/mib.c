// SPDX-License-Identifier: GPL-2.0
/*
 * Per-namespace AF_EXS counters, shown in /proc/net/exs_stat as
 * "Name value" lines and by EXS_CMD_STATS_GET.  Each is incremented at the
 * one place its event happens.
 *
 * A reset (EXS_CMD_STATS_RESET) records the current sums as a baseline
 * rather than writing other CPUs' counters, which would race with their
 * unlocked increments.  A gauge (RingMemPages) is a value now, which no
 * reset touches.
 */
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "mib.h"

static const char * const exs_mib_names[EXS_MIB_MAX] = {
	[EXS_MIB_ACTIVEOPEN]	= "ActiveOpen",
	[EXS_MIB_LISTEN]	= "Listen",
	[EXS_MIB_ACCEPTTCP]	= "AcceptTcp",
	[EXS_MIB_ACCEPTKERN]	= "AcceptKernel",
	[EXS_MIB_CONNECTRDMA]	= "ConnectRdma",
	[EXS_MIB_ACCEPTRDMA]	= "AcceptRdma",
	[EXS_MIB_RDMAREJECT]	= "RdmaReject",
	[EXS_MIB_RDMAWRITES]	= "RdmaWrites",
	[EXS_MIB_CREDITUPDATES]	= "CreditUpdates",
	[EXS_MIB_CREDITSTALLS]	= "CreditStalls",
	[EXS_MIB_PROTOERR]	= "ProtocolErrors",
	[EXS_MIB_DEVREMOVED]	= "DeviceRemoved",
	[EXS_MIB_BUSYPOLLHIT]	= "BusyPollHit",
	[EXS_MIB_INLINEWRITES]	= "InlineWrites",
	[EXS_MIB_BYTESOUT]	= "RdmaBytesOut",
	[EXS_MIB_BYTESIN]	= "RdmaBytesIn",
	[EXS_MIB_MSGSOUT]	= "CtrlMsgsOut",
	[EXS_MIB_MSGSIN]	= "CtrlMsgsIn",
	[EXS_MIB_ABORTS]	= "RdmaAborts",
	[EXS_MIB_STALLS]	= "RdmaStalls",
	[EXS_MIB_DEVADDED]	= "DeviceAdded",
	[EXS_MIB_DEVGONE]	= "DeviceGone",
	[EXS_MIB_LISTENTCPONLY]	= "ListenTcpOnly",
	[EXS_MIB_PARKED]	= "Parked",
	[EXS_MIB_CONNECTREUSE]	= "ConnectReuse",
	[EXS_MIB_ACCEPTREUSE]	= "AcceptReuse",
	[EXS_MIB_PARKEXPIRED]	= "ParkExpired",
	[EXS_MIB_RESUMES]	= "RdmaResumes",
	[EXS_MIB_RESUMEFAILS]	= "RdmaResumeFails",
	[EXS_MIB_QPFAILTESTS]	= "TestQpFailures",
	[EXS_MIB_CONNECTSHARED]	= "ConnectShared",
	[EXS_MIB_ACCEPTSHARED]	= "AcceptShared",
	[EXS_MIB_LINKRESUMES]	= "RdmaLinkResumes",
	[EXS_MIB_BATCHES]	= "RdmaBatches",
	[EXS_MIB_BATCHEDWRITES]	= "RdmaBatchedWrites",
	[EXS_MIB_CONNECTLINKWAIT] = "ConnectLinkWait",
	[EXS_MIB_PORTDOWNWAITS]	= "RdmaPortDownWaits",
	[EXS_MIB_BADSOURCE]	= "AcceptBadSource",
	[EXS_MIB_BADDEST]	= "AcceptBadDest",
	[EXS_MIB_RINGMEMREFUSED] = "RingMemRefused",
	[EXS_MIB_LINKFENCED]	= "RdmaLinkFenced",
	[EXS_MIB_URGSENT]	= "UrgentSent",
	[EXS_MIB_URGRCVD]	= "UrgentReceived",
	[EXS_MIB_URGINBAND]	= "UrgentInBand",
	[EXS_MIB_RINGMEMPAGES]	= "RingMemPages",
	[EXS_MIB_FALLBACK_BASE + EXS_FALLBACK_NO_RDMA - 1]	= "FallbackNoRdma",
	[EXS_MIB_FALLBACK_BASE + EXS_FALLBACK_NO_DEVICE - 1]	= "FallbackNoDevice",
	[EXS_MIB_FALLBACK_BASE + EXS_FALLBACK_PEER_REJECT - 1]	= "FallbackPeerReject",
	[EXS_MIB_FALLBACK_BASE + EXS_FALLBACK_TIMEOUT - 1]	= "FallbackTimeout",
	[EXS_MIB_FALLBACK_BASE + EXS_FALLBACK_VERSION - 1]	= "FallbackVersion",
	[EXS_MIB_FALLBACK_BASE + EXS_FALLBACK_NOMEM - 1]	= "FallbackNoMem",
	[EXS_MIB_FALLBACK_BASE + EXS_FALLBACK_POLICY - 1]	= "FallbackPolicy",
	[EXS_MIB_FALLBACK_BASE + EXS_FALLBACK_NEG_CACHE - 1]	= "FallbackNegCache",
	[EXS_MIB_FALLBACK_BASE + EXS_FALLBACK_NO_ANSWER - 1]	= "FallbackNoAnswer",
	[EXS_MIB_FALLBACK_BASE + EXS_FALLBACK_GATEWAY - 1]	= "FallbackGateway",
};

const char *exs_mib_name(enum exs_mib_field field)
{
	return field < EXS_MIB_MAX ? exs_mib_names[field] : NULL;
}

/* A gauge's value is now's, whatever a reset recorded */
static bool exs_mib_gauge(enum exs_mib_field field)
{
	return field == EXS_MIB_RINGMEMPAGES;
}

unsigned long exs_mib_read(const struct net *net, enum exs_mib_field field)
{
	struct exs_mib __percpu *mib = exs_pernet(net)->mib;
	unsigned long sum = 0;
	int cpu;

	if (exs_mib_gauge(field))	/* RingMemPages, the one there is */
		return READ_ONCE(exs_pernet(net)->ring_pages);
	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(mib, cpu)->mibs[field]);
	return sum - READ_ONCE(exs_pernet(net)->mib_base->mibs[field]);
}

void exs_mib_reset(const struct net *net)
{
	struct exs_mib *base = exs_pernet(net)->mib_base;
	int i;

	for (i = 0; i < EXS_MIB_MAX; i++) {
		if (exs_mib_gauge(i))
			continue;
		WRITE_ONCE(base->mibs[i],
			   READ_ONCE(base->mibs[i]) + exs_mib_read(net, i));
	}
}

static int exs_stat_show(struct seq_file *seq, void *v)
{
	struct net *net = seq->private;
	int i;

	for (i = 0; i < EXS_MIB_MAX; i++)
		seq_printf(seq, "%s %lu\n", exs_mib_names[i],
			   exs_mib_read(net, i));
	return 0;
}

int exs_mib_net_init(struct net *net)
{
	struct exs_net *en = exs_pernet(net);

	BUILD_BUG_ON(ARRAY_SIZE(exs_mib_names) != EXS_MIB_MAX);
	en->mib = alloc_percpu(struct exs_mib);
	if (!en->mib)
		return -ENOMEM;
	en->mib_base = kzalloc(sizeof(*en->mib_base), GFP_KERNEL);
	if (!en->mib_base)
		goto err;
	if (!proc_create_net_single("exs_stat", 0444, net->proc_net,
				    exs_stat_show, NULL))
		goto err;
	return 0;
err:
	kfree(en->mib_base);
	free_percpu(en->mib);
	return -ENOMEM;
}

void exs_mib_net_exit(struct net *net)
{
	remove_proc_entry("exs_stat", net->proc_net);
	free_percpu(exs_pernet(net)->mib);
	kfree(exs_pernet(net)->mib_base);
}
