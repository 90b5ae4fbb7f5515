import type { Observations, RequestSeen } from './observations.ts';
import { RETRY_TOLERANCE_MS } from './script.ts';

/**
 * The verdicts of `hindsight check`: each check turns what was observed (`observations.ts`) into
 * pass, FAIL with the evidence, or "not exercised" with the reason (the strategy never did what the
 * check needs). docs/check.md explains each one and the spec text behind it.
 */
export type Verdict = 'pass' | 'FAIL' | 'not exercised';

export interface CheckResult {
  id: string;
  title: string;
  verdict: Verdict;
  /** What was seen: the evidence of a FAIL, the reason a check was not exercised, or how it passed. */
  detail: string;
}

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const call = (r: RequestSeen) =>
  `${r.method} ${r.path} (${r.transport === 'socket' ? 'over the socket' : 'HTTP'})`;
const result = (id: string, title: string, verdict: Verdict, detail: string): CheckResult => ({
  id,
  title,
  verdict,
  detail,
});

export function judge(seen: Observations): CheckResult[] {
  return [
    runEnds(seen),
    acknowledges(seen),
    acksInRange(seen),
    answersPing(seen),
    authenticates(seen),
    decimalStrings(seen),
    honoursRetryAfter(seen),
    noRetryOfRefusals(seen),
    clientOrderIds(seen),
    resumes(seen),
    exitsCleanly(seen),
  ];
}

function runEnds(seen: Observations): CheckResult {
  const title = 'the backtest runs to its end';
  const run = seen.run;
  if (run?.kind === 'completed')
    return result('run', title, 'pass', `${plural(seen.eventsDelivered, 'event')} delivered`);
  const why = run === undefined ? 'it did not end' : run.kind === 'failed' ? run.message : run.why;
  return result('run', title, 'FAIL', `${why}${afterCut(seen)}`);
}

function acknowledges(seen: Observations): CheckResult {
  const title = 'events are acknowledged (event_ack)';
  if (seen.eventsDelivered === 0)
    return result('ack', title, 'not exercised', 'no event reached the strategy');
  const stalled = seen.run?.kind === 'failed' && /unacknowledged/.test(seen.run.message);
  if (seen.acks === 0) {
    return result(
      'ack',
      title,
      'FAIL',
      `${plural(seen.eventsDelivered, 'event')} sent (up to seq ${seen.maxSeqDelivered}), no event_ack at all`,
    );
  }
  if (stalled) {
    const last = seen.lastAckSeq === undefined ? 'without last_seq' : `last_seq ${seen.lastAckSeq}`;
    return result(
      'ack',
      title,
      'FAIL',
      `acks stopped: the last was ${last}, events were sent up to seq ${seen.maxSeqDelivered}; ${seen.run?.kind === 'failed' ? seen.run.message : ''}`,
    );
  }
  return result(
    'ack',
    title,
    'pass',
    `${plural(seen.acks, 'ack')} for ${plural(seen.eventsDelivered, 'event')}`,
  );
}

function acksInRange(seen: Observations): CheckResult {
  const title = 'acks name only events received (last_seq), never going back';
  if (seen.acks === 0) return result('ack-seq', title, 'not exercised', 'the strategy sent no event_ack');
  const ahead = seen.acksAhead[0];
  if (ahead) {
    return result(
      'ack-seq',
      title,
      'FAIL',
      `event_ack last_seq ${ahead.lastSeq} at ${s(ahead.at)}, but the highest seq sent was ${ahead.maxSeqDelivered}` +
        (seen.acksAhead.length > 1 ? ` (${seen.acksAhead.length} such acks)` : ''),
    );
  }
  const back = seen.acksBackwards[0];
  if (back) {
    return result(
      'ack-seq',
      title,
      'FAIL',
      `event_ack last_seq ${back.lastSeq} at ${s(back.at)} after last_seq ${back.previous}`,
    );
  }
  if (seen.lastAckSeq === undefined)
    return result('ack-seq', title, 'pass', 'acks carry no last_seq (they drain everything sent)');
  return result('ack-seq', title, 'pass', `every last_seq within what was sent (last ${seen.lastAckSeq})`);
}

function answersPing(seen: Observations): CheckResult {
  const title = 'ping is answered with pong';
  const ping = seen.ping;
  if (!ping) return result('pong', title, 'not exercised', 'the run ended before the scripted ping');
  if (ping.pongAt === undefined) {
    return result(
      'pong',
      title,
      'FAIL',
      `ping sent at ${s(ping.at)} (after ${ping.afterEvents} events); no pong`,
    );
  }
  const took = ping.pongAt - ping.at;
  if (took > ping.timeoutMs) {
    return result(
      'pong',
      title,
      'FAIL',
      `pong came ${s(took)} after the ping (the checker waits ${s(ping.timeoutMs)})`,
    );
  }
  return result('pong', title, 'pass', `pong ${took} ms after the ping`);
}

function authenticates(seen: Observations): CheckResult {
  const title = 'every /v1 call and the socket carry the API key';
  const first = seen.unauthenticated[0];
  if (!first) return result('auth', title, 'pass', 'PLATFORM_GATEWAY_API_KEY sent every time');
  const more = seen.unauthenticated.length > 1 ? ` (${seen.unauthenticated.length} in all)` : '';
  return result('auth', title, 'FAIL', `${first.what} at ${s(first.at)} had no valid key${more}`);
}

function decimalStrings(seen: Observations): CheckResult {
  const title = 'money is sent as decimal strings, not JSON numbers';
  const first = seen.moneyAsNumbers[0];
  if (first) {
    const more = seen.moneyAsNumbers.length > 1 ? ` (${seen.moneyAsNumbers.length} requests)` : '';
    return result(
      'decimals',
      title,
      'FAIL',
      `${call(first.request)} sent ${first.fields.join(', ')} as a number${more}: ${first.excerpt}`,
    );
  }
  return seen.requestsWithBody > 0
    ? result('decimals', title, 'pass', `decimal strings in every request body (${seen.requestsWithBody})`)
    : result('decimals', title, 'not exercised', 'the strategy sent no request with a body (no order)');
}

function honoursRetryAfter(seen: Observations): CheckResult {
  const title = 'a 429 is retried no sooner than retry_after_seconds, without a storm';
  const fault = seen.rateLimited;
  if (!fault) return result('retry-after', title, 'not exercised', 'the strategy placed no order');
  if (fault.answeredAt === undefined)
    return result('retry-after', title, 'not exercised', 'the 429 never reached the strategy');
  const wait = fault.retryAfterSeconds * 1000;
  const first = fault.repeats[0];
  if (!first && seen.endedAt !== undefined && seen.endedAt - fault.answeredAt < wait) {
    const after = s(seen.endedAt - fault.answeredAt);
    return result(
      'retry-after',
      title,
      'not exercised',
      `the run ended ${after} after the 429, inside the window`,
    );
  }
  if (!first) {
    return result(
      'retry-after',
      title,
      'pass',
      `the first order got 429 (retry_after_seconds ${fault.retryAfterSeconds}); it was not sent again (allowed)`,
    );
  }
  const gap = first.at - fault.answeredAt;
  if (fault.early > 0) {
    return result(
      'retry-after',
      title,
      'FAIL',
      `the order was sent again ${s(gap)} after the 429 (retry_after_seconds ${fault.retryAfterSeconds})` +
        (fault.early > 1 ? `; ${fault.early} retries inside the window` : ''),
    );
  }
  return result(
    'retry-after',
    title,
    'pass',
    `retried ${s(gap)} after the 429 (retry_after_seconds ${fault.retryAfterSeconds}; ${RETRY_TOLERANCE_MS} ms tolerance)`,
  );
}

function noRetryOfRefusals(seen: Observations): CheckResult {
  const title = 'a non-retryable 4xx is not sent again';
  const fault = seen.rejected;
  const retried = fault?.repeats[0];
  if (
    fault &&
    retried &&
    fault.answeredAt !== undefined &&
    fault.status !== undefined &&
    fault.status >= 400
  ) {
    return result(
      'no-retry-4xx',
      title,
      'FAIL',
      `${call(retried)} was answered ${fault.status} ${fault.code} at ${s(fault.answeredAt)} and sent again at ${s(retried.at)}` +
        (fault.repeats.length > 1 ? ` (${fault.repeats.length} times)` : ''),
    );
  }
  const other = seen.retriedRefusals[0];
  if (other) {
    return result(
      'no-retry-4xx',
      title,
      'FAIL',
      `${call(other.request)} was answered ${other.status} ${other.code} at ${s(other.firstAt)} and sent again at ${s(other.request.at)}`,
    );
  }
  if (!fault)
    return result('no-retry-4xx', title, 'not exercised', 'the strategy placed fewer than two orders');
  if (fault.status === undefined || fault.status < 400) {
    return result(
      'no-retry-4xx',
      title,
      'not exercised',
      `the gateway answered the enlarged second order ${fault.status ?? 'nothing'}, not a 4xx`,
    );
  }
  return result(
    'no-retry-4xx',
    title,
    'pass',
    `the second order got ${fault.status} ${fault.code} and was not sent again`,
  );
}

function clientOrderIds(seen: Observations): CheckResult {
  const title = 'a client_order_id is never reused with another body';
  const reuse = seen.clientOrderIdReuse[0];
  if (reuse) {
    return result(
      'client-order-id',
      title,
      'FAIL',
      `client_order_id ${JSON.stringify(reuse.clientOrderId)} at ${s(reuse.at)} with ${reuse.second.slice(0, 200)}; first used with ${reuse.first.slice(0, 200)}`,
    );
  }
  return seen.rateLimited
    ? result('client-order-id', title, 'pass', 'each client_order_id kept its body')
    : result('client-order-id', title, 'not exercised', 'the strategy placed no order');
}

function resumes(seen: Observations): CheckResult {
  const title = 'a dropped socket is reopened with resume_from_seq';
  const drop = seen.drop;
  if (!drop) {
    const why = seen.dropOff
      ? 'the socket drop is off (--no-drop)'
      : 'the run ended before the scripted drop';
    return result('resume', title, 'not exercised', why);
  }
  const reconnect = drop.reconnect;
  if (!reconnect) {
    return result(
      'resume',
      title,
      'FAIL',
      `the socket was cut at ${s(drop.at)} (seq ${drop.maxSeqDelivered} delivered); the strategy did not connect again`,
    );
  }
  if (reconnect.resumeFromSeq === undefined) {
    return result(
      'resume',
      title,
      'FAIL',
      `reconnected ${s(reconnect.at - drop.at)} after the cut without resume_from_seq (events since seq ${drop.maxSeqDelivered} would be lost)`,
    );
  }
  if (!Number.isSafeInteger(reconnect.resumeFromSeq) || reconnect.resumeFromSeq > drop.maxSeqDelivered) {
    return result(
      'resume',
      title,
      'FAIL',
      `resume_from_seq=${reconnect.resumeFromSeq}, but only seq ${drop.maxSeqDelivered} had been delivered`,
    );
  }
  return result(
    'resume',
    title,
    'pass',
    `reconnected ${s(reconnect.at - drop.at)} after the cut with resume_from_seq=${reconnect.resumeFromSeq} (seq ${drop.maxSeqDelivered} delivered)`,
  );
}

function exitsCleanly(seen: Observations): CheckResult {
  const title = 'the strategy exits 0 at the end';
  const exit = seen.exit;
  if (!exit) return result('exit', title, 'not exercised', 'the process did not end');
  const how = exit.signal ? `was stopped by ${exit.signal}` : `exited ${exit.code}`;
  if (exit.stoppedAfterEnd) {
    return result(
      'exit',
      title,
      'pass',
      'still running 10 s after the end; stopped (decision 19b: not a fault)',
    );
  }
  if (exit.stoppedAtLimit)
    return result('exit', title, 'not exercised', 'stopped by the checker at the time limit');
  if (exit.code === 0)
    return result(
      'exit',
      title,
      'pass',
      exit.beforeEnd ? 'exited 0 before the end of the backtest' : 'exited 0',
    );
  const tail =
    seen.outputTail.length > 0
      ? `; its last output:\n${seen.outputTail.map((l) => `      ${l}`).join('\n')}`
      : '';
  const early = exit.beforeEnd ? ` before the backtest ended${afterCut(seen)}` : '';
  return result('exit', title, 'FAIL', `${how}${early}${tail}`);
}

/** A strategy that does not resume ends early: said where the early end is reported. */
function afterCut(seen: Observations): string {
  return seen.drop && !seen.drop.reconnect ? ', after the checker cut its socket (see resume)' : '';
}
