/* report: the --report driver, which reads, summarises, writes and renames. */
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/html.h"
#include "report/json_out.h"
#include "report/summary.h"
#include "util/msg.h"

enum report_format report_format_of(const char *out)
{
	size_t n = strlen(out);

	if (strcmp(out, "-") == 0)
		return REPORT_FORMAT_HTML;
	if (n > 5 && strcasecmp(out + n - 5, ".html") == 0)
		return REPORT_FORMAT_HTML;
	if (n > 4 && strcasecmp(out + n - 4, ".htm") == 0)
		return REPORT_FORMAT_HTML;
	if (n > 5 && strcasecmp(out + n - 5, ".json") == 0)
		return REPORT_FORMAT_JSON;
	return REPORT_FORMAT_UNKNOWN;
}

/* The temporary name DIR/.BASE.tmp.PID for out = DIR/BASE. Returns false when
 * it is too long. */
static bool tmp_name(const char *out, char *tmp, size_t n)
{
	const char *slash = strrchr(out, '/');
	int dl = slash ? (int)(slash - out + 1) : 0;
	int k = snprintf(tmp, n, "%.*s.%s.tmp.%ld", dl, out, slash ? slash + 1 : out, (long)getpid());
	return k > 0 && (size_t)k < n;
}

/* Whether out names the file being read (a report over its own recording). */
static bool is_recording(const char *out, const char *source)
{
	struct stat a, b;

	return stat(out, &a) == 0 && stat(source, &b) == 0 && S_ISREG(a.st_mode) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* Reads the records. Returns 0, or 1 when --gpus matches nothing. */
static int read_all(struct replay *r, const struct gpusel *sel, struct summary *s, struct idle_tracker *idle,
		    const volatile sig_atomic_t *stop)
{
	static uint32_t orig[FRAME_MAX_GPUS];
	bool first = true;

	for (;;) {
		if (stop && *stop)
			return 0;
		struct frame *f = frame_new();
		if (replay_next(r, f) != 1) {
			frame_unref(f);
			return 0;
		}
		if (sel) {
			const char *miss = first ? gpusel_unmatched(sel, f) : NULL;
			if (miss) {
				msg_error("--gpus: no GPU matches '%s' (%zu GPU%s here)", miss, f->ngpus,
					  f->ngpus == 1 ? "" : "s");
				frame_unref(f);
				return 1;
			}
			/* The selection keeps the GPUs' order and their strings, so
			 * each kept one is found again by its device_id pointer. */
			const char *ids[FRAME_MAX_GPUS];
			size_t n = f->ngpus;
			for (size_t i = 0; i < n; i++)
				ids[i] = f->gpus[i].device_id;
			gpusel_apply(sel, f);
			size_t k = 0;
			for (size_t i = 0; i < f->ngpus; i++) {
				while (k < n && ids[k] != f->gpus[i].device_id)
					k++;
				orig[i] = (uint32_t)(k < n ? k : i);
				k++;
			}
		}
		first = false;
		idle_update(idle, f);
		summary_add(s, f, sel ? orig : NULL);
		frame_unref(f);
	}
}

int report_run(struct replay *r, const struct gpusel *sel, const struct idle_opts *idle, const char *out,
	       const char *source, const volatile sig_atomic_t *stop)
{
	bool to_stdout = strcmp(out, "-") == 0;
	enum report_format fmt = report_format_of(out);
	char tmp[4200];
	int fd = STDOUT_FILENO, status = 0;
	struct stat st;

	if (!to_stdout) {
		if (is_recording(out, source)) {
			msg_error("--report %s: that is the recording being read", out);
			return 2;
		}
		if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
			msg_error("--report %s: %s", out, strerror(EISDIR));
			return 1;
		}
		if (!tmp_name(out, tmp, sizeof(tmp))) {
			msg_error("--report %s: %s", out, strerror(ENAMETOOLONG));
			return 1;
		}
		/* The file is made before the recording is read, so that a bad path
		 * fails at once. */
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			msg_error("--report %s: %s", out, strerror(errno));
			return 1;
		}
	}
	struct summary *s = summary_new();
	s->idle = *idle;
	struct idle_tracker *it = idle_new(idle);
	status = read_all(r, sel, s, it, stop);
	idle_free(it);
	if (status == 0) {
		struct report_out o;
		summary_finish(s);
		report_out_init(&o, fd);
		if (fmt == REPORT_FORMAT_JSON)
			json_out_write(&o, s);
		else
			html_write(&o, s, source);
		report_out_flush(&o, true);
		int e = o.err;
		report_out_fini(&o);
		if (!to_stdout && !e && close(fd) != 0)
			e = -errno;
		else if (!to_stdout && e)
			close(fd);
		fd = -1;
		if (!e && !to_stdout && rename(tmp, out) != 0)
			e = -errno;
		if (e == -EPIPE && to_stdout) {
			e = 0; /* a closed stdout ends quietly */
		} else if (e) {
			msg_error("--report %s: %s", to_stdout ? "stdout" : out, strerror(-e));
			status = 1;
		}
	}
	if (!to_stdout) {
		if (fd >= 0)
			close(fd);
		if (status)
			unlink(tmp);
	}
	summary_free(s);
	return status;
}
