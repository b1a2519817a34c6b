// The gRPC surface of the dispatcher: thin adapters from messages to the plain functions and back
// (null ↔ absent optional fields). Validation and rules live in the functions.
import type { DispatcherServiceServer, Execution as ExecutionMessage, Hook as HookMessage } from "@waybill/contracts/gen/waybill/dispatcher/v1/dispatcher.js";
import type { Pool } from "@waybill/platform/db.js";
import { unary } from "@waybill/platform/grpc.js";
import type { Logger } from "@waybill/platform/logger.js";
import type { Topology } from "@waybill/platform/nats.js";
import { pageLimit } from "@waybill/platform/pagination.js";
import type { Deliverer } from "./delivery.js";
import { getEvent, listEvents } from "./event-log.js";
import { listEventExecutions, listExecutions, type Execution } from "./executions.js";
import type { HookUrlCheck } from "./hook-address.js";
import { createHook, deleteHook, getHook, listHooks, rotateHookSecret, updateHook, type Hook } from "./hooks.js";
import type { HookChangeSignal } from "./hook-changes.js";
import { recoverHook } from "./recover.js";
import { retryExecution } from "./redelivery.js";
import type { SecretBox } from "./secrets.js";
import { testHook } from "./test-delivery.js";

export interface DispatcherHandlerDeps {
  pool: Pool;
  topology: Topology;
  secrets: SecretBox;
  deliverer: Deliverer;
  checkUrl?: HookUrlCheck;
  /** Told of each change of a hook once it has committed, before the answer (hook-changes.ts). */
  hookChanges?: HookChangeSignal;
}

export function dispatcherGrpcHandlers(deps: DispatcherHandlerDeps, logger: Logger): DispatcherServiceServer {
  const { pool } = deps;
  return {
    listEvents: unary(logger, async (request) => {
      const page = await listEvents(pool, request.tenantId, {
        kind: request.kind,
        after: request.after,
        transactionId: request.transactionId,
        entityId: request.entityId,
        deviceId: request.deviceId,
        limit: pageLimit(request.limit),
        cursor: request.cursor,
      });
      return { eventsJson: page.data.map((event) => Buffer.from(event)), nextCursor: page.nextCursor ?? undefined };
    }),
    getEvent: unary(logger, async (request) => ({ eventJson: Buffer.from(await getEvent(pool, request.tenantId, request.id)) })),
    listEventExecutions: unary(logger, async (request) => {
      const page = await listEventExecutions(pool, request.tenantId, request.eventId, pageLimit(request.limit), request.cursor);
      return { data: page.data.map(executionMessage), nextCursor: page.nextCursor ?? undefined };
    }),
    createHook: unary(logger, async (request) => {
      const created = await createHook(
        deps,
        request.tenantId,
        { name: request.name, url: request.url, on: request.on, ordering: request.ordering || undefined },
        request.idempotency,
      );
      return { hook: hookMessage(created.hook), secret: created.secret, secretLastRotatedAt: created.secretLastRotatedAt, replayed: created.replayed };
    }),
    listHooks: unary(logger, async (request) => {
      const page = await listHooks(pool, request.tenantId, pageLimit(request.limit), request.cursor);
      return { data: page.data.map(hookMessage), nextCursor: page.nextCursor ?? undefined };
    }),
    getHook: unary(logger, async (request) => ({ hook: hookMessage(await getHook(pool, request.tenantId, request.id)) })),
    updateHook: unary(logger, async (request) => ({
      hook: hookMessage(
        await updateHook(deps, request.tenantId, request.id, {
          name: request.name,
          url: request.url,
          on: request.on,
          status: request.status,
          ordering: request.ordering,
        }),
      ),
    })),
    deleteHook: unary(logger, async (request) => {
      await deleteHook(deps, request.tenantId, request.id);
      return {};
    }),
    rotateHookSecret: unary(logger, async (request) => rotateHookSecret(deps, request.tenantId, request.id)),
    testHook: unary(logger, async (request) => ({ execution: executionMessage(await testHook(deps, request.tenantId, request.id)) })),
    listExecutions: unary(logger, async (request) => {
      const page = await listExecutions(pool, request.tenantId, request.hookId, pageLimit(request.limit), request.cursor);
      return { data: page.data.map(executionMessage), nextCursor: page.nextCursor ?? undefined };
    }),
    retryExecution: unary(logger, (request) => retryExecution(deps, request.tenantId, request.hookId, request.executionId)),
    recoverHook: unary(logger, async (request) =>
      recoverHook(deps, request.tenantId, request.hookId, { since: request.since, until: request.until || undefined }),
    ),
  };
}

function hookMessage(hook: Hook): HookMessage {
  return { ...hook, lastRunAt: hook.lastRunAt ?? undefined, disabledReason: hook.disabledReason ?? undefined };
}

function executionMessage(execution: Execution): ExecutionMessage {
  return {
    ...execution,
    statusCode: execution.statusCode ?? undefined,
    responseBody: execution.responseBody ?? undefined,
    error: execution.error ?? undefined,
    nextAttemptAt: execution.nextAttemptAt ?? undefined,
  };
}
