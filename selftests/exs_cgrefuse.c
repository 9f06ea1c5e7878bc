// SPDX-License-Identifier: GPL-2.0
/*
 * A cgroup's socket-create program refusing sockets, met by an
 * unprivileged program in that cgroup (the threat model's local user):
 * an IPPROTO_EXS socket refused, either as its native TCP socket is
 * made inside its init (refusing TCP) or after its init (refusing
 * IPPROTO_EXS), fails as TCP's socket() does there, EPERM, and leaves
 * nothing behind: no socket, no module reference, no TCP socket.
 *
 *   exs_cgrefuse [ROUNDS]
 *
 * Needs root (to attach the program), cgroup2 at /sys/fs/cgroup, and
 * BPF; skips otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <bpf/libbpf.h>

#include "exs_tap.h"
#include "exs_cgrefuse.skel.h"

#define CGROOT		"/sys/fs/cgroup"
#define NOBODY		65534

static char cgdir[64];

/* A number from a file: the first one after @key, or -1 */
static long read_num(const char *path, const char *key)
{
	char line[256], *p;
	long val = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (val < 0 && fgets(line, sizeof(line), f)) {
		p = key ? strstr(line, key) : line;
		if (p && sscanf(p + (key ? strlen(key) : 0), "%ld", &val) != 1)
			val = -1;
	}
	fclose(f);
	return val;
}

/* What the module's sockets hold, and TCP's sockets: both come back */
struct held {
	long module;
	long tcp;
};

static struct held held_read(void)
{
	return (struct held) {
		.module = read_num("/sys/module/af_exs/refcnt", NULL),
		.tcp = read_num("/proc/net/sockstat", " alloc "),
	};
}

/* Both, once they stand still (the cases before may still be closing
 * sockets): the same twice 100 ms apart, for up to 10 s.
 */
static struct held held_now(void)
{
	struct held a = held_read(), b;
	int i;

	for (i = 0; i < 100; i++) {
		usleep(100000);
		b = held_read();
		if (b.module == a.module && b.tcp == a.tcp)
			break;
		a = b;
	}
	return a;
}

/* In a child that joined the cgroup and dropped root: @rounds socket()
 * calls; the errno every one of them got (0: made), or -1 when they
 * did not all get the same.
 */
static int try_sockets(int domain, int protocol, int rounds)
{
	char pid[16];
	int fd, status, i, got = -2;
	pid_t child;

	child = fork();
	if (child < 0)
		return -1;
	if (child == 0) {
		fd = open(cgdir, O_WRONLY | O_CLOEXEC);
		snprintf(pid, sizeof(pid), "%d", getpid());
		if (fd < 0 || write(fd, pid, strlen(pid)) < 0)
			_exit(255);
		close(fd);
		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(255);
		for (i = 0; i < rounds; i++) {
			fd = socket(domain, SOCK_STREAM, protocol);
			if (fd >= 0)
				close(fd);
			if (got == -2)
				got = fd < 0 ? errno : 0;
			else if (got != (fd < 0 ? errno : 0))
				_exit(254);
		}
		_exit(got);
	}
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status) >= 254)
		return -1;
	return WEXITSTATUS(status);
}

struct refuse_case {
	const char *name;
	int domain;
	int protocol;		/* -1: IPPROTO_EXS */
	int want;		/* errno, 0: made */
};

/* refusing TCP: the native socket fails inside an IPPROTO_EXS init */
static const struct refuse_case tcp_refused[] = {
	{ "refusing TCP: a TCP socket (the reference)", AF_INET, 0, EPERM },
	{ "refusing TCP: an AF_INET IPPROTO_EXS socket", AF_INET, -1, EPERM },
	{ "refusing TCP: an AF_INET6 IPPROTO_EXS socket", AF_INET6, -1, EPERM },
	{ "refusing TCP: an AF_EXS socket", 0, 0, EPERM },
};

/* refusing IPPROTO_EXS: its init done, the socket undone */
static const struct refuse_case exs_refused[] = {
	{ "refusing IPPROTO_EXS: an AF_INET one", AF_INET, -1, EPERM },
	{ "refusing IPPROTO_EXS: an AF_INET6 one", AF_INET6, -1, EPERM },
	{ "refusing IPPROTO_EXS: a TCP socket is made", AF_INET, 0, 0 },
	{ "refusing IPPROTO_EXS: an AF_INET6 TCP socket is made", AF_INET6,
	  IPPROTO_TCP, 0 },
};

static void run_cases(const struct refuse_case *c, int n, int family,
		      int ipproto, int rounds)
{
	int i, got;

	for (i = 0; i < n; i++, c++) {
		if (c->protocol < 0 && ipproto <= 0) {
			tap_skip(c->name, "the module's ipproto is 0");
			continue;
		}
		got = try_sockets(c->domain ?: family,
				  c->protocol < 0 ? ipproto : c->protocol,
				  rounds);
		tap_report(got == c->want, c->name, "%s in %d rounds, not %s",
			   got < 0 ? "not one answer" : got ? strerror(got) : "made",
			   rounds, c->want ? strerror(c->want) : "made");
	}
}

int main(int argc, char **argv)
{
	int family = tap_begin(300), ipproto = exs_ipproto();
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	struct exs_cgrefuse *skel;
	struct bpf_link *link;
	struct held before, after;
	int cgfd;

	if (geteuid()) {
		tap_skip("cgroup socket-create refusals", "not root");
		return tap_end();
	}
	libbpf_set_print(NULL);
	skel = exs_cgrefuse__open_and_load();
	if (!skel) {
		tap_skip("cgroup socket-create refusals", "BPF not loadable");
		return tap_end();
	}
	snprintf(cgdir, sizeof(cgdir), CGROOT "/exs-cgrefuse.%d", getpid());
	if (mkdir(cgdir, 0755) && errno != EEXIST) {
		tap_skip("cgroup socket-create refusals", "no cgroup2");
		exs_cgrefuse__destroy(skel);
		return tap_end();
	}
	cgfd = open(cgdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	link = cgfd < 0 ? NULL :
	       bpf_program__attach_cgroup(skel->progs.exs_refuse, cgfd);
	tap_report(link, "the socket-create program attached", "%s",
		   strerror(errno));
	if (!link)
		goto out;
	/* the path the children write their pid to */
	strncat(cgdir, "/cgroup.procs", sizeof(cgdir) - strlen(cgdir) - 1);

	before = held_now();
	skel->bss->refuse_protocol = IPPROTO_TCP;
	run_cases(tcp_refused, ARRAY_SIZE(tcp_refused), family, ipproto,
		  rounds);
	skel->bss->refuse_protocol = ipproto > 0 ? ipproto : 0;
	run_cases(exs_refused, ARRAY_SIZE(exs_refused), family, ipproto,
		  rounds);
	after = held_now();
	/* a leak holds one a socket, @rounds at least; anything else on
	 * the host moves them by a few
	 */
	tap_report(before.module >= 0 && after.module - before.module < rounds,
		   "the refused sockets hold no module reference",
		   "af_exs refcnt %ld, was %ld", after.module, before.module);
	tap_report(before.tcp >= 0 && after.tcp - before.tcp < rounds,
		   "the refused sockets left no TCP socket",
		   "TCP sockets allocated %ld, were %ld", after.tcp, before.tcp);
	bpf_link__destroy(link);
	*strrchr(cgdir, '/') = '\0';
out:
	if (cgfd >= 0)
		close(cgfd);
	rmdir(cgdir);
	exs_cgrefuse__destroy(skel);
	return tap_end();
}
