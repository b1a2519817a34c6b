import { describe, expect, it } from "vitest";
import { preparedStatement } from "./prepared.js";

describe("prepared statements", () => {
  it("carry their name and text with each call's values", () => {
    const insert = preparedStatement("test_insert", "INSERT INTO t (a) VALUES ($1) RETURNING a");
    expect(insert([1])).toEqual({ name: "test_insert", text: "INSERT INTO t (a) VALUES ($1) RETURNING a", values: [1] });
  });

  it("refuse a statement whose result columns are `*` (a migration adding a column would break it)", () => {
    expect(() => preparedStatement("bad_returning", "INSERT INTO t (a) VALUES ($1) RETURNING *")).toThrow(/names no columns/);
    expect(() => preparedStatement("bad_select", "SELECT * FROM t WHERE a = $1")).toThrow(/names no columns/);
    // The rows of jsonb_to_recordset / json_to_recordset are declared in the statement itself.
    expect(() => preparedStatement("ok", "WITH i AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(a int)) SELECT a FROM i")).not.toThrow();
    expect(() => preparedStatement("ok_json", "WITH i AS (SELECT * FROM json_to_recordset($1::json) AS r(a int)) SELECT a FROM i")).not.toThrow();
  });
});
