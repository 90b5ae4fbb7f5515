import type { Candle, CandleField } from '../resources.ts';

/** What a candle read from the socket has beyond the wire Bar's fields: `number`, as in-process. */
const WIRE_CANDLE = {
  number(this: Candle, field: CandleField): number {
    return Number(this[field]);
  },
};

/** A candle read from the socket: the wire Bar, with `number` as the in-process candle has it. */
export const wireCandle = (bar: Record<string, string>): Candle =>
  Object.assign(Object.create(WIRE_CANDLE), bar) as Candle;
