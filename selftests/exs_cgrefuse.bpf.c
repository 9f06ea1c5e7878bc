// SPDX-License-Identifier: GPL-2.0
/*
 * For exs_cgrefuse: a cgroup's socket-create program, as an
 * administrator (or a container runtime) attaches one, that refuses
 * every stream socket of one IP protocol made by tasks in its cgroup.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define SOCK_STREAM	1

/* set by the loader: the protocol refused, 0 for none */
int refuse_protocol;

SEC("cgroup/sock_create")
int exs_refuse(struct bpf_sock *sk)
{
	/* 0 refuses: socket() fails with EPERM */
	return !(sk->type == SOCK_STREAM && refuse_protocol &&
		 sk->protocol == refuse_protocol);
}

char LICENSE[] SEC("license") = "GPL";
