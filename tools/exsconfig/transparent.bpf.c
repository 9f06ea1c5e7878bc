// SPDX-License-Identifier: GPL-2.0
/*
 * AF_EXS without a preload: on update_socket_protocol() (6.6 and later),
 * a TCP socket() of a task in a cgroup exsconfig turned on becomes an
 * IPPROTO_EXS one (net/af_exs/inet.c), as SMC-R's tools do with
 * IPPROTO_SMC.  Go programs, static binaries and any other program that
 * makes its own system calls are reached so, which a preload never is.
 * A task is in scope when its cgroup, or any cgroup above it, is in
 * exs_cgroups (exsconfig transparent on CGROUP; exs-run PROG).
 */
#include <linux/bpf.h>
#include <linux/in.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define AF_INET		2
#define AF_INET6	10
#define SOCK_STREAM	1
#define SOCK_TYPE_MASK	0xf
/* deeper than any cgroup tree systemd or a container runtime makes */
#define EXS_CGROUP_LEVELS	32

/* set by the loader: the module's ipproto parameter */
int exs_ipproto;

/* cgroup ids (a cgroup2 directory's inode number) in scope */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u8);
} exs_cgroups SEC(".maps");

static bool exs_in_scope(void)
{
	int level;

	for (level = 0; level < EXS_CGROUP_LEVELS; level++) {
		__u64 id = bpf_get_current_ancestor_cgroup_id(level);

		if (!id)
			return false;
		if (bpf_map_lookup_elem(&exs_cgroups, &id))
			return true;
	}
	return false;
}

/* What socket() gets as its protocol: fmod_ret's non-zero return is the
 * function's; 0 runs it (and any other program on it), which returns
 * the protocol it was given.
 */
SEC("fmod_ret/update_socket_protocol")
int BPF_PROG(exs_transparent, int family, int type, int protocol)
{
	if (family != AF_INET && family != AF_INET6)
		return 0;
	if ((type & SOCK_TYPE_MASK) != SOCK_STREAM)
		return 0;
	/* MPTCP's too: Go (1.24 on) asks for it on every listener unless
	 * told otherwise, and a program run under AF_EXS wants RDMA more
	 * than subflows (it falls back to plain TCP, never to MPTCP)
	 */
	if (protocol != 0 && protocol != IPPROTO_TCP &&
	    protocol != IPPROTO_MPTCP)
		return 0;
	if (!exs_ipproto || !exs_in_scope())
		return 0;
	return exs_ipproto;
}

char LICENSE[] SEC("license") = "GPL";
