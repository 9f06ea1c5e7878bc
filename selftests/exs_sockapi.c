// SPDX-License-Identifier: GPL-2.0
/*
 * exs_sockapi: the socket API of AF_EXS, checked against TCP's.
 *
 * Each case runs once on a plain TCP socket and once on an AF_EXS socket
 * and must give the same answer (return value, errno and whatever the case
 * measures), since an AF_EXS socket is TCP's stand-in.  Cases that are
 * AF_EXS's own (family, merge, SOL_EXS) assert their expected values.
 * Everything runs inside one host: on loopback, where AF_EXS has no RDMA
 * device and every connection merges into TCP, or with -4 ADDR -6 ADDR on
 * the host's RDMA addresses, where AF_EXS to AF_EXS goes over RDMA (-R
 * then also asserts that it did).  Output is TAP.
 *
 *   exs_sockapi [-4 ADDR -6 ADDR -R]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/af_exs.h>
#include <linux/errqueue.h>
#include <linux/sockios.h>

#include "exs_cmp.h"

/* An unused loopback port: bound then closed, so nothing listens there. */
static int closed_port(int af)
{
	int port, fd = listener(false, af, &port);

	close(fd);
	return port;
}

/* ---- cases compared between TCP and AF_EXS ---------------------------- */

typedef struct res (*case_fn)(bool exs, int af);

static struct res c_bind_wrong_family(bool exs, int af)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback(af == AF_INET ? AF_INET6 : AF_INET, 0, &ss);
	int fd = sock_of(exs, af, SOCK_STREAM);
	struct res r = R(bind(fd, (void *)&ss, len), 0);

	close(fd);
	return r;
}

static struct res c_bind_short(bool exs, int af)
{
	struct sockaddr_storage ss;
	int fd = sock_of(exs, af, SOCK_STREAM);
	struct res r;

	loopback(af, 0, &ss);
	r = R(bind(fd, (void *)&ss, 4), 0);
	close(fd);
	return r;
}

static struct res c_bind_twice(bool exs, int af)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback(af, 0, &ss);
	int fd = sock_of(exs, af, SOCK_STREAM);
	struct res r;

	bind(fd, (void *)&ss, len);
	r = R(bind(fd, (void *)&ss, len), 0);
	close(fd);
	return r;
}

/* Same port space: binding where a TCP listener sits fails alike. */
static struct res c_bind_in_use(bool exs, int af)
{
	struct sockaddr_storage ss;
	int port, tcp = listener(false, af, &port);
	socklen_t len = loopback(af, port, &ss);
	int fd = sock_of(exs, af, SOCK_STREAM);
	struct res r = R(bind(fd, (void *)&ss, len), 0);

	close(fd);
	close(tcp);
	return r;
}

static struct res c_getsockname_bound(bool exs, int af)
{
	struct sockaddr_storage ss, out;
	socklen_t len = loopback(af, 0, &ss), olen = sizeof(out);
	int fd = sock_of(exs, af, SOCK_STREAM);
	struct res r;

	bind(fd, (void *)&ss, len);
	memset(&out, 0, sizeof(out));
	r = R(getsockname(fd, (void *)&out, &olen), 0);
	r.val = out.ss_family * 1000 + olen;	/* after the call, not beside it */
	close(fd);
	return r;
}

static struct res c_getpeername_unconnected(bool exs, int af)
{
	struct sockaddr_storage out;
	socklen_t olen = sizeof(out);
	int fd = sock_of(exs, af, SOCK_STREAM);
	struct res r = R(getpeername(fd, (void *)&out, &olen), 0);

	close(fd);
	return r;
}

static struct res c_connect_refused(bool exs, int af)
{
	int fd = sock_of(exs, af, SOCK_STREAM);
	struct res r = R(connect_to(fd, af, closed_port(af)), 0);

	close(fd);
	return r;
}

static struct res c_connect_twice(bool exs, int af)
{
	int port, l = listener(false, af, &port);
	int fd = sock_of(exs, af, SOCK_STREAM);
	struct res r;

	connect_to(fd, af, port);
	r = R(connect_to(fd, af, port), 0);
	close(fd);
	close(l);
	return r;
}

static struct res c_connect_on_listener(bool exs, int af)
{
	int port, l = listener(exs, af, &port);
	struct res r = R(connect_to(l, af, port), 0);

	close(l);
	return r;
}

static struct res c_connect_short(bool exs, int af)
{
	struct sockaddr_storage ss;
	int fd = sock_of(exs, af, SOCK_STREAM);
	struct res r;

	loopback(af, 1, &ss);
	r = R(connect(fd, (void *)&ss, 2), 0);
	close(fd);
	return r;
}

static struct res c_connect_wrong_family(bool exs, int af)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback(af == AF_INET ? AF_INET6 : AF_INET, 1, &ss);
	int fd = sock_of(exs, af, SOCK_STREAM);
	struct res r = R(connect(fd, (void *)&ss, len), 0);

	close(fd);
	return r;
}

static struct res c_listen_connected(bool exs, int af)
{
	int port, l = listener(false, af, &port);
	int fd = sock_of(exs, af, SOCK_STREAM);
	struct res r;

	connect_to(fd, af, port);
	r = R(listen(fd, 5), 0);
	close(fd);
	close(l);
	return r;
}

/* listen() on a port another socket's TCP listener took meanwhile (both
 * bound with SO_REUSEADDR) fails and leaves nothing listening: once that
 * listener is gone, a connect there is refused.  AF_EXS listens for RDMA
 * before TCP, so its failed listen() must take the RDMA side back.
 */
static struct res c_listen_in_use(bool exs, int af)
{
	struct sockaddr_storage ss;
	int one = 1, port, fd, tcp, c;
	socklen_t len = loopback(af, 0, &ss);
	struct res r;

	fd = sock_of(exs, af, SOCK_STREAM);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	bind(fd, (void *)&ss, len);
	port = port_of(fd);
	tcp = sock_of(false, af, SOCK_STREAM);
	setsockopt(tcp, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	len = loopback(af, port, &ss);
	bind(tcp, (void *)&ss, len);
	listen(tcp, 4);
	r = R(listen(fd, 4), 0);
	close(tcp);
	c = sock_of(exs, af, SOCK_STREAM);
	r.val = connect_to(c, af, port) ? errno : 0;
	close(c);
	close(fd);
	return r;
}

static struct res c_accept_not_listening(bool exs, int af)
{
	int fd = sock_of(exs, af, SOCK_STREAM);
	struct res r = R(accept(fd, NULL, NULL), 0);

	close(fd);
	return r;
}

static struct res c_accept_nonblock_empty(bool exs, int af)
{
	int port, l = listener(exs, af, &port);
	struct res r;

	fcntl(l, F_SETFL, O_NONBLOCK);
	r = R(accept(l, NULL, NULL), 0);
	close(l);
	return r;
}

static struct res c_shutdown_unconnected(bool exs, int af)
{
	int fd = sock_of(exs, af, SOCK_STREAM);
	struct res r = R(shutdown(fd, SHUT_RDWR), 0);

	close(fd);
	return r;
}

static struct res c_shutdown_bad_how(bool exs, int af)
{
	int fd = sock_of(exs, af, SOCK_STREAM);
	struct res r = R(shutdown(fd, 7), 0);

	close(fd);
	return r;
}

static struct res c_send_unconnected(bool exs, int af)
{
	int fd = sock_of(exs, af, SOCK_STREAM);
	struct res r = R(send(fd, "x", 1, MSG_NOSIGNAL), 0);

	close(fd);
	return r;
}

static struct res c_recv_unconnected(bool exs, int af)
{
	char c;
	int fd = sock_of(exs, af, SOCK_STREAM);
	struct res r = R(recv(fd, &c, 1, MSG_DONTWAIT), 0);

	close(fd);
	return r;
}

static struct res c_poll_fresh(bool exs, int af)
{
	int fd = sock_of(exs, af, SOCK_STREAM);
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT | POLLRDHUP };
	struct res r = R(poll(&p, 1, 0), p.revents);

	close(fd);
	return r;
}

static struct res c_poll_listener(bool exs, int af)
{
	int port, l = listener(exs, af, &port);
	struct pollfd p = { .fd = l, .events = POLLIN | POLLOUT };
	int c = socket(af, SOCK_STREAM, 0);
	struct res r;

	poll(&p, 1, 0);
	r.val = p.revents;
	connect_to(c, af, port);
	p.revents = 0;
	r = R(poll(&p, 1, 2000), r.val * 65536 + p.revents);
	close(c);
	close(l);
	return r;
}

static struct res c_ioctl_inq_listener(bool exs, int af)
{
	int port, l = listener(exs, af, &port), v = -7;
	struct res r = R(ioctl(l, SIOCINQ, &v), v);

	close(l);
	return r;
}

static struct res c_ioctl_outq_fresh(bool exs, int af)
{
	int fd = sock_of(exs, af, SOCK_STREAM), v = -7;
	struct res r = R(ioctl(fd, SIOCOUTQ, &v), v);

	close(fd);
	return r;
}

/* SO_RCVBUF set on a listener after listen() reaches the accepted sockets */
static struct res c_listener_rcvbuf_inherited(bool exs, int af)
{
	int port, l = listener(exs, af, &port), v = 32768, a;
	int c = socket(af, SOCK_STREAM, 0);
	socklen_t len = sizeof(v);
	struct res r;

	setsockopt(l, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	connect_to(c, af, port);
	a = accept(l, NULL, NULL);
	r = R(getsockopt(a, SOL_SOCKET, SO_RCVBUF, &v, &len), 0);
	r.val = v;
	close(a);
	close(c);
	close(l);
	return r;
}

static struct res c_sockopt_bad_len(bool exs, int af)
{
	int fd = sock_of(exs, af, SOCK_STREAM);
	short v = 1;
	struct res r = R(setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &v, 1), 0);

	close(fd);
	return r;
}

/* An option set, then read back: the set's result and the value read (or
 * the read's errno, negated) must be TCP's.
 */
struct opt_case {
	int level, name;	/* IPv4 socket */
	int level6, name6;	/* IPv6 socket, when it differs */
	int value;
};

static struct res opt_roundtrip(bool exs, int af, const struct opt_case *o)
{
	int fd = sock_of(exs, af, SOCK_STREAM), v = o->value, g;
	int level = af == AF_INET6 && o->level6 ? o->level6 : o->level;
	int name = af == AF_INET6 && o->name6 ? o->name6 : o->name;
	socklen_t len = sizeof(v);
	struct res r = R(setsockopt(fd, level, name, &v, sizeof(v)), 0);

	v = -7;
	g = getsockopt(fd, level, name, &v, &len);
	r.val = g < 0 ? -errno : v;
	close(fd);
	return r;
}

static const struct opt_case o_rcvbuf = { SOL_SOCKET, SO_RCVBUF, .value = 65536 };
static const struct opt_case o_peek_off = { SOL_SOCKET, SO_PEEK_OFF, .value = 3 };
static const struct opt_case o_nodelay = { IPPROTO_TCP, TCP_NODELAY, .value = 1 };
static const struct opt_case o_maxseg = { IPPROTO_TCP, TCP_MAXSEG, .value = 1000 };
static const struct opt_case o_tos = { SOL_IP, IP_TOS, SOL_IPV6, IPV6_TCLASS, 0x10 };

static struct res c_sockopt_unknown_level(bool exs, int af)
{
	int fd = sock_of(exs, af, SOCK_STREAM), v = 1;
	struct res r = R(setsockopt(fd, 9999, 1, &v, sizeof(v)), 0);

	close(fd);
	return r;
}

static struct res c_acceptconn(bool exs, int af)
{
	int port, l = listener(exs, af, &port), v = -1;
	socklen_t len = sizeof(v);
	struct res r = R(getsockopt(l, SOL_SOCKET, SO_ACCEPTCONN, &v, &len), 0);

	r.val = v;
	close(l);
	return r;
}

/* SO_REUSEPORT set before bind must reach the socket that binds. */
static struct res c_reuseport(bool exs, int af)
{
	struct sockaddr_storage ss;
	int one = 1, port, a, b;
	socklen_t len;
	struct res r;

	a = sock_of(exs, af, SOCK_STREAM);
	setsockopt(a, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	len = loopback(af, 0, &ss);
	bind(a, (void *)&ss, len);
	listen(a, 4);
	port = port_of(a);
	b = sock_of(exs, af, SOCK_STREAM);
	setsockopt(b, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	len = loopback(af, port, &ss);
	r = R(bind(b, (void *)&ss, len), 0);
	close(a);
	close(b);
	return r;
}

static struct res c_nonblock_connect(bool exs, int af)
{
	int port, l = listener(false, af, &port), err = -1;
	int fd = sock_of(exs, af, SOCK_STREAM | SOCK_NONBLOCK);
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	socklen_t len = sizeof(err);
	struct res r = R(connect_to(fd, af, port), 0);

	/* slow kernels: the RDMA attempt is refused before TCP's is */
	poll(&p, 1, 30000);
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
	r.val = err * 65536 + (p.revents & POLLOUT);
	close(fd);
	close(l);
	return r;
}

static struct res c_nonblock_connect_refused(bool exs, int af)
{
	int fd = sock_of(exs, af, SOCK_STREAM | SOCK_NONBLOCK), err = -1;
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	socklen_t len = sizeof(err);
	struct res r = R(connect_to(fd, af, closed_port(af)), 0);

	/* slow kernels: the RDMA attempt is refused before TCP's is */
	poll(&p, 1, 30000);
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
	r.val = err;
	close(fd);
	return r;
}

static struct res c_accept4_flags(bool exs, int af)
{
	int port, l = listener(exs, af, &port);
	int c = socket(af, SOCK_STREAM, 0), a, fl, fdfl;
	struct res r;

	connect_to(c, af, port);
	a = accept4(l, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	fl = fcntl(a, F_GETFL);
	fdfl = fcntl(a, F_GETFD);
	r = R(a < 0 ? -1 : 0, !!(fl & O_NONBLOCK) * 2 + !!(fdfl & FD_CLOEXEC));
	close(a);
	close(c);
	close(l);
	return r;
}

/* accept() filling in the peer's address (6.12 regression: it crashed). */
static struct res c_accept_peer_addr(bool exs, int af)
{
	int port, l = listener(exs, af, &port);
	int c = socket(af, SOCK_STREAM, 0), a;
	struct sockaddr_storage peer, me;
	socklen_t plen = sizeof(peer), mlen = sizeof(me);
	struct res r;

	connect_to(c, af, port);
	getsockname(c, (void *)&me, &mlen);
	a = accept(l, (void *)&peer, &plen);
	r = R(a < 0 ? -1 : 0, plen * 1000 + (plen == mlen && !memcmp(&peer, &me, plen)));
	close(a);
	close(c);
	close(l);
	return r;
}

/* A connection up (*@l listens, *@c connected, the accepted end
 * returned) with "hello" sent one way and its first 2 bytes read.
 */
static int hello_sent(bool exs, int af, int *l, int *c)
{
	int port, a;
	char buf[2];

	*l = listener(exs, af, &port);
	*c = sock_of(exs, af, SOCK_STREAM);
	connect_to(*c, af, port);
	a = accept(*l, NULL, NULL);
	send(*c, "hello", 5, 0);
	recv(a, buf, 2, MSG_WAITALL);
	return a;
}

/* Data both ways and FIONREAD once the connection is up. */
static struct res c_data_fionread(bool exs, int af)
{
	int l, c, a = hello_sent(exs, af, &l, &c), n = -1;
	char buf[8];
	struct res r;

	usleep(20000);
	ioctl(a, FIONREAD, &n);
	send(a, "ok", 2, 0);
	r = R(recv(c, buf, 2, MSG_WAITALL), n);
	close(a);
	close(c);
	close(l);
	return r;
}

/* Half-close: the peer reads EOF and can still send. */
static struct res c_half_close(bool exs, int af)
{
	int port, l = listener(exs, af, &port);
	int c = sock_of(exs, af, SOCK_STREAM), a, eof;
	char buf[4];
	struct res r;

	connect_to(c, af, port);
	a = accept(l, NULL, NULL);
	shutdown(c, SHUT_WR);
	eof = recv(a, buf, sizeof(buf), 0);
	send(a, "back", 4, 0);
	r = R(recv(c, buf, 4, MSG_WAITALL), eof);
	close(a);
	close(c);
	close(l);
	return r;
}

/* TCP_INFO's state and byte counts of one end, and whether it has an
 * RTT, in one number
 */
static long tcp_info_of(int fd, int *ret)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	*ret = getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len);
	if (*ret)
		return -1;
	if (len != sizeof(ti))
		return -2;
	return (ti.tcpi_rtt > 0) * 1000000000L + ti.tcpi_state * 100000000L +
	       ti.tcpi_bytes_acked * 10000L + ti.tcpi_bytes_received * 100L +
	       ti.tcpi_notsent_bytes;
}

/* TCP_INFO on both ends after 5 bytes one way and 2 back (3 left
 * unread), then after a half-close the peer read, once the FIN is acked:
 * states (ESTABLISHED, then FIN_WAIT2 and CLOSE_WAIT), bytes acked and
 * received, as TCP counts them (the connector's SYN, a FIN), and an RTT
 * measured, on both transports.
 */
static struct res c_tcp_info(bool exs, int af)
{
	int l, c, a = hello_sent(exs, af, &l, &c), r1, r2, r3, r4, i;
	long v1, v2, v3, v4;
	char buf[8];
	struct res r;

	send(a, "ok", 2, 0);
	recv(c, buf, 2, MSG_WAITALL);
	usleep(20000);
	v1 = tcp_info_of(c, &r1);
	v2 = tcp_info_of(a, &r2);
	shutdown(c, SHUT_WR);
	recv(a, buf, 3, MSG_WAITALL);
	recv(a, buf, 1, 0);
	/* TCP's peer may delay the ACK of the FIN: until it came, 2 s */
	for (i = 0; i < 200; i++) {
		v3 = tcp_info_of(c, &r3);
		if (v3 / 100000000L % 10 != 4)	/* FIN_WAIT1 */
			break;
		usleep(10000);
	}
	v4 = tcp_info_of(a, &r4);
	r = R(r1 | r2 | r3 | r4, v1 * 7 + v2 * 5 + v3 * 3 + v4);
	/* what a mismatch's one number hides: state, acked, received,
	 * not sent, of each end, before and after
	 */
	printf("# %s: TCP_INFO %ld %ld, then %ld %ld\n", exs ? "exs" : "tcp",
	       v1, v2, v3, v4);
	close(a);
	close(c);
	close(l);
	return r;
}

/* The zero-copy notifications on @fd's error queue within 3 s: which of
 * the send ids 0..2 they completed (a bit each; a second completion of
 * one sets bit 3), whether each said SO_EE_ORIGIN_ZEROCOPY with no errno
 * and whether all said COPIED, in the layout of @af's IP level.
 */
static long zc_notified(int fd, int af)
{
	int level = af == AF_INET6 ? SOL_IPV6 : SOL_IP;
	int type = af == AF_INET6 ? IPV6_RECVERR : IP_RECVERR;
	size_t off = af == AF_INET6 ? sizeof(struct sockaddr_in6) :
				      sizeof(struct sockaddr_in);
	long ids = 0, shape = 1, copied = 1;
	int i;

	for (i = 0; i < 300 && (ids & 7) != 7; i++) {
		char control[128];
		struct msghdr m = { .msg_control = control,
				    .msg_controllen = sizeof(control) };
		struct pollfd p = { .fd = fd };
		struct sock_extended_err *ee;
		struct cmsghdr *cm;
		unsigned int id;

		if (recvmsg(fd, &m, MSG_ERRQUEUE) < 0) {
			poll(&p, 1, 10);	/* POLLERR is always polled */
			continue;
		}
		cm = CMSG_FIRSTHDR(&m);
		if (!cm || cm->cmsg_level != level || cm->cmsg_type != type ||
		    cm->cmsg_len != CMSG_LEN(sizeof(*ee) + off) ||
		    !(m.msg_flags & MSG_ERRQUEUE)) {
			shape = 0;
			continue;
		}
		ee = (void *)CMSG_DATA(cm);
		if (ee->ee_origin != SO_EE_ORIGIN_ZEROCOPY || ee->ee_errno ||
		    ee->ee_info > ee->ee_data || ee->ee_data > 2) {
			shape = 0;
			continue;
		}
		copied &= !!(ee->ee_code & SO_EE_CODE_ZEROCOPY_COPIED);
		for (id = ee->ee_info; id <= ee->ee_data; id++) {
			if (ids & (1L << id))
				ids |= 8;
			ids |= 1L << id;
		}
	}
	return ids + shape * 16 + copied * 32;
}

/* MSG_ZEROCOPY as TCP has it: without SO_ZEROCOPY the flag is ignored
 * (the send succeeds, no notification); with it, getsockopt says so,
 * an edge-triggered epoll set up before the sends is woken with EPOLLERR
 * (a wakeup, not just a poll that finds it), and each of three sends is
 * completed once on the error
 * queue (ids 0..2, in ranges), with no errno, COPIED where the kernel
 * copied (TCP over one host's loopback copies too, as AF_EXS's ring
 * does); then the queue is empty.  The peer gets every byte.  With -R,
 * AF_EXS's must have been RDMA.
 */
static struct res c_zerocopy(bool exs, int af)
{
	int l, c, a = hello_sent(exs, af, &l, &c), one = 1, zc = 0, i;
	int r0, e0, got = 0, n, transport = EXS_TRANSPORT_RDMA, ep, woken;
	struct epoll_event ev = { .events = EPOLLET };
	struct exs_info info;
	socklen_t len = sizeof(zc);
	char buf[1000], in[3000];
	struct timeval tv = { .tv_sec = 5 };
	struct msghdr m = { 0 };
	long ids, v;

	setsockopt(a, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	memset(buf, 'z', sizeof(buf));
	r0 = send(c, buf, 100, MSG_ZEROCOPY);
	e0 = recvmsg(c, &m, MSG_ERRQUEUE) < 0 ? errno : 0;
	setsockopt(c, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one));
	getsockopt(c, SOL_SOCKET, SO_ZEROCOPY, &zc, &len);
	ep = epoll_create1(0);
	epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev);	/* EPOLLERR: always */
	for (i = 0; i < 3; i++)
		r0 += send(c, buf, sizeof(buf), MSG_ZEROCOPY) == sizeof(buf);
	woken = epoll_wait(ep, &ev, 1, 3000) == 1 && (ev.events & EPOLLERR);
	close(ep);
	ids = zc_notified(c, af);
	memset(&m, 0, sizeof(m));
	v = recvmsg(c, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0 ? errno : 0;
	/* hello_sent()'s 3 unread bytes, then the sends' 3100 */
	while (got < 3103 && (n = recv(a, in, sizeof(in), 0)) > 0)
		got += n;
	if (exs && expect_rdma) {
		len = sizeof(info);
		transport = getsockopt(c, SOL_EXS, EXS_INFO, &info, &len) ? -1 :
			    info.exsi_transport;
	}
	printf("# %s: sent %d, errqueue %d, SO_ZEROCOPY %d, EPOLLERR %d, ",
	       exs ? "exs" : "tcp", r0, e0, zc, woken);
	printf("notified %#lx, then %ld, peer got %d\n", ids, v, got);
	close(a);
	close(c);
	close(l);
	return R(transport == EXS_TRANSPORT_RDMA ? 0 : -1,
		 r0 * 1000000000L + e0 * 10000000L + zc * 1000000L +
		 woken * 100000L + ids * 1000L + v * 10L +
		 (got == 3103));
}

/* Before 6.6 (no SOCK_CUSTOM_SOCKOPT) the socket layer answers
 * SO_ZEROCOPY itself, and only for TCP and UDP: AF_EXS cannot offer it.
 */
static bool exs_zerocopy_refused(int af)
{
	int one = 1, fd = sock_of(true, af, SOCK_STREAM);
	int r = setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one));

	close(fd);
	return r < 0 && errno == EOPNOTSUPP;
}

/* SO_LINGER {1, 0}: close sends a reset, the peer sees ECONNRESET. */
static struct res c_linger_reset(bool exs, int af)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	int port, l = listener(exs, af, &port);
	int c = sock_of(exs, af, SOCK_STREAM), a;
	char buf[4];
	struct res r;

	setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	connect_to(c, af, port);
	a = accept(l, NULL, NULL);
	close(c);
	usleep(50000);
	r = R(recv(a, buf, sizeof(buf), 0), 0);
	close(a);
	close(l);
	return r;
}

/* Blocking connect interrupted by a signal (no SA_RESTART): EINTR. */
static void on_alarm(int sig)
{
	(void)sig;
}

static struct res c_connect_signal(bool exs, int af)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(9) };
	int fd = sock_of(exs, AF_INET, SOCK_STREAM);
	struct res r;

	(void)af;
	/* TEST-NET-1 routed to a dummy device by the script: SYNs vanish */
	inet_pton(AF_INET, "192.0.2.2", &sin.sin_addr);
	sigaction(SIGALRM, &sa, NULL);
	ualarm(200000, 0);
	r = R(connect(fd, (void *)&sin, sizeof(sin)), 0);
	ualarm(0, 0);	/* a connect that failed early leaves it pending */
	close(fd);
	signal(SIGALRM, SIG_DFL);
	return r;
}

/*
 * Before 6.6 (no SOCK_CUSTOM_SOCKOPT) SOL_SOCKET options never reach AF_EXS
 * proto_ops, and later 6.1 stable kernels refuse SO_REUSEPORT on a non-inet
 * socket: such a kernel cannot offer it on an unconnected AF_EXS socket.
 */
static bool exs_reuseport_refused(int af)
{
	int one = 1, fd = sock_of(true, af, SOCK_STREAM);
	int r = setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));

	close(fd);
	return r < 0 && errno == EOPNOTSUPP;
}

struct cmp_case {
	const char *name;
	case_fn fn;
	bool v4_only;
	bool (*unsupported)(int af);
	const struct opt_case *opt;	/* instead of fn */
};

static const struct cmp_case cmp_cases[] = {
	{ "bind with the other family's address", c_bind_wrong_family },
	{ "bind with a short address", c_bind_short },
	{ "bind twice", c_bind_twice },
	{ "bind to a port a TCP listener holds", c_bind_in_use },
	{ "getsockname after bind", c_getsockname_bound },
	{ "getpeername unconnected", c_getpeername_unconnected },
	{ "connect to a closed port", c_connect_refused },
	{ "connect twice", c_connect_twice },
	{ "connect on a listener", c_connect_on_listener },
	{ "connect with a short address", c_connect_short },
	{ "connect with the other family's address", c_connect_wrong_family },
	{ "listen on a connected socket", c_listen_connected },
	{ "listen on a port a TCP listener took meanwhile", c_listen_in_use },
	{ "accept on a non-listener", c_accept_not_listening },
	{ "accept with nothing queued, non-blocking", c_accept_nonblock_empty },
	{ "shutdown unconnected", c_shutdown_unconnected },
	{ "shutdown with a bad how", c_shutdown_bad_how },
	{ "send unconnected", c_send_unconnected },
	{ "recv unconnected", c_recv_unconnected },
	{ "poll a fresh socket", c_poll_fresh },
	{ "poll a listener before and after a client", c_poll_listener },
	{ "SIOCINQ on a listener", c_ioctl_inq_listener },
	{ "SIOCOUTQ on a fresh socket", c_ioctl_outq_fresh },
	{ "SO_RCVBUF round trip", .opt = &o_rcvbuf },
	{ "SOL_SOCKET option too short", c_sockopt_bad_len },
	{ "SO_PEEK_OFF round trip", .opt = &o_peek_off },
	{ "SO_RCVBUF on a listener reaches accepted sockets", c_listener_rcvbuf_inherited },
	{ "TCP_NODELAY round trip", .opt = &o_nodelay },
	{ "TCP_MAXSEG round trip", .opt = &o_maxseg },
	{ "IP_TOS / IPV6_TCLASS round trip", .opt = &o_tos },
	{ "setsockopt at an unknown level", c_sockopt_unknown_level },
	{ "SO_ACCEPTCONN on a listener", c_acceptconn },
	{ "SO_REUSEPORT before bind", c_reuseport, false,
	  exs_reuseport_refused },
	{ "non-blocking connect: EINPROGRESS, POLLOUT, SO_ERROR", c_nonblock_connect },
	{ "non-blocking connect refused: SO_ERROR", c_nonblock_connect_refused },
	{ "accept4 SOCK_NONBLOCK | SOCK_CLOEXEC", c_accept4_flags },
	{ "accept returns the peer's address", c_accept_peer_addr },
	{ "data both ways, FIONREAD", c_data_fionread },
	{ "half-close", c_half_close },
	{ "SO_LINGER 0 resets the peer", c_linger_reset },
	{ "TCP_INFO: states and bytes acked and received", c_tcp_info },
	{ "MSG_ZEROCOPY: notifications on the error queue", c_zerocopy, false,
	  exs_zerocopy_refused },
	{ "blocking connect interrupted by a signal", c_connect_signal, true },
};

static void run_compare(const struct cmp_case *c, int af)
{
	struct res t, x;
	char name[160];

	snprintf(name, sizeof(name), "%s: %s", af == AF_INET6 ? "ipv6" : "ipv4",
		 c->name);
	if (c->unsupported && c->unsupported(af)) {
		tap_skip(name, "this kernel keeps the option from AF_EXS (before 6.6)");
		return;
	}
	t = c->opt ? opt_roundtrip(false, af, c->opt) : c->fn(false, af);
	x = c->opt ? opt_roundtrip(true, af, c->opt) : c->fn(true, af);
	cmp_report(name, t, x);
}

/* ---- AF_EXS's own cases ------------------------------------------------ */

/* AF_EXS to AF_EXS over RDMA: both ends stay AF_EXS and say RDMA. */
static void own_rdma_cases(const char *v, int c, int a, int af)
{
	struct exs_info ci, ai;
	socklen_t len = sizeof(ci);
	char name[128];
	int cr, ar;

	snprintf(name, sizeof(name), "%s: connected AF_EXS socket stays AF_EXS (RDMA)", v);
	tap_report(domain_of(c) == exs_domain(af), name, "SO_DOMAIN %d",
		   domain_of(c));
	snprintf(name, sizeof(name), "%s: accepted socket stays AF_EXS (RDMA)", v);
	tap_report(domain_of(a) == exs_domain(af), name, "SO_DOMAIN %d",
		   domain_of(a));
	if (exs_ipproto_num) {
		snprintf(name, sizeof(name), "%s: both ends say SO_PROTOCOL IPPROTO_EXS (RDMA)", v);
		tap_report(proto_of(c) == exs_ipproto_num &&
			   proto_of(a) == exs_ipproto_num, name,
			   "client %d, server %d", proto_of(c), proto_of(a));
	}
	cr = getsockopt(c, SOL_EXS, EXS_INFO, &ci, &len);
	len = sizeof(ai);
	ar = getsockopt(a, SOL_EXS, EXS_INFO, &ai, &len);
	snprintf(name, sizeof(name), "%s: EXS_INFO says RDMA on both ends", v);
	tap_report(!cr && !ar && ci.exsi_transport == EXS_TRANSPORT_RDMA &&
		   ai.exsi_transport == EXS_TRANSPORT_RDMA &&
		   ai.exsi_native_family == (unsigned int)af, name,
		   "client %u, server %u", ci.exsi_transport, ai.exsi_transport);
	/* own_cases() set 64 KiB and no inline on the client, 32 KiB on
	 * the listener: each ring is its owner's, the peer writes into it
	 */
	snprintf(name, sizeof(name), "%s: EXS_RING_SIZE and EXS_INLINE shape the connection", v);
	tap_report(ci.exsi_rx_ring == 65536 && ci.exsi_tx_ring == 32768 &&
		   ai.exsi_rx_ring == 32768 && ai.exsi_tx_ring == 65536 &&
		   ci.exsi_inline == 0 && ai.exsi_inline > 0 &&
		   ci.exsi_credit_fraction > 0, name,
		   "client rx %u tx %u inline %u, server rx %u tx %u inline %u",
		   ci.exsi_rx_ring, ci.exsi_tx_ring, ci.exsi_inline,
		   ai.exsi_rx_ring, ai.exsi_tx_ring, ai.exsi_inline);
}

/* SOL_EXS integers: bounds, rounding, and fixed once connect() starts */
static void option_cases(const char *v, int af)
{
	int fd = sock_of(true, af, SOCK_STREAM), errs = 0, val, got;
	static const int bad_ring[] = { -1, EXS_RING_MIN - 1, EXS_RING_MAX + 1 };
	static const int bad_inline[] = { -1, EXS_INLINE_MAX + 1 };
	socklen_t len = sizeof(got);
	char name[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad_ring); i++)
		errs += !(setsockopt(fd, SOL_EXS, EXS_RING_SIZE, &bad_ring[i],
				     sizeof(int)) < 0 && errno == EINVAL);
	for (i = 0; i < ARRAY_SIZE(bad_inline); i++)
		errs += !(setsockopt(fd, SOL_EXS, EXS_INLINE, &bad_inline[i],
				     sizeof(int)) < 0 && errno == EINVAL);
	val = 100000;	/* a power of two below it */
	errs += setsockopt(fd, SOL_EXS, EXS_RING_SIZE, &val, sizeof(val)) < 0;
	errs += getsockopt(fd, SOL_EXS, EXS_RING_SIZE, &got, &len) < 0 ||
		got != 65536;
	val = EXS_INLINE_MAX;
	errs += setsockopt(fd, SOL_EXS, EXS_INLINE, &val, sizeof(val)) < 0;
	errs += getsockopt(fd, SOL_EXS, EXS_INLINE, &got, &len) < 0 ||
		got != EXS_INLINE_MAX;
	errs += !(setsockopt(fd, SOL_EXS, EXS_INLINE, &val, 2) < 0 &&
		  errno == EINVAL);
	snprintf(name, sizeof(name), "%s: EXS_RING_SIZE and EXS_INLINE bounds and round trip", v);
	tap_report(!errs, name, "%d wrong", errs);
	close(fd);
}

static void own_cases(int af)
{
	const char *v = af == AF_INET6 ? "ipv6" : "ipv4";
	int port, l, c, a, fd, d, e, t;
	struct exs_info info;
	socklen_t len = sizeof(info);
	char name[128];

	fd = sock_of(true, af, SOCK_STREAM);
	snprintf(name, sizeof(name), "%s: fresh AF_EXS socket reports %s", v,
		 exs_ipproto_num ? "its IP family" : "AF_EXS");
	tap_report(domain_of(fd) == exs_domain(af), name, "SO_DOMAIN %d",
		   domain_of(fd));
	memset(&info, 0xff, sizeof(info));
	snprintf(name, sizeof(name), "%s: EXS_INFO on a fresh socket", v);
	tap_report(!getsockopt(fd, SOL_EXS, EXS_INFO, &info, &len) &&
		   len == sizeof(info) &&
		   info.exsi_transport == EXS_TRANSPORT_NONE &&
		   info.exsi_native_family == (unsigned int)af, name,
		   "transport %u family %u len %u", info.exsi_transport,
		   info.exsi_native_family, len);
	close(fd);

	l = listener(true, af, &port);
	snprintf(name, sizeof(name), "%s: a listener stays AF_EXS", v);
	tap_report(domain_of(l) == exs_domain(af), name, "SO_DOMAIN %d",
		   domain_of(l));
	len = sizeof(info);
	getsockopt(l, SOL_EXS, EXS_INFO, &info, &len);
	snprintf(name, sizeof(name), "%s: EXS_INFO marks the listener", v);
	tap_report(info.exsi_listening == 1, name, "listening %u",
		   info.exsi_listening);

	option_cases(v, af);
	c = sock_of(true, af, SOCK_STREAM);
	d = 65536;
	setsockopt(c, SOL_EXS, EXS_RING_SIZE, &d, sizeof(d));
	e = 0;
	setsockopt(c, SOL_EXS, EXS_INLINE, &e, sizeof(e));
	d = 32768;
	setsockopt(l, SOL_EXS, EXS_RING_SIZE, &d, sizeof(d));
	connect_to(c, af, port);
	a = accept(l, NULL, NULL);
	if (expect_rdma) {
		snprintf(name, sizeof(name), "%s: EXS_RING_SIZE after connect() is EISCONN", v);
		tap_report(setsockopt(c, SOL_EXS, EXS_RING_SIZE, &d,
				      sizeof(d)) < 0 && errno == EISCONN,
			   name, "errno %s", strerror(errno));
		own_rdma_cases(v, c, a, af);
		close(a);
		close(c);
		close(l);
		return;
	}
	snprintf(name, sizeof(name), "%s: connected AF_EXS socket merged into TCP", v);
	tap_report(domain_of(c) == af && proto_of(c) == IPPROTO_TCP, name,
		   "SO_DOMAIN %d SO_PROTOCOL %d", domain_of(c), proto_of(c));
	snprintf(name, sizeof(name), "%s: accepted socket is plain TCP", v);
	tap_report(domain_of(a) == af && proto_of(a) == IPPROTO_TCP, name,
		   "SO_DOMAIN %d SO_PROTOCOL %d", domain_of(a), proto_of(a));
	len = sizeof(info);
	d = getsockopt(c, SOL_EXS, EXS_INFO, &info, &len);
	e = errno;
	fd = socket(af, SOCK_STREAM, 0);
	len = sizeof(info);
	t = getsockopt(fd, SOL_EXS, EXS_INFO, &info, &len);
	snprintf(name, sizeof(name), "%s: merged socket answers SOL_EXS as TCP does", v);
	tap_report(d < 0 && t < 0 && e == errno, name, "exs %s, tcp %s",
		   strerror(e), strerror(errno));
	close(fd);
	close(a);
	close(c);
	close(l);
}

static void creation_cases(void)
{
	int fd;

	fd = socket(exs_af, SOCK_DGRAM, 0);
	tap_report(fd < 0 && errno == ESOCKTNOSUPPORT, "SOCK_DGRAM is refused",
		   "fd %d errno %s", fd, strerror(errno));
	if (fd >= 0)
		close(fd);
	fd = socket(exs_af, SOCK_STREAM, 7);
	tap_report(fd < 0 && errno == EPROTONOSUPPORT, "unknown protocol is refused",
		   "fd %d errno %s", fd, strerror(errno));
	if (fd >= 0)
		close(fd);
	fd = socket(exs_af, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	tap_report(fd >= 0 && (fcntl(fd, F_GETFL) & O_NONBLOCK) &&
		   (fcntl(fd, F_GETFD) & FD_CLOEXEC),
		   "SOCK_NONBLOCK | SOCK_CLOEXEC at creation", "fd %d", fd);
	if (fd >= 0)
		close(fd);
}

/* -P: what socket(AF_INET[6], type, IPPROTO_EXS) makes */
static void ipproto_creation_cases(void)
{
	int fd, af;

	fd = socket(AF_INET, SOCK_DGRAM, exs_ipproto_num);
	tap_report(fd < 0 && errno == EPROTONOSUPPORT,
		   "IPPROTO_EXS: SOCK_DGRAM is refused as TCP's protocol is",
		   "fd %d errno %s", fd, strerror(errno));
	if (fd >= 0)
		close(fd);
	for (af = AF_INET; af; af = af == AF_INET ? AF_INET6 : 0) {
		fd = socket(af, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    exs_ipproto_num);
		tap_report(fd >= 0 && domain_of(fd) == af &&
			   proto_of(fd) == exs_ipproto_num &&
			   (fcntl(fd, F_GETFL) & O_NONBLOCK) &&
			   (fcntl(fd, F_GETFD) & FD_CLOEXEC),
			   af == AF_INET ? "IPPROTO_EXS: an AF_INET socket, flags at creation" :
					   "IPPROTO_EXS: an AF_INET6 socket, flags at creation",
			   "fd %d errno %s domain %d protocol %d", fd,
			   strerror(errno), domain_of(fd), proto_of(fd));
		if (fd >= 0)
			close(fd);
	}
}

int main(int argc, char **argv)
{
	size_t i;

	cmp_options(argc, argv);
	exs_af = tap_begin(240);

	creation_cases();
	if (exs_ipproto_num)
		ipproto_creation_cases();
	for (int af = AF_INET; af; af = af == AF_INET ? AF_INET6 : 0) {
		own_cases(af);
		for (i = 0; i < ARRAY_SIZE(cmp_cases); i++)
			if (af == AF_INET || !cmp_cases[i].v4_only)
				run_compare(&cmp_cases[i], af);
	}
	return tap_end();
}
