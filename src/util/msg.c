/* msg: sanitised one-line messages to stderr, written with one write(2). */
#include "util/msg.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/utf8.h"

void msg_error(const char *fmt, ...)
{
	char tmp[2048];
	struct buf b;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	buf_init(&b);
	buf_puts(&b, "gpur: ");
	/* Invalid UTF-8 and control characters become U+FFFD: a message never
	 * carries an escape sequence or a second line. */
	utf8_append_safe(&b, tmp, strlen(tmp), true);
	buf_putc(&b, '\n');
	ssize_t r = write(STDERR_FILENO, b.data, b.len);
	(void)r;
	buf_fini(&b);
}
