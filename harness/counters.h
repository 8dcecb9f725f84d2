/* SPDX-License-Identifier: GPL-2.0 */
/*
 * counters.h - hardware and software event counters around a timed loop.
 *
 * A counter is named the way perf users name it, and every name is turned
 * into a perf_event_attr (type, config, config1, config2) before anything is
 * opened:
 *
 *   - the short names (cycles, L1D_load_misses, page_faults, ...), perf's
 *     generic names (cpu-cycles, L1-dcache-load-misses, page-faults, ...) and
 *     libpfm's perf PMU names (PERF_COUNT_HW_CPU_CYCLES,
 *     perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS, ...) are encoded here from the
 *     kernel's uapi constants, not through libpfm, so that they keep working
 *     when LIBPFM_FORCE_PMU hides libpfm's generic PMU;
 *   - perf's rNNNN is PERF_TYPE_RAW with that config;
 *   - perf's pmu/term=value,.../ (cpu/event=0xd1,umask=0x01/) is laid out by
 *     /sys/bus/event_source/devices/<pmu>/format, or for cpu without it by the
 *     x86 core layout with PERF_TYPE_RAW (the counter's note says which);
 *   - anything else is a model-specific event for libpfm
 *     (MEM_LOAD_RETIRED:L1_MISS, MEM_LOAD_RETIRED.L1_MISS, skl::...).
 *
 * Every counter is then probed once: one the machine cannot count is kept
 * with the reason and never read, so no dump ever shows a 0 that means "could
 * not count".  The countable ones form perf_event groups, hardware and
 * software apart, so that a missing or full PMU cannot take page faults and
 * task clock down with it.  Hardware events beyond what one group can hold
 * (the PMU's counters: what the kernel refuses at open, or, since a driver
 * may accept a group it can never schedule, what does not run whole when
 * the group is enabled alone) open a further group: the kernel then multiplexes the
 * groups, each counting for part of the time, and a count is scaled by its
 * group's time_enabled / time_running, as perf stat does; each reading keeps
 * both times and the raw count, so the dump shows the scaling.  Only user
 * space is counted (exclude_kernel), which perf_event_paranoid 2 allows.
 *
 * A 0 is not always a measurement: a PMU may accept an event it does not
 * implement (an emulated one: qemu's arm64 PMU opens the cache events and
 * reads 0).  mdb_counter_counts_misses() says which counters count misses,
 * so that a caller who knows an op must miss (a -cold kernel, or the model)
 * reports such a 0 as not trusted (mdb_counter_untrusted_zero()).
 */
#ifndef MDB_COUNTERS_H
#define MDB_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct mdb_err;		/* err.h: the suite's one error type */

#define MDB_MAX_COUNTERS	16
#define MDB_COUNTER_NAME_LEN	128
#define MDB_COUNTER_EVENT_LEN	256
#define MDB_COUNTER_PFM_LEN	256
#define MDB_COUNTER_NOTE_LEN	256
#define MDB_COUNTER_REASON_LEN	256
/* Enough for mdb_counters_missing() with every reason different. */
#define MDB_COUNTERS_MISSING_LEN 4096

enum mdb_counter_group {
	MDB_GROUP_HW,
	MDB_GROUP_SW,
	MDB_NR_GROUPS
};

/* Who turned the name into type and config; mdb_counter_source_name() says it in words. */
enum mdb_counter_source {
	MDB_SRC_GENERIC,	/* a generic perf event, from the kernel's uapi constants */
	MDB_SRC_RAW,		/* perf's rNNNN: PERF_TYPE_RAW, config NNNN */
	MDB_SRC_PMU_FORMAT,	/* perf's pmu/terms/, laid out by the PMU's sysfs format files */
	MDB_SRC_PMU_X86,	/* perf's cpu/terms/ with no sysfs format: the x86 core layout */
	MDB_SRC_LIBPFM,		/* a model-specific event, encoded by libpfm */
};

struct mdb_counter {
	char name[MDB_COUNTER_NAME_LEN];	/* as given: the column name */
	char event[MDB_COUNTER_EVENT_LEN];	/* PERF_COUNT_... for generic events, else as given */
	/* The encoding: what perf_event_open gets (plus exclude_kernel, exclude_hv). */
	uint32_t type;				/* perf_event_attr.type */
	uint64_t config;			/* perf_event_attr.config */
	uint64_t config1;			/* perf_event_attr.config1 (offcore, ldlat), usually 0 */
	uint64_t config2;			/* perf_event_attr.config2, usually 0 */
	/*
	 * libpfm's fully qualified name (skl::MEM_LOAD_RETIRED:L1_MISS:e=0:...)
	 * when libpfm encoded it; otherwise the name encoded here
	 * (perf::PERF_COUNT_HW_CPU_CYCLES, r1d1, cpu/event=0xd1,umask=0x1/).
	 */
	char pfm[MDB_COUNTER_PFM_LEN];
	enum mdb_counter_source source;
	char note[MDB_COUNTER_NOTE_LEN];	/* for pmu/terms/: where the layout and type came from */
	bool available;
	char reason[MDB_COUNTER_REASON_LEN];	/* why not, when !available */
	enum mdb_counter_group group;
	int grp;				/* index into mdb_counters.grp, -1 when not open */
	int fd;
	uint64_t id;				/* PERF_EVENT_IOC_ID, to find it in a group read */
	unsigned long unscheduled;		/* runs in which its group never reached the PMU */
};

/* One perf_event group: a leader and the siblings scheduled with it. */
struct mdb_counter_group_fd {
	int leader;				/* the leader's fd */
	enum mdb_counter_group kind;
	uint64_t enabled0, running0;		/* time_enabled/running at the last start */
};

/*
 * One reading: value[i] (scaled to the time enabled) is valid only where
 * valid[i]; raw[i] is what the counter counted over its group's running of
 * enabled ns.
 */
struct mdb_counter_values {
	double value[MDB_MAX_COUNTERS];
	bool valid[MDB_MAX_COUNTERS];
	uint64_t raw[MDB_MAX_COUNTERS];
	uint64_t enabled[MDB_MAX_COUNTERS];
	uint64_t running[MDB_MAX_COUNTERS];
};

struct mdb_counters {
	unsigned int nr;
	struct mdb_counter c[MDB_MAX_COUNTERS];
	unsigned int nr_groups;
	struct mdb_counter_group_fd grp[MDB_MAX_COUNTERS];
	struct mdb_counter_values last;		/* the last mdb_counters_stop()'s reading */
	/*
	 * The most hardware events a group holds here, 0 for no limit found:
	 * each group is enabled alone once at setup, and one that does not run
	 * the whole time is too large for the PMU (hw_limit_why says which
	 * group ran how long), so all are opened again smaller.
	 */
	unsigned int hw_limit;
	char hw_limit_why[MDB_COUNTER_REASON_LEN];
};

/* The default short names; NULL-terminated. */
extern const char *const mdb_counter_defaults[];
/* Short name -> its generic event (PERF_COUNT_...), NULL if name is not a short name. */
const char *mdb_counter_short_event(const char *name);

/*
 * Encodes one counter name (any of the forms above) into c: name, event,
 * type, config, config1, config2, pfm, source, note, group; fd -1, not
 * available.  pmu_dir: NULL for /sys/bus/event_source/devices (tests pass a
 * tree of their own).  Returns 0, or -1 with one line in err for a name that
 * cannot be encoded.
 */
int mdb_counter_encode(struct mdb_counter *c, const char *name, const char *pmu_dir,
		       struct mdb_err *err);

/*
 * spec: NULL for the defaults, "none" for no counters, else a comma
 * separated list of names (commas inside perf's pmu/.../ do not split).
 * "" (--counters=), an empty name, "none" among others, a name given twice
 * or an event given twice under two names is refused.  mdb_counters_parse()
 * only encodes (nothing opened: set->c[i].available is false); it returns 0
 * or -1 with one line in err.
 */
int mdb_counters_parse(struct mdb_counters *set, const char *spec, const char *pmu_dir,
		       struct mdb_err *err);
/*
 * mdb_counters_parse() on this machine's PMUs, then probes every counter and
 * opens the groups.  Returns 0 (counters that cannot count here are marked
 * unavailable with the reason) or -1 with one line in err.
 */
int mdb_counters_setup(struct mdb_counters *set, const char *spec, struct mdb_err *err);
void mdb_counters_close(struct mdb_counters *set);
unsigned int mdb_counters_nr_available(const struct mdb_counters *set);
/* Hardware groups open: more than one means the PMU multiplexes them. */
unsigned int mdb_counters_nr_hw_groups(const struct mdb_counters *set);

/*
 * Whether c counts misses of a cache or TLB (a generic cache event's MISS,
 * cache-misses, or a model-specific name saying MISS or REFILL): a count an
 * op that must miss cannot leave at 0.
 */
bool mdb_counter_counts_misses(const struct mdb_counter *c);
/*
 * Whether c counts instructions or cycles (the generic ones, or libpfm's
 * INST_RETIRED, CPU_CYCLES, CPU_CLK_UNHALTED, ... of any model): a count no
 * op can leave at 0.
 */
bool mdb_counter_counts_every_op(const struct mdb_counter *c);
/*
 * When c read per_op == 0: for an instruction or cycle counter "counted 0
 * where every op retires instructions: not trusted"; for a miss counter
 * over ops where each op must miss expected times (> 0) "counted 0 where
 * the model expects N: not trusted"; into buf (len bytes), and returns
 * buf; NULL when the reading stands.
 */
const char *mdb_counter_untrusted_zero(const struct mdb_counter *c, double per_op,
				       double expected, char *buf, size_t len);

/* "generic perf event", "raw config", "sysfs format", "x86 core layout", "libpfm". */
const char *mdb_counter_source_name(enum mdb_counter_source source);
/* perf's name for a perf_event_attr.type ("hardware", "hw-cache", "raw", ...), "pmu" past those. */
const char *mdb_counter_type_name(uint32_t type);

/*
 * The --list section: "counters:", then per counter a line with the name
 * and available or unavailable: reason, and an indented line with its
 * encoding (type, config, config1 when set, the fully qualified name, who
 * encoded it, the note); "  (none)" when there are none.
 */
void mdb_counters_print_list(FILE *out, const struct mdb_counters *set);
/*
 * The one start-of-run line naming the counters that will be missing and
 * why, counters with the same reason grouped:
 *   counters unavailable here: cycles, instructions (No such file ...); x (...)
 * written into buf (len bytes, MDB_COUNTERS_MISSING_LEN is enough) without a
 * program name or newline.  Returns buf, or NULL when none is missing.
 */
const char *mdb_counters_missing(const struct mdb_counters *set, char *buf, size_t len);

/*
 * Which PMU counts, for the dump: libpfm's name for the core PMU it finds
 * here (LIBPFM_FORCE_PMU's under a forced one), arm64's MIDR_EL1 of CPU 0,
 * and what says the machine is virtual, so its PMU may be emulated (qemu's
 * TCG counts instructions, not cache misses) or the host's lent through
 * KVM: the x86 CPUID hypervisor bit (/proc/cpuinfo), /sys/hypervisor/type,
 * the device tree of qemu's virt board (compatible "linux,dummy-virt"), or
 * a DMI vendor that names a hypervisor.  "" where there is none.
 */
struct mdb_pmu_info {
	char libpfm[64];
	char libpfm_desc[128];
	char midr[32];
	char virt[160];
};
void mdb_pmu_describe(struct mdb_pmu_info *p);

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
