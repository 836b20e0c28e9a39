// How dates and small values read on screen.
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

export const formatDate = (value: Date | string | null | undefined): string =>
  value ? dateTime.format(typeof value === "string" ? new Date(value) : value) : "—";

export const isoOf = (value: Date | string | null | undefined): string | undefined =>
  value ? (typeof value === "string" ? value : value.toISOString()) : undefined;

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
