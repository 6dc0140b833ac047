#!/usr/bin/env python3
"""Runs a command and samples its RssAnon (/proc/PID/status) every 2 ms: the anonymous memory
only, not the mapped dump's page-cache pages.  Prints the peak in bytes on stderr as
`peak_anon_bytes N` (and the peak RssFile beside it, the wall and CPU seconds of the command,
and the load average when it ended), with the command's exit status.
Usage: bench/peak_anon.py CMD [ARGS...]"""
import os, resource, subprocess, sys, time

def field(pid, name):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(name + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0

t0 = time.monotonic()
p = subprocess.Popen(sys.argv[1:])
peak = peak_file = 0
while p.poll() is None:
    peak = max(peak, field(p.pid, "RssAnon"))
    peak_file = max(peak_file, field(p.pid, "RssFile"))
    time.sleep(0.002)
wall = time.monotonic() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"peak_anon_bytes {peak} peak_file_bytes {peak_file} wall_s {wall:.2f} cpu_s {ru.ru_utime + ru.ru_stime:.2f} "
      f"load {os.getloadavg()[0]:.1f}", file=sys.stderr)
sys.exit(p.returncode)
