/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Injected allocation failures on the RDMA path, for tests on kernels
 * with fault injection: see fault.c.
 */
#ifndef __EXS_FAULT_H
#define __EXS_FAULT_H

#include <linux/types.h>

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
bool exs_fail_alloc(size_t size);
void exs_fault_init(void);
void exs_fault_exit(void);
#else
static inline bool exs_fail_alloc(size_t size) { return false; }
static inline void exs_fault_init(void) { }
static inline void exs_fault_exit(void) { }
#endif

#endif /* __EXS_FAULT_H */
