/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace helpers shared by the preload, exsconfig and the selftests:
 * the live AF_EXS family and IPPROTO_EXS numbers and the preload's
 * rewrite rule.
 */
#ifndef EXS_FAMILY_H
#define EXS_FAMILY_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/af_exs.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A module parameter's value (at least @min), or -1 if the module is
 * not loaded or the value is below @min.
 */
static inline int exs_param(const char *path, int min)
{
	FILE *f = fopen(path, "re");
	int val = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &val) != 1 || val < min)
		val = -1;
	fclose(f);
	return val;
}

/* The family the loaded module registered, or -1 if it is not loaded. */
static inline int exs_family(void)
{
	return exs_param(EXS_FAMILY_SYSFS, 1);
}

/* IPPROTO_EXS as the loaded module registered it; 0 if none, -1 if the
 * module is not loaded.
 */
static inline int exs_ipproto(void)
{
	return exs_param(EXS_IPPROTO_SYSFS, 0);
}

/* Is this socket() call a TCP stream socket that AF_EXS can stand in for? */
static inline bool exs_should_rewrite(int domain, int type, int protocol,
				      int *exs_proto)
{
	int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (base != SOCK_STREAM)
		return false;
	if (protocol != 0 && protocol != IPPROTO_TCP)
		return false;
	if (domain == AF_INET)
		*exs_proto = EXSPROTO_EXS;
	else if (domain == AF_INET6)
		*exs_proto = EXSPROTO_EXS6;
	else
		return false;
	return true;
}

/* Is the program called @name one whose sockets stay TCP's under exs-run?
 * EXS_PRELOAD_SKIP lists them (names separated by spaces or colons; set
 * but empty: none), by default nbd-client, whose socket goes to a kernel
 * driver that takes TCP only (Documentation/af_exs/overview.rst,
 * "In-kernel users").
 */
static inline bool exs_skip_program_named(const char *name)
{
	const char *list = getenv("EXS_PRELOAD_SKIP");
	size_t len, n = strlen(name);

	for (list = list ? list : "nbd-client"; *list; list += len) {
		list += strspn(list, " :");
		len = strcspn(list, " :");
		if (len && len == n && !strncmp(list, name, n))
			return true;
	}
	return false;
}

#endif /* EXS_FAMILY_H */
