/* pick: the options of --select and --wait, which choose free GPUs, and the
 * parsers of their arguments. A GPU is free when, over the last --stable,
 * it had at least --min-free memory free, at most --max-util utilisation,
 * and no process of another user unless --shared. */
#ifndef GPUR_PICK_H
#define GPUR_PICK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The defaults: 90 % of each GPU's memory free, at most 10 % utilisation,
 * both over the last 10 s. */
#define PICK_DEFAULT_MIN_FREE_PCT 90.0
#define PICK_DEFAULT_MAX_UTIL 10.0
#define PICK_DEFAULT_STABLE_MS 10000u
/* The longest --stable and --timeout: a day, and a year. */
#define PICK_STABLE_MAX_MS (24u * 3600u * 1000u)
#define PICK_TIMEOUT_MAX_MS (366ull * 24u * 3600u * 1000u)

/* How the chosen GPUs are written: NVML's UUIDs (GPU-..., MIG-...), or the
 * GPUs' indices among the physical GPUs, which MIG instances do not have. */
enum pick_format { PICK_FORMAT_UUID, PICK_FORMAT_INDEX };

/* --min-free: bytes, or a percentage of each GPU's own total. */
struct pick_size {
	bool set, pct;
	double value;
};

/* --max-util: a percentage from 0 to 100. */
struct pick_pct {
	bool set;
	double value;
};

/* --stable and --timeout, in milliseconds. */
struct pick_duration {
	bool set;
	uint64_t ms;
};

struct pick_opts {
	unsigned select_n;     /* --select N, 0 when not given */
	unsigned wait_n;       /* --wait N, 0 when not given */
	struct pick_size min_free;
	struct pick_pct max_util;
	struct pick_duration stable, timeout;
	bool shared;           /* other users' processes do not disqualify */
	bool lock;             /* hold a lock on each chosen GPU while CMD runs */
	enum pick_format format;
	char **argv;           /* with --wait, the command after "--", NULL-terminated; borrowed */
};

/* Whether o asks for a choice, --select or --wait. */
static inline bool pick_wanted(const struct pick_opts *o)
{
	return o->select_n || o->wait_n;
}
/* The number of GPUs wanted. */
static inline unsigned pick_count(const struct pick_opts *o)
{
	return o->select_n ? o->select_n : o->wait_n;
}
/* The option that asked, "select" or "wait", for messages. */
static inline const char *pick_option(const struct pick_opts *o)
{
	return o->select_n ? "select" : "wait";
}
/* The values in force, a default where the option was not given. */
double pick_max_util(const struct pick_opts *o);
uint64_t pick_stable_ms(const struct pick_opts *o);
/* The free memory a GPU of total bytes needs, in bytes. */
double pick_min_free_bytes(const struct pick_opts *o, double total);
/* Whether the memory filter, or the utilisation filter, is on. --min-free 0
 * and --max-util 100 turn them off, and only then does an unknown value
 * pass. */
bool pick_mem_filter(const struct pick_opts *o);
bool pick_util_filter(const struct pick_opts *o);

/* Parsers of the arguments. Each reads the whole of s and returns false
 * when it is not such a value, leaving *out as it was.
 *
 * A size is a decimal number of bytes with an optional unit K, M, G or T
 * (KiB, MiB, GiB, TiB, which may also be written so), or a percentage of
 * the GPU's total from 0 to 100 ending in '%'. */
bool pick_parse_size(const char *s, struct pick_size *out);
/* A percentage from 0 to 100, with an optional '%'. */
bool pick_parse_pct(const char *s, struct pick_pct *out);
/* A duration: a decimal number with an optional unit ms, s, m, h or d (s
 * when none), from 0 to max_ms, rounded to the millisecond; zero only when
 * zero_ok. */
bool pick_parse_duration(const char *s, uint64_t max_ms, bool zero_ok, struct pick_duration *out);
/* "uuid" or "index". */
bool pick_parse_format(const char *s, enum pick_format *out);

/* Writes ms as "10s", "0.5s", "2m", "1.5h" or "250ms" into buf of n bytes,
 * and returns buf. */
const char *pick_duration_text(uint64_t ms, char *buf, size_t n);
/* Writes bytes as "3.2 GiB", "512.0 MiB" or "100 B" into buf of n bytes,
 * and returns buf. */
const char *pick_bytes_text(double bytes, char *buf, size_t n);

#endif
