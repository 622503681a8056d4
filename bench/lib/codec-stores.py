"""Benchmark stores for the codecs real stores use, written by real producers (Debian's /usr/bin/python3).

    /usr/bin/python3 bench/lib/codec-stores.py <folder> <name> <values>

Writes <folder>/<name>.zarr: `values` datetime64[ns] (increasing, with jitter and ~1% NaT) in 1M-value chunks.
v2 stores are written by zarr-python 2.13 (blosc-lz4 with byte shuffle, as zarr 2 and xarray write by default;
zstd; lz4 without blosc); v3 stores are zarr.json written here with chunks encoded by numcodecs (zstd level 0 as zarr-python 3
writes by default; uncompressed; blosc-zstd with byte shuffle, zarr-python 3's BloscCodec; gzip level 5; sharded zstd with
100k-value inner chunks and a crc32c-checked index at the end); 3-D: (200, 100, 1000) in (50, 20, 1000) chunks, zstd.
"""

import json
import os
import struct
import sys

import numpy as np
import numcodecs
from numcodecs import LZ4, Blosc, GZip, Zstd

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "lib"))
from crc32c import crc32c  # noqa: E402  (scripts/lib is on the path only from here)

CHUNK = 1_000_000
NAT = np.iinfo(np.int64).min


def values(n, seed=1):
    rng = np.random.default_rng(seed)
    counts = 1_700_000_000_000_000_000 + np.arange(n, dtype=np.int64) * 1_000_000_000 + rng.integers(-400_000_000, 400_000_000, n)
    counts[rng.random(n) < 0.01] = NAT
    return counts


def zarr_json(shape, chunks, codecs, dims=None):
    meta = {
        "shape": list(shape), "data_type": {"name": "numpy.datetime64", "configuration": {"unit": "ns", "scale_factor": 1}},
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunks)}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": int(NAT), "codecs": codecs, "attributes": {}, "zarr_format": 3, "node_type": "array", "storage_transformers": [],
    }
    if dims:
        meta["dimension_names"] = dims
    return meta


def write_v3(root, shape, chunks, codecs, encode, data, dims=None):
    os.makedirs(root)
    with open(os.path.join(root, "zarr.json"), "w") as f:
        json.dump(zarr_json(shape, chunks, codecs, dims), f)
    grid = [-(-s // c) for s, c in zip(shape, chunks)]
    for index in np.ndindex(*grid):
        box = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(index, chunks, shape))
        chunk = np.full(chunks, NAT, dtype="<i8")
        part = data[box]
        chunk[tuple(slice(0, n) for n in part.shape)] = part
        path = os.path.join(root, "c", *map(str, index))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(encode(chunk))


def sharded_zstd(chunk, inner=100_000):
    zstd = Zstd(level=0)
    parts = [zstd.encode(chunk[i:i + inner].tobytes()) for i in range(0, len(chunk), inner)]
    index, offset = b"", 0
    for part in parts:
        index += struct.pack("<QQ", offset, len(part))
        offset += len(part)
    return b"".join(parts) + index + struct.pack("<I", crc32c(index))


LE = {"name": "bytes", "configuration": {"endian": "little"}}


def main(folder, name, n):
    root = os.path.join(folder, f"{name}.zarr")
    data = values(n)
    if name.startswith("v2-"):
        import zarr
        compressors = {"v2-blosc-lz4": Blosc(cname="lz4", clevel=5, shuffle=Blosc.SHUFFLE), "v2-zstd": Zstd(level=0), "v2-lz4": LZ4(acceleration=1)}
        if name not in compressors:
            raise SystemExit(f"codec-stores.py: unknown store {name}")
        compressor = compressors[name]
        z = zarr.open(root, mode="w", shape=(n,), chunks=(CHUNK,), dtype="<M8[ns]", compressor=compressor, fill_value=None)
        for start in range(0, n, CHUNK):
            z[start:start + CHUNK] = data[start:start + CHUNK].view("M8[ns]")
    elif name == "v3-zstd":
        write_v3(root, (n,), (CHUNK,), [LE, {"name": "zstd", "configuration": {"level": 0, "checksum": False}}], lambda c: Zstd(level=0).encode(c.tobytes()), data)
    elif name == "v3-blosc-zstd":
        blosc = Blosc(cname="zstd", clevel=5, shuffle=Blosc.SHUFFLE)
        codec = {"name": "blosc", "configuration": {"cname": "zstd", "clevel": 5, "shuffle": "shuffle", "typesize": 8, "blocksize": 0}}
        write_v3(root, (n,), (CHUNK,), [LE, codec], lambda c: blosc.encode(c), data)
    elif name == "v3-raw":
        write_v3(root, (n,), (CHUNK,), [LE], lambda c: c.tobytes(), data)
    elif name == "v3-gzip":
        write_v3(root, (n,), (CHUNK,), [LE, {"name": "gzip", "configuration": {"level": 5}}], lambda c: GZip(level=5).encode(c.tobytes()), data)
    elif name == "v3-sharded-zstd":
        inner = [LE, {"name": "zstd", "configuration": {"level": 0, "checksum": False}}]
        codec = {"name": "sharding_indexed", "configuration": {"chunk_shape": [100_000], "codecs": inner, "index_codecs": [LE, {"name": "crc32c"}], "index_location": "end"}}
        write_v3(root, (n,), (CHUNK,), [codec], sharded_zstd, data)
    elif name == "v3-3d-zstd":
        shape = (n // 100_000, 100, 1000)
        write_v3(root, shape, (50, 20, 1000), [LE, {"name": "zstd", "configuration": {"level": 0, "checksum": False}}],
                 lambda c: Zstd(level=0).encode(c.tobytes()), data[:np.prod(shape)].reshape(shape), dims=["time", "y", "x"])
    else:
        raise SystemExit(f"codec-stores.py: unknown store {name}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
