// SPDX-License-Identifier: GPL-2.0
/*
 * test_harness_counters.c - counters.c on the machine it runs on.
 *
 * Every default counter is either available or unavailable with a reason.
 * Where the CPU has no PMU (a VM without one, as in CI) the hardware ones
 * must be unavailable.  page_faults counts at least one fault per fresh page
 * touched, and reads nothing (not 0) when it did not run.  An unknown event is
 * an error carrying libpfm's message.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "counters.h"
#include "test_common.h"

#define PAGES	256

static bool have_cpu_pmu(void)
{
	return !access("/sys/bus/event_source/devices/cpu", F_OK) ||
	       !access("/sys/bus/event_source/devices/cpu_core", F_OK) ||
	       !access("/sys/bus/event_source/devices/armv8_pmuv3_0", F_OK);
}

static int find(const struct mdb_counters *set, const char *name)
{
	unsigned int i;

	for (i = 0; i < set->nr; i++)
		if (!strcmp(set->c[i].name, name))
			return (int)i;
	return -1;
}

static void test_defaults(void)
{
	struct mdb_counter_values v;
	struct mdb_counters set;
	long page = sysconf(_SC_PAGESIZE);
	char err[MDB_COUNTER_ERR_LEN] = "", *buf;
	unsigned int i;
	int pf;

	CHECK(mdb_counters_setup(&set, NULL, err) == 0, "defaults: %s", err);
	CHECK(set.nr == 6, "%u default counters", set.nr);
	for (i = 0; i < set.nr; i++) {
		const struct mdb_counter *c = &set.c[i];

		printf("%-18s %-38s %s %s\n", c->name, c->event,
		       c->available ? "available" : "unavailable:", c->available ? "" : c->reason);
		CHECK(c->available || strlen(c->reason) > 10, "%s: no reason given", c->name);
		CHECK(!c->available || c->fd >= 0, "%s available without an fd", c->name);
		if (!have_cpu_pmu() && c->group == MDB_GROUP_HW)
			CHECK(!c->available, "%s available on a machine without a CPU PMU", c->name);
	}
	if (!have_cpu_pmu())
		CHECK(strstr(set.c[0].reason, "PMU") != NULL, "cycles: reason '%s' gives no hint",
		      set.c[0].reason);

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

static void test_errors(void)
{
	struct mdb_counters set;
	char err[MDB_COUNTER_ERR_LEN] = "";

	CHECK(mdb_counters_setup(&set, "page_faults,foo", err) == -1, "unknown counter accepted");
	CHECK(!strcmp(err, "unknown counter 'foo': event not found"), "message '%s'", err);
	CHECK(mdb_counters_setup(&set, "page_faults,page_faults", err) == -1, "duplicate accepted");
	CHECK(mdb_counters_setup(&set, "page_faults,,task_clock", err) == -1, "empty name accepted");
	CHECK(mdb_counters_setup(&set, "none,cycles", err) == -1, "none with others accepted");

	CHECK(mdb_counters_setup(&set, "none", err) == 0 && set.nr == 0, "none: %u counters", set.nr);
	CHECK(mdb_counters_setup(&set, "task_clock,perf::PERF_COUNT_SW_CPU_CLOCK", err) == 0,
	      "software events by short name and libpfm name: %s", err);
	CHECK(set.nr == 2 && set.c[0].available && set.c[1].available, "software events unavailable");
	CHECK(!strcmp(set.c[1].name, "perf::PERF_COUNT_SW_CPU_CLOCK"), "name '%s'", set.c[1].name);
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

int main(void)
{
	test_defaults();
	test_errors();
	test_scale();
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
