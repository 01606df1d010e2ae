#!/usr/bin/env python3
"""report_oracle.py: what `gpur --report OUT.json` should say about a
recording, computed here from docs/report.md's definitions alone (python's
json module reads the JSONL; nothing of gpur's code is used), then compared
with gpur's JSON.

  report_oracle.py RECORDING REPORT.json [--from MS] [--to MS] [--gpus I,J]
                   [--idle-mem BYTES] [--idle-after MS]
  report_oracle.py RECORDING REPORT.html [--from MS] [--to MS] [--gpus I,J]

Exit status 0 when every value agrees (relative 1e-9), 1 with the
differences on stderr.

Given an HTML report, it checks what the page shows of GPM and XIDs: the
SM and tensor columns of #gpus, the lanes of each plot (SM active and tensor
active only for a GPU that had them, and their column means), the xid marks
of each plot (where and what) and the xid rows of #events."""
import html.parser
import json
import math
import sys
import time

GAP_MS = 5000
SLOWING = {"sw_power_cap", "hw_slowdown", "sw_thermal", "hw_thermal", "hw_power_brake"}
GIB_H = 2**30 * 3600000.0
# The plot geometry of docs/report.md: 640 columns of at least 1 s, 640
# pixels wide from x = 64.
COLUMNS = 640
MIN_WIDTH_MS = 1000
PLOT_LEFT, PLOT_WIDTH = 64.0, 640.0
MAX_EVENTS = 1000
# The lanes from the top; SM and tensor only where known.
LANES = [("util", "util_pct"), ("SM active", "sm_active_pct"), ("tensor active", "tensor_active_pct"),
         ("memory used", "mem_used_bytes"), ("power", "power_w"), ("temperature", "temp_c"),
         ("graphics clock", "clock_gfx_mhz")]
GPM_KEYS = ("sm_active_pct", "tensor_active_pct")
# The meanings this oracle knows of the XIDs its tests record without a
# detail (docs/nvml.md#xid-errors); any other number has none.
XID_MEANINGS = {13: "graphics engine exception (an application fault)",
                31: "GPU memory page fault (an application fault)", 48: "double-bit ECC error",
                79: "GPU has fallen off the bus"}


def load(path, lo, hi, gpus):
    recs = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if not isinstance(r, dict):
                continue
            t = r.get("ts_ms")
            if lo is not None and (t is None or t < lo):
                continue
            if hi is not None and (t is None or t > hi):
                continue
            g = r.get("gpus") or []
            keep = list(range(len(g))) if gpus is None else [i for i in gpus if i < len(g)]
            r["_gpus"] = [(i, g[i]) for i in keep]
            procs = []
            for p in r.get("processes") or []:
                gi = p.get("gpu_index") or 0
                if gi in keep and isinstance(p.get("pid"), int):
                    procs.append((g[gi].get("device_id"), p))
            r["_procs"] = procs
            r["_events"] = events_of(r, g, keep, gpus is not None)
            recs.append(r)
    return recs


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def events_of(r, g, keep, selected):
    """The record's events as gpur reads them: one without a kind is none,
    a gpu_index past the record's GPUs is unknown, and with --gpus the
    events of GPUs not kept are left out."""
    out = []
    for e in r.get("events") or []:
        if not isinstance(e, dict) or not isinstance(e.get("kind"), str):
            continue
        if e["kind"] in ("idle", "active"):
            continue  # recomputed, with the report's options
        e = dict(e)
        gi = e.get("gpu_index")
        if not is_int(gi) or not 0 <= gi < len(g):
            e.pop("gpu_index", None)
        elif selected and gi not in keep:
            continue
        out.append(e)
    return out


IDLE_MEM, IDLE_AFTER, IDLE_GAP = 2**30, 1800000, 900000


def span_text(ms):
    s = ms // 1000
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m"
    if s < 86400:
        return f"{s // 3600}h{s // 60 % 60:02d}m"
    return f"{s // 86400}d{s // 3600 % 24:02d}h"


def quiet(p, g, mem):
    """docs/report.md: holds at least mem at 0 % (its own, else its GPU's)."""
    if not known(p, "gpu_mem_bytes") or p["gpu_mem_bytes"] < mem:
        return False
    if known(p, "gpu_util_pct"):
        return p["gpu_util_pct"] <= 0
    return g is not None and known(g, "util_pct") and g["util_pct"] <= 0


def idle_pass(recs, mem, after):
    """Marks each process row that is idle with "_idle_since", and adds the
    idle and active events to the records, as docs/report.md defines them."""
    state = {}
    for r in recs:
        now = r.get("ts_ms")
        if not is_int(now) or now <= 0:
            continue
        gpus = {g.get("device_id"): (pos, i, g) for pos, (i, g) in enumerate(r["_gpus"])}
        for d, p in r["_procs"]:
            pos, idx, g = gpus.get(d, (None, None, None))
            key = (p["pid"], p.get("start_ms") if is_int(p.get("start_ms")) else 0, d)
            s = state.get(key)
            name = p["name"] if isinstance(p.get("name"), str) and p["name"] else "?"
            if not quiet(p, g, mem):
                if s and s["idle"]:
                    r["_events"].append({"kind": "active", "gpu_index": idx, "device_id": d, "pid": p["pid"],
                                         "detail": f"{name} works again after idle "
                                                   f"{span_text(max(now - s['since'], 0))}"})
                state.pop(key, None)
                continue
            if s and not s["idle"] and now > s["seen"] + IDLE_GAP:
                s["since"] = now
            if not s:
                s = state[key] = {"since": now, "idle": False, "name": None}
            s["seen"] = now
            if s["name"] is None and isinstance(p.get("name"), str):
                s["name"] = p["name"]
            if now - s["since"] < after:
                continue
            p["_idle_since"] = s["since"]
            if not s["idle"]:
                s["idle"] = True
                user = f" ({p['user']})" if isinstance(p.get("user"), str) and p["user"] else ""
                r["_events"].append({"kind": "idle", "gpu_index": idx, "device_id": d, "pid": p["pid"],
                                     "detail": f"{name}{user} holds "
                                               f"{p['gpu_mem_bytes'] / 2**30:.1f} GiB at 0% GPU for "
                                               f"{span_text(now - s['since'])}"})
        gone = []
        for key, s in state.items():
            if s["seen"] == now:
                continue
            pos, idx, g = gpus.get(key[2], (None, None, None))
            if g is None or g.get("state") in ("lost", "suspended"):
                continue
            gone.append((pos, key[0], key[1], idx, key, s))
        for pos, pid, start, idx, key, s in sorted(gone, key=lambda x: x[:3]):
            if s["idle"]:
                r["_events"].append({"kind": "active", "gpu_index": idx, "device_id": key[2], "pid": pid,
                                     "detail": f"{s['name'] or '?'} exited after idle "
                                               f"{span_text(max(now - s['since'], 0))}"})
            del state[key]


def stretches(recs):
    """(record, its successor or None, capped duration ms) for every record."""
    for i, r in enumerate(recs):
        n = recs[i + 1] if i + 1 < len(recs) else None
        dt = 0
        if n is not None and r.get("ts_ms") is not None and n.get("ts_ms") is not None and n["ts_ms"] > r["ts_ms"]:
            dt = min(n["ts_ms"] - r["ts_ms"], GAP_MS)
        yield r, n, dt


def known(d, k):
    v = d.get(k)
    return v is not None and not isinstance(v, bool) and isinstance(v, (int, float))


def stretch_energy(g, ng, dt):
    if ng is None:
        return None
    if known(g, "energy_j") and known(ng, "energy_j") and ng["energy_j"] >= g["energy_j"]:
        return ng["energy_j"] - g["energy_j"]
    pw = [x["power_w"] for x in (g, ng) if known(x, "power_w")]
    if not pw:
        return None
    return sum(pw) / len(pw) * dt / 1000.0


def groups_of(p):
    out = []
    c = p.get("container")
    if isinstance(c, str) and c.startswith("slurm:") and len(c) > 6:
        out.append(("slurm_job", c[6:]))
    elif isinstance(c, str) and c:
        out.append(("container", c))
    if isinstance(p.get("pod"), str) and p["pod"]:
        out.append(("pod", p["pod"]))
    if isinstance(p.get("user"), str) and p["user"]:
        out.append(("user", p["user"]))
    return out


def compute(recs):
    gpus, procs, groups = {}, {}, {}
    total_energy = 0.0
    for r, n, dt in stretches(recs):
        nxt = {g.get("device_id"): g for _, g in (n["_gpus"] if n else [])}
        energy = {}
        for idx, g in r["_gpus"]:
            d = g.get("device_id")
            s = gpus.setdefault(d, {"index": idx, "device_id": d, "util": [], "mem": [], "temp": [], "sm": [],
                                    "tensor": [], "energy": None, "lost": None, "throttled": None})
            s["index"] = idx
            if "name" in g:
                s.setdefault("name", g["name"])
            for k, key in (("util", "util_pct"), ("mem", "mem_used_bytes"), ("temp", "temp_c"),
                           ("sm", "sm_active_pct"), ("tensor", "tensor_active_pct")):
                if known(g, key):
                    s[k].append(g[key])
            if "state" in g:
                s["lost"] = (s["lost"] or 0) + (dt if g["state"] == "lost" else 0)
            if isinstance(g.get("throttle"), list):
                s["throttled"] = (s["throttled"] or 0) + (dt if SLOWING & set(g["throttle"]) else 0)
            e = stretch_energy(g, nxt.get(d), dt)
            if e is not None:
                s["energy"] = (s["energy"] or 0) + e
                energy[d] = e
        on = {}
        for d, p in r["_procs"]:
            on.setdefault(d, []).append(p)
        seen_pairs = set()
        for d, p in r["_procs"]:
            key = (p["pid"], p.get("start_ms"), d)
            e = procs.setdefault(key, {"pid": p["pid"], "gpu": d, "ts": [], "mem": [], "mem_ms": 0.0, "util": [],
                                       "p": p, "idle_ms": 0.0, "pending": 0.0, "idle_since": None})
            if r.get("ts_ms") is not None:
                e["ts"].append(r["ts_ms"])
            mem_ms = 0.0
            if known(p, "gpu_mem_bytes"):
                e["mem"].append(p["gpu_mem_bytes"])
                mem_ms = p["gpu_mem_bytes"] * dt
                e["mem_ms"] += mem_ms
            if known(p, "gpu_util_pct"):
                e["util"].append(p["gpu_util_pct"])
            idle_add = 0.0
            gd = {g.get("device_id"): g for _, g in r["_gpus"]}.get(d)
            if p.get("_idle_since") is not None:
                idle_add = e["pending"] + mem_ms
                e["pending"] = 0.0
                if e["idle_since"] is None:
                    e["idle_since"] = p["_idle_since"]
            elif quiet(p, gd, IDLE_MEM):
                e["pending"] += mem_ms
            else:
                e["pending"] = 0.0
            e["idle_ms"] += idle_add
            share = 0.0
            if d in energy:
                mates = on[d]
                utils = [m.get("gpu_util_pct") for m in mates]
                if all(known(m, "gpu_util_pct") for m in mates) and sum(utils) > 0:
                    share = energy[d] * p["gpu_util_pct"] / sum(utils)
                else:
                    share = energy[d] / len(mates)
            for gk in groups_of(p):
                g = groups.setdefault(gk, {"gpu_ms": 0.0, "mem_ms": 0.0, "energy": 0.0, "mem_known": False,
                                           "idle_ms": 0.0})
                g["mem_ms"] += mem_ms
                g["idle_ms"] += idle_add
                g["mem_known"] |= known(p, "gpu_mem_bytes")
                g["energy"] += share
                if (gk, d) not in seen_pairs:
                    seen_pairs.add((gk, d))
                    g["gpu_ms"] += dt
    for s in gpus.values():
        if s["energy"] is not None:
            total_energy += s["energy"]
    want_gpus = []
    for s in gpus.values():
        o = {"index": s["index"], "device_id": s["device_id"]}
        if "name" in s:
            o["name"] = s["name"]
        for k, key in (("util", "util_pct"), ("sm", "sm_active_pct"), ("tensor", "tensor_active_pct")):
            if s[k]:
                o[key + "_mean"] = sum(s[k]) / len(s[k])
                o[key + "_max"] = max(s[k])
        if s["mem"]:
            o["mem_used_bytes_mean"] = sum(s["mem"]) / len(s["mem"])
            o["mem_used_bytes_max"] = max(s["mem"])
        if s["temp"]:
            o["temp_c_max"] = max(s["temp"])
        if s["energy"] is not None:
            o["energy_j"] = s["energy"]
        if s["lost"] is not None:
            o["lost_s"] = s["lost"] / 1000.0
        if s["throttled"] is not None:
            o["throttled_s"] = s["throttled"] / 1000.0
        want_gpus.append(o)
    want_procs = []
    for (pid, start, d), e in procs.items():
        p = e["p"]
        o = {"pid": pid, "gpu_index": gpus[d]["index"]}
        if start is not None:
            o["start_ms"] = start
        for k in ("user", "name", "cmdline", "container"):
            if isinstance(p.get(k), str) and p[k]:
                o[k] = p[k]
        if isinstance(p.get("pod"), str):
            ns, nm = p.get("pod_namespace"), p.get("pod_name")
            o["pod"] = f"{ns}/{nm}" if ns and nm else nm or p["pod"]
        if e["ts"]:
            o["first_ms"], o["last_ms"] = min(e["ts"]), max(e["ts"])
        if e["mem"]:
            o["gpu_mem_bytes_max"] = max(e["mem"])
            o["gpu_mem_gib_h"] = e["mem_ms"] / GIB_H
        if e["util"]:
            o["gpu_util_pct_mean"] = sum(e["util"]) / len(e["util"])
        if e["idle_since"] is not None:
            o["idle_since_ms"] = e["idle_since"]
            o["idle_gib_h"] = e["idle_ms"] / GIB_H
        want_procs.append(o)
    want_groups = []
    for (kind, gid), g in groups.items():
        o = {"kind": kind, "id": gid, "gpu_h": g["gpu_ms"] / 3600000.0}
        if g["mem_known"]:
            o["gpu_mem_gib_h"] = g["mem_ms"] / GIB_H
        if total_energy > 0:
            o["energy_j"] = g["energy"]
            o["energy_share"] = g["energy"] / total_energy
        if g["idle_ms"] > 0:
            o["idle_gib_h"] = g["idle_ms"] / GIB_H
        want_groups.append(o)
    ts = [r["ts_ms"] for r in recs if r.get("ts_ms") is not None]
    span = {"records": len(recs), "from_ms": min(ts), "to_ms": max(ts),
            "gaps": sum(1 for a, b in zip(ts, ts[1:]) if b - a > GAP_MS),
            "gap_s": sum(b - a for a, b in zip(ts, ts[1:]) if b - a > GAP_MS) / 1000.0,
            "events": sum(len(r["_events"]) for r in recs)}
    return span, want_gpus, want_procs, want_groups


EVENT_STRS = ("kind", "device_id", "backend", "signal", "result", "detail")
EVENT_INTS = ("gpu_index", "pid", "xid", "gpu_instance_id")


def want_events(recs):
    """The first 1,000 events as the JSON lists them."""
    out = []
    for r in recs:
        for e in r["_events"]:
            o = {}
            if is_int(r.get("ts_ms")) and r["ts_ms"] > 0:
                o["ts_ms"] = r["ts_ms"]
            o.update({k: e[k] for k in EVENT_STRS if isinstance(e.get(k), str)})
            o.update({k: e[k] for k in EVENT_INTS if is_int(e.get(k))})
            out.append(o)
    return out[:MAX_EVENTS]


def same(a, b):
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    return a == b


def compare(what, want, got, errors, ignore=()):
    for k in sorted(set(want) | set(got)):
        if k in ignore:
            continue
        if k not in got:
            errors.append(f"{what}: {k} missing (expected {want[k]!r})")
        elif k not in want:
            errors.append(f"{what}: {k} = {got[k]!r} should be absent")
        elif not same(want[k], got[k]):
            errors.append(f"{what}: {k} = {got[k]!r}, expected {want[k]!r}")


def grid(recs):
    """The plots' time axis: the origin (the first record's time), the column
    width (1 s, doubled until every record falls in the 640 columns) and the
    columns used."""
    ts = [r["ts_ms"] for r in recs if is_int(r.get("ts_ms")) and r["ts_ms"] > 0]
    if not ts:
        return None
    t0, w = ts[0], MIN_WIDTH_MS
    late = max(t for t in ts if t >= t0) - t0
    while late // w >= COLUMNS:
        w *= 2
    return t0, w, late // w + 1


def column_means(recs, d, key, t0, w, n):
    """The mean of GPU d's known values of key in each column, or None."""
    sums, counts = [0.0] * n, [0] * n
    for r in recs:
        t = r.get("ts_ms")
        if not is_int(t) or t <= 0 or t < t0:
            continue
        for _, g in r["_gpus"]:
            if g.get("device_id") == d and known(g, key):
                sums[(t - t0) // w] += g[key]
                counts[(t - t0) // w] += 1
    return [sums[c] / counts[c] if counts[c] else None for c in range(n)]


def utc(ms):
    return time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(ms // 1000))


def describe_xid(e):
    """An xid event as the report words it: kind, GPU, backend, instance,
    the XID once, then its meaning (the detail without a leading "XID N",
    else the meaning of the number)."""
    out = "xid"
    if is_int(e.get("gpu_index")):
        out += f" GPU {e['gpu_index']}"
    if isinstance(e.get("backend"), str):
        out += f" ({e['backend']})"
    if is_int(e.get("gpu_instance_id")):
        out += f" instance {e['gpu_instance_id']}"
    x = e["xid"]
    out += f" XID {x}"
    d = e.get("detail") if isinstance(e.get("detail"), str) else None
    head = f"XID {x}"
    if d is not None and d.startswith(head) and d[len(head):len(head) + 1] in ("", ":"):
        d = d[len(head):].lstrip(":").lstrip(" ")
    d = d or XID_MEANINGS.get(x)
    return out + (f": {d}" if d else "")


class Page(html.parser.HTMLParser):
    """The tables (rows of cell texts, with each row's class) and the plots
    (device id, lanes with their data-v, event marks) of a report page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.plots = {}, []
        self.table = self.row = self.cell = self.title = None
        self.small, self.device = None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.table = self.tables.setdefault(a.get("id"), [])
        elif tag == "tr" and self.table is not None:
            self.row = {"class": a.get("class"), "cells": []}
            self.table.append(self.row)
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []
        elif tag == "small":
            self.small = []
        elif tag == "svg" and "plot" in (a.get("class") or "").split():
            self.plots.append({"device": self.device, "lanes": [], "marks": [], "attrs": a})
        elif tag == "g" and a.get("class") == "lane":
            self.plots[-1]["lanes"].append((a.get("data-label"), a.get("data-v")))
        elif tag == "line" and "ev" in (a.get("class") or "").split():
            self.plots[-1]["marks"].append({"class": a["class"].split(), "x": a.get("x1"), "title": ""})
            self.title = self.plots[-1]["marks"][-1]

    def handle_endtag(self, tag):
        if tag == "table":
            self.table = None
        elif tag == "tr":
            self.row = None
        elif tag in ("td", "th") and self.cell is not None:
            self.row["cells"].append("".join(self.cell))
            self.cell = None
        elif tag == "small" and self.small is not None:
            self.device, self.small = "".join(self.small), None
        elif tag == "line":
            self.title = None

    def handle_data(self, data):
        for part in (self.cell, self.small):
            if part is not None:
                part.append(data)
        if self.title is not None:
            self.title["title"] += data


def cell(v):
    return "--" if v is None else f"{v:.1f}"


def check_gpus_table(page, gpus, errors):
    rows = page.tables.get("gpus") or []
    if not rows:
        errors.append("no #gpus table")
        return
    head = rows[0]["cells"]
    gpm = any(k + "_mean" in g for g in gpus for k in GPM_KEYS)
    cols = ["SM active mean %", "SM active peak %", "tensor active mean %", "tensor active peak %"]
    if gpm != all(c in head for c in cols) or (not gpm and any(c in head for c in cols)):
        errors.append(f"#gpus: the SM and tensor columns should {'' if gpm else 'not '}be there: {head}")
        return
    by = {r["cells"][2]: r["cells"] for r in rows[1:]}
    for g in gpus:
        got = by.get(g["device_id"])
        if got is None:
            errors.append(f"#gpus: no row for {g['device_id']}")
            continue
        for c, key in zip(cols, ("sm_active_pct_mean", "sm_active_pct_max", "tensor_active_pct_mean",
                                 "tensor_active_pct_max")):
            if gpm and got[head.index(c)] != cell(g.get(key)):
                errors.append(f"#gpus {g['device_id']}: {c} is {got[head.index(c)]!r}, expected {cell(g.get(key))!r}")


def want_marks(recs, events, index, t0, span):
    """The xid marks of the plot of the GPU at index: one per pixel column,
    with its x and its title."""
    out, drawn = [], set()
    for r, e in events:
        t = r.get("ts_ms")
        if e.get("kind") != "xid" or not is_int(e.get("xid")) or not is_int(t) or t <= 0:
            continue
        if is_int(e.get("gpu_index")) and e["gpu_index"] != index:
            continue
        x = PLOT_LEFT if t < t0 else PLOT_LEFT + min((t - t0) / span, 1.0) * PLOT_WIDTH
        px = int(x - PLOT_LEFT)
        if px in drawn:
            continue
        drawn.add(px)
        out.append((f"{x:.1f}", f"{utc(t)} {describe_xid(e)}"))
    return out


def check_plot(recs, events, g, plot, geo, errors):
    t0, w, n = geo
    what = f"plot of {g['device_id']}"
    attrs = plot["attrs"]
    if (attrs.get("data-t0"), attrs.get("data-w"), attrs.get("data-n")) != (str(t0), str(w), str(n)):
        errors.append(f"{what}: axis {attrs.get('data-t0')}, {attrs.get('data-w')}, {attrs.get('data-n')}, "
                      f"expected {t0}, {w}, {n}")
    shown = [(label, key) for label, key in LANES if key not in GPM_KEYS or key + "_mean" in g]
    labels = [label for label, _ in plot["lanes"]]
    if labels != [label for label, _ in shown]:
        errors.append(f"{what}: lanes {labels}, expected {[label for label, _ in shown]}")
        return
    for (label, data), (_, key) in zip(plot["lanes"], shown):
        if key not in GPM_KEYS:
            continue
        want = column_means(recs, g["device_id"], key, t0, w, n)
        got = data.split(",")
        if len(got) != n:
            errors.append(f"{what}: {label} has {len(got)} columns, expected {n}")
            continue
        for c, (a, b) in enumerate(zip(got, want)):
            if (a == "") != (b is None) or (b is not None and not math.isclose(float(a), b, rel_tol=1e-3)):
                errors.append(f"{what}: {label} column {c} is {a!r}, expected {b}")
    got = [(m["x"], m["title"]) for m in plot["marks"] if "ev-xid" in m["class"]]
    want = want_marks(recs, events, g["index"], t0, n * w)
    if got != want:
        errors.append(f"{what}: xid marks {got}, expected {want}")


def check_html(recs, path):
    page = Page()
    with open(path, encoding="utf-8") as f:
        page.feed(f.read())
    page.close()
    errors = []
    _, gpus, _, _ = compute(recs)
    gpus.sort(key=lambda g: (g["index"], g["device_id"]))
    check_gpus_table(page, gpus, errors)
    events = [(r, e) for r in recs for e in r["_events"]][:MAX_EVENTS]
    geo = grid(recs)
    plots = {p["device"]: p for p in page.plots}
    for g in gpus[:64]:
        if g["device_id"] not in plots or geo is None:
            errors.append(f"no plot of {g['device_id']}")
            continue
        check_plot(recs, events, g, plots[g["device_id"]], geo, errors)
    got = [" ".join(r["cells"]) for r in page.tables.get("events", [])[1:] if r["class"] == "xid"]
    want = [f"{utc(r['ts_ms']) if is_int(r.get('ts_ms')) and r['ts_ms'] > 0 else '--'} {describe_xid(e)}"
            for r, e in events if e.get("kind") == "xid" and is_int(e.get("xid"))]
    if got != want:
        errors.append(f"#events: xid rows {got}, expected {want}")
    for e in errors:
        print("report_oracle: " + e, file=sys.stderr)
    marks = sum(len(p["marks"]) for p in page.plots)
    print(f"report_oracle: {len(gpus)} GPUs, {len(page.plots)} plots, {marks} marks, {len(want)} xid rows "
          f"compared; {len(errors)} differences")
    return 1 if errors else 0


def main():
    global IDLE_MEM, IDLE_AFTER
    args = sys.argv[1:]
    lo = hi = gsel = None
    while len(args) > 2:
        opt, val = args[-2], args[-1]
        args = args[:-2]
        if opt == "--from":
            lo = int(val)
        elif opt == "--to":
            hi = int(val)
        elif opt == "--gpus":
            gsel = [int(x) for x in val.split(",")]
        elif opt == "--idle-mem":
            IDLE_MEM = int(val)
        elif opt == "--idle-after":
            IDLE_AFTER = int(val)
    recs = load(args[0], lo, hi, gsel)
    idle_pass(recs, IDLE_MEM, IDLE_AFTER)
    if args[1].lower().endswith((".html", ".htm")):
        return check_html(recs, args[1])
    with open(args[1], encoding="utf-8") as f:
        got = json.load(f)
    span, gpus, procs, groups = compute(recs)
    errors = []
    if set(got) != {"span", "gpus", "processes", "groups", "events"}:
        errors.append(f"top-level keys {sorted(got)}")
    compare("span", span, got["span"], errors, ignore=("host", "backend", "driver", "duration_s"))
    by = {g["device_id"]: g for g in got["gpus"]}
    if len(by) != len(gpus):
        errors.append(f"{len(got['gpus'])} GPUs, expected {len(gpus)}")
    for w in gpus:
        compare(f"GPU {w['device_id']}", w, by.get(w["device_id"], {}), errors)
    byp = {(p.get("pid"), p.get("start_ms"), p.get("gpu_index")): p for p in got["processes"]}
    if len(byp) != len(procs):
        errors.append(f"{len(got['processes'])} processes, expected {len(procs)}")
    for w in procs:
        compare(f"process {w['pid']} on GPU {w['gpu_index']}", w,
                byp.get((w["pid"], w.get("start_ms"), w["gpu_index"]), {}), errors)
    byg = {(g.get("kind"), g.get("id")): g for g in got["groups"]}
    if len(byg) != len(groups):
        errors.append(f"{len(got['groups'])} groups, expected {len(groups)}")
    for w in groups:
        compare(f"group {w['kind']} {w['id']}", w, byg.get((w["kind"], w["id"]), {}), errors, ignore=("name",))
    events = want_events(recs)
    if len(got["events"]) != len(events):
        errors.append(f"{len(got['events'])} events, expected {len(events)}")
    for i, (w, g) in enumerate(zip(events, got["events"])):
        compare(f"event {i}", w, g, errors)
    for e in errors:
        print("report_oracle: " + e, file=sys.stderr)
    print(f"report_oracle: {len(gpus)} GPUs, {len(procs)} processes, {len(groups)} groups, "
          f"{len(events)} events, {span['records']} records compared; {len(errors)} differences")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
