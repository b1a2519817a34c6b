// Amounts that PostgreSQL formats itself (list pages written as JSON by the database) read the same
// as those formatted in TypeScript: same digits for every scale, currency and stored form.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { currencyScaleSql, currencyScalesJson, formatStoredAmount, storedAmountSql } from "@waybill/platform/money.js";
import { connectToTestServer } from "./support/environment.js";

let db: pg.Client;
beforeAll(async () => {
  db = await connectToTestServer();
});
afterAll(async () => {
  await db?.end();
});

describe("storedAmountSql and currencyScaleSql", () => {
  it("formats numeric(19, 4) amounts exactly as formatStoredAmount does", async () => {
    // Every currency an order may have (orders refuse the others).
    const currencies = Intl.supportedValuesOf("currency");
    const amounts = ["0", "5", "1.5", "19.99", "19.9900", "0.001", "1.2345", "123456789012345.6789", "100", "0.5", "7.0001"];
    const cases = currencies.flatMap((currency) => amounts.map((amount) => ({ currency, amount })));
    const { rows } = await db.query<{ currency: string; stored: string; formatted: string }>(
      `SELECT c.currency, c.amount::numeric(19, 4)::text AS stored, ${storedAmountSql("c.amount::numeric(19, 4)", currencyScaleSql("$2::jsonb", "c.currency"))} AS formatted
         FROM jsonb_to_recordset($1::jsonb) AS c(currency text, amount text)`,
      [JSON.stringify(cases), currencyScalesJson()],
    );
    expect(rows).toHaveLength(cases.length);
    for (const row of rows) expect(row).toEqual({ ...row, formatted: formatStoredAmount(row.stored, row.currency) });
    // The cases cover every branch: padded, trimmed, kept beyond the scale, no fraction at all.
    const formatted = new Map(rows.map((r) => [`${r.currency} ${r.stored}`, r.formatted]));
    expect(formatted.get("EUR 1.5000")).toBe("1.50");
    expect(formatted.get("JPY 5.0000")).toBe("5");
    expect(formatted.get("BHD 19.9900")).toBe("19.990");
    expect(formatted.get("EUR 1.2345")).toBe("1.2345");
  });
});
