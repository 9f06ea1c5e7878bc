// SPDX-License-Identifier: GPL-2.0
/*
 * exs_conntime: what connect() costs over AF_EXS against TCP's, side by
 * side in one run, towards a host that answers TCP only (exs_pair.sh's
 * host without RDMA).
 *
 *   exs_conntime -l -p PORT -c N
 *	listen (TCP) on ports PORT to PORT+2N-1; accept and close, until
 *	killed
 *   exs_conntime -a ADDR -p PORT -c N [-j]
 *	N times, in turns (which goes first alternates): a TCP connect to
 *	PORT+N+i and an AF_EXS one to PORT+i, each a fresh port.  Prints
 *	each family's median connect() time, their quotient and the median
 *	of the N pairs' quotients (a pair, taken back to back, shares the
 *	emulated machine's drift, which the quotient of two medians does
 *	not cancel); with -j, as make bench's figures, a JSON line each.
 *	Fails when a connect fails or an AF_EXS socket did not end on TCP
 *	(SO_DOMAIN), which is what a host without RDMA leaves it.
 *
 * Only quotients of one run mean anything under emulation, never the
 * times themselves, and they are make bench's to judge (bench.rst): a
 * selftest asserts what the connects did, never how long they took.
 * Exit status: 0 pass, 1 fail, 2 usage or setup, 4 skip.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exs_family.h"

#define KSFT_SKIP	4
#define MAX_CONNS	512

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One make bench figure (tools/bench/report.py): a connect()'s median */
static void figure(const char *transport, int n, double first, double med)
{
	printf("{\"transport\": \"%s\", \"workload\": \"connect\", ",
	       transport);
	printf("\"size\": 1, \"clients\": 1, \"carrier\": \"tcp\", ");
	printf("\"iters\": %d, \"first_us\": %.1f, \"conn_us\": %.1f}\n",
	       n, first, med);
}

static void __attribute__((noreturn)) serve(int port, int n)
{
	struct pollfd pfd[2 * MAX_CONNS];
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int i, one = 1;

	for (i = 0; i < 2 * n; i++) {
		pfd[i].fd = socket(AF_INET, SOCK_STREAM, 0);
		if (pfd[i].fd < 0)
			die("socket");
		setsockopt(pfd[i].fd, SOL_SOCKET, SO_REUSEADDR, &one,
			   sizeof(one));
		sin.sin_port = htons(port + i);
		if (bind(pfd[i].fd, (struct sockaddr *)&sin, sizeof(sin)) ||
		    listen(pfd[i].fd, 16))
			die("bind/listen");
		pfd[i].events = POLLIN;
	}
	for (;;) {
		if (poll(pfd, 2 * n, -1) < 0 && errno != EINTR)
			die("poll");
		for (i = 0; i < 2 * n; i++) {
			int fd;

			if (!(pfd[i].revents & POLLIN))
				continue;
			fd = accept(pfd[i].fd, NULL, NULL);
			if (fd >= 0)
				close(fd);
		}
	}
}

/* One connect() to @port: its time in µs, or -1.  *@domain: SO_DOMAIN. */
static double time_connect(int family, const char *addr, int port,
			   int *domain)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port) };
	socklen_t len = sizeof(*domain);
	double t0, t;
	int fd;

	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1) {
		fprintf(stderr, "exs_conntime: bad address %s\n", addr);
		exit(2);
	}
	fd = socket(family, SOCK_STREAM, family == AF_INET ? 0 : EXSPROTO_EXS);
	if (fd < 0)
		die("socket");
	t0 = now_us();
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		fprintf(stderr, "exs_conntime: connect to port %d: %s\n",
			port, strerror(errno));
		close(fd);
		return -1;
	}
	t = now_us() - t0;
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, domain, &len))
		die("SO_DOMAIN");
	close(fd);
	return t;
}

int main(int argc, char **argv)
{
	static double tcp[MAX_CONNS], exs[MAX_CONNS], pair[MAX_CONNS];
	const char *addr = NULL;
	int port = 0, n = 50, listening = 0, json = 0, exs_af, i, c, domain;
	double q, first_exs, first_tcp;
	int bad = 0;

	while ((c = getopt(argc, argv, "la:p:c:j")) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'l':
			listening = 1;
			break;
		case 'a':
			addr = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'c':
			n = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (!port || n < 1 || n > MAX_CONNS || (!listening && !addr)) {
		fprintf(stderr, "usage: exs_conntime -l -p PORT -c N\n"
			"       exs_conntime -a ADDR -p PORT -c N [-j]\n");
		return 2;
	}
	if (listening)
		serve(port, n);

	exs_af = exs_family();
	if (exs_af < 0) {
		fprintf(stderr, "exs_conntime: AF_EXS is not loaded\n");
		return KSFT_SKIP;
	}
	for (i = 0; i < n; i++) {
		int tcp_turn = i % 2;	/* 0: TCP first, 1: AF_EXS first */
		int k;

		for (k = 0; k < 2; k++) {
			if (k == tcp_turn) {
				tcp[i] = time_connect(AF_INET, addr,
						      port + n + i, &domain);
				bad |= tcp[i] < 0;
				continue;
			}
			exs[i] = time_connect(exs_af, addr, port + i, &domain);
			bad |= exs[i] < 0;
			if (exs[i] >= 0 && domain != AF_INET) {
				fprintf(stderr, "exs_conntime: port %d: %s %d\n",
					port + i, "AF_EXS ended on domain", domain);
				bad = 1;
			}
		}
	}
	if (bad)
		return 1;
	/* before median() sorts them */
	first_exs = exs[0];
	first_tcp = tcp[0];
	for (i = 0; i < n; i++)
		pair[i] = exs[i] / tcp[i];
	if (json) {
		figure("nordma", n, first_exs, median(exs, n));
		figure("tcp", n, first_tcp, median(tcp, n));
		return 0;
	}
	printf("first AF_EXS connect %.0f us, TCP's %.0f us\n", first_exs,
	       first_tcp);
	q = median(exs, n) / median(tcp, n);
	printf("median connect: AF_EXS %.0f us, TCP %.0f us, quotient %.2f\n",
	       median(exs, n), median(tcp, n), q);
	q = median(pair, n);
	printf("median of the pairs' quotients %.2f\n", q);
	return 0;
}
