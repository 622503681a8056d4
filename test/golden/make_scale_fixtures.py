"""xarray datasets with CF-encoded time over several chunks, for time ranges, partitions and parts, and what xarray
itself selects from them.

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13, pandas 1.5):

    /usr/bin/python3 test/golden/make_scale_fixtures.py

It replaces test/fixtures/scale/ and writes test/fixtures/scale/expected.json. Stores (zarr v2, consolidated,
written by `Dataset.to_zarr` with xarray's own encoding of datetime64 time):
- hourly-grid.zarr: t2m(time, lat, lon) float32 (NaN here and there), time hourly from 2020-12-28 for 12 days, so
  that days, a month and a year end inside it: int64 "hours since ..." in chunks of 20, t2m in chunks of (30, 3, 2).
- six-hourly-nat.zarr: obs(time) float64 over a time coordinate holding NaT, which xarray encodes as float64 counts
  with NaN, in chunks of 8.

Expected, per store and range [start, end) (either may be absent): the rows xarray keeps with
`(time >= start) & (time < end)` (NaT in no range), as `ds[var].to_dataframe()` rows: their count, the least and
greatest time (integer nanoseconds since 1970, strings), the count and exact sum of the non-NaN values (every value
is a multiple of 1/4, so any summation order gives the same double), and the rows per day (`YYYY-MM-DD`).
"""

import json
import pathlib
import shutil
import warnings

import numpy as np
import pandas as pd
import xarray as xr

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "scale"

warnings.simplefilter("ignore")


def ns(value) -> str:
    return str(int(np.datetime64(value, "ns").astype(np.int64)))


def expected_range(ds: xr.Dataset, var: str, start, end) -> dict:
    keep = xr.ones_like(ds.time, dtype=bool)
    if start is not None:
        keep = keep & (ds.time >= np.datetime64(start))
    if end is not None:
        keep = keep & (ds.time < np.datetime64(end))
    frame = ds[[var]].isel(time=np.flatnonzero(keep.values)).to_dataframe().reset_index()
    values = frame[var].to_numpy(dtype="f8")
    days = frame["time"].dt.strftime("%Y-%m-%d").value_counts().sort_index()
    return {
        "start": start,
        "end": end,
        "rows": int(len(frame)),
        "time_min": ns(frame["time"].min()) if len(frame) else None,
        "time_max": ns(frame["time"].max()) if len(frame) else None,
        "values": int(np.count_nonzero(~np.isnan(values))),
        "sum": float(np.nansum(values)),
        "days": {day: int(count) for day, count in days.items()},
    }


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    expected = {}

    times = pd.date_range("2020-12-28", periods=24 * 12, freq="H")
    t2m = (250 + (np.arange(times.size * 12) % 97) * 0.25).astype("f4").reshape(times.size, 3, 4)
    t2m[::17, 1, 2] = np.nan
    grid = xr.Dataset(
        {"t2m": (("time", "lat", "lon"), t2m)},
        coords={"time": times, "lat": [10.0, 20.0, 30.0], "lon": [0.0, 90.0, 180.0, 270.0]},
    )
    path = OUT / "hourly-grid.zarr"
    grid.to_zarr(path, mode="w", encoding={"time": {"chunks": (20,)}, "t2m": {"chunks": (30, 3, 2)}})
    back = xr.open_zarr(path)
    assert back.time.encoding["dtype"] == np.dtype("int64") and back.time.encoding["units"].startswith("hours since")
    ranges = [("2020-12-30T05:00", "2021-01-02T00:00"), ("2021-01-01", None), (None, "2020-12-29T13:00"), ("2020-12-28T00:00", "2020-12-28T01:00")]
    expected["hourly-grid.zarr"] = {"var": "t2m", "units": back.time.encoding["units"], "ranges": [expected_range(back, "t2m", s, e) for s, e in ranges] + [expected_range(back, "t2m", None, None)]}

    six = pd.date_range("2021-03-01", periods=60, freq="6H").to_numpy().copy()
    six[[5, 17, 40, 41]] = np.datetime64("NaT")
    obs = xr.Dataset({"obs": ("time", np.arange(60, dtype="f8") * 0.5)}, coords={"time": six})
    path = OUT / "six-hourly-nat.zarr"
    obs.to_zarr(path, mode="w", encoding={"time": {"chunks": (8,)}, "obs": {"chunks": (8,)}})
    back = xr.open_zarr(path)
    assert back.time.encoding["dtype"] == np.dtype("float64")
    ranges = [("2021-03-02T06:00", "2021-03-11T06:00"), ("2021-03-05", "2021-03-12"), ("2021-03-11T06:00", None)]
    expected["six-hourly-nat.zarr"] = {"var": "obs", "units": back.time.encoding["units"], "ranges": [expected_range(back, "obs", s, e) for s, e in ranges]}

    (OUT / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
