/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the supported kernels (6.1 and 6.12 LTS), kept in one
 * place the way WireGuard's compat layer does, so the rest of the module is
 * written against the newest API.
 */
#ifndef __EXS_COMPAT_H
#define __EXS_COMPAT_H

#include <linux/version.h>
#include <linux/net.h>

/* 6.10 moved accept()'s flags and kern into struct proto_accept_arg. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define EXS_ACCEPT_ARGS		struct proto_accept_arg *arg
#define EXS_ACCEPT_PASS		arg
#define EXS_ACCEPT_FLAGS	(arg->flags)
#define EXS_ACCEPT_KERN		(arg->kern)
#else
#define EXS_ACCEPT_ARGS		int flags, bool kern
#define EXS_ACCEPT_PASS		flags, kern
#define EXS_ACCEPT_FLAGS	(flags)
#define EXS_ACCEPT_KERN		(kern)
#endif

/*
 * Before 6.6 the socket layer sent SOL_SOCKET options straight to
 * sock_setsockopt() on the AF_EXS sock, never to proto_ops; since then a
 * family can ask for them with SOCK_CUSTOM_SOCKOPT.  Where it cannot, the
 * options are copied to the native socket at bind, listen and connect.
 */
#ifdef SOCK_CUSTOM_SOCKOPT
#define EXS_HAVE_CUSTOM_SOCKOPT 1
static inline void exs_want_sol_socket(struct socket *sock)
{
	set_bit(SOCK_CUSTOM_SOCKOPT, &sock->flags);
}
#else
#define EXS_HAVE_CUSTOM_SOCKOPT 0
static inline void exs_want_sol_socket(struct socket *sock)
{
}
#endif

#endif /* __EXS_COMPAT_H */
