// The amounts the orders tables can hold. Money columns are numeric(19, 4): 15 digits before the
// decimal point. A price is capped there by its format, but a total (prices × quantities, summed)
// can pass it, and PostgreSQL would refuse the row with an overflow, a 500 for valid-looking input.
import { formatMinorUnits, MAX_AMOUNT_INTEGER_DIGITS } from "@waybill/platform/money.js";

/** The largest amount a money column holds, in minor units of a currency with `scale` digits. */
export function maxAmountUnits(scale: number): bigint {
  return 10n ** BigInt(MAX_AMOUNT_INTEGER_DIGITS + scale) - 1n;
}

export function fitsAmountColumn(units: bigint, scale: number): boolean {
  const max = maxAmountUnits(scale);
  return units <= max && units >= -max;
}

/** "999999999999999.99" for a scale of 2: what error messages name as the limit. */
export function maxAmountText(scale: number): string {
  return formatMinorUnits(maxAmountUnits(scale), scale);
}
