// SPDX-License-Identifier: GPL-2.0
/*
 * exs_race: the merge into TCP against concurrent users of the descriptor.
 *
 * An AF_EXS socket hands its descriptor to the native TCP socket while
 * other threads may be polling it, reading options or closing it; waiters
 * registered before the merge (epoll, O_ASYNC) must keep receiving events
 * after it.  Runs on loopback inside one host; output is TAP.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/af_exs.h>

#include "exs_tap.h"

static int exs_af;
static struct sockaddr_in srv = { .sin_family = AF_INET };

static int exs_socket(void)
{
	return socket(exs_af, SOCK_STREAM, EXSPROTO_EXS);
}

static int tcp_listener(void)
{
	socklen_t len = sizeof(srv);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	srv.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	srv.sin_port = 0;
	if (bind(fd, (void *)&srv, sizeof(srv)) || listen(fd, 1024) ||
	    getsockname(fd, (void *)&srv, &len)) {
		perror("listener");
		exit(2);
	}
	return fd;
}

/* An epoll entry made before connect() is woken by TCP after the merge. */
static void epoll_before_merge(int l)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(0), fd = exs_socket(), a, n;

	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	connect(fd, (void *)&srv, sizeof(srv));
	a = accept(l, NULL, NULL);
	n = epoll_wait(ep, &ev, 1, 0);	/* nothing to read yet */
	send(a, "x", 1, 0);
	n = n == 0 ? epoll_wait(ep, &ev, 1, 5000) : -1;
	tap_report(n == 1 && (ev.events & EPOLLIN),
		   "epoll registered before the merge sees data after it",
		   "no EPOLLIN");
	close(a);
	close(fd);
	close(ep);
}

static atomic_int sigio_seen;

static void on_sigio(int sig)
{
	(void)sig;
	atomic_store(&sigio_seen, 1);
}

/* O_ASYNC set before connect() still raises SIGIO after the merge. */
static void async_before_merge(int l)
{
	int fd = exs_socket(), a;

	signal(SIGIO, on_sigio);
	fcntl(fd, F_SETOWN, getpid());
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC);
	connect(fd, (void *)&srv, sizeof(srv));
	a = accept(l, NULL, NULL);
	atomic_store(&sigio_seen, 0);
	send(a, "x", 1, 0);
	for (int i = 0; i < 500 && !atomic_load(&sigio_seen); i++)
		usleep(10000);
	tap_report(atomic_load(&sigio_seen),
		   "O_ASYNC set before the merge raises SIGIO after it",
		   "no SIGIO");
	close(a);
	close(fd);
	signal(SIGIO, SIG_IGN);
}

/* close() from another thread while connect() blocks (SYNs to TEST-NET-1
 * vanish on the dummy device exs_local.sh sets up): the connect keeps the
 * socket alive and ends as TCP's would, here with ETIMEDOUT after one SYN
 * retry.  Returns the connect's errno.
 */
struct blocked {
	int fd;
	int err;
};

static void *blocked_connect(void *arg)
{
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(9) };
	struct blocked *b = arg;

	inet_pton(AF_INET, "192.0.2.2", &dst.sin_addr);
	b->err = connect(b->fd, (void *)&dst, sizeof(dst)) ? errno : 0;
	return NULL;
}

static int close_during_connect(int fd)
{
	struct blocked b = { .fd = fd };
	int one = 1;
	pthread_t t;

	setsockopt(fd, IPPROTO_TCP, TCP_SYNCNT, &one, sizeof(one));
	pthread_create(&t, NULL, blocked_connect, &b);
	usleep(300000);
	close(fd);
	pthread_join(t, NULL);
	return b.err;
}

static void close_while_connecting(void)
{
	int tcp = close_during_connect(socket(AF_INET, SOCK_STREAM, 0));
	int exs = close_during_connect(exs_socket());

	tap_report(tcp == exs,
		   "close() from another thread during a blocking connect",
		   "tcp: %s, exs: %s", strerror(tcp), strerror(exs));
}

/* ---- many threads on one descriptor while it merges ---- */

struct race {
	int fd;
	atomic_bool stop;
};

static void *poller(void *arg)
{
	struct race *r = arg;
	int v = 65536;
	socklen_t len = sizeof(v);

	while (!atomic_load(&r->stop)) {
		struct pollfd p = { .fd = r->fd, .events = POLLIN | POLLOUT };

		poll(&p, 1, 0);
		getsockopt(r->fd, SOL_SOCKET, SO_DOMAIN, &v, &len);
		setsockopt(r->fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
		ioctl(r->fd, FIONREAD, &v);
	}
	return NULL;
}

static void *connector(void *arg)
{
	struct race *r = arg;

	connect(r->fd, (void *)&srv, sizeof(srv));
	return NULL;
}

static void *closer(void *arg)
{
	struct race *r = arg;

	usleep(rand() % 300);
	if (rand() & 1)
		shutdown(r->fd, SHUT_RDWR);
	return NULL;
}

static void *acceptor(void *arg)
{
	int l = (int)(long)arg, a;

	while ((a = accept(l, NULL, NULL)) >= 0)
		close(a);
	return NULL;
}

static void threads_race(int l, int rounds)
{
	pthread_t acc;
	int i;

	pthread_create(&acc, NULL, acceptor, (void *)(long)l);
	for (i = 0; i < rounds; i++) {
		struct race r = { .fd = exs_socket() };
		pthread_t t[4];

		pthread_create(&t[0], NULL, poller, &r);
		pthread_create(&t[1], NULL, poller, &r);
		pthread_create(&t[2], NULL, connector, &r);
		pthread_create(&t[3], NULL, closer, &r);
		pthread_join(t[2], NULL);
		pthread_join(t[3], NULL);
		atomic_store(&r.stop, true);
		pthread_join(t[0], NULL);
		pthread_join(t[1], NULL);
		close(r.fd);
	}
	shutdown(l, SHUT_RDWR);
	pthread_join(acc, NULL);
	tap_report(true, "connect, poll, setsockopt and shutdown race on one descriptor",
		   "%s", "");
}

int main(int argc, char *argv[])
{
	int rounds = argc > 1 ? atoi(argv[1]) : 300, l;

	exs_af = tap_begin(300);
	l = tcp_listener();
	epoll_before_merge(l);
	async_before_merge(l);
	close_while_connecting();
	threads_race(l, rounds);
	close(l);
	return tap_end();
}
