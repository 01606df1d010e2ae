/* field: lookups and a self-check over descriptor tables. */
#include "model/field.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/arena.h"

const char *const FIELD_NAMES_WORDS[FIELD_NAMES__COUNT] = {"legacy", "dcgm-4.10"};

struct field_metric field_prom_metric(const struct field_prom *p, enum field_names n)
{
	if (n == FIELD_NAMES_DCGM_4_10 && p->name_4_10)
		return (struct field_metric){p->name_4_10, p->type, p->help_4_10, true};
	return (struct field_metric){p->name, p->type, NULL, false};
}

double field_prom_value(const struct field_prom *p, enum field_names n, long double v)
{
	if (n == FIELD_NAMES_DCGM_4_10 && p->name_4_10)
		return (double)(v * p->mul_4_10 / p->div_4_10);
	return (double)(v * p->scale);
}

double field_prom_field_value(const struct field_prom *p, enum field_names n, double m)
{
	double v;
	bool exact;
	int e;

	if (n == FIELD_NAMES_DCGM_4_10 && p->name_4_10) {
		v = (double)((long double)m * p->div_4_10 / p->mul_4_10);
		exact = frexp(p->div_4_10 / p->mul_4_10, &e) == 0.5;
	} else if (p->scale < 1) {
		/* A legacy factor below 1 is the reciprocal of a whole number
		 * (1/100, 1/1048576), whose inverse in double is that number
		 * exactly. */
		v = (double)((long double)m * (1.0 / p->scale));
		exact = frexp(p->scale, &e) == 0.5;
	} else {
		v = (double)((long double)m / p->scale);
		exact = frexp(p->scale, &e) == 0.5;
	}
	if (exact || !isfinite(v))
		return v;
	char tmp[40];
	snprintf(tmp, sizeof(tmp), "%.15g", v);
	return strtod(tmp, NULL);
}

void field_dup_strings(void *obj, const struct field *tab, size_t n, struct arena *a)
{
	for (size_t i = 0; i < n; i++) {
		if (tab[i].type != FIELD_STR)
			continue;
		const char **s = field_ptr(obj, &tab[i]);
		*s = field_valid(obj, &tab[i]) ? arena_strdup(a, *s) : NULL;
	}
}

bool field_set_number(void *obj, const struct field *f, long double v)
{
	switch (f->type) {
	case FIELD_NUM:
		*(long double *)field_ptr(obj, f) = v;
		return true;
	case FIELD_U64:
		if (!(v >= 0 && v < 0x1p64L) || v != truncl(v))
			return false;
		*(uint64_t *)field_ptr(obj, f) = (uint64_t)v;
		return true;
	case FIELD_FLAGS:
		if (!(v >= 0 && v < 0x1p32L) || v != truncl(v))
			return false;
		*(uint32_t *)field_ptr(obj, f) = (uint32_t)v;
		return true;
	default:
		return false;
	}
}

uint64_t field_num_u64(long double v)
{
	if (!(v > 0))
		return 0; /* NaN too */
	v = roundl(v);
	return v >= 0x1p64L ? UINT64_MAX : (uint64_t)v;
}

int64_t field_num_i64(long double v)
{
	if (isnan(v))
		return 0;
	v = roundl(v);
	if (v >= 0x1p63L)
		return INT64_MAX;
	return v <= -0x1p63L ? INT64_MIN : (int64_t)v;
}

const struct field *field_find(const struct field *tab, size_t n, const char *key, size_t keylen)
{
	size_t hint = 0;

	return field_find_from(tab, n, key, keylen, &hint);
}

const struct field *field_find_from(const struct field *tab, size_t n, const char *key, size_t keylen, size_t *hint)
{
	size_t at = *hint < n ? *hint : 0;

	for (size_t j = 0; j < n; j++, at = at + 1 < n ? at + 1 : 0)
		if (tab[at].key[0] == key[0] && strlen(tab[at].key) == keylen && memcmp(tab[at].key, key, keylen) == 0) {
			*hint = at + 1;
			return &tab[at];
		}
	return NULL;
}

const struct field_alias *field_alias_find(const struct field_alias *tab, size_t n, const char *key, size_t keylen)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(tab[i].key) == keylen && memcmp(tab[i].key, key, keylen) == 0)
			return &tab[i];
	return NULL;
}

const struct field *field_by_bit(const struct field *tab, size_t n, unsigned bit)
{
	for (size_t i = 0; i < n; i++)
		if (tab[i].bit == bit)
			return &tab[i];
	return NULL;
}

int field_name_index_nocase(const struct field *f, const char *name, size_t len)
{
	for (unsigned i = 0; i < f->nnames; i++)
		if (strlen(f->names[i]) == len && strncasecmp(f->names[i], name, len) == 0)
			return (int)i;
	return -1;
}

int field_name_index(const struct field *f, const char *name, size_t len)
{
	for (unsigned i = 0; i < f->nnames; i++)
		if (strlen(f->names[i]) == len && memcmp(f->names[i], name, len) == 0)
			return (int)i;
	return -1;
}

const char *field_table_check(const struct field *tab, size_t n, size_t struct_size)
{
	uint64_t bits = 0;

	for (size_t i = 0; i < n; i++) {
		const struct field *f = &tab[i];
		if (!f->key || !*f->key || f->bit >= 64 || (bits >> f->bit & 1) || !f->help)
			return f->key ? f->key : "(null)";
		bits |= UINT64_C(1) << f->bit;
		if (f->offset < sizeof(uint64_t) || f->offset >= struct_size)
			return f->key;
		for (size_t j = 0; j < i; j++)
			if (strcmp(tab[j].key, f->key) == 0)
				return f->key;
		switch (f->type) {
		case FIELD_STR:
			if (f->max_len == 0)
				return f->key;
			break;
		case FIELD_U64:
		case FIELD_NUM:
			if (!(f->min <= f->max))
				return f->key;
			break;
		case FIELD_ENUM:
		case FIELD_FLAGS:
			if (!f->names || f->nnames == 0 || f->nnames > 32)
				return f->key;
			break;
		case FIELD_BOOL:
			break;
		default:
			return f->key;
		}
	}
	return NULL;
}

double field_num_whole(long double v)
{
	return (double)roundl(v);
}
