"""Golden expectations for the numpy.datetime64 -> Arrow timestamp conversion, computed by numpy.

Regenerate with `python3 test/golden/make_golden.py` (needs only numpy); writes datetime64-golden.json beside it.

For every unit (scale 1, 7, 10, 1000000, 2147483647) and input count, and every Arrow unit s/ms/us/ns, numpy casts
`M8[<K><U>]` to `M8[<T>]` (numpy floors). numpy wraps silently on overflow, so overflow is decided with exact Python
integers, which also cross-check every value numpy gives: "numpy": true means numpy computed the value and it agreed;
false means numpy could not be trusted there (its int64 intermediate wrapped, or it refused to form the
conversion factor) and the exact value is given.
"""
import json
import os
import random

import numpy as np

UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"]
SCALES = [1, 7, 10, 1000000, 2147483647]
TARGETS = ["s", "ms", "us", "ns"]
AUTO = {"Y": "s", "M": "s", "W": "s", "D": "s", "h": "s", "m": "s", "s": "s", "ms": "ms", "us": "us", "ns": "ns", "ps": "ns", "fs": "ns", "as": "ns"}
AS = {"W": 604800 * 10**18, "D": 86400 * 10**18, "h": 3600 * 10**18, "m": 60 * 10**18, "s": 10**18, "ms": 10**15,
      "us": 10**12, "ns": 10**9, "ps": 10**6, "fs": 10**3, "as": 1}
NAT = -(2**63)
INT64_MAX = 2**63 - 1


def days_from_civil(y, m, d):
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def exact_instant_as(count, unit, scale):
    if unit in ("Y", "M"):
        months = count * scale * (12 if unit == "Y" else 1)
        return days_from_civil(1970 + months // 12, months % 12 + 1, 1) * AS["D"]
    return count * scale * AS[unit]


def inputs_for(unit, rng):
    edge = [0, 1, -1, 2, -2, 1000, -1500, 86399, -86401, 2**31 - 1, -(2**31), 2**53 - 1, 2**53, 2**53 + 1,
            -(2**53 + 1), 2**62, -(2**62), INT64_MAX, NAT + 1, NAT]
    realistic = np.array(["2005-02-03T04:05:06", "1969-12-31T23:59:59", "1900-03-01", "2262-04-11"], dtype="M8[s]")
    if unit in ("W", "D", "h", "m", "s", "ms", "us", "ns"):
        with np.errstate(all="ignore"):
            edge += [int(x) for x in realistic.astype(f"M8[{unit}]").view("i8")]
    for _ in range(12):
        bits = rng.randint(0, 63)
        value = rng.getrandbits(bits) if bits else 0
        edge.append(-value if rng.random() < 0.5 else value)
    return edge


def expected(count, unit, scale, target):
    if count == NAT:
        return {"kind": "null"}
    instant = exact_instant_as(count, unit, scale)
    value = instant // AS[target]
    if not (NAT < value <= INT64_MAX):
        return {"kind": "overflow"}
    try:
        with np.errstate(all="ignore"):
            got = int(np.array([count], dtype=f"M8[{scale}{unit}]").astype(f"M8[{target}]").view("i8")[0])
    except OverflowError:  # numpy cannot even form the conversion factor (e.g. 2147483647 as to s)
        got = None
    return {"kind": "value", "value": str(value), "exact": value * AS[target] == instant, "numpy": got == value}


def main():
    rng = random.Random(20261202)
    cases = []
    for unit in UNITS:
        for scale in SCALES:
            inputs = inputs_for(unit, rng)
            cases.append({
                "unit": unit, "scale": scale, "auto": AUTO[unit], "inputs": [str(c) for c in inputs],
                "targets": {t: [expected(c, unit, scale, t) for c in inputs] for t in TARGETS},
            })
    with np.errstate(all="ignore"):
        wrapped = int(np.array([10**15], dtype="M8[D]").astype("M8[ns]").view("i8")[0])
        floored = int(np.array([-1500], dtype="M8[ps]").astype("M8[ns]").view("i8")[0])
    facts = [
        {"input": "-1500", "unit": "ps", "scale": 1, "target": "ns", "expected": str(floored)},
        {"input": str(10**15), "unit": "D", "scale": 1, "target": "ns", "numpy_wrapped_value": str(wrapped), "expected": "overflow"},
    ]
    values = [v for c in cases for t in c["targets"].values() for v in t if v["kind"] == "value"]
    untrusted = sum(1 for v in values if not v["numpy"])
    out = {"generator": "test/golden/make_golden.py", "numpy_version": np.__version__, "cases": cases, "facts": facts}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "datetime64-golden.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
    print(f"{path}: {len(cases)} cases, {len(values)} values ({untrusted} where numpy's int64 intermediate wrapped)")


if __name__ == "__main__":
    main()
