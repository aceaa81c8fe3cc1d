#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Draw dvshare-bench's JSON (--json FILE) as PNG charts with gnuplot.

    bench_plot.py BENCH.json OUTDIR

Writes OUTDIR/attach.png (attach time vs objects, one line per attach
mode), OUTDIR/lookup.png (lookup + release against rte_hash) and
OUTDIR/revoke.png (single-object revoke latency vs secondaries) and
OUTDIR/packets.png (packets per second against rte_ring and the
vhost-user + virtio-user pair). A chart
whose section is absent from the JSON is skipped and said so; a JSON that
is not dvshare-bench's is an error.
"""
import json
import os
import subprocess
import sys
import tempfile

TERMINAL = "set terminal pngcairo noenhanced size 800,500 font 'sans,10'"


def machine_line(doc):
    m = doc.get("machine", {})
    return "%s cores %s, %s, %s" % (m.get("cores", "?"), m.get("cpu", "?"),
                                    m.get("dpdk", "DPDK"), m.get("date", "")[:10])


def goal_line(value, label, x, y):
    """gnuplot lines drawing a goal: a dashed red line at @value, labelled
    at (@x of the graph, @y on the axis)."""
    return ("set arrow from graph 0, first %g to graph 1, first %g nohead dt 2 lw 2 lc 'red'\n"
            "set label '%s' at graph %g, first %g tc 'red'" % (value, value, label, x, y))


def gnuplot(script, data):
    """Run gnuplot on @script with the inline data blocks in @data."""
    text = "".join("$%s << EOD\n%s\nEOD\n" % (name, "\n".join(rows))
                   for name, rows in data.items()) + script
    with tempfile.NamedTemporaryFile("w", suffix=".gp", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        subprocess.run(["gnuplot", path], check=True)
    finally:
        os.unlink(path)


def plot_attach(doc, sec, out):
    modes = sec["modes"]
    data, plots = {}, []
    for mode in ("eager", "lazy", "selective"):
        pts = modes.get(mode, {}).get("points", [])
        if not pts:
            continue
        # Log x axis: the empty registry is drawn at 1 object.
        data[mode] = ["%d %g" % (max(p["objects"], 1), p["attach_ms"]) for p in pts]
        plots.append("$%s using 1:2 with linespoints lw 2 title '%s'" % (mode, mode))
    gnuplot("""%s
set output '%s'
set title "Secondary attach inside rte_eal_init() vs objects published\\n%s, median of %s runs"
set xlabel 'objects published (0 drawn at 1)'
set ylabel 'attach ms (dvshare_stats.attach_ns)'
set logscale x
set grid
set key top left
%s
plot %s
""" % (TERMINAL, out, machine_line(doc), sec.get("runs", "?"),
       goal_line(10, "goal: eager at 10,000 objects <= 10 ms", 0.02, 11.5), ", ".join(plots)), data)


def plot_lookup(doc, sec, out):
    rows = ['"%d objects" %g %g %g' % (p["objects"], p["secondary_ns"], p["primary_ns"],
                                       p["rte_hash_ns"]) for p in sec["points"]]
    gnuplot("""%s
set output '%s'
set title "Lookup + release, round-robin over all names\\n%s"
set ylabel 'ns per lookup'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.6 border -1
set yrange [0:*]
set grid ytics
set key top left
plot $lookup using 2:xtic(1) title 'dvshare, secondary', '' using 3 title 'dvshare, primary', \\
     '' using 4 title 'rte_hash (baseline)'
""" % (TERMINAL, out, machine_line(doc)), {"lookup": rows})


def plot_revoke(doc, sec, out):
    rows = ["%d %g %g %g" % (r["secondaries"], r["median_us"], r["p99_us"], r["max_us"])
            for r in sec["rows"]]
    gnuplot("""%s
set output '%s'
set title "dvshare_destroy() of a VAR every secondary imported, %s destroys per point\\n%s; the secondaries share the cores with the primary"
set xlabel 'secondaries attached'
set ylabel 'latency us'
set logscale y
set grid
set key top left
%s
plot $revoke using 1:2 with linespoints lw 2 title 'median', \\
     '' using 1:3 with linespoints lw 2 title 'p99', \\
     '' using 1:4 with points pt 6 title 'max'
""" % (TERMINAL, out, sec.get("destroys", "?"), machine_line(doc),
       goal_line(1000, "goal p99 1 ms", 0.82, 1120)), {"revoke": rows})


def plot_packets(doc, sec, out):
    bars = (("rte_ring\\n(floor)", "ring_pps"),
            ("vhost-user +\\nvirtio-user", "vhost_user_pps"),
            ("dvshare\\nprimary", "primary_pps"),
            ("dvshare\\nsecondary", "secondary_pps"),
            ("rte_mp kick\\nwhen asked", "mp_kick_pps"),
            ("rte_mp kick\\nevery burst", "mp_kick_every_burst_pps"),
            ("beside bad\\ndescriptors", "bad_desc_pps"),
            ("beside the\\ncontrol", "remade_control_pps"))
    rows = ['"%s" %g' % (label, sec[key] / 1e6) for label, key in bars
            if isinstance(sec.get(key), (int, float)) and sec[key] > 0]
    goal = ""
    if isinstance(sec.get("vhost_user_pps"), (int, float)) and sec["vhost_user_pps"] > 0:
        v = 1.2 * sec["vhost_user_pps"] / 1e6
        goal = goal_line(v, "goal: secondary >= 1.2x vhost-user", 0.63, v * 1.4)
    gnuplot("""%s
set output '%s'
set title "64-byte packets, io forwarding, bursts of 32 (median of the rounds)\\n%s"
set ylabel 'Mpps'
set style fill solid 0.6 border -1
set boxwidth 0.5
set logscale y
set yrange [0.1:*]
set grid ytics
set bmargin 5
%s
unset key
plot $pkts using 0:2:xtic(1) with boxes, '' using 0:2:(sprintf('%%.2f', $2)) with labels offset 0,1
""" % (TERMINAL, out, machine_line(doc), goal), {"pkts": rows})


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: bench_plot.py BENCH.json OUTDIR")
    try:
        with open(sys.argv[1]) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("bench_plot: cannot read %s: %s" % (sys.argv[1], e))
    if not isinstance(doc, dict) or "sections" not in doc or "machine" not in doc:
        sys.exit("bench_plot: %s is not dvshare-bench JSON (no machine/sections)" % sys.argv[1])
    os.makedirs(sys.argv[2], exist_ok=True)
    charts = (("4", "attach.png", plot_attach), ("3", "lookup.png", plot_lookup),
              ("5", "revoke.png", plot_revoke), ("9", "packets.png", plot_packets))
    for key, name, draw in charts:
        sec = doc["sections"].get(key)
        out = os.path.join(sys.argv[2], name)
        if sec is None:
            print("bench_plot: section %s not in the run: %s not drawn" % (key, name))
            continue
        draw(doc, sec, out)
        print("bench_plot: wrote %s" % out)


if __name__ == "__main__":
    main()
