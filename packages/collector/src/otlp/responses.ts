// OTLP/HTTP response bodies in the request's encoding: ExportTraceServiceResponse (with partial_success when
// spans were refused) and google.rpc.Status for failures.
import { ExportTraceServiceResponse, Long, RetryInfo, RpcStatus } from './proto.js';

export type Encoding = 'protobuf' | 'json';

export const CONTENT_TYPES: Record<Encoding, string> = {
  protobuf: 'application/x-protobuf',
  json: 'application/json',
};

export { RPC_CODE } from '../errors.js';

export function exportResponse(
  encoding: Encoding,
  rejected: number,
  errorMessage: string,
): Buffer | string {
  if (encoding === 'json') {
    return rejected > 0
      ? JSON.stringify({ partialSuccess: { rejectedSpans: String(rejected), errorMessage } })
      : '{}';
  }
  const payload =
    rejected > 0
      ? { partialSuccess: { rejectedSpans: Long.fromNumber(rejected), errorMessage } }
      : {};
  return Buffer.from(
    ExportTraceServiceResponse.encode(ExportTraceServiceResponse.create(payload)).finish(),
  );
}

export function statusBody(encoding: Encoding, code: number, message: string): Buffer | string {
  if (encoding === 'json') return JSON.stringify({ code, message });
  return Buffer.from(RpcStatus.encode(RpcStatus.create({ code, message })).finish());
}

/**
 * google.rpc.Status carrying a google.rpc.RetryInfo (the OTLP/gRPC throttling answer): exporters wait
 * `seconds` before retrying RESOURCE_EXHAUSTED or UNAVAILABLE. Sent as `grpc-status-details-bin`.
 */
export function retryStatus(code: number, message: string, seconds: number): Buffer {
  const retryInfo = RetryInfo.encode(
    RetryInfo.create({ retryDelay: { seconds: Long.fromNumber(seconds), nanos: 0 } }),
  ).finish();
  const details = [{ typeUrl: 'type.googleapis.com/google.rpc.RetryInfo', value: retryInfo }];
  return Buffer.from(RpcStatus.encode(RpcStatus.create({ code, message, details })).finish());
}
