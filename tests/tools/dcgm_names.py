#!/usr/bin/env python3
"""dcgm_names: an oracle for --serve-names, independent of gpur's field table.

  dcgm_names.py stable FILE          the exposition without gpur's volatile
                                     families (timestamps, its own CPU and
                                     memory, counters of frames and scrapes)
  dcgm_names.py check LEGACY NEW     NEW, served under --serve-names dcgm-4.10,
                                     against LEGACY, served under legacy from
                                     the same scenario; exit 1 with the
                                     differences
  dcgm_names.py map                  the map below, one line per metric

The map is transcribed by hand from the facts on dcgm-exporter's names
(table 1.2 and sections 1.3, 2, 4 and 6 of the facts file on dcgm-exporter
names, and 4.9's release note for DCGM_FI_DEV_FB_CAPACITY_BYTES), not from
gpur's sources. For each legacy name: the 4.10 name, the factor from the
legacy value to the 4.10 one, the type, and the legacy unit that the 4.10 help
must no longer name. The check: every family of LEGACY is in the map or is
gpur's own; each legacy sample has exactly one 4.10 sample with the same labels,
but for the host label (Hostname -> hostname) and the driver label
(DCGM_FI_DRIVER_VERSION -> DCGM_FI_SYSTEM_DRIVER_VERSION), whose value is the
legacy value times the factor; no legacy name of a renamed metric is left in
NEW; the TYPE lines are the map's; gpur's own families (gpur_*) are the same
in both, line for line; NEW has no family the map does not explain.
"""
import math
import re
import sys

# legacy name: (4.10 name, factor, type, legacy unit token, served by gpur)
RENAMED = {
    # Table 1.2, rows 1 to 15 and 20 to 22 (DCGM 4.7's names), with 1.3's units.
    "DCGM_FI_DEV_SM_CLOCK": ("DCGM_FI_DEV_SM_CLOCK_HERTZ", 1e6, "gauge", "MHz", True),
    "DCGM_FI_DEV_MEM_CLOCK": ("DCGM_FI_DEV_MEMORY_CLOCK_HERTZ", 1e6, "gauge", "MHz", True),
    "DCGM_FI_DEV_MEMORY_TEMP": ("DCGM_FI_DEV_MEMORY_TEMP_CELSIUS", 1, "gauge", None, True),
    "DCGM_FI_DEV_GPU_TEMP": ("DCGM_FI_DEV_GPU_TEMP_CELSIUS", 1, "gauge", None, True),
    "DCGM_FI_DEV_POWER_USAGE": ("DCGM_FI_DEV_BOARD_POWER_WATTS", 1, "gauge", None, True),
    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION": ("DCGM_FI_DEV_GPU_ENERGY_JOULES_TOTAL", 1e-3, "counter", "mJ", True),
    "DCGM_FI_DEV_PCIE_REPLAY_COUNTER": ("DCGM_FI_DEV_PCIE_REPLAY_TOTAL", 1, "counter", None, False),
    "DCGM_FI_DEV_GPU_UTIL": ("DCGM_FI_DEV_GPU_UTIL_RATIO", 0.01, "gauge", "%", True),
    "DCGM_FI_DEV_MEM_COPY_UTIL": ("DCGM_FI_DEV_MEMORY_UTIL_RATIO", 0.01, "gauge", "%", True),
    "DCGM_FI_DEV_ENC_UTIL": ("DCGM_FI_DEV_ENC_UTIL_RATIO", 0.01, "gauge", "%", True),
    "DCGM_FI_DEV_DEC_UTIL": ("DCGM_FI_DEV_DEC_UTIL_RATIO", 0.01, "gauge", "%", True),
    "DCGM_FI_DEV_XID_ERRORS": ("DCGM_FI_DEV_XID_ERROR", 1, "gauge", None, True),
    "DCGM_FI_DEV_FB_FREE": ("DCGM_FI_DEV_FB_FREE_BYTES", 1048576, "gauge", "MiB", True),
    "DCGM_FI_DEV_FB_USED": ("DCGM_FI_DEV_FB_USED_BYTES", 1048576, "gauge", "MiB", True),
    "DCGM_FI_DEV_FB_RESERVED": ("DCGM_FI_DEV_FB_RESERVED_BYTES", 1048576, "gauge", "MiB", False),
    "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS": ("DCGM_FI_DEV_ROW_REMAP_UNCORRECTABLE_TOTAL", 1, "counter", None, False),
    "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS": ("DCGM_FI_DEV_ROW_REMAP_CORRECTABLE_TOTAL", 1, "counter", None, False),
    "DCGM_FI_DEV_ROW_REMAP_FAILURE": ("DCGM_FI_DEV_ROW_REMAP_FAILED", 1, "gauge", None, False),
    "DCGM_FI_PROF_GR_ENGINE_ACTIVE": ("DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO", 1, "gauge", None, True),
    "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE": ("DCGM_FI_PROF_TENSOR_UTIL_RATIO", 1, "gauge", None, True),
    "DCGM_FI_PROF_DRAM_ACTIVE": ("DCGM_FI_PROF_DRAM_UTIL_RATIO", 1, "gauge", None, True),
    # Section 6: the optional profiling rows, ratios under both names.
    "DCGM_FI_PROF_SM_ACTIVE": ("DCGM_FI_PROF_SM_UTIL_RATIO", 1, "gauge", None, True),
    "DCGM_FI_PROF_SM_OCCUPANCY": ("DCGM_FI_PROF_SM_OCCUPANCY_RATIO", 1, "gauge", None, True),
    "DCGM_FI_PROF_PIPE_FP64_ACTIVE": ("DCGM_FI_PROF_FP64_UTIL_RATIO", 1, "gauge", None, True),
    "DCGM_FI_PROF_PIPE_FP32_ACTIVE": ("DCGM_FI_PROF_FP32_UTIL_RATIO", 1, "gauge", None, True),
    "DCGM_FI_PROF_PIPE_FP16_ACTIVE": ("DCGM_FI_PROF_FP16_UTIL_RATIO", 1, "gauge", None, True),
    # Section 2: 4.10's rates, bytes per second under both names.
    "DCGM_FI_PROF_PCIE_TX_BYTES": ("DCGM_FI_PROF_PCIE_TX_BYTES_PER_SECOND", 1, "gauge", None, True),
    "DCGM_FI_PROF_PCIE_RX_BYTES": ("DCGM_FI_PROF_PCIE_RX_BYTES_PER_SECOND", 1, "gauge", None, True),
    "DCGM_FI_PROF_NVLINK_TX_BYTES": ("DCGM_FI_PROF_NVLINK_TX_BYTES_PER_SECOND", 1, "gauge", None, True),
    "DCGM_FI_PROF_NVLINK_RX_BYTES": ("DCGM_FI_PROF_NVLINK_RX_BYTES_PER_SECOND", 1, "gauge", None, True),
    # 4.9 collects the total memory in bytes; gpur's legacy name for it is its
    # own DCGM_FI_DEV_FB_TOTAL in MiB (dcgm-exporter's legacy set has none).
    "DCGM_FI_DEV_FB_TOTAL": ("DCGM_FI_DEV_FB_CAPACITY_BYTES", 1048576, "gauge", "MiB", True),
}
# Names the facts do not rename: a 4.10 custom list that names them keeps
# the legacy name and unit (section 1.4).
UNCHANGED = {
    "DCGM_FI_DEV_PSTATE": "gauge", "DCGM_FI_DEV_SLOWDOWN_TEMP": "gauge", "DCGM_FI_DEV_SHUTDOWN_TEMP": "gauge",
    "DCGM_FI_DEV_POWER_MGMT_LIMIT": "gauge", "DCGM_FI_DEV_FAN_SPEED": "gauge", "DCGM_FI_DEV_MAX_SM_CLOCK": "gauge",
    "DCGM_FI_DEV_MAX_MEM_CLOCK": "gauge", "DCGM_FI_DEV_PCIE_LINK_GEN": "gauge",
    "DCGM_FI_DEV_PCIE_LINK_WIDTH": "gauge", "DCGM_FI_DEV_PCIE_MAX_LINK_GEN": "gauge",
    "DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH": "gauge", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL": "counter",
    "DCGM_FI_DEV_VGPU_LICENSE_STATUS": "gauge",
}
# The labels 4.10 renames (section 3): Hostname since 4.6.0-4.8.3, the driver
# label since 4.9.0.
LABELS = {"Hostname": "hostname", "DCGM_FI_DRIVER_VERSION": "DCGM_FI_SYSTEM_DRIVER_VERSION"}
VOLATILE = {"gpur_frame_timestamp_seconds", "gpur_poll_duration_seconds", "gpur_exporter_frames_total",
            "gpur_exporter_render_seconds", "gpur_exporter_scrapes_total", "gpur_self_cpu_seconds_total",
            "gpur_self_resident_memory_bytes"}

LABEL_RE = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"')


def family_of(line):
    if line.startswith("# "):
        return line.split()[2]
    return re.split(r"[{ ]", line, 1)[0]


def parse(path):
    """{family: {"type", "help", "samples": [(labels tuple, value, line)]}}"""
    fams = {}
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line:
            continue
        name = family_of(line)
        f = fams.setdefault(name, {"type": None, "help": None, "samples": [], "lines": []})
        f["lines"].append(line)
        if line.startswith("# HELP "):
            f["help"] = line.split(" ", 3)[3] if line.count(" ") >= 3 else ""
        elif line.startswith("# TYPE "):
            f["type"] = line.split()[3]
        elif not line.startswith("#"):
            m = re.match(r"^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})? (\S+)$", line)
            if not m:
                raise SystemExit("%s: not a sample line: %s" % (path, line))
            labels = tuple(LABEL_RE.findall(m.group(2) or ""))
            f["samples"].append((labels, float(m.group(3)), line))
    return fams


def renamed_labels(labels):
    return tuple((LABELS.get(k, k), v) for k, v in labels)


def close(a, b):
    return a == b or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300)


def check(legacy_path, new_path):
    old, new = parse(legacy_path), parse(new_path)
    errors = []
    explained = set()
    covered = set()
    for name, f in old.items():
        if name in VOLATILE:
            explained.add(name)
            continue
        if name.startswith("gpur_"):
            explained.add(name)
            if name not in new or new[name]["lines"] != f["lines"]:
                errors.append("%s: gpur's own family differs between the names" % name)
            continue
        if name in RENAMED:
            to, factor, typ, unit, _ = RENAMED[name]
            covered.add(name)
            if name in new:
                errors.append("%s: the legacy name is still served under dcgm-4.10" % name)
        elif name in UNCHANGED:
            to, factor, typ, unit = name, 1, UNCHANGED[name], None
        else:
            errors.append("%s: a family of dcgm-exporter's that the map does not know" % name)
            continue
        explained.add(to)
        g = new.get(to)
        if g is None:
            errors.append("%s: missing (the legacy %s has %d samples)" % (to, name, len(f["samples"])))
            continue
        if g["type"] != typ:
            errors.append("%s: TYPE %s, the facts say %s" % (to, g["type"], typ))
        if f["type"] != typ:
            errors.append("%s: legacy TYPE %s, the facts say %s" % (name, f["type"], typ))
        if not g["help"]:
            errors.append("%s: no HELP" % to)
        elif unit and ("(" + unit) in g["help"] or (unit and (" " + unit + ")") in g["help"]):
            errors.append("%s: its HELP still names the legacy unit %s: %s" % (to, unit, g["help"]))
        want = {renamed_labels(l): v * factor for l, v, _ in f["samples"]}
        got = {l: v for l, v, _ in g["samples"]}
        if len(got) != len(g["samples"]):
            errors.append("%s: a series twice" % to)
        for labels, v in want.items():
            if labels not in got:
                errors.append("%s: no sample for %s" % (to, dict(labels)))
            elif not close(got[labels], v):
                errors.append("%s%s = %r, expected %r (legacy %s times %r)" % (to, dict(labels), got[labels], v,
                                                                              name, factor))
        for labels in got:
            if labels not in want:
                errors.append("%s: a sample the legacy names do not have: %s" % (to, dict(labels)))
            keys = [k for k, _ in labels]
            for legacy_label in LABELS:
                if legacy_label in keys:
                    errors.append("%s: the legacy label %s under dcgm-4.10" % (to, legacy_label))
    for name in new:
        if name not in explained:
            errors.append("%s: served under dcgm-4.10, but no legacy family explains it" % name)
    return errors, covered


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "stable":
        for line in open(sys.argv[2], encoding="utf-8"):
            if family_of(line) not in VOLATILE:
                sys.stdout.write(line)
        return 0
    if len(sys.argv) == 2 and sys.argv[1] == "map":
        for k, (to, factor, typ, _, served) in sorted(RENAMED.items()):
            print(k, to, repr(factor), typ, "served" if served else "not-served")
        for k, typ in sorted(UNCHANGED.items()):
            print(k, k, "1", typ, "unchanged")
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "check":
        errors, covered = check(sys.argv[2], sys.argv[3])
        missing = sorted(k for k, v in RENAMED.items() if v[4] and k not in covered)
        if missing:
            errors.append("the scenario does not exercise: %s" % " ".join(missing))
        for e in errors:
            print(e)
        return 1 if errors else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
