"""Float CF time written by xarray, whose values are whole units only to the float's precision, and the instants
xarray decodes them to: the golden data of rounding to the nearest unit (`rounding: "nearest"`, `--round`).

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13, cftime 1.6, pandas 1.5):

    /usr/bin/python3 test/golden/make_rounding_fixtures.py

It replaces test/fixtures/cf-round/ (one store per case) and writes test/fixtures/cf-round/expected.json. Each
case is a dataset of whole-second times written with `Dataset.to_zarr` (zarr v2, consolidated metadata) as
float64 counts (`encoding={"time": {"units": ..., "dtype": "float64"}}`, as netCDF tools write hourly data in
`days since`): 1 h is 1/24 day, which no double holds, so most counts are a little above or below the hour.

Expected values, per case, as exact integer nanoseconds since 1970-01-01 (strings): "instants", what
`xr.open_zarr(...).time.values` gives: xarray 2023.01 multiplies the count by the unit's nanoseconds in float64 and
truncates the product to int64, which gives whole seconds for the trial's store (days-float-hourly) but is off by
256 ns for some rows before 1970 in days since 1900 (a double near 2.2e18 ns holds multiples of 256 ns);
"xarray_round_s", those values rounded to the second by pandas (`DatetimeIndex.round("s")`, ties to even), which
are the times written ("given", checked); "cftime": `cftime.num2date` of the raw counts, which rounds to the
microsecond (the times written too, checked). "floored_off": how many rows flooring the exact value of the double to whole seconds
would move one second back, what `--allow-truncate --unit s` did before rounding existed.
"""

import json
import pathlib
import shutil
import warnings
from fractions import Fraction

import cftime
import numpy as np
import pandas as pd
import xarray as xr

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "cf-round"
NS = 10**9

warnings.simplefilter("ignore")

CASES = {}


def ns_list(values) -> list:
    return [str(int(v)) for v in np.asarray(values).astype("datetime64[ns]").astype(np.int64)]


def write(name: str, times: pd.DatetimeIndex, units: str) -> None:
    path = OUT / f"{name}.zarr"
    ds = xr.Dataset({"v": (("time",), np.arange(float(len(times))))}, coords={"time": times})
    ds.to_zarr(path, encoding={"time": {"units": units, "dtype": "float64", "chunks": (16,)}}, consolidated=True)
    raw = xr.open_zarr(path, decode_times=False).time.values
    decoded = xr.open_zarr(path).time.values
    given = ns_list(times)
    instants = ns_list(decoded)
    rounded = ns_list(pd.DatetimeIndex(decoded).round("s"))
    assert rounded == given, f"{name}: xarray's values rounded to the second are not the times it was given"
    reference = pd.Timestamp(units.split(" since ")[1])
    unit_ns = {"days": 86400 * NS, "hours": 3600 * NS}[units.split(" since ")[0]]
    cf = cftime.num2date(raw, units, calendar="proleptic_gregorian", only_use_cftime_datetimes=True)
    cftimes = [str(int((pd.Timestamp(d.isoformat()) - pd.Timestamp("1970-01-01")).value)) for d in cf]
    assert cftimes == given, f"{name}: cftime does not decode the times it was given"
    # The exact value of each double, in nanoseconds since 1970, floored to whole seconds.
    floored = [(Fraction(float(count)) * unit_ns + reference.value) // NS * NS for count in raw]
    off = sum(1 for f, g in zip(floored, given) if f != int(g))
    CASES[name] = {
        "units": units,
        "counts": [repr(float(c)) for c in raw],
        "instants": instants,
        "xarray_round_s": rounded,
        "given": given,
        "cftime": cftimes,
        "floored_off": off,
    }


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    # The trial's store: 48 hours over 2020's leap day, in days since 2000.
    write("days-float-hourly", pd.date_range("2020-02-27", periods=48, freq="H"), "days since 2000-01-01")
    # Before 1970 (negative instants), every 10 minutes, in days since 1900.
    write("days-float-10min-1969", pd.date_range("1969-12-31 20:00", periods=60, freq="10min"), "days since 1900-01-01")
    # Hours since, every 20 seconds: 1/180 hour.
    write("hours-float-20s", pd.date_range("2021-06-30 23:58", periods=40, freq="20s"), "hours since 2021-01-01")
    (OUT / "expected.json").write_text(json.dumps(CASES, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
