"""A forecast with an auxiliary time coordinate and its cell bounds, as xarray 2023.01 writes it: which time selects
rows (`ds.sel(time=...)`, the dimension coordinate; `valid_time` has no index to select by), with and without
consolidated metadata.

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13):

    /usr/bin/python3 test/golden/make_aux_time_fixtures.py

It replaces test/fixtures/aux-time/ and writes its expected.json. Both stores are written by `Dataset.to_zarr` from
the same dataset, `forecast.zarr` consolidated, `forecast-plain.zarr` not:

- `time(time)`: four runs 12 hours apart from 2000-01-01T00:00 (`hours since 2000-01-01`, int32);
- `step(step)`: the lead times 0 and 6, int32 hours as plain numbers (no units: not a time);
- `t2m(time, step)`: float32;
- `valid_time(time, step)`: an auxiliary coordinate, time + step (`hours since 2000-01-01`, int32), `bounds:
  "valid_bnds"`; xarray writes `coordinates: "valid_time"` on t2m;
- `valid_bnds(time, step, nv)`: valid_time -3 h and +3 h, datetime64 values, which xarray encodes with `units`
  and `calendar` of its own (a CF time array in its own right; its name is no dimension of it, so without
  consolidated metadata no dimension coordinate names it); xarray writes it in the group's `coordinates`.

Expected: `ds.sel(time=slice(START, LAST)).to_dataframe(dim_order=["time", "step", "nv"]).reset_index()` (every
variable; xarray's slice ends include the bound: the export's `--end` is the next hour), the same frame of each day of
`time` (`ds.sel(time=day)`), and what `ds.sel(valid_time=...)` raises (no index: valid_time cannot select).
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
OUT = HERE.parent / "fixtures" / "aux-time"
START, LAST = "2000-01-01T06", "2000-01-02T00"
DIMS = ["time", "step", "nv"]

warnings.simplefilter("ignore")


def forecast() -> xr.Dataset:
    time = pd.date_range("2000-01-01T00:00", periods=4, freq="12H")
    step = np.array([0, 6], dtype="int32")
    valid = time.values[:, None] + step[None, :].astype("timedelta64[h]")
    bounds = np.stack([valid - np.timedelta64(3, "h"), valid + np.timedelta64(3, "h")], axis=2)
    ds = xr.Dataset(
        {"t2m": (("time", "step"), np.arange(8, dtype="float32").reshape(4, 2) + 270.5)},
        coords={"time": time, "step": step, "valid_time": (("time", "step"), valid), "valid_bnds": (("time", "step", "nv"), bounds)},
    )
    ds.valid_time.attrs["bounds"] = "valid_bnds"
    ds.valid_time.encoding = {"units": "hours since 2000-01-01", "dtype": "int32"}
    ds.time.encoding = {"units": "hours since 2000-01-01", "dtype": "int32"}
    return ds


def frame(ds: xr.Dataset) -> list:
    return frame_columns(ds.to_dataframe(dim_order=DIMS).reset_index())


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    forecast().to_zarr(OUT / "forecast.zarr", consolidated=True)
    forecast().to_zarr(OUT / "forecast-plain.zarr", consolidated=False)
    ds = xr.open_zarr(OUT / "forecast.zarr")
    assert set(ds.coords) == {"time", "step", "valid_time", "valid_bnds"}
    assert ds.valid_bnds.attrs == {} and "units" in ds.valid_bnds.encoding
    try:
        ds.sel(valid_time=slice(START, LAST))
        valid_time_sel = "selected"
    except (KeyError, ValueError) as error:
        valid_time_sel = f"{type(error).__name__}: {error}"
    days = sorted({str(day) for day in ds.time.values.astype("datetime64[D]")})
    expected = {
        "stores": ["forecast.zarr", "forecast-plain.zarr"],
        "range": {"start": START, "last": LAST, "columns": frame(ds.sel(time=slice(START, LAST)))},
        "days": {day: frame(ds.sel(time=day)) for day in days},
        "valid_time_sel": valid_time_sel,
    }
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    print(valid_time_sel)


if __name__ == "__main__":
    main()
