import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { AckSpin } from '../src/stream/ack-spin.ts';

/** A clock the test moves by hand (milliseconds, as performance.now). */
function manualClock() {
  let time = 1_000;
  return { now: () => time, advanceMicros: (us: number) => (time += us / 1000) };
}

/** Lets the spin's chain of turns run until it stops (bounded, so a bug fails instead of hanging). */
async function turnsUntilIdle(spin: AckSpin): Promise<void> {
  for (let i = 0; i < 100 && spin.active; i++) await nextTurn();
  assert.equal(spin.active, false, 'the spin stopped');
}

/** One wait that the ack ends in time, and one it outlasts. */
async function answeredInTime(spin: AckSpin, clock: ReturnType<typeof manualClock>, afterMicros: number) {
  spin.begin();
  await nextTurn();
  clock.advanceMicros(afterMicros);
  spin.end();
  await turnsUntilIdle(spin);
}
async function outlasted(spin: AckSpin, clock: ReturnType<typeof manualClock>) {
  spin.begin();
  await nextTurn();
  clock.advanceMicros(spin.limitMicros + 1);
  await turnsUntilIdle(spin);
  spin.end();
}

describe('busy-polling for acks (stream/ack-spin.ts)', () => {
  it('keeps the event loop turning while it waits, and stops when the ack arrives', async () => {
    const clock = manualClock();
    const spin = new AckSpin(200, clock.now);
    spin.begin();
    assert.equal(spin.active, true);
    for (let i = 0; i < 5; i++) await nextTurn();
    assert.equal(spin.active, true, 'still waiting within the limit: still turning');
    spin.end();
    await turnsUntilIdle(spin);
    assert.equal(spin.limitMicros, 200, 'an ack in time keeps the limit');
  });

  it('does not count the time a request of the strategy runs against the wait, and restarts it after', async () => {
    const clock = manualClock();
    const spin = new AckSpin(200, clock.now);
    spin.begin();
    await nextTurn();
    spin.hold(); // an order arrived before the ack: the gateway runs it for longer than the limit
    clock.advanceMicros(500);
    for (let i = 0; i < 5; i++) await nextTurn();
    assert.equal(spin.active, true, 'still turning while the request runs');
    spin.release();
    clock.advanceMicros(150); // the ack comes 150 us after the answer: within a fresh limit
    await nextTurn();
    assert.equal(spin.active, true);
    spin.end();
    await turnsUntilIdle(spin);
    assert.equal(spin.limitMicros, 200, 'not halved');

    spin.begin();
    spin.hold();
    spin.release();
    clock.advanceMicros(201);
    await turnsUntilIdle(spin);
    spin.end();
    assert.equal(spin.limitMicros, 100, 'a late ack after the answer still halves it');
  });

  it('never spins when the limit is 0', async () => {
    const spin = new AckSpin(0);
    for (let i = 0; i < 300; i++) {
      spin.begin();
      assert.equal(spin.active, false);
      spin.end();
    }
    assert.equal(spin.limitMicros, 0);
  });

  it('halves the limit for each wait the ack outlasts, and stops spinning under 10 us', async () => {
    const clock = manualClock();
    const spin = new AckSpin(80, clock.now);
    const limits: number[] = [];
    for (let i = 0; i < 5; i++) {
      await outlasted(spin, clock);
      limits.push(spin.limitMicros);
    }
    assert.deepEqual(limits, [40, 20, 10, 0, 0]);
    spin.begin();
    assert.equal(spin.active, false, 'a slow strategy is not spun for');
    spin.end();
  });

  it('probes a stopped spin every 128 waits and takes the full limit back when the probe is answered', async () => {
    const clock = manualClock();
    const spin = new AckSpin(16, clock.now);
    await outlasted(spin, clock); // 16 -> 8: under 10 us, off
    assert.equal(spin.limitMicros, 0);
    let probes = 0;
    for (let i = 0; i < 256; i++) {
      spin.begin();
      if (spin.active) {
        probes++;
        clock.advanceMicros(17);
        await turnsUntilIdle(spin); // the probe is outlasted too: stays off
      }
      spin.end();
    }
    assert.equal(probes, 2, 'one probe per 128 waits');
    assert.equal(spin.limitMicros, 0, 'missed probes leave it off');

    for (let i = 0; i < 127; i++) {
      spin.begin();
      spin.end();
    }
    await answeredInTime(spin, clock, 5);
    assert.equal(spin.limitMicros, 16, 'an answered probe restores the full limit');
  });

  it('keeps one chain of turns however many waits begin and end before it turns', async () => {
    const clock = manualClock();
    const spin = new AckSpin(200, clock.now);
    const original = globalThis.setImmediate;
    let scheduled = 0;
    globalThis.setImmediate = ((callback: () => void) => {
      scheduled++;
      return original(callback);
    }) as typeof setImmediate;
    try {
      for (let i = 0; i < 50; i++) {
        spin.begin();
        spin.end();
      }
      spin.begin();
    } finally {
      globalThis.setImmediate = original;
    }
    assert.equal(scheduled, 1, 'one chain, not one per wait');
    spin.end();
    await turnsUntilIdle(spin);
    assert.equal(spin.limitMicros, 200);
  });
});
