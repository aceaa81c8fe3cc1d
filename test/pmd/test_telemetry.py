#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Suite pmd, telemetry: the /dvshare commands of a dvshare-pmd primary
(with a secondary attached, then gone), read with DPDK's own client (dpdk-telemetry.py, Debian's
dpdk-dev package) over the socket in the runtime directory, its replies
parsed as JSON and checked field by field.

argv: DVSHARE_PMD [DPDK_TELEMETRY_PY]
Needs hugepages (a secondary). Prints one line per test and a closing
"dvs-tests: test_telemetry tests=N failed=M"; exits 1 if any failed.
"""
import glob
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time

PMD = sys.argv[1]
CLIENT = sys.argv[2] if len(sys.argv) > 2 else shutil.which("dpdk-telemetry.py")
PREFIX = "dvs-tel-%d" % os.getpid()
EAL = ["--no-pci", "--file-prefix=" + PREFIX, "--log-level=lib.eal:error",
       "--base-virtaddr=0x200000000000"]
TIMEOUT = 30
# The primary's own: db0, c0, q0 with its 3 UMEMs and counters, pd, td, tis.
PRIMARY_OBJS = 10
UMEMS = 120  # with the primary's own: two pages of /dvshare/objects


class Failed(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failed(what)


class Pmd:
    """A dvshare-pmd reading commands on stdin; its output, line by line."""

    def __init__(self, args):
        self.p = subprocess.Popen([PMD] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def expect(self, prefix):
        deadline = time.monotonic() + TIMEOUT
        seen = []
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=deadline - time.monotonic())
            except queue.Empty:
                break
            if line is None:
                break
            seen.append(line)
            if line.startswith(prefix):
                return line
        raise Failed("no line starting with %r; got: %s" % (prefix, seen[-5:]))

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def quit(self):
        self.send("quit")
        self.expect("bye:")
        check(self.p.wait(TIMEOUT) == 0, "dvshare-pmd exited non-zero")


def telemetry(cmds, instance=None):
    """Run DPDK's client on the commands; their replies, parsed, in order."""
    args = [sys.executable, CLIENT, "-f", PREFIX]
    if instance is not None:
        args += ["-i", str(instance)]
    out = subprocess.run(args, input="\n".join(cmds) + "\n", capture_output=True, text=True,
                         timeout=TIMEOUT)
    replies = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    check(len(replies) == len(cmds),
          "%d replies to %d commands: %s %s" % (len(replies), len(cmds), out.stdout, out.stderr))
    return [r[c.split(",")[0]] for r, c in zip(replies, cmds)]


def error_says(reply, *words):
    check(isinstance(reply, dict) and "error" in reply, "no error dict: %r" % (reply,))
    for w in words:
        check(w in reply["error"], "error %r does not say %r" % (reply["error"], w))


# ------------------------------------------------------------------ tests

def test_commands_and_help(ctx):
    cmds, help_objects, help_object = telemetry(["/", "/help,/dvshare/objects",
                                                 "/help,/dvshare/object"])
    for c in ["list", "info", "devices", "objects", "object", "peers", "stats"]:
        check("/dvshare/" + c in cmds, "/dvshare/%s not registered" % c)
    check("Parameters: string device, int first" in help_objects["/dvshare/objects"],
          "help of objects: %r" % help_objects)
    check("string name" in help_object["/dvshare/object"], "help of object")


def test_list_and_info(ctx):
    lst, info, devices = telemetry(["/dvshare/list", "/dvshare/info,sim0", "/dvshare/devices"])
    check(lst == ["sim0"], "list: %r" % lst)
    want = {"name": "sim0", "role": "primary", "provider": "sim", "objects": PRIMARY_OBJS + UMEMS,
            "closed": 0, "primary_pid": ctx["primary_pid"], "doorbell_offset": 0x800,
            "peers": 1, "engine": 1}
    for k, v in want.items():
        check(info.get(k) == v, "info %s: %r, want %r" % (k, info.get(k), v))
    check(isinstance(info["engine_kicks"], int) and isinstance(info["max_objects"], int),
          "numbers as numbers: %r" % info)
    check(devices == {"sim0": info} or devices["sim0"]["name"] == "sim0", "devices: %r" % devices)


def test_objects_in_pages(ctx):
    first, second = telemetry(["/dvshare/objects,sim0", "/dvshare/objects,sim0,100"])
    total = PRIMARY_OBJS + UMEMS
    check(first["count"] == total and first["first"] == 0 and first["listed"] == 100 and
          first["next"] == 100, "first page: %r" % {k: v for k, v in first.items() if k != "objects"})
    check(len(first["objects"]) == 100, "first page holds %d" % len(first["objects"]))
    check(second["first"] == 100 and second["listed"] == total - 100 and "next" not in second,
          "second page: %r" % {k: v for k, v in second.items() if k != "objects"})
    objs = dict(first["objects"], **second["objects"])
    check(len(objs) == total, "%d distinct keys over both pages" % len(objs))
    db0 = objs["db0"]
    check(db0 == {"name": "db0", "type": "var", "id": 0, "size": 4096, "meta_len": 0,
                  "owner": 0, "orphan": 0},
          "db0: %r" % db0)
    # A name a telemetry key cannot hold ('.') keeps its real name inside.
    u1 = objs["q0_umem1"]
    check(u1["name"] == "q0.umem1" and u1["type"] == "umem", "q0.umem1: %r" % u1)
    q0 = objs["q0"]
    check(q0["type"] == "obj" and q0["obj_type"] == 0x0d and q0["create_op"] == 0x0a00 and
          q0["meta_len"] == len("queue=3"), "q0: %r" % q0)


def test_one_object(ctx):
    q0, c0 = telemetry(["/dvshare/object,sim0,q0", "/dvshare/object,sim0,c0"])
    check(q0["name"] == "q0" and q0["meta"] == "queue=3" and q0["obj_type"] == 0x0d, "q0: %r" % q0)
    check(c0["type"] == "obj" and c0["create_op"] == 0x0939 and "meta" not in c0, "c0: %r" % c0)


def test_bad_parameters(ctx):
    r = telemetry(["/dvshare/info", "/dvshare/info,nosuch", "/dvshare/info,sim0,x",
                   "/dvshare/objects", "/dvshare/objects,sim0,-1", "/dvshare/objects,sim0,x",
                   "/dvshare/object,sim0", "/dvshare/object,sim0,nosuch", "/dvshare/stats,x",
                   "/dvshare/peers,x", "/dvshare/list,extra", "/dvshare/devices,x"])
    error_says(r[0], "missing device", "expects <device>", "sim0")
    error_says(r[1], "no device nosuch", "sim0")
    error_says(r[2], "too many parameters")
    error_says(r[3], "missing device", "<first object index>")
    error_says(r[4], "bad first index -1")
    error_says(r[5], "bad first index x")
    error_says(r[6], "missing object name", "<device>,<object name>")
    error_says(r[7], "no object nosuch", "/dvshare/objects,sim0")
    error_says(r[8], "takes no parameters")
    error_says(r[9], "takes no parameters")
    error_says(r[10], "takes no parameters")
    error_says(r[11], "takes no parameters")


def test_peers_and_stats(ctx):
    peers, stats = telemetry(["/dvshare/peers", "/dvshare/stats"])
    pid = ctx["secondary_pid"]
    check(peers["role"] == "primary" and peers["count"] == 1, "peers: %r" % peers)
    check(peers["peers"] == {str(pid): {"pid": pid, "uid": os.geteuid(), "devices": ["sim0"], "queued": 0}},
          "peer record: %r" % peers["peers"])
    check(stats["published"] == PRIMARY_OBJS + UMEMS and stats["attach_status"] == 0 and
          stats["attach_mode"] == "eager" and stats["primary"] == "alive", "stats: %r" % stats)


def test_peer_leaves(ctx):
    # DPDK 22.11 gives secondaries no telemetry socket: the primary's view.
    ctx["secondary"].quit()
    deadline = time.monotonic() + TIMEOUT
    while True:
        peers, info = telemetry(["/dvshare/peers", "/dvshare/info,sim0"])
        if peers["count"] == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    check(peers == {"role": "primary", "count": 0, "peers": {}}, "after it left: %r" % peers)
    check(info["peers"] == 0, "info peers: %r" % info)


TESTS = [test_commands_and_help, test_list_and_info, test_objects_in_pages, test_one_object,
         test_bad_parameters, test_peers_and_stats, test_peer_leaves]


def wait_for_objects(n):
    """Until the primary has published @n objects (it reads stdin at its pace)."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        reply = telemetry(["/dvshare/info,sim0"])[0]
        if reply.get("objects") == n:
            return
        time.sleep(0.05)
    raise Failed("the primary did not publish %d objects" % n)


def cleanup():
    shutil.rmtree("/var/run/dpdk/" + PREFIX, ignore_errors=True)
    for f in glob.glob("/dev/hugepages/" + PREFIX + "map_*"):
        os.unlink(f)


def main():
    if CLIENT is None or not os.path.exists(CLIENT):
        print("test_telemetry: DPDK's dpdk-telemetry.py not found: install dpdk-dev "
              "(buildtools/deps.sh)")
        return 1
    cleanup()
    ctx = {}
    failed = 0
    prim = sec = None
    try:
        prim = Pmd(["-l", "0,1", "-s", "0x2", "-m", "64"] + EAL +
                   ["--", "--dev", "sim0", "--var", "db0", "--virtq", "q0:3:128:queue=3",
                    "--counter", "c0", "--engine", "--stdin"])
        ctx["primary"] = prim
        ctx["primary_pid"] = int(prim.expect("ready primary").split("pid=")[1].split()[0])
        for i in range(UMEMS):
            prim.send("umem reg sim0 u%03d 4096" % i)
        wait_for_objects(PRIMARY_OBJS + UMEMS)
        sec = Pmd(["-l", "0", "--proc-type=secondary"] + EAL + ["--", "--stdin"])
        ctx["secondary"] = sec
        ctx["secondary_pid"] = int(sec.expect("ready secondary").split("pid=")[1].split()[0])
        for t in TESTS:
            try:
                t(ctx)
                print("  Test: %s ...passed" % t.__name__)
            except (Failed, KeyError, TypeError, ValueError, subprocess.TimeoutExpired) as e:
                failed += 1
                print("  Test: %s ...FAILED\n    %s: %s" % (t.__name__, type(e).__name__, e))
    except Failed as e:
        print("test_telemetry: setup failed: %s" % e)
        failed = len(TESTS)
    try:
        if failed < len(TESTS):
            prim.quit()  # a clean exit too (and, under ASan, no leak)
    except Failed as e:
        print("test_telemetry: the primary did not exit cleanly: %s" % e)
        failed += 1
    finally:
        for p in (prim, sec):
            if p is not None and p.p.poll() is None:
                p.p.kill()
                p.p.wait()
        cleanup()
    print("dvs-tests: test_telemetry tests=%d failed=%d" % (len(TESTS), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
