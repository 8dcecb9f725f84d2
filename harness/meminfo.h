/* SPDX-License-Identifier: GPL-2.0 */
/*
 * meminfo.h - what the machine has free, read once for everyone who checks
 * that a memmap or buffer fits before mapping it: memmap_create(), mdbench's
 * up-front check and --profile=full, and the memory-limit test.
 */
#ifndef MDB_MEMINFO_H
#define MDB_MEMINFO_H

/* MemAvailable of /proc/meminfo in bytes; 0 if it cannot be read. */
unsigned long long mdb_mem_available(void);

#endif /* MDB_MEMINFO_H */
