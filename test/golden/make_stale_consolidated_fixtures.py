"""A store whose consolidated metadata is stale, as xarray leaves one: written consolidated, then appended to
(`append_dim="time"`) and given a variable (`mode="a"`), both with `consolidated=False`. The golden data of the one
source of metadata every export and inspect read, and of the warning about the arrays' own.

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13):

    /usr/bin/python3 test/golden/make_stale_consolidated_fixtures.py

It replaces test/fixtures/stale-consolidated/ and writes test/fixtures/stale-consolidated/expected.json: the table
`ds[["t2m"]].to_dataframe().reset_index()` of `xr.open_zarr(store)` (the default, consolidated: 4 times), the data
variables and sizes it sees, and those `open_zarr(store, consolidated=False)` sees (8 times, and `extra`).
"""

import json
import pathlib
import shutil
import warnings

import numpy as np
import pandas as pd
import xarray as xr

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "stale-consolidated"
STORE = OUT / "stale.zarr"

warnings.simplefilter("ignore")


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    time = pd.date_range("2024-01-01", periods=8, freq="D")
    t2m = np.arange(16, dtype="float32").reshape(8, 2)
    ds = xr.Dataset({"t2m": (("time", "lat"), t2m)}, coords={"time": time, "lat": [1.0, 2.0]})
    ds.isel(time=slice(0, 4)).to_zarr(STORE, consolidated=True)
    ds.isel(time=slice(4, 8)).to_zarr(STORE, append_dim="time", consolidated=False)
    xr.Dataset({"extra": (("lat",), np.array([5.0, 6.0]))}).to_zarr(STORE, mode="a", consolidated=False)
    default = xr.open_zarr(STORE)
    actual = xr.open_zarr(STORE, consolidated=False)
    frame = default[["t2m"]].to_dataframe().reset_index()
    expected = {
        "store": STORE.name,
        "default": {"sizes": dict(default.sizes), "data_vars": sorted(default.data_vars)},
        "consolidated_false": {"sizes": dict(actual.sizes), "data_vars": sorted(actual.data_vars)},
        "columns": [{"name": c, "dtype": str(frame[c].dtype), "values": [str(v) for v in (frame[c].values.astype("datetime64[ns]") if c == "time" else frame[c].values.tolist())]} for c in frame.columns],
    }
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
