"""Imported by the Python references of the benchmark (reference.py, reference-codecs.py), not run: at the end of a
run, writes to BENCH_RSS_FILE (when set) the process's peak RSS in KiB and its user and system CPU seconds, as
`/usr/bin/time -f "%M %U %S"` would, for machines without GNU time (bench/lib/report-rss.mjs does it for node).
"""

import os
import resource


def report_rss() -> None:
    rss_file = os.environ.get("BENCH_RSS_FILE")
    if rss_file:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        with open(rss_file, "w") as f:
            f.write(f"{usage.ru_maxrss} {usage.ru_utime} {usage.ru_stime}")
