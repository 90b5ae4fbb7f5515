import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseClientBytes, parseClientFrame } from '../src/stream/client-frames.ts';
import { textFrames } from '../src/stream/frames.ts';

/** What `parseClientBytes` must answer for valid UTF-8: the strict parser's verdict. */
const strict = (bytes: Buffer) => parseClientFrame(bytes.toString('utf8'));

const ack = (fields: string) => Buffer.from(`{"type":"event_ack"${fields}}`);

describe('client frames', () => {
  it('reads the common event_ack straight from its bytes, as JSON.parse would', () => {
    const common = ack(
      ',"correlation_id":"b","events_processed":["candle:7"],"timestamp":1717000000000,"last_seq":7',
    );
    assert.deepEqual(parseClientBytes(common), { type: 'event_ack', last_seq: 7 });
    // Python's json.dumps puts spaces after separators.
    const python = Buffer.from(
      '{"type": "event_ack", "correlation_id": "x", "events_processed": [], "timestamp": 1, "last_seq": 12}',
    );
    assert.deepEqual(parseClientBytes(python), { type: 'event_ack', last_seq: 12 });
    assert.deepEqual(parseClientBytes(ack('')), { type: 'event_ack' });
    assert.deepEqual(parseClientBytes(ack(',"last_seq":null')), { type: 'event_ack' });
    assert.deepEqual(parseClientBytes(Buffer.from('{"type":"pong"}')), { type: 'pong' });
  });

  it('refuses what the strict parser refuses, with the same reasons', () => {
    const cases: [string, string][] = [
      [',"last_seq":-1', 'event_ack.last_seq must be a non-negative integer'],
      [',"last_seq":1.5', 'event_ack.last_seq must be a non-negative integer'],
      [',"last_seq":"3"', 'event_ack.last_seq must be a non-negative integer'],
      [',"timestamp":"now"', 'event_ack.timestamp must be an integer'],
      [',"events_processed":[1]', 'event_ack.events_processed must be an array of strings'],
      [',"correlation_id":5', 'event_ack.correlation_id must be a string'],
      [',"last_seq":01', 'the frame is not valid JSON'],
      [',"last_seq":9007199254740993', 'event_ack.last_seq must be a non-negative integer'],
    ];
    for (const [fields, reason] of cases) {
      const answer = parseClientBytes(ack(fields));
      assert.equal(typeof answer, 'string', fields);
      assert.ok((answer as string).startsWith(reason), `${fields}: ${answer}`);
    }
    assert.equal(parseClientBytes(Buffer.from([0x7b, 0xff, 0x7d])), 'the frame is not valid UTF-8 text');
  });

  it('agrees with JSON.parse and the strict checks on any ack-like frame', () => {
    const value = fc.oneof(
      fc.integer({ min: -1, max: 2 ** 53 + 2 }).map(String),
      fc.double().map((d) => JSON.stringify(d)),
      fc.string({ unit: 'binary' }).map((s) => JSON.stringify(s)),
      fc.array(fc.string({ unit: 'binary' }), { maxLength: 3 }).map((a) => JSON.stringify(a)),
      fc.constantFrom('null', 'true', '[1]', '01', '-0', '1e3', '"\\u0041"', '"é"'),
    );
    const key = fc.constantFrom('correlation_id', 'events_processed', 'timestamp', 'last_seq', 'type', 'x');
    const space = fc.constantFrom('', ' ', '\n');
    const field = fc.tuple(space, key, space, value).map(([s, k, t, v]) => `,${s}"${k}"${t}:${t}${v}`);
    fc.assert(
      fc.property(fc.array(field, { maxLength: 5 }), space, (fields, tail) => {
        const bytes = Buffer.from(`{"type":"event_ack"${fields.join('')}${tail}}`);
        assert.deepEqual(parseClientBytes(bytes), strict(bytes));
      }),
      { numRuns: 3000 },
    );
  });

  it('frames events as unmasked text frames of every length class', () => {
    for (const length of [0, 125, 126, 65_535, 65_536]) {
      const text = 'x'.repeat(length);
      const batch = textFrames([text, 'é']);
      const header = length < 126 ? 2 : length < 65_536 ? 4 : 10;
      assert.equal(batch[0], 0x81);
      assert.equal(batch[1], length < 126 ? length : length < 65_536 ? 126 : 127);
      assert.equal(batch.subarray(header, header + length).toString(), text);
      assert.deepEqual([...batch.subarray(header + length)], [0x81, 2, 0xc3, 0xa9]);
    }
  });
});
