"""Zarr v2 stores of CF-encoded time written by xarray itself, and the instants xarray/cftime decode them to.

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13, cftime 1.6, pandas 1.5):

    /usr/bin/python3 test/golden/make_cf_fixtures.py

It replaces test/fixtures/cf/ (one store per case) and writes test/fixtures/cf/expected.json. Each case is a
dataset written with `Dataset.to_zarr` (zarr v2, consolidated metadata): either xarray's own encoding of
datetime64 data (its default units, int64 or float64 with NaN for NaT, `_FillValue`, int32, chunks), or counts
written with the CF attributes given (calendars, reference date forms, unit spellings, float counts, refusals).

Expected values, per case: "instants", the decoded values as exact integer nanoseconds since
1970-01-01T00:00:00 UTC (strings; null for NaT), read back by `xarray.open_zarr`: datetime64 values as they are,
cftime dates (real-world calendars outside pandas' range, or before 1582-10-15) through their Julian Day Number
(`toordinal()`) and time of day ("decoder": "cftime" where xarray 2023.01 cannot parse the reference date and
`cftime.num2date` decoded the counts; "decoder": "xarray, units ..." for a UDUNITS spelling neither reads, decoded
with the unit spelled out). For model calendars, "instants" are those of
`Dataset.convert_calendar("proleptic_gregorian", align_on="date")`, and a case holding a date label that does
not exist in the proleptic Gregorian calendar (which xarray drops) has "missing_label": its index and label. A
case xarray itself cannot decode, or dt64-export refuses, has "refused": the reason, in words.
"""

import json
import pathlib
import shutil
import warnings

import cftime
import numpy as np
import pandas as pd
import xarray as xr

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "cf"
EPOCH_JDN = 2440588

warnings.simplefilter("ignore")


def cftime_ns(date) -> str:
    seconds = (date.toordinal() - EPOCH_JDN) * 86400 + date.hour * 3600 + date.minute * 60 + date.second
    return str(seconds * 10**9 + date.microsecond * 1000)


def instants(values) -> list:
    values = np.asarray(values)
    if np.issubdtype(values.dtype, np.datetime64):
        ns = values.astype("datetime64[ns]")
        return [None if np.isnat(v) else str(int(v.astype(np.int64))) for v in ns]
    return [None if v is None or (isinstance(v, float) and np.isnan(v)) else cftime_ns(v) for v in values]


def durations(values) -> list:
    ns = np.asarray(values).astype("timedelta64[ns]")
    return [None if np.isnat(v) else str(int(v.astype(np.int64))) for v in ns]


def zattrs(name: str, array: str) -> dict:
    return json.loads((OUT / f"{name}.zarr" / array / ".zattrs").read_text())


def zarray(name: str, array: str) -> dict:
    return json.loads((OUT / f"{name}.zarr" / array / ".zarray").read_text())


CASES = {}


def record(name: str, array: str = "time", **expected) -> None:
    meta = zarray(name, array)
    CASES[name] = {"array": array, "dtype": meta["dtype"], "attributes": {k: v for k, v in zattrs(name, array).items() if k != "_ARRAY_DIMENSIONS"}, **expected}


def write(name: str, ds: xr.Dataset, encoding=None) -> pathlib.Path:
    path = OUT / f"{name}.zarr"
    ds.to_zarr(path, mode="w", encoding=encoding or {})
    return path


def from_datetimes(name: str, times, encoding=None, with_data=False) -> None:
    """xarray's own encoding of datetime64 values (CFDatetimeCoder), then read back by xarray."""
    coords = {"time": pd.DatetimeIndex(times)}
    data = {"t2m": ("time", np.arange(len(times), dtype="f4") + 270)} if with_data else {}
    path = write(name, xr.Dataset(data, coords=coords), {"time": encoding} if encoding else None)
    record(name, instants=instants(xr.open_zarr(path).time.values))


def from_counts(name: str, counts, attrs: dict, dtype="i8", decode=True, spelled=None) -> None:
    """Counts written as they are with CF attributes; the expected instants are what xarray decodes."""
    path = write(name, xr.Dataset({"time": ("time", np.asarray(counts, dtype=dtype), attrs)}))
    if not decode:
        return
    if spelled is not None:
        # A UDUNITS spelling neither xarray nor cftime reads: the same counts decoded with the unit spelled out.
        ds = xr.decode_cf(xr.Dataset({"time": ("time", np.asarray(counts, dtype=dtype), {**attrs, "units": spelled})}))
        record(name, instants=instants(ds.time.values), decoder=f"xarray, units {spelled!r}")
        return
    try:
        record(name, instants=instants(xr.open_zarr(path, use_cftime=None).time.values), decoder="xarray")
    except ValueError:
        # xarray 2023.01 cannot parse some reference dates cftime reads (signed years): cftime decodes them.
        dates = cftime.num2date(np.asarray(counts), attrs["units"], attrs.get("calendar", "standard"))
        record(name, instants=instants(dates), decoder="cftime")


def refused(name: str, counts, attrs: dict, reason: str, dtype="i8") -> None:
    from_counts(name, counts, attrs, dtype, decode=False)
    record(name, refused=reason)


def model_calendar(name: str, counts, units: str, calendar: str) -> None:
    """A model calendar: xarray's labels, converted to proleptic Gregorian as convert_calendar does."""
    path = write(name, xr.Dataset({"time": ("time", np.asarray(counts, dtype="i8"), {"units": units, "calendar": calendar})}))
    ds = xr.open_zarr(path, use_cftime=True)
    labels = ds.time.values
    for index, date in enumerate(labels):
        try:
            cftime.DatetimeProlepticGregorian(date.year, date.month, date.day)
        except ValueError:
            label = f"{date.year:04d}-{date.month:02d}-{date.day:02d}"
            record(name, missing_label={"index": index, "label": label})
            return
    converted = ds.assign_coords(time=ds.time).convert_calendar("proleptic_gregorian", dim="time", align_on="date" if calendar == "360_day" else None)
    assert converted.time.size == len(counts)
    record(name, instants=instants(converted.time.values))


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)

    # xarray's default encodings of datetime64 data.
    from_datetimes("hourly", pd.date_range("2020-01-01", periods=48, freq="H"), with_data=True)
    from_datetimes("daily", pd.date_range("1999-12-25", periods=30, freq="D"))
    from_datetimes("irregular-us", ["2020-01-01 00:00:00.000001", "2020-01-01 00:00:00.5", "2021-06-30 23:59:59.999999", "1969-12-31 23:59:59.000003"])
    from_datetimes("irregular-ns", ["2020-01-01 00:00:00.000000001", "2020-01-01 12:00:00.123456789", "1900-01-01 00:00:00.000000007"])
    from_datetimes("nat-float", ["2020-01-01", "NaT", "2020-01-03", "NaT"])
    from_datetimes("fill-value", ["2020-01-01", "NaT", "2020-01-03"], {"_FillValue": -1, "dtype": "int64"})
    from_datetimes("int32-minutes", pd.date_range("2000-01-01", periods=10, freq="17min"), {"units": "minutes since 2000-01-01", "dtype": "int32"})
    from_datetimes("chunked", pd.date_range("2010-03-01", periods=100, freq="6H"), {"chunks": (7,)})
    quarters = pd.date_range("2021-01-01", periods=6, freq="250ms").values.copy()
    quarters[2] = np.datetime64("NaT")
    from_datetimes("float-seconds-quarters", quarters, {"units": "seconds since 2021-01-01", "dtype": "float64"})

    # NaT encoded to int64 without a _FillValue: xarray writes numpy's NaT (-2**63). It reads it back as NaT in
    # nanoseconds, but as the reference date in coarser units (xarray 2023.01, where -2**63 of them overflows):
    # there the expected values are the times xarray was given, the NaT null.
    with_nat = ["2020-01-01", "NaT", "2020-01-03 06:00"]
    from_datetimes("nat-int64-ns", with_nat, {"units": "nanoseconds since 2001-01-01", "dtype": "int64"})
    for name, units in {"nat-int64-seconds": "seconds since 2001-01-01", "nat-int64-hours": "hours since 2001-01-01"}.items():
        path = write(name, xr.Dataset(coords={"time": pd.DatetimeIndex(with_nat)}), {"time": {"units": units, "dtype": "int64"}})
        assert zarray(name, "time")["fill_value"] is None and "_FillValue" not in zattrs(name, "time")
        read_back = xr.open_zarr(path).time.values
        assert not np.isnat(read_back[1]), "xarray now reads the NaT back: record what it reads"
        record(name, instants=instants(pd.DatetimeIndex(with_nat).values), decoder=f"the times xarray encoded (it reads the NaT back as {read_back[1]})")

    # Calendars, both sides of 1582-10-15.
    crossing = list(range(-3, 20))
    from_counts("standard-crossing", crossing, {"units": "days since 1582-10-01", "calendar": "standard"})
    from_counts("gregorian-crossing", [-24 * d for d in range(0, 15)], {"units": "hours since 1582-10-16 12:00:00", "calendar": "gregorian"})
    from_counts("standard-default", [0, 365, 36524, 146097, 200000], {"units": "days since 1500-02-28"})
    from_counts("julian-crossing", crossing, {"units": "days since 1582-10-01", "calendar": "julian"})
    from_counts("julian-modern", [0, 1, 59, 60, 366], {"units": "days since 1900-02-28", "calendar": "julian"})
    from_counts("proleptic-crossing", crossing, {"units": "days since 1582-10-01", "calendar": "proleptic_gregorian"})
    refused("standard-gap-reference", [0, 1], {"units": "days since 1582-10-10", "calendar": "standard"}, "the reference date 1582-10-10 does not exist in the standard calendar")
    model_calendar("noleap", [0, 58, 59, 365 * 3 + 58, 365 * 3 + 59, 365 * 100], "days since 2001-01-01", "noleap")
    model_calendar("365-day", [0, 24 * 59, 24 * (365 * 3 + 59) + 6], "hours since 2001-01-01", "365_day")
    model_calendar("all-leap", [0, 366 * 3 + 58, 366 * 3 + 59, 366 * 3 + 60], "days since 2001-01-01", "all_leap")
    model_calendar("all-leap-missing", [0, 58, 59, 60], "days since 2001-01-01", "all_leap")
    model_calendar("366-day-missing", [0, 24 * 59], "hours since 2001-01-01", "366_day")
    model_calendar("360-day", [0, 29, 30, 57, 119, 359, 360 * 4 + 57], "days since 2001-01-01", "360_day")
    model_calendar("360-day-missing", [0, 57, 58, 59], "days since 2001-01-01", "360_day")

    # Reference dates in every accepted form.
    forms = {
        "ref-short": "seconds since 2000-1-1 0:0:0",
        "ref-date-only": "days since 2000-01-01",
        "ref-no-seconds": "hours since 2000-01-01 06:30",
        "ref-t-z": "hours since 2000-01-01T00:00:00Z",
        "ref-utc": "hours since 2000-01-01 00:00:00 UTC",
        "ref-offset-colon": "hours since 2000-01-01 00:00:00 +05:00",
        "ref-offset-compact": "hours since 2000-01-01 00:00:00+0530",
        "ref-offset-negative-t": "minutes since 2000-01-01T12:00:00-05:00",
        "ref-offset-hours": "hours since 2000-01-01 00:00:00 +05",
        "ref-fraction": "seconds since 1970-01-01 00:00:00.5",
        "ref-negative-year": "days since -100-01-01",
        "ref-long-year": "days since 12000-01-01",
        # UDUNITS leaves out the day, or the month and day: the first of the month or year (pandas reads them so).
        "ref-year-month": "days since 2000-03",
        "ref-year-month-unpadded": "hours since 1999-7",
        "ref-year": "minutes since 2001",
    }
    for name, units in forms.items():
        from_counts(name, [0, 1, 2, 1000], {"units": units, "calendar": "proleptic_gregorian"})

    # UDUNITS spellings.
    for name, (units, spelled) in {
        "unit-hrs": ("hrs since 2000-01-01", "hours since 2000-01-01"),
        "unit-d": ("d since 2000-01-01", "days since 2000-01-01"),
        "unit-sec": ("sec since 2000-01-01", "seconds since 2000-01-01"),
        "unit-msec": ("msec since 2000-01-01", "milliseconds since 2000-01-01"),
        "unit-usec": ("usec since 2000-01-01", "microseconds since 2000-01-01"),
        "unit-nsec": ("nsec since 2000-01-01", "nanoseconds since 2000-01-01"),
        "unit-capital": ("Hours since 2000-01-01", "hours since 2000-01-01"),
    }.items():
        from_counts(name, [0, 7, -3], {"units": units}, spelled=spelled)
    # Spellings cftime reads, which xarray decodes through it (pandas does not know them).
    for name, units in {
        "unit-microsecs": "microsecs since 2000-01-01",
        "unit-microsec": "microsec since 2000-01-01",
        "unit-millisecs": "millisecs since 2000-01-01",
        "unit-millisec": "millisec since 2000-01-01",
    }.items():
        from_counts(name, [0, 7, -3], {"units": units})

    # Float counts.
    from_counts("float-hours", [0.0, 0.5, 0.25, 1.75, -0.5, 36.125, np.nan], {"units": "hours since 2000-01-01", "calendar": "proleptic_gregorian"}, dtype="f8")
    from_counts("float32-days", [0.0, 0.5, 1.25, -2.75], {"units": "days since 2000-01-01", "calendar": "proleptic_gregorian"}, dtype="f4")

    # Durations (xarray's timedelta form, the dtype attribute newer xarray writes alongside the units).
    path = write("timedelta", xr.Dataset({"lag": ("x", np.array([1, 2, -3, 86400], dtype="i8"), {"units": "seconds", "dtype": "timedelta64[ns]"})}))
    record("timedelta", array="lag", durations=durations(xr.open_zarr(path).lag.values))
    # xarray 2023.01's own encoding of timedelta64 data: a bare unit (no dtype attribute), float64 with NaN for NaT.
    for name, values in {
        "timedelta-hours-nat": pd.to_timedelta([0, 1, 2, None, 48], unit="h"),
        "timedelta-milliseconds": pd.to_timedelta(["1s", "1.5s", "-250ms", "2 days"]),
        "timedelta-nanoseconds": pd.to_timedelta([1, 1_000_000_007, -3], unit="ns"),
        "timedelta-days": pd.to_timedelta([0, 7, -365], unit="D"),
    }.items():
        path = write(name, xr.Dataset({"lead": ("step", values.values)}))
        assert "dtype" not in zattrs(name, "lead")
        record(name, array="lead", durations=durations(xr.open_zarr(path).lead.values))

    # Durations with NaT encoded to int64 without a _FillValue: numpy's NaT (-2**63), which xarray reads back as NaT.
    for name, units in {"timedelta-nat-int64-ns": "nanoseconds", "timedelta-nat-int64-hours": "hours"}.items():
        path = write(name, xr.Dataset({"lead": ("step", pd.to_timedelta([0, 1, None, 48], unit="h").values)}), {"lead": {"units": units, "dtype": "int64"}})
        assert zarray(name, "lead")["fill_value"] is None and "_FillValue" not in zattrs(name, "lead")
        record(name, array="lead", durations=durations(xr.open_zarr(path).lead.values))

    # Refusals: calendar units are not fixed durations.
    refused("months-since", [0, 1, 2], {"units": "months since 2000-01-01", "calendar": "proleptic_gregorian"}, "months are not a fixed duration")
    refused("years-since", [0, 1, 2], {"units": "years since 2000-01-01"}, "years are not a fixed duration")

    (OUT / "expected.json").write_text(json.dumps(CASES, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
