/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP output for the AF_EXS selftest programs: one result per line, skips
 * marked as such, a plan and a summary at the end.
 */
#ifndef EXS_TAP_H
#define EXS_TAP_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "exs_family.h"

#define KSFT_SKIP 4

static int tap_ntest, tap_nfail, tap_nskip;

/* One result; on failure the printf-style reason follows a '#'. */
static inline void __attribute__((format(printf, 3, 4)))
tap_report(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	tap_ntest++;
	printf("%s %d - %s", ok ? "ok" : "not ok", tap_ntest, name);
	if (!ok) {
		tap_nfail++;
		printf(" # ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	printf("\n");
	fflush(stdout);
}

static inline void tap_skip(const char *name, const char *why)
{
	tap_ntest++;
	tap_nskip++;
	printf("ok %d - %s # SKIP %s\n", tap_ntest, name, why);
	fflush(stdout);
}

/* Start a program: the live AF_EXS family, or a skip if the module is not
 * loaded.  A hang past @timeout seconds fails the program (SIGALRM).
 */
static inline int tap_begin(unsigned int timeout)
{
	int family = exs_family();

	if (family < 0) {
		printf("1..0 # SKIP af_exs is not loaded\n");
		exit(KSFT_SKIP);
	}
	signal(SIGPIPE, SIG_IGN);
	alarm(timeout);
	printf("TAP version 13\n");
	return family;
}

static inline int tap_end(void)
{
	printf("1..%d\n# %d passed, %d failed, %d skipped\n", tap_ntest,
	       tap_ntest - tap_nfail - tap_nskip, tap_nfail, tap_nskip);
	return tap_nfail ? 1 : 0;
}

#endif /* EXS_TAP_H */
