// SPDX-License-Identifier: GPL-2.0
/*
 * The map file (Documentation/af_exs/exsconfig.rst):
 *
 *   # comment, to the end of the line
 *   PREFIX  NODE  [allow=PORTS] [deny=PORTS]
 *
 * PREFIX is an IPv4 or IPv6 address with an optional /length, NODE the
 * RDMA address to reach it or "-" for the peer's own, PORTS a comma list
 * of ports and ranges (80,5000-5999).  Every field is checked here, so a
 * bad file names its line and field and changes nothing; the kernel
 * checks again.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "mapfile.h"

static bool exs_parse_addr(const char *s, int *family, uint8_t *addr)
{
	if (inet_pton(AF_INET, s, addr) == 1) {
		*family = AF_INET;
		return true;
	}
	if (inet_pton(AF_INET6, s, addr) == 1) {
		*family = AF_INET6;
		return true;
	}
	return false;
}

const char *exs_parse_prefix(const char *s, struct exs_entry *e)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash, *end;
	unsigned int max, i;
	unsigned long len;

	if (strlen(s) >= sizeof(buf))
		return "not an address";
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	if (!exs_parse_addr(buf, &e->family, e->prefix))
		return "not an IPv4 or IPv6 address";
	max = e->family == AF_INET ? 32 : 128;
	if (e->family == AF_INET6 &&
	    IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)e->prefix))
		return "IPv4-mapped: write the IPv4 address";
	e->plen = max;
	if (slash) {
		errno = 0;
		len = strtoul(slash + 1, &end, 10);
		if (!slash[1] || *end || errno || len > max)
			return e->family == AF_INET ?
			       "prefix length is not 0..32" :
			       "prefix length is not 0..128";
		e->plen = len;
	}
	/* bits past the length: a typo, not a wish */
	for (i = e->plen; i < max; i++)
		if (e->prefix[i / 8] & (0x80 >> (i % 8)))
			return "address has bits set past the prefix length";
	return NULL;
}

const char *exs_parse_node(const char *s, struct exs_entry *e)
{
	if (!strcmp(s, "-")) {
		e->node_family = 0;
		return NULL;
	}
	if (!exs_parse_addr(s, &e->node_family, e->node))
		return "not an IPv4 or IPv6 address, or \"-\"";
	if (e->node_family == AF_INET ?
	    (e->node[0] == 0 || e->node[0] >= 224) :
	    (e->node[0] == 0xff ||
	     !memcmp(e->node, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16)))
		return "not a unicast address";
	return NULL;
}

static const char *exs_parse_port(const char *s, char **end, uint16_t *port)
{
	unsigned long v;

	errno = 0;
	v = strtoul(s, end, 10);
	if (*end == s || errno || v < 1 || v > 65535)
		return "port is not 1..65535";
	*port = v;
	return NULL;
}

const char *exs_parse_ports(const char *s, struct exs_entry *e)
{
	struct exs_range *r;
	unsigned int *n;
	const char *why;
	char *end;

	if (!strncmp(s, "allow=", 6)) {
		r = e->allow;
		n = &e->n_allow;
	} else if (!strncmp(s, "deny=", 5)) {
		r = e->deny;
		n = &e->n_deny;
	} else {
		return "expected allow=PORTS or deny=PORTS";
	}
	s = strchr(s, '=') + 1;
	do {
		if (e->n_allow + e->n_deny == EXS_MAP_MAX_RANGES)
			return "more than 16 port ranges";
		why = exs_parse_port(s, &end, &r[*n].min);
		if (why)
			return why;
		r[*n].max = r[*n].min;
		if (*end == '-') {
			s = end + 1;
			why = exs_parse_port(s, &end, &r[*n].max);
			if (why)
				return why;
			if (r[*n].max < r[*n].min)
				return "range ends below its start";
		}
		if (*end && *end != ',')
			return "expected PORT or PORT-PORT, comma separated";
		(*n)++;
		s = end + 1;
	} while (*end == ',');
	return NULL;
}

/* Same prefix and length: the kernel would refuse the second. */
static bool exs_entry_same(const struct exs_entry *a, const struct exs_entry *b)
{
	return a->family == b->family && a->plen == b->plen &&
	       !memcmp(a->prefix, b->prefix, a->family == AF_INET ? 4 : 16);
}

int exs_mapfile_read(const char *path, struct exs_entry *e, FILE *err)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	unsigned int line = 0, field, i;
	char *buf = NULL, *tok, *save, *first = NULL;
	const char *why = NULL;
	size_t cap = 0;
	int n = 0;

	if (!f) {
		fprintf(err, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	while (getline(&buf, &cap, f) >= 0) {
		struct exs_entry cur = {};
		char *hash = strchr(buf, '#');

		line++;
		if (hash)
			*hash = '\0';
		field = 0;
		for (tok = strtok_r(buf, " \t\r\n", &save); tok;
		     tok = strtok_r(NULL, " \t\r\n", &save)) {
			field++;
			if (field == 1) {
				first = tok;
				why = exs_parse_prefix(tok, &cur);
			} else if (field == 2) {
				why = exs_parse_node(tok, &cur);
			} else {
				why = exs_parse_ports(tok, &cur);
			}
			if (why)
				goto bad;
		}
		if (!field)
			continue;
		if (field == 1) {
			why = "missing the RDMA address (or \"-\")";
			tok = "";
			field = 2;
			goto bad;
		}
		for (i = 0; i < (unsigned int)n; i++) {
			if (exs_entry_same(&e[i], &cur)) {
				why = "this prefix has an entry already";
				tok = first;
				field = 1;
				goto bad;
			}
		}
		if (n == EXS_MAP_MAX_ENTRIES) {
			why = "more than 1024 entries";
			tok = first;
			field = 1;
			goto bad;
		}
		e[n++] = cur;
	}
	free(buf);
	if (f != stdin)
		fclose(f);
	return n;
bad:
	fprintf(err, "%s:%u: field %u '%s': %s\n", path, line, field, tok, why);
	free(buf);
	if (f != stdin)
		fclose(f);
	return -1;
}

static void exs_format_ranges(char *buf, size_t len, const char *kind,
			      const struct exs_range *r, unsigned int n)
{
	size_t used = strlen(buf);
	unsigned int i;

	for (i = 0; i < n && used < len; i++) {
		used += snprintf(buf + used, len - used, "%s%u", i ? "," :
				 kind, r[i].min);
		if (r[i].max != r[i].min && used < len)
			used += snprintf(buf + used, len - used, "-%u",
					 r[i].max);
	}
}

void exs_entry_format(const struct exs_entry *e, char *buf, size_t len)
{
	char p[INET6_ADDRSTRLEN], node[INET6_ADDRSTRLEN] = "-";

	inet_ntop(e->family, e->prefix, p, sizeof(p));
	if (e->node_family)
		inet_ntop(e->node_family, e->node, node, sizeof(node));
	snprintf(buf, len, "%s/%u %s", p, e->plen, node);
	exs_format_ranges(buf, len, " allow=", e->allow, e->n_allow);
	exs_format_ranges(buf, len, " deny=", e->deny, e->n_deny);
}
