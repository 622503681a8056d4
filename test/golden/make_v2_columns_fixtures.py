"""Zarr v2 groups for companion columns (`--columns`) and index columns (`--index`), and the values an export must
give, by numpy.

Regenerate with:

    python3 test/golden/make_v2_columns_fixtures.py

It needs only python3 and numpy (no zarr-python): the stores are laid out as zarr-python 2 writes them, `.zarray`
JSON beside chunk files. It replaces test/fixtures/v2-columns/ and writes test/fixtures/v2-columns/expected.json.
The output is deterministic.

- obs.zarr: one 1-D group of N rows, one array per dtype (both byte orders, zlib and raw chunks, ragged last
  chunks), each chunked its own way and each with one missing chunk, which must read as its fill value: NaN,
  -Infinity, an int64 and a uint64 past 2**53, true, a unicode and an object string (base64 of its vlen-utf8
  encoding, as zarr-python 2 writes it). `nofill` has `fill_value: null` and a missing chunk (an error to read);
  the other arrays hold dtypes a column cannot have (only their `.zarray`, no chunks).
- default-fill.zarr: object strings with zarr-python 2's default `fill_value` 0 (no string: it reads a missing
  chunk as the integer 0): every chunk present, `name` is a column; `gap`, with a chunk missing, is refused.
- grid.zarr: a 2-D group with `_ARRAY_DIMENSIONS`, C and F order arrays with different chunks, F order strings.

Expected values (`ravel()` in C order, i.e. the export's rows): integers as decimal strings, floats as Python's
`repr` ("nan", "inf", "-inf" for the specials), booleans and strings as JSON; times as int64 strings in the Arrow
unit of `--unit auto` (null for NaT), timedeltas likewise. For the grid, "index" is `np.indices(shape)` flattened.
"""

import base64
import json
import pathlib
import shutil
import struct
import zlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "v2-columns"
NAT = np.iinfo(np.int64).min
ZLIB = {"id": "zlib", "level": 1}
VLEN_UTF8 = {"id": "vlen-utf8"}


def write_json(path: pathlib.Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=4, sort_keys=True) + "\n")


def vlen_utf8(items) -> bytes:
    """numcodecs' VLenUTF8 layout: the item count, then each item's byte length and UTF-8 bytes (uint32 LE)."""
    out = [struct.pack("<I", len(items))]
    for item in items:
        data = item.encode("utf-8")
        out.append(struct.pack("<I", len(data)) + data)
    return b"".join(out)


def chunk_regions(shape, chunks):
    counts = [-(-n // c) for n, c in zip(shape, chunks)]
    for coords in np.ndindex(*counts):
        yield coords, tuple(slice(c * n, min((c + 1) * n, size)) for c, n, size in zip(coords, chunks, shape))


def write_zarray(folder: pathlib.Path, shape, chunks, dtype, fill_value_json: str, *, order="C", compressor=None,
                 filters=None, attrs=None) -> None:
    """`.zarray` with the fill value as literal JSON text, so that integers past 2**53 are written exactly."""
    meta = {"zarr_format": 2, "shape": list(shape), "chunks": list(chunks), "dtype": dtype, "compressor": compressor,
            "fill_value": "@FILL@", "order": order, "filters": filters}
    folder.mkdir(parents=True, exist_ok=True)
    text = json.dumps(meta, indent=4, sort_keys=True).replace('"@FILL@"', fill_value_json)
    (folder / ".zarray").write_text(text + "\n")
    if attrs is not None:
        write_json(folder / ".zattrs", attrs)


def write_array(root: pathlib.Path, path: str, arr: np.ndarray, dtype: str, chunks, fill_value_json: str, *,
                padding, order="C", compressor=None, filters=None, attrs=None, missing=()) -> None:
    """Writes the array's chunks; edge chunks are padded to the full chunk shape with `padding`, a value no test
    expects, as zarr-python 2 pads them (a reader must cut it off)."""
    folder = root / path
    write_zarray(folder, arr.shape, chunks, dtype, fill_value_json, order=order, compressor=compressor,
                 filters=filters, attrs=attrs)
    for coords, region in chunk_regions(arr.shape, chunks):
        if coords in missing:
            continue
        part = arr[region]
        block = np.full(chunks, padding, dtype=arr.dtype)
        block[tuple(slice(0, s) for s in part.shape)] = part
        if dtype == "|O":
            raw = vlen_utf8(block.ravel(order=order).tolist())
        else:
            raw = np.asarray(block, dtype=np.dtype(dtype)).tobytes(order=order)
        if compressor is not None:
            raw = zlib.compress(raw, compressor["level"])
        (folder / ".".join(str(c) for c in coords)).write_bytes(raw)


def fill_missing(arr: np.ndarray, chunks, missing, value) -> np.ndarray:
    """What a reader must see: the array with its missing chunks holding the fill value."""
    seen = arr.copy()
    for coords, region in chunk_regions(arr.shape, chunks):
        if coords in missing:
            seen[region] = value
    return seen


def expected_values(arr: np.ndarray) -> list:
    flat = arr.ravel()
    kind = arr.dtype.kind
    if kind in "mM":
        # Only ms and ns here: the Arrow unit of `--unit auto` (and Parquet's) is then the stored unit.
        assert np.datetime_data(arr.dtype)[0] in ("ms", "ns")
        return [None if v == NAT else str(v) for v in flat.view("i8").tolist()]
    if kind in "iu":
        return [str(int(v)) for v in flat.tolist()]
    if kind == "f":
        return [repr(float(v)) for v in flat.tolist()]
    if kind == "b":
        return [bool(v) for v in flat.tolist()]
    return [str(v) for v in flat.tolist()]


def consolidate(group: pathlib.Path) -> None:
    """`.zmetadata` as zarr-python 2's consolidate_metadata writes it; Python writes big integers exactly."""
    metadata = {}
    for path in sorted(group.rglob(".z*")):
        if path.name != ".zmetadata":
            metadata[path.relative_to(group).as_posix()] = json.loads(path.read_text())
    write_json(group / ".zmetadata", {"metadata": metadata, "zarr_consolidated_format": 1})


def make_obs(expected: dict) -> None:
    root = OUT / "obs.zarr"
    write_json(root / ".zgroup", {"zarr_format": 2})
    write_json(root / ".zattrs", {"title": "station observations"})
    n = 23
    i = np.arange(n)
    arrays = {}

    def column(name, arr, dtype, chunks, fill, fill_json, missing, **kwargs):
        seen = fill_missing(arr, chunks, missing, fill)
        write_array(root, name, seen, dtype, chunks, fill_json, missing=missing,
                    attrs={"_ARRAY_DIMENSIONS": ["obs"]}, **kwargs)
        arrays[name] = {"dtype": dtype, "values": expected_values(seen)}

    time = (np.datetime64("2023-05-01T00:00:00", "ns") + i * np.timedelta64(3_600_000_000_123, "ns")).astype("M8[ns]")
    time[[4, 17]] = np.datetime64("NaT")
    column("time", time, "<M8[ns]", [5], np.datetime64("NaT"), str(NAT), {(2,)}, padding=np.datetime64(0, "ns"),
           compressor=ZLIB)
    column("temperature", i * 0.1 - 1.5, "<f8", [7], np.nan, '"NaN"', {(1,)}, padding=1e300, compressor=ZLIB)
    pressure = (1013.25 - i * 0.3).astype("f4")
    pressure[3] = np.inf
    column("pressure", pressure, ">f4", [6], -np.inf, '"-Infinity"', {(2,)}, padding=np.float32(7))
    column("station", (i * 7919 % 1000 - 500).astype("i4"), "<i4", [10], -1, "-1", {(1,)}, padding=99999,
           compressor=ZLIB)
    column("level", (i * 1000 - 11000).astype("i2"), ">i2", [8], 0, "0", {(0,)}, padding=1)
    column("small", (i * 11 % 256).astype("u1"), "|u1", [12], 0, "0", {(1,)}, padding=1)
    big = (np.uint64(2**64 - 1) - i.astype("u8") * np.uint64(2**40))
    column("count", big, ">u8", [4], np.uint64(2**64 - 1), str(2**64 - 1), {(3,)}, padding=np.uint64(5))
    delta = (i.astype("i8") - 11) * np.int64(2**61 // 11)
    column("offset", delta, "<i8", [8], np.int64(2**53 + 1), str(2**53 + 1), {(1,)}, padding=np.int64(3),
           compressor=ZLIB)
    column("flag", i % 3 == 0, "|b1", [9], True, "true", {(1,)}, padding=False)
    names = np.array([f"s{k}" if k % 5 else "Zürich𝄞" for k in range(n)], dtype="<U7")
    column("name", names, "<U7", [8], "n/a", '"n/a"', {(1,)}, padding="~pad~")
    labels = np.array(["" if k % 4 == 0 else f"label {k} – ✓" for k in range(n)], dtype=object)
    fill_label = base64.standard_b64encode(vlen_utf8(["?"])).decode("ascii")
    column("label", labels, "|O", [6], "?", json.dumps(fill_label), {(2,)}, padding="~pad~", filters=[VLEN_UTF8],
           compressor=ZLIB)
    lag = (i.astype("i8") * 1500 - 4000).astype("m8[ms]")
    lag[9] = np.timedelta64("NaT")
    column("lag", lag, "<m8[ms]", [5], np.timedelta64("NaT"), str(NAT), {(3,)}, padding=np.timedelta64(0, "ms"))

    # fill_value null: the export works until the missing chunk is needed, which is an error naming it.
    write_array(root, "nofill", (i * 2).astype("<i4"), "<i4", [10], "null", padding=0, missing={(1,)})

    # Dtypes a column cannot have: the metadata is enough to be refused.
    for name, dtype, filters in [("half", "<f2", None), ("complex", "<c8", None), ("raw", "|S4", None),
                                 ("blobs", "|O", [{"id": "vlen-bytes"}]), ("pickled", "|O", [{"id": "pickle"}]),
                                 ("native", "=i4", None), ("record", [["a", "<i4"]], None)]:
        write_zarray(root / name, [n], [n], dtype, "null", filters=filters)

    consolidate(root)
    expected["obs.zarr"] = {"rows": n, "arrays": arrays}


def make_grid(expected: dict) -> None:
    root = OUT / "grid.zarr"
    write_json(root / ".zgroup", {"zarr_format": 2})
    shape = (5, 7)
    y, x = np.indices(shape)
    dims = {"_ARRAY_DIMENSIONS": ["y", "x"]}
    arrays = {}

    def column(name, arr, dtype, chunks, fill, fill_json, missing, **kwargs):
        seen = fill_missing(arr, chunks, missing, fill)
        write_array(root, name, seen, dtype, chunks, fill_json, missing=missing, attrs=dims, **kwargs)
        arrays[name] = {"dtype": dtype, "values": expected_values(seen)}

    time = (np.datetime64("2020-01-01T00:00:00.000", "ms") + (y * 7 + x) * np.timedelta64(90_061_001, "ms"))
    time[2, 3] = np.datetime64("NaT")
    column("time", time, "<M8[ms]", [2, 3], np.datetime64("NaT"), str(NAT), set(), padding=np.datetime64(0, "ms"),
           compressor=ZLIB)
    column("temp", y * 10.0 + x / 4, ">f8", [3, 2], np.nan, '"NaN"', {(1, 1)}, padding=-1.0, order="F",
           compressor=ZLIB)
    column("code", (y * 100 + x).astype("i2"), "<i2", [2, 3], -7, "-7", {(0, 2)}, padding=1, order="F")
    tags = np.array([[f"{chr(97 + a)}{b}" for b in range(shape[1])] for a in range(shape[0])], dtype=">U2")
    column("tag", tags, ">U2", [3, 4], "", '""', {(1, 0)}, padding="zz", order="F")
    notes = np.array([[f"n{a}.{b}" * (b % 3) for b in range(shape[1])] for a in range(shape[0])], dtype=object)
    column("note", notes, "|O", [2, 2], "", json.dumps(base64.standard_b64encode(vlen_utf8([""])).decode("ascii")),
           {(2, 1)}, padding="~pad~", order="F", filters=[VLEN_UTF8])

    expected["grid.zarr"] = {"shape": list(shape), "index": [y.ravel().tolist(), x.ravel().tolist()],
                             "arrays": arrays}


def make_default_fill_strings(expected: dict) -> None:
    """Object strings as zarr-python 2.13 writes them by default: `fill_value` 0, which it reads back for a missing
    chunk as the integer 0 among the strings (`z[:]` gives `['a', 'bb', 0, 0]`), so no string fill value."""
    root = OUT / "default-fill.zarr"
    write_json(root / ".zgroup", {"zarr_format": 2})
    n = 6
    arrays = {}
    time = np.datetime64("2024-02-28T00:00:00", "ns") + np.arange(n) * np.timedelta64(86_400_000_000_000, "ns")
    write_array(root, "time", time, "<M8[ns]", [3], str(NAT), padding=np.datetime64(0, "ns"),
                attrs={"_ARRAY_DIMENSIONS": ["obs"]})
    arrays["time"] = {"dtype": "<M8[ns]", "values": expected_values(time)}
    names = np.array(["a", "bb", "", "Zürich", "d e", "✓"], dtype=object)
    write_array(root, "name", names, "|O", [4], "0", padding="~pad~", filters=[VLEN_UTF8],
                attrs={"_ARRAY_DIMENSIONS": ["obs"]})
    arrays["name"] = {"dtype": "|O", "values": expected_values(names)}
    # The same with its second chunk missing: zarr-python would put the integer 0 there; the export refuses.
    write_array(root, "gap", names, "|O", [3], "0", padding="~pad~", filters=[VLEN_UTF8], missing={(1,)},
                attrs={"_ARRAY_DIMENSIONS": ["obs"]})
    consolidate(root)
    expected["default-fill.zarr"] = {"rows": n, "arrays": arrays}


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    expected = {"numpy": np.__version__}
    make_obs(expected)
    make_grid(expected)
    make_default_fill_strings(expected)
    write_json(OUT / "expected.json", expected)


if __name__ == "__main__":
    main()
