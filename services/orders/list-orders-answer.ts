// ListOrdersResponse written straight into one buffer. ts-proto's encoder copies a page (35 KB for
// 100 orders) into a zero-filled array of its own and then into a Buffer, before grpc-js copies it
// once more into its frame: each of those is an ArrayBuffer, and V8 counts the ArrayBuffers
// allocated since its last full collection against the old generation's budget, so the copies
// brought the orders service's full collections sooner. Same bytes as ts-proto's encoder
// (list-orders-answer.test.ts), so the edge decodes it with the generated code.
import { type ListOrdersResponse, OrdersServiceService } from "@waybill/contracts/gen/waybill/orders/v1/orders.js";

const NEXT_CURSOR_TAG = (2 << 3) | 2; // field 2, length-delimited
const DATA_JSON_TAG = (3 << 3) | 2; // field 3, length-delimited

const varintLength = (value: number) => (value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5);

function writeVarint(buffer: Buffer, offset: number, value: number): number {
  let rest = value;
  while (rest >= 0x80) {
    buffer[offset++] = (rest & 0x7f) | 0x80;
    rest >>>= 7;
  }
  buffer[offset++] = rest;
  return offset;
}

export function encodeListOrdersResponse(message: ListOrdersResponse): Buffer {
  const cursor = message.nextCursor;
  const cursorLength = cursor === undefined ? -1 : Buffer.byteLength(cursor);
  const data = message.dataJson;
  const size = (cursorLength < 0 ? 0 : 1 + varintLength(cursorLength) + cursorLength) + (data.length === 0 ? 0 : 1 + varintLength(data.length) + data.length);
  const out = Buffer.allocUnsafe(size);
  let offset = 0;
  if (cursor !== undefined) {
    out[offset++] = NEXT_CURSOR_TAG;
    offset = writeVarint(out, offset, cursorLength);
    offset += out.write(cursor, offset);
  }
  if (data.length !== 0) {
    out[offset++] = DATA_JSON_TAG;
    offset = writeVarint(out, offset, data.length);
    out.set(data, offset);
  }
  return out;
}

/** The orders service's definition, its list pages written by encodeListOrdersResponse. */
export const ordersServiceDefinition = {
  ...OrdersServiceService,
  listOrders: { ...OrdersServiceService.listOrders, responseSerialize: encodeListOrdersResponse },
} as const satisfies typeof OrdersServiceService;
