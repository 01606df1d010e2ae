#!/usr/bin/env python3
"""report_oracle.py: what `gpur --report OUT.json` should say about a
recording, computed here from docs/report.md's definitions alone (python's
json module reads the JSONL; nothing of gpur's code is used), then compared
with gpur's JSON.

  report_oracle.py RECORDING REPORT.json [--from MS] [--to MS] [--gpus I,J]

Exit status 0 when every value agrees (relative 1e-9), 1 with the
differences on stderr."""
import json
import math
import sys

GAP_MS = 5000
SLOWING = {"sw_power_cap", "hw_slowdown", "sw_thermal", "hw_thermal", "hw_power_brake"}
GIB_H = 2**30 * 3600000.0


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
            recs.append(r)
    return recs


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
            s = gpus.setdefault(d, {"index": idx, "device_id": d, "util": [], "mem": [], "temp": [], "energy": None,
                                    "lost": None, "throttled": None})
            s["index"] = idx
            if "name" in g:
                s.setdefault("name", g["name"])
            for k, key in (("util", "util_pct"), ("mem", "mem_used_bytes"), ("temp", "temp_c")):
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
                                       "p": p})
            if r.get("ts_ms") is not None:
                e["ts"].append(r["ts_ms"])
            mem_ms = 0.0
            if known(p, "gpu_mem_bytes"):
                e["mem"].append(p["gpu_mem_bytes"])
                mem_ms = p["gpu_mem_bytes"] * dt
                e["mem_ms"] += mem_ms
            if known(p, "gpu_util_pct"):
                e["util"].append(p["gpu_util_pct"])
            share = 0.0
            if d in energy:
                mates = on[d]
                utils = [m.get("gpu_util_pct") for m in mates]
                if all(known(m, "gpu_util_pct") for m in mates) and sum(utils) > 0:
                    share = energy[d] * p["gpu_util_pct"] / sum(utils)
                else:
                    share = energy[d] / len(mates)
            for gk in groups_of(p):
                g = groups.setdefault(gk, {"gpu_ms": 0.0, "mem_ms": 0.0, "energy": 0.0, "mem_known": False})
                g["mem_ms"] += mem_ms
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
        if s["util"]:
            o["util_pct_mean"] = sum(s["util"]) / len(s["util"])
            o["util_pct_max"] = max(s["util"])
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
        for k in ("user", "name", "container"):
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
        want_procs.append(o)
    want_groups = []
    for (kind, gid), g in groups.items():
        o = {"kind": kind, "id": gid, "gpu_h": g["gpu_ms"] / 3600000.0}
        if g["mem_known"]:
            o["gpu_mem_gib_h"] = g["mem_ms"] / GIB_H
        if total_energy > 0:
            o["energy_j"] = g["energy"]
            o["energy_share"] = g["energy"] / total_energy
        want_groups.append(o)
    ts = [r["ts_ms"] for r in recs if r.get("ts_ms") is not None]
    span = {"records": len(recs), "from_ms": min(ts), "to_ms": max(ts),
            "gaps": sum(1 for a, b in zip(ts, ts[1:]) if b - a > GAP_MS),
            "gap_s": sum(b - a for a, b in zip(ts, ts[1:]) if b - a > GAP_MS) / 1000.0,
            "events": sum(len(r.get("events") or []) for r in recs)}
    return span, want_gpus, want_procs, want_groups


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


def main():
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
    recs = load(args[0], lo, hi, gsel)
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
    for e in errors:
        print("report_oracle: " + e, file=sys.stderr)
    print(f"report_oracle: {len(gpus)} GPUs, {len(procs)} processes, {len(groups)} groups, "
          f"{span['records']} records compared; {len(errors)} differences")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
