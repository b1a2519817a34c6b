// The contract check itself: it accepts answers the document describes and names each kind of
// answer it does not (an undocumented status, a body off its schema, text/plain, a problem code
// the operation does not list).
import { describe, expect, it } from "vitest";
import { openApiSnapshot } from "../../services/edge/openapi-snapshot.js";
import type { RecordedAnswer } from "../../services/edge/middleware/answer-recorder.js";
import { checkAnswers } from "./answer-contract.js";

const document = openApiSnapshot();
const problem = (status: number, code: string) => ({ type: `https://waybill.dev/problems/${code}`, title: "T", status, detail: "d", code });
const customer = {
  id: "cus_01jc0000000000000000000000",
  name: "Ada",
  email: null,
  phone: null,
  address: null,
  createdAt: "2026-11-26T10:00:00.000Z",
  updatedAt: "2026-11-26T10:00:00.000Z",
};

function answer(fields: Partial<RecordedAnswer>): RecordedAnswer {
  return { method: "GET", route: "/customers/{id}", path: "/v1/customers/cus_1", status: 200, contentType: "application/json; charset=utf-8", ...fields };
}

describe("checkAnswers", () => {
  it("accepts answers the document describes", () => {
    const report = checkAnswers(document, [
      answer({ body: customer }),
      answer({ status: 404, contentType: "application/problem+json", body: problem(404, "customer_not_found") }),
      answer({ method: "DELETE", route: "/products/{id}", path: "/v1/products/prd_1", status: 204, contentType: "" }),
      answer({ route: null, path: "/v1/nowhere", status: 404, contentType: "application/problem+json", body: problem(404, "route_not_found") }),
    ]);
    expect(report).toEqual({ validated: 4, mismatches: [], mismatchCount: 0 });
  });

  it("names undocumented statuses, bodies off their schema, non-JSON answers and unlisted codes", () => {
    const report = checkAnswers(document, [
      answer({ status: 418, body: {} }),
      answer({ body: { ...customer, name: 42 } }),
      answer({ method: "POST", route: "/hooks/{id}/executions/{executionId}/retry", status: 202, contentType: "text/plain", body: undefined }),
      answer({ status: 404, contentType: "application/problem+json", body: problem(404, "hook_not_found") }),
    ]);
    expect(report.mismatchCount).toBe(4);
    expect(report.mismatches.join("\n")).toMatch(/→ 418: status not documented/);
    expect(report.mismatches.join("\n")).toMatch(/→ 200: body does not match the schema: \/name/);
    expect(report.mismatches.join("\n")).toMatch(/→ 202: content type text\/plain/);
    expect(report.mismatches.join("\n")).toMatch(/→ 404: body does not match the schema: \/code/);
  });
});
