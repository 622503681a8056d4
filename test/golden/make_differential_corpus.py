"""The differential corpus: small random Zarr v2 stores as producers write them, each with what it decodes to.

Trial 30 compared dt64-export with xarray 2023.01 on 1,494 random stores; this script is that campaign's generator
made rerunnable. Regenerate the committed corpus with Debian's python3 (xarray 2023.01, zarr 2.13, numcodecs,
cftime, pandas 1.5):

    /usr/bin/python3 test/golden/make_differential_corpus.py

It replaces test/fixtures/differential/ with one folder per (family, seed) of CORPUS_SEEDS, `<family>-<seed>/`,
holding `store.zarr` and `oracle.json` (the same oracles on every run; gzip chunks hold the time they were written,
so their bytes change). `--choose --out <scratch>` prints CORPUS_SEEDS again. The maintainers' campaign
(scripts/differential/README.md) writes any number of seeds elsewhere with the same generator:

    /usr/bin/python3 test/golden/make_differential_corpus.py --out /tmp/campaign --family xr --seeds 0:300

Families (each store is random in the ways its docstring says):
  xr     xarray `to_zarr` with encodings: CF time int32/int64/float32/float64, packed ints, NaT, timedelta;
  raw    zarr-python arrays with CF attributes written by hand: odd references and unit spellings, fills,
         `missing_value`, julian, big-endian, F order, delta/quantize filters, sparse chunks, an int64 NaT;
  dt64   native `<M8`/`<m8` arrays (units s..Y, `10s`, `250ms`), NaT, fills, sparse chunks, big-endian, F order;
  model  model calendars (noleap, 365_day, all_leap, 366_day, 360_day), exported with `--convert-calendar`;
  mix    xarray strings, booleans, masked ints, 0-d variables, cftime julian/standard indexes, sparse F-order arrays.

oracle.json (every value canonical: a time or duration as integer ns since 1970-01-01 / ns, a string; a float as
its repr, "NaN", "Infinity"; an integer as a string; null for a missing value):
  family, seed, desc   what the store is;
  options              the export options every export of this store takes (`convertCalendar` for model calendars);
  arrays               per time array (datetime64, timedelta64, CF time or duration): {"kind", "source", "values"}
                       or {"refusal": CODE, "why"}; a TRUNCATION also has "kind" and "rounded": {"floor": {unit:
                       values}, "nearest": {unit: values}}, the exact values floored (`--allow-truncate`) and rounded
                       half to even (`--round`) in each unit s..ns that holds them all, with Fractions;
  table                `--columns all --index`: {"columns", "rows", "dims", "data": {name: {"kind", "source",
                       "values"}}} or {"refusal": CODE or [CODES], "why"}; a table refused for TRUNCATION alone also
                       has "rounded": {"floor": table, "nearest": table}, what `--allow-truncate` and `--round` export,
                       each TRUNCATION column as {"kind", "source": "exact", "rounded": {unit: values}} (its
                       "rounded" values repeated over the table's rows, per unit that holds them all);
  parquet              whether DuckDB can read the store's times back from Parquet (years it holds);
  xarray               what xarray decodes where the expected values are not xarray's (see "source").
Each column's "source" says whose values are expected:
  xarray   `xr.open_zarr(store)` (model calendars: `use_cftime=True`), and for the table
           `ds.to_dataframe(dim_order=<the widest variable's dims>).reset_index()`;
  exact    CF time decoded with Fractions (count × unit + reference, markers masked, the reference from pandas, or
           cftime outside pandas' range), where xarray 2023.01 is known to be off (its float products, masking
           through float64, −2^63: README "Differences from xarray");
  numpy    a native datetime64/timedelta64 array as numpy converts it to ns (xarray drops `<M8[10s]`'s multiplier);
  cf       masked integers (null, the integer type kept) and unpacked values by CF's rule of README "CF masking and
           unpacking" (float32 only for 8/16-bit data without add_offset and a float32 scale_factor), where xarray
           2023.01 makes NaN or float32.
Expected refusals follow README's rules: TRUNCATION for a value that is no whole number of ns (float counts), OVERFLOW
for a value outside int64 in the unit `--unit auto` picks, VALUE_INVALID for a model-calendar date the proleptic
Gregorian calendar lacks, COLUMN_NOT_FOUND for `--columns all` on a group of dimension coordinates alone.
"""

import argparse
import json
import pathlib
import shutil
import sys
import warnings
from fractions import Fraction

import cftime
import numcodecs
import numpy as np
import pandas as pd
import xarray as xr
import zarr
from xarray.coding.times import _unpack_netcdf_time_units

warnings.simplefilter("ignore")

HERE = pathlib.Path(__file__).resolve().parent
CORPUS = HERE.parent / "fixtures" / "differential"

# Chosen by `--choose`: from seeds 0..199 of each family, greedily the store with the most features not yet covered
# per (bytes + 8000), until the family's CORPUS_SIZES hold every feature its 200 hold (codecs, filters, F order, byte
# orders, missing chunks, units, calendars, fills, packing, each source of expected values, each refusal, where xarray
# differs, each model calendar with each reference form); scripts/differential/README.md says what they cover.
CORPUS_SEEDS = {
    "xr": [32, 50, 60, 72, 101, 102, 115, 125, 126, 166, 170, 176, 177, 189],
    "raw": [8, 29, 40, 54, 95, 105, 118, 121, 152, 166, 177, 187, 189, 191],
    "dt64": [2, 6, 11, 19, 52, 57, 70, 95, 154, 155, 178, 179, 181, 185],
    "model": [10, 13, 17, 19, 26, 41, 45, 48, 52, 59, 61, 63, 65, 73, 75, 100, 104, 109, 119, 121, 122, 126, 139,
              141, 143, 144, 147, 148, 150, 151, 160, 170, 172, 174, 183, 194],
    "mix": [14, 42, 53, 61, 90, 97, 123, 133, 156, 160, 181, 186, 190, 194],
}

UNIT_NS = {"days": 86400 * 10**9, "hours": 3600 * 10**9, "minutes": 60 * 10**9, "seconds": 10**9,
           "milliseconds": 10**6, "microseconds": 10**3, "nanoseconds": 1}
UNIT_ALIASES = {}
for _word, _spellings in {"days": ["days", "day", "d"], "hours": ["hours", "hour", "h", "hrs", "hr"],
                          "minutes": ["minutes", "minute", "min", "mins"],
                          "seconds": ["seconds", "second", "s", "sec", "secs"],
                          "milliseconds": ["milliseconds", "millisecond", "ms", "msec", "msecs"],
                          "microseconds": ["microseconds", "microsecond", "us", "usec", "usecs"],
                          "nanoseconds": ["nanoseconds", "nanosecond", "ns", "nsec", "nsecs"]}.items():
    for _spelling in _spellings:
        UNIT_ALIASES[_spelling] = _word
# --unit auto never picks a unit coarser than the units word's (README "--unit auto").
FINEST_AUTO = {"days": "s", "hours": "s", "minutes": "s", "seconds": "s", "milliseconds": "ms",
               "microseconds": "us", "nanoseconds": "ns"}
ARROW_NS = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}
# --unit auto for datetime64/timedelta64: Y M W D h m s → s, ms → ms, us → us, ns → ns.
NUMPY_AUTO = {"Y": "s", "M": "s", "W": "s", "D": "s", "h": "s", "m": "s", "s": "s", "ms": "ms", "us": "us", "ns": "ns"}
MODEL_CALENDARS = ("noleap", "365_day", "all_leap", "366_day", "360_day")
UNIX_JDN = 2440588  # cftime's toordinal() of 1970-01-01: a Julian day number, the same in every real calendar
INT64 = 2**63
# DuckDB reads Parquet timestamps of about ±290,000 years (F2 of trial 30: xarray's int32 NaT is far outside).
DUCKDB_NS = 290_000 * 365 * 86400 * 10**9


# ---------------------------------------------------------------- random layouts

def compressor(r):
    k = r.integers(0, 8)
    if k == 0:
        return None
    if k in (1, 2):
        return numcodecs.Blosc(cname="lz4", clevel=int(r.integers(1, 9)), shuffle=int(r.integers(-1, 3)))
    if k == 3:
        return numcodecs.Blosc(cname="zstd", clevel=int(r.integers(1, 9)), shuffle=int(r.integers(-1, 3)))
    if k == 4:
        return numcodecs.Zstd(level=int(r.integers(1, 10)))
    if k == 5:
        return numcodecs.GZip(level=int(r.integers(1, 9)))
    if k == 6:
        return numcodecs.LZ4()
    return numcodecs.Zlib(level=3)


def filters_for(r, dtype):
    dt = np.dtype(dtype)
    if dt.kind in "iu" and r.random() < 0.25 and dt.byteorder != ">":
        return [numcodecs.Delta(dtype=dt.str)]
    if dt.kind == "f" and r.random() < 0.1:
        return [numcodecs.Quantize(digits=6, dtype=dt.str)]
    return None


def chunks_for(r, shape):
    return tuple(max(1, int(r.choice([1, 2, 3, 5, 7, max(1, n), max(1, n // 2), max(1, n - 1), n + 3]))) for n in shape)


def dims_shape(r):
    nd = int(r.integers(1, 4))
    names = ["time", "lat", "lon"][:nd] if r.random() < 0.8 else ["t", "y", "x"][:nd]
    shape = [int(r.choice([1, 2, 3, 4, 5, 7])) for _ in range(nd)]
    return names, shape


def write_arr(g, name, data, dims, attrs, r, fill=0):
    z = g.create_dataset(name, data=data, chunks=chunks_for(r, data.shape), compressor=compressor(r),
                         filters=filters_for(r, data.dtype), fill_value=fill, overwrite=True,
                         write_empty_chunks=bool(r.random() < 0.7), order=str(r.choice(["C", "F"])))
    z.attrs["_ARRAY_DIMENSIONS"] = dims
    z.attrs.update(attrs)
    return z


REFS = ["1970-01-01", "1970-01-01 00:00:00", "2000-01-01", "2000-1-1 0:0:0", "1900-01-01 00:00:00",
        "2000-01-01T06:00:00", "1999-12-31 23:00:00 -05:00", "2000-01-01 00:00:00Z", "1850-01-01",
        "2020-02-29 12:30:00", "2000-01-01 00:00:00 +05:30", "1970-01-01T00:00:00.5", "2001-06-15 12:00:00 UTC",
        "1600-01-01", "2100-12-31 23:59:59", "1900-1-1", "2000-01-01 00:00:00+0100", "1582-10-15 00:00:00",
        "1582-10-04 00:00:00", "1000-01-01"]
UNITS = ["days", "hours", "minutes", "seconds", "milliseconds", "microseconds", "nanoseconds"]
UNIT_SPELL = {"days": ["days", "day", "d"], "hours": ["hours", "hour", "h", "hrs"], "minutes": ["minutes", "min"],
              "seconds": ["seconds", "s", "sec"], "milliseconds": ["milliseconds", "ms"],
              "microseconds": ["microseconds", "us"], "nanoseconds": ["nanoseconds", "ns"]}


def encodings(enc):
    return {k: {kk: str(vv) for kk, vv in e.items()} for k, e in enc.items()}


def fam_xr(r, path):
    """xarray Dataset with a datetime64 time coordinate and encodings chosen at random, written by to_zarr."""
    names, shape = dims_shape(r)
    n = shape[0]
    step = pd.Timedelta(str(r.choice(["1s", "1min", "15min", "1h", "6h", "1D", "7D", "1ms", "10us", "1ns", "90min"])))
    start = pd.Timestamp(str(r.choice(["2000-01-01", "1970-01-01", "1999-12-31T23:00", "2020-02-28", "1900-03-01",
                                        "1980-05-17T13:45:12.25", "2262-01-01", "1678-01-01"])))
    try:
        times = pd.date_range(start, periods=n, freq=step)
    except Exception:
        times = pd.date_range("2000-01-01", periods=n, freq=step)
    coords = {names[0]: times.values}
    for d, s in zip(names[1:], shape[1:]):
        coords[d] = (np.linspace(-80, 80, s).astype(r.choice(["f4", "f8"]))) if r.random() < 0.8 else np.arange(s, dtype="i4")
    data = {}
    enc = {}
    a = r.normal(280, 10, size=shape).astype(r.choice(["f4", "f8"]))
    a[r.random(size=shape) < 0.1] = np.nan
    data["t2m"] = (names, a)
    if r.random() < 0.6:  # packed
        p = r.normal(1000, 50, size=shape)
        p[r.random(size=shape) < 0.15] = np.nan
        data["pres"] = (names, p)
        e = {"dtype": str(r.choice(["int16", "int32", "uint8", "int8"])), "scale_factor": float(r.choice([0.1, 0.5, 2.0, 0.01, 12.0])),
             "_FillValue": int(r.choice([-999, -1, 0, 127, -32767]))}
        if r.random() < 0.5:
            e["add_offset"] = float(r.choice([1000.0, 273.15, -5.0]))
        if e["dtype"] == "uint8":
            e["_FillValue"] = 255
        if e["dtype"] == "int8":
            e["_FillValue"] = -128
        enc["pres"] = e
    if r.random() < 0.7:  # a non-index time variable with NaT
        vt = np.array(times.values)
        if len(shape) > 1:
            vt = np.broadcast_to(vt.reshape([n] + [1] * (len(shape) - 1)), shape).copy()
        vt = vt + np.timedelta64(int(r.integers(0, 3600)), "s")
        vt[r.random(size=vt.shape) < 0.2] = np.datetime64("NaT")
        data["valid_time"] = (names, vt)
        e = {"units": "%s since %s" % (r.choice(UNITS), r.choice(REFS[:13]))}
        if r.random() < 0.6:
            e["dtype"] = str(r.choice(["int64", "float64", "int32", "float32"]))
        if r.random() < 0.4 and e.get("dtype", "").startswith("int"):
            e["_FillValue"] = int(r.choice([-1, -999, -2147483647]))
        if r.random() < 0.3:
            e["calendar"] = str(r.choice(["standard", "gregorian", "proleptic_gregorian"]))
        enc["valid_time"] = e
    if r.random() < 0.4:  # timedelta
        td = (r.integers(-10**6, 10**6, size=shape) * np.int64(int(r.choice([1, 1000, 10**6, 10**9])))).astype("m8[ns]")
        td[r.random(size=shape) < 0.2] = np.timedelta64("NaT")
        data["lead"] = (names, td)
        if r.random() < 0.5:
            enc["lead"] = {"units": str(r.choice(["seconds", "hours", "days", "milliseconds", "nanoseconds"])),
                           "dtype": str(r.choice(["int64", "float64"]))}
    if len(shape) >= 2 and r.random() < 0.5:  # a non-index coordinate
        coords["aux"] = (names[1:], r.integers(-5, 5, size=shape[1:]).astype("i2"))
    ds = xr.Dataset(data, coords=coords)
    te = {"units": "%s since %s" % (r.choice(UNITS), r.choice(REFS[:13]))}
    if r.random() < 0.5:
        te["dtype"] = str(r.choice(["int64", "float64", "int32", "float32"]))
    if r.random() < 0.3:
        te["calendar"] = str(r.choice(["standard", "gregorian", "proleptic_gregorian"]))
    enc[names[0]] = te
    for k in list(ds.variables):
        e = enc.setdefault(k, {})
        e["chunks"] = chunks_for(r, ds[k].shape)
        e["compressor"] = compressor(r)
    ds.to_zarr(path, mode="w", encoding=enc, consolidated=bool(r.random() < 0.7))
    return {"enc": encodings(enc)}, None


def fam_raw(r, path):
    """zarr-python arrays with CF attributes by hand: odd references, units, fills, calendars."""
    names, shape = dims_shape(r)
    n = shape[0]
    g = zarr.open_group(path, mode="w")
    u = str(r.choice(UNITS))
    ref = str(r.choice(REFS))
    cal = str(r.choice(["standard", "gregorian", "proleptic_gregorian", "julian", "standard", "proleptic_gregorian"]))
    dtype = str(r.choice(["i4", "i8", "f8", "f4", "i2", "u4"]))
    start = int(r.integers(-1000, 100000))
    step = int(r.choice([1, 2, 3, 6, 24, 60, 1000]))
    counts = (start + step * np.arange(n)).astype("f8")
    if dtype[0] == "f" and r.random() < 0.5:
        counts = counts + float(r.choice([0.5, 0.25, 0.1, 1 / 24, 1 / 3]))
    if dtype[0] in "iu":
        info = np.iinfo(dtype)
        counts = np.clip(counts, info.min + 1, info.max - 1)
    if r.random() < 0.2:
        dtype = ">" + dtype
    c = counts.astype(dtype)
    attrs = {"units": "%s since %s" % (r.choice(UNIT_SPELL[u]), ref)}
    if cal != "standard" or r.random() < 0.5:
        attrs["calendar"] = cal
    fill = None
    if r.random() < 0.5:
        if dtype.lstrip(">")[0] == "f":
            fill = float(r.choice([np.nan, -9999.0, 1e20]))
        else:
            fill = int(r.choice([-1, -999, 0])) if dtype.lstrip(">")[0] == "i" else int(np.iinfo(dtype).max)
        c[r.random(size=n) < 0.2] = fill if fill == fill else np.nan
    if r.random() < 0.2:
        attrs["missing_value"] = int(c[0]) if dtype.lstrip(">")[0] in "iu" else float(c[0])
    zfill = None if fill is None else (fill if fill == fill else np.nan)
    write_arr(g, names[0], c, [names[0]], attrs, r, fill=zfill)
    for d, s in zip(names[1:], shape[1:]):
        write_arr(g, d, np.arange(s, dtype="f8") * 1.5, [d], {}, r, fill=None)
    v = r.normal(0, 1, size=shape).astype(r.choice(["f4", "f8", "i4"]) if r.random() < 0.9 else "f8")
    vattrs = {}
    if v.dtype.kind == "i" and r.random() < 0.5:
        vattrs = {"_FillValue": -5}
    write_arr(g, "val", v, names, vattrs, r, fill=None)
    t2 = None
    if r.random() < 0.5:  # a second time variable over every dimension, another encoding
        a2 = {"units": "%s since %s" % (r.choice(UNITS), r.choice(REFS[:12]))}
        if cal in ("julian", "proleptic_gregorian"):
            a2["calendar"] = cal
        c2 = r.integers(-10**6, 10**6, size=shape).astype("i8")
        marker = -INT64 if r.random() < 0.5 else -1
        c2[r.random(size=shape) < 0.1] = marker
        fill2 = -1 if r.random() < 0.5 else None
        write_arr(g, "t2", c2, names, a2, r, fill=fill2)
        t2 = {"attrs": a2, "marker": marker, "fill": fill2, "marked": bool((c2 == marker).any())}
    if r.random() < 0.6:
        zarr.consolidate_metadata(path)
    return {"attrs": attrs, "dtype": dtype, "cal": cal, "t2": t2}, None


def fam_dt64(r, path):
    """Native datetime64 / timedelta64 arrays written by zarr-python: odd units, NaT, fills, sparse chunks."""
    names, shape = dims_shape(r)
    g = zarr.open_group(path, mode="w")
    unit = str(r.choice(["s", "ms", "us", "ns", "m", "h", "D", "10s", "W", "M", "Y", "250ms"]))
    vals = r.integers(-2**31, 2**31, size=shape).astype("i8") // (10 if unit == "10s" else 1)
    if unit == "ns":
        vals = r.integers(-9 * 10**18, 9 * 10**18, size=shape).astype("i8")
    if unit == "us":
        vals = r.integers(-9 * 10**15, 9 * 10**15, size=shape).astype("i8")
    if unit in ("ms", "250ms"):
        vals = r.integers(-9 * 10**12 // 250, 9 * 10**12 // 250, size=shape).astype("i8")
    if unit in ("D", "W"):
        vals = r.integers(-15000, 15000, size=shape).astype("i8")
    if unit in ("M", "Y"):
        vals = r.integers(-200, 200, size=shape).astype("i8")
    if unit in ("h", "m"):
        vals = r.integers(-2 * 10**6, 2 * 10**6, size=shape).astype("i8")
    a = vals.view("M8[%s]" % unit)
    a[r.random(size=shape) < 0.15] = np.datetime64("NaT")
    k = r.integers(0, 3)
    fill = "NaT" if k == 0 else (None if k == 1 else a.ravel()[0])
    sparse = bool(r.random() < 0.4)
    if sparse:  # whole chunks equal to the fill value are not written
        a[...] = a.ravel()[0] if k == 2 else np.datetime64("NaT")
        a.ravel()[-1] = np.datetime64(1, unit)
        if fill is None:
            fill = "NaT"
    if r.random() < 0.3:
        a = a.astype(a.dtype.newbyteorder(">"))
    tname = "time" if len(shape) == 1 else "obs_time"
    z = g.create_dataset(tname, data=a, chunks=chunks_for(r, a.shape), compressor=compressor(r), fill_value=fill,
                         write_empty_chunks=not sparse, order=str(r.choice(["C", "F"])))
    z.attrs["_ARRAY_DIMENSIONS"] = names
    if r.random() < 0.5:
        du = str(r.choice(["s", "ms", "us", "ns", "h", "D"]))
        lim = {"s": 10**9, "ms": 10**12, "us": 10**15, "ns": 9 * 10**18, "h": 10**6, "D": 10**4}[du]
        d = r.integers(-lim, lim, size=shape).astype("i8").view("m8[%s]" % du)
        d[r.random(size=shape) < 0.15] = np.timedelta64("NaT")
        z = g.create_dataset("delta", data=d, chunks=chunks_for(r, d.shape), compressor=compressor(r), fill_value=None)
        z.attrs["_ARRAY_DIMENSIONS"] = names
    for dn, s in zip(names, shape):
        if r.random() < 0.5:
            write_arr(g, dn, np.arange(s, dtype="i4") * 10, [dn], {}, r, fill=None)
    if r.random() < 0.5:
        zarr.consolidate_metadata(path)
    return {"unit": unit, "sparse": sparse, "bigendian": a.dtype.byteorder == ">"}, None


def fam_model(r, path):
    """Model calendars (noleap, 365_day, all_leap, 366_day, 360_day): counts by hand, decoded by cftime."""
    names, shape = dims_shape(r)
    n = shape[0]
    g = zarr.open_group(path, mode="w")
    cal = str(r.choice(list(MODEL_CALENDARS)))
    u = str(r.choice(["days", "hours", "minutes", "seconds"]))
    ref = str(r.choice(["2000-01-01", "1850-01-01 00:00:00", "0001-01-01", "2000-02-29", "1999-12-30 06:00:00",
                        "2001-1-1", "2000-01-01 00:00:00 +03:00"]))
    if cal == "360_day" and r.random() < 0.3:
        ref = "2000-02-30"
    dtype = str(r.choice(["i4", "i8", "f8"]))
    step = int(r.choice({"days": [1, 5, 30, 31], "hours": [1, 6, 24, 73], "minutes": [60, 1440, 7], "seconds": [86400, 3600, 17]}[u]))
    start = int(r.integers(-400, 400)) * step
    c = (start + step * np.arange(n)).astype(dtype)
    attrs = {"units": "%s since %s" % (u, ref), "calendar": cal}
    write_arr(g, names[0], c, [names[0]], attrs, r, fill=None)
    for d, s in zip(names[1:], shape[1:]):
        write_arr(g, d, np.arange(s, dtype="i2"), [d], {}, r, fill=None)
    write_arr(g, "val", r.normal(size=shape).astype("f4"), names, {}, r, fill=None)
    if r.random() < 0.5:
        zarr.consolidate_metadata(path)
    return {"attrs": attrs, "dtype": dtype}, True


def fam_mix(r, path):
    """xarray datasets with strings, booleans, masked ints, a 0-d variable, cftime (julian/standard before 1582)
    indexes, written by to_zarr, one variable then rewritten chunk-sparse by zarr-python (F order, '/' keys)."""
    names, shape = dims_shape(r)
    n = shape[0]
    kind = int(r.integers(0, 3))
    if kind == 0:
        cal = str(r.choice(["julian", "standard", "gregorian", "proleptic_gregorian"]))
        start = str(r.choice(["1500-02-27", "1582-10-01", "0900-03-01", "2000-02-28", "1300-12-31"]))
        times = xr.cftime_range(start, periods=n, freq=str(r.choice(["D", "6H", "H", "12H"])), calendar=cal)
    else:
        times = pd.date_range(str(r.choice(["2000-01-01", "2021-03-27", "1969-12-31T22:00"])), periods=n,
                              freq=str(r.choice(["H", "D", "15min", "s"])))
    coords = {names[0]: times}
    for d, s_ in zip(names[1:], shape[1:]):
        if r.random() < 0.5:
            coords[d] = np.array(["st%d%s" % (i, "é" if i % 3 == 0 else "") for i in range(s_)], dtype=object)
        else:
            coords[d] = np.arange(s_, dtype=r.choice(["i8", "u2", "f4"]))
    a = r.integers(-100, 100, size=shape).astype(r.choice(["i2", "i4", "i8", "u1"]))
    f = r.normal(size=shape)
    f[r.random(size=shape) < 0.5] = np.nan  # many NaN: all-NaN chunks
    data = {"count": (names, a), "flag": (names, r.random(size=shape) < 0.5), "rain": (names, f.astype(r.choice(["f4", "f8"])))}
    if len(shape) > 1:
        data["elev"] = (names[1:], r.normal(size=shape[1:]).astype("f4"))
    data["crs"] = ((), np.int32(0))
    ds = xr.Dataset(data, coords=coords)
    enc = {}
    for k in ds.variables:
        v = ds[k]
        e = {"compressor": compressor(r)}
        if v.ndim:
            e["chunks"] = chunks_for(r, v.shape)
        if k == "count" and r.random() < 0.6:
            e["_FillValue"] = int(a.ravel()[0])
        if k == names[0] and kind == 0:
            e["units"] = "%s since %s" % (r.choice(["days", "hours"]), r.choice(["1582-10-15", "1000-01-01", "1970-01-01", "1582-10-04 12:00"]))
            e["dtype"] = str(r.choice(["int64", "float64", "int32"]))
        enc[k] = e
    ds.to_zarr(path, mode="w", encoding=enc, consolidated=True)
    g = zarr.open_group(path, mode="a")
    src = g["rain"]
    vals, attrs = src[...], dict(src.attrs)
    del g["rain"]
    z = g.create_dataset("rain", data=vals, chunks=src.chunks, dtype=src.dtype, fill_value=np.nan,
                         compressor=compressor(r), order=str(r.choice(["C", "F"])), write_empty_chunks=False,
                         dimension_separator=str(r.choice([".", "/"])))
    z.attrs.update(attrs)
    zarr.consolidate_metadata(path)
    return {"kind": kind, "enc": encodings(enc)}, (True if kind == 0 else None)


FAMILIES = {"xr": fam_xr, "raw": fam_raw, "dt64": fam_dt64, "model": fam_model, "mix": fam_mix}


# ---------------------------------------------------------------- canonical values

def canon_float(x):
    x = float(x)
    if np.isnan(x):
        return "NaN"
    if np.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return repr(x)


def cftime_instant(d):
    """A cftime date of a real-world calendar as ns since 1970 (its Julian day number, the same in every one)."""
    days = d.toordinal() - UNIX_JDN
    return ((days * 86400 + d.hour * 3600 + d.minute * 60 + d.second) * 10**6 + d.microsecond) * 1000


def proleptic_label_ns(d):
    """A model-calendar label read as the same proleptic Gregorian date (`--convert-calendar`), or None if it lacks it."""
    try:
        p = cftime.DatetimeProlepticGregorian(d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond)
    except ValueError:
        return None
    return cftime_instant(p)


def canon_array(a):
    """xarray's values (an array or a frame's column) canonical, with their kind."""
    a = np.asarray(a)
    if a.dtype.kind in "Mm":
        nat = np.isnat(a)
        ns = a.astype(a.dtype.str[:3] + "[ns]").view(a.dtype.str[0] + "i8").astype("<i8")
        return {"kind": "time" if a.dtype.kind == "M" else "delta", "values": [None if m else str(int(v)) for v, m in zip(ns.ravel(), nat.ravel())]}
    flat = list(a.ravel())
    if a.dtype.kind == "O":
        if any(isinstance(x, cftime.datetime) for x in flat):
            out = []
            for x in flat:
                if not isinstance(x, cftime.datetime):
                    out.append(None)
                elif x.calendar in MODEL_CALENDARS:
                    ns = proleptic_label_ns(x)
                    out.append("INVALID" if ns is None else str(ns))
                else:
                    out.append(str(cftime_instant(x)))
            return {"kind": "time", "values": out}
        return {"kind": "str", "values": [None if (isinstance(x, float) and np.isnan(x)) else str(x) for x in flat]}
    if a.dtype.kind == "f":
        return {"kind": "float", "values": [canon_float(x) for x in flat]}
    if a.dtype.kind in "iu":
        return {"kind": "int", "values": [str(int(x)) for x in flat]}
    if a.dtype.kind == "b":
        return {"kind": "bool", "values": [bool(x) for x in flat]}
    return {"kind": "str", "values": [str(x) for x in flat]}


# ---------------------------------------------------------------- the documented values

def markers_of(z):
    at = z.attrs
    out = []
    if z.fill_value is not None:
        out.append(z.fill_value)
    elif at.get("_FillValue") is not None:
        out.append(at["_FillValue"])
    mv = at.get("missing_value")
    if mv is not None:
        out += mv if isinstance(mv, list) else [mv]
    return out


def is_marker(x, markers, dtype):
    if dtype.kind == "f":
        return any(m == m and float(np.asarray(m, dtype=dtype)) == x for m in markers if not isinstance(m, str))
    return any(int(m) == int(x) for m in markers if not isinstance(m, str))


def reference_ns(ref, calendar):
    """The reference instant in ns: pandas for standard calendars in its range, cftime otherwise (None: unknown)."""
    if calendar in ("standard", "gregorian", "proleptic_gregorian"):
        try:
            ts = pd.Timestamp(ref)
            if ts.tz is not None:
                ts = ts.tz_convert(None)
            if calendar == "proleptic_gregorian" or ts.year >= 1583:
                return ts.value
        except (ValueError, OverflowError, pd.errors.OutOfBoundsDatetime):
            pass
    try:
        d = cftime.num2date(0, "seconds since %s" % ref, calendar)  # the unit changes nothing (cftime lacks some)
    except Exception:
        return None
    return cftime_instant(d)


def time_coding(z):
    """(unit ns, reference ns, units word, kind) of a CF time or duration array, or None."""
    at = dict(z.attrs)
    units = at.get("units")
    calendar = str(at.get("calendar", "standard")).lower()
    if not isinstance(units, str) or "scale_factor" in at or "add_offset" in at or calendar in MODEL_CALENDARS:
        return None
    if " since " in units:
        word, ref = _unpack_netcdf_time_units(units)
        word = UNIT_ALIASES.get(word.lower())
        ref_ns = reference_ns(ref, calendar) if word else None
        if ref_ns is None:
            return None
        return UNIT_NS[word], ref_ns, word, "time"
    if units in UNIT_NS and z.dtype.kind in "fiu":
        return UNIT_NS[units], 0, units, "delta"
    return None


def exact_time(z):
    """CF time decoded exactly (Fractions): ({"kind", "values"} with Fractions or None, coding) or None."""
    coding = time_coding(z)
    if coding is None:
        return None
    unit_ns, ref_ns, _, kind = coding
    markers = markers_of(z)
    raw = z[...]
    values = []
    for x in raw.ravel():
        if z.dtype.kind == "f":
            if np.isnan(x) or is_marker(x, markers, z.dtype):
                values.append(None)
                continue
            values.append(Fraction(float(x)) * unit_ns + ref_ns)
        else:
            if is_marker(x, markers, z.dtype) or (z.dtype.itemsize == 8 and z.dtype.kind == "i" and int(x) == -INT64):
                values.append(None)
                continue
            values.append(Fraction(int(x)) * unit_ns + ref_ns)
    return {"kind": kind, "values": values}, coding


def auto_unit(z, coding, values):
    """The unit --unit auto picks for a CF array: the coarsest of s..ns not coarser than the units word's that holds
    the reference and, for float counts, every value."""
    unit_ns, ref_ns, word, _ = coding
    candidates = ["s", "ms", "us", "ns"]
    candidates = candidates[candidates.index(FINEST_AUTO[word]):]
    for unit in candidates:
        if ref_ns % ARROW_NS[unit]:
            continue
        if z.dtype.kind == "f" and any(v is not None and v % ARROW_NS[unit] for v in values):
            continue
        return unit
    return "ns"


def numpy_ns(a):
    """A datetime64/timedelta64 array's values in ns, exactly (Python integers: no overflow, either byte order)."""
    unit, multiple = np.datetime_data(a.dtype)
    counts = a.view(a.dtype.str[0] + "i8").astype("<i8").ravel()
    if unit in ("Y", "M"):  # calendar units: numpy's own conversion to days (exact), then days to ns
        days = a.astype(a.dtype.str[:3] + "[D]").view(a.dtype.str[0] + "i8").astype("<i8").ravel()
        return [None if c == -INT64 else str(int(d) * UNIT_NS["days"]) for c, d in zip(counts, days)]
    per = {"W": 7 * UNIT_NS["days"], "D": UNIT_NS["days"], "h": UNIT_NS["hours"], "m": UNIT_NS["minutes"],
           "s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}[unit] * multiple
    return [None if c == -INT64 else str(int(c) * per) for c in counts]


def rounded_values(values):
    """What `--allow-truncate` ("floor") and `--round` ("nearest", half to even) write of exact values (Fractions of
    ns), per unit s..ns that holds every one of them, as integer ns (strings): the export's unit (`--unit auto`'s
    choice, which the tool reports in the column's type) picks the list to compare with."""
    out = {"floor": {}, "nearest": {}}
    for unit, per in ARROW_NS.items():
        for rounding, count in (("floor", lambda v: v // per), ("nearest", lambda v: round(v / per))):
            counts = [None if v is None else int(count(v)) for v in values]
            if all(c is None or -INT64 <= c < INT64 for c in counts):
                out[rounding][unit] = [None if c is None else str(c * per) for c in counts]
    return out


def time_expectation(z):
    """What exporting time array z gives: {"kind", "source", "values"} or {"refusal", "why"}; None if not time."""
    calendar = str(z.attrs.get("calendar", "standard")).lower()
    if z.dtype.kind in "Mm":
        return {"kind": "time" if z.dtype.kind == "M" else "delta", "source": "numpy", "values": numpy_ns(z[...])}
    if calendar in MODEL_CALENDARS and isinstance(z.attrs.get("units"), str) and " since " in z.attrs["units"]:
        try:
            labels = cftime.num2date(z[...].ravel(), z.attrs["units"], calendar)
        except ValueError as e:  # a reference date the calendar lacks (a noleap Feb 29), which cftime refuses too
            return {"refusal": "VALUE_INVALID", "why": "cftime: %s" % e}
        values = [proleptic_label_ns(d) for d in labels]
        if any(v is None for v in values):
            i = values.index(None)
            return {"refusal": "VALUE_INVALID", "why": "%s label %s (index %d) is no proleptic Gregorian date" % (calendar, labels[i], i), "label": True}
        return {"kind": "time", "source": "cftime", "values": [str(v) for v in values]}
    found = exact_time(z)
    if found is None:
        return None
    exact, coding = found
    values = exact["values"]
    for i, v in enumerate(values):
        if v is not None and v.denominator != 1:
            return {"refusal": "TRUNCATION", "why": "value %d is %s ns, no whole number of ns" % (i, v),
                    "kind": exact["kind"], "rounded": rounded_values(values)}
    unit = auto_unit(z, coding, values)
    for i, v in enumerate(values):
        if v is not None and not -INT64 <= v // ARROW_NS[unit] < INT64:
            return {"refusal": "OVERFLOW", "why": "value %d is %s ns, outside int64 in %s" % (i, v, unit)}
    return {"kind": exact["kind"], "source": "exact", "values": [None if v is None else str(v.numerator) for v in values]}


def cf_numbers(z):
    """A masked or packed numeric array by README's CF rule: {"kind", "source", "values"}, or None if neither."""
    at = z.attrs
    if z.dtype.kind not in "iuf" or "units" in at and time_coding(z) is not None:
        return None
    markers = markers_of(z)
    packed = "scale_factor" in at or "add_offset" in at
    if not packed and (z.dtype.kind == "f" or not markers):
        return None
    raw = z[...].ravel()
    if not packed:
        return {"kind": "int", "source": "cf", "values": [None if is_marker(x, markers, z.dtype) else str(int(x)) for x in raw]}
    sf = at.get("scale_factor", 1.0)
    off = at.get("add_offset")
    float32 = z.dtype.itemsize <= 2 and off is None and float(np.float32(sf)) == float(sf)
    out = []
    for x in raw:
        if is_marker(x, markers, z.dtype):
            out.append(None)
        elif float32:
            out.append(canon_float(np.float32(x) * np.float32(sf)))
        else:
            y = np.float64(x) * np.float64(sf)
            out.append(canon_float(y + np.float64(off) if off is not None else y))
    return {"kind": "float", "source": "cf", "values": out}


def broadcast(values, dims, shape, table_dims, sizes):
    """An array's values (C order over dims) repeated over the table's dimensions, in its C order."""
    a = np.empty(len(values), dtype=object)
    a[:] = values
    a = a.reshape(shape)
    present = [d for d in table_dims if d in dims]
    a = a.transpose([dims.index(d) for d in present])
    a = a.reshape([sizes[d] if d in dims else 1 for d in table_dims])
    return list(np.broadcast_to(a, [sizes[d] for d in table_dims]).ravel())


def refusal_codes(expectations):
    return sorted({e["refusal"] for e in expectations if "refusal" in e})


# ---------------------------------------------------------------- one store

def open_dataset(path, use_cftime):
    try:
        ds = xr.open_zarr(path, use_cftime=use_cftime)
        ds.load()
        return ds, None
    except Exception as e:
        return None, "%s: %s" % (type(e).__name__, str(e)[:300])


def oracle(path, family, seed, desc, use_cftime):
    group = zarr.open_group(str(path), mode="r")
    arrays = dict(group.arrays())
    rec = {"family": family, "seed": seed, "desc": desc,
           "options": {"convertCalendar": True} if family == "model" else {}, "arrays": {}, "xarray": {}}
    ds, open_error = open_dataset(path, use_cftime)
    if ds is None:
        rec["xarray"]["open_error"] = open_error
    # every array's expectation: time arrays, masked/packed numbers; the others are xarray's
    documented = {}
    for name, z in arrays.items():
        e = time_expectation(z)
        if e is None and " since " in str(z.attrs.get("units", "")):
            raise RuntimeError("no expectation for the time array %s (units %r)" % (name, z.attrs["units"]))
        if e is not None:
            rec["arrays"][name] = e
            documented[name] = e
            continue
        e = cf_numbers(z)
        if e is not None:
            documented[name] = e
    for name, e in rec["arrays"].items():
        if "values" in e and ds is not None and name in ds.variables:
            mine = canon_array(ds[name].values)
            if mine["values"] != e["values"]:
                rec["xarray"][name] = mine["values"]
    # the table: structure and the other values from xarray (decode_times=False where xarray cannot decode them)
    dims_of = {name: list(z.attrs.get("_ARRAY_DIMENSIONS", [])) for name, z in arrays.items()}
    sizes = {}
    for name, z in arrays.items():
        sizes.update(zip(dims_of[name], z.shape))
    data_vars = [name for name in arrays if dims_of[name] != [name]]
    if not data_vars:
        rec["table"] = {"refusal": ["COLUMN_NOT_FOUND"], "why": "no data variable: every array is a dimension coordinate"}
    else:
        tds = ds if ds is not None else xr.open_zarr(path, decode_times=False).load()
        widest = max(tds.data_vars.values(), key=lambda v: v.ndim)
        dim_order = list(widest.dims) + [d for d in tds.dims if d not in widest.dims]
        df = tds.to_dataframe(dim_order=dim_order).reset_index()
        columns = [str(c) for c in df.columns]
        refusals = refusal_codes([documented[c] for c in columns if c in documented])

        def table_data(rounding=None):
            """The table's columns; with `rounding`, a TRUNCATION column's values floored or rounded per unit."""
            data = {}
            for c in columns:
                if c in documented and "rounded" in documented[c] and rounding is not None:
                    e = documented[c]
                    per_unit = {unit: broadcast(values, dims_of[c], arrays[c].shape, dim_order, sizes) for unit, values in e["rounded"][rounding].items()}
                    data[c] = {"kind": e["kind"], "source": "exact", "rounded": per_unit}
                elif c in documented:
                    e = documented[c]
                    values = broadcast(e["values"], dims_of[c], arrays[c].shape, dim_order, sizes)
                    data[c] = {"kind": e["kind"], "source": e["source"], "values": values}
                    if ds is not None and rounding is None:
                        mine = canon_array(df[c].to_numpy())["values"]
                        if mine != values:
                            rec["xarray"]["table." + c] = mine
                else:
                    data[c] = dict(canon_array(df[c].to_numpy()), source="xarray")
            return {"columns": columns, "rows": len(df), "dims": dim_order, "data": data}

        if refusals:
            rec["table"] = {"refusal": refusals, "why": "; ".join("%s: %s" % (c, documented[c]["why"]) for c in columns if c in documented and "refusal" in documented[c])}
            if refusals == ["TRUNCATION"]:
                # --allow-truncate and --round export it: each TRUNCATION column in the unit the export writes.
                rec["table"]["rounded"] = {rounding: table_data(rounding) for rounding in ("floor", "nearest")}
        else:
            rec["table"] = table_data()
    times = [int(v) for e in rec["arrays"].values() if e.get("kind") == "time" for v in e.get("values", []) if v is not None]
    rec["parquet"] = all(abs(v) < DUCKDB_NS for v in times)
    if not rec["xarray"]:
        del rec["xarray"]
    return rec


def layout_tags(store):
    """What the store's arrays are stored with: codecs, filters, F order, '/' keys, byte order, missing chunks."""
    tags = set()
    for meta in store.rglob(".zarray"):
        z = json.loads(meta.read_text())
        c = z.get("compressor")
        tags.add("compressor:%s" % ("none" if c is None else c["id"] + ("-" + c["cname"] if "cname" in c else "")))
        tags.update("filter:%s" % f["id"] for f in z.get("filters") or [])
        if z.get("order") == "F":
            tags.add("order:F")
        if z.get("dimension_separator") == "/":
            tags.add("keys:/")
        if z["dtype"].startswith(">"):
            tags.add("big-endian")
        grid = [-(-n // c) for n, c in zip(z["shape"], z["chunks"])]
        stored = sum(1 for p in meta.parent.rglob("*") if p.is_file() and not p.name.startswith("."))
        if stored < int(np.prod(grid)):
            tags.add("missing-chunks")
    return sorted(tags)


def features(rec):
    """Tags of what a store covers, for choosing the corpus seeds."""
    out = set(rec.get("layout", []))
    d = rec.get("desc", {})
    for name, e in rec["arrays"].items():
        out.add("refusal:" + e["refusal"] if "refusal" in e else "%s:%s" % (e["kind"], e["source"]))
    t = rec.get("table", {})
    if "refusal" in t:
        out.update("table-refusal:" + c for c in t["refusal"])
    else:
        out.update("col:%s:%s" % (c["kind"], c["source"]) for c in t.get("data", {}).values())
        out.add("dims:%d" % len(t.get("dims", [])))
    for name in rec.get("xarray", {}):
        if name == "open_error":
            out.add("xarray-cannot-open")
        elif not name.startswith("table."):
            out.add("xarray-differs:%s" % rec["arrays"][name]["source"])
        else:
            out.add("xarray-differs:table:%s" % rec["table"]["data"][name[6:]]["source"])
    for name, e in rec["arrays"].items():
        if e.get("label"):
            out.add("model-date-invalid")
    at = d.get("attrs", {})
    units = str(at.get("units", ""))
    if rec["family"] == "model":  # every calendar with every reference form: each takes its own days-to-label path
        out.add("model-reference:%s:%s" % (at["calendar"], units.split(" since ")[1]))
    if " since " in units:
        ref = units.split(" since ")[1]
        if any(z in ref for z in ("+", " -0", "Z", "UTC")):
            out.add("reference-with-zone")
        if ref[:4] < "1583":
            out.add("reference-before-1583")
        if units.split(" since ")[0] in ("d", "us", "ns", "hrs", "sec", "min", "h", "s"):
            out.add("unit-spelling-xarray-refuses")
    for k in ("unit", "cal", "dtype", "kind"):
        if k in d:
            out.add("%s=%s" % (k, d[k]))
    if "attrs" in d:
        out.add("calendar=%s" % d["attrs"].get("calendar", "standard"))
        if "missing_value" in d["attrs"]:
            out.add("missing_value")
    t2 = d.get("t2")
    if t2 and t2["marked"] and t2["marker"] == -INT64 and t2["fill"] is None:
        out.add("int64-nat-without-fill")
    for e in d.get("enc", {}).values():
        if e.get("dtype") == "float32" and str(e.get("units", "")).startswith("microseconds"):
            out.add("float32-microseconds")
    if d.get("sparse"):
        out.add("sparse")
    if d.get("bigendian") or str(d.get("dtype", "")).startswith(">"):
        out.add("big-endian")
    for var, e in d.get("enc", {}).items():
        for k in ("dtype", "scale_factor", "add_offset", "_FillValue", "calendar"):
            if k in e:
                out.add("enc:%s=%s" % (k, e[k] if k in ("dtype", "calendar") else "yes"))
    return out


def store_bytes(folder):
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


# Stores per family in the corpus: 14, and one per calendar and reference form for the model calendars.
CORPUS_SIZES = {"xr": 14, "raw": 14, "dt64": 14, "model": 36, "mix": 14}


def choose_seeds(out, seeds=range(200), weight=8000, max_bytes=25000):
    """CORPUS_SEEDS: per family, greedily the store covering the most features not yet covered per (bytes + weight),
    until CORPUS_SIZES are chosen (once every feature is covered, the most features per byte); stores of more than
    `max_bytes` are left out."""
    chosen = {}
    for family in FAMILIES:
        stores = []
        for seed in seeds:
            rec, _ = make_store(out, family, seed)
            if rec is not None and store_bytes(out / ("%s-%05d" % (family, seed))) < max_bytes:
                stores.append((seed, features(rec), store_bytes(out / ("%s-%05d" % (family, seed)))))
        universe = set().union(*(f for _, f, _ in stores))
        covered, picked = set(), []
        while len(picked) < CORPUS_SIZES[family]:
            rest = [s for s in stores if s[0] not in picked]
            gain = (lambda s: len(s[1] - covered)) if covered != universe else (lambda s: len(s[1]))
            seed, feats, _ = max(rest, key=lambda s: (gain(s) / (s[2] + weight), -s[2]))
            picked.append(seed)
            covered |= feats
        chosen[family] = sorted(picked)
    return chosen


def make_store(out_dir, family, seed):
    r = np.random.default_rng([seed, sum(map(ord, family))])
    folder = out_dir / ("%s-%05d" % (family, seed))
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    store = folder / "store.zarr"
    try:
        desc, use_cftime = FAMILIES[family](r, str(store))
        rec = oracle(store, family, seed, desc, use_cftime)
        rec["layout"] = layout_tags(store)
    except Exception as e:  # a layout the producer cannot write, or xarray cannot open: no store
        shutil.rmtree(folder)
        return None, "%s: %s" % (type(e).__name__, str(e)[:200])
    (folder / "oracle.json").write_text(json.dumps(rec, separators=(",", ":")) + "\n")
    return rec, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="write here instead of the committed corpus")
    parser.add_argument("--family", choices=sorted(FAMILIES), help="one family (with --seeds)")
    parser.add_argument("--seeds", help="FIRST:END, the seeds of --family to write")
    parser.add_argument("--survey", action="store_true", help="print each store's features (one JSON line a store)")
    parser.add_argument("--choose", action="store_true", help="print CORPUS_SEEDS chosen from seeds 0..199 (with --out)")
    args = parser.parse_args()
    if args.choose:
        if args.out is None:
            parser.error("--choose needs --out, a scratch folder")
        print(json.dumps(choose_seeds(pathlib.Path(args.out))))
        return
    if args.out is None:
        if args.family or args.seeds:
            parser.error("--family/--seeds need --out: the committed corpus is CORPUS_SEEDS")
        out = CORPUS
        shutil.rmtree(out, ignore_errors=True)
        plan = [(f, s) for f, seeds in CORPUS_SEEDS.items() for s in seeds]
    else:
        if not (args.family and args.seeds):
            parser.error("--out needs --family and --seeds")
        out = pathlib.Path(args.out)
        first, end = (int(x) for x in args.seeds.split(":"))
        plan = [(args.family, s) for s in range(first, end)]
    out.mkdir(parents=True, exist_ok=True)
    skipped = 0
    for family, seed in plan:
        rec, error = make_store(out, family, seed)
        if rec is None:
            skipped += 1
            print("%s-%05d: not written (%s)" % (family, seed, error), file=sys.stderr)
            if args.out is None:
                sys.exit("a corpus seed writes no store")
            continue
        if args.survey:
            size = store_bytes(out / ("%s-%05d" % (family, seed)))
            print(json.dumps({"store": "%s-%05d" % (family, seed), "bytes": size, "features": sorted(features(rec))}))
    print("wrote %d stores to %s (%d seeds wrote none)" % (len(plan) - skipped, out, skipped), file=sys.stderr)


if __name__ == "__main__":
    main()
