/* test_keys: the dashboard's key table, without a terminal (curses is
 * linked, never started). The table holds: no mode has two rows for one
 * key, every row has a help line whose label names its keys, every help
 * screen is the rows of its mode and fits 80x24, every line of hints is
 * made of the rows' hints (and reads as it always did), no prompt hides a
 * row behind its line editor. And keys dispatched on a dashboard's state
 * open and close the modes, type into the prompts, quit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/fleet.h"
#include "tui/tui_priv.h"

#define ALL_MODES ((1u << TUI_MODE__COUNT) - 1)

static const char *const MODE_NAMES[TUI_MODE__COUNT] = {
	"procs", "groups", "fleet", "help", "columns", "details", "tree", "signal", "filter", "fleet filter", "jump",
};

static int nkeys(const struct key_row *r)
{
	int n = 0;
	while (n < KEYS_ROW_KEYS && r->keys[n])
		n++;
	return n;
}

/* No mode has two rows for one key (nor two rows for any other key). */
static void test_unique(void **state)
{
	(void)state;
	for (int m = 0; m < TUI_MODE__COUNT; m++)
		for (size_t i = 0; i < KEYS_COUNT; i++) {
			const struct key_row *a = &KEYS[i];
			if (!(a->modes >> m & 1u))
				continue;
			for (int k = 0; k < nkeys(a); k++) {
				for (int l = k + 1; l < nkeys(a); l++)
					if (a->keys[k] == a->keys[l])
						fail_msg("mode %s: row '%s' has key %d twice", MODE_NAMES[m], a->label, a->keys[k]);
				for (size_t j = i + 1; j < KEYS_COUNT; j++) {
					const struct key_row *b = &KEYS[j];
					if (!(b->modes >> m & 1u))
						continue;
					for (int l = 0; l < nkeys(b); l++)
						if (a->keys[k] == b->keys[l])
							fail_msg("mode %s: key %s is both '%s' (%s) and '%s' (%s)", MODE_NAMES[m],
								 keys_name(a->keys[k], NULL), a->label, a->help, b->label, b->help);
				}
			}
		}
}

/* Whether label names key ch: by its name, its symbol (in a UTF-8 label),
 * or, for a digit, within a range "1-6". */
static bool names(const char *label, int ch, bool utf8)
{
	const char *symbol;
	const char *name = keys_name(ch, &symbol);

	if (strstr(label, name) || (utf8 && symbol && strstr(label, symbol)))
		return true;
	for (const char *p = label; ch >= '0' && ch <= '9' && (p = strchr(p, '-')); p++)
		if (p > label && p[-1] >= '0' && p[-1] <= ch && p[1] >= ch && p[1] <= '9')
			return true;
	return false;
}

static bool ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

/* Every row: keys, modes, a help line, labels that name each key (the
 * ASCII one in ASCII), a handler; a hint only with keys to show for it. */
static void test_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < KEYS_COUNT; i++) {
		const struct key_row *r = &KEYS[i];
		const char *al = r->label_ascii ? r->label_ascii : r->label;
		assert_true(nkeys(r) > 0);
		assert_true(r->modes != 0 && (r->modes & ~ALL_MODES) == 0);
		assert_non_null(r->run);
		if (!r->help || !*r->help)
			fail_msg("row '%s' has no help line", r->label ? r->label : "?");
		assert_non_null(r->label);
		assert_true(ascii(al));
		for (int k = 0; k < nkeys(r); k++) {
			if (r->keys[k] == KEYS_ANY) {
				assert_int_equal(nkeys(r), 1);
				continue;
			}
			if (!names(r->label, r->keys[k], true) || !names(al, r->keys[k], false))
				fail_msg("row '%s' / '%s' does not name its key %s", r->label, al, keys_name(r->keys[k], NULL));
		}
		for (int f = 0; f < KEYS_FOOT__COUNT; f++) {
			if (!r->hint[f])
				continue;
			/* The keys a hint line shows name at least one of the row's. */
			const char *hk[2] = {r->hint_key[0] ? r->hint_key[0] : r->label,
					     r->hint_key[1] ? r->hint_key[1] : r->hint_key[0] && ascii(r->hint_key[0]) ? r->hint_key[0] : al};
			for (int u = 0; u < 2; u++) {
				bool any = false;
				for (int k = 0; k < nkeys(r) && !any; k++)
					any = names(hk[u], r->keys[k], u == 0);
				if (!any)
					fail_msg("row '%s': hint keys '%s' name none of its keys", r->label, hk[u]);
				assert_true(u == 0 || ascii(hk[u]));
			}
		}
	}
}

/* The help screens: each row of the mode, in the table's order, its label
 * then its help; no more than KEYS_HELP_LINES lines of KEYS_HELP_W
 * columns; ASCII outside UTF-8. Every mode the screen can be in opens one
 * with ? and lists ? in it. */
static void check_help(enum tui_mode m, bool utf8)
{
	char lines[KEYS_HELP_LINES + 8][KEYS_HELP_BYTES];
	char all[(KEYS_HELP_LINES + 8) * KEYS_HELP_BYTES] = "";
	size_t n = keys_help(m, utf8, lines, KEYS_HELP_LINES + 8);

	if (n > KEYS_HELP_LINES)
		fail_msg("mode %s: %zu help lines, more than the %d that fit 80x24", MODE_NAMES[m], n, KEYS_HELP_LINES);
	for (size_t i = 0; i < n; i++) {
		if (keys_width(lines[i]) > KEYS_HELP_W)
			fail_msg("mode %s: help line %zu is %zu columns: '%s'", MODE_NAMES[m], i, keys_width(lines[i]), lines[i]);
		assert_true(utf8 || ascii(lines[i]));
		strcat(all, lines[i]);
		strcat(all, " ");
	}
	/* Each row's label and help, in order: the help is the table's. */
	const char *at = all;
	for (size_t i = 0; i < KEYS_COUNT; i++) {
		const struct key_row *r = &KEYS[i];
		if (!(r->modes >> m & 1u))
			continue;
		const char *label = !utf8 && r->label_ascii ? r->label_ascii : r->label;
		const char *l = strstr(at, label);
		if (!l)
			fail_msg("mode %s: the help lacks '%s' after '%.40s'", MODE_NAMES[m], label, at);
		at = l + strlen(label);
		char first[KEYS_HELP_BYTES];
		snprintf(first, sizeof(first), "%.*s", (int)strcspn(r->help, "\n"), r->help);
		const char *h = strstr(at, first);
		if (!h)
			fail_msg("mode %s: the help lacks '%s' for '%s'", MODE_NAMES[m], first, label);
		at = h + strlen(first);
	}
	assert_non_null(strstr(all, "?, F1"));
}

static void test_help(void **state)
{
	(void)state;
	for (int m = 0; m < TUI_MODE__COUNT; m++) {
		const struct key_row *r = keys_find((enum tui_mode)m, '?');
		bool opens = r && r->run == keys_find(TUI_MODE_PROCS, '?')->run;
		assert_int_equal(opens, m == TUI_MODE_PROCS || m == TUI_MODE_GROUPS || m == TUI_MODE_FLEET);
		if (opens) {
			check_help((enum tui_mode)m, true);
			check_help((enum tui_mode)m, false);
		}
	}
	/* The table's help is the 21 lines the 80x24 test counts. */
	char lines[KEYS_HELP_LINES][KEYS_HELP_BYTES];
	assert_int_equal(keys_help(TUI_MODE_PROCS, true, lines, KEYS_HELP_LINES), 21);
	assert_string_equal(lines[1], "?, F1              this help (any key closes it)");
	assert_string_equal(lines[16], "                   opens a group, Esc or Backspace goes back");
}

static const char *hints(enum tui_mode m, const enum key_foot *kinds, size_t nk, bool utf8, const char *sep,
			 const char *text)
{
	static char buf[1024];
	struct key_hint items[64];
	size_t n = keys_hints(m, kinds, nk, utf8, items, 64);

	/* The items are the rows with a hint for each kind, in order. */
	size_t want = 0;
	for (size_t k = 0; k < nk; k++)
		for (size_t i = 0; i < KEYS_COUNT; i++)
			if (KEYS[i].modes >> m & 1u && KEYS[i].hint[kinds[k]]) {
				assert_true(want < n);
				assert_ptr_equal(items[want].row, &KEYS[i]);
				assert_string_equal(items[want].hint, KEYS[i].hint[kinds[k]]);
				want++;
			}
	assert_int_equal(n, want);
	keys_join(items, n, sep, text, buf, sizeof(buf));
	return buf;
}

/* The hint lines read as they did when they were written by hand. */
static void test_hints(void **state)
{
	(void)state;
	const enum key_foot live = KEYS_FOOT_LIVE, replay = KEYS_FOOT_REPLAY, stepped = KEYS_FOOT_STEPPED,
			     own = KEYS_FOOT_OWN, host[] = {KEYS_FOOT_HOST, KEYS_FOOT_LIVE};

	assert_string_equal(hints(TUI_MODE_PROCS, &live, 1, true, "  ", NULL),
			    "q quit  ? help  \u2191\u2193 select  </> sort  r rev  / filter  u mine  i idle  c chart  "
			    "S session  p pause  \u23ce cmd  C cols  d/D interval");
	assert_string_equal(hints(TUI_MODE_PROCS, &live, 1, false, "  ", NULL),
			    "q quit  ? help  j/k select  </> sort  r rev  / filter  u mine  i idle  c chart  S session  "
			    "p pause  Enter cmd  C cols  d/D interval");
	assert_string_equal(hints(TUI_MODE_PROCS, &replay, 1, false, "  ", NULL),
			    "q quit  ? help  space pause  . step  +/- speed  Home/End  Left/Right 10s  J time  j/k select  "
			    "</> sort  / filter  c chart  S session  Enter cmd");
	assert_string_equal(hints(TUI_MODE_PROCS, &stepped, 1, true, "  ", NULL),
			    "q quit  ? help  space run/pause  . one poll  \u2191\u2193 select  </> sort  / filter  "
			    "K signal  \u23ce cmd");
	assert_string_equal(hints(TUI_MODE_PROCS, host, 2, true, "  ", NULL),
			    "Esc/\u232b fleet  q quit  ? help  \u2191\u2193 select  </> sort  r rev  / filter  u mine  "
			    "i idle  c chart  S session  p pause  \u23ce cmd  C cols  d/D interval");
	assert_string_equal(hints(TUI_MODE_FLEET, &own, 1, false, "  ", "gpu"),
			    "q quit  ? help  j/k select  </> sort  r rev  / filter gpu  Enter host's GPUs");
	assert_string_equal(hints(TUI_MODE_SIGNAL, &own, 1, true, "   ", NULL),
			    "Enter sends   Esc cancels   Up/Down or 1-6 choose");
	assert_string_equal(hints(TUI_MODE_COLUMNS, &own, 1, true, "   ", NULL), "space toggles   Enter or Esc closes");
	assert_string_equal(hints(TUI_MODE_FILTER, &own, 1, true, ", ", NULL), "Enter keep, Esc clear");
	assert_string_equal(hints(TUI_MODE_FLEET_FILTER, &own, 1, true, ", ", NULL), "Enter keep, Esc clear");
	assert_string_equal(hints(TUI_MODE_JUMP, &own, 1, true, ", ", NULL), "Enter go, Esc cancel");
	/* Every mode: each kind of line is the table's. */
	for (int m = 0; m < TUI_MODE__COUNT; m++)
		for (int k = 0; k < KEYS_FOOT__COUNT; k++) {
			enum key_foot kind = (enum key_foot)k;
			hints((enum tui_mode)m, &kind, 1, true, "  ", NULL);
			hints((enum tui_mode)m, &kind, 1, false, "  ", NULL);
		}
}

/* Every mode has a way out with Esc; a prompt's line editor takes no key
 * a row of its mode is for, and each prompt has Enter and Esc hints. */
static void test_modes(void **state)
{
	(void)state;
	for (int m = 0; m < TUI_MODE__COUNT; m++) {
		if (!keys_find((enum tui_mode)m, KEYS_ESC))
			fail_msg("mode %s: nothing for Esc", MODE_NAMES[m]);
		const struct key_prompt *p = keys_prompt((enum tui_mode)m);
		assert_int_equal(p != NULL, m == TUI_MODE_FILTER || m == TUI_MODE_FLEET_FILTER || m == TUI_MODE_JUMP);
		if (!p)
			continue;
		assert_non_null(p->title);
		assert_non_null(keys_find((enum tui_mode)m, '\n')->hint[KEYS_FOOT_OWN]);
		assert_non_null(keys_find((enum tui_mode)m, KEYS_ESC)->hint[KEYS_FOOT_OWN]);
		for (size_t i = 0; i < KEYS_COUNT; i++)
			for (int k = 0; KEYS[i].modes >> m & 1u && k < nkeys(&KEYS[i]); k++)
				if (keys_prompt_takes(p, KEYS[i].keys[k]))
					fail_msg("mode %s: its line editor hides '%s'", MODE_NAMES[m], KEYS[i].label);
		assert_true(keys_prompt_takes(p, '1'));
		assert_false(keys_prompt_takes(p, '\n'));
		assert_false(keys_prompt_takes(p, KEY_UP));
	}
	assert_false(keys_prompt_takes(keys_prompt(TUI_MODE_JUMP), 'a'));
	assert_true(keys_prompt_takes(keys_prompt(TUI_MODE_FILTER), 0xC5));
	assert_true(keys_global(KEYS_CTRL('l')));
	assert_false(keys_global('q'));
}

/* A dashboard's state, as tui_run sets it up, without a terminal or a
 * feed: no frame, read-only. */
static struct tui *make(void)
{
	static const struct tui_opts opts = {.read_only = true};
	struct tui *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	t->opts = &opts;
	t->utf8 = true;
	t->rows = 24;
	t->cols = 80;
	settings_defaults(&t->set);
	lineedit_init(&t->table.filter, LINEEDIT_MAX);
	lineedit_init(&t->seek.jump, 15);
	tui_fleet_init(&t->fleet);
	return t;
}

static void drop(struct tui *t)
{
	tui_fleet_fini(&t->fleet);
	free(t->table.view);
	group_fini(&t->groups.list);
	canvas_fini(&t->canvas);
	free(t);
}

static unsigned type(struct tui *t, const char *s)
{
	unsigned done = 0;
	for (; *s; s++)
		done |= keys_dispatch(t, (unsigned char)*s);
	return done;
}

static void test_dispatch(void **state)
{
	(void)state;
	struct tui *t = make();

	/* The help: any key closes it; q closes it and quits. */
	assert_int_equal(keys_dispatch(t, '?'), KEYS_REDRAW);
	assert_int_equal(tui_mode(t), TUI_MODE_HELP);
	assert_int_equal(keys_dispatch(t, 'x'), KEYS_REDRAW);
	assert_int_equal(tui_mode(t), TUI_MODE_PROCS);
	keys_dispatch(t, KEY_F(1));
	assert_true(keys_dispatch(t, 'q') & KEYS_QUIT);
	assert_int_equal(keys_dispatch(t, 'Z'), 0); /* no row */

	/* The filter: UTF-8 byte by byte, q is text, Backspace a character,
	 * Enter keeps, Esc on the table clears. */
	keys_dispatch(t, '/');
	assert_int_equal(tui_mode(t), TUI_MODE_FILTER);
	assert_false(type(t, "nq\xC5\x93") & KEYS_QUIT);
	assert_string_equal(lineedit_text(&t->table.filter), "nq\xC5\x93");
	keys_dispatch(t, KEY_BACKSPACE);
	assert_string_equal(lineedit_text(&t->table.filter), "nq");
	keys_dispatch(t, KEYS_CTRL('l')); /* global: the prompt stays */
	assert_true(t->canvas.repaint);
	assert_int_equal(tui_mode(t), TUI_MODE_FILTER);
	keys_dispatch(t, '\r');
	assert_int_equal(tui_mode(t), TUI_MODE_PROCS);
	assert_string_equal(lineedit_text(&t->table.filter), "nq");
	keys_dispatch(t, KEYS_ESC);
	assert_string_equal(lineedit_text(&t->table.filter), "");
	keys_dispatch(t, '/');
	type(t, "zz");
	keys_dispatch(t, KEYS_ESC);
	assert_int_equal(tui_mode(t), TUI_MODE_PROCS);
	assert_string_equal(lineedit_text(&t->table.filter), "");

	/* The column picker: j moves, space hides a column, q only closes. */
	uint32_t cols = t->set.columns;
	keys_dispatch(t, 'C');
	assert_int_equal(tui_mode(t), TUI_MODE_COLUMNS);
	keys_dispatch(t, 'j');
	keys_dispatch(t, ' ');
	assert_int_equal(t->set.columns, cols & ~2u);
	assert_false(keys_dispatch(t, 'q') & KEYS_QUIT);
	assert_int_equal(tui_mode(t), TUI_MODE_PROCS);

	/* Details and tree: Up/Down stay, t closes the tree, another key
	 * closes and acts (q quits). */
	keys_dispatch(t, '\n');
	assert_int_equal(tui_mode(t), TUI_MODE_DETAILS);
	keys_dispatch(t, KEY_DOWN);
	assert_int_equal(tui_mode(t), TUI_MODE_DETAILS);
	keys_dispatch(t, 't');
	assert_int_equal(tui_mode(t), TUI_MODE_TREE);
	keys_dispatch(t, 't');
	assert_int_equal(tui_mode(t), TUI_MODE_PROCS);
	keys_dispatch(t, '\n');
	assert_true(keys_dispatch(t, 'q') & KEYS_QUIT);
	assert_int_equal(tui_mode(t), TUI_MODE_PROCS);

	/* K: read-only, so no dialog and the reason on the status line. */
	keys_dispatch(t, 'K');
	assert_int_equal(tui_mode(t), TUI_MODE_PROCS);
	assert_string_equal(t->msg.status, "--read-only: signals are disabled");

	/* g: the list of groups, where K says a group is no process; four
	 * more g and the table is not grouped. */
	keys_dispatch(t, 'g');
	assert_int_equal(t->groups.by, GROUP_BY_CONTAINER);
	assert_int_equal(t->set.group, GROUP_BY_CONTAINER);
	assert_int_equal(tui_mode(t), TUI_MODE_GROUPS);
	keys_dispatch(t, KEY_F(9));
	assert_non_null(strstr(t->msg.status, "a group is not a process"));
	for (int i = 1; i < GROUP_BY__COUNT; i++)
		keys_dispatch(t, 'g');
	assert_int_equal(t->groups.by, GROUP_BY_NONE);
	assert_int_equal(tui_mode(t), TUI_MODE_PROCS);

	/* J: only in a replay; digits and ':' only; a time not taken says so
	 * until the next key. */
	assert_int_equal(keys_dispatch(t, 'J'), 0);
	assert_int_equal(tui_mode(t), TUI_MODE_PROCS);
	t->st.replay = true;
	keys_dispatch(t, 'J');
	assert_int_equal(tui_mode(t), TUI_MODE_JUMP);
	type(t, "1a2:3x0");
	assert_string_equal(lineedit_text(&t->seek.jump), "12:30");
	keys_dispatch(t, 127);
	assert_string_equal(lineedit_text(&t->seek.jump), "12:3");
	keys_dispatch(t, KEYS_ESC);
	assert_int_equal(tui_mode(t), TUI_MODE_PROCS);
	keys_dispatch(t, 'J');
	assert_string_equal(lineedit_text(&t->seek.jump), "");
	type(t, "99:99\r");
	assert_int_equal(tui_mode(t), TUI_MODE_PROCS);
	assert_non_null(strstr(t->seek.err, "not a time: '99:99'"));
	drop(t);
}

/* The fleet summary: its own rows; its filter is the line editor, so it
 * takes UTF-8; the table's keys do nothing there. */
static void test_dispatch_fleet(void **state)
{
	(void)state;
	struct tui *t = make();
	struct fleet *fl = fleet_new("http://prom:9090");

	for (int i = 0; i < 2; i++) {
		struct frame *hf = frame_new();
		fleet_add_host(fl, i ? "node-a" : "n\xC5\x93ud", hf);
		frame_unref(hf);
	}
	t->fleet.fleet = fl;
	assert_int_equal(tui_mode(t), TUI_MODE_FLEET);
	assert_int_equal(keys_dispatch(t, 'g'), 0);
	assert_int_equal(t->groups.by, GROUP_BY_NONE);
	keys_dispatch(t, '/');
	assert_int_equal(tui_mode(t), TUI_MODE_FLEET_FILTER);
	type(t, "\xC5\x93");
	assert_string_equal(lineedit_text(&t->fleet.filter), "\xC5\x93");
	assert_int_equal(t->fleet.nrows, 1);
	keys_dispatch(t, KEY_ENTER);
	assert_int_equal(tui_mode(t), TUI_MODE_FLEET);
	keys_dispatch(t, KEYS_ESC);
	assert_string_equal(lineedit_text(&t->fleet.filter), "");
	assert_int_equal(t->fleet.nrows, 2);
	/* Enter opens the selected host (its frame comes with the next one);
	 * Backspace goes back. */
	keys_dispatch(t, KEY_END);
	keys_dispatch(t, '\n');
	assert_true(t->fleet.host_open);
	assert_string_equal(t->fleet.host, "n\xC5\x93ud"); /* by name: 'o' before 0xC5 */
	assert_int_equal(tui_mode(t), TUI_MODE_PROCS);
	keys_dispatch(t, KEY_BACKSPACE);
	assert_false(t->fleet.host_open);
	assert_int_equal(tui_mode(t), TUI_MODE_FLEET);
	drop(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unique),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_hints),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_dispatch),
		cmocka_unit_test(test_dispatch_fleet),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
