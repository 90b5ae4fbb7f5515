import { randomUUID } from 'node:crypto';

/** Canonical textual UUID, any version (ids of other systems may be v1..v8). */
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => uuidPattern.test(value);

export const newId = (): string => randomUUID();
