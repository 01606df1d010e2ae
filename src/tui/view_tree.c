/* view_tree: the selected process in its process tree (`t`). It shows its
 * parents from the outermost, its container's init or PID 1, down to it,
 * then the GPU processes below it, and marks every process that uses a GPU
 * with the GPUs and the memory it holds there. It shows only what the frame
 * carries. The parents are read from /proc with the rest of the process
 * details, so a replayed or remote row has none, and the screen says so. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/tui_priv.h"
#include "util/xalloc.h"

#define TREE_MAX_NODES 256
#define TREE_MAX_DEPTH 34 /* the 32 parents a row carries, the process, and one below */

/* One line below the selected process: the pids from just under it down
 * to this node, which orders the lines as a depth-first walk. */
struct node {
	uint64_t path[TREE_MAX_DEPTH];
	size_t depth;
	const char *name;
};

/* Writes the GPUs that pid uses in f and the memory it holds on them, as
 * "GPU 0,2 · 1.2G", or "" when it is not a GPU process. */
static void gpu_use(const struct frame *f, uint64_t pid, char *buf, size_t n)
{
	bool on[FRAME_MAX_GPUS] = {false}, any = false, mem_known = false;
	long double mem = 0;
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < f->nprocs; i++) {
		const struct gpu_process *p = &f->procs[i];
		if (p->pid != pid || p->gpu_index >= FRAME_MAX_GPUS)
			continue;
		on[p->gpu_index] = any = true;
		if (process_has(p, PROC_F_GPU_MEM)) {
			mem += p->gpu_mem_bytes;
			mem_known = true;
		}
	}
	if (!any)
		return;
	off += (size_t)snprintf(buf + off, n - off, "GPU ");
	bool first = true;
	for (size_t g = 0; g < FRAME_MAX_GPUS && off < n; g++)
		if (on[g]) {
			off += (size_t)snprintf(buf + off, n - off, "%s%zu", first ? "" : ",", g);
			first = false;
		}
	if (mem_known && off < n) {
		char sz[32];
		tui_size(sz, sizeof(sz), true, field_num_u64(mem));
		snprintf(buf + off, n - off, "  %s", sz);
	}
}

/* Draws one line of the tree: indentation, pid, name and the GPU mark. */
static void tree_line(struct tui *t, const struct frame *f, int y, int x, int w, size_t depth, uint64_t pid,
		      const char *name, bool selected, bool last)
{
	char head[64], use[96];
	int indent = (int)(depth * 2 > 40 ? 40 : depth * 2);

	if (depth)
		tui_text(t, y, x + indent - 2, t->utf8 ? (last ? "\u2514\u2500" : "\u251c\u2500") : (last ? "`-" : "|-"), 2);
	snprintf(head, sizeof(head), "%" PRIu64 " ", pid);
	if (selected)
		tui_attr(t, TC_SEL, true);
	int used = indent + tui_text(t, y, x + indent, head, w - indent);
	if (!name)
		tui_attr(t, TC_DIM, true);
	used += tui_text(t, y, x + used, name ? name : "(gone or unreadable)", w - used);
	if (!name)
		tui_attr(t, TC_DIM, false);
	if (selected)
		tui_attr(t, TC_SEL, false);
	gpu_use(f, pid, use, sizeof(use));
	if (use[0] && used + 3 < w) {
		tui_attr(t, TC_OK, true);
		tui_text(t, y, x + used + 2, use, w - used - 2);
		tui_attr(t, TC_OK, false);
	}
}

static int node_cmp(const void *a, const void *b)
{
	const struct node *x = a, *y = b;
	size_t n = x->depth < y->depth ? x->depth : y->depth;

	for (size_t i = 0; i < n; i++)
		if (x->path[i] != y->path[i])
			return x->path[i] < y->path[i] ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/* Collects the GPU processes under pid, and the processes between, as nodes
 * with their paths from pid, deduplicated and in tree order. Returns how
 * many. */
static size_t descendants(const struct frame *f, uint64_t pid, struct node *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < f->nprocs; i++) {
		const struct gpu_process *p = &f->procs[i];
		size_t k = 0;
		while (k < p->nparents && p->parents[k].pid != pid)
			k++;
		if (k == p->nparents || k + 1 > TREE_MAX_DEPTH)
			continue;
		/* parents[k - 1] to parents[0], then p, at depths 1 to k + 1. */
		for (size_t d = 1; d <= k + 1 && n < max; d++) {
			struct node nd = {.depth = d};
			for (size_t j = 0; j < d; j++)
				nd.path[j] = j < k ? p->parents[k - 1 - j].pid : p->pid;
			nd.name = d <= k ? p->parents[k - d].name : p->name;
			bool dup = false;
			for (size_t m = 0; m < n && !dup; m++)
				dup = node_cmp(&out[m], &nd) == 0;
			if (!dup)
				out[n++] = nd;
		}
	}
	qsort(out, n, sizeof(*out), node_cmp);
	return n;
}

void tui_tree_draw(struct tui *t)
{
	const struct gpu_process *p;
	const struct frame *f = t->frame;
	struct tui_inside in;

	if (!tui_overlay(t, TUI_MODE_TREE, "process tree of pid", &p, &in) || !p || !f)
		return;
	int ix = in.x, iw = in.w, r = in.y, end = in.end;
	if (!p->local) {
		tui_attr(t, TC_DIM, true);
		tui_text(t, r++, ix, "No process tree for this row: the tree is read from this machine's /proc, and", iw);
		tui_text(t, r, ix, "replayed or remote rows (recordings do not carry it) have none.", iw);
		tui_attr(t, TC_DIM, false);
		tree_line(t, f, r + 2, ix, iw, 0, p->pid, process_has(p, PROC_F_NAME) ? p->name : NULL, true, true);
		return;
	}
	/* Above it, the outermost parent comes first. A deep chain shows its
	 * nearest parents, and one line says how many it leaves out. */
	size_t np = p->nparents, room = end - r > 2 ? (size_t)(end - r - 2) : 1, skip = 0;
	if (np + 1 > room)
		skip = np + 1 - room;
	if (skip) {
		char more[64];
		snprintf(more, sizeof(more), "(%zu more parents above)", skip);
		tui_attr(t, TC_DIM, true);
		tui_text(t, r++, ix, more, iw);
		tui_attr(t, TC_DIM, false);
	}
	size_t depth = 0;
	for (size_t i = np - skip; i-- > 0 && r < end;)
		tree_line(t, f, r++, ix, iw, depth++, p->parents[i].pid, p->parents[i].name, false, true);
	if (r < end)
		tree_line(t, f, r++, ix, iw, depth, p->pid, process_has(p, PROC_F_NAME) ? p->name : NULL, true, true);
	struct node *below = xcalloc(TREE_MAX_NODES, sizeof(*below));
	size_t nb = descendants(f, p->pid, below, TREE_MAX_NODES);
	for (size_t i = 0; i < nb && r < end; i++) {
		/* It is the last of its siblings when no later node is at its depth
		 * before the walk climbs above it. */
		bool last = true;
		for (size_t j = i + 1; j < nb && below[j].depth >= below[i].depth && last; j++)
			last = below[j].depth != below[i].depth;
		tree_line(t, f, r++, ix, iw, depth + below[i].depth, below[i].path[below[i].depth - 1], below[i].name,
			  false, last);
	}
	free(below);
	if (np == 0 && r < end) {
		tui_attr(t, TC_DIM, true);
		const char *why = p->pid == 1 ? "PID 1 has no parent."
			: process_has(p, PROC_F_CONTAINER_PID) && p->container_pid == 1
				? "Its container's init: what is above it (a shim, the runtime) is the host's."
				: "Its parent could not be read.";
		tui_text(t, r + 1, ix, why, iw);
		tui_attr(t, TC_DIM, false);
	}
}
