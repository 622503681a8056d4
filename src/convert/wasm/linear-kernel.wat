;; The two common linear conversions of int64 counts, in place in this module's memory (value i at byte 8 * i):
;; multiply by one factor, or divide by one divisor (floor, or nearest with ties to even); and CF time's integer
;; counts to instants, count * factor + offset, stopping at its missing-value markers. Each loop stops at the first value it cannot settle
;; alone and returns its index (the caller handles that value and resumes after it); it returns `to` when done.
;; Compiled to linear-kernel.wasm.ts by scripts/build-wasm-kernel.mjs.
(module
  (memory (export "memory") 1)
  (global $factor (mut i64) (i64.const 1))
  ;; Values in [min, max] multiply without leaving (-2^63, 2^63 - 1]; NaT (-2^63) is below min.
  (global $min (mut i64) (i64.const 0))
  (global $max (mut i64) (i64.const 0))
  (global $divisor (mut i64) (i64.const 1))
  ;; A value that is not a whole number of divisors: 1 stops there (truncation refused), 0 floors it, 2 rounds it to
  ;; the nearest quotient, a tie to the even one.
  (global $inexact (mut i32) (i32.const 1))
  ;; affine: the offset added, and up to two markers (how many in $markers) at which it stops.
  (global $offset (mut i64) (i64.const 0))
  (global $markers (mut i32) (i32.const 0))
  (global $marker0 (mut i64) (i64.const 0))
  (global $marker1 (mut i64) (i64.const 0))
  ;; affineFloat: the step as a double and its Veltkamp halves, and up to two float markers.
  (global $step (mut f64) (f64.const 1))
  (global $stepHigh (mut f64) (f64.const 1))
  (global $stepLow (mut f64) (f64.const 0))
  (global $floatMarkers (mut i32) (i32.const 0))
  (global $floatMarker0 (mut f64) (f64.const 0))
  (global $floatMarker1 (mut f64) (f64.const 0))

  (func (export "setMultiply") (param $factor i64) (param $min i64) (param $max i64)
    (global.set $factor (local.get $factor))
    (global.set $min (local.get $min))
    (global.set $max (local.get $max)))

  (func (export "setDivide") (param $divisor i64) (param $inexact i32)
    (global.set $divisor (local.get $divisor))
    (global.set $inexact (local.get $inexact)))

  (func (export "multiply") (param $from i32) (param $to i32) (result i32)
    (local $i i32) (local $at i32) (local $v i64)
    (local.set $i (local.get $from))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $to)))
        (local.set $at (i32.shl (local.get $i) (i32.const 3)))
        (local.set $v (i64.load (local.get $at)))
        (if (i32.or (i64.lt_s (local.get $v) (global.get $min)) (i64.gt_s (local.get $v) (global.get $max)))
          (then (return (local.get $i))))
        (i64.store (local.get $at) (i64.mul (local.get $v) (global.get $factor)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $to))

  (func (export "divide") (param $from i32) (param $to i32) (result i32)
    (local $i i32) (local $at i32) (local $v i64) (local $q i64) (local $r i64)
    (local.set $i (local.get $from))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $to)))
        (local.set $at (i32.shl (local.get $i) (i32.const 3)))
        (local.set $v (i64.load (local.get $at)))
        (if (i64.eq (local.get $v) (i64.const 0x8000000000000000))
          (then (return (local.get $i))))
        ;; div_s truncates toward zero; floor needs one less when a negative value leaves a remainder.
        (local.set $q (i64.div_s (local.get $v) (global.get $divisor)))
        (local.set $r (i64.sub (local.get $v) (i64.mul (local.get $q) (global.get $divisor))))
        (if (i64.ne (local.get $r) (i64.const 0))
          (then
            (if (i32.eq (global.get $inexact) (i32.const 1)) (then (return (local.get $i))))
            (if (i64.lt_s (local.get $r) (i64.const 0))
              (then
                (local.set $q (i64.sub (local.get $q) (i64.const 1)))
                (local.set $r (i64.add (local.get $r) (global.get $divisor)))))
            ;; Now 0 < r < divisor: up when past half way (r > divisor - r), or half way from an odd quotient. A
            ;; quotient of a divisor > 1 is at most 2^62 in magnitude: one more never leaves int64.
            (if (i32.eq (global.get $inexact) (i32.const 2))
              (then
                (if (i32.or
                      (i64.gt_s (local.get $r) (i64.sub (global.get $divisor) (local.get $r)))
                      (i32.and
                        (i64.eq (local.get $r) (i64.sub (global.get $divisor) (local.get $r)))
                        (i32.wrap_i64 (i64.and (local.get $q) (i64.const 1)))))
                  (then (local.set $q (i64.add (local.get $q) (i64.const 1)))))))))
        (i64.store (local.get $at) (local.get $q))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $to))

  ;; Values in [min, max] map into int64: the product and the sum may wrap on the way, the result cannot.
  (func (export "setAffine") (param $factor i64) (param $offset i64) (param $min i64) (param $max i64)
    (global.set $factor (local.get $factor))
    (global.set $offset (local.get $offset))
    (global.set $min (local.get $min))
    (global.set $max (local.get $max)))

  (func (export "setMarkers") (param $count i32) (param $marker0 i64) (param $marker1 i64)
    (global.set $markers (local.get $count))
    (global.set $marker0 (local.get $marker0))
    (global.set $marker1 (local.get $marker1)))

  (func (export "affine") (param $from i32) (param $to i32) (result i32)
    (local $i i32) (local $at i32) (local $v i64)
    (local.set $i (local.get $from))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $to)))
        (local.set $at (i32.shl (local.get $i) (i32.const 3)))
        (local.set $v (i64.load (local.get $at)))
        (if (i32.or
              (i32.and (i32.gt_u (global.get $markers) (i32.const 0)) (i64.eq (local.get $v) (global.get $marker0)))
              (i32.and (i32.gt_u (global.get $markers) (i32.const 1)) (i64.eq (local.get $v) (global.get $marker1))))
          (then (return (local.get $i))))
        (if (i32.or (i64.lt_s (local.get $v) (global.get $min)) (i64.gt_s (local.get $v) (global.get $max)))
          (then (return (local.get $i))))
        (i64.store (local.get $at) (i64.add (i64.mul (local.get $v) (global.get $factor)) (global.get $offset)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $to))

  (func (export "setAffineFloat") (param $step f64) (param $stepHigh f64) (param $stepLow f64) (param $count i32) (param $marker0 f64) (param $marker1 f64)
    (global.set $step (local.get $step))
    (global.set $stepHigh (local.get $stepHigh))
    (global.set $stepLow (local.get $stepLow))
    (global.set $floatMarkers (local.get $count))
    (global.set $floatMarker0 (local.get $marker0))
    (global.set $floatMarker1 (local.get $marker1)))

  ;; Float counts (doubles at byte 8 * i) to instants in place: the double product count * step when it is a whole
  ;; number of at most 2^53 - 1 in magnitude and exact (an integer count, or Dekker's error term zero, computed in
  ;; the order decode-cf-times.ts's isExactProduct computes it), plus the offset; it stops at a marker, at NaN or an
  ;; infinity, at any other count, and at a product whose instant leaves (-2^63, 2^63) ($min and $max bound the
  ;; product), as the affine loop does.
  (func (export "affineFloat") (param $from i32) (param $to i32) (result i32)
    (local $i i32) (local $at i32) (local $v f64) (local $p f64) (local $t f64) (local $high f64) (local $low f64) (local $q i64)
    (local.set $i (local.get $from))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $to)))
        (local.set $at (i32.shl (local.get $i) (i32.const 3)))
        (local.set $v (f64.load (local.get $at)))
        (if (i32.or
              (i32.and (i32.gt_u (global.get $floatMarkers) (i32.const 0)) (f64.eq (local.get $v) (global.get $floatMarker0)))
              (i32.and (i32.gt_u (global.get $floatMarkers) (i32.const 1)) (f64.eq (local.get $v) (global.get $floatMarker1))))
          (then (return (local.get $i))))
        (local.set $p (f64.mul (local.get $v) (global.get $step)))
        ;; Not (|p| <= 2^53 - 1) also stops NaN.
        (if (i32.eqz (f64.le (f64.abs (local.get $p)) (f64.const 9007199254740991)))
          (then (return (local.get $i))))
        (if (f64.ne (local.get $p) (f64.trunc (local.get $p)))
          (then (return (local.get $i))))
        (if (f64.ne (local.get $v) (f64.trunc (local.get $v)))
          (then
            (local.set $t (f64.mul (f64.const 134217729) (local.get $v)))
            (local.set $high (f64.sub (local.get $t) (f64.sub (local.get $t) (local.get $v))))
            (local.set $low (f64.sub (local.get $v) (local.get $high)))
            (if (f64.ne
                  (f64.add
                    (f64.add
                      (f64.add
                        (f64.sub (f64.mul (local.get $high) (global.get $stepHigh)) (local.get $p))
                        (f64.mul (local.get $high) (global.get $stepLow)))
                      (f64.mul (local.get $low) (global.get $stepHigh)))
                    (f64.mul (local.get $low) (global.get $stepLow)))
                  (f64.const 0))
              (then (return (local.get $i))))))
        (local.set $q (i64.trunc_f64_s (local.get $p)))
        (if (i32.or (i64.lt_s (local.get $q) (global.get $min)) (i64.gt_s (local.get $q) (global.get $max)))
          (then (return (local.get $i))))
        (i64.store (local.get $at) (i64.add (local.get $q) (global.get $offset)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $to))
)
