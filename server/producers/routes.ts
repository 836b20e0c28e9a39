// The producer API's door (docs/producers.md#sending-notifications-from-a-service): other services with a key
// holding `notifications:write` send events and read what became of them. The service's envelope, as on
// every /api path; a key here, never a session.
import { and, asc, eq } from "drizzle-orm";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Db } from "../../db/client.js";
import { notificationEvents, pushDeliveries } from "../../db/schema/index.js";
import { type ApiKeyVerifier, requireScope, type VerifiedKey } from "../auth/api-keys.js";
import { AppError, validationError, zodDetails } from "../errors/errors.js";
import { sendError } from "../errors/rest.js";
import type { UnreadCountMemory } from "../memory/counts.js";
import { funnelOf } from "../push/funnel.js";
import { ingestEvents } from "./ingest.js";
import { EVENTS_PATH } from "./paths.js";
import type { IngestPush } from "./push-deliveries.js";
import { eventBatchInput } from "./schemas.js";

export type ProducerDeps = {
  db: Db;
  /** Payload links and receipt tokens (push-setup.ts); null when push is off. */
  ingestPush: IngestPush | null;
  verifyKey: ApiKeyVerifier;
  /** Called after a batch committed with deliveries queued. */
  queued(): void;
  /** This instance's memory of unread counts: the recipients' are read afresh after a batch. */
  unreadCounts?: UnreadCountMemory;
};

async function producerKey(request: FastifyRequest, verifyKey: ApiKeyVerifier): Promise<VerifiedKey> {
  const key = await verifyKey(request.headers["x-api-key"]);
  requireScope(key, "notifications:write");
  return key;
}

export function registerProducerRoutes(app: FastifyInstance, deps: ProducerDeps): void {
  app.post(EVENTS_PATH, async (request, reply) => {
    try {
      const key = await producerKey(request, deps.verifyKey);
      const parsed = eventBatchInput.safeParse(request.body ?? {});
      if (!parsed.success) throw validationError("Invalid batch of events", zodDetails(parsed.error));
      const { results, queued, notified } = await ingestEvents(deps.db, key.producer, parsed.data.events, deps.ingestPush);
      deps.unreadCounts?.changed(notified);
      if (queued) deps.queued();
      return reply.status(200).send({ success: true, data: { results } });
    } catch (err) {
      return sendError(reply, err);
    }
  });

  app.get<{ Params: { eventId: string } }>(`${EVENTS_PATH}/:eventId`, async (request, reply) => {
    try {
      const key = await producerKey(request, deps.verifyKey);
      const { eventId } = request.params;
      const [event] = await deps.db
        .select()
        .from(notificationEvents)
        .where(and(eq(notificationEvents.producer, key.producer), eq(notificationEvents.eventId, eventId)));
      if (!event) throw new AppError("NOT_FOUND", `Event ${eventId} not found`);
      const deliveries = await deps.db
        .select({
          subscriptionId: pushDeliveries.subscriptionId,
          status: pushDeliveries.status,
          attempts: pushDeliveries.attempts,
          lastStatusCode: pushDeliveries.lastStatusCode,
          lastError: pushDeliveries.lastError,
          sentAt: pushDeliveries.sentAt,
          topic: pushDeliveries.topic,
          displayedAt: pushDeliveries.displayedAt,
          clickedAt: pushDeliveries.clickedAt,
          createdAt: pushDeliveries.createdAt,
        })
        .from(pushDeliveries)
        .where(and(eq(pushDeliveries.producer, key.producer), eq(pushDeliveries.eventId, eventId)))
        .orderBy(asc(pushDeliveries.createdAt), asc(pushDeliveries.id));
      const { notificationId, userId, createdAt, noPush } = event;
      const funnel = funnelOf(deliveries);
      const data = {
        eventId,
        notificationId,
        userId,
        createdAt,
        noPush,
        deliveries: deliveries.map(({ createdAt: _queuedAt, ...d }) => d),
        funnel,
      };
      return reply.status(200).send({ success: true, data });
    } catch (err) {
      return sendError(reply, err);
    }
  });
}
