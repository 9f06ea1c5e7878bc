/* SPDX-License-Identifier: GPL-2.0 */
/* exsconfig: AF_EXS for a cgroup's TCP sockets by BPF (transparent.c) */
#ifndef EXSCONFIG_TRANSPARENT_H
#define EXSCONFIG_TRANSPARENT_H

#include <stdbool.h>

/* exsconfig transparent [on|off CGROUP]: an exit status, -1 for usage */
int cmd_transparent(int argc, char **argv, bool json);
/* exsconfig run [--preload LIB] [--] PROG [ARGS...]: PROG's exit status
 * (exs-run's engine), -1 for usage
 */
int cmd_run(int argc, char **argv);

#endif /* EXSCONFIG_TRANSPARENT_H */
