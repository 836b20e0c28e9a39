// Reading Prometheus text (what GET /metrics answers) in tests.

export type Sample = { name: string; labels: Record<string, string>; value: number };

/** Every sample line of the text; comments (# HELP, # TYPE) are skipped. */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the sample with exactly these labels, or undefined when the text has none. */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels);
  return samples.find(
    (s) => s.name === name && Object.keys(s.labels).length === wanted.length && wanted.every(([key, value]) => s.labels[key] === value),
  )?.value;
}
