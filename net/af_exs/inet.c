// SPDX-License-Identifier: GPL-2.0
/*
 * IPPROTO_EXS: AF_EXS sockets made as socket(AF_INET or AF_INET6,
 * SOCK_STREAM, IPPROTO_EXS), as net/smc/smc_inet.c makes SMC-R's.  A BPF
 * program on update_socket_protocol() can change a socket()'s protocol,
 * never its family, so this is what turns any program's TCP sockets into
 * AF_EXS ones without a preload.
 *
 * The sockets are AF_EXS sockets in all but their family: the same
 * proto_ops (but for their family), the same struct exs_sock, the same
 * native TCP socket, merge and counters.  inet_create() and
 * inet6_create() allocate them and fill in the inet_sock (and ipv6_pinfo)
 * they take every sock of theirs for; our proto's init then makes the
 * native socket, as exs_create() does for the family.
 */
#define pr_fmt(fmt) "af_exs: " fmt

#include <linux/module.h>
#include <net/ipv6.h>
#include <net/protocol.h>
#include <net/sock.h>

#include "protocol.h"
#include "conn.h"

static int exs_ipproto = IPPROTO_EXS_DEFAULT;
module_param_named(ipproto, exs_ipproto, int, 0444);
MODULE_PARM_DESC(ipproto, "protocol number of socket(AF_INET[6], SOCK_STREAM, N) for AF_EXS (default "
		 __stringify(IPPROTO_EXS_DEFAULT) ", 0: none)");

/* 6.11's IPPROTO_SMC, which 6.1's headers do not name */
#define EXS_IPPROTO_SMC		256

/* socket(AF_INET[6], SOCK_STREAM (1), IPPROTO_EXS) loads the module, as
 * IPPROTO_SMC loads SMC's, at the number it has by default
 */
MODULE_ALIAS("net-pf-" __stringify(PF_INET) "-proto-" __stringify(IPPROTO_EXS_DEFAULT) "-type-1");
MODULE_ALIAS("net-pf-" __stringify(PF_INET6) "-proto-" __stringify(IPPROTO_EXS_DEFAULT) "-type-1");

/* An AF_INET6 one: inet6_create() finds the ipv6_pinfo at
 * ipv6_pinfo_offset (6.6 and later), before at the end of obj_size.
 */
struct exs6_sock {
	struct exs_sock		exs;
	struct ipv6_pinfo	inet6;
};

/* inet_create() gives our sock AF_INET's lockdep class, the class of
 * the native TCP sock too, which we lock inside ours: to lockdep that
 * would look like one lock taken twice.  A class of our own.
 */
static struct lock_class_key exs_inet_keys[2], exs_inet_slock_keys[2];

static void exs_inet_lockdep(struct sock *sk)
{
	bool v6 = sk->sk_family == AF_INET6;

	sock_lock_init_class_and_name(sk,
				      v6 ? "slock-AF_INET6-EXS" : "slock-AF_INET-EXS",
				      &exs_inet_slock_keys[v6],
				      v6 ? "sk_lock-AF_INET6-EXS" : "sk_lock-AF_INET-EXS",
				      &exs_inet_keys[v6]);
}

/* proto.init, from inet_create(): @sk is attached to its socket */
static int exs_inet_init_sock(struct sock *sk)
{
	struct socket *native;
	int err;

	/* the native socket as the caller would make it (exs_create()) */
	err = __sock_create(sock_net(sk), sk->sk_family, SOCK_STREAM,
			    IPPROTO_TCP, &native, sk->sk_kern_sock);
	if (err)
		return err;
	exs_inet_lockdep(sk);
	exs_sock_init(sk, native);
	return 0;
}

/* Never hashed: sk_common_release() calls it if init fails */
static void exs_inet_unhash(struct sock *sk)
{
}

/* Only sk_common_release() calls it: inet_create() undoing a failed
 * init, or one that succeeded (a cgroup's socket-create BPF program
 * refused the socket).  exs_release() ends otherwise.
 */
static void exs_inet_destroy(struct sock *sk)
{
	struct exs_sock *exs = exs_sk(sk);
	struct socket *native;

	/* init failed before exs_sock_init() (the native socket refused:
	 * an LSM, a cgroup program): on no list, nothing to undo
	 */
	if (!exs->native)
		return;
	/* as exs_release(): a socket dump that found it before the
	 * unlink reads native under the lock, so it goes under it
	 */
	exs_diag_unlink(exs);
	lock_sock(sk);
	native = exs->native;
	exs->native = NULL;
	release_sock(sk);
	if (native)
		sock_release(native);
}

struct proto exs_inet_proto = {
	.name		= "EXS-INET",	/* its slab's: unique */
	.owner		= THIS_MODULE,
	.init		= exs_inet_init_sock,
	.destroy	= exs_inet_destroy,
	.unhash		= exs_inet_unhash,
	.keepalive	= exs_keepalive,
	.obj_size	= sizeof(struct exs_sock),
};

struct proto exs_inet6_proto = {
	.name		= "EXS-INET6",
	.owner		= THIS_MODULE,
	.init		= exs_inet_init_sock,
	.destroy	= exs_inet_destroy,
	.unhash		= exs_inet_unhash,
	.keepalive	= exs_keepalive,
	/* not sizeof: 6.1 finds the ipv6_pinfo at its end */
	.obj_size	= offsetofend(struct exs6_sock, inet6),
#ifdef EXS_HAVE_IPV6_PINFO_OFFSET
	.ipv6_pinfo_offset = offsetof(struct exs6_sock, inet6),
#endif
};

/* exs_proto_ops but for the family */
static struct {
	struct proto_ops v4;	/* written once at init */
	struct proto_ops v6;	/* written once at init */
} exs_inet_live_ops __ro_after_init;

static struct inet_protosw exs_inet_protosw = {
	.type		= SOCK_STREAM,
	.prot		= &exs_inet_proto,
	.ops		= &exs_inet_live_ops.v4,
};

static struct inet_protosw exs_inet6_protosw = {
	.type		= SOCK_STREAM,
	.prot		= &exs_inet6_proto,
	.ops		= &exs_inet_live_ops.v6,
};

static const struct proto_ops *exs_inet_ops(const struct proto *prot)
{
	return prot == &exs_inet6_proto ? &exs_inet_live_ops.v6 :
					  &exs_inet_live_ops.v4;
}

/* An accepted child of an IPPROTO_EXS listener, which exs_sock_alloc()
 * made without inet_create(): what the socket layer reads of it.
 */
void exs_inet_child(struct sock *sk)
{
	sk->sk_socket->ops = exs_inet_ops(sk->sk_prot);
	if (sk->sk_family == AF_INET6)
		inet_sk(sk)->pinet6 = &((struct exs6_sock *)sk)->inet6;
	exs_inet_lockdep(sk);
}

/* Everything that can fail, before the module shows itself anywhere */
int exs_inet_init(void)
{
	int err;

	if (!exs_ipproto)
		return 0;
	/* The newest registration of a number wins inet_create()'s lookup,
	 * so one another protocol answers to would be taken from it: none
	 * of IP's (SCTP's 132 has stream sockets too), nor SMC-R's or
	 * MPTCP's, which leaves 257 to 261.
	 */
	if (exs_ipproto <= EXS_IPPROTO_SMC || exs_ipproto >= IPPROTO_MPTCP) {
		pr_err("ipproto %d is not usable (%d..%d); load with ipproto=N or 0\n",
		       exs_ipproto, EXS_IPPROTO_SMC + 1, IPPROTO_MPTCP - 1);
		return -EINVAL;
	}

	exs_inet_live_ops.v4 = *exs_proto_ops;
	exs_inet_live_ops.v4.family = PF_INET;
	exs_inet_live_ops.v6 = *exs_proto_ops;
	exs_inet_live_ops.v6.family = PF_INET6;
	exs_inet_protosw.protocol = exs_ipproto;
	exs_inet6_protosw.protocol = exs_ipproto;

	err = proto_register(&exs_inet_proto, 1);
	if (err)
		return err;
	err = proto_register(&exs_inet6_proto, 1);
	if (err)
		proto_unregister(&exs_inet_proto);
	return err;
}

/* Every socket of ours holds a reference on the module (proto.owner,
 * proto_ops.owner): none is left when this runs.
 */
void exs_inet_exit(void)
{
	if (!exs_ipproto)
		return;
	proto_unregister(&exs_inet6_proto);
	proto_unregister(&exs_inet_proto);
}

/* socket() finds them from here on.  Fails only for a number a permanent
 * protocol has, which exs_inet_init() refused.
 */
int exs_inet_register(void)
{
	int err;

	if (!exs_ipproto)
		return 0;
	err = inet6_register_protosw(&exs_inet6_protosw);
	if (err)
		return err;
	inet_register_protosw(&exs_inet_protosw);
	pr_info("registered IPPROTO_EXS %d\n", exs_ipproto);
	return 0;
}

void exs_inet_unregister(void)
{
	if (!exs_ipproto)
		return;
	inet_unregister_protosw(&exs_inet_protosw);
	inet6_unregister_protosw(&exs_inet6_protosw);
}
