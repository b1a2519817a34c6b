// /v1/hooks: thin adapters from HTTP to the dispatcher, which owns hooks and deliveries.
import { MAX_WEBHOOK_TIMEOUT_MS } from "@waybill/contracts/limits/hooks.js";
import type { DispatcherServiceClient, Execution, Hook } from "@waybill/contracts/gen/waybill/dispatcher/v1/dispatcher.js";
import { callUnary } from "@waybill/platform/grpc.js";
import { nullsFor } from "../patch.js";
import { route, type Api } from "../route.js";
import { pageOf, pageQuery } from "../schemas/common.js";
import {
  createdHookOutput,
  createHookBody,
  executionOutput,
  hookOutput,
  recoverHookBody,
  recoverHookOutput,
  retryExecutionOutput,
  rotatedSecretOutput,
  updateHookBody,
} from "../schemas/hooks.js";

/** A test delivery waits for the receiver (at most the dispatcher's longest timeout) before it answers. */
export const HOOK_TEST_DEADLINE_MS = MAX_WEBHOOK_TIMEOUT_MS + 15_000;

export function hooksRoutes(api: Api, dispatcher: DispatcherServiceClient): void {
  route(
    api,
    {
      method: "post",
      path: "/hooks",
      errors: ["blocked_address"],
      summary: "Create a hook (its secret is shown only in this answer)",
      tag: "hooks",
      capability: "hooks:write",
      body: createHookBody,
      response: createdHookOutput,
      status: 201,
      idempotent: true,
    },
    async ({ body, principal, idempotency }) => {
      const created = await callUnary(dispatcher.createHook.bind(dispatcher), {
        tenantId: principal.tenantId,
        ...body,
        ordering: body.ordering ?? "",
        idempotency,
      });
      return {
        body: { ...hookOut(created.hook!), secret: created.secret, secretLastRotatedAt: created.secretLastRotatedAt },
        headers: { Location: `/v1/hooks/${created.hook!.id}` },
        replayed: created.replayed,
      };
    },
  );
  route(
    api,
    { method: "get", path: "/hooks", summary: "List hooks, newest first", tag: "hooks", capability: "read", query: pageQuery, response: pageOf(hookOutput) },
    async ({ query, principal }) => {
      const page = await callUnary(dispatcher.listHooks.bind(dispatcher), { tenantId: principal.tenantId, ...query });
      return { body: { data: page.data.map(hookOut), nextCursor: page.nextCursor ?? null } };
    },
  );
  route(
    api,
    { method: "get", path: "/hooks/:id", summary: "Get a hook", tag: "hooks", capability: "read", response: hookOutput },
    async ({ params, principal }) => {
      const { hook } = await callUnary(dispatcher.getHook.bind(dispatcher), { tenantId: principal.tenantId, id: params.id });
      return { body: hookOut(hook!) };
    },
  );
  route(
    api,
    {
      method: "put",
      path: "/hooks/:id",
      errors: ["blocked_address"],
      summary: "Change a hook's name, url, kind, status or ordering",
      tag: "hooks",
      capability: "hooks:write",
      body: updateHookBody,
      response: hookOutput,
    },
    async ({ body, params, principal }) => {
      const { hook } = await callUnary(dispatcher.updateHook.bind(dispatcher), { tenantId: principal.tenantId, id: params.id, ...body });
      return { body: hookOut(hook!) };
    },
  );
  route(
    api,
    { method: "delete", path: "/hooks/:id", summary: "Delete a hook", tag: "hooks", capability: "hooks:write", status: 204 },
    async ({ params, principal }) => {
      await callUnary(dispatcher.deleteHook.bind(dispatcher), { tenantId: principal.tenantId, id: params.id });
      return {};
    },
  );
  route(
    api,
    {
      method: "post",
      path: "/hooks/:id/rotate",
      summary: "Replace a hook's secret; the old one signs nothing from now on",
      tag: "hooks",
      capability: "hooks:write",
      response: rotatedSecretOutput,
    },
    async ({ params, principal }) => ({
      body: await callUnary(dispatcher.rotateHookSecret.bind(dispatcher), { tenantId: principal.tenantId, id: params.id }),
    }),
  );
  route(
    api,
    {
      method: "post",
      path: "/hooks/:id/test",
      conflicts: ["hook_paused"],
      summary: "Deliver a webhook.test event now and answer its execution record",
      tag: "hooks",
      capability: "hooks:write",
      response: executionOutput,
    },
    async ({ params, principal }) => {
      const { execution } = await callUnary(dispatcher.testHook.bind(dispatcher), { tenantId: principal.tenantId, id: params.id }, HOOK_TEST_DEADLINE_MS);
      return { body: executionOut(execution!) };
    },
  );
  route(
    api,
    {
      method: "get",
      path: "/hooks/:id/executions",
      summary: "List a hook's execution records, newest first",
      tag: "hooks",
      capability: "read",
      query: pageQuery,
      response: pageOf(executionOutput),
    },
    async ({ query, params, principal }) => {
      const page = await callUnary(dispatcher.listExecutions.bind(dispatcher), { tenantId: principal.tenantId, hookId: params.id, ...query });
      return { body: { data: page.data.map(executionOut), nextCursor: page.nextCursor ?? null } };
    },
  );
  route(
    api,
    {
      method: "post",
      path: "/hooks/:id/executions/:executionId/retry",
      conflicts: ["hook_paused"],
      errors: ["event_not_found"],
      summary: "Deliver an execution's event again now (trigger manual)",
      tag: "hooks",
      capability: "hooks:write",
      response: retryExecutionOutput,
      status: 202,
    },
    async ({ params, principal }) => {
      const { eventId } = await callUnary(dispatcher.retryExecution.bind(dispatcher), {
        tenantId: principal.tenantId,
        hookId: params.id,
        executionId: params.executionId,
      });
      return { body: { hookId: params.id, executionId: params.executionId, eventId, queued: true } };
    },
  );
  route(
    api,
    {
      method: "post",
      path: "/hooks/:id/recover",
      conflicts: ["hook_paused", "recovery_in_progress"],
      summary: "Redeliver every event of the hook's kind in [since, until) that never reached it with success (trigger recover; at most 10 000 a call)",
      tag: "hooks",
      capability: "hooks:write",
      status: 202,
      body: recoverHookBody,
      response: recoverHookOutput,
    },
    async ({ params, body, principal }) => {
      const answer = await callUnary(dispatcher.recoverHook.bind(dispatcher), {
        tenantId: principal.tenantId,
        hookId: params.id,
        since: body.since,
        until: body.until ?? "",
      });
      return { status: 202, body: { queued: answer.queued, truncated: answer.truncated } };
    },
  );
}

function hookOut(hook: Hook) {
  return nullsFor(hook, ["lastRunAt", "disabledReason"]);
}

export function executionOut(execution: Execution) {
  return nullsFor(execution, ["statusCode", "responseBody", "error", "nextAttemptAt"]);
}
