"""C-backed reference for the codec benchmarks: the same work as an export, with numcodecs' C decoders in threads.

    /usr/bin/python3 bench/reference-codecs.py <store.zarr> <output> [--threads 2] [--order C|chunk] [--zarr-python]
                                               [--range LOW HIGH]

Reads a datetime64[ns] store of bench/lib/codec-stores.py (Zarr v2 .zarray, or v3 zarr.json with bytes, zstd, blosc,
gzip, or sharding_indexed of those), decodes its chunks with numcodecs in a pool of --threads threads (numcodecs
releases the GIL while it decodes; shards are read once and their inner chunks decoded in the pool), finds NaT,
builds the validity bitmap (LSB first, as Arrow) and writes values then bitmap per chunk (1-D), or per band of rows
in C order, or per chunk with `--order chunk`, with one int64 index column per dimension (3-D), then fsyncs.
--range LOW HIGH (int64 ns) keeps the times in [LOW, HIGH) of a sorted 1-D array, as `--start`/`--end` do: the chunks
that may hold them found by bisection on chunk ends (a shard's first and last inner chunks), those read, NaT and times
out of range left out. --zarr-python reads the chunks with zarr-python 2.13 (`z[start:end]`, one thread) instead. With BENCH_RSS_FILE set,
writes there its peak RSS in KiB, user and system CPU seconds (as `/usr/bin/time -f "%M %U %S"` would).
"""

import collections
import json
import os
import struct
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import numcodecs

from report_rss import report_rss

NAT = np.iinfo(np.int64).min
IN_FLIGHT = 4


def v3_decoder(codecs):
    """The bytes-to-bytes decode of a v3 codec list, and the sharding configuration if any."""
    steps = []
    for codec in codecs:
        name, config = codec["name"], codec.get("configuration", {})
        if name == "bytes":
            continue
        if name == "sharding_indexed":
            return None, config
        if name == "zstd":
            steps.append(numcodecs.Zstd(level=config.get("level", 0)).decode)
        elif name == "blosc":
            steps.append(numcodecs.Blosc(cname=config["cname"]).decode)
        elif name == "gzip":
            steps.append(numcodecs.GZip().decode)
        elif name == "zlib":
            steps.append(numcodecs.Zlib().decode)
        elif name == "crc32c":
            steps.append(lambda b: bytes(b)[:-4])
        else:
            raise SystemExit(f"reference-codecs.py: codec {name} not handled")

    def decode(data):
        for step in reversed(steps):
            data = step(data)
        return data
    return decode, None


class Store:
    def __init__(self, root):
        self.root = root
        if os.path.exists(os.path.join(root, "zarr.json")):
            with open(os.path.join(root, "zarr.json")) as f:
                meta = json.load(f)
            self.shape, self.chunks = meta["shape"], meta["chunk_grid"]["configuration"]["chunk_shape"]
            self.decode, self.sharding = v3_decoder(meta["codecs"])
            self.key = lambda index: os.path.join(root, "c", *map(str, index))
        else:
            with open(os.path.join(root, ".zarray")) as f:
                meta = json.load(f)
            self.shape, self.chunks = meta["shape"], meta["chunks"]
            codec = numcodecs.get_codec(meta["compressor"]) if meta["compressor"] else None
            self.decode = codec.decode if codec else (lambda b: b)
            self.sharding = None
            self.key = lambda index: os.path.join(root, ".".join(map(str, index)))
        self.grid = [-(-s // c) for s, c in zip(self.shape, self.chunks)]

    def read_chunk(self, index):
        """A chunk's values (full chunk shape), decoded on the calling (pool) thread."""
        with open(self.key(index), "rb") as f:
            data = f.read()
        return np.frombuffer(self.decode(data), dtype="<i8").reshape(self.chunks)

    def shard_parts(self, index):
        """A shard read at once, and its inner chunks' encoded bytes."""
        inner_decode, _ = v3_decoder(self.sharding["codecs"])
        n = int(np.prod(self.chunks) // np.prod(self.sharding["chunk_shape"]))
        with open(self.key(index), "rb") as f:
            data = f.read()
        table = np.frombuffer(data[len(data) - 4 - 16 * n:len(data) - 4], dtype="<u8").reshape(n, 2)
        return inner_decode, [data[o:o + l] for o, l in table]


def ordered(pool, tasks):
    """Results of `tasks` (callables) in order, at most IN_FLIGHT running ahead."""
    pending = collections.deque()
    for task in tasks:
        pending.append(pool.submit(task))
        if len(pending) >= IN_FLIGHT:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


def write_values(out, counts):
    validity = np.packbits(counts != NAT, bitorder="little")
    out.write(memoryview(np.ascontiguousarray(counts)))
    out.write(memoryview(validity))


def chunk_ends(store, c):
    """The first and last time of 1-D chunk `c` (a shard's: of its first and last inner chunks), NaT left out."""
    if store.sharding is not None:
        decode, parts = store.shard_parts((c,))
        first, last = (np.frombuffer(decode(part), dtype="<i8") for part in (parts[0], parts[-1]))
    else:
        first = last = store.read_chunk((c,))
    return first[first != NAT][0], last[last != NAT][-1]


def range_chunks(store, low, high):
    """The chunks [start, end) that may hold times in [low, high) of a sorted 1-D array: bisected on chunk ends."""
    a, b = 0, store.grid[0]
    while a < b:
        m = (a + b) // 2
        a, b = (m + 1, b) if chunk_ends(store, m)[1] < low else (a, m)
    start, b = a, store.grid[0]
    while a < b:
        m = (a + b) // 2
        a, b = (m + 1, b) if chunk_ends(store, m)[0] < high else (a, m)
    return start, a


def one_d(store, out, pool, time_range=None):
    (length,), (chunk,) = store.shape, store.chunks
    start, end = (0, store.grid[0]) if time_range is None else range_chunks(store, *time_range)

    def kept(counts):
        if time_range is None:
            return counts
        low, high = time_range
        return counts[(counts != NAT) & (counts >= low) & (counts < high)]

    if store.sharding is not None:
        def shard(index):
            decode, parts = store.shard_parts((index,))
            return [pool.submit(decode, part) for part in parts]
        for c in range(start, end):
            n = min(chunk, length - c * chunk)
            counts = np.concatenate([np.frombuffer(f.result(), dtype="<i8") for f in shard(c)])[:n]
            write_values(out, kept(counts))
        return
    for c, values in zip(range(start, end), ordered(pool, [lambda c=c: store.read_chunk((c,)) for c in range(start, end)])):
        write_values(out, kept(values[:min(chunk, length - c * chunk)]))


def index_columns(origin, extent):
    """C-order positions of a box: one int64 column per axis, built by repeats and tiles."""
    columns, inner = [], int(np.prod(extent))
    outer = 1
    for axis, n in enumerate(extent):
        inner //= n
        columns.append(np.tile(np.repeat(np.arange(origin[axis], origin[axis] + n, dtype=np.int64), inner), outer))
        outer *= n
    return columns


def n_d(store, out, pool, order):
    shape, chunks, grid = store.shape, store.chunks, store.grid
    if order == "chunk":
        indexes = list(np.ndindex(*grid))
        for index, values in zip(indexes, ordered(pool, [lambda i=i: store.read_chunk(i) for i in indexes])):
            origin = [i * c for i, c in zip(index, chunks)]
            extent = [min(c, s - o) for c, s, o in zip(chunks, shape, origin)]
            write_values(out, values[tuple(slice(0, e) for e in extent)].ravel())
            for column in index_columns(origin, extent):
                out.write(memoryview(column))
        return
    for row in range(grid[0]):
        rows = min(chunks[0], shape[0] - row * chunks[0])
        band = np.empty([rows] + list(shape[1:]), dtype="<i8")
        indexes = [(row,) + rest for rest in np.ndindex(*grid[1:])]
        for index, values in zip(indexes, ordered(pool, [lambda i=i: store.read_chunk(i) for i in indexes])):
            box = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(index[1:], chunks[1:], shape[1:]))
            band[(slice(None),) + box] = values[tuple(slice(0, b.stop - b.start) for b in (slice(0, rows),) + box)]
        write_values(out, band.ravel())
        for column in index_columns([row * chunks[0]] + [0] * (len(shape) - 1), band.shape):
            out.write(memoryview(column))


def zarr_python(root, out):
    import zarr
    z = zarr.open(root, mode="r")
    (length,), (chunk,) = z.shape, z.chunks
    for start in range(0, length, chunk):
        write_values(out, z[start:start + chunk].view("<i8"))


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    threads = int(argv[argv.index("--threads") + 1]) if "--threads" in argv else 2
    if "--threads" in argv:
        args.remove(str(threads))
    order = argv[argv.index("--order") + 1] if "--order" in argv else "C"
    if "--order" in argv:
        args.remove(order)
    time_range = None
    if "--range" in argv:
        at = argv.index("--range")
        time_range = (int(argv[at + 1]), int(argv[at + 2]))
        args.remove(argv[at + 1])
        args.remove(argv[at + 2])
    root, output = args[:2]
    with open(output, "wb") as out:
        if "--zarr-python" in argv:
            zarr_python(root, out)
        else:
            store = Store(root)
            with ThreadPoolExecutor(threads) as pool:
                (lambda s, o, p: one_d(s, o, p, time_range) if len(s.shape) == 1 else n_d(s, o, p, order))(store, out, pool)
        out.flush()
        os.fsync(out.fileno())
    report_rss()


if __name__ == "__main__":
    main(sys.argv[1:])
