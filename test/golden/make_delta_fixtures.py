"""Zarr v2 stores with numcodecs' Delta filter, written by zarr-python 2 and xarray, and what they read back.

Regenerate with Debian's python3 (numcodecs 0.11, zarr 2.13, xarray 2023.01):

    /usr/bin/python3 test/golden/make_delta_fixtures.py

It replaces test/fixtures/delta/ and writes test/fixtures/delta/expected.json. Delta stores each value as its
difference from the one before it in the chunk (computed in the dtype, wrapping), and decodes by the running sum.

- cf.zarr: xarray's CF time, int64 `seconds since 2000-01-01` with `_FillValue` -1 (a NaT), Delta then zlib,
  chunks of 4; expected "instants": exact integer nanoseconds since 1970 (strings; null for NaT).
- wrap.zarr: zarr-python 2 arrays whose differences wrap in their dtype: `i1` (100, -100, 127, -128...),
  `u2` (0, 65535, 1...), `i8` (int64 min and max); expected "values": the stored numbers (strings for 64-bit).
- times.zarr: `t`, numpy `M8[s]` stored as int64 differences, blosc-zstd, with NaT (a running sum here, never a
  stored value); expected "times": the counts (strings; null for NaT).
- refused.zarr: `astype` other than `dtype` (differences stored narrower, widened on decode): not read.
"""

import json
import pathlib
import shutil
import warnings

import numcodecs
import numpy as np
import xarray as xr
import zarr

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "delta"

warnings.simplefilter("ignore")
shutil.rmtree(OUT, ignore_errors=True)
OUT.mkdir(parents=True)
expected = {}

times = np.array(["2020-01-01T00:00", "2020-01-01T06:00", "NaT", "2020-01-02T00:00", "2020-01-03T12:34:56", "1969-12-31T23:59:59"], dtype="M8[s]")
ds = xr.Dataset({"v": ("time", np.arange(6, dtype="f4"))}, coords={"time": times})
encoding = {"time": {"dtype": "int64", "units": "seconds since 2000-01-01", "_FillValue": -1, "filters": [numcodecs.Delta(dtype="<i8")], "compressor": numcodecs.Zlib(1), "chunks": (4,)}}
ds.to_zarr(OUT / "cf.zarr", encoding=encoding, consolidated=True)
back = xr.open_zarr(OUT / "cf.zarr").time.values.astype("datetime64[ns]")
expected["cf"] = {"instants": [None if np.isnat(v) else str(int(v.astype(np.int64))) for v in back]}

group = zarr.open_group(str(OUT / "wrap.zarr"), mode="w")
WRAPS = {
    "i1": np.array([100, -100, 127, -128, 0, 1, -1, 127, -128], dtype="<i1"),
    "u2": np.array([0, 65535, 1, 65534, 2, 0, 65535], dtype="<u2"),
    "i8": np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0, -1, np.iinfo(np.int64).min, 5], dtype="<i8"),
}
expected["wrap"] = {}
for name, values in WRAPS.items():
    array = group.create_dataset(name, shape=values.shape, chunks=(4,), dtype=values.dtype, filters=[numcodecs.Delta(dtype=values.dtype.str)], compressor=None, fill_value=0)
    array[:] = values
    array.attrs["_ARRAY_DIMENSIONS"] = ["row"]
    expected["wrap"][name] = [str(int(v)) for v in zarr.open_array(str(OUT / "wrap.zarr" / name), mode="r")[:]]

# numpy times stored as int64 differences, blosc-zstd compressed: a NaT is a running sum, not a stored value.
stamps = np.array(["2020-01-01T00:00:00", "NaT", "2020-01-01T00:00:07", "NaT", "NaT", "1969-12-31T23:59:59", "2021-06-01T12:00:00"], dtype="M8[s]")
times_group = zarr.open_group(str(OUT / "times.zarr"), mode="w")
t = times_group.create_dataset("t", shape=stamps.shape, chunks=(4,), dtype="<M8[s]", filters=[numcodecs.Delta(dtype="<i8")], compressor=numcodecs.Blosc(cname="zstd", clevel=3, shuffle=numcodecs.Blosc.SHUFFLE), fill_value=None)
t[:] = stamps
expected["times"] = [None if np.isnat(v) else str(int(v.astype(np.int64))) for v in zarr.open_array(str(OUT / "times.zarr" / "t"), mode="r")[:]]

refused = zarr.open_group(str(OUT / "refused.zarr"), mode="w")
narrow = refused.create_dataset("x", shape=(4,), chunks=(4,), dtype="<i8", filters=[numcodecs.Delta(dtype="<i8", astype="<i2")], compressor=None, fill_value=0)
narrow[:] = [1, 2, 4, 8]
narrow.attrs["_ARRAY_DIMENSIONS"] = ["row"]

(OUT / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
