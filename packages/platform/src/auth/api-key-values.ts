import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

/** API keys: 40 random base62 characters; the first 8 are the prefix that identifies the key. */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const API_KEY_LENGTH = 40;
export const API_KEY_PREFIX_LENGTH = 8;
export const apiKeyPrefixPattern = /^[A-Za-z0-9]{8}$/;

export function generateApiKey(): string {
  let key = '';
  for (let i = 0; i < API_KEY_LENGTH; i++) key += ALPHABET[randomInt(ALPHABET.length)];
  return key;
}

export const apiKeyPrefix = (key: string): string => key.slice(0, API_KEY_PREFIX_LENGTH);

export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

export function apiKeyMatches(key: string, storedHash: string): boolean {
  const given = Buffer.from(hashApiKey(key), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}
