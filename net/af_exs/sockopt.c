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
#include <net/tcp.h>

#include "protocol.h"
#include "netns.h"
#include "ring.h"
#include "conn.h"

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
	if (optlen > sizeof(buf) || exs_sol_socket_native_only(optname)) {
		err = sock_setsockopt(native, SOL_SOCKET, optname, optval,
				      optlen);
		/* what the native socket took, an RDMA socket's sendmsg()
		 * and getsockopt() read here too (zerocopy.c)
		 */
		if (!err && optname == SO_ZEROCOPY) {
			lock_sock(sock->sk);	/* sk_flags: not atomic */
			sock_valbool_flag(sock->sk, SOCK_ZEROCOPY,
					  sock_flag(native->sk, SOCK_ZEROCOPY));
			release_sock(sock->sk);
		}
		return err;
	}

	/* Read the value once, so both socks get the same one. */
	if (copy_from_sockptr(buf, optval, optlen))
		return -EFAULT;
	kval = KERNEL_SOCKPTR(buf);

	err = sock_setsockopt(native, SOL_SOCKET, optname, kval, optlen);
	if (!err)
		sock_setsockopt(sock, SOL_SOCKET, optname, kval, optlen);
	return err;
}

/* The receive ring a connection of @exs gets: EXS_RING_SIZE, else half
 * a locked SO_RCVBUF (TCP's share for data), else net.exs.ring_size.
 * Reads settings only: callable under a listener's spinlock.
 */
u32 exs_ring_size_of(struct exs_sock *exs)
{
	const struct sock *nsk = exs->native->sk;
	u32 size = READ_ONCE(exs->ring_size);

	if (size)
		return size;
	if (nsk->sk_userlocks & SOCK_RCVBUF_LOCK)
		return exs_ring_size_for(READ_ONCE(nsk->sk_rcvbuf) / 2);
	return exs_ring_size_for(READ_ONCE(exs_pernet(sock_net(nsk))->cfg.ring_size));
}

/* SOL_EXS integers: [min, max], and whether connect() fixed them already */
static int exs_setsockopt_exs(struct exs_sock *exs, int optname,
			      sockptr_t optval, unsigned int optlen)
{
	int val, err = 0;

	if (optname != EXS_BUSY_POLL && optname != EXS_RING_SIZE &&
	    optname != EXS_INLINE)
		return -ENOPROTOOPT;
	if (optlen < sizeof(int))
		return -EINVAL;
	if (copy_from_sockptr(&val, optval, sizeof(val)))
		return -EFAULT;

	switch (optname) {
	case EXS_BUSY_POLL:
		if (val < 0 || val > EXS_BUSY_POLL_MAX)
			return -EINVAL;
		WRITE_ONCE(exs->busy_poll_us, val);
		return 0;
	case EXS_RING_SIZE:
		if (val && (val < EXS_RING_MIN || val > EXS_RING_MAX))
			return -EINVAL;
		break;
	default:
		if (val < 0 || val > EXS_INLINE_MAX)
			return -EINVAL;
		break;
	}

	/* the ring and the QP are sized when connect() starts; a listener
	 * passes them to connections it has yet to accept
	 */
	lock_sock(&exs->sk);
	if (exs->cstate != EXS_CS_IDLE)
		err = -EISCONN;
	else if (optname == EXS_RING_SIZE)
		WRITE_ONCE(exs->ring_size, val ? exs_ring_size_for(val) : 0);
	else
		WRITE_ONCE(exs->inline_max, val);
	release_sock(&exs->sk);
	return err;
}

int exs_setsockopt(struct socket *sock, int level, int optname,
		   sockptr_t optval, unsigned int optlen)
{
	struct exs_sock *exs = exs_sk(sock->sk);
	struct socket *native = exs->native;
	int err;

	if (level == SOL_EXS)
		return exs_setsockopt_exs(exs, optname, optval, optlen);

	if (level == SOL_SOCKET)
		err = exs_setsockopt_sol_socket(sock, optname, optval, optlen);
	else
		err = READ_ONCE(native->ops)->setsockopt(native, level,
							 optname, optval,
							 optlen);
	if (err || !exs_on_rdma(exs))
		return err;
	if (level != SOL_TCP)
		return 0;
	/* TCP_NODELAY, TCP_CORK: what they release leaves now */
	exs_rdma_push(exs);
	/* SO_KEEPALIVE itself goes through exs_keepalive() */
	if (optname == TCP_KEEPIDLE || optname == TCP_KEEPINTVL ||
	    optname == TCP_USER_TIMEOUT)
		exs_watch_update(exs, sock_flag(&exs->sk, SOCK_KEEPOPEN));
	return 0;
}

/* What EXS_INFO and the socket dump report.  Under the socket lock. */
void exs_sock_info(struct exs_sock *exs, struct exs_info *info)
{
	info->exsi_transport = exs->transport;
	info->exsi_fallback_reason = exs->fallback_reason;
	info->exsi_listening = exs->sk.sk_state == TCP_LISTEN;
	info->exsi_native_family = exs->native->sk->sk_family;
	info->exsi_busy_poll_us = READ_ONCE(exs->busy_poll_us);
	info->exsi_inline = READ_ONCE(exs->inline_max);
	if (exs_on_rdma(exs))
		exs_rdma_info(exs, info);
}

/* A struct option's value as TCP's TCP_INFO gives one: at most
 * *@optlen bytes of it, and *@optlen says how many.
 */
static int exs_put_struct(const void *val, unsigned int size,
			  char __user *optval, int __user *optlen)
{
	int len;

	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	len = min_t(unsigned int, len, size);
	if (put_user(len, optlen) || copy_to_user(optval, val, len))
		return -EFAULT;
	return 0;
}

static int exs_getsockopt_info(struct exs_sock *exs, char __user *optval,
			       int __user *optlen)
{
	struct exs_info info = {};

	lock_sock(&exs->sk);
	exs_sock_info(exs, &info);
	release_sock(&exs->sk);
	return exs_put_struct(&info, sizeof(info), optval, optlen);
}

static int exs_put_int(int val, char __user *optval, int __user *optlen)
{
	int len;

	if (get_user(len, optlen))
		return -EFAULT;
	if (len < (int)sizeof(int))
		return -EINVAL;
	if (put_user(sizeof(int), optlen) ||
	    copy_to_user(optval, &val, sizeof(int)))
		return -EFAULT;
	return 0;
}

/* TCP_INFO of an RDMA socket, its own, as tcp_get_info() would give it
 * (data.c); false while the native socket's is the one (TCP, or not
 * connected yet).
 */
static bool exs_tcp_info(struct exs_sock *exs, struct tcp_info *info)
{
	bool rdma;

	lock_sock(&exs->sk);
	rdma = exs_on_rdma(exs);
	if (rdma)
		exs_rdma_tcp_info(exs, info);
	release_sock(&exs->sk);
	return rdma;
}

int exs_getsockopt(struct socket *sock, int level, int optname,
		   char __user *optval, int __user *optlen)
{
	struct exs_sock *exs = exs_sk(sock->sk);
	struct socket *native = exs->native;
	struct tcp_info info;

	if (level == SOL_TCP && optname == TCP_INFO && exs_tcp_info(exs, &info))
		return exs_put_struct(&info, sizeof(info), optval, optlen);
	if (level != SOL_EXS)
		return READ_ONCE(native->ops)->getsockopt(native, level,
							  optname, optval,
							  optlen);
	switch (optname) {
	case EXS_INFO:
		return exs_getsockopt_info(exs, optval, optlen);
	case EXS_BUSY_POLL:
		return exs_put_int(READ_ONCE(exs->busy_poll_us), optval,
				   optlen);
	case EXS_RING_SIZE:
		return exs_put_int(exs_ring_size_of(exs), optval, optlen);
	case EXS_INLINE:
		return exs_put_int(READ_ONCE(exs->inline_max), optval, optlen);
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
				(1UL << SOCK_TSTAMP_NEW) | \
				(1UL << SOCK_ZEROCOPY))

/* The socket-level settings a socket passes on: to its native socket,
 * or from a listener to the sockets it accepts, as TCP's sock_copy does.
 */
static void exs_copy_sock_settings(struct sock *dst, const struct sock *src)
{
	dst->sk_reuse = src->sk_reuse;
	dst->sk_reuseport = src->sk_reuseport;
	dst->sk_bound_dev_if = src->sk_bound_dev_if;
	WRITE_ONCE(dst->sk_sndtimeo, src->sk_sndtimeo);
	WRITE_ONCE(dst->sk_rcvtimeo, src->sk_rcvtimeo);
	WRITE_ONCE(dst->sk_mark, READ_ONCE(src->sk_mark));
	dst->sk_priority = src->sk_priority;
	WRITE_ONCE(dst->sk_rcvlowat, src->sk_rcvlowat);
	dst->sk_lingertime = src->sk_lingertime;
	dst->sk_max_pacing_rate = src->sk_max_pacing_rate;
	dst->sk_tsflags = src->sk_tsflags;
	dst->sk_flags &= ~EXS_SK_FLAGS_TO_NATIVE;
	dst->sk_flags |= src->sk_flags & EXS_SK_FLAGS_TO_NATIVE;
	if (src->sk_userlocks & SOCK_SNDBUF_LOCK) {
		dst->sk_userlocks |= SOCK_SNDBUF_LOCK;
		WRITE_ONCE(dst->sk_sndbuf, src->sk_sndbuf);
	}
	if (src->sk_userlocks & SOCK_RCVBUF_LOCK) {
		dst->sk_userlocks |= SOCK_RCVBUF_LOCK;
		WRITE_ONCE(dst->sk_rcvbuf, src->sk_rcvbuf);
	}
}

/* Where the socket layer gives us no SOL_SOCKET hook (compat.h), options
 * set so far live on the AF_EXS sock only: hand them to the native socket
 * before the calls that act on them (bind, listen, accept, connect).
 * Called with the AF_EXS sock locked.
 */
void exs_copy_settings_to_native(struct exs_sock *exs)
{
	struct sock *nsk = exs->native->sk;

	if (EXS_HAVE_CUSTOM_SOCKOPT)
		return;

	lock_sock(nsk);
	exs_copy_sock_settings(nsk, &exs->sk);
	release_sock(nsk);
}

/* Where options reach the native listener only at accept() (no SOL_SOCKET
 * hook), a TCP child the kernel cloned before then missed them: give it the
 * listener's, as it would have had on TCP.  Called with nothing locked.
 */
void exs_copy_settings_to_child(struct exs_sock *lexs, struct sock *child)
{
	if (EXS_HAVE_CUSTOM_SOCKOPT)
		return;

	lock_sock(&lexs->sk);
	lock_sock(child);
	exs_copy_sock_settings(child, &lexs->sk);
	release_sock(child);
	release_sock(&lexs->sk);
}

/* An RDMA child of @lexs, not yet visible to anyone, starts with the
 * listener's settings on both of its socks, as a TCP child would, and with
 * its TCP_NODELAY/TCP_CORK and EXS_BUSY_POLL.
 */
void exs_inherit_settings(struct exs_sock *exs, struct exs_sock *lexs)
{
	struct sock *lsk = &lexs->sk;

	lock_sock(lsk);
	exs_copy_sock_settings(&exs->sk, lsk);
	exs_copy_sock_settings(exs->native->sk, lsk);
	tcp_sk(exs->native->sk)->nonagle = tcp_sk(lexs->native->sk)->nonagle;
	exs->busy_poll_us = lexs->busy_poll_us;
	exs->ring_size = lexs->ring_size;
	exs->inline_max = lexs->inline_max;
	release_sock(lsk);
}
