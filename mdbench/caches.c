// SPDX-License-Identifier: GPL-2.0
/*
 * caches.c - the last-level cache the headline is sized from: hwloc's
 * figure is what the CPUID says, and under a hypervisor the CPUID says what
 * the hypervisor likes (the development VM: a 508 MiB L3 per core, on a
 * Zen 5 with 32 MiB per CCD).  A pointer chase over doubling sizes
 * (bench/cachesize.h, baseline/latency's chase) measures each level; where
 * its last level and hwloc's differ by more than MDB_LLC_DISAGREE times,
 * the measured one sizes the headline, and the dump keeps both.
 */
#include <stdio.h>
#include <string.h>

#include "mdbench.h"
#include "units.h"

static void size_name(unsigned long long bytes, char *buf, size_t len)
{
	mdb_format_size(bytes, buf, len);
}

/*
 * The largest data or unified level hwloc gives below its last (0 if none):
 * a last-level knee not above it is that level's climb, the last level's
 * lost in a loaded probe's noise (512 KiB once on this 2-vCPU VM: its L2),
 * not the last level.
 */
static unsigned long long below_llc_bytes(const struct mdb_run *run)
{
	const struct mdb_topology *t = &run->topo;
	unsigned long long below = 0, last = 0;
	unsigned int i;

	for (i = 0; run->topo_loaded && i < t->nr_caches; i++)
		if (strcmp(t->cache[i].type, "instruction")) {
			below = last;
			last = t->cache[i].size;
		}
	return below;
}

/* Probes made before a last-level knee above hwloc's level below it is believed. */
#define LLC_PROBES	3

void mdb_measure_caches(struct mdb_run *run)
{
	struct mdb_machine *mc = &run->machine;
	unsigned long long hw, got, below = below_llc_bytes(run);
	char a[32], b[32];
	struct mdb_err err;
	unsigned int tries;

	mc->llc_hwloc_bytes = hw = mdb_topology_llc_bytes(&run->topo, &mc->llc_level);
	mc->llc_bytes = hw;
	mc->llc_source = "hwloc";
	mc->llc_knee = -1;
	if (mc->llc_given) {
		mc->llc_bytes = mc->llc_given;
		mc->llc_source = "given";
		snprintf(mc->llc_reason, sizeof(mc->llc_reason), "--llc=SIZE");
		return;
	}
	if (!mc->probe_asked) {
		snprintf(mc->llc_reason, sizeof(mc->llc_reason), "not measured: the run's sizes were "
			 "given (--llc=measure measures)");
		return;
	}
	for (tries = 1; ; tries++) {
		if (cache_probe(&mc->curve, CACHE_PROBE_MAX, run->cond.opts.seed + tries - 1, &err)) {
			snprintf(mc->llc_reason, sizeof(mc->llc_reason), "not measured: %s", err.msg);
			return;
		}
		mc->probed = true;
		mc->nr_knees = cache_knees(&mc->curve, mc->knee, CACHE_MAX_KNEES);
		mc->llc_knee = cache_llc_knee(&mc->curve, mc->knee, mc->nr_knees);
		if (mc->llc_knee < 0 || mc->knee[mc->llc_knee].bytes > below || tries == LLC_PROBES)
			break;
	}
	if (mc->llc_knee < 0) {
		size_name(mc->curve.bytes[mc->curve.n - 1], a, sizeof(a));
		snprintf(mc->llc_reason, sizeof(mc->llc_reason), "the probe reached no memory latency "
			 "up to %s (its bound): the last level is past it, hwloc's kept", a);
		return;
	}
	mc->llc_measured_bytes = got = mc->knee[mc->llc_knee].bytes;
	size_name(got, a, sizeof(a));
	size_name(hw, b, sizeof(b));
	if (hw && got <= MDB_LLC_DISAGREE * hw && hw <= MDB_LLC_DISAGREE * got) {
		snprintf(mc->llc_reason, sizeof(mc->llc_reason), "the measured last level (%s) is "
			 "within %dx of hwloc's (%s): hwloc's kept", a, MDB_LLC_DISAGREE, b);
		return;
	}
	mc->llc_bytes = got;
	mc->llc_source = "measured";
	if (!mc->llc_level)
		mc->llc_level = mc->llc_knee + 1;
	if (below && got <= below)
		snprintf(mc->llc_reason, sizeof(mc->llc_reason), "measured %s in %u probes, none "
			 "above hwloc's level below the last: the last level's climb was not seen "
			 "(a loaded machine?); --llc=SIZE fixes it", a, tries);
	else if (hw)
		snprintf(mc->llc_reason, sizeof(mc->llc_reason), "the measured last level (%s) and "
			 "hwloc's (%s) differ by more than %dx: hwloc's is what the CPUID says",
			 a, b, MDB_LLC_DISAGREE);
	else
		snprintf(mc->llc_reason, sizeof(mc->llc_reason), "hwloc knows no cache above the "
			 "benchmark's CPU; measured %s", a);
}

/*
 * hwloc's data (and unified) levels, smallest first, beside the knees: the
 * last level gets the last-level knee, the levels below it the knees
 * before it, in order, where there are as many; null where a level showed
 * none of its own (a loaded machine can merge two climbs into one).
 */
json_t *mdb_caches_json(const struct mdb_run *run)
{
	const struct mdb_machine *mc = &run->machine;
	const struct mdb_topology *t = &run->topo;
	const struct mdb_cache_info *lv[MDB_MAX_CACHES];
	unsigned int nr = 0, i;
	json_t *a = json_array();

	for (i = 0; run->topo_loaded && i < t->nr_caches; i++)
		if (strcmp(t->cache[i].type, "instruction"))
			lv[nr++] = &t->cache[i];
	for (i = 0; i < nr; i++) {
		long knee = -1;

		if (mc->llc_knee >= 0 && i + 1 == nr)
			knee = mc->llc_knee;
		else if (mc->llc_knee >= 0 && (int)(nr - 1) == mc->llc_knee)
			knee = i;
		json_array_append_new(a, json_pack("{s:I, s:s, s:I, s:I, s:I, s:o}",
			"level", (json_int_t)lv[i]->level, "type", lv[i]->type,
			"hwloc_bytes", (json_int_t)lv[i]->size, "cpus", (json_int_t)lv[i]->cpus,
			"count", (json_int_t)lv[i]->count,
			"measured_bytes", knee >= 0 ? json_integer((json_int_t)mc->knee[knee].bytes) :
					  json_null()));
	}
	return a;
}

/* machine.probe: the latency curve and its knees. */
json_t *mdb_probe_json(const struct mdb_run *run)
{
	const struct mdb_machine *mc = &run->machine;
	json_t *curve, *knees;
	unsigned int i;

	if (!mc->probed)
		return json_null();
	curve = json_array();
	knees = json_array();
	for (i = 0; i < mc->curve.n; i++)
		json_array_append_new(curve, json_pack("{s:I, s:f}", "bytes",
						       (json_int_t)mc->curve.bytes[i], "ns", mc->curve.ns[i]));
	for (i = 0; i < mc->nr_knees; i++)
		json_array_append_new(knees, json_pack("{s:I, s:f, s:f}", "bytes",
						       (json_int_t)mc->knee[i].bytes,
						       "below_ns", mc->knee[i].below_ns,
						       "above_ns", mc->knee[i].above_ns));
	return json_pack("{s:s, s:o, s:o, s:f, s:i, s:f, s:f, s:f}",
			 "method", "baseline/latency's chase over doubling sizes, best of "
				   "CACHE_PROBE_REPS timings each of thread CPU time; knees where the "
				   "latency climbs (cachesize.h)",
			 "curve", curve, "knees", knees, "seconds", mc->curve.seconds,
			 "reps", CACHE_PROBE_REPS, "knee_step", CACHE_KNEE_STEP,
			 "knee_rise", CACHE_KNEE_RISE, "memory_over_l1", CACHE_MEMORY_OVER_L1);
}
