"""A time series with its CF cell boundaries, as xarray 2023.01 writes it: the rows of a time range and of each day,
which `time` (the dimension coordinate) selects and `time_bnds` (its boundary variable, decoded with time's units)
does not; and a store with a second genuine time variable beside `time`, for which the choice stays the user's.

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13):

    /usr/bin/python3 test/golden/make_bounds_selection_fixtures.py

It replaces test/fixtures/bounds-selection/ and writes its expected.json. The stores are written by
`Dataset.to_zarr` (consolidated but one), from:

- `series.zarr`: `time(time)`, four instants 12 hours apart from 2000-01-01T06:00 (`hours since 2000-01-01`,
  `bounds: "time_bnds"`), `time_bnds(time, nv)` int32 hours (each instant -6 h and +6 h) without units, as converters
  from netCDF write it (xarray writes integers as they are; open_zarr decodes them with time's units), and `tas(time)`
  float32;
- `two-times.zarr`: the same, with `valid(time)`, a data variable of times 3 hours after `time`;
- `own-units.zarr`: the same series with `time_bnds(time, nv)` a datetime64 variable, which xarray encodes with
  `units` and `calendar` of its own (what `to_zarr` writes for bounds made in xarray): a CF time array in its own
  right, and still `time`'s boundary variable; `own-units-plain.zarr` is it without consolidated metadata.

Expected, for `series.zarr`: `ds.to_dataframe().reset_index()` (every variable, the rows of time x nv) of
`ds.sel(time=slice("2000-01-01T12", "2000-01-02T06"))` (xarray's slice ends include the bound: the export's
`--start 2000-01-01T12 --end 2000-01-02T07` keeps the same instants), and the same frame of each day of `time`
(`ds.sel(time="2000-01-01")`, ...), by the day's ISO date.
"""

import json
import pathlib
import shutil
import warnings

import numpy as np
import pandas as pd
import xarray as xr

from golden_columns import frame_columns

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "bounds-selection"
START, LAST = "2000-01-01T12", "2000-01-02T06"

warnings.simplefilter("ignore")


def series(extra: bool, own_units: bool = False) -> xr.Dataset:
    time = pd.date_range("2000-01-01T06:00", periods=4, freq="12H")
    hours = np.arange(6, 48, 12, dtype="int32")
    # Counts without units, as converters from netCDF write them: xarray writes integers as they are.
    bounds = np.stack([hours - 6, hours + 6], axis=1)
    if own_units:
        # Instants: xarray encodes them with units and a calendar of their own.
        bounds = np.stack([time.values - np.timedelta64(6, "h"), time.values + np.timedelta64(6, "h")], axis=1)
    ds = xr.Dataset(
        {"tas": ("time", np.array([280.5, 281.25, 282.0, 283.75], dtype="float32")), "time_bnds": (("time", "nv"), bounds)},
        coords={"time": time},
    )
    ds.time.attrs["bounds"] = "time_bnds"
    ds.time.encoding = {"units": "hours since 2000-01-01", "calendar": "proleptic_gregorian", "dtype": "int32"}
    if extra:
        ds["valid"] = ("time", time.values + np.timedelta64(3, "h"))
        ds.valid.encoding = {"units": "hours since 2000-01-01", "dtype": "int32"}
    return ds


def frame(ds: xr.Dataset) -> list:
    return frame_columns(ds.to_dataframe().reset_index())


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    series(False).to_zarr(OUT / "series.zarr", consolidated=True)
    series(True).to_zarr(OUT / "two-times.zarr", consolidated=True)
    series(False, own_units=True).to_zarr(OUT / "own-units.zarr", consolidated=True)
    series(False, own_units=True).to_zarr(OUT / "own-units-plain.zarr", consolidated=False)
    ds = xr.open_zarr(OUT / "series.zarr")
    days = sorted({str(day) for day in ds.time.values.astype("datetime64[D]")})
    expected = {
        "store": "series.zarr",
        "two_times_store": "two-times.zarr",
        "own_units_stores": ["own-units.zarr", "own-units-plain.zarr"],
        "range": {"start": START, "last": LAST, "columns": frame(ds.sel(time=slice(START, LAST)))},
        "days": {day: frame(ds.sel(time=day)) for day in days},
    }
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
