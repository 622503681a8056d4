"""xarray datasets written by xarray itself (`Dataset.to_zarr`, Zarr v2), and the tidy tables an export with
`--columns ... --index` must give, computed by xarray: `ds[vars].to_dataframe(dim_order=...).reset_index()`.

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13, pandas):

    /usr/bin/python3 test/golden/make_table_fixtures.py

It replaces test/fixtures/tables/ and writes test/fixtures/tables/expected.json. The stores are small and the
output deterministic.

- grid.zarr: `time` (CF "hours since", int64), `lat` (float32), `lon` (float64); `t2m(time, lat, lon)` float32 with
  NaN gaps; `tp` int16 packed with a float32 `scale_factor`, no offset, `_FillValue` -32767 (unpacks to float32);
  `sp` int16 packed with `scale_factor` and `add_offset` (float64), `_FillValue` -32767 and, patched into its `.zattrs`
  after xarray wrote it (xarray cannot encode both), `missing_value` [-32766, -32765]; `elev(lat, lon)` float64, static;
  `rh(time, lat, lon)` int8 with `valid_range` [0, 100] and `_FillValue` -128; two variables over the grid's
  dimensions in another order, which `to_dataframe` transposes: `land(lon, lat)` float32, static, and
  `u10(lon, time, lat)` float64 with a NaN. Every variable has its own chunks.
- stations.zarr: `time` (CF "days since"), `station` (string coordinate, numpy `<U`), `sample` (a dimension without
  a coordinate); `obs(time, station)` float64 with NaN; `qc(time, station, sample)` uint8.
- gridmap.zarr: `t2m(time, lat, lon)` float32 beside a 0-d `crs` (int32, a CF grid mapping, as rioxarray writes
  one) and `time_bnds(time, bnds)`: a 0-d variable is a constant column (`ds[["t2m", "crs"]].to_dataframe()`), and
  `ds.to_dataframe()` without `time_bnds` (whose `bnds` dimension would multiply the rows) is `--columns all`.
- mixed-names.zarr: ten float64 variables over (time, x) whose names code point order and a locale's collation
  sort differently (`Tmax`, `precip`, `_flag`, `a10`, `a9`, `Äquivalent`…): `--columns all` takes them in
  xarray's order, `list(ds.data_vars)`, which is `ds.to_dataframe()`'s.
- curvilinear.zarr: `temp(time, y, x)` float32 on a curvilinear grid: 2-D auxiliary coordinates `lat(y, x)` and
  `lon(y, x)` (CF `coordinates` attribute); `y` and `x` have no coordinate arrays.

Expected columns (each case: the dimension order, then one entry per column with its pandas dtype): integers as
decimal strings, floats as Python's `repr` ("nan" for NaN), strings as themselves, times as int64 nanoseconds
since the epoch (strings). A value CF masking removes (equal to `_FillValue` or `missing_value`, or, for our rule,
outside `valid_min`/`valid_max`/`valid_range`) is null: xarray turns it into NaN, so the script finds those rows in
the raw stored values (`mask_and_scale=False`) to tell them from NaN that is data. xarray ignores the valid range:
every case here applies it to xarray's values, as dt64-export does (a documented difference; only `rh` has one).
"""

import json
import pathlib
import shutil

import numpy as np
import pandas as pd
import xarray as xr
import zarr

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "tables"


def make_grid() -> xr.Dataset:
    rng = np.random.default_rng(14)
    time = np.array("2020-01-01T00", dtype="datetime64[ns]") + np.arange(6) * np.timedelta64(3, "h")
    lat = np.array([10.5, 0.25, -33.3], dtype=np.float32)
    lon = np.array([0.0, 0.1, 120.7, 359.9], dtype=np.float64)
    shape = (6, 3, 4)
    t2m = (rng.normal(280, 10, shape)).astype(np.float32)
    t2m[1, 0, :] = np.nan
    t2m[4, 2, 3] = np.nan
    tp = np.round(rng.uniform(0, 30, shape), 3)
    tp[2, 1, 1] = np.nan
    sp = np.round(rng.uniform(990, 1020, shape) * 2) / 2
    sp[0, 0, 0] = np.nan
    elev = np.round(rng.uniform(-10, 3000, (3, 4)), 2)
    rh = rng.integers(-20, 120, shape).astype(np.float64)
    rh[5, 1, 2] = np.nan
    land = np.round(rng.uniform(0, 1, (4, 3)), 2).astype(np.float32)
    u10 = np.round(rng.normal(0, 5, (4, 6, 3)), 3)
    u10[2, 3, 1] = np.nan
    ds = xr.Dataset(
        {
            "t2m": (("time", "lat", "lon"), t2m, {"units": "K", "long_name": "2 metre temperature", "standard_name": "air_temperature"}),
            "tp": (("time", "lat", "lon"), tp, {"units": "mm", "long_name": "total precipitation"}),
            "sp": (("time", "lat", "lon"), sp, {"units": "hPa"}),
            "elev": (("lat", "lon"), elev, {"units": "m"}),
            "rh": (("time", "lat", "lon"), rh, {"units": "%", "valid_range": np.array([0, 100], dtype=np.int8)}),
            "land": (("lon", "lat"), land, {"units": "1", "long_name": "land fraction"}),
            "u10": (("lon", "time", "lat"), u10, {"units": "m s-1"}),
        },
        coords={"time": time, "lat": ("lat", lat, {"units": "degrees_north"}), "lon": ("lon", lon, {"units": "degrees_east"})},
    )
    encoding = {
        "time": {"units": "hours since 2020-01-01 00:00:00", "dtype": "int64", "chunks": (4,)},
        "lat": {"chunks": (2,)},
        "lon": {"chunks": (3,)},
        "t2m": {"chunks": (2, 3, 2)},
        "tp": {"dtype": "int16", "scale_factor": np.float32(0.001), "_FillValue": -32767, "chunks": (4, 1, 4)},
        "sp": {"dtype": "int16", "scale_factor": 0.5, "add_offset": 1000.0, "_FillValue": -32767, "chunks": (3, 2, 3)},
        "elev": {"chunks": (2, 2)},
        "rh": {"dtype": "int8", "_FillValue": -128, "chunks": (5, 3, 1)},
        "land": {"chunks": (3, 2)},
        "u10": {"chunks": (3, 4, 2)},
    }
    path = OUT / "grid.zarr"
    ds.to_zarr(path, encoding=encoding, mode="w")
    # Two values of sp stored as the missing_value markers.
    group = zarr.open_group(str(path), mode="r+")
    raw = group["sp"][:]
    raw[3, 2, 1] = -32766
    raw[5, 0, 3] = -32765
    group["sp"][:] = raw
    group["sp"].attrs["missing_value"] = [-32766, -32765]
    zarr.consolidate_metadata(str(path))
    return ds


def make_stations() -> None:
    rng = np.random.default_rng(1414)
    time = np.array("1999-12-30", dtype="datetime64[ns]") + np.arange(4) * np.timedelta64(1, "D")
    station = np.array(["Zürich", "Oslo", "Ålesund"])
    obs = np.round(rng.normal(5, 3, (4, 3)), 1)
    obs[2, 1] = np.nan
    qc = rng.integers(0, 250, (4, 3, 2)).astype(np.uint8)
    ds = xr.Dataset(
        {"obs": (("time", "station"), obs, {"units": "degC"}), "qc": (("time", "station", "sample"), qc)},
        coords={"time": time, "station": station},
    )
    encoding = {"time": {"units": "days since 1999-12-30", "dtype": "int32"}, "obs": {"chunks": (3, 2)}, "qc": {"chunks": (2, 3, 1)}}
    ds.to_zarr(OUT / "stations.zarr", encoding=encoding, mode="w")


def make_gridmap() -> None:
    rng = np.random.default_rng(1415)
    time = np.array("2021-06-01T00", dtype="datetime64[ns]") + np.arange(4) * np.timedelta64(1, "h")
    t2m = rng.normal(290, 2, (4, 3, 2)).astype(np.float32)
    ds = xr.Dataset(
        {
            "t2m": (("time", "lat", "lon"), t2m, {"units": "K", "grid_mapping": "crs"}),
            "crs": ((), np.int32(0), {"grid_mapping_name": "latitude_longitude", "semi_major_axis": 6378137.0}),
            "time_bnds": (("time", "bnds"), np.stack([time, time + np.timedelta64(1, "h")], axis=1)),
        },
        coords={"time": time, "lat": [45.0, 46.0, 47.0], "lon": [7.0, 8.0]},
    )
    ds.to_zarr(OUT / "gridmap.zarr", mode="w")
    # --columns all takes every data variable but time_bnds: the same table as ds.to_dataframe() without it, whose
    # rows follow the dataset's dimension order (lat, lon, time here): sorted by (time, lat, lon), they are equal.
    back = xr.open_zarr(OUT / "gridmap.zarr")
    whole = back.drop_vars("time_bnds").to_dataframe()
    assert list(whole.index.names) == ["lat", "lon", "time"]
    assert whole.reorder_levels(["time", "lat", "lon"]).sort_index().equals(back[["crs", "t2m"]].to_dataframe(dim_order=["time", "lat", "lon"]))


def make_curvilinear() -> None:
    rng = np.random.default_rng(141414)
    time = np.array("2021-06-01T12", dtype="datetime64[ns]") + np.arange(3) * np.timedelta64(30, "m")
    y, x = np.meshgrid(np.arange(4), np.arange(5), indexing="ij")
    lat = 45.0 + 0.3 * y + 0.05 * x
    lon = 7.0 + 0.4 * x - 0.02 * y
    temp = rng.normal(15, 4, (3, 4, 5)).astype(np.float32)
    ds = xr.Dataset(
        {"temp": (("time", "y", "x"), temp, {"units": "degC"})},
        coords={"time": time, "lat": (("y", "x"), lat, {"units": "degrees_north"}), "lon": (("y", "x"), lon, {"units": "degrees_east"})},
    )
    encoding = {"time": {"units": "minutes since 2021-06-01 00:00:00", "dtype": "int64"}, "temp": {"chunks": (2, 3, 2)}}
    ds.to_zarr(OUT / "curvilinear.zarr", encoding=encoding, mode="w")


def make_mixed_names() -> None:
    # Variables whose names sort differently by code point (Python, zarr-python, xarray) and by a locale's collation
    # (capitals, an underscore, digits, a non-ASCII letter): --columns all takes them in xarray's order.
    time = np.array("2022-03-01", dtype="datetime64[ns]") + np.arange(3) * np.timedelta64(1, "D")
    names = ["precip", "Tmax", "U10", "snow_Depth", "Äquivalent", "_flag", "zeta", "Zulu", "a10", "a9"]
    values = {name: (("time", "x"), np.arange(6, dtype=np.float64).reshape(3, 2) + 10 * i) for i, name in enumerate(names)}
    xr.Dataset(values, coords={"time": time, "x": np.array([1, 2], dtype=np.int64)}).to_zarr(OUT / "mixed-names.zarr", mode="w")
    back = xr.open_zarr(OUT / "mixed-names.zarr")
    assert list(back.to_dataframe().columns) == list(back.data_vars) == sorted(names)


def value_list(series: pd.Series, masked: np.ndarray) -> list:
    dtype = series.dtype
    values = series.to_numpy()
    if dtype.kind == "M":
        out = [None if v == np.iinfo(np.int64).min else str(v) for v in values.astype("datetime64[ns]").view("i8").tolist()]
    elif dtype.kind in "iu":
        out = [str(int(v)) for v in values.tolist()]
    elif dtype.kind == "f":
        out = [repr(float(v)) for v in values.tolist()]
    elif dtype.kind == "b":
        out = [bool(v) for v in values.tolist()]
    else:
        out = [str(v) for v in values.tolist()]
    return [None if m else v for v, m in zip(out, masked)]


def raw_mask(raw: xr.DataArray, dims: list, frame_index: pd.MultiIndex, valid_range: bool) -> np.ndarray:
    """Rows of the table whose stored value CF masking removes, from the raw values broadcast to the table."""
    attrs = raw.attrs
    markers = []
    for key in ("_FillValue", "missing_value"):
        if key in attrs:
            markers.extend(np.atleast_1d(attrs[key]).tolist())
    data = raw.values
    mask = np.zeros(data.shape, dtype=bool)
    for marker in markers:
        if not (isinstance(marker, float) and np.isnan(marker)):
            mask |= data == marker
    if valid_range:
        low, high = attrs.get("valid_range", [attrs.get("valid_min"), attrs.get("valid_max")])
        if low is not None:
            mask |= data < low
        if high is not None:
            mask |= data > high
    broadcast = xr.DataArray(mask, dims=raw.dims).broadcast_like(xr.DataArray(np.zeros([frame_index.levshape[i] for i in range(len(dims))]), dims=dims))
    return broadcast.transpose(*dims).values.ravel()


def table(store: str, names: list, dims: list, valid_range: bool = True) -> dict:
    path = OUT / store
    ds = xr.open_zarr(path)
    raw = xr.open_zarr(path, mask_and_scale=False, decode_times=False)
    frame = ds[names].to_dataframe(dim_order=dims)
    index = frame.index if isinstance(frame.index, pd.MultiIndex) else pd.MultiIndex.from_arrays([frame.index])
    flat = frame.reset_index()
    columns = []
    for name in flat.columns:
        masked = np.zeros(len(flat), dtype=bool)
        if name not in dims:
            masked = raw_mask(raw[name], dims, index, valid_range)
        series = flat[name]
        if valid_range and name not in dims:
            series = series.where(~masked)
        columns.append({"name": name, "dtype": str(series.dtype), "values": value_list(series, masked)})
    return {"store": store, "columns_option": names, "dims": dims, "rows": len(flat), "columns": columns}


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    make_grid()
    make_stations()
    make_curvilinear()
    make_gridmap()
    make_mixed_names()
    grid_dims = ["time", "lat", "lon"]
    expected = {
        "t2m": table("grid.zarr", ["t2m"], grid_dims),
        "packed": table("grid.zarr", ["tp", "sp"], grid_dims),
        "broadcast": table("grid.zarr", ["t2m", "elev"], grid_dims),
        "static-first": table("grid.zarr", ["elev", "t2m"], grid_dims),
        "all": table("grid.zarr", ["t2m", "tp", "sp", "elev", "rh", "land", "u10"], grid_dims),
        "transposed-static": table("grid.zarr", ["t2m", "land"], grid_dims),
        "transposed-with-time": table("grid.zarr", ["t2m", "u10"], grid_dims),
        "transposed-widest-first": table("grid.zarr", ["u10", "land", "elev"], ["lon", "time", "lat"]),
        "valid-range": table("grid.zarr", ["rh"], grid_dims),
        "stations": table("stations.zarr", ["obs", "qc"], ["time", "station", "sample"]),
        "station-obs": table("stations.zarr", ["obs"], ["time", "station"]),
        "curvilinear": table("curvilinear.zarr", ["temp", "lat", "lon"], ["time", "y", "x"]),
        "zero-d": table("gridmap.zarr", ["t2m", "crs"], grid_dims),
        "zero-d-all": table("gridmap.zarr", ["crs", "t2m"], grid_dims),
        "mixed-names-all": table("mixed-names.zarr", list(xr.open_zarr(OUT / "mixed-names.zarr").data_vars), ["time", "x"]),
    }
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
