/**
 * The gateway's wire protocol in one place: request bodies into the engine's typed commands
 * (`order-requests.ts`, `position-requests.ts`, on the stages of `wire-fields.ts`), decision 19's
 * idempotency (`idempotency.ts`), and the one table from the engine's answers (denials, rejections)
 * to the spec's ApiError codes (`outcomes.ts`). Routes read a body once: parse it here, check
 * idempotency, call the provider, map its answer here.
 */
export * from './idempotency.ts';
export * from './order-requests.ts';
export * from './outcomes.ts';
export * from './position-requests.ts';
export * from './wire-fields.ts';
