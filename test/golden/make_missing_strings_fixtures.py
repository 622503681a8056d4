"""A string variable with a chunk missing, as xarray writes strings and an interrupted upload leaves them, and what
xarray reads: the golden data of missing chunks of object-string arrays.

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13, pandas 1.5):

    /usr/bin/python3 test/golden/make_missing_strings_fixtures.py

It replaces test/fixtures/missing-strings/ and writes test/fixtures/missing-strings/expected.json. xarray writes a
str variable as an object array through the vlen-utf8 filter with `fill_value: null`; zarr-python 2 reads a missing
chunk of it as None values, which `to_dataframe()` keeps. The store (zarr v2, consolidated metadata) holds
`t2m(time)` float32 and `station(time)` strings, chunks of 4 over 12 times, and `station/1` (rows 4-7) removed.
A second array, `zero(time)`, is written by zarr with its own default fill value for object arrays, 0, and its
chunk 1 removed too: zarr reads that chunk as the integer 0 among the strings (no string: refused by the export).

Expected: "columns", each column of `ds[["t2m", "station"]].to_dataframe().reset_index()`, with None spelled null;
"zero", what zarr reads from `zero`.
"""

import json
import pathlib
import shutil
import warnings

import numpy as np
import pandas as pd
import xarray as xr
import zarr

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "missing-strings"
STORE = OUT / "missing-strings.zarr"

warnings.simplefilter("ignore")


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    time = pd.date_range("2024-01-01", periods=12, freq="H")
    ds = xr.Dataset(
        {
            "t2m": (("time",), np.arange(12, dtype="f4") * 0.5),
            "station": (("time",), np.array([f"st{i} ü" for i in range(12)], dtype=object)),
        },
        coords={"time": time},
    )
    ds.to_zarr(STORE, mode="w", encoding={"t2m": {"chunks": (4,)}, "station": {"chunks": (4,)}, "time": {"chunks": (12,)}})
    assert json.loads((STORE / "station" / ".zarray").read_text())["fill_value"] is None
    zero = zarr.open_array(str(STORE / "zero"), mode="w", shape=(12,), chunks=(4,), dtype=object, object_codec=__import__("numcodecs").VLenUTF8())
    zero[:] = np.array([f"z{i}" for i in range(12)], dtype=object)
    zero.attrs["_ARRAY_DIMENSIONS"] = ["time"]
    assert json.loads((STORE / "zero" / ".zarray").read_text())["fill_value"] == 0
    (STORE / "station" / "1").unlink()
    (STORE / "zero" / "1").unlink()
    zarr.consolidate_metadata(str(STORE))
    read = xr.open_zarr(STORE)
    frame = read[["t2m", "station"]].to_dataframe().reset_index()
    columns = [
        {"name": "time", "values": [str(v) for v in frame["time"].values.astype("datetime64[ns]")]},
        {"name": "t2m", "values": [float(v) for v in frame["t2m"].values]},
        {"name": "station", "values": [None if v is None else str(v) for v in frame["station"].values]},
    ]
    zero_read = [v if isinstance(v, str) else repr(v) for v in zarr.open_array(str(STORE / "zero"), mode="r")[:]]
    (OUT / "expected.json").write_text(json.dumps({"columns": columns, "zero": zero_read}, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
