/**
 * The parts as one flat string. In V8, `a + b` or a template literal of 13 characters or more makes a
 * cons string that points at its parts (and a slice of 13 or more points at the string it was cut
 * from): two to five heap objects where a flat string is one. The texts the engine keeps for the
 * whole run (a fill's amounts, lot fields, order ids) are made with this, so each is one object for
 * the young-generation collector to copy: on the SMA benchmark run, scavenges took about a third less
 * time. `join` writes a new flat string; below 13 characters `+` does too, at a third of the cost (and
 * three parts rather than a rest array: its allocation cost as much as the join).
 */
export function flatText(a: string, b: string, c = ''): string {
  return a.length + b.length + c.length < CONS_MIN_LENGTH ? a + b + c : [a, b, c].join('');
}

/** V8's shortest cons string: a shorter `a + b` is copied into a flat string. */
const CONS_MIN_LENGTH = 13;
