/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sha256.h - SHA-256 (FIPS 180-4) of a byte stream, for the dump's record
 * of which file a run read.  Layout independent: compiled once.
 */
#ifndef MDB_SHA256_H
#define MDB_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t len;			/* bytes so far */
	unsigned char buf[64];
	size_t fill;
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t len);
/* The digest as 64 lowercase hex digits and a NUL. */
void sha256_hex(struct sha256 *c, char out[65]);

#endif /* MDB_SHA256_H */
