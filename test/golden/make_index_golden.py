"""Expected rows of N-d exports with index columns, computed by numpy.

For each case the array holds value(i, j, ...) = sum(coord[axis] * 1000 ** (ndim - 1 - axis)) (the same formula the
tests use to write their stores). Written: numpy's `arr.ravel()` and `np.indices(shape).reshape(ndim, -1)` (the
rows of `--index --order c`), and the rows of `--order chunk`: chunks in C order of the chunk grid, each chunk's
box clipped at the array's edge and raveled in C order.

Run: python3 test/golden/make_index_golden.py  (writes index-golden.json next to this script)
"""
import itertools
import json
import os

import numpy as np

CASES = [
    {"name": "2d-ragged", "shape": [7, 5], "chunks": [3, 2]},
    {"name": "3d-ragged", "shape": [5, 4, 3], "chunks": [2, 3, 2]},
    {"name": "3d-one-chunk-row", "shape": [2, 6, 4], "chunks": [2, 4, 4]},
]


def values(shape):
    ndim = len(shape)
    return np.fromfunction(lambda *coords: sum(c.astype(np.int64) * 1000 ** (ndim - 1 - axis) for axis, c in enumerate(coords)), shape, dtype=np.int64)


def chunk_order(arr, chunks):
    grid = [-(-n // c) for n, c in zip(arr.shape, chunks)]
    index_rows = [[] for _ in arr.shape]
    value_rows = []
    for coords in itertools.product(*(range(g) for g in grid)):
        box = tuple(slice(c * size, min((c + 1) * size, n)) for c, size, n in zip(coords, chunks, arr.shape))
        part = arr[box]
        local = np.indices(part.shape).reshape(arr.ndim, -1)
        for axis in range(arr.ndim):
            index_rows[axis].extend((local[axis] + box[axis].start).tolist())
        value_rows.extend(part.ravel().tolist())
    return {"index": index_rows, "values": value_rows}


def main():
    out = []
    for case in CASES:
        arr = values(case["shape"])
        out.append(
            {
                **case,
                "c": {"index": np.indices(arr.shape).reshape(arr.ndim, -1).tolist(), "values": arr.ravel().tolist()},
                "chunk": chunk_order(arr, case["chunks"]),
            }
        )
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "index-golden.json")
    with open(path, "w") as f:
        json.dump({"numpy": np.__version__, "cases": out}, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
