// Money as decimal strings: parsed into integer minor units (bigint) and formatted back, so
// that no amount ever passes through floating point.
import { platformError } from "./errors.js";

/** Digits before the decimal point an amount may have (money columns are numeric(19, 4)). */
export const MAX_AMOUNT_INTEGER_DIGITS = 15;
const DECIMAL = new RegExp(`^-?\\d{1,${MAX_AMOUNT_INTEGER_DIGITS}}(\\.\\d+)?$`);

/**
 * The ISO 4217 codes accepted (Intl.supportedValuesOf("currency") of Node 20.20, ICU 78.2),
 * written out so that the API and its OpenAPI enum do not change with the runtime's ICU data.
 */
export const CURRENCY_CODES: readonly string[] = [
  "AED",
  "AFN",
  "ALL",
  "AMD",
  "ANG",
  "AOA",
  "ARS",
  "AUD",
  "AWG",
  "AZN",
  "BAM",
  "BBD",
  "BDT",
  "BGN",
  "BHD",
  "BIF",
  "BMD",
  "BND",
  "BOB",
  "BRL",
  "BSD",
  "BTN",
  "BWP",
  "BYN",
  "BZD",
  "CAD",
  "CDF",
  "CHF",
  "CLP",
  "CNY",
  "COP",
  "CRC",
  "CUC",
  "CUP",
  "CVE",
  "CZK",
  "DJF",
  "DKK",
  "DOP",
  "DZD",
  "EGP",
  "ERN",
  "ETB",
  "EUR",
  "FJD",
  "FKP",
  "GBP",
  "GEL",
  "GHS",
  "GIP",
  "GMD",
  "GNF",
  "GTQ",
  "GYD",
  "HKD",
  "HNL",
  "HRK",
  "HTG",
  "HUF",
  "IDR",
  "ILS",
  "INR",
  "IQD",
  "IRR",
  "ISK",
  "JMD",
  "JOD",
  "JPY",
  "KES",
  "KGS",
  "KHR",
  "KMF",
  "KPW",
  "KRW",
  "KWD",
  "KYD",
  "KZT",
  "LAK",
  "LBP",
  "LKR",
  "LRD",
  "LSL",
  "LYD",
  "MAD",
  "MDL",
  "MGA",
  "MKD",
  "MMK",
  "MNT",
  "MOP",
  "MRU",
  "MUR",
  "MVR",
  "MWK",
  "MXN",
  "MYR",
  "MZN",
  "NAD",
  "NGN",
  "NIO",
  "NOK",
  "NPR",
  "NZD",
  "OMR",
  "PAB",
  "PEN",
  "PGK",
  "PHP",
  "PKR",
  "PLN",
  "PYG",
  "QAR",
  "RON",
  "RSD",
  "RUB",
  "RWF",
  "SAR",
  "SBD",
  "SCR",
  "SDG",
  "SEK",
  "SGD",
  "SHP",
  "SLE",
  "SLL",
  "SOS",
  "SRD",
  "SSP",
  "STN",
  "SVC",
  "SYP",
  "SZL",
  "THB",
  "TJS",
  "TMT",
  "TND",
  "TOP",
  "TRY",
  "TTD",
  "TWD",
  "TZS",
  "UAH",
  "UGX",
  "USD",
  "UYU",
  "UZS",
  "VES",
  "VND",
  "VUV",
  "WST",
  "XAF",
  "XCD",
  "XCG",
  "XDR",
  "XOF",
  "XPF",
  "XSU",
  "YER",
  "ZAR",
  "ZMW",
  "ZWG",
  "ZWL",
];

const CURRENCIES: ReadonlySet<string> = new Set(CURRENCY_CODES);

export function isCurrency(code: string): boolean {
  return CURRENCIES.has(code);
}

/** Number of minor-unit digits of a currency (2 for EUR, 0 for JPY, 3 for BHD). */
const scales = new Map<string, number>();

export function currencyScale(currency: string): number {
  let scale = scales.get(currency);
  if (scale === undefined) {
    // Building a NumberFormat is costly; currencies are few, so remember each answer.
    scale = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
    scales.set(currency, scale);
  }
  return scale;
}

/**
 * Turns a JSON number or string into minor units. JSON numbers are accepted only when their
 * shortest decimal form is exact at the currency's scale (12.5 → 1250 for EUR).
 */
export function toMinorUnits(amount: string | number, scale: number, path = "amount"): bigint {
  const text = typeof amount === "number" ? numberToPlainString(amount) : amount.trim();
  if (text === null || !DECIMAL.test(text)) {
    throw platformError("validation_failed", `${path} must be a decimal amount`, { errors: [{ path, message: "not a decimal amount" }] });
  }
  const negative = text.startsWith("-");
  const [whole, fraction = ""] = (negative ? text.slice(1) : text).split(".");
  const trimmed = fraction.replace(/0+$/, "");
  if (trimmed.length > scale) {
    throw platformError("validation_failed", `${path} has more than ${scale} decimal places`, {
      errors: [{ path, message: `at most ${scale} decimal places` }],
    });
  }
  const units = BigInt(whole + trimmed.padEnd(scale, "0"));
  return negative ? -units : units;
}

export function formatMinorUnits(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, "0");
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale);
  return `${negative ? "-" : ""}${whole}${scale > 0 ? `.${fraction}` : ""}`;
}

/** Normalises a decimal to the currency's scale ("12.5" → "12.50"). */
export function normalizeAmount(amount: string | number, currency: string, path?: string): string {
  const scale = currencyScale(currency);
  return formatMinorUnits(toMinorUnits(amount, scale, path), scale);
}

function numberToPlainString(value: number): string | null {
  if (!Number.isFinite(value)) return null;
  const text = String(value);
  return /e/i.test(text) ? null : text;
}

/**
 * Formats an amount read from a numeric column at the currency's scale (2 when none). Reading
 * never fails: digits beyond the scale, which the write path refuses, are kept rather than cut.
 */
export function formatStoredAmount(stored: string, currency: string | null): string {
  const scale = currency ? currencyScale(currency) : 2;
  const [whole, fraction = ""] = stored.split(".");
  const significant = fraction.replace(/0+$/, "").padEnd(scale, "0");
  return significant ? `${whole}.${significant}` : whole;
}

let nonDecimalScales: string | undefined;

/**
 * The scale of every currency whose scale is not 2, as the JSON object { code: scale }: the
 * parameter that storedAmountSql reads (computed once: a NumberFormat per currency).
 */
export function currencyScalesJson(): string {
  nonDecimalScales ??= JSON.stringify(Object.fromEntries([...CURRENCIES].map((code) => [code, currencyScale(code)]).filter(([, scale]) => scale !== 2)));
  return nonDecimalScales;
}

/** SQL for the scale of the currency in `currencyColumn`, given currencyScalesJson() as the jsonb `scales`. */
export function currencyScaleSql(scales: string, currencyColumn: string): string {
  return `COALESCE((${scales} ->> ${currencyColumn})::int, 2)`;
}

/**
 * SQL that formats a numeric column exactly as formatStoredAmount does at the scale `scale` (an
 * SQL expression, see currencyScaleSql): at least that many digits, more kept when stored. For
 * reads whose JSON PostgreSQL writes itself.
 */
export function storedAmountSql(column: string, scale: string): string {
  return `round(${column}, greatest(${scale}, scale(trim_scale(${column}))))::text`;
}
