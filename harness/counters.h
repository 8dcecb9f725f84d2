/* SPDX-License-Identifier: GPL-2.0 */
/*
 * counters.h - hardware and software event counters around a timed loop.
 *
 * Event names go through libpfm4 (short names such as "cycles" first map to
 * libpfm's generic perf events).  Every counter is probed once at start-up:
 * one the machine cannot count is kept with the reason and never read, so no
 * dump ever shows a 0 that means "could not count".  The countable ones form
 * at most two perf_event groups, hardware and software, so that a missing or
 * full PMU cannot take page faults and task clock down with it.  Only user
 * space is counted (exclude_kernel), which perf_event_paranoid 2 allows.
 */
#ifndef MDB_COUNTERS_H
#define MDB_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MDB_MAX_COUNTERS	16
#define MDB_COUNTER_NAME_LEN	64
#define MDB_COUNTER_EVENT_LEN	256
#define MDB_COUNTER_REASON_LEN	256
#define MDB_COUNTER_ERR_LEN	512

enum mdb_counter_group {
	MDB_GROUP_HW,
	MDB_GROUP_SW,
	MDB_NR_GROUPS
};

struct mdb_counter {
	char name[MDB_COUNTER_NAME_LEN];	/* short name, or the event string as given */
	char event[MDB_COUNTER_EVENT_LEN];	/* libpfm event string */
	bool available;
	char reason[MDB_COUNTER_REASON_LEN];	/* why not, when !available */
	enum mdb_counter_group group;
	int fd;
	uint64_t id;				/* PERF_EVENT_IOC_ID, to find it in a group read */
	unsigned long unscheduled;		/* runs in which its group never reached the PMU */
};

struct mdb_counters {
	unsigned int nr;
	struct mdb_counter c[MDB_MAX_COUNTERS];
	int leader[MDB_NR_GROUPS];		/* -1: group empty */
	uint64_t enabled0[MDB_NR_GROUPS];	/* time_enabled/running at the last start */
	uint64_t running0[MDB_NR_GROUPS];
};

/* One reading: value[i] is valid only where valid[i]. */
struct mdb_counter_values {
	double value[MDB_MAX_COUNTERS];
	bool valid[MDB_MAX_COUNTERS];
};

/* The default short names and the libpfm events behind them; NULL-terminated. */
extern const char *const mdb_counter_defaults[];
/* Short name -> libpfm event, NULL if name is not a short name. */
const char *mdb_counter_short_event(const char *name);

/*
 * spec: NULL or "" for the defaults, "none" for no counters, else a comma
 * separated list of short names or libpfm event strings.  Returns 0 (counters
 * that cannot count here are marked unavailable) or -1 with a one-line reason
 * in err for a name libpfm does not know.
 */
int mdb_counters_setup(struct mdb_counters *set, const char *spec, struct mdb_err *err);
void mdb_counters_close(struct mdb_counters *set);
unsigned int mdb_counters_nr_available(const struct mdb_counters *set);

/* Around the timed loop: reset and enable; pause/resume; disable and read. */
void mdb_counters_start(struct mdb_counters *set);
void mdb_counters_pause(struct mdb_counters *set);
void mdb_counters_resume(struct mdb_counters *set);
void mdb_counters_stop(struct mdb_counters *set, struct mdb_counter_values *out);
/* value counted over running of enabled ns, scaled to enabled; false if never scheduled. */
bool mdb_counter_scale(uint64_t value, uint64_t enabled, uint64_t running, double *out);

#ifdef __cplusplus
}
#endif

#endif /* MDB_COUNTERS_H */
