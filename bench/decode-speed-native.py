# /usr/bin/python3 bench/decode-speed-native.py CODEC CHUNK-BYTES RUNS FILE...
#
# The native side of bench/decode-speed.mjs: numcodecs (Debian's python3-numcodecs, its C decoders; blosc with one
# thread) decoding each file into a buffer made once, RUNS passes after a warm-up pass. Prints the median pass in ms,
# wall and CPU, as JSON.
import sys, time, json
import numpy as np
from numcodecs import Zstd, Blosc, LZ4
Blosc.use_threads = False
codec, chunk_bytes, runs, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
chunks = [open(f, "rb").read() for f in files]
out = np.empty(chunk_bytes, dtype=np.uint8)
decoder = {"zstd": Zstd(), "blosc": Blosc(), "lz4": LZ4()}[codec]
times, cpu = [], []
for run in range(runs + 1):
    t, p = time.perf_counter(), time.process_time()
    for c in chunks:
        decoder.decode(c, out=out)
    if run > 0:
        times.append((time.perf_counter() - t) * 1e3)
        cpu.append((time.process_time() - p) * 1e3)
print(json.dumps({"ms": sorted(times)[len(times) // 2], "cpu": sorted(cpu)[len(cpu) // 2]}))
