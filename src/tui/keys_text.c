/* keys_text: what the key table says to the user, which is the keys' names,
 * the help screen and the lines of key hints, all made from its rows.
 * Nothing here draws. The screen's files draw these lines, and test_keys
 * reads them without a terminal. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "tui/keys.h"

/* The keys' column of a help line, and a section's. */
#define HELP_KEYS_W 19
#define HELP_SECTION_W 9

const char *keys_name(int ch, const char **symbol)
{
	static const struct {
		int key;
		const char *name, *symbol;
	} NAMES[] = {
		{'\n', "Enter", "\u23ce"}, {'\r', "Enter", "\u23ce"}, {KEY_ENTER, "Enter", "\u23ce"},
		{KEYS_ESC, "Esc", NULL}, {' ', "space", NULL},
		{KEY_BACKSPACE, "Backspace", "\u232b"}, {127, "Backspace", "\u232b"}, {KEYS_CTRL('h'), "Backspace", "\u232b"},
		{KEY_UP, "Up", "\u2191"}, {KEY_DOWN, "Down", "\u2193"},
		{KEY_LEFT, "Left", "\u2190"}, {KEY_RIGHT, "Right", "\u2192"},
		{KEY_SLEFT, "Shift+Left", "Shift+\u2190"}, {KEY_SRIGHT, "Shift+Right", "Shift+\u2192"},
		{KEY_PPAGE, "PgUp", NULL}, {KEY_NPAGE, "PgDn", NULL}, {KEY_HOME, "Home", NULL}, {KEY_END, "End", NULL},
		{KEY_MOUSE, "mouse", NULL},
	};
	static const char *const FKEYS[] = {"F0", "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12"};
	static const char *const CTRLS[] = {
		"Ctrl-@", "Ctrl-A", "Ctrl-B", "Ctrl-C", "Ctrl-D", "Ctrl-E", "Ctrl-F", "Ctrl-G", "Ctrl-H", "Ctrl-I", "Ctrl-J",
		"Ctrl-K", "Ctrl-L", "Ctrl-M", "Ctrl-N", "Ctrl-O", "Ctrl-P", "Ctrl-Q", "Ctrl-R", "Ctrl-S", "Ctrl-T", "Ctrl-U",
		"Ctrl-V", "Ctrl-W", "Ctrl-X", "Ctrl-Y", "Ctrl-Z",
	};
	static char printable[128][2];

	if (symbol)
		*symbol = NULL;
	for (size_t i = 0; i < sizeof(NAMES) / sizeof(NAMES[0]); i++)
		if (NAMES[i].key == ch) {
			if (symbol)
				*symbol = NAMES[i].symbol;
			return NAMES[i].name;
		}
	if (ch >= KEY_F(0) && ch <= KEY_F(12))
		return FKEYS[ch - KEY_F(0)];
	if (ch >= 0 && ch < (int)(sizeof(CTRLS) / sizeof(CTRLS[0])))
		return CTRLS[ch];
	if (ch > ' ' && ch < 127) {
		printable[ch][0] = (char)ch;
		return printable[ch];
	}
	return "?";
}

size_t keys_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

static const char *label_of(const struct key_row *r, bool utf8)
{
	return !utf8 && r->label_ascii ? r->label_ascii : r->label;
}

/* The help screen being written: its lines, the one being filled, and the
 * section it is in. */
struct help {
	char (*lines)[KEYS_HELP_BYTES];
	size_t n, max;
	const char *section;
};

static void add(char *line, const char *s)
{
	size_t at = strlen(line);
	snprintf(line + at, KEYS_HELP_BYTES - at, "%s", s);
}

/* Starts a new line with the section's name, room for it or nothing, then
 * the keys padded to their column when not in a section. */
static char *new_line(struct help *h, const struct key_row *r, const char *label)
{
	if (h->n >= h->max)
		return NULL;
	char *line = h->lines[h->n++];
	line[0] = '\0';
	if (r && r->section) {
		snprintf(line, KEYS_HELP_BYTES, "%-*s", HELP_SECTION_W, r->section != h->section ? r->section : "");
		h->section = r->section;
		add(line, label);
		add(line, "  ");
		return line;
	}
	h->section = NULL;
	if (label) {
		add(line, label);
		for (size_t w = keys_width(label); w < HELP_KEYS_W; w++)
			add(line, " ");
	}
	return line;
}

/* Writes the row's help text from line, with its '\n's going on below the
 * keys' column. */
static void add_help(struct help *h, char *line, const char *text)
{
	const char *nl;

	while (line && (nl = strchr(text, '\n'))) {
		size_t at = strlen(line);
		snprintf(line + at, KEYS_HELP_BYTES - at, "%.*s", (int)(nl - text), text);
		text = nl + 1;
		line = new_line(h, NULL, "");
	}
	if (line)
		add(line, text);
}

size_t keys_help(enum tui_mode m, bool utf8, char (*lines)[KEYS_HELP_BYTES], size_t max)
{
	struct help h = {lines, 0, max, NULL};

	for (size_t i = 0; i < KEYS_COUNT; i++) {
		const struct key_row *r = &KEYS[i];
		if (!(r->modes >> m & 1u))
			continue;
		const char *label = label_of(r, utf8);
		const char *sep = r->layout == KEYS_JOIN ? ";  " : "   ";
		char *last = h.n ? h.lines[h.n - 1] : NULL;
		if (r->layout != KEYS_LINE && last && !strchr(r->help, '\n') &&
		    keys_width(last) + keys_width(sep) + keys_width(label) + 2 + keys_width(r->help) <= KEYS_HELP_W) {
			add(last, sep);
			add(last, label);
			add(last, "  ");
			add_help(&h, last, r->help);
			continue;
		}
		add_help(&h, new_line(&h, r, label), r->help);
	}
	return h.n;
}

size_t keys_hints(enum tui_mode m, const enum key_foot *kinds, size_t nkinds, bool utf8, struct key_hint *out,
		  size_t max)
{
	size_t n = 0;

	for (size_t k = 0; k < nkinds; k++)
		for (size_t i = 0; i < KEYS_COUNT && n < max; i++) {
			const struct key_row *r = &KEYS[i];
			const char *hint = r->hint[kinds[k]];
			if (!(r->modes >> m & 1u) || !hint)
				continue;
			const char *key = r->hint_key[utf8 ? 0 : 1];
			if (!key)
				key = r->hint_key[0] && keys_width(r->hint_key[0]) == strlen(r->hint_key[0]) ? r->hint_key[0]
													     : label_of(r, utf8);
			out[n++] = (struct key_hint){r, key, hint};
		}
	return n;
}

void keys_join(const struct key_hint *items, size_t n, const char *sep, const char *text, char *buf, size_t size)
{
	size_t at = 0;

	if (!size)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < n && at < size; i++) {
		const struct key_hint *h = &items[i];
		bool with_text = (h->row->flags & KEYS_F_TEXT) && text && *text;
		int w = snprintf(buf + at, size - at, "%s%s%s%s%s%s", i ? sep : "", h->key, *h->hint ? " " : "", h->hint,
				 with_text ? " " : "", with_text ? text : "");
		at += w > 0 ? (size_t)w : 0;
	}
}
