// SPDX-License-Identifier: GPL-2.0
/*
 * test_harness_counters.c - counters.c: names, encodings, and the machine.
 *
 *   test_harness_counters           encodings (against fake sysfs trees, so
 *                                   the same on every machine), refusals, and
 *                                   the defaults on this machine: available or
 *                                   unavailable with a reason, page_faults
 *                                   counting fresh pages, the --list section
 *                                   and the start-of-run line
 *   test_harness_counters skl       under LIBPFM_FORCE_PMU=skl: model-specific
 *   test_harness_counters amd64_fam19h_zen3    events against libpfm's own
 *                                   tables, and the generic defaults still
 *                                   encoding and setting up
 *
 * No PMU is needed: encoding opens nothing.  On a machine with a PMU the
 * same checks hold; only which counters are available differs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "counters.h"
#include "err.h"
#include "test_common.h"

#define PAGES	256

/* ------------------------------------------------------------------ */
/* Fake sysfs trees                                                    */

static char root[256];		/* mkdtemp */
static char no_pmus[300];	/* an empty devices dir: cpu/.../ takes the x86 layout */
static char intel[300];		/* cpu with arch/x86/events/intel/core.c's formats */
static char amd[300];		/* cpu with arch/x86/events/amd/core.c's formats */

static void put(const char *dir, const char *file, const char *text)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void mkdirs(const char *dir, const char *sub)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	if (mkdir(path, 0700)) {
		perror(path);
		exit(1);
	}
}

static void make_trees(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(root, sizeof(root), "%s/mdb-counters.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		perror(root);
		exit(1);
	}
	snprintf(no_pmus, sizeof(no_pmus), "%s/none", root);
	snprintf(intel, sizeof(intel), "%s/intel", root);
	snprintf(amd, sizeof(amd), "%s/amd", root);
	mkdirs(root, "none");

	/* The format strings are the PMU_FORMAT_ATTRs of the kernel's intel/core.c. */
	mkdirs(root, "intel");
	mkdirs(intel, "cpu");
	mkdirs(intel, "cpu/format");
	put(intel, "cpu/type", "4\n");
	put(intel, "cpu/format/event", "config:0-7\n");
	put(intel, "cpu/format/umask", "config:8-15\n");
	put(intel, "cpu/format/edge", "config:18\n");
	put(intel, "cpu/format/pc", "config:19\n");
	put(intel, "cpu/format/any", "config:21\n");
	put(intel, "cpu/format/inv", "config:23\n");
	put(intel, "cpu/format/cmask", "config:24-31\n");
	put(intel, "cpu/format/offcore_rsp", "config1:0-63\n");
	/* A hybrid part's core PMU has a dynamic type. */
	mkdirs(intel, "cpu_core");
	mkdirs(intel, "cpu_core/format");
	put(intel, "cpu_core/type", "8\n");
	put(intel, "cpu_core/format/event", "config:0-7\n");
	put(intel, "cpu_core/format/umask", "config:8-15\n");
	put(intel, "cpu_core/format/offcore_rsp", "config1:0-63\n");

	/* amd/core.c: the event select is 12 bits, its top 4 in config:32-35. */
	mkdirs(root, "amd");
	mkdirs(amd, "cpu");
	mkdirs(amd, "cpu/format");
	put(amd, "cpu/type", "4\n");
	put(amd, "cpu/format/event", "config:0-7,32-35\n");
	put(amd, "cpu/format/umask", "config:8-15\n");
	put(amd, "cpu/format/edge", "config:18\n");
	put(amd, "cpu/format/inv", "config:23\n");
	put(amd, "cpu/format/cmask", "config:24-31\n");
}

static void remove_trees(void)
{
	static const char *const files[] = {
		"intel/cpu/format/event", "intel/cpu/format/umask", "intel/cpu/format/edge",
		"intel/cpu/format/pc", "intel/cpu/format/any", "intel/cpu/format/inv",
		"intel/cpu/format/cmask", "intel/cpu/format/offcore_rsp", "intel/cpu/type",
		"intel/cpu_core/format/event", "intel/cpu_core/format/umask",
		"intel/cpu_core/format/offcore_rsp", "intel/cpu_core/type",
		"amd/cpu/format/event", "amd/cpu/format/umask", "amd/cpu/format/edge",
		"amd/cpu/format/inv", "amd/cpu/format/cmask", "amd/cpu/type", NULL
	};
	static const char *const dirs[] = {
		"intel/cpu/format", "intel/cpu", "intel/cpu_core/format", "intel/cpu_core", "intel",
		"amd/cpu/format", "amd/cpu", "amd", "none", "", NULL
	};
	char path[600];
	int i;

	for (i = 0; files[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", root, files[i]);
		CHECK(!unlink(path), "cannot remove %s", path);
	}
	for (i = 0; dirs[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		CHECK(!rmdir(path), "cannot remove %s", path);
	}
}

/* ------------------------------------------------------------------ */
/* Helpers                                                             */

/* name encodes (against pmu_dir) to type and config (and config1). */
static void expect(const char *pmu_dir, const char *name, uint32_t type, uint64_t config,
		   uint64_t config1, enum mdb_counter_source source)
{
	struct mdb_err err = { "" };
	struct mdb_counter c;

	if (mdb_counter_encode(&c, name, pmu_dir, &err)) {
		CHECK(0, "'%s' refused: %s", name, err.msg);
		return;
	}
	CHECK(c.type == type && c.config == config && c.config1 == config1,
	      "'%s': type %u config 0x%llx config1 0x%llx, want type %u config 0x%llx config1 0x%llx",
	      name, c.type, (unsigned long long)c.config, (unsigned long long)c.config1, type,
	      (unsigned long long)config, (unsigned long long)config1);
	CHECK(c.source == source, "'%s' encoded by %s, want %s", name,
	      mdb_counter_source_name(c.source), mdb_counter_source_name(source));
	CHECK(!strcmp(c.name, name), "name '%s'", c.name);
	CHECK(c.fd == -1 && !c.available, "'%s': opened by encoding", name);
	CHECK(c.group == (type == 1 ? MDB_GROUP_SW : MDB_GROUP_HW), "'%s': group %d", name, c.group);
}

/* spec is refused by mdb_counters_parse with one line holding want. */
static void refused(const char *spec, const char *want)
{
	struct mdb_err err = { "" };
	struct mdb_counters set;

	CHECK(mdb_counters_parse(&set, spec, no_pmus, &err) == -1, "'%s' accepted", spec);
	CHECK(set.nr == 0, "'%s': %u counters left after a refusal", spec, set.nr);
	CHECK(*err.msg && !strchr(err.msg, '\n'), "'%s': message '%s' is not one line", spec,
	      err.msg);
	CHECK(strstr(err.msg, want) != NULL, "'%s': message '%s' does not say '%s'", spec, err.msg,
	      want);
	printf("refused %-40s %s\n", spec, err.msg);
}

static int find(const struct mdb_counters *set, const char *name)
{
	unsigned int i;

	for (i = 0; i < set->nr; i++)
		if (!strcmp(set->c[i].name, name))
			return (int)i;
	return -1;
}

static char *list_text(const struct mdb_counters *set)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f) {
		perror("open_memstream");
		exit(1);
	}
	mdb_counters_print_list(f, set);
	fclose(f);
	return text;
}

static bool have_cpu_pmu(void)
{
	return !access("/sys/bus/event_source/devices/cpu", F_OK) ||
	       !access("/sys/bus/event_source/devices/cpu_core", F_OK) ||
	       !access("/sys/bus/event_source/devices/armv8_pmuv3_0", F_OK);
}

/* ------------------------------------------------------------------ */
/* Encodings: the same on every machine                                */

#define HW	0	/* PERF_TYPE_HARDWARE */
#define SW	1	/* PERF_TYPE_SOFTWARE */
#define CACHE	3	/* PERF_TYPE_HW_CACHE */
#define RAW	4	/* PERF_TYPE_RAW */

static void test_generic_names(void)
{
	static const struct { const char *short_name, *perf, *pfm; uint32_t type; uint64_t config; } same[] = {
		/* config of a cache event: cache | op << 8 | result << 16 (uapi perf_event.h) */
		{ "cycles",		"cpu-cycles",		"PERF_COUNT_HW_CPU_CYCLES",		HW, 0 },
		{ "instructions",	"instructions",		"PERF_COUNT_HW_INSTRUCTIONS",		HW, 1 },
		{ "L1D_load_misses",	"L1-dcache-load-misses", "PERF_COUNT_HW_CACHE_L1D:READ:MISS",	CACHE, 0x10000 },
		{ "LLC_load_misses",	"LLC-load-misses",	"PERF_COUNT_HW_CACHE_LL:READ:MISS",	CACHE, 0x10002 },
		{ "dTLB_load_misses",	"dTLB-load-misses",	"PERF_COUNT_HW_CACHE_DTLB:READ:MISS",	CACHE, 0x10003 },
		{ "page_faults",	"page-faults",		"PERF_COUNT_SW_PAGE_FAULTS",		SW, 2 },
		{ "L1D_loads",		"L1-dcache-loads",	"PERF_COUNT_HW_CACHE_L1D:READ:ACCESS",	CACHE, 0 },
		{ "LLC_loads",		"LLC-loads",		"PERF_COUNT_HW_CACHE_LL:READ:ACCESS",	CACHE, 2 },
		{ "dTLB_loads",		"dTLB-loads",		"PERF_COUNT_HW_CACHE_DTLB:READ:ACCESS",	CACHE, 3 },
		{ "branch_misses",	"branch-misses",	"PERF_COUNT_HW_BRANCH_MISSES",		HW, 5 },
		{ "task_clock",		"task-clock",		"PERF_COUNT_SW_TASK_CLOCK",		SW, 1 },
	};
	/* Further spellings perf (parse-events.c, evsel.c) and libpfm (perf_events.h) accept. */
	static const struct { const char *name; uint32_t type; uint64_t config; } more[] = {
		{ "cycles:u", HW, 0 }, { "CYCLES", HW, 0 }, { "perf::PERF_COUNT_HW_CPU_CYCLES", HW, 0 },
		{ "PERF_COUNT_HW_CPU_CYCLES:u=1:k=0", HW, 0 }, { "ref-cycles", HW, 9 },
		/* libpfm's own fully qualified name reads back */
		{ "perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS:u=1:k=0:h=0:precise=0:excl=0:mg=0:mh=1",
		  CACHE, 0x10000 },
		{ "branches", HW, 4 }, { "branch-instructions", HW, 4 }, { "cache-misses", HW, 3 },
		{ "stalled-cycles-backend", HW, 8 }, { "idle-cycles-frontend", HW, 7 },
		{ "faults", SW, 2 }, { "minor-faults", SW, 5 }, { "major-faults", SW, 6 },
		{ "cs", SW, 3 }, { "cpu-clock", SW, 0 }, { "perf::PERF_COUNT_SW_CPU_CLOCK", SW, 0 },
		{ "L1-DCACHE-LOAD-MISSES", CACHE, 0x10000 },	/* libpfm's alias */
		{ "l1d-load-miss", CACHE, 0x10000 }, { "L1-data-misses", CACHE, 0x10000 },
		{ "L1-dcache-misses-load", CACHE, 0x10000 },	/* result before op */
		{ "L1-dcache", CACHE, 0 },			/* perf: read, access */
		{ "LLC-store-misses", CACHE, 0x10102 }, { "LLC-prefetches", CACHE, 0x202 },
		{ "L2-loads", CACHE, 2 }, { "iTLB-load-misses", CACHE, 0x10004 },
		{ "branch-load-misses", CACHE, 0x10005 }, { "node-loads", CACHE, 6 },
		{ "PERF_COUNT_HW_CACHE_MISSES", HW, 3 }, { "perf::PERF_COUNT_HW_CACHE_REFERENCES", HW, 2 },
		{ "PERF_COUNT_HW_CACHE_L1D", CACHE, 0x10000 },	/* libpfm: READ, MISS */
		{ "PERF_COUNT_HW_CACHE_LL:MISS:WRITE", CACHE, 0x10102 },
		{ "perf::PERF_COUNT_HW_CACHE_DTLB:ACCESS", CACHE, 3 },
	};
	struct mdb_err err = { "" };
	struct mdb_counter c;
	size_t i;

	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		char pfm[128];

		expect(no_pmus, same[i].short_name, same[i].type, same[i].config, 0, MDB_SRC_GENERIC);
		expect(no_pmus, same[i].perf, same[i].type, same[i].config, 0, MDB_SRC_GENERIC);
		expect(no_pmus, same[i].pfm, same[i].type, same[i].config, 0, MDB_SRC_GENERIC);
		CHECK(!strcmp(mdb_counter_short_event(same[i].short_name), same[i].pfm), "%s: %s",
		      same[i].short_name, mdb_counter_short_event(same[i].short_name));
		CHECK(!mdb_counter_encode(&c, same[i].perf, no_pmus, &err), "%s", err.msg);
		snprintf(pfm, sizeof(pfm), "perf::%s", same[i].pfm);
		CHECK(!strcmp(c.event, same[i].pfm) && !strcmp(c.pfm, pfm),
		      "'%s': event '%s' pfm '%s'", same[i].perf, c.event, c.pfm);
	}
	for (i = 0; i < sizeof(more) / sizeof(more[0]); i++)
		expect(no_pmus, more[i].name, more[i].type, more[i].config, 0, MDB_SRC_GENERIC);
}

static void test_perf_syntax(void)
{
	/* event | umask << 8 | edge << 18 | any << 21 | inv << 23 | cmask << 24 */
	const uint64_t full = 0xd1 | 0x01 << 8 | 1 << 18 | 1 << 21 | 1 << 23 | 2ULL << 24;
	struct mdb_err err = { "" };
	struct mdb_counters set;
	struct mdb_counter c;

	expect(no_pmus, "r01d1", RAW, 0x1d1, 0, MDB_SRC_RAW);
	expect(no_pmus, "r1D1:u", RAW, 0x1d1, 0, MDB_SRC_RAW);
	expect(no_pmus, "rffffffffffffffff", RAW, ~0ULL, 0, MDB_SRC_RAW);
	CHECK(!mdb_counter_encode(&c, "r01d1", no_pmus, &err) && !strcmp(c.pfm, "r1d1"),
	      "pfm '%s'", c.pfm);

	/* No sysfs: the x86 core layout, PERF_TYPE_RAW, and a note saying so. */
	expect(no_pmus, "cpu/event=0xd1,umask=0x01/", RAW, 0x1d1, 0, MDB_SRC_PMU_X86);
	expect(no_pmus, "cpu/event=0xd1,umask=0x01,edge,any,inv,cmask=2/", RAW, full, 0,
	       MDB_SRC_PMU_X86);
	expect(no_pmus, "cpu/event=209,umask=1/u", RAW, 0x1d1, 0, MDB_SRC_PMU_X86);
	expect(no_pmus, "cpu/config=0x1d1/", RAW, 0x1d1, 0, MDB_SRC_PMU_X86);
	CHECK(!mdb_counter_encode(&c, "cpu/event=0xd1,umask=0x01/", no_pmus, &err), "%s", err.msg);
	CHECK(strstr(c.note, "/cpu/format, so event config:0-7") && strstr(c.note, "PERF_TYPE_RAW"),
	      "note '%s'", c.note);
	printf("cpu/event=0xd1,umask=0x01/ without sysfs: type %u config 0x%llx (%s)\n", c.type,
	       (unsigned long long)c.config, c.note);

	/* sysfs format files, as the kernel writes them. */
	expect(intel, "cpu/event=0xd1,umask=0x01/", RAW, 0x1d1, 0, MDB_SRC_PMU_FORMAT);
	expect(intel, "cpu/event=0xd1,umask=0x01,edge,any,inv,cmask=2/", RAW, full, 0,
	       MDB_SRC_PMU_FORMAT);
	expect(intel, "cpu_core/event=0xb7,umask=0x01,offcore_rsp=0x10001/", 8, 0x1b7, 0x10001,
	       MDB_SRC_PMU_FORMAT);
	expect(amd, "cpu/event=0x1d0/", RAW, 0x1000000d0, 0, MDB_SRC_PMU_FORMAT);
	expect(amd, "cpu/event=0x45,umask=0x10/", RAW, 0x1045, 0, MDB_SRC_PMU_FORMAT);
	CHECK(!mdb_counter_encode(&c, "cpu/event=0xd1,umask=0x01/", intel, &err), "%s", err.msg);
	CHECK(strstr(c.note, "/cpu/format") && strstr(c.note, "/cpu/type"), "note '%s'", c.note);

	/* The comma inside /.../ does not split the list. */
	CHECK(!mdb_counters_parse(&set, "cycles,cpu/event=0xd1,umask=0x01/,r01d2,page-faults", no_pmus,
				  &err), "%s", err.msg);
	CHECK(set.nr == 4 && !strcmp(set.c[1].name, "cpu/event=0xd1,umask=0x01/") &&
	      !strcmp(set.c[2].name, "r01d2") && !strcmp(set.c[3].name, "page-faults"),
	      "%u counters, second '%s'", set.nr, set.c[1].name);
	CHECK(!mdb_counters_parse(&set, "none", no_pmus, &err) && set.nr == 0, "none: %u", set.nr);
	CHECK(!mdb_counters_parse(&set, NULL, no_pmus, &err) && set.nr == 6, "defaults: %u", set.nr);
}

static void test_refusals(void)
{
	refused("", "names no counter");
	refused(",", "empty counter name");
	refused("page_faults,,task_clock", "empty counter name");
	refused("page_faults,", "empty counter name");
	refused(",page_faults", "empty counter name");
	refused("none,cycles", "cannot be combined");
	refused("cycles,none", "cannot be combined");
	refused("page_faults,foo", "unknown counter 'foo': event not found");
	refused("cpu/event=0xd1,umask=0x01", "unbalanced '/'");
	refused("cpu/event=0xd1/,task_clock,x/", "unbalanced '/'");
	refused("cpu/event=0xd1/k", "modifier 'k'");
	refused("cpu/event=0xd1/a/", "unbalanced '/'");
	refused("cpu/event=0xd1/x/y/", "more than two '/'");
	refused("cpu//", "no terms");
	refused("cpu/event=0xd1,,umask=1/", "is not a term");
	refused("cpu/event=0x1d1/", "does not fit its 8 bits");
	refused("cpu/event=xyz/", "is not a number");
	refused("cpu/foo=1/", "no term 'foo'");
	refused("cpu/event=1,event=2/", "sets bits another term set");
	refused(".cpu/event=1/", "is not a PMU name");
	refused("c*u/event=1/", "is not a PMU name");
	refused("nosuchpmu/event=1/", "no PMU 'nosuchpmu'");
	refused("r12345678901234567", "at most 16 hex digits");
	refused("r01d1:k", "modifier 'k'");
	refused("cycles:k", "modifier 'k'");
	refused("PERF_COUNT_HW_CPU_CYCLES:k=1", "modifier 'k=1'");
	refused("PERF_COUNT_HW_CACHE_L1D:READ:WRITE", "two operations");
	refused("PERF_COUNT_HW_CACHE_ITLB:WRITE", "no WRITE operation");
	refused("L1-icache-stores", "no such operation");
	refused("page_faults,page_faults", "given twice");
	refused("cycles,cpu-cycles", "same event");
	refused("L1D_load_misses,L1-dcache-load-misses", "same event");
	refused("r1,r2,r3,r4,r5,r6,r7,r8,r9,ra,rb,rc,rd,re,rf,r10,r11", "more than 16 counters");
}

/* Every refusal above comes back from mdb_counters_setup too, and leaves nothing open. */
static void test_setup_refuses(void)
{
	struct mdb_err err = { "" };
	struct mdb_counters set;

	CHECK(mdb_counters_setup(&set, "", &err) == -1 && set.nr == 0, "--counters= accepted");
	CHECK(mdb_counters_setup(&set, "page_faults,foo", &err) == -1 && set.nr == 0,
	      "unknown counter accepted");
	CHECK(strstr(err.msg, "unknown counter 'foo'"), "message '%s'", err.msg);
	CHECK(mdb_counters_setup(&set, "cycles,,r", &err) == -1, "empty name accepted");
}

/* ------------------------------------------------------------------ */
/* This machine                                                        */

static void test_defaults(void)
{
	struct mdb_err err = { "" };
	struct mdb_counter_values v;
	struct mdb_counters set;
	long page = sysconf(_SC_PAGESIZE);
	char line[MDB_COUNTERS_MISSING_LEN], *buf, *text;
	const char *missing;
	unsigned int i;
	int pf;

	CHECK(mdb_counters_setup(&set, NULL, &err) == 0, "defaults: %s", err.msg);
	CHECK(set.nr == 6, "%u default counters", set.nr);
	for (i = 0; i < set.nr; i++) {
		const struct mdb_counter *c = &set.c[i];

		CHECK(c->available || strlen(c->reason) > 10, "%s: no reason given", c->name);
		CHECK(!c->available || c->fd >= 0, "%s available without an fd", c->name);
		if (!have_cpu_pmu() && c->group == MDB_GROUP_HW)
			CHECK(!c->available, "%s available on a machine without a CPU PMU", c->name);
	}
	if (!have_cpu_pmu())
		CHECK(strstr(set.c[0].reason, "PMU") != NULL, "cycles: reason '%s' gives no hint",
		      set.c[0].reason);

	text = list_text(&set);
	printf("%s", text);
	CHECK(!strncmp(text, "counters:\n  cycles ", strlen("counters:\n  cycles ")),
	      "list starts '%.40s'", text);
	CHECK(strstr(text, "\n      type 0 (hardware), config 0x0: perf::PERF_COUNT_HW_CPU_CYCLES "
		      "[generic perf event]\n"), "no encoding line for cycles");
	CHECK(strstr(text, "\n      type 3 (hardware-cache), config 0x10000: "
		      "perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS [generic perf event]\n"),
	      "no encoding line for L1D_load_misses");
	CHECK(strstr(text, "\n  page_faults        available\n      type 1 (software), config 0x2: "
		      "perf::PERF_COUNT_SW_PAGE_FAULTS [generic perf event]\n"),
	      "no lines for page_faults");
	free(text);

	missing = mdb_counters_missing(&set, line, sizeof(line));
	printf("start-of-run line: %s\n", missing ? missing : "(none)");
	if (mdb_counters_nr_available(&set) == set.nr) {
		CHECK(!missing, "a line with every counter available");
	} else if (!missing) {
		CHECK(0, "no line with %u of %u counters available", mdb_counters_nr_available(&set),
		      set.nr);
	} else {
		CHECK(!strncmp(missing, "counters unavailable here: ", 27), "line '%s'", missing);
		CHECK(!strchr(missing, '\n'), "line '%s' not one line", missing);
		CHECK(!strstr(missing, "page_faults"), "page_faults missing: %s", missing);
	}
	if (!have_cpu_pmu() && missing) {
		/* Five hardware counters with one reason: one group, in order. */
		const char *want = "counters unavailable here: cycles, instructions, "
				   "L1D_load_misses, LLC_load_misses, dTLB_load_misses (";

		CHECK(!strncmp(missing, want, strlen(want)), "line '%s'", missing);
		CHECK(!strchr(missing, ';'), "one reason expected: %s", missing);
	}

	pf = find(&set, "page_faults");
	CHECK(pf >= 0 && set.c[pf].available, "page_faults not available");
	buf = mmap(NULL, PAGES * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(buf != MAP_FAILED, "mmap");
	madvise(buf, PAGES * (size_t)page, MADV_NOHUGEPAGE);
	mdb_counters_start(&set);
	for (i = 0; i < PAGES; i++)
		buf[i * page] = 1;
	mdb_counters_pause(&set);
	madvise(buf, PAGES * (size_t)page, MADV_DONTNEED);
	for (i = 0; i < PAGES / 2; i++)		/* not counted: paused */
		buf[i * page] = 1;
	mdb_counters_resume(&set);
	mdb_counters_stop(&set, &v);
	munmap(buf, PAGES * (size_t)page);
	if (pf >= 0) {
		CHECK(v.valid[pf], "page_faults not read");
		CHECK(v.value[pf] >= PAGES && v.value[pf] < PAGES + PAGES / 2,
		      "page_faults %.0f for %d fresh pages (and %d while paused)", v.value[pf], PAGES,
		      PAGES / 2);
		printf("page_faults: %.0f for %d fresh pages\n", v.value[pf], PAGES);
	}
	for (i = 0; i < set.nr; i++)
		CHECK(set.c[i].available || !v.valid[i], "%s unavailable but read", set.c[i].name);
	mdb_counters_close(&set);
}

/* Software events by every kind of name; perf syntax on this machine's own sysfs. */
static void test_machine_names(void)
{
	struct mdb_err err = { "" };
	struct mdb_counters set;
	char line[MDB_COUNTERS_MISSING_LEN];
	unsigned int i;

	CHECK(mdb_counters_setup(&set, "task_clock,perf::PERF_COUNT_SW_CPU_CLOCK,page-faults", &err) == 0,
	      "software events by short, libpfm and perf name: %s", err.msg);
	CHECK(set.nr == 3 && set.c[0].available && set.c[1].available && set.c[2].available,
	      "software events unavailable");
	CHECK(!mdb_counters_missing(&set, line, sizeof(line)), "software events missing: %s", line);
	mdb_counters_close(&set);

	/* Encodes here whatever the machine; counts where a PMU is. */
	CHECK(mdb_counters_setup(&set, "r01d2,cpu/event=0xd1,umask=0x01/", &err) == 0, "%s", err.msg);
	for (i = 0; i < set.nr; i++) {
		CHECK(set.c[i].available || strlen(set.c[i].reason) > 10, "%s: no reason",
		      set.c[i].name);
		if (!have_cpu_pmu())
			CHECK(!set.c[i].available, "%s available without a PMU", set.c[i].name);
	}
	mdb_counters_close(&set);
}

/* Multiplexing cannot happen without a PMU, so the arithmetic is checked on its own. */
static void test_scale(void)
{
	double v = -1;

	CHECK(mdb_counter_scale(1000, 200, 200, &v) && v == 1000, "all the time: %g", v);
	CHECK(mdb_counter_scale(1000, 300, 100, &v) && v == 3000, "a third of the time: %g", v);
	CHECK(mdb_counter_scale(0, 300, 100, &v) && v == 0, "counted, and nothing happened: %g", v);
	v = -1;
	CHECK(!mdb_counter_scale(1000, 300, 0, &v) && v == -1, "never scheduled gave %g", v);
}

/* Which 0s are not measurements: an instruction or cycle count always, a miss count where the model expects misses. */
static void test_untrusted_zero(void)
{
	static const struct { const char *name; bool every_op, misses; } cases[] = {
		{ "instructions", true, false }, { "cycles", true, false }, { "ref-cycles", true, false },
		{ "L1D_load_misses", false, true }, { "cache-misses", false, true },
		{ "L1D_loads", false, false }, { "page_faults", false, false },
		{ "r11", false, false },	/* a raw code says nothing of what it counts */
		{ NULL, false, false }
	};
	struct mdb_err err = { "" };
	struct mdb_counter c;
	char buf[MDB_COUNTER_REASON_LEN];
	const char *why;
	unsigned int i;

	for (i = 0; cases[i].name; i++) {
		if (mdb_counter_encode(&c, cases[i].name, no_pmus, &err)) {
			CHECK(0, "%s: %s", cases[i].name, err.msg);
			continue;
		}
		CHECK(mdb_counter_counts_every_op(&c) == cases[i].every_op, "%s: every op %d",
		      cases[i].name, mdb_counter_counts_every_op(&c));
		CHECK(mdb_counter_counts_misses(&c) == cases[i].misses, "%s: misses %d", cases[i].name,
		      mdb_counter_counts_misses(&c));
		CHECK(!mdb_counter_untrusted_zero(&c, 2, 3, buf, sizeof(buf)), "%s: 2 not trusted",
		      cases[i].name);
		why = mdb_counter_untrusted_zero(&c, 0, 3, buf, sizeof(buf));
		if (cases[i].every_op)
			CHECK(why && !strcmp(why, "counted 0 where every op retires instructions: "
					     "not trusted"), "%s: %s", cases[i].name, why ? why : "trusted");
		else if (cases[i].misses)
			CHECK(why && !strcmp(why, "counted 0 where the model expects 3: not trusted"),
			      "%s: %s", cases[i].name, why ? why : "trusted");
		else
			CHECK(!why, "%s: %s", cases[i].name, why);
		why = mdb_counter_untrusted_zero(&c, 0, 0, buf, sizeof(buf));
		CHECK(!why == !cases[i].every_op, "%s with no misses expected: %s", cases[i].name,
		      why ? why : "trusted");
	}
}

/* Grouping of identical reasons, and a buffer too small. */
static void test_missing_line(void)
{
	struct mdb_counters set;
	char line[MDB_COUNTERS_MISSING_LEN], small[40];
	const char *s;

	memset(&set, 0, sizeof(set));
	set.nr = 4;
	strcpy(set.c[0].name, "cycles");
	strcpy(set.c[0].reason, "No such file or directory: no PMU here");
	strcpy(set.c[1].name, "page_faults");
	set.c[1].available = true;
	strcpy(set.c[2].name, "r01d1");
	strcpy(set.c[2].reason, "Invalid argument: the kernel rejects this encoding");
	strcpy(set.c[3].name, "instructions");
	strcpy(set.c[3].reason, "No such file or directory: no PMU here");
	s = mdb_counters_missing(&set, line, sizeof(line));
	CHECK(s && !strcmp(s, "counters unavailable here: cycles, instructions (No such file or "
			   "directory: no PMU here); r01d1 (Invalid argument: the kernel rejects this "
			   "encoding)"), "line '%s'", s ? s : "(none)");
	s = mdb_counters_missing(&set, small, sizeof(small));
	CHECK(s && strlen(s) == sizeof(small) - 1 && !strcmp(s + strlen(s) - 3, "..."), "cut '%s'",
	      s ? s : "(none)");
	set.nr = 2;
	set.c[0].available = true;
	CHECK(!mdb_counters_missing(&set, line, sizeof(line)), "a line with nothing missing");
}

/* ------------------------------------------------------------------ */
/* Forced PMUs                                                         */

struct model_event {
	const char *name;
	uint64_t config;
	const char *pfm;	/* how libpfm's fully qualified name starts */
	const char *perf;	/* the same event in perf's cpu/.../ syntax */
};

/*
 * lib/events/intel_skl_events.h of libpfm 4.13: MEM_LOAD_RETIRED .code 0xd1,
 * L1_MISS .ucode 0x800; DTLB_LOAD_MISSES .code 0x8, WALK_COMPLETED .ucode
 * 0xe00; CYCLE_ACTIVITY .code 0xa3, STALLS_L1D_MISS .ucode 0x0c00 | 0xc <<
 * INTEL_X86_CMASK_BIT (24); INST_RETIRED .code 0xc0, ANY_P .ucode 0x000.
 * libpfm's x86 events are PERF_TYPE_RAW with config = code | ucode.
 */
static const struct model_event skl_events[] = {
	{ "MEM_LOAD_RETIRED:L1_MISS", 0x8d1, "skl::MEM_LOAD_RETIRED:L1_MISS:",
	  "cpu/event=0xd1,umask=0x08/" },
	{ "MEM_LOAD_RETIRED.L1_MISS", 0x8d1, "skl::MEM_LOAD_RETIRED:L1_MISS:",
	  "cpu/event=0xd1,umask=0x8/u" },
	{ "DTLB_LOAD_MISSES:WALK_COMPLETED", 0xe08, "skl::DTLB_LOAD_MISSES:WALK_COMPLETED:",
	  "cpu/event=0x08,umask=0x0e/" },
	{ "CYCLE_ACTIVITY:STALLS_L1D_MISS", 0x0c000ca3, "skl::CYCLE_ACTIVITY:STALLS_L1D_MISS:",
	  "cpu/event=0xa3,umask=0x0c,cmask=12/" },
	{ "INST_RETIRED:ANY_P", 0xc0, "skl::INST_RETIRED:ANY_P:", "cpu/event=0xc0/" },
	{ NULL, 0, NULL, NULL }
};

/*
 * lib/events/amd64_events_fam19h_zen3.h of libpfm 4.13: RETIRED_INSTRUCTIONS
 * .code 0xc0; CYCLES_NOT_IN_HALT .code 0x76; L1_DTLB_MISS .code 0x45,
 * TLB_RELOAD_4K_L2_MISS .ucode 0x10; RETIRED_FUSED_INSTRUCTIONS .code 0x1d0.
 * lib/pfmlib_amd64.c puts code & 0xff in sel_event_mask (config 0-7), the
 * ucode in sel_unit_mask (8-15) and code >> 8 in sel_event_mask2 (32-35), as
 * the kernel's amd format "event config:0-7,32-35" does.
 */
static const struct model_event zen3_events[] = {
	{ "RETIRED_INSTRUCTIONS", 0xc0, "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS:",
	  "cpu/event=0xc0/" },
	{ "CYCLES_NOT_IN_HALT", 0x76, "amd64_fam19h_zen3::CYCLES_NOT_IN_HALT:", "cpu/event=0x76/" },
	{ "L1_DTLB_MISS:TLB_RELOAD_4K_L2_MISS", 0x1045,
	  "amd64_fam19h_zen3::L1_DTLB_MISS:TLB_RELOAD_4K_L2_MISS:", "cpu/event=0x45,umask=0x10/" },
	{ "RETIRED_FUSED_INSTRUCTIONS", 0x1000000d0,
	  "amd64_fam19h_zen3::RETIRED_FUSED_INSTRUCTIONS:", "cpu/event=0x1d0/" },
	{ NULL, 0, NULL, NULL }
};

static void test_forced(const char *pmu)
{
	const struct model_event *events = !strcmp(pmu, "skl") ? skl_events : zen3_events;
	const char *perf_tree = !strcmp(pmu, "skl") ? intel : amd;
	struct mdb_err err = { "" };
	struct mdb_counters set;
	struct mdb_counter c;
	char spec[1024] = "", line[MDB_COUNTERS_MISSING_LEN], *text;
	const char *missing;
	unsigned int i;

	printf("LIBPFM_FORCE_PMU=%s\n", getenv("LIBPFM_FORCE_PMU"));
	for (i = 0; events[i].name; i++) {
		if (mdb_counter_encode(&c, events[i].name, no_pmus, &err)) {
			CHECK(0, "%s: %s", events[i].name, err.msg);
			continue;
		}
		printf("  %-36s type %u config 0x%llx pfm %s\n", events[i].name, c.type,
		       (unsigned long long)c.config, c.pfm);
		CHECK(c.source == MDB_SRC_LIBPFM, "%s: %s", events[i].name,
		      mdb_counter_source_name(c.source));
		CHECK(c.type == RAW && c.config == events[i].config && !c.config1,
		      "%s: type %u config 0x%llx, libpfm's table says type 4 config 0x%llx",
		      events[i].name, c.type, (unsigned long long)c.config,
		      (unsigned long long)events[i].config);
		CHECK(!strncmp(c.pfm, events[i].pfm, strlen(events[i].pfm)), "%s: pfm '%s'",
		      events[i].name, c.pfm);
		/* perf's syntax through the kernel's format files gives the same config. */
		expect(perf_tree, events[i].perf, RAW, events[i].config, 0, MDB_SRC_PMU_FORMAT);
		if (i < 4 && !strchr(events[i].name, '.')) {	/* the dotted one is the same event */
			strcat(spec, events[i].name);
			strcat(spec, ",");
		}
	}
	if (!strcmp(pmu, "skl"))
		expect(no_pmus, "cpu/event=0xa3,umask=0x0c,cmask=12/", RAW, 0x0c000ca3, 0,
		       MDB_SRC_PMU_X86);
	else
		refused("RETIRED_INSTRUCTIONS:k", "counts no user space");

	/* The generic names do not go through libpfm, so forcing a PMU leaves them alone. */
	CHECK(!mdb_counters_parse(&set, NULL, no_pmus, &err), "defaults under %s: %s", pmu, err.msg);
	CHECK(set.nr == 6 && set.c[0].type == HW && set.c[0].config == 0 && set.c[2].type == CACHE &&
	      set.c[2].config == 0x10000 && set.c[5].type == SW && set.c[5].config == 2,
	      "defaults under %s encode differently", pmu);
	expect(no_pmus, "L1-dcache-load-misses", CACHE, 0x10000, 0, MDB_SRC_GENERIC);
	expect(no_pmus, "perf::PERF_COUNT_HW_INSTRUCTIONS", HW, 1, 0, MDB_SRC_GENERIC);
	CHECK(!mdb_counters_setup(&set, NULL, &err), "defaults under %s fail: %s", pmu, err.msg);
	CHECK(find(&set, "page_faults") >= 0 && set.c[find(&set, "page_faults")].available,
	      "page_faults unavailable under %s", pmu);
	mdb_counters_close(&set);

	/* A list of both: what --list and the start-of-run line show. */
	strcat(spec, "cycles,page_faults,r01d1");
	CHECK(!mdb_counters_setup(&set, spec, &err), "%s: %s", spec, err.msg);
	text = list_text(&set);
	printf("--counters=%s --list:\n%s", spec, text);
	CHECK(strstr(text, events[0].pfm) != NULL, "--list does not show %s", events[0].pfm);
	free(text);
	missing = mdb_counters_missing(&set, line, sizeof(line));
	printf("start-of-run line: %s\n", missing ? missing : "(none)");
	mdb_counters_close(&set);
}

/*
 * The lab's machines: one model-specific event per default counter (cycles,
 * instructions, L1D, LLC and dTLB load misses), encoded by libpfm 4.13's
 * tables, which agree with the vendors' manuals: Sapphire Rapids (Intel
 * SDM: MEM_LOAD_RETIRED.L1_MISS d1/08, .L3_MISS d1/20,
 * DTLB_LOAD_MISSES.WALK_COMPLETED 12/0e on Golden Cove), Zen 4 (AMD PPR
 * 19h: retired instructions c0, cycles not in halt 76); Neoverse N1 and V2
 * (the Armv8 PMU's common events: INST_RETIRED 0x08, CPU_CYCLES 0x11,
 * L1D_CACHE_REFILL 0x03, LL_CACHE_MISS_RD 0x37, L1D_TLB_REFILL 0x05), whose
 * tables only the aarch64 build of libpfm has.  libpfm 4.13 knows no
 * Emerald Rapids (emr) and no Zen 5 (amd64_fam1ah_zen5): there the suite
 * asks for the generic events only, which the kernel's own PMU driver maps
 * (lab_lacks()).
 */
struct lab_pmu {
	const char *pmu;		/* LIBPFM_FORCE_PMU */
	const char *machine;
	struct { const char *name; uint64_t config; } ev[6];
};

static const struct lab_pmu lab_pmus[] = {
	{ "spr", "Sapphire Rapids", {
		{ "CPU_CLK_UNHALTED:THREAD_P", 0x3c }, { "INST_RETIRED:ANY_P", 0xc0 },
		{ "MEM_LOAD_RETIRED:L1_MISS", 0x8d1 }, { "MEM_LOAD_RETIRED:L3_MISS", 0x20d1 },
		{ "DTLB_LOAD_MISSES:WALK_COMPLETED", 0xe12 }, { NULL, 0 } } },
	{ "amd64_fam19h_zen4", "Zen 4", {
		{ "CYCLES_NOT_IN_HALT", 0x76 }, { "RETIRED_INSTRUCTIONS", 0xc0 }, { NULL, 0 } } },
	{ "arm_n1", "Neoverse N1", {
		{ "CPU_CYCLES", 0x11 }, { "INST_RETIRED", 0x08 }, { "L1D_CACHE_REFILL", 0x03 },
		{ "LL_CACHE_MISS_RD", 0x37 }, { "L1D_TLB_REFILL", 0x05 }, { NULL, 0 } } },
	{ "arm_v2", "Neoverse V2", {
		{ "CPU_CYCLES", 0x11 }, { "INST_RETIRED", 0x08 }, { "L1D_CACHE_REFILL", 0x03 },
		{ "LL_CACHE_MISS_RD", 0x37 }, { "L1D_TLB_REFILL", 0x05 }, { NULL, 0 } } },
	{ NULL, NULL, { { NULL, 0 } } }
};

static const struct lab_pmu *lab_pmu(const char *pmu)
{
	const struct lab_pmu *l;

	for (l = lab_pmus; l->pmu; l++)
		if (!strcmp(l->pmu, pmu))
			return l;
	return NULL;
}

/* Every default still sets up, and the PMU the dump names is the forced one (or none). */
static void lab_defaults(const char *pmu, bool known)
{
	struct mdb_err err = { "" };
	struct mdb_counters set;
	struct mdb_pmu_info info;
	unsigned int i;

	CHECK(!mdb_counters_setup(&set, NULL, &err), "defaults under %s: %s", pmu, err.msg);
	for (i = 0; mdb_counter_defaults[i]; i++)
		CHECK(find(&set, mdb_counter_defaults[i]) >= 0, "%s: default %s did not resolve", pmu,
		      mdb_counter_defaults[i]);
	mdb_counters_close(&set);
	mdb_pmu_describe(&info);
	CHECK(known ? !strcmp(info.libpfm, pmu) : !*info.libpfm, "%s: the dump would name PMU '%s'",
	      pmu, info.libpfm);
	printf("  defaults resolve; the dump's pmu.libpfm: '%s' (%s)\n", info.libpfm, info.libpfm_desc);
}

static void test_lab(const struct lab_pmu *l)
{
	struct mdb_err err = { "" };
	struct mdb_counter c;
	unsigned int i;

	printf("LIBPFM_FORCE_PMU=%s (%s)\n", l->pmu, l->machine);
	for (i = 0; l->ev[i].name; i++) {
		if (mdb_counter_encode(&c, l->ev[i].name, no_pmus, &err)) {
			CHECK(0, "%s: %s", l->ev[i].name, err.msg);
			continue;
		}
		printf("  %-34s config 0x%llx %s\n", l->ev[i].name, (unsigned long long)c.config, c.pfm);
		CHECK(c.source == MDB_SRC_LIBPFM && c.type == RAW && c.config == l->ev[i].config,
		      "%s on %s: type %u config 0x%llx, want raw 0x%llx", l->ev[i].name, l->pmu, c.type,
		      (unsigned long long)c.config, (unsigned long long)l->ev[i].config);
		CHECK(!strncmp(c.pfm, l->pmu, strlen(l->pmu)), "%s: pfm '%s'", l->ev[i].name, c.pfm);
		CHECK(mdb_counter_counts_every_op(&c) == (c.config == 0x3c || c.config == 0xc0 ||
							   c.config == 0x76 || c.config == 0x11 ||
							   c.config == 0x08),
		      "%s on %s: counts every op %d", l->ev[i].name, l->pmu,
		      mdb_counter_counts_every_op(&c));
	}
	lab_defaults(l->pmu, true);
}

/* A model libpfm does not know: its names are refused, the generic defaults stand. */
static void test_lab_lacks(const char *pmu)
{
	struct mdb_err err = { "" };
	struct mdb_counter c;

	printf("LIBPFM_FORCE_PMU=%s: not in this libpfm\n", pmu);
	CHECK(mdb_counter_encode(&c, "INST_RETIRED:ANY_P", no_pmus, &err) &&
	      mdb_counter_encode(&c, "RETIRED_INSTRUCTIONS", no_pmus, &err),
	      "%s: a model-specific name encoded", pmu);
	printf("  model-specific names refused (%s); the suite asks for the generic events\n", err.msg);
	lab_defaults(pmu, false);
}

int main(int argc, char **argv)
{
	const char *arg = argc == 2 ? argv[1] : NULL;
	bool lacks = arg && !strncmp(arg, "lacks:", 6);
	const char *pmu = lacks ? arg + 6 : arg;

	if (argc > 2 || (arg && !lacks && strcmp(arg, "skl") && strcmp(arg, "amd64_fam19h_zen3") &&
			 !lab_pmu(arg))) {
		fprintf(stderr, "usage: %s [skl|amd64_fam19h_zen3|spr|amd64_fam19h_zen4|arm_n1|arm_v2|"
			"lacks:PMU]\n", argv[0]);
		return 2;
	}
	/* Set before libpfm is first used: it reads the variable once. */
	if (pmu)
		setenv("LIBPFM_FORCE_PMU", pmu, 1);
	else
		unsetenv("LIBPFM_FORCE_PMU");
	make_trees();
	if (lacks) {
		test_lab_lacks(pmu);
	} else if (pmu && lab_pmu(pmu)) {
		test_lab(lab_pmu(pmu));
	} else if (pmu) {
		test_forced(pmu);
	} else {
		test_generic_names();
		test_perf_syntax();
		test_refusals();
		test_setup_refuses();
		test_missing_line();
		test_defaults();
		test_machine_names();
		test_scale();
		test_untrusted_zero();
	}
	remove_trees();
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
