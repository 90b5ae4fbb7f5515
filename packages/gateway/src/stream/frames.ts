/**
 * Server-to-client WebSocket frames, built once per event (RFC 6455, section 5.2): FIN and the text
 * opcode, the payload length (7 bits, or 126 and 16 bits, or 127 and 64 bits), no mask (a server
 * never masks), then the UTF-8 payload. The event stream frames each event once and writes a whole
 * batch to every connection's socket in one write, instead of asking `ws` to frame the same text
 * again per connection (a header and a payload: two buffers per event, one `writev` of them all).
 */
const FIN_TEXT = 0x81;

function headerLength(payloadLength: number): number {
  if (payloadLength < 126) return 2;
  if (payloadLength < 65_536) return 4;
  return 10;
}

function writeHeader(target: Buffer, at: number, payloadLength: number): number {
  target[at] = FIN_TEXT;
  if (payloadLength < 126) {
    target[at + 1] = payloadLength;
    return at + 2;
  }
  if (payloadLength < 65_536) {
    target[at + 1] = 126;
    target.writeUInt16BE(payloadLength, at + 2);
    return at + 4;
  }
  target[at + 1] = 127;
  target.writeUInt32BE(Math.floor(payloadLength / 2 ** 32), at + 2);
  target.writeUInt32BE(payloadLength >>> 0, at + 6);
  return at + 10;
}

/** Frames `texts` as text frames, in order, back to back in one buffer. */
export function textFrames(texts: readonly string[]): Buffer {
  const lengths = new Array<number>(texts.length);
  let total = 0;
  for (let i = 0; i < texts.length; i++) {
    const length = Buffer.byteLength(texts[i] as string);
    lengths[i] = length;
    total += headerLength(length) + length;
  }
  const batch = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; i < texts.length; i++) {
    at = writeHeader(batch, at, lengths[i] as number);
    at += batch.write(texts[i] as string, at, 'utf8');
  }
  return batch;
}

/** One text frame. */
export const textFrame = (text: string): Buffer => textFrames([text]);
