/* line_reader: bounded line framing over read(2). */
#include "record/line_reader.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "record/instream.h"
#include "util/xalloc.h"

#define LINE_READER_CHUNK (256u << 10)

void line_reader_init(struct line_reader *lr, int fd, size_t cap)
{
	memset(lr, 0, sizeof(*lr));
	lr->fd = fd;
	lr->cap = cap;
	lr->chunk = xmalloc(LINE_READER_CHUNK);
	buf_init(&lr->line);
	buf_init(&lr->rec);
}

void line_reader_objects(struct line_reader *lr)
{
	lr->objects = true;
}

void line_reader_init_stream(struct line_reader *lr, struct instream *in, size_t cap)
{
	line_reader_init(lr, -1, cap);
	lr->in = in;
}

void line_reader_fini(struct line_reader *lr)
{
	free(lr->chunk);
	lr->chunk = NULL;
	buf_fini(&lr->line);
	buf_fini(&lr->rec);
}

static int fill(struct line_reader *lr)
{
	ssize_t n;

	/* The stop flag is checked before each read too, so a stop that came
	 * just before it is not missed when its signal was already taken. */
	if (lr->in) {
		instream_set_cancel(lr->in, lr->cancel);
		n = instream_read(lr->in, lr->chunk, LINE_READER_CHUNK);
		if (n < 0)
			return lr->eof = (int)n;
	} else {
		do
			n = lr->cancel && *lr->cancel ? (errno = EINTR, -1) : read(lr->fd, lr->chunk, LINE_READER_CHUNK);
		while (n < 0 && errno == EINTR && !(lr->cancel && *lr->cancel));
		if (n < 0)
			return lr->eof = -errno;
	}
	if (n == 0)
		return lr->eof = 1;
	lr->pos = 0;
	lr->len = (size_t)n;
	return 0;
}

/* A UTF-8 byte-order mark at the start of the file is not part of the
 * first line, however the reads that brought it were split. */
static void skip_bom(struct line_reader *lr, const char **line, size_t *len)
{
	bool first = !lr->bof_done && lr->lineno == 1;

	lr->bof_done = 1;
	if (first && *len >= 3 && memcmp(*line, "\xEF\xBB\xBF", 3) == 0) {
		*line += 3;
		*len -= 3;
	}
}

/* The bytes of a byte-order mark at the start of the line being read. They
 * are not part of the line, so they do not count against the cap. */
static size_t bom_len(const struct line_reader *lr, size_t n, size_t slack)
{
	return slack && n >= 3 && memcmp(lr->line.data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

/* Adds start[0..take) to the line being read, unless the line is being
 * skipped. A line that grows past the cap and its \r is skipped, and its
 * memory is freed at once. */
static void take_piece(struct line_reader *lr, const char *start, size_t take, size_t slack, bool *skipping)
{
	if (!*skipping && lr->line.len + take > lr->cap + 1 + slack) {
		*skipping = true;
		buf_fini(&lr->line);
	}
	if (*skipping)
		return;
	/* Grow by doubling, but never past the cap plus the \r and the NUL,
	 * so that a long line costs the cap and not twice it. */
	size_t need = lr->line.len + take + 1;
	if (need > lr->line.cap) {
		size_t cap = lr->line.cap * 2 > need ? lr->line.cap * 2 : need;
		if (cap > lr->cap + 2 + slack)
			cap = lr->cap + 2 + slack;
		lr->line.data = xreallocarray(lr->line.data, cap, 1);
		lr->line.cap = cap;
	}
	buf_append(&lr->line, start, take);
}

/* When the line read so far is within the cap, not counting a byte-order
 * mark, sets *line and *len to it without one trailing \r and returns true. */
static bool line_within_cap(struct line_reader *lr, size_t slack, const char **line, size_t *len)
{
	size_t n = lr->line.len;

	if (n && lr->line.data[n - 1] == '\r')
		n--;
	if (n - bom_len(lr, n, slack) > lr->cap)
		return false;
	*line = lr->line.data ? lr->line.data : "";
	*len = n;
	skip_bom(lr, line, len);
	return true;
}

/* At the end of the input, returns what is left of a line without \n. */
static int last_line(struct line_reader *lr, bool skipping, size_t slack, const char **line, size_t *len)
{
	/* A decoding error cut the line, so it is a torn piece and never a
	 * record. */
	if (lr->eof == -EBADMSG && (lr->line.len || skipping)) {
		lr->lineno++;
		lr->torn++;
		buf_reset(&lr->line);
		return lr->eof;
	}
	/* At the end of the input, a last line without \n counts. */
	if (lr->line.len || skipping) {
		lr->lineno++;
		if (!skipping && line_within_cap(lr, slack, line, len)) {
			if (*len) /* a file of nothing but a byte-order mark has no line */
				return 1;
			buf_reset(&lr->line);
			return lr->eof < 0 ? lr->eof : 0;
		}
		lr->oversized++;
		buf_reset(&lr->line);
	}
	return lr->eof < 0 ? lr->eof : 0;
}

/* The next physical line (see line_reader_next). */
static int next_line(struct line_reader *lr, const char **line, size_t *len)
{
	bool skipping = false;
	/* The first line has room for a byte-order mark besides the cap. */
	size_t slack = !lr->bof_done && lr->lineno == 0 ? 3 : 0;

	buf_reset(&lr->line);
	for (;;) {
		if (lr->pos >= lr->len) {
			if (lr->eof || fill(lr))
				return last_line(lr, skipping, slack, line, len);
			continue;
		}
		const char *start = lr->chunk + lr->pos;
		size_t avail = lr->len - lr->pos;
		const char *nl = memchr(start, '\n', avail);
		size_t take = nl ? (size_t)(nl - start) : avail;
		lr->pos += take + (nl ? 1 : 0);
		lr->consumed += take + (nl ? 1 : 0);
		take_piece(lr, start, take, slack, &skipping);
		if (!nl)
			continue;
		lr->lineno++;
		if (!skipping && line_within_cap(lr, slack, line, len))
			return 1;
		lr->oversized++;
		skipping = false;
		slack = 0;
		buf_reset(&lr->line);
	}
}

/* Where a JSON text stands after some of its lines: how many objects and
 * arrays are open. A string cannot span lines, so each line starts outside
 * one. */
struct jscan {
	long depth;
};

static void scan_line(struct jscan *sc, const char *s, size_t n)
{
	bool str = false, esc = false;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (str) {
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"')
				str = false;
		} else if (c == '"') {
			str = true;
		} else if (c == '{' || c == '[') {
			sc->depth++;
		} else if (c == '}' || c == ']') {
			sc->depth--;
		}
	}
	/* A line that ends inside a string is broken JSON, and nothing it
	 * opened can be closed by the lines after it. */
	if (str)
		sc->depth = 0;
}

/* Whether line opens an object that it leaves open, which is when it starts
 * at column 0 with '{' and does not end with '}'. A whole record on one line
 * always ends with '}', so a JSON Lines file costs no scan. */
static bool opens_object(const char *l, size_t n, struct jscan *sc)
{
	size_t end = n;

	if (!n || l[0] != '{')
		return false;
	while (end && (l[end - 1] == ' ' || l[end - 1] == '\t'))
		end--;
	if (l[end - 1] == '}')
		return false;
	sc->depth = 0;
	scan_line(sc, l, n);
	return sc->depth > 0;
}

static void rec_append(struct line_reader *lr, const char *s, size_t n)
{
	size_t need = lr->rec.len + n + 1;

	if (need > lr->rec.cap) {
		size_t cap = lr->rec.cap * 2 > need ? lr->rec.cap * 2 : need;
		if (cap > lr->cap + 1)
			cap = lr->cap + 1;
		lr->rec.data = xreallocarray(lr->rec.data, cap, 1);
		lr->rec.cap = cap;
	}
	buf_append(&lr->rec, s, n);
}

/* An object being joined: where its text stands, whether it is too long and
 * being skipped, and whether it was already counted as oversized because one
 * of its lines was. */
struct joining {
	struct jscan sc;
	bool open, skipping, counted;
};

/* Returns the held line, else the next one, with its line number in *at. */
static int pull(struct line_reader *lr, const char **l, size_t *n, uint64_t *at)
{
	if (lr->held) {
		lr->held = false;
		*l = lr->held_line;
		*n = lr->held_len;
		*at = lr->held_lineno;
		return 1;
	}
	int rc = next_line(lr, l, n);
	*at = lr->lineno;
	return rc;
}

/* Ends an object too long to keep, which counts once as oversized. */
static void drop_object(struct line_reader *lr, struct joining *j)
{
	if (!j->counted)
		lr->oversized++;
	j->open = j->skipping = j->counted = false;
}

/* Skips what is left of the object from now on, and frees its memory at once. */
static void skip_object(struct line_reader *lr, struct joining *j)
{
	j->skipping = true;
	buf_fini(&lr->rec);
}

/* Adds a line to the open object, and returns true when that line closed it. */
static bool join_line(struct line_reader *lr, struct joining *j, const char *l, size_t n)
{
	scan_line(&j->sc, l, n);
	lr->nlines++;
	if (!j->skipping && lr->rec.len + 1 + n > lr->cap)
		skip_object(lr, j);
	if (!j->skipping) {
		rec_append(lr, "\n", 1);
		rec_append(lr, l, n);
	}
	return j->sc.depth <= 0;
}

int line_reader_next(struct line_reader *lr, const char **line, size_t *len)
{
	struct joining j = {.open = false};
	const char *l;
	size_t n;
	uint64_t at;
	int rc;

	if (!lr->objects) {
		lr->nlines = 1;
		rc = next_line(lr, line, len);
		lr->first_line = lr->lineno;
		return rc;
	}
	buf_reset(&lr->rec);
	for (;;) {
		uint64_t over = lr->oversized;
		rc = pull(lr, &l, &n, &at);
		/* A line of the object that is too long to keep makes the whole
		 * object too long. */
		if (j.open && lr->oversized != over && !j.skipping) {
			skip_object(lr, &j);
			j.counted = true;
		}
		if (rc != 1) {
			if (j.open && !j.skipping)
				break; /* an object cut off by the end is torn */
			if (j.open)
				drop_object(lr, &j);
			return rc;
		}
		if (!j.open) {
			lr->first_line = at;
			lr->nlines = 1;
			if (!opens_object(l, n, &j.sc)) {
				*line = l;
				*len = n;
				return 1;
			}
			j.open = true;
			rec_append(lr, l, n);
			continue;
		}
		if (n && l[0] == '{') {
			/* A record starts while the last one is open, so that one is
			 * torn. */
			lr->held = true;
			lr->held_line = l;
			lr->held_len = n;
			lr->held_lineno = at;
			if (!j.skipping)
				break;
			drop_object(lr, &j);
			continue;
		}
		if (join_line(lr, &j, l, n)) {
			if (!j.skipping)
				break;
			drop_object(lr, &j);
		}
	}
	*line = lr->rec.data;
	*len = lr->rec.len;
	return 1;
}
