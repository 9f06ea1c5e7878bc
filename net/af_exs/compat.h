/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the supported kernels (6.1 and 6.12 LTS), kept in one
 * place the way WireGuard's compat layer does, so the rest of the module is
 * written against the newest API.
 */
#ifndef __EXS_COMPAT_H
#define __EXS_COMPAT_H

#include <linux/fs.h>
#include <linux/net.h>

/* Features are detected from the headers being built against (Kbuild), not
 * from version numbers, so distribution backports are handled too.
 */

/* 6.10 moved accept()'s flags and kern into struct proto_accept_arg.  The
 * module passes a struct exs_accept_arg around and calls
 * exs_forward_accept(); exs_accept_ops_fn() adapts the proto_ops entry.
 */
#ifdef EXS_HAVE_ACCEPT_ARG
#define exs_accept_arg proto_accept_arg

static inline int exs_forward_accept(struct socket *sock,
				     struct socket *newsock,
				     struct exs_accept_arg *arg)
{
	return READ_ONCE(sock->ops)->accept(sock, newsock, arg);
}
#else
struct exs_accept_arg {
	int	flags;
	bool	kern;
};

static inline int exs_forward_accept(struct socket *sock,
				     struct socket *newsock,
				     struct exs_accept_arg *arg)
{
	return READ_ONCE(sock->ops)->accept(sock, newsock, arg->flags,
					    arg->kern);
}
#endif

/* Before 6.6 the socket layer sent SOL_SOCKET options straight to
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

/* 6.5 replaced generic_file_splice_read() by copy_splice_read(); both
 * read through ->read_iter, which for a socket is recvmsg.
 */
static inline ssize_t exs_splice_read_generic(struct socket *sock,
					      loff_t *ppos,
					      struct pipe_inode_info *pipe,
					      size_t len, unsigned int flags)
{
	if (!sock->file)
		return -EINVAL;
#ifdef EXS_HAVE_COPY_SPLICE_READ
	return copy_splice_read(sock->file, ppos, pipe, len, flags);
#else
	return generic_file_splice_read(sock->file, ppos, pipe, len, flags);
#endif
}

/* 6.5 made register_net_sysctl() a macro over register_net_sysctl_sz(),
 * which takes the table's size instead of looking for a sentinel.
 */
#ifdef register_net_sysctl
#define exs_register_net_sysctl(net, path, table, n) \
	register_net_sysctl_sz(net, path, table, n)
#else
#define exs_register_net_sysctl(net, path, table, n) \
	register_net_sysctl(net, path, table)
#endif

#endif /* __EXS_COMPAT_H */
