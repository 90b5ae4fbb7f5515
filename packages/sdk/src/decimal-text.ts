import type { DecimalInput } from './resources.ts';

/**
 * The decimal string the SDK sends for a price or quantity (docs/protocol.md, Conventions: no
 * exponent, no `+`, no `.5`). A JavaScript number is refused before anything is sent: floats lose
 * cents, and the gateway refuses them too.
 */
const DECIMAL = /^-?[0-9]+(\.[0-9]+)?$/;

export function decimalText(value: DecimalInput | number, field: string): string {
  if (typeof value === 'number') {
    throw new TypeError(
      `${field}: ${value} is a JavaScript number; pass a decimal string such as "${safeExample(value)}" (or a Decimal), so money stays exact`,
    );
  }
  const text =
    typeof value === 'string' ? value : typeof value === 'bigint' ? value.toString() : value.toFixed();
  if (!DECIMAL.test(text)) {
    throw new TypeError(
      `${field}: ${JSON.stringify(text)} is not a decimal such as "0.01" (no exponent, no "+")`,
    );
  }
  return text;
}

function safeExample(value: number): string {
  return Number.isFinite(value) ? String(value) : '0.01';
}
