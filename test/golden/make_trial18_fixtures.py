"""Stores of the eighteenth trial (a climate data scientist comparing exports with `ds.to_dataframe()`), written by
xarray itself, with what xarray reads from them: the golden data of three fixes.

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13, numcodecs 0.11, pandas 1.5):

    /usr/bin/python3 test/golden/make_trial18_fixtures.py

It replaces test/fixtures/trial18/ and writes test/fixtures/trial18/expected.json:

- backfill.zarr: a daily archive appended the way operational pipelines append (`to_zarr(append_dim="time")`, ten
  days at a time; the time coordinate keeps the first write's chunks of one day): days 0-99, then 150-199, then a
  late backfill of 100-149. "ranges": for each [start, end), the rows xarray keeps by mask (`time >= start` and
  `time < end`: `.sel(time=slice(...))` refuses, the index being unsorted), as time (ns since 1970, strings), lat,
  t2m, in the store's order.
- filters.zarr: lossy data-reduction filters whose decode is the identity on the stored bytes: `t2m` float32 with
  numcodecs `BitRound(keepbits=7)` (xbitinfo), `msl` float64 with `Quantize(digits=2, dtype="f8")`; and `sp`
  float64 with `Quantize(digits=1, dtype="f8", astype="f4")`, stored as float32 and cast on decode (not the
  identity). "filters": xarray's `to_dataframe()` of each variable in C order, as doubles (float32 widened), and
  `check`: that decoding each filter's encoding is a no-op on its bytes (bitround, quantize) or not (astype).
- f32hours.zarr: hourly times that xarray encoded as float32 `days since 1970-01-01`
  (`encoding={"time": {"units": ..., "dtype": "float32"}}`): float32 cannot hold the hours, so each count is some
  minutes off, but every one is a whole number of milliseconds. "f32hours": the counts (repr), xarray's decoded
  instants (ns, strings: float noise of a few hundred ns), and the exact value of each count in ms (strings).
"""

import json
import pathlib
import shutil
import warnings
from fractions import Fraction

import numcodecs
import numpy as np
import pandas as pd
import xarray as xr

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "trial18"

warnings.simplefilter("ignore")


def ns(values) -> list:
    return [str(int(v)) for v in np.asarray(values).astype("datetime64[ns]").astype(np.int64)]


def backfill() -> dict:
    path = OUT / "backfill.zarr"
    days = list(pd.date_range("2022-01-01", periods=200, freq="D"))
    order = days[:100] + days[150:] + days[100:150]
    for i in range(0, 200, 10):
        block = order[i : i + 10]
        values = np.array([[float(days.index(d)), float(days.index(d)) + 0.5] for d in block], dtype="float32")
        ds = xr.Dataset({"t2m": (("time", "lat"), values)}, coords={"time": block, "lat": [1.0, 2.0]})
        if i == 0:
            encoding = {"time": {"units": "days since 2022-01-01", "dtype": "int32", "chunks": (1,)}, "t2m": {"chunks": (1, 2)}}
            ds.to_zarr(path, encoding=encoding)
        else:
            ds.to_zarr(path, append_dim="time")
    opened = xr.open_zarr(path)
    assert opened.time.encoding["chunks"] == (1,), opened.time.encoding
    ranges = {}
    for start, end in [("2022-06-10", "2022-06-20"), ("2022-06-10", None), ("2022-05-20", "2022-06-10"), ("2022-05-29", "2022-06-01"), ("2022-04-20", "2022-05-10"), ("2022-06-01", None)]:
        mask = opened.time >= np.datetime64(start)
        if end is not None:
            mask &= opened.time < np.datetime64(end)
        frame = opened.t2m.where(mask, drop=True).to_dataframe().reset_index()
        ranges[f"{start}/{end or ''}"] = {
            "time": ns(frame.time.values),
            "lat": [float(v) for v in frame.lat],
            "t2m": [float(v) for v in frame.t2m],
        }
    return ranges


def identity_check(codec, values) -> bool:
    """Whether decoding the codec's encoding of `values` gives back those bytes as they are."""
    encoded = np.asarray(codec.encode(values.copy()))
    return bytes(np.asarray(codec.decode(encoded.tobytes()))) == encoded.tobytes()


def filters() -> dict:
    path = OUT / "filters.zarr"
    rng = np.random.default_rng(12)
    times = pd.date_range("2020-01-01", periods=6, freq="6H")
    ds = xr.Dataset(
        {
            "t2m": (("time", "lat"), (270 + rng.random((6, 3)) * 20).astype("float32")),
            "msl": (("time", "lat"), 101325 + rng.normal(size=(6, 3)) * 500),
            "sp": (("time", "lat"), 98000 + rng.normal(size=(6, 3)) * 300),
        },
        coords={"time": times, "lat": [0.0, 1.0, 2.0]},
    )
    bitround = numcodecs.BitRound(keepbits=7)
    quantize = numcodecs.Quantize(digits=2, dtype="f8")
    cast = numcodecs.Quantize(digits=1, dtype="f8", astype="f4")
    ds.to_zarr(path, encoding={"t2m": {"filters": [bitround]}, "msl": {"filters": [quantize]}, "sp": {"filters": [cast]}})
    opened = xr.open_zarr(path)
    out = {name: [float(v) for v in opened[name].values.ravel()] for name in ["t2m", "msl", "sp"]}
    out["time"] = ns(opened.time.values)
    out["check"] = {
        "bitround": identity_check(bitround, ds.t2m.values),
        "quantize": identity_check(quantize, ds.msl.values),
        "quantize_astype": identity_check(cast, ds.sp.values),
    }
    assert out["check"] == {"bitround": True, "quantize": True, "quantize_astype": False}, out["check"]
    return out


def f32hours() -> dict:
    path = OUT / "f32hours.zarr"
    times = pd.date_range("2022-01-01", periods=12, freq="H")
    ds = xr.Dataset({"v": (("time",), np.arange(12.0))}, coords={"time": times})
    ds.to_zarr(path, encoding={"time": {"units": "days since 1970-01-01", "dtype": "float32"}})
    raw = xr.open_zarr(path, decode_times=False).time.values
    assert raw.dtype == np.float32
    decoded = xr.open_zarr(path).time.values
    exact_ms = []
    for count in raw:
        value = Fraction(float(count)) * 86_400_000
        assert value.denominator == 1, f"{count} days is not a whole number of ms"
        exact_ms.append(str(value.numerator))
    # xarray's values are the exact ones to its float noise.
    for ms, instant in zip(exact_ms, ns(decoded)):
        assert abs(int(ms) * 1_000_000 - int(instant)) < 1_000, (ms, instant)
    return {"counts": [repr(float(c)) for c in raw], "xarray": ns(decoded), "exact_ms": exact_ms}


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    expected = {"ranges": backfill(), "filters": filters(), "f32hours": f32hours()}
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
