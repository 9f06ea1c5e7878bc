// SPDX-License-Identifier: GPL-2.0
/*
 * AF_EXS socket options.
 *
 * Options of every TCP level go to the native socket, where they take
 * effect and where they stay after a merge.  SOL_SOCKET is special: the
 * socket layer answers getsockopt(SOL_SOCKET) from the AF_EXS sock itself,
 * so an option set before the merge is applied to both socks.
 */
#include <linux/filter.h>
#include <net/sock.h>

#include "protocol.h"

/* Large enough for every fixed-size SOL_SOCKET option value. */
#define EXS_SOL_SOCKET_MAX_OPTLEN	64

static int exs_setsockopt_sol_socket(struct socket *sock, int optname,
				     sockptr_t optval, unsigned int optlen)
{
	struct socket *native = exs_sk(sock->sk)->native;
	u8 buf[EXS_SOL_SOCKET_MAX_OPTLEN];
	sockptr_t kval;
	int err;

	/* Odd sizes are TCP's business alone: no second read of user memory. */
	if (optlen > sizeof(buf) || exs_sol_socket_native_only(optname))
		return sock_setsockopt(native, SOL_SOCKET, optname, optval,
				       optlen);

	/* Read the value once, so both socks get the same one. */
	if (copy_from_sockptr(buf, optval, optlen))
		return -EFAULT;
	kval = KERNEL_SOCKPTR(buf);

	err = sock_setsockopt(native, SOL_SOCKET, optname, kval, optlen);
	if (!err)
		sock_setsockopt(sock, SOL_SOCKET, optname, kval, optlen);
	return err;
}

int exs_setsockopt(struct socket *sock, int level, int optname,
		   sockptr_t optval, unsigned int optlen)
{
	struct socket *native = exs_sk(sock->sk)->native;

	if (level == SOL_EXS)
		return -ENOPROTOOPT;
	int err;

	if (level == SOL_SOCKET)
		return exs_setsockopt_sol_socket(sock, optname, optval, optlen);
	err = READ_ONCE(native->ops)->setsockopt(native, level, optname,
						 optval, optlen);
	/* TCP_NODELAY, TCP_CORK: what they release leaves now */
	if (!err && level == SOL_TCP && exs_on_rdma(exs_sk(sock->sk)))
		exs_rdma_push(exs_sk(sock->sk));
	return err;
}

static int exs_getsockopt_info(struct exs_sock *exs, char __user *optval,
			       int __user *optlen)
{
	struct exs_info info = {};
	int len;

	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	len = min_t(unsigned int, len, sizeof(info));

	lock_sock(&exs->sk);
	info.exsi_transport = exs->transport;
	info.exsi_fallback_reason = exs->fallback_reason;
	info.exsi_listening = exs->sk.sk_state == TCP_LISTEN;
	info.exsi_native_family = exs->native->sk->sk_family;
	release_sock(&exs->sk);

	if (put_user(len, optlen) || copy_to_user(optval, &info, len))
		return -EFAULT;
	return 0;
}

int exs_getsockopt(struct socket *sock, int level, int optname,
		   char __user *optval, int __user *optlen)
{
	struct exs_sock *exs = exs_sk(sock->sk);
	struct socket *native = exs->native;

	if (level != SOL_EXS)
		return READ_ONCE(native->ops)->getsockopt(native, level,
							  optname, optval,
							  optlen);
	switch (optname) {
	case EXS_INFO:
		return exs_getsockopt_info(exs, optval, optlen);
	default:
		return -ENOPROTOOPT;
	}
}

/* sk_flags that setsockopt(SOL_SOCKET) may have set on the AF_EXS sock */
#define EXS_SK_FLAGS_TO_NATIVE ((1UL << SOCK_URGINLINE) | \
				(1UL << SOCK_KEEPOPEN) | \
				(1UL << SOCK_LINGER) | \
				(1UL << SOCK_BROADCAST) | \
				(1UL << SOCK_TIMESTAMP) | \
				(1UL << SOCK_DBG) | \
				(1UL << SOCK_RCVTSTAMP) | \
				(1UL << SOCK_RCVTSTAMPNS) | \
				(1UL << SOCK_LOCALROUTE) | \
				(1UL << SOCK_TIMESTAMPING_RX_SOFTWARE) | \
				(1UL << SOCK_RXQ_OVFL) | \
				(1UL << SOCK_WIFI_STATUS) | \
				(1UL << SOCK_NOFCS) | \
				(1UL << SOCK_FILTER_LOCKED) | \
				(1UL << SOCK_TSTAMP_NEW))

/* Where the socket layer gives us no SOL_SOCKET hook (compat.h), options
 * set so far live on the AF_EXS sock only: hand them to the native socket
 * before the calls that act on them (bind, listen, accept, connect).
 * Called with the AF_EXS sock locked.
 */
void exs_copy_settings_to_native(struct exs_sock *exs)
{
	struct sock *osk = &exs->sk;
	struct sock *nsk = exs->native->sk;

	if (EXS_HAVE_CUSTOM_SOCKOPT)
		return;

	lock_sock(nsk);
	nsk->sk_reuse = osk->sk_reuse;
	nsk->sk_reuseport = osk->sk_reuseport;
	nsk->sk_bound_dev_if = osk->sk_bound_dev_if;
	WRITE_ONCE(nsk->sk_sndtimeo, osk->sk_sndtimeo);
	WRITE_ONCE(nsk->sk_rcvtimeo, osk->sk_rcvtimeo);
	WRITE_ONCE(nsk->sk_mark, READ_ONCE(osk->sk_mark));
	nsk->sk_priority = osk->sk_priority;
	WRITE_ONCE(nsk->sk_rcvlowat, osk->sk_rcvlowat);
	nsk->sk_lingertime = osk->sk_lingertime;
	nsk->sk_max_pacing_rate = osk->sk_max_pacing_rate;
	nsk->sk_tsflags = osk->sk_tsflags;
	nsk->sk_flags &= ~EXS_SK_FLAGS_TO_NATIVE;
	nsk->sk_flags |= osk->sk_flags & EXS_SK_FLAGS_TO_NATIVE;
	if (osk->sk_userlocks & SOCK_SNDBUF_LOCK) {
		nsk->sk_userlocks |= SOCK_SNDBUF_LOCK;
		WRITE_ONCE(nsk->sk_sndbuf, osk->sk_sndbuf);
	}
	if (osk->sk_userlocks & SOCK_RCVBUF_LOCK) {
		nsk->sk_userlocks |= SOCK_RCVBUF_LOCK;
		WRITE_ONCE(nsk->sk_rcvbuf, osk->sk_rcvbuf);
	}
	release_sock(nsk);
}
