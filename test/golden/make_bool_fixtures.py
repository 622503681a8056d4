"""Boolean variables as xarray writes them, and the values xarray reads back: the golden data of Bool columns.

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13, pandas 1.5):

    /usr/bin/python3 test/golden/make_bool_fixtures.py

It replaces test/fixtures/bool/ and writes test/fixtures/bool/expected.json. xarray writes a bool variable as
int8 with the attribute `dtype: "bool"` and reads it back with `astype(bool)` after CF masking (any non-zero value
true). The store (zarr v2, consolidated metadata) holds:

- `land(y)`: the trial's bool variable, beside `v(y)` float64 and the coordinate `y`;
- `mask(y, x)`: a 2-D bool variable, chunked;
- `flag16(y)`: int16 counts with `dtype: "bool"` written by hand (0, 2, -3): xarray reads them as bools too;
- `qc(y)`: int8 with `dtype: "bool"` and `_FillValue` -1: masked values, which xarray's float NaN makes True and
  dt64-export makes null (listed, per row, in "masked").

Expected: "columns", each column of `ds[names].to_dataframe(dim_order=["y", "x"]).reset_index()` (or `["y"]`), in
the golden spelling (bools as true/false, numbers as strings), with its pandas dtype; "stored", the raw int values
of each bool variable (read with zarr: xarray 2023.01 decodes the attribute even with `decode_cf=False`); "masked", the rows of `qc` that are its `_FillValue`.
"""

import json
import pathlib
import shutil
import warnings

import numpy as np
import xarray as xr
import zarr

from golden_columns import frame_columns

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "bool"
STORE = OUT / "bool.zarr"

warnings.simplefilter("ignore")


def spelled(values) -> list:
    """Bools as JSON's true and false, everything else as text."""
    return [bool(v) if isinstance(v, (bool, np.bool_)) else str(v) for v in values]


def table(ds: xr.Dataset, names: list, dims: list) -> dict:
    frame = ds[names].to_dataframe(dim_order=dims).reset_index()
    return {"columns_option": names, "dims": dims, "rows": len(frame), "columns": frame_columns(frame, spelled)}


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    y = np.arange(5)
    ds = xr.Dataset(
        {
            "land": (("y",), np.array([True, False, True, True, False])),
            "v": (("y",), np.arange(5) * 1.5),
            "mask": (("y", "x"), np.array([[True, False, False], [False, True, False], [True, True, True], [False, False, False], [True, False, True]])),
            "flag16": (("y",), np.array([0, 2, -3, 0, 1], dtype="i2"), {"dtype": "bool"}),
            "qc": (("y",), np.array([1, 0, -1, 7, -1], dtype="i1"), {"dtype": "bool"}),
        },
        coords={"y": y, "x": np.array([10, 20, 30])},
    )
    ds.to_zarr(STORE, encoding={"mask": {"chunks": (2, 2)}, "qc": {"_FillValue": -1}}, consolidated=True)
    back = xr.open_zarr(STORE)
    # xarray 2023.01 makes bools of them even with decode_cf=False: the stored values are read with zarr.
    raw = zarr.open_group(str(STORE), mode="r")
    for name in ["land", "mask", "flag16", "qc"]:
        assert back[name].dtype == bool, f"{name}: xarray does not read it as bool"
        assert json.loads((STORE / name / ".zattrs").read_text()).get("dtype") == "bool", f"{name}: no dtype bool attribute"
    expected = {
        "store": STORE.name,
        "dtypes": {name: str(raw[name].dtype) for name in ["land", "mask", "flag16", "qc"]},
        "stored": {name: spelled(raw[name][...].ravel()) for name in ["land", "mask", "flag16", "qc"]},
        "masked": [int(i) for i in np.flatnonzero(raw["qc"][...] == -1)],
        "tables": {
            "land-v": table(back, ["land", "v"], ["y"]),
            "mask-flag16-qc": table(back, ["mask", "flag16", "qc"], ["y", "x"]),
        },
    }
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
