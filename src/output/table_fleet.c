/* table_fleet: the fleet summary as text, from fleet_view's cells. */
#include "output/table_fleet.h"

#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"
#include "util/xalloc.h"
#include "output/fleet_view.h"

/* Widths for text. The host column is as wide as the widest name, at most
 * FLEET_NAME_MAX, and the container takes the rest of the line. */
static void put_cell(struct buf *out, const char *s, int w, bool right, bool utf8)
{
	struct buf tmp;
	buf_init(&tmp);
	utf8_append_safe(&tmp, s, strlen(s), utf8);
	/* The fleet makes names safe and bounded. Columns count bytes here
	 * only for padding, so a wide name still shows whole. */
	int len = (int)tmp.len, pad = w > len ? w - len : 0;
	if (right)
		for (int i = 0; i < pad; i++)
			buf_putc(out, ' ');
	buf_append(out, buf_cstr(&tmp), tmp.len);
	if (!right && w)
		for (int i = 0; i < pad; i++)
			buf_putc(out, ' ');
	buf_fini(&tmp);
}

void table_render_fleet(struct buf *out, const struct fleet *fl, uint64_t now_ms, const struct table_opts *o)
{
	struct fleet_row *rows = xreallocarray(NULL, fl->nhosts ? fl->nhosts : 1, sizeof(*rows));
	struct fleet_view_opts vo = {.sort = FLEET_HOST};
	size_t n = fleet_view(fl, &vo, rows);
	char cell[FLEET_NAME_MAX + 64];
	int w[FLEET__COUNT];

	fleet_status(fl, now_ms, cell, sizeof(cell));
	buf_puts(out, "fleet ");
	put_cell(out, fl->url ? fl->url : "", 0, false, o->utf8);
	buf_puts(out, ": ");
	put_cell(out, cell, 0, false, o->utf8);
	buf_putc(out, '\n');
	for (int c = 0; c < FLEET__COUNT; c++)
		w[c] = (int)strlen(FLEET_COLS[c].title);
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < FLEET__COUNT; c++) {
			fleet_cell(fl, &rows[i], (enum fleet_col)c, cell, sizeof(cell));
			int len = (int)strlen(cell);
			w[c] = len > w[c] ? len : w[c];
		}
	w[FLEET_CONTAINER] = 0;
	for (int c = 0; c < FLEET__COUNT; c++) {
		put_cell(out, FLEET_COLS[c].title, w[c], FLEET_COLS[c].right, o->utf8);
		buf_puts(out, c + 1 < FLEET__COUNT ? "  " : "\n");
	}
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < FLEET__COUNT; c++) {
			fleet_cell(fl, &rows[i], (enum fleet_col)c, cell, sizeof(cell));
			put_cell(out, cell, w[c], FLEET_COLS[c].right, o->utf8);
			buf_puts(out, c + 1 < FLEET__COUNT ? "  " : "\n");
		}
	for (size_t i = 0; i < n; i++) {
		buf_putc(out, '\n');
		table_render(out, fl->hosts[rows[i].host].frame, o);
	}
	free(rows);
}
