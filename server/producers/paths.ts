// Where the producer API is mounted (docs/producers.md#sending-notifications-from-a-service).
export const EVENTS_PATH = "/api/notifications/events";
