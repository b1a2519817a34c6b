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
  linked += addEventLinks(paths);
  return linked;
}

/**
 * The event log: from a page of events to one event (the first item's id; any item's works the
 * same), and from one event to its deliveries and to the other events of its transaction.
 */
function addEventLinks(paths: Paths): number {
  const list = paths["/events"]?.get;
  const one = paths["/events/{id}"]?.get;
  const deliveries = paths["/events/{id}/deliveries"]?.get;
  if (!list?.responses["200"] || !one?.responses["200"] || !deliveries) return 0;
  list.responses["200"].links = {
    [one.operationId]: {
      operationId: one.operationId,
      parameters: { id: "$response.body#/data/0/id" },
      description: "Read an event of the page again by its id (here the first; `/data/<n>/id` for any other)",
    },
    [deliveries.operationId]: {
      operationId: deliveries.operationId,
      parameters: { id: "$response.body#/data/0/id" },
      description: "The deliveries of an event of the page to every hook",
    },
  };
  one.responses["200"].links = {
    [deliveries.operationId]: {
      operationId: deliveries.operationId,
      parameters: { id: "$response.body#/id" },
      description: "This event's deliveries to every hook",
    },
    [list.operationId]: {
      operationId: list.operationId,
      parameters: { transactionId: "$response.body#/transactionId" },
      description: "Every event of this event's transaction (the operation it was part of)",
    },
  };
  return 2;
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
