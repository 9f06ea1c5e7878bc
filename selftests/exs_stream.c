// SPDX-License-Identifier: GPL-2.0
/*
 * exs_stream: the data path of a connected AF_EXS socket, checked against
 * TCP's, byte for byte.
 *
 * Each case opens a connected pair (client and accepted socket) of one
 * kind, runs a scenario, and reports what it saw: return values, errnos,
 * poll masks and a hash of every byte read.  The TCP run and the AF_EXS
 * run must agree.  With -R (on the host's RDMA addresses, -4/-6), every
 * AF_EXS pair must also have stayed AF_EXS on both ends, or the case fails:
 * a case that passed over a TCP fallback proves nothing about RDMA.
 *
 *   exs_stream [-4 ADDR -6 ADDR -R -S N]	(-S: 1/N of the bulk bytes)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/sockios.h>

#include "exs_cmp.h"

#define EV_ALL (POLLIN | POLLOUT | POLLRDHUP | POLLPRI)
#define BULK_BYTES ((8 << 20) / cmp_scale)

/* set by pair_open when an AF_EXS pair did not stay on RDMA under -R */
static const char *wrong_transport;

struct pair {
	int c, a;
};

static void pair_open(bool exs, int af, struct pair *p, int rcvbuf)
{
	int port, l = listener(exs, af, &port);

	p->c = sock_of(exs, af, SOCK_STREAM);
	if (rcvbuf)
		setsockopt(p->c, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
			   sizeof(rcvbuf));
	if (connect_to(p->c, af, port)) {
		perror("connect");
		exit(2);
	}
	p->a = accept(l, NULL, NULL);
	if (p->a < 0) {
		perror("accept");
		exit(2);
	}
	close(l);
	if (exs && expect_rdma && (!on_rdma(p->c) || !on_rdma(p->a)))
		wrong_transport = "an AF_EXS pair merged into TCP";
}

static void pair_close(struct pair *p)
{
	if (p->c >= 0)
		close(p->c);
	if (p->a >= 0)
		close(p->a);
}

static uint32_t fnv(uint32_t h, const void *buf, size_t n)
{
	const uint8_t *b = buf;

	while (n--)
		h = (h ^ *b++) * 16777619u;
	return h;
}

#define FNV0 2166136261u

static void fill(uint8_t *buf, size_t n, uint64_t off)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)((off + i) * 131 + ((off + i) >> 11));
}

/* the hash of @n pattern bytes, as fill() makes them */
static uint32_t fnv_pattern(size_t n)
{
	uint8_t buf[4096];
	uint32_t h = FNV0;

	for (size_t off = 0; off < n; off += sizeof(buf)) {
		size_t k = n - off < sizeof(buf) ? n - off : sizeof(buf);

		fill(buf, k, off);
		h = fnv(h, buf, k);
	}
	return h;
}

/* Wait until @fd has @n bytes queued (or a second passed): cases that
 * compare a single read must not race the wire.
 */
static int wait_inq(int fd, int n)
{
	int q = -1;

	for (int i = 0; i < 1000; i++) {
		if (!ioctl(fd, FIONREAD, &q) && q >= n)
			break;
		usleep(1000);
	}
	return q;
}

/* Wait for any of @ev on @fd for up to a second; the revents seen. */
static int wait_ev(int fd, short ev)
{
	struct pollfd p = { .fd = fd, .events = ev };

	poll(&p, 1, 1000);
	return p.revents;
}

static int mask_now(int fd)
{
	struct pollfd p = { .fd = fd, .events = EV_ALL };

	poll(&p, 1, 0);
	return p.revents;
}

/* read until EOF or error, hashing; the byte count (or -1) */
static long drain(int fd, uint32_t *h)
{
	uint8_t buf[65536];
	long total = 0;
	ssize_t r;

	*h = FNV0;
	while ((r = recv(fd, buf, sizeof(buf), 0)) > 0) {
		*h = fnv(*h, buf, r);
		total += r;
	}
	return r < 0 ? -1 : total;
}

/* send @n pattern bytes, all of them; then half-close if @fin */
static long send_pattern(int fd, size_t n, bool fin)
{
	uint8_t buf[65536];
	size_t off = 0;

	while (off < n) {
		size_t k = n - off < sizeof(buf) ? n - off : sizeof(buf);
		ssize_t r;

		fill(buf, k, off);
		r = send(fd, buf, k, MSG_NOSIGNAL);
		if (r < 0)
			return -1;
		off += r;	/* fill() is by position: a short send resumes */
	}
	if (fin)
		shutdown(fd, SHUT_WR);
	return off;
}

struct sender {
	pthread_t tid;
	int fd;
	size_t bytes;
	long sent;
	int delay_us, chunks;	/* chunks of bytes/chunks, delay apart */
};

static void *sender_fn(void *arg)
{
	struct sender *s = arg;

	if (s->chunks) {
		size_t k = s->bytes / s->chunks;
		uint8_t buf[4096];

		fill(buf, k, 0);
		for (int i = 0; i < s->chunks; i++) {
			usleep(s->delay_us);
			s->sent += send(s->fd, buf, k, MSG_NOSIGNAL);
		}
		return NULL;
	}
	usleep(s->delay_us);
	s->sent = send_pattern(s->fd, s->bytes, true);
	return NULL;
}

static void sender_start(struct sender *s)
{
	if (pthread_create(&s->tid, NULL, sender_fn, s)) {
		perror("pthread_create");
		exit(2);
	}
}

typedef struct res (*case_fn)(bool exs, int af);

/* ---- reads ---------------------------------------------------------- */

/* A read returns what is there, up to its length. */
static struct res c_partial_reads(bool exs, int af)
{
	uint8_t buf[3000], in[700];
	uint32_t h = FNV0;
	struct pair p;
	ssize_t r;

	pair_open(exs, af, &p, 0);
	fill(buf, sizeof(buf), 0);
	send(p.c, buf, sizeof(buf), 0);
	wait_inq(p.a, sizeof(buf));
	while ((r = recv(p.a, in, sizeof(in), MSG_DONTWAIT)) > 0)
		h = fnv(fnv(h, in, r), &r, sizeof(r));
	pair_close(&p);
	return R(0, h);
}

static struct res c_peek(bool exs, int af)
{
	char out[32];
	uint32_t h = FNV0;
	struct pair p;
	ssize_t r[4];

	pair_open(exs, af, &p, 0);
	send(p.c, "abcdefgh", 8, 0);
	wait_inq(p.a, 8);
	r[0] = recv(p.a, out, 4, MSG_PEEK);
	h = fnv(h, out, 4);
	r[1] = recv(p.a, out, sizeof(out), MSG_PEEK);
	h = fnv(h, out, 8);
	r[2] = recv(p.a, out, 3, 0);
	h = fnv(h, out, 3);
	r[3] = recv(p.a, out, sizeof(out), 0);
	h = fnv(h, out, 5);
	pair_close(&p);
	return R(0, fnv(h, r, sizeof(r)));
}

/* MSG_WAITALL gathers ten sends made 10 ms apart into one read. */
static struct res c_waitall(bool exs, int af)
{
	struct sender s = { .bytes = 1000, .chunks = 10, .delay_us = 10000 };
	uint8_t in[1000];
	struct pair p;
	struct res r;

	pair_open(exs, af, &p, 0);
	s.fd = p.c;
	sender_start(&s);
	r = R(recv(p.a, in, sizeof(in), MSG_WAITALL), 0);
	r.val = fnv(FNV0, in, sizeof(in));
	pthread_join(s.tid, NULL);
	pair_close(&p);
	return r;
}

static struct res c_dontwait_empty(bool exs, int af)
{
	struct pair p;
	struct res r;
	char c;

	pair_open(exs, af, &p, 0);
	r = R(recv(p.a, &c, 1, MSG_DONTWAIT), 0);
	pair_close(&p);
	return r;
}

static struct res c_rcvtimeo(bool exs, int af)
{
	struct timeval tv = { .tv_usec = 100000 };
	struct pair p;
	struct res r;
	char c;

	pair_open(exs, af, &p, 0);
	setsockopt(p.a, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	r = R(recv(p.a, &c, 1, 0), 0);
	pair_close(&p);
	return r;
}

/* SO_RCVLOWAT: poll says readable only once that many bytes are there,
 * and a blocking read waits for them.  (TCP does not count bytes an
 * earlier pass of the same read copied: the read starts on an empty
 * socket, or it would sleep for good on TCP itself.)
 */
static struct res c_rcvlowat(bool exs, int af)
{
	struct sender s = { .bytes = 120, .chunks = 1, .delay_us = 200000 };
	uint8_t in[200];
	int lowat = 100;
	struct pair p;
	struct res r;
	long m[2];

	pair_open(exs, af, &p, 0);
	setsockopt(p.a, SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof(lowat));
	send(p.c, "0123456789", 10, 0);
	wait_inq(p.a, 10);
	m[0] = mask_now(p.a);
	recv(p.a, in, sizeof(in), MSG_DONTWAIT);
	s.fd = p.c;
	sender_start(&s);
	r = R(recv(p.a, in, sizeof(in), 0), 0);
	pthread_join(s.tid, NULL);
	send(p.c, in, 99, 0);
	wait_inq(p.a, 99);
	m[1] = mask_now(p.a);
	send(p.c, in, 1, 0);
	wait_inq(p.a, 100);
	r.val = (m[0] << 32) | (m[1] << 16) | mask_now(p.a);
	pair_close(&p);
	return r;
}

static struct res c_readv_writev(bool exs, int af)
{
	uint8_t a[5], b[100], c[3000], x[1000], y[2200];
	struct iovec out[] = { { a, sizeof(a) }, { b, sizeof(b) },
			       { c, sizeof(c) } };
	struct iovec in[] = { { x, sizeof(x) }, { y, sizeof(y) } };
	struct pair p;
	struct res r;
	ssize_t w;

	fill(a, sizeof(a), 1);
	fill(b, sizeof(b), 2);
	fill(c, sizeof(c), 3);
	pair_open(exs, af, &p, 0);
	w = writev(p.c, out, 3);
	wait_inq(p.a, 3105);
	r = R(readv(p.a, in, 2), w);
	r.val = fnv(fnv(w, x, sizeof(x)), y, 2105);
	pair_close(&p);
	return r;
}

/* ---- writes ------------------------------------------------------------ */

/* A non-blocking writer fills the connection, gets EAGAIN, and every byte
 * it was told went out arrives; POLLOUT comes back once the reader reads.
 */
static struct res c_nonblock_full(bool exs, int af)
{
	static uint8_t buf[65536];
	uint32_t want = FNV0, got;
	long sent = 0, rcvd;
	struct pair p;
	ssize_t w;
	int err;

	pair_open(exs, af, &p, 0);
	fcntl(p.c, F_SETFL, O_NONBLOCK);
	for (int i = 0; i < 4096; i++) {
		fill(buf, sizeof(buf), sent);
		w = send(p.c, buf, sizeof(buf), 0);
		if (w < 0)
			break;
		want = fnv(want, buf, w);
		sent += w;
	}
	err = errno;
	shutdown(p.c, SHUT_WR);
	rcvd = drain(p.a, &got);
	pair_close(&p);
	errno = err;
	return R(w, (rcvd == sent) + 2 * (got == want) + 4 * (sent > 0));
}

/* SO_SNDTIMEO: a blocked send returns what it copied, then EAGAIN. */
static struct res c_sndtimeo(bool exs, int af)
{
	struct timeval tv = { .tv_usec = 100000 };
	static uint8_t buf[1 << 20];
	struct pair p;
	struct res r;
	ssize_t w = 0;
	int partial = 0;

	pair_open(exs, af, &p, 0);
	setsockopt(p.c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	for (int i = 0; i < 200; i++) {
		w = send(p.c, buf, sizeof(buf), 0);
		if (w < 0)
			break;
		partial |= w < (ssize_t)sizeof(buf);
	}
	r = R(w, partial);
	pair_close(&p);
	return r;
}

/* SIOCINQ counts what the reader has not read, SIOCOUTQ what the writer
 * has not yet delivered.
 */
static struct res c_inq_outq(bool exs, int af)
{
	int inq, outq = -1;
	char buf[10];
	struct pair p;

	pair_open(exs, af, &p, 0);
	send(p.c, "0123456789", 10, 0);
	inq = wait_inq(p.a, 10);
	for (int i = 0; i < 1000; i++) {
		if (!ioctl(p.c, SIOCOUTQ, &outq) && !outq)
			break;
		usleep(1000);
	}
	recv(p.a, buf, sizeof(buf), 0);
	pair_close(&p);
	return R(0, inq * 100 + outq);
}

static struct res c_msg_more(bool exs, int af)
{
	struct pair p;
	int inq;

	pair_open(exs, af, &p, 0);
	send(p.c, "0123456789", 10, MSG_MORE);
	send(p.c, "abcdefghij", 10, 0);
	inq = wait_inq(p.a, 20);
	pair_close(&p);
	return R(0, inq);
}

static struct res c_send_after_shut_wr(bool exs, int af)
{
	struct pair p;
	struct res r;

	pair_open(exs, af, &p, 0);
	shutdown(p.c, SHUT_WR);
	r = R(send(p.c, "x", 1, MSG_NOSIGNAL), 0);
	pair_close(&p);
	return r;
}

static struct res c_shut_rd(bool exs, int af)
{
	struct pair p;
	struct res r;
	char c;

	pair_open(exs, af, &p, 0);
	shutdown(p.a, SHUT_RD);
	r = R(recv(p.a, &c, 1, 0), 0);
	r.val = wait_ev(p.a, POLLIN | POLLRDHUP);
	pair_close(&p);
	return r;
}

/* Both directions at once, 8 MiB each, every byte checked: a sender
 * thread per end, the reader drains one end, then the other.
 */
static struct res c_bulk_both_ways(bool exs, int af)
{
	struct sender s = { .bytes = BULK_BYTES }, t = { .bytes = BULK_BYTES };
	uint32_t h;
	struct pair p;
	long n;

	pair_open(exs, af, &p, 0);
	s.fd = p.a;
	t.fd = p.c;
	sender_start(&s);
	sender_start(&t);
	n = drain(p.c, &h);
	pthread_join(s.tid, NULL);
	n = n * 2 + (h == fnv_pattern(BULK_BYTES));
	n = n * 2 + (drain(p.a, &h) == BULK_BYTES && h == fnv_pattern(BULK_BYTES));
	pthread_join(t.tid, NULL);
	pair_close(&p);
	return R(0, n);
}

/* ---- files, pipes, processes ------------------------------------------- */

static int pattern_file(size_t n)
{
	char path[] = "/tmp/exs_stream.XXXXXX";
	uint8_t buf[65536];
	int fd = mkstemp(path);

	unlink(path);
	for (size_t off = 0; fd >= 0 && off < n; off += sizeof(buf)) {
		size_t k = n - off < sizeof(buf) ? n - off : sizeof(buf);

		fill(buf, k, off);
		if (write(fd, buf, k) != (ssize_t)k)
			exit(2);
	}
	return fd;
}

#define FILE_BYTES ((1 << 20) / cmp_scale + 7)

struct file_sender {
	pthread_t tid;
	int sock, file;
	bool splice;
	long sent;
};

static void *file_sender_fn(void *arg)
{
	struct file_sender *f = arg;
	off_t off = 0;
	int pfd[2];
	ssize_t r;

	if (!f->splice) {
		while (off < FILE_BYTES &&
		       sendfile(f->sock, f->file, &off, FILE_BYTES - off) > 0)
			;
		f->sent = off;
		shutdown(f->sock, SHUT_WR);
		return NULL;
	}
	if (pipe(pfd))
		return NULL;
	while (off < FILE_BYTES) {
		r = splice(f->file, &off, pfd[1], NULL, 65536, 0);
		if (r <= 0)
			break;
		while (r > 0) {
			ssize_t w = splice(pfd[0], NULL, f->sock, NULL, r, 0);

			if (w <= 0)
				goto out;
			r -= w;
			f->sent += w;
		}
	}
out:
	shutdown(f->sock, SHUT_WR);
	close(pfd[0]);
	close(pfd[1]);
	return NULL;
}

static struct res file_into_socket(bool exs, int af, bool use_splice)
{
	struct file_sender f = { .splice = use_splice };
	struct pair p;
	uint32_t h;
	long n;

	pair_open(exs, af, &p, 0);
	f.sock = p.c;
	f.file = pattern_file(FILE_BYTES);
	pthread_create(&f.tid, NULL, file_sender_fn, &f);
	n = drain(p.a, &h);
	pthread_join(f.tid, NULL);
	close(f.file);
	pair_close(&p);
	return R(0, n * 4 + (f.sent == n) * 2 + (h == fnv_pattern(FILE_BYTES)));
}

static struct res c_sendfile(bool exs, int af)
{
	return file_into_socket(exs, af, false);
}

static struct res c_splice_in(bool exs, int af)
{
	return file_into_socket(exs, af, true);
}

/* splice out of the socket into a pipe, read from the pipe */
static struct res c_splice_out(bool exs, int af)
{
	struct sender s = { .bytes = 300000 };
	uint8_t buf[65536];
	uint32_t h = FNV0;
	long total = 0;
	struct pair p;
	int pfd[2];
	ssize_t r;

	pair_open(exs, af, &p, 0);
	if (pipe(pfd))
		exit(2);
	s.fd = p.c;
	sender_start(&s);
	while ((r = splice(p.a, NULL, pfd[1], NULL, sizeof(buf), 0)) > 0) {
		if (read(pfd[0], buf, r) != r)
			break;
		h = fnv(h, buf, r);
		total += r;
	}
	pthread_join(s.tid, NULL);
	close(pfd[0]);
	close(pfd[1]);
	pair_close(&p);
	return R(r, total * 2 + (h == fnv_pattern(300000)));
}

/* A forked child writes on the inherited socket; after both close, EOF. */
static struct res c_fork(bool exs, int af)
{
	char buf[32];
	struct pair p;
	struct res r;
	pid_t pid;

	pair_open(exs, af, &p, 0);
	pid = fork();
	if (!pid) {
		send(p.c, "from the child", 14, 0);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	close(p.c);
	p.c = -1;
	r = R(recv(p.a, buf, 14, MSG_WAITALL), 0);
	r.val = fnv(FNV0, buf, 14) + recv(p.a, buf, sizeof(buf), 0);
	pair_close(&p);
	return r;
}

/* The socket passed over a Unix socket keeps working in the receiver. */
static struct res c_scm_rights(bool exs, int af)
{
	char cbuf[CMSG_SPACE(sizeof(int))], buf[8], byte = 0;
	struct iovec iov = { &byte, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	int us[2], fd, dom, proto;
	struct pair p;
	struct res r;

	pair_open(exs, af, &p, 0);
	dom = domain_of(p.c);
	proto = proto_of(p.c);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, us))
		exit(2);
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &p.c, sizeof(int));
	sendmsg(us[0], &m, 0);
	close(p.c);
	m.msg_controllen = sizeof(cbuf);
	recvmsg(us[1], &m, 0);
	memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(int));
	p.c = fd;
	send(fd, "passed", 6, 0);
	r = R(recv(p.a, buf, 6, MSG_WAITALL), 0);
	r.val = domain_of(fd) == dom && proto_of(fd) == proto;
	r.val += 2 * (memcmp(buf, "passed", 6) == 0);
	close(us[0]);
	close(us[1]);
	pair_close(&p);
	return r;
}

/* ---- readiness --------------------------------------------------------- */

static struct res epoll_case(bool exs, int af, bool et)
{
	struct epoll_event ev = { .events = EPOLLIN | (et ? EPOLLET : 0) };
	int ep = epoll_create1(0), n[3];
	struct pair p;

	pair_open(exs, af, &p, 0);
	epoll_ctl(ep, EPOLL_CTL_ADD, p.a, &ev);
	send(p.c, "0123456789", 10, 0);
	n[0] = epoll_wait(ep, &ev, 1, 1000);
	n[1] = epoll_wait(ep, &ev, 1, 100);
	send(p.c, "0123456789", 10, 0);
	n[2] = epoll_wait(ep, &ev, 1, 1000);
	close(ep);
	pair_close(&p);
	return R(0, n[0] * 100 + n[1] * 10 + n[2]);
}

static struct res c_epoll_et(bool exs, int af)
{
	return epoll_case(exs, af, true);
}

static struct res c_epoll_lt(bool exs, int af)
{
	return epoll_case(exs, af, false);
}

/* connected; peer half-closed; both half-closed */
static struct res c_poll_shutdown(bool exs, int af)
{
	long m[3];
	struct pair p;

	pair_open(exs, af, &p, 0);
	m[0] = wait_ev(p.c, POLLOUT) | mask_now(p.c);
	shutdown(p.c, SHUT_WR);
	wait_ev(p.a, POLLRDHUP);
	m[1] = mask_now(p.a);
	shutdown(p.a, SHUT_WR);
	wait_ev(p.c, POLLRDHUP);
	m[2] = mask_now(p.c);
	pair_close(&p);
	return R(0, (m[0] << 32) | (m[1] << 16) | m[2]);
}

/* the accepted end closes; wait until the client sees @ev */
static void close_peer(struct pair *p, short ev)
{
	close(p->a);
	p->a = -1;
	wait_ev(p->c, ev);
}

/* The peer resets: poll says so, recv gives ECONNRESET, then EOF. */
static struct res c_poll_reset(bool exs, int af)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	long m[2];
	struct pair p;
	struct res r;
	char c;

	pair_open(exs, af, &p, 0);
	setsockopt(p.a, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close_peer(&p, POLLIN);
	m[0] = mask_now(p.c);
	r = R(recv(p.c, &c, 1, 0), 0);
	m[1] = mask_now(p.c);
	r.val = (m[0] << 16) | m[1];
	r.val = r.val * 2 + !recv(p.c, &c, 1, 0);
	pair_close(&p);
	return r;
}

/* Closing with unread data resets the peer; its next send is EPIPE. */
static struct res c_close_unread(bool exs, int af)
{
	struct pair p;
	struct res r;
	char c;

	pair_open(exs, af, &p, 0);
	send(p.c, "unread", 6, 0);
	wait_inq(p.a, 6);
	close_peer(&p, POLLIN);
	r = R(recv(p.c, &c, 1, 0), 0);
	r.val = send(p.c, "x", 1, MSG_NOSIGNAL) < 0 ? errno : 0;
	pair_close(&p);
	return r;
}

/* After the peer's orderly close, sends end with EPIPE, as after TCP's
 * reset in CLOSE_WAIT: TCP's first one still succeeds and brings the
 * reset; AF_EXS's does too (bytes for a closed socket), unless the
 * peer's end was gone already (its LAST said it wanted nothing more).
 * The errno of the first of two that fails.
 */
static struct res c_send_after_close(bool exs, int af)
{
	struct pair p;
	struct res r;
	char c;
	int i;

	pair_open(exs, af, &p, 0);
	close_peer(&p, POLLRDHUP);
	r = R(recv(p.c, &c, 1, 0), 0);
	for (i = 0; i < 2 && !r.val; i++) {
		if (send(p.c, "x", 1, MSG_NOSIGNAL) < 0)
			r.val = errno;
		else
			wait_ev(p.c, POLLERR);
	}
	pair_close(&p);
	return r;
}

/* An orderly close: EOF, and the poll mask of a half-open socket. */
static struct res c_peer_close(bool exs, int af)
{
	struct pair p;
	struct res r;
	char c;

	pair_open(exs, af, &p, 0);
	close_peer(&p, POLLRDHUP);
	r = R(recv(p.c, &c, 1, 0), 0);
	r.val = mask_now(p.c);
	pair_close(&p);
	return r;
}

/* SO_LINGER with a timeout: what close() had queued still arrives. */
static struct res c_linger_timeout(bool exs, int af)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 5 };
	struct pair p;
	struct res r;
	uint32_t h;
	long n;

	pair_open(exs, af, &p, 0);
	setsockopt(p.c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	send_pattern(p.c, 100000, false);
	r = R(close(p.c), 0);
	p.c = -1;
	n = drain(p.a, &h);
	r.val = n * 2 + (h == fnv_pattern(100000));
	pair_close(&p);
	return r;
}

static struct res c_keepalive(bool exs, int af)
{
	int one = 1, idle = 30, v = 0, w = 0, set;
	socklen_t len = sizeof(v);
	struct pair p;

	pair_open(exs, af, &p, 0);
	set = setsockopt(p.c, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)) ||
	      setsockopt(p.c, SOL_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	getsockopt(p.c, SOL_SOCKET, SO_KEEPALIVE, &v, &len);
	len = sizeof(w);
	getsockopt(p.c, SOL_TCP, TCP_KEEPIDLE, &w, &len);
	pair_close(&p);
	return R(set ? -1 : 0, v * 100 + w);
}

struct stream_case {
	const char *name;
	case_fn fn;
};

static const struct stream_case cases[] = {
	{ "partial reads", c_partial_reads },
	{ "MSG_PEEK", c_peek },
	{ "MSG_WAITALL gathers sends", c_waitall },
	{ "MSG_DONTWAIT on an empty socket", c_dontwait_empty },
	{ "SO_RCVTIMEO", c_rcvtimeo },
	{ "SO_RCVLOWAT in poll and recv", c_rcvlowat },
	{ "readv and writev", c_readv_writev },
	{ "non-blocking writer fills the connection", c_nonblock_full },
	{ "SO_SNDTIMEO", c_sndtimeo },
	{ "SIOCINQ and SIOCOUTQ", c_inq_outq },
	{ "MSG_MORE", c_msg_more },
	{ "send after SHUT_WR", c_send_after_shut_wr },
	{ "SHUT_RD", c_shut_rd },
	{ "8 MiB both ways at once", c_bulk_both_ways },
	{ "sendfile into the socket", c_sendfile },
	{ "splice into the socket", c_splice_in },
	{ "splice out of the socket", c_splice_out },
	{ "fork: the child writes", c_fork },
	{ "SCM_RIGHTS passes the socket", c_scm_rights },
	{ "epoll edge-triggered", c_epoll_et },
	{ "epoll level-triggered", c_epoll_lt },
	{ "poll masks through shutdown", c_poll_shutdown },
	{ "poll and recv after a reset", c_poll_reset },
	{ "close with unread data resets the peer", c_close_unread },
	{ "orderly close: EOF", c_peer_close },
	{ "send after the peer closed: EPIPE", c_send_after_close },
	{ "SO_LINGER with a timeout delivers", c_linger_timeout },
	{ "SO_KEEPALIVE and TCP_KEEPIDLE", c_keepalive },
};

static void run_case(const struct stream_case *c, int af)
{
	struct res t, x;
	char name[160];

	snprintf(name, sizeof(name), "%s: %s", af == AF_INET6 ? "ipv6" : "ipv4",
		 c->name);
	t = c->fn(false, af);
	wrong_transport = NULL;
	x = c->fn(true, af);
	if (wrong_transport) {
		tap_report(false, name, "%s", wrong_transport);
		return;
	}
	cmp_report(name, t, x);
}

/* SO_RCVBUF set before connect sizes the receive ring (and so the peer's
 * send buffer, which mirrors it); EXS_INFO shows both.
 */
static void ring_size_case(int af)
{
	struct exs_info ci = { 0 }, ai = { 0 };
	socklen_t len = sizeof(ci);
	char name[128];
	struct pair p;

	snprintf(name, sizeof(name), "%s: SO_RCVBUF sizes the ring",
		 af == AF_INET6 ? "ipv6" : "ipv4");
	pair_open(true, af, &p, 65536);
	getsockopt(p.c, SOL_EXS, EXS_INFO, &ci, &len);
	len = sizeof(ai);
	getsockopt(p.a, SOL_EXS, EXS_INFO, &ai, &len);
	tap_report(!wrong_transport && ci.exsi_rx_ring == 65536 &&
		   ai.exsi_tx_ring == 65536, name,
		   "client rx ring %u, server tx ring %u", ci.exsi_rx_ring,
		   ai.exsi_tx_ring);
	pair_close(&p);
}

static long exs_counter(const char *name)
{
	FILE *f = fopen("/proc/net/exs_stat", "r");
	char key[64];
	long v, found = -1;

	while (f && fscanf(f, "%63s %ld", key, &v) == 2)
		if (!strcmp(key, name))
			found = v;
	if (f)
		fclose(f);
	return found;
}

static void *echo_fn(void *arg)
{
	int fd = *(int *)arg;
	char buf[16];

	while (recv(fd, buf, sizeof(buf), MSG_WAITALL) == sizeof(buf))
		if (send(fd, buf, sizeof(buf), 0) != sizeof(buf))
			break;
	return NULL;
}

/* EXS_BUSY_POLL: bounds checked; with it on, a ping-pong's blocked reads
 * (an echo thread at the other end: rxe may deliver inside send(), so one
 * thread playing both ends would never wait) find their bytes while
 * spinning (BusyPollHit), and the bytes are right.
 */
static void busy_poll_case(int af)
{
	int us = 20000, bad = -1, big = 1000000, got = 0, errs = 0, ok = 1;
	const char *v = af == AF_INET6 ? "ipv6" : "ipv4";
	socklen_t len = sizeof(got);
	char name[128], buf[16], want[16];
	pthread_t echo;
	struct pair p;
	long hits;

	pair_open(true, af, &p, 0);
	errs += setsockopt(p.c, SOL_EXS, EXS_BUSY_POLL, &bad, sizeof(bad)) < 0 &&
		errno == EINVAL;
	errs += setsockopt(p.c, SOL_EXS, EXS_BUSY_POLL, &big, sizeof(big)) < 0 &&
		errno == EINVAL;
	errs += setsockopt(p.c, SOL_EXS, EXS_BUSY_POLL, &us, 2) < 0 &&
		errno == EINVAL;
	setsockopt(p.c, SOL_EXS, EXS_BUSY_POLL, &us, sizeof(us));
	setsockopt(p.a, SOL_EXS, EXS_BUSY_POLL, &us, sizeof(us));
	getsockopt(p.c, SOL_EXS, EXS_BUSY_POLL, &got, &len);
	snprintf(name, sizeof(name), "%s: EXS_BUSY_POLL round trip and bounds", v);
	tap_report(got == us && errs == 3, name, "got %d, %d of 3 refused", got,
		   errs);

	hits = exs_counter("BusyPollHit");
	pthread_create(&echo, NULL, echo_fn, &p.a);
	for (int i = 0; i < 50 && ok; i++) {
		fill((uint8_t *)buf, sizeof(buf), i);
		send(p.c, buf, sizeof(buf), 0);
		ok = recv(p.c, buf, sizeof(buf), MSG_WAITALL) == sizeof(buf);
		fill((uint8_t *)want, sizeof(want), i);
		ok = ok && !memcmp(buf, want, sizeof(want));
	}
	shutdown(p.c, SHUT_WR);
	pthread_join(echo, NULL);
	snprintf(name, sizeof(name), "%s: busy-polling ping-pong over RDMA", v);
	tap_report(ok && !wrong_transport && exs_counter("BusyPollHit") > hits,
		   name, "ok %d, BusyPollHit %ld -> %ld", ok, hits,
		   exs_counter("BusyPollHit"));
	pair_close(&p);
}

int main(int argc, char **argv)
{
	cmp_options(argc, argv);
	exs_af = tap_begin(600);

	for (int af = AF_INET; af; af = af == AF_INET ? AF_INET6 : 0) {
		for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
			run_case(&cases[i], af);
		if (expect_rdma) {
			wrong_transport = NULL;
			ring_size_case(af);
			busy_poll_case(af);
		}
	}
	return tap_end();
}
