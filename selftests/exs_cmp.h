/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the differential selftests (exs_sockapi, exs_stream) share: a case
 * runs once on TCP sockets and once on AF_EXS sockets, on loopback or on
 * the host's RDMA addresses (-4/-6), and its two answers must agree.
 */
#ifndef EXS_CMP_H
#define EXS_CMP_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/af_exs.h>

#include "exs_tap.h"

static int exs_af;
/* -P: the AF_EXS sockets are made as socket(af, type, IPPROTO_EXS) */
static int exs_ipproto_num;

/* What a case observed: compared between TCP and AF_EXS. */
struct res {
	int ret;
	int err;
	long val;
};

static inline struct res R(int ret, long val)
{
	struct res r = { .ret = ret < 0 ? -1 : ret, .err = ret < 0 ? errno : 0,
			 .val = val };
	return r;
}

static inline int sock_of(bool exs, int af, int type)
{
	if (exs && exs_ipproto_num)
		return socket(af, type, exs_ipproto_num);
	if (exs)
		return socket(exs_af, type,
			      af == AF_INET6 ? EXSPROTO_EXS6 : EXSPROTO_EXS);
	return socket(af, type, IPPROTO_TCP);
}

/* the addresses every case uses; loopback unless -4/-6 say otherwise */
static struct in_addr addr4 = { .s_addr = 0x0100007f };	/* 127.0.0.1 */
static struct in6_addr addr6 = IN6ADDR_LOOPBACK_INIT;
static bool expect_rdma;	/* -R: AF_EXS pairs must not merge */
static int cmp_scale = 1;	/* -S N: big transfers move 1/N of the bytes */

static inline socklen_t loopback(int af, int port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (af == AF_INET6) {
		struct sockaddr_in6 *s6 = (void *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = addr6;
		s6->sin6_port = htons(port);
		return sizeof(*s6);
	}
	struct sockaddr_in *s4 = (void *)ss;

	s4->sin_family = AF_INET;
	s4->sin_addr = addr4;
	s4->sin_port = htons(port);
	return sizeof(*s4);
}

static inline int port_of(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (void *)&ss, &len))
		return -1;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* A listener of the given kind on an ephemeral port. */
static inline int listener(bool exs, int af, int *port)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback(af, 0, &ss);
	int fd = sock_of(exs, af, SOCK_STREAM);

	if (fd < 0 || bind(fd, (void *)&ss, len) || listen(fd, 64)) {
		perror("listener");
		exit(2);
	}
	*port = port_of(fd);
	return fd;
}

static inline int domain_of(int fd)
{
	socklen_t len = sizeof(int);
	int d = -1;

	getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &d, &len);
	return d;
}

static inline int proto_of(int fd)
{
	socklen_t len = sizeof(int);
	int p = -1;

	getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &p, &len);
	return p;
}

/* What SO_DOMAIN says of an AF_EXS socket of @af not merged into TCP */
static inline int exs_domain(int af)
{
	return exs_ipproto_num ? af : exs_af;
}

/* Is @fd an AF_EXS socket carried by RDMA (a merged one is TCP's, and
 * answers SOL_EXS as TCP does)?
 */
static inline bool on_rdma(int fd)
{
	struct exs_info info;
	socklen_t len = sizeof(info);

	return !getsockopt(fd, SOL_EXS, EXS_INFO, &info, &len) &&
	       info.exsi_transport == EXS_TRANSPORT_RDMA;
}

static inline int connect_to(int fd, int af, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback(af, port, &ss);

	return connect(fd, (void *)&ss, len);
}

/* -4 ADDR -6 ADDR -R -S N, as every differential program takes them */
static inline void cmp_options(int argc, char **argv)
{
	int o;

	while ((o = getopt(argc, argv, "4:6:PRS:")) != -1) {
		switch (o) {
		case '4':
			if (inet_pton(AF_INET, optarg, &addr4) != 1)
				exit(2);
			break;
		case '6':
			if (inet_pton(AF_INET6, optarg, &addr6) != 1)
				exit(2);
			break;
		case 'P':
			exs_ipproto_num = exs_ipproto();
			if (exs_ipproto_num <= 0) {
				printf("1..0 # SKIP no IPPROTO_EXS (ipproto=0)\n");
				exit(KSFT_SKIP);
			}
			break;
		case 'R':
			expect_rdma = true;
			break;
		case 'S':
			cmp_scale = atoi(optarg) > 0 ? atoi(optarg) : 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-4 ADDR -6 ADDR -P -R -S N]\n",
				argv[0]);
			exit(2);
		}
	}
}

static inline void cmp_report(const char *name, struct res t, struct res x)
{
	tap_report(t.ret == x.ret && t.err == x.err && t.val == x.val, name,
		   "tcp ret=%d errno=%s val=%ld, exs ret=%d errno=%s val=%ld",
		   t.ret, strerror(t.err), t.val, x.ret, strerror(x.err), x.val);
}

#endif /* EXS_CMP_H */
