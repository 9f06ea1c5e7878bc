// SPDX-License-Identifier: GPL-2.0
/*
 * Injected allocation failures on the RDMA path.  failslab and
 * fail_page_alloc filter by task, and the connections are built in the
 * module's workqueue, not in the tasks a test could mark; this attribute
 * fails the connection, its rings and its queue pair wherever they are
 * built, so tests can prove those failures fall back or fail with ENOMEM,
 * never crash, never leak.  The usual knobs (probability, interval,
 * times, verbose) are in /sys/kernel/debug/fail_exs_alloc/, as described
 * in Documentation/fault-injection/fault-injection.rst.
 */
#include <linux/debugfs.h>
#include <linux/fault-inject.h>

#include "fault.h"

static DECLARE_FAULT_ATTR(exs_fail_alloc_attr);
static struct dentry *exs_fault_dir;

bool exs_fail_alloc(size_t size)
{
	return should_fail(&exs_fail_alloc_attr, size);
}

/* Without the directory the attribute stays off: nothing to fail over. */
void exs_fault_init(void)
{
	struct dentry *dir;

	dir = fault_create_debugfs_attr("fail_exs_alloc", NULL,
					&exs_fail_alloc_attr);
	exs_fault_dir = IS_ERR(dir) ? NULL : dir;
}

void exs_fault_exit(void)
{
	debugfs_remove_recursive(exs_fault_dir);
}
