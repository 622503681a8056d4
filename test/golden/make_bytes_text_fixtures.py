"""Text xarray stores as byte strings, and a dataset with arrays no column can hold: golden data of `|S n` columns.

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13, pandas 1.5):

    /usr/bin/python3 test/golden/make_bytes_text_fixtures.py

It replaces test/fixtures/bytes-text/ and writes test/fixtures/bytes-text/expected.json. A text variable encoded
with `{"dtype": "S1"}` (the encoding a netCDF character array comes with, kept by `open_dataset(nc).to_zarr()`) is
stored by xarray as numpy `|S n` with the attribute `_Encoding: "utf-8"`, and read back as str: each value's bytes
without trailing NULs, decoded as UTF-8. The store (zarr v2, consolidated metadata) holds, over `time`:

- `label`: such text, non-ASCII and empty strings included (`|S n` with `_Encoding`), chunked by 2;
- `x`: float64;
- `raw`: bytes written as `|S n` without `_Encoding` (xarray reads them as bytes: no text column);
- `h`: float16 (a Float32 column, see make_float16_fixtures.py);
- `coded`: text as `|S6` with `_Encoding: "utf-8"` and a `fill_value` (b"ab", base64 "YWI=" in the .zarray), written
  by zarr 2.13 (xarray refuses to write a `_FillValue` on text) with its last chunk never written. xarray 2023.01
  masks nothing there: its zarr backend makes the fill value the `_FillValue`, but decodes the bytes to str before
  masking, and no str equals the bytes b"ab"; the missing chunk reads as the fill value's text.

Expected: "label_x", the columns of `ds[["label", "x"]].to_dataframe().reset_index()` (times as ISO text, floats as
strings); "coded", `ds["coded"]` as xarray reads it (null for a missing value, of which there is none); "dtypes",
the stored dtypes and the attributes of `label`, `raw` and `coded`; "fill_values", the `.zarray` fill values of
`label` and `coded`; "all", the variables xarray reads (`list(ds.data_vars)`).
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
OUT = HERE.parent / "fixtures" / "bytes-text"
STORE = OUT / "bytes-text.zarr"

warnings.simplefilter("ignore")


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    time = pd.date_range("2024-01-01", periods=5, freq="D")
    labels = np.array(["ab", "", "naïve", "日本語", "z"], dtype=object)
    ds = xr.Dataset(
        {
            "label": (("time",), labels),
            "x": (("time",), np.arange(5) * 0.5),
            "raw": (("time",), np.array([b"\x01\x02", b"", b"\xff", b"ab", b"c"], dtype="S2")),
            "h": (("time",), np.array([1, 2, 3, 4, 5], dtype="float16")),
        },
        coords={"time": time},
    )
    ds.to_zarr(STORE, encoding={"label": {"dtype": "S1", "chunks": (2,)}}, consolidated=True)
    group = zarr.open_group(str(STORE), mode="a")
    coded = group.create_dataset("coded", shape=(5,), chunks=(2,), dtype="S6", fill_value=b"ab")
    coded[:4] = np.array([b"ab", b"", "naïve".encode(), b"z"], dtype="S6")
    coded.attrs.update({"_ARRAY_DIMENSIONS": ["time"], "_Encoding": "utf-8"})
    zarr.consolidate_metadata(str(STORE))
    assert not (STORE / "coded" / "2").exists(), "the last chunk of coded was written"
    back = xr.open_zarr(STORE)
    assert back["label"].dtype.kind in "OU", "xarray does not read label as text"
    assert list(back["label"].values) == list(labels), "xarray does not read the labels back"
    attributes = {name: json.loads((STORE / name / ".zattrs").read_text()) for name in ["label", "raw", "coded"]}
    assert attributes["label"].get("_Encoding") == "utf-8", "label has no _Encoding utf-8"
    frame = back[["label", "x"]].to_dataframe().reset_index()
    expected = {
        "store": STORE.name,
        "dtypes": {name: json.loads((STORE / name / ".zarray").read_text())["dtype"] for name in ["label", "x", "raw", "h", "coded"]},
        "fill_values": {name: json.loads((STORE / name / ".zarray").read_text())["fill_value"] for name in ["label", "coded"]},
        "coded": [None if pd.isnull(v) else str(v) for v in back["coded"].values],
        "attributes": attributes,
        "label_x": {
            "time": [t.isoformat() for t in frame["time"]],
            "label": [str(v) for v in frame["label"]],
            "x": [str(v) for v in frame["x"]],
        },
        "all": sorted(back.data_vars),
    }
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
