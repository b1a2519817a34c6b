// Checks recorded HTTP answers (services/edge/middleware/answer-recorder.ts) against the OpenAPI
// document: the status is documented for the operation, the content type is one it documents
// for that status, and the body matches the schema (for problems, with the codes it lists).
import { Ajv2020 } from "ajv/dist/2020.js";
import type { RecordedAnswer } from "../../services/edge/middleware/answer-recorder.js";

export interface ContractReport {
  validated: number;
  /** One line per distinct mismatch, with how many answers had it and one example. */
  mismatches: string[];
  mismatchCount: number;
}

/** The parts of an OpenAPI document the check reads. */
export interface OpenApiDocument {
  paths?: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** Validates answers; the document is an OpenAPI 3.1 object (its schemas are JSON Schema 2020-12). */
export function checkAnswers(document: OpenApiDocument, answers: Iterable<RecordedAnswer>): ContractReport {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  // The formats the document's schemas use; a wrong format is a contract mismatch too.
  ajv.addFormat("date-time", DATE_TIME);
  ajv.addFormat("date", /^\d{4}-\d{2}-\d{2}$/);
  ajv.addFormat("email", /^[^\s@]+@[^\s@]+$/);
  ajv.addFormat("uri", (value: string) => URL.canParse(value));
  ajv.addFormat("uuid", /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
  ajv.addSchema({ ...document, $id: "openapi" }, "openapi");
  const validators = new Map<string, ReturnType<typeof ajv.compile>>();
  const validatorAt = (pointer: string) => {
    let validate = validators.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `openapi#${pointer}` });
      validators.set(pointer, validate);
    }
    return validate;
  };

  const counts = new Map<string, { count: number; example: string }>();
  let validated = 0;
  const mismatch = (answer: RecordedAnswer, what: string) => {
    const key = `${answer.method} ${answer.route ?? answer.path} → ${answer.status}: ${what}`;
    const entry = counts.get(key) ?? { count: 0, example: `${answer.path} ${JSON.stringify(answer.body)?.slice(0, 300)}` };
    entry.count++;
    counts.set(key, entry);
  };

  for (const answer of answers) {
    validated++;
    const mediaType = answer.contentType.split(";")[0].trim().toLowerCase();
    const method = answer.method === "HEAD" ? "get" : answer.method.toLowerCase();
    if (answer.route === null) {
      // No operation answered: only a problem can (route_not_found, method_not_allowed …).
      if (mediaType !== "application/problem+json") mismatch(answer, `answer of no operation as ${mediaType || "no content type"}`);
      else check(validatorAt("/components/schemas/Problem"), answer, "Problem");
      continue;
    }
    const pathPointer = `/paths/${pointerToken(answer.route)}`;
    const operation = document.paths?.[answer.route]?.[method] as Operation | undefined;
    if (!operation) {
      // The path exists with other methods: the router's 405 (or a 404 of a path-like id).
      if (mediaType === "application/problem+json" && (answer.status === 405 || answer.status === 404))
        check(validatorAt("/components/schemas/Problem"), answer, "Problem");
      else mismatch(answer, `no ${method} operation documented on ${answer.route}`);
      continue;
    }
    const statusKey = [String(answer.status), `${String(answer.status)[0]}XX`, "default"].find((key) => operation.responses[key]);
    if (!statusKey) {
      mismatch(answer, "status not documented for this operation");
      continue;
    }
    const content = operation.responses[statusKey].content;
    if (!content) {
      if (answer.body !== undefined && answer.method !== "HEAD") mismatch(answer, "a body where the document says none");
      continue;
    }
    if (!(mediaType in content)) {
      mismatch(answer, `content type ${mediaType || "none"}; documented: ${Object.keys(content).join(", ")}`);
      continue;
    }
    if (mediaType !== "application/json" && mediaType !== "application/problem+json") continue; // SSE: a stream, not one body
    if (answer.method === "HEAD") continue;
    if (answer.body === undefined) continue; // too large to record
    const pointer = `${pathPointer}/${method}/responses/${statusKey}/content/${pointerToken(mediaType)}/schema`;
    check(validatorAt(pointer), answer, "schema");
  }

  function check(validate: ReturnType<typeof ajv.compile>, answer: RecordedAnswer, what: string): void {
    if (validate(answer.body)) return;
    const first = validate.errors?.[0];
    mismatch(
      answer,
      `body does not match the ${what}: ${first?.instancePath || "(root)"} ${first?.message ?? ""} ${first?.params ? JSON.stringify(first.params) : ""}`.trim(),
    );
  }

  const mismatches = [...counts].map(([key, { count, example }]) => `${key} (${count}×; e.g. ${example})`);
  return { validated, mismatches, mismatchCount: [...counts.values()].reduce((sum, { count }) => sum + count, 0) };
}

/** A JSON pointer token (RFC 6901), also safe in the URI fragment ajv resolves. */
function pointerToken(token: string): string {
  return encodeURIComponent(token.replace(/~/g, "~0").replace(/\//g, "~1"));
}
