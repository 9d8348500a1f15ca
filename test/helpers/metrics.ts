// Reading a Prometheus text exposition (tkafka's GET /metrics) in tests: the endpoint's address from
// the node's start-up line, and the samples by name and labels.

/** The URL the node logged ("Metrics endpoint serving on http://127.0.0.1:40123/metrics"). */
export function metricsUrl(output: string): string {
  const m = /Metrics endpoint serving on (http:\/\/\S+\/metrics)/.exec(output);
  if (!m) throw new Error(`the node logged no metrics endpoint:\n${output.slice(-2000)}`);
  return m[1]!;
}

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Scrape {
  readonly text: string;
  readonly samples: readonly Sample[];
  /** `# TYPE` of each metric family. */
  readonly types: ReadonlyMap<string, string>;
  /** The samples of `name` whose labels include `labels`. */
  find(name: string, labels?: Record<string, string>): Sample[];
  /** The value of the one sample of `name` with exactly these labels (undefined if none). */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseExposition(text: string): Scrape {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.startsWith('# TYPE ')) {
      const [, , name, type] = line.split(' ');
      types.set(name!, type!);
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL))
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  const matches = (s: Sample, labels: Record<string, string>): boolean =>
    Object.entries(labels).every(([k, v]) => s.labels[k] === v);
  return {
    text,
    samples,
    types,
    find: (name, labels = {}) => samples.filter((s) => s.name === name && matches(s, labels)),
    value: (name, labels = {}) =>
      samples.find(
        (s) => s.name === name && matches(s, labels) && Object.keys(s.labels).length === Object.keys(labels).length,
      )?.value,
  };
}

export async function scrape(url: string): Promise<Scrape> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
  return parseExposition(await res.text());
}
