// SPDX-License-Identifier: GPL-2.0
/*
 * json.c - a small, strict JSON reader; see json.h.
 *
 * Recursive descent over the whole text, bounded by JSON_MAX_DEPTH.  Every
 * error stops the parse at the first offending byte, frees what was built and
 * says where it is; the caller never sees a partial tree.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

struct parser {
	const char *text;
	size_t len;
	size_t pos;
	unsigned int depth;
	char *err;
};

static int __attribute__((format(printf, 3, 4)))
fail_at(struct parser *p, size_t offset, const char *fmt, ...)
{
	int n = snprintf(p->err, JSON_ERR_LEN, "malformed JSON at byte %zu: ", offset);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err + n, JSON_ERR_LEN - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static int fail_here(struct parser *p, const char *expected)
{
	if (p->pos >= p->len)
		return fail_at(p, p->pos, "unexpected end of input, expected %s", expected);
	if ((unsigned char)p->text[p->pos] < 0x20 || (unsigned char)p->text[p->pos] >= 0x7f)
		return fail_at(p, p->pos, "unexpected byte 0x%02x, expected %s",
			       (unsigned char)p->text[p->pos], expected);
	return fail_at(p, p->pos, "unexpected '%c', expected %s", p->text[p->pos], expected);
}

static void skip_space(struct parser *p)
{
	while (p->pos < p->len) {
		char c = p->text[p->pos];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		p->pos++;
	}
}

static bool peek_is(struct parser *p, char c)
{
	return p->pos < p->len && p->text[p->pos] == c;
}

static int parse_value(struct parser *p, struct json_value *v);

static int parse_literal(struct parser *p, struct json_value *v)
{
	static const struct {
		const char *word;
		enum json_type type;
		bool boolean;
	} literal[] = {
		{ "true", JSON_BOOL, true },
		{ "false", JSON_BOOL, false },
		{ "null", JSON_NULL, false },
	};

	for (size_t i = 0; i < sizeof(literal) / sizeof(literal[0]); i++) {
		size_t n = strlen(literal[i].word);

		if (p->len - p->pos >= n && !memcmp(p->text + p->pos, literal[i].word, n)) {
			v->type = literal[i].type;
			v->boolean = literal[i].boolean;
			p->pos += n;
			return 0;
		}
	}
	return fail_here(p, "a value");
}

static bool is_digit(struct parser *p)
{
	return p->pos < p->len && p->text[p->pos] >= '0' && p->text[p->pos] <= '9';
}

static void skip_digits(struct parser *p)
{
	while (is_digit(p))
		p->pos++;
}

/* The grammar is checked here; strtod only converts what passed it. */
static int parse_number(struct parser *p, struct json_value *v)
{
	size_t start = p->pos;
	char buf[512];
	bool integer = true;
	double value;

	if (peek_is(p, '-'))
		p->pos++;
	if (peek_is(p, '0')) {
		p->pos++;
		if (is_digit(p))
			return fail_at(p, start, "leading zero in a number");
	} else if (is_digit(p)) {
		skip_digits(p);
	} else {
		return fail_here(p, "a digit");
	}
	if (peek_is(p, '.')) {
		integer = false;
		p->pos++;
		if (!is_digit(p))
			return fail_here(p, "a digit after '.'");
		skip_digits(p);
	}
	if (peek_is(p, 'e') || peek_is(p, 'E')) {
		integer = false;
		p->pos++;
		if (peek_is(p, '+') || peek_is(p, '-'))
			p->pos++;
		if (!is_digit(p))
			return fail_here(p, "a digit in the exponent");
		skip_digits(p);
	}
	if (p->pos - start >= sizeof(buf))
		return fail_at(p, start, "number longer than %zu characters", sizeof(buf) - 1);
	memcpy(buf, p->text + start, p->pos - start);
	buf[p->pos - start] = '\0';
	value = strtod(buf, NULL);
	if (isinf(value))
		return fail_at(p, start, "number %s is out of range of a double", buf);
	v->type = JSON_NUMBER;
	v->number.value = value;
	v->number.integer = integer;
	return 0;
}

static int hex4(struct parser *p, size_t at, unsigned int *out)
{
	unsigned int x = 0;

	if (p->len - at < 4)
		return fail_at(p, p->len, "unexpected end of input in a \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = p->text[at + i];

		x <<= 4;
		if (c >= '0' && c <= '9')
			x |= (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			x |= (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			x |= (unsigned int)(c - 'A' + 10);
		else
			return fail_at(p, at + i, "bad hex digit in a \\u escape");
	}
	*out = x;
	return 0;
}

static size_t put_utf8(char *out, unsigned int cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Length of the well-formed UTF-8 sequence at s (n bytes left), 0 if none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	/* No overlong forms, no surrogates, nothing above U+10FFFF. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

static int parse_escape(struct parser *p, char *out, size_t *n)
{
	size_t at = p->pos;		/* the backslash */
	unsigned int cp, lo;
	static const char plain[] = "\"\\/bfnrt", decoded[] = "\"\\/\b\f\n\r\t";
	const char *c;

	if (at + 1 >= p->len)
		return fail_at(p, p->len, "unexpected end of input in an escape");
	c = memchr(plain, p->text[at + 1], sizeof(plain) - 1);
	if (c) {
		out[(*n)++] = decoded[c - plain];
		p->pos += 2;
		return 0;
	}
	if (p->text[at + 1] != 'u')
		return fail_at(p, at, "unknown escape '\\%c'", p->text[at + 1]);
	if (hex4(p, at + 2, &cp))
		return -1;
	p->pos += 6;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return fail_at(p, at, "lone low surrogate in a \\u escape");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (p->len - p->pos < 2 || p->text[p->pos] != '\\' || p->text[p->pos + 1] != 'u')
			return fail_at(p, at, "high surrogate without its low half");
		if (hex4(p, p->pos + 2, &lo))
			return -1;
		if (lo < 0xdc00 || lo > 0xdfff)
			return fail_at(p, p->pos, "high surrogate without its low half");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		p->pos += 6;
	}
	if (cp == 0)
		return fail_at(p, at, "\\u0000 is not supported");
	*n += put_utf8(out + *n, cp);
	return 0;
}

/* Decoded text is never longer than its source, so one allocation is enough. */
static int parse_string(struct parser *p, char **str, size_t *len)
{
	size_t start = p->pos, end, n = 0;
	char *out;

	if (!peek_is(p, '"'))
		return fail_here(p, "a string");
	for (end = start + 1; end < p->len && p->text[end] != '"'; end++)
		if (p->text[end] == '\\')
			end++;
	if (end >= p->len)
		return fail_at(p, start, "unterminated string");
	out = malloc(end - start);
	if (!out)
		return fail_at(p, start, "out of memory");
	p->pos++;
	while (p->text[p->pos] != '"') {
		unsigned char c = (unsigned char)p->text[p->pos];
		size_t u;

		if (c == '\\') {
			if (parse_escape(p, out, &n))
				goto err;
		} else if (c < 0x20) {
			fail_at(p, p->pos, "control character 0x%02x in a string", c);
			goto err;
		} else if (c < 0x80) {
			out[n++] = (char)c;
			p->pos++;
		} else {
			u = utf8_len((const unsigned char *)p->text + p->pos, end - p->pos);
			if (!u) {
				fail_at(p, p->pos, "invalid UTF-8 in a string");
				goto err;
			}
			memcpy(out + n, p->text + p->pos, u);
			n += u;
			p->pos += u;
		}
	}
	p->pos++;
	out[n] = '\0';
	*str = out;
	*len = n;
	return 0;
err:
	free(out);
	return -1;
}

/* Grows *items (each size bytes) so that one more fits. */
static int grow(struct parser *p, void **items, size_t nr, size_t *cap, size_t size)
{
	size_t new_cap = *cap ? 2 * *cap : 4;
	void *n;

	if (nr < *cap)
		return 0;
	n = realloc(*items, new_cap * size);
	if (!n)
		return fail_at(p, p->pos, "out of memory");
	*items = n;
	*cap = new_cap;
	return 0;
}

static int enter(struct parser *p)
{
	if (++p->depth > JSON_MAX_DEPTH)
		return fail_at(p, p->pos, "nested deeper than %d levels", JSON_MAX_DEPTH);
	return 0;
}

static int parse_array(struct parser *p, struct json_value *v)
{
	size_t cap = 0;

	v->type = JSON_ARRAY;
	v->array.item = NULL;
	v->array.nr = 0;
	if (enter(p))
		return -1;
	p->pos++;
	skip_space(p);
	if (peek_is(p, ']')) {
		p->pos++;
		p->depth--;
		return 0;
	}
	for (;;) {
		if (grow(p, (void **)&v->array.item, v->array.nr, &cap, sizeof(*v->array.item)))
			return -1;
		if (parse_value(p, &v->array.item[v->array.nr])) {
			json_free(&v->array.item[v->array.nr]);
			return -1;
		}
		v->array.nr++;
		skip_space(p);
		if (peek_is(p, ']'))
			break;
		if (!peek_is(p, ','))
			return fail_here(p, "',' or ']'");
		p->pos++;
	}
	p->pos++;
	p->depth--;
	return 0;
}

static int parse_member(struct parser *p, struct json_value *obj)
{
	struct json_member *m = &obj->object.member[obj->object.nr];
	size_t key_offset, key_len;

	skip_space(p);
	key_offset = p->pos;
	if (parse_string(p, &m->key, &key_len))
		return -1;
	for (size_t i = 0; i < obj->object.nr; i++) {
		if (!strcmp(obj->object.member[i].key, m->key)) {
			fail_at(p, key_offset, "duplicate key \"%s\"", m->key);
			free(m->key);
			return -1;
		}
	}
	skip_space(p);
	if (!peek_is(p, ':')) {
		free(m->key);
		return fail_here(p, "':'");
	}
	p->pos++;
	if (parse_value(p, &m->value)) {
		json_free(&m->value);
		free(m->key);
		return -1;
	}
	obj->object.nr++;
	return 0;
}

static int parse_object(struct parser *p, struct json_value *v)
{
	size_t cap = 0;

	v->type = JSON_OBJECT;
	v->object.member = NULL;
	v->object.nr = 0;
	if (enter(p))
		return -1;
	p->pos++;
	skip_space(p);
	if (peek_is(p, '}')) {
		p->pos++;
		p->depth--;
		return 0;
	}
	for (;;) {
		if (grow(p, (void **)&v->object.member, v->object.nr, &cap,
			 sizeof(*v->object.member)) ||
		    parse_member(p, v))
			return -1;
		skip_space(p);
		if (peek_is(p, '}'))
			break;
		if (!peek_is(p, ','))
			return fail_here(p, "',' or '}'");
		p->pos++;
	}
	p->pos++;
	p->depth--;
	return 0;
}

/*
 * On failure v is still a valid tree holding what was parsed so far (a parent
 * frees a child that failed and counts only complete ones), so json_free()
 * cleans it up.
 */
static int parse_value(struct parser *p, struct json_value *v)
{
	skip_space(p);
	v->type = JSON_NULL;
	if (p->pos >= p->len)
		return fail_here(p, "a value");
	switch (p->text[p->pos]) {
	case '{':
		return parse_object(p, v);
	case '[':
		return parse_array(p, v);
	case '"':
		if (parse_string(p, &v->string.str, &v->string.len))
			return -1;
		v->type = JSON_STRING;
		return 0;
	case '-':
	case '0' ... '9':
		return parse_number(p, v);
	default:
		return parse_literal(p, v);
	}
}

int json_parse(const char *text, size_t len, struct json_value *root, char *err)
{
	struct parser p = { .text = text, .len = len, .err = err };
	struct json_value v;

	if (parse_value(&p, &v))
		goto err;
	skip_space(&p);
	if (p.pos != p.len) {
		fail_here(&p, "end of input after the value");
		goto err;
	}
	*root = v;
	return 0;
err:
	json_free(&v);
	return -1;
}

void json_free(struct json_value *v)
{
	switch (v->type) {
	case JSON_STRING:
		free(v->string.str);
		break;
	case JSON_ARRAY:
		for (size_t i = 0; i < v->array.nr; i++)
			json_free(&v->array.item[i]);
		free(v->array.item);
		break;
	case JSON_OBJECT:
		for (size_t i = 0; i < v->object.nr; i++) {
			free(v->object.member[i].key);
			json_free(&v->object.member[i].value);
		}
		free(v->object.member);
		break;
	default:
		break;
	}
	v->type = JSON_NULL;
}

const struct json_value *json_get(const struct json_value *obj, const char *key)
{
	if (obj->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->object.nr; i++)
		if (!strcmp(obj->object.member[i].key, key))
			return &obj->object.member[i].value;
	return NULL;
}

const char *json_type_name(enum json_type type)
{
	static const char *const name[] = {
		[JSON_NULL] = "null",
		[JSON_BOOL] = "boolean",
		[JSON_NUMBER] = "number",
		[JSON_STRING] = "string",
		[JSON_ARRAY] = "array",
		[JSON_OBJECT] = "object",
	};

	return (unsigned int)type < sizeof(name) / sizeof(name[0]) ? name[type] : "?";
}
