"""Half float (numpy float16, Zarr v2 `<f2`) arrays and the values xarray reads back: the golden data of float16
columns, exported as Float32 (every half is a float32: widened bit for bit).

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13, numpy 1.24):

    /usr/bin/python3 test/golden/make_float16_fixtures.py

It replaces test/fixtures/float16/ and writes test/fixtures/float16/expected.json. The store (zarr v2,
consolidated; `time` and `x` written by xarray `to_zarr`, the others by zarr 2.13 so that their bits and attributes
are exactly the ones under test) holds, over `time` (12 days), chunked by 4:

- `x(time)`: float16 written by xarray (its `_FillValue` NaN);
- `h(time)`: float16 without fill value: ±0, 1, 0.1 (the half 0.0999755859375), 65504, ±Infinity, the smallest
  subnormal 2^-24, the largest subnormal, and three NaNs written as bits (quiet with a payload, signaling with a
  payload, negative quiet): what xarray reads is the stored half, NaN payloads included;
- `m(time)`: float16 with `missing_value` [0.1, 65510.0] written as Python floats: numpy compares a float16 array with
  0.1 in half precision (the half 0.0999755859375 is masked), with 65510.0 in float32 (65504 is not masked, though
  65510 rounds to the half 65504);
- `f(time)`: float16 with `fill_value` 2.5 and its last chunk never written: 2.5 is masked, the missing chunk too;
- `p(time)`: float16 packed by `scale_factor` 0.1 and `add_offset` 1000.5 with `fill_value` -1: xarray 2023.01
  unpacks float16 to float32 in float32 arithmetic (`_choose_float_dtype`);
- `q(time)`: float16 packed by `scale_factor` 0.001 alone;
- `stamp(time)`: CF time as float16 `hours since 2000-01-01` (xarray never writes it; a hand-made store can), with
  a NaN: xarray decodes the counts as it decodes float32 ones (their product with the unit is exact).

Expected: for each variable the float32 bits (hex) of xarray's decoded values widened to float32, and whether
xarray masked it (NaN from CF masking where the stored value is not NaN); the stamps as ISO text with ns (NaT for
NaT); "attributes" and "dtypes" as stored.
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
OUT = HERE.parent / "fixtures" / "float16"
STORE = OUT / "float16.zarr"
ROWS = 12
NAMES = ["x", "h", "m", "f", "p", "q"]

warnings.simplefilter("ignore")


def halves(bits: list) -> np.ndarray:
    return np.array(bits, dtype="<u2").view("<f2")


def add(group, name: str, values: np.ndarray, fill_value, attributes: dict, written_chunks: int = 3) -> None:
    array = group.create_dataset(name, shape=(ROWS,), chunks=(4,), dtype="<f2", fill_value=fill_value)
    array[: 4 * written_chunks] = values[: 4 * written_chunks]
    array.attrs.update({"_ARRAY_DIMENSIONS": ["time"], **attributes})


def bits_of(values: np.ndarray) -> list:
    return [f"0x{int(b):08x}" for b in np.asarray(values).astype("<f4").view("<u4")]


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    time = pd.date_range("2024-01-01", periods=ROWS, freq="D")
    x = np.array([0.5, 1.5, np.nan, -2.25, 1000, 0.1, 3, 4, 5, 6, 7, 8], dtype="f2")
    xr.Dataset({"x": (("time",), x)}, coords={"time": time}).to_zarr(STORE, encoding={"x": {"chunks": (4,)}}, consolidated=True)
    group = zarr.open_group(str(STORE), mode="a")
    h = halves([0x0000, 0x8000, 0x3C00, 0x2E66, 0x7BFF, 0x7C00, 0xFC00, 0x0001, 0x03FF, 0x7E01, 0x7C01, 0xFE00])
    add(group, "h", h, None, {})
    m = np.array([0.1, 0.2, 1.0, 0.1, 65504, 2048, -0.1, np.nan, 0.0999755859375, 65510, 3, 4], dtype="f2")
    add(group, "m", m, None, {"missing_value": [0.1, 65510.0]})
    f = np.array([2.5, 1.0, -2.5, 2.5, 0.25, 7, 2.5, 8, 0, 0, 0, 0], dtype="f2")
    add(group, "f", f, 2.5, {}, written_chunks=2)
    p = np.array([-1, 0, 1, 2.5, 3.25, 100, -65504, -7.5, 0.1, 65504, 1 / 3, 9], dtype="f2")
    add(group, "p", p, -1.0, {"scale_factor": 0.1, "add_offset": 1000.5})
    q = np.array([1, 3, 0.5, -0.25, 2048, 1 / 3, 65504, 6e-8, 9, 10, 11, 12], dtype="f2")
    add(group, "q", q, None, {"scale_factor": 0.001})
    stamp = np.array([0, 1.5, 0.25, 100, 2048, np.nan, 0.1, 1 / 3, 24, 48, 72, 96], dtype="f2")
    add(group, "stamp", stamp, None, {"units": "hours since 2000-01-01", "calendar": "proleptic_gregorian"})
    zarr.consolidate_metadata(str(STORE))

    raw = zarr.open_group(str(STORE), mode="r")
    back = xr.open_zarr(STORE)
    stored = {name: raw[name][:] for name in NAMES}
    columns = {}
    for name in NAMES:
        values = back[name].values
        columns[name] = {
            "dtype": str(values.dtype),
            "bits": bits_of(values),
            "masked": [bool(np.isnan(v) and not np.isnan(s)) for v, s in zip(values.astype("f8"), stored[name].astype("f8"))],
            "stored_bits": bits_of(stored[name]),
        }
    stamps = back["stamp"].values
    assert back["h"].values.dtype == np.float16 and bits_of(back["h"].values) == bits_of(h), "xarray does not read the stored halves"
    expected = {
        "store": STORE.name,
        "rows": ROWS,
        "time": [str(t) for t in back["time"].values],
        "dtypes": {name: str(raw[name].dtype) for name in [*NAMES, "stamp"]},
        "attributes": {name: dict(raw[name].attrs) for name in [*NAMES, "stamp"]},
        "columns": columns,
        "stamp": {"dtype": str(stamps.dtype), "values": [str(t) for t in stamps]},
        "all": sorted(back.data_vars),
    }
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
