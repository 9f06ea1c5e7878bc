/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_EXS private definitions: the socket that wraps a native TCP socket.
 */
#ifndef __EXS_PROTOCOL_H
#define __EXS_PROTOCOL_H

#include <linux/net.h>
#include <net/sock.h>
#include <linux/af_exs.h>

#include "compat.h"

/* An AF_EXS socket.  @sk is what the socket layer sees; @native is the
 * AF_INET/AF_INET6 TCP socket it wraps, created with it and released with
 * it, so it is valid in every proto_ops call.  sk_lock serialises bind,
 * listen, connect and the merge.
 *
 * Lock order: the AF_EXS sk_lock before the native sock's sk_lock
 * (exs_copy_settings_to_native() takes the second inside the first).
 */
struct exs_sock {
	struct sock	sk;		/* must be first */
	struct socket	*native;
	u8		transport;	/* enum exs_transport */
	u8		fallback_reason;
};

static inline struct exs_sock *exs_sk(const struct sock *sk)
{
	return (struct exs_sock *)sk;
}

static inline bool exs_is_merged(const struct exs_sock *exs)
{
	return READ_ONCE(exs->transport) == EXS_TRANSPORT_TCP;
}

extern int exs_family;
extern struct proto exs_proto;
extern const struct proto_ops exs_proto_ops_template;
extern const struct proto_ops *exs_proto_ops;

/* family.c */
struct sock *exs_sock_alloc(struct net *net, struct socket *sock,
			    struct socket *native, int protocol, int kern);

/* addr.c: pure checks, KUnit-tested */
int exs_proto_to_family(int protocol);
bool exs_connect_addr_ok(int family, const struct sockaddr *addr, int len);

/* sockopt.c */
bool exs_sol_socket_native_only(int optname);
int exs_setsockopt(struct socket *sock, int level, int optname,
		   sockptr_t optval, unsigned int optlen);
int exs_getsockopt(struct socket *sock, int level, int optname,
		   char __user *optval, int __user *optlen);
void exs_copy_settings_to_native(struct exs_sock *exs);

/* fallback.c */
void exs_fallback(struct exs_sock *exs, enum exs_fallback_reason reason);

#endif /* __EXS_PROTOCOL_H */
