// OpenAPI `links`: from each operation that creates a resource (201) to the operations on that
// resource (read, update, delete, its actions), so tools and readers can follow create → read →
// update → delete with the id the create answered.

type Operation = { operationId: string; responses: Record<string, { links?: Record<string, unknown> }> };
type Paths = Record<string, Record<string, Operation>>;

/** Adds links to `paths` in place; answers how many operations got links. */
export function addLinks(paths: Paths): number {
  let linked = 0;
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const created = method === "post" ? operation.responses["201"] : undefined;
      if (!created) continue;
      // The created resource lives under its collection: POST /orders/{id}/shipments creates under /shipments.
      const collection = path.split("/").filter(Boolean).at(-1)!;
      const links = linksTo(paths, `/${collection}/`, "$response.body#/id");
      if (Object.keys(links).length > 0) {
        created.links = links;
        linked++;
      }
    }
  }
  // A test delivery answers an execution record: retrying it needs the hook of the request and its id.
  const test = paths["/hooks/{id}/test"]?.post;
  const retry = paths["/hooks/{id}/executions/{executionId}/retry"]?.post;
  if (test?.responses["200"] && retry) {
    test.responses["200"].links = {
      [retry.operationId]: {
        operationId: retry.operationId,
        parameters: { id: "$request.path.id", executionId: "$response.body#/id" },
        description: "Deliver this test event again",
      },
    };
    linked++;
  }
  return linked;
}

/** Links to every operation on `prefix{param}…` whose only path parameter is that one. */
function linksTo(paths: Paths, prefix: string, value: string): Record<string, unknown> {
  const links: Record<string, unknown> = {};
  for (const [path, operations] of Object.entries(paths)) {
    if (!path.startsWith(prefix)) continue;
    const params = [...path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]);
    if (params.length !== 1 || !path.slice(prefix.length).startsWith(`{${params[0]}}`)) continue;
    for (const operation of Object.values(operations)) {
      links[operation.operationId] = { operationId: operation.operationId, parameters: { [params[0]]: value } };
    }
  }
  return links;
}
