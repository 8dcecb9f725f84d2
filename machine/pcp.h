/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcp.h - the sizes of one CPU's per-cpu page lists (struct per_cpu_pages),
 * one policy for both buddies the suite runs: the memmap's
 * (layouts/buddy.h) and the aging trace's (machine/age.c).
 *
 * batch is zone_batchsize() (mm/page_alloc.c): min(managed pages >> 10,
 * 1 MiB / PAGE_SIZE) / 4, then rounddown_pow_of_two(batch + batch / 2) - 1;
 * for a zone of 1 GiB or more at 4 KiB pages, 256 / 4 = 64, 96, 63.  (At
 * 16 and 64 KiB base pages the kernel's batch is 15 and 3; the suite keeps
 * 63 at every base page.)
 *
 * high is zone_highsize(): the zone's low watermark split across the CPUs
 * local to it, and at least batch << 2 ("the historical relationship
 * between high and batch"); since 6.7 pcp->high also moves between
 * high_min and high_max as the CPU frees (pcp auto-tuning).  The suite keeps
 * high at that floor, PCP_HIGH: it hangs on no watermark or CPU count, and
 * it is what a zone shared by many CPUs gets.
 *
 * The aging trace still frees a batch at PCP_HIGH_AGE, 6 x batch: the rule
 * of zone_set_pageset_high_and_batch() before zone_highsize() (5.14).
 * Moving it to PCP_HIGH changes every aged machine (its digest, the
 * pageblocks compaction empties and the folios it moves), so it waits for a
 * change that takes the aged results again.
 */
#ifndef MDB_PCP_H
#define MDB_PCP_H

#define PCP_BATCH	63U
#define PCP_HIGH	(PCP_BATCH << 2)
#define PCP_HIGH_AGE	(6 * PCP_BATCH)

#endif /* MDB_PCP_H */
