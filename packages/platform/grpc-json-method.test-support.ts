// For tests of the gRPC plumbing on a real grpc-js server: a unary method whose messages are JSON,
// so a test needs no generated code.
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
