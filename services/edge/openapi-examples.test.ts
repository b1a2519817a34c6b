// Every request and JSON answer body of the document has an example, and each example (the
// problem ones too) is valid against the schema it illustrates.
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { openApiSnapshot } from "./openapi-snapshot.js";

type MediaType = { schema?: unknown; example?: unknown; examples?: Record<string, { value?: unknown; $ref?: string }> };
type Operation = {
  operationId: string;
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
};

const document = openApiSnapshot() as {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: Operation }>;
  components: { examples: Record<string, { value: unknown }> };
};

/** An example's value, following a $ref into components.examples. */
const exampleValue = (example: { value?: unknown; $ref?: string }) =>
  example.$ref ? document.components.examples[example.$ref.split("/").pop()!].value : example.value;

function mediaTypes(): { where: string; media: MediaType; pointer: string }[] {
  const found: { where: string; media: MediaType; pointer: string }[] = [];
  const token = (s: string) => encodeURIComponent(s.replace(/~/g, "~0").replace(/\//g, "~1"));
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
        found.push({ where: `${method} ${path} request`, media, pointer: `/paths/${token(path)}/${method}/requestBody/content/${token(type)}/schema` });
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          if (type === "text/event-stream") continue;
          found.push({
            where: `${method} ${path} ${status}`,
            media,
            pointer: `/paths/${token(path)}/${method}/responses/${status}/content/${token(type)}/schema`,
          });
        }
      }
    }
  }
  for (const [kind, webhook] of Object.entries(document.webhooks)) {
    found.push({
      where: `webhook ${kind}`,
      media: webhook.post.requestBody!.content["application/json"],
      pointer: `/webhooks/${token(kind)}/post/requestBody/content/application~1json/schema`,
    });
  }
  return found;
}

describe("examples in the OpenAPI document", () => {
  it("illustrate every JSON body, and each is valid against its schema", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ ...document, $id: "openapi" });
    const invalid: string[] = [];
    const missing: string[] = [];
    for (const { where, media, pointer } of mediaTypes()) {
      const examples = media.examples
        ? Object.entries(media.examples).map(([name, e]) => [name, exampleValue(e)] as const)
        : [["example", media.example] as const];
      if (examples.length === 0 || (examples.length === 1 && examples[0][1] === undefined)) missing.push(where);
      const validate = ajv.compile({ $ref: `openapi#${pointer}` });
      for (const [name, value] of examples) {
        if (value !== undefined && !validate(value))
          invalid.push(`${where} ${name}: ${JSON.stringify(validate.errors?.slice(0, 2))} in ${JSON.stringify(value).slice(0, 200)}`);
      }
    }
    expect(missing).toEqual([]);
    expect(invalid).toEqual([]);
  });

  it("look like real values: prefixed ids, timestamps, a currency, a URL", () => {
    const created = document.paths["/orders"].post.responses["201"].content!["application/json"].example as Record<string, unknown>;
    expect(created.id).toMatch(/^ord_[0-9a-z]{26}$/);
    expect(created.customerId).toMatch(/^cus_/);
    expect(created.currency).toBe("EUR");
    expect(created.createdAt).toBe("2026-11-26T09:30:00.000Z");
    const hook = document.paths["/hooks"].post.requestBody!.content["application/json"].example as Record<string, unknown>;
    expect(hook).toMatchObject({ url: "https://erp.example.com/hooks/waybill", on: "order.created" });
    const login = document.paths["/auth/login"].post.requestBody!.content["application/json"].example;
    expect(login).toEqual({ email: "ada@example.com", password: "correct-horse-battery-staple", remember: true });
  });
});
