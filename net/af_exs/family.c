// SPDX-License-Identifier: GPL-2.0
/*
 * AF_EXS: family registration, socket creation and module init/exit.
 *
 * An AF_EXS socket wraps a native TCP socket of the same network namespace,
 * created exactly as socket(AF_INET[6], SOCK_STREAM, IPPROTO_TCP) would be,
 * so it shares TCP's port space, addresses, LSM checks and errno values.
 */
#define pr_fmt(fmt) "af_exs: " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <net/sock.h>
#include <net/inet_common.h>
#include <net/ipv6.h>

#include "protocol.h"
#include "conn.h"
#include "fault.h"
#include "mib.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

int exs_family = AF_EXS_DEFAULT;
module_param_named(family, exs_family, int, 0444);
MODULE_PARM_DESC(family, "address family number to register (default "
		 __stringify(AF_EXS_DEFAULT) ", must be free and below AF_MAX)");

/* Filled at init for the family chosen at load time, read-only after. */
static struct {
	struct proto_ops ops;	/* written once: the family is a parameter */
} exs_live_ops __ro_after_init;
const struct proto_ops *exs_proto_ops __ro_after_init = &exs_live_ops.ops;

struct proto exs_proto = {
	.name		= "EXS",
	.owner		= THIS_MODULE,
	.obj_size	= sizeof(struct exs_sock),
	.keepalive	= exs_keepalive,
};

static void exs_sock_destruct(struct sock *sk)
{
	WARN_ON_ONCE(exs_sk(sk)->native);
	/* IPPROTO_EXS: what an LSM or IP option hung on the inet sock
	 * (NetLabel's CIPSO, say) goes as it would with TCP's
	 */
	if (sk->sk_family == AF_INET6)
		inet6_sock_destruct(sk);
	else if (sk->sk_family == AF_INET)
		inet_sock_destruct(sk);
	else	/* as inet_sock_destruct(): notifications never read */
		skb_queue_purge(&sk->sk_error_queue);
}

/* What every AF_EXS sock starts with, of the family or of IPPROTO_EXS:
 * @native, which it then owns.  @sk is attached to its socket.
 */
void exs_sock_init(struct sock *sk, struct socket *native)
{
	struct socket *sock = sk->sk_socket;
	struct net *net = sock_net(sk);
	struct exs_sock *exs = exs_sk(sk);

	sk->sk_state = TCP_CLOSE;
	sk->sk_destruct = exs_sock_destruct;

	exs->native = native;
	exs->transport = EXS_TRANSPORT_NONE;
	exs->fallback_reason = EXS_FALLBACK_NONE;
	INIT_WORK(&exs->connect_work, exs_connect_work);
	INIT_LIST_HEAD(&exs->link_wait_node);
	INIT_DELAYED_WORK(&exs->link_wait_timer, exs_link_wait_expire);
	exs->busy_poll_us = READ_ONCE(exs_pernet(net)->cfg.busy_poll_us);
	exs->inline_max = READ_ONCE(exs_pernet(net)->cfg.inline_threshold);
	exs_diag_link(exs);

	/* Let the native socket's inode carry our inode's number, so that
	 * /proc/net/tcp, sock_diag and "ss -p" name the program's descriptor
	 * for the TCP connection, before and after a merge.
	 */
	SOCK_INODE(native)->i_ino = SOCK_INODE(sock)->i_ino;

	exs_want_sol_socket(sock);
}

/* Allocate an AF_EXS sock of @prot (exs_proto, or an IPPROTO_EXS one for
 * an accepted child of such a listener) for @sock around @native.
 */
struct sock *exs_sock_alloc(struct net *net, struct socket *sock,
			    struct socket *native, struct proto *prot,
			    int protocol, int kern)
{
	int family = prot == &exs_proto ? exs_family :
		     prot == &exs_inet6_proto ? AF_INET6 : AF_INET;
	struct sock *sk;

	sk = sk_alloc(net, family, GFP_KERNEL, prot, kern);
	if (!sk)
		return NULL;

	sock_init_data(sock, sk);
	sk->sk_protocol = protocol;
	if (prot == &exs_proto)
		sock->ops = exs_proto_ops;
	else
		exs_inet_child(sk);
	exs_sock_init(sk, native);
	return sk;
}

static int exs_create(struct net *net, struct socket *sock, int protocol,
		      int kern)
{
	struct socket *native;
	int family, err;

	if (sock->type != SOCK_STREAM)
		return -ESOCKTNOSUPPORT;

	family = exs_proto_to_family(protocol);
	if (family < 0)
		return family;

	/* The native socket is created as the caller would create a TCP
	 * socket itself (kern passed through), so permission checks, the
	 * namespace reference and accounting are TCP's own.
	 */
	err = __sock_create(net, family, SOCK_STREAM, IPPROTO_TCP, &native,
			    kern);
	if (err)
		return err;

	if (!exs_sock_alloc(net, sock, native, &exs_proto, protocol, kern)) {
		sock_release(native);
		return -ENOBUFS;
	}
	return 0;
}

static struct net_proto_family exs_family_ops = {
	.owner	= THIS_MODULE,
	.create	= exs_create,
};

static int __init exs_init(void)
{
	int err;

	if (exs_family <= AF_UNSPEC || exs_family >= AF_MAX ||
	    exs_family == AF_INET || exs_family == AF_INET6) {
		pr_err("family %d is not usable (1..%d, not INET)\n",
		       exs_family, AF_MAX - 1);
		return -EINVAL;
	}
	exs_family_ops.family = exs_family;
	exs_live_ops.ops = exs_proto_ops_template;
	exs_live_ops.ops.family = exs_family;
	/* SO_PEEK_OFF is answered by whether the ops have the hook at all:
	 * offer it exactly when TCP does (6.10 and later).
	 */
	if (!inet_stream_ops.set_peek_off)
		exs_live_ops.ops.set_peek_off = NULL;

	err = exs_netns_init();
	if (err)
		return err;
	err = exs_busy_poll_init();
	if (err)
		goto err_netns;
	err = exs_conn_init();
	if (err)
		goto err_busy_poll;
	err = exs_device_init();
	if (err)
		goto err_conn;

	err = proto_register(&exs_proto, 1);
	if (err)
		goto err_device;
	err = exs_inet_init();
	if (err)
		goto err_proto;

	err = exs_netlink_init();
	if (err)
		goto err_inet;

	err = sock_register(&exs_family_ops);
	if (err) {
		pr_err("family %d is taken (%d); load with family=N\n",
		       exs_family, err);
		goto err_netlink;
	}
	err = exs_inet_register();
	if (err)
		goto err_family;
	exs_fault_init();
	exs_resume_init();
	pr_info("registered address family %d\n", exs_family);
	return 0;

err_family:
	sock_unregister(exs_family);
err_netlink:
	exs_netlink_exit();
err_inet:
	exs_inet_exit();
err_proto:
	proto_unregister(&exs_proto);
err_device:
	exs_device_exit();
err_conn:
	exs_conn_exit();
err_busy_poll:
	exs_busy_poll_exit();
err_netns:
	exs_netns_exit();
	return err;
}

/* Every AF_EXS socket holds a reference on this module (through
 * net_proto_family.owner and proto_ops.owner), so exit runs only once the
 * last one is released: unload is refused while any exists.
 */
static void __exit exs_exit(void)
{
	exs_resume_exit();
	exs_fault_exit();
	exs_inet_unregister();
	sock_unregister(exs_family);
	exs_netlink_exit();
	exs_inet_exit();
	proto_unregister(&exs_proto);
	/* connections of closed sockets finish their teardown first, none
	 * waiting for a port that is down (device.c)
	 */
	exs_dev_stop_waits();
	flush_workqueue(exs_wq);
	exs_device_exit();
	exs_conn_exit();
	exs_busy_poll_exit();
	exs_netns_exit();
}

module_init(exs_init);
module_exit(exs_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("AF_EXS: TCP sockets over RDMA with transparent TCP fallback");
MODULE_VERSION("0.1");
