#!/usr/bin/env python3
"""gen_fleet: OpenMetrics text for a fleet of HOSTS x GPUS, for
`promtool tsdb create-blocks-from openmetrics` (tests and bench/fleet).

  gen_fleet.py HOSTS GPUS END_S [STEP_S] [SAMPLES] > fleet.om

Each series gets SAMPLES samples (default 3) STEP_S apart (default 60),
the last at END_S (Unix seconds). Even hosts look like gpur exporters
(gpur_gpu_lost, three containers, one process per GPU that is not
lost); odd hosts like dcgm-exporter
(DCGM series only). Host 0 mod 50 has GPU 0 lost. The values are the
functions below, so a test can compute what gpur must read back.
"""
import sys

MODEL = "NVIDIA H100 80GB HBM3"
FB_TOTAL_MIB = 81920


def host(h):
    return "host-%04d" % h


def util(h, g):
    return (h * 7 + g * 13) % 101


def fb_used(h, g):
    return (h * 37 + g * 1009) % FB_TOTAL_MIB


def temp(h, g):
    return 30 + (h + g) % 50


def power(h, g):
    return 100 + (h * 3 + g) % 300 + 0.5


def gpur_host(h):
    return h % 2 == 0


def lost(h, g):
    return h % 50 == 0 and g == 0


def containers(h):
    """(name, GPU memory bytes) of a gpur host's containers."""
    return [("job-%d-%d" % (h, k), ((h * 5 + k * 11) % 17 + 1) * 1073741824) for k in range(3)]


def process(h, g):
    """(pid, comm, container, GPU memory bytes, util %) of a gpur host's process on GPU g."""
    name, _ = containers(h)[g % 3]
    return (1000 + g, "train-%d" % g, name, (g + 1) * 536870912, (h + g) % 100)


def main():
    hosts, gpus, end = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    step = int(sys.argv[4]) if len(sys.argv) > 4 else 60
    samples = int(sys.argv[5]) if len(sys.argv) > 5 else 3
    times = [end - step * (samples - 1 - i) for i in range(samples)]
    out = sys.stdout
    families = [
        ("DCGM_FI_DEV_GPU_UTIL", util), ("DCGM_FI_DEV_FB_USED", fb_used),
        ("DCGM_FI_DEV_FB_FREE", lambda h, g: FB_TOTAL_MIB - fb_used(h, g)),
        ("DCGM_FI_DEV_GPU_TEMP", temp), ("DCGM_FI_DEV_POWER_USAGE", power),
    ]
    for name, fn in families:
        out.write("# TYPE %s gauge\n" % name)
        for h in range(hosts):
            for g in range(gpus):
                if lost(h, g):
                    continue  # a lost GPU has no readings
                labels = ('gpu="%d",UUID="GPU-%04d-%d",modelName="%s",Hostname="%s",instance="%s:9400",job="gpu"'
                          % (g, h, g, MODEL, host(h), host(h)))
                for t in times:
                    out.write("%s{%s} %s %d\n" % (name, labels, fn(h, g), t))
    out.write("# TYPE gpur_gpu_lost gauge\n")
    for h in range(hosts):
        if not gpur_host(h):
            continue
        for g in range(gpus):
            labels = 'gpu="%d",UUID="GPU-%04d-%d",Hostname="%s",instance="%s:9400",job="gpu"' % (g, h, g, host(h), host(h))
            for t in times:
                out.write("gpur_gpu_lost{%s} %d %d\n" % (labels, 1 if lost(h, g) else 0, t))
    out.write("# TYPE gpur_container_gpu_memory_bytes gauge\n")
    for h in range(hosts):
        if not gpur_host(h):
            continue
        for name, mem in containers(h):
            labels = 'container="%s",Hostname="%s",instance="%s:9400",job="gpu"' % (name, host(h), host(h))
            for t in times:
                out.write("gpur_container_gpu_memory_bytes{%s} %d %d\n" % (labels, mem, t))
    for fam, idx in (("gpur_process_gpu_memory_bytes", 3), ("gpur_process_gpu_util_percent", 4)):
        out.write("# TYPE %s gauge\n" % fam)
        for h in range(hosts):
            if not gpur_host(h):
                continue
            for g in range(gpus):
                if lost(h, g):
                    continue
                p = process(h, g)
                labels = ('gpu="%d",UUID="GPU-%04d-%d",Hostname="%s",pid="%d",comm="%s",user="u%d",container="%s",'
                          'instance="%s:9400",job="gpu"' % (g, h, g, host(h), p[0], p[1], h % 7, p[2], host(h)))
                for t in times:
                    out.write("%s{%s} %d %d\n" % (fam, labels, p[idx], t))
    out.write("# EOF\n")


if __name__ == "__main__":
    main()
