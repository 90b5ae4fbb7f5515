/**
 * Signed variable-length integers for chunk payloads, exact for every safe integer (|x| <= 2^53 - 1).
 *
 * Byte layout (little-endian groups, the same bytes as protobuf's zigzag varint for |x| < 2^52):
 * - magnitude `m` = x for x >= 0, -x - 1 for x < 0; sign bit `s` = 1 for x < 0;
 * - first byte: bit 0 = s, bits 1..6 = m mod 64, bit 7 = more bytes follow;
 * - each further byte: bits 0..6 = the next 7 bits of m, bit 7 = more bytes follow.
 * At most 8 bytes per value. Only arithmetic is used on the magnitude (no 32-bit bitwise operators), so
 * nothing is truncated above 2^31; `2m + s` is never formed, so nothing is rounded above 2^53.
 */
export const MAX_VARINT_BYTES = 8;

/** Writes `value` (a safe integer) at `pos` in `out`, which must have room for MAX_VARINT_BYTES; returns the new position. */
export function writeSignedVarint(out: Uint8Array, pos: number, value: number): number {
  let sign = 0;
  let m = value;
  if (value < 0) {
    sign = 1;
    m = -value - 1;
  }
  if (m < 64) {
    out[pos] = m * 2 + sign;
    return pos + 1;
  }
  const low = m % 64;
  m = (m - low) / 64;
  out[pos++] = 128 + low * 2 + sign;
  while (m >= 128) {
    const group = m % 128;
    out[pos++] = 128 + group;
    m = (m - group) / 128;
  }
  out[pos++] = m;
  return pos;
}

/**
 * Reads `n` signed varints from `src` at `pos` into `out[0..n)`; returns the new position. A truncated input
 * yields a position past `src.length`, which callers check once per payload (no per-value bounds checks).
 */
export function readSignedVarints(src: Uint8Array, pos: number, out: Float64Array, n: number): number {
  const end = src.length;
  for (let i = 0; i < n; i++) {
    let b = src[pos++] as number;
    if (b < 128) {
      // one byte: zigzag of a 7-bit value, exact in 32-bit operations
      out[i] = (b >>> 1) ^ -(b & 1);
      continue;
    }
    // up to 4 bytes: 28 bits (sign bit + 27 bits of magnitude), still exact in 32-bit operations
    let z = b & 127;
    b = src[pos++] as number;
    z |= (b & 127) << 7;
    if (b >= 128) {
      b = src[pos++] as number;
      z |= (b & 127) << 14;
      if (b >= 128) {
        b = src[pos++] as number;
        z |= (b & 127) << 21;
        if (b >= 128) {
          // 5 bytes and more: magnitude by arithmetic only (exact up to 2^53), sign kept apart
          let m = z >>> 1;
          let scale = 134217728; // 2^27
          do {
            if (pos >= end) return end + 1;
            b = src[pos++] as number;
            m += (b & 127) * scale;
            scale *= 128;
          } while (b >= 128);
          out[i] = (z & 1) === 1 ? -m - 1 : m;
          continue;
        }
      }
    }
    out[i] = (z >>> 1) ^ -(z & 1);
  }
  return pos;
}
