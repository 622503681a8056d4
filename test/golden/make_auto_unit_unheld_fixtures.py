"""Hourly times before 1678 written by xarray as float64 `days since` (trial 30, finding F4): no Arrow unit holds
such a count exactly (1 h is 1/24 day, which no double holds), so `--unit auto` falls back to ns, where the first
hour, a whole number of seconds, overflows (ns ends before 1678). The refusal must name the count no unit holds
(TRUNCATION, `--round`), not the overflow, whose advice (a coarser unit) only leads to that count next. With
`--allow-truncate` or `--round`, `--unit auto` takes the finest unit that holds every date instead (us here).

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13, cftime 1.6):

    /usr/bin/python3 test/golden/make_auto_unit_unheld_fixtures.py

It replaces test/fixtures/auto-unit-unheld/ and writes expected.json: per store, the stored counts (repr), the
instants xarray decodes (through cftime, to the microsecond), and `floored_us`: each count's exact instant (the
reference plus the double's exact binary value in units, with Python's fractions) floored to the microsecond, what
`--allow-truncate` writes; instants as integer nanoseconds since 1970-01-01 (strings).

`subns-1600` is not xarray's encoding of dates but counts written as numbers with CF attributes (xarray writes them
as they are): fractions finer than a nanosecond, so that even `--round` finds no unit nearer than ns for them.
"""

import json
import pathlib
from fractions import Fraction
import shutil
import warnings

import cftime
import numpy as np
import xarray as xr

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "auto-unit-unheld"
UNIX_JDN = 2440588  # cftime's toordinal() of 1970-01-01 (proleptic Gregorian), a Julian day number

warnings.simplefilter("ignore")

CASES = {
    # a julian cftime index, as xarray writes one out of pandas' range
    "julian-hourly-1500": dict(start="1500-02-27", calendar="julian", units="days since 1582-10-04 12:00"),
    # the standard calendar before 1678: xarray decodes it through cftime too
    "standard-hourly-1600": dict(start="1600-03-01", calendar="standard", units="days since 1970-01-01"),
    # the reference itself before 1678: counts near 0, the day's fractions of hours
    "standard-hourly-since-1600": dict(start="1600-01-01", calendar="standard", units="days since 1600-01-01"),
}

# Counts with fractions finer than a nanosecond (1e-6 days and a hair: 86.4 ms and 0.9 fs), as numbers.
SUBNS = dict(counts=[0.0, 1.0000000000001e-06, 0.5000000000001, 1.25], calendar="proleptic_gregorian", units="days since 1600-01-01")


def instant_ns(d):
    days = d.toordinal() - UNIX_JDN
    return str(((days * 86400 + d.hour * 3600 + d.minute * 60 + d.second) * 10**6 + d.microsecond) * 1000)


def floored_us(count, reference):
    """The exact instant of a float count of days after `reference` (a cftime datetime), floored to the microsecond."""
    ns = int(instant_ns(reference)) + Fraction(count) * 86400 * 10**9
    return str((ns // 1000) * 1000)


def record(store, units, calendar):
    back = xr.open_zarr(store, use_cftime=True)
    counts = xr.open_zarr(store, decode_times=False).time.values
    reference = cftime.datetime(*[int(part) for part in units.split(" since ")[1].replace(":", "-").replace(" ", "-").split("-")], calendar=calendar)
    return {
        "units": units,
        "calendar": calendar,
        "counts": [repr(float(c)) for c in counts],
        "instants": [instant_ns(t) for t in back.time.values],
        "floored_us": [floored_us(float(c), reference) for c in counts],
    }


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    expected = {}
    for name, case in CASES.items():
        times = xr.cftime_range(case["start"], periods=6, freq="H", calendar=case["calendar"])
        ds = xr.Dataset({"t2m": ("time", np.arange(6, dtype="f4"))}, coords={"time": times})
        store = OUT / f"{name}.zarr"
        ds.to_zarr(store, encoding={"time": {"units": case["units"], "dtype": "float64", "calendar": case["calendar"]}})
        assert list(xr.open_zarr(store, use_cftime=True).time.values) == list(times), name
        expected[name] = record(store, case["units"], case["calendar"])
    store = OUT / "subns-1600.zarr"
    time = xr.Variable("time", np.array(SUBNS["counts"]), {"units": SUBNS["units"], "calendar": SUBNS["calendar"]})
    xr.Dataset({"t2m": ("time", np.arange(len(SUBNS["counts"]), dtype="f4"))}, coords={"time": time}).to_zarr(store)
    expected["subns-1600"] = record(store, SUBNS["units"], SUBNS["calendar"])
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")


main()
