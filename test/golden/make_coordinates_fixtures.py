"""Auxiliary coordinates as xarray writes them (CF `coordinates` attributes) and the tables xarray makes of a
selection of variables: the golden data of the coordinates `ds[names]` attaches to its variables.

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13):

    PYTHONHASHSEED=0 /usr/bin/python3 test/golden/make_coordinates_fixtures.py

(xarray writes a `coordinates` attribute from a set: the seed keeps its order from one run to the next.)

It replaces test/fixtures/coordinates/ and writes test/fixtures/coordinates/expected.json. The store (zarr v2,
consolidated; written by xarray `to_zarr`) is a curvilinear grid:

- `tas(time, y, x)` float32 and `station_obs(time, station)` float64, the data variables;
- `lat(y, x)`, `lon(y, x)` (2-D auxiliary coordinates), `height` (a scalar coordinate), `station_name(station)`
  (a string coordinate of a dimension without an index), which xarray names in each data variable's `coordinates`
  attribute whose dimensions hold theirs;
- `valid_time(time)`, a time coordinate beside the `time` index (CF time as xarray encodes it);
- `site_yx(y, station)`, a coordinate over dimensions no single variable spans, which xarray writes in the group's
  own `coordinates` attribute.

A second store, `interrupted-append.zarr`, is the state an `append_dim="time"` write leaves when it stops between
resizing the variables and the coordinate: `t2m(time=8, lat=2)` whose `time` coordinate holds 6 values (resized
with zarr), which xarray refuses to open (`refused`: its message).

Expected, for each selection: the columns of `ds[names].to_dataframe().reset_index()` (xarray's `_copy_listed`
keeps every coordinate whose dimensions are among the selected variables', after them, in the dataset's order),
with their pandas dtypes and values as text; the rows of `ds[["tas"]].sel(time=slice(...))`; and the column names of `ds[names].to_dataframe()` (no index) and of
`ds[name].to_dataframe()` for one variable (a DataArray's frame puts its coordinates first).
"""

import json
import pathlib
import shutil
import warnings

import numpy as np
import pandas as pd
import xarray as xr
import zarr

from golden_columns import spelled

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "coordinates"
STORE = OUT / "curvilinear.zarr"
SELECTIONS = [["tas"], ["station_obs"], ["tas", "station_obs"], ["tas", "lat"]]

warnings.simplefilter("ignore")



def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    rng = np.random.default_rng(18)
    nt, ny, nx, ns = 3, 2, 3, 2
    time = pd.date_range("2024-01-01", periods=nt, freq="D")
    tas = (280 + 10 * rng.random((nt, ny, nx))).astype("float32")
    tas[1, 0, 2] = np.nan
    ds = xr.Dataset(
        {
            "tas": (("time", "y", "x"), tas, {"units": "K"}),
            "station_obs": (("time", "station"), rng.random((nt, ns))),
        },
        coords={
            "time": time,
            "lat": (("y", "x"), np.linspace(-10, 10, ny)[:, None] + 0.5 * np.arange(nx)[None, :], {"units": "degrees_north"}),
            "lon": (("y", "x"), np.linspace(350, 355, nx)[None, :] + 0.25 * np.arange(ny)[:, None], {"units": "degrees_east"}),
            "height": ((), 2.0, {"units": "m"}),
            "station_name": (("station",), np.array(["Zürich", "Lund"], dtype=object)),
            "site_yx": (("y", "station"), np.array([[1, 2], [3, 4]], dtype="int32")),
            "valid_time": (("time",), time + pd.Timedelta("6H")),
        },
    )
    ds.to_zarr(STORE, consolidated=True)
    back = xr.open_zarr(STORE)
    stored = json.loads((STORE / ".zmetadata").read_text())["metadata"]
    selections = []
    for names in SELECTIONS:
        frame = back[names].to_dataframe().reset_index()
        selections.append(
            {
                "names": names,
                "columns": [{"name": str(c), "dtype": str(frame[c].dtype), "values": spelled(frame[c].values)} for c in frame.columns],
                "without_index": [str(c) for c in back[names].to_dataframe().columns],
            }
        )
    ranged = back[["tas"]].sel(time=slice("2024-01-02", "2024-01-02")).to_dataframe().reset_index()
    interrupted = OUT / "interrupted-append.zarr"
    xr.Dataset({"t2m": (("time", "lat"), np.arange(16, dtype="float32").reshape(8, 2))}, coords={"time": pd.date_range("2024-01-01", periods=8, freq="D"), "lat": [1.0, 2.0]}).to_zarr(interrupted, consolidated=False)
    zarr.open(str(interrupted / "time"), mode="r+").resize(6)
    try:
        xr.open_zarr(interrupted, consolidated=False)
        refused = None
    except ValueError as error:
        refused = str(error)
    expected = {
        "interrupted_store": interrupted.name,
        "refused": refused,
        "range": {"start": "2024-01-02", "end": "2024-01-03", "rows": len(ranged), "time": spelled(ranged["time"].values)},
        "store": STORE.name,
        "coordinates_attributes": {name: stored[f"{name}/.zattrs"].get("coordinates") for name in ["tas", "station_obs"]},
        "group_coordinates": stored[".zattrs"].get("coordinates"),
        "data_array_columns": [str(c) for c in back["tas"].to_dataframe().reset_index().columns],
        "selections": selections,
    }
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
