/* msg: gpur's one-line messages on stderr. Every message starts "gpur: ",
 * is one line, and has control characters (from file names, backend error
 * strings, anything outside) made inert before it reaches a terminal. */
#ifndef GPUR_MSG_H
#define GPUR_MSG_H

__attribute__((format(printf, 1, 2))) void msg_error(const char *fmt, ...);

#endif
