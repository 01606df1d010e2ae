/* fuzz_line_reader: libFuzzer harness for JSON Lines framing (the record format's rule
 * 5). The input's bytes reach line_reader through a SOCK_SEQPACKET socket
 * pair, one packet per read(2), so the fuzzer also chooses where reads end;
 * every line returned, and the counts, are checked against a plain model of
 * the rule. Any difference abort()s.
 *
 * With byte 0's top bit set the reader joins objects printed over several
 * lines (line_reader_objects): then every item returned must be a run of
 * whole lines that follows the last one, joined by \n and within the cap,
 * and the lines must still all be counted.
 *
 * Input: byte 0 = the line cap (0..63) and the objects bit (0x80), byte 1 =
 * seed of the read sizes (0: one read for everything), the rest = the
 * file's bytes. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "record/line_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT (1u << 20)

/* Both findings of this harness are fixed and kept as seeds
 * (corpus/line_reader/regress-*): a byte-order mark split over short first
 * reads is still a mark, and it does not count against the first line's
 * cap. The model below says so; reads may be as short as one byte. */

struct feed {
	int fd;
	const uint8_t *p;
	size_t n;
	unsigned seed;
};

static size_t packet_size(unsigned *state, unsigned seed, size_t left)
{
	size_t n;

	if (seed == 0)
		return left;
	*state = *state * 1103515245u + 12345u;
	n = 1 + (*state >> 16) % (seed % 64 + 1);
	return n < left ? n : left;
}

static void *writer(void *arg)
{
	struct feed *fd = arg;
	unsigned state = fd->seed;
	size_t off = 0;

	while (off < fd->n) {
		size_t n = packet_size(&state, fd->seed, fd->n - off);
		ssize_t w = send(fd->fd, fd->p + off, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 || (size_t)w != n) {
			perror("fuzz_line_reader: send");
			abort();
		}
		off += n;
	}
	close(fd->fd); /* end of file for the reader */
	return NULL;
}

static void die(const char *what, size_t lineno)
{
	fprintf(stderr, "fuzz_line_reader: line %zu: %s\n", lineno, what);
	abort();
}

/* The lines of in[0..n) as the model frames them (BOM and one \r before
 * each \n gone), into starts/lens; their count. */
static size_t model_lines(const uint8_t *in, size_t n, size_t *starts, size_t *lens)
{
	size_t pos = 0, k = 0;

	if (n >= 3 && memcmp(in, "\xEF\xBB\xBF", 3) == 0) {
		pos = 3;
		if (n == 3) {
			starts[0] = 3;
			lens[0] = 0;
			return 1;
		}
	}
	while (pos < n) {
		const uint8_t *nl = memchr(in + pos, '\n', n - pos);
		size_t end = nl ? (size_t)(nl - in) : n;
		size_t want = end - pos;
		if (want && in[end - 1] == '\r')
			want--;
		starts[k] = pos;
		lens[k++] = want;
		pos = nl ? end + 1 : n;
	}
	return k;
}

/* Objects mode: each item is lines first_line..first_line+nlines-1 joined
 * by \n, no longer than the cap, after the item before it. */
static void check_objects(struct line_reader *lr, const uint8_t *in, size_t n, size_t cap)
{
	size_t *starts = malloc((n + 2) * sizeof(size_t)), *lens = malloc((n + 2) * sizeof(size_t));
	const char *line;
	size_t len, next = 1;
	int rc;

	if (!starts || !lens)
		abort();
	size_t nl = model_lines(in, n, starts, lens);
	while ((rc = line_reader_next(lr, &line, &len)) == 1) {
		size_t first = lr->first_line, k = lr->nlines, off = 0;
		if (len > cap || first < next || k == 0 || first + k - 1 > nl)
			die("objects: an item out of place or over the cap", first);
		for (size_t i = first; i < first + k; i++) {
			size_t l = lens[i - 1];
			if (i > first && (off >= len || line[off++] != '\n'))
				die("objects: lines not joined by one \\n", i);
			if (off + l > len || memcmp(line + off, in + starts[i - 1], l) != 0)
				die("objects: an item differs from its lines", i);
			off += l;
		}
		if (off != len)
			die("objects: an item longer than its lines", first);
		next = first + k;
	}
	if (rc != 0 || lr->lineno != nl || line_reader_next(lr, &line, &len) != 0)
		die("objects: end of file, or the lines counted", nl);
	free(starts);
	free(lens);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int sv[2];
	pthread_t t;
	struct line_reader lr;
	const char *line;
	size_t len, cap;

	if (size < 2 || size - 2 > FUZZ_MAX_INPUT)
		return 0;
	cap = data[0] % 64;
	const uint8_t *in = data + 2;
	size_t n = size - 2;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		perror("fuzz_line_reader: socketpair");
		abort();
	}
	struct feed feed = {.fd = sv[1], .p = in, .n = n, .seed = data[1]};
	if (pthread_create(&t, NULL, writer, &feed) != 0)
		abort();

	if (data[0] & 0x80) {
		line_reader_init(&lr, sv[0], cap);
		line_reader_objects(&lr);
		check_objects(&lr, in, n, cap);
		line_reader_fini(&lr);
		pthread_join(t, NULL);
		close(sv[0]);
		return 0;
	}

	/* The model: a leading BOM goes; lines end at \n; one \r before it
	 * goes; a last line without \n counts, unless nothing is left of it
	 * once its \r (or a whole file's BOM) goes: then it is counted in
	 * lineno but not returned (line_reader since ab9a73d); lines over cap
	 * are skipped. */
	size_t pos = 0, lineno = 0, oversized = 0;
	bool bom = n >= 3 && memcmp(in, "\xEF\xBB\xBF", 3) == 0;
	if (bom) {
		pos = 3;
		if (n == 3) { /* the mark alone: a last line, counted, not returned */
			lineno = 1;
		}
	}

	line_reader_init(&lr, sv[0], cap);
	while (pos < n) {
		const uint8_t *nl = memchr(in + pos, '\n', n - pos);
		size_t end = nl ? (size_t)(nl - in) : n;
		size_t want = end - pos;
		if (want && in[end - 1] == '\r')
			want--;
		lineno++;
		size_t counted = want;
		if (counted > cap) {
			oversized++;
		} else if (!nl && want == 0) {
			break;
		} else {
			int rc = line_reader_next(&lr, &line, &len);
			if (rc != 1)
				die("expected a line, got end of file or an error", lineno);
			if (len != want || (len && memcmp(line, in + pos, len) != 0))
				die("line differs from the model", lineno);
			if (lr.lineno != lineno || lr.oversized != oversized)
				die("lineno/oversized count differs from the model", lineno);
		}
		pos = nl ? end + 1 : n;
	}
	if (line_reader_next(&lr, &line, &len) != 0)
		die("expected end of file", lineno);
	if (lr.lineno != lineno || lr.oversized != oversized)
		die("final lineno/oversized count differs from the model", lineno);
	if (line_reader_next(&lr, &line, &len) != 0)
		die("end of file is not sticky", lineno);
	line_reader_fini(&lr);
	pthread_join(t, NULL);
	close(sv[0]);
	return 0;
}
