/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json.h - a small, strict JSON reader (RFC 8259), no library.
 *
 * Enough for mix files and for reading back the suite's own dumps: the whole
 * text becomes a tree of json_value, which the caller walks and then frees.
 * Strict on purpose, so that a typo in a hand-written file is an error with a
 * byte offset instead of a silently different input: no comments, no trailing
 * commas, no duplicate keys, no leading zeros, no control characters inside
 * strings, nothing after the value but whitespace.
 */
#ifndef MDB_JSON_H
#define MDB_JSON_H

#include <stdbool.h>
#include <stddef.h>

#define JSON_MAX_DEPTH		64	/* bounds the parser's recursion */
#define JSON_ERR_LEN		160

enum json_type {
	JSON_NULL,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT
};

struct json_member;

struct json_value {
	enum json_type type;
	union {
		bool boolean;
		struct {
			double value;
			bool integer;	/* written without fraction or exponent */
		} number;
		struct {
			char *str;	/* decoded UTF-8, NUL-terminated */
			size_t len;
		} string;
		struct {
			struct json_value *item;
			size_t nr;
		} array;
		struct {
			struct json_member *member;	/* in text order */
			size_t nr;
		} object;
	};
};

struct json_member {
	char *key;			/* decoded, NUL-terminated */
	struct json_value value;
};

/*
 * Parses text[0, len) as exactly one JSON value.  Returns 0, or -1 with
 * "malformed JSON at byte N: <what>" in err (JSON_ERR_LEN bytes) and nothing
 * to free.  Strings holding U+0000 are refused, so every str is a C string.
 */
int json_parse(const char *text, size_t len, struct json_value *root, char *err);
void json_free(struct json_value *v);

/* The member named key of an object, or NULL. */
const struct json_value *json_get(const struct json_value *obj, const char *key);
/* "null", "boolean", "number", "string", "array", "object". */
const char *json_type_name(enum json_type type);

#endif /* MDB_JSON_H */
