// SPDX-License-Identifier: GPL-2.0
/*
 * counters.c - counter names -> perf_event_attr -> perf_event groups around
 * the timed loop.
 *
 * Where the names come from:
 *   - perf's generic names: event_symbols_hw[] in tools/perf/util/parse-events.c,
 *     evsel__sw_names[], evsel__hw_cache[], evsel__hw_cache_op[],
 *     evsel__hw_cache_result[] in tools/perf/util/evsel.c (Linux 6.x), and
 *     parse_events__decode_legacy_cache() for how a cache name is read;
 *   - libpfm's perf PMU: lib/events/perf_events.h of libpfm 4.13 (event
 *     PERF_COUNT_HW_CACHE_<cache> with umasks READ/WRITE/PREFETCH, ACCESS/MISS,
 *     defaults READ and MISS; aliases such as CYCLES, L1-DCACHE-LOAD-MISSES);
 *   - the x86 core layout for cpu/.../ without sysfs: the PMU_FORMAT_ATTRs of
 *     arch/x86/events/intel/core.c (event config:0-7, umask config:8-15, edge
 *     config:18, pc config:19, any config:21, inv config:23, cmask
 *     config:24-31).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>

#include "counters.h"
#include "err.h"

#define PMU_DIR		"/sys/bus/event_source/devices"

/* snprintf for text that may be cut short (a note under a very long pmu_dir). */
static void __attribute__((format(printf, 3, 4))) text(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, len, fmt, ap);
	va_end(ap);
}

struct short_name {
	const char *name;
	const char *event;
};

/* The first ones are the defaults; see mdb_counter_defaults. */
static const struct short_name short_names[] = {
	{ "cycles",		"PERF_COUNT_HW_CPU_CYCLES" },
	{ "instructions",	"PERF_COUNT_HW_INSTRUCTIONS" },
	{ "L1D_load_misses",	"PERF_COUNT_HW_CACHE_L1D:READ:MISS" },
	{ "LLC_load_misses",	"PERF_COUNT_HW_CACHE_LL:READ:MISS" },
	{ "dTLB_load_misses",	"PERF_COUNT_HW_CACHE_DTLB:READ:MISS" },
	{ "page_faults",	"PERF_COUNT_SW_PAGE_FAULTS" },
	{ "L1D_loads",		"PERF_COUNT_HW_CACHE_L1D:READ:ACCESS" },
	{ "LLC_loads",		"PERF_COUNT_HW_CACHE_LL:READ:ACCESS" },
	{ "dTLB_loads",		"PERF_COUNT_HW_CACHE_DTLB:READ:ACCESS" },
	{ "branch_misses",	"PERF_COUNT_HW_BRANCH_MISSES" },
	{ "task_clock",		"PERF_COUNT_SW_TASK_CLOCK" },
	{ NULL, NULL }
};

const char *const mdb_counter_defaults[] = {
	"cycles", "instructions", "L1D_load_misses", "LLC_load_misses", "dTLB_load_misses",
	"page_faults", NULL
};

const char *mdb_counter_short_event(const char *name)
{
	const struct short_name *s;

	for (s = short_names; s->name; s++)
		if (!strcmp(s->name, name))
			return s->event;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Generic events, encoded from the uapi constants                     */

#define NR_ALIASES	5

struct generic {
	const char *uapi;		/* after PERF_COUNT_HW_ / PERF_COUNT_SW_ */
	uint64_t config;
	const char *perf[NR_ALIASES];	/* perf's symbol, then its aliases */
};

static const struct generic hw_generic[] = {
	{ "CPU_CYCLES",			PERF_COUNT_HW_CPU_CYCLES,	{ "cpu-cycles", "cycles" } },
	{ "INSTRUCTIONS",		PERF_COUNT_HW_INSTRUCTIONS,	{ "instructions" } },
	{ "CACHE_REFERENCES",		PERF_COUNT_HW_CACHE_REFERENCES,	{ "cache-references" } },
	{ "CACHE_MISSES",		PERF_COUNT_HW_CACHE_MISSES,	{ "cache-misses" } },
	{ "BRANCH_INSTRUCTIONS",	PERF_COUNT_HW_BRANCH_INSTRUCTIONS, { "branch-instructions", "branches" } },
	{ "BRANCH_MISSES",		PERF_COUNT_HW_BRANCH_MISSES,	{ "branch-misses" } },
	{ "BUS_CYCLES",			PERF_COUNT_HW_BUS_CYCLES,	{ "bus-cycles" } },
	{ "STALLED_CYCLES_FRONTEND",	PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
	  { "stalled-cycles-frontend", "idle-cycles-frontend" } },
	{ "STALLED_CYCLES_BACKEND",	PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
	  { "stalled-cycles-backend", "idle-cycles-backend" } },
	{ "REF_CPU_CYCLES",		PERF_COUNT_HW_REF_CPU_CYCLES,	{ "ref-cycles" } },
	{ NULL, 0, { NULL } }
};

/* dummy and bpf-output count nothing, so they are left out. */
static const struct generic sw_generic[] = {
	{ "CPU_CLOCK",		PERF_COUNT_SW_CPU_CLOCK,	{ "cpu-clock" } },
	{ "TASK_CLOCK",		PERF_COUNT_SW_TASK_CLOCK,	{ "task-clock" } },
	{ "PAGE_FAULTS",	PERF_COUNT_SW_PAGE_FAULTS,	{ "page-faults", "faults" } },
	{ "CONTEXT_SWITCHES",	PERF_COUNT_SW_CONTEXT_SWITCHES,	{ "context-switches", "cs" } },
	{ "CPU_MIGRATIONS",	PERF_COUNT_SW_CPU_MIGRATIONS,	{ "cpu-migrations", "migrations" } },
	{ "PAGE_FAULTS_MIN",	PERF_COUNT_SW_PAGE_FAULTS_MIN,	{ "minor-faults" } },
	{ "PAGE_FAULTS_MAJ",	PERF_COUNT_SW_PAGE_FAULTS_MAJ,	{ "major-faults" } },
	{ "ALIGNMENT_FAULTS",	PERF_COUNT_SW_ALIGNMENT_FAULTS,	{ "alignment-faults" } },
	{ "EMULATION_FAULTS",	PERF_COUNT_SW_EMULATION_FAULTS,	{ "emulation-faults" } },
	{ "CGROUP_SWITCHES",	PERF_COUNT_SW_CGROUP_SWITCHES,	{ "cgroup-switches" } },
	{ NULL, 0, { NULL } }
};

/* Indexed by PERF_COUNT_HW_CACHE_*: libpfm's name, then perf's names. */
static const struct generic cache_types[PERF_COUNT_HW_CACHE_MAX] = {
	{ "L1D",  PERF_COUNT_HW_CACHE_L1D,  { "L1-dcache", "l1-d", "l1d", "L1-data" } },
	{ "L1I",  PERF_COUNT_HW_CACHE_L1I,  { "L1-icache", "l1-i", "l1i", "L1-instruction" } },
	{ "LL",   PERF_COUNT_HW_CACHE_LL,   { "LLC", "L2" } },
	{ "DTLB", PERF_COUNT_HW_CACHE_DTLB, { "dTLB", "d-tlb", "Data-TLB" } },
	{ "ITLB", PERF_COUNT_HW_CACHE_ITLB, { "iTLB", "i-tlb", "Instruction-TLB" } },
	{ "BPU",  PERF_COUNT_HW_CACHE_BPU,  { "branch", "branches", "bpu", "btb", "bpc" } },
	{ "NODE", PERF_COUNT_HW_CACHE_NODE, { "node" } },
};

static const struct generic cache_ops[PERF_COUNT_HW_CACHE_OP_MAX] = {
	{ "READ",     PERF_COUNT_HW_CACHE_OP_READ,     { "load", "loads", "read" } },
	{ "WRITE",    PERF_COUNT_HW_CACHE_OP_WRITE,    { "store", "stores", "write" } },
	{ "PREFETCH", PERF_COUNT_HW_CACHE_OP_PREFETCH,
	  { "prefetch", "prefetches", "speculative-read", "speculative-load" } },
};

static const struct generic cache_results[PERF_COUNT_HW_CACHE_RESULT_MAX] = {
	{ "ACCESS", PERF_COUNT_HW_CACHE_RESULT_ACCESS, { "refs", "Reference", "ops", "access" } },
	{ "MISS",   PERF_COUNT_HW_CACHE_RESULT_MISS,   { "misses", "miss" } },
};

/* Which ops each cache has: perf's evsel__hw_cache_stat[], libpfm's umasks. */
static bool cache_op_valid(unsigned int cache, unsigned int op)
{
	switch (cache) {
	case PERF_COUNT_HW_CACHE_L1I:
		return op == PERF_COUNT_HW_CACHE_OP_READ || op == PERF_COUNT_HW_CACHE_OP_PREFETCH;
	case PERF_COUNT_HW_CACHE_ITLB:
	case PERF_COUNT_HW_CACHE_BPU:
		return op == PERF_COUNT_HW_CACHE_OP_READ;
	default:
		return true;
	}
}

static void set_generic(struct mdb_counter *c, uint32_t type, uint64_t config, const char *event)
{
	c->type = type;
	c->config = config;
	c->source = MDB_SRC_GENERIC;
	snprintf(c->event, sizeof(c->event), "%s", event);
	text(c->pfm, sizeof(c->pfm), "perf::%s", event);
}

static void set_cache(struct mdb_counter *c, unsigned int cache, unsigned int op, unsigned int result)
{
	char event[MDB_COUNTER_EVENT_LEN];

	snprintf(event, sizeof(event), "PERF_COUNT_HW_CACHE_%s:%s:%s", cache_types[cache].uapi,
		 cache_ops[op].uapi, cache_results[result].uapi);
	set_generic(c, PERF_TYPE_HW_CACHE, cache | op << 8 | result << 16, event);
}

/*
 * Modifiers after the name: only user space is counted, so only u, and the
 * ones of libpfm's fully qualified name that ask for nothing else (so that
 * perf::PERF_COUNT_HW_CPU_CYCLES:u=1:k=0:h=0:precise=0:excl=0:mg=0:mh=1 is
 * read back as it was written).
 */
static bool user_only_modifier(const char *m)
{
	static const char *const ok[] = {
		"u", "u=1", "k=0", "h=0", "precise=0", "excl=0", "mg=0", "mh=1", NULL
	};
	int i;

	for (i = 0; ok[i]; i++)
		if (!strcasecmp(m, ok[i]))
			return true;
	return false;
}

static int bad_modifier(const char *name, const char *m, struct mdb_err *err)
{
	return mdb_errf(err, "counter '%s': modifier '%s' is not supported (only user space is "
			"counted, as with :u)", name, m);
}

/* Longest of the names of one entry that s starts with, case ignored; 0 if none. */
static size_t alias_prefix(const char *s, const struct generic *g)
{
	size_t best = 0, n;
	int j;

	for (j = 0; j < NR_ALIASES && g->perf[j]; j++) {
		n = strlen(g->perf[j]);
		if (n > best && !strncasecmp(s, g->perf[j], n) && (s[n] == '-' || !s[n]))
			best = n;
	}
	return best;
}

/*
 * perf's legacy cache names: <cache>[-<op>][-<result>] (op and result in
 * either order, each at most once), op defaulting to read and result to
 * access, as parse_events__decode_legacy_cache() does.  1 if it is one.
 */
static int perf_cache_name(struct mdb_counter *c, const char *s)
{
	int cache = -1, op = -1, result = -1, i;
	size_t n = 0;

	for (i = 0; i < PERF_COUNT_HW_CACHE_MAX && !n; i++)
		if ((n = alias_prefix(s, &cache_types[i])))
			cache = i;
	if (cache < 0)
		return 0;
	s += n;
	while (*s == '-') {
		s++;
		n = 0;
		for (i = 0; op < 0 && i < PERF_COUNT_HW_CACHE_OP_MAX && !n; i++)
			if ((n = alias_prefix(s, &cache_ops[i])))
				op = i;
		for (i = 0; result < 0 && i < PERF_COUNT_HW_CACHE_RESULT_MAX && !n; i++)
			if ((n = alias_prefix(s, &cache_results[i])))
				result = i;
		if (!n)
			return 0;
		s += n;
	}
	if (*s)
		return 0;
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (result < 0)
		result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	if (!cache_op_valid((unsigned int)cache, (unsigned int)op))
		return -1;
	set_cache(c, (unsigned int)cache, (unsigned int)op, (unsigned int)result);
	return 1;
}

/* perf's symbols and aliases (cycles, page-faults, ...), case ignored as perf and libpfm do. */
static int perf_symbol_name(struct mdb_counter *c, const char *s)
{
	static const struct { const struct generic *table; uint32_t type; const char *prefix; } kinds[] = {
		{ hw_generic, PERF_TYPE_HARDWARE, "PERF_COUNT_HW_" },
		{ sw_generic, PERF_TYPE_SOFTWARE, "PERF_COUNT_SW_" },
	};
	char event[MDB_COUNTER_EVENT_LEN];
	const struct generic *g;
	unsigned int k;
	int j;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		for (g = kinds[k].table; g->uapi; g++) {
			for (j = 0; j < NR_ALIASES && g->perf[j]; j++) {
				if (strcasecmp(s, g->perf[j]))
					continue;
				snprintf(event, sizeof(event), "%s%s", kinds[k].prefix, g->uapi);
				set_generic(c, kinds[k].type, g->config, event);
				return 1;
			}
		}
	}
	return 0;
}

/*
 * libpfm's perf PMU names: PERF_COUNT_HW_<x>, PERF_COUNT_SW_<x>,
 * PERF_COUNT_HW_CACHE_<cache>[:<op>][:<result>] (defaults READ, MISS), with
 * ':'-separated modifiers.  1 if it is one, 0 if not, -1 with err.
 */
static int pfm_generic_name(struct mdb_counter *c, const char *name, const char *s,
			    struct mdb_err *err)
{
	char buf[MDB_COUNTER_NAME_LEN], event[MDB_COUNTER_EVENT_LEN], *mod, *m;
	const struct generic *g;
	int cache = -1, op = -1, result = -1, i;

	if (strncasecmp(s, "PERF_COUNT_", 11))
		return 0;
	snprintf(buf, sizeof(buf), "%s", s);
	mod = strchr(buf, ':');
	if (mod)
		*mod++ = '\0';

	/* PERF_COUNT_HW_CACHE_MISSES and _REFERENCES are plain hardware events. */
	if (!strncasecmp(buf, "PERF_COUNT_HW_CACHE_", 20))
		for (i = 0; i < PERF_COUNT_HW_CACHE_MAX; i++)
			if (!strcasecmp(buf + 20, cache_types[i].uapi))
				cache = i;
	if (cache >= 0) {
		while ((m = strsep(&mod, ":"))) {
			int o = -1, r = -1;

			for (i = 0; i < PERF_COUNT_HW_CACHE_OP_MAX; i++)
				if (!strcasecmp(m, cache_ops[i].uapi))
					o = i;
			for (i = 0; i < PERF_COUNT_HW_CACHE_RESULT_MAX; i++)
				if (!strcasecmp(m, cache_results[i].uapi))
					r = i;
			if ((o >= 0 && op >= 0) || (r >= 0 && result >= 0))
				return mdb_errf(err, "counter '%s': two %s given", name,
						o >= 0 ? "operations" : "results");
			if (o >= 0)
				op = o;
			else if (r >= 0)
				result = r;
			else if (!user_only_modifier(m))
				return bad_modifier(name, m, err);
		}
		if (op < 0)
			op = PERF_COUNT_HW_CACHE_OP_READ;
		if (result < 0)
			result = PERF_COUNT_HW_CACHE_RESULT_MISS;
		if (!cache_op_valid((unsigned int)cache, (unsigned int)op))
			return mdb_errf(err, "counter '%s': the %s cache has no %s operation", name,
					cache_types[cache].uapi, cache_ops[op].uapi);
		set_cache(c, (unsigned int)cache, (unsigned int)op, (unsigned int)result);
		return 1;
	}

	for (i = 0; i < 2; i++) {
		const char *prefix = i ? "PERF_COUNT_SW_" : "PERF_COUNT_HW_";

		if (strncasecmp(buf, prefix, 14))
			continue;
		for (g = i ? sw_generic : hw_generic; g->uapi; g++) {
			if (strcasecmp(buf + 14, g->uapi))
				continue;
			while ((m = strsep(&mod, ":")))
				if (!user_only_modifier(m))
					return bad_modifier(name, m, err);
			snprintf(event, sizeof(event), "%s%s", prefix, g->uapi);
			set_generic(c, i ? PERF_TYPE_SOFTWARE : PERF_TYPE_HARDWARE, g->config, event);
			return 1;
		}
	}
	return 0;
}

/* All the generic forms; perf's names may end in :u.  1, 0 (not generic) or -1 with err. */
static int encode_generic(struct mdb_counter *c, const char *name, struct mdb_err *err)
{
	char buf[MDB_COUNTER_NAME_LEN], *mod;
	const char *s = mdb_counter_short_event(name);
	int ret;

	if (!s)
		s = name;
	if (!strncasecmp(s, "perf::", 6))
		s += 6;
	ret = pfm_generic_name(c, name, s, err);
	if (ret)
		return ret;

	snprintf(buf, sizeof(buf), "%s", s);
	mod = strchr(buf, ':');
	if (mod)
		*mod++ = '\0';
	ret = perf_symbol_name(c, buf);
	if (!ret) {
		ret = perf_cache_name(c, buf);
		if (ret < 0)
			return mdb_errf(err, "counter '%s': perf has no such operation for that cache",
					name);
	}
	if (ret && mod && strcmp(mod, "u"))
		return bad_modifier(name, mod, err);
	return ret;
}

/* ------------------------------------------------------------------ */
/* perf's rNNNN and pmu/terms/                                         */

static int encode_raw(struct mdb_counter *c, const char *name, struct mdb_err *err)
{
	const char *hex = name + 1, *end;
	size_t n;

	if (name[0] != 'r')
		return 0;
	n = strspn(hex, "0123456789abcdefABCDEF");
	end = hex + n;
	if (!n || (*end && *end != ':'))
		return 0;
	if (*end && strcmp(end, ":u"))
		return bad_modifier(name, end + 1, err);
	if (n > 16)
		return mdb_errf(err, "counter '%s': a raw config has at most 16 hex digits", name);
	c->type = PERF_TYPE_RAW;
	c->config = strtoull(hex, NULL, 16);
	c->source = MDB_SRC_RAW;
	snprintf(c->event, sizeof(c->event), "%s", name);
	snprintf(c->pfm, sizeof(c->pfm), "r%" PRIx64, c->config);
	return 1;
}

/* A format: which config word and which of its bits, in order. */
struct format {
	int word;		/* 0: config, 1: config1, 2: config2 */
	uint64_t mask;
};

/* The x86 core layout of arch/x86/events/intel/core.c, for cpu/.../ without sysfs. */
static const struct { const char *term, *format; } x86_layout[] = {
	{ "event", "config:0-7" },
	{ "umask", "config:8-15" },
	{ "edge", "config:18" },
	{ "pc", "config:19" },
	{ "any", "config:21" },
	{ "inv", "config:23" },
	{ "cmask", "config:24-31" },
	{ NULL, NULL }
};

/* "config:0-7,32-35" (a sysfs format file) -> f; -1 if it is not one. */
static int parse_format(const char *text, struct format *f)
{
	const char *p = strchr(text, ':');
	size_t n = p ? (size_t)(p - text) : 0;
	char *end;

	if (n == 6 && !strncmp(text, "config", 6))
		f->word = 0;
	else if (n == 7 && !strncmp(text, "config1", 7))
		f->word = 1;
	else if (n == 7 && !strncmp(text, "config2", 7))
		f->word = 2;
	else
		return -1;
	f->mask = 0;
	for (p++;;) {
		unsigned long lo, hi;

		if (!isdigit((unsigned char)*p))
			return -1;
		lo = hi = strtoul(p, &end, 10);
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -1;
			hi = strtoul(end + 1, &end, 10);
		}
		if (lo > hi || hi > 63)
			return -1;
		for (; lo <= hi; lo++)
			f->mask |= 1ULL << lo;
		p = end;
		if (*p != ',')
			break;
		p++;
	}
	while (*p == '\n' || *p == ' ')
		p++;
	return *p ? -1 : 0;
}

/* First line of a small sysfs file into buf; -1 if it cannot be read. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* perf's numbers: 0x hex or decimal. */
static int parse_number(const char *s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (!isxdigit((unsigned char)s[2]))
			return -1;
		*v = strtoull(s + 2, &end, 16);
	} else {
		*v = strtoull(s, &end, 10);
	}
	return errno || *end ? -1 : 0;
}

/* Scatters v into the bits of mask, lowest first, as perf's pmu_format_value() does. */
static uint64_t scatter(uint64_t mask, uint64_t v)
{
	uint64_t out = 0;
	int bit;

	for (bit = 0; bit < 64; bit++) {
		if (!(mask & (1ULL << bit)))
			continue;
		if (v & 1)
			out |= 1ULL << bit;
		v >>= 1;
	}
	return out;
}

static bool valid_ident(const char *s, const char *extra)
{
	if (!*s || *s == '.')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && !strchr(extra, *s))
			return false;
	return true;
}

/*
 * perf's <pmu>/<term>[=<value>],.../[u]: each term is a format file of the
 * PMU (a term without a value is 1), or config, config1, config2 directly.
 */
static int encode_pmu(struct mdb_counter *c, const char *name, const char *pmu_dir,
		      struct mdb_err *err)
{
	char buf[MDB_COUNTER_NAME_LEN], path[4096], line[256], *pmu, *terms, *tail, *term;
	const char *slash = strchr(name, '/');
	bool have_dir, have_format, have_type, x86;
	uint64_t words[3] = { 0, 0, 0 }, seen[3] = { 0, 0, 0 };
	unsigned int nr_terms = 0;
	uint64_t type;

	if (!slash)
		return 0;
	snprintf(buf, sizeof(buf), "%s", name);
	pmu = buf;
	terms = strchr(buf, '/');
	*terms++ = '\0';
	tail = strchr(terms, '/');
	if (!tail)
		return mdb_errf(err, "counter '%s': unbalanced '/' (perf's form is pmu/terms/)", name);
	*tail++ = '\0';
	if (strchr(tail, '/'))
		return mdb_errf(err, "counter '%s': more than two '/' (perf's form is pmu/terms/)",
				name);
	if (*tail && strcmp(tail, "u"))
		return bad_modifier(name, tail, err);
	if (!valid_ident(pmu, "-."))
		return mdb_errf(err, "counter '%s': '%s' is not a PMU name", name, pmu);
	if (!*terms)
		return mdb_errf(err, "counter '%s': no terms between the '/'", name);

	snprintf(path, sizeof(path), "%s/%s", pmu_dir, pmu);
	have_dir = is_dir(path);
	snprintf(path, sizeof(path), "%s/%s/format", pmu_dir, pmu);
	have_format = is_dir(path);
#if defined(__x86_64__) || defined(__i386__)
	x86 = !have_format && !strcmp(pmu, "cpu");
#else
	x86 = false;
#endif
	if (!have_dir && !x86)
		return mdb_errf(err, "counter '%s': no PMU '%s' here (no %s/%s)", name, pmu, pmu_dir,
				pmu);

	while ((term = strsep(&terms, ","))) {
		char *eq = strchr(term, '=');
		struct format f;
		uint64_t v = 1;
		int i, bits;

		if (eq) {
			*eq++ = '\0';
			if (parse_number(eq, &v))
				return mdb_errf(err, "counter '%s': term %s: '%s' is not a number "
						"(decimal or 0x hex)", name, term, eq);
		}
		if (!valid_ident(term, ""))
			return mdb_errf(err, "counter '%s': '%s' is not a term", name, term);
		if (++nr_terms > 64)
			return mdb_errf(err, "counter '%s': too many terms", name);
		for (i = 0; i < 3; i++)
			if (!strcmp(term, i ? (i == 1 ? "config1" : "config2") : "config"))
				break;
		if (i < 3) {
			f.word = i;
			f.mask = ~0ULL;
		} else if (have_format) {
			snprintf(path, sizeof(path), "%s/%s/format/%s", pmu_dir, pmu, term);
			if (read_line(path, line, sizeof(line)))
				return mdb_errf(err, "counter '%s': PMU %s has no term '%s' (not in %s/%s/"
						"format, nor config, config1, config2)", name, pmu,
						term, pmu_dir, pmu);
			if (parse_format(line, &f))
				return mdb_errf(err, "counter '%s': cannot read %s: '%s'", name, path,
						line);
		} else if (x86) {
			for (i = 0; x86_layout[i].term && strcmp(x86_layout[i].term, term); i++)
				;
			if (!x86_layout[i].term)
				return mdb_errf(err, "counter '%s': the x86 core layout has no term '%s' "
						"(event, umask, edge, pc, any, inv, cmask, config, "
						"config1, config2)", name, term);
			parse_format(x86_layout[i].format, &f);
		} else {
			return mdb_errf(err, "counter '%s': PMU %s has no format (%s/%s/format): "
					"only config, config1, config2", name, pmu, pmu_dir, pmu);
		}
		bits = __builtin_popcountll(f.mask);
		if (bits < 64 && v >> bits)
			return mdb_errf(err, "counter '%s': %s=0x%" PRIx64 " does not fit its %d bits",
					name, term, v, bits);
		if (seen[f.word] & f.mask)
			return mdb_errf(err, "counter '%s': term %s sets bits another term set", name,
					term);
		seen[f.word] |= f.mask;
		words[f.word] |= scatter(f.mask, v);
	}

	snprintf(path, sizeof(path), "%s/%s/type", pmu_dir, pmu);
	have_type = !read_line(path, line, sizeof(line)) && !parse_number(line, &type) &&
		    type <= UINT32_MAX;
	if (!have_type && !x86)
		return mdb_errf(err, "counter '%s': cannot read the PMU's type from %s", name, path);
	c->type = have_type ? (uint32_t)type : PERF_TYPE_RAW;
	c->config = words[0];
	c->config1 = words[1];
	c->config2 = words[2];
	c->source = x86 ? MDB_SRC_PMU_X86 : MDB_SRC_PMU_FORMAT;
	snprintf(c->event, sizeof(c->event), "%s", name);
	snprintf(c->pfm, sizeof(c->pfm), "%s", name);
	if (x86)
		text(c->note, sizeof(c->note), "no %s/%s/format, so event config:0-7, umask 8-15, "
		     "edge 18, pc 19, any 21, inv 23, cmask 24-31%s", pmu_dir, pmu,
		     have_type ? "" : "; no PMU type in sysfs, so PERF_TYPE_RAW");
	else
		text(c->note, sizeof(c->note), "layout from %s/%s/format, type %" PRIu32 " from "
		     "%s/%s/type", pmu_dir, pmu, c->type, pmu_dir, pmu);
	return 1;
}

/* ------------------------------------------------------------------ */
/* libpfm, for the model-specific names                                */

static int pfm_ready(struct mdb_err *err)
{
	static int ret = 1;

	if (ret == 1)
		ret = pfm_initialize();
	if (ret != PFM_SUCCESS)
		return mdb_errf(err, "cannot initialise libpfm: %s", pfm_strerror(ret));
	return 0;
}

static int encode_pfm(struct mdb_counter *c, const char *name, struct mdb_err *err)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL;
	int ret;

	if (pfm_ready(err))
		return mdb_err_prefix(err, "counter '%s'", name);
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	attr.size = sizeof(attr);
	arg.attr = &attr;
	arg.size = sizeof(arg);
	arg.fstr = &fstr;
	ret = pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS)
		return mdb_errf(err, "unknown counter '%s': %s (not a short name, a perf name, rNNNN, "
				"pmu/terms/, nor an event libpfm knows for this CPU)", name,
				pfm_strerror(ret));
	if (attr.exclude_user) {
		free(fstr);
		return mdb_errf(err, "counter '%s': counts no user space (only user space is "
				"counted)", name);
	}
	c->type = attr.type;
	c->config = attr.config;
	c->config1 = attr.config1;
	c->config2 = attr.config2;
	c->source = MDB_SRC_LIBPFM;
	snprintf(c->event, sizeof(c->event), "%s", name);
	snprintf(c->pfm, sizeof(c->pfm), "%s", fstr ? fstr : name);
	free(fstr);
	return 1;
}

int mdb_counter_encode(struct mdb_counter *c, const char *name, const char *pmu_dir,
		       struct mdb_err *err)
{
	int ret;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->grp = -1;
	if (!*name)
		return mdb_errf(err, "empty counter name");
	if (strlen(name) >= MDB_COUNTER_NAME_LEN)
		return mdb_errf(err, "counter name too long: '%.64s...'", name);
	strcpy(c->name, name);

	ret = encode_generic(c, name, err);
	if (!ret)
		ret = encode_raw(c, name, err);
	if (!ret)
		ret = encode_pmu(c, name, pmu_dir ? pmu_dir : PMU_DIR, err);
	if (!ret)
		ret = encode_pfm(c, name, err);
	if (ret < 0)
		return -1;
	c->group = c->type == PERF_TYPE_SOFTWARE ? MDB_GROUP_SW : MDB_GROUP_HW;
	return 0;
}

const char *mdb_counter_source_name(enum mdb_counter_source source)
{
	switch (source) {
	case MDB_SRC_GENERIC:
		return "generic perf event";
	case MDB_SRC_RAW:
		return "raw config";
	case MDB_SRC_PMU_FORMAT:
		return "sysfs format";
	case MDB_SRC_PMU_X86:
		return "x86 core layout";
	case MDB_SRC_LIBPFM:
		return "libpfm";
	}
	return "?";
}

/* perf's event_types[] of parse-events.c. */
const char *mdb_counter_type_name(uint32_t type)
{
	static const char *const names[] = {
		[PERF_TYPE_HARDWARE] = "hardware",
		[PERF_TYPE_SOFTWARE] = "software",
		[PERF_TYPE_TRACEPOINT] = "tracepoint",
		[PERF_TYPE_HW_CACHE] = "hardware-cache",
		[PERF_TYPE_RAW] = "raw",
		[PERF_TYPE_BREAKPOINT] = "breakpoint",
	};

	return type < PERF_TYPE_MAX ? names[type] : "pmu";
}

/* ------------------------------------------------------------------ */
/* The list                                                            */

/* The next name of spec at *p into name (len bytes): commas inside /.../ do not split. */
static int next_name(const char **p, char *name, size_t len, struct mdb_err *err)
{
	const char *s = *p, *start = s;
	bool in_slash = false;
	size_t n;

	for (; *s && (in_slash || *s != ','); s++)
		if (*s == '/')
			in_slash = !in_slash;
	n = (size_t)(s - start);
	if (in_slash)
		return mdb_errf(err, "counter '%.*s': unbalanced '/' (perf's form is pmu/terms/)",
				(int)(n < 200 ? n : 200), start);
	if (!n)
		return mdb_errf(err, "empty counter name in --counters");
	if (n >= len)
		return mdb_errf(err, "counter name too long: '%.64s...'", start);
	memcpy(name, start, n);
	name[n] = '\0';
	*p = *s ? s + 1 : s;
	return 0;
}

static int add_counter(struct mdb_counters *set, const char *name, const char *pmu_dir,
		       struct mdb_err *err)
{
	struct mdb_counter *c;
	unsigned int i;

	for (i = 0; i < set->nr; i++)
		if (!strcmp(set->c[i].name, name))
			return mdb_errf(err, "counter '%s' given twice", name);
	if (set->nr == MDB_MAX_COUNTERS)
		return mdb_errf(err, "more than %d counters", MDB_MAX_COUNTERS);
	c = &set->c[set->nr];
	if (mdb_counter_encode(c, name, pmu_dir, err))
		return -1;
	for (i = 0; i < set->nr; i++) {
		const struct mdb_counter *o = &set->c[i];

		if (o->type == c->type && o->config == c->config && o->config1 == c->config1 &&
		    o->config2 == c->config2)
			return mdb_errf(err, "counters '%s' and '%s' are the same event (type %" PRIu32
					", config 0x%" PRIx64 ")", o->name, name, c->type, c->config);
	}
	set->nr++;
	return 0;
}

int mdb_counters_parse(struct mdb_counters *set, const char *spec, const char *pmu_dir,
		       struct mdb_err *err)
{
	char name[MDB_COUNTER_NAME_LEN];
	const char *p = spec;
	unsigned int i;
	int ret = 0;

	memset(set, 0, sizeof(*set));

	if (!spec) {
		for (i = 0; mdb_counter_defaults[i] && !ret; i++)
			ret = add_counter(set, mdb_counter_defaults[i], pmu_dir, err);
	} else if (!*spec) {
		ret = mdb_errf(err, "--counters= names no counter (give a list, or none for no "
			       "counters; leave it out for the defaults)");
	} else if (!strcmp(spec, "none")) {
		return 0;
	} else {
		while (!ret && *p) {
			ret = next_name(&p, name, sizeof(name), err);
			if (!ret && !strcmp(name, "none"))
				ret = mdb_errf(err, "--counters=none cannot be combined with other "
					       "counters");
			if (!ret)
				ret = add_counter(set, name, pmu_dir, err);
			if (!ret && !*p && p[-1] == ',')
				ret = mdb_errf(err, "empty counter name in --counters");
		}
	}
	if (ret) {
		set->nr = 0;
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Probing and opening                                                 */

/* Group read with PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | ID. */
struct group_read {
	uint64_t nr;
	uint64_t time_enabled;
	uint64_t time_running;
	struct {
		uint64_t value;
		uint64_t id;
	} v[MDB_MAX_COUNTERS];
};

#define READ_FORMAT (PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | \
		     PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID)

/* The counter's encoding, user space only. */
static void make_attr(const struct mdb_counter *c, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = c->type;
	attr->config = c->config;
	attr->config1 = c->config1;
	attr->config2 = c->config2;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
}

static int perf_open(struct perf_event_attr *attr, int group_fd)
{
	return (int)syscall(SYS_perf_event_open, attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

static int paranoid_level(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int level = -99;

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = -99;
		fclose(f);
	}
	return level;
}

/* strerror plus what it usually means for perf_event_open. */
static void explain(char *reason, int err)
{
	const char *hint;
	char buf[96];

	switch (err) {
	case ENOENT:
		hint = "no PMU here counts this event (a VM without a virtual PMU?)";
		break;
	case EOPNOTSUPP:
		hint = "this PMU does not support the event or excluding the kernel";
		break;
	case ENODEV:
		hint = "no such PMU on this machine";
		break;
	case EACCES:
	case EPERM:
		snprintf(buf, sizeof(buf), "not permitted with perf_event_paranoid %d (user-space "
			 "counting needs <= 2, or CAP_PERFMON)", paranoid_level());
		hint = buf;
		break;
	case EINVAL:
		hint = "the kernel rejects this encoding";
		break;
	case EBUSY:
		hint = "the PMU is in exclusive use by another tool";
		break;
	case EMFILE:
		hint = "too many open files";
		break;
	default:
		hint = "perf_event_open failed";
		break;
	}
	snprintf(reason, MDB_COUNTER_REASON_LEN, "%s: %s", strerror(err), hint);
}

/* Alone, so that the reason is the event's own, not its group's. */
static void probe(struct mdb_counter *c)
{
	struct perf_event_attr attr;
	int fd;

	make_attr(c, &attr);
	attr.disabled = 1;
	fd = perf_open(&attr, -1);
	if (fd < 0) {
		explain(c->reason, errno);
		c->available = false;
		return;
	}
	close(fd);
	c->available = true;
}

/* Opens c as the leader of a new group (disabled: the others follow it); the fd or -1. */
static int open_leader(struct mdb_counters *set, struct mdb_counter *c)
{
	struct perf_event_attr attr;
	int fd;

	make_attr(c, &attr);
	attr.read_format = READ_FORMAT;
	attr.disabled = 1;
	fd = perf_open(&attr, -1);
	if (fd < 0)
		return -1;
	c->grp = (int)set->nr_groups;
	set->grp[set->nr_groups].leader = fd;
	set->grp[set->nr_groups].kind = c->group;
	set->nr_groups++;
	return fd;
}

/*
 * Opens the available counters of one kind.  A sibling the group cannot
 * hold (EINVAL: more events than the PMU has counters) leads a group of its
 * own, which the kernel multiplexes with the others; one that will not open
 * even then loses its place.
 */
static void open_groups(struct mdb_counters *set, enum mdb_counter_group kind, unsigned int cap)
{
	struct perf_event_attr attr;
	int cur = -1;			/* the group siblings join */
	unsigned int i, in_cur = 0;
	int fd, e;

	for (i = 0; i < set->nr; i++) {
		struct mdb_counter *c = &set->c[i];

		if (!c->available || c->group != kind)
			continue;
		fd = -1;
		e = EINVAL;
		if (cur >= 0 && in_cur < cap) {
			make_attr(c, &attr);
			attr.read_format = READ_FORMAT;
			fd = perf_open(&attr, set->grp[cur].leader);
			e = fd < 0 ? errno : 0;
			if (fd >= 0) {
				c->grp = cur;
				in_cur++;
			}
		}
		if (fd < 0 && e == EINVAL) {
			fd = open_leader(set, c);
			e = fd < 0 ? errno : 0;
			if (fd >= 0) {
				cur = c->grp;
				in_cur = 1;
			}
		}
		if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_ID, &c->id) < 0) {
			e = errno;
			if (set->grp[c->grp].leader == fd) {	/* a leader alone: its group goes */
				set->nr_groups--;
				cur = -1;
			}
			close(fd);
			fd = -1;
		}
		if (fd < 0) {
			explain(c->reason, e);
			c->grp = -1;
			c->available = false;
			continue;
		}
		c->fd = fd;
	}
}

/* The events of group g. */
static unsigned int group_size(const struct mdb_counters *set, unsigned int g)
{
	unsigned int i, n = 0;

	for (i = 0; i < set->nr; i++)
		n += set->c[i].fd >= 0 && set->c[i].grp == (int)g;
	return n;
}

static bool read_group(int leader, struct group_read *r);

/*
 * Group g enabled alone over a few thousand instructions: whether the PMU
 * scheduled all of it the whole time.  The kernel's check at open
 * (validate_group) is the driver's: arm_pmu's accepted 8 events for qemu's
 * 6 counters and the cycle counter, then ran that group for 28 us of 14 ms
 * and read 0.  Alone, a group that fits runs as long as it is enabled; one
 * that does not runs 0 or part of it (a counter held by a pinned
 * system-wide event, such as x86's NMI watchdog, counts against it too).
 */
static bool group_schedules(const struct mdb_counters *set, unsigned int g, struct group_read *r)
{
	int fd = set->grp[g].leader;
	volatile unsigned int spin;

	memset(r, 0, sizeof(*r));
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP))
		return true;	/* cannot tell: leave it to the scaling */
	for (spin = 0; spin < 4096; spin++)
		;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	if (!read_group(fd, r))
		return true;
	return r->time_running && r->time_running == r->time_enabled;
}

/* Closes the groups of one kind (always the last opened) and their events. */
static void close_groups(struct mdb_counters *set, enum mdb_counter_group kind)
{
	unsigned int i;

	for (i = 0; i < set->nr; i++) {
		struct mdb_counter *c = &set->c[i];

		if (c->group != kind || c->fd < 0)
			continue;
		close(c->fd);
		c->fd = -1;
		c->grp = -1;
	}
	while (set->nr_groups && set->grp[set->nr_groups - 1].kind == kind)
		set->nr_groups--;
}

/*
 * Opens the hardware groups, no larger than the PMU schedules: a group that
 * does not run whole when enabled alone (group_schedules()) sets the limit
 * one below its size and all are opened again, down to one event a group.
 * The limit found, and why, go to set->hw_limit and set->hw_limit_why.
 */
static void open_hw_groups(struct mdb_counters *set)
{
	unsigned int cap = MDB_MAX_COUNTERS, g, n;
	struct group_read r;
	bool again = true;

	set->hw_limit = 0;
	set->hw_limit_why[0] = '\0';
	while (again) {
		again = false;
		open_groups(set, MDB_GROUP_HW, cap);
		for (g = 0; g < set->nr_groups && !again; g++) {
			if (set->grp[g].kind != MDB_GROUP_HW)
				continue;
			n = group_size(set, g);
			if (n < 2 || group_schedules(set, g, &r))
				continue;
			cap = n - 1;
			set->hw_limit = cap;
			text(set->hw_limit_why, sizeof(set->hw_limit_why),
			     "a group of %u events, enabled alone, ran %" PRIu64 " of %" PRIu64 " ns",
			     n, r.time_running, r.time_enabled);
			close_groups(set, MDB_GROUP_HW);
			again = true;
		}
	}
}

int mdb_counters_setup(struct mdb_counters *set, const char *spec, struct mdb_err *err)
{
	unsigned int i;

	if (mdb_counters_parse(set, spec, NULL, err))
		return -1;
	for (i = 0; i < set->nr; i++)
		probe(&set->c[i]);
	open_hw_groups(set);
	open_groups(set, MDB_GROUP_SW, MDB_MAX_COUNTERS);
	return 0;
}

void mdb_counters_close(struct mdb_counters *set)
{
	unsigned int i;

	for (i = 0; i < set->nr; i++) {
		if (set->c[i].fd >= 0)
			close(set->c[i].fd);
		set->c[i].fd = -1;
		set->c[i].grp = -1;
	}
	set->nr_groups = 0;
}

unsigned int mdb_counters_nr_available(const struct mdb_counters *set)
{
	unsigned int i, n = 0;

	for (i = 0; i < set->nr; i++)
		n += set->c[i].available;
	return n;
}

unsigned int mdb_counters_nr_hw_groups(const struct mdb_counters *set)
{
	unsigned int g, n = 0;

	for (g = 0; g < set->nr_groups; g++)
		n += set->grp[g].kind == MDB_GROUP_HW;
	return n;
}

/* ------------------------------------------------------------------ */
/* What the user sees: --list and the start-of-run line                */

void mdb_counters_print_list(FILE *out, const struct mdb_counters *set)
{
	char name[MDB_COUNTER_NAME_LEN * 4], pfm[MDB_COUNTER_PFM_LEN * 4];
	unsigned int i;

	fprintf(out, "counters:\n");
	for (i = 0; i < set->nr; i++) {
		const struct mdb_counter *c = &set->c[i];

		mdb_escape(c->name, name, sizeof(name));
		mdb_escape(c->pfm, pfm, sizeof(pfm));
		fprintf(out, "  %-18s %s%s\n", name, c->available ? "available" : "unavailable: ",
			c->available ? "" : c->reason);
		fprintf(out, "      type %" PRIu32 " (%s), config 0x%" PRIx64, c->type,
			mdb_counter_type_name(c->type), c->config);
		if (c->config1)
			fprintf(out, ", config1 0x%" PRIx64, c->config1);
		if (c->config2)
			fprintf(out, ", config2 0x%" PRIx64, c->config2);
		fprintf(out, ": %s [%s%s%s]\n", pfm, mdb_counter_source_name(c->source),
			*c->note ? "; " : "", c->note);
	}
	if (!set->nr)
		fprintf(out, "  (none)\n");
}

/* Appends to buf at *n, keeping it terminated; past len it stops, ending in "...". */
static void append(char *buf, size_t len, size_t *n, const char *s)
{
	size_t l = strlen(s);

	if (*n >= len)
		return;
	if (*n + l < len) {
		memcpy(buf + *n, s, l + 1);
		*n += l;
		return;
	}
	snprintf(buf + *n, len - *n, "%s", s);
	if (len >= 4)
		memcpy(buf + len - 4, "...", 4);
	*n = len;
}

const char *mdb_counters_missing(const struct mdb_counters *set, char *buf, size_t len)
{
	char name[MDB_COUNTER_NAME_LEN * 4];
	bool done[MDB_MAX_COUNTERS] = { false };
	unsigned int i, j, groups = 0;
	size_t n = 0;

	if (!len)
		return NULL;
	buf[0] = '\0';
	for (i = 0; i < set->nr; i++) {
		if (set->c[i].available || done[i])
			continue;
		append(buf, len, &n, groups++ ? "; " : "counters unavailable here: ");
		for (j = i; j < set->nr; j++) {
			if (set->c[j].available || strcmp(set->c[j].reason, set->c[i].reason))
				continue;
			if (j != i)
				append(buf, len, &n, ", ");
			append(buf, len, &n, mdb_escape(set->c[j].name, name, sizeof(name)));
			done[j] = true;
		}
		append(buf, len, &n, " (");
		append(buf, len, &n, set->c[i].reason);
		append(buf, len, &n, ")");
	}
	return groups ? buf : NULL;
}

/* ------------------------------------------------------------------ */
/* Around the timed loop                                               */

static bool read_group(int leader, struct group_read *r)
{
	ssize_t n = read(leader, r, sizeof(*r));

	return n >= (ssize_t)(3 * sizeof(uint64_t));
}

static void group_ioctl(const struct mdb_counters *set, unsigned long request)
{
	unsigned int g;

	for (g = 0; g < set->nr_groups; g++)
		ioctl(set->grp[g].leader, request, PERF_IOC_FLAG_GROUP);
}

void mdb_counters_start(struct mdb_counters *set)
{
	struct group_read r;
	unsigned int g;

	/* RESET zeroes the counts but not the times: remember where they stand. */
	for (g = 0; g < set->nr_groups; g++) {
		ioctl(set->grp[g].leader, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
		if (!read_group(set->grp[g].leader, &r))
			memset(&r, 0, sizeof(r));
		set->grp[g].enabled0 = r.time_enabled;
		set->grp[g].running0 = r.time_running;
	}
	group_ioctl(set, PERF_EVENT_IOC_ENABLE);
}

void mdb_counters_pause(struct mdb_counters *set)
{
	group_ioctl(set, PERF_EVENT_IOC_DISABLE);
}

void mdb_counters_resume(struct mdb_counters *set)
{
	group_ioctl(set, PERF_EVENT_IOC_ENABLE);
}

/*
 * A multiplexed group counted for running of its enabled ns: its counts are
 * scaled to the whole of enabled, as perf stat does.  A group never scheduled
 * has no value at all, which is not the same as 0.
 */
bool mdb_counter_scale(uint64_t value, uint64_t enabled, uint64_t running, double *out)
{
	if (!running)
		return false;
	*out = (double)value;
	if (running < enabled)
		*out *= (double)enabled / (double)running;
	return true;
}

static void take_group(struct mdb_counters *set, unsigned int g, struct mdb_counter_values *out)
{
	struct group_read r;
	uint64_t enabled, running;
	unsigned int i, j;

	if (!read_group(set->grp[g].leader, &r))
		return;
	enabled = r.time_enabled - set->grp[g].enabled0;
	running = r.time_running - set->grp[g].running0;
	for (i = 0; i < set->nr; i++) {
		struct mdb_counter *c = &set->c[i];

		if (c->fd < 0 || c->grp != (int)g)
			continue;
		for (j = 0; j < r.nr && j < MDB_MAX_COUNTERS; j++) {
			if (r.v[j].id != c->id)
				continue;
			out->raw[i] = r.v[j].value;
			out->enabled[i] = enabled;
			out->running[i] = running;
			out->valid[i] = mdb_counter_scale(r.v[j].value, enabled, running,
							  &out->value[i]);
			if (!out->valid[i])
				c->unscheduled++;
		}
	}
}

void mdb_counters_stop(struct mdb_counters *set, struct mdb_counter_values *out)
{
	unsigned int g;

	group_ioctl(set, PERF_EVENT_IOC_DISABLE);
	memset(out, 0, sizeof(*out));
	for (g = 0; g < set->nr_groups; g++)
		take_group(set, g, out);
	set->last = *out;
}

/* ------------------------------------------------------------------ */
/* Which PMU                                                           */

/* The first line of path into buf, newline and NULs stripped; false if unreadable or empty. */
static bool first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\0' || buf[i] == '\n')	/* device-tree strings are NUL-separated */
			buf[i] = buf[i] == '\n' ? '\0' : ' ';
	return buf[0] != '\0';
}

/* Whether /proc/cpuinfo's flags have word. */
static bool cpuinfo_flag(const char *word)
{
	char line[4096];
	bool found = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *tok, *save;

		if (strncmp(line, "flags", 5))
			continue;
		for (tok = strtok_r(strchr(line, ':') ? strchr(line, ':') + 1 : line, " \n", &save);
		     tok && !found; tok = strtok_r(NULL, " \n", &save))
			found = !strcmp(tok, word);
		break;
	}
	fclose(f);
	return found;
}

static void virt_hint(char *out, size_t len)
{
	static const char *const vendors[] = { "QEMU", "KVM", "VMware", "Xen", "Microsoft",
					       "innotek", "Amazon EC2", "Google", NULL };
	char buf[160];
	unsigned int i;

	if (cpuinfo_flag("hypervisor")) {
		snprintf(out, len, "CPUID hypervisor bit (/proc/cpuinfo flags)");
		return;
	}
	if (first_line("/sys/hypervisor/type", buf, sizeof(buf))) {
		text(out, len, "/sys/hypervisor/type: %s", buf);
		return;
	}
	if (first_line("/proc/device-tree/compatible", buf, sizeof(buf)) &&
	    strstr(buf, "linux,dummy-virt")) {
		snprintf(out, len, "device tree compatible linux,dummy-virt (qemu's virt board)");
		return;
	}
	if (first_line("/sys/class/dmi/id/sys_vendor", buf, sizeof(buf)))
		for (i = 0; vendors[i]; i++)
			if (strstr(buf, vendors[i])) {
				text(out, len, "DMI sys_vendor: %s", buf);
				return;
			}
	out[0] = '\0';
}

void mdb_pmu_describe(struct mdb_pmu_info *p)
{
	pfm_pmu_info_t info;
	struct mdb_err err;
	int pmu;

	memset(p, 0, sizeof(*p));
	if (!pfm_ready(&err)) {
		for (pmu = PFM_PMU_NONE + 1; pmu < PFM_PMU_MAX; pmu++) {
			memset(&info, 0, sizeof(info));
			info.size = sizeof(info);
			if (pfm_get_pmu_info(pmu, &info) != PFM_SUCCESS || !info.is_present ||
			    info.type != PFM_PMU_TYPE_CORE)
				continue;
			snprintf(p->libpfm, sizeof(p->libpfm), "%s", info.name);
			snprintf(p->libpfm_desc, sizeof(p->libpfm_desc), "%s", info.desc);
			break;
		}
	}
	if (first_line("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", p->midr,
		       sizeof(p->midr)))
		p->midr[strcspn(p->midr, " ")] = '\0';
	virt_hint(p->virt, sizeof(p->virt));
}

/* ------------------------------------------------------------------ */
/* Zeros that are not measurements                                     */

bool mdb_counter_counts_misses(const struct mdb_counter *c)
{
	static const char *const words[] = { "MISS", "REFILL", NULL };
	char upper[MDB_COUNTER_EVENT_LEN];
	unsigned int i;

	if (c->type == PERF_TYPE_HW_CACHE)
		return (c->config >> 16 & 0xff) == PERF_COUNT_HW_CACHE_RESULT_MISS;
	if (c->type == PERF_TYPE_HARDWARE)
		return c->config == PERF_COUNT_HW_CACHE_MISSES;
	if (c->source != MDB_SRC_LIBPFM)
		return false;	/* a raw code says nothing of what it counts */
	for (i = 0; i < sizeof(upper) - 1 && c->event[i]; i++)	/* libpfm ignores case */
		upper[i] = (char)toupper((unsigned char)c->event[i]);
	upper[i] = '\0';
	for (i = 0; words[i]; i++)
		if (strstr(upper, words[i]))
			return true;
	return false;
}

bool mdb_counter_counts_every_op(const struct mdb_counter *c)
{
	/* libpfm's names for them: Arm's architected events, Intel's and AMD's fixed ones. */
	static const char *const events[] = {
		"INST_RETIRED", "CPU_CYCLES", "INSTRUCTION_RETIRED", "INSTRUCTIONS_RETIRED",
		"UNHALTED_CORE_CYCLES", "CPU_CLK_UNHALTED", "RETIRED_INSTRUCTIONS",
		"CYCLES_NOT_IN_HALT", NULL
	};
	const char *e = strstr(c->event, "::") ? strstr(c->event, "::") + 2 : c->event;
	size_t n = strcspn(e, ":.");
	unsigned int i;

	if (c->type == PERF_TYPE_HARDWARE)
		return c->config == PERF_COUNT_HW_INSTRUCTIONS ||
		       c->config == PERF_COUNT_HW_CPU_CYCLES ||
		       c->config == PERF_COUNT_HW_REF_CPU_CYCLES;
	if (c->source != MDB_SRC_LIBPFM)
		return false;
	for (i = 0; events[i]; i++)
		if (strlen(events[i]) == n && !strncasecmp(e, events[i], n))
			return true;
	return false;
}

const char *mdb_counter_untrusted_zero(const struct mdb_counter *c, double per_op,
				       double expected, char *buf, size_t len)
{
	if (per_op != 0)
		return NULL;
	if (mdb_counter_counts_every_op(c)) {
		snprintf(buf, len, "counted 0 where every op retires instructions: not trusted");
		return buf;
	}
	if (!(expected > 0) || !mdb_counter_counts_misses(c))
		return NULL;
	snprintf(buf, len, "counted 0 where the model expects %.3g: not trusted", expected);
	return buf;
}
