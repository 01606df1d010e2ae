/* seek_time: how long the background index takes to cover a recording, and
 * how long a seek into it then takes (the dashboard's J, ←/→).
 *   seek_time PATH TS_MS */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "record/replay.h"
#include "model/frame.h"
#include "record/seekindex.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char err[512];

	if (argc != 3) {
		fprintf(stderr, "usage: seek_time PATH TS_MS\n");
		return 2;
	}
	uint64_t ts = strtoull(argv[2], NULL, 10);
	struct replay *r = replay_open(argv[1], err, sizeof(err));
	if (!r) {
		fprintf(stderr, "seek_time: %s\n", err);
		return 1;
	}
	double t0 = now_s();
	replay_index_start(r);
	seekindex_wait(replay_index(r));
	double t1 = now_s();
	size_t n = 0;
	seekindex_done(replay_index(r), &n);
	uint64_t before = 0;
	struct frame *f = frame_new();
	double t2 = now_s();
	int rc = replay_seek_time(r, ts, &before);
	int got = rc == 0 ? replay_next(r, f) : 0;
	double t3 = now_s();
	printf("index: %zu places over %zu files in %.2f s (in the background); seek to %llu: %.1f ms, landed on %llu (line %llu)\n",
	       n, replay_nfiles(r), t1 - t0, (unsigned long long)ts, (t3 - t2) * 1000,
	       got ? (unsigned long long)f->ts_ms : 0ull, (unsigned long long)before + 1);
	frame_unref(f);
	replay_free(r);
	return 0;
}
