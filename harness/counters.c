// SPDX-License-Identifier: GPL-2.0
/*
 * counters.c - libpfm4 event names -> perf_event groups around the timed loop.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>

#include "counters.h"

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

const char *mdb_counter_short_event(const char *name)
{
	const struct short_name *s;

	for (s = short_names; s->name; s++)
		if (!strcmp(s->name, name))
			return s->event;
	return NULL;
}

static int pfm_ready(struct mdb_err *err)
{
	static int ret = 1;

	if (ret == 1)
		ret = pfm_initialize();
	if (ret != PFM_SUCCESS) {
		return mdb_errf(err, "cannot initialise libpfm: %s", pfm_strerror(ret));
	}
	return 0;
}

static int encode(const char *event, struct perf_event_attr *attr)
{
	pfm_perf_encode_arg_t arg;

	memset(attr, 0, sizeof(*attr));
	memset(&arg, 0, sizeof(arg));
	attr->size = sizeof(*attr);
	arg.attr = attr;
	arg.size = sizeof(arg);
	return pfm_get_os_event_encoding(event, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
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

static int add_counter(struct mdb_counters *set, const char *name, struct mdb_err *err)
{
	const char *event = mdb_counter_short_event(name);
	struct perf_event_attr attr;
	struct mdb_counter *c;
	unsigned int i;
	int ret, fd;

	if (!event)
		event = name;
	if (!*name) {
		mdb_errf(err, "empty counter name in --counters");
		return -1;
	}
	if (strlen(name) >= MDB_COUNTER_NAME_LEN || strlen(event) >= MDB_COUNTER_EVENT_LEN) {
		mdb_errf(err, "counter name too long: '%.64s...'", name);
		return -1;
	}
	for (i = 0; i < set->nr; i++) {
		if (!strcmp(set->c[i].name, name)) {
			mdb_errf(err, "counter '%s' given twice", name);
			return -1;
		}
	}
	if (set->nr == MDB_MAX_COUNTERS) {
		mdb_errf(err, "more than %d counters", MDB_MAX_COUNTERS);
		return -1;
	}
	ret = encode(event, &attr);
	if (ret != PFM_SUCCESS) {
		mdb_errf(err, "unknown counter '%s': %s", name, pfm_strerror(ret));
		return -1;
	}

	c = &set->c[set->nr++];
	memset(c, 0, sizeof(*c));
	strcpy(c->name, name);
	strcpy(c->event, event);
	c->fd = -1;
	c->group = attr.type == PERF_TYPE_SOFTWARE ? MDB_GROUP_SW : MDB_GROUP_HW;

	/* Probe alone, so that the reason is the event's own, not its group's. */
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.disabled = 1;
	fd = perf_open(&attr, -1);
	if (fd < 0) {
		explain(c->reason, errno);
		return 0;
	}
	close(fd);
	c->available = true;
	return 0;
}

/* Opens the available counters of one group; a sibling that will not join loses its place. */
static void open_group(struct mdb_counters *set, enum mdb_counter_group g)
{
	struct perf_event_attr attr;
	unsigned int i;
	int fd;

	for (i = 0; i < set->nr; i++) {
		struct mdb_counter *c = &set->c[i];

		if (!c->available || c->group != g)
			continue;
		encode(c->event, &attr);
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		attr.read_format = READ_FORMAT;
		attr.disabled = set->leader[g] < 0;	/* siblings follow the leader */
		fd = perf_open(&attr, set->leader[g]);
		if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_ID, &c->id) < 0) {
			int e = errno;

			explain(c->reason, e);
			if (set->leader[g] >= 0 && e == EINVAL)
				snprintf(c->reason, MDB_COUNTER_REASON_LEN, "%s: cannot join the group "
					 "of the others (more events than the PMU has counters?)",
					 strerror(e));
			if (fd >= 0)
				close(fd);
			c->available = false;
			continue;
		}
		c->fd = fd;
		if (set->leader[g] < 0)
			set->leader[g] = fd;
	}
}

int mdb_counters_setup(struct mdb_counters *set, const char *spec, struct mdb_err *err)
{
	char *list, *name, *save = NULL;
	unsigned int i;
	int g, ret = 0;

	memset(set, 0, sizeof(*set));
	for (g = 0; g < MDB_NR_GROUPS; g++)
		set->leader[g] = -1;
	if (spec && !strcmp(spec, "none"))
		return 0;
	if (pfm_ready(err))
		return -1;

	if (!spec || !*spec) {
		for (i = 0; mdb_counter_defaults[i] && !ret; i++)
			ret = add_counter(set, mdb_counter_defaults[i], err);
	} else {
		list = strdup(spec);
		if (!list) {
			mdb_errf(err, "out of memory");
			return -1;
		}
		if (spec[strlen(spec) - 1] == ',' || spec[0] == ',' || strstr(spec, ",,")) {
			mdb_errf(err, "empty counter name in --counters=%s", spec);
			ret = -1;
		}
		for (name = strtok_r(list, ",", &save); name && !ret; name = strtok_r(NULL, ",", &save)) {
			if (!strcmp(name, "none")) {
				mdb_errf(err, "--counters=none cannot be combined "
					 "with other counters");
				ret = -1;
				break;
			}
			ret = add_counter(set, name, err);
		}
		free(list);
	}
	if (ret) {
		set->nr = 0;
		return -1;
	}
	for (g = 0; g < MDB_NR_GROUPS; g++)
		open_group(set, g);
	return 0;
}

void mdb_counters_close(struct mdb_counters *set)
{
	unsigned int i;
	int g;

	for (i = 0; i < set->nr; i++) {
		if (set->c[i].fd >= 0)
			close(set->c[i].fd);
		set->c[i].fd = -1;
	}
	for (g = 0; g < MDB_NR_GROUPS; g++)
		set->leader[g] = -1;
}

unsigned int mdb_counters_nr_available(const struct mdb_counters *set)
{
	unsigned int i, n = 0;

	for (i = 0; i < set->nr; i++)
		n += set->c[i].available;
	return n;
}

static bool read_group(int leader, struct group_read *r)
{
	ssize_t n = read(leader, r, sizeof(*r));

	return n >= (ssize_t)(3 * sizeof(uint64_t));
}

static void group_ioctl(const struct mdb_counters *set, unsigned long request)
{
	int g;

	for (g = 0; g < MDB_NR_GROUPS; g++)
		if (set->leader[g] >= 0)
			ioctl(set->leader[g], request, PERF_IOC_FLAG_GROUP);
}

void mdb_counters_start(struct mdb_counters *set)
{
	struct group_read r;
	int g;

	/* RESET zeroes the counts but not the times: remember where they stand. */
	for (g = 0; g < MDB_NR_GROUPS; g++) {
		if (set->leader[g] < 0)
			continue;
		ioctl(set->leader[g], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
		if (!read_group(set->leader[g], &r))
			memset(&r, 0, sizeof(r));
		set->enabled0[g] = r.time_enabled;
		set->running0[g] = r.time_running;
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

static void take_group(struct mdb_counters *set, int g, struct mdb_counter_values *out)
{
	struct group_read r;
	uint64_t enabled, running;
	unsigned int i, j;

	if (!read_group(set->leader[g], &r))
		return;
	enabled = r.time_enabled - set->enabled0[g];
	running = r.time_running - set->running0[g];
	for (i = 0; i < set->nr; i++) {
		struct mdb_counter *c = &set->c[i];

		if (c->fd < 0 || c->group != (enum mdb_counter_group)g)
			continue;
		for (j = 0; j < r.nr && j < MDB_MAX_COUNTERS; j++) {
			if (r.v[j].id != c->id)
				continue;
			out->valid[i] = mdb_counter_scale(r.v[j].value, enabled, running,
							  &out->value[i]);
			if (!out->valid[i])
				c->unscheduled++;
		}
	}
}

void mdb_counters_stop(struct mdb_counters *set, struct mdb_counter_values *out)
{
	int g;

	group_ioctl(set, PERF_EVENT_IOC_DISABLE);
	memset(out, 0, sizeof(*out));
	for (g = 0; g < MDB_NR_GROUPS; g++)
		if (set->leader[g] >= 0)
			take_group(set, g, out);
}
