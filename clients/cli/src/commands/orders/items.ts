// --item prd_…:QUANTITY:PRICE, one order line per flag (repeatable).
import { InvalidArgumentError } from "commander";

export interface OrderItemInput {
  productId: string;
  quantity: number;
  /** A decimal string, passed on as written (never through floating point). */
  price: string;
}

const ITEM = /^([a-z]+_[0-9A-Za-z]+):(\d+):(\d+(?:\.\d+)?)$/;

export function orderItem(value: string, previous: OrderItemInput[] = []): OrderItemInput[] {
  const match = ITEM.exec(value.trim());
  if (!match) throw new InvalidArgumentError(`"${value}" must be PRODUCT:QUANTITY:PRICE, e.g. prd_01j…:2:19.99`);
  const quantity = Number(match[2]);
  if (!Number.isSafeInteger(quantity) || quantity < 1) throw new InvalidArgumentError(`the quantity in "${value}" must be a whole number of at least 1`);
  return [...previous, { productId: match[1], quantity, price: match[3] }];
}
