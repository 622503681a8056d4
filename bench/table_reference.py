"""The xarray side of the table benchmark (bench/tables.mjs), and the store it reads.

    /usr/bin/python3 bench/table_reference.py make <store.zarr>
    /usr/bin/python3 bench/table_reference.py to_dataframe <store.zarr> <variable> <result.json>

`make` writes, with xarray's own `Dataset.to_zarr` (Zarr v2, its default Blosc lz4 compressor), a 50M-row reanalysis
layout: `time` 2,000 hours (CF "hours since", int64), `lat` 100 (float32), `lon` 250 (float64), `t2m(time, lat, lon)`
float32 in chunks of 100 x 100 x 250 with a few NaN, `elev(lat, lon)` float64 (static, broadcast along time).

`to_dataframe` times `xr.open_zarr(store)[[variable]].to_dataframe().reset_index()`, the step pandas then hands to
`to_parquet`: pyarrow is not available here (Debian has no python3-pyarrow), so the Parquet write itself is not
measured on this side. Writes to <result.json>: rows, seconds of the to_dataframe step, and the process's peak RSS
(KiB, getrusage).
"""

import json
import resource
import sys
import time

import numpy as np
import pandas as pd
import xarray as xr


def make(path: str) -> None:
    times = np.array("2000-01-01T00", dtype="datetime64[ns]") + np.arange(2000) * np.timedelta64(1, "h")
    lat = np.linspace(-49.5, 49.5, 100, dtype=np.float32)
    lon = np.linspace(0, 358.56, 250)
    hours = np.arange(2000, dtype=np.float32)[:, None, None]
    t2m = (280 + 15 * np.cos(np.deg2rad(lat))[None, :, None] + 5 * np.sin(hours / 24 * 2 * np.pi) + np.sin(np.deg2rad(lon))[None, None, :]).astype(np.float32)
    t2m[::97, 3, :] = np.nan
    elev = np.outer(np.cos(np.deg2rad(lat)), np.sin(np.deg2rad(lon))) * 1000
    ds = xr.Dataset(
        {"t2m": (("time", "lat", "lon"), t2m, {"units": "K"}), "elev": (("lat", "lon"), elev, {"units": "m"})},
        coords={"time": times, "lat": lat, "lon": lon},
    )
    encoding = {"time": {"units": "hours since 2000-01-01", "dtype": "int64"}, "t2m": {"chunks": (100, 100, 250)}}
    ds.to_zarr(path, encoding=encoding, mode="w")


def to_dataframe(path: str, variable: str, result: str) -> None:
    ds = xr.open_zarr(path)
    start = time.perf_counter()
    frame = ds[[variable]].to_dataframe().reset_index()
    seconds = time.perf_counter() - start
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with open(result, "w") as out:
        json.dump({"rows": len(frame), "seconds": seconds, "rssKiB": rss_kib, "pandas": pd.__version__, "xarray": xr.__version__}, out)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        to_dataframe(sys.argv[2], sys.argv[3], sys.argv[4])
