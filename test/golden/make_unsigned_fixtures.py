"""Variables xarray writes with `_Unsigned` (netCDF's unsigned data in signed storage, as `open_dataset(nc).to_zarr`
keeps it), and the values xarray reads back: the golden data of the `_Unsigned` decoding step.

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13):

    /usr/bin/python3 test/golden/make_unsigned_fixtures.py

It replaces test/fixtures/unsigned/ and writes test/fixtures/unsigned/expected.json. xarray's UnsignedIntegerCoder
decodes first (before masking, unpacking and CF time): `_Unsigned: "true"` on signed storage reads the values as the
unsigned type of their width, its `_FillValue` converted too; `"false"` on unsigned storage reads them as signed.
The store (zarr v2, consolidated; written by xarray `to_zarr`) holds, over `time`:

- `q(time)`: uint8 written as `{"dtype": "i1", "_Unsigned": "true"}` (128, 200, 255 stored negative);
- `p(time)`: float64 packed as `{"dtype": "i1", "_Unsigned": "true", "scale_factor": 1.0, "_FillValue": -1}`
  (the trial's store: NaN is the fill value, 255 once unsigned);
- `w(time)`: uint16 written as `{"dtype": "i2", "_Unsigned": "true", "_FillValue": -1}` (masked);
- `s(time)`: uint16 storage with `_Unsigned: "false"` (xarray writes no such encoding: added with zarr, as a
  netCDF file's attribute is kept), whose values above 32767 xarray reads as negative int16;
- `stamp(time)`: CF time `hours since 2000-01-01` written as `{"dtype": "i2", "_Unsigned": "true"}` (counts past
  32767, stored negative).

Expected: each column of `ds[names].to_dataframe().reset_index()` with its pandas dtype, numbers as strings
(`nan` for NaN), times as ISO text; "stored", each variable's data type as zarr reads it.
"""

import json
import pathlib
import shutil
import warnings

import numpy as np
import pandas as pd
import xarray as xr
import zarr

from golden_columns import frame_columns

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "unsigned"
STORE = OUT / "unsigned.zarr"
NAMES = ["q", "p", "w", "s", "stamp"]

warnings.simplefilter("ignore")


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    time = pd.date_range("2024-01-01", periods=6, freq="D")
    ds = xr.Dataset(
        {
            "q": (("time",), np.array([0, 1, 127, 128, 200, 255], dtype="uint8")),
            "p": (("time",), np.array([0.0, 12.5, 100.0, 150.0, 254.0, np.nan])),
            "w": (("time",), np.array([0.0, 1.0, 40000.0, np.nan, 65534.0, 32768.0])),
            "stamp": (("time",), pd.to_datetime(["2000-01-01", "2002-01-01", "2003-09-25", "2004-07-24", "2007-06-01", "2000-01-02"])),
        },
        coords={"time": time},
    )
    encoding = {
        "q": {"dtype": "i1", "_Unsigned": "true"},
        "p": {"dtype": "i1", "_Unsigned": "true", "scale_factor": 1.0, "_FillValue": -1},
        "w": {"dtype": "i2", "_Unsigned": "true", "_FillValue": -1},
        "stamp": {"dtype": "i2", "_Unsigned": "true", "units": "hours since 2000-01-01", "calendar": "proleptic_gregorian"},
    }
    ds.to_zarr(STORE, encoding=encoding, consolidated=True)
    group = zarr.open_group(str(STORE), mode="a")
    signed = group.create_dataset("s", data=np.array([32768, 65534, 65535, 0, 1, 32767], dtype="uint16"), fill_value=None)
    signed.attrs.update({"_ARRAY_DIMENSIONS": ["time"], "_Unsigned": "false"})
    zarr.consolidate_metadata(str(STORE))
    raw = zarr.open_group(str(STORE), mode="r")
    back = xr.open_zarr(STORE)
    frame = back[NAMES].to_dataframe().reset_index()
    expected = {
        "store": STORE.name,
        "columns_option": NAMES,
        "rows": len(frame),
        "stored": {name: str(raw[name].dtype) for name in NAMES},
        "attributes": {name: dict(raw[name].attrs) for name in NAMES},
        "columns": frame_columns(frame),
    }
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
