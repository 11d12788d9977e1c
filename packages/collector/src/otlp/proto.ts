// protobufjs types of the OTLP trace protocol, built once from the embedded .proto text. 64-bit integers
// decode as Long (exact nanoseconds), never as lossy doubles.
import Long from 'long';
import protobuf from 'protobufjs';
import { OTLP_PROTO } from './proto-schema.js';

protobuf.util.Long = Long;
protobuf.configure();

const root = protobuf.parse(OTLP_PROTO, { keepCase: false }).root;
const pkg = 'opentelemetry.proto.otlp';

export const ExportTraceServiceRequest = root.lookupType(`${pkg}.ExportTraceServiceRequest`);
export const ExportTraceServiceResponse = root.lookupType(`${pkg}.ExportTraceServiceResponse`);
export const RpcStatus = root.lookupType(`${pkg}.RpcStatus`);
export const RetryInfo = root.lookupType(`${pkg}.RetryInfo`);

export { Long };
