// protobufjs types of the OTLP trace protocol, built once from the embedded .proto text: the collector encodes
// its answers with them, and tests build requests. 64-bit integers are Long (exact), never lossy doubles.
// Requests are decoded by decode-proto.ts with protobufjs's Reader alone.
import Long from 'long';
import protobuf from 'protobufjs';
import { OTLP_PROTO } from './proto-schema.js';

protobuf.util.Long = Long;
protobuf.configure();

const root = protobuf.parse(OTLP_PROTO, { keepCase: false }).root;
const pkg = 'opentelemetry.proto.otlp';

export const ExportTraceServiceRequest = root.lookupType(`${pkg}.ExportTraceServiceRequest`);
/** The reader decodeProtobuf walks the request with (decode-proto.ts). */
export const ProtoReader = protobuf.Reader;
export type ProtoReader = protobuf.Reader;
export const ExportTraceServiceResponse = root.lookupType(`${pkg}.ExportTraceServiceResponse`);
export const RpcStatus = root.lookupType(`${pkg}.RpcStatus`);
export const RetryInfo = root.lookupType(`${pkg}.RetryInfo`);

export { Long };
