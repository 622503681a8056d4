"""Zarr v2 arrays whose `scale_factor`/`add_offset` is an integer past 2^53, and the values xarray reads back: JSON
text carries every digit of such an integer (zarr-python writes it so, and its `json.load` reads it exactly), and
xarray 2023.01 unpacks in float64 whatever the attributes, so the factor and the results are rounded to doubles.

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13):

    /usr/bin/python3 test/golden/make_exact_packing_fixtures.py

It replaces test/fixtures/exact-packing/ and writes test/fixtures/exact-packing/expected.json. The store (written by
zarr 2.13, consolidated) holds, over `time` (int32 `days since`, no fill value):

- `stamp(time)`: CF time, int64 `nanoseconds since 1970-01-01`, `add_offset` 946684800000000001 (2000-01-01 plus a
  nanosecond), `missing_value` -1, no fill value;
- `counts(time)`: int64, `scale_factor` 2, `add_offset` 9007199254740993, `_FillValue` -1;
- `ratio(time)`: float64, `add_offset` 9007199254740993 (no exact result: refused by the export);
- `halves(time)`: int32, `scale_factor` 0.5, `add_offset` 9007199254740993 (no exact result: refused).

Expected: each column of `ds[names].to_dataframe().reset_index()` with its pandas dtype, numbers as strings (`nan`
for NaN, `NaT` for NaT; times as ISO text), and `stamp_exact`/`counts_exact`: the same values unpacked exactly with
Python's integers (count × scale_factor + add_offset), the values this package gives.
"""

import json
import pathlib
import warnings

import numpy as np
import xarray as xr
import zarr

from golden_columns import new_group_over_days, write_frame_expected

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "exact-packing"
STORE = OUT / "exact-packing.zarr"
NAMES = ["stamp", "counts", "ratio"]
STAMP_OFFSET = 946684800000000001
COUNTS_OFFSET = 9007199254740993
STAMPS = [0, 1, -1, 3_600_000_000_000]
COUNTS = [1, 2, -1, 3]

warnings.simplefilter("ignore")


def main() -> None:
    group = new_group_over_days(OUT, STORE, 4)
    stamp = group.create_dataset("stamp", data=np.array(STAMPS, dtype="int64"), fill_value=None)
    stamp.attrs.update({"_ARRAY_DIMENSIONS": ["time"], "units": "nanoseconds since 1970-01-01", "calendar": "proleptic_gregorian", "add_offset": STAMP_OFFSET, "missing_value": -1})
    counts = group.create_dataset("counts", data=np.array(COUNTS, dtype="int64"), fill_value=None)
    counts.attrs.update({"_ARRAY_DIMENSIONS": ["time"], "scale_factor": 2, "add_offset": COUNTS_OFFSET, "_FillValue": -1})
    ratio = group.create_dataset("ratio", data=np.array([0.5, 1.5, 2.5, 3.5], dtype="float64"), fill_value=None)
    ratio.attrs.update({"_ARRAY_DIMENSIONS": ["time"], "add_offset": COUNTS_OFFSET})
    halves = group.create_dataset("halves", data=np.arange(4, dtype="int32"), fill_value=None)
    halves.attrs.update({"_ARRAY_DIMENSIONS": ["time"], "scale_factor": 0.5, "add_offset": COUNTS_OFFSET})
    zarr.consolidate_metadata(str(STORE))
    # The JSON text carries every digit, and json reads it back exactly.
    assert json.loads((STORE / "stamp" / ".zattrs").read_text())["add_offset"] == STAMP_OFFSET
    assert json.loads((STORE / "counts" / ".zattrs").read_text())["add_offset"] == COUNTS_OFFSET
    ds = xr.open_zarr(STORE)
    frame = ds[NAMES].to_dataframe().reset_index()
    epoch = np.datetime64(0, "ns")
    write_frame_expected(
        OUT,
        STORE,
        NAMES,
        frame,
        stamp_exact=["NaT" if count == -1 else str(epoch + np.timedelta64(count + STAMP_OFFSET, "ns")) for count in STAMPS],
        counts_exact=["nan" if count == -1 else str(count * 2 + COUNTS_OFFSET) for count in COUNTS],
    )


if __name__ == "__main__":
    main()
