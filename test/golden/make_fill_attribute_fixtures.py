"""Zarr v2 arrays without a fill value (`fill_value: null`) and a `_FillValue` attribute, as converters from netCDF
write them, and the values xarray reads back: the golden data of the one `_FillValue` rule of CF time and companion
columns.

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13):

    /usr/bin/python3 test/golden/make_fill_attribute_fixtures.py

It replaces test/fixtures/fill-attribute/ and writes test/fixtures/fill-attribute/expected.json. xarray's zarr
backend sets `_FillValue` from a v2 array's `fill_value` when there is one, which then wins over the attribute;
with `fill_value: null` the attribute stays, and its CF decoding masks it (a list too: it ravels the values). The
store (written by zarr 2.13, consolidated) holds, over `time` (int32 `days since`, no fill value):

- `scalar(time)`: int16 packed by `scale_factor` 0.5, `_FillValue` -32768 (a number);
- `listed(time)`: the same with `_FillValue` [-32768] and `scale_factor` [0.5] (one-element lists, as netCDF and
  HDF5 attributes are arrays);
- `counts(time)`: int16, `_FillValue` [-1], not packed: masked, no unpacking;
- `both(time)`: int16 with `fill_value` 7 and a `_FillValue` attribute -1: the array's fill value wins (7 masked,
  -1 kept), as xarray maps it;
- `stamp(time)`: CF time (int32 `hours since 2000-01-01`) with `_FillValue` -999 and no fill value: masked too.

Expected: each column of `ds[names].to_dataframe().reset_index()` with its pandas dtype, numbers as strings
(`nan` for NaN, `NaT` for NaT; times as ISO text).
"""

import pathlib
import warnings

import numpy as np
import xarray as xr
import zarr

from golden_columns import new_group_over_days, write_frame_expected

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "fill-attribute"
STORE = OUT / "fill-attribute.zarr"
NAMES = ["scalar", "listed", "counts", "both", "stamp"]

warnings.simplefilter("ignore")


def main() -> None:
    group = new_group_over_days(OUT, STORE, 6)
    packed = np.array([1, 2, -32768, 4, 5, -32768], dtype="int16")
    for name, fill, scale in [("scalar", -32768, 0.5), ("listed", [-32768], [0.5])]:
        array = group.create_dataset(name, data=packed, chunks=(4,), fill_value=None)
        array.attrs.update({"_ARRAY_DIMENSIONS": ["time"], "scale_factor": scale, "_FillValue": fill})
    counts = group.create_dataset("counts", data=np.array([3, -1, 0, -1, 9, 1], dtype="int16"), fill_value=None)
    counts.attrs.update({"_ARRAY_DIMENSIONS": ["time"], "_FillValue": [-1]})
    both = group.create_dataset("both", data=np.array([7, -1, 2, 7, 3, 4], dtype="int16"), fill_value=7)
    both.attrs.update({"_ARRAY_DIMENSIONS": ["time"], "_FillValue": -1})
    stamp = group.create_dataset("stamp", data=np.array([0, 6, -999, 30, -999, 48], dtype="int32"), fill_value=None)
    stamp.attrs.update({"_ARRAY_DIMENSIONS": ["time"], "units": "hours since 2000-01-01", "calendar": "proleptic_gregorian", "_FillValue": -999})
    zarr.consolidate_metadata(str(STORE))
    ds = xr.open_zarr(STORE)
    frame = ds[NAMES].to_dataframe().reset_index()
    write_frame_expected(OUT, STORE, NAMES, frame)


if __name__ == "__main__":
    main()
