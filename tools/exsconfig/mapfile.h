/* SPDX-License-Identifier: GPL-2.0 */
/* exsconfig: map entries, and the map file that holds them. */
#ifndef EXSCONFIG_MAPFILE_H
#define EXSCONFIG_MAPFILE_H

#include <stdint.h>
#include <stdio.h>
#include <netinet/in.h>
#include <linux/af_exs.h>

struct exs_range {
	uint16_t	min, max;
};

struct exs_entry {
	int		family;		/* of the prefix */
	uint8_t		prefix[16];	/* 4 or 16 bytes used */
	uint8_t		plen;
	int		node_family;	/* 0: the peer's own address */
	uint8_t		node[16];
	unsigned int	n_allow, n_deny;
	struct exs_range allow[EXS_MAP_MAX_RANGES];
	struct exs_range deny[EXS_MAP_MAX_RANGES];
};

/* "10.0.0.0/8", "fd00::1": 0, or a reason. */
const char *exs_parse_prefix(const char *s, struct exs_entry *e);
/* "10.0.0.1", "fd00::1" or "-": 0, or a reason. */
const char *exs_parse_node(const char *s, struct exs_entry *e);
/* "allow=80,5000-5999" or "deny=...": 0, or a reason. */
const char *exs_parse_ports(const char *s, struct exs_entry *e);

/* Read every entry of @path (max EXS_MAP_MAX_ENTRIES) into @e: their
 * number, or -1 after printing "path:line: field N 'text': reason" to
 * @err.
 */
int exs_mapfile_read(const char *path, struct exs_entry *e, FILE *err);

/* The entry as a map file line, without the newline. */
void exs_entry_format(const struct exs_entry *e, char *buf, size_t len);

#endif /* EXSCONFIG_MAPFILE_H */
