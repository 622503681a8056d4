"""Zarr v3 stores whose codec chains put `transpose` before `sharding_indexed`, or inside a shard, and the values
numpy gives for them (test/transpose-sharding.test.ts).

    python3 test/golden/make_transpose_sharding_fixtures.py

numpy only (no Zarr library writes these chains the same way everywhere): the store bytes are written here, by hand,
as the Zarr v3 spec's codec chain says. A chain is applied to each chunk (a shard) in order: `transpose` with
`order` gives `chunk.transpose(order)`, so the `sharding_indexed` codec after it receives the transposed shard: its
`chunk_shape`, its inner chunk grid and its index are in the transposed axes; inside each inner chunk the inner
codecs run in turn (a `transpose` there transposes the inner chunk again, then `bytes` writes C order). Inner
chunks that are all fill are not written (index entry 2^64-1, 2^64-1), and neither is a shard whose every value is
fill. The index (offset, nbytes per inner chunk, uint64 little endian, C order of the transposed inner grid) is
followed by its crc32c, at the end of the shard or at its start as each case says.

Writes test/fixtures/transpose-sharding/<case>.zarr and expected.json: for each case the array's shape and its
values in C order (numpy `ravel()`), int64 counts as strings, NaT as null.
"""

import gzip
import json
import os
import shutil
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "lib"))
from crc32c import crc32c  # noqa: E402  (scripts/lib is on the path only from here)

OUT = os.path.join(HERE, "..", "fixtures", "transpose-sharding")
NAT = np.iinfo(np.int64).min
ABSENT = 2**64 - 1


def encode_inner(chunk, codecs):
    """One inner chunk through its codecs: transposes, bytes (either endian), gzip."""
    data = chunk
    out = None
    for codec in codecs:
        name, conf = codec["name"], codec.get("configuration", {})
        if name == "transpose":
            data = data.transpose(conf["order"])
        elif name == "bytes":
            dtype = ">i8" if conf.get("endian") == "big" else "<i8"
            out = np.ascontiguousarray(data).astype(dtype).tobytes()
        elif name == "gzip":
            out = gzip.compress(out, compresslevel=conf.get("level", 5), mtime=0)
        else:
            raise ValueError(name)
    return out


def encode_shard(shard, sharding):
    """A shard as `sharding_indexed` receives it (already transposed by any codec before it)."""
    inner_shape = sharding["chunk_shape"]
    grid = [s // c for s, c in zip(shard.shape, inner_shape)]
    index = np.full(grid + [2], ABSENT, dtype="<u8")
    parts = []
    for coords in np.ndindex(*grid):
        box = tuple(slice(c * n, (c + 1) * n) for c, n in zip(coords, inner_shape))
        inner = shard[box]
        if np.all(inner == NAT):
            continue
        parts.append((coords, encode_inner(inner, sharding["codecs"])))
    index_bytes_length = index.size * 8 + 4
    offset = index_bytes_length if sharding["index_location"] == "start" else 0
    body = b""
    for coords, encoded in parts:
        index[coords] = (offset, len(encoded))
        body += encoded
        offset += len(encoded)
    raw = index.tobytes()
    index_bytes = raw + struct.pack("<I", crc32c(raw))
    return index_bytes + body if sharding["index_location"] == "start" else body + index_bytes


def write_case(name, data, shard_shape, before, sharding):
    folder = os.path.join(OUT, f"{name}.zarr")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    rank = data.ndim
    codecs = before + [
        {
            "name": "sharding_indexed",
            "configuration": {
                "chunk_shape": sharding["chunk_shape"],
                "codecs": sharding["codecs"],
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
                "index_location": sharding["index_location"],
            },
        }
    ]
    metadata = {
        "zarr_format": 3,
        "node_type": "array",
        "shape": list(data.shape),
        "data_type": {"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 1}},
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": shard_shape}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": int(NAT),
        "codecs": codecs,
        "attributes": {},
    }
    with open(os.path.join(folder, "zarr.json"), "w") as f:
        json.dump(metadata, f, indent=2)
    shards = [-(-s // c) for s, c in zip(data.shape, shard_shape)]
    for coords in np.ndindex(*shards):
        shard = np.full(shard_shape, NAT, dtype=np.int64)
        box = tuple(slice(c * n, min((c + 1) * n, s)) for c, n, s in zip(coords, shard_shape, data.shape))
        part = data[box]
        shard[tuple(slice(0, n) for n in part.shape)] = part
        if np.all(shard == NAT):
            continue
        for codec in before:
            shard = shard.transpose(codec["configuration"]["order"])
        key = os.path.join(folder, "c", *map(str, coords))
        os.makedirs(os.path.dirname(key), exist_ok=True)
        with open(key, "wb") as f:
            f.write(encode_shard(shard, sharding))
    flat = data.ravel()
    return {"shape": list(data.shape), "values": [None if v == NAT else str(v) for v in flat.tolist()], "rank": rank}


def times(shape, seed):
    rng = np.random.default_rng(seed)
    data = 1_600_000_000 + rng.integers(0, 10**8, size=shape, dtype=np.int64)
    data[rng.random(shape) < 0.1] = NAT
    return data


def main():
    os.makedirs(OUT, exist_ok=True)
    LE = {"name": "bytes", "configuration": {"endian": "little"}}
    BE = {"name": "bytes", "configuration": {"endian": "big"}}
    expected = {}

    # transpose before sharding: the shard [4, 6] is sharded as [6, 4], in inner chunks [3, 2] of that (the
    # array's [2, 3]); the last shards along both axes are partial. The shard at [1, 0] is all NaT: not written.
    data = times((7, 10), 1)
    data[4:7, 0:6] = NAT
    expected["outer-transpose"] = write_case("outer-transpose", data, [4, 6], [{"name": "transpose", "configuration": {"order": [1, 0]}}], {"chunk_shape": [3, 2], "codecs": [LE], "index_location": "end"})

    # transpose inside the shard only, gzip after it, the index at the start.
    data = times((9, 5), 2)
    data[0:3, 0:2] = NAT
    expected["inner-transpose"] = write_case("inner-transpose", data, [6, 4], [], {"chunk_shape": [3, 2], "codecs": [{"name": "transpose", "configuration": {"order": [1, 0]}}, LE, {"name": "gzip", "configuration": {"level": 1}}], "index_location": "start"})

    # 3-D, both: the shard [4, 6, 4] transposed by [2, 0, 1] is [4, 4, 6], cut in inner chunks [2, 2, 3] (the
    # array's [2, 3, 2]), each transposed again by [1, 2, 0] and written big endian.
    data = times((5, 7, 6), 3)
    expected["both-transposes"] = write_case("both-transposes", data, [4, 6, 4], [{"name": "transpose", "configuration": {"order": [2, 0, 1]}}], {"chunk_shape": [2, 2, 3], "codecs": [{"name": "transpose", "configuration": {"order": [1, 2, 0]}}, BE], "index_location": "end"})

    # Two transposes before sharding, composed: [1, 2, 0] then [2, 0, 1] is the identity.
    data = times((4, 4, 6), 4)
    expected["two-transposes"] = write_case("two-transposes", data, [4, 4, 6], [{"name": "transpose", "configuration": {"order": [1, 2, 0]}}, {"name": "transpose", "configuration": {"order": [2, 0, 1]}}], {"chunk_shape": [2, 4, 3], "codecs": [LE], "index_location": "end"})

    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f)


main()
