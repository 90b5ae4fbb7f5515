import { maxHeaderSize } from 'node:http';
import type { Socket } from 'node:net';
import { badRequest } from '@hindsight/core';

/**
 * Requests Node's HTTP parser refuses before any route sees them: a request line and headers over
 * its limit (a very long query string, typically) or bytes that are not HTTP. They still get the
 * spec's envelope, a 400 `BAD_REQUEST` saying what to fix, instead of Fastify's own
 * `{error, message, statusCode}` body (and its 431 for the first).
 */
function messageFor(code: string | undefined): string {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return `The request line and headers are larger than ${maxHeaderSize / 1024} KiB; shorten the query string (or the headers).`;
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'The request did not arrive in time; send it again.';
  return 'The request is not valid HTTP/1.1.';
}

export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const body = JSON.stringify(badRequest(messageFor(error.code)).toBody());
    socket.write(
      'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
