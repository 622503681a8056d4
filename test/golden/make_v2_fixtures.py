"""Zarr v2 test stores of numpy.datetime64 / timedelta64 arrays, and the values an export must give, by numpy.

Regenerate with:

    python3 test/golden/make_v2_fixtures.py

It needs only python3 and numpy (zarr-python is not used: the stores are written the way zarr-python 2 lays
them out, `.zarray` JSON beside chunk files, so that every byte is known). It replaces test/fixtures/v2/ and
writes test/fixtures/v2/expected.json. The output is deterministic.

Each store is one array (or, for the groups, a tree) chosen for one thing a v2 reader must get right:
byte order (`<`, `>`, `|`), C and F order, zlib-compressed and raw chunks, ragged edge chunks, both dimension
separators, missing chunks filled with the exact fill value (an integer past 2**53, NaT as a number and as the
string "NaT", and `null`, which in v2 means "no fill value"), the generic `<M8`, timedelta `<m8`, a 0-d array,
and groups with `.zgroup`, `.zattrs` and consolidated `.zmetadata`.

Expected values are numpy's: `arr.ravel().astype(<dtype in the Arrow unit>)` viewed as int64, as decimal strings,
NaT as null. "arrow_unit" is the unit of an export with `--unit auto`; "parquet_unit"/"parquet" the same for
Parquet, which has no seconds unit (seconds become milliseconds).
"""

import json
import pathlib
import shutil
import zlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "v2"
NAT = np.iinfo(np.int64).min

# The Arrow unit of `--unit auto` for each numpy unit (the README's rule).
AUTO_UNIT = {"Y": "s", "M": "s", "W": "s", "D": "s", "h": "s", "m": "s", "s": "s", "ms": "ms", "us": "us",
             "ns": "ns", "ps": "ns", "fs": "ns", "as": "ns", "generic": "s"}


def dtype_unit(dtype: np.dtype) -> str:
    unit, _ = np.datetime_data(dtype)
    return unit


def int64_strings(values: np.ndarray) -> list:
    ints = values.view("i8")
    return [None if v == NAT else str(int(v)) for v in ints.tolist()]


def expected_in(arr: np.ndarray, unit: str) -> list:
    kind = "M8" if arr.dtype.kind == "M" else "m8"
    flat = arr.ravel()
    if dtype_unit(arr.dtype) == "generic":
        # numpy cannot cast a generic datetime to a unit unless it is NaT; only NaT is meaningful there.
        assert np.isnat(flat).all()
        return [None] * flat.size
    return int64_strings(flat.astype(f"{kind}[{unit}]"))


def write_json(path: pathlib.Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=4, sort_keys=True) + "\n")


def chunk_grid(shape, chunks):
    counts = [-(-n // c) for n, c in zip(shape, chunks)]
    return np.ndindex(*counts) if shape else iter([()])


def write_array(root: pathlib.Path, path: str, arr: np.ndarray, *, chunks, dtype: str, fill_value_json: str,
                order="C", compressor=None, separator=None, attrs=None, missing=(), extra=None) -> dict:
    """Writes `.zarray` (fill value as literal JSON text, so ints past 2**53 are exact) and the chunk files.

    Edge chunks are padded to the full chunk shape, as zarr-python 2 writes them. The padding is a value that no
    test expects (a reader must not let it through)."""
    folder = root / path if path else root
    folder.mkdir(parents=True, exist_ok=True)
    stored = np.dtype(dtype)
    meta = {
        "zarr_format": 2,
        "shape": list(arr.shape),
        "chunks": list(chunks),
        "dtype": dtype,
        "compressor": compressor,
        "fill_value": "@FILL@",
        "order": order,
        "filters": None,
    }
    if separator is not None:
        meta["dimension_separator"] = separator
    if extra:
        meta.update(extra)
    text = json.dumps(meta, indent=4, sort_keys=True).replace('"@FILL@"', fill_value_json)
    (folder / ".zarray").write_text(text + "\n")
    if attrs is not None:
        write_json(folder / ".zattrs", attrs)
    sep = separator or "."
    for coords in chunk_grid(arr.shape, chunks):
        if coords in missing:
            continue
        block = np.full(chunks, np.int64(123456789), dtype="i8").view(arr.dtype)
        sel = tuple(slice(c * n, min((c + 1) * n, size)) for c, n, size in zip(coords, chunks, arr.shape))
        part = arr[sel]
        block[tuple(slice(0, s) for s in part.shape)] = part
        raw = np.asarray(block, dtype=stored).tobytes(order=order)
        if compressor is not None:
            assert compressor["id"] == "zlib"
            raw = zlib.compress(raw, compressor["level"])
        key = sep.join(str(c) for c in coords) if coords else "0"
        target = folder / key
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(raw)
    return meta


def dt(values, dtype):
    return np.array(values, dtype=dtype)


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    expected = {"numpy": np.__version__, "arrays": {}}

    def record(store: str, path: str, arr: np.ndarray, dtype: str, **kwargs) -> None:
        missing_values = kwargs.pop("missing_values", None)
        write_array(OUT / store, path, arr, dtype=dtype, **kwargs)
        unit = AUTO_UNIT[dtype_unit(arr.dtype)]
        parquet_unit = "ms" if unit == "s" else unit
        expected["arrays"][f"{store}/{path}" if path else store] = {
            "dtype": dtype,
            "shape": list(arr.shape),
            "arrow_unit": unit,
            "values": expected_in(arr, unit),
            "parquet_unit": parquet_unit,
            "parquet": expected_in(arr, parquet_unit),
            **({"note": missing_values} if missing_values else {}),
        }

    zlib1 = {"id": "zlib", "level": 1}

    # 1-D, little endian, raw chunks, ragged last chunk, NaT inside, default "." separator (no key written).
    ns = dt(["2005-02-03T04:05:06.123456789", "NaT", "1970-01-01", "1969-12-31T23:59:59.999999999",
             "2262-04-11T23:47:16.854775807", "1677-09-21T00:12:43.145224193", "2000-01-01", "NaT",
             "2020-02-29T12:00", "1999-12-31T23:59:59"], "M8[ns]")
    record("ns-raw.zarr", "", ns, "<M8[ns]", chunks=[4], fill_value_json=str(NAT))

    # 2-D, big endian, Fortran order, zlib, "/" separator, scale factor 10, ragged in both axes.
    base = np.datetime64("2021-03-04T05:06:07.89", "10us")
    tens = (base + np.arange(35).reshape(5, 7) * np.timedelta64(123456789, "10us")).astype("M8[10us]")
    tens[1, 2] = np.datetime64("NaT")
    tens[4, 6] = np.datetime64("NaT")
    record("be-10us-zlib-F.zarr", "", tens, ">M8[10us]", chunks=[2, 3], fill_value_json=str(NAT), order="F",
           compressor=zlib1, separator="/")

    # 2-D, C order, zlib, "." separator, seconds, .zattrs with dimension names.
    secs = (np.datetime64("1950-06-01T00:00:00", "s") + np.arange(15).reshape(3, 5) * np.timedelta64(86399, "s"))
    record("s-2d-dot.zarr", "", secs, "<M8[s]", chunks=[2, 2], fill_value_json=str(NAT), compressor=zlib1,
           separator=".", attrs={"_ARRAY_DIMENSIONS": ["day", "station"]})

    # A missing chunk takes an integer fill value past 2**53, which a double would round (...993 -> ...992).
    big = 2**53 + 1
    past = dt([1, 2, big, big, 5, NAT], "i8").view("M8[us]")
    record("fill-past-2-53.zarr", "", past, "<M8[us]", chunks=[2], fill_value_json=str(big), missing={(1,)},
           missing_values="chunk 1 is missing: both values are the fill value 9007199254740993")

    # `|` byte order, days, fill value the string "NaT", chunk 1 missing.
    days = dt(["2005-02-03", "1900-01-01", "NaT", "NaT", "2100-12-31"], "M8[D]")
    record("days-nat-string.zarr", "", days, "|M8[D]", chunks=[2], fill_value_json='"NaT"', missing={(1,)})

    # Generic (no unit): only NaT; chunk 1 missing (fill NaT as a number).
    generic = np.full(4, np.datetime64("NaT"), dtype="M8")
    record("generic-nat.zarr", "", generic, "<M8", chunks=[2], fill_value_json=str(NAT), missing={(1,)})

    # timedelta64: milliseconds (zlib, negative values), and big-endian seconds (Parquet writes ms).
    tdms = dt([0, -1, 1500, NAT, 86_400_000 * 365, -(2**62), 7], "m8[ms]")
    record("timedelta-ms.zarr", "", tdms, "<m8[ms]", chunks=[3], fill_value_json=str(NAT), compressor=zlib1)
    tds = dt([3600, NAT, -59, 10**12], "m8[s]")
    record("timedelta-s-be.zarr", "", tds, ">m8[s]", chunks=[4], fill_value_json=str(NAT))

    # fill_value null: no fill value. With every chunk present it exports; with one missing it cannot.
    ms = dt(["2024-01-01T00:00:00.001", "NaT", "2024-01-02", "2024-01-03T10:00"], "M8[ms]")
    record("null-fill-complete.zarr", "", ms, "<M8[ms]", chunks=[2], fill_value_json="null")
    record("null-fill-missing.zarr", "", ms, "<M8[ms]", chunks=[2], fill_value_json="null", missing={(1,)})

    # A 0-d array: its one chunk is the key "0".
    scalar = np.array(np.datetime64("2001-09-09T01", "h"))
    record("scalar.zarr", "", scalar, "<M8[h]", chunks=[], fill_value_json=str(NAT))

    # A group holding one datetime64 array beside a float array, with consolidated metadata.
    group = OUT / "group.zarr"
    write_json(group / ".zgroup", {"zarr_format": 2})
    write_json(group / ".zattrs", {"title": "station"})
    write_json(group / "obs" / ".zgroup", {"zarr_format": 2})
    minutes = (np.datetime64("2022-12-31T23:00", "m") + np.arange(9) * np.timedelta64(7, "m"))
    minutes[4] = np.datetime64("NaT")
    record("group.zarr", "obs/time", minutes, "<M8[m]", chunks=[4], fill_value_json=str(NAT), compressor=zlib1,
           attrs={"_ARRAY_DIMENSIONS": ["time"]})
    floats = OUT / "group.zarr" / "obs" / "value"
    floats.mkdir(parents=True)
    (floats / ".zarray").write_text(json.dumps({"zarr_format": 2, "shape": [9], "chunks": [9], "dtype": "<f8",
                                               "compressor": None, "fill_value": "NaN", "order": "C",
                                               "filters": None}, indent=4, sort_keys=True) + "\n")
    (floats / "0").write_bytes(np.linspace(0, 1, 9).astype("<f8").tobytes())
    consolidate(group)

    # A group with two datetime64 arrays: which one to export must be asked for.
    two = OUT / "two-times.zarr"
    write_json(two / ".zgroup", {"zarr_format": 2})
    record("two-times.zarr", "a", days, "<M8[D]", chunks=[5], fill_value_json=str(NAT))
    record("two-times.zarr", "b", ms, "<M8[ms]", chunks=[4], fill_value_json=str(NAT))

    write_json(OUT / "expected.json", expected)


def consolidate(group: pathlib.Path) -> None:
    """`.zmetadata` as zarr-python 2's consolidate_metadata writes it: every .zgroup/.zarray/.zattrs by key.

    The `.zarray` texts are embedded as parsed JSON; their fill values here fit a double."""
    metadata = {}
    for path in sorted(group.rglob(".z*")):
        if path.name == ".zmetadata":
            continue
        metadata[path.relative_to(group).as_posix()] = json.loads(path.read_text())
    write_json(group / ".zmetadata", {"metadata": metadata, "zarr_consolidated_format": 1})


if __name__ == "__main__":
    main()
