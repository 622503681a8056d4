"""Zarr v2 stores of packed CF time (`scale_factor`, `add_offset`) written by xarray itself, and what xarray reads.

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13, pandas 1.5):

    /usr/bin/python3 test/golden/make_packed_time_fixtures.py

It replaces test/fixtures/packed-time/ and writes test/fixtures/packed-time/expected.json. xarray packs a time
coordinate when its `encoding` asks (a `dtype`, `scale_factor`, `add_offset`): decode_cf masks the stored counts,
unpacks them (count x scale_factor + add_offset, in float32 for 8/16-bit counts without an offset, else float64)
and only then decodes them as time. Each store holds `time` and a data variable `v` (0, 1, 2...) over it.

Expected, per store: "instants", the decoded times as exact integer nanoseconds since 1970-01-01T00:00:00 UTC
(strings; null for NaT), read back by `xarray.open_zarr`; "from", a time and the `v` values xarray selects with
`time >= from`; "unpacked_dtype", the dtype of the counts xarray unpacks (masked and scaled, not yet decoded as
time: `open_zarr(..., decode_times=False)`), which inspect names.
"""

import json
import pathlib
import shutil
import warnings

import numpy as np
import pandas as pd
import xarray as xr

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "packed-time"

warnings.simplefilter("ignore")

CASES = {}


def instants(values) -> list:
    ns = np.asarray(values).astype("datetime64[ns]")
    return [None if np.isnat(v) else str(int(v.astype(np.int64))) for v in ns]


def packed(name: str, times, encoding: dict, start: str) -> None:
    times = pd.DatetimeIndex(times)
    ds = xr.Dataset({"v": ("time", np.arange(len(times), dtype="f8"))}, coords={"time": times})
    path = OUT / f"{name}.zarr"
    ds.to_zarr(path, mode="w", encoding={"time": encoding})
    back = xr.open_zarr(path)
    attrs = json.loads((path / "time" / ".zattrs").read_text())
    dtype = json.loads((path / "time" / ".zarray").read_text())["dtype"]
    selected = back.v.where(back.time >= np.datetime64(start), drop=True).values
    CASES[name] = {
        "dtype": dtype,
        "attributes": {k: v for k, v in attrs.items() if k != "_ARRAY_DIMENSIONS"},
        "instants": instants(back.time.values),
        "unpacked_dtype": str(xr.open_zarr(path, decode_times=False).time.dtype),
        "from": {"start": start, "v": [float(x) for x in selected]},
    }


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    # int16 hours packed by 12 (float32 unpacking): half days.
    packed("int16-scale", pd.date_range("2000-01-01", periods=6, freq="12H"), {"units": "hours since 2000-01-01", "dtype": "int16", "scale_factor": 12.0}, "2000-01-02")
    # int16 seconds by a quarter (float32 unpacking): quarter seconds, for a millisecond unit.
    packed("int16-quarter-seconds", ["2010-05-01 00:00:00", "2010-05-01 00:00:00.25", "2010-05-01 00:00:01.5", "2010-05-01 00:02:00.75"], {"units": "seconds since 2010-05-01", "dtype": "int16", "scale_factor": 0.25}, "2010-05-01 00:00:01")
    # int32 minutes by a half with an offset and a fill value (float64 unpacking), NaT among them.
    packed(
        "int32-offset-fill",
        ["1999-12-31 23:00:00", "2000-01-01 00:00:30", None, "2000-03-01 12:34:30"],
        {"units": "minutes since 2000-01-01", "dtype": "int32", "scale_factor": 0.5, "add_offset": -60.0, "_FillValue": -32767},
        "2000-01-01",
    )
    (OUT / "expected.json").write_text(json.dumps(CASES, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
