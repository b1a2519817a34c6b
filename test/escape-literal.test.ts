// escapeLiteral and textLiteral quote strings for statements sent without parameters: what
// PostgreSQL reads back must be the string itself, quotes, backslashes, dollars and all, and
// escapeLiteral's text must be pg's own.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { escapeLiteral, textLiteral } from "@waybill/platform/db.js";
import { connectToTestServer } from "./support/environment.js";

const SAMPLES = [
  "",
  "plain",
  "it's",
  "''",
  "back\\slash",
  "\\",
  "both ' and \\ and \\'",
  'json {"a":"x\\"y","b":"\\\\n"}',
  "ünïcødé 🚚 and a\nnew line",
  JSON.stringify([{ n: 0, tenant_id: "ten_1", hook_id: "hk_'; DROP TABLE hooks; --", delivery_id: "dlv\\x00" }]),
  "ends with a dollar $",
  "$waybill$ the tag itself, then $waybill$'); DROP TABLE hooks; --",
  "$$ and $waybill and waybill$",
  "ends as the tag begins: $waybill",
];

describe("escapeLiteral", () => {
  let client: pg.Client;
  beforeAll(async () => {
    client = await connectToTestServer();
  });
  afterAll(async () => {
    await client?.end();
  });

  it("writes the same text as pg's escapeLiteral", () => {
    for (const sample of SAMPLES) expect(escapeLiteral(sample)).toBe(pg.escapeLiteral(sample));
  });

  /** Each sample as PostgreSQL reads back `quote(sample)`, with standard_conforming_strings on and then off. */
  async function readBack(quote: (value: string) => string): Promise<string[][]> {
    const read: string[][] = [];
    for (const conforming of ["on", "off"]) {
      await client.query(`SET standard_conforming_strings = ${conforming}`);
      const results = (await client.query(SAMPLES.map((s) => `SELECT ${quote(s)} AS value`).join("; "))) as unknown as { rows: { value: string }[] }[];
      read.push(results.map((r) => r.rows[0].value));
    }
    return read;
  }

  it("reads back as the string itself in PostgreSQL, standard_conforming_strings on or off", async () => {
    expect(await readBack(escapeLiteral)).toEqual([SAMPLES, SAMPLES]);
  });

  it("textLiteral reads back as the string itself, the tag inside it or not", async () => {
    expect(await readBack(textLiteral)).toEqual([SAMPLES, SAMPLES]);
    const json = '{"a":"x\\"y"}';
    expect(textLiteral(json)).toBe(["$waybill$", json, "$waybill$"].join(""));
  });
});
