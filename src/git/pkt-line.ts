// git's pkt-line framing (gitprotocol-common): each line is its length in 4 hex digits (the 4 included) and its
// payload; `0000` is a flush packet, and protocol version 2 adds `0001` (delimiter) and `0002` (response end).
// Written by the server side of upload-pack (src/git/upload-pack.ts), read by it and by the import's client
// (src/git/fetch.ts). A reader never holds more than one packet and the chunk it arrived in.

/** The most a packet holds, its 4 length digits included (git's LARGE_PACKET_MAX). */
export const MAX_PACKET_BYTES = 65520;
/** The most payload one packet carries. */
export const MAX_PACKET_PAYLOAD_BYTES = MAX_PACKET_BYTES - 4;

export const FLUSH_PACKET = Buffer.from('0000');
export const DELIMITER_PACKET = Buffer.from('0001');

/** A packet line carrying `payload` (a string is written as UTF-8). */
export function packetLine(payload: string | Uint8Array): Buffer {
  const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload;
  if (bytes.length > MAX_PACKET_PAYLOAD_BYTES) throw new RangeError('a packet line is longer than git allows');
  const line = Buffer.allocUnsafe(bytes.length + 4);
  line.write((bytes.length + 4).toString(16).padStart(4, '0'), 0, 'latin1');
  line.set(bytes, 4);
  return line;
}

/** A stream of packets that is not git's framing: a length that is not one, or a packet cut short. */
export class PacketLineError extends Error {
  override readonly name = 'PacketLineError';
}

/** A packet as read: its payload, or one of the special packets. */
export type Packet = Buffer | 'flush' | 'delimiter' | 'response-end';

/**
 * Reads pkt-lines out of a stream of chunks: `read()` gives every kind of packet, `next()` a line's payload or null
 * for a flush (what version 0 of the protocol has). `error` makes the error it throws on a malformed stream
 * (PacketLineError unless given); `maxBytes` bounds what the whole stream may bring.
 */
export class PacketReader {
  private buffer: Buffer = Buffer.alloc(0);
  private ended = false;
  private received = 0;
  private readonly chunks: AsyncIterator<Uint8Array> | Iterator<Uint8Array>;
  private readonly error: (message: string) => Error;
  private readonly maxBytes: number;

  constructor(
    chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    options: { error?: (message: string) => Error; maxBytes?: number } = {},
  ) {
    this.chunks = Symbol.asyncIterator in chunks ? chunks[Symbol.asyncIterator]() : chunks[Symbol.iterator]();
    this.error = options.error ?? ((message) => new PacketLineError(message));
    this.maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
  }

  private async fill(bytes: number): Promise<boolean> {
    while (this.buffer.length < bytes && !this.ended) {
      const { value, done } = await this.chunks.next();
      if (done) {
        this.ended = true;
        break;
      }
      this.received += value.byteLength;
      if (this.received > this.maxBytes) throw this.error('the request is larger than allowed');
      const chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    }
    return this.buffer.length >= bytes;
  }

  /** The next packet, undefined at the end of the stream. */
  async read(): Promise<Packet | undefined> {
    if (!(await this.fill(4))) {
      if (this.buffer.length) throw this.error('a packet is cut short');
      return undefined;
    }
    const digits = this.buffer.toString('latin1', 0, 4);
    const length = Number.parseInt(digits, 16);
    if (!/^[0-9a-f]{4}$/i.test(digits) || length === 3 || length > MAX_PACKET_BYTES) throw this.error('not a packet line');
    if (length < 4) {
      this.buffer = this.buffer.subarray(4);
      return length === 0 ? 'flush' : length === 1 ? 'delimiter' : 'response-end';
    }
    if (!(await this.fill(length))) throw this.error('a packet is cut short');
    const payload = this.buffer.subarray(4, length);
    this.buffer = this.buffer.subarray(length);
    return payload;
  }

  /**
   * The next packet's payload, null for a flush (`0000`), undefined at the end of the stream; the special packets of
   * version 2 are errors.
   */
  async next(): Promise<Buffer | null | undefined> {
    const packet = await this.read();
    if (packet === 'flush') return null;
    if (typeof packet === 'string') throw this.error('not a packet line');
    return packet;
  }

  /** The rest of the stream as it is (a pack sent without side-band). */
  async *rest(): AsyncIterableIterator<Buffer> {
    if (this.buffer.length) yield this.buffer;
    this.buffer = Buffer.alloc(0);
    for (;;) {
      const { value, done } = await this.chunks.next();
      if (done) return;
      yield Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    }
  }
}
