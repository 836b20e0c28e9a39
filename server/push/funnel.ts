// The push funnel (docs/api.md#delivery-receipts): queued → accepted by the push service → displayed → clicked,
// per event and per producer, from the deliveries' own times. Pure, and free of the schema's drizzle types: the
// apps' types load the answers' shapes (test/consumer).
import { z } from "zod";

export type FunnelDelivery = {
  status: string;
  createdAt: Date;
  sentAt: Date | null;
  displayedAt: Date | null;
  clickedAt: Date | null;
};

const stage = (what: string) =>
  z.object({
    count: z.number().int().describe(`Deliveries ${what}`),
    firstAt: z.date().nullable().describe("When the first of them got there (ISO 8601 date-time, UTC); null when none did"),
    lastAt: z.date().nullable().describe("When the last of them got there; null when none did"),
  });

export const pushFunnelOutput = z
  .object({
    queued: stage("queued (every delivery is, once)"),
    accepted: stage("the push service accepted (2xx)"),
    displayed: stage("a service worker reported showing (or a click, which implies it)"),
    clicked: stage("a click was reported for"),
    superseded: z.number().int().describe("Deliveries superseded by a newer push of the same topic, never sent"),
  })
  .describe("How far the pushes got: each stage's count and its first and last time");

export type PushFunnel = z.infer<typeof pushFunnelOutput>;

function stageOf(times: (Date | null)[]): { count: number; firstAt: Date | null; lastAt: Date | null } {
  const reached = times.filter((t): t is Date => t !== null).map((t) => t.getTime());
  if (!reached.length) return { count: 0, firstAt: null, lastAt: null };
  return { count: reached.length, firstAt: new Date(Math.min(...reached)), lastAt: new Date(Math.max(...reached)) };
}

export function funnelOf(deliveries: readonly FunnelDelivery[]): PushFunnel {
  return {
    queued: stageOf(deliveries.map((d) => d.createdAt)),
    accepted: stageOf(deliveries.map((d) => d.sentAt)),
    displayed: stageOf(deliveries.map((d) => d.displayedAt ?? d.clickedAt)),
    clicked: stageOf(deliveries.map((d) => d.clickedAt)),
    superseded: deliveries.filter((d) => d.status === "superseded").length,
  };
}

const seconds = (what: string) =>
  z.number().nullable().describe(`The median seconds from queued to ${what}, over those that got there; null when none did`);

export const producerFunnelOutput = z.object({
  producer: z.string().describe("The producer (the key's name)"),
  funnel: pushFunnelOutput,
  medianSeconds: z
    .object({ accepted: seconds("accepted"), displayed: seconds("displayed"), clicked: seconds("clicked") })
    .describe("How long each stage took, typically"),
});

export type ProducerFunnel = z.infer<typeof producerFunnelOutput>;

function median(values: number[]): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const secondsTo = (ds: readonly FunnelDelivery[], at: (d: FunnelDelivery) => Date | null) =>
  median(ds.flatMap((d) => (at(d) ? [(at(d)!.getTime() - d.createdAt.getTime()) / 1000] : [])));

/** One funnel per producer, in the order producers first appear. */
export function producerFunnels(deliveries: readonly (FunnelDelivery & { producer: string })[]): ProducerFunnel[] {
  const byProducer = new Map<string, FunnelDelivery[]>();
  for (const d of deliveries) byProducer.set(d.producer, [...(byProducer.get(d.producer) ?? []), d]);
  return [...byProducer].map(([producer, ds]) => ({
    producer,
    funnel: funnelOf(ds),
    medianSeconds: {
      accepted: secondsTo(ds, (d) => d.sentAt),
      displayed: secondsTo(ds, (d) => d.displayedAt ?? d.clickedAt),
      clicked: secondsTo(ds, (d) => d.clickedAt),
    },
  }));
}
