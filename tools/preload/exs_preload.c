// SPDX-License-Identifier: GPL-2.0
/*
 * libexs-preload.so: make unmodified programs use AF_EXS.
 *
 * socket(AF_INET or AF_INET6, SOCK_STREAM [| flags], 0 or IPPROTO_TCP)
 * becomes socket(AF_EXS, SOCK_STREAM [| flags], EXSPROTO_EXS[6]); every
 * other call, and every call while the module is not loaded, passes through
 * unchanged.  Addresses stay AF_INET/AF_INET6, so nothing else needs
 * rewriting.  Programs that hand their socket to a kernel driver taking TCP
 * sockets only keep TCP's (exs_skip_program()).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/af_exs.h>

#include "exs_family.h"

typedef int (*socket_fn)(int, int, int);

static socket_fn next_socket(void)
{
	static socket_fn fn;

	if (!fn)
		fn = (socket_fn)dlsym(RTLD_NEXT, "socket");
	return fn;
}

/* Does this program hand its connected socket to a kernel driver that
 * takes TCP sockets only?  nbd-client does, to nbd, which refuses any
 * other family (Documentation/af_exs/overview.rst, "In-kernel users"): its
 * sockets stay TCP's, so it works under exs-run as it does without.
 * EXS_PRELOAD_SKIP replaces the list: program names separated by spaces
 * or colons; set but empty, every program's sockets are rewritten.
 */
static bool exs_skip_program(void)
{
	static int skip = -1;	/* worked out once; racing callers agree */

	if (skip < 0)
		skip = exs_skip_program_named(program_invocation_short_name);
	return skip;
}

int socket(int domain, int type, int protocol)
{
	socket_fn real = next_socket();
	int proto, family, fd, saved;

	if (!real) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	if (!exs_should_rewrite(domain, type, protocol, &proto) ||
	    exs_skip_program())
		return real(domain, type, protocol);

	/* read per call: the module may be loaded or unloaded at any time */
	family = exs_family();
	if (family < 0)
		return real(domain, type, protocol);

	saved = errno;
	fd = real(family, type, proto);
	if (fd >= 0 || (errno != EAFNOSUPPORT && errno != EPROTONOSUPPORT))
		return fd;
	errno = saved;
	return real(domain, type, protocol);
}
