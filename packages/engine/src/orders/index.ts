export * from './order-request.ts';
export * from './order-states.ts';
export * from './order-types.ts';
export * from './order-view.ts';
export * from './position-requests.ts';
export * from './time-in-force.ts';
