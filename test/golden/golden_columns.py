"""The golden spelling of a data frame's columns, for the fixture scripts beside this file that write what
`ds[names].to_dataframe().reset_index()` gives (test/support/xarray-columns.ts reads it). Each script imports it as
a sibling: Python puts a script's folder on sys.path.
"""

import json
import shutil

import numpy as np
import zarr


def spelled(values) -> list:
    """Values as text: numbers as Python spells them (`nan` for NaN), times at nanoseconds in ISO text (`NaT`)."""
    if np.issubdtype(values.dtype, np.datetime64):
        return [str(v) for v in values.astype("datetime64[ns]")]
    return [str(v) for v in values.tolist()]


def frame_columns(frame, spell=spelled) -> list:
    """Each column of `frame`: its name, its pandas dtype and its values as `spell` spells them."""
    return [{"name": c, "dtype": str(frame[c].dtype), "values": spell(frame[c].values)} for c in frame.columns]


def write_frame_expected(out, store, names, frame, **extra) -> None:
    """`out`/expected.json: the store's name, the names asked for, and the frame's rows and columns (frame_columns),
    with `extra` entries beside them (values the frame cannot say, such as exact integers)."""
    expected = {"store": store.name, "columns_option": names, "rows": len(frame), "columns": frame_columns(frame), **extra}
    (out / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")


def new_group_over_days(out, store, days):
    """A new v2 group at `store`, in `out` emptied first, with its `time` coordinate: days 1..`days` since 2000-01-01
    (int32, proleptic Gregorian), the axis of the variables each script adds."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    group = zarr.open_group(str(store), mode="w")
    time = group.create_dataset("time", data=np.arange(1, days + 1, dtype="int32"), fill_value=None)
    time.attrs.update({"_ARRAY_DIMENSIONS": ["time"], "units": "days since 2000-01-01", "calendar": "proleptic_gregorian"})
    return group
