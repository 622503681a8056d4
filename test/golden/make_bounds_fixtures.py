"""CF cell boundaries without units (CF 1.10 §7.1: a boundary variable takes its coordinate's `units` and
`calendar`), written by zarr 2.13 as converters from netCDF write them, and the values xarray 2023.01 decodes them
to (its `conventions._update_bounds_attributes`).

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13, cftime):

    /usr/bin/python3 test/golden/make_bounds_fixtures.py

It replaces test/fixtures/bounds/ and writes test/fixtures/bounds/expected.json. The store `bounds.zarr`
(consolidated) holds, every array without a fill value:

- `time(time)`: int32 `days since 2000-01-01`, proleptic_gregorian, `bounds: "time_bnds"`;
- `time_bnds(time, nv)`: int32 with no attribute but its dimensions: decoded with time's units and calendar;
- `valid_time(time, step)`: an auxiliary coordinate, float64 `hours since 2000-01-01 00:00:00`, `bounds:
  "valid_bnds"`, whose name is no dimension of its bounds (found among the group's arrays, not its dimensions);
- `valid_bnds(time, step, nv)`: float64 hours, no attribute;
- `own_bnds(time, nv)`: int32 `hours since 2000-01-01` of its own, named by `time2`'s `bounds`: it keeps its units;
- `time2(time)`: int32 `days since 2000-01-01`, `bounds: "own_bnds"`;
- `clim_bnds(time, nv)`: int32 named by `time3`'s `climatology` (CF §7.4), which xarray leaves as numbers.

The store `julian-bounds.zarr` holds `time(time)` (int32 `days since 1500-02-20`, calendar julian, `bounds:
"time_bnds"`) and `time_bnds(time, nv)` without attributes: xarray decodes it to Julian dates (cftime objects), whose
instants are recorded as seconds since 1970-01-01 (proleptic Gregorian): cftime's count in the Julian calendar plus
the 13 days by which Julian 1970-01-01 follows Gregorian 1970-01-01.

Expected: for `bounds.zarr`, the columns of `ds[names].to_dataframe().reset_index()` for each selection below;
for `julian-bounds.zarr`, `time_bnds` flattened in C order, as seconds.
"""

import json
import pathlib
import shutil
import warnings

import cftime
import numpy as np
import xarray as xr
import zarr

from golden_columns import frame_columns

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "bounds"
STORE = OUT / "bounds.zarr"
JULIAN = OUT / "julian-bounds.zarr"
SELECTIONS = [["time_bnds"], ["valid_bnds"], ["own_bnds"], ["clim_bnds"]]
JULIAN_1970_AFTER_GREGORIAN_SECONDS = 13 * 86400

warnings.simplefilter("ignore")


def array(group, name, data, dims, **attrs):
    created = group.create_dataset(name, data=data, chunks=data.shape, fill_value=None)
    created.attrs.update({"_ARRAY_DIMENSIONS": dims, **attrs})


def write_store() -> dict:
    group = zarr.open_group(str(STORE), mode="w")
    days = np.arange(3, dtype="int32")
    array(group, "time", days, ["time"], units="days since 2000-01-01", calendar="proleptic_gregorian", bounds="time_bnds")
    array(group, "time_bnds", np.stack([days, days + 1], axis=1), ["time", "nv"])
    hours = (days[:, None] * 24 + np.array([0.0, 6.5])[None, :]).astype("float64")
    array(group, "valid_time", hours, ["time", "step"], units="hours since 2000-01-01 00:00:00", calendar="proleptic_gregorian", bounds="valid_bnds")
    array(group, "valid_bnds", np.stack([hours - 0.25, hours + 0.25], axis=2), ["time", "step", "nv"])
    array(group, "time2", days, ["time"], units="days since 2000-01-01", bounds="own_bnds")
    array(group, "own_bnds", np.stack([days * 24, days * 24 + 12], axis=1).astype("int32"), ["time", "nv"], units="hours since 2000-01-01")
    array(group, "time3", days, ["time"], units="days since 2000-01-01", climatology="clim_bnds")
    array(group, "clim_bnds", np.stack([days, days + 365], axis=1), ["time", "nv"])
    zarr.consolidate_metadata(str(STORE))
    ds = xr.open_zarr(STORE)
    return {"+".join(names): frame_columns(ds[names].to_dataframe().reset_index()) for names in SELECTIONS}


def write_julian() -> list:
    group = zarr.open_group(str(JULIAN), mode="w")
    days = np.array([0, 9, 10, 400], dtype="int32")
    array(group, "time", days, ["time"], units="days since 1500-02-20", calendar="julian", bounds="time_bnds")
    array(group, "time_bnds", np.stack([days - 1, days + 1], axis=1).astype("int32"), ["time", "nv"])
    zarr.consolidate_metadata(str(JULIAN))
    bounds = xr.open_zarr(JULIAN).time_bnds.values.ravel()
    return [int(cftime.date2num(date, "seconds since 1970-01-01", "julian")) + JULIAN_1970_AFTER_GREGORIAN_SECONDS for date in bounds]


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    expected = {"store": STORE.name, "selections": write_store(), "julian_store": JULIAN.name, "julian_bounds_seconds": write_julian()}
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
