"""Hourly times before 1678 written by xarray as float64 `days since` (trial 30, finding F4): no Arrow unit holds
such a count exactly (1 h is 1/24 day, which no double holds), so `--unit auto` falls back to ns, where the first
hour, a whole number of seconds, overflows (ns ends before 1678). The refusal must name the count no unit holds
(TRUNCATION, `--round`), not the overflow, whose advice (a coarser unit) only leads to that count next.

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13, cftime 1.6):

    /usr/bin/python3 test/golden/make_auto_unit_unheld_fixtures.py

It replaces test/fixtures/auto-unit-unheld/ and writes expected.json: per store, the stored counts (repr) and the
instants xarray decodes (through cftime, whole hours), as integer nanoseconds since 1970-01-01 (strings).
"""

import json
import pathlib
import shutil
import warnings

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
}


def instant_ns(d):
    days = d.toordinal() - UNIX_JDN
    return str(((days * 86400 + d.hour * 3600 + d.minute * 60 + d.second) * 10**6 + d.microsecond) * 1000)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    expected = {}
    for name, case in CASES.items():
        times = xr.cftime_range(case["start"], periods=6, freq="H", calendar=case["calendar"])
        ds = xr.Dataset({"t2m": ("time", np.arange(6, dtype="f4"))}, coords={"time": times})
        store = OUT / f"{name}.zarr"
        ds.to_zarr(store, encoding={"time": {"units": case["units"], "dtype": "float64", "calendar": case["calendar"]}})
        back = xr.open_zarr(store, use_cftime=True)
        counts = xr.open_zarr(store, decode_times=False).time.values
        assert [t for t in back.time.values] == list(times), name
        expected[name] = {
            "units": case["units"],
            "calendar": case["calendar"],
            "counts": [repr(float(c)) for c in counts],
            "instants": [instant_ns(t) for t in back.time.values],
        }
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")


main()
