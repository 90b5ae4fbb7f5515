import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventOutbox } from '../src/venue/event-outbox.ts';

describe('event outbox', () => {
  it('hands the events over in order, each batch a new array, and keeps none back', () => {
    const outbox = new EventOutbox<number>();
    assert.equal(outbox.size, 0);
    const none = outbox.take();
    assert.equal(none.length, 0);
    none.push(99);
    assert.deepEqual(outbox.take(), [], 'an empty batch is not shared with the caller');
    outbox.push(1);
    assert.equal(outbox.size, 1);
    const one = outbox.take();
    assert.deepEqual(one, [1]);
    outbox.push(2);
    outbox.push(3);
    outbox.push(4);
    assert.equal(outbox.size, 3);
    assert.deepEqual(outbox.take(), [2, 3, 4]);
    assert.deepEqual(one, [1], 'a batch handed over does not change afterwards');
    assert.equal(outbox.size, 0);
  });
});
