// SPDX-License-Identifier: GPL-2.0
/*
 * exs_oob: urgent data (MSG_OOB, SO_OOBINLINE, SIOCATMARK, SIGURG,
 * POLLPRI) on AF_EXS, checked against TCP's.
 *
 * Each case runs once on a TCP connection and once on an AF_EXS one and
 * writes down what every call returned, byte for byte; the two
 * transcripts must be the same.  A case waits for what it needs (POLLPRI,
 * a count of queued bytes) before it reads, never for a time.  With -R
 * (the host's RDMA addresses in -4/-6) both AF_EXS ends must also say
 * they are carried by RDMA: a merged connection would be TCP's and pass
 * for the wrong reason.  -I: the AF_EXS link speaks a wire version
 * before urgent data (a host's wire_version capped at 5): MSG_OOB's byte
 * goes in band, as if the reader had SO_OOBINLINE, and is read so
 * (AF_EXS alone; the caller checks UrgentInBand).  Output is TAP.
 *
 *   exs_oob [-4 ADDR -6 ADDR -R] [-I]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <linux/sockios.h>

#include "exs_cmp.h"

#define WAIT_MS		10000	/* for what a case waits on: never reached */
#define BIG		60000	/* fits TCP's buffers and AF_EXS's ring */

/* A transcript: what a case's calls returned, in order */
struct tr {
	char	s[1024];
	size_t	n;
};

static void __attribute__((format(printf, 2, 3)))
say(struct tr *t, const char *fmt, ...)
{
	va_list ap;

	if (t->n >= sizeof(t->s) - 1)
		return;
	va_start(ap, fmt);
	t->n += vsnprintf(t->s + t->n, sizeof(t->s) - t->n, fmt, ap);
	va_end(ap);
	if (t->n >= sizeof(t->s))
		t->n = sizeof(t->s) - 1;
}

/* a call's return: bytes (printable), or the errno's name */
static void say_ret(struct tr *t, const char *what, int ret, const char *buf)
{
	if (ret < 0)
		say(t, "%s=%s ", what, strerrorname_np(errno) ?: "?");
	else if (buf)
		say(t, "%s=%d:%.*s ", what, ret, ret > 16 ? 16 : ret, buf);
	else
		say(t, "%s=%d ", what, ret);
}

static void rd(struct tr *t, int fd, int flags)
{
	char buf[64];
	int n = recv(fd, buf, sizeof(buf), flags);

	say_ret(t, flags & MSG_PEEK ? "peek" : "read", n, buf);
}

static void oob(struct tr *t, int fd, int flags)
{
	char c;
	int n = recv(fd, &c, 1, MSG_OOB | flags);

	say_ret(t, flags & MSG_PEEK ? "oobpeek" : "oob", n, &c);
}

static void atmark(struct tr *t, int fd)
{
	int v = -1;

	say_ret(t, "atmark", ioctl(fd, SIOCATMARK, &v) ? -1 : v, NULL);
}

static void inq(struct tr *t, int fd)
{
	int v = -1;

	say_ret(t, "inq", ioctl(fd, SIOCINQ, &v) ? -1 : v, NULL);
}

static void poll_now(struct tr *t, int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLPRI };
	int n = poll(&p, 1, 0);

	say(t, "poll=%s%s%s ", n > 0 && (p.revents & POLLIN) ? "IN" : "",
	    n > 0 && (p.revents & POLLPRI) ? "PRI" : "", n > 0 ? "" : "-");
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* poll for @events, again after a signal (SIGURG comes before the byte
 * over RDMA), until the deadline
 */
static int poll_for(int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };
	long end = now_ms() + WAIT_MS;
	int n;

	do {
		n = poll(&p, 1, end - now_ms() > 0 ? end - now_ms() : 0);
	} while (n < 0 && errno == EINTR);
	return n > 0 ? p.revents : 0;
}

/* the urgent byte is there: POLLPRI */
static void wait_pri(struct tr *t, int fd)
{
	say(t, "pri=%d ", !!(poll_for(fd, POLLPRI) & POLLPRI));
}

/* readable: POLLIN (at the mark, one byte more than the urgent one) */
static void wait_in(int fd)
{
	poll_for(fd, POLLIN);
}

/* at least @want bytes queued (SIOCINQ), with nothing urgent */
static void wait_inq(int fd, int want)
{
	int v = 0;

	for (int i = 0; i < WAIT_MS / 2; i++) {
		if (!ioctl(fd, SIOCINQ, &v) && v >= want)
			return;
		usleep(2000);
	}
}

/* until recv(MSG_OOB | MSG_PEEK) gives @c */
static void wait_oob(int fd, char c)
{
	char got;

	for (int i = 0; i < WAIT_MS / 2; i++) {
		if (recv(fd, &got, 1, MSG_OOB | MSG_PEEK) == 1 && got == c)
			return;
		usleep(2000);
	}
}

static void snd(struct tr *t, int fd, const char *s, int flags)
{
	say_ret(t, flags & MSG_OOB ? "sendoob" : "send",
		send(fd, s, strlen(s), flags), NULL);
}

/* ---- the cases: @c connected to @a, which accept() gave ------------- */

static void c_basic(struct tr *t, int c, int a)
{
	snd(t, c, "abc", MSG_OOB);
	wait_pri(t, a);
	atmark(t, a);
	rd(t, a, 0);		/* "ab": a read stops at the mark */
	atmark(t, a);
	oob(t, a, 0);		/* 'c' */
	oob(t, a, 0);		/* taken: EINVAL */
	snd(t, c, "de", 0);
	wait_in(a);
	inq(t, a);		/* TCP's: up to the mark */
	rd(t, a, 0);		/* steps over 'c' */
	atmark(t, a);
}

static void c_oob_first(struct tr *t, int c, int a)
{
	snd(t, c, "xy", MSG_OOB);
	wait_pri(t, a);
	oob(t, a, MSG_PEEK);
	oob(t, a, 0);
	poll_now(t, a);
	rd(t, a, 0);
	rd(t, a, MSG_DONTWAIT);	/* only the urgent byte: stepped over */
	snd(t, c, "z", 0);
	wait_in(a);
	rd(t, a, 0);
}

static void c_inline(struct tr *t, int c, int a)
{
	int one = 1;

	say_ret(t, "oobinline",
		setsockopt(a, SOL_SOCKET, SO_OOBINLINE, &one, sizeof(one)),
		NULL);
	snd(t, c, "abc", MSG_OOB);
	wait_pri(t, a);
	oob(t, a, 0);		/* EINVAL: it is in the stream */
	rd(t, a, 0);		/* "ab": still stops at the mark */
	atmark(t, a);
	rd(t, a, 0);		/* "c" */
	atmark(t, a);
}

/* The listener's SO_OOBINLINE, as the handshake ended, is the accepted
 * socket's, also for the urgent bytes that came before accept(): the
 * older one, which the reader stood on, stays in the stream.  (Before the
 * accept, the connector waits a little so that they have come; if not,
 * the transcript is the same.)
 */
static void pre_inherited(struct tr *t, int c)
{
	snd(t, c, "a", MSG_OOB);
	usleep(300000);
	snd(t, c, "b", MSG_OOB);
	usleep(300000);
}

static void c_inherited(struct tr *t, int c, int a)
{
	socklen_t len = sizeof(int);
	int v = -1;

	(void)c;		/* its part was before accept() */
	wait_pri(t, a);
	say_ret(t, "oobinline",
		getsockopt(a, SOL_SOCKET, SO_OOBINLINE, &v, &len) ? -1 : v,
		NULL);
	rd(t, a, 0);		/* "a": stops at the mark */
	rd(t, a, 0);		/* "b", inline */
	oob(t, a, 0);		/* EINVAL: in the stream */
}

static void c_newer(struct tr *t, int c, int a)
{
	snd(t, c, "ab", MSG_OOB);
	wait_pri(t, a);
	snd(t, c, "cd", MSG_OOB);
	wait_oob(a, 'd');
	inq(t, a);
	oob(t, a, 0);		/* the newer one */
	rd(t, a, 0);		/* "abc": the older stays in band */
	atmark(t, a);
	rd(t, a, MSG_DONTWAIT);
}

static void c_newer_at_mark(struct tr *t, int c, int a)
{
	snd(t, c, "xa", MSG_OOB);
	wait_pri(t, a);
	rd(t, a, 0);		/* "x": at the mark, 'a' unread */
	snd(t, c, "yb", MSG_OOB);
	wait_oob(a, 'b');
	inq(t, a);
	atmark(t, a);
	rd(t, a, 0);		/* "y": 'a' is skipped, as it would have been */
	oob(t, a, 0);
}

static void c_three(struct tr *t, int c, int a)
{
	snd(t, c, "a", MSG_OOB);
	wait_oob(a, 'a');
	snd(t, c, "b", MSG_OOB);
	wait_oob(a, 'b');
	snd(t, c, "c", MSG_OOB);
	wait_oob(a, 'c');
	/* each newer one came while the read stood on the older: the
	 * read stands on 'c' now
	 */
	atmark(t, a);
	inq(t, a);
	poll_now(t, a);
	rd(t, a, MSG_DONTWAIT);
	oob(t, a, 0);
}

static void c_waitall(struct tr *t, int c, int a)
{
	int two = 2;

	snd(t, c, "abcd", MSG_OOB);
	wait_pri(t, a);
	/* MSG_WAITALL and SO_RCVLOWAT stop at the mark too */
	say_ret(t, "lowat", setsockopt(a, SOL_SOCKET, SO_RCVLOWAT, &two,
				       sizeof(two)), NULL);
	rd(t, a, MSG_WAITALL);
	poll_now(t, a);
	/* readable with SO_RCVLOWAT bytes past the one stepped over */
	snd(t, c, "ef", 0);
	wait_in(a);
	poll_now(t, a);
	rd(t, a, 0);
}

static void c_only_urgent(struct tr *t, int c, int a)
{
	snd(t, c, "u", MSG_OOB);
	wait_pri(t, a);
	poll_now(t, a);		/* PRI, not IN: a read would step over it */
	oob(t, a, 0);
	poll_now(t, a);
	rd(t, a, MSG_DONTWAIT);
	atmark(t, a);
}

static volatile sig_atomic_t sigurgs;

static void on_sigurg(int sig)
{
	(void)sig;
	sigurgs++;
}

static void c_sigurg(struct tr *t, int c, int a)
{
	signal(SIGURG, on_sigurg);
	sigurgs = 0;
	say_ret(t, "setown", fcntl(a, F_SETOWN, getpid()), NULL);
	snd(t, c, "s", MSG_OOB);
	wait_pri(t, a);
	say(t, "sigurg=%d ", sigurgs > 0);
	oob(t, a, 0);
	signal(SIGURG, SIG_DFL);
}

static void c_peek(struct tr *t, int c, int a)
{
	snd(t, c, "abc", MSG_OOB);
	wait_pri(t, a);
	rd(t, a, MSG_PEEK);
	rd(t, a, 0);
	atmark(t, a);
}

static void c_truncated(struct tr *t, int c, int a)
{
	struct msghdr m = { 0 };
	int n;

	snd(t, c, "abc", MSG_OOB);
	wait_pri(t, a);
	n = recvmsg(a, &m, MSG_OOB);	/* no room: MSG_TRUNC, and it is taken */
	say_ret(t, "oobtrunc", n, NULL);
	say(t, "flags=%s%s ", m.msg_flags & MSG_OOB ? "OOB" : "",
	    m.msg_flags & MSG_TRUNC ? "TRUNC" : "");
	oob(t, a, 0);
}

static void c_none(struct tr *t, int c, int a)
{
	snd(t, c, "hi", 0);
	wait_inq(a, 2);
	oob(t, a, 0);		/* nothing urgent: EINVAL */
	poll_now(t, a);
	atmark(t, a);
	rd(t, a, 0);
}

static void c_big(struct tr *t, int c, int a)
{
	static char out[BIG], in[BIG];
	size_t got = 0;
	int n;

	for (int i = 0; i < BIG; i++)
		out[i] = 'a' + i % 23;
	/* all of it or a count that differs: never a wait on a small ring */
	n = send(c, out, BIG, MSG_OOB | MSG_DONTWAIT);
	say_ret(t, "sendoob", n, NULL);
	wait_pri(t, a);
	/* in band: every byte but the last, then the mark stops the read */
	while (got < BIG) {
		n = recv(a, in + got, BIG - got, MSG_DONTWAIT);
		if (n <= 0)
			break;
		got += n;
	}
	say(t, "inband=%zu same=%d ", got,
	    got == BIG - 1 && !memcmp(in, out, BIG - 1));
	atmark(t, a);
	oob(t, a, 0);
}

struct oob_case {
	const char *name;
	void (*fn)(struct tr *t, int c, int a);
	void (*pre)(struct tr *t, int c);	/* before accept() */
	bool lsn_inline;	/* SO_OOBINLINE on the listener */
};

static const struct oob_case cases[] = {
	{ "the last byte out of band, the rest in band", c_basic },
	{ "recv(MSG_OOB) first, then the read steps over it", c_oob_first },
	{ "SO_OOBINLINE: the byte stays in the stream", c_inline },
	{ "the listener's SO_OOBINLINE, bytes before accept()", c_inherited,
	  pre_inherited, true },
	{ "a newer urgent byte: the older one stays in band", c_newer },
	{ "a newer urgent byte while the read stands on the older", c_newer_at_mark },
	{ "three urgent bytes, none read: the read stands on the last", c_three },
	{ "MSG_WAITALL and SO_RCVLOWAT stop at the mark", c_waitall },
	{ "only the urgent byte queued: POLLPRI, not POLLIN", c_only_urgent },
	{ "SIGURG reaches the socket's owner", c_sigurg },
	{ "MSG_PEEK stops at the mark too", c_peek },
	{ "recv(MSG_OOB) with no room: MSG_TRUNC", c_truncated },
	{ "nothing urgent: recv(MSG_OOB) is EINVAL", c_none },
	{ "a 60000-byte write: only its last byte is urgent", c_big },
};

/* One case on one kind of socket; false if AF_EXS should have been RDMA's
 * and was not.
 */
static bool run_one(const struct oob_case *oc, bool exs, int af, struct tr *t)
{
	int port, l = listener(exs, af, &port);
	int c = sock_of(exs, af, SOCK_STREAM), a, one = 1;
	bool rdma = true;

	memset(t, 0, sizeof(*t));
	if (oc->lsn_inline)
		setsockopt(l, SOL_SOCKET, SO_OOBINLINE, &one, sizeof(one));
	if (c < 0 || connect_to(c, af, port)) {
		say(t, "connect failed: %s", strerror(errno));
		close(l);
		return false;
	}
	if (oc->pre)
		oc->pre(t, c);
	a = accept(l, NULL, NULL);
	oc->fn(t, c, a);
	if (exs && expect_rdma)
		rdma = on_rdma(a) && on_rdma(c);
	close(a);
	close(c);
	close(l);
	return rdma;
}

/* -I: over a link without URG, the urgent byte arrives in band */
static void c_in_band(struct tr *t, int c, int a)
{
	char buf[4];

	snd(t, c, "abc", MSG_OOB);
	say_ret(t, "read", recv(a, buf, 3, MSG_WAITALL), buf);
	oob(t, a, MSG_DONTWAIT);
}

static int in_band(void)
{
	const struct oob_case oc = { "in band", c_in_band };
	const char *want = "sendoob=3 read=3:abc oob=EINVAL ";
	struct tr t;
	bool rdma;

	for (int af = AF_INET; af; af = af == AF_INET ? AF_INET6 : 0) {
		rdma = run_one(&oc, true, af, &t);
		tap_report(rdma && !strcmp(t.s, want),
			   af == AF_INET ? "ipv4: MSG_OOB to an older peer: in band" :
					   "ipv6: MSG_OOB to an older peer: in band",
			   "%swant: %s| got: %s",
			   rdma ? "" : "not carried by RDMA; ", want, t.s);
	}
	return tap_end();
}

int main(int argc, char **argv)
{
	struct tr tcp, ex;
	bool inband = false;
	char name[160];
	int n = 1;

	/* -I is ours; the rest are every differential program's */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-I"))
			inband = true;
		else
			argv[n++] = argv[i];
	}
	cmp_options(n, argv);
	exs_af = tap_begin(240);
	if (inband)
		return in_band();
	for (int af = AF_INET; af; af = af == AF_INET ? AF_INET6 : 0) {
		for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
			bool rdma;

			snprintf(name, sizeof(name), "%s: %s",
				 af == AF_INET6 ? "ipv6" : "ipv4", cases[i].name);
			run_one(&cases[i], false, af, &tcp);
			rdma = run_one(&cases[i], true, af, &ex);
			tap_report(rdma && !strcmp(tcp.s, ex.s), name,
				   "%stcp: %s| exs: %s",
				   rdma ? "" : "not carried by RDMA; ",
				   tcp.s, ex.s);
		}
	}
	return tap_end();
}
