"""Golden expectations for the numpy.datetime64 -> Arrow timestamp conversion, computed with numpy.

Regenerate with:

    python3 test/golden/make_golden.py

It needs only python3 and numpy (written against numpy 2.4.x) and writes datetime64-golden.json beside itself.
The output is deterministic (fixed random seed); the numpy version is recorded in it.

The contract
------------
A count c of dtype `M8[<K><U>]` (unit U, scale factor K) is the instant c*K units of U after
1970-01-01T00:00:00, proleptic Gregorian, no leap seconds; Y and M are calendar units (c*K years or months after
January 1970). c = -2**63 is NaT and becomes null. For a target unit T (s, ms, us, ns) the value is
floor(instant / T), the rule numpy's own cast follows (-1500 ps -> -2 ns). It "truncates" when the instant is not
a whole number of T, and "overflows" when that floored value is not in (-2**63, 2**63 - 1] (-2**63 is NaT).

How each expectation is obtained
--------------------------------
* exact: Python integers, with a calendar (days before the first of a month, any year) written independently
  of the converter's algorithm and checked against `datetime.date` and numpy over years 1..9999.
* numpy: `np.array([c], "i8").view(f"M8[{K}{U}]").astype(f"M8[{T}]")`. numpy 2.4 does this cast in int64 and
  wraps silently: the linear path is floor(c*num/denom) with num/denom the reduced unit ratio (scale factors
  folded in), computed as `c*num - (denom-1)` then C division for negative c; Y and M go through numpy's
  datetimestruct (c*K, then year/month, then days, then T). `numpy_cast_model` below replays exactly that C
  arithmetic and notes every intermediate that leaves int64. (Where one does, C's signed overflow is undefined
  and the compiled numpy does not always wrap like two's complement, so only the overflow itself is relied on.)

The script fails loudly (AssertionError) unless, for every input and target:
  1. numpy raises only where the model says it cannot form the unit ratio (or, numpy >= 2.5, an intermediate
     overflows), and returns NaT for NaT;
  2. where no intermediate overflows, numpy's value equals the replay's and the exact value (that is the golden
     cross-check: numpy is the authority for floor semantics and calendar math);
  3. where the exact value overflows, the replay did see an intermediate overflow (numpy's number is garbage).
It also checks the calendar against `datetime.date` and numpy, and the hand-computed values in `main`.

Inputs for every (unit, scale): EDGE_INPUTS, the REALISTIC instants floored to the unit, the counts on either side
of the overflow thresholds for the auto target, and RANDOM_PER_CASE random int64 (bit length 0..63, random sign).
"numpy": true  -> numpy computed this value itself and it agreed with the exact value.
"numpy": false -> numpy could not compute it: an int64 intermediate wrapped (e.g. c*num for a large c, or
                  `c*num - (denom-1)` near -2**63) or numpy refused to form the unit ratio (as -> s); the exact
                  value is recorded.

JSON (every int64 a decimal string, for BigInt):
  {"generator", "numpy_version",
   "cases": [{"unit", "scale", "auto", "inputs": [...],
              "targets": {"s"|"ms"|"us"|"ns": [{"kind":"value","value":"..","exact":bool,"numpy":bool}
                                              | {"kind":"null"} | {"kind":"overflow"}, ... one per input]}}],
   "facts": [{"input","unit","scale","target","expected" ("overflow" or a value), optional "numpy_wrapped_value"
              (what numpy 2.4 returned instead), optional "numpy_error"}]}
"""
import datetime
import json
import os
import random

import numpy as np

UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"]
SCALES = [1, 7, 10, 1000000, 2147483647]
TARGETS = ["s", "ms", "us", "ns"]
AUTO = {"Y": "s", "M": "s", "W": "s", "D": "s", "h": "s", "m": "s", "s": "s",
        "ms": "ms", "us": "us", "ns": "ns", "ps": "ns", "fs": "ns", "as": "ns"}
AS_PER = {"W": 604800 * 10**18, "D": 86400 * 10**18, "h": 3600 * 10**18, "m": 60 * 10**18, "s": 10**18,
          "ms": 10**15, "us": 10**12, "ns": 10**9, "ps": 10**6, "fs": 10**3, "as": 1}
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
NAT = INT64_MIN
SEED = 20261202
# Size: each input costs ~200 bytes in each of the 65 (unit, scale) cases, so ~13 KB per input added to all of them;
# these choices keep the file under ~400 KB. RANDOM_PER_CASE = 30 would give ~700 KB.
RANDOM_PER_CASE = 5

EDGE_INPUTS = [0, 1, -1, 2, -2, 1000, -1500, 86399, -86401, 2**31 - 1, -(2**31), 2**53 - 1, 2**53, 2**53 + 1,
               -(2**53 + 1), 2**62, -(2**62), INT64_MAX, INT64_MIN + 1, NAT]

# Instants (proleptic Gregorian, UTC) expressed in every unit: count = floor(instant / (K U)).
REALISTIC = [
    (2005, 2, 3, 0, 0, 0, 0),
    (2005, 2, 3, 4, 5, 6, 789012345678901234),   # fraction of a second in attoseconds
    (1969, 12, 31, 23, 59, 59, 999999999000000000),
    (1900, 3, 1, 0, 0, 0, 0),
]

# ---------------------------------------------------------------------------------------------------------------
# Exact arithmetic
# ---------------------------------------------------------------------------------------------------------------

MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def is_leap(year):
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def leap_years_through(year):
    """Number of leap years in 1..year (negative counts for year < 0: consistent for differences)."""
    return year // 4 - year // 100 + year // 400


def days_before_month(year, month):
    """Days from 1970-01-01 to year-month-01, proleptic Gregorian, for any integer year (month 1..12)."""
    days = 365 * (year - 1970) + leap_years_through(year - 1) - leap_years_through(1969)
    days += sum(MONTH_DAYS[:month - 1]) + (1 if month > 2 and is_leap(year) else 0)
    return days


def instant_as(count, unit, scale):
    """The exact instant of a count, in attoseconds since the epoch."""
    if unit in ("Y", "M"):
        months = count * scale * (12 if unit == "Y" else 1)
        return days_before_month(1970 + months // 12, months % 12 + 1) * AS_PER["D"]
    return count * scale * AS_PER[unit]


def exact(count, unit, scale, target):
    """("null",) | ("overflow",) | ("value", value, is_exact)."""
    if count == NAT:
        return ("null",)
    t = instant_as(count, unit, scale)
    value = t // AS_PER[target]
    if not (INT64_MIN < value <= INT64_MAX):
        return ("overflow",)
    return ("value", value, value * AS_PER[target] == t)


def check_calendar():
    epoch = datetime.date(1970, 1, 1).toordinal()
    months = []
    for year in range(1, 10000):
        for month in range(1, 13):
            want = datetime.date(year, month, 1).toordinal() - epoch
            assert days_before_month(year, month) == want, (year, month)
            months.append((year - 1970) * 12 + month - 1)
    # numpy's own calendar agrees over the same range (M8[M] -> M8[D]).
    got = np.array(months, dtype="i8").view("M8[M]").astype("M8[D]").view("i8")
    want = [days_before_month(1970 + m // 12, m % 12 + 1) for m in months]
    assert got.tolist() == want, "numpy's month->day calendar disagrees with days_before_month"
    # 400-year periodicity holds for huge years too (146097 days per 400 years).
    rng = random.Random(SEED)
    for _ in range(1000):
        year, month = rng.randint(-10**15, 10**15), rng.randint(1, 12)
        assert days_before_month(year + 400, month) - days_before_month(year, month) == 146097


# ---------------------------------------------------------------------------------------------------------------
# A replay of numpy 2.4's C cast arithmetic (numpy/_core/src/multiarray/datetime.c, dtype_transfer.c)
# ---------------------------------------------------------------------------------------------------------------

ENUM = {"Y": 0, "M": 1, "W": 2, "D": 4, "h": 5, "m": 6, "s": 7, "ms": 8, "us": 9, "ns": 10, "ps": 11, "fs": 12,
        "as": 13}
DATETIME_FACTORS = [1, 1, 7, 1, 24, 60, 60, 1000, 1000, 1000, 1000, 1000, 1000, 1, 0]
U64 = 2**64


class Int64:
    """C int64 arithmetic that wraps like numpy's compiled loops and remembers whether anything overflowed."""

    def __init__(self):
        self.overflowed = False

    def wrap(self, x):
        if not (INT64_MIN <= x <= INT64_MAX):
            self.overflowed = True
            x = (x - INT64_MIN) % U64 + INT64_MIN
        return x

    def mul(self, a, b):
        return self.wrap(a * b)

    def add(self, a, b):
        return self.wrap(a + b)

    def sub(self, a, b):
        return self.wrap(a - b)

    @staticmethod
    def div(a, b):  # C: truncates toward zero
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b > 0) else -q

    @staticmethod
    def mod(a, b):
        return a - b * Int64.div(a, b)


def units_factor(big, little):
    factor = 1
    for unit in range(ENUM[big], ENUM[little]):
        factor = (factor * DATETIME_FACTORS[unit]) % U64
        if factor & 0xFF00000000000000:
            return 0
    return factor


def conversion_factor(unit, scale, target):
    """get_datetime_conversion_factor for M8[<scale><unit>] -> M8[<target>]: (num, denom, uint64 wrapped?),
    or None where numpy raises OverflowError."""
    num, denom = 1, 1
    swapped = ENUM[unit] > ENUM[target]
    src, dst = (target, unit) if swapped else (unit, target)
    if src != dst:
        if src == "Y":
            num, denom = 97 + 400 * 365, 400
            num *= units_factor("D", dst)
        elif src == "M":
            num, denom = 97 + 400 * 365, 400 * 12
            num *= units_factor("D", dst)
        else:
            num = units_factor(src, dst)
    if num == 0:
        return None
    if swapped:
        num, denom = denom, num
    wrapped = num * scale >= U64
    num = (num * scale) % U64
    a, b = num, denom
    while b:
        a, b = b, a % b
    num, denom = num // a, denom // a
    if num > INT64_MAX:  # (npy_int64) cast of a uint64
        wrapped, num = True, num - U64
    return num, denom, wrapped


def numpy_cast_model(count, unit, scale, target):
    """What numpy 2.4 returns for this cast: ("error",) or ("value", int64 as numpy stores it, overflowed?)."""
    factor = conversion_factor(unit, scale, target)
    if factor is None:
        return ("error",)
    num, denom, factor_wrapped = factor
    ops = Int64()
    dt = count
    if unit in ("Y", "M"):  # _strided_to_strided_datetime_general_cast
        if dt == NAT:
            return ("value", NAT, False)
        dt = ops.mul(dt, scale)
        if unit == "Y":
            year, month = ops.add(1970, dt), 1
        else:
            quotient, remainder = Int64.div(dt, 12), Int64.mod(dt, 12)
            if remainder < 0:
                quotient, remainder = quotient - 1, remainder + 12
            year, month = ops.add(1970, quotient), remainder + 1
        if year == NAT:
            return ("value", NAT, ops.overflowed)
        y = ops.sub(year, 1970)  # get_datetimestruct_days
        days = ops.mul(y, 365)
        if days >= 0:
            y = ops.add(y, 1)
            days = ops.add(days, Int64.div(y, 4))
            y = ops.add(y, 68)
            days = ops.sub(days, Int64.div(y, 100))
            y = ops.add(y, 300)
            days = ops.add(days, Int64.div(y, 400))
        else:
            y = ops.sub(y, 2)
            days = ops.add(days, Int64.div(y, 4))
            y = ops.sub(y, 28)
            days = ops.sub(days, Int64.div(y, 100))
            days = ops.add(days, Int64.div(y, 400))
        leap = (year & 3) == 0 and (Int64.mod(year, 100) != 0 or Int64.mod(year, 400) == 0)
        for i in range(month - 1):
            days = ops.add(days, MONTH_DAYS[i] + (1 if i == 1 and leap else 0))
        value = ops.mul(ops.mul(ops.mul(days, 24), 60), 60)
        value = {"s": lambda v: v, "ms": lambda v: ops.mul(v, 1000), "us": lambda v: ops.mul(v, 1000000),
                 "ns": lambda v: ops.mul(ops.mul(v, 1000000), 1000)}[target](value)
        return ("value", value, ops.overflowed)
    # _strided_to_strided_datetime_cast
    if dt == NAT:
        return ("value", NAT, False)
    if dt < 0:
        value = Int64.div(ops.sub(ops.mul(dt, num), denom - 1), denom)
    else:
        value = Int64.div(ops.mul(dt, num), denom)
    # A wrapped ratio is garbage for every count but 0 (and those all overflow anyway: the ratio only wraps when
    # one count is already >= 2**64 target units).
    return ("value", value, ops.overflowed or (factor_wrapped and dt != 0))


def numpy_cast(count, unit, scale, target):
    """numpy's actual answer: ("value", int) or ("error", message)."""
    src = np.array([count], dtype="i8").view(f"M8[{scale}{unit}]")
    try:
        with np.errstate(all="ignore"):
            return ("value", int(src.astype(f"M8[{target}]").view("i8")[0]))
    except OverflowError as e:
        return ("error", f"OverflowError: {e}")


# ---------------------------------------------------------------------------------------------------------------
# Expectations
# ---------------------------------------------------------------------------------------------------------------

def expected(count, unit, scale, target, stats):
    where = f"{count} M8[{scale}{unit}] -> M8[{target}]"
    want = exact(count, unit, scale, target)
    model = numpy_cast_model(count, unit, scale, target)
    got = numpy_cast(count, unit, scale, target)
    if got[0] == "error":
        # numpy 2.4 raises only when it cannot form the unit ratio; numpy >= 2.5 also raises where the product
        # overflows int64 (which the model records as an overflowed intermediate).
        assert model[0] == "error" or model[2], f"{where}: numpy raised {got[1]} but the model computes {model}"
        numpy_ok = False
    else:
        assert model[0] == "value", f"{where}: numpy gave {got[1]} where the model has it raise"
        numpy_ok = not model[2]
        if numpy_ok:
            assert got[1] == model[1], f"{where}: numpy gave {got[1]}, the model {model[1]} (no overflow)"
        else:
            # Signed overflow is undefined behaviour in C, and the compiler exploits it (e.g. in
            # get_datetimestruct_days), so a wrapped numpy result need not equal the two's complement replay.
            stats["wrap_replayed" if got[1] == model[1] else "wrap_differs"] += 1
    if want[0] == "null":
        assert got[0] == "error" or (numpy_ok and got[1] == NAT), f"{where}: NaT did not stay NaT"
        return {"kind": "null"}
    if want[0] == "overflow":
        # A correct in-range int64 cannot exist, so numpy must have wrapped (or produced -2**63 = NaT exactly).
        assert not numpy_ok or got[1] == NAT, f"{where}: exact value overflows but numpy computed {got[1]} cleanly"
        stats["overflow"] += 1
        return {"kind": "overflow"}
    value, is_exact = want[1], want[2]
    if numpy_ok:
        assert got[1] == value, f"{where}: numpy gives {got[1]}, exact arithmetic {value}"
        stats["numpy"] += 1
    else:
        stats["not_numpy"] += 1
    stats["value"] += 1
    return {"kind": "value", "value": str(value), "exact": is_exact, "numpy": numpy_ok}


def realistic_instants_as():
    out = []
    for (y, mo, d, h, mi, s, frac) in REALISTIC:
        seconds = (days_before_month(y, mo) + d - 1) * 86400 + h * 3600 + mi * 60 + s
        numpy_seconds = int(np.datetime64(f"{y:04d}-{mo:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}", "s").view("i8"))
        assert seconds == numpy_seconds, (y, mo, d, seconds, numpy_seconds)
        out.append(seconds * 10**18 + frac)
    return out


def realistic_counts(unit, scale, instants):
    counts = []
    for t in instants:
        if unit in ("Y", "M"):
            days = t // AS_PER["D"]
            year = 1970 + days // 366  # find the calendar month containing the instant
            while days_before_month(year, 1) > days:
                year -= 1
            while days_before_month(year + 1, 1) <= days:
                year += 1
            month = max(m for m in range(1, 13) if days_before_month(year, m) <= days)
            months = (year - 1970) * 12 + month - 1
            counts.append((months if unit == "M" else months // 12) // scale)
        else:
            counts.append(t // (scale * AS_PER[unit]))
    return counts


def range_boundaries(unit, scale, target):
    """For each side, the last count whose value fits and the first that overflows (if they are int64 counts)."""
    def fits(c):
        return exact(c, unit, scale, target)[0] == "value"

    out = []
    # The largest fitting count: fits() is monotone on each side of 0.
    lo, hi = 0, INT64_MAX
    if fits(hi):
        out.append(hi)
    else:
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if fits(mid) else (lo, mid)
        out += [lo, hi]
    lo, hi = INT64_MIN + 1, 0  # the smallest fitting count
    if fits(lo):
        out.append(lo)
    else:
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if fits(mid) else (mid, hi)
        out += [hi, lo]
    return out


def inputs_for(unit, scale, rng, instants):
    candidates = list(EDGE_INPUTS)
    candidates += realistic_counts(unit, scale, instants)
    candidates += range_boundaries(unit, scale, AUTO[unit])
    for _ in range(RANDOM_PER_CASE):
        bits = rng.randint(0, 63)
        value = rng.getrandbits(bits) if bits else 0
        candidates.append(-value if rng.random() < 0.5 else value)
    seen, inputs = set(), []
    for c in candidates:
        if INT64_MIN <= c <= INT64_MAX and c not in seen:
            seen.add(c)
            inputs.append(c)
    return inputs


def fact(count, unit, scale, target, **extra):
    want = exact(count, unit, scale, target)
    entry = {"input": str(count), "unit": unit, "scale": scale, "target": target,
             "expected": "overflow" if want[0] == "overflow" else str(want[1])}
    got = numpy_cast(count, unit, scale, target)
    if got[0] == "error":
        entry["numpy_error"] = got[1]
    elif want[0] == "overflow" or got[1] != want[1]:
        entry["numpy_wrapped_value"] = str(got[1])
    entry.update(extra)
    return entry


def main():
    check_calendar()
    instants = realistic_instants_as()
    rng = random.Random(SEED)
    stats = {"value": 0, "numpy": 0, "not_numpy": 0, "overflow": 0, "wrap_replayed": 0, "wrap_differs": 0}
    cases = []
    for unit in UNITS:
        for scale in SCALES:
            inputs = inputs_for(unit, scale, rng, instants)
            cases.append({
                "unit": unit, "scale": scale, "auto": AUTO[unit], "inputs": [str(c) for c in inputs],
                "targets": {t: [expected(c, unit, scale, t, stats) for c in inputs] for t in TARGETS},
            })

    facts = [
        fact(-1500, "ps", 1, "ns"),            # numpy floors: -1500 ps -> -2 ns
        fact(10**15, "D", 1, "ns"),            # numpy wraps silently; we refuse
        fact(1, "as", 1, "s"),                 # numpy cannot even form the as -> s ratio (10**18 > its 2**56 limit)
        fact(-(2**63) + 1, "ms", 1, "s"),      # numpy's floor `c - 999` wraps near -2**63: it returns garbage
        fact(2**60, "ns", 2147483647, "s"),    # c * 2147483647 wraps in numpy though the seconds fit
    ]
    assert facts[0]["expected"] == "-2" and numpy_cast(-1500, "ps", 1, "ns") == ("value", -2)
    assert facts[1]["expected"] == "overflow" and "numpy_wrapped_value" in facts[1]
    assert "numpy_error" in facts[2] and "numpy_wrapped_value" in facts[3] and "numpy_wrapped_value" in facts[4]

    # Hand-checked values (the brief's sanity checks).
    def golden(unit, scale, target, count):
        case = next(c for c in cases if c["unit"] == unit and c["scale"] == scale)
        return case["targets"][target][case["inputs"].index(str(count))]
    assert golden("D", 1, "s", 12817)["value"] == "1107388800"          # 2005-02-03
    assert golden("us", 10, "us", 110738880000000)["value"] == "1107388800000000"
    assert golden("Y", 1, "s", 35)["value"] == "1104537600"             # 2005-01-01
    assert golden("M", 1, "s", 1)["value"] == "2678400"                 # 1970-02-01
    assert golden("ps", 1, "ns", -1500) == {"kind": "value", "value": "-2", "exact": False, "numpy": True}

    out = {"generator": "test/golden/make_golden.py", "numpy_version": np.__version__, "cases": cases, "facts": facts}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "datetime64-golden.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    n_inputs = sum(len(c["inputs"]) for c in cases)
    print(f"{path}: {os.path.getsize(path)} bytes, numpy {np.__version__}, {len(cases)} cases, {n_inputs} inputs, "
          f"{n_inputs * len(TARGETS)} expectations: {stats['value']} values ({stats['numpy']} computed by numpy, "
          f"{stats['not_numpy']} where numpy wrapped or refused), {stats['overflow']} overflows, "
          f"{n_inputs * len(TARGETS) - stats['value'] - stats['overflow']} nulls; {len(facts)} facts; numpy wrapped "
          f"{stats['wrap_replayed'] + stats['wrap_differs']} times, {stats['wrap_differs']} not as two's complement")


if __name__ == "__main__":
    main()
