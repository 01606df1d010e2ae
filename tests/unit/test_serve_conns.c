/* test_serve_conns: the connection tracker with real sockets (socketpair):
 * under the soft limit nothing is shut; over it, the connections that have
 * waited longest for a whole request, and at least the grace time, are shut
 * down, oldest first, and the peer sees the end of the stream; one being
 * answered never is; an answered connection waits again from its answer;
 * and the /health rules. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve/conns.h"
#include "serve/health.h"

#define N 6

struct pair {
	int ours, peer;
	struct conn *c;
};

static void open_pairs(struct pair *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int sv[2];
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
		p[i].ours = sv[0];
		p[i].peer = sv[1];
	}
}

/* Whether the peer of p sees the end of the stream (the tracker shut it). */
static bool was_shut(const struct pair *p)
{
	char c;
	return read(p->peer, &c, 1) == 0;
}

static void close_pairs(struct conns *cs, struct pair *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		conns_closed(cs, p[i].c);
		close(p[i].ours);
		close(p[i].peer);
	}
}

static void test_sweep_oldest_waiting(void **state)
{
	(void)state;
	struct pair p[N];
	struct conns *cs = conns_new(4, 3000);
	assert_non_null(cs);
	open_pairs(p, N);
	/* Four at t = 0..3 s: at the soft limit, nothing is shut. */
	for (size_t i = 0; i < 4; i++)
		p[i].c = conns_opened(cs, p[i].ours, 1000 * i);
	assert_int_equal(conns_open(cs), 4);
	assert_false(conns_over(cs));
	for (size_t i = 0; i < 4; i++)
		assert_false(was_shut(&p[i]));
	/* The oldest is being answered; the second has been answered at
	 * 3.5 s and waits again from then. */
	conns_request(cs, p[0].c);
	conns_request(cs, p[1].c);
	conns_answered(cs, p[1].c, 3500);
	/* A fifth at 4 s: over the limit, but nobody has waited 3 s but the
	 * one being answered. */
	p[4].c = conns_opened(cs, p[4].ours, 4000);
	assert_true(conns_over(cs));
	for (size_t i = 0; i < 5; i++)
		assert_false(was_shut(&p[i]));
	/* At 5 s the third (opened at 2 s) has waited 3 s: it goes, and only
	 * it. */
	assert_int_equal(conns_sweep(cs, 5000), 1);
	assert_true(was_shut(&p[2]));
	for (size_t i = 0; i < 5; i++)
		if (i != 2)
			assert_false(was_shut(&p[i]));
	assert_false(conns_over(cs)); /* one shut counts as gone */
	assert_int_equal(conns_shut(cs), 1);
	/* A sixth at 7 s: the fourth (3 s) goes before the second (3.5 s). */
	p[5].c = conns_opened(cs, p[5].ours, 7000);
	assert_true(was_shut(&p[3]));
	assert_false(was_shut(&p[1]));
	assert_false(was_shut(&p[0])); /* still being answered */
	assert_int_equal(conns_shut(cs), 2);
	assert_int_equal(conns_open(cs), 6);
	close_pairs(cs, p, N);
	assert_int_equal(conns_open(cs), 0);
	conns_free(cs);
}

static void test_health_rules(void **state)
{
	(void)state;
	char why[200];
	struct health_in in = {.have_frame = true, .live = true, .now_ms = 10000, .published_ms = 9500,
			       .interval_ms = 1000, .nbackends = 1};
	assert_true(health_check(&in, why, sizeof(why)));
	in.have_frame = false;
	assert_false(health_check(&in, why, sizeof(why)));
	assert_string_equal(why, "no frame yet");
	in.have_frame = true;
	/* A hung backend, two intervals and more. */
	in.busy_ms = 2000;
	assert_true(health_check(&in, why, sizeof(why)));
	in.busy_ms = 12400;
	in.busy_name = "nvml";
	assert_false(health_check(&in, why, sizeof(why)));
	assert_string_equal(why, "nvml: no answer for 12 s");
	in.busy_ms = 0;
	/* A stale frame: more than three intervals. */
	in.published_ms = 7000;
	assert_true(health_check(&in, why, sizeof(why)));
	in.published_ms = 6500;
	assert_false(health_check(&in, why, sizeof(why)));
	assert_string_equal(why, "the newest frame is 3.5 s old (interval 1.000 s)");
	/* A replay does not go stale. */
	in.live = false;
	assert_true(health_check(&in, why, sizeof(why)));
	/* Every backend lost, also in a replay. */
	in.nlost = 1;
	in.lost_names = "nvml";
	assert_false(health_check(&in, why, sizeof(why)));
	assert_string_equal(why, "every backend is lost (nvml)");
	in.nbackends = 2;
	in.live = true;
	in.published_ms = 9900;
	assert_true(health_check(&in, why, sizeof(why)));
	/* As fast as possible is judged as 1 s. */
	in.interval_ms = 0;
	in.published_ms = 7100;
	assert_true(health_check(&in, why, sizeof(why)));
	in.published_ms = 6000;
	assert_false(health_check(&in, why, sizeof(why)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweep_oldest_waiting),
		cmocka_unit_test(test_health_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
