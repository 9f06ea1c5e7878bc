// SPDX-License-Identifier: GPL-2.0
/*
 * exsconfig transparent, exsconfig run: AF_EXS for a cgroup's TCP
 * sockets with no preload, through transparent.bpf.c on the kernel's
 * update_socket_protocol() hook (6.6 and later).
 *
 * The program and its map of cgroups are pinned under EXS_BPF_DIR, so
 * they outlive this process: loaded by the first cgroup turned on,
 * unpinned (and so unloaded) when the last is turned off.  A lock on the
 * directory orders concurrent exsconfigs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <jansson.h>

#include "exs_family.h"
#include "transparent.h"
#include "transparent.skel.h"

#define EXS_BPF_FS	"/sys/fs/bpf"
#define EXS_BPF_DIR	EXS_BPF_FS "/af_exs"
#define EXS_BPF_LINK	EXS_BPF_DIR "/transparent_link"
#define EXS_BPF_MAP	EXS_BPF_DIR "/transparent_cgroups"

/* The pinned objects' directory, locked: its fd, or -errno.  Ours
 * only: on bpffs, root's, for root alone (bpffs itself may be 1777,
 * and a user who made it first could unpin what we pin there).
 */
static int bpf_dir_lock(void)
{
	struct statfs fs;
	struct stat st;
	int fd;

	if (statfs(EXS_BPF_FS, &fs) || fs.f_type != BPF_FS_MAGIC) {
		if (mount("bpf", EXS_BPF_FS, "bpf", 0, "mode=0700"))
			return -errno;
	}
	if (mkdir(EXS_BPF_DIR, 0700) && errno != EEXIST)
		return -errno;
	fd = open(EXS_BPF_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || fstatfs(fd, &fs) || fs.f_type != BPF_FS_MAGIC ||
	    st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(fd);
		return -EPERM;
	}
	if (flock(fd, LOCK_EX)) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* libbpf's own messages only with EXS_BPF_DEBUG set: the reasons
 * exsconfig gives are what a user acts on
 */
static int bpf_print(enum libbpf_print_level level, const char *fmt,
		     va_list ap)
{
	if (!getenv("EXS_BPF_DEBUG") || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* Does the running kernel have update_socket_protocol() to attach to?
 * Asked before anything is made or mounted: on a kernel without it
 * exs-run goes to the preload at once.
 */
static bool have_hook(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool found;

	if (!btf)
		return false;
	found = btf__find_by_name_kind(btf, "update_socket_protocol",
				       BTF_KIND_FUNC) > 0;
	btf__free(btf);
	return found;
}

/* Load and attach the program, pin it and its map: the map's fd, or
 * -errno with @why set.  Under the directory's lock.
 */
static int bpf_load(const char **why)
{
	struct exs_transparent *skel;
	struct bpf_link *link;
	int ipproto = exs_ipproto(), err, fd;

	if (ipproto <= 0) {
		*why = ipproto < 0 ? "af_exs is not loaded" :
			"af_exs has no IPPROTO_EXS (loaded with ipproto=0)";
		return -EPROTONOSUPPORT;
	}
	libbpf_set_print(bpf_print);
	skel = exs_transparent__open();
	if (!skel) {
		*why = "cannot open the BPF object";
		return -errno;
	}
	skel->bss->exs_ipproto = ipproto;
	err = exs_transparent__load(skel);
	if (err) {
		*why = err == -EPERM ? "loading BPF needs CAP_BPF and CAP_PERFMON" :
		       have_hook() ? "the BPF program did not load" :
		       "this kernel has no update_socket_protocol() to attach to (6.6 and later)";
		goto out;
	}
	link = bpf_program__attach(skel->progs.exs_transparent);
	if (!link) {
		err = -errno;
		*why = "cannot attach to update_socket_protocol()";
		goto out;
	}
	skel->links.exs_transparent = link;
	err = bpf_map__pin(skel->maps.exs_cgroups, EXS_BPF_MAP);
	if (!err) {
		err = bpf_link__pin(link, EXS_BPF_LINK);
		if (err)
			unlink(EXS_BPF_MAP);
	}
	if (err) {
		*why = "cannot pin the program under " EXS_BPF_DIR;
		goto out;
	}
	fd = dup(bpf_map__fd(skel->maps.exs_cgroups));
	err = fd < 0 ? -errno : fd;
out:
	exs_transparent__destroy(skel);
	return err;
}

static void bpf_unpin_if_empty(int map)
{
	__u64 key;

	if (bpf_map_get_next_key(map, NULL, &key) && errno == ENOENT) {
		unlink(EXS_BPF_LINK);
		unlink(EXS_BPF_MAP);
	}
}

/* @path's cgroup id (its cgroup2 directory's inode), or -errno */
static long long cgroup_id(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct statfs fs;
	struct stat st;
	long long id;

	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -ENOTDIR;
	id = fstat(fd, &st) || fstatfs(fd, &fs) ? -errno :
	     fs.f_type != CGROUP2_SUPER_MAGIC ? -ENOTDIR : (long long)st.st_ino;
	close(fd);
	return id;
}

/* Turn @path's cgroup on or off: 0, or -errno with @why set */
static int transparent_set(const char *path, bool on, const char **why)
{
	long long id = cgroup_id(path);
	__u64 key;
	__u8 one = 1;
	int dir, map, err = 0;

	*why = NULL;
	if (id < 0) {
		*why = "not a cgroup2 directory";
		return id;
	}
	key = id;
	dir = bpf_dir_lock();
	if (dir < 0) {
		*why = "cannot use " EXS_BPF_DIR " (root's, 0700, on bpffs)";
		return dir;
	}
	map = bpf_obj_get(EXS_BPF_MAP);
	if (map >= 0 && access(EXS_BPF_LINK, F_OK)) {
		/* a map without its program: what a crash between the pins
		 * left behind
		 */
		close(map);
		unlink(EXS_BPF_MAP);
		map = -ENOENT;
	}
	if (map < 0 && on)
		map = bpf_load(why);
	if (map < 0) {
		err = on ? map : 0;	/* off everywhere already */
		goto out;
	}
	if (on)
		err = bpf_map_update_elem(map, &key, &one, BPF_ANY) ? -errno : 0;
	else if (bpf_map_delete_elem(map, &key) && errno != ENOENT)
		err = -errno;
	if (err && !*why)
		*why = "cannot update the map of cgroups";
	bpf_unpin_if_empty(map);
	close(map);
out:
	close(dir);
	return err;
}

/* ---- listing ----------------------------------------------------------- */

static json_t *found;	/* cgroup id -> path, filled by nftw() */

static int note_cgroup(const char *path, const struct stat *st, int type,
		       struct FTW *ftw __attribute__((unused)))
{
	char id[24];

	if (type == FTW_D) {
		snprintf(id, sizeof(id), "%llu", (unsigned long long)st->st_ino);
		json_object_set_new(found, id, json_string(path));
	}
	return 0;
}

int cmd_transparent(int argc, char **argv, bool json)
{
	const char *why;
	__u64 key, next, *prev = NULL;
	json_t *a;
	size_t i;
	int map, err;

	if (argc == 2 && (!strcmp(argv[0], "on") || !strcmp(argv[0], "off"))) {
		err = transparent_set(argv[1], !strcmp(argv[0], "on"), &why);
		if (!err)
			return 0;
		fprintf(stderr, "exsconfig: transparent %s %s: %s%s%s\n",
			argv[0], argv[1], strerror(-err), why ? ": " : "",
			why ? why : "");
		return err == -ENOTDIR || err == -ENOENT ? 1 : 2;
	}
	if (argc)
		return -1;

	a = json_array();
	map = bpf_obj_get(EXS_BPF_MAP);
	if (map >= 0) {
		found = json_object();
		nftw("/sys/fs/cgroup", note_cgroup, 16, FTW_PHYS | FTW_MOUNT);
		while (!bpf_map_get_next_key(map, prev, &next)) {
			char id[24];
			json_t *o = json_object(), *p;

			key = next;
			prev = &key;
			snprintf(id, sizeof(id), "%llu", (unsigned long long)key);
			p = json_object_get(found, id);
			json_object_set_new(o, "cgroup",
					    p ? json_incref(p) : json_null());
			json_object_set_new(o, "id", json_integer(key));
			json_array_append_new(a, o);
		}
		json_decref(found);
		close(map);
	}
	if (json) {
		json_dumpf(a, stdout, JSON_INDENT(2));
		putchar('\n');
	} else {
		json_t *o;

		if (!json_array_size(a))
			printf("transparent: off for every cgroup\n");
		json_array_foreach(a, i, o) {
			const char *p = json_string_value(json_object_get(o, "cgroup"));

			printf("%s (cgroup id %lld)\n", p ? p : "?",
			       (long long)json_integer_value(json_object_get(o, "id")));
		}
	}
	json_decref(a);
	return 0;
}

/* ---- exsconfig run ----------------------------------------------------- */

/* Is the cgroup empty?  @events, its cgroup.events, says "populated 0". */
static bool cgroup_empty(int events)
{
	char buf[256];
	ssize_t n = pread(events, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return true;
	buf[n] = 0;
	return !strstr(buf, "populated 1");
}

/* The cgroups of exs-runs killed before they could clean up (SIGKILL,
 * an OOM kill) beside @path: their exs-run gone and no task left in
 * them, they are turned off and removed.
 */
static void sweep_stale(const char *path)
{
	char dir[4200], cg[4600];
	struct dirent *d;
	const char *why;
	char *slash;
	DIR *dp;
	int ev;
	long pid;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		return;
	*slash = 0;
	dp = opendir(dir);
	if (!dp)
		return;
	while ((d = readdir(dp))) {
		if (sscanf(d->d_name, "exs-run.%ld", &pid) != 1 || pid <= 0 ||
		    !kill(pid, 0) || errno != ESRCH)
			continue;
		if (snprintf(cg, sizeof(cg), "%s/%s/cgroup.events", dir,
			     d->d_name) >= (int)sizeof(cg))
			continue;
		ev = open(cg, O_RDONLY | O_CLOEXEC);
		if (ev < 0)
			continue;
		if (cgroup_empty(ev)) {
			*strrchr(cg, '/') = 0;
			transparent_set(cg, false, &why);
			rmdir(cg);
		}
		close(ev);
	}
	closedir(dp);
}

/* A cgroup of its own for the program, below ours (so that what limits
 * us limits it): its path, made, or NULL.
 */
static char *run_cgroup(void)
{
	char line[4096], *path = NULL, *rel = NULL;
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			rel = line + 3;
			rel[strcspn(rel, "\n")] = 0;
			break;
		}
	fclose(f);
	if (!rel || asprintf(&path, "/sys/fs/cgroup%s%sexs-run.%d", rel,
			     rel[strlen(rel) - 1] == '/' ? "" : "/",
			     getpid()) < 0)
		return NULL;
	sweep_stale(path);
	if (mkdir(path, 0755)) {
		free(path);
		return NULL;
	}
	return path;
}

/* Turn @cg off and remove it once no task is left in it: now, or, when
 * PROG left a daemon behind, from a child of ours that waits for that
 * (cgroup.events is notified when it changes), so that exs-run returns
 * PROG's status at once and the daemon keeps AF_EXS as it would keep a
 * preload.
 */
static void run_cleanup(const char *cg)
{
	char path[4200];
	struct pollfd pfd = { .events = POLLPRI };
	const char *why;
	pid_t pid = -1;
	int fd;

	snprintf(path, sizeof(path), "%s/cgroup.events", cg);
	pfd.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (pfd.fd >= 0 && !cgroup_empty(pfd.fd))
		pid = fork();
	if (pid == 0) {
		/* holding no terminal, pipe, directory or signal of
		 * exs-run's caller (cgroup.events as fd 3)
		 */
		setsid();
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		(void)!chdir("/");
		fd = open("/dev/null", O_RDWR);
		if (dup2(pfd.fd, 3) == 3 && fd >= 0) {
			pfd.fd = 3;
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			close_range(4, ~0U, 0);
		}
		while (!cgroup_empty(pfd.fd))
			poll(&pfd, 1, 10000);
		transparent_set(cg, false, &why);
		rmdir(cg);
		_exit(0);
	}
	if (pfd.fd >= 0)
		close(pfd.fd);
	if (pid > 0)
		return;		/* the reaper's now */
	/* (no reaper: off now, a daemon's later sockets are TCP's) */
	transparent_set(cg, false, &why);
	rmdir(cg);
}

static volatile sig_atomic_t child;	/* PROG, once forked */

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static int run_preload(const char *preload, char **argv)
{
	const char *old = getenv("LD_PRELOAD");
	char *val;

	if (preload) {
		if (asprintf(&val, "%s%s%s", preload, old ? ":" : "",
			     old ? old : "") < 0)
			return 127;
		setenv("LD_PRELOAD", val, 1);
	}
	execvp(argv[0], argv);
	fprintf(stderr, "exs-run: %s: %s\n", argv[0], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}

/* PROG runs where exs-run's pid would have run it (the preload execs
 * it): a signal sent to us is passed on.  But SIGINT and SIGQUIT from
 * the terminal reach PROG itself (its process group is ours), so those
 * are not passed on twice, as system(3) ignores them.  One we were
 * started ignoring (nohup) stays ignored, for PROG too.
 */
static const int run_sigs[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP };
static struct sigaction run_old[ARRAY_SIZE(run_sigs)];

static void forward_info(int sig, siginfo_t *info, void *ctx)
{
	(void)ctx;
	if ((sig == SIGINT || sig == SIGQUIT) && info->si_code == SI_KERNEL)
		return;	/* the terminal's: PROG has it */
	forward(sig);
}

static void run_signals(void)
{
	struct sigaction sa = {
		.sa_sigaction	= forward_info,
		.sa_flags	= SA_SIGINFO,
	};
	size_t i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(run_sigs); i++) {
		sigaction(run_sigs[i], NULL, &run_old[i]);
		if (run_old[i].sa_handler != SIG_IGN)
			sigaction(run_sigs[i], &sa, NULL);
	}
}

static void run_signals_restore(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(run_sigs); i++)
		sigaction(run_sigs[i], &run_old[i], NULL);
}

int cmd_run(int argc, char **argv)
{
	const char *preload = NULL, *why, *mode = getenv("EXS_RUN");
	sigset_t block, old;
	char *cg, procs[4200];
	int status, err, fd;
	pid_t pid;
	size_t i;

	if (argc >= 2 && !strcmp(argv[0], "--preload")) {
		preload = argv[1];
		argc -= 2;
		argv += 2;
	}
	if (argc >= 1 && !strcmp(argv[0], "--")) {
		argc--;
		argv++;
	}
	if (!argc)
		return -1;
	/* EXS_RUN=preload: the preload even where the hook is; a program
	 * whose sockets stay TCP's is left to it (it leaves them alone)
	 */
	if ((mode && !strcmp(mode, "preload")) || exs_ipproto() <= 0 ||
	    exs_skip_program_named(basename(argv[0])) || !have_hook())
		return run_preload(preload, argv);
	cg = run_cgroup();
	if (!cg)
		return run_preload(preload, argv);
	err = transparent_set(cg, true, &why);
	if (err) {
		rmdir(cg);
		return run_preload(preload, argv);
	}

	/* a signal between fork() and child's assignment is passed on */
	sigemptyset(&block);
	for (i = 0; i < ARRAY_SIZE(run_sigs); i++)
		sigaddset(&block, run_sigs[i]);
	sigprocmask(SIG_BLOCK, &block, &old);
	run_signals();
	pid = fork();
	if (!pid) {
		run_signals_restore();
		sigprocmask(SIG_SETMASK, &old, NULL);
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
		fd = open(procs, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, "0", 1) != 1) {
			fprintf(stderr, "exs-run: cannot join %s: %s\n", cg,
				strerror(errno));
			_exit(126);
		}
		close(fd);
		execvp(argv[0], argv);
		fprintf(stderr, "exs-run: %s: %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	child = pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	status = 0;
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	child = 0;
	run_signals_restore();
	run_cleanup(cg);
	free(cg);
	if (pid < 0)
		return 126;
	if (WIFSIGNALED(status)) {
		signal(WTERMSIG(status), SIG_DFL);
		kill(getpid(), WTERMSIG(status));
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
