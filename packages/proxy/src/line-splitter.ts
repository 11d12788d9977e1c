// Newline framing of a byte stream (the MCP stdio transport: one JSON-RPC message per line), without copying a
// complete line out of the chunk it arrived in. A line longer than the cap is passed on in pieces, marked so.

/**
 * What a piece of the stream is handed to: `whole` when it is an entire line (else a piece of one too long to
 * hold), `newline` when it ends with the line's newline, which `bytes` then includes (so a piece can be written
 * on as it is, in one write).
 */
export type LineHandler = (bytes: Buffer, whole: boolean, newline: boolean) => void;

const NEWLINE = 0x0a;

/** Splits chunks into lines; `flush()` hands on a last line that had no newline. */
export class LineSplitter {
  readonly #onLine: LineHandler;
  readonly #maxLine: number;
  #parts: Buffer[] = [];
  #held = 0;
  #cut = false;

  constructor(onLine: LineHandler, maxLineBytes: number) {
    this.#onLine = onLine;
    this.#maxLine = maxLineBytes;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end === -1) break;
      const piece = chunk.subarray(start, end + 1);
      if (this.#held === 0 && !this.#cut) this.#onLine(piece, true, true);
      else this.#emit(piece, true);
      start = end + 1;
    }
    if (start < chunk.length) this.#hold(chunk.subarray(start));
  }

  /** Hands on what is left: a last line without a newline. */
  flush(): void {
    if (this.#held > 0) this.#emit(Buffer.alloc(0), false);
    this.#cut = false;
  }

  #hold(rest: Buffer): void {
    this.#parts.push(Buffer.from(rest));
    this.#held += rest.length;
    if (this.#held > this.#maxLine) {
      // Too long to keep: what is held goes on now, and the rest of this line follows as pieces.
      const joined = Buffer.concat(this.#parts);
      this.#parts = [];
      this.#held = 0;
      this.#cut = true;
      this.#onLine(joined, false, false);
    }
  }

  #emit(last: Buffer, newline: boolean): void {
    const joined = this.#parts.length === 0 ? last : Buffer.concat([...this.#parts, last]);
    const whole = !this.#cut;
    this.#parts = [];
    this.#held = 0;
    this.#cut = false;
    this.#onLine(joined, whole, newline);
  }
}
