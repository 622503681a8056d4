"""Zarr v2 arrays whose CF marker attribute is an integer past 2^53, and the values xarray reads back: JSON text
carries every digit of such an integer (zarr-python writes it so, and its `json.load` reads it exactly), and xarray
masks exactly the values equal to it.

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13):

    /usr/bin/python3 test/golden/make_exact_marker_fixtures.py

It replaces test/fixtures/exact-marker/ and writes test/fixtures/exact-marker/expected.json. The store (written by
zarr 2.13, consolidated) holds, over `time` (int32 `days since`, no fill value):

- `stamp(time)`: CF time, uint64 `minutes since 2000-01-01`, no fill value, `missing_value` 9519333550154345791
  (a double would round it to ...346000 and mask nothing);
- `counts(time)`: int64, no fill value, `_FillValue` 9007199254740993.

Expected: each column of `ds[names].to_dataframe().reset_index()` with its pandas dtype, numbers as strings
(`nan` for NaN, `NaT` for NaT; times as ISO text). xarray 2023.01 masks an integer array after converting it and
its marker to float64, so it masks 9007199254740992 too (the double of 9007199254740993); `counts_exact` is the
column as numpy's exact comparison of the int64 data with the marker masks it, the values this package gives.
"""

import json
import pathlib
import warnings

import numpy as np
import xarray as xr
import zarr

from golden_columns import new_group_over_days, write_frame_expected

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "exact-marker"
STORE = OUT / "exact-marker.zarr"
NAMES = ["stamp", "counts"]
STAMP_MARKER = 9519333550154345791
COUNTS_MARKER = 9007199254740993

warnings.simplefilter("ignore")


def main() -> None:
    group = new_group_over_days(OUT, STORE, 4)
    stamp = group.create_dataset("stamp", data=np.array([60, STAMP_MARKER, 120, 180], dtype="uint64"), fill_value=None)
    stamp.attrs.update({"_ARRAY_DIMENSIONS": ["time"], "units": "minutes since 2000-01-01", "missing_value": STAMP_MARKER})
    counts = group.create_dataset("counts", data=np.array([1, COUNTS_MARKER, COUNTS_MARKER - 1, 3], dtype="int64"), fill_value=None)
    counts.attrs.update({"_ARRAY_DIMENSIONS": ["time"], "_FillValue": COUNTS_MARKER})
    zarr.consolidate_metadata(str(STORE))
    # The JSON text carries every digit, and json reads it back exactly.
    assert json.loads((STORE / "stamp" / ".zattrs").read_text())["missing_value"] == STAMP_MARKER
    assert json.loads((STORE / "counts" / ".zattrs").read_text())["_FillValue"] == COUNTS_MARKER
    ds = xr.open_zarr(STORE)
    frame = ds[NAMES].to_dataframe().reset_index()
    stored = np.asarray(zarr.open_group(str(STORE), mode="r")["counts"][:])
    exact = np.ma.masked_where(stored == COUNTS_MARKER, stored)
    counts_exact = ["nan" if masked else str(value) for value, masked in zip(stored.tolist(), np.ma.getmaskarray(exact).tolist())]
    write_frame_expected(OUT, STORE, NAMES, frame, counts_exact=counts_exact)


if __name__ == "__main__":
    main()
