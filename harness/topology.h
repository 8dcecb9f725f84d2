/* SPDX-License-Identifier: GPL-2.0 */
/*
 * topology.h - the machine as hwloc sees it: pinning the benchmark thread
 * (and the threads of a threaded benchmark), binding the memmap to a NUMA
 * node, and the summary that goes into the dump.
 */
#ifndef MDB_TOPOLOGY_H
#define MDB_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MDB_MAX_CACHES		8

struct mdb_cache_info {
	unsigned int level;		/* 1, 2, 3, ... */
	const char *type;		/* "data", "instruction", "unified" */
	unsigned long long size;	/* bytes, of one instance */
	unsigned int line_size;
	int associativity;		/* ways; -1 fully associative, 0 unknown */
	unsigned int count;		/* instances in the machine */
	unsigned int cpus;		/* CPUs (PUs) that share one instance */
};

struct mdb_topology {
	void *topo;			/* hwloc_topology_t */
	void *node_set;			/* hwloc_nodeset_t of --node, NULL if unbound */
	void *allowed;			/* hwloc_cpuset_t: the CPUs the process may use, at load */
	int cpu, node;			/* -1: not pinned, not bound */
	unsigned int packages, cores, pus, numa_nodes;
	char cpu_model[128];
	unsigned int nr_caches;
	struct mdb_cache_info cache[MDB_MAX_CACHES];	/* L1d, L1i, L2, L3 ..., no duplicates */
};

/* 0, or -1 with err. */
int mdb_topology_load(struct mdb_topology *t, struct mdb_err *err);
void mdb_topology_release(struct mdb_topology *t);
/*
 * Pins the calling thread to the PU with OS index cpu.  -1 with err for a
 * CPU that does not exist ("no CPU 7 (this machine has CPUs 0-1)").
 */
int mdb_topology_pin(struct mdb_topology *t, int cpu, struct mdb_err *err);
/*
 * The CPUs the process may use (its affinity when the topology was loaded:
 * taskset, cgroups), in the order the threads of a threaded benchmark take
 * them: one per core, cores in topology order (package by package), then a
 * second hardware thread of each core, and so on.  first >= 0 (--cpu) is
 * moved to the front.  The list is malloc'd, *nr >= 1.  0, or -1 with err.
 */
int mdb_topology_thread_cpus(const struct mdb_topology *t, int first, int **cpus, unsigned int *nr,
			     struct mdb_err *err);
/* "0-3,8": the CPUs the process may use, for the dump and messages. */
void mdb_topology_allowed_list(const struct mdb_topology *t, char *buf, size_t len);
/*
 * Pins the calling thread (one of a threaded benchmark's) to CPU cpu without
 * recording it as the run's pin; safe from several threads at once.
 */
int mdb_topology_bind_thread(const struct mdb_topology *t, int cpu, struct mdb_err *err);
/* The calling thread back where the run keeps its threads: --cpu's CPU, or all it may use. */
void mdb_topology_unbind_thread(const struct mdb_topology *t);
/* Checks node exists and memory can be bound to it; later binds go there. */
int mdb_topology_set_node(struct mdb_topology *t, int node, struct mdb_err *err);
/* As memmap_opts.bind, with arg the struct mdb_topology: binds [addr, addr+len) to the node. */
int mdb_topology_bind(void *addr, size_t len, void *arg);
/*
 * The last-level cache the benchmark thread can reach: of the data or
 * unified caches above the PU it runs on (--cpu's, else the first CPU the
 * process may use), the one farthest from it, one instance's size (a
 * thread cannot use another core's or package's instance).  0 when hwloc
 * knows no cache above that PU; *level is its level (3 for an L3).
 */
unsigned long long mdb_topology_llc_bytes(const struct mdb_topology *t, unsigned int *level);
/*
 * Entries of the second-level (shared) data TLB for pages of 2 MiB (huge)
 * or 4 KiB, from the CPUID: AMD's leaf 0x80000006, Intel's leaf 0x18 (the
 * level-2 unified or data entries that map that size).  0 where the CPUID
 * does not say (another architecture, or a hypervisor that hides it).
 */
unsigned int mdb_stlb_entries(bool huge);
int mdb_topology_export_xml(const struct mdb_topology *t, const char *path, struct mdb_err *err);

#ifdef __cplusplus
}
#endif

#endif /* MDB_TOPOLOGY_H */
