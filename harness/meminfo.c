// SPDX-License-Identifier: GPL-2.0
/*
 * meminfo.c - MemAvailable from /proc/meminfo.  Compiled once.
 */
#include <stdio.h>

#include "meminfo.h"

unsigned long long mdb_mem_available(void)
{
	unsigned long long kb = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb << 10;
}
