// bench:ingest's load generator: protobuf batches POSTed to /v1/traces as an OTLP exporter sends them, each sent
// again after 50 ms while the collector refuses it (429 or 503), and counted. node:http on kept-alive
// connections, not fetch: fetch's objects per request cost this process 8.6 µs per span against 1.3–3.0, on the
// two cores the collector and the server share (docs/decisions/0069-the-load-generator-and-the-merge.md).
import http from 'node:http';

/** Longer than any answer a working collector gives under the bench's load: past it the run fails. */
const ANSWER_MS = 300_000;

export class LoadGenerator {
  /** Requests refused (429 or 503) and sent again. */
  refused = 0;
  readonly #agent = new http.Agent({ keepAlive: true });
  readonly #gzip: boolean;

  /** `gzip`: the bodies given are gzipped, and say so (content-encoding). */
  constructor({ gzip = false }: { gzip?: boolean } = {}) {
    this.#gzip = gzip;
  }

  /** Sends `body` to the collector at `url` until it is accepted (200); any other answer throws. */
  async send(url: string, body: Uint8Array): Promise<void> {
    for (; ; this.refused++) {
      const status = await this.#post(url, body);
      if (status === 200) return;
      if (status !== 429 && status !== 503) throw new Error(`unexpected ${status}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.#agent.destroy();
  }

  #post(url: string, body: Uint8Array): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        `${url}/v1/traces`,
        {
          method: 'POST',
          agent: this.#agent,
          headers: {
            'content-type': 'application/x-protobuf',
            'content-length': body.length,
            ...(this.#gzip ? { 'content-encoding': 'gzip' } : {}),
          },
        },
        (res) => {
          res.on('data', () => {});
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        },
      );
      req.setTimeout(ANSWER_MS, () => req.destroy(new Error(`no answer in ${ANSWER_MS} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }
}
