/* field: descriptor tables that describe every recorded field of a struct once
 * (JSON key, type, validity bit, offset, accepted range, Prometheus name), so
 * the recorder, the replay reader and the exporter are driven by data. */
#ifndef GPUR_FIELD_H
#define GPUR_FIELD_H

#include <float.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* FIELD_NUM holds any int64 and any double exactly in one long double, which
 * needs a significand of at least 64 bits, as x86-64's 80-bit extended and
 * aarch64's IEEE quad have. Where long double is only a double, integers past
 * 2^53 would silently lose their last digits. */
_Static_assert(LDBL_MANT_DIG >= 64,
	       "gpur needs a long double with a 64-bit significand to keep record numbers exact");

enum field_type {
	FIELD_STR,   /* const char * in the frame's arena, at most max_len bytes of UTF-8 */
	FIELD_U64,   /* uint64_t, an integer in [min, max], for identities, counts and timestamps */
	FIELD_NUM,   /* long double, a measured quantity, which is any finite number in
	              * [min, max] and holds every int64 and every double exactly */
	FIELD_BOOL,  /* bool */
	FIELD_ENUM,  /* uint8_t index into names */
	FIELD_FLAGS, /* uint32_t bitmask over names, a JSON array of strings */
};

/* FIELD_READING marks a measurement, which is omitted while a GPU is lost or
 * suspended. */
#define FIELD_READING 0x1u
/* FIELD_NOCASE marks an ENUM whose names are also read in any ASCII case,
 * because the original gpur writes a process's kind as "Compute". */
#define FIELD_NOCASE 0x2u

/* The upper bound of byte and count fields. It is above every int64, since
 * the parser already rejects integers of 2^63 and more. */
#define FIELD_U64_MAX 9.3e18

enum field_prom_type { FIELD_PROM_GAUGE, FIELD_PROM_COUNTER };

/* The names the exporter serves metrics under (--serve-names): dcgm-exporter's
 * legacy names and units, which it served up to 4.8, or those of
 * dcgm-exporter 4.10, which renamed them and changed some units. */
enum field_names { FIELD_NAMES_LEGACY, FIELD_NAMES_DCGM_4_10, FIELD_NAMES__COUNT };
/* The words of --serve-names, in the order of enum field_names. */
extern const char *const FIELD_NAMES_WORDS[FIELD_NAMES__COUNT];

/* A field as a Prometheus metric: its name, the factor from the field's unit
 * to the metric's (1.0 / 1048576 for bytes shown in MiB), and its type. A
 * BOOL is exported as 0 or 1, and a FLAGS field as one sample per name with a
 * `reason` label. The name_4_10 members are the same metric as
 * dcgm-exporter 4.10 serves it: its name, its value as the field's times
 * mul_4_10 divided by div_4_10 (two whole factors, so that 57 % is the ratio
 * 0.57 exactly), and its help, or NULL where the field's help says its unit
 * rightly. A NULL name_4_10 means that the metric is the same under both
 * names, as gpur's own are. The type is the same under both. */
struct field_prom {
	const char *name;
	double scale;
	enum field_prom_type type;
	const char *name_4_10;
	double mul_4_10, div_4_10;
	const char *help_4_10;
};
/* For tables: a metric descriptor with static storage, the same under both
 * names. */
#define FIELD_PROM(name, scale, type) (&(const struct field_prom){name, scale, FIELD_PROM_##type, NULL, 1, 1, NULL})
/* The same, with dcgm-exporter 4.10's name, factors and help. */
#define FIELD_PROM_4_10(name, scale, type, name_4_10, mul, div, help)                                    \
	(&(const struct field_prom){name, scale, FIELD_PROM_##type, name_4_10, mul, div, help})

/* A metric as one set of names serves it. */
struct field_metric {
	const char *name;
	enum field_prom_type type;
	const char *help; /* NULL for the field's own */
	bool renamed;     /* the name differs from the legacy one */
};
/* p under names n. */
struct field_metric field_prom_metric(const struct field_prom *p, enum field_names n);
/* The metric's value under names n for a field's value v. The legacy factor
 * multiplies in long double, as the exporter always did; dcgm-exporter
 * 4.10's multiplies and divides. The result may be infinite or NaN when v
 * is. */
double field_prom_value(const struct field_prom *p, enum field_names n, long double v);
/* The inverse: the field's value for a metric's value m under names n.
 * Where the factor is not a power of two, the result is rounded to 15
 * significant digits, all that a double is sure to hold, so that the ratio
 * 0.57 reads back as 57 % and not as 56.99999999999999. */
double field_prom_field_value(const struct field_prom *p, enum field_names n, double m);

struct field {
	const char *key;
	enum field_type type;
	unsigned bit; /* bit in the struct's `valid` mask */
	size_t offset;
	double min, max;
	size_t max_len;
	const char *const *names;
	unsigned nnames;
	unsigned flags;
	const struct field_prom *prom; /* how the exporter shows it; NULL when not exported */
	const char *help; /* one line for humans (docs, # HELP) */
};

/* Another program's name for a field. It is a key of the original gpur's
 * records (the Rust program gpur began as) that means one of ours, with the
 * factor from its unit to ours (1024 for KiB/s into bytes/s). The reader
 * takes it when the record lacks our own key, and ours wins when a record has
 * both. */
struct field_alias {
	const char *key;
	unsigned bit; /* the field it means, as its bit in the struct's `valid` mask */
	double scale;
};

/* Every struct with a table starts with its validity mask. */
static inline bool field_valid(const void *obj, const struct field *f)
{
	return (*(const uint64_t *)obj >> f->bit) & 1u;
}
static inline void field_set_valid(void *obj, const struct field *f, bool on)
{
	uint64_t *v = (uint64_t *)obj;
	*v = on ? (*v | (UINT64_C(1) << f->bit)) : (*v & ~(UINT64_C(1) << f->bit));
}
static inline void *field_ptr(void *obj, const struct field *f)
{
	return (char *)obj + f->offset;
}
static inline const void *field_cptr(const void *obj, const struct field *f)
{
	return (const char *)obj + f->offset;
}

/* A FIELD_NUM value as a whole number for display or integer arithmetic. It
 * is rounded to nearest with an exact half away from zero (41.5 gives 42,
 * -2.5 gives -3) and clamped to the result type's range, and NaN gives 0. Use
 * these, never a plain cast, which truncates 41.5 to 41 and is undefined out
 * of range. */
uint64_t field_num_u64(long double v);
int64_t field_num_i64(long double v);
/* The same rounding as a double, for formatting with no decimals, so that
 * 42.5 % shows as 43 as 42.5 C does, where printf would round to even. */
double field_num_whole(long double v);

struct arena;
/* Stores v in obj's numeric field f. A FIELD_NUM takes v as it is; a
 * FIELD_U64 and a FIELD_FLAGS (a bitmask) take it as an integer, so v must be
 * a whole number >= 0. The validity bit is left as it was. Returns false,
 * storing nothing, for another type or a value that does not fit. */
bool field_set_number(void *obj, const struct field *f, long double v);
/* Copies every known string field of obj into arena a and points the field
 * at the copy; unknown ones become NULL. */
void field_dup_strings(void *obj, const struct field *tab, size_t n, struct arena *a);
/* Looks a key up in a table, and returns NULL when it is not there. */
const struct field *field_find(const struct field *tab, size_t n, const char *key, size_t keylen);
/* The same, looking first at *hint and on from there, wrapping round, and
 * leaving *hint after the entry found. Keys that come in table order, as gpur
 * writes them, are then each found at the first look. */
const struct field *field_find_from(const struct field *tab, size_t n, const char *key, size_t keylen, size_t *hint);
/* The alias of key in tab[0..n), or NULL when there is none. */
const struct field_alias *field_alias_find(const struct field_alias *tab, size_t n, const char *key, size_t keylen);
/* The field of tab[0..n) whose validity bit is bit, or NULL when there is
 * none. */
const struct field *field_by_bit(const struct field *tab, size_t n, unsigned bit);
/* The index of name in f->names, or -1. */
int field_name_index(const struct field *f, const char *name, size_t len);
/* The index of name in f->names ignoring ASCII case, so "Graphics" finds
 * graphics, or -1. */
int field_name_index_nocase(const struct field *f, const char *name, size_t len);
/* Checks a table for completeness: keys and bits are unique, every bit is
 * below 64, and every type that needs a range or a vocabulary has one.
 * Returns NULL, or the offending key for tests to report. */
const char *field_table_check(const struct field *tab, size_t n, size_t struct_size);

#endif
