/* test_history: per-GPU sample rings: conversion and rounding of each metric,
 * unknown as 255 (never 0), wrapping, GPUs that come late or go, capacity
 * changes that keep the newest samples. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model/frame.h"
#include "view/history.h"

/* Appends a GPU with id and, when util >= 0, a known utilisation. */
static struct gpu *add_gpu(struct frame *f, const char *id, double util)
{
	struct gpu *g = frame_add_gpu(f);

	assert_non_null(g);
	if (id) {
		g->device_id = frame_str(f, id);
		gpu_set(g, GPU_F_DEVICE_ID);
	}
	if (util >= 0) {
		g->util_pct = util;
		gpu_set(g, GPU_F_UTIL);
	}
	return g;
}

/* Pushes a frame holding one GPU "A" with utilisation util. */
static void push_util(struct history *h, double util)
{
	struct frame *f = frame_new();

	add_gpu(f, "A", util);
	history_push(h, f);
	frame_unref(f);
}

/* The newest sample of id's metric m. */
static unsigned last(const struct history *h, const char *id, enum history_metric m)
{
	uint8_t buf[HISTORY_MAX_CAPACITY];
	size_t n = history_get(h, id, m, buf, sizeof(buf));

	assert_true(n > 0);
	return buf[n - 1];
}

static void test_metric_values(void **state)
{
	struct history *h = history_new(8);
	struct frame *f = frame_new();
	struct gpu *g;

	(void)state;
	g = add_gpu(f, "GPU-rounding", 87.5);
	g->mem_used_bytes = 1;
	g->mem_total_bytes = 3;
	gpu_set(g, GPU_F_MEM_USED);
	gpu_set(g, GPU_F_MEM_TOTAL);
	g->temp_c = 65;
	gpu_set(g, GPU_F_TEMP);
	g->power_w = 150.6;
	g->power_limit_w = 300;
	gpu_set(g, GPU_F_POWER);
	gpu_set(g, GPU_F_POWER_LIMIT);

	g = add_gpu(f, "GPU-clamped", 87.4);
	g->mem_used_bytes = 10;
	g->mem_total_bytes = 3; /* nonsense over 254 %: clamped, never 255 */
	gpu_set(g, GPU_F_MEM_USED);
	gpu_set(g, GPU_F_MEM_TOTAL);
	g->temp_c = 300;
	gpu_set(g, GPU_F_TEMP);
	g->power_w = 1000;
	g->power_limit_w = 100;
	gpu_set(g, GPU_F_POWER);
	gpu_set(g, GPU_F_POWER_LIMIT);

	g = add_gpu(f, "GPU-low", 0);
	g->temp_c = -5;
	gpu_set(g, GPU_F_TEMP);
	g->mem_used_bytes = 0;
	g->mem_total_bytes = 1ull << 40;
	gpu_set(g, GPU_F_MEM_USED);
	gpu_set(g, GPU_F_MEM_TOTAL);
	g->power_w = 0;
	g->power_limit_w = 250;
	gpu_set(g, GPU_F_POWER);
	gpu_set(g, GPU_F_POWER_LIMIT);

	/* A fractional temperature is rounded, not truncated. */
	g = add_gpu(f, "GPU-fraction", -1);
	g->temp_c = 41.5;
	gpu_set(g, GPU_F_TEMP);

	history_push(h, f);
	assert_int_equal(history_len(h), 1);
	assert_int_equal(last(h, "GPU-fraction", HISTORY_TEMP), 42);
	assert_int_equal(last(h, "GPU-rounding", HISTORY_UTIL), 88);
	assert_int_equal(last(h, "GPU-rounding", HISTORY_MEM), 33);
	assert_int_equal(last(h, "GPU-rounding", HISTORY_TEMP), 65);
	assert_int_equal(last(h, "GPU-rounding", HISTORY_POWER), 50);
	assert_int_equal(last(h, "GPU-clamped", HISTORY_UTIL), 87);
	assert_int_equal(last(h, "GPU-clamped", HISTORY_MEM), 254);
	assert_int_equal(last(h, "GPU-clamped", HISTORY_TEMP), 254);
	assert_int_equal(last(h, "GPU-clamped", HISTORY_POWER), 254);
	/* Measured zeros are zeros. */
	assert_int_equal(last(h, "GPU-low", HISTORY_UTIL), 0);
	assert_int_equal(last(h, "GPU-low", HISTORY_MEM), 0);
	assert_int_equal(last(h, "GPU-low", HISTORY_TEMP), 0);
	assert_int_equal(last(h, "GPU-low", HISTORY_POWER), 0);
	frame_unref(f);
	history_free(h);
}

static void test_unknown_is_not_zero(void **state)
{
	struct history *h = history_new(4);
	struct frame *f = frame_new();
	struct gpu *g;

	(void)state;
	add_gpu(f, "GPU-blank", -1); /* nothing known */
	g = add_gpu(f, "GPU-half", -1);
	g->mem_used_bytes = 5; /* used without total */
	gpu_set(g, GPU_F_MEM_USED);
	g->power_w = 50; /* power without a limit */
	gpu_set(g, GPU_F_POWER);
	g = add_gpu(f, "GPU-zero-total", -1);
	g->mem_used_bytes = 0;
	g->mem_total_bytes = 0;
	gpu_set(g, GPU_F_MEM_USED);
	gpu_set(g, GPU_F_MEM_TOTAL);
	g->power_w = 10;
	g->power_limit_w = 0;
	gpu_set(g, GPU_F_POWER);
	gpu_set(g, GPU_F_POWER_LIMIT);
	/* A lost GPU's readings are not charted even when a frame carries them. */
	g = add_gpu(f, "GPU-lost", 50);
	g->state = GPU_STATE_LOST;
	gpu_set(g, GPU_F_STATE);
	g->temp_c = 40;
	gpu_set(g, GPU_F_TEMP);
	g = add_gpu(f, "GPU-suspended", 50);
	g->state = GPU_STATE_SUSPENDED;
	gpu_set(g, GPU_F_STATE);
	history_push(h, f);

	static const char *const ids[] = {"GPU-blank", "GPU-half", "GPU-zero-total", "GPU-lost", "GPU-suspended"};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		for (int m = 0; m < HISTORY__COUNT; m++)
			assert_int_equal(last(h, ids[i], (enum history_metric)m), HISTORY_UNKNOWN);
	}
	assert_int_not_equal(HISTORY_UNKNOWN, 0);
	frame_unref(f);
	history_free(h);
}

static void test_wraps_and_keeps_newest(void **state)
{
	struct history *h = history_new(3);
	uint8_t out[8];

	(void)state;
	assert_int_equal(history_len(h), 0);
	assert_int_equal(history_get(h, "A", HISTORY_UTIL, out, 8), 0);
	push_util(h, 10);
	push_util(h, 20);
	assert_int_equal(history_len(h), 2);
	assert_int_equal(history_get(h, "A", HISTORY_UTIL, out, 8), 2);
	assert_int_equal(out[0], 10);
	assert_int_equal(out[1], 20);
	for (int v = 30; v <= 70; v += 10)
		push_util(h, v);
	assert_int_equal(history_len(h), 3);
	memset(out, 0, sizeof(out));
	assert_int_equal(history_get(h, "A", HISTORY_UTIL, out, 8), 3);
	assert_int_equal(out[0], 50);
	assert_int_equal(out[1], 60);
	assert_int_equal(out[2], 70);
	/* n smaller than len: the newest n. */
	assert_int_equal(history_get(h, "A", HISTORY_UTIL, out, 2), 2);
	assert_int_equal(out[0], 60);
	assert_int_equal(out[1], 70);
	assert_int_equal(history_get(h, "A", HISTORY_UTIL, out, 0), 0);
	/* Other metrics of the same GPU were unknown throughout. */
	assert_int_equal(history_get(h, "A", HISTORY_TEMP, out, 8), 3);
	assert_int_equal(out[0], HISTORY_UNKNOWN);
	assert_int_equal(out[2], HISTORY_UNKNOWN);
	history_free(h);
}

static void test_gpus_come_and_go(void **state)
{
	struct history *h = history_new(4);
	uint8_t out[4];
	struct frame *f;

	(void)state;
	push_util(h, 10);
	push_util(h, 20);
	/* B appears on the third push, ahead of A in the frame. */
	f = frame_new();
	add_gpu(f, "B", 77);
	add_gpu(f, "A", 30);
	history_push(h, f);
	frame_unref(f);
	assert_int_equal(history_get(h, "B", HISTORY_UTIL, out, 4), 3);
	assert_int_equal(out[0], HISTORY_UNKNOWN);
	assert_int_equal(out[1], HISTORY_UNKNOWN);
	assert_int_equal(out[2], 77);
	/* A is missing from the next frame: an unknown sample, not a repeat or 0. */
	f = frame_new();
	add_gpu(f, "B", 78);
	history_push(h, f);
	frame_unref(f);
	assert_int_equal(history_get(h, "A", HISTORY_UTIL, out, 4), 4);
	assert_int_equal(out[0], 10);
	assert_int_equal(out[1], 20);
	assert_int_equal(out[2], 30);
	assert_int_equal(out[3], HISTORY_UNKNOWN);
	assert_int_equal(history_get(h, "nope", HISTORY_UTIL, out, 4), 0);
	assert_int_equal(history_get(h, NULL, HISTORY_UTIL, out, 4), 0);
	assert_int_equal(history_get(h, "A", HISTORY__COUNT, out, 4), 0);
	history_free(h);
}

static void test_absent_gpu_forgotten(void **state)
{
	struct history *h = history_new(2);
	uint8_t out[2];

	(void)state;
	push_util(h, 10);
	struct frame *empty = frame_new();
	history_push(h, empty);
	assert_int_equal(history_get(h, "A", HISTORY_UTIL, out, 2), 2); /* 10, unknown */
	assert_int_equal(out[0], 10);
	history_push(h, empty);
	/* Every sample held is from after A left: nothing to chart. */
	assert_int_equal(history_get(h, "A", HISTORY_UTIL, out, 2), 0);
	push_util(h, 40);
	assert_int_equal(history_get(h, "A", HISTORY_UTIL, out, 2), 2);
	assert_int_equal(out[0], HISTORY_UNKNOWN);
	assert_int_equal(out[1], 40);
	frame_unref(empty);
	history_free(h);
}

static void test_ids_skipped_or_repeated(void **state)
{
	struct history *h = history_new(2);
	struct frame *f = frame_new();
	uint8_t out[2];

	(void)state;
	add_gpu(f, NULL, 5);  /* no device_id: cannot be keyed */
	add_gpu(f, "", 6);
	add_gpu(f, "dup", 7);
	add_gpu(f, "dup", 8); /* the same id twice: the first wins */
	history_push(h, f);
	frame_unref(f);
	assert_int_equal(history_get(h, "", HISTORY_UTIL, out, 2), 0);
	assert_int_equal(history_get(h, "dup", HISTORY_UTIL, out, 2), 1);
	assert_int_equal(out[0], 7);
	history_free(h);
}

static void test_set_capacity_keeps_newest(void **state)
{
	struct history *h = history_new(5);
	uint8_t out[16];

	(void)state;
	for (int v = 1; v <= 7; v++)
		push_util(h, v); /* wrapped: holds 3..7 */
	history_set_capacity(h, 3);
	assert_int_equal(history_len(h), 3);
	assert_int_equal(history_get(h, "A", HISTORY_UTIL, out, 16), 3);
	assert_int_equal(out[0], 5);
	assert_int_equal(out[1], 6);
	assert_int_equal(out[2], 7);
	push_util(h, 8);
	assert_int_equal(history_get(h, "A", HISTORY_UTIL, out, 16), 3);
	assert_int_equal(out[0], 6);
	assert_int_equal(out[2], 8);
	history_set_capacity(h, 10);
	assert_int_equal(history_len(h), 3);
	push_util(h, 9);
	assert_int_equal(history_get(h, "A", HISTORY_UTIL, out, 16), 4);
	assert_int_equal(out[0], 6);
	assert_int_equal(out[1], 7);
	assert_int_equal(out[2], 8);
	assert_int_equal(out[3], 9);
	/* 0 is taken as 1; huge capacities are clamped. */
	history_set_capacity(h, 0);
	assert_int_equal(history_len(h), 1);
	assert_int_equal(history_get(h, "A", HISTORY_UTIL, out, 16), 1);
	assert_int_equal(out[0], 9);
	history_set_capacity(h, SIZE_MAX);
	for (int i = 0; i < 3; i++)
		push_util(h, 10 + i);
	assert_int_equal(history_len(h), 4);
	history_free(h);
	history_free(NULL);
}

static void test_many_gpus(void **state)
{
	struct history *h = history_new(2);
	struct frame *f = frame_new();
	uint8_t out[2];
	char id[32];

	(void)state;
	for (int i = 0; i < HISTORY_MAX_GPUS; i++) {
		snprintf(id, sizeof(id), "GPU-%04d", i);
		add_gpu(f, id, i % 101);
	}
	history_push(h, f);
	history_push(h, f);
	for (int i = 0; i < HISTORY_MAX_GPUS; i++) {
		snprintf(id, sizeof(id), "GPU-%04d", i);
		assert_int_equal(history_get(h, id, HISTORY_UTIL, out, 2), 2);
		assert_int_equal(out[1], i % 101);
	}
	frame_unref(f);
	/* A completely new set: the old GPUs age out, the new ones fit. */
	f = frame_new();
	for (int i = 0; i < HISTORY_MAX_GPUS; i++) {
		snprintf(id, sizeof(id), "MIG-%04d", i);
		add_gpu(f, id, 1);
	}
	history_push(h, f); /* full: the new ones are not tracked yet */
	assert_int_equal(history_get(h, "MIG-0000", HISTORY_UTIL, out, 2), 0);
	history_push(h, f); /* the old ones are forgotten now */
	history_push(h, f);
	assert_int_equal(history_get(h, "GPU-0000", HISTORY_UTIL, out, 2), 0);
	assert_int_equal(history_get(h, "MIG-1023", HISTORY_UTIL, out, 2), 2);
	assert_int_equal(out[1], 1);
	frame_unref(f);
	history_free(h);
}

static void test_metric_names(void **state)
{
	(void)state;
	assert_string_equal(history_metric_name(HISTORY_UTIL), "util");
	assert_string_equal(history_metric_name(HISTORY_MEM), "mem");
	assert_string_equal(history_metric_name(HISTORY_TEMP), "temp");
	assert_string_equal(history_metric_name(HISTORY_POWER), "power");
	assert_string_equal(history_metric_name(HISTORY__COUNT), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metric_values),
		cmocka_unit_test(test_unknown_is_not_zero),
		cmocka_unit_test(test_wraps_and_keeps_newest),
		cmocka_unit_test(test_gpus_come_and_go),
		cmocka_unit_test(test_absent_gpu_forgotten),
		cmocka_unit_test(test_ids_skipped_or_repeated),
		cmocka_unit_test(test_set_capacity_keeps_newest),
		cmocka_unit_test(test_many_gpus),
		cmocka_unit_test(test_metric_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
