// SPDX-License-Identifier: GPL-2.0
/*
 * exs_busypoll: does the kernel's busy polling reach an epoll waiter on an
 * AF_EXS socket over RDMA?  A ping-pong of 64-byte messages, the client
 * waiting in epoll_wait() for each answer; it prints how many times per
 * round trip the client's thread slept (voluntary context switches),
 * which busy polling (net.core.busy_poll) brings from about one to
 * about none.
 *
 *   exs_busypoll -l -p PORT            answer one connection until EOF
 *   exs_busypoll -a ADDR -p PORT [-n N]
 *	N (1000) round trips; fails unless the connection is AF_EXS's
 *	(SO_DOMAIN), i.e. on RDMA.  Prints "sleeps per round trip X".
 *
 * Exit status: 0 pass, 1 fail, 2 usage or setup, 4 skip.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include "exs_family.h"

#define KSFT_SKIP	4
#define MSG		64

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static int xfer(int fd, char *buf, int send_it)
{
	int done = 0, n;

	while (done < MSG) {
		n = send_it ? send(fd, buf + done, MSG - done, MSG_NOSIGNAL) :
			      recv(fd, buf + done, MSG - done, 0);
		if (n == 0)
			return 0;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return done;
			die(send_it ? "send" : "recv");
		}
		done += n;
	}
	return done;
}

static int serve(int af, int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port) };
	char buf[MSG];
	int l, fd, one = 1;

	l = socket(af, SOCK_STREAM, EXSPROTO_EXS);
	if (l < 0)
		die("socket");
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)&sin, sizeof(sin)) || listen(l, 1))
		die("bind/listen");
	fd = accept(l, NULL, NULL);
	if (fd < 0)
		die("accept");
	while (xfer(fd, buf, 0) == MSG)
		if (xfer(fd, buf, 1) != MSG)
			break;
	close(fd);
	close(l);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct epoll_event ev = { .events = EPOLLIN };
	const char *addr = NULL;
	int af, fd, ep, c, i, port = 0, n = 1000, listening = 0, domain;
	socklen_t len = sizeof(domain);
	struct rusage r0, r1;
	char buf[MSG] = "ping";

	while ((c = getopt(argc, argv, "la:p:n:")) != -1) {
		switch (c) {
		case 'l':
			listening = 1;
			break;
		case 'a':
			addr = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'n':
			n = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (!port || n < 1 || (!listening && !addr)) {
		fprintf(stderr, "usage: exs_busypoll -l -p PORT | -a ADDR -p PORT [-n N]\n");
		return 2;
	}
	af = exs_family();
	if (af < 0) {
		fprintf(stderr, "exs_busypoll: AF_EXS is not loaded\n");
		return KSFT_SKIP;
	}
	if (listening)
		return serve(af, port);

	sin.sin_port = htons(port);
	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		die("address");
	fd = socket(af, SOCK_STREAM, EXSPROTO_EXS);
	if (fd < 0)
		die("socket");
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)))
		die("connect");
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len))
		die("SO_DOMAIN");
	if (domain != af) {
		fprintf(stderr, "exs_busypoll: the connection is on TCP (%d)\n",
			domain);
		return 1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	ep = epoll_create1(0);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		die("epoll");

	getrusage(RUSAGE_THREAD, &r0);
	for (i = 0; i < n; i++) {
		int got = 0;

		if (xfer(fd, buf, 1) != MSG)
			die("short send");
		while (got < MSG) {
			int k;

			if (epoll_wait(ep, &ev, 1, 10000) != 1) {
				fprintf(stderr, "exs_busypoll: no answer\n");
				return 1;
			}
			k = recv(fd, buf + got, MSG - got, 0);
			if (k == 0) {
				fprintf(stderr, "exs_busypoll: EOF\n");
				return 1;
			}
			if (k > 0)
				got += k;
			else if (errno != EAGAIN)
				die("recv");
		}
	}
	getrusage(RUSAGE_THREAD, &r1);
	printf("sleeps per round trip %.3f\n",
	       (double)(r1.ru_nvcsw - r0.ru_nvcsw) / n);
	close(fd);
	return 0;
}
