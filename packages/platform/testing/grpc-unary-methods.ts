// For tests and benchmarks of the gRPC plumbing on a real grpc-js server: unary methods whose
// messages are JSON or raw bytes, so they need no generated code.
const serialize = (value: unknown) => Buffer.from(JSON.stringify(value));
const deserialize = (buffer: Buffer) => JSON.parse(buffer.toString());

export function jsonUnaryMethod(path: string) {
  return {
    path,
    requestStream: false,
    responseStream: false,
    requestSerialize: serialize,
    requestDeserialize: deserialize,
    responseSerialize: serialize,
    responseDeserialize: deserialize,
  };
}

const raw = (buffer: Buffer) => buffer;

export function bytesUnaryMethod(path: string) {
  return {
    path,
    requestStream: false,
    responseStream: false,
    requestSerialize: raw,
    requestDeserialize: raw,
    responseSerialize: raw,
    responseDeserialize: raw,
  };
}
