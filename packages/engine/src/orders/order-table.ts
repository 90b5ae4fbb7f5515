import { flatText } from '../numbers/flat-text.ts';
import type { OrderRecord } from './order-view.ts';

const PREFIX = 'ord-';
const DIGITS = 9;

/**
 * The engine's orders by id, in creation order. The table numbers the orders itself (`ord-000000001`,
 * ...) and keeps each record at its sequence in an array: a Map hashed every new id string and grew
 * its table, about 0.3 us per order.
 */
export class OrderTable {
  private readonly records: OrderRecord[] = [];

  /** The id of the next order; its record is `set` before any other id is made. */
  nextId(): string {
    return flatText(PREFIX, String(this.records.length + 1).padStart(DIGITS, '0'));
  }

  get(id: string): OrderRecord | undefined {
    const record = this.records[sequenceOf(id) - 1];
    // Another spelling of a sequence (more leading zeros) is not an id the table gave.
    return record !== undefined && record.id === id ? record : undefined;
  }

  /** Adds the record of the id `nextId` gave, or replaces a record. */
  set(id: string, record: OrderRecord): void {
    const index = sequenceOf(id) - 1;
    if (index < 0 || index > this.records.length || record.id !== id) {
      throw new RangeError(`not the id of a recorded or the next order: ${id}`);
    }
    this.records[index] = record;
  }

  /** Every record, in creation order. */
  values(): readonly OrderRecord[] {
    return this.records;
  }
}

/** The sequence an `ord-` id spells, 0 when it spells none. */
function sequenceOf(id: string): number {
  if (id.length < PREFIX.length + DIGITS || !id.startsWith(PREFIX)) return 0;
  let sequence = 0;
  for (let i = PREFIX.length; i < id.length; i++) {
    const digit = id.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return 0;
    sequence = sequence * 10 + digit;
  }
  return Number.isSafeInteger(sequence) ? sequence : 0;
}
