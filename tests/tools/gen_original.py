#!/usr/bin/env python3
"""gen_original: recordings exactly as the original gpur (the Rust program,
0.13.1) writes them, and the records gpur must read them as.

The original's `--log` writes `serde_json::to_writer` of a `json!` value, so
every object's keys come out in alphabetical order (serde_json's map is a
BTreeMap), every field of its structs is present (`None` is `null`), a whole
f64 is written `92.0`, and `cpu_pct` is an f32 widened to f64
(12.3 is written 12.300000190734863). Its `--json` writes the same value
pretty-printed (two-space indent, `"key": value`). Its composite backend
("multi") prefixes each device id with the child backend's name and joins the
children's driver lines with " · ".

The structs below are the original's `GpuSnapshot`, `ProcRow` and the record
of `App::record`, field for field. The expected records follow the key map of
docs/record-format.md §13, written here on their own, not taken from gpur.

  gen_original.py compact     the original's --log lines
  gen_original.py pretty      the same records, each pretty-printed
  gen_original.py mixed       compact and pretty records in one file, with a
                              torn pretty record and a torn line among them
  gen_original.py expected    what `gpur --replay FILE --json` prints for them
"""
import json
import struct
import sys

GIB = 1 << 30
MIB = 1 << 20


def f32(x):
    """An f32 widened to f64, as serde_json's json! writes an f32."""
    return struct.unpack("f", struct.pack("f", x))[0]


def snapshot(**kw):
    """The original's GpuSnapshot: every field, None where not given."""
    s = {
        "name": "", "device_id": None, "integrated": False,
        "utilization_pct": None, "mem_util_pct": None, "video_util_pct": None,
        "enc_util_pct": None, "dec_util_pct": None, "throttle": None,
        "vram_used_bytes": None, "vram_total_bytes": None, "temperature_c": None,
        "temp_slowdown_c": None, "temp_junction_c": None, "temp_mem_c": None,
        "power_w": None, "power_limit_w": None, "fan_pct": None, "fan_rpm": None,
        "clock_mhz": None, "mem_clock_mhz": None, "pcie_gen": None, "pcie_width": None,
        "pcie_max_gen": None, "pcie_max_width": None, "pcie_rx_kbs": None,
        "pcie_tx_kbs": None, "gtt_used_bytes": None, "gtt_total_bytes": None,
        "volt_mv": None, "perf_level": None,
    }
    for k, v in kw.items():
        assert k in s, k
        s[k] = v
    return s


def procrow(**kw):
    """The original's ProcRow: every field; user "-" and command "?" are its
    words for unknown."""
    p = {
        "pid": 0, "gpu_index": 0, "kind": "Compute", "gpu_util_pct": None,
        "gpu_mem_bytes": None, "user": "-", "cpu_pct": None, "host_mem_bytes": None,
        "command": "?", "container": None,
    }
    for k, v in kw.items():
        assert k in p, k
        p[k] = v
    return p


T0 = 1764745200000  # 2025-12-03 07:00:00 UTC


def records():
    """Four polls of a mixed machine: an H100 on NVML, an AMD APU, an NVIDIA
    GPU that fell off the bus (the original's placeholder), and an adapter
    that names itself nothing."""
    out = []
    utils = [92.0, 95.5, 40.0, 88.0]
    for i in range(4):
        h100 = snapshot(
            name="NVIDIA H100 80GB HBM3",
            device_id="nvml:GPU-11111111-2222-3333-4444-555555555555",
            utilization_pct=utils[i], mem_util_pct=41.0, enc_util_pct=3.0, dec_util_pct=0.0,
            throttle="thermal+power-limit" if i == 1 else None,
            vram_used_bytes=62 * GIB + i * MIB, vram_total_bytes=80 * GIB,
            temperature_c=71.0 + i, temp_slowdown_c=88.0, temp_mem_c=80.0,
            power_w=612.345 + i, power_limit_w=700.0,
            clock_mhz=1980 - 10 * i, mem_clock_mhz=2619,
            pcie_gen=5, pcie_width=16, pcie_max_gen=5, pcie_max_width=16,
            pcie_rx_kbs=123456 + i, pcie_tx_kbs=654321,
            perf_level="P0" if i != 2 else "P8")
        apu = snapshot(
            name="AMD Radeon 780M", device_id="amdgpu:pci:0000:c4:00.0", integrated=True,
            utilization_pct=37.0 + i, video_util_pct=12.5, throttle="hw-slowdown" if i == 3 else None,
            vram_used_bytes=512 * MIB, vram_total_bytes=2 * GIB,
            gtt_used_bytes=3 * GIB, gtt_total_bytes=16 * GIB,
            temperature_c=52.25, temp_junction_c=61.0, power_w=18.25,
            clock_mhz=2700, mem_clock_mhz=2800,
            pcie_gen=3, pcie_width=8, pcie_max_gen=4, pcie_max_width=16,
            fan_pct=33.0, fan_rpm=1800, volt_mv=893, perf_level="manual" if i < 2 else "auto")
        gone = snapshot(name="NVIDIA GPU 2 (unavailable)",
                        device_id="nvml:GPU-33333333-4444-5555-6666-777777777777")
        nameless = snapshot(name="", integrated=True, utilization_pct=5.0)
        procs = [
            procrow(pid=4242, gpu_index=0, kind="Compute", gpu_util_pct=88.0, gpu_mem_bytes=60 * GIB,
                    user="alice", cpu_pct=f32(12.3), host_mem_bytes=8 * GIB,
                    command="python train.py --epochs 10 --lr 3e-4",
                    container="docker:0123456789ab"),
            procrow(pid=4294967294, gpu_index=1, kind="Graphics"),
            procrow(pid=777, gpu_index=0, kind="Compute", gpu_util_pct=0.0, gpu_mem_bytes=0,
                    user="bob", cpu_pct=f32(0.5), host_mem_bytes=123456789,
                    command="/usr/bin/tritonserver --model-repository=/models",
                    container="k8s:fedcba987654"),
        ]
        out.append({
            "ts_ms": 0 if i == 2 else T0 + 1000 * i,
            "backend": "multi",
            "driver": "nvml driver 550.54.15 \u00b7 amdgpu \u00b7 kernel 6.8.0",
            "gpus": [h100, apu, gone, nameless],
            "processes": procs,
        })
    return out


def compact(rec):
    return json.dumps(rec, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def pretty(rec):
    return json.dumps(rec, sort_keys=True, indent=2, ensure_ascii=False)


# The key map: theirs -> (ours, factor).
GPU_MAP = {
    "utilization_pct": ("util_pct", 1), "vram_used_bytes": ("mem_used_bytes", 1),
    "vram_total_bytes": ("mem_total_bytes", 1), "temperature_c": ("temp_c", 1),
    "clock_mhz": ("clock_gfx_mhz", 1), "mem_clock_mhz": ("clock_mem_mhz", 1),
    "enc_util_pct": ("enc_pct", 1), "dec_util_pct": ("dec_pct", 1),
    "video_util_pct": ("video_pct", 1), "pcie_max_gen": ("pcie_gen_max", 1),
    "pcie_max_width": ("pcie_width_max", 1), "pcie_rx_kbs": ("pcie_rx_bytes_per_s", 1024),
    "pcie_tx_kbs": ("pcie_tx_bytes_per_s", 1024), "volt_mv": ("voltage_mv", 1),
}
SAME = ("name", "integrated", "mem_util_pct", "temp_slowdown_c", "temp_junction_c", "temp_mem_c",
        "power_w", "power_limit_w", "fan_pct", "fan_rpm", "pcie_gen", "pcie_width",
        "gtt_used_bytes", "gtt_total_bytes")
THROTTLE = {"thermal": "thermal", "power-limit": "power_cap", "hw-slowdown": "hw_slowdown"}
# gpur writes reasons in the order of its list of names.
REASONS = ["gpu_idle", "applications_clocks", "sw_power_cap", "hw_slowdown", "sync_boost",
           "sw_thermal", "hw_thermal", "hw_power_brake", "display_clock", "thermal", "power_cap"]
PREFIXES = ("nvml:", "amdgpu:", "intel:", "nouveau:", "ioaccel:", "pdh:")


def expected_gpu(g, pos):
    e = {}
    for k in SAME:
        if g[k] is not None:
            e[k] = g[k]
    for k, (ours, factor) in GPU_MAP.items():
        if g[k] is not None:
            e[ours] = g[k] * factor
    dev = g["device_id"]
    if dev is None:
        dev = "replay:%d" % pos
    for p in PREFIXES:
        if dev.startswith(p):
            dev = dev[len(p):]
    e["device_id"] = dev
    if g["throttle"] is not None:
        e["throttle"] = sorted({THROTTLE[r] for r in g["throttle"].split("+")}, key=REASONS.index)
    pl = g["perf_level"]
    if pl is not None and pl.startswith("P"):
        e["pstate"] = int(pl[1:])
    elif pl is not None and pl != "auto":
        e["perf_level"] = pl
    return e


def expected_proc(p):
    e = {"pid": p["pid"], "gpu_index": p["gpu_index"], "kind": p["kind"].lower()}
    for k in ("gpu_util_pct", "gpu_mem_bytes", "cpu_pct", "host_mem_bytes", "container"):
        if p[k] is not None:
            e[k] = p[k]
    if p["user"] != "-":
        e["user"] = p["user"]
    if p["command"] != "?":
        e["cmdline"] = p["command"]
    return e


def expected(rec):
    e = {"schema": 1, "backend": rec["backend"], "driver": rec["driver"],
         "gpus": [expected_gpu(g, i) for i, g in enumerate(rec["gpus"])],
         "processes": [expected_proc(p) for p in rec["processes"]]}
    if rec["ts_ms"]:
        e["ts_ms"] = rec["ts_ms"]
    return e


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "compact"
    recs = records()
    out = sys.stdout
    if mode == "compact":
        for r in recs:
            out.write(compact(r) + "\n")
    elif mode == "pretty":
        for r in recs:
            out.write(pretty(r) + "\n")
    elif mode == "mixed":
        # A torn pretty record (a crash in the middle of a write) right before
        # a whole one, a torn compact line, and records of both forms.
        torn = pretty(recs[0]).split("\n")
        out.write("\n".join(torn[: len(torn) // 2]) + "\n")
        out.write(compact(recs[0]) + "\n")
        out.write(pretty(recs[1]) + "\n")
        out.write(compact(recs[2])[:200] + "\n")
        out.write(pretty(recs[2]) + "\n\n")
        out.write(compact(recs[3]) + "\n")
    elif mode == "expected":
        for r in recs:
            out.write(json.dumps(expected(r), sort_keys=True) + "\n")
    else:
        sys.exit("usage: gen_original.py compact|pretty|mixed|expected")


if __name__ == "__main__":
    main()
