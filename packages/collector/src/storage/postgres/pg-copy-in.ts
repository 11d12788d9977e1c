// COPY … FROM STDIN as a node-postgres query, its data sent with the statement: one round trip.
// pg-copy-streams, used before, held the data until the server's CopyInResponse came back, so each COPY cost two
// round trips, and a batch's transaction makes two COPYs (docs/decisions/0082). The protocol allows the data to
// follow at once: a COPY the server refuses before it reads its data (a missing table, a lock timeout) ends in
// an ErrorResponse, and the CopyData and CopyDone messages after it are dropped ("any subsequent CopyData,
// CopyDone, or CopyFail messages issued by the frontend will simply be dropped", PostgreSQL's protocol chapter,
// COPY operations); the server's main loop accepts and ignores them outside a COPY.
import pg from 'pg';

const COPY_DATA = 0x64; // 'd'
const COPY_DONE = 0x63; // 'c'

/** CopyData with `data` as its payload, then CopyDone: the message frames, each a type byte and an int32 length. */
function frames(data: Uint8Array): { head: Buffer; done: Buffer } {
  const head = Buffer.allocUnsafe(5);
  head[0] = COPY_DATA;
  head.writeUInt32BE(data.length + 4, 1);
  const done = Buffer.from([COPY_DONE, 0, 0, 0, 4]);
  return { head, done };
}

/**
 * node-postgres calls `submit`, then a handler for each message the server answers with. A Query of its own
 * kind: a pipelined connection (the writer's, pg-writer.ts) takes no other submittable, since a query that keeps
 * a portal open across round trips would take the answers of the queries written behind it. A COPY FROM keeps
 * none: the server answers it whole before it reads what follows.
 */
export class CopyIn extends pg.Query {
  readonly text: string;
  readonly #data: Uint8Array;
  #error: Error | undefined;
  #settled = false;
  /** Rows the server reported copied. */
  rowCount = 0;
  /** Set by `copyIn`; node-postgres wraps it with its read timeout (query_timeout), which is why it is a field. */
  callback: (error: Error | null) => void = () => {};

  constructor(text: string, data: Uint8Array) {
    super(text);
    this.text = text;
    this.#data = data;
  }

  /** Sends the statement, the data and the end of the data in one write. */
  override submit = (connection: pg.Connection): void => {
    const { head, done } = frames(this.#data);
    connection.stream.cork();
    connection.query(this.text);
    connection.stream.write(head);
    connection.stream.write(this.#data);
    connection.stream.write(done);
    connection.stream.uncork();
  };

  handleCopyInResponse(): void {
    // The data went with the statement.
  }

  handleCommandComplete(message: { text?: string }): void {
    const copied = /^COPY (\d+)$/.exec(message.text ?? '');
    if (copied?.[1]) this.rowCount = Number(copied[1]);
  }

  handleError(error: Error): void {
    this.#error ??= error;
    this.#settle();
  }

  handleReadyForQuery(): void {
    this.#settle();
  }

  // A COPY FROM returns no rows: any of these is a server that did not run it as one.
  handleRowDescription(): void {
    this.#error ??= new Error(`${this.text} returned rows`);
  }
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}

  #settle(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.callback(this.#error ?? null);
  }
}

/** Runs a COPY … FROM STDIN with its data on `client`; resolves with the rows copied once the server is done. */
export function copyIn(client: pg.ClientBase, text: string, data: Uint8Array): Promise<number> {
  const copy = new CopyIn(text, data);
  return new Promise<number>((resolve, reject) => {
    copy.callback = (error) => (error ? reject(error) : resolve(copy.rowCount));
    client.query(copy);
  });
}
