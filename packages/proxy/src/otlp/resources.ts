// The OTel resource of each span the proxy exports: its session's server as that server named itself, decided
// when the span ends (a 2026-07-28 server names itself in every answer, so a call's own answer is enough). One
// proxy serves many sessions over its life, and each is named by its own server; a session whose server never
// said a name takes the name the upstream said last, else one read from the command line or URL: the
// collector's service list never shows a placeholder.
import type { Attributes } from '@opentelemetry/api';
import * as sc from '@toolscope/instrument/semconv';
import { encodeResource } from './span-encoder.js';

/** A session's server as it named itself (`serverInfo`), filled in by the session's observer. */
export type ServerIdentity = { name: string | undefined; version: string | undefined };

/** A resource and its `resource` field's bytes, encoded once. */
export type OtlpResource = { readonly attributes: Attributes; readonly bytes: Buffer };

/** A resource of `attributes`, encoded. */
export function otlpResource(attributes: Attributes): OtlpResource {
  return { attributes, bytes: encodeResource(attributes) };
}

// Names are the upstream's to choose: past this many, the table starts again (spans keep their resource).
const MAX_RESOURCES = 256;

/** Which resource a span of a session is exported under. */
export class ServiceResources {
  readonly #fixed: OtlpResource | undefined;
  readonly #fallback: OtlpResource;
  readonly #known = new Map<string, OtlpResource>();
  // Each session's last answer, while its server's name stands: a span's end reads it without building a key.
  readonly #last = new WeakMap<
    ServerIdentity,
    { name: string; version: string | undefined; resource: OtlpResource }
  >();
  #latest: OtlpResource | undefined;

  /** `serviceName`: `--service-name`, which names every span; `fallback`: the name for a server never named. */
  constructor(serviceName: string | undefined, fallback: string) {
    this.#fixed = serviceName ? otlpResource({ [sc.ATTR_SERVICE_NAME]: serviceName }) : undefined;
    this.#fallback = otlpResource({ [sc.ATTR_SERVICE_NAME]: fallback });
  }

  /** The resource of a span of the session whose server is `server` (none: the proxy's own spans). */
  of(server: ServerIdentity | undefined): OtlpResource {
    if (this.#fixed) return this.#fixed;
    const name = server?.name;
    if (server === undefined || name === undefined) return this.#latest ?? this.#fallback;
    const version = server.version;
    const last = this.#last.get(server);
    if (last?.name === name && last.version === version) {
      this.#latest = last.resource;
      return last.resource;
    }
    const key = version === undefined ? name : `${name}\n${version}`;
    let known = this.#known.get(key);
    if (!known) {
      if (this.#known.size >= MAX_RESOURCES) this.#known.clear();
      known = otlpResource({
        [sc.ATTR_SERVICE_NAME]: name,
        ...(version ? { [sc.ATTR_SERVICE_VERSION]: version } : {}),
      });
      this.#known.set(key, known);
    }
    this.#last.set(server, { name, version, resource: known });
    this.#latest = known;
    return known;
  }
}
