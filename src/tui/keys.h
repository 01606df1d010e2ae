/* keys: the dashboard's keys as one const table (keys.c). A row holds a key
 * or a few keys, the modes it acts in, how the help and the footer name it,
 * and its handler. The dispatch of a key, the help screen (?) and every line
 * of key hints (the footer, the fleet summary's, the signal dialog's, the
 * column picker's, a prompt's) are made from it (keys_text.c). Adding a key
 * is adding a row. */
#ifndef GPUR_KEYS_H
#define GPUR_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tui;
struct lineedit;

/* What the keys act on, one mode at a time. The first three are the screen's
 * own, told apart by what it shows: the fleet summary, the list of groups, or
 * else the process table. The others are opened over it. */
enum tui_mode {
	TUI_MODE_PROCS,        /* the process table, of a group or a fleet's host too */
	TUI_MODE_GROUPS,       /* the list of groups (g) */
	TUI_MODE_FLEET,        /* the fleet summary (--prometheus) */
	TUI_MODE_HELP,         /* ? */
	TUI_MODE_COLUMNS,      /* C, the column picker */
	TUI_MODE_DETAILS,      /* Enter, a process's details */
	TUI_MODE_TREE,         /* t, a process's tree */
	TUI_MODE_SIGNAL,       /* K, the signal dialog */
	TUI_MODE_FILTER,       /* /, the process filter typed */
	TUI_MODE_FLEET_FILTER, /* /, the fleet's host filter typed */
	TUI_MODE_JUMP,         /* J, a clock time typed */
	TUI_MODE__COUNT
};

/* What a handler asks for after it ran, as flags. */
enum {
	KEYS_REDRAW = 1u << 0,  /* the screen changed, so draw it again */
	KEYS_REBUILD = 1u << 1, /* the process table's rows changed, so build them again first */
	KEYS_QUIT = 1u << 2,    /* end the dashboard */
	KEYS_PASS = 1u << 3,    /* the key closed what was open, and acts again on what is under it */
};

/* The lines of key hints a row can be in: the footer of a live source, of a
 * replay, and of a live one on the virtual clock; the prefix of the footer
 * while a fleet's host is open; and a mode's own line, such as the fleet
 * summary's footer, the dialog's, the picker's or a prompt's. */
enum key_foot {
	KEYS_FOOT_LIVE,
	KEYS_FOOT_REPLAY,
	KEYS_FOOT_STEPPED,
	KEYS_FOOT_HOST,
	KEYS_FOOT_OWN,
	KEYS_FOOT__COUNT
};

/* How a row's help goes on the help screen. It goes on a line of its own,
 * with its keys in a column, or after the section's name for a row with a
 * section; or it goes after the line above, with ";  " between, or "   " in
 * a section. A row that does not fit there starts a line. */
enum key_layout { KEYS_LINE, KEYS_JOIN, KEYS_NEXT };

/* Keys that curses has no name for: Esc, and a control key
 * (KEYS_CTRL('l')). */
#define KEYS_ESC 27
#define KEYS_CTRL(c) ((c) & 0x1f)
/* A row acts on any key no other row of its mode takes. */
#define KEYS_ANY (-1)
/* The most keys a row has. */
#define KEYS_ROW_KEYS 10
/* The footer writes the text being typed, the filter, after the hint. */
#define KEYS_F_TEXT 1u

struct key_row {
	int keys[KEYS_ROW_KEYS]; /* 0 after the last */
	uint32_t modes;         /* bit (1 << enum tui_mode) */
	const char *label;      /* the keys as the help names them: "Up/Down, j/k" */
	const char *label_ascii; /* the same outside UTF-8, or NULL when label is ASCII */
	const char *help;       /* what it does, where a '\n' goes on below the keys' column */
	enum key_layout layout;
	const char *section;    /* the help's group of rows ("replay:"), or NULL */
	const char *hint_key[2]; /* the keys in a hint line (UTF-8, ASCII), or NULL for the label */
	const char *hint[KEYS_FOOT__COUNT]; /* what a hint line says ("" for the keys alone), or NULL when not there */
	unsigned flags;
	unsigned (*run)(struct tui *t, int ch);
};

extern const struct key_row KEYS[];
extern const size_t KEYS_COUNT;

/* A mode in which a line of text is typed: its title, the bytes it takes
 * (NULL for any text), its line editor, and what follows an edit, as
 * flags. */
struct key_prompt {
	const char *title;
	const char *accept;
	struct lineedit *(*line)(struct tui *t);
	unsigned (*edited)(struct tui *t);
};

/* The prompt of mode m, or NULL when m is not a prompt. */
const struct key_prompt *keys_prompt(enum tui_mode m);
/* Whether the prompt p takes key ch, a byte of text, for its line editor. */
bool keys_prompt_takes(const struct key_prompt *p, int ch);
/* The row of mode m that takes key ch, which is a KEYS_ANY row when no other
 * does, or NULL. */
const struct key_row *keys_find(enum tui_mode m, int ch);
/* Whether ch belongs to a row in every mode, as the mouse and Ctrl-L do. */
bool keys_global(int ch);
/* Dispatches key ch in t's mode, to the prompt's line editor or else to its
 * row's handler, and again while a handler passes it on. Builds the process
 * table's rows again when a handler asked. Returns the handlers' flags
 * without KEYS_PASS, or 0 for a key that nothing takes. */
unsigned keys_dispatch(struct tui *t, int ch);

/* In keys_text.c: names and lines made from the table. */

/* The help screen's largest width in columns and number of lines, so that
 * with its box it fits 80x24. */
#define KEYS_HELP_W 68
#define KEYS_HELP_LINES 22
/* The bytes of a help line; UTF-8 labels take more than one per column. */
#define KEYS_HELP_BYTES 256

/* The name of key ch in the help ("Up", "Ctrl-L", "F9", "k"). symbol gets
 * what UTF-8 labels may write instead ("↑"), or NULL. */
const char *keys_name(int ch, const char **symbol);
/* The columns of s, a label or a line of the table, one per code point. */
size_t keys_width(const char *s);
/* Writes the help screen of mode m, the rows of m in the table's order, as
 * at most max lines into lines, and returns how many. */
size_t keys_help(enum tui_mode m, bool utf8, char (*lines)[KEYS_HELP_BYTES], size_t max);

/* One item of a hint line, such as "q quit". */
struct key_hint {
	const struct key_row *row;
	const char *key, *hint;
};
/* Writes into out, at most max of them, the hints of mode m's rows for each
 * line kind of kinds[0..nkinds) in turn, each in the table's order, and
 * returns how many. */
size_t keys_hints(enum tui_mode m, const enum key_foot *kinds, size_t nkinds, bool utf8, struct key_hint *out,
		  size_t max);
/* Writes items[0..n) as one line into buf, each "key hint" joined by sep.
 * text, which may be NULL, follows the hint of a KEYS_F_TEXT row when it is
 * not empty. */
void keys_join(const struct key_hint *items, size_t n, const char *sep, const char *text, char *buf, size_t size);

#endif
